//! The verifier rules of the loop ops: index counts match buffer ranks, value types match
//! element types, memory spaces stay where they belong (shared buffers only in GPU-bound
//! kernels, shared/local buffers never escape), loop kinds are well formed and each GPU binding
//! appears at most once per loop nest, schedule blocks agree on their iter vars, and barriers
//! only appear in GPU kernels. Host ops (`loop.read_size`, `loop.launch`, `loop.constant`,
//! `loop.view`, `loop.reshape`, `loop.call_if`, `loop.call_loop`) stay out of kernels; a
//! launch matches its kernel's signature (checked with the symbol tables) and passes no buffer
//! twice, or two overlapping views, where a kernel argument is `loop.noalias`; `loop.read_size`
//! reads a one-element integer buffer; and the host calls match the signatures of the host
//! functions they call.

use crate::analysis::loops::{is_gpu_kernel, loop_kind};
use crate::compiled::KernelSymbol;
use crate::ops::{
    launch_dims, CallLoopOp, ForOp, IterKind, KernelOp, LoopKind, ReduceKind, ReduceMethod,
    ScheduleBlockOp, VStoreOp,
};
use crate::syntax::string_array;
use crate::types::{buffer_parts, MemorySpace};
use dlc_ir::symbol::SymbolTables;
use dlc_ir::{
    op_error, AttrKind, Context, Diagnostic, Ident, Op, Printer, Traits, Type, TypeKind, Value,
};

type VResult = Result<(), Diagnostic>;

fn type_str(ctx: &Context, ty: Type) -> String {
    Printer::new(ctx).type_to_string(ty)
}

/// The enclosing `loop.kernel` of `op`, if any.
fn enclosing_kernel(ctx: &Context, op: Op) -> Option<Op> {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if ctx.view::<KernelOp>(p).is_some() {
            return Some(p);
        }
        cur = ctx.parent_op(p);
    }
    None
}

/// True if `op` runs in a GPU context: under a GPU-bound loop, or in a GPU-bound kernel.
fn in_gpu_context(ctx: &Context, op: Op) -> bool {
    let mut cur = ctx.parent_op(op);
    while let Some(p) = cur {
        if loop_kind(ctx, p).is_some_and(LoopKind::is_gpu) {
            return true;
        }
        if ctx.view::<KernelOp>(p).is_some() {
            return is_gpu_kernel(ctx, p);
        }
        cur = ctx.parent_op(p);
    }
    false
}

/// Checks that `region` of `op` has one block with `n` index arguments.
fn check_index_block(ctx: &Context, op: Op, region: usize, n: usize, what: &str) -> VResult {
    let r = ctx.region(op, region);
    let Some(block) = ctx.blocks(r).first() else {
        return Err(op_error(
            ctx,
            op,
            format!("expects a non-empty {what} region"),
        ));
    };
    let args = ctx.block_args(*block);
    if args.len() != n || args.iter().any(|a| ctx.value_type(*a) != Type::INDEX) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "{what} region must have {n} index block argument(s), found {}",
                args.len()
            ),
        ));
    }
    Ok(())
}

fn check_index_operands(ctx: &Context, op: Op, values: &[Value], what: &str) -> VResult {
    for (i, v) in values.iter().enumerate() {
        let ty = ctx.value_type(*v);
        if ty != Type::INDEX {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "{what} #{i} must be of type index, found '{}'",
                    type_str(ctx, ty)
                ),
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// loop.kernel

/// The argument types of kernel `op` (a `loop.kernel` or `loop.compiled_kernel`): its
/// `function_type` must be a function type without results.
pub(crate) fn kernel_inputs(ctx: &Context, op: Op) -> Result<&[Type], Diagnostic> {
    let Some((inputs, results)) = crate::ops::kernel_signature(ctx, op) else {
        return Err(op_error(
            ctx,
            op,
            "requires attribute 'function_type' holding a function type",
        ));
    };
    if !results.is_empty() {
        return Err(op_error(ctx, op, "kernels return no values"));
    }
    Ok(inputs)
}

pub(crate) fn verify_kernel(ctx: &Context, op: Op) -> VResult {
    let kernel = KernelOp(op);
    let inputs = kernel_inputs(ctx, op)?;
    let Some(entry) = kernel.body(ctx) else {
        return Err(op_error(ctx, op, "expects a body"));
    };
    let args = ctx.block_args(entry);
    if args.len() != inputs.len()
        || args
            .iter()
            .zip(inputs)
            .any(|(a, t)| ctx.value_type(*a) != *t)
    {
        return Err(op_error(
            ctx,
            op,
            "entry block arguments must match the kernel signature",
        ));
    }
    for (i, t) in inputs.iter().enumerate() {
        if let Some((_, _, space)) = buffer_parts(ctx, *t) {
            if space != MemorySpace::Global {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "argument #{i} is a {} buffer; kernel arguments must be global buffers",
                        space.keyword()
                    ),
                ));
            }
        }
    }
    for key in ["grid", "block"] {
        let Some(attr) = ctx.attr(op, key) else {
            continue;
        };
        let Some(dims) = launch_dims(ctx, attr) else {
            return Err(op_error(
                ctx,
                op,
                format!("'{key}' must be an array of 3 index integers or \"argN\" strings"),
            ));
        };
        for d in dims {
            match d {
                crate::LaunchDim::Const(n) if n <= 0 => {
                    return Err(op_error(
                        ctx,
                        op,
                        format!("'{key}' dimensions must be positive, found {n}"),
                    ))
                }
                crate::LaunchDim::Arg(i) if inputs.get(i) != Some(&Type::INDEX) => {
                    return Err(op_error(
                        ctx,
                        op,
                        format!("'{key}' names \"arg{i}\", which is not an index argument"),
                    ))
                }
                _ => {}
            }
        }
    }
    verify_arg_attrs(ctx, op, inputs)?;
    verify_index_checks(ctx, op, inputs)
}

