//! Operations, blocks, regions and values: their records and every structural edit.
//!
//! Def-use chains are kept per value as a list of `(user, operand index)` pairs, and each operand
//! remembers its position in that list, so adding or dropping a use is O(1) and
//! [`Context::replace_all_uses`] costs O(uses). Results of an op are allocated contiguously in the
//! value arena, so `%r#i` is an addition.

use crate::attributes::{Attribute, NamedAttr};
use crate::dialect::{OpDefId, Traits};
use crate::intern::Ident;
use crate::location::Location;
use crate::op_id::OpNameId;
use crate::types::Type;
use crate::Context;
use smallvec::SmallVec;

crate::entity::entity!(
    /// An operation.
    Op
);
crate::entity::entity!(
    /// A basic block: a list of operations with typed arguments.
    Block
);
crate::entity::entity!(
    /// A region: a list of blocks owned by an operation.
    Region
);
crate::entity::entity!(
    /// An SSA value: an operation result or a block argument.
    Value
);

/// One use of a value: operand `operand` of op `user`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Use {
    pub user: Op,
    pub operand: u32,
}

/// What defines a value.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Result `index` of `op`.
    Result { op: Op, index: u32 },
    /// Argument `index` of `block`.
    BlockArg { block: Block, index: u32 },
    /// A value the parser created for a forward reference; replaced when the definition appears.
    Placeholder,
}

pub(crate) struct ValueData {
    pub(crate) ty: Type,
    pub(crate) def: ValueDef,
    pub(crate) uses: SmallVec<[Use; 2]>,
}

pub(crate) struct OpData {
    pub(crate) name: Ident,
    /// The process-wide id of `name` when it had one at creation ([`OpNameId`]).
    pub(crate) name_id: OpNameId,
    pub(crate) def: Option<OpDefId>,
    pub(crate) operands: SmallVec<[Value; 3]>,
    /// For operand `i`, its index in the used value's use list.
    pub(crate) use_slots: SmallVec<[u32; 3]>,
    pub(crate) first_result: u32,
    pub(crate) num_results: u32,
    /// Sorted by name string, as MLIR's attribute dictionaries are.
    pub(crate) attrs: Vec<NamedAttr>,
    pub(crate) regions: SmallVec<[Region; 1]>,
    pub(crate) successors: Vec<Block>,
    pub(crate) loc: Location,
    pub(crate) parent: Option<Block>,
    pub(crate) prev: Option<Op>,
    pub(crate) next: Option<Op>,
    pub(crate) alive: bool,
}

pub(crate) struct BlockData {
    pub(crate) args: SmallVec<[Value; 4]>,
    pub(crate) first: Option<Op>,
    pub(crate) last: Option<Op>,
    pub(crate) parent: Option<Region>,
}

pub(crate) struct RegionData {
    pub(crate) blocks: Vec<Block>,
    pub(crate) parent: Option<Op>,
}

/// Everything needed to create an operation (MLIR's `OperationState`).
#[derive(Clone, Debug)]
pub struct OpSpec {
    pub name: Ident,
    pub operands: SmallVec<[Value; 3]>,
    pub result_types: SmallVec<[Type; 2]>,
    pub attrs: Vec<NamedAttr>,
    /// Detached regions, already filled, that the new op takes over.
    pub regions: SmallVec<[Region; 1]>,
    pub successors: Vec<Block>,
    pub loc: Location,
}

impl OpSpec {
    /// A spec for op `name` with nothing else set.
    pub fn new(ctx: &mut Context, name: &str, loc: Location) -> Self {
        Self::with_name(ctx.ident(name), loc)
    }

    /// A spec for an already interned name.
    pub fn with_name(name: Ident, loc: Location) -> Self {
        OpSpec {
            name,
            operands: SmallVec::new(),
            result_types: SmallVec::new(),
            attrs: Vec::new(),
            regions: SmallVec::new(),
            successors: Vec::new(),
            loc,
        }
    }

    /// Adds operands.
    pub fn operands(mut self, values: &[Value]) -> Self {
        self.operands.extend_from_slice(values);
        self
    }

    /// Adds result types.
    pub fn results(mut self, types: &[Type]) -> Self {
        self.result_types.extend_from_slice(types);
        self
    }

