//! The ONNX conformance suite: onnx's backend node tests, imported and run by dlc.
//!
//! `scripts/onnx_node_tests.py` writes the 1,884 node tests of the pinned onnx package (built in
//! memory by `onnx.backend.test.loader`) under `target/onnx-node`, each with its inputs, its
//! expected outputs (and, for the report, onnxruntime's result on it). Every case is imported
//! ([`dlc_driver::onnx::import_onnx`], shape-like inputs specialized on their given values),
//! compiled with dlc's own code generator ([`Model`], the default pipeline; every other case
//! with the quick tier's LLVM optimization, the rest with the optimized tier's: [`tiers`]),
//! run, and compared with the expected outputs at the case's tolerances (numpy `allclose`,
//! rtol 1e-3 / atol 1e-7); the graph interpreter's outputs on the imported function must match
//! them too. A case passes when both do.
//!
//! Each case's status — `pass`, `fail` (imported, but an error or a mismatch later) or
//! `unsupported` (the import refuses it, or the data is not plain tensors) — is recorded with a
//! one-line reason in test/onnx/expectations.tsv. The test fails on any difference from that
//! file: a regression, and also a pass that is not recorded as one. `DLC_UPDATE_ONNX=1`
//! rewrites the file and docs/onnx-conformance.md (per-operator counts, reasons, onnxruntime's
//! results beside dlc's) from the run. `DLC_ONNX_FILTER=text` runs only the cases whose name
//! contains `text` and prints their statuses (for work on one operator; nothing is compared).

use dlc_driver::check::reference;
use dlc_driver::inputs::npy_inputs;
use dlc_driver::onnx::{compare_expected, import_onnx, read_reference};
use dlc_driver::{LlvmOpt, Model, ModelOptions};
use dlc_tensor::{DType, Literal};
use dlc_testkit::{par_cases, report, scale};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The checked-in statuses.
const EXPECTATIONS: &str = "test/onnx/expectations.tsv";
/// The generated report.
const REPORT: &str = "docs/onnx-conformance.md";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One line of the exporter's cases.tsv.
struct Case {
    name: String,
    rtol: f64,
    atol: f64,
    inputs: usize,
    outputs: usize,
    expanded: bool,
    skip: Option<String>,
    ort: Option<String>,
    op_types: Vec<String>,
}

fn parse_case(line: &str) -> Option<Case> {
    let f: Vec<&str> = line.split('\t').collect();
    let opt = |s: &str| (s != "-").then(|| s.to_string());
    Some(Case {
        name: f.first()?.to_string(),
        rtol: f.get(1)?.parse().ok()?,
        atol: f.get(2)?.parse().ok()?,
        inputs: f.get(3)?.parse().ok()?,
        outputs: f.get(4)?.parse().ok()?,
        expanded: *f.get(5)? == "1",
        skip: opt(f.get(6)?),
        ort: opt(f.get(7)?),
        op_types: f
            .get(8)?
            .split(',')
            .filter(|s| *s != "-")
            .map(str::to_string)
            .collect(),
    })
}

/// A case's status and its one-line reason.
#[derive(Clone, Debug, PartialEq)]
struct Status {
    kind: &'static str,
    reason: String,
}

impl Status {
    fn new(kind: &'static str, reason: impl Into<String>) -> Status {
        let reason: String = reason.into();
        let line = reason.lines().next().unwrap_or("").replace('\t', " ");
        let reason = match line.char_indices().nth(200) {
            Some((cut, _)) => format!("{}…", &line[..cut]),
            None => line,
        };
        Status { kind, reason }
    }
}

/// The LLVM optimizations case number `index` is compiled with: every other case takes the
/// quick tier's ([`LlvmOpt::Quick`], the code a model runs before its tier-up) and the others
/// the optimized tier's, so each tier's code meets every operator; the long tier
/// (`DLC_TEST_SCALE` of 2 or more) compiles every case both ways.
fn tiers(index: usize) -> &'static [LlvmOpt] {
    if scale() >= 2 {
        &[LlvmOpt::Lean, LlvmOpt::Quick]
    } else if index % 2 == 0 {
        &[LlvmOpt::Lean]
    } else {
        &[LlvmOpt::Quick]
    }
}

/// Runs case number `index`: its status with the first of its [`tiers`] that does not pass
/// (the same reasons whichever tier, so the expectations hold for both). The graph
/// interpreter, which no tier changes, is checked with the first only.
fn run_case(dir: &Path, case: &Case, index: usize) -> Status {
    let mut status = Status::new("pass", "");
    for (n, &opt) in tiers(index).iter().enumerate() {
        status = run_tier(dir, case, opt, n == 0);
        if status.kind != "pass" {
            break;
        }
    }
    status
}

