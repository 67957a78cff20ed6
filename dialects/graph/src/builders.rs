//! Building graph ops from Rust, for passes, decompositions and generators.
//!
//! Builders infer the result type with the op's [`InferShapes`] (for graph ops, the verifier's
//! rules: [`crate::infer_result_type`]; an op of another dialect that implements it too), so
//! a built op verifies by construction, and shape errors come back as diagnostics at the given
//! location instead of producing invalid IR. Ops whose result type is not determined by their
//! operands (`graph.cast`, `graph.constant`, `graph.fill`, `graph.iota`) take it explicitly.

use crate::infer::{infer, InferShapes};
use dlc_ir::{
    AttrKind, Attribute, Context, DenseValue, Diagnostic, InsertPoint, Location, NamedAttr, Op,
    OpSpec, Type, Value,
};

/// An `array<i64: ...>` attribute.
pub fn i64_array(ctx: &mut Context, values: &[i64]) -> Attribute {
    ctx.intern_attr(AttrKind::DenseArray {
        element: Type::I64,
        values: values.into(),
    })
}

/// An `i64` integer attribute (axes, groups).
pub fn i64_attr(ctx: &mut Context, value: i64) -> Attribute {
    ctx.integer_attr(value as i128, Type::I64)
}

pub(crate) fn named(ctx: &mut Context, attrs: &[(&str, Attribute)]) -> Vec<NamedAttr> {
    let mut list = Vec::with_capacity(attrs.len());
    for (name, value) in attrs {
        let name = ctx.ident(name);
        ctx.insert_sorted(
            &mut list,
            NamedAttr {
                name,
                value: *value,
            },
        );
    }
    list
}

/// Builds graph op `name` on `operands` with `attrs`, its result type inferred. Errors are the
/// verifier's, at `loc`.
pub fn build(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    operands: &[Value],
    attrs: &[(&str, Attribute)],
    loc: Location,
) -> Result<Op, Diagnostic> {
    let list = named(ctx, attrs);
    let types: Vec<Type> = operands.iter().map(|v| ctx.value_type(*v)).collect();
    // The op's `InferShapes`, which every graph op has and another dialect's op may have.
    let rule = ctx
        .op_def_by_name(name)
        .and_then(|def| def.interfaces.get::<dyn InferShapes>());
    let inferred = match rule {
        Some(rule) => rule.infer(ctx, &types, &list),
        None => infer(ctx, name, &types, &list),
    }
    .map_err(|m| Diagnostic::error(loc, format!("'{name}' op {m}")))?;
    let ty = inferred.to_type(ctx);
    Ok(build_with_type(ctx, at, name, operands, attrs, ty, loc))
}

/// Builds graph op `name` with an explicit result type (not checked; verify afterwards).
pub fn build_with_type(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    operands: &[Value],
    attrs: &[(&str, Attribute)],
    result: Type,
    loc: Location,
) -> Op {
    let list = named(ctx, attrs);
    let mut spec = OpSpec::new(ctx, name, loc)
        .operands(operands)
        .results(&[result]);
    spec.attrs = list;
    ctx.build(at, spec)
}

fn value_of(ctx: &Context, op: Result<Op, Diagnostic>) -> Result<Value, Diagnostic> {
    op.map(|op| ctx.result(op, 0))
}

/// Builds a unary elementwise op (`graph.exp`, `graph.neg`, ...; also `graph.silu`).
pub fn build_unary(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    x: Value,
    loc: Location,
) -> Result<Value, Diagnostic> {
    let op = build(ctx, at, name, &[x], &[], loc);
    value_of(ctx, op)
}

/// Builds a broadcasting binary op (`graph.add`, `graph.mul`, ...).
pub fn build_binary(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    lhs: Value,
    rhs: Value,
    loc: Location,
) -> Result<Value, Diagnostic> {
    let op = build(ctx, at, name, &[lhs, rhs], &[], loc);
    value_of(ctx, op)
}

/// Builds `graph.cmp` with `predicate` (eq, ne, lt, le, gt, ge).
pub fn build_cmp(
    ctx: &mut Context,
    at: InsertPoint,
    predicate: &str,
    lhs: Value,
    rhs: Value,
    loc: Location,
) -> Result<Value, Diagnostic> {
    let pred = ctx.string_attr(predicate);
    let op = build(
        ctx,
        at,
        "graph.cmp",
        &[lhs, rhs],
        &[("predicate", pred)],
        loc,
    );
    value_of(ctx, op)
}