    /// Adds an attribute.
    pub fn attr(mut self, ctx: &mut Context, name: &str, value: Attribute) -> Self {
        self.set_attr(ctx, name, value);
        self
    }

    /// Sets (adds or replaces) an attribute in place.
    pub fn set_attr(&mut self, ctx: &mut Context, name: &str, value: Attribute) {
        let name = ctx.ident(name);
        ctx.insert_sorted(&mut self.attrs, NamedAttr { name, value });
    }

    /// Adds a region.
    pub fn region(mut self, region: Region) -> Self {
        self.regions.push(region);
        self
    }
}

/// Where [`Context::insert_op`] puts an op.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum InsertPoint {
    /// At the end of a block.
    End(Block),
    /// At the start of a block.
    Start(Block),
    /// Just before an op.
    Before(Op),
    /// Just after an op.
    After(Op),
}

// ---------------------------------------------------------------------------------------------
// Values and uses.

impl Context {
    /// The type of a value.
    #[inline]
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v.index()].ty
    }

    /// Changes the type of a value in place (for type conversions).
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v.index()].ty = ty;
    }

    /// What defines `v`.
    #[inline]
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v.index()].def
    }

    /// The op that defines `v`, or `None` for a block argument.
    pub fn defining_op(&self, v: Value) -> Option<Op> {
        match self.values[v.index()].def {
            ValueDef::Result { op, .. } => Some(op),
            _ => None,
        }
    }

    /// The block that contains the definition of `v`.
    pub fn value_block(&self, v: Value) -> Option<Block> {
        match self.values[v.index()].def {
            ValueDef::Result { op, .. } => self.ops[op.index()].parent,
            ValueDef::BlockArg { block, .. } => Some(block),
            ValueDef::Placeholder => None,
        }
    }

    /// The uses of `v`, in no particular order.
    #[inline]
    pub fn uses(&self, v: Value) -> &[Use] {
        &self.values[v.index()].uses
    }

    /// True if `v` has no uses.
    pub fn is_unused(&self, v: Value) -> bool {
        self.values[v.index()].uses.is_empty()
    }

    pub(crate) fn new_value(&mut self, ty: Type, def: ValueDef) -> Value {
        let v = Value::from_index(self.values.len());
        self.values.push(ValueData {
            ty,
            def,
            uses: SmallVec::new(),
        });
        v
    }

    /// A value with no definition, for forward references; it must be replaced before the IR is
    /// used.
    pub fn placeholder_value(&mut self, ty: Type) -> Value {
        self.new_value(ty, ValueDef::Placeholder)
    }

    fn add_use(&mut self, v: Value, user: Op, operand: u32) -> u32 {
        let uses = &mut self.values[v.index()].uses;
        uses.push(Use { user, operand });
        (uses.len() - 1) as u32
    }

    fn drop_use(&mut self, v: Value, slot: u32) {
        let uses = &mut self.values[v.index()].uses;
        uses.swap_remove(slot as usize);
        if let Some(moved) = uses.get(slot as usize).copied() {
            self.ops[moved.user.index()].use_slots[moved.operand as usize] = slot;
        }
    }

    /// Makes every use of `old` a use of `new`. Costs O(uses of `old`).
    pub fn replace_all_uses(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        let uses = std::mem::take(&mut self.values[old.index()].uses);
        for u in uses {
            let slot = self.add_use(new, u.user, u.operand);
            let data = &mut self.ops[u.user.index()];
            data.operands[u.operand as usize] = new;
            data.use_slots[u.operand as usize] = slot;
        }
    }

    /// Replaces each result of `op` with the matching value of `with`, then erases `op`.
    pub fn replace_op(&mut self, op: Op, with: &[Value]) {
        let results: SmallVec<[Value; 2]> = self.results(op).collect();
        assert_eq!(
            results.len(),
            with.len(),
            "replace_op: result count mismatch"
        );
        for (old, new) in results.into_iter().zip(with) {
            self.replace_all_uses(old, *new);
        }
        self.erase_op(op);
    }
}

// ---------------------------------------------------------------------------------------------
// Operations.

