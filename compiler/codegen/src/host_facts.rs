//! What the host functions prove about kernel buffer arguments: `noalias` and alignment.
//!
//! Codegen sees the whole lowered module, so it can read every `loop.launch` of a kernel. A
//! buffer operand traces back to a *root* — a host `loop.alloc`, a `loop.constant`, a function
//! argument, the results of a host call — plus a byte range when it is a `loop.view` with
//! constant offset and sizes (a `loop.reshape` is where its source is). An
//! argument is `noalias` when, in every launch, no other buffer operand may share bytes with it
//! (a different root, or disjoint constant ranges of the same arena); `plan-memory`'s in-place
//! reuse passes one view twice, and that pair keeps its aliasing. An argument's alignment is the
//! smallest over its launches: 64 bytes for allocations and constants (the runtime allocates
//! every buffer 64-byte aligned), the element size for the function's own arguments (the
//! runtime reads an input in place wherever its caller's memory is, a numpy array's say, as long
//! as its elements are aligned), and the power of two dividing a constant view offset, up to
//! the alignment of the buffer viewed.
//!
//! The results of `loop.call_if` and `loop.call_loop` never share bytes with the caller's
//! buffers (the runtime runs a callee in its own memory, and copies what a loop carries), so
//! they are roots. A `loop.call_if`'s results are one root together: its callee may return one
//! buffer twice, or overlapping views. Their alignment is only the element size, since a callee
//! may return a view at any offset of its arena.
//!
//! A kernel no host function launches gets no facts: nothing is assumed about its arguments.

use crate::function::ArgFacts;
use dlc_ir::{Context, Op, Value};
use dlc_loop::{buffer_parts, elem_size_bytes, LoopOps};
use rustc_hash::FxHashMap;

/// The alignment the runtime guarantees for every allocation and constant. Inputs are only
/// element-aligned (`Session::run_views` reads them in place).
pub const RUNTIME_ALIGNMENT: u32 = 64;

/// Facts per kernel name: one entry per kernel argument.
pub(crate) type KernelFacts = FxHashMap<String, Vec<ArgFacts>>;

/// Where a buffer's bytes are: a root value and, when constant, the byte range in it.
#[derive(Copy, Clone, PartialEq, Debug)]
struct Place {
    root: Value,
    /// `[start, end)` bytes in the root, when the offset and size are constants.
    range: Option<(u64, u64)>,
    /// The largest power of two (≤ 64) dividing the start address.
    align: u32,
}

/// Reads every `loop.launch` under `module` (in host functions) and combines their facts.
pub(crate) fn kernel_facts(ctx: &Context, module: Op) -> KernelFacts {
    let mut facts: KernelFacts = FxHashMap::default();
    ctx.for_each_op(module, &mut |op| {
        let Some(callee) = ctx
            .view::<dlc_loop::LaunchOp>(op)
            .and_then(|launch| launch.callee_name(ctx))
        else {
            return;
        };
        let operands = ctx.operands(op);
        let places: Vec<Option<Place>> = operands.iter().map(|&v| place(ctx, v)).collect();
        let launch: Vec<ArgFacts> = (0..operands.len())
            .map(|i| match places[i] {
                None => ArgFacts::default(),
                Some(p) => ArgFacts {
                    noalias: places
                        .iter()
                        .enumerate()
                        .all(|(j, q)| j == i || q.is_none_or(|q| disjoint(p, q))),
                    align: p.align,
                },
            })
            .collect();
        facts
            .entry(callee.to_string())
            .and_modify(|known| {
                for (k, l) in known.iter_mut().zip(&launch) {
                    k.noalias &= l.noalias;
                    k.align = k.align.min(l.align);
                }
            })
            .or_insert(launch);
    });
    facts
}

