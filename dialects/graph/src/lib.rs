//! The `graph` dialect: tensor ops at the level of a model graph (PIR-like): elementwise ops with
//! numpy broadcasting, data movement, reductions, matmul, constants, composite ops (softmax,
//! layer_norm, conv2d, sdpa, ...), the recurrence of LSTM/GRU/RNN layers (`graph.rnn`) and
//! `graph.fusion` to group ops into one kernel.
//!
//! Register it with `ctx.register_dialect(dlc_graph::dialect())` (which registers `func`, whose
//! functions hold graph programs). Every op verifies its operand dtypes and shapes and checks
//! its declared result type against the one its [`InferShapes`] interface infers; builders
//! ([`build_binary`], [`build_reduce`], ...) infer result types the same way
//! ([`infer_result_type`]). Folding (`ctx.fold(op)`, the `canonicalize` pass) evaluates small
//! constants and removes identities; folded constants become `graph.constant`.
//! [`shapes::SymbolicShapes`] tells which `?` dims are provably the same size.
//!
//! Layout: [`ops`] defines each op once (family, traits, folder, decomposition, derivative
//! rule) and lists them
//! in [`GraphOps`], `syntax` the custom text form, [`verify`] shape and dtype inference and the
//! verifier, [`fold`] the folders, `builders` the Rust construction API, [`shapes`] the symbolic
//! shape analysis, [`recurrence`] the attributes and shape rule of `graph.rnn`. The interpreter
//! ([`interp`]), decompositions ([`decompose`]), derivative rules ([`autodiff`]), random
//! program generator ([`generate`]) and Graphviz export ([`dot`]) live in their own modules.
pub mod autodiff;
mod builders;
pub mod control;
pub mod decompose;
pub mod dot;
pub mod fold;
pub mod generate;
pub mod infer;
pub mod interp;
pub mod ops;
pub mod recurrence;
pub mod shapes;
pub mod sym_expr;
mod syntax;
pub mod verify;

pub use builders::{
    build, build_binary, build_broadcast_to, build_cast, build_cmp, build_constant, build_matmul,
    build_reduce, build_reshape, build_select, build_splat, build_transpose, build_unary,
    build_with_type, constant_spec, i64_array, i64_attr,
};
pub use infer::{infer, infer_result_type, InferShapes, SameShape, ShapeRule};
pub use ops::{family, family_of, DTypeClass, Family, GraphOp, GraphOps, Reduction};
pub use verify::{tensor_parts, TensorType};

use dlc_ir::{AttrKind, Attribute, Context, Dialect, Location, OpSpec, Type};

/// The `graph` dialect, ready for [`Context::register_dialect`].
pub fn dialect() -> Dialect {
    let mut dialect = Dialect::new("graph", GraphOps::defs());
    dialect.materialize_constant = Some(materialize_constant);
    dialect.dependencies = vec![dlc_func::dialect];
    dialect
}

/// Builds `graph.constant` for a folded value: a dense constant of tensor type `ty`.
fn materialize_constant(
    ctx: &mut Context,
    value: Attribute,
    ty: Type,
    loc: Location,
) -> Option<OpSpec> {
    let dense = matches!(ctx.attr_kind(value), AttrKind::DenseElements(_));
    (dense && ctx.attr_type(value) == Some(ty)).then(|| constant_spec(ctx, value, ty, loc))
}