impl Context {
    /// Creates a detached op from `spec`. Its regions are taken over from the spec.
    pub fn create_op(&mut self, spec: OpSpec) -> Op {
        let op = Op::from_index(self.ops.len());
        let first_result = self.values.len() as u32;
        for (i, ty) in spec.result_types.iter().enumerate() {
            self.new_value(
                *ty,
                ValueDef::Result {
                    op,
                    index: i as u32,
                },
            );
        }
        let mut use_slots = SmallVec::with_capacity(spec.operands.len());
        for (i, v) in spec.operands.iter().enumerate() {
            use_slots.push(self.add_use(*v, op, i as u32));
        }
        for r in &spec.regions {
            debug_assert!(
                self.regions[r.index()].parent.is_none(),
                "region {r:?} already owned"
            );
            self.regions[r.index()].parent = Some(op);
        }
        let def = self.registry.lookup(spec.name);
        let name_id = match def {
            Some(d) => self.registry.name_id(d),
            None => OpNameId::find(self.ident_str(spec.name)).unwrap_or(OpNameId::UNKNOWN),
        };
        self.ops.push(OpData {
            name: spec.name,
            name_id,
            def,
            operands: spec.operands,
            use_slots,
            first_result,
            num_results: spec.result_types.len() as u32,
            attrs: spec.attrs,
            regions: spec.regions,
            successors: spec.successors,
            loc: spec.loc,
            parent: None,
            prev: None,
            next: None,
            alive: true,
        });
        op
    }

    /// Creates an op from `spec` and inserts it at `at`.
    pub fn build(&mut self, at: InsertPoint, spec: OpSpec) -> Op {
        let op = self.create_op(spec);
        self.insert_op(at, op);
        op
    }

    /// The name of `op` (`"arith.addi"`).
    #[inline]
    pub fn op_name(&self, op: Op) -> &str {
        self.ident_str(self.ops[op.index()].name)
    }

    /// The process-wide id of `op`'s name ([`OpNameId::UNKNOWN`] when its name had none when
    /// it was made: an unregistered op that no view names).
    #[inline]
    pub fn op_name_global_id(&self, op: Op) -> OpNameId {
        self.ops[op.index()].name_id
    }

    /// The interned name of `op`.
    #[inline]
    pub fn op_name_id(&self, op: Op) -> Ident {
        self.ops[op.index()].name
    }

    /// True if `op` has not been erased.
    pub fn is_alive(&self, op: Op) -> bool {
        self.ops[op.index()].alive
    }

    /// The traits of `op`'s definition (empty for unregistered ops).
    #[inline]
    pub fn traits(&self, op: Op) -> Traits {
        self.ops[op.index()]
            .def
            .map_or(Traits::empty(), |d| self.registry.op(d).traits)
    }

    /// True if `op`'s definition has all of `traits`.
    #[inline]
    pub fn has_trait(&self, op: Op, traits: Traits) -> bool {
        self.traits(op).contains(traits)
    }

    /// The operands of `op`.
    #[inline]
    pub fn operands(&self, op: Op) -> &[Value] {
        &self.ops[op.index()].operands
    }

    /// Operand `i` of `op`.
    #[inline]
    pub fn operand(&self, op: Op, i: usize) -> Value {
        self.ops[op.index()].operands[i]
    }

    /// Replaces operand `i` of `op`.
    pub fn set_operand(&mut self, op: Op, i: usize, v: Value) {
        let data = &self.ops[op.index()];
        let (old, slot) = (data.operands[i], data.use_slots[i]);
        self.drop_use(old, slot);
        let slot = self.add_use(v, op, i as u32);
        let data = &mut self.ops[op.index()];
        data.operands[i] = v;
        data.use_slots[i] = slot;
    }

    /// Replaces all operands of `op`.
    pub fn set_operands(&mut self, op: Op, values: &[Value]) {
        self.drop_operands(op);
        let mut slots = SmallVec::with_capacity(values.len());
        for (i, v) in values.iter().enumerate() {
            slots.push(self.add_use(*v, op, i as u32));
        }
        let data = &mut self.ops[op.index()];
        data.operands = values.into();
        data.use_slots = slots;
    }

