//! Host buffers and kernel arguments: what a caller hands to [`run_kernel`](super::run_kernel),
//! and the decoding of `!loop.buffer` types the interpreter needs to check and allocate them.
//!
//! Elements are kept in one of three classes — floats as `f64`, integers as `i64`, `i1` as
//! `bool` — as in the graph interpreter. Every stored value is exactly representable in the
//! buffer's dtype: floats are rounded with [`FloatKind::round`] and integers wrapped to their width
//! when they are written, so an `f16` buffer only ever holds `f16` values.

use super::scalar::{wrap_int, Val};
use crate::MemorySpace;
use dlc_ir::{Context, FloatKind, Type, TypeKind};

/// The element types a loop buffer may hold.
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
    /// The dtype of an element type, or `None` for types a buffer cannot hold.
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

    /// The width in bits of an integer dtype (`index` is 64 bits wide).
    pub fn int_width(self) -> Option<u32> {
        match self {
            DType::I8 => Some(8),
            DType::I32 => Some(32),
            DType::I64 | DType::Index => Some(64),
            _ => None,
        }
    }
}

/// The elements of a buffer in row-major order, in one of three classes.
#[derive(Clone, PartialEq, Debug)]
pub enum Elements {
    Float(Vec<f64>),
    Int(Vec<i64>),
    Bool(Vec<bool>),
}

impl Elements {
    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Elements::Float(v) => v.len(),
            Elements::Int(v) => v.len(),
            Elements::Bool(v) => v.len(),
        }
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A row-major buffer in host memory.
#[derive(Clone, PartialEq, Debug)]
pub struct HostBuffer {
    pub shape: Vec<usize>,
    pub dtype: DType,
    pub data: Elements,
}

impl HostBuffer {
    /// A buffer of zeros (`false` for `i1`).
    pub fn zeros(shape: &[usize], dtype: DType) -> Self {
        let n = shape.iter().product();
        let data = match dtype {
            DType::I1 => Elements::Bool(vec![false; n]),
            d if d.float_kind().is_some() => Elements::Float(vec![0.0; n]),
            _ => Elements::Int(vec![0; n]),
        };
        HostBuffer {
            shape: shape.to_vec(),
            dtype,
            data,
        }
    }

    /// A float buffer; values are rounded to `dtype`'s format. Fails if `dtype` is not a float
    /// type or the length does not match the shape.
    pub fn from_f64(shape: &[usize], dtype: DType, values: &[f64]) -> Result<Self, String> {
        let kind = dtype
            .float_kind()
            .ok_or_else(|| format!("{dtype:?} is not a float dtype"))?;
        let data = Elements::Float(values.iter().map(|&v| kind.round(v)).collect());
        Self::new(shape, dtype, data)
    }

    /// An integer buffer; values are wrapped to `dtype`'s width.
    pub fn from_i64(shape: &[usize], dtype: DType, values: &[i64]) -> Result<Self, String> {
        let width = dtype
            .int_width()
            .ok_or_else(|| format!("{dtype:?} is not an integer dtype"))?;
        let data = Elements::Int(values.iter().map(|&v| wrap_int(v as i128, width)).collect());
        Self::new(shape, dtype, data)
    }

    /// An `i1` buffer.
    pub fn from_bool(shape: &[usize], values: &[bool]) -> Result<Self, String> {
        Self::new(shape, DType::I1, Elements::Bool(values.to_vec()))
    }

    /// A buffer from parts, checked: the element class must fit the dtype and the length the
    /// shape.
    pub fn new(shape: &[usize], dtype: DType, data: Elements) -> Result<Self, String> {
        let buf = HostBuffer {
            shape: shape.to_vec(),
            dtype,
            data,
        };
        buf.check()?;
        Ok(buf)
    }

    /// The float elements, if this is a float buffer.
    pub fn floats(&self) -> Option<&[f64]> {
        match &self.data {
            Elements::Float(v) => Some(v),
            _ => None,
        }
    }

    /// The integer elements, if this is an integer or index buffer.
    pub fn ints(&self) -> Option<&[i64]> {
        match &self.data {
            Elements::Int(v) => Some(v),
            _ => None,
        }
    }

    /// The elements, if this is an `i1` buffer.
    pub fn bools(&self) -> Option<&[bool]> {
        match &self.data {
            Elements::Bool(v) => Some(v),
            _ => None,
        }
    }

