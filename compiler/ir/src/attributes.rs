//! Interned attributes: the compile-time constants attached to operations.
//!
//! Like types, attributes are interned, so an attribute is a four-byte id and equality is an id
//! compare. Dense element constants keep their payload as packed little-endian bytes, never as
//! text, so a large weight tensor costs its size in memory and nothing more.

use crate::affine::{AffineMap, IntegerSet};
use crate::intern::Ident;
use crate::parser::lexer::Tok;
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::types::{ExtFloatKind, FloatKind, Type, TypeKind};
use crate::Context;

crate::entity::entity!(
    /// An interned attribute.
    Attribute
);

/// An attribute with a name, as stored on operations and in dictionaries.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct NamedAttr {
    pub name: Ident,
    pub value: Attribute,
}

/// The structure of an attribute.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum AttrKind {
    /// `42 : i32`, `true` (an `i1`), `7 : index`, `200 : ui8`. The value is sign-extended from
    /// the type's width, zero-extended for an unsigned type (an `i1` holds 0 or 1); a `ui128`
    /// holds its bits.
    Integer { value: i128, ty: Type },
    /// An integer of a type wider than 128 bits whose value does not fit an `i128`
    /// (`2^200 : i256`), as the type's bit pattern (see [`crate::wide_int`]). Every other
    /// integer is an `Integer`, so each value has one form.
    WideInteger { bits: Box<[u8]>, ty: Type },
    /// `1.5 : f32`. The value is rounded to the type's precision and kept as `f64` bits.
    Float { bits: u64, ty: Type },
    /// `1.5 : f80`, `0.1 : f128`: a float of a format wider than `f64` (see
    /// [`ExtFloatKind::wide_layout`]), kept as the format's own bit pattern in the form APFloat
    /// writes back ([`FloatLayout::canonical`](crate::types::FloatLayout::canonical)). dlc
    /// stores these constants but does not compute with them.
    WideFloat { bits: u128, ty: Type },
    /// `"text"`: a string of type `none`, MLIR's default for strings.
    String(Box<str>),
    /// `"text" : i32`: a string written with a type other than `none` (`"text" : none` is the
    /// plain [`AttrKind::String`]).
    TypedString { value: Box<str>, ty: Type },
    /// `unit`: presence is the information.
    Unit,
    /// `[a, b, c]`.
    Array(Box<[Attribute]>),
    /// `{a = 1, b}`, sorted by name as in MLIR.
    Dict(Box<[NamedAttr]>),
    /// A type used as a value: `i32`, `(f32) -> f32`.
    Type(Type),
    /// `@root::@nested`.
    SymbolRef(Box<[Ident]>),
    /// `dense<...> : tensor<...>`.
    DenseElements(DenseElements),
    /// `array<i64: 1, 2>`: a flat list of integers or floats (float elements stored as bits).
    DenseArray { element: Type, values: Box<[i64]> },
    /// `strided<[4, 1], offset: ?>`: a memref layout; dynamic strides and offsets are
    /// [`DYNAMIC`](crate::types::DYNAMIC).
    Strided { strides: Box<[i64]>, offset: i64 },
    /// `dense_resource<name> : tensor<4xf32>`: elements held in the blob of resource `name` (see
    /// [`Context::resource_blob`]).
    DenseResource { name: Box<str>, ty: Type },
    /// `affine_map<(d0)[s0] -> (d0 + s0)>`.
    AffineMap(AffineMap),
    /// `affine_set<(d0) : (d0 >= 0)>`.
    IntegerSet(IntegerSet),
    /// `#dialect.mnemonic<...>`: an attribute a registered dialect parses into parameters.
    Dialect {
        dialect: Ident,
        mnemonic: Ident,
        params: Box<[Attribute]>,
    },
    /// `#dialect.body` or `#dialect.body : i32`: an attribute of an unregistered dialect, kept
    /// as text, with the type written after it (`none` when there is none).
    Opaque {
        dialect: Ident,
        body: Box<str>,
        ty: Type,
    },
}

/// The payload of a `dense<...>` attribute: elements packed little-endian, one byte per `i1`,
/// `ceil(width / 8)` bytes per integer, 8 per `index`, and the format's width per float (10
/// bytes per `f80`, as MLIR packs them).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct DenseElements {
    /// The shaped (tensor or vector) type of the constant.
    pub ty: Type,
    /// True when one element stands for all (`dense<1.0>`); then `data` holds one element.
    pub splat: bool,
    pub data: Box<[u8]>,
}