/// A kernel's `arg_attrs` holds one dictionary per argument, and [`crate::NOALIAS`] is a unit
/// attribute on buffer arguments only.
pub(crate) fn verify_arg_attrs(ctx: &Context, op: Op, inputs: &[Type]) -> VResult {
    let Some(attr) = ctx.attr(op, "arg_attrs") else {
        return Ok(());
    };
    let dicts = match ctx.attr_kind(attr) {
        AttrKind::Array(items)
            if items.len() == inputs.len()
                && items
                    .iter()
                    .all(|d| matches!(ctx.attr_kind(*d), AttrKind::Dict(_))) =>
        {
            items
        }
        _ => {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "'arg_attrs' must be an array of one dictionary per argument ({})",
                    inputs.len()
                ),
            ))
        }
    };
    for (i, (d, ty)) in dicts.iter().zip(inputs).enumerate() {
        let AttrKind::Dict(entries) = ctx.attr_kind(*d) else {
            continue;
        };
        let Some(noalias) = entries
            .iter()
            .find(|e| ctx.ident_str(e.name) == crate::NOALIAS)
        else {
            continue;
        };
        if !matches!(ctx.attr_kind(noalias.value), AttrKind::Unit) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "'{}' of argument #{i} must be a unit attribute",
                    crate::NOALIAS
                ),
            ));
        }
        if buffer_parts(ctx, *ty).is_none() {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "'{}' is only allowed on buffer arguments, but argument #{i} is '{}'",
                    crate::NOALIAS,
                    type_str(ctx, *ty)
                ),
            ));
        }
    }
    Ok(())
}

/// A kernel's `index_checks` name an integer buffer argument and a buffer argument with the
/// axis (see [`crate::INDEX_CHECKS`]).
pub(crate) fn verify_index_checks(ctx: &Context, op: Op, inputs: &[Type]) -> VResult {
    let Some(checks) = crate::index_checks(ctx, op) else {
        return Err(op_error(
            ctx,
            op,
            format!(
                "'{}' must be an array<i64> of (indices, data, axis) triples of non-negative \
                 integers",
                crate::INDEX_CHECKS
            ),
        ));
    };
    for c in checks {
        let indices = inputs.get(c.indices).and_then(|t| buffer_parts(ctx, *t));
        let integer = indices.is_some_and(|(_, elem, _)| {
            matches!(
                ctx.type_kind(elem),
                TypeKind::Integer { width } if *width > 1
            ) || elem == Type::INDEX
        });
        if !integer {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "'{}' names argument #{} as indices, which is not an integer buffer",
                    crate::INDEX_CHECKS,
                    c.indices
                ),
            ));
        }
        let rank = inputs
            .get(c.data)
            .and_then(|t| buffer_parts(ctx, *t))
            .map(|(dims, _, _)| dims.len());
        if rank.is_none_or(|r| c.axis >= r) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "'{}' names axis {} of argument #{}, which is not a buffer of that rank",
                    crate::INDEX_CHECKS,
                    c.axis,
                    c.data
                ),
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// loop.alloc