/// The place of a buffer value, or `None` for non-buffers. A `loop.reshape` is where its
/// source is.
fn place(ctx: &Context, v: Value) -> Option<Place> {
    let v = dlc_loop::reshape_root(ctx, v);
    let (dims, elem, _) = buffer_parts(ctx, ctx.value_type(v))?;
    let root = |root: Value, align: u32| {
        Some(Place {
            root,
            range: None,
            align,
        })
    };
    // A call result is aligned to its element (1 byte when that size is unknown).
    let element_align =
        || elem_size_bytes(ctx, elem).map_or(1, |n| n.min(u64::from(RUNTIME_ALIGNMENT)) as u32);
    let Some(def) = ctx.defining_op(v) else {
        // A function argument: the caller's memory, element-aligned.
        return root(v, element_align());
    };
    let view = match LoopOps::of(ctx, def) {
        Some(LoopOps::ViewOp(view)) => view,
        Some(LoopOps::CallIfOp(call)) => return root(ctx.result(call.0, 0), element_align()),
        Some(LoopOps::CallLoopOp(_)) => return root(v, element_align()),
        _ => return root(v, RUNTIME_ALIGNMENT),
    };
    let arena = place(ctx, view.arena(ctx))?;
    let offset = constant_index(ctx, view.offset(ctx));
    let elem_bytes = elem_size_bytes(ctx, elem)?;
    let size = dims.iter().try_fold(elem_bytes, |n, &d| {
        (d >= 0).then(|| n.saturating_mul(d as u64))
    });
    let range = match (arena.range, offset, size) {
        (None, Some(o), Some(s)) => Some((o, o.saturating_add(s))),
        (Some((base, _)), Some(o), Some(s)) => Some((base + o, (base + o).saturating_add(s))),
        _ => None,
    };
    let align = match offset {
        Some(0) => arena.align,
        Some(o) => arena.align.min(1 << o.trailing_zeros().min(6)),
        None => elem_bytes as u32,
    };
    Some(Place {
        root: arena.root,
        range,
        align,
    })
}

fn disjoint(a: Place, b: Place) -> bool {
    if a.root != b.root {
        return true;
    }
    match (a.range, b.range) {
        (Some((s1, e1)), Some((s2, e2))) => e1 <= s2 || e2 <= s1 || s1 == e1 || s2 == e2,
        _ => false,
    }
}

fn constant_index(ctx: &Context, v: Value) -> Option<u64> {
    u64::try_from(dlc_arith::constant_int(ctx, v)?).ok()
}

#[cfg(test)]
mod tests {
    use super::{kernel_facts, RUNTIME_ALIGNMENT};
    use dlc_ir::Context;

    /// A call's results are roots apart from the caller's buffers, aligned to their element,
    /// as function arguments are; two results of one `loop.call_if` may be the same bytes, and
    /// only allocations are aligned to the runtime's 64 bytes.
    #[test]
    fn arguments_and_call_results_are_element_aligned() {
        let mut ctx = Context::new();
        dlc_dialects::register_all_dialects(&mut ctx);
        let src = r#"
loop.kernel @k(%a: !loop.buffer<4xf32, global>, %b: !loop.buffer<4xf32, global>) {
  loop.return
}
func.func @pair(%x: !loop.buffer<4xf32, global>) -> (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) {
  return %x, %x : !loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>
}
func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<4xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<4xf32, global>) {
  return %c, %x : !loop.buffer<i1, global>, !loop.buffer<4xf32, global>
}
func.func @main(%c: !loop.buffer<i1, global>, %m: !loop.buffer<i64, global>, %x: !loop.buffer<4xf32, global>) {
  %p:2 = loop.call_if %c then @pair else @pair (%x) : (!loop.buffer<i1, global>, !loop.buffer<4xf32, global>) -> (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>)
  loop.launch @k(%p#0, %p#1) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
  %l = loop.call_loop @body (%m, %c, %x) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global>
  loop.launch @k(%l, %x) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()
  return
}
"#;
        let module = dlc_ir::parse_source(&mut ctx, src, "facts.mlir", 1).expect("parses");
        dlc_ir::verify(&ctx, module).expect("verifies");
        let facts = kernel_facts(&ctx, module);
        let k = &facts["k"];
        // The call_if pair may alias; the loop's result does not alias the argument `%x`.
        assert!(!k[0].noalias && !k[1].noalias);
        assert_eq!(k[0].align, 4, "a call result: the f32 element size");
        assert_eq!(k[1].align, 4, "min of a call result and an argument");

        // Without the call_if launch, the loop's result and the argument are disjoint roots.
        let src = src.replace(
            "  loop.launch @k(%p#0, %p#1) : (!loop.buffer<4xf32, global>, !loop.buffer<4xf32, global>) -> ()\n",
            "",
        );
        let module = dlc_ir::parse_source(&mut ctx, &src, "facts.mlir", 1).expect("parses");
        let facts = kernel_facts(&ctx, module);
        let k = &facts["k"];
        assert!(k[0].noalias && k[1].noalias);
        assert_eq!(
            (k[0].align, k[1].align),
            (4, 4),
            "an argument: the f32 element size"
        );

        // An allocation launched beside the argument is 64-byte aligned.
        let src = src.replace(
            "  loop.launch @k(%l, %x)",
            "  %a = loop.alloc : !loop.buffer<4xf32, global>\n  loop.launch @k(%a, %x)",
        );
        let module = dlc_ir::parse_source(&mut ctx, &src, "facts.mlir", 1).expect("parses");
        let facts = kernel_facts(&ctx, module);
        assert_eq!(
            (facts["k"][0].align, facts["k"][1].align),
            (RUNTIME_ALIGNMENT, 4)
        );
    }
}
