//! The buffers each schedule block reads and writes, derived from the IR.
//!
//! A schedule block's read and write regions are what later passes (schedule-block DCE, common
//! read elimination, buffer-axis updates) reason about. CINN stores them as fields next to the
//! block and trusts them; here they are computed from the accesses in the block's body and init
//! regions (every op implementing [`MemoryAccess`](crate::MemoryAccess)), so they cannot
//! disagree with the code. Each access records its buffer and its indices as [`IndexExpr`]s
//! over the block's iter vars and the kernel's symbols, so a pass can bound them with
//! [`range_of`] or compare them with [`equal`](crate::index_expr::equal).

use crate::index_expr::{from_ir, range_of, Bounds, IndexExpr};
use crate::{access, AccessKind, ScheduleBlockOp};
use dlc_ir::pass::Analysis;
use dlc_ir::{Context, Op, Value};
use rustc_hash::FxHashMap;

/// One access of a buffer: `buffer[indices]`, `width` elements wide along the last dim (1 for
/// scalar loads and stores).
#[derive(Clone, Debug, PartialEq)]
pub struct BufferAccess {
    pub buffer: Value,
    pub indices: Vec<IndexExpr>,
    pub width: u32,
}

impl BufferAccess {
    /// The range of each index, given bounds of the symbols they use; the last dim's range
    /// covers the whole vector.
    pub fn ranges(&self, bounds: &Bounds) -> Vec<(i64, i64)> {
        let mut ranges: Vec<(i64, i64)> =
            self.indices.iter().map(|e| range_of(e, bounds)).collect();
        if let Some(last) = ranges.last_mut() {
            last.1 = last.1.saturating_add(i64::from(self.width) - 1);
        }
        ranges
    }
}

/// The reads and writes of one schedule block, each distinct access once, in program order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BlockAccesses {
    pub reads: Vec<BufferAccess>,
    pub writes: Vec<BufferAccess>,
}

/// Read and write accesses of every `loop.schedule_block` inside an op (usually a kernel).
pub struct ScheduleBlockAccesses {
    blocks: FxHashMap<Op, BlockAccesses>,
}

impl ScheduleBlockAccesses {
    /// The accesses of schedule block `block` (`None` if it is not a schedule block of the
    /// analysed op).
    pub fn of(&self, block: Op) -> Option<&BlockAccesses> {
        self.blocks.get(&block)
    }
}

impl Analysis for ScheduleBlockAccesses {
    fn compute(ctx: &Context, op: Op) -> Self {
        let mut blocks = FxHashMap::default();
        ctx.for_each_op(op, &mut |o| {
            if ctx.view::<ScheduleBlockOp>(o).is_some() {
                blocks.insert(o, accesses_in(ctx, o));
            }
        });
        ScheduleBlockAccesses { blocks }
    }
}

/// The accesses in the regions of `block`, nested ops included.
fn accesses_in(ctx: &Context, block: Op) -> BlockAccesses {
    let mut out = BlockAccesses::default();
    for &region in ctx.regions(block) {
        for &b in ctx.blocks(region) {
            for op in ctx.block_ops(b) {
                ctx.for_each_op(op, &mut |o| record(ctx, o, &mut out));
            }
        }
    }
    out
}

/// Adds the access `op` makes, if it reads or writes a buffer, unless an equal one is
/// recorded. A prefetch touches no data and is left out.
fn record(ctx: &Context, op: Op, out: &mut BlockAccesses) {
    let Some(a) = access(ctx, op) else {
        return;
    };
    let list = match a.kind {
        AccessKind::Read => &mut out.reads,
        AccessKind::Write => &mut out.writes,
        AccessKind::Prefetch => return,
    };
    let access = BufferAccess {
        buffer: a.buffer,
        indices: a.indices.iter().map(|v| from_ir(ctx, *v)).collect(),
        width: a.lanes,
    };
    if !list.contains(&access) {
        list.push(access);
    }
}