pub(crate) fn verify_alloc(ctx: &Context, op: Op) -> VResult {
    let ty = ctx.value_type(ctx.result(op, 0));
    let Some((dims, _, space)) = buffer_parts(ctx, ty) else {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result must be a !loop.buffer, found '{}'",
                type_str(ctx, ty)
            ),
        ));
    };
    check_dynamic_sizes(ctx, op, &dims, ctx.operands(op))?;
    // Inside a kernel: shared or local scratch. Outside: a host allocation, always global.
    let Some(kernel) = enclosing_kernel(ctx, op) else {
        if space != MemorySpace::Global {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "allocates a {} buffer outside a 'loop.kernel'; host allocations must be global",
                    space.keyword()
                ),
            ));
        }
        return Ok(());
    };
    if space == MemorySpace::Global {
        return Err(op_error(
            ctx,
            op,
            "cannot allocate a global buffer inside a 'loop.kernel'; global buffers are kernel arguments or host allocations",
        ));
    }
    if space == MemorySpace::Shared && !is_gpu_kernel(ctx, kernel) {
        return Err(op_error(
            ctx,
            op,
            "shared buffers are only allowed in GPU-bound kernels (with block/thread loops or launch attributes)",
        ));
    }
    for u in ctx.uses(ctx.result(op, 0)) {
        let user = u.user;
        if ctx.view::<dlc_func::CallOp>(user).is_some() || ctx.has_trait(user, Traits::RETURN_LIKE)
        {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "{} buffer must not escape the kernel, but is used by '{}'",
                    space.keyword(),
                    ctx.op_name(user)
                ),
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// loop.for

pub(crate) fn verify_for(ctx: &Context, op: Op) -> VResult {
    let f = ForOp(op);
    let Some(name) = f.kind(ctx).and_then(|a| ctx.attr_as_str(a)) else {
        return Err(op_error(ctx, op, "requires a string attribute 'kind'"));
    };
    let Some(kind) = LoopKind::from_name(name, 0) else {
        return Err(op_error(ctx, op, format!("unknown loop kind '{name}'")));
    };
    for (key, wanted) in [("width", "vectorize"), ("factor", "unroll")] {
        let attr = ctx.attr(op, key);
        if name != wanted {
            if attr.is_some() {
                return Err(op_error(
                    ctx,
                    op,
                    format!("'{key}' is only allowed on {wanted} loops"),
                ));
            }
            continue;
        }
        let value = attr.and_then(|a| match ctx.attr_kind(a) {
            AttrKind::Integer { value, ty } if *ty == Type::I64 => Some(*value),
            _ => None,
        });
        match value {
            None => {
                return Err(op_error(
                    ctx,
                    op,
                    format!("{wanted} loops require an i64 attribute '{key}'"),
                ))
            }
            Some(v) if v <= 0 => {
                return Err(op_error(
                    ctx,
                    op,
                    format!("{wanted} {key} must be positive, found {v}"),
                ))
            }
            _ => {}
        }
    }
    check_index_operands(ctx, op, ctx.operands(op), "bound operand")?;
    check_index_block(ctx, op, 0, 1, "body")?;
    if kind.is_gpu() {
        let mut cur = ctx.parent_op(op);
        while let Some(p) = cur {
            if loop_kind(ctx, p) == Some(kind) {
                return Err(op_error(
                    ctx,
                    op,
                    format!("GPU binding '{name}' appears twice in one loop nest"),
                ));
            }
            cur = ctx.parent_op(p);
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// loop.schedule_block

pub(crate) fn verify_schedule_block(ctx: &Context, op: Op) -> VResult {
    let sb = ScheduleBlockOp(op);
    if sb.name(ctx).and_then(|a| ctx.attr_as_str(a)).is_none() {
        return Err(op_error(ctx, op, "requires a string attribute 'name'"));
    }
    let Some(kinds) = sb.iter_kinds(ctx).and_then(|a| string_array(ctx, a)) else {
        return Err(op_error(
            ctx,
            op,
            "requires an array-of-strings attribute 'iter_kinds'",
        ));
    };
    let mut has_reduce = false;
    for k in &kinds {
        match IterKind::from_name(k) {
            Some(IterKind::Reduce) => has_reduce = true,
            Some(IterKind::Spatial) => {}
            None => {
                return Err(op_error(
                    ctx,
                    op,
                    format!("unknown iter kind '{k}' (expected \"spatial\" or \"reduce\")"),
                ))
            }
        }
    }
    let values = ctx.operands(op);
    if values.len() != kinds.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "has {} iter values but {} iter kinds",
                values.len(),
                kinds.len()
            ),
        ));
    }
    check_index_operands(ctx, op, values, "iter value")?;
    check_index_block(ctx, op, 0, values.len(), "body")?;
    if let Some(m) = sb.reduce_method(ctx) {
        if ctx
            .attr_as_str(m)
            .and_then(ReduceMethod::from_name)
            .is_none()
        {
            return Err(op_error(
                ctx,
                op,
                "'reduce_method' must be \"none\", \"warp\", \"block\" or \"discrete\"",
            ));
        }
    }
    if !ctx.blocks(ctx.region(op, 1)).is_empty() {
        if !has_reduce {
            return Err(op_error(
                ctx,
                op,
                "has an init region but no reduce iter var",
            ));
        }
        check_index_block(ctx, op, 1, values.len(), "init")?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Memory access

/// Checks the buffer operand and indices of an access; returns the buffer's dims and element.
fn check_access(
    ctx: &Context,
    op: Op,
    buffer_index: usize,
) -> Result<(Vec<i64>, Type), Diagnostic> {
    check_access_operands(ctx, op, buffer_index, false)
}

/// [`check_access`] of a padded read when `padded`: its last operand, the padding, is no
/// index and must be a scalar of the buffer's element type.
fn check_access_operands(
    ctx: &Context,
    op: Op,
    buffer_index: usize,
    padded: bool,
) -> Result<(Vec<i64>, Type), Diagnostic> {
    let operands = ctx.operands(op);
    let (padding, access) = match (padded, operands.split_last()) {
        (false, _) => (None, operands),
        (true, Some((&padding, access))) => (Some(padding), access),
        (true, None) => {
            return Err(op_error(
                ctx,
                op,
                "expects a buffer, indices and a padding value",
            ))
        }
    };
    let Some(buf) = access.get(buffer_index) else {
        return Err(op_error(ctx, op, "expects a buffer operand"));
    };
    let ty = ctx.value_type(*buf);
    let Some((dims, elem, _)) = buffer_parts(ctx, ty) else {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects a !loop.buffer operand, found '{}'",
                type_str(ctx, ty)
            ),
        ));
    };
    let indices = &access[buffer_index + 1..];
    if indices.len() != dims.len() {
        let message = if padded {
            format!(
                "expects {} indices for a rank-{} buffer and a padding value, found {} operands \
                 after the buffer",
                dims.len(),
                dims.len(),
                operands.len() - buffer_index - 1
            )
        } else {
            format!(
                "expects {} indices for a rank-{} buffer, found {}",
                dims.len(),
                dims.len(),
                indices.len()
            )
        };
        return Err(op_error(ctx, op, message));
    }
    check_index_operands(ctx, op, indices, "index")?;
    if let Some(padding) = padding {
        let ty = ctx.value_type(padding);
        if ty != elem {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "padding type '{}' does not match the buffer element type '{}'",
                    type_str(ctx, ty),
                    type_str(ctx, elem)
                ),
            ));
        }
    }
    Ok((dims, elem))
}

/// Checks that the result of load `op` has the buffer's element type `elem`.
fn check_loaded_element(ctx: &Context, op: Op, elem: Type) -> VResult {
    let ty = ctx.value_type(ctx.result(op, 0));
    if ty != elem {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result type '{}' does not match the buffer element type '{}'",
                type_str(ctx, ty),
                type_str(ctx, elem)
            ),
        ));
    }
    Ok(())
}

pub(crate) fn verify_load(ctx: &Context, op: Op) -> VResult {
    let (_, elem) = check_access(ctx, op, 0)?;
    check_loaded_element(ctx, op, elem)
}

pub(crate) fn verify_load_padded(ctx: &Context, op: Op) -> VResult {
    let (_, elem) = check_access_operands(ctx, op, 0, true)?;
    check_loaded_element(ctx, op, elem)
}

pub(crate) fn verify_vload_padded(ctx: &Context, op: Op) -> VResult {
    let (dims, elem) = check_access_operands(ctx, op, 0, true)?;
    check_vector(ctx, op, ctx.value_type(ctx.result(op, 0)), &dims, elem)
}

pub(crate) fn verify_store(ctx: &Context, op: Op) -> VResult {
    if ctx.operands(op).is_empty() {
        return Err(op_error(ctx, op, "expects a value and a buffer operand"));
    }
    let (_, elem) = check_access(ctx, op, 1)?;
    let ty = ctx.value_type(ctx.operand(op, 0));
    if ty != elem {
        return Err(op_error(
            ctx,
            op,
            format!(
                "value type '{}' does not match the buffer element type '{}'",
                type_str(ctx, ty),
                type_str(ctx, elem)
            ),
        ));
    }
    Ok(())
}

/// Checks that `ty` is a 1-D vector of `elem` fitting in the last dim.
fn check_vector(ctx: &Context, op: Op, ty: Type, dims: &[i64], elem: Type) -> VResult {
    let ok = match ctx.type_kind(ty) {
        TypeKind::Vector { shape, element } => shape.len() == 1 && *element == elem,
        _ => false,
    };
    if !ok {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects a 1-D vector of the buffer element type '{}', found '{}'",
                type_str(ctx, elem),
                type_str(ctx, ty)
            ),
        ));
    }
    let Some(&last) = dims.last() else {
        return Err(op_error(
            ctx,
            op,
            "vector accesses need a buffer of rank >= 1",
        ));
    };
    let lanes = ctx.shape(ty).map_or(0, |s| s[0]);
    if last != dlc_ir::DYNAMIC && lanes > last {
        return Err(op_error(
            ctx,
            op,
            format!("vector of {lanes} lanes does not fit the last dimension ({last})"),
        ));
    }
    Ok(())
}