/// For a row-major tensor of shape `shape` transposed by `perm` (result dim `i` is input dim
/// `perm[i]`), the input position of each result element, in result order; `None` when `perm`
/// is not a permutation of the dims.
pub fn transpose_order(shape: &[usize], perm: &[usize]) -> Option<Vec<usize>> {
    let rank = shape.len();
    check_perm(rank, perm)?;
    let mut in_strides = vec![1usize; rank];
    for k in (0..rank.saturating_sub(1)).rev() {
        in_strides[k] = in_strides[k + 1] * shape[k + 1];
    }
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
    let count: usize = out_shape.iter().product();
    let mut order = Vec::with_capacity(count);
    // An odometer over the result index: the input position moves by the stride of the dim
    // that steps, and back over the dims that wrap.
    let mut index = vec![0usize; rank];
    let mut at = 0usize;
    for _ in 0..count {
        order.push(at);
        for j in (0..rank).rev() {
            index[j] += 1;
            at += strides[j];
            if index[j] < out_shape[j] {
                break;
            }
            at -= strides[j] * out_shape[j];
            index[j] = 0;
        }
    }
    Some(order)
}

/// The elements of `data` (`width` bytes each, row-major of shape `shape`) transposed by `perm`
/// ([`transpose_order`]'s convention); `None` when `perm` is not a permutation of the dims or
/// `data` does not hold the elements. Dims that stay next to each other move as one; when the
/// result is then a batch of 2-D transposes (a weight matrix's, a convolution's taps and
/// channels), they run in square tiles, so that both sides stay in the cache: 33 MB of an
/// 8210x1024 matrix element by element in input order read a new cache line per element.
pub fn transpose_bytes(
    data: &[u8],
    shape: &[usize],
    perm: &[usize],
    width: usize,
) -> Option<Vec<u8>> {
    check_perm(shape.len(), perm)?;
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))?;
    if data.len() != count.checked_mul(width)? {
        return None;
    }
    // The dims of more than one element, numbered in input order, as the result orders them;
    // then runs of them that stay consecutive, each of which moves as one dim.
    let kept: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for k in perm.iter().filter_map(|p| kept.iter().position(|d| d == p)) {
        match runs.last_mut() {
            Some(run) if k > 0 && run.last() == Some(&(k - 1)) => run.push(k),
            _ => runs.push(vec![k]),
        }
    }
    let n = runs.len();
    if n <= 1 {
        return Some(data.to_vec());
    }
    // A batch of 2-D transposes: the runs in input order but for the last two, swapped.
    let size = |run: &[usize]| run.iter().map(|&k| shape[kept[k]]).product::<usize>();
    let first = |i: usize| runs[i][0];
    let batch_first = (0..n - 2).all(|i| first(i) < first(i + 1).min(first(n - 1)));
    if batch_first && first(n - 1) < first(n - 2) {
        let batch: usize = runs[..n - 2].iter().map(|r| size(r)).product();
        let (rows, cols) = (size(&runs[n - 1]), size(&runs[n - 2]));
        return Some(transpose_planes(data, batch, rows, cols, width));
    }
    let mut out = Vec::with_capacity(data.len());
    for at in transpose_order(shape, perm)? {
        out.extend_from_slice(&data[at * width..(at + 1) * width]);
    }
    Some(out)
}

/// `batch` row-major `rows x cols` planes of `width`-byte elements, each transposed, in tiles
/// of 32 x 32 elements.
fn transpose_planes(data: &[u8], batch: usize, rows: usize, cols: usize, width: usize) -> Vec<u8> {
    const TILE: usize = 32;
    let mut out = vec![0u8; data.len()];
    let plane = rows * cols * width;
    for b in 0..batch {
        let (src, dst) = (&data[b * plane..][..plane], &mut out[b * plane..][..plane]);
        for r0 in (0..rows).step_by(TILE) {
            for c0 in (0..cols).step_by(TILE) {
                for c in c0..(c0 + TILE).min(cols) {
                    for r in r0..(r0 + TILE).min(rows) {
                        let from = (r * cols + c) * width;
                        let to = (c * rows + r) * width;
                        dst[to..to + width].copy_from_slice(&src[from..from + width]);
                    }
                }
            }
        }
    }
    out
}

/// Whether `perm` is a permutation of `rank` dims.
fn check_perm(rank: usize, perm: &[usize]) -> Option<()> {
    let mut seen = vec![false; rank];
    for &p in perm {
        if p >= rank || std::mem::replace(&mut seen[p], true) {
            return None;
        }
    }
    (perm.len() == rank).then_some(())
}

/// The storage width in bytes of one dense element of type `element`, or `None` if dense
/// attributes cannot hold it (a zero-width integer among them).
pub fn dense_element_bytes(kind: &TypeKind) -> Option<usize> {
    match kind {
        // A zero-width element would take no bytes: dense constants do not hold them.
        TypeKind::Integer { width } | TypeKind::SignedInteger { width, .. } if *width > 0 => {
            Some((*width as usize).div_ceil(8))
        }
        TypeKind::Index => Some(8),
        TypeKind::Float(f) => Some(f.width() as usize / 8),
        TypeKind::ExtFloat(f) => f.wide_layout().map(|l| l.width as usize / 8),
        _ => None,
    }
}

/// One element of a dense constant, decoded.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum DenseValue {
    Int(i128),
    Float(f64),
}

