//! [`DType`]: the element types a host tensor holds, with their IR type and storage size.

use dlc_ir::{Context, FloatKind, Type, TypeKind};
use std::fmt;

/// The element types of host tensors: the floats and integers dlc executes, and `index`
/// (a 64-bit integer, for the buffers of host programs).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DType {
    F16,
    BF16,
    F32,
    F64,
    I1,
    I8,
    I32,
    I64,
    Index,
}

impl DType {
    /// Every dtype a tensor of a graph program may have (not `index`), floats first.
    pub const ALL: [DType; 8] = [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::I1,
        DType::I8,
        DType::I32,
        DType::I64,
    ];

    /// The dtype of an element type, or `None` for types a tensor cannot hold.
    pub fn from_type(ctx: &Context, ty: Type) -> Option<DType> {
        match ctx.type_kind(ty) {
            TypeKind::Float(FloatKind::F16) => Some(DType::F16),
            TypeKind::Float(FloatKind::BF16) => Some(DType::BF16),
            TypeKind::Float(FloatKind::F32) => Some(DType::F32),
            TypeKind::Float(FloatKind::F64) => Some(DType::F64),
            TypeKind::Integer { width: 1 } => Some(DType::I1),
            TypeKind::Integer { width: 8 } => Some(DType::I8),
            TypeKind::Integer { width: 32 } => Some(DType::I32),
            TypeKind::Integer { width: 64 } => Some(DType::I64),
            TypeKind::Index => Some(DType::Index),
            _ => None,
        }
    }

    /// The builtin element type.
    pub fn to_type(self) -> Type {
        match self {
            DType::F16 => Type::F16,
            DType::BF16 => Type::BF16,
            DType::F32 => Type::F32,
            DType::F64 => Type::F64,
            DType::I1 => Type::I1,
            DType::I8 => Type::I8,
            DType::I32 => Type::I32,
            DType::I64 => Type::I64,
            DType::Index => Type::INDEX,
        }
    }

    /// The float format of a float dtype.
    pub fn float_kind(self) -> Option<FloatKind> {
        match self {
            DType::F16 => Some(FloatKind::F16),
            DType::BF16 => Some(FloatKind::BF16),
            DType::F32 => Some(FloatKind::F32),
            DType::F64 => Some(FloatKind::F64),
            _ => None,
        }
    }

    /// The width in bits of an integer dtype (`index` is 64 bits; `i1` is a boolean, not an
    /// integer here).
    pub fn int_width(self) -> Option<u32> {
        match self {
            DType::I8 => Some(8),
            DType::I32 => Some(32),
            DType::I64 | DType::Index => Some(64),
            _ => None,
        }
    }

    pub fn is_float(self) -> bool {
        self.float_kind().is_some()
    }

    /// True for `i8`, `i32`, `i64` and `index` (not `i1`).
    pub fn is_int(self) -> bool {
        self.int_width().is_some()
    }

    pub fn is_bool(self) -> bool {
        self == DType::I1
    }

    /// The bytes one element takes in memory: `i1` is one byte, `f16`/`bf16` two, `index` eight.
    pub fn size_bytes(self) -> usize {
        match self {
            DType::I1 | DType::I8 => 1,
            DType::F16 | DType::BF16 => 2,
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 | DType::Index => 8,
        }
    }

    /// The IR spelling: `f32`, `i1`, `index`, ...
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I1 => "i1",
            DType::I8 => "i8",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::Index => "index",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
