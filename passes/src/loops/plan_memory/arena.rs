//! Slot assignment and the arena: candidates whose intervals do not overlap share a slot, the
//! slots are laid end to end in one `i8` buffer, and each candidate becomes a view of its slot.

use super::{candidates, positions, Candidate, Stats};
use dlc_arith::{AddIOp, ArithOps, DivUIOp, MaxSIOp, MulIOp};
use dlc_ir::{Block, Context, InsertPoint, Location, Op, Type, Value, ValueDef, DYNAMIC};
use dlc_loop::{DimOp, MemorySpace};
use rustc_hash::{FxHashMap, FxHashSet};

/// Slots start at multiples of this many bytes.
const ALIGN: u64 = 64;

/// The byte size of a buffer: `factor` times the product of `dims` (sorted `index` values), so
/// two sizes with the same parts are provably equal.
#[derive(Clone, PartialEq, Eq, Debug)]
struct Bytes {
    factor: u64,
    dims: Vec<Value>,
}

impl Bytes {
    /// An order for choosing among free slots: dynamic sizes above static ones.
    fn rank(&self) -> (usize, u64) {
        (self.dims.len(), self.factor)
    }
}

/// A range of the arena that candidates with disjoint intervals take in turn.
struct Slot {
    /// The distinct sizes of its occupants; the slot holds their maximum.
    sizes: Vec<Bytes>,
    /// The last use of its latest occupant.
    end: usize,
    occupants: Vec<Candidate>,
}

impl Slot {
    fn add_size(&mut self, size: Bytes) {
        if self.sizes.contains(&size) {
            return;
        }
        // Sizes over the same dims (static ones included) fold into one: the larger factor.
        match self.sizes.iter_mut().find(|s| s.dims == size.dims) {
            Some(old) => old.factor = old.factor.max(size.factor),
            None => self.sizes.push(size),
        }
    }

    fn rank(&self) -> (usize, u64) {
        self.sizes.iter().map(Bytes::rank).max().unwrap_or((0, 0))
    }
}

/// Plans the candidates of `block` into one arena, allocated at the start of the block.
pub(super) fn plan(
    ctx: &mut Context,
    block: Block,
    merged: &FxHashMap<Value, u64>,
    stats: &mut Stats,
) {
    let pos = positions(ctx, block);
    let mut slice = FxHashSet::default();
    let mut planned: Vec<(Candidate, Bytes)> = Vec::new();
    for c in candidates(ctx, block, &pos) {
        if let Some(size) = byte_size(ctx, block, &c, &mut slice) {
            planned.push((c, size));
        }
    }
    if planned.is_empty() {
        return;
    }
    planned.sort_by_key(|(c, _)| c.start);
    let slots = assign_slots(planned);
    let mut unplanned = Some(0u64);
    for s in &slots {
        for c in &s.occupants {
            let copies = 1 + merged.get(&c.value).copied().unwrap_or(0);
            let size = byte_size_static(ctx, c);
            unplanned = unplanned.zip(size).map(|(u, n)| u + n * copies);
        }
    }
    let loc = ctx.op_loc(slots[0].occupants[0].alloc);
    let at = hoist(ctx, block, &slice);
    let mut e = Emit {
        at: InsertPoint::Before(at),
        loc,
        constants: FxHashMap::default(),
        computed: FxHashMap::default(),
    };
    // Index constants the sizes already use serve the prologue too.
    let hoisted: Vec<Op> = ctx
        .block_ops(block)
        .filter(|op| slice.contains(op))
        .collect();
    for op in hoisted {
        let index_constant = ctx.view::<dlc_arith::ConstantOp>(op).is_some()
            && ctx.value_type(ctx.result(op, 0)) == Type::INDEX;
        if index_constant {
            let value = ctx.attr(op, "value").and_then(|a| ctx.attr_as_int(a));
            if let Some(n) = value.and_then(|n| u64::try_from(n).ok()) {
                e.constants.insert(n, ctx.result(op, 0));
            }
        }
    }
    // Offsets are prefix sums of the aligned slot sizes.
    let mut offset = Size::Static(0);
    let mut offsets = Vec::new();
    for s in &slots {
        offsets.push(offset);
        let mut size = Size::Static(0);
        for b in &s.sizes {
            let b = e.bytes(ctx, b);
            size = e.max(ctx, size, b);
        }
        let aligned = e.align(ctx, size);
        offset = e.add(ctx, offset, aligned);
    }
    // All of the prologue is built before the views, whose allocs (`e.at` among them) go.
    let offsets: Vec<Value> = offsets.into_iter().map(|o| e.value(ctx, o)).collect();
    let arena_ty =
        |ctx: &mut Context, n: i64| dlc_loop::buffer_type(ctx, &[n], Type::I8, MemorySpace::Global);
    let arena = match offset {
        Size::Static(n) => {
            stats.peak_bytes += n;
            let ty = arena_ty(ctx, n as i64);
            dlc_loop::build_alloc(ctx, e.at, ty, &[], loc)
        }
        Size::Dynamic(total) => {
            let ty = arena_ty(ctx, DYNAMIC);
            dlc_loop::build_alloc(ctx, e.at, ty, &[total], loc)
        }
    };
    for (s, offset) in slots.iter().zip(offsets) {
        for c in &s.occupants {
            let sizes = ctx.operands(c.alloc).to_vec();
            let loc = ctx.op_loc(c.alloc);
            let view = dlc_loop::build_view(
                ctx,
                InsertPoint::Before(c.alloc),
                arena,
                offset,
                &sizes,
                c.ty,
                loc,
            );
            ctx.replace_all_uses(c.value, view);
            ctx.erase_op(c.alloc);
            stats.planned += 1;
        }
    }
    stats.slots += slots.len() as u64;
    stats.unplanned_bytes += unplanned.unwrap_or(0);
}