impl DenseElements {
    /// The number of elements the type describes (1 for a splat's stored payload).
    pub fn stored_len(&self, elem_bytes: usize) -> usize {
        self.data.len() / elem_bytes.max(1)
    }
}

/// Zero-extends the low `width` bits of `v`.
pub fn zero_extend(v: i128, width: u32) -> i128 {
    if width >= 128 {
        return v;
    }
    // In `u128`: at width 127 the mask's `1 << width` is no `i128`.
    (v as u128 & ((1u128 << width) - 1)) as i128
}

/// The canonical stored value of integer `v` in integer type `kind`: `v` truncated to the
/// type's width, then zero-extended for an unsigned type and sign-extended otherwise.
pub fn normalize_int(kind: &TypeKind, v: i128) -> i128 {
    match kind {
        TypeKind::Integer { width: 0 } | TypeKind::SignedInteger { width: 0, .. } => 0,
        TypeKind::Integer { width: 1 } => v & 1,
        TypeKind::Integer { width }
        | TypeKind::SignedInteger {
            width,
            signed: true,
        } => sign_extend(v, *width),
        TypeKind::SignedInteger {
            width,
            signed: false,
        } => zero_extend(v, *width),
        _ => sign_extend(v, 64),
    }
}

/// Whether `kind` is an unsigned integer type (`ui8`).
pub fn is_unsigned(kind: &TypeKind) -> bool {
    matches!(kind, TypeKind::SignedInteger { signed: false, .. })
}

/// Sign-extends the low `width` bits of `v`.
pub fn sign_extend(v: i128, width: u32) -> i128 {
    if width == 0 || width >= 128 {
        return v;
    }
    let shift = 128 - width;
    (v << shift) >> shift
}