pub(crate) fn verify_prefetch(ctx: &Context, op: Op) -> VResult {
    check_access(ctx, op, 0)?;
    let space = buffer_parts(ctx, ctx.value_type(ctx.operand(op, 0))).map(|(_, _, s)| s);
    if space != Some(MemorySpace::Global) {
        return Err(op_error(
            ctx,
            op,
            "prefetches need a global buffer (local and shared ones live in caches)",
        ));
    }
    Ok(())
}

pub(crate) fn verify_dot4(ctx: &Context, op: Op) -> VResult {
    verify_dot(ctx, op, 4, Type::I8)
}

pub(crate) fn verify_dot2(ctx: &Context, op: Op) -> VResult {
    verify_dot(ctx, op, 2, Type::I16)
}

/// The types of a dot product of groups of `group` elements of `elem` into `i32` lanes: each
/// operand holds a group per lane, or one group for all.
fn verify_dot(ctx: &Context, op: Op, group: i64, elem: Type) -> VResult {
    let types: Vec<Type> = ctx
        .operands(op)
        .iter()
        .map(|&v| ctx.value_type(v))
        .collect();
    let result = ctx.value_type(ctx.result(op, 0));
    let lanes = |ty: Type, elem: Type| match ctx.type_kind(ty) {
        TypeKind::Vector { shape, element } if *element == elem && shape.len() == 1 => {
            Some(shape[0])
        }
        _ => None,
    };
    let groups = |ty: Type, n: i64| lanes(ty, elem).is_some_and(|m| m == group * n || m == group);
    if types.len() == 3
        && types[0] == result
        && lanes(result, Type::I32).is_some_and(|n| groups(types[1], n) && groups(types[2], n))
    {
        return Ok(());
    }
    let bits = ctx.integer_width(elem).unwrap_or(0);
    Err(op_error(
        ctx,
        op,
        format!(
            "expects an accumulator and result of vector<Nxi32> and two operands of \
             vector<{group}Nxi{bits}> or vector<{group}xi{bits}>"
        ),
    ))
}

pub(crate) fn verify_broadcast(ctx: &Context, op: Op) -> VResult {
    let scalar = ctx.value_type(ctx.operand(op, 0));
    let result = ctx.value_type(ctx.result(op, 0));
    match ctx.type_kind(result) {
        TypeKind::Vector { shape, element } if *element == scalar && shape.len() == 1 => Ok(()),
        _ => Err(op_error(
            ctx,
            op,
            "expects a scalar operand and a result of vector<NxT> of its type",
        )),
    }
}

pub(crate) fn verify_vload(ctx: &Context, op: Op) -> VResult {
    let (dims, elem) = check_access(ctx, op, 0)?;
    check_vector(ctx, op, ctx.value_type(ctx.result(op, 0)), &dims, elem)
}

pub(crate) fn verify_vstore(ctx: &Context, op: Op) -> VResult {
    if ctx.operands(op).is_empty() {
        return Err(op_error(ctx, op, "expects a vector and a buffer operand"));
    }
    let (dims, elem) = check_access(ctx, op, 1)?;
    if let Some(a) = VStoreOp(op).nontemporal(ctx) {
        if !matches!(ctx.attr_kind(a), AttrKind::Unit) {
            return Err(op_error(ctx, op, "'nontemporal' must be a unit attribute"));
        }
        let space = buffer_parts(ctx, ctx.value_type(ctx.operand(op, 1))).map(|(_, _, s)| s);
        if space != Some(MemorySpace::Global) {
            return Err(op_error(
                ctx,
                op,
                "'nontemporal' stores need a global buffer (local and shared ones live in caches)",
            ));
        }
    }
    check_vector(ctx, op, ctx.value_type(ctx.operand(op, 0)), &dims, elem)
}

// ---------------------------------------------------------------------------------------------
// Control flow and GPU ops

pub(crate) fn verify_if(ctx: &Context, op: Op) -> VResult {
    let ty = ctx.value_type(ctx.operand(op, 0));
    if ty != Type::I1 {
        return Err(op_error(
            ctx,
            op,
            format!("condition must be i1, found '{}'", type_str(ctx, ty)),
        ));
    }
    check_index_block(ctx, op, 0, 0, "then")?;
    if !ctx.blocks(ctx.region(op, 1)).is_empty() {
        check_index_block(ctx, op, 1, 0, "else")?;
    }
    Ok(())
}

pub(crate) fn verify_barrier(ctx: &Context, op: Op) -> VResult {
    if !in_gpu_context(ctx, op) {
        return Err(op_error(
            ctx,
            op,
            "is only allowed in GPU-bound kernels (under a thread loop or with launch attributes)",
        ));
    }
    Ok(())
}

pub(crate) fn verify_gpu_index(ctx: &Context, op: Op) -> VResult {
    if crate::ops::gpu_dim(ctx, op).is_none() {
        return Err(op_error(
            ctx,
            op,
            "requires attribute 'dim' to be \"x\", \"y\" or \"z\"",
        ));
    }
    let ty = ctx.value_type(ctx.result(op, 0));
    if ty != Type::INDEX {
        return Err(op_error(ctx, op, "result must be of type index"));
    }
    Ok(())
}