    fn drop_operands(&mut self, op: Op) {
        let n = self.ops[op.index()].operands.len();
        // Drop from the back so swap_remove fix-ups never touch an operand already dropped.
        for i in (0..n).rev() {
            let data = &self.ops[op.index()];
            let (v, slot) = (data.operands[i], data.use_slots[i]);
            self.drop_use(v, slot);
        }
        let data = &mut self.ops[op.index()];
        data.operands.clear();
        data.use_slots.clear();
    }

    /// The number of results of `op`.
    #[inline]
    pub fn num_results(&self, op: Op) -> usize {
        self.ops[op.index()].num_results as usize
    }

    /// The results of `op`.
    #[inline]
    pub fn results(&self, op: Op) -> impl ExactSizeIterator<Item = Value> + use<> {
        let d = &self.ops[op.index()];
        (d.first_result..d.first_result + d.num_results).map(Value)
    }

    /// Result `i` of `op`.
    #[inline]
    pub fn result(&self, op: Op, i: usize) -> Value {
        let d = &self.ops[op.index()];
        debug_assert!(i < d.num_results as usize, "{op:?} has no result {i}");
        Value(d.first_result + i as u32)
    }

    /// The result types of `op`.
    pub fn result_types(&self, op: Op) -> SmallVec<[Type; 2]> {
        self.results(op).map(|v| self.value_type(v)).collect()
    }

    /// The attributes of `op`, sorted by name.
    #[inline]
    pub fn attrs(&self, op: Op) -> &[NamedAttr] {
        &self.ops[op.index()].attrs
    }

    /// The attribute `name` of `op`.
    pub fn attr(&self, op: Op, name: &str) -> Option<Attribute> {
        // Ops carry a handful of attributes: comparing their names beats interning `name`.
        self.ops[op.index()]
            .attrs
            .iter()
            .find(|a| self.ident_str(a.name) == name)
            .map(|a| a.value)
    }

    /// The attribute with interned name `name` of `op`.
    pub fn attr_by_id(&self, op: Op, name: Ident) -> Option<Attribute> {
        self.ops[op.index()]
            .attrs
            .iter()
            .find(|a| a.name == name)
            .map(|a| a.value)
    }

    /// Sets (adds or replaces) attribute `name` of `op`.
    pub fn set_attr(&mut self, op: Op, name: &str, value: Attribute) {
        let name = self.ident(name);
        let mut attrs = std::mem::take(&mut self.ops[op.index()].attrs);
        self.insert_sorted(&mut attrs, NamedAttr { name, value });
        self.ops[op.index()].attrs = attrs;
    }

    /// Removes attribute `name` of `op`, returning it.
    pub fn remove_attr(&mut self, op: Op, name: &str) -> Option<Attribute> {
        let i = self.ops[op.index()]
            .attrs
            .iter()
            .position(|a| self.ident_str(a.name) == name)?;
        Some(self.ops[op.index()].attrs.remove(i).value)
    }

    /// The regions of `op`.
    #[inline]
    pub fn regions(&self, op: Op) -> &[Region] {
        &self.ops[op.index()].regions
    }

    /// Region `i` of `op`.
    pub fn region(&self, op: Op, i: usize) -> Region {
        self.ops[op.index()].regions[i]
    }

    /// The successor blocks of `op` (for branch terminators).
    pub fn successors(&self, op: Op) -> &[Block] {
        &self.ops[op.index()].successors
    }

    /// The location of `op`.
    #[inline]
    pub fn op_loc(&self, op: Op) -> Location {
        self.ops[op.index()].loc
    }

    /// Sets the location of `op`.
    pub fn set_op_loc(&mut self, op: Op, loc: Location) {
        self.ops[op.index()].loc = loc;
    }

    /// The block that contains `op`.
    #[inline]
    pub fn op_block(&self, op: Op) -> Option<Block> {
        self.ops[op.index()].parent
    }

    /// The op whose region contains `op`.
    pub fn parent_op(&self, op: Op) -> Option<Op> {
        let block = self.ops[op.index()].parent?;
        self.block_parent_op(block)
    }

    /// The op after `op` in its block.
    #[inline]
    pub fn next_op(&self, op: Op) -> Option<Op> {
        self.ops[op.index()].next
    }

