//! [`Literal`]: a tensor value in host memory — a dtype, a shape and the elements in row-major
//! (C) order — with the helpers on shapes and multi-indices that code computing on literals
//! needs. It is the value of constants and the interpreters, not the runtime's
//! `dlc_runtime::Tensor` (an aligned byte buffer for compiled code), which converts to and from
//! it exactly through [`Literal::from_le_bytes`] and [`Literal::to_le_bytes`].
//!
//! Elements are kept in one of three classes — floats as `f64`, integers as `i64`, `i1` as
//! `bool` — rather than one vector type per dtype, so code has one path per class. The class
//! never loses information: every stored value is exactly representable in the tensor's dtype,
//! because [`Literal::new`] rounds floats to the dtype's format (`FloatKind::round`: an
//! `f16`/`bf16`/`f32` tensor holds only `f16`/`bf16`/`f32` values) and wraps integers to its
//! width, and every constructor and [`Literal::set`] go through that rule. The little-endian byte
//! form ([`Literal::from_le_bytes`], [`Literal::to_le_bytes`]) is exact both ways.

use crate::DType;
use dlc_ir::{AttrKind, Attribute, Context, DenseValue, FloatKind};

/// One element, in its class.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum Scalar {
    Float(f64),
    Int(i64),
    Bool(bool),
}

impl Scalar {
    /// The value as a float (`true` is 1).
    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::Float(v) => v,
            Scalar::Int(v) => v as f64,
            Scalar::Bool(b) => b as i64 as f64,
        }
    }

    /// The value as an integer: floats truncate toward zero and saturate, NaN is 0.
    pub fn as_i64(self) -> i64 {
        match self {
            Scalar::Float(v) => v as i64,
            Scalar::Int(v) => v,
            Scalar::Bool(b) => b as i64,
        }
    }

    /// The value as a boolean: nonzero (NaN included) is true.
    pub fn as_bool(self) -> bool {
        match self {
            Scalar::Float(v) => v != 0.0,
            Scalar::Int(v) => v != 0,
            Scalar::Bool(b) => b,
        }
    }

    /// `graph.cast` of one element: float→int truncates toward zero like C (saturating at the
    /// target's range, NaN → 0, where C is undefined); int→float rounds to nearest; to `i1` is
    /// `x != 0`; int→int wraps to the target width and signedness. An integer is read as signed
    /// (see [`Scalar::cast_from`] for the elements of a `ui64` tensor).
    pub fn cast(self, dtype: DType) -> Scalar {
        if dtype.is_bool() {
            return Scalar::Bool(self.as_bool());
        }
        if let Some(kind) = dtype.float_kind() {
            return Scalar::Float(match self {
                // `as f32` rounds an i64 once; going through f64 could round twice.
                Scalar::Int(v) if kind == FloatKind::F32 => v as f32 as f64,
                other => kind.round(other.as_f64()),
            });
        }
        match self {
            Scalar::Float(v) => Scalar::Int(match dtype {
                DType::I8 => v as i8 as i64,
                DType::I16 => v as i16 as i64,
                DType::I32 => v as i32 as i64,
                DType::U8 => v as u8 as i64,
                DType::U16 => v as u16 as i64,
                DType::U32 => v as u32 as i64,
                DType::U64 => v as u64 as i64,
                _ => v as i64,
            }),
            other => Scalar::Int(dtype.wrap(other.as_i64())),
        }
    }

    /// [`Scalar::cast`] of an element of a `from` tensor: the same, except that a `ui64`
    /// element (held as its bit pattern) converts to a float by its unsigned value.
    pub fn cast_from(self, from: DType, dtype: DType) -> Scalar {
        match (self, dtype.float_kind()) {
            (Scalar::Int(v), Some(kind)) if from == DType::U64 => Scalar::Float(match kind {
                FloatKind::F32 => v as u64 as f32 as f64,
                _ => kind.round(v as u64 as f64),
            }),
            _ => self.cast(dtype),
        }
    }
}

