//! How LLVM optimizes a kernel and generates its machine code: [`LlvmOpt`].
//!
//! dlc's kernels reach LLVM already tiled, vectorized (explicit vector ops), fused and
//! simplified by dlc's own passes, so most of `default<O3>` finds nothing to do and costs
//! compile time anyway: on the dlc-bench workloads it took twice as long as
//! [`LEAN_PIPELINE`], whose kernels are as fast (docs/codegen.md, "The LLVM pipeline").
//! What the lean pipeline keeps, and why:
//! - `always-inline`: the kernel body into its entry thunk (turning `noalias` parameters into
//!   alias scopes);
//! - `sroa`, `early-cse`, `instcombine`, `simplifycfg`, `gvn`: the scalar clean-up of address
//!   arithmetic and of what lowering leaves;
//! - `loop-rotate` and `licm`: codegen emits loops with the test at the top; rotated, their
//!   invariant loads and address computations leave the loop (matmul was 10% slower without);
//! - `loop-vectorize`: for the loops dlc leaves scalar (a padding copy was 3x slower without);
//!   the scalar remainders of `vectorize` loops are marked not to vectorize (`LoopHint`);
//! - `loop-unroll`: it carries out the `llvm.loop.unroll.count` hints of `unroll` loops. It
//!   also unrolls loops dlc left alone, partially: without that (`no-partial;no-runtime`) the
//!   code was a third smaller and LLVM's time per kernel fell by a fifth, but matmul, mlp,
//!   attention, rms_norm and the GPT-2 block ran 5-7% slower than under `O3`.
//!
//! [`LlvmOpt::Quick`] is the first tier of a tiered compilation (`jit.rs`): FastISel at `-O0`
//! after `sroa` alone, about a fifth of `Lean`'s time for code several times slower
//! (docs/codegen.md, "Tiers"). It runs no inliner: the kernel body stays a call from its entry
//! thunk, and each math function (`math.rs`) one function that every use calls. Inlining
//! copied every kernel body whole, a quarter of the quick tier's IR time on ppocr_det, for
//! code within this VM's noise of the uninlined code's. Nor does it run `instcombine`: the code
//! generator emits index arithmetic once and addresses with their constant part split off
//! (`function.rs`), which was most of what `instcombine` did for the quick code, and without
//! it the first result came 4–15% sooner on six models.

use inkwell::OptimizationLevel;
use std::fmt;
use std::str::FromStr;

/// The new pass manager's pipeline of [`LlvmOpt::Lean`].
pub const LEAN_PIPELINE: &str = "always-inline,function(sroa,early-cse<memssa>,\
instcombine<no-verify-fixpoint>,simplifycfg,loop-mssa(loop-rotate,licm),loop-vectorize,\
loop-unroll<O2>,gvn,instcombine<no-verify-fixpoint>,simplifycfg)";

/// The new pass manager's pipeline of [`LlvmOpt::Quick`].
pub const QUICK_PIPELINE: &str = "function(sroa)";

/// An LLVM configuration: a new-pass-manager pipeline for the IR and an optimization level for
/// machine code generation. It is part of the kernel cache's key.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum LlvmOpt {
    /// `default<O3>`, codegen at `-O3`: what dlc used before [`LlvmOpt::Lean`].
    O3,
    /// `default<O2>`, codegen at `-O2`.
    O2,
    /// `default<O1>`, codegen at `-O1`.
    O1,
    /// [`LEAN_PIPELINE`], codegen at `-O2`: as fast kernels as `O3` on every dlc-bench
    /// workload, in about half the time (docs/codegen.md has the measurements).
    #[default]
    Lean,
    /// [`QUICK_PIPELINE`], codegen at `-O0` (FastISel): the first tier, compiled in about a
    /// quarter of [`LlvmOpt::Lean`]'s time and running about 6x slower.
    Quick,
}

impl LlvmOpt {
    /// The new pass manager's pipeline text.
    pub fn pipeline(self) -> &'static str {
        match self {
            LlvmOpt::O3 => "default<O3>",
            LlvmOpt::O2 => "default<O2>",
            LlvmOpt::O1 => "default<O1>",
            LlvmOpt::Lean => LEAN_PIPELINE,
            LlvmOpt::Quick => QUICK_PIPELINE,
        }
    }

    /// The optimization level of machine code generation.
    pub fn codegen_level(self) -> OptimizationLevel {
        match self {
            LlvmOpt::O3 => OptimizationLevel::Aggressive,
            LlvmOpt::O2 => OptimizationLevel::Default,
            LlvmOpt::O1 => OptimizationLevel::Less,
            LlvmOpt::Lean => OptimizationLevel::Default,
            LlvmOpt::Quick => OptimizationLevel::None,
        }
    }
}

impl FromStr for LlvmOpt {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "O3" | "o3" => Ok(LlvmOpt::O3),
            "O2" | "o2" => Ok(LlvmOpt::O2),
            "O1" | "o1" => Ok(LlvmOpt::O1),
            "lean" => Ok(LlvmOpt::Lean),
            "quick" => Ok(LlvmOpt::Quick),
            _ => Err(format!(
                "unknown LLVM optimization '{s}' (expected 'lean', 'quick', 'O1', 'O2' or 'O3')"
            )),
        }
    }
}

impl fmt::Display for LlvmOpt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LlvmOpt::O3 => "O3",
            LlvmOpt::O2 => "O2",
            LlvmOpt::O1 => "O1",
            LlvmOpt::Lean => "lean",
            LlvmOpt::Quick => "quick",
        })
    }
}
