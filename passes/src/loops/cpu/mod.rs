//! Loop passes: the cpu group. Passes that shape loop kernels for CPU code generation:
//! register tiling of matmul-like reductions, cache tiling of transposes, SIMD vectorization,
//! unrolling, thread-level parallel loops and the prefetch of a row kernel's next row.

mod parallelize;
mod prefetch;
pub mod target;
mod tile;
mod tile_transpose;
mod unroll;
mod util;
mod vectorize;

use super::DifferentialCase;
use crate::graph::lower::Target;
use dlc_ir::pass::PassRegistry;

/// Registers the passes of this group.
pub(super) fn register(registry: &mut PassRegistry) {
    registry.register(&tile::INFO);
    registry.register(&tile_transpose::INFO);
    registry.register(&vectorize::INFO);
    registry.register(&unroll::INFO);
    registry.register(&parallelize::INFO);
    registry.register(&prefetch::INFO);
}

/// The pipelines the loop differential test runs for this group.
pub(super) const CASES: &[DifferentialCase] = &[
    DifferentialCase {
        pipeline: "tile{rows=3 vectors=2 width=4}",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "tile{rows=2 vectors=1 width=2 row-blocks=2 k-block=3}",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "tile{dot=4 cpu=x86-64-v4}",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "tile{dot=2 cpu=x86-64-v3}",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "tile-transpose{tile=2}",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "vectorize",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "vectorize{width=4 nontemporal-bytes=64}",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "vectorize{width=4},prefetch",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "vectorize{width=4},prefetch{rows-ahead=3}",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "unroll{max-extent=16}",
        target: Target::Cpu,
    },
    DifferentialCase {
        pipeline: "parallelize",
        target: Target::Cpu,
    },
];