/// `v` wrapped (two's complement) to `width` bits, as signed integer arithmetic of that width
/// does.
pub fn wrap_int(v: i64, width: u32) -> i64 {
    match width {
        8 => v as i8 as i64,
        16 => v as i16 as i64,
        32 => v as i32 as i64,
        _ => v,
    }
}

impl DType {
    /// `v` wrapped to this integer dtype: signed types sign-extend their low bits, unsigned ones
    /// keep them as a non-negative value, and `ui64` keeps all 64 bits (its elements are held as
    /// their bit pattern in an `i64`).
    pub fn wrap(self, v: i64) -> i64 {
        match self {
            DType::U8 => v as u8 as i64,
            DType::U16 => v as u16 as i64,
            DType::U32 => v as u32 as i64,
            _ => wrap_int(v, self.int_width().unwrap_or(64)),
        }
    }
}

/// The elements of a tensor, by class.
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

/// A dense tensor value in host memory: a constant, or an interpreter's operand or result (the
/// runtime's buffers are `dlc_runtime::Tensor`). Fields are private so the invariants hold: the
/// element class matches the dtype, there are `product(shape)` elements, and each is
/// representable in the dtype.
#[derive(Clone, PartialEq, Debug)]
pub struct Literal {
    dtype: DType,
    shape: Vec<usize>,
    data: Elements,
}

impl Literal {
    /// A tensor from elements of the dtype's class; floats are rounded to the dtype's format and
    /// integers wrapped to its width.
    pub fn new(dtype: DType, shape: Vec<usize>, data: Elements) -> Result<Literal, String> {
        let count = num_elements(&shape);
        if data.len() != count {
            return Err(format!(
                "{} elements given for shape {shape:?} ({count} expected)",
                data.len()
            ));
        }
        let data = match (data, dtype.float_kind(), dtype.is_int()) {
            (Elements::Float(v), Some(kind), _) => {
                Elements::Float(v.into_iter().map(|x| kind.round(x)).collect())
            }
            (Elements::Int(v), _, true) => {
                Elements::Int(v.into_iter().map(|x| dtype.wrap(x)).collect())
            }
            (Elements::Bool(v), None, false) => Elements::Bool(v),
            (_, _, _) => return Err(format!("elements of the wrong class for {dtype}")),
        };
        Ok(Literal { dtype, shape, data })
    }

    /// A tensor from elements of any class, each converted with [`Scalar::cast`]; `values` must
    /// fill `shape` (callers build them from it).
    pub fn from_scalars(dtype: DType, shape: Vec<usize>, values: Vec<Scalar>) -> Literal {
        let data = if dtype.is_float() {
            Elements::Float(values.iter().map(|s| s.cast(dtype).as_f64()).collect())
        } else if dtype.is_int() {
            Elements::Int(values.iter().map(|s| s.cast(dtype).as_i64()).collect())
        } else {
            Elements::Bool(values.iter().map(|s| s.as_bool()).collect())
        };
        debug_assert_eq!(
            data.len(),
            num_elements(&shape),
            "values must fill the shape"
        );
        // Casting made every element representable in `dtype`.
        Literal { dtype, shape, data }
    }

    /// A float tensor.
    ///
    /// # Panics
    /// If `dtype` is not a float type or `values` does not fill `shape` (a programming error in
    /// the caller, e.g. a test).
    pub fn from_f64(dtype: DType, shape: &[usize], values: &[f64]) -> Literal {
        Literal::new(dtype, shape.to_vec(), Elements::Float(values.to_vec()))
            .unwrap_or_else(|e| panic!("Literal::from_f64: {e}"))
    }

    /// An integer tensor (`i8`, `i32`, `i64`).
    ///
    /// # Panics
    /// As [`Literal::from_f64`].
    pub fn from_i64(dtype: DType, shape: &[usize], values: &[i64]) -> Literal {
        Literal::new(dtype, shape.to_vec(), Elements::Int(values.to_vec()))
            .unwrap_or_else(|e| panic!("Literal::from_i64: {e}"))
    }

