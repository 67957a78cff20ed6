//! The graph ops' verifier, on the shape rules of `infer.rs`, and the tensor-type helpers both
//! share.
//!
//! The verifier asks each op's [`InferShapes`] for its result type and compares the declared
//! one. Static checks treat `?` as unknown: two dims are compatible when equal or either is
//! `?`, and a rule that needs a `?` dim's value gives `?`. The declared result type must be *compatible*
//! with the inferred one (same element type and rank, each dim equal or either `?`), so a result
//! may be more static than inference can prove, as in MLIR.
//!
//! A few ops' results are not determined by their operands (`graph.cast`'s dtype, the shapes of
//! `graph.constant`, `graph.iota` and `graph.fill`); the verifier checks those directly.

use crate::infer::{check_axis, operand, InferShapes};
use crate::ops::{DTypeClass, Family, GraphOp, YieldOp};
use dlc_ir::{
    op_error, AttrKind, Attribute, Context, Diagnostic, NamedAttr, Op, Printer, Type, TypeKind,
    DYNAMIC,
};

/// A ranked tensor type taken apart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorType {
    /// Dims; [`DYNAMIC`] for `?`.
    pub shape: Vec<i64>,
    /// The element type (one of the graph dtypes).
    pub element: Type,
}

impl TensorType {
    /// Interns `tensor<shape x element>`.
    pub fn to_type(&self, ctx: &mut Context) -> Type {
        ctx.tensor_type(&self.shape, self.element)
    }

    pub(crate) fn rank(&self) -> usize {
        self.shape.len()
    }
}

/// The parts of `ty` if it is a ranked tensor.
pub fn tensor_parts(ctx: &Context, ty: Type) -> Option<TensorType> {
    match ctx.type_kind(ty) {
        TypeKind::Tensor { shape, element } => Some(TensorType {
            shape: shape.to_vec(),
            element: *element,
        }),
        _ => None,
    }
}

/// True if `ty` is one of the graph dtypes: f16, bf16, f32, f64, i1, the signed integers i8,
/// i16, i32, i64 and the unsigned ones ui8, ui16, ui32, ui64.
pub fn is_graph_dtype(ty: Type) -> bool {
    is_float(ty) || is_integer(ty) || ty == Type::I1
}

fn is_float(ty: Type) -> bool {
    [Type::F16, Type::BF16, Type::F32, Type::F64].contains(&ty)
}

/// True for the graph's integer dtypes: `iN` (signed) and `uiN` (unsigned), N in 8, 16, 32, 64.
pub fn is_integer(ty: Type) -> bool {
    [
        Type::I8,
        Type::I16,
        Type::I32,
        Type::I64,
        Type::UI8,
        Type::UI16,
        Type::UI32,
        Type::UI64,
    ]
    .contains(&ty)
}

/// True for the graph's unsigned integer dtypes, `ui8` .. `ui64`.
pub fn is_unsigned(ty: Type) -> bool {
    [Type::UI8, Type::UI16, Type::UI32, Type::UI64].contains(&ty)
}

/// The width in bits of a graph dtype.
fn bit_width(ctx: &Context, ty: Type) -> u32 {
    match (ctx.float_kind(ty), ctx.any_integer(ty)) {
        (Some(kind), _) => kind.width(),
        (None, Some((width, _))) => width,
        (None, None) => 0,
    }
}

impl DTypeClass {
    /// True if element type `ty` belongs to the class.
    pub fn contains(self, ty: Type) -> bool {
        let int = is_integer(ty);
        match self {
            DTypeClass::Float => is_float(ty),
            DTypeClass::Numeric => is_float(ty) || int,
            DTypeClass::IntOrBool => int || ty == Type::I1,
            DTypeClass::Integer => int,
            DTypeClass::Any => is_graph_dtype(ty),
        }
    }

    pub(crate) fn description(self) -> &'static str {
        match self {
            DTypeClass::Float => "a tensor of f16, bf16, f32 or f64 values",
            DTypeClass::Numeric => {
                "a tensor of f16, bf16, f32, f64, i8, i16, i32, i64, ui8, ui16, ui32 or ui64 values"
            }
            DTypeClass::IntOrBool => {
                "a tensor of i1, i8, i16, i32, i64, ui8, ui16, ui32 or ui64 values"
            }
            DTypeClass::Integer => "a tensor of i8, i16, i32, i64, ui8, ui16, ui32 or ui64 values",
            DTypeClass::Any => {
                "a tensor of f16, bf16, f32, f64, i1, i8, i16, i32, i64, ui8, ui16, ui32 or ui64 values"
            }
        }
    }
}

pub(crate) fn type_str(ctx: &Context, ty: Type) -> String {
    Printer::new(ctx).type_to_string(ty)
}

