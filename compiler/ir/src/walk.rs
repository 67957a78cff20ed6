//! Walks over nested IR: every op inside an op, in pre- or post-order.
//!
//! The callback gets `&mut Context` and may erase the op it is visiting: the walk reads the next
//! op before calling it, and does not descend into an op the callback erased.

use crate::ir::Op;
use crate::Context;

/// What a walk callback asks for next.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum WalkResult {
    /// Go on (into the op's regions, in pre-order).
    Advance,
    /// Do not descend into this op's regions (pre-order only).
    Skip,
    /// Stop the whole walk.
    Interrupt,
}

/// The order in which a walk visits an op relative to the ops nested in it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum WalkOrder {
    /// The op before its nested ops.
    PreOrder,
    /// The nested ops before the op.
    PostOrder,
}

impl Context {
    /// Visits `root` and every op nested in it. Returns `Interrupt` if the callback stopped it.
    pub fn walk(
        &mut self,
        root: Op,
        order: WalkOrder,
        f: &mut dyn FnMut(&mut Context, Op) -> WalkResult,
    ) -> WalkResult {
        if order == WalkOrder::PreOrder {
            match f(self, root) {
                WalkResult::Interrupt => return WalkResult::Interrupt,
                WalkResult::Skip => return WalkResult::Advance,
                WalkResult::Advance if !self.is_alive(root) => return WalkResult::Advance,
                WalkResult::Advance => {}
            }
        }
        let regions = self.regions(root).to_vec();
        for region in regions {
            let blocks = self.blocks(region).to_vec();
            for block in blocks {
                let mut cur = self.first_op(block);
                while let Some(op) = cur {
                    cur = self.next_op(op);
                    if self.walk(op, order, f) == WalkResult::Interrupt {
                        return WalkResult::Interrupt;
                    }
                }
            }
        }
        if order == WalkOrder::PostOrder && f(self, root) == WalkResult::Interrupt {
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    }

    /// Calls `f` on `root` and every op nested in it, in pre-order, without mutation.
    pub fn for_each_op(&self, root: Op, f: &mut dyn FnMut(Op)) {
        f(root);
        for &region in self.regions(root) {
            for &block in self.blocks(region) {
                for op in self.block_ops(block) {
                    self.for_each_op(op, f);
                }
            }
        }
    }
}
