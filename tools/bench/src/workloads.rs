//! The benchmark workloads: graph-dialect programs at a full and a smoke size.
//!
//! Each workload is a template file under `tools/bench/workloads/` whose static shapes are
//! placeholders (`{M}`, `{N}`, ...). The sizes live in `workloads/sizes.json`, read by this
//! module and by `peers.py`, so dlc, numpy and onnxruntime always run the same problem. The
//! byte and FLOP counts here turn times into GB/s and GFLOP/s: bytes count each input read
//! once and each output written once (the traffic of a perfectly fused kernel), FLOPs count one
//! per primitive op of the decomposition per element, transcendental functions included.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::OnceLock;

/// Which size of a workload to run.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Size {
    /// The size of the published numbers (peers-and-limits.md).
    Full,
    /// A tiny size for tests: interpreters finish in milliseconds.
    Smoke,
}

impl Size {
    /// The name used on command lines and in `sizes.json`.
    pub fn name(self) -> &'static str {
        match self {
            Size::Full => "full",
            Size::Smoke => "smoke",
        }
    }
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What limits a workload's speed, and so which ceiling it is compared with.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Bound {
    /// Streams its tensors once: reported in GB/s against the triad bandwidth.
    Memory,
    /// Dominated by matmul FLOPs: reported in GFLOP/s against numpy (OpenBLAS).
    Compute,
}

/// One benchmark program.
#[derive(Debug)]
pub struct Workload {
    /// Short name: the template's file stem, the key in `sizes.json` and in peers.py's output.
    pub name: &'static str,
    /// One line saying what it computes.
    pub description: &'static str,
    /// What limits it.
    pub bound: Bound,
    template: &'static str,
    /// Bytes read and written, from the size parameters.
    bytes: fn(&Params) -> u64,
    /// Floating-point operations, from the size parameters.
    flops: fn(&Params) -> u64,
}

/// The size parameters of one workload instance, by placeholder name (`"M"` → 4096).
pub type Params = BTreeMap<String, u64>;

