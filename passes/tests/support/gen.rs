//! Random well-typed func + arith programs over `i32`, `i64` and `f32`, for differential tests.
//!
//! A program is a module of a few functions. `@main` and some others are public; the rest are
//! private. A function calls only functions defined after it, so every run terminates; a dead
//! private recursive function is added now and then (nothing calls it) for `inline` and
//! `symbol-dce` to meet. Bodies mix integer and float arithmetic, comparisons and selects, casts,
//! constants, identities (`x + 0`, `x * 1`, `x - x`) for canonicalization, repeated and
//! operand-swapped subexpressions for CSE, and results nobody uses for DCE. Programs avoid
//! undefined behaviour: divisors and shift amounts are constants in range, and nothing converts
//! a float to an integer.

use std::fmt::Write as _;

/// The tests' one deterministic generator, so a failing seed reproduces anywhere.
pub use dlc_testkit::Rng;

/// The value types programs compute with.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Ty {
    I32,
    I64,
    F32,
}

impl Ty {
    pub fn text(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F32 => "f32",
        }
    }

    fn is_int(self) -> bool {
        self != Ty::F32
    }

    fn width(self) -> u32 {
        match self {
            Ty::I32 | Ty::F32 => 32,
            Ty::I64 => 64,
        }
    }
}

const TYPES: [Ty; 3] = [Ty::I32, Ty::I64, Ty::F32];

/// The signature of a generated function.
#[derive(Clone, Debug)]
pub struct Signature {
    pub name: String,
    pub public: bool,
    pub params: Vec<Ty>,
    pub results: Vec<Ty>,
}

/// A generated program: its text and the functions a test may call.
pub struct Program {
    pub text: String,
    /// The public functions (callable from outside; none of them recurses).
    pub entry_points: Vec<Signature>,
}

/// Generates the program of `seed`.
pub fn program(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let count = 1 + rng.below(4);
    let signatures: Vec<Signature> = (0..count)
        .map(|i| Signature {
            name: if i == 0 {
                "main".into()
            } else {
                format!("f{i}")
            },
            public: i == 0 || rng.chance(0.30),
            params: (0..1 + rng.below(3)).map(|_| rng.pick(&TYPES)).collect(),
            results: (0..1 + rng.below(2)).map(|_| rng.pick(&TYPES)).collect(),
        })
        .collect();
    let mut text = String::new();
    for (i, sig) in signatures.iter().enumerate() {
        let body = FunctionGen::new(&mut rng, sig, &signatures[i + 1..]).generate();
        text.push_str(&body);
    }
    if rng.chance(0.30) {
        text.push_str(
            "func.func private @recursive(%a: i32) -> i32 {\n  \
             %0 = func.call @recursive(%a) : (i32) -> i32\n  \
             %1 = arith.addi %0, %a : i32\n  \
             return %1 : i32\n}\n",
        );
        if rng.chance(0.50) {
            text.push_str(
                "func.func private @calls_recursive(%a: i32) -> i32 {\n  \
                 %0 = func.call @recursive(%a) : (i32) -> i32\n  \
                 return %0 : i32\n}\n",
            );
        }
    }
    let entry_points = signatures.into_iter().filter(|s| s.public).collect();
    Program { text, entry_points }
}

/// Writes one function body.
struct FunctionGen<'a> {
    rng: &'a mut Rng,
    sig: &'a Signature,
    /// Functions this one may call.
    callees: &'a [Signature],
    /// Values defined so far, by type.
    pools: [Vec<String>; 3],
    /// Right-hand sides written so far with their result type, to repeat for CSE.
    written: Vec<(String, Ty)>,
    out: String,
    next: usize,
}

impl<'a> FunctionGen<'a> {
    fn new(rng: &'a mut Rng, sig: &'a Signature, callees: &'a [Signature]) -> Self {
        FunctionGen {
            rng,
            sig,
            callees,
            pools: Default::default(),
            written: Vec::new(),
            out: String::new(),
            next: 0,
        }
    }

    fn generate(mut self) -> String {
        let params: Vec<String> = self
            .sig
            .params
            .iter()
            .enumerate()
            .map(|(i, t)| format!("%p{i}: {}", t.text()))
            .collect();
        let results: Vec<&str> = self.sig.results.iter().map(|t| t.text()).collect();
        let _ = writeln!(
            self.out,
            "func.func {}@{}({}) -> ({}) {{",
            if self.sig.public { "" } else { "private " },
            self.sig.name,
            params.join(", "),
            results.join(", ")
        );
        for (i, t) in self.sig.params.iter().enumerate() {
            self.pools[*t as usize].push(format!("%p{i}"));
        }
        for _ in 0..4 + self.rng.below(20) {
            self.statement();
        }
        let values: Vec<String> = self
            .sig
            .results
            .clone()
            .iter()
            .map(|t| self.combine(*t))
            .collect();
        let _ = writeln!(
            self.out,
            "  return {} : {}\n}}",
            values.join(", "),
            results.join(", ")
        );
        self.out
    }

