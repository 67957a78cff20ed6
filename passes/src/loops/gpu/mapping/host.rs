//! The host side of GPU mapping (`gpu-map`, `gpu-block-reduce`): computing the grid size before each launch of a kernel whose
//! trip count is symbolic.

use super::{Mapper, Nest};
use dlc_ir::{Block, Context, InsertPoint, Op, Value};
use dlc_loop::index_expr::{Atom, Bounds, Emitter, IndexExpr, Symbol};
use dlc_loop::ops::{build_dim, DimOp, KernelOp, LaunchOp};
use rustc_hash::FxHashMap;

/// A kernel value the host can compute from the operands of a launch.
#[derive(Copy, Clone)]
pub(super) enum HostSymbol {
    /// The kernel argument at this position.
    Arg(usize),
    /// `loop.dim` of the buffer argument at this position, along this axis.
    Dim(usize, usize),
}

impl Mapper {
    /// Makes every `loop.launch` of `kernel` in `module` compute and pass the grid size
    /// `max(ceil(total / B), 1)` (capped by `max-blocks`). Returns the launches changed.
    pub(super) fn pass_grid_size(
        &self,
        ctx: &mut Context,
        module: Op,
        kernel: Op,
        nest: &Nest,
        points_per_block: i64,
    ) -> u64 {
        let name = ctx
            .view::<KernelOp>(kernel)
            .map(|k| k.name(ctx).to_string())
            .unwrap_or_default();
        let mut launches = Vec::new();
        ctx.for_each_op(module, &mut |op| {
            if ctx
                .view::<LaunchOp>(op)
                .and_then(|l| l.callee_name(ctx))
                .is_some_and(|callee| callee == name)
            {
                launches.push(op);
            }
        });
        let mut changed = 0;
        for launch in launches {
            let mut args = ctx.operands(launch).to_vec();
            let loc = ctx.op_loc(launch);
            let at = InsertPoint::Before(launch);
            let mut map = FxHashMap::default();
            let mut bounds = Bounds::new();
            for &(v, symbol) in &nest.host_symbols {
                let host = match symbol {
                    HostSymbol::Arg(p) => args.get(p).copied().inspect(|&a| {
                        if ctx
                            .defining_op(a)
                            .is_some_and(|d| ctx.view::<DimOp>(d).is_some())
                        {
                            bounds.insert(Symbol::Value(a), 0, i64::MAX);
                        }
                    }),
                    HostSymbol::Dim(p, axis) => args.get(p).map(|&buf| {
                        let d = build_dim(ctx, at, buf, axis, loc);
                        bounds.insert(Symbol::Value(d), 0, i64::MAX);
                        d
                    }),
                };
                let Some(host) = host else {
                    continue;
                };
                map.insert(v, host);
            }
            let Some(total) = substitute(&nest.total, &map) else {
                continue;
            };
            let b = points_per_block;
            let mut grid = (total + (b - 1))
                .floordiv(&IndexExpr::constant(b))
                .maximum(&IndexExpr::constant(1));
            if self.max_blocks > 0 {
                grid = grid.minimum(&IndexExpr::constant(self.max_blocks));
            }
            let Ok(g) = Emitter::new(at, loc).with_bounds(bounds).emit(ctx, &grid) else {
                continue;
            };
            args.push(g);
            ctx.set_operands(launch, &args);
            changed += 1;
        }
        changed
    }
}

/// How the host computes kernel value `v`, if it can.
pub(super) fn host_symbol(ctx: &Context, entry: Block, v: Value) -> Option<HostSymbol> {
    let args = ctx.block_args(entry);
    if let Some(p) = args.iter().position(|&a| a == v) {
        return ctx
            .is_integer_or_index(ctx.value_type(v))
            .then_some(HostSymbol::Arg(p));
    }
    let op = ctx.defining_op(v)?;
    let dim = ctx.view::<DimOp>(op)?;
    let buffer = ctx.operands(op).first()?;
    let p = args.iter().position(|a| a == buffer)?;
    Some(HostSymbol::Dim(p, dim.axis_index(ctx)?))
}

/// `e` with each value symbol replaced by its image in `map`; `None` if one has none.
fn substitute(e: &IndexExpr, map: &FxHashMap<Value, Value>) -> Option<IndexExpr> {
    let mut out = IndexExpr::constant(e.constant_term());
    for (monomial, c) in e.terms() {
        let mut product = IndexExpr::constant(*c);
        for atom in monomial {
            product = &product * &substitute_atom(atom, map)?;
        }
        out = &out + &product;
    }
    Some(out)
}

fn substitute_atom(atom: &Atom, map: &FxHashMap<Value, Value>) -> Option<IndexExpr> {
    Some(match atom {
        Atom::Sym(Symbol::Value(v)) => IndexExpr::value(*map.get(v)?),
        Atom::Sym(Symbol::Free(_)) => return None,
        Atom::FloorDiv(x, y) => substitute(x, map)?.floordiv(&substitute(y, map)?),
        Atom::Mod(x, y) => substitute(x, map)?.modulo(&substitute(y, map)?),
        Atom::Min(x, y) => substitute(x, map)?.minimum(&substitute(y, map)?),
        Atom::Max(x, y) => substitute(x, map)?.maximum(&substitute(y, map)?),
    })
}