/// The byte size of `c`, if it is static or computed on the host from the function's
/// arguments alone; the ops computing it join `slice`.
fn byte_size(
    ctx: &Context,
    block: Block,
    c: &Candidate,
    slice: &mut FxHashSet<Op>,
) -> Option<Bytes> {
    let (dims, elem, _) = dlc_loop::buffer_parts(ctx, c.ty)?;
    let mut factor = dlc_loop::elem_size_bytes(ctx, elem)?;
    for &d in dims.iter().filter(|&&d| d != DYNAMIC) {
        factor = factor.checked_mul(u64::try_from(d).ok()?)?;
    }
    let mut values: Vec<Value> = ctx.operands(c.alloc).to_vec();
    let mut ops = FxHashSet::default();
    for &v in &values {
        if !host_slice(ctx, block, v, &mut ops) {
            return None;
        }
    }
    slice.extend(ops);
    values.sort();
    Some(Bytes {
        factor,
        dims: values,
    })
}

/// The static byte size of `c`, if it has one.
fn byte_size_static(ctx: &Context, c: &Candidate) -> Option<u64> {
    let (dims, elem, _) = dlc_loop::buffer_parts(ctx, c.ty)?;
    let mut n = dlc_loop::elem_size_bytes(ctx, elem)?;
    for d in dims {
        n = n.checked_mul(u64::try_from(d).ok()?)?;
    }
    Some(n)
}

/// True if `v` is pure index arithmetic on the function's arguments (arith ops, `loop.dim` of
/// an argument, arguments); its defining ops join `ops`.
fn host_slice(ctx: &Context, block: Block, v: Value, ops: &mut FxHashSet<Op>) -> bool {
    match ctx.value_def(v) {
        ValueDef::BlockArg { block: b, .. } => b == block,
        ValueDef::Placeholder => false,
        ValueDef::Result { op, .. } => {
            if ops.contains(&op) {
                return true;
            }
            let ok = if let Some(dim) = ctx.view::<DimOp>(op) {
                matches!(
                    ctx.value_def(dim.buffer(ctx)),
                    ValueDef::BlockArg { block: b, .. } if b == block
                )
            } else {
                ArithOps::of(ctx, op).is_some()
                    && ctx.regions(op).is_empty()
                    && ctx.op_block(op) == Some(block)
                    && ctx
                        .operands(op)
                        .to_vec()
                        .into_iter()
                        .all(|o| host_slice(ctx, block, o, ops))
            };
            if ok {
                ops.insert(op);
            }
            ok
        }
    }
}

/// Walks the candidates in order of interval start and gives each a slot.
fn assign_slots(planned: Vec<(Candidate, Bytes)>) -> Vec<Slot> {
    let mut slots: Vec<Slot> = Vec::new();
    for (c, size) in planned {
        let free: Vec<usize> = (0..slots.len())
            .filter(|&s| slots[s].end < c.start)
            .collect();
        let equal = free
            .iter()
            .copied()
            .find(|&s| slots[s].sizes == [size.clone()]);
        let largest = free.iter().copied().max_by_key(|&s| slots[s].rank());
        match equal.or(largest) {
            Some(s) => {
                let slot = &mut slots[s];
                slot.add_size(size);
                slot.end = c.end;
                slot.occupants.push(c);
            }
            None => slots.push(Slot {
                sizes: vec![size],
                end: c.end,
                occupants: vec![c],
            }),
        }
    }
    slots
}

