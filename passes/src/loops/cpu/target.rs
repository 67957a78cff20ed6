//! The CPU a kernel is scheduled for: what `tile` and `vectorize` size their vectors, register
//! tiles and cache blocks by, instead of constants that fit one machine.
//!
//! A CPU is named as `dlc_codegen::CpuTarget` names it: `host` (this process's CPU, probed at
//! run time), or an x86-64 level (`x86-64`, `x86-64-v2`, `x86-64-v3`, `x86-64-v4`) with the
//! register file the psABI level guarantees. The passes take the name from their `cpu` option,
//! else from the kernel's `dlc.target_cpu` string attribute, else `host`. As MLIR's LLVM
//! dialect puts `target_cpu` on each function, the attribute lives on each `loop.kernel`: a
//! kernel pass sees only its kernel (the pass manager runs kernels in parallel, each in a
//! forked context). The module's attribute is the default: `lower` copies it onto the kernels
//! it builds, and [`set_target_cpu`] (what `dlc-run --cpu` and `dlc-opt --target` call, so one
//! flag picks both the schedule and the code generator's CPU) sets the module and its kernels.

use dlc_ir::{Context, Op};

/// The module attribute naming the CPU the kernels are scheduled for (a string: `x86-64-v3`).
pub const TARGET_CPU_ATTR: &str = "dlc.target_cpu";

/// What a schedule needs to know about a CPU.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CpuInfo {
    /// Bits of one SIMD register (512 with AVX-512, 256 with AVX2, 128 with SSE or NEON).
    pub vector_bits: u32,
    /// SIMD registers the compiler may use (32 zmm with AVX-512, 16 ymm with AVX2).
    pub vector_registers: u32,
    /// Whether fused multiply-add instructions exist.
    pub fma: bool,
    /// Bytes of the per-core L2 cache (what a cache block of `B` should fit).
    pub l2_bytes: u64,
    /// How 8-bit integer products are computed: [`ByteDot::Four`] with AVX-512 VNNI's
    /// `vpdpbusd` (no x86-64 level has it; a host may), [`ByteDot::Two`] on other x86 CPUs
    /// (`pmaddwd`, SSE2 on), [`ByteDot::Widen`] elsewhere.
    pub dot: ByteDot,
    /// Whose cores these are, where that changes the register tile that measured fastest
    /// ([`CpuInfo::register_tile`]); [`Vendor::Any`] for an x86-64 level, which names no core.
    pub vendor: Vendor,
}

/// The maker of a CPU's cores, read from the host (`/proc/cpuinfo`'s `vendor_id`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Vendor {
    /// AMD's Zen cores (`AuthenticAMD`).
    Amd,
    /// Any other maker, or a CPU named by its level only.
    Any,
}

/// How `tile` computes an 8-bit integer product `acc += ext(A) · ext(B)` into `i32` lanes:
/// the op a group of `k` steps takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ByteDot {
    /// `loop.dot4`: four steps of bytes per op (`vpdpbusd`, 64 products an instruction on
    /// AVX-512 VNNI), for one unsigned and one signed operand on 16 lanes.
    Four,
    /// `loop.dot2`: two steps per op, the bytes widened to `i16` when `B` is packed (x86's
    /// `pmaddwd`: 16 products an instruction with AVX2, where `i32` multiplies do 8), for
    /// either extension of either operand.
    Two,
    /// One step per op: the bytes widened to `i32`, multiplied and added.
    Widen,
}

impl ByteDot {
    /// The `k` steps one op takes: 4, 2, or 1.
    pub fn group(self) -> i64 {
        match self {
            ByteDot::Four => 4,
            ByteDot::Two => 2,
            ByteDot::Widen => 1,
        }
    }

    /// What a CPU with `self` computes a product with whose `A` and `B` are sign-extended as
    /// `signed_a` and `signed_b` say, in `i32` vectors of `lanes`: `loop.dot4` takes one
    /// unsigned and one signed operand on 16 lanes; any other product on a CPU with it (an
    /// x86 one) takes `loop.dot2`.
    pub fn for_product(self, signed_a: bool, signed_b: bool, lanes: i64) -> ByteDot {
        match self {
            ByteDot::Four if signed_a != signed_b && lanes == 16 => ByteDot::Four,
            ByteDot::Four | ByteDot::Two => ByteDot::Two,
            ByteDot::Widen => ByteDot::Widen,
        }
    }
}