impl Context {
    /// Interns an attribute. A dense constant whose elements are all equal is stored as a splat,
    /// as MLIR does, so each constant has one form however it was written.
    pub fn intern_attr(&mut self, mut kind: AttrKind) -> Attribute {
        if let AttrKind::DenseElements(d) = &mut kind {
            let n = dense_element_bytes(self.type_kind(self.element_type(d.ty))).unwrap_or(1);
            if !d.splat && d.data.len() >= n && d.data.chunks(n).all(|e| *e == d.data[..n]) {
                d.splat = true;
                d.data = d.data[..n].into();
            }
        }
        // Small attributes go through the context's lock-free cache; dense payloads are not
        // duplicated into it.
        if matches!(
            kind,
            AttrKind::DenseElements(_) | AttrKind::DenseArray { .. }
        ) {
            return Attribute::from_index(self.interned.attrs.intern(kind));
        }
        if let Some(a) = self.attr_cache.get(&kind) {
            return *a;
        }
        if matches!(kind, AttrKind::AffineMap(_) | AttrKind::IntegerSet(_)) {
            self.interned
                .has_affine
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        let a = Attribute::from_index(self.interned.attrs.intern(kind.clone()));
        self.attr_cache.insert(kind, a);
        a
    }

    /// The structure of `attr`.
    #[inline]
    pub fn attr_kind(&self, attr: Attribute) -> &AttrKind {
        self.interned.attrs.get(attr.index())
    }

    /// An integer attribute of type `ty` (an integer or `index` type); `value` is truncated to the
    /// type's width.
    pub fn integer_attr(&mut self, value: i128, ty: Type) -> Attribute {
        let kind = self.type_kind(ty);
        // -1 is 2^200 - 1 in a `ui200`, which no `i128` holds.
        if let TypeKind::SignedInteger {
            width: 129..,
            signed: false,
        } = *kind
        {
            if value < 0 {
                return self.wide_integer_attr(&value.to_le_bytes(), ty);
            }
        }
        let value = normalize_int(kind, value);
        self.intern_attr(AttrKind::Integer { value, ty })
    }

    /// An integer attribute of integer type `ty` wider than 128 bits, from the little-endian
    /// two's-complement `bytes` of its value, truncated to the type's width (sign-extended to it
    /// when shorter); an `Integer` when the value fits an `i128`.
    pub fn wide_integer_attr(&mut self, bytes: &[u8], ty: Type) -> Attribute {
        let kind = self.type_kind(ty);
        let unsigned = is_unsigned(kind);
        let width = match kind {
            TypeKind::Integer { width } | TypeKind::SignedInteger { width, .. } => *width,
            _ => 64,
        };
        let bits = crate::wide_int::resize(bytes, width, unsigned);
        match crate::wide_int::to_i128(&bits, unsigned) {
            Some(value) => self.intern_attr(AttrKind::Integer { value, ty }),
            None => self.intern_attr(AttrKind::WideInteger { bits, ty }),
        }
    }

    /// `true` or `false` (an `i1` integer attribute).
    pub fn bool_attr(&mut self, value: bool) -> Attribute {
        self.intern_attr(AttrKind::Integer {
            value: value as i128,
            ty: Type::I1,
        })
    }

    /// A float attribute of float type `ty`, rounded to the type's precision.
    pub fn float_attr(&mut self, value: f64, ty: Type) -> Attribute {
        let value = self.float_kind(ty).map_or(value, |k| k.round(value));
        self.intern_attr(AttrKind::Float {
            bits: value.to_bits(),
            ty,
        })
    }

    /// A float attribute of format `kind` (`f80` or `f128`: one with a
    /// [`wide layout`](ExtFloatKind::wide_layout)) holding bit pattern `bits`, kept as APFloat
    /// writes it back; `None` for another format or bits wider than the format.
    pub fn wide_float_attr(&mut self, bits: u128, kind: ExtFloatKind) -> Option<Attribute> {
        let layout = kind.wide_layout().filter(|l| l.holds(bits))?;
        let ty = self.intern_type(TypeKind::ExtFloat(kind));
        Some(self.intern_attr(AttrKind::WideFloat {
            bits: layout.canonical(bits),
            ty,
        }))
    }

    /// Sets the blob of builtin resource `name`, as a `{-# dialect_resources: ... #-}` block
    /// holds it: the alignment as four little-endian bytes, then the data.
    pub fn set_resource_blob(&self, name: &str, blob: &[u8]) {
        let mut resources = self
            .interned
            .resources
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        resources.insert(name.into(), blob.into());
    }

    /// The blob of builtin resource `name` (see [`Context::set_resource_blob`]), if it has one.
    pub fn resource_blob(&self, name: &str) -> Option<std::sync::Arc<[u8]>> {
        let resources = self
            .interned
            .resources
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        resources.get(name).cloned()
    }

    /// A string attribute.
    pub fn string_attr(&mut self, s: &str) -> Attribute {
        self.intern_attr(AttrKind::String(s.into()))
    }

    /// A string attribute of type `ty`; `none` gives the plain [`AttrKind::String`].
    pub fn typed_string_attr(&mut self, s: &str, ty: Type) -> Attribute {
        if ty == Type::NONE {
            return self.string_attr(s);
        }
        self.intern_attr(AttrKind::TypedString {
            value: s.into(),
            ty,
        })
    }

    /// The unit attribute.
    pub fn unit_attr(&mut self) -> Attribute {
        self.intern_attr(AttrKind::Unit)
    }

    /// A type attribute.
    pub fn type_attr(&mut self, ty: Type) -> Attribute {
        self.intern_attr(AttrKind::Type(ty))
    }

    /// An array attribute.
    pub fn array_attr(&mut self, elements: &[Attribute]) -> Attribute {
        self.intern_attr(AttrKind::Array(elements.into()))
    }

    /// A dictionary attribute; entries are sorted by name, and a later duplicate replaces an
    /// earlier one.
    pub fn dict_attr(&mut self, entries: &[NamedAttr]) -> Attribute {
        let mut sorted: Vec<NamedAttr> = Vec::with_capacity(entries.len());
        for e in entries {
            self.insert_sorted(&mut sorted, *e);
        }
        self.intern_attr(AttrKind::Dict(sorted.into()))
    }

    /// A flat symbol reference `@name`.
    pub fn symbol_ref_attr(&mut self, name: &str) -> Attribute {
        let id = self.ident(name);
        self.intern_attr(AttrKind::SymbolRef(Box::new([id])))
    }

    /// Inserts `attr` into a list kept sorted by name string, replacing an entry of the same name.
    pub fn insert_sorted(&self, list: &mut Vec<NamedAttr>, attr: NamedAttr) {
        let key = self.ident_str(attr.name);
        match list.binary_search_by(|e| self.ident_str(e.name).cmp(key)) {
            Ok(i) => list[i] = attr,
            Err(i) => list.insert(i, attr),
        }
    }

    /// The value of an integer attribute.
    pub fn attr_as_int(&self, attr: Attribute) -> Option<i128> {
        match self.attr_kind(attr) {
            AttrKind::Integer { value, .. } => Some(*value),
            _ => None,
        }
    }

    /// The value of a float attribute.
    pub fn attr_as_float(&self, attr: Attribute) -> Option<f64> {
        match self.attr_kind(attr) {
            AttrKind::Float { bits, .. } => Some(f64::from_bits(*bits)),
            _ => None,
        }
    }

    /// The text of a string attribute, typed or not.
    pub fn attr_as_str(&self, attr: Attribute) -> Option<&str> {
        match self.attr_kind(attr) {
            AttrKind::String(s) | AttrKind::TypedString { value: s, .. } => Some(s),
            _ => None,
        }
    }

    /// The type of a type attribute.
    pub fn attr_as_type(&self, attr: Attribute) -> Option<Type> {
        match self.attr_kind(attr) {
            AttrKind::Type(t) => Some(*t),
            _ => None,
        }
    }

    /// The root name of a symbol reference attribute.
    pub fn attr_as_symbol(&self, attr: Attribute) -> Option<Ident> {
        match self.attr_kind(attr) {
            AttrKind::SymbolRef(path) => path.first().copied(),
            _ => None,
        }
    }

    /// The type an attribute carries, as MLIR's `TypedAttr`: that of a constant (integer,
    /// float, dense), a string or an opaque attribute (`none` unless written with one).
    pub fn attr_type(&self, attr: Attribute) -> Option<Type> {
        match self.attr_kind(attr) {
            AttrKind::Integer { ty, .. }
            | AttrKind::WideInteger { ty, .. }
            | AttrKind::Float { ty, .. }
            | AttrKind::WideFloat { ty, .. }
            | AttrKind::TypedString { ty, .. }
            | AttrKind::Opaque { ty, .. } => Some(*ty),
            AttrKind::String(_) => Some(Type::NONE),
            AttrKind::DenseElements(d) => Some(d.ty),
            AttrKind::DenseResource { ty, .. } => Some(*ty),
            _ => None,
        }
    }

    /// Decodes element `i` of a dense constant (any `i` for a splat). An element of an integer
    /// type wider than 128 bits reads as its low 128 bits ([`crate::wide_int`] reads it whole),
    /// and one of a format wider than `f64` as its bits, an integer: read those with
    /// [`Context::dense_element_bits`].
    pub fn dense_element(&self, dense: &DenseElements, i: usize) -> DenseValue {
        let kind = self.type_kind(self.element_type(dense.ty));
        decode_dense_value(kind, self.dense_element_bits(dense, i))
    }

    /// Elements `0..count` of a dense constant, decoded as [`Context::dense_element`] does
    /// (a splat repeats its one element), reading the element type once.
    pub fn dense_values<'d>(
        &'d self,
        dense: &'d DenseElements,
        count: usize,
    ) -> impl Iterator<Item = DenseValue> + 'd {
        let kind = self.type_kind(self.element_type(dense.ty));
        let n = dense_element_bytes(kind).unwrap_or(1);
        (0..count).map(move |i| {
            let at = if dense.splat { 0 } else { i * n };
            decode_dense_value(kind, packed_bits(&dense.data[at..at + n]))
        })
    }

    /// The least and the greatest of elements `0..count` of a dense constant of an integer or
    /// `index` type (what index tables hold), each read as [`Context::dense_element`] reads it
    /// (a splat repeats its one element); `None` for another element type or no element.
    /// Decoded straight from the packed bytes, without a [`DenseValue`] per element: an im2col
    /// window table has one element per tap and output pixel, and decoding each as a value
    /// cost `lower` milliseconds per model.
    pub fn dense_int_range(&self, dense: &DenseElements, count: usize) -> Option<(i128, i128)> {
        let kind = self.type_kind(self.element_type(dense.ty));
        if !matches!(
            kind,
            TypeKind::Integer { .. } | TypeKind::SignedInteger { .. } | TypeKind::Index
        ) {
            return None;
        }
        let n = dense_element_bytes(kind)?;
        let stored = if dense.splat { 1 } else { count };
        let chunks = dense.data.get(..stored.checked_mul(n)?)?.chunks_exact(n);
        // The signless 32- and 64-bit tables of gathers read as the plain integers they are
        // (`lower` on qdq_convnet 2.0–2.4 ms so, against 3.6–4.2 with every element through
        // `normalize_int`); other types as they decode.
        match kind {
            TypeKind::Integer { width: 32 } => min_max(
                chunks.map(|c| i32::from_le_bytes(c.try_into().unwrap_or_default()) as i128),
            ),
            TypeKind::Integer { width: 64 } => min_max(
                chunks.map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()) as i128),
            ),
            _ => min_max(chunks.map(|c| normalize_int(kind, packed_bits(c) as i128))),
        }
    }

    /// The stored bits of element `i` of a dense constant (any `i` for a splat); an element
    /// wider than 128 bits contributes its low 16 bytes.
    pub fn dense_element_bits(&self, dense: &DenseElements, i: usize) -> u128 {
        packed_bits(self.dense_element_data(dense, i))
    }

    /// The stored little-endian bytes of element `i` of a dense constant (any `i` for a splat).
    pub fn dense_element_data<'d>(&self, dense: &'d DenseElements, i: usize) -> &'d [u8] {
        let n = dense_element_bytes(self.type_kind(self.element_type(dense.ty))).unwrap_or(1);
        let at = if dense.splat { 0 } else { i * n };
        &dense.data[at..at + n]
    }

    /// A dense elements attribute with its element type made signless (`ui8` → `i8`) and the
    /// same packed bytes, which stand for the same bits at every width; any other attribute is
    /// returned as it is.
    pub fn dense_signless(&mut self, attr: Attribute) -> Attribute {
        let AttrKind::DenseElements(dense) = self.attr_kind(attr) else {
            return attr;
        };
        let elem = self.element_type(dense.ty);
        let signless = self.signless(elem);
        if signless == elem {
            return attr;
        }
        let (splat, data) = (dense.splat, dense.data.clone());
        let ty = self.with_element_type(dense.ty, signless);
        self.intern_attr(AttrKind::DenseElements(DenseElements { ty, splat, data }))
    }

    /// Dense elements attribute `attr` of static shape `shape` transposed by `perm` (result dim
    /// `i` is input dim `perm[i]`) into shaped type `ty` (which may also reshape the result),
    /// moving the stored bytes without decoding them. `None` for other attributes, or a `perm`
    /// or `ty` that does not fit.
    pub fn dense_transposed(
        &mut self,
        attr: Attribute,
        shape: &[usize],
        perm: &[usize],
        ty: Type,
    ) -> Option<Attribute> {
        let AttrKind::DenseElements(dense) = self.attr_kind(attr) else {
            return None;
        };
        let elem = self.element_type(dense.ty);
        let width = dense_element_bytes(self.type_kind(elem))?;
        let count = shape.iter().product::<usize>();
        let fits = self.element_type(ty) == elem
            && self.shape(ty).is_some_and(|s| {
                s.iter()
                    .map(|&d| usize::try_from(d).ok())
                    .product::<Option<usize>>()
                    == Some(count)
            });
        if !fits || (!dense.splat && dense.data.len() != count * width) {
            return None;
        }
        let data: Box<[u8]> = if dense.splat {
            dense.data.clone()
        } else {
            transpose_bytes(&dense.data, shape, perm, width)?.into()
        };
        let splat = dense.splat;
        Some(self.intern_attr(AttrKind::DenseElements(DenseElements { ty, splat, data })))
    }

    /// Builds a dense constant of shaped type `ty` from decoded values: one value makes a splat.
    pub fn dense_attr(&mut self, ty: Type, values: &[DenseValue]) -> Attribute {
        self.dense_attr_from(ty, values.iter().copied())
    }

    /// [`Context::dense_attr`] of the values `values` yields, encoded as they come.
    pub fn dense_attr_from(
        &mut self,
        ty: Type,
        values: impl ExactSizeIterator<Item = DenseValue>,
    ) -> Attribute {
        let elem = self.element_type(ty);
        let kind = self.type_kind(elem).clone();
        let n = dense_element_bytes(&kind).unwrap_or(1);
        let mut data = Vec::with_capacity(values.len() * n);
        for v in values {
            encode_dense_value(&kind, v, n, &mut data);
        }
        self.dense_attr_packed(ty, data)
    }

    /// [`Context::dense_attr`] of elements already packed as the attribute stores them
    /// (little-endian, [`dense_element_bytes`] each): no [`DenseValue`] per element, for the
    /// tables and weights of megabytes that importers and decompositions build. One element
    /// makes a splat.
    pub fn dense_attr_packed(&mut self, ty: Type, data: Vec<u8>) -> Attribute {
        let n = dense_element_bytes(self.type_kind(self.element_type(ty))).unwrap_or(1);
        self.intern_attr(AttrKind::DenseElements(DenseElements {
            ty,
            splat: data.len() == n,
            data: data.into(),
        }))
    }
}