/// Builds `graph.select`.
pub fn build_select(
    ctx: &mut Context,
    at: InsertPoint,
    cond: Value,
    a: Value,
    b: Value,
    loc: Location,
) -> Result<Value, Diagnostic> {
    let op = build(ctx, at, "graph.select", &[cond, a, b], &[], loc);
    value_of(ctx, op)
}

/// Builds `graph.cast` of `x` to element type `element` (same shape).
pub fn build_cast(
    ctx: &mut Context,
    at: InsertPoint,
    x: Value,
    element: Type,
    loc: Location,
) -> Value {
    let shape = ctx.shape(ctx.value_type(x)).unwrap_or(&[]).to_vec();
    let ty = ctx.tensor_type(&shape, element);
    let op = build_with_type(ctx, at, "graph.cast", &[x], &[], ty, loc);
    ctx.result(op, 0)
}

/// Builds a reduction (`graph.reduce_sum`, ...) over `axes`.
pub fn build_reduce(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    x: Value,
    axes: &[i64],
    keepdim: bool,
    loc: Location,
) -> Result<Value, Diagnostic> {
    let axes = i64_array(ctx, axes);
    let keep = ctx.bool_attr(keepdim);
    let op = build(
        ctx,
        at,
        name,
        &[x],
        &[("axes", axes), ("keepdim", keep)],
        loc,
    );
    value_of(ctx, op)
}

/// Builds `graph.matmul`.
pub fn build_matmul(
    ctx: &mut Context,
    at: InsertPoint,
    a: Value,
    b: Value,
    loc: Location,
) -> Result<Value, Diagnostic> {
    let op = build(ctx, at, "graph.matmul", &[a, b], &[], loc);
    value_of(ctx, op)
}

/// Builds `graph.transpose` with `perm`.
pub fn build_transpose(
    ctx: &mut Context,
    at: InsertPoint,
    x: Value,
    perm: &[i64],
    loc: Location,
) -> Result<Value, Diagnostic> {
    let perm = i64_array(ctx, perm);
    let op = build(ctx, at, "graph.transpose", &[x], &[("perm", perm)], loc);
    value_of(ctx, op)
}

/// Builds `graph.reshape` to `shape` (one entry may be -1).
pub fn build_reshape(
    ctx: &mut Context,
    at: InsertPoint,
    x: Value,
    shape: &[i64],
    loc: Location,
) -> Result<Value, Diagnostic> {
    let shape = i64_array(ctx, shape);
    let op = build(ctx, at, "graph.reshape", &[x], &[("shape", shape)], loc);
    value_of(ctx, op)
}

/// Builds `graph.broadcast_to` the static `shape`.
pub fn build_broadcast_to(
    ctx: &mut Context,
    at: InsertPoint,
    x: Value,
    shape: &[i64],
    loc: Location,
) -> Result<Value, Diagnostic> {
    let shape = i64_array(ctx, shape);
    let op = build(
        ctx,
        at,
        "graph.broadcast_to",
        &[x],
        &[("shape", shape)],
        loc,
    );
    value_of(ctx, op)
}

/// The spec of `graph.constant` holding `value` as a result of type `ty`.
pub fn constant_spec(ctx: &mut Context, value: Attribute, ty: Type, loc: Location) -> OpSpec {
    OpSpec::new(ctx, "graph.constant", loc)
        .attr(ctx, "value", value)
        .results(&[ty])
}

/// Builds `graph.constant` holding the dense attribute `value` (its type is the result type).
pub fn build_constant(
    ctx: &mut Context,
    at: InsertPoint,
    value: Attribute,
    loc: Location,
) -> Value {
    let ty = ctx.attr_type(value).unwrap_or(Type::NONE);
    let spec = constant_spec(ctx, value, ty, loc);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// Builds a splat `graph.constant` of the statically shaped tensor type `ty` (the value is
/// converted to the element type: `Int` for integers, `Float` for floats).
pub fn build_splat(
    ctx: &mut Context,
    at: InsertPoint,
    ty: Type,
    value: DenseValue,
    loc: Location,
) -> Value {
    let is_float = ctx.float_kind(ctx.element_type(ty)).is_some();
    let value = match (value, is_float) {
        (DenseValue::Int(x), true) => DenseValue::Float(x as f64),
        (DenseValue::Float(x), false) => DenseValue::Int(x as i128),
        (v, _) => v,
    };
    let attr = ctx.dense_attr(ty, &[value]);
    build_constant(ctx, at, attr, loc)
}