/// Names `cpu` as the CPU the kernels of `module` are scheduled for: the [`TARGET_CPU_ATTR`]
/// attribute of the module and of each `loop.kernel` in it, after checking that
/// [`CpuInfo::named`] knows the name.
pub fn set_target_cpu(ctx: &mut Context, module: Op, cpu: &str) -> Result<(), String> {
    CpuInfo::named(cpu)?;
    let attr = ctx.string_attr(cpu);
    ctx.set_attr(module, TARGET_CPU_ATTR, attr);
    for kernel in dlc_loop::module_kernels(ctx, module) {
        ctx.set_attr(kernel, TARGET_CPU_ATTR, attr);
    }
    Ok(())
}

/// Gives `kernel` the [`TARGET_CPU_ATTR`] of the op it is nested in, unless it has its own.
pub fn inherit_target_cpu(ctx: &mut Context, kernel: Op) {
    if ctx.attr(kernel, TARGET_CPU_ATTR).is_some() {
        return;
    }
    if let Some(attr) = ctx
        .parent_op(kernel)
        .and_then(|p| ctx.attr(p, TARGET_CPU_ATTR))
    {
        ctx.set_attr(kernel, TARGET_CPU_ATTR, attr);
    }
}

/// The L2 size assumed for a named level: the smallest of the machines dlc runs on (a Zen 1
/// core has 512 KiB), so a block sized by it fits everywhere.
const LEVEL_L2_BYTES: u64 = 512 * 1024;

impl CpuInfo {
    /// The CPU called `name` (`host`, `cpu`, `native`, `x86-64`, `x86-64-v2`, `-v3`, `-v4`).
    pub fn named(name: &str) -> Result<CpuInfo, String> {
        let level = |vector_bits, vector_registers, fma| CpuInfo {
            vector_bits,
            vector_registers,
            fma,
            l2_bytes: LEVEL_L2_BYTES,
            dot: ByteDot::Two,
            vendor: Vendor::Any,
        };
        match name {
            "" | "host" | "cpu" | "native" => Ok(CpuInfo::host()),
            "x86-64" | "x86-64-v2" => Ok(level(128, 16, false)),
            "x86-64-v3" => Ok(level(256, 16, true)),
            "x86-64-v4" => Ok(level(512, 32, true)),
            _ => Err(format!(
                "unknown CPU '{name}' (expected 'host', 'x86-64', 'x86-64-v2', 'x86-64-v3' or \
                 'x86-64-v4')"
            )),
        }
    }

    /// The `dot` option of the passes that schedule 8-bit products (`tile`, `lower`): `4`,
    /// `2` or `none` overrides the CPU's [`CpuInfo::dot`], empty keeps it.
    pub fn dot_option(value: &str) -> Result<Option<ByteDot>, String> {
        match value {
            "" => Ok(None),
            "4" => Ok(Some(ByteDot::Four)),
            "2" => Ok(Some(ByteDot::Two)),
            "none" => Ok(Some(ByteDot::Widen)),
            other => Err(format!("dot must be 4, 2, none or empty, not '{other}'")),
        }
    }

    /// The CPU this process runs on (detected once: every CPU kernel pass asks).
    pub fn host() -> CpuInfo {
        static HOST: std::sync::OnceLock<CpuInfo> = std::sync::OnceLock::new();
        *HOST.get_or_init(CpuInfo::detect_host)
    }