    /// An `i1` tensor.
    ///
    /// # Panics
    /// As [`Literal::from_f64`].
    pub fn from_bools(shape: &[usize], values: &[bool]) -> Literal {
        Literal::new(DType::I1, shape.to_vec(), Elements::Bool(values.to_vec()))
            .unwrap_or_else(|e| panic!("Literal::from_bools: {e}"))
    }

    /// A tensor with every element `value`.
    pub fn splat(dtype: DType, shape: &[usize], value: Scalar) -> Literal {
        Literal::from_scalars(dtype, shape.to_vec(), vec![value; num_elements(shape)])
    }

    /// A tensor whose element at each multi-index is `f(index)`; fails on the first error of
    /// `f`, or up front when the shape has more than [`MAX_ELEMENTS`] elements.
    pub fn from_fn(
        dtype: DType,
        shape: &[usize],
        mut f: impl FnMut(&[usize]) -> Result<Scalar, String>,
    ) -> Result<Literal, String> {
        check_size(shape)?;
        let count = num_elements(shape);
        let mut values = Vec::with_capacity(count);
        let mut index = vec![0; shape.len()];
        for _ in 0..count {
            values.push(f(&index)?);
            next_index(&mut index, shape);
        }
        Ok(Literal::from_scalars(dtype, shape.to_vec(), values))
    }

    /// The value of a `dense<...>` attribute whose type is a static tensor of a supported dtype.
    pub fn from_dense_attr(ctx: &Context, attr: Attribute) -> Result<Literal, String> {
        let AttrKind::DenseElements(dense) = ctx.attr_kind(attr) else {
            return Err("expected a dense elements attribute".into());
        };
        let dtype = DType::from_type(ctx, ctx.element_type(dense.ty))
            .ok_or("unsupported element type in dense attribute")?;
        let shape = static_shape(ctx.shape(dense.ty).unwrap_or(&[]))
            .ok_or("dense attribute of a dynamically shaped type")?;
        let values = ctx.dense_values(dense, num_elements(&shape));
        let int = |v: DenseValue| match v {
            DenseValue::Int(i) => i as i64,
            DenseValue::Float(x) => x as i64,
        };
        let data = if dtype.is_bool() {
            Elements::Bool(values.map(|v| int(v) != 0).collect())
        } else if dtype.is_float() {
            Elements::Float(
                values
                    .map(|v| match v {
                        DenseValue::Float(x) => x,
                        DenseValue::Int(i) => i as f64,
                    })
                    .collect(),
            )
        } else {
            Elements::Int(values.map(int).collect())
        };
        Literal::new(dtype, shape, data)
    }

    /// The `dense<...>` attribute holding this tensor (the inverse of
    /// [`Literal::from_dense_attr`]); a tensor whose elements are all equal becomes a splat.
    pub fn to_dense_attr(&self, ctx: &mut Context) -> Attribute {
        let dims: Vec<i64> = self.shape.iter().map(|d| *d as i64).collect();
        let ty = ctx.tensor_type(&dims, self.dtype.to_type());
        match &self.data {
            Elements::Float(v) => ctx.dense_attr_from(ty, v.iter().map(|x| DenseValue::Float(*x))),
            Elements::Int(v) if self.dtype == DType::U64 => {
                ctx.dense_attr_from(ty, v.iter().map(|x| DenseValue::Int(*x as u64 as i128)))
            }
            Elements::Int(v) => {
                ctx.dense_attr_from(ty, v.iter().map(|x| DenseValue::Int(*x as i128)))
            }
            Elements::Bool(v) => {
                ctx.dense_attr_from(ty, v.iter().map(|x| DenseValue::Int(*x as i128)))
            }
        }
    }

    pub fn dtype(&self) -> DType {
        self.dtype
    }

    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn elements(&self) -> &Elements {
        &self.data
    }

    /// Element `flat` in row-major order.
    ///
    /// # Panics
    /// If `flat >= self.len()`.
    pub fn get(&self, flat: usize) -> Scalar {
        match &self.data {
            Elements::Float(v) => Scalar::Float(v[flat]),
            Elements::Int(v) => Scalar::Int(v[flat]),
            Elements::Bool(v) => Scalar::Bool(v[flat]),
        }
    }

