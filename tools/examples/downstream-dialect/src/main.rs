//! act-opt: parses a file with dlc's dialects and `act`, runs a pipeline of dlc's passes and
//! `lower-act`, and prints the result (`act-opt input.mlir 'lower-act,canonicalize'`).
//! Errors are `file:line:col: error: ...`, with exit code 1.

use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, print_op, verify, Context, SourceMap};
use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, pipeline] = &args[..] else {
        eprintln!("usage: act-opt <input.mlir> <pipeline>");
        return ExitCode::from(2);
    };
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    downstream_dialect::register(&mut registry);
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("act-opt: could not read '{path}': {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut pm = match parse_pipeline(pipeline).and_then(|s| registry.build(&s, "builtin.module")) {
        Ok(pm) => pm,
        Err(e) => {
            eprint!("{}", e.render("pipeline", pipeline));
            return ExitCode::FAILURE;
        }
    };
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx.register_dialect(downstream_dialect::dialect());
    let mut sources = SourceMap::new();
    sources.add(path, &text);
    let result = parse_source(&mut ctx, &text, path, 1)
        .and_then(|m| verify(&ctx, m).map(|()| m))
        .map_err(|d| vec![d])
        .and_then(|m| pm.run(&mut ctx, m).map(|_| m).map_err(|f| f.diagnostics));
    match result {
        Ok(module) => {
            // A closed pipe (`| head`) is not an error of the tool.
            let _ = writeln!(
                std::io::stdout(),
                "{}",
                print_op(&ctx, module, Default::default())
            );
            ExitCode::SUCCESS
        }
        Err(diagnostics) => {
            for d in &diagnostics {
                eprint!("{}", sources.render(&ctx, d));
            }
            ExitCode::FAILURE
        }
    }
}
