//! How LLVM optimizes a kernel and generates its machine code: [`LlvmOpt`].

use inkwell::passes::PassBuilderOptions;
use inkwell::OptimizationLevel;
use std::fmt;
use std::str::FromStr;

/// An LLVM configuration: a new-pass-manager pipeline for the IR and an optimization level for
/// machine code generation. It is part of the kernel cache's key.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum LlvmOpt {
    /// `default<O3>`, codegen at `-O3`.
    #[default]
    O3,
    /// `default<O2>`, codegen at `-O2`.
    O2,
    /// `default<O1>`, codegen at `-O1`.
    O1,
    /// The passes that matter to dlc's kernels, codegen at `-O2` (docs/codegen.md).
    Lean,
}

impl LlvmOpt {
    /// The new pass manager's pipeline text.
    pub fn pipeline(self) -> String {
        match self {
            LlvmOpt::O3 => "default<O3>".into(),
            LlvmOpt::O2 => "default<O2>".into(),
            LlvmOpt::O1 => "default<O1>".into(),
            LlvmOpt::Lean => std::env::var("DLC_LEAN_PIPELINE").unwrap_or("default<O2>".into()),
        }
    }

    /// The pass builder's options for [`LlvmOpt::pipeline`].
    pub(crate) fn pass_options(self) -> PassBuilderOptions {
        let options = PassBuilderOptions::create();
        if self == LlvmOpt::Lean {
            let flags = std::env::var("DLC_LEAN_FLAGS").unwrap_or_default();
            options.set_loop_vectorization(!flags.contains("novec"));
            options.set_loop_slp_vectorization(!flags.contains("noslp"));
            options.set_loop_unrolling(!flags.contains("nounroll"));
            options.set_loop_interleaving(!flags.contains("nointerleave"));
        }
        options
    }

    /// The optimization level of machine code generation.
    pub fn codegen_level(self) -> OptimizationLevel {
        match self {
            LlvmOpt::O3 => OptimizationLevel::Aggressive,
            LlvmOpt::O2 => OptimizationLevel::Default,
            LlvmOpt::O1 => OptimizationLevel::Less,
            LlvmOpt::Lean => match std::env::var("DLC_LEAN_CG").as_deref() {
                Ok("0") => OptimizationLevel::None,
                Ok("1") => OptimizationLevel::Less,
                Ok("3") => OptimizationLevel::Aggressive,
                _ => OptimizationLevel::Default,
            },
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
            _ => Err(format!(
                "unknown LLVM optimization '{s}' (expected 'lean', 'O1', 'O2' or 'O3')"
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
        })
    }
}