    /// The element at a multi-index.
    ///
    /// # Panics
    /// If the index is out of bounds.
    pub fn at(&self, index: &[usize]) -> Scalar {
        self.get(ravel(index, &self.shape))
    }

    /// Sets element `flat` in row-major order to `value` converted to the dtype with
    /// [`Scalar::cast`] (rounded or wrapped, so the tensor's invariant holds).
    ///
    /// # Panics
    /// If `flat >= self.len()`.
    pub fn set(&mut self, flat: usize, value: Scalar) {
        let value = value.cast(self.dtype);
        match (&mut self.data, value) {
            (Elements::Float(v), Scalar::Float(x)) => v[flat] = x,
            (Elements::Int(v), Scalar::Int(x)) => v[flat] = x,
            (Elements::Bool(v), Scalar::Bool(x)) => v[flat] = x,
            // `cast` produced the dtype's class.
            _ => unreachable!("Scalar::cast returns the class of the dtype"),
        }
    }

    /// A tensor of zeros (`false` for `i1`).
    pub fn zeros(dtype: DType, shape: &[usize]) -> Literal {
        let n = num_elements(shape);
        let data = if dtype.is_float() {
            Elements::Float(vec![0.0; n])
        } else if dtype.is_int() {
            Elements::Int(vec![0; n])
        } else {
            Elements::Bool(vec![false; n])
        };
        Literal {
            dtype,
            shape: shape.to_vec(),
            data,
        }
    }

    /// A tensor from its little-endian bytes, [`DType::size_bytes`] per element (`i1` one byte,
    /// nonzero is true; `f16`/`bf16` their 16-bit patterns).
    pub fn from_le_bytes(dtype: DType, shape: &[usize], bytes: &[u8]) -> Result<Literal, String> {
        let width = dtype.size_bytes();
        let count = num_elements(shape);
        if count.checked_mul(width) != Some(bytes.len()) {
            return Err(format!(
                "{} bytes given for a {dtype} tensor of shape {shape:?}",
                bytes.len()
            ));
        }
        let word = |c: &[u8]| {
            let mut raw = [0u8; 8];
            raw[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(raw)
        };
        let chunks = bytes.chunks_exact(width);
        let data = match dtype {
            DType::I1 => Elements::Bool(chunks.map(|c| c[0] != 0).collect()),
            DType::I8
            | DType::I16
            | DType::I32
            | DType::I64
            | DType::U8
            | DType::U16
            | DType::U32
            | DType::U64
            | DType::Index => Elements::Int(chunks.map(|c| dtype.wrap(word(c) as i64)).collect()),
            DType::F64 => Elements::Float(chunks.map(|c| f64::from_bits(word(c))).collect()),
            DType::F16 | DType::BF16 | DType::F32 => {
                let kind = dtype.float_kind().unwrap_or(FloatKind::F32);
                Elements::Float(chunks.map(|c| kind.from_bits(word(c))).collect())
            }
        };
        Ok(Literal {
            dtype,
            shape: shape.to_vec(),
            data,
        })
    }

    /// The little-endian bytes of the elements (the inverse of [`Literal::from_le_bytes`]).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * self.dtype.size_bytes());
        match (&self.data, self.dtype) {
            (Elements::Bool(v), _) => out.extend(v.iter().map(|&b| b as u8)),
            (Elements::Int(v), dtype) => {
                let width = dtype.size_bytes();
                v.iter()
                    .for_each(|&x| out.extend(&x.to_le_bytes()[..width]))
            }
            (Elements::Float(v), DType::F64) => v.iter().for_each(|&x| out.extend(x.to_le_bytes())),
            (Elements::Float(v), DType::F32) => {
                v.iter().for_each(|&x| out.extend((x as f32).to_le_bytes()))
            }
            (Elements::Float(v), dtype) => {
                let kind = dtype.float_kind().unwrap_or(FloatKind::F16);
                v.iter()
                    .for_each(|&x| out.extend((kind.to_bits(x) as u16).to_le_bytes()))
            }
        }
        out
    }