/// Every workload, in report order.
pub static WORKLOADS: [Workload; 9] = [
    Workload {
        name: "gelu_bias",
        description: "y = gelu_tanh(x*w + b), x [M,N], w, b [N]",
        bound: Bound::Memory,
        template: include_str!("../workloads/gelu_bias.mlir"),
        // x in, y out, w and b once.
        bytes: |p| 4 * (2 * p["M"] * p["N"] + 2 * p["N"]),
        // mul, add, then gelu: x³ (2), ·0.044715, +x, ·√(2/π), tanh, +1, ·x, ·0.5.
        flops: |p| 11 * p["M"] * p["N"],
    },
    Workload {
        name: "softmax",
        description: "softmax over the last axis of x [M,N]",
        bound: Bound::Memory,
        template: include_str!("../workloads/softmax.mlir"),
        bytes: |p| 4 * 2 * p["M"] * p["N"],
        // max, sub, exp, sum, div.
        flops: |p| 5 * p["M"] * p["N"],
    },
    Workload {
        name: "layer_norm",
        description: "layer_norm over the last axis of x [M,N], gamma, beta [N], eps 1e-5",
        bound: Bound::Memory,
        template: include_str!("../workloads/layer_norm.mlir"),
        bytes: |p| 4 * (2 * p["M"] * p["N"] + 2 * p["N"]),
        // sum, sub, square, sum, ·rsqrt, ·gamma, +beta (the per-row rsqrt is not counted).
        flops: |p| 7 * p["M"] * p["N"],
    },
    Workload {
        name: "matmul",
        description: "c = a·b, a [M,K], b [K,N]",
        bound: Bound::Compute,
        template: include_str!("../workloads/matmul.mlir"),
        bytes: |p| 4 * (p["M"] * p["K"] + p["K"] * p["N"] + p["M"] * p["N"]),
        flops: |p| 2 * p["M"] * p["K"] * p["N"],
    },
    Workload {
        name: "attention",
        description: "softmax(q·kT/sqrt(D))·v, q, k, v [S,D]",
        bound: Bound::Compute,
        template: include_str!("../workloads/attention.mlir"),
        bytes: |p| 4 * 4 * p["S"] * p["D"],
        // Two [S,S,D] matmuls, then per score: scale and the five softmax ops.
        flops: |p| 4 * p["S"] * p["S"] * p["D"] + 6 * p["S"] * p["S"],
    },
    Workload {
        name: "mlp",
        description: "gelu_tanh(x·w1 + b1)·w2 + b2, x [B,D], w1 [D,H], w2 [H,D]",
        bound: Bound::Compute,
        template: include_str!("../workloads/mlp.mlir"),
        bytes: |p| {
            let (b, d, h) = (p["B"], p["D"], p["H"]);
            4 * (2 * b * d + 2 * d * h + h + d)
        },
        // Two matmuls, the first bias and gelu (1 + 9 per hidden element), the second bias.
        flops: |p| {
            let (b, d, h) = (p["B"], p["D"], p["H"]);
            4 * b * d * h + 10 * b * h + b * d
        },
    },
    Workload {
        name: "rms_norm",
        description: "rms_norm over the last axis of x [M,N], gamma [N], eps 1e-6",
        bound: Bound::Memory,
        template: include_str!("../workloads/rms_norm.mlir"),
        bytes: |p| 4 * (2 * p["M"] * p["N"] + p["N"]),
        // square, sum, ·rsqrt, ·gamma (the per-row rsqrt is not counted).
        flops: |p| 4 * p["M"] * p["N"],
    },
    Workload {
        name: "conv",
        description: "relu(conv3x3(x, w) + b), x [N,C,H,W], w [O,C,3,3], stride 1, padding 1",
        bound: Bound::Compute,
        template: include_str!("../workloads/conv.mlir"),
        bytes: |p| {
            let (n, c, h, w, o) = (p["N"], p["C"], p["H"], p["W"], p["O"]);
            4 * (n * c * h * w + o * c * 9 + o + n * o * h * w)
        },
        // The multiply-adds of every output, then bias and relu.
        flops: |p| {
            let (n, c, h, w, o) = (p["N"], p["C"], p["H"], p["W"], p["O"]);
            2 * n * o * h * w * c * 9 + 2 * n * o * h * w
        },
    },
    Workload {
        name: "gpt2_block",
        description: "GPT-2 pre-norm decoder block, x [S,E], H heads of D, causal, MLP E→F→E",
        bound: Bound::Compute,
        template: include_str!("../workloads/gpt2_block.mlir"),
        // x in, y out, the weights and vectors once.
        bytes: |p| {
            let (s, e, f) = (p["S"], p["E"], p["F"]);
            4 * (2 * s * e + 4 * e * e + 2 * e * f + 9 * e + f)
        },
        // Four [S,E]x[E,E] projections, q·kᵀ and p·v per head, the MLP's two matmuls, then
        // per element: scale, mask and the five softmax ops per score, gelu and its bias per
        // hidden element, two layer norms (7 each) and the biases and residuals per output.
        flops: |p| {
            let (s, e, h, f) = (p["S"], p["E"], p["H"], p["F"]);
            8 * s * e * e + 4 * s * s * e + 4 * s * e * f + 7 * h * s * s + 10 * s * f + 20 * s * e
        },
    },
];

/// The shared size table, as written in `workloads/sizes.json`.
const SIZES_JSON: &str = include_str!("../workloads/sizes.json");

type SizeTable = BTreeMap<String, BTreeMap<String, Params>>;

/// The parsed size table; `sizes.json` is part of the crate and the unit tests check it parses
/// and covers every workload, so a failure here is a build defect, not a user error.
fn size_table() -> &'static SizeTable {
    static TABLE: OnceLock<SizeTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        serde_json::from_str(SIZES_JSON).expect("workloads/sizes.json is valid (unit-tested)")
    })
}

/// Why a workload could not be instantiated.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WorkloadError {
    /// No workload has this name.
    #[error("unknown workload '{0}' (known: {known})", known = names().join(", "))]
    Unknown(String),
    /// `sizes.json` has no entry for this workload and size.
    #[error("workloads/sizes.json has no {size} size for '{workload}'")]
    MissingSize {
        /// The workload.
        workload: &'static str,
        /// The size asked for.
        size: Size,
    },
    /// A placeholder of the template has no value in the size table.
    #[error("template of '{workload}' has placeholder {{{placeholder}}} with no value")]
    UnboundPlaceholder {
        /// The workload.
        workload: &'static str,
        /// The placeholder's name, without braces.
        placeholder: String,
    },
}

/// The names of all workloads, in report order.
pub fn names() -> Vec<&'static str> {
    WORKLOADS.iter().map(|w| w.name).collect()
}

/// The workload called `name`.
pub fn find(name: &str) -> Result<&'static Workload, WorkloadError> {
    WORKLOADS
        .iter()
        .find(|w| w.name == name)
        .ok_or_else(|| WorkloadError::Unknown(name.to_string()))
}

/// Parses a comma-separated list of workload names; `"all"` or an empty list means every one.
pub fn select(list: &str) -> Result<Vec<&'static Workload>, WorkloadError> {
    let list = list.trim();
    if list.is_empty() || list == "all" {
        return Ok(WORKLOADS.iter().collect());
    }
    list.split(',').map(|name| find(name.trim())).collect()
}