    /// The op before `op` in its block.
    #[inline]
    pub fn prev_op(&self, op: Op) -> Option<Op> {
        self.ops[op.index()].prev
    }

    /// True if `ancestor` is `op` or contains it in one of its regions (transitively).
    pub fn is_ancestor(&self, ancestor: Op, mut op: Op) -> bool {
        loop {
            if op == ancestor {
                return true;
            }
            match self.parent_op(op) {
                Some(p) => op = p,
                None => return false,
            }
        }
    }

    /// Inserts a detached op at `at`.
    pub fn insert_op(&mut self, at: InsertPoint, op: Op) {
        debug_assert!(
            self.ops[op.index()].parent.is_none(),
            "{op:?} is already in a block"
        );
        let (block, prev, next) = match at {
            InsertPoint::End(b) => (b, self.blocks[b.index()].last, None),
            InsertPoint::Start(b) => (b, None, self.blocks[b.index()].first),
            InsertPoint::Before(anchor) => {
                let d = &self.ops[anchor.index()];
                (
                    d.parent.expect("insert before a detached op"),
                    d.prev,
                    Some(anchor),
                )
            }
            InsertPoint::After(anchor) => {
                let d = &self.ops[anchor.index()];
                (
                    d.parent.expect("insert after a detached op"),
                    Some(anchor),
                    d.next,
                )
            }
        };
        let d = &mut self.ops[op.index()];
        d.parent = Some(block);
        d.prev = prev;
        d.next = next;
        match prev {
            Some(p) => self.ops[p.index()].next = Some(op),
            None => self.blocks[block.index()].first = Some(op),
        }
        match next {
            Some(n) => self.ops[n.index()].prev = Some(op),
            None => self.blocks[block.index()].last = Some(op),
        }
    }

    /// Removes `op` from its block without destroying it.
    pub fn detach_op(&mut self, op: Op) {
        let d = &mut self.ops[op.index()];
        let Some(block) = d.parent.take() else { return };
        let (prev, next) = (d.prev.take(), d.next.take());
        match prev {
            Some(p) => self.ops[p.index()].next = next,
            None => self.blocks[block.index()].first = next,
        }
        match next {
            Some(n) => self.ops[n.index()].prev = prev,
            None => self.blocks[block.index()].last = prev,
        }
    }

    /// Moves `op` to `at`.
    pub fn move_op(&mut self, op: Op, at: InsertPoint) {
        self.detach_op(op);
        self.insert_op(at, op);
    }

    /// Erases `op` and everything nested in it. Its results must have no uses left outside it.
    pub fn erase_op(&mut self, op: Op) {
        self.detach_op(op);
        self.destroy_op(op);
    }

    fn destroy_op(&mut self, op: Op) {
        let regions = std::mem::take(&mut self.ops[op.index()].regions);
        for r in regions {
            self.destroy_region(r);
        }
        self.drop_operands(op);
        for v in self.results(op) {
            assert!(
                self.values[v.index()].uses.is_empty(),
                "erasing {} ({op:?}) whose result {v:?} is still used",
                self.op_name(op)
            );
        }
        self.ops[op.index()].alive = false;
    }

    /// Destroys a region and everything in it (its ops' results must be unused outside it).
    pub(crate) fn destroy_region(&mut self, region: Region) {
        let blocks = std::mem::take(&mut self.regions[region.index()].blocks);
        // Drop every operand first so values defined and used inside the region are use-free.
        for &b in &blocks {
            let mut cur = self.blocks[b.index()].first;
            while let Some(op) = cur {
                self.drop_operands_deep(op);
                cur = self.ops[op.index()].next;
            }
        }
        for b in blocks {
            let mut cur = self.blocks[b.index()].first;
            while let Some(op) = cur {
                cur = self.ops[op.index()].next;
                self.destroy_op(op);
            }
            self.blocks[b.index()].first = None;
            self.blocks[b.index()].last = None;
            self.blocks[b.index()].parent = None;
        }
    }