pub(crate) fn verify_reduce(ctx: &Context, op: Op) -> VResult {
    let Some(kind) = crate::ops::reduce_kind(ctx, op) else {
        return Err(op_error(
            ctx,
            op,
            "requires attribute 'kind' to be one of \"add\", \"mul\", \"max\", \"min\", \"and\", \"or\"",
        ));
    };
    let ty = ctx.value_type(ctx.operand(op, 0));
    let is_float = ctx.float_kind(ty).is_some();
    let is_int = matches!(ctx.type_kind(ty), TypeKind::Integer { .. });
    if !is_float && !is_int {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects a scalar integer or float, found '{}'",
                type_str(ctx, ty)
            ),
        ));
    }
    if is_float && matches!(kind, ReduceKind::And | ReduceKind::Or) {
        return Err(op_error(
            ctx,
            op,
            format!("kind '{}' needs an integer value", kind.name()),
        ));
    }
    // A warp or block reduction synchronizes threads, like a barrier.
    if !in_gpu_context(ctx, op) {
        return Err(op_error(
            ctx,
            op,
            "is only allowed in GPU-bound kernels (under a thread loop or with launch attributes)",
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Host ops: loop.dim (anywhere), loop.read_size, loop.check, loop.launch, loop.constant,
// loop.view (host functions only)

/// Fails if `op` is nested in a `loop.kernel`: host ops run outside kernels.
fn check_host_only(ctx: &Context, op: Op) -> VResult {
    if enclosing_kernel(ctx, op).is_some() {
        return Err(op_error(
            ctx,
            op,
            "is a host op and must not be nested in a 'loop.kernel'",
        ));
    }
    Ok(())
}

/// The parts of a result that must be a global buffer.
fn global_result(ctx: &Context, op: Op) -> Result<(Vec<i64>, Type), Diagnostic> {
    let ty = ctx.value_type(ctx.result(op, 0));
    match buffer_parts(ctx, ty) {
        Some((dims, elem, MemorySpace::Global)) => Ok((dims, elem)),
        _ => Err(op_error(
            ctx,
            op,
            format!(
                "result must be a global !loop.buffer, found '{}'",
                type_str(ctx, ty)
            ),
        )),
    }
}

pub(crate) fn verify_dim(ctx: &Context, op: Op) -> VResult {
    let ty = ctx.value_type(ctx.operand(op, 0));
    let Some((dims, _, _)) = buffer_parts(ctx, ty) else {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects a !loop.buffer operand, found '{}'",
                type_str(ctx, ty)
            ),
        ));
    };
    // The verifier has checked that `axis` is an i64 (the definition declares it one).
    let axis = crate::ops::DimOp(op).axis(ctx).unwrap_or_default();
    if axis < 0 || axis >= dims.len() as i64 {
        return Err(op_error(
            ctx,
            op,
            format!(
                "axis {axis} is out of range for a rank-{} buffer",
                dims.len()
            ),
        ));
    }
    if ctx.value_type(ctx.result(op, 0)) != Type::INDEX {
        return Err(op_error(ctx, op, "result must be of type index"));
    }
    Ok(())
}

/// `loop.check`: a host op on an `i1` condition (its string `message` is checked with the
/// definition's typed attributes).
pub(crate) fn verify_check(ctx: &Context, op: Op) -> VResult {
    check_host_only(ctx, op)?;
    let ty = ctx.value_type(ctx.operand(op, 0));
    if ty != Type::I1 {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand must be an i1 condition, found '{}'",
                type_str(ctx, ty)
            ),
        ));
    }
    Ok(())
}

/// `loop.read_size`: a host op reading a one-element global buffer of `i8`..`i64` (every dim a
/// static 1, rank 0 allowed) into an `index`.
pub(crate) fn verify_read_size(ctx: &Context, op: Op) -> VResult {
    check_host_only(ctx, op)?;
    let ty = ctx.value_type(ctx.operand(op, 0));
    let fits = match buffer_parts(ctx, ty) {
        Some((dims, elem, MemorySpace::Global)) => {
            matches!(ctx.integer_width(elem), Some(8 | 16 | 32 | 64))
                && dims.iter().all(|&d| d == 1)
        }
        _ => false,
    };
    if !fits {
        return Err(op_error(
            ctx,
            op,
            format!(
                "operand must be a global buffer of one i8, i16, i32 or i64 element (every dim 1), found '{}'",
                type_str(ctx, ty)
            ),
        ));
    }
    if ctx.value_type(ctx.result(op, 0)) != Type::INDEX {
        return Err(op_error(ctx, op, "result must be of type index"));
    }
    Ok(())
}

pub(crate) fn verify_launch(ctx: &Context, op: Op) -> VResult {
    check_host_only(ctx, op)?;
    if ctx
        .attr(op, "callee")
        .and_then(|a| ctx.attr_as_symbol(a))
        .is_none()
    {
        return Err(op_error(
            ctx,
            op,
            "requires a 'callee' symbol reference attribute",
        ));
    }
    Ok(())
}

/// True if a value of type `actual` may be passed for a kernel argument of type `expected`:
/// the same type, or buffers of one element type, space and rank whose dims agree wherever
/// both are static (a `?` on either side is checked when the kernel is launched).
pub fn launch_compatible(ctx: &Context, actual: Type, expected: Type) -> bool {
    if actual == expected {
        return true;
    }
    match (buffer_parts(ctx, actual), buffer_parts(ctx, expected)) {
        (Some((a_dims, a_elem, a_space)), Some((e_dims, e_elem, e_space))) => {
            a_elem == e_elem
                && a_space == e_space
                && a_dims.len() == e_dims.len()
                && a_dims
                    .iter()
                    .zip(&e_dims)
                    .all(|(&a, &e)| a == e || a == dlc_ir::DYNAMIC || e == dlc_ir::DYNAMIC)
        }
        _ => false,
    }
}