impl Workload {
    /// The size parameters (`{"M": 4096, "N": 4096}`) at `size`.
    pub fn params(&self, size: Size) -> Result<&'static Params, WorkloadError> {
        size_table()
            .get(self.name)
            .and_then(|sizes| sizes.get(size.name()))
            .ok_or(WorkloadError::MissingSize {
                workload: self.name,
                size,
            })
    }

    /// The graph-dialect program at `size`: the template with every placeholder replaced.
    /// `{SCALE}` is derived (1/√D, as an f64 literal); the others come from `sizes.json`.
    pub fn ir(&self, size: Size) -> Result<String, WorkloadError> {
        let params = self.params(size)?;
        let mut out = String::with_capacity(self.template.len() + 64);
        let mut rest = self.template;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let name_len = after
                .find(|c: char| !(c.is_ascii_uppercase() || c == '_'))
                .unwrap_or(after.len());
            // A placeholder is `{NAME}` with NAME in capitals; any other brace is MLIR syntax.
            if name_len == 0 || !after[name_len..].starts_with('}') {
                out.push('{');
                rest = after;
                continue;
            }
            let name = &after[..name_len];
            match self.placeholder_value(params, name) {
                Some(value) => out.push_str(&value),
                None => {
                    return Err(WorkloadError::UnboundPlaceholder {
                        workload: self.name,
                        placeholder: name.to_string(),
                    })
                }
            }
            rest = &after[name_len + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    fn placeholder_value(&self, params: &Params, name: &str) -> Option<String> {
        if name == "SCALE" {
            let d = *params.get("D")? as f64;
            // `{:?}` prints the shortest round-tripping form, always with a decimal point.
            return Some(format!("{:?}", 1.0 / d.sqrt()));
        }
        params.get(name).map(u64::to_string)
    }

    /// Bytes read and written by one run at `size` (inputs once, outputs once).
    pub fn bytes(&self, size: Size) -> Result<u64, WorkloadError> {
        Ok((self.bytes)(self.params(size)?))
    }

    /// Floating-point operations of one run at `size`.
    pub fn flops(&self, size: Size) -> Result<u64, WorkloadError> {
        Ok((self.flops)(self.params(size)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_workload_has_both_sizes() {
        for w in &WORKLOADS {
            for size in [Size::Full, Size::Smoke] {
                assert!(w.params(size).is_ok(), "{} {size}", w.name);
                assert!(w.bytes(size).is_ok_and(|b| b > 0));
                assert!(w.flops(size).is_ok_and(|f| f > 0));
            }
        }
        assert_eq!(
            size_table().len(),
            WORKLOADS.len(),
            "sizes.json has extra entries"
        );
    }

    #[test]
    fn templates_are_fully_instantiated() {
        for w in &WORKLOADS {
            let ir = w.ir(Size::Full).expect("instantiates");
            assert!(!ir.contains("{M}") && !ir.contains("{N}"), "{ir}");
            assert!(ir.contains(&format!("func.func @{}(", w.name)), "{ir}");
        }
        let attention = find("attention").and_then(|w| w.ir(Size::Full));
        assert!(attention.is_ok_and(|ir| ir.contains("scale = 0.125 : f64")));
    }

    #[test]
    fn full_sizes_match_peers_and_limits() {
        let p = |name: &str| find(name).and_then(|w| w.params(Size::Full)).cloned();
        assert_eq!(
            p("gelu_bias").ok().map(|p| (p["M"], p["N"])),
            Some((4096, 4096))
        );
        assert_eq!(
            p("matmul").ok().map(|p| (p["M"], p["K"], p["N"])),
            Some((1024, 1024, 1024))
        );
        // Table-driven: 64 MiB in and out for the [4096, 4096] row ops; 2.15 GFLOP for matmul.
        let softmax = find("softmax").and_then(|w| w.bytes(Size::Full));
        assert_eq!(softmax, Ok(2 * 64 * 1024 * 1024));
        let matmul = find("matmul").and_then(|w| w.flops(Size::Full));
        assert_eq!(matmul, Ok(2 * 1024 * 1024 * 1024));
    }

    #[test]
    fn selection() {
        assert_eq!(select("all").map(|v| v.len()), Ok(WORKLOADS.len()));
        assert_eq!(
            select("softmax, matmul").map(|v| v.iter().map(|w| w.name).collect::<Vec<_>>()),
            Ok(vec!["softmax", "matmul"])
        );
        assert!(matches!(select("nope"), Err(WorkloadError::Unknown(_))));
    }
}