/// Runs one case, compiled with `opt`; with `interpreter`, the graph interpreter's outputs are
/// compared too.
fn run_tier(dir: &Path, case: &Case, opt: LlvmOpt, interpreter: bool) -> Status {
    if let Some(skip) = &case.skip {
        return Status::new("unsupported", format!("data: {skip}"));
    }
    let files = |prefix: &str, n: usize| -> Vec<PathBuf> {
        (0..n)
            .map(|i| dir.join(format!("{prefix}_{i}.npy")))
            .collect()
    };
    // Reasons name files relative to the case, so the expectations do not depend on where
    // the checkout is.
    let local = |e: String| e.replace(&format!("{}/", dir.display()), "");
    let model_path = dir.join("model.onnx");
    let given = match npy_inputs(&files("input", case.inputs)) {
        Ok(g) => narrow_given_bf16(&model_path, g),
        Err(e) => return Status::new("unsupported", format!("input data: {}", local(e))),
    };
    let imported = match import_onnx(&model_path, Default::default(), Some(&given)) {
        Ok(i) => i,
        Err(e) => {
            let e = e.replace(&format!("{}: error: ", model_path.display()), "");
            return Status::new("unsupported", e);
        }
    };
    let inputs: Vec<_> = imported
        .arguments
        .iter()
        .filter_map(|i| given.get(*i).cloned())
        .collect();
    let expected = match files("output", case.outputs)
        .iter()
        .map(|p| read_reference(p))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(e) => e,
        Err(e) => return Status::new("unsupported", format!("output data: {}", local(e))),
    };
    let options = ModelOptions {
        opt,
        ..ModelOptions::default()
    };
    let model = match imported.compile(&case.name, &options) {
        Ok(m) => m,
        Err(e) => return Status::new("fail", format!("compile: {e}")),
    };
    let (inputs, expected) = match narrow_bf16(&model, inputs, expected) {
        Ok(data) => data,
        Err(e) => return Status::new("fail", format!("bf16 data: {e}")),
    };
    let compare = |what: &str, outputs: Vec<Literal>| -> Option<Status> {
        if outputs.len() != expected.len() {
            return Some(Status::new(
                "fail",
                format!(
                    "{what}: {} outputs, expected {}",
                    outputs.len(),
                    expected.len()
                ),
            ));
        }
        for (i, (o, e)) in outputs.iter().zip(&expected).enumerate() {
            let rtol = output_rtol(o.dtype(), case.rtol);
            let r = compare_expected(o, e, rtol, case.atol);
            if let Some(p) = r.problem {
                return Some(Status::new(
                    "fail",
                    format!(
                        "{what} output {i}: {p} ({} elements outside rtol {rtol} atol {})",
                        r.mismatches, case.atol
                    ),
                ));
            }
        }
        None
    };
    if interpreter {
        match reference(&model, &inputs) {
            Ok(outs) => {
                if let Some(s) = compare("interpreter", outs) {
                    return s;
                }
            }
            Err(e) => return Status::new("fail", format!("interpreter: {e}")),
        }
    }
    let refs: Vec<_> = inputs.iter().collect();
    let mut session = model.session();
    let outputs = session
        .run(&refs)
        .map_err(|e| e.to_string())
        .and_then(|outs| {
            outs.iter()
                .map(|v| v.to_literal().map_err(|e| e.to_string()))
                .collect::<Result<Vec<_>, _>>()
        });
    match outputs {
        Ok(outs) => compare("jit", outs).unwrap_or_else(|| Status::new("pass", "")),
        Err(e) => Status::new("fail", format!("run: {e}")),
    }
}

/// The relative tolerance an output of `dtype` is compared with: the case's, except that a
/// `bf16` output gets at least two bf16 ulps (2^-6 relative), as onnx's own runner
/// (`onnx.backend.test.runner`, `assert_similar_outputs`) compares them. The suite's 1e-3 is
/// finer than bfloat16's precision, and its references round to bf16 after every numpy step,
/// so a computation that rounds differently (once, from f32, as dlc's composites do) can
/// differ by an ulp or two; anything wider still fails.
fn output_rtol(dtype: DType, rtol: f64) -> f64 {
    if dtype == DType::BF16 {
        rtol.max(2f64.powi(-6))
    } else {
        rtol
    }
}