pub(crate) fn verify_launch_symbols(
    ctx: &Context,
    op: Op,
    tables: &mut dlc_ir::symbol::SymbolTables,
) -> VResult {
    let Some(callee) = ctx.attr(op, "callee").and_then(|a| ctx.attr_as_symbol(a)) else {
        return Err(op_error(
            ctx,
            op,
            "requires a 'callee' symbol reference attribute",
        ));
    };
    let name = ctx.ident_str(callee);
    let kernel = tables
        .resolve(ctx, op, callee)
        .and_then(|k| KernelSymbol::of(ctx, k));
    let Some(inputs) = kernel.and_then(|k| k.argument_types(ctx)) else {
        return Err(op_error(
            ctx,
            op,
            format!("'{name}' does not reference a 'loop.kernel' or 'loop.compiled_kernel'"),
        ));
    };
    let operands = ctx.operands(op);
    if operands.len() != inputs.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "passes {} arguments but kernel '{name}' takes {}",
                operands.len(),
                inputs.len()
            ),
        ));
    }
    for (i, (v, expected)) in operands.iter().zip(&inputs).enumerate() {
        let actual = ctx.value_type(*v);
        if !launch_compatible(ctx, actual, *expected) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "argument #{i} of type '{}' is not compatible with kernel argument type '{}'",
                    type_str(ctx, actual),
                    type_str(ctx, *expected)
                ),
            ));
        }
    }
    let Some(kernel) = kernel else {
        return Ok(());
    };
    for (j, &b) in operands.iter().enumerate() {
        for (i, &a) in operands[..j].iter().enumerate() {
            if !provably_overlap(ctx, a, b) {
                continue;
            }
            if let Some(k) = kernel.noalias_conflict(ctx, i, j) {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "arguments #{i} and #{j} share memory the kernel writes, but argument #{k} of kernel '{name}' is '{}'",
                        crate::NOALIAS
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Whether buffers `a` and `b` of a host function surely share bytes: the same value (or
/// `loop.reshape`s of it), or `loop.view`s of one arena at constant offsets whose static byte
/// ranges overlap.
fn provably_overlap(ctx: &Context, a: Value, b: Value) -> bool {
    let (a, b) = (crate::reshape_root(ctx, a), crate::reshape_root(ctx, b));
    if a == b {
        return true;
    }
    match (byte_range(ctx, a), byte_range(ctx, b)) {
        (Some((arena_a, start_a, end_a)), Some((arena_b, start_b, end_b))) => {
            arena_a == arena_b && start_a < end_b && start_b < end_a
        }
        _ => false,
    }
}

/// The arena and the non-empty byte range `[start, end)` of `v` when it is a `loop.view` with
/// a constant offset and a static shape.
fn byte_range(ctx: &Context, v: Value) -> Option<(Value, i128, i128)> {
    let view = ctx.view::<crate::ViewOp>(ctx.defining_op(v)?)?;
    let start = dlc_arith::constant_int(ctx, view.offset(ctx))?;
    let (dims, elem, _) = buffer_parts(ctx, ctx.value_type(v))?;
    let bytes = dims
        .iter()
        .try_fold(i128::from(crate::elem_size_bytes(ctx, elem)?), |n, &d| {
            if d >= 0 {
                n.checked_mul(i128::from(d))
            } else {
                None
            }
        })?;
    let end = start.checked_add(bytes)?;
    (bytes > 0).then(|| (view.arena(ctx), start, end))
}

pub(crate) fn verify_constant(ctx: &Context, op: Op) -> VResult {
    check_host_only(ctx, op)?;
    let (dims, elem) = global_result(ctx, op)?;
    if dims.contains(&dlc_ir::DYNAMIC) {
        return Err(op_error(ctx, op, "result buffer must have a static shape"));
    }
    let value = ctx.attr(op, "value");
    let dense_ty = value.and_then(|a| match ctx.attr_kind(a) {
        AttrKind::DenseElements(d) => Some(d.ty),
        _ => None,
    });
    let Some(dense_ty) = dense_ty else {
        return Err(op_error(
            ctx,
            op,
            "requires a dense elements attribute 'value'",
        ));
    };
    let matches = match ctx.type_kind(dense_ty) {
        TypeKind::Tensor { shape, element } => **shape == *dims && *element == elem,
        _ => false,
    };
    if !matches {
        return Err(op_error(
            ctx,
            op,
            format!(
                "value of type '{}' does not match the result buffer '{}' (expected a tensor of the same shape and element type)",
                type_str(ctx, dense_ty),
                type_str(ctx, ctx.value_type(ctx.result(op, 0)))
            ),
        ));
    }
    Ok(())
}

/// `loop.reshape`: a global source buffer of the result's element type, one index size per
/// `?` dim of the result, and the same element count when both shapes are static (a dynamic
/// one is checked when the program runs).
pub(crate) fn verify_reshape(ctx: &Context, op: Op) -> VResult {
    check_host_only(ctx, op)?;
    let operands = ctx.operands(op);
    let Some(&source) = operands.first() else {
        return Err(op_error(ctx, op, "expects a source buffer operand"));
    };
    let source_ty = ctx.value_type(source);
    let Some((source_dims, source_elem, MemorySpace::Global)) = buffer_parts(ctx, source_ty) else {
        return Err(op_error(
            ctx,
            op,
            format!(
                "source must be a global buffer, found '{}'",
                type_str(ctx, source_ty)
            ),
        ));
    };
    let (dims, elem) = global_result(ctx, op)?;
    if elem != source_elem {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result element type '{}' differs from the source's '{}'",
                type_str(ctx, elem),
                type_str(ctx, source_elem)
            ),
        ));
    }
    let count = |d: &[i64]| {
        d.iter().try_fold(1i64, |n, &x| {
            (x != dlc_ir::DYNAMIC).then(|| n.checked_mul(x)).flatten()
        })
    };
    if let (Some(a), Some(b)) = (count(&source_dims), count(&dims)) {
        if a != b {
            return Err(op_error(
                ctx,
                op,
                format!("the source has {a} elements but the result {b}"),
            ));
        }
    }
    check_dynamic_sizes(ctx, op, &dims, &operands[1..])
}

pub(crate) fn verify_view(ctx: &Context, op: Op) -> VResult {
    check_host_only(ctx, op)?;
    let operands = ctx.operands(op);
    if operands.len() < 2 {
        return Err(op_error(
            ctx,
            op,
            "expects an arena and a byte offset operand",
        ));
    }
    let arena_ty = ctx.value_type(operands[0]);
    let is_arena = matches!(
        buffer_parts(ctx, arena_ty),
        Some((dims, elem, MemorySpace::Global)) if dims.len() == 1 && elem == Type::I8
    );
    if !is_arena {
        return Err(op_error(
            ctx,
            op,
            format!(
                "arena must be a 1-D global i8 buffer, found '{}'",
                type_str(ctx, arena_ty)
            ),
        ));
    }
    check_index_operands(ctx, op, &operands[1..2], "byte offset")?;
    let (dims, _) = global_result(ctx, op)?;
    check_dynamic_sizes(ctx, op, &dims, &operands[2..])
}

/// Checks that `sizes` are one `index` operand per `?` dim of `dims`, the shape of the buffer
/// `op` makes (`loop.alloc`, `loop.view`, `loop.reshape`).
fn check_dynamic_sizes(ctx: &Context, op: Op, dims: &[i64], sizes: &[Value]) -> VResult {
    let dynamic = dims.iter().filter(|d| **d == dlc_ir::DYNAMIC).count();
    if sizes.len() != dynamic {
        return Err(op_error(
            ctx,
            op,
            format!(
                "expects one size operand per dynamic dimension ({dynamic}), found {}",
                sizes.len()
            ),
        ));
    }
    check_index_operands(ctx, op, sizes, "size operand")
}

// ---------------------------------------------------------------------------------------------
// Host calls: loop.call_if, loop.call_loop (host functions only)

/// The symbol attribute `key` of `op`, or an error saying it is required.
fn callee_symbol(ctx: &Context, op: Op, key: &str) -> Result<Ident, Diagnostic> {
    ctx.attr(op, key)
        .and_then(|a| ctx.attr_as_symbol(a))
        .ok_or_else(|| {
            op_error(
                ctx,
                op,
                format!("requires a '{key}' symbol reference attribute"),
            )
        })
}

/// Whether `ty` is a global buffer of `elem` holding one element: every dim a static 1 (rank 0
/// included), or with `rank0`, no dim at all.
fn is_one_element(ctx: &Context, ty: Type, elem: Type, rank0: bool) -> bool {
    matches!(
        buffer_parts(ctx, ty),
        Some((dims, e, MemorySpace::Global))
            if e == elem && dims.iter().all(|&d| d == 1) && (!rank0 || dims.is_empty())
    )
}

/// Checks that operand `i` of `op`, its `what`, is a one-element global buffer of `elem`.
fn check_one_element(ctx: &Context, op: Op, i: usize, what: &str, elem: Type) -> VResult {
    let Some(&v) = ctx.operands(op).get(i) else {
        return Err(op_error(ctx, op, format!("expects a {what} operand")));
    };
    let ty = ctx.value_type(v);
    if !is_one_element(ctx, ty, elem, false) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "{what} must be a global buffer of one {} element (every dim 1), found '{}'",
                type_str(ctx, elem),
                type_str(ctx, ty)
            ),
        ));
    }
    Ok(())
}