/// The value of one element of type `kind` whose stored bits are `bits`.
fn decode_dense_value(kind: &TypeKind, bits: u128) -> DenseValue {
    match kind {
        TypeKind::Float(f) => DenseValue::Float(f.from_bits(bits as u64)),
        TypeKind::Integer { .. } | TypeKind::SignedInteger { .. } => {
            DenseValue::Int(normalize_int(kind, bits as i128))
        }
        TypeKind::ExtFloat(_) => DenseValue::Int(bits as i128),
        _ => DenseValue::Int(bits as i64 as i128),
    }
}

/// The least and the greatest of `values`, `None` when there is none.
fn min_max(mut values: impl Iterator<Item = i128>) -> Option<(i128, i128)> {
    let first = values.next()?;
    Some(values.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
}

/// The little-endian bits of one stored element; an element wider than 128 bits contributes its
/// low 16 bytes.
fn packed_bits(bytes: &[u8]) -> u128 {
    match *bytes {
        [b] => return b as u128,
        [b0, b1] => return u16::from_le_bytes([b0, b1]) as u128,
        [b0, b1, b2, b3] => return u32::from_le_bytes([b0, b1, b2, b3]) as u128,
        _ => {}
    }
    if let Ok(b) = <[u8; 8]>::try_from(bytes) {
        return u64::from_le_bytes(b) as u128;
    }
    let held = bytes.len().min(16);
    let mut raw = [0u8; 16];
    raw[..held].copy_from_slice(&bytes[..held]);
    u128::from_le_bytes(raw)
}

/// Appends the packed bytes of `v` as an element of type `kind` (`n` bytes wide) to `out`.
pub(crate) fn encode_dense_value(kind: &TypeKind, v: DenseValue, n: usize, out: &mut Vec<u8>) {
    let bits: u128 = match (kind, v) {
        (TypeKind::Float(f), DenseValue::Float(x)) => f.to_bits(x) as u128,
        (TypeKind::Float(f), DenseValue::Int(x)) => f.to_bits(x as f64) as u128,
        // `f80` and `f128` hold every `f64` exactly; the other formats have no dense storage
        // (`dense_element_bytes`).
        (TypeKind::ExtFloat(f), DenseValue::Float(x)) => {
            f.wide_layout().map_or(0, |l| l.from_f64(x))
        }
        // Integers are stored canonically (an `i1` as 0 or 1, others sign-extended from their
        // width), so equal constants have equal bytes.
        (_, DenseValue::Int(x)) => normalize_int(kind, x) as u128,
        (_, DenseValue::Float(x)) => x as i128 as u128,
    };
    // Elements wider than 128 bits (`i200`) take the sign of the 128-bit value in their high
    // bytes.
    let bytes = bits.to_le_bytes();
    if n <= bytes.len() {
        out.extend_from_slice(&bytes[..n]);
    } else {
        let fill = if (bits as i128) < 0 { 0xff } else { 0 };
        out.extend_from_slice(&bytes);
        out.resize(out.len() + n - bytes.len(), fill);
    }
}

/// A Rust value an attribute holds: what the typed attribute accessors of
/// [`define_op!`](crate::define_op) return (`attributes = [axis: i64, factor: f64]` gives
/// `op.axis(ctx) -> Option<i64>`), instead of an [`Attribute`] to decode at every use; and how
/// the value is written in an op's declarative format ([`crate::format`]): as a bare literal,
/// without the `: type` of the generic attribute syntax.
pub trait AttrValue: Sized {
    /// What the verifier says the attribute must be, after "requires": `an i64`, `a string`.
    const DESCRIPTION: &'static str;
    /// The value of `attr`, when it is an attribute of this kind.
    fn from_attr(ctx: &Context, attr: Attribute) -> Option<Self>;
    /// The attribute holding this value, in the form [`AttrValue::parse_value`] builds.
    fn to_attr(&self, ctx: &mut Context) -> Attribute;
    /// Parses the value's literal into the attribute that holds it.
    fn parse_value(p: &mut Parser<'_>) -> PResult<Attribute>;
    /// Prints the literal of `attr`, an attribute that [`AttrValue::is_written_form`] accepts.
    fn print_value(p: &mut Printer<'_>, attr: Attribute);
    /// True when `attr` is exactly what [`AttrValue::parse_value`] builds (an `i64` attribute,
    /// not an `i32` one that [`AttrValue::from_attr`] also reads), so that printing its literal
    /// and parsing it back gives the same attribute.
    fn is_written_form(ctx: &Context, attr: Attribute) -> bool;
}

/// An integer attribute whose value fits an `i64`; written `3`, `-1` (an `i64` attribute).
impl AttrValue for i64 {
    const DESCRIPTION: &'static str = "an i64";
    fn from_attr(ctx: &Context, attr: Attribute) -> Option<Self> {
        ctx.attr_as_int(attr).and_then(|v| i64::try_from(v).ok())
    }
    fn to_attr(&self, ctx: &mut Context) -> Attribute {
        ctx.integer_attr((*self).into(), Type::I64)
    }
    fn parse_value(p: &mut Parser<'_>) -> PResult<Attribute> {
        let value = parse_i64(p)?;
        Ok(p.ctx().integer_attr(value.into(), Type::I64))
    }
    fn print_value(p: &mut Printer<'_>, attr: Attribute) {
        let value = Self::from_attr(p.ctx(), attr).unwrap_or_default();
        p.write(&value.to_string());
    }
    fn is_written_form(ctx: &Context, attr: Attribute) -> bool {
        matches!(ctx.attr_kind(attr), AttrKind::Integer { ty, .. } if *ty == Type::I64)
            && Self::from_attr(ctx, attr).is_some()
    }
}

/// A float attribute, widened to `f64`; written `0.5`, `6` (an `f64` attribute).
impl AttrValue for f64 {
    const DESCRIPTION: &'static str = "an f64";
    fn from_attr(ctx: &Context, attr: Attribute) -> Option<Self> {
        ctx.attr_as_float(attr)
    }
    fn to_attr(&self, ctx: &mut Context) -> Attribute {
        ctx.float_attr(*self, Type::F64)
    }
    fn parse_value(p: &mut Parser<'_>) -> PResult<Attribute> {
        // The printer writes infinities and NaNs (and decimals that would not read back) as
        // hex bits.
        let value = p.parse_float_of(FloatKind::F64)?;
        Ok(p.ctx().float_attr(value, Type::F64))
    }
    fn print_value(p: &mut Printer<'_>, attr: Attribute) {
        let value = Self::from_attr(p.ctx(), attr).unwrap_or(f64::NAN);
        p.print_float(value, FloatKind::F64);
    }
    fn is_written_form(ctx: &Context, attr: Attribute) -> bool {
        matches!(ctx.attr_kind(attr), AttrKind::Float { ty, .. } if *ty == Type::F64)
    }
}

/// An `i1` integer attribute; written `true`, `false`.
impl AttrValue for bool {
    const DESCRIPTION: &'static str = "an i1";
    fn from_attr(ctx: &Context, attr: Attribute) -> Option<Self> {
        match ctx.attr_kind(attr) {
            AttrKind::Integer { value, ty } if *ty == Type::I1 => Some(*value != 0),
            _ => None,
        }
    }
    fn to_attr(&self, ctx: &mut Context) -> Attribute {
        ctx.bool_attr(*self)
    }
    fn parse_value(p: &mut Parser<'_>) -> PResult<Attribute> {
        let value = match p.peek_text() {
            "true" if p.consume_keyword("true") => true,
            "false" if p.consume_keyword("false") => false,
            _ => return Err(p.error("expected 'true' or 'false'")),
        };
        Ok(p.ctx().bool_attr(value))
    }
    fn print_value(p: &mut Printer<'_>, attr: Attribute) {
        let value = Self::from_attr(p.ctx(), attr).unwrap_or_default();
        p.write(if value { "true" } else { "false" });
    }
    fn is_written_form(ctx: &Context, attr: Attribute) -> bool {
        Self::from_attr(ctx, attr).is_some()
    }
}

/// A string attribute; written `"text"`.
impl AttrValue for String {
    const DESCRIPTION: &'static str = "a string";
    fn from_attr(ctx: &Context, attr: Attribute) -> Option<Self> {
        ctx.attr_as_str(attr).map(str::to_string)
    }
    fn to_attr(&self, ctx: &mut Context) -> Attribute {
        ctx.string_attr(self)
    }
    fn parse_value(p: &mut Parser<'_>) -> PResult<Attribute> {
        let value = p.parse_string_literal()?;
        Ok(p.ctx().string_attr(&value))
    }
    fn print_value(p: &mut Printer<'_>, attr: Attribute) {
        let value = Self::from_attr(p.ctx(), attr).unwrap_or_default();
        p.print_string(&value);
    }
    fn is_written_form(ctx: &Context, attr: Attribute) -> bool {
        matches!(ctx.attr_kind(attr), AttrKind::String(_))
    }
}

/// A dense array attribute (`array<i64: 0, 2>`); written `[0, 2]`.
impl AttrValue for Vec<i64> {
    const DESCRIPTION: &'static str = "an array<i64>";
    fn from_attr(ctx: &Context, attr: Attribute) -> Option<Self> {
        match ctx.attr_kind(attr) {
            AttrKind::DenseArray { values, .. } => Some(values.to_vec()),
            _ => None,
        }
    }
    fn to_attr(&self, ctx: &mut Context) -> Attribute {
        ctx.intern_attr(AttrKind::DenseArray {
            element: Type::I64,
            values: self.as_slice().into(),
        })
    }
    fn parse_value(p: &mut Parser<'_>) -> PResult<Attribute> {
        let mut values = Vec::new();
        p.parse_delimited(Tok::LSquare, Tok::RSquare, "']'", |p| {
            values.push(parse_i64(p)?);
            Ok(())
        })?;
        Ok(p.ctx().intern_attr(AttrKind::DenseArray {
            element: Type::I64,
            values: values.into(),
        }))
    }
    fn print_value(p: &mut Printer<'_>, attr: Attribute) {
        let values = Self::from_attr(p.ctx(), attr).unwrap_or_default();
        let items: Vec<String> = values.iter().map(i64::to_string).collect();
        p.write(&format!("[{}]", items.join(", ")));
    }
    fn is_written_form(ctx: &Context, attr: Attribute) -> bool {
        matches!(ctx.attr_kind(attr), AttrKind::DenseArray { element, .. } if *element == Type::I64)
    }
}

/// A type attribute; written as the type.
impl AttrValue for Type {
    const DESCRIPTION: &'static str = "a type";
    fn from_attr(ctx: &Context, attr: Attribute) -> Option<Self> {
        ctx.attr_as_type(attr)
    }
    fn to_attr(&self, ctx: &mut Context) -> Attribute {
        ctx.type_attr(*self)
    }
    fn parse_value(p: &mut Parser<'_>) -> PResult<Attribute> {
        let ty = p.parse_type()?;
        Ok(p.ctx().type_attr(ty))
    }
    fn print_value(p: &mut Printer<'_>, attr: Attribute) {
        let ty = Self::from_attr(p.ctx(), attr).unwrap_or(Type::NONE);
        p.print_type(ty);
    }
    fn is_written_form(ctx: &Context, attr: Attribute) -> bool {
        Self::from_attr(ctx, attr).is_some()
    }
}

/// A decimal integer literal with an optional `-`, as an `i64`.
fn parse_i64(p: &mut Parser<'_>) -> PResult<i64> {
    let negative = p.consume(Tok::Minus);
    let text = p.peek_text();
    let magnitude = match p.peek() {
        Tok::Integer => text.parse::<i128>().ok(),
        _ => None,
    };
    let value = magnitude
        .map(|m| if negative { -m } else { m })
        .and_then(|v| i64::try_from(v).ok());
    let Some(value) = value else {
        return Err(p.error("expected an integer that fits 64 bits"));
    };
    p.consume(Tok::Integer);
    Ok(value)
}
