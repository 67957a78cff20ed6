//! Moving IR between contexts that share interned tables (a context and its forks).
//!
//! Parallel pipelines give each isolated-from-above op (a function, a kernel) its own forked
//! context: the op is copied in, transformed on a worker thread, and its body copied back. Types,
//! attributes and identifiers are shared, so only the op tree itself is rebuilt, with fresh ids.

use crate::ir::{Block, InsertPoint, Op, OpSpec, Region, Value};
use crate::Context;
use rustc_hash::FxHashMap;

/// Old → new ids while copying between contexts.
#[derive(Default)]
struct IdMap {
    values: FxHashMap<Value, Value>,
    blocks: FxHashMap<Block, Block>,
}

impl Context {
    /// Copies `op` (with everything nested in it) from `from`, which must share this context's
    /// tables, into this context. The copy's operands are the arguments of a detached holder
    /// block, so the copy verifies on its own; its regions must not use values defined outside
    /// `op` (it is isolated from above).
    pub fn transplant_op(&mut self, from: &Context, op: Op) -> Op {
        debug_assert!(
            std::sync::Arc::ptr_eq(&self.interned, &from.interned),
            "contexts must share tables"
        );
        let operand_types: Vec<_> = from
            .operands(op)
            .iter()
            .map(|v| from.value_type(*v))
            .collect();
        let holder = self.create_block(&operand_types);
        let mut map = IdMap::default();
        for (old, new) in from
            .operands(op)
            .iter()
            .zip(self.block_args(holder).to_vec())
        {
            map.values.insert(*old, new);
        }
        let copy = self.copy_op(from, op, &mut map);
        self.insert_op(InsertPoint::End(holder), copy);
        copy
    }

    /// Replaces the regions, attributes and location of `op` with those of `src` in `from`
    /// (everything a pass running on `op` may change; its operands and results stay).
    pub fn replace_body_from(&mut self, op: Op, from: &Context, src: Op) {
        let old = std::mem::take(&mut self.ops[op.index()].regions);
        for r in old {
            self.destroy_region(r);
        }
        let mut map = IdMap::default();
        let regions: Vec<Region> = from
            .regions(src)
            .iter()
            .map(|r| self.copy_region(from, *r, &mut map))
            .collect();
        for r in &regions {
            self.regions[r.index()].parent = Some(op);
        }
        self.ops[op.index()].regions = regions.into_iter().collect();
        self.ops[op.index()].attrs = from.attrs(src).to_vec();
        self.ops[op.index()].loc = from.op_loc(src);
    }

    fn copy_op(&mut self, from: &Context, op: Op, map: &mut IdMap) -> Op {
        let mut spec = OpSpec::with_name(from.op_name_id(op), from.op_loc(op));
        spec.operands = from
            .operands(op)
            .iter()
            .map(|v| {
                *map.values
                    .get(v)
                    .expect("value defined outside an isolated op")
            })
            .collect();
        spec.result_types = from.result_types(op);
        spec.attrs = from.attrs(op).to_vec();
        spec.successors = from.successors(op).iter().map(|b| map.blocks[b]).collect();
        for &r in from.regions(op) {
            let copy = self.copy_region(from, r, map);
            spec.regions.push(copy);
        }
        let new = self.create_op(spec);
        for (old, copy) in from.results(op).zip(self.results(new)) {
            map.values.insert(old, copy);
        }
        new
    }

    fn copy_region(&mut self, from: &Context, region: Region, map: &mut IdMap) -> Region {
        let new_region = self.create_region();
        // Blocks first, so branches to later blocks can be mapped.
        for &b in from.blocks(region) {
            let types: Vec<_> = from
                .block_args(b)
                .iter()
                .map(|v| from.value_type(*v))
                .collect();
            let nb = self.create_block(&types);
            for (old, new) in from.block_args(b).iter().zip(self.block_args(nb).to_vec()) {
                map.values.insert(*old, new);
            }
            map.blocks.insert(b, nb);
            self.append_block(new_region, nb);
        }
        for &b in from.blocks(region) {
            let nb = map.blocks[&b];
            for op in from.block_ops(b) {
                let copy = self.copy_op(from, op, map);
                self.insert_op(InsertPoint::End(nb), copy);
            }
        }
        new_region
    }
}
