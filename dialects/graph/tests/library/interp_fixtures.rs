//! The interpreter against numpy: every case in `tests/fixtures/` (written by
//! `tools/fixtures/gen_graph_fixtures.py`) runs `@main` of its `case.mlir` on `in<i>.npy` and
//! compares the results with `out<i>.npy`.
//!
//! The fixtures are in generic form and parsed with unregistered dialects allowed, so this test
//! checks the interpreter's semantics independently of the dialect's syntax and verifier.
//!
//! Tolerances (an element passes within the ulp bound *or* the absolute bound; the absolute
//! bound covers results near zero, whose error is that of the larger terms that cancelled):
//! - integers and `i1`: exact;
//! - `f64`: 16 ulp or 1e-12 — numpy sums pairwise and uses other libm routines;
//! - `f32`: 1 ulp or 1e-6, `f16`: 1 ulp or 1e-3, `bf16`: 1 ulp or 1e-2 — both sides compute in
//!   f64 and round once, so they differ only when the f64 values straddle a rounding boundary
//!   (or in the f64→f32→f16 double rounding `FloatKind::round` does, which numpy does not).

use dlc_graph::interp::interpret;
use dlc_ir::{parse_source, Context, Op};
use dlc_tensor::{DType, Literal};
use std::path::{Path, PathBuf};

fn tolerance(dtype: DType) -> (u64, f64) {
    match dtype {
        DType::F64 => (16, 1e-12),
        DType::F32 => (1, 1e-6),
        DType::F16 => (1, 1e-3),
        DType::BF16 => (1, 1e-2),
        _ => (0, 0.0),
    }
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The dtypes of a function's inputs and results, from its `function_type`.
fn signature_dtypes(ctx: &Context, func: Op) -> (Vec<DType>, Vec<DType>) {
    let ty = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_as_type(a))
        .expect("function_type");
    let (ins, outs) = ctx.function_signature(ty).expect("a function type");
    let dtype = |t: &dlc_ir::Type| {
        DType::from_type(ctx, ctx.element_type(*t)).expect("a supported element type")
    };
    (
        ins.iter().map(dtype).collect(),
        outs.iter().map(dtype).collect(),
    )
}

/// How a case's IR is read.
#[derive(Copy, Clone)]
enum Dialects {
    /// Unregistered dialects allowed: the interpreter alone is under test.
    Unregistered,
    /// func and graph registered and the module verified: the fixtures are also valid IR for
    /// the dialect's verifier.
    Registered,
}

/// Runs one case; the error describes the first difference.
fn run_case(dir: &Path, dialects: Dialects) -> Result<(), String> {
    let src = std::fs::read_to_string(dir.join("case.mlir")).map_err(|e| e.to_string())?;
    let mut ctx = Context::new();
    match dialects {
        Dialects::Unregistered => ctx.allow_unregistered = true,
        Dialects::Registered => {
            ctx.register_dialect(dlc_func::dialect());
            ctx.register_dialect(dlc_graph::dialect());
        }
    }
    let module = parse_source(&mut ctx, &src, "case.mlir", 1)
        .map_err(|d| format!("parse: {}", d.message))?;
    if let Dialects::Registered = dialects {
        dlc_ir::verify(&ctx, module).map_err(|d| format!("verify: {}", d.message))?;
    }
    let body = ctx.blocks(ctx.region(module, 0))[0];
    let main = ctx
        .block_ops(body)
        .find(|op| dlc_ir::symbol::symbol_name(&ctx, *op) == Some("main"))
        .ok_or("no @main")?;
    let (in_dtypes, out_dtypes) = signature_dtypes(&ctx, main);
    let inputs = in_dtypes
        .iter()
        .enumerate()
        .map(|(i, d)| Literal::read_npy_as(dir.join(format!("in{i}.npy")), *d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let results =
        interpret(&ctx, main, &inputs).map_err(|d| format!("interpret: {}", d.message))?;
    if results.len() != out_dtypes.len() {
        return Err(format!(
            "{} results, {} expected",
            results.len(),
            out_dtypes.len()
        ));
    }
    for (i, (got, dtype)) in results.iter().zip(&out_dtypes).enumerate() {
        let expected = Literal::read_npy_as(dir.join(format!("out{i}.npy")), *dtype)
            .map_err(|e| e.to_string())?;
        let (ulps, abs) = tolerance(*dtype);
        got.check_close(&expected, ulps, abs)
            .map_err(|m| format!("result #{i}: {m}"))?;
    }
    Ok(())
}

/// Runs every fixture case and lists the failures.
fn run_all(dialects: Dialects) {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("tests/fixtures exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.join("case.mlir").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 250, "only {} fixture cases", dirs.len());
    let failures: Vec<String> = dirs
        .iter()
        .filter_map(|d| {
            let name = d.file_name().unwrap_or_default().to_string_lossy();
            run_case(d, dialects).err().map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        dirs.len(),
        failures.join("\n")
    );
}

#[test]
fn interpreter_matches_numpy() {
    run_all(Dialects::Unregistered);
}

#[test]
fn fixtures_verify_with_the_graph_dialect() {
    run_all(Dialects::Registered);
}