    /// The same bytes read as `dtype`, which must have elements of the same size (`ui8` as
    /// `i8`, `f32` as `i32`): a bit cast.
    pub fn bitcast(&self, dtype: DType) -> Result<Literal, String> {
        if dtype.size_bytes() != self.dtype.size_bytes() || dtype.is_bool() != self.dtype.is_bool()
        {
            return Err(format!("cannot bit cast {} to {dtype}", self.dtype));
        }
        Literal::from_le_bytes(dtype, &self.shape, &self.to_le_bytes())
    }

    /// The elements as floats (integers converted, `true` as 1).
    pub fn to_f64_vec(&self) -> Vec<f64> {
        (0..self.len()).map(|i| self.get(i).as_f64()).collect()
    }

    /// The elements as integers (floats truncated).
    pub fn to_i64_vec(&self) -> Vec<i64> {
        (0..self.len()).map(|i| self.get(i).as_i64()).collect()
    }

    /// The elements as booleans (nonzero is true).
    pub fn to_bool_vec(&self) -> Vec<bool> {
        (0..self.len()).map(|i| self.get(i).as_bool()).collect()
    }

    /// The same elements under another shape with as many elements.
    pub fn reshaped(&self, shape: Vec<usize>) -> Result<Literal, String> {
        Literal::new(self.dtype, shape, self.data.clone())
    }

    /// `graph.cast`: every element converted with [`Scalar::cast_from`].
    pub fn cast(&self, dtype: DType) -> Literal {
        if let (Elements::Int(v), true) = (&self.data, dtype.is_int()) {
            // Int to int wraps (`Scalar::cast`), whatever the source's signedness.
            let data = Elements::Int(v.iter().map(|&x| dtype.wrap(x)).collect());
            return Literal {
                dtype,
                shape: self.shape.clone(),
                data,
            };
        }
        let values = (0..self.len())
            .map(|i| self.get(i).cast_from(self.dtype, dtype))
            .collect();
        Literal::from_scalars(dtype, self.shape.clone(), values)
    }

    /// Applies `f` elementwise over the numpy broadcast of `inputs`' shapes, building a tensor
    /// of `dtype`.
    pub fn broadcast_map(
        inputs: &[&Literal],
        dtype: DType,
        mut f: impl FnMut(&[Scalar]) -> Result<Scalar, String>,
    ) -> Result<Literal, String> {
        let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape()).collect();
        let shape = broadcast_shapes(&shapes).ok_or_else(|| {
            let list: Vec<String> = shapes.iter().map(|s| format!("{s:?}")).collect();
            format!("shapes {} do not broadcast", list.join(" and "))
        })?;
        let mut args = Vec::with_capacity(inputs.len());
        Literal::from_fn(dtype, &shape, |index| {
            args.clear();
            for t in inputs {
                args.push(t.get(broadcast_source(index, t.shape())));
            }
            f(&args)
        })
    }

    /// Checks that `expected` has the same dtype and shape and that every element is close:
    /// within `ulps` units in the last place of the dtype's format, or within `abs` of it
    /// (results near zero carry the absolute error of the terms that cancelled). Integers and
    /// `i1` must be equal; NaN matches NaN. The error names the first element that differs.
    pub fn check_close(&self, expected: &Literal, ulps: u64, abs: f64) -> Result<(), String> {
        if self.dtype != expected.dtype || self.shape != expected.shape {
            return Err(format!(
                "got {} {:?}, expected {} {:?}",
                self.dtype, self.shape, expected.dtype, expected.shape
            ));
        }
        for i in 0..self.len() {
            let (a, b) = (self.get(i), expected.get(i));
            let close = match (self.dtype.float_kind(), a, b) {
                (Some(kind), Scalar::Float(x), Scalar::Float(y)) => {
                    ulp_distance(kind, x, y) <= ulps || (x - y).abs() <= abs
                }
                _ => a == b,
            };
            if !close {
                return Err(format!(
                    "element {:?}: got {a:?}, expected {b:?} (tolerance {ulps} ulp or {abs:e})",
                    unravel(i, &self.shape)
                ));
            }
        }
        Ok(())
    }
}