/// The signature of the `func.func` that `callee` names as seen from `op`; `role` says which
/// callee it is in the error.
fn callee_signature(
    ctx: &Context,
    op: Op,
    tables: &mut SymbolTables,
    callee: Ident,
    role: &str,
) -> Result<(Vec<Type>, Vec<Type>), Diagnostic> {
    tables
        .resolve(ctx, op, callee)
        .and_then(|f| ctx.view::<dlc_func::FuncOp>(f))
        .and_then(|f| f.signature(ctx))
        .ok_or_else(|| {
            op_error(
                ctx,
                op,
                format!(
                    "{role} '{}' does not reference a 'func.func'",
                    ctx.ident_str(callee)
                ),
            )
        })
}

/// `loop.call_if`: a host op with both callees and a one-element `i1` condition.
pub(crate) fn verify_call_if(ctx: &Context, op: Op) -> VResult {
    check_host_only(ctx, op)?;
    callee_symbol(ctx, op, "then_callee")?;
    callee_symbol(ctx, op, "else_callee")?;
    check_one_element(ctx, op, 0, "condition", Type::I1)
}

/// Both callees of a `loop.call_if` are `func.func`s taking the types of its arguments and
/// returning the types of its results, up to `?` dims ([`compatible`]).
pub(crate) fn verify_call_if_symbols(ctx: &Context, op: Op, tables: &mut SymbolTables) -> VResult {
    let args: Vec<Type> = ctx
        .operands(op)
        .iter()
        .skip(1)
        .map(|&v| ctx.value_type(v))
        .collect();
    let results = ctx.result_types(op);
    for (key, role) in [
        ("then_callee", "then callee"),
        ("else_callee", "else callee"),
    ] {
        let callee = callee_symbol(ctx, op, key)?;
        let name = ctx.ident_str(callee);
        let (inputs, outputs) = callee_signature(ctx, op, tables, callee, role)?;
        if inputs.len() != args.len() {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "passes {} arguments but {role} '{name}' takes {}",
                    args.len(),
                    inputs.len()
                ),
            ));
        }
        for (i, (&a, &p)) in args.iter().zip(&inputs).enumerate() {
            if !compatible(ctx, a, p) {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "argument #{i} of type '{}' does not fit parameter #{i} of {role} '{name}' ('{}')",
                        type_str(ctx, a),
                        type_str(ctx, p)
                    ),
                ));
            }
        }
        if outputs.len() != results.len() {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "has {} results but {role} '{name}' returns {}",
                    results.len(),
                    outputs.len()
                ),
            ));
        }
        for (i, (&r, &o)) in results.iter().zip(&outputs).enumerate() {
            if !compatible(ctx, r, o) {
                return Err(op_error(
                    ctx,
                    op,
                    format!(
                        "result #{i} of type '{}' does not fit result #{i} of {role} '{name}' ('{}')",
                        type_str(ctx, r),
                        type_str(ctx, o)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `loop.call_loop`: a host op with a callee, a one-element `i64` trip count and `i1`
/// condition, a `num_carried` in range, a result of the same type for each carried value, and
/// a global buffer of rank one or more for each scan output.
pub(crate) fn verify_call_loop(ctx: &Context, op: Op) -> VResult {
    check_host_only(ctx, op)?;
    callee_symbol(ctx, op, "callee")?;
    let operands = ctx.operands(op);
    if operands.len() < 2 {
        return Err(op_error(
            ctx,
            op,
            "expects a trip count and a condition operand",
        ));
    }
    let Some(n) = CallLoopOp(op)
        .num_carried_attr(ctx)
        .and_then(|a| ctx.attr_as_int(a))
    else {
        return Err(op_error(
            ctx,
            op,
            "requires an integer attribute 'num_carried'",
        ));
    };
    let after = operands.len() - 2;
    let Some(n) = usize::try_from(n).ok().filter(|&n| n <= after) else {
        return Err(op_error(
            ctx,
            op,
            format!(
                "num_carried {n} is out of range: the op has {after} operands after the trip count and condition"
            ),
        ));
    };
    check_one_element(ctx, op, 0, "trip count", Type::I64)?;
    check_one_element(ctx, op, 1, "condition", Type::I1)?;
    let results = ctx.result_types(op);
    if results.len() < n {
        return Err(op_error(
            ctx,
            op,
            format!(
                "has {} results but {n} carried values, each of which is a result",
                results.len()
            ),
        ));
    }
    for (k, (&r, &v)) in results.iter().zip(&operands[2..2 + n]).enumerate() {
        let t = ctx.value_type(v);
        if !compatible(ctx, r, t) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "result #{k} of type '{}' does not fit the type '{}' of carried value #{k}",
                    type_str(ctx, r),
                    type_str(ctx, t)
                ),
            ));
        }
    }
    for (k, &r) in results[n..].iter().enumerate() {
        let ok = matches!(buffer_parts(ctx, r), Some((dims, _, MemorySpace::Global)) if !dims.is_empty());
        if !ok {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "scan output #{k} (result #{}) must be a global buffer of rank 1 or more, found '{}'",
                    n + k,
                    type_str(ctx, r)
                ),
            ));
        }
    }
    Ok(())
}