/// `given`, the values of the graph inputs of the model at `path`, with those the model declares
/// `bf16` narrowed from the `f32` the export writes them as, so that an input the import
/// specializes on its value has its declared type (see [`narrow_bf16`]).
fn narrow_given_bf16(path: &Path, given: Vec<dlc_runtime::Tensor>) -> Vec<dlc_runtime::Tensor> {
    use dlc_onnx::proto::type_proto::Value;
    const BFLOAT16: i32 = 16;
    let model = std::fs::read(path)
        .ok()
        .and_then(|bytes| dlc_onnx::decode_model(bytes).ok());
    let Some(graph) = model.and_then(|m| m.graph) else {
        return given;
    };
    let initializers: Vec<&str> = graph.initializer.iter().map(|t| t.name.as_str()).collect();
    let inputs = (graph.input.iter()).filter(|i| !initializers.contains(&i.name.as_str()));
    let declared_bf16 = inputs.map(|i| {
        matches!(i.r#type.as_ref().and_then(|t| t.value.as_ref()),
            Some(Value::TensorType(t)) if t.elem_type == BFLOAT16)
    });
    given
        .into_iter()
        .zip(declared_bf16.chain(std::iter::repeat(false)))
        .map(|(t, narrow)| match (narrow, t.dtype()) {
            (true, DType::F32) => {
                dlc_runtime::Tensor::from_literal(&t.to_literal().cast(DType::BF16)).unwrap_or(t)
            }
            _ => t,
        })
        .collect()
}

/// The case's data with every tensor the model declares `bf16` narrowed from the `f32` the
/// export writes it as (numpy has no bfloat16; the widening is exact, so is this).
fn narrow_bf16(
    model: &Model,
    inputs: Vec<dlc_runtime::Tensor>,
    expected: Vec<Literal>,
) -> Result<(Vec<dlc_runtime::Tensor>, Vec<Literal>), String> {
    let (ctx, func) = model.source()?;
    let Some((args, results)) = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_as_type(a))
        .and_then(|t| ctx.function_signature(t))
    else {
        return Ok((inputs, expected));
    };
    let bf16 = |ty: &dlc_ir::Type| ctx.element_type(*ty) == dlc_ir::Type::BF16;
    let inputs = inputs
        .into_iter()
        .zip(args.iter().map(bf16).chain(std::iter::repeat(false)))
        .map(|(t, narrow)| match (narrow, t.dtype()) {
            (true, DType::F32) => {
                dlc_runtime::Tensor::from_literal(&t.to_literal().cast(DType::BF16))
                    .map_err(|e| e.to_string())
            }
            _ => Ok(t),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let expected = expected
        .into_iter()
        .zip(results.iter().map(bf16).chain(std::iter::repeat(false)))
        .map(|(t, narrow)| match (narrow, t.dtype()) {
            (true, DType::F32) => t.cast(DType::BF16),
            _ => t,
        })
        .collect();
    Ok((inputs, expected))
}

/// Why a case that fails does, by its name: every `fail` must have an explanation here (the
/// test checks it), so a new failure is looked at rather than recorded.
const FAILURE_EXPLANATIONS: &[(&str, &str)] = &[
    (
        "_fp16_expanded",
        "The function body runs op by op in float16, and the reference's numpy float16 rounds \
         its intermediate results (softmax, matmul accumulation, conv) differently from dlc's \
         compiled or interpreted ops; a few elements differ by one or two f16 ulps, which the \
         case's rtol of 1e-3 (about one f16 ulp) does not allow.",
    ),
    (
        "test_dft_inverse",
        "The expected output holds numpy's complex64 rounding noise (1.9e-7 where the exact \
         inverse is about 1e-15), above the case's atol of 1e-7; dlc's result is the exact one.",
    ),
];

/// The explanation of failing case `name`, if [`FAILURE_EXPLANATIONS`] has one.
fn failure_explanation(name: &str) -> Option<&'static str> {
    FAILURE_EXPLANATIONS
        .iter()
        .find(|(pattern, _)| name.contains(pattern))
        .map(|(_, why)| *why)
}

/// Exports the node tests of the pinned onnx package into `out`; with `ort`, each case's
/// onnxruntime result too (the report's column, so only when `DLC_UPDATE_ONNX` rewrites it:
/// 5–8 s of CPU).
fn export(out: &Path, ort: bool) {
    let mut command = Command::new("python3");
    command
        .arg(root().join("scripts/onnx_node_tests.py"))
        .arg("--out")
        .arg(out);
    if ort {
        command.arg("--ort");
    }
    let status = command
        .status()
        .expect("python3 runs (scripts/setup.sh installs onnx and onnxruntime)");
    assert!(status.success(), "scripts/onnx_node_tests.py failed");
}

