//! Divides the indices of a local buffer by their common factor and subtracts their common
//! constant offset, dim by dim, and shrinks the buffer to match.
//!
//! # Applies when
//! A `local` buffer is indexed, along some dim, only at multiples of a constant (`%t[2 * %i]`,
//! `%t[4 * %i]`) or only above a constant offset (`%t[%i + 2]`, `%t[%i + 4]`): what schedules
//! that split, unroll or stride a loop leave behind, as CINN's
//! `eliminate_common_factor_of_local_index` handles. The unused positions waste registers.
//!
//! # Changes to the IR
//! - Candidates: every `loop.alloc` of a `local` buffer whose result is used only as the buffer
//!   of `loop.load`/`store`/`vload`/`vstore`.
//! - For each dim, the indices of all accesses are read as index expressions (over induction
//!   variables, iter vars and symbols; `dlc_loop::index_expr`). Let `off` be the smallest
//!   constant term among them: when it is positive and every index minus `off` provably stays
//!   non-negative (ranges of the loop variables), `off` is subtracted from all. Then `g`, the
//!   gcd of every coefficient and constant term left, divides them all when it is above 1 (not
//!   on the last dim of a buffer accessed with vectors, whose lanes must stay adjacent).
//! - Each changed index is rebuilt as `arith` ops before its access (the old arithmetic is
//!   erased when unused). A static dim `n` becomes `(n - 1 - off) / g + 1`, which holds every
//!   index the accesses can produce, since they were in bounds before; a dynamic dim keeps its
//!   size.
//!
//! The pass counts the buffers it rewrote (`buffers-rewritten`).
//!
//! # Performance impact
//! Fewer local elements: fewer registers, or a local array small enough to be promoted to
//! registers at all.
//!
//! # Risks and limitations
//! - CINN's third rule (a common symbolic factor, `[C, 3C] → [1, 3]`) and its reordering of
//!   axes into "iterator-based form" are not done.
//! - The offset needs the index ranges: an index over a loop with a non-constant lower bound
//!   keeps its offset.
//!
//! # Examples
//! 1. Every index is even and at least 2:
//!    ```text
//!    loop.kernel @strided(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf32, global>) {
//!      %c0 = arith.constant 0 : index
//!      %c1 = arith.constant 1 : index
//!      %c2 = arith.constant 2 : index
//!      %c4 = arith.constant 4 : index
//!      %t = loop.alloc : !loop.buffer<10xf32, local>
//!      loop.for serial %i = %c0 to %c4 step %c1 {
//!        loop.schedule_block "a" (%i0 = %i) {
//!          %v = loop.load %x[%i0] : !loop.buffer<4xf32, global>
//!          %d = arith.muli %i0, %c2 : index
//!          %p = arith.addi %d, %c2 : index
//!          loop.store %v, %t[%p] : !loop.buffer<10xf32, local>
//!        }
//!        loop.schedule_block "b" (%i0 = %i) {
//!          %d = arith.muli %i0, %c2 : index
//!          %p = arith.addi %d, %c2 : index
//!          %w = loop.load %t[%p] : !loop.buffer<10xf32, local>
//!          loop.store %w, %y[%i0] : !loop.buffer<4xf32, global>
//!        }
//!      }
//!      loop.return
//!    }
//!    ```
//!    becomes (indices `2 * %i0 + 2` are `%i0` now; the buffer holds `(9 - 2) / 2 + 1 = 4`)
//!    ```text
//!    %0 = loop.alloc : !loop.buffer<4xf32, local>
//!    loop.for serial %arg2 = %c0 to %c4 step %c1 {
//!      loop.schedule_block "a" (%arg3 = %arg2) {
//!        %1 = loop.load %arg0[%arg3] : !loop.buffer<4xf32, global>
//!        loop.store %1, %0[%arg3] : !loop.buffer<4xf32, local>
//!        loop.yield
//!      }
//!      loop.schedule_block "b" (%arg3 = %arg2) {
//!        %1 = loop.load %0[%arg3] : !loop.buffer<4xf32, local>
//!        loop.store %1, %arg1[%arg3] : !loop.buffer<4xf32, global>
//!        loop.yield
//!      }
//!      loop.yield
//!    }
//!    ```
//!
//! # Counter-examples
//! 1. Indices `%i` and `2 * %i`: the gcd is 1 and the smallest constant 0, nothing changes.
//! 2. A `shared` or global buffer: other threads or the host see its layout.

use dlc_ir::pass::{Anchor, OptionValues, Pass, PassInfo, PassRun};
use dlc_ir::{Context, Diagnostic, InsertPoint, DYNAMIC};
use dlc_loop::analysis::access::{accesses_of, first_index_operand, is_vector_access, Resolver};
use dlc_loop::index_expr::erase_dead_index_ops;
use dlc_loop::index_expr::{from_ir_with, range_of, Emitter, FromIr, IndexExpr};
use dlc_loop::KernelOp;
use dlc_loop::{buffer_parts, buffer_type, AllocOp, MemorySpace};

