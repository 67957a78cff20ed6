//! `dlc-import`: an ONNX model → dlc graph IR.
//!
//! ```text
//! dlc-import model.onnx [-o model.mlir] [--dim NAME=SIZE]... [--input-shape NAME=1x3x48x192]...
//!                       [--const NAME=value.npy]... [--list-ops]
//! ```
//! The output is a `builtin.module` with one `func.func @main` of graph-dialect ops, ready for
//! `dlc-opt` and `dlc-run`. Weights stay packed (`dense<"0x...">`). An error — a malformed
//! file, an operator, attribute or dtype dlc does not have, a shape operand that is not
//! constant — names the node (or byte offset) and exits with 1. docs/onnx.md has the details.

use clap::Parser;
use dlc_onnx::{import_file, parse_dim_arg, parse_shape_arg, ImportOptions};
use dlc_tensor::Literal;
use std::path::PathBuf;
use std::process::ExitCode;

/// `println!` that ends the program quietly (status 0) when stdout is closed, as in
/// `dlc-import model.onnx | head`, and returns other write errors from the enclosing function.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            return Err(format!("dlc-import: error: cannot write to stdout: {e}"));
        }
    }};
}

#[derive(Parser, Debug)]
#[command(
    name = "dlc-import",
    version,
    about = "Import an ONNX model into dlc's graph dialect"
)]
struct Cli {
    /// The .onnx model (external data is read relative to its directory).
    input: Option<PathBuf>,
    /// Write the IR here instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The size of a named dim (dim_param), e.g. --dim batch=1 (repeatable).
    #[arg(long, value_name = "NAME=SIZE", value_parser = parse_dim_arg)]
    dim: Vec<(String, i64)>,
    /// The shape of a graph input, e.g. --input-shape x=1x3x48x192 (repeatable).
    #[arg(long, value_name = "NAME=SHAPE", value_parser = parse_shape_arg)]
    input_shape: Vec<(String, Vec<i64>)>,
    /// Specialize a graph input on a value (.npy): it becomes a constant (repeatable). Needed
    /// for inputs that feed shapes, Slice bounds, pads or axes.
    #[arg(long = "const", value_name = "NAME=FILE")]
    constants: Vec<String>,
    /// Print the ONNX operators dlc imports and exit.
    #[arg(long)]
    list_ops: bool,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<(), String> {
    if cli.list_ops {
        out!("{}", dlc_onnx::ops::supported_ops().join("\n"));
        return Ok(());
    }
    let path = cli.input.ok_or("dlc-import: error: no model given")?;
    let mut options = ImportOptions {
        dims: cli.dim.into_iter().collect(),
        input_shapes: cli.input_shape.into_iter().collect(),
        ..Default::default()
    };
    for arg in &cli.constants {
        let (name, file) = arg
            .split_once('=')
            .ok_or_else(|| format!("dlc-import: error: --const '{arg}' is not NAME=FILE"))?;
        let value = Literal::read_npy(file)
            .map_err(|e| format!("dlc-import: error: cannot read '{file}': {e}"))?;
        options.constants.insert(name.to_string(), value);
    }
    let mut ctx = dlc_ir::Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let name = path.display().to_string();
    let imported =
        import_file(&mut ctx, &path, &options).map_err(|e| format!("{name}: error: {e}"))?;
    dlc_ir::verify(&ctx, imported.module).map_err(|d| {
        format!(
            "{name}: error: the imported graph does not verify: {}",
            d.message
        )
    })?;
    for note in &imported.notes {
        eprintln!("{name}: note: {note}");
    }
    let text = dlc_ir::print_op(&ctx, imported.module, dlc_ir::PrintOptions::default());
    match cli.output {
        Some(out) => std::fs::write(&out, text + "\n")
            .map_err(|e| format!("dlc-import: error: cannot write '{}': {e}", out.display())),
        None => {
            out!("{text}");
            Ok(())
        }
    }
}