    fn drop_operands_deep(&mut self, op: Op) {
        self.drop_operands(op);
        for r in self.ops[op.index()].regions.clone() {
            for b in self.regions[r.index()].blocks.clone() {
                let mut cur = self.blocks[b.index()].first;
                while let Some(o) = cur {
                    self.drop_operands_deep(o);
                    cur = self.ops[o.index()].next;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Blocks and regions.

impl Context {
    /// A new detached region.
    pub fn create_region(&mut self) -> Region {
        let r = Region::from_index(self.regions.len());
        self.regions.push(RegionData {
            blocks: Vec::new(),
            parent: None,
        });
        r
    }

    /// A new detached block with arguments of the given types.
    pub fn create_block(&mut self, arg_types: &[Type]) -> Block {
        let b = Block::from_index(self.blocks.len());
        self.blocks.push(BlockData {
            args: SmallVec::new(),
            first: None,
            last: None,
            parent: None,
        });
        for ty in arg_types {
            self.add_block_arg(b, *ty);
        }
        b
    }

    /// Appends an argument of type `ty` to `block`.
    pub fn add_block_arg(&mut self, block: Block, ty: Type) -> Value {
        let index = self.blocks[block.index()].args.len() as u32;
        let v = self.new_value(ty, ValueDef::BlockArg { block, index });
        self.blocks[block.index()].args.push(v);
        v
    }

    /// Appends a detached block to `region`.
    pub fn append_block(&mut self, region: Region, block: Block) {
        debug_assert!(
            self.blocks[block.index()].parent.is_none(),
            "{block:?} already placed"
        );
        self.blocks[block.index()].parent = Some(region);
        self.regions[region.index()].blocks.push(block);
    }

    /// A region holding one block with arguments of the given types; returns both.
    pub fn create_region_with_block(&mut self, arg_types: &[Type]) -> (Region, Block) {
        let r = self.create_region();
        let b = self.create_block(arg_types);
        self.append_block(r, b);
        (r, b)
    }

    /// Moves `block` (with its ops) to the end of `region`, unlinking it from its current region.
    pub fn move_block(&mut self, block: Block, region: Region) {
        if let Some(old) = self.blocks[block.index()].parent.take() {
            self.regions[old.index()].blocks.retain(|b| *b != block);
        }
        self.append_block(region, block);
    }

    /// The blocks of `region`, in order.
    #[inline]
    pub fn blocks(&self, region: Region) -> &[Block] {
        &self.regions[region.index()].blocks
    }

    /// The op that owns `region`.
    pub fn region_parent(&self, region: Region) -> Option<Op> {
        self.regions[region.index()].parent
    }

    /// The region that contains `block`.
    pub fn block_parent(&self, block: Block) -> Option<Region> {
        self.blocks[block.index()].parent
    }

    /// The op whose region contains `block`.
    pub fn block_parent_op(&self, block: Block) -> Option<Op> {
        self.regions[self.blocks[block.index()].parent?.index()].parent
    }

    /// The arguments of `block`.
    #[inline]
    pub fn block_args(&self, block: Block) -> &[Value] {
        &self.blocks[block.index()].args
    }

    /// The first op of `block`.
    pub fn first_op(&self, block: Block) -> Option<Op> {
        self.blocks[block.index()].first
    }

    /// The last op of `block` (its terminator, when it has one).
    pub fn last_op(&self, block: Block) -> Option<Op> {
        self.blocks[block.index()].last
    }

    /// The ops of `block`, in order. Do not erase while iterating; collect first, or use a walk.
    pub fn block_ops(&self, block: Block) -> BlockOps<'_> {
        BlockOps {
            ctx: self,
            next: self.blocks[block.index()].first,
        }
    }

    /// Erases `block` and its ops; the block must already be unlinked from its region or be the
    /// last reference to it.
    pub fn erase_block(&mut self, block: Block) {
        if let Some(region) = self.blocks[block.index()].parent {
            self.regions[region.index()].blocks.retain(|b| *b != block);
        }
        let r = self.create_region();
        self.regions[r.index()].blocks.push(block);
        self.destroy_region(r);
    }
}

/// Iterator over the ops of a block.
pub struct BlockOps<'a> {
    ctx: &'a Context,
    next: Option<Op>,
}

impl Iterator for BlockOps<'_> {
    type Item = Op;
    fn next(&mut self) -> Option<Op> {
        let op = self.next?;
        self.next = self.ctx.ops[op.index()].next;
        Some(op)
    }
}
