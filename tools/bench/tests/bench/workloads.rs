//! Every workload, at its smoke size, parses, verifies and lowers through both default
//! pipelines (as `dlc-opt --pipeline=decompose,fuse,lower,cpu-default` does); at its full size
//! it parses and verifies, so the static shapes of the published numbers are well-typed.

use dlc_bench::workloads::{Size, WORKLOADS};
use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, verify, Context, Op};

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
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

/// The JIT differential test of the workloads: each one at its smoke size, compiled by
/// `dlc-run`'s default pipeline for this CPU and for AVX2 (`x86-64-v3`, the schedule of the
/// other machines), runs on random inputs and matches the graph interpreter within the
/// tolerance `dlc-run --check` uses.
#[test]
fn smoke_sizes_match_the_interpreter_through_the_jit() {
    use dlc_driver::{check, inputs, CpuTarget, Model, ModelOptions};
    let mut cpus = vec![CpuTarget::Host];
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
        cpus.push(CpuTarget::X86_64 { level: 3 });
    }
    let cases: Vec<(&'static str, CpuTarget)> = WORKLOADS
        .iter()
        .flat_map(|w| cpus.iter().map(move |&cpu| (w.name, cpu)))
        .collect();
    let outcomes = dlc_testkit::par_cases(&cases, |&(name, cpu)| {
        let w = WORKLOADS
            .iter()
            .find(|w| w.name == name)
            .ok_or("no such workload")?;
        let text = w.ir(Size::Smoke).map_err(|e| e.to_string())?;
        let options = ModelOptions {
            cpu,
            ..ModelOptions::default()
        };
        let model = Model::compile(&text, name, &options)?;
        let inputs = inputs::random_inputs(model.program().signature(), 7, 1)?;
        let refs: Vec<&dlc_runtime::Tensor> = inputs.iter().collect();
        let mut session = model.session();
        let outputs = session.run(&refs).map_err(|e| e.to_string())?;
        let jit: Vec<_> = outputs
            .iter()
            .map(|v| v.to_literal())
            .collect::<Result<_, _>>()
            .map_err(|e| e.to_string())?;
        let reference = check::reference(&model, &inputs)?;
        let floor = {
            let (ctx, func) = model.source().expect("compiled from source");
            check::loosest(ctx, func)
        };
        let reports = check::compare(&reference, &jit, floor)?;
        match reports.iter().position(|r| !r.ok) {
            None => Ok(()),
            Some(i) => Err(format!("output {i}: {:?}", reports[i])),
        }
    });
    dlc_testkit::report("workloads through the JIT", cases.len());
    let failures: Vec<String> = cases
        .iter()
        .zip(outcomes)
        .filter_map(|((name, cpu), r)| r.err().map(|e| format!("{name} on {cpu}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
