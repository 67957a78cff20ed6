//! Every workload, at its smoke size, parses, verifies and lowers through both default
//! pipelines (as `dlc-opt --pipeline=decompose,fuse,lower,cpu-default` does); at its full size
//! it parses and verifies, so the static shapes of the published numbers are well-typed.

use dlc_bench::workloads::{Size, WORKLOADS};
use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, verify, Context, Op};

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_graph::dialect());
    ctx.register_dialect(dlc_loop::dialect());
    ctx.register_dialect(dlc_loop::math_dialect());
    ctx
}

fn parse(ctx: &mut Context, name: &str, text: &str) -> Result<Op, String> {
    let module = parse_source(ctx, text, name, 1).map_err(|d| format!("{d:?}"))?;
    verify(ctx, module).map_err(|d| format!("{d:?}"))?;
    Ok(module)
}

fn run(ctx: &mut Context, module: Op, pipeline: &str) -> Result<(), String> {
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline(pipeline).map_err(|e| e.render("--pipeline", pipeline))?;
    let mut pm = registry
        .build(&spec, "builtin.module")
        .map_err(|e| e.render("--pipeline", pipeline))?;
    pm.run(ctx, module)
        .map(|_| ())
        .map_err(|f| format!("pass '{}': {:?}", f.pass, f.diagnostics))
}

#[test]
fn smoke_sizes_lower_for_cpu_and_gpu() {
    for w in &WORKLOADS {
        let text = w.ir(Size::Smoke).expect("instantiates");
        for target in ["cpu-default", "gpu-default"] {
            let mut ctx = context();
            let module =
                parse(&mut ctx, w.name, &text).unwrap_or_else(|e| panic!("{}: {e}", w.name));
            let pipeline = format!("decompose,fuse,lower,{target}");
            run(&mut ctx, module, &pipeline)
                .unwrap_or_else(|e| panic!("{} --pipeline={pipeline}: {e}", w.name));
            verify(&ctx, module).unwrap_or_else(|d| panic!("{} after {pipeline}: {d:?}", w.name));
        }
    }
}

#[test]
fn full_sizes_verify() {
    for w in &WORKLOADS {
        let text = w.ir(Size::Full).expect("instantiates");
        let mut ctx = context();
        parse(&mut ctx, w.name, &text).unwrap_or_else(|e| panic!("{}: {e}", w.name));
    }
}
