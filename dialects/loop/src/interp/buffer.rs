//! Kernel arguments and the decoding of `!loop.buffer` types the interpreter needs to check and
//! allocate them.
//!
//! A buffer is a [`Literal`] of `dlc_tensor`: every stored value is exactly representable in its
//! dtype, since [`store`] rounds floats and wraps integers through [`Literal::set`], so an `f16`
//! buffer only ever holds `f16` values. [`load`] and [`store`] are where the interpreter's
//! values meet the buffer's elements: `index` is a 64-bit integer, `i1` a boolean read as 0 or
//! -1 (MLIR's sign-extended reading of true).

use super::scalar::Val;
use crate::MemorySpace;
use dlc_ir::{Context, Type};
use dlc_tensor::{DType, Literal, Scalar};

/// Element `i` of `buf` as an interpreter value (`i1` true reads as -1, its sign-extended
/// value).
pub(crate) fn load(buf: &Literal, i: usize) -> Val {
    match buf.get(i) {
        Scalar::Float(x) => Val::Float(x),
        Scalar::Int(x) => Val::Int(x),
        Scalar::Bool(b) => Val::Int(-(b as i64)),
    }
}

/// Writes `v` as element `i` of `buf`, rounding or wrapping to the dtype. Only a float goes
/// into a float buffer and an integer into an integer or `i1` one (nonzero is true).
pub(crate) fn store(buf: &mut Literal, i: usize, v: &Val) -> Result<(), String> {
    let dtype = buf.dtype();
    let value = match v {
        Val::Float(x) if dtype.is_float() => Scalar::Float(*x),
        Val::Int(x) if dtype.is_int() || dtype.is_bool() => Scalar::Int(*x),
        _ => return Err(format!("cannot store {v:?} into a {dtype:?} buffer")),
    };
    buf.set(i, value);
    Ok(())
}

/// One argument of a kernel launch.
#[derive(Clone, PartialEq, Debug)]
pub enum KernelArg {
    /// A `!loop.buffer` argument; the kernel reads and writes it in place.
    Buffer(Literal),
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

    /// Checks that `buf` can be passed where this type is declared: of the
    /// declared element type and rank, and of every static size. The memory space is the
    /// caller's to check.
    pub(crate) fn accepts(&self, ctx: &Context, buf: &Literal) -> Result<(), String> {
        if DType::from_type(ctx, self.elem) != Some(buf.dtype()) {
            return Err(format!(
                "expected {:?} elements, got a {:?} buffer",
                DType::from_type(ctx, self.elem),
                buf.dtype()
            ));
        }
        let shape_ok = self.dims.len() == buf.rank()
            && self
                .dims
                .iter()
                .zip(buf.shape())
                .all(|(&d, &n)| d == dlc_ir::DYNAMIC || d == n as i64);
        if !shape_ok {
            return Err(format!(
                "buffer of shape {:?} does not match the declared dims {:?}",
                buf.shape(),
                self.dims
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