/// `4x?x8`, for messages.
pub fn shape_str(shape: &[i64]) -> String {
    if shape.is_empty() {
        return "a scalar".to_string();
    }
    shape
        .iter()
        .map(|d| dim_str(*d))
        .collect::<Vec<_>>()
        .join("x")
}

pub(crate) fn dim_str(d: i64) -> String {
    if d == DYNAMIC {
        "?".to_string()
    } else {
        d.to_string()
    }
}

/// True if two dims may be equal: equal, or either is `?`.
pub fn dims_compatible(a: i64, b: i64) -> bool {
    a == b || a == DYNAMIC || b == DYNAMIC
}

/// The more static of two compatible dims.
pub(crate) fn meet(a: i64, b: i64) -> i64 {
    if a == DYNAMIC {
        b
    } else {
        a
    }
}

/// True if `declared` may hold a value of `inferred`: same element type, same rank, and each dim
/// compatible.
pub fn types_compatible(declared: &TensorType, inferred: &TensorType) -> bool {
    declared.element == inferred.element
        && declared.rank() == inferred.rank()
        && declared
            .shape
            .iter()
            .zip(&inferred.shape)
            .all(|(a, b)| dims_compatible(*a, *b))
}

// ---------------------------------------------------------------------------------------------
// Attributes.

/// Typed access to an op's attribute list, with messages naming the attribute.
pub(crate) struct Attrs<'a> {
    ctx: &'a Context,
    attrs: &'a [NamedAttr],
}

impl<'a> Attrs<'a> {
    pub(crate) fn new(ctx: &'a Context, attrs: &'a [NamedAttr]) -> Self {
        Attrs { ctx, attrs }
    }

    pub(crate) fn get(&self, name: &str) -> Option<Attribute> {
        self.attrs
            .iter()
            .find(|a| self.ctx.ident_str(a.name) == name)
            .map(|a| a.value)
    }

    pub(crate) fn int(&self, name: &str) -> Result<Option<i64>, String> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        match self.ctx.attr_kind(a) {
            AttrKind::Integer { value, ty } if *ty != Type::I1 => i64::try_from(*value)
                .map(Some)
                .map_err(|_| format!("attribute '{name}' does not fit in 64 bits")),
            _ => Err(format!("attribute '{name}' must be an integer attribute")),
        }
    }

    pub(crate) fn req_int(&self, name: &str) -> Result<i64, String> {
        self.int(name)?
            .ok_or_else(|| format!("requires integer attribute '{name}'"))
    }

    pub(crate) fn array(&self, name: &str) -> Result<Option<Vec<i64>>, String> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        match self.ctx.attr_kind(a) {
            AttrKind::DenseArray { element, values } if *element == Type::I64 => {
                Ok(Some(values.to_vec()))
            }
            _ => Err(format!(
                "attribute '{name}' must be an i64 array attribute (array<i64: ...>)"
            )),
        }
    }

    pub(crate) fn req_array(&self, name: &str) -> Result<Vec<i64>, String> {
        self.array(name)?
            .ok_or_else(|| format!("requires attribute '{name}' (array<i64: ...>)"))
    }

    /// A flag: `true`/`false` or a unit attribute (true); absent is false.
    pub(crate) fn flag(&self, name: &str) -> Result<bool, String> {
        let Some(a) = self.get(name) else {
            return Ok(false);
        };
        match self.ctx.attr_kind(a) {
            AttrKind::Integer { value, ty } if *ty == Type::I1 => Ok(*value != 0),
            AttrKind::Unit => Ok(true),
            _ => Err(format!("attribute '{name}' must be a bool attribute")),
        }
    }

    pub(crate) fn float(&self, name: &str) -> Result<Option<f64>, String> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        self.ctx
            .attr_as_float(a)
            .map(Some)
            .ok_or_else(|| format!("attribute '{name}' must be a float attribute"))
    }

    pub(crate) fn string(&self, name: &str) -> Result<Option<&'a str>, String> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        self.ctx
            .attr_as_str(a)
            .map(Some)
            .ok_or_else(|| format!("attribute '{name}' must be a string attribute"))
    }
}

/// The six comparison predicates of `graph.cmp`.
pub const PREDICATES: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];

/// Checks that a scalar attribute (`value` of pad/fill) can be an element of type `elem`.
pub(crate) fn check_scalar_for(
    ctx: &Context,
    name: &str,
    attr: Attribute,
    elem: Type,
) -> Result<(), String> {
    let ok = match ctx.attr_kind(attr) {
        AttrKind::Float { .. } => is_float(elem),
        AttrKind::Integer { ty, .. } => !is_float(elem) && *ty != Type::INDEX,
        _ => false,
    };
    if ok {
        return Ok(());
    }
    Err(format!(
        "attribute '{name}' must be {} attribute for element type '{}'",
        if is_float(elem) {
            "a float"
        } else {
            "an integer"
        },
        type_str(ctx, elem)
    ))
}