fn read_expectations(path: &Path) -> BTreeMap<String, Status> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let mut f = l.splitn(3, '\t');
            let name = f.next()?.to_string();
            let kind = match f.next()? {
                "pass" => "pass",
                "fail" => "fail",
                _ => "unsupported",
            };
            Some((name, Status::new(kind, f.next().unwrap_or(""))))
        })
        .collect()
}

fn write_expectations(path: &Path, cases: &[Case], results: &[Status]) {
    let mut text = String::from(
        "# The status of each ONNX backend node test in dlc (compiler/driver/tests/onnx_conformance.rs).\n# Regenerate with DLC_UPDATE_ONNX=1 cargo test -p dlc-driver --test onnx_conformance.\n",
    );
    for (c, s) in cases.iter().zip(results) {
        let _ = writeln!(text, "{}\t{}\t{}", c.name, s.kind, s.reason);
    }
    std::fs::create_dir_all(path.parent().expect("a file in a directory"))
        .expect("create test/onnx");
    std::fs::write(path, text).expect("write the expectations");
}

/// The operator a case tests: its only op, or for an expanded test the op of the test it
/// expands.
fn primary_op(case: &Case, by_name: &BTreeMap<&str, &Case>) -> String {
    if case.expanded {
        let base = case.name.split("_expanded").next().unwrap_or(&case.name);
        if let Some(b) = by_name.get(base) {
            return format!("{} (expanded)", b.op_types.join("+"));
        }
    }
    match case.op_types.as_slice() {
        [] => "(none)".into(),
        ops => ops.join("+"),
    }
}