/// The body of a `loop.call_loop` is a `func.func` of signature `(iteration: i64 buffer,
/// condition: i1 buffer, carried..., captures...) -> (condition: i1 buffer, carried...,
/// scan elements...)`, the two buffers of rank 0, the carried and captured types the
/// op's, and each scan output of the op a stack of its scan element (see [`stacks`]).
pub(crate) fn verify_call_loop_symbols(
    ctx: &Context,
    op: Op,
    tables: &mut SymbolTables,
) -> VResult {
    let callee = callee_symbol(ctx, op, "callee")?;
    let name = ctx.ident_str(callee);
    let (inputs, outputs) = callee_signature(ctx, op, tables, callee, "loop body")?;
    let call = CallLoopOp(op);
    // Checked by `verify_call_loop`, which runs first.
    let Some(n) = call.num_carried(ctx) else {
        return Ok(());
    };
    let carried: Vec<Type> = call
        .carried(ctx)
        .iter()
        .map(|&v| ctx.value_type(v))
        .collect();
    let captures: Vec<Type> = call
        .captures(ctx)
        .iter()
        .map(|&v| ctx.value_type(v))
        .collect();
    if inputs.len() != 2 + n + captures.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "loop body '{name}' takes {} arguments but the op passes {} (the iteration number, the condition, {n} carried and {} captured values)",
                inputs.len(),
                2 + n + captures.len(),
                captures.len()
            ),
        ));
    }
    let roles = [
        (Type::I64, "parameter #0 (the iteration number)"),
        (Type::I1, "parameter #1 (the condition)"),
    ];
    for (&ty, (elem, role)) in inputs.iter().zip(roles) {
        if !is_one_element(ctx, ty, elem, true) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "{role} of loop body '{name}' must be '!loop.buffer<{}, global>', found '{}'",
                    type_str(ctx, elem),
                    type_str(ctx, ty)
                ),
            ));
        }
    }
    let passed = carried
        .iter()
        .map(|t| (t, "carried"))
        .chain(captures.iter().map(|t| (t, "captured")));
    for (i, ((&t, what), &p)) in passed.zip(&inputs[2..]).enumerate() {
        if !compatible(ctx, t, p) {
            let k = if i < n { i } else { i - n };
            return Err(op_error(
                ctx,
                op,
                format!(
                    "{what} value #{k} of type '{}' does not fit parameter #{} of loop body '{name}' ('{}')",
                    type_str(ctx, t),
                    i + 2,
                    type_str(ctx, p)
                ),
            ));
        }
    }
    let results = ctx.result_types(op);
    if outputs.len() != 1 + results.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "loop body '{name}' returns {} results but must return {}: the next condition, then one value per result of the op",
                outputs.len(),
                1 + results.len()
            ),
        ));
    }
    if !is_one_element(ctx, outputs[0], Type::I1, true) {
        return Err(op_error(
            ctx,
            op,
            format!(
                "result #0 (the next condition) of loop body '{name}' must be '!loop.buffer<i1, global>', found '{}'",
                type_str(ctx, outputs[0])
            ),
        ));
    }
    for (k, (&t, &o)) in carried.iter().zip(&outputs[1..]).enumerate() {
        if !compatible(ctx, t, o) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "result #{} of loop body '{name}' ('{}') does not fit the type '{}' of carried value #{k}",
                    k + 1,
                    type_str(ctx, o),
                    type_str(ctx, t)
                ),
            ));
        }
    }
    for (k, (&stacked, &elem)) in results[n..].iter().zip(&outputs[1 + n..]).enumerate() {
        if !stacks(ctx, stacked, elem) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "scan output #{k} (result #{}) of type '{}' is not a stack of result #{} of loop body '{name}' ('{}'): it must be a global buffer of that element type with one more leading dim, the other dims equal (or '?' on either side)",
                    n + k,
                    type_str(ctx, stacked),
                    1 + n + k,
                    type_str(ctx, elem)
                ),
            ));
        }
    }
    Ok(())
}

/// Whether a buffer of type `a` may stand where type `b` is declared across a call: the same
/// element type, memory space and rank, and equal dims where both are static (a `?` on either
/// side is checked at run time, as a launch's `?` operand for a static kernel dim is). Other
/// types must be equal.
fn compatible(ctx: &Context, a: Type, b: Type) -> bool {
    match (buffer_parts(ctx, a), buffer_parts(ctx, b)) {
        (Some((a_dims, a_elem, a_space)), Some((b_dims, b_elem, b_space))) => {
            a_elem == b_elem
                && a_space == b_space
                && a_dims.len() == b_dims.len()
                && a_dims
                    .iter()
                    .zip(&b_dims)
                    .all(|(&x, &y)| x == y || x == dlc_ir::DYNAMIC || y == dlc_ir::DYNAMIC)
        }
        _ => a == b,
    }
}

/// Whether the global buffer type `stacked` can hold buffers of type `elem` stacked along a
/// new leading axis: the same element type, one more dim, and the trailing dims equal to
/// `elem`'s where both are static.
fn stacks(ctx: &Context, stacked: Type, elem: Type) -> bool {
    match (buffer_parts(ctx, stacked), buffer_parts(ctx, elem)) {
        (
            Some((s_dims, s_elem, MemorySpace::Global)),
            Some((e_dims, e_elem, MemorySpace::Global)),
        ) => {
            s_elem == e_elem
                && s_dims.len() == e_dims.len() + 1
                && s_dims[1..]
                    .iter()
                    .zip(&e_dims)
                    .all(|(&s, &e)| s == e || s == dlc_ir::DYNAMIC || e == dlc_ir::DYNAMIC)
        }
        _ => false,
    }
}
