//! The machines dlc generates code for, and LLVM target machines for them.

use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;
use std::fmt;
use std::str::FromStr;

/// A code generation target, as written on the command line (`--target=`).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum Target {
    /// The CPU this process runs on, with all its features (`cpu` or `host`).
    #[default]
    HostCpu,
    /// NVIDIA GPUs through PTX, for compute capability `sm` (`nvptx64:sm_80`, `nvptx64:sm_90`).
    Nvptx { sm: u32 },
}

/// The NVPTX architecture when `--target=nvptx64` names none.
pub const DEFAULT_SM: u32 = 80;

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cpu" | "host" => Ok(Target::HostCpu),
            "nvptx64" => Ok(Target::Nvptx { sm: DEFAULT_SM }),
            _ => {
                let sm = s
                    .strip_prefix("nvptx64:sm_")
                    .and_then(|n| n.parse::<u32>().ok())
                    .filter(|&n| n >= 50)
                    .ok_or_else(|| {
                        format!("unknown target '{s}' (expected 'cpu', 'nvptx64' or 'nvptx64:sm_NN', e.g. nvptx64:sm_90)")
                    })?;
                Ok(Target::Nvptx { sm })
            }
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::HostCpu => write!(f, "cpu"),
            Target::Nvptx { sm } => write!(f, "nvptx64:sm_{sm}"),
        }
    }
}

/// The host CPU's triple, name and feature string, and a target machine for them.
pub(crate) fn host_machine(
    level: OptimizationLevel,
) -> Result<(TargetMachine, String, String), String> {
    LlvmTarget::initialize_native(&InitializationConfig::default())?;
    let triple = TargetMachine::get_default_triple();
    let cpu = TargetMachine::get_host_cpu_name().to_string();
    let features = TargetMachine::get_host_cpu_features().to_string();
    let target = LlvmTarget::from_triple(&triple).map_err(|e| e.to_string())?;
    let machine = target
        .create_target_machine(
            &triple,
            &cpu,
            &features,
            level,
            RelocMode::Default,
            CodeModel::JITDefault,
        )
        .ok_or("LLVM could not create a target machine for the host CPU")?;
    Ok((machine, cpu, features))
}

/// A target machine for `nvptx64-nvidia-cuda` and `sm_<sm>`.
pub(crate) fn nvptx_machine(sm: u32) -> Result<TargetMachine, String> {
    LlvmTarget::initialize_nvptx(&InitializationConfig::default());
    let triple = TargetTriple::create("nvptx64-nvidia-cuda");
    let target = LlvmTarget::from_triple(&triple).map_err(|e| e.to_string())?;
    target
        .create_target_machine(
            &triple,
            &format!("sm_{sm}"),
            // PTX ISA 7.8 (CUDA 11.8): what sm_90 needs, and new enough for dynamic stack
            // allocations (7.3), which dynamic-size local buffers lower to.
            "+ptx78",
            OptimizationLevel::Aggressive,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| format!("LLVM could not create an NVPTX target machine for sm_{sm}"))
}