fn write_report(path: &Path, cases: &[Case], results: &[Status], seconds: f64) {
    let by_name: BTreeMap<&str, &Case> = cases.iter().map(|c| (c.name.as_str(), c)).collect();
    #[derive(Default)]
    struct Row {
        total: usize,
        pass: usize,
        fail: usize,
        unsupported: usize,
        ort_pass: usize,
    }
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    for (c, s) in cases.iter().zip(results) {
        let row = rows.entry(primary_op(c, &by_name)).or_default();
        row.total += 1;
        match s.kind {
            "pass" => row.pass += 1,
            "fail" => row.fail += 1,
            _ => row.unsupported += 1,
        }
        row.ort_pass += usize::from(c.ort.as_deref() == Some("pass"));
    }
    let count = |k: &str| results.iter().filter(|s| s.kind == k).count();
    let ort_pass = cases
        .iter()
        .filter(|c| c.ort.as_deref() == Some("pass"))
        .count();
    let mut md = String::new();
    let _ = writeln!(md, "# ONNX conformance: the backend node tests\n");
    let _ = writeln!(
        md,
        "Generated by `DLC_UPDATE_ONNX=1 cargo test -p dlc-driver --test onnx_conformance` \
         (compiler/driver/tests/onnx_conformance.rs) from the {} node tests of onnx 1.23.2 \
         (`onnx.backend.test.loader.load_model_tests(kind=\"node\")`, exported by \
         scripts/onnx_node_tests.py). A case **passes** when dlc imports it, compiles it with its \
         own code generator (LLVM JIT, default pipeline), and both the compiled code and the graph \
         interpreter match the expected outputs within the case's tolerance (numpy `allclose`, \
         rtol 1e-3, atol 1e-7; a bfloat16 output within at least two bf16 ulps, rtol 2^-6, as \
         onnx's own runner compares them, since 1e-3 is finer than the format and the references \
         round to bfloat16 after every numpy step; bfloat16 data is exported widened to float32, \
         exactly). python/tests/test_onnx_backend.py runs the same cases through onnx's runner \
         (`onnx.backend.test.BackendTest`) and `dlc.onnx_backend`, and checks that they pass \
         exactly where this harness records a pass. **unsupported**: the \
         importer refuses the model (an operator, \
         attribute or dtype dlc does not have) or its data is not plain tensors. **fail**: \
         imported, then an error or a mismatch. onnxruntime 1.32 (CPU provider, default options) \
         ran the same cases in the same export.\n",
        cases.len()
    );
    let _ = writeln!(
        md,
        "**dlc: {} pass, {} fail, {} unsupported** of {}; onnxruntime passes {ort_pass}. \
         The run took {seconds:.0} s (export and onnxruntime included) on `{}`.\n",
        count("pass"),
        count("fail"),
        count("unsupported"),
        cases.len(),
        cpu_model()
    );
    let _ = writeln!(md, "## Why the failing cases fail\n");
    let _ = writeln!(md, "| case | explanation |");
    let _ = writeln!(md, "|---|---|");
    for (c, s) in cases.iter().zip(results) {
        if s.kind == "fail" {
            let why = failure_explanation(&c.name).unwrap_or("**not explained**");
            let _ = writeln!(md, "| {} | {why} |", c.name);
        }
    }
    let _ = writeln!(md);
    let _ = writeln!(md, "## Per operator\n");
    let _ = writeln!(
        md,
        "| operator | cases | dlc pass | fail | unsupported | onnxruntime pass |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|");
    for (op, r) in &rows {
        let _ = writeln!(
            md,
            "| {op} | {} | {} | {} | {} | {} |",
            r.total, r.pass, r.fail, r.unsupported, r.ort_pass
        );
    }
    let _ = writeln!(md, "\n## Cases that do not pass, with reasons\n");
    let _ = writeln!(md, "| case | dlc | reason | onnxruntime |");
    let _ = writeln!(md, "|---|---|---|---|");
    for (c, s) in cases.iter().zip(results) {
        if s.kind != "pass" {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                c.name,
                s.kind,
                s.reason.replace('|', "\\|"),
                c.ort.as_deref().unwrap_or("not run").replace('|', "\\|")
            );
        }
    }
    std::fs::write(path, md).expect("write the conformance report");
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[test]
fn onnx_node_tests() {
    let start = std::time::Instant::now();
    let out = root().join("target/onnx-node");
    let update = std::env::var_os("DLC_UPDATE_ONNX").is_some();
    export(&out, update);
    let list = std::fs::read_to_string(out.join("cases.tsv")).expect("the export wrote cases.tsv");
    let cases: Vec<Case> = list.lines().filter_map(parse_case).collect();
    assert!(cases.len() > 1000, "the export lists {} cases", cases.len());
    if let Ok(filter) = std::env::var("DLC_ONNX_FILTER") {
        let some: Vec<(usize, &Case)> = cases
            .iter()
            .enumerate()
            .filter(|(_, c)| c.name.contains(&filter))
            .collect();
        for ((_, c), s) in some.iter().zip(par_cases(&some, |&(i, c)| {
            Ok(run_case(&out.join(&c.name), c, i))
        })) {
            let s = s.unwrap_or_else(|panic| Status::new("fail", panic));
            eprintln!("{}\t{}\t{}", c.name, s.kind, s.reason);
        }
        return;
    }
    let numbered: Vec<(usize, &Case)> = cases.iter().enumerate().collect();
    let results: Vec<Status> =
        par_cases(&numbered, |&(i, c)| Ok(run_case(&out.join(&c.name), c, i)))
            .into_iter()
            .map(|r| r.unwrap_or_else(|panic| Status::new("fail", panic)))
            .collect();
    report("onnx_node_tests", cases.len());
    let passes = results.iter().filter(|s| s.kind == "pass").count();
    let expectations = root().join(EXPECTATIONS);
    if update {
        write_expectations(&expectations, &cases, &results);
        write_report(
            &root().join(REPORT),
            &cases,
            &results,
            start.elapsed().as_secs_f64(),
        );
        eprintln!("onnx_node_tests: {passes} pass; wrote {EXPECTATIONS} and {REPORT}");
        return;
    }
    let recorded = read_expectations(&expectations);
    let mut differences = Vec::new();
    for (c, s) in cases.iter().zip(&results) {
        let was = recorded.get(&c.name).map_or("(not recorded)", |r| r.kind);
        if was != s.kind {
            differences.push(format!(
                "{}: recorded {was}, now {} {}",
                c.name, s.kind, s.reason
            ));
        }
    }
    let unexplained: Vec<&str> = cases
        .iter()
        .zip(&results)
        .filter(|(c, s)| s.kind == "fail" && failure_explanation(&c.name).is_none())
        .map(|(c, _)| c.name.as_str())
        .collect();
    assert!(
        unexplained.is_empty(),
        "failing cases without an explanation in FAILURE_EXPLANATIONS: {unexplained:?}"
    );
    assert!(
        differences.is_empty(),
        "{} cases differ from {EXPECTATIONS} (rerun with DLC_UPDATE_ONNX=1 when intended):\n{}",
        differences.len(),
        differences.join("\n")
    );
    assert!(passes >= 440, "only {passes} node tests pass");
}
