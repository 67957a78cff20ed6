//! The machines dlc generates code for, and LLVM target machines for them.

use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target as LlvmTarget, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;
use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;

/// A code generation target, as written on the command line (`--target=`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Target {
    /// This process's CPU, or an x86-64 level it supports (`cpu`, `host`, `x86-64-v3`, ...).
    Cpu(CpuTarget),
    /// NVIDIA GPUs through PTX, for compute capability `sm` (`nvptx64:sm_80`, `nvptx64:sm_90`).
    Nvptx { sm: u32 },
}

/// The NVPTX architecture when `--target=nvptx64` names none.
pub const DEFAULT_SM: u32 = 80;

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "nvptx64" => Ok(Target::Nvptx { sm: DEFAULT_SM }),
            _ if !s.starts_with("nvptx64:") => s.parse().map(Target::Cpu).map_err(|_| {
                format!(
                    "unknown target '{s}' (expected 'cpu', an x86-64 level such as 'x86-64-v3', \
                     'nvptx64' or 'nvptx64:sm_NN', e.g. nvptx64:sm_90)"
                )
            }),
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
            Target::Cpu(CpuTarget::Host) => write!(f, "cpu"),
            Target::Cpu(cpu) => write!(f, "{cpu}"),
            Target::Nvptx { sm } => write!(f, "nvptx64:sm_{sm}"),
        }
    }
}

/// The CPU a JIT compiles for: the host itself, or an x86-64 microarchitecture level that the
/// host supports, so that a machine with AVX-512 can build and check the code that an AVX2-only
/// machine gets (`dlc-run --cpu=x86-64-v3`).
///
/// A level's code runs on the host only if the host has every feature of the level, so a level
/// the host lacks is an error when the target machine is made, never an illegal instruction
/// later.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub enum CpuTarget {
    /// The CPU this process runs on, with all its features (`host`).
    #[default]
    Host,
    /// `x86-64` (level 1, SSE2), `x86-64-v2` (SSE4.2), `x86-64-v3` (AVX2, FMA) or `x86-64-v4`
    /// (AVX-512 F/BW/CD/DQ/VL), as the x86-64 psABI defines them.
    X86_64 { level: u8 },
}

/// The LLVM features each x86-64 level adds to the one below it (the psABI's table).
const X86_64_LEVEL_FEATURES: [&[&str]; 4] = [
    &["sse", "sse2"],
    &[
        "cx16", "sahf", "popcnt", "sse3", "sse4.1", "sse4.2", "ssse3",
    ],
    &[
        "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave",
    ],
    &["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"],
];

impl FromStr for CpuTarget {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cpu" | "host" | "native" => Ok(CpuTarget::Host),
            "x86-64" => Ok(CpuTarget::X86_64 { level: 1 }),
            _ => s
                .strip_prefix("x86-64-v")
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| (2..=4).contains(n))
                .map(|level| CpuTarget::X86_64 { level })
                .ok_or_else(|| {
                    format!(
                        "unknown CPU '{s}' (expected 'host', 'x86-64', 'x86-64-v2', 'x86-64-v3' \
                         or 'x86-64-v4')"
                    )
                }),
        }
    }
}

impl fmt::Display for CpuTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CpuTarget::Host => write!(f, "host"),
            CpuTarget::X86_64 { level: 1 } => write!(f, "x86-64"),
            CpuTarget::X86_64 { level } => write!(f, "x86-64-v{level}"),
        }
    }
}

/// Whether LLVM's host feature list has `+feature`.
fn host_has(feature: &str) -> bool {
    cfg!(target_arch = "x86_64")
        && TargetMachine::get_host_cpu_features()
            .to_string()
            .split(',')
            .any(|f| f.strip_prefix('+') == Some(feature))
}

impl CpuTarget {
    /// Whether code for this target may use AVX-512F: level 4, or a host that has it.
    pub(crate) fn has_avx512f(self) -> bool {
        match self {
            CpuTarget::X86_64 { level } => level >= 4,
            CpuTarget::Host => host_has("avx512f"),
        }
    }

    /// The widest vector, in bits, that x86's `pmaddwd` takes on this target: 512 with
    /// AVX-512BW, 256 with AVX2, 128 on any other x86-64 CPU (SSE2); 0 off x86.
    pub(crate) fn madd_bits(self) -> u32 {
        let (bw, avx2) = match self {
            CpuTarget::X86_64 { level } => (level >= 4, level >= 3),
            CpuTarget::Host if cfg!(target_arch = "x86_64") => {
                (host_has("avx512bw"), host_has("avx2"))
            }
            CpuTarget::Host => return 0,
        };
        if bw {
            512
        } else if avx2 {
            256
        } else {
            128
        }
    }

    /// Whether code for this target may use AVX-512 VNNI (`vpdpbusd` on 512-bit vectors): a
    /// host that has it (no x86-64 level includes it).
    pub(crate) fn has_avx512vnni(self) -> bool {
        matches!(self, CpuTarget::Host) && host_has("avx512vnni")
    }

