//! Writes a large `func.func` of arith ops in MLIR syntax, for the compile-speed benchmark.
//!
//! The function mixes integer and float arithmetic, comparisons and selects, constants, and
//! deliberately repeated subexpressions and identities (`x + 0`, `x * 1`), so that parse, verify
//! and print see realistic text and CSE/canonicalize have work to do. Output is deterministic for
//! a given op count.
//!
//! Usage: `gen-arith <ops> [output]` (standard output when no path is given).

use dlc_testkit::Rng;
use std::fmt::Write as _;
use std::io::Write as _;

/// Values of one type defined so far, by SSA name.
struct Pool {
    names: Vec<String>,
}

impl Pool {
    /// A recent value: operands mostly come from the last 64 definitions, like real code.
    fn pick(&self, rng: &mut Rng) -> &str {
        let window = self.names.len().min(64);
        &self.names[self.names.len() - 1 - rng.below(window)]
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(ops) = args.get(1).and_then(|a| a.parse::<usize>().ok()) else {
        eprintln!("usage: gen-arith <ops> [output]");
        std::process::exit(1);
    };
    let text = generate(ops);
    let written = match args.get(2) {
        Some(path) => std::fs::write(path, text),
        None => std::io::stdout().lock().write_all(text.as_bytes()),
    };
    if let Err(e) = written {
        eprintln!("gen-arith: {e}");
        std::process::exit(1);
    }
}

fn generate(ops: usize) -> String {
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut out = String::with_capacity(ops * 48);
    out.push_str("func.func @main(%a0: i32, %a1: i32, %f0: f32, %f1: f32) -> (i32, f32) {\n");
    let mut ints = Pool {
        names: vec!["%a0".into(), "%a1".into()],
    };
    let mut floats = Pool {
        names: vec!["%f0".into(), "%f1".into()],
    };
    let mut recent: Vec<String> = Vec::new();
    let mut n = 0usize;
    while n < ops {
        let name = format!("%v{n}");
        let choice = rng.below(100);
        let line = match choice {
            // Repeat an earlier computation verbatim (under a new name): CSE material.
            0..=9 if !recent.is_empty() => recent[rng.below(recent.len())].clone(),
            10..=14 => format!("arith.constant {} : i32", rng.below(16)),
            15..=17 => format!("arith.constant {}.5 : f32", rng.below(8)),
            18..=20 => format!("arith.addi {}, %c0 : i32", ints.pick(&mut rng)),
            21..=22 => format!("arith.muli {}, %c1 : i32", ints.pick(&mut rng)),
            23..=52 => {
                let op = [
                    "addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi",
                ][rng.below(8)];
                format!(
                    "arith.{op} {}, {} : i32",
                    ints.pick(&mut rng),
                    ints.pick(&mut rng)
                )
            }
            53..=57 => {
                let cmp = format!("%v{n}c");
                let pred = ["slt", "sle", "eq", "ne", "sgt"][rng.below(5)];
                let _ = writeln!(
                    out,
                    "  {cmp} = arith.cmpi {pred}, {}, {} : i32",
                    ints.pick(&mut rng),
                    ints.pick(&mut rng)
                );
                n += 1;
                format!(
                    "arith.select {cmp}, {}, {} : i32",
                    ints.pick(&mut rng),
                    ints.pick(&mut rng)
                )
            }
            _ => {
                let op = ["addf", "subf", "mulf", "maximumf", "minimumf"][rng.below(5)];
                format!(
                    "arith.{op} {}, {} : f32",
                    floats.pick(&mut rng),
                    floats.pick(&mut rng)
                )
            }
        };
        if n == 0 {
            out.push_str("  %c0 = arith.constant 0 : i32\n  %c1 = arith.constant 1 : i32\n");
        }
        let _ = writeln!(out, "  {name} = {line}");
        if line.ends_with(": f32") {
            floats.names.push(name);
        } else {
            ints.names.push(name);
        }
        if recent.len() < 256 {
            recent.push(line);
        } else {
            let slot = rng.below(256);
            recent[slot] = line;
        }
        n += 1;
    }
    let _ = writeln!(
        out,
        "  return {}, {} : i32, f32\n}}",
        ints.names.last().map_or("%a0", |s| s),
        floats.names.last().map_or("%f0", |s| s)
    );
    out
}
