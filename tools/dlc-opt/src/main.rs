//! dlc-opt: reads dlc IR, verifies it, and prints it back — the driver every dlc transformation
//! is tested through, with mlir-opt's flags and exit codes.
//!
//! Errors are rendered as `file:line:col: error: ...` with the source line and a caret, and make
//! the process exit with 1. Nothing a user writes makes it panic.

mod expected_diagnostics;

use clap::Parser as _;
use dlc_ir::{parse_source, print_op_to, verify, Context, Diagnostic, PrintOptions, SourceMap};
use std::io::{Read, Write};
use std::process::ExitCode;

/// Parse, verify and print dlc IR (MLIR syntax).
#[derive(clap::Parser, Debug)]
#[command(name = "dlc-opt", version, about, long_about = None)]
struct Cli {
    /// Input file, or '-' for standard input.
    #[arg(default_value = "-")]
    input: String,

    /// Output file (default: standard output).
    #[arg(short = 'o', value_name = "FILE")]
    output: Option<String>,

    /// Split the input on '// -----' lines and process each chunk on its own.
    #[arg(long)]
    split_input_file: bool,

    /// Marker printed between the outputs of split chunks.
    #[arg(long, default_value = "// -----")]
    output_split_marker: String,

    /// Check diagnostics against 'expected-*' annotations in the input instead of reporting them.
    #[arg(long)]
    verify_diagnostics: bool,

    /// Accept operations, types and attributes of unregistered dialects.
    #[arg(long)]
    allow_unregistered_dialect: bool,

    /// Print every operation in the generic form.
    #[arg(long, alias = "mlir-print-op-generic")]
    print_generic: bool,

    /// Print operation locations.
    #[arg(long, alias = "mlir-print-debuginfo")]
    print_debuginfo: bool,

    /// List the registered dialects and exit.
    #[arg(long)]
    show_dialects: bool,
}

/// A context with every dialect dlc-opt knows.
fn new_context(allow_unregistered: bool) -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_arith::dialect());
    ctx.allow_unregistered = allow_unregistered;
    ctx
}

/// Accepts mlir-opt's single-dash long options (`-split-input-file`) as well as `--`: an
/// argument `-name[=value]` whose name is a long option becomes `--name[=value]`.
fn normalized_args() -> Vec<String> {
    use clap::CommandFactory;
    let cmd = Cli::command();
    let longs: Vec<String> = cmd
        .get_arguments()
        .flat_map(|a| {
            a.get_long()
                .into_iter()
                .chain(a.get_all_aliases().unwrap_or_default())
        })
        .map(str::to_string)
        .chain(["help".to_string(), "version".to_string()])
        .collect();
    std::env::args()
        .map(|a| {
            let name = a
                .strip_prefix('-')
                .filter(|r| !r.starts_with('-'))
                .map(|r| r.split('=').next().unwrap_or(r));
            match name {
                Some(n) if longs.iter().any(|l| l == n) => format!("-{a}"),
                _ => a,
            }
        })
        .collect()
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse_from(normalized_args()) {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(&cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("dlc-opt: {e:#}");
            ExitCode::from(1)
        }
    }
}

/// One `// -----` chunk of the input: its text and the line it starts on.
struct Chunk<'a> {
    text: &'a str,
    first_line: u32,
}

fn split_chunks(text: &str, split: bool) -> Vec<Chunk<'_>> {
    if !split {
        return vec![Chunk {
            text,
            first_line: 1,
        }];
    }
    let mut chunks = Vec::new();
    let (mut start, mut first_line, mut line, mut offset) = (0usize, 1u32, 1u32, 0usize);
    for l in text.split_inclusive('\n') {
        if l.trim_end().starts_with("// -----") {
            chunks.push(Chunk {
                text: &text[start..offset],
                first_line,
            });
            start = offset + l.len();
            first_line = line + 1;
        }
        offset += l.len();
        line += 1;
    }
    chunks.push(Chunk {
        text: &text[start..],
        first_line,
    });
    chunks
}

/// Runs the tool; `Ok(false)` means a reported failure (exit code 1).
fn run(cli: &Cli) -> anyhow::Result<bool> {
    if cli.show_dialects {
        let ctx = new_context(false);
        println!("Available Dialects: {}", ctx.dialect_names().join(", "));
        return Ok(true);
    }
    let (name, text) = read_input(&cli.input)?;
    let mut sources = SourceMap::new();
    sources.add(&name, &text);
    let options = PrintOptions {
        generic: cli.print_generic,
        debuginfo: cli.print_debuginfo,
    };
    let mut out: Box<dyn Write> = match &cli.output {
        Some(path) if path != "-" => Box::new(std::io::BufWriter::new(
            std::fs::File::create(path)
                .map_err(|e| anyhow::anyhow!("could not open output file '{path}': {e}"))?,
        )),
        _ => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let mut printed_any = false;
    let mut ok = true;
    let mut stderr = std::io::stderr().lock();
    for chunk in split_chunks(&text, cli.split_input_file) {
        let mut ctx = new_context(cli.allow_unregistered_dialect);
        let result = parse_source(&mut ctx, chunk.text, &name, chunk.first_line)
            .and_then(|module| verify(&ctx, module).map(|()| module));
        let diagnostics: Vec<Diagnostic> = match &result {
            Ok(module) => {
                // As mlir-opt: each chunk's module followed by a blank line, chunks separated
                // by the marker.
                if printed_any {
                    writeln!(out, "{}", cli.output_split_marker).map_err(output_error)?;
                }
                printed_any = true;
                print_op_to(&ctx, *module, options, &mut out).map_err(output_error)?;
                write!(out, "\n\n").map_err(output_error)?;
                Vec::new()
            }
            Err(d) => vec![d.clone()],
        };
        if cli.verify_diagnostics {
            let mut expected =
                match expected_diagnostics::parse_expectations(chunk.text, chunk.first_line) {
                    Ok(e) => e,
                    Err(e) => {
                        writeln!(stderr, "{name}:{}:{}: error: {}", e.line, e.col, e.message)?;
                        ok = false;
                        continue;
                    }
                };
            for failure in
                expected_diagnostics::check(&ctx, &sources, &name, &diagnostics, &mut expected)
            {
                write!(stderr, "{failure}")?;
                ok = false;
            }
        } else {
            for d in &diagnostics {
                write!(stderr, "{}", sources.render(&ctx, d))?;
                ok = false;
            }
        }
        // The process is about to exit: returning a large IR's memory piece by piece would
        // only cost time (clang's -disable-free, for the same reason).
        std::mem::forget(ctx);
    }
    out.flush().map_err(output_error)?;
    Ok(ok)
}

/// Output failures are errors, except a closed pipe (`dlc-opt x | head`), which just ends output.
fn output_error(e: std::io::Error) -> anyhow::Error {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    anyhow::anyhow!("could not write output: {e}")
}

fn read_input(path: &str) -> anyhow::Result<(String, String)> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| anyhow::anyhow!("could not read standard input: {e}"))?;
        return Ok(("<stdin>".to_string(), text));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| anyhow::anyhow!("could not open input file '{path}': {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("input file '{path}' is not valid UTF-8"))?;
    Ok((path.to_string(), text))
}