// ---------------------------------------------------------------------------------------------
// The verifier.

/// Verifies graph op `T` (the `verify` hook of every graph `OpDef`).
pub(crate) fn verify<T: GraphOp>(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    verify_family(ctx, op, T::FAMILY)
}

/// Verifies an op of family `fam`.
fn verify_family(ctx: &Context, op: Op, fam: Family) -> Result<(), Diagnostic> {
    let err = |m: String| op_error(ctx, op, m);
    match fam {
        Family::Fusion => return verify_fusion(ctx, op),
        Family::If => return crate::control::verify_if(ctx, op),
        Family::Loop => return crate::control::verify_loop(ctx, op),
        Family::Yield => return Ok(()),
        Family::Dim => return verify_dim(ctx, op).map_err(err),
        Family::ReadSize => return verify_read_size(ctx, op).map_err(err),
        Family::Rnn => return crate::recurrence::verify_rnn(ctx, op).map_err(err),
        _ => {}
    }
    let operands: Vec<Type> = ctx
        .operands(op)
        .iter()
        .map(|v| ctx.value_type(*v))
        .collect();
    // Operands first: their errors explain a wrong result better than the result's would.
    // The rule is the op's `InferShapes` implementation, which every graph op's definition
    // attaches (an external model may replace it).
    let rule = match fam {
        Family::Cast | Family::Constant | Family::Iota | Family::Fill => None,
        _ => ctx.interface::<dyn InferShapes>(op),
    };
    let inferred = match rule {
        Some(rule) => Some(rule.infer(ctx, &operands, ctx.attrs(op)).map_err(err)?),
        None => None,
    };
    let result_ty = ctx.value_type(ctx.result(op, 0));
    let Some(result) = tensor_parts(ctx, result_ty).filter(|t| is_graph_dtype(t.element)) else {
        return Err(err(format!(
            "result #0 must be {}, but got '{}'",
            DTypeClass::Any.description(),
            type_str(ctx, result_ty)
        )));
    };
    let attrs = Attrs::new(ctx, ctx.attrs(op));
    match fam {
        Family::Cast => {
            let x = operand(ctx, &operands, 0, DTypeClass::Any).map_err(err)?;
            let same_shape = x.rank() == result.rank()
                && x.shape
                    .iter()
                    .zip(&result.shape)
                    .all(|(a, b)| dims_compatible(*a, *b));
            if !same_shape {
                return Err(err(format!(
                    "result shape {} differs from the operand shape {}",
                    shape_str(&result.shape),
                    shape_str(&x.shape)
                )));
            }
            if ctx.view::<crate::ops::BitcastOp>(op).is_some() {
                let (from, to) = (bit_width(ctx, x.element), bit_width(ctx, result.element));
                if from != to || x.element == Type::I1 || result.element == Type::I1 {
                    return Err(err(format!(
                        "cannot bit cast '{}' to '{}': the element types must have the same \
                         width and not be i1",
                        type_str(ctx, x.element),
                        type_str(ctx, result.element)
                    )));
                }
            }
            Ok(())
        }
        Family::Constant => {
            let Some(value) = attrs.get("value") else {
                return Err(err("requires attribute 'value'".to_string()));
            };
            if !matches!(ctx.attr_kind(value), AttrKind::DenseElements(_)) {
                return Err(err(
                    "attribute 'value' must be a dense elements attribute".to_string()
                ));
            }
            if ctx.attr_type(value) != Some(result_ty) {
                return Err(err(format!(
                    "the type of attribute 'value' ('{}') differs from the result type '{}'",
                    ctx.attr_type(value)
                        .map_or(String::new(), |t| type_str(ctx, t)),
                    type_str(ctx, result_ty)
                )));
            }
            Ok(())
        }
        Family::Iota => {
            let axis = attrs.req_int("axis").map_err(err)?;
            check_axis(axis, result.rank(), "the result").map_err(err)?;
            if !DTypeClass::Numeric.contains(result.element) {
                return Err(err(format!(
                    "result #0 must be {}, but got '{}'",
                    DTypeClass::Numeric.description(),
                    type_str(ctx, result_ty)
                )));
            }
            check_size_operands(ctx, &operands, &result).map_err(err)
        }
        Family::Fill => {
            let Some(value) = attrs.get("value") else {
                return Err(err("requires attribute 'value'".to_string()));
            };
            check_scalar_for(ctx, "value", value, result.element).map_err(err)?;
            check_size_operands(ctx, &operands, &result).map_err(err)
        }
        _ => {
            let Some(inferred) = inferred else {
                return Ok(());
            };
            if !types_compatible(&result, &inferred) {
                return Err(err(format!(
                    "result type '{}' is incompatible with the inferred type '{}'",
                    type_str(ctx, result_ty),
                    inferred_str(ctx, &inferred)
                )));
            }
            Ok(())
        }
    }
}