/// Moves the ops of `slice` to the start of `block`, keeping their order, and returns the
/// first op after them.
fn hoist(ctx: &mut Context, block: Block, slice: &FxHashSet<Op>) -> Op {
    let ops: Vec<Op> = ctx.block_ops(block).collect();
    let mut prev: Option<Op> = None;
    for &op in ops.iter().filter(|op| slice.contains(op)) {
        let at = match prev {
            Some(p) => InsertPoint::After(p),
            None => InsertPoint::Start(block),
        };
        ctx.move_op(op, at);
        prev = Some(op);
    }
    match prev {
        Some(p) => ctx.next_op(p),
        None => ctx.first_op(block),
    }
    .expect("a host function block ends with its return")
}

/// A host size: a number known now, or an `index` value computed at run time.
#[derive(Copy, Clone, Debug)]
enum Size {
    Static(u64),
    Dynamic(Value),
}

/// Builds the size arithmetic before the first op after the hoisted slice, folding what is
/// static.
struct Emit {
    at: InsertPoint,
    loc: Location,
    constants: FxHashMap<u64, Value>,
    /// Arithmetic built so far, by (op, lhs, rhs), so equal sizes are computed once.
    computed: FxHashMap<(&'static str, Value, Value), Value>,
}

impl Emit {
    fn value(&mut self, ctx: &mut Context, size: Size) -> Value {
        match size {
            Size::Dynamic(v) => v,
            Size::Static(n) => {
                if let Some(&v) = self.constants.get(&n) {
                    return v;
                }
                let op = dlc_arith::build_index_constant(ctx, self.at, n as i64, self.loc);
                let v = ctx.result(op, 0);
                self.constants.insert(n, v);
                v
            }
        }
    }

    fn bytes(&mut self, ctx: &mut Context, b: &Bytes) -> Size {
        let mut size = Size::Static(b.factor);
        for &d in &b.dims {
            size = self.mul(ctx, size, Size::Dynamic(d));
        }
        size
    }

    fn binary<T: dlc_arith::BinaryOp>(&mut self, ctx: &mut Context, a: Size, b: Size) -> Size {
        let (a, b) = (self.value(ctx, a), self.value(ctx, b));
        let key = (T::NAME, a, b);
        if let Some(&v) = self.computed.get(&key) {
            return Size::Dynamic(v);
        }
        let op = dlc_arith::build_binary::<T>(ctx, self.at, a, b, self.loc);
        let v = ctx.result(op, 0);
        self.computed.insert(key, v);
        Size::Dynamic(v)
    }

    fn add(&mut self, ctx: &mut Context, a: Size, b: Size) -> Size {
        match (a, b) {
            (Size::Static(x), Size::Static(y)) => Size::Static(x + y),
            (Size::Static(0), s) | (s, Size::Static(0)) => s,
            _ => self.binary::<AddIOp>(ctx, a, b),
        }
    }

    fn mul(&mut self, ctx: &mut Context, a: Size, b: Size) -> Size {
        match (a, b) {
            (Size::Static(x), Size::Static(y)) => Size::Static(x * y),
            (Size::Static(1), s) | (s, Size::Static(1)) => s,
            // The constant second, as canonical arith puts it.
            (Size::Static(_), Size::Dynamic(_)) => self.binary::<MulIOp>(ctx, b, a),
            _ => self.binary::<MulIOp>(ctx, a, b),
        }
    }

    fn max(&mut self, ctx: &mut Context, a: Size, b: Size) -> Size {
        match (a, b) {
            (Size::Static(x), Size::Static(y)) => Size::Static(x.max(y)),
            (Size::Static(0), s) | (s, Size::Static(0)) => s,
            _ => self.binary::<MaxSIOp>(ctx, a, b),
        }
    }

    /// `size` rounded up to a multiple of [`ALIGN`].
    fn align(&mut self, ctx: &mut Context, size: Size) -> Size {
        match size {
            Size::Static(n) => Size::Static(n.div_ceil(ALIGN) * ALIGN),
            Size::Dynamic(_) => {
                let up = self.add(ctx, size, Size::Static(ALIGN - 1));
                let slots = self.binary::<DivUIOp>(ctx, up, Size::Static(ALIGN));
                self.mul(ctx, slots, Size::Static(ALIGN))
            }
        }
    }
}