    fn detect_host() -> CpuInfo {
        let l2_bytes = host_l2_bytes().unwrap_or(LEVEL_L2_BYTES);
        let vendor = host_vendor();
        #[cfg(target_arch = "x86_64")]
        {
            let avx512 = std::arch::is_x86_feature_detected!("avx512f");
            let avx2 = std::arch::is_x86_feature_detected!("avx2");
            CpuInfo {
                vector_bits: if avx512 {
                    512
                } else if avx2 {
                    256
                } else {
                    128
                },
                vector_registers: if avx512 { 32 } else { 16 },
                fma: std::arch::is_x86_feature_detected!("fma"),
                l2_bytes,
                dot: if avx512 && std::arch::is_x86_feature_detected!("avx512vnni") {
                    ByteDot::Four
                } else {
                    ByteDot::Two
                },
                vendor,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            // AArch64 NEON: 32 128-bit registers with FMA; a conservative guess elsewhere.
            CpuInfo {
                vector_bits: 128,
                vector_registers: if cfg!(target_arch = "aarch64") {
                    32
                } else {
                    16
                },
                fma: cfg!(target_arch = "aarch64"),
                l2_bytes,
                dot: ByteDot::Widen,
                vendor,
            }
        }
    }

    /// The CPU for the kernel `op`: `option` when it is not empty, else the kernel's
    /// `dlc.target_cpu` attribute, else the host. Only the kernel itself is read: a kernel
    /// pass may run on a kernel forked out of its module.
    pub fn for_op(ctx: &Context, op: Op, option: &str) -> Result<CpuInfo, String> {
        if !option.is_empty() {
            return CpuInfo::named(option);
        }
        match ctx.attr(op, TARGET_CPU_ATTR) {
            Some(attr) => {
                let name = ctx.attr_as_str(attr).ok_or_else(|| {
                    format!("the '{TARGET_CPU_ATTR}' attribute must be a string naming a CPU")
                })?;
                CpuInfo::named(name)
            }
            None => Ok(CpuInfo::host()),
        }
    }

    /// Lanes of one register for elements of `elem_bits` bits (at least 2).
    pub fn lanes(self, elem_bits: u32) -> i64 {
        i64::from((self.vector_bits / elem_bits.max(8)).max(2))
    }

    /// The register tile `(rows, vectors)` of a matmul microkernel: `rows * vectors`
    /// accumulators, `vectors` registers of `B` and one broadcast of `A` fit in the register
    /// file: 4x4 (21 of 32) with 32 registers; with 16, 6x2 (15 used), the shape of MLAS's and
    /// OpenBLAS's kernels, or 4x3 (16 used) on AMD's cores. On AVX-512, 4x4 measured fastest
    /// against 6x2, 8x2, 4x3, 6x4, 8x3, 12x2 and 2x4; on AVX2, 6x2 and 5x2 of 6x2, 4x3, 3x4,
    /// 8x1 and 5x2 on an Intel Xeon (the `tile` doc), but on three AMD cores tiles of 5 or 6
    /// rows ran a 1024x1024x1024 f32 product 15-25% slower than tiles of 4 (Zen 1, Zen 3, and
    /// a Zen 5's AVX2 code: docs/benchmarks.md, twenty-fourth, twenty-sixth and twenty-seventh
    /// sessions); llvm-mca counts the same cycles a step for both, so the cost is in reading
    /// more rows of `A` at once, not in the arithmetic.
    pub fn register_tile(self) -> (i64, i64) {
        match (self.vector_registers >= 32, self.vendor) {
            (true, _) => (4, 4),
            (false, Vendor::Amd) => (4, 3),
            (false, Vendor::Any) => (6, 2),
        }
    }

    /// The register tile of an 8-bit product that takes `loop.dot2`: at least
    /// [`PAIR_VECTORS`] vectors per row, as many rows as then fit with the vectors of `B`,
    /// the pair of `A` and one product (`pmaddwd` writes a register before the add). Each
    /// row's pair costs three shuffles a step (two bytes widened to `i16`, moved to a vector
    /// register, broadcast), where a float's or a quad's broadcast is one load; 6x2 spends
    /// more on them than on its 12 `pmaddwd` on most cores (scripts/mca_pair_tile.py, cycles
    /// per accumulator and step with AVX2: skylake 1.55 against 0.99 for 2x4, znver3 0.79
    /// against 0.70, alderlake 1.01 against 0.67, znver1 2.0 for both). So 2x4 with 16
    /// registers (14 used); the 4x4 of 32 registers stays (2x8 and 2x4 measured slower with
    /// AVX-512 on a Zen 5).
    pub fn pair_tile(self) -> (i64, i64) {
        let (rows, vectors) = self.register_tile();
        if vectors >= PAIR_VECTORS {
            return (rows, vectors);
        }
        let spare = i64::from(self.vector_registers) - PAIR_VECTORS - 2;
        ((spare / PAIR_VECTORS).max(1), PAIR_VECTORS)
    }
}

/// The fewest vectors per row of a `loop.dot2` tile ([`CpuInfo::pair_tile`]).
pub const PAIR_VECTORS: i64 = 4;

/// The maker of the host's cores, from Linux's `/proc/cpuinfo` (`vendor_id : AuthenticAMD`).
fn host_vendor() -> Vendor {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let vendor = info
        .lines()
        .find_map(|line| line.strip_prefix("vendor_id"))
        .and_then(|rest| rest.split(':').nth(1));
    match vendor.map(str::trim) {
        Some("AuthenticAMD") => Vendor::Amd,
        _ => Vendor::Any,
    }
}

/// The host's per-core L2 size from Linux's sysfs (`.../cache/index2/size`, "2048K").
fn host_l2_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cache/index2/size").ok()?;
    let text = text.trim();
    let (digits, scale) = match text.strip_suffix('K') {
        Some(d) => (d, 1024),
        None => match text.strip_suffix('M') {
            Some(d) => (d, 1024 * 1024),
            None => (text, 1),
        },
    };
    digits.parse::<u64>().ok().map(|n| n * scale)
}