fn inferred_str(ctx: &Context, t: &TensorType) -> String {
    let elem = type_str(ctx, t.element);
    if t.shape.is_empty() {
        format!("tensor<{elem}>")
    } else {
        format!("tensor<{}x{elem}>", shape_str(&t.shape))
    }
}

/// Checks that `operands` are one `index` per `?` dim of `result` (the sizes of a fill or
/// iota).
fn check_size_operands(
    ctx: &Context,
    operands: &[Type],
    result: &TensorType,
) -> Result<(), String> {
    let dynamic = result.shape.iter().filter(|d| **d == DYNAMIC).count();
    if operands.len() != dynamic {
        return Err(format!(
            "expects one index operand per '?' dim of the result ({dynamic}), but has {}",
            operands.len()
        ));
    }
    if let Some(i) = operands.iter().position(|t| *t != Type::INDEX) {
        return Err(format!(
            "operand #{i} must be 'index', but got '{}'",
            type_str(ctx, operands[i])
        ));
    }
    Ok(())
}

/// `graph.read_size`: a one-element integer tensor, an `index` result.
fn verify_read_size(ctx: &Context, op: Op) -> Result<(), String> {
    let ty = ctx.value_type(ctx.operand(op, 0));
    let x = operand(ctx, &[ty], 0, DTypeClass::Integer)?;
    if x.shape.iter().any(|&d| d != 1) {
        return Err(format!(
            "operand #0 must hold one element, but has shape {}",
            shape_str(&x.shape)
        ));
    }
    index_result(ctx, op)
}

fn verify_dim(ctx: &Context, op: Op) -> Result<(), String> {
    let ty = ctx.value_type(ctx.operand(op, 0));
    let x = operand(ctx, &[ty], 0, DTypeClass::Any)?;
    let axis = Attrs::new(ctx, ctx.attrs(op)).req_int("axis")?;
    check_axis(axis, x.rank(), "operand #0")?;
    index_result(ctx, op)
}

/// Checks that the result of `op` is an `index`.
fn index_result(ctx: &Context, op: Op) -> Result<(), String> {
    let result = ctx.value_type(ctx.result(op, 0));
    if result != Type::INDEX {
        return Err(format!(
            "result #0 must be 'index', but got '{}'",
            type_str(ctx, result)
        ));
    }
    Ok(())
}

fn verify_fusion(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let region = ctx.region(op, 0);
    let Some(&entry) = ctx.blocks(region).first() else {
        return Err(op_error(ctx, op, "expects a body with one block"));
    };
    let args = ctx.block_args(entry);
    let operands = ctx.operands(op);
    if args.len() != operands.len() {
        return Err(op_error(
            ctx,
            op,
            format!(
                "has {} operands, but its body takes {} arguments",
                operands.len(),
                args.len()
            ),
        ));
    }
    for (i, (a, v)) in args.iter().zip(operands).enumerate() {
        if ctx.value_type(*a) != ctx.value_type(*v) {
            return Err(op_error(
                ctx,
                op,
                format!(
                    "body argument #{i} has type '{}', but operand #{i} has type '{}'",
                    type_str(ctx, ctx.value_type(*a)),
                    type_str(ctx, ctx.value_type(*v))
                ),
            ));
        }
    }
    let Some(term) = ctx
        .last_op(entry)
        .filter(|t| ctx.view::<YieldOp>(*t).is_some())
    else {
        return Err(op_error(
            ctx,
            op,
            "expects its body to end with 'graph.yield'",
        ));
    };
    let yielded = ctx.operands(term);
    if yielded.len() != ctx.num_results(op) {
        return Err(op_error(
            ctx,
            term,
            format!(
                "yields {} values, but the parent 'graph.fusion' has {} results",
                yielded.len(),
                ctx.num_results(op)
            ),
        ));
    }
    for (i, (v, r)) in yielded.iter().zip(ctx.results(op)).enumerate() {
        if ctx.value_type(*v) != ctx.value_type(r) {
            return Err(op_error(
                ctx,
                term,
                format!(
                    "operand #{i} has type '{}', but result #{i} of the parent 'graph.fusion' has type '{}'",
                    type_str(ctx, ctx.value_type(*v)),
                    type_str(ctx, ctx.value_type(r))
                ),
            ));
        }
    }
    Ok(())
}
