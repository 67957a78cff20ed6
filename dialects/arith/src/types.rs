//! The type classes arith ops are constrained by, as MLIR's ODS names them.
//!
//! Every arith op works on scalars and, elementwise, on vectors and tensors of them; the classes
//! here ("signless-integer-like", "floating-point-like", "bool-like", ...) look through the
//! container to the element type, and their names are the words the verifier puts into its
//! messages, so they read like mlir-opt's.

use dlc_ir::{Context, Type, TypeKind, DYNAMIC};

/// A constraint on an operand or result type.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum TypeClass {
    /// `iN` or `index`, or a vector/tensor of them.
    SignlessIntegerLike,
    /// `iN` (not `index`), or a vector/tensor of them.
    FixedWidthIntegerLike,
    /// A float, or a vector/tensor of floats.
    FloatLike,
    /// `i1`, or a vector/tensor of `i1`.
    BoolLike,
    /// [`TypeClass::SignlessIntegerLike`], for `index_cast` (whose MLIR constraint also names
    /// memrefs).
    IndexCastable,
    /// `iN` or a float, or a vector/tensor of them, for `bitcast`.
    IntOrFloatLike,
}

impl TypeClass {
    /// MLIR's description of the class, as used in "must be ..., but got ..." messages.
    pub(crate) fn description(self) -> &'static str {
        match self {
            TypeClass::SignlessIntegerLike => "signless-integer-like",
            TypeClass::FixedWidthIntegerLike => "signless-fixed-width-integer-like",
            TypeClass::FloatLike => "floating-point-like",
            TypeClass::BoolLike => "bool-like",
            TypeClass::IndexCastable => "signless-integer-like or memref of signless-integer",
            TypeClass::IntOrFloatLike => {
                "signless-integer-or-float-like or memref of signless-integer or float"
            }
        }
    }

    /// True if `ty` belongs to the class.
    pub(crate) fn contains(self, ctx: &Context, ty: Type) -> bool {
        let elem = element_type(ctx, ty);
        match (self, ctx.type_kind(elem)) {
            (TypeClass::BoolLike, _) => elem == Type::I1,
            (
                TypeClass::SignlessIntegerLike | TypeClass::IndexCastable,
                TypeKind::Integer { .. } | TypeKind::Index,
            ) => true,
            (TypeClass::FixedWidthIntegerLike, TypeKind::Integer { .. }) => true,
            (TypeClass::FloatLike, TypeKind::Float(_)) => true,
            (TypeClass::IntOrFloatLike, TypeKind::Integer { .. } | TypeKind::Float(_)) => true,
            _ => false,
        }
    }
}

/// The element type of a vector (fixed or scalable) or tensor, or `ty` itself for a scalar.
pub(crate) fn element_type(ctx: &Context, ty: Type) -> Type {
    match ctx.type_kind(ty) {
        TypeKind::ScalableVector { element, .. } => *element,
        _ => ctx.element_type(ty),
    }
}

/// `ty` with its element type replaced by `i1`: `i1` for scalars, `vector<4xi1>` for
/// `vector<4xf32>`, `tensor<?xi1>` for `tensor<?xi32>`.
pub fn bool_like(ctx: &mut Context, ty: Type) -> Type {
    match ctx.type_kind(ty).clone() {
        TypeKind::Vector { shape, .. } => ctx.vector_type(&shape, Type::I1),
        TypeKind::Tensor { shape, .. } => ctx.tensor_type(&shape, Type::I1),
        _ => Type::I1,
    }
}

/// The width in bits of an integer or float element type (`index` has none).
pub(crate) fn bit_width(ctx: &Context, elem: Type) -> Option<u32> {
    match ctx.type_kind(elem) {
        TypeKind::Integer { width } => Some(*width),
        TypeKind::Float(k) => Some(k.width()),
        _ => None,
    }
}

/// What holds a type's elements: the type itself (a scalar), a vector (fixed or with scalable
/// dimensions, flagged per dimension) or a tensor.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Container<'a> {
    Scalar,
    Vector(&'a [i64]),
    ScalableVector(&'a [i64], &'a [bool]),
    Tensor(&'a [i64]),
}

impl<'a> Container<'a> {
    /// The container of `ty`.
    pub(crate) fn of(ctx: &'a Context, ty: Type) -> Self {
        match ctx.type_kind(ty) {
            TypeKind::Vector { shape, .. } => Container::Vector(shape),
            TypeKind::ScalableVector {
                shape, scalable, ..
            } => Container::ScalableVector(shape, scalable),
            TypeKind::Tensor { shape, .. } => Container::Tensor(shape),
            _ => Container::Scalar,
        }
    }

    /// The shape, or `None` for a scalar.
    pub(crate) fn shape(self) -> Option<&'a [i64]> {
        match self {
            Container::Scalar => None,
            Container::Vector(s) | Container::ScalableVector(s, _) | Container::Tensor(s) => {
                Some(s)
            }
        }
    }

    /// Which dimensions are scalable (none for fixed vectors and tensors).
    fn scalable_dims(self) -> Option<&'a [bool]> {
        match self {
            Container::ScalableVector(_, scalable) => Some(scalable),
            _ => None,
        }
    }

    /// The tensor shape, or the empty shape for anything else: what ODS's
    /// `SameInputOutputTensorDims` compares, exactly (a dynamic dimension matches only itself).
    pub(crate) fn tensor_dims(self) -> &'a [i64] {
        match self {
            Container::Tensor(s) => s,
            _ => &[],
        }
    }

    /// True if both are scalars or both have the same rank and every dimension pair is equal or
    /// dynamic, and the same dimensions are scalable (MLIR's `verifyCompatibleShapes`; the
    /// container kind is not compared otherwise).
    pub(crate) fn compatible_shape(self, other: Container<'_>) -> bool {
        let all_fixed = |s: Option<&[bool]>| s.is_none_or(|s| !s.contains(&true));
        let (a, b) = (self.scalable_dims(), other.scalable_dims());
        if a != b && !(all_fixed(a) && all_fixed(b)) {
            return false;
        }
        match (self.shape(), other.shape()) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x == y || *x == DYNAMIC || *y == DYNAMIC)
            }
            _ => false,
        }
    }
}