    /// The LLVM CPU name and feature string for this target on a host with `host_features`
    /// (LLVM's `+feature,-feature,...` list), or why the host cannot run its code.
    fn cpu_and_features(
        self,
        triple: &str,
        host_cpu: String,
        host_features: String,
    ) -> Result<(String, String), String> {
        let CpuTarget::X86_64 { level } = self else {
            return Ok((host_cpu, host_features));
        };
        if !triple.starts_with("x86_64") {
            return Err(format!(
                "the CPU '{self}' needs an x86-64 host; this one is {triple}"
            ));
        }
        let has: Vec<&str> = host_features
            .split(',')
            .filter_map(|f| f.strip_prefix('+'))
            .collect();
        let missing: Vec<&str> = X86_64_LEVEL_FEATURES[..level as usize]
            .iter()
            .flat_map(|features| features.iter().copied())
            .filter(|f| !has.contains(f))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "this CPU ({host_cpu}) cannot run code for '{self}': it lacks {}",
                missing.join(", ")
            ));
        }
        // The level's CPU name implies its features; none beyond them are added.
        Ok((self.to_string(), String::new()))
    }
}

/// What LLVM needs to know to generate code for a [`CpuTarget`] on this host: the triple, the
/// CPU name and the feature string. It is plain data, so each thread compiling a kernel makes
/// its own target machine from it, and the kernel cache hashes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CpuSpec {
    pub triple: String,
    pub cpu: String,
    pub features: String,
}

impl CpuSpec {
    /// The spec of `cpu` on this host, or why this host cannot run its code.
    pub(crate) fn of(cpu: CpuTarget) -> Result<CpuSpec, String> {
        LlvmTarget::initialize_native(&InitializationConfig::default())?;
        let triple = TargetMachine::get_default_triple()
            .as_str()
            .to_string_lossy()
            .into_owned();
        let (cpu, features) = cpu.cpu_and_features(
            &triple,
            TargetMachine::get_host_cpu_name().to_string(),
            TargetMachine::get_host_cpu_features().to_string(),
        )?;
        Ok(CpuSpec {
            triple,
            cpu,
            features,
        })
    }

    /// Runs `f` with this thread's target machine for this spec at `level`, made by
    /// [`CpuSpec::machine`] on first use and kept for the thread's next kernels: its subtarget
    /// (the CPU's instruction tables) is built once per thread instead of once per kernel.
    pub(crate) fn with_machine<R>(
        &self,
        level: OptimizationLevel,
        f: impl FnOnce(&TargetMachine) -> R,
    ) -> Result<R, String> {
        type Cached = Option<(CpuSpec, OptimizationLevel, TargetMachine)>;
        thread_local! {
            static MACHINE: RefCell<Cached> = const { RefCell::new(None) };
        }
        MACHINE.with(|cell| {
            let mut cached = cell.borrow_mut();
            let machine = match &mut *cached {
                Some((spec, l, machine)) if spec == self && *l == level => machine,
                slot => &slot.insert((self.clone(), level, self.machine(level)?)).2,
            };
            Ok(f(machine))
        })
    }

    /// A target machine generating position-independent code (as a JIT linking objects
    /// anywhere in memory needs) at codegen optimization `level`.
    pub(crate) fn machine(&self, level: OptimizationLevel) -> Result<TargetMachine, String> {
        let triple = TargetTriple::create(&self.triple);
        let target = LlvmTarget::from_triple(&triple).map_err(|e| e.to_string())?;
        target
            .create_target_machine(
                &triple,
                &self.cpu,
                &self.features,
                level,
                RelocMode::PIC,
                CodeModel::Small,
            )
            .ok_or_else(|| {
                format!(
                    "LLVM could not create a target machine for the CPU '{}'",
                    self.cpu
                )
            })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The feature string LLVM reports for an AVX2-only x86-64 CPU (a Zen 1, abridged).
    const ZEN1: &str = "+sse,+sse2,+cx16,+sahf,+popcnt,+sse3,+sse4.1,+sse4.2,+ssse3,+avx,+avx2,\
                        +bmi,+bmi2,+f16c,+fma,+lzcnt,+movbe,+xsave,-avx512f,-avx512bw";

    #[test]
    fn names_round_trip() {
        for name in ["host", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"] {
            let cpu: CpuTarget = name.parse().unwrap();
            assert_eq!(cpu.to_string(), name);
        }
        for bad in ["x86-64-v1", "x86-64-v5", "znver1", ""] {
            assert!(bad.parse::<CpuTarget>().is_err(), "{bad}");
        }
        assert_eq!("cpu".parse::<Target>(), Ok(Target::Cpu(CpuTarget::Host)));
        assert_eq!(
            "x86-64-v3".parse::<Target>(),
            Ok(Target::Cpu(CpuTarget::X86_64 { level: 3 }))
        );
    }

    #[test]
    fn a_level_needs_every_feature_of_it_on_the_host() {
        let host = |cpu: CpuTarget| {
            cpu.cpu_and_features("x86_64-unknown-linux-gnu", "znver1".into(), ZEN1.into())
        };
        assert_eq!(
            host(CpuTarget::X86_64 { level: 3 }),
            Ok(("x86-64-v3".to_string(), String::new()))
        );
        let e = host(CpuTarget::X86_64 { level: 4 }).unwrap_err();
        assert!(e.contains("lacks avx512f, avx512bw, avx512cd"), "{e}");
        assert_eq!(
            host(CpuTarget::Host),
            Ok(("znver1".to_string(), ZEN1.to_string()))
        );
        let e = CpuTarget::X86_64 { level: 2 }
            .cpu_and_features(
                "aarch64-unknown-linux-gnu",
                "neoverse-n1".into(),
                String::new(),
            )
            .unwrap_err();
        assert!(e.contains("needs an x86-64 host"), "{e}");
    }
}