/// The number of representable values of format `kind` between `x` and `y` (0 when equal or
/// both NaN, `u64::MAX` when only one is NaN).
pub fn ulp_distance(kind: FloatKind, x: f64, y: f64) -> u64 {
    if x.is_nan() || y.is_nan() {
        return if x.is_nan() && y.is_nan() {
            0
        } else {
            u64::MAX
        };
    }
    if x == y {
        return 0;
    }
    // Map bit patterns to a line where adjacent floats are adjacent integers (-0 and +0 meet).
    let ordered = |v: f64| -> i128 {
        let bits = kind.to_bits(v) as i128;
        let sign_bit = 1i128 << (kind.width() - 1);
        if bits & sign_bit != 0 {
            -(bits & (sign_bit - 1))
        } else {
            bits
        }
    };
    (ordered(x) - ordered(y))
        .unsigned_abs()
        .min(u64::MAX as u128) as u64
}

/// The shape of a type's dims when all are static.
pub fn static_shape(dims: &[i64]) -> Option<Vec<usize>> {
    dims.iter().map(|&d| usize::try_from(d).ok()).collect()
}

/// The number of elements of `shape` (saturating, so an absurd shape cannot overflow).
pub fn num_elements(shape: &[usize]) -> usize {
    shape.iter().fold(1, |n, &d| n.saturating_mul(d))
}

/// The most elements a tensor built by an op may have (2^24). The interpreter is for tests; a
/// shape beyond this is reported rather than allowed to exhaust memory.
pub const MAX_ELEMENTS: usize = 1 << 24;

/// Fails when `shape` has more than [`MAX_ELEMENTS`] elements.
pub fn check_size(shape: &[usize]) -> Result<(), String> {
    if num_elements(shape) > MAX_ELEMENTS {
        return Err(format!(
            "a tensor of shape {shape:?} exceeds the interpreter's limit of {MAX_ELEMENTS} elements"
        ));
    }
    Ok(())
}

/// The flat row-major position of `index` in `shape`.
pub fn ravel(index: &[usize], shape: &[usize]) -> usize {
    index
        .iter()
        .zip(shape)
        .fold(0, |flat, (&i, &n)| flat * n + i)
}

/// The multi-index of flat position `flat` in `shape`.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for axis in (0..shape.len()).rev() {
        let n = shape[axis].max(1);
        index[axis] = flat % n;
        flat /= n;
    }
    index
}

/// Advances `index` to the next multi-index of `shape` in row-major order (the last wraps to all
/// zeros).
pub fn next_index(index: &mut [usize], shape: &[usize]) {
    for axis in (0..index.len()).rev() {
        index[axis] += 1;
        if index[axis] < shape[axis] {
            return;
        }
        index[axis] = 0;
    }
}

/// Every multi-index of `shape` in row-major order.
pub fn indices(shape: &[usize]) -> impl Iterator<Item = Vec<usize>> + '_ {
    (0..num_elements(shape)).map(move |flat| unravel(flat, shape))
}

/// The numpy broadcast of `shapes` (aligned at the right; a 1 stretches), or `None`.
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Option<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1; rank];
    for shape in shapes {
        let offset = rank - shape.len();
        for (axis, &n) in shape.iter().enumerate() {
            let o = &mut out[offset + axis];
            if *o == 1 {
                *o = n;
            } else if n != 1 && n != *o {
                return None;
            }
        }
    }
    Some(out)
}

/// The flat position in a tensor of shape `source` of the element broadcast to `index` (an
/// index into a shape that `source` broadcasts to).
pub fn broadcast_source(index: &[usize], source: &[usize]) -> usize {
    let offset = index.len() - source.len();
    source.iter().enumerate().fold(0, |flat, (axis, &n)| {
        flat * n + if n == 1 { 0 } else { index[offset + axis] }
    })
}
