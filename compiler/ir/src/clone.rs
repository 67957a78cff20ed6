//! Deep copies of ops and regions with value remapping (MLIR's `IRMapping`).

use crate::ir::{Block, Op, OpSpec, Region, Value};
use crate::Context;
use rustc_hash::FxHashMap;

/// Old → new correspondences built up while cloning; pre-seed it to substitute values.
#[derive(Default, Debug)]
pub struct ValueMap {
    values: FxHashMap<Value, Value>,
    blocks: FxHashMap<Block, Block>,
}

impl ValueMap {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Maps `from` to `to`.
    pub fn map(&mut self, from: Value, to: Value) {
        self.values.insert(from, to);
    }

    /// The image of `v`, or `v` itself when unmapped.
    pub fn lookup(&self, v: Value) -> Value {
        self.values.get(&v).copied().unwrap_or(v)
    }

    /// The image of block `b`, or `b` itself when unmapped.
    pub fn lookup_block(&self, b: Block) -> Block {
        self.blocks.get(&b).copied().unwrap_or(b)
    }
}

impl Context {
    /// Clones `op` and everything nested in it into a new detached op. Operands are remapped
    /// through `map`, and the clone's results (and nested values) are recorded in it.
    pub fn clone_op(&mut self, op: Op, map: &mut ValueMap) -> Op {
        let mut spec = OpSpec::with_name(self.op_name_id(op), self.op_loc(op));
        spec.operands = self.operands(op).iter().map(|v| map.lookup(*v)).collect();
        spec.result_types = self.result_types(op);
        spec.attrs = self.attrs(op).to_vec();
        spec.successors = self
            .successors(op)
            .iter()
            .map(|b| map.lookup_block(*b))
            .collect();
        for region in self.regions(op).to_vec() {
            let new_region = self.create_region();
            self.clone_region_into(region, new_region, map);
            spec.regions.push(new_region);
        }
        let new_op = self.create_op(spec);
        for (old, new) in self.results(op).zip(self.results(new_op)) {
            map.map(old, new);
        }
        new_op
    }

    /// Appends clones of the blocks of `from` to `into`.
    pub fn clone_region_into(&mut self, from: Region, into: Region, map: &mut ValueMap) {
        let blocks = self.blocks(from).to_vec();
        // Create every block first so successors (forward branches included) can be remapped.
        for &b in &blocks {
            let types: Vec<_> = self
                .block_args(b)
                .iter()
                .map(|v| self.value_type(*v))
                .collect();
            let nb = self.create_block(&types);
            for (old, new) in self
                .block_args(b)
                .to_vec()
                .into_iter()
                .zip(self.block_args(nb).to_vec())
            {
                map.map(old, new);
            }
            map.blocks.insert(b, nb);
            self.append_block(into, nb);
        }
        for b in blocks {
            let nb = map.lookup_block(b);
            let ops: Vec<Op> = self.block_ops(b).collect();
            for op in ops {
                let c = self.clone_op(op, map);
                self.insert_op(crate::ir::InsertPoint::End(nb), c);
            }
        }
    }
}