/// The pass description.
pub static INFO: PassInfo = PassInfo {
    argument: "local-index-factor-elim",
    summary: "Divides the indices of a local buffer by their common factor and subtracts their \
              common constant offset, dim by dim, and shrinks the buffer to match.",
    anchor: Anchor::op::<KernelOp>(),
    options: &[],
    statistics: &[(
        "buffers-rewritten",
        "Number of local buffers whose indices were divided or shifted",
    )],
    create,
};

fn create(_options: &OptionValues) -> Result<Box<dyn Pass>, String> {
    Ok(Box::new(LocalIndexFactorElim))
}

struct LocalIndexFactorElim;

impl Pass for LocalIndexFactorElim {
    fn run(&self, ctx: &mut Context, run: &mut PassRun<'_>) -> Result<(), Diagnostic> {
        let kernel = run.op();
        let resolver = Resolver::new(ctx, kernel);
        let mut allocs = Vec::new();
        ctx.for_each_op(kernel, &mut |op| allocs.extend(ctx.view::<AllocOp>(op)));
        let mut rewritten = 0;
        for alloc in allocs {
            if rewrite_alloc(ctx, &resolver, alloc)? {
                rewritten += 1;
            }
        }
        run.add_stat("buffers-rewritten", rewritten);
        if rewritten == 0 {
            run.preserve_all();
        }
        Ok(())
    }
}

/// The change to one dim: `new index = (index - offset) / factor`.
#[derive(Clone, Copy)]
struct DimChange {
    offset: i64,
    factor: i64,
}

/// Reads an index where it is used (iter vars stay: the rewritten index is built at the same
/// place, from the same values).
fn read(ctx: &Context, v: dlc_ir::Value) -> IndexExpr {
    from_ir_with(
        ctx,
        v,
        FromIr {
            bounds: None,
            assume_non_negative: true,
        },
    )
}

/// Rewrites the indices of the local buffer `alloc` makes; returns whether anything changed.
fn rewrite_alloc(
    ctx: &mut Context,
    resolver: &Resolver,
    alloc: AllocOp,
) -> Result<bool, Diagnostic> {
    let buffer = alloc.result(ctx);
    let Some((dims, elem, MemorySpace::Local)) = buffer_parts(ctx, ctx.value_type(buffer)) else {
        return Ok(false);
    };
    let Some(accesses) = accesses_of(ctx, buffer) else {
        return Ok(false);
    };
    if accesses.is_empty() {
        return Ok(false);
    }
    let vector = accesses.iter().any(|op| is_vector_access(ctx, *op));
    let mut changes: Vec<Option<DimChange>> = vec![None; dims.len()];
    for (d, change) in changes.iter_mut().enumerate() {
        let mut exprs = Vec::new();
        for &op in &accesses {
            let Some(&v) = first_index_operand(ctx, op).and_then(|at| ctx.operands(op).get(at + d))
            else {
                return Ok(false);
            };
            exprs.push(read(ctx, v));
        }
        let mut offset = exprs.iter().map(|e| e.constant_term()).min().unwrap_or(0);
        let shifted_ok = offset > 0
            && exprs.iter().all(|e| {
                let shifted = e - &IndexExpr::constant(offset);
                range_of(&shifted, resolver.bounds()).0 >= 0
            });
        if !shifted_ok {
            offset = 0;
        }
        let mut g = 0i64;
        for e in &exprs {
            g = gcd(g, e.constant_term() - offset);
            for (_, c) in e.terms() {
                g = gcd(g, *c);
            }
        }
        if g <= 1 || (vector && d + 1 == dims.len()) {
            g = 1;
        }
        if offset != 0 || g != 1 {
            *change = Some(DimChange { offset, factor: g });
        }
    }
    if changes.iter().all(Option::is_none) {
        return Ok(false);
    }
    let mut new_dims = dims.clone();
    for (d, change) in changes.iter().enumerate() {
        if let (Some(c), true) = (change, dims[d] != DYNAMIC) {
            new_dims[d] = ((dims[d] - 1 - c.offset).max(0) / c.factor + 1).min(dims[d]);
        }
    }
    for &op in &accesses {
        let Some(at) = first_index_operand(ctx, op) else {
            continue;
        };
        let mut emitter = Emitter::new(InsertPoint::Before(op), ctx.op_loc(op))
            .with_bounds(resolver.bounds().clone());
        for (d, change) in changes.iter().enumerate() {
            let Some(c) = change else {
                continue;
            };
            let old = ctx.operand(op, at + d);
            let e = read(ctx, old);
            let new = divide(&(&e - &IndexExpr::constant(c.offset)), c.factor);
            let v = emitter.emit(ctx, &new)?;
            ctx.set_operand(op, at + d, v);
            erase_dead_index_ops(ctx, old);
        }
    }
    let ty = buffer_type(ctx, &new_dims, elem, MemorySpace::Local);
    ctx.set_value_type(buffer, ty);
    Ok(true)
}

/// `e / k` for an `e` whose coefficients and constant are all multiples of `k`.
fn divide(e: &IndexExpr, k: i64) -> IndexExpr {
    let mut acc = IndexExpr::constant(e.constant_term() / k);
    for (m, c) in e.terms() {
        let mut product = IndexExpr::constant(c / k);
        for a in m {
            product = &product * &IndexExpr::atom(a.clone());
        }
        acc = &acc + &product;
    }
    acc
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    i64::try_from(a).unwrap_or(1)
}