    /// Checks the invariants a caller could break through the public fields.
    pub(crate) fn check(&self) -> Result<(), String> {
        let class_ok = matches!(
            (&self.data, self.dtype),
            (Elements::Bool(_), DType::I1)
                | (
                    Elements::Float(_),
                    DType::F16 | DType::BF16 | DType::F32 | DType::F64
                )
                | (
                    Elements::Int(_),
                    DType::I8 | DType::I32 | DType::I64 | DType::Index
                )
        );
        if !class_ok {
            return Err(format!("elements do not match dtype {:?}", self.dtype));
        }
        let n: usize = self.shape.iter().product();
        if n != self.data.len() {
            return Err(format!(
                "shape {:?} has {n} elements but the buffer holds {}",
                self.shape,
                self.data.len()
            ));
        }
        Ok(())
    }

    /// Element `i` as an interpreter value (`i1` true reads as -1, its sign-extended value).
    pub(crate) fn get(&self, i: usize) -> Val {
        match &self.data {
            Elements::Float(v) => Val::Float(v[i]),
            Elements::Int(v) => Val::Int(v[i]),
            Elements::Bool(v) => Val::Int(-(v[i] as i64)),
        }
    }

    /// Writes element `i`, rounding or wrapping to the dtype.
    pub(crate) fn set(&mut self, i: usize, v: &Val) -> Result<(), String> {
        match (&mut self.data, v) {
            (Elements::Float(d), Val::Float(x)) => {
                let kind = self.dtype.float_kind().unwrap_or(FloatKind::F64);
                d[i] = kind.round(*x);
            }
            (Elements::Int(d), Val::Int(x)) => {
                d[i] = wrap_int(*x as i128, self.dtype.int_width().unwrap_or(64));
            }
            (Elements::Bool(d), Val::Int(x)) => d[i] = *x != 0,
            _ => return Err(format!("cannot store {v:?} into a {:?} buffer", self.dtype)),
        }
        Ok(())
    }
}

/// One argument of a kernel launch.
#[derive(Clone, PartialEq, Debug)]
pub enum KernelArg {
    /// A `!loop.buffer` argument; the kernel reads and writes it in place.
    Buffer(HostBuffer),
    /// An `index` (or integer) argument.
    Index(i64),
}

/// A decoded `!loop.buffer<dims x elem, space>` type.
#[derive(Clone, Debug)]
pub(crate) struct BufferType {
    /// Static sizes, [`dlc_ir::DYNAMIC`] for `?`.
    pub dims: Vec<i64>,
    pub elem: Type,
    pub space: MemorySpace,
}

impl BufferType {
    /// The concrete shape of a buffer of this type allocated by `op`, whose `?` dims take the
    /// values of `sizes` (read with `get`), in order.
    pub(crate) fn shape_with(
        &self,
        ctx: &Context,
        op: dlc_ir::Op,
        sizes: &[dlc_ir::Value],
        mut get: impl FnMut(dlc_ir::Value) -> Result<i64, dlc_ir::Diagnostic>,
    ) -> Result<Vec<usize>, dlc_ir::Diagnostic> {
        let err = |m: String| super::exec::op_err(ctx, op, m);
        let mut sizes = sizes.iter();
        let mut shape = Vec::with_capacity(self.dims.len());
        for &d in &self.dims {
            let n = if d == dlc_ir::DYNAMIC {
                let v = sizes
                    .next()
                    .ok_or_else(|| err("missing size operand for a '?' dim".into()))?;
                get(*v)?
            } else {
                d
            };
            let n = usize::try_from(n).map_err(|_| err(format!("negative buffer size {n}")))?;
            shape.push(n);
        }
        if sizes.next().is_some() {
            return Err(err("more size operands than '?' dims".into()));
        }
        Ok(shape)
    }

    /// Checks that well-formed `buf` can be passed where this type is declared: of the
    /// declared element type and rank, and of every static size. The memory space is the
    /// caller's to check.
    pub(crate) fn accepts(&self, ctx: &Context, buf: &HostBuffer) -> Result<(), String> {
        if DType::from_type(ctx, self.elem) != Some(buf.dtype) {
            return Err(format!(
                "expected {:?} elements, got a {:?} buffer",
                DType::from_type(ctx, self.elem),
                buf.dtype
            ));
        }
        let shape_ok = self.dims.len() == buf.shape.len()
            && self
                .dims
                .iter()
                .zip(&buf.shape)
                .all(|(&d, &n)| d == dlc_ir::DYNAMIC || d == n as i64);
        if !shape_ok {
            return Err(format!(
                "buffer of shape {:?} does not match the declared dims {:?}",
                buf.shape, self.dims
            ));
        }
        Ok(())
    }
}

/// Decodes a `!loop.buffer` type (`None` for any other type).
pub(crate) fn buffer_type(ctx: &Context, ty: Type) -> Option<BufferType> {
    let (dims, elem, space) = crate::buffer_parts(ctx, ty)?;
    Some(BufferType { dims, elem, space })
}
