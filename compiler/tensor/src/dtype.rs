//! [`DType`]: the element types a literal or a runtime tensor holds, with their IR type and
//! storage size.

use dlc_ir::{Context, FloatKind, Type, TypeKind};
use std::fmt;

/// The element types of literals and runtime tensors: the floats and integers dlc executes, and
/// `index` (a 64-bit integer, for the buffers of host programs). `iN` are signed integers
/// (ONNX's INT8..INT64), `uiN` unsigned ones (UINT8..UINT64).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DType {
    F16,
    BF16,
    F32,
    F64,
    I1,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Index,
}

impl DType {
    /// Every dtype a tensor of a graph program may have (not `index`), floats first.
    pub const ALL: [DType; 13] = [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::I1,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
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
            TypeKind::Integer { width: 16 } => Some(DType::I16),
            TypeKind::Integer { width: 32 } => Some(DType::I32),
            TypeKind::Integer { width: 64 } => Some(DType::I64),
            TypeKind::SignedInteger {
                width,
                signed: false,
            } => match width {
                8 => Some(DType::U8),
                16 => Some(DType::U16),
                32 => Some(DType::U32),
                64 => Some(DType::U64),
                _ => None,
            },
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
            DType::I16 => Type::I16,
            DType::I32 => Type::I32,
            DType::I64 => Type::I64,
            DType::U8 => Type::UI8,
            DType::U16 => Type::UI16,
            DType::U32 => Type::UI32,
            DType::U64 => Type::UI64,
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
            DType::I8 | DType::U8 => Some(8),
            DType::I16 | DType::U16 => Some(16),
            DType::I32 | DType::U32 => Some(32),
            DType::I64 | DType::U64 | DType::Index => Some(64),
            _ => None,
        }
    }

    /// True for the unsigned integers `ui8` .. `ui64`.
    pub fn is_unsigned(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    pub fn is_float(self) -> bool {
        self.float_kind().is_some()
    }

    /// True for the signed and unsigned integers and `index` (not `i1`).
    pub fn is_int(self) -> bool {
        self.int_width().is_some()
    }

    pub fn is_bool(self) -> bool {
        self == DType::I1
    }

    /// The bytes one element takes in memory: `i1` is one byte, `f16`/`bf16` two, `index` eight.
    pub fn size_bytes(self) -> usize {
        match self {
            DType::I1 | DType::I8 | DType::U8 => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::Index => 8,
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
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "ui8",
            DType::U16 => "ui16",
            DType::U32 => "ui32",
            DType::U64 => "ui64",
            DType::Index => "index",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
