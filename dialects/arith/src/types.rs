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
        let elem = ctx.element_type(ty);
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

/// `ty` with its element type replaced by `i1`: `i1` for scalars, `vector<4xi1>` for
/// `vector<4xf32>`, `vector<[4]xi1>` for `vector<[4]xf32>`, `tensor<?xi1>` for `tensor<?xi32>`.
pub fn bool_like(ctx: &mut Context, ty: Type) -> Type {
    ctx.with_element_type(ty, Type::I1)
}

/// The width in bits of an integer or float element type (`index` has none).
pub(crate) fn bit_width(ctx: &Context, elem: Type) -> Option<u32> {
    match ctx.type_kind(elem) {
        TypeKind::Integer { width } => Some(*width),
        TypeKind::Float(k) => Some(k.width()),
        _ => None,
    }
}

/// What holds a type's elements: the type itself (a scalar), a vector (fixed or scalable) or a
/// tensor.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Container<'a> {
    Scalar,
    /// A vector's shape and whether it is scalable. As in MLIR's shape checks, which of its
    /// dimensions scale is not compared.
    Vector(&'a [i64], bool),
    /// A ranked tensor's shape (its encoding, if any, is not compared).
    Tensor(&'a [i64]),
}

impl<'a> Container<'a> {
    /// The container of `ty`.
    pub(crate) fn of(ctx: &'a Context, ty: Type) -> Self {
        match ctx.type_kind(ty) {
            TypeKind::Vector { shape, .. } => Container::Vector(shape, false),
            TypeKind::ScalableVector { shape, .. } => Container::Vector(shape, true),
            TypeKind::Tensor { shape, .. } | TypeKind::EncodedTensor { shape, .. } => {
                Container::Tensor(shape)
            }
            _ => Container::Scalar,
        }
    }

    /// The shape, or `None` for a scalar.
    pub(crate) fn shape(self) -> Option<&'a [i64]> {
        match self {
            Container::Scalar => None,
            Container::Vector(s, _) | Container::Tensor(s) => Some(s),
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

    fn scalable(self) -> bool {
        matches!(self, Container::Vector(_, true))
    }

    /// True if both are scalars or both have the same rank and every dimension pair is equal or
    /// dynamic, and both or neither are scalable vectors (MLIR's `verifyCompatibleShapes`; the
    /// container kind is not compared otherwise).
    pub(crate) fn compatible_shape(self, other: Container<'_>) -> bool {
        match (self.shape(), other.shape()) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                self.scalable() == other.scalable()
                    && a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x == y || *x == DYNAMIC || *y == DYNAMIC)
            }
            _ => false,
        }
    }
}