    /// A value of type `ty` that depends on several earlier ones, so that results observe much of
    /// the body.
    fn combine(&mut self, ty: Ty) -> String {
        let mut acc = self.value(ty);
        for _ in 0..3 {
            let next = self.value(ty);
            let rhs = match ty {
                Ty::F32 => format!("arith.addf {acc}, {next} : f32"),
                _ => {
                    let op = self.rng.pick(&["addi", "xori", "muli"]);
                    format!("arith.{op} {acc}, {next} : {}", ty.text())
                }
            };
            acc = self.define(rhs, ty);
        }
        acc
    }

    /// A fresh SSA name.
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%v{}", self.next)
    }

    /// Writes `%x = rhs` and makes `%x` available as a `ty` value.
    fn define(&mut self, rhs: String, ty: Ty) -> String {
        let name = self.fresh();
        let _ = writeln!(self.out, "  {name} = {rhs}");
        self.pools[ty as usize].push(name.clone());
        self.written.push((rhs, ty));
        name
    }

    /// An existing value of type `ty` (recent ones more often), or a new constant.
    fn value(&mut self, ty: Ty) -> String {
        let pool = &self.pools[ty as usize];
        if pool.is_empty() || self.rng.chance(0.10) {
            return self.constant(ty);
        }
        let window = pool.len().min(8);
        let i = if self.rng.chance(0.70) {
            pool.len() - 1 - self.rng.below(window)
        } else {
            self.rng.below(pool.len())
        };
        self.pools[ty as usize][i].clone()
    }

    fn constant(&mut self, ty: Ty) -> String {
        let rhs = match ty {
            Ty::F32 => {
                let v = self
                    .rng
                    .pick(&["0.0", "-0.0", "1.0", "-1.5", "2.5", "1.0e+30", "3.25"]);
                format!("arith.constant {v} : f32")
            }
            _ => {
                let v = self
                    .rng
                    .pick(&[0i64, 1, -1, 2, 7, 255, 1 << 31, i64::MIN, -12345]);
                let v = if ty == Ty::I32 { v as i32 as i64 } else { v };
                format!("arith.constant {v} : {}", ty.text())
            }
        };
        self.define(rhs, ty)
    }

    /// One random statement.
    fn statement(&mut self) {
        let ty = self.rng.pick(&TYPES);
        match self.rng.below(100) {
            // Repeat an earlier right-hand side: CSE material.
            0..=11 if !self.written.is_empty() => {
                let (rhs, ty) = self.written[self.rng.below(self.written.len())].clone();
                self.define(rhs, ty);
            }
            12..=17 => {
                self.constant(ty);
            }
            18..=25 => self.identity(ty),
            26..=55 => self.binary(ty),
            56..=63 => self.compare_and_select(ty),
            64..=73 => self.cast(),
            74..=79 if ty.is_int() => self.by_constant(ty),
            80..=89 if !self.callees.is_empty() => self.call(),
            _ => self.binary(ty),
        }
    }

    /// A binary op, written twice with swapped operands now and then (commutative ops merge).
    fn binary(&mut self, ty: Ty) {
        let op = if ty.is_int() {
            self.rng.pick(&[
                "addi", "subi", "muli", "andi", "ori", "xori", "maxsi", "minsi", "maxui", "minui",
            ])
        } else {
            self.rng.pick(&[
                "addf", "subf", "mulf", "divf", "maximumf", "minimumf", "maxnumf", "minnumf",
            ])
        };
        let (a, b) = (self.value(ty), self.value(ty));
        self.define(format!("arith.{op} {a}, {b} : {}", ty.text()), ty);
        if self.rng.chance(0.20) {
            self.define(format!("arith.{op} {b}, {a} : {}", ty.text()), ty);
        }
        if !ty.is_int() && self.rng.chance(0.10) {
            let a = self.value(ty);
            self.define(format!("arith.negf {a} : f32"), ty);
        }
    }

    /// An op canonicalization should simplify: `x + 0`, `x * 1`, `x - x`, `x ^ x`, `x | x`,
    /// `x + -0.0`, `x * 1.0`.
    fn identity(&mut self, ty: Ty) {
        let x = self.value(ty);
        let t = ty.text();
        let rhs = if ty.is_int() {
            match self.rng.below(5) {
                0 => {
                    let zero = self.define(format!("arith.constant 0 : {t}"), ty);
                    format!("arith.addi {x}, {zero} : {t}")
                }
                1 => {
                    let one = self.define(format!("arith.constant 1 : {t}"), ty);
                    format!("arith.muli {one}, {x} : {t}")
                }
                2 => format!("arith.subi {x}, {x} : {t}"),
                3 => format!("arith.xori {x}, {x} : {t}"),
                _ => format!("arith.ori {x}, {x} : {t}"),
            }
        } else {
            match self.rng.below(3) {
                0 => {
                    let zero = self.define("arith.constant -0.0 : f32".into(), ty);
                    format!("arith.addf {x}, {zero} : f32")
                }
                1 => {
                    let one = self.define("arith.constant 1.0 : f32".into(), ty);
                    format!("arith.mulf {x}, {one} : f32")
                }
                _ => {
                    // Not an identity: x + 0.0 is not x when x is -0.0.
                    let zero = self.define("arith.constant 0.0 : f32".into(), ty);
                    format!("arith.addf {x}, {zero} : f32")
                }
            }
        };
        self.define(rhs, ty);
    }

    fn compare_and_select(&mut self, ty: Ty) {
        let (a, b) = (self.value(ty), self.value(ty));
        let t = ty.text();
        let cond = self.fresh();
        let rhs = if ty.is_int() {
            let p = self.rng.pick(&[
                "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
            ]);
            format!("arith.cmpi {p}, {a}, {b} : {t}")
        } else {
            let p = self.rng.pick(&[
                "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge",
                "ult", "ule", "une", "uno", "true",
            ]);
            format!("arith.cmpf {p}, {a}, {b} : {t}")
        };
        let _ = writeln!(self.out, "  {cond} = {rhs}");
        let (x, y) = (self.value(ty), self.value(ty));
        self.define(format!("arith.select {cond}, {x}, {y} : {t}"), ty);
        if ty.is_int() && self.rng.chance(0.30) {
            self.define(format!("arith.extui {cond} : i1 to {t}"), ty);
        }
    }

    fn cast(&mut self) {
        match self.rng.below(6) {
            0 => {
                let x = self.value(Ty::I32);
                self.define(format!("arith.extsi {x} : i32 to i64"), Ty::I64);
            }
            1 => {
                let x = self.value(Ty::I32);
                self.define(format!("arith.extui {x} : i32 to i64"), Ty::I64);
            }
            2 => {
                let x = self.value(Ty::I64);
                self.define(format!("arith.trunci {x} : i64 to i32"), Ty::I32);
            }
            3 => {
                let t = self.rng.pick(&[Ty::I32, Ty::I64]);
                let x = self.value(t);
                self.define(format!("arith.sitofp {x} : {} to f32", t.text()), Ty::F32);
            }
            4 => {
                let x = self.value(Ty::I32);
                self.define(format!("arith.bitcast {x} : i32 to f32"), Ty::F32);
            }
            _ => {
                let x = self.value(Ty::F32);
                self.define(format!("arith.bitcast {x} : f32 to i32"), Ty::I32);
            }
        }
    }

    /// Division, remainder and shifts by a constant that keeps them defined.
    fn by_constant(&mut self, ty: Ty) {
        let t = ty.text();
        let x = self.value(ty);
        let (op, amount) = match self.rng.below(10) {
            0 => ("divsi", self.rng.pick(&[1i64, 2, 3, 7, -5])),
            7 => ("ceildivsi", self.rng.pick(&[1i64, 2, 3, 7, -5])),
            8 => ("floordivsi", self.rng.pick(&[1i64, 2, 3, 7, -5])),
            9 => ("ceildivui", self.rng.pick(&[1i64, 2, 3, 16])),
            1 => ("remsi", self.rng.pick(&[1i64, 2, 3, 7, -5])),
            2 => ("divui", self.rng.pick(&[1i64, 2, 3, 16])),
            3 => ("remui", self.rng.pick(&[1i64, 2, 3, 16])),
            4 => ("shli", self.rng.below(ty.width() as usize) as i64),
            5 => ("shrsi", self.rng.below(ty.width() as usize) as i64),
            _ => ("shrui", self.rng.below(ty.width() as usize) as i64),
        };
        let c = self.define(format!("arith.constant {amount} : {t}"), ty);
        self.define(format!("arith.{op} {x}, {c} : {t}"), ty);
    }

    /// A call to a later function; its results join the pools.
    fn call(&mut self) {
        let callee = self.callees[self.rng.below(self.callees.len())].clone();
        let args: Vec<String> = callee.params.iter().map(|t| self.value(*t)).collect();
        let params: Vec<&str> = callee.params.iter().map(|t| t.text()).collect();
        let results: Vec<&str> = callee.results.iter().map(|t| t.text()).collect();
        let name = self.fresh();
        let _ = writeln!(
            self.out,
            "  {name}:{} = func.call @{}({}) : ({}) -> ({})",
            callee.results.len(),
            callee.name,
            args.join(", "),
            params.join(", "),
            results.join(", ")
        );
        for (i, t) in callee.results.iter().enumerate() {
            self.pools[*t as usize].push(format!("{name}#{i}"));
        }
    }
}
