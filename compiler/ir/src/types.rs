//! Interned types: the builtin type set plus dialect-defined and opaque types.
//!
//! A [`Type`] is a four-byte id; two types are equal exactly when their ids are. The common scalar
//! types are interned first by every context, so they are also constants (`Type::I32`).

use crate::attributes::Attribute;
use crate::intern::Ident;
use crate::Context;

crate::entity::entity!(
    /// An interned type.
    Type
);

/// The marker for a dynamic (`?`) dimension in a shape, as in MLIR's `ShapedType::kDynamic`.
pub const DYNAMIC: i64 = i64::MIN;

/// The floating-point formats of the builtin type set.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FloatKind {
    F16,
    BF16,
    F32,
    F64,
}

impl FloatKind {
    /// The width in bits.
    pub fn width(self) -> u32 {
        match self {
            FloatKind::F16 | FloatKind::BF16 => 16,
            FloatKind::F32 => 32,
            FloatKind::F64 => 64,
        }
    }

    /// The number of explicitly stored mantissa bits.
    pub fn mantissa_bits(self) -> u32 {
        match self {
            FloatKind::F16 => 10,
            FloatKind::BF16 => 7,
            FloatKind::F32 => 23,
            FloatKind::F64 => 52,
        }
    }

    /// The largest exponent of a finite value, which is also the exponent bias (the smallest
    /// normal exponent is `1 - max_exponent`).
    pub fn max_exponent(self) -> i32 {
        match self {
            FloatKind::F16 => 15,
            FloatKind::BF16 | FloatKind::F32 => 127,
            FloatKind::F64 => 1023,
        }
    }

    /// The bit layout of this format.
    pub fn layout(self) -> FloatLayout {
        FloatLayout {
            width: self.width(),
            mantissa_bits: self.mantissa_bits(),
            max_exponent: self.max_exponent(),
            explicit_integer_bit: false,
        }
    }

    /// The keyword that spells this type.
    pub fn keyword(self) -> &'static str {
        match self {
            FloatKind::F16 => "f16",
            FloatKind::BF16 => "bf16",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
        }
    }

    /// Rounds an `f64` to the nearest value this format represents (returned widened to `f64`).
    pub fn round(self, v: f64) -> f64 {
        if v.is_nan() {
            return self.from_bits(self.to_bits(v));
        }
        match self {
            FloatKind::F64 => v,
            FloatKind::F32 => v as f32 as f64,
            FloatKind::F16 => f16_bits_to_f64(f64_to_f16_bits(v)),
            FloatKind::BF16 => bf16_bits_to_f64(f64_to_bf16_bits(v)),
        }
    }

    /// The IEEE bit pattern of `v` in this format.
    pub fn to_bits(self, v: f64) -> u64 {
        if v.is_nan() && self != FloatKind::F64 {
            // `as` conversions may quiet a NaN or drop its payload; move the bits by hand.
            let (bits, m) = (v.to_bits(), self.mantissa_bits());
            let sign = (bits >> 63) << (self.width() - 1);
            let exponent = ((1u64 << (self.width() - 1 - m)) - 1) << m;
            // A payload only in the dropped low bits would read as infinity: make it quiet.
            let payload = match (bits & ((1u64 << 52) - 1)) >> (52 - m) {
                0 => 1 << (m - 1),
                p => p,
            };
            return sign | exponent | payload;
        }
        match self {
            FloatKind::F64 => v.to_bits(),
            FloatKind::F32 => (v as f32).to_bits() as u64,
            FloatKind::F16 => f64_to_f16_bits(v) as u64,
            FloatKind::BF16 => f64_to_bf16_bits(v) as u64,
        }
    }

    /// The value of an IEEE bit pattern in this format.
    pub fn from_bits(self, bits: u64) -> f64 {
        let m = self.mantissa_bits();
        let exponent_mask = ((1u64 << (self.width() - 1 - m)) - 1) << m;
        let mantissa = bits & ((1u64 << m) - 1);
        if self != FloatKind::F64 && bits & exponent_mask == exponent_mask && mantissa != 0 {
            // A NaN: keep its sign and payload (see `to_bits`).
            let sign = (bits >> (self.width() - 1)) << 63;
            return f64::from_bits(sign | 0x7ff << 52 | mantissa << (52 - m));
        }
        match self {
            FloatKind::F64 => f64::from_bits(bits),
            FloatKind::F32 => f32::from_bits(bits as u32) as f64,
            FloatKind::F16 => f16_bits_to_f64(bits as u16),
            FloatKind::BF16 => bf16_bits_to_f64(bits as u16),
        }
    }
}

fn f64_to_bf16_bits(v: f64) -> u16 {
    let bits = (v as f32).to_bits();
    if (v as f32).is_nan() {
        return ((bits >> 16) as u16) | 0x40;
    }
    // Round to nearest even on the 16 dropped bits.
    let round = 0x7fff + ((bits >> 16) & 1);
    ((bits + round) >> 16) as u16
}

fn bf16_bits_to_f64(b: u16) -> f64 {
    f32::from_bits((b as u32) << 16) as f64
}

fn f64_to_f16_bits(v: f64) -> u16 {
    let x = v as f32;
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if x.is_nan() {
        return sign | 0x7e00;
    }
    let a = x.abs();
    if a >= 65520.0 {
        return sign | 0x7c00;
    }
    if a < 6.103_515_6e-5 {
        // Subnormal or zero: units of 2^-24, round half to even.
        let units = a as f64 * 16_777_216.0;
        let r = units.round_ties_even() as u16;
        return sign | r;
    }
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mant = bits & 0x7f_ffff;
    let mut h = ((exp as u32) << 10) | (mant >> 13);
    let rest = mant & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1) {
        h += 1;
    }
    sign | h as u16
}

fn f16_bits_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let mant = (h & 0x3ff) as f64;
    match exp {
        0 => sign * mant * 2f64.powi(-24),
        31 if mant == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + mant / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// The bit layout of a binary float format: a sign bit, then the exponent (biased by
/// `max_exponent`), then `mantissa_bits` stored fraction bits, below which `f80` alone keeps the
/// leading bit of its significand (the integer bit) instead of implying it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct FloatLayout {
    pub width: u32,
    pub mantissa_bits: u32,
    pub max_exponent: i32,
    pub explicit_integer_bit: bool,
}

/// What a float bit pattern stands for, apart from its sign.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FloatClass {
    /// `significand * 2^exponent`; zero has a zero significand.
    Finite {
        significand: u128,
        exponent: i32,
    },
    Infinity,
    NaN,
}

impl FloatLayout {
    /// The significand's bits, the leading one included.
    pub fn precision(self) -> u32 {
        self.mantissa_bits + 1
    }

    /// Whether `bits` fits the format's width.
    pub fn holds(self, bits: u128) -> bool {
        self.width >= 128 || bits >> self.width == 0
    }

    /// The exponent of the last significand bit of the smallest values (the subnormals).
    pub fn min_exponent(self) -> i32 {
        1 - self.max_exponent - self.mantissa_bits as i32
    }

    fn exponent_shift(self) -> u32 {
        self.mantissa_bits + self.explicit_integer_bit as u32
    }

    /// The exponent field with every bit set (infinities and NaNs).
    fn exponent_ones(self) -> u128 {
        (1 << (self.width - 1 - self.exponent_shift())) - 1
    }

    /// The sign (true for negative) and class of bit pattern `bits`, as LLVM's APFloat reads
    /// them. For `f80` that includes the patterns whose integer bit disagrees with the exponent:
    /// an unnormal (integer bit clear under a nonzero exponent) is a NaN, as is an all-ones
    /// exponent over anything but a lone integer bit; a pseudo-denormal (integer bit set under a
    /// zero exponent) has the value its bits say.
    pub fn decode(self, bits: u128) -> (bool, FloatClass) {
        let negative = bits >> (self.width - 1) & 1 == 1;
        let biased = bits >> self.exponent_shift() & self.exponent_ones();
        let fraction = bits & ((1 << self.mantissa_bits) - 1);
        let integer_bit = !self.explicit_integer_bit || bits >> self.mantissa_bits & 1 == 1;
        let class = if biased == self.exponent_ones() {
            if fraction == 0 && integer_bit {
                FloatClass::Infinity
            } else {
                FloatClass::NaN
            }
        } else if biased == 0 {
            let leading = (self.explicit_integer_bit && integer_bit) as u128;
            FloatClass::Finite {
                significand: fraction | leading << self.mantissa_bits,
                exponent: self.min_exponent(),
            }
        } else if !integer_bit {
            FloatClass::NaN
        } else {
            FloatClass::Finite {
                significand: fraction | 1 << self.mantissa_bits,
                exponent: biased as i32 - self.max_exponent - self.mantissa_bits as i32,
            }
        };
        (negative, class)
    }

    /// The pattern APFloat writes back for a value read from `bits` (see [`Self::decode`]): an
    /// `f80` unnormal becomes the NaN of its significand, a pseudo-denormal the normal pattern
    /// of its value; every other pattern is kept.
    pub fn canonical(self, bits: u128) -> u128 {
        let shift = self.exponent_shift();
        let biased = bits >> shift & self.exponent_ones();
        let integer_bit = bits >> self.mantissa_bits & 1 == 1;
        if !self.explicit_integer_bit || biased == self.exponent_ones() {
            bits
        } else if biased == 0 && integer_bit {
            bits | 1 << shift
        } else if biased != 0 && !integer_bit {
            bits | self.exponent_ones() << shift
        } else {
            bits
        }
    }

    /// The pattern of `v` in this format, which holds every `f64` exactly (`f80`, `f128`):
    /// NaN payloads move to the top of the wider mantissa, as APFloat moves them.
    pub fn from_f64(self, v: f64) -> u128 {
        let bits = v.to_bits();
        let (biased, fraction) = (bits >> 52 & 0x7ff, (bits & ((1 << 52) - 1)) as u128);
        let shift = self.exponent_shift();
        let integer_bit = (self.explicit_integer_bit as u128) << self.mantissa_bits;
        let body = if biased == 0x7ff {
            self.exponent_ones() << shift | integer_bit | fraction << (self.mantissa_bits - 52)
        } else if biased == 0 && fraction == 0 {
            0
        } else {
            // Normalize an `f64` subnormal: every `f64` is a normal number here.
            let (significand, exponent) = if biased == 0 {
                let lead = fraction.leading_zeros() - (128 - 53);
                (fraction << lead, -1074 - lead as i32)
            } else {
                (fraction | 1 << 52, biased as i32 - 1075)
            };
            let biased = (exponent + 52 + self.max_exponent) as u128;
            biased << shift
                | integer_bit
                | (significand & ((1 << 52) - 1)) << (self.mantissa_bits - 52)
        };
        ((bits >> 63) as u128) << (self.width - 1) | body
    }
}

/// The builtin float formats dlc parses and prints but does not compute with (it has no
/// arithmetic or lowering for them, and constants only of `f80` and `f128`): the 4-, 6- and
/// 8-bit formats, `tf32`, `f80` and `f128`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ExtFloatKind {
    F4E2M1FN,
    F6E2M3FN,
    F6E3M2FN,
    F8E5M2,
    F8E4M3,
    F8E4M3FN,
    F8E5M2FNUZ,
    F8E4M3FNUZ,
    F8E4M3B11FNUZ,
    F8E3M4,
    F8E8M0FNU,
    TF32,
    F80,
    F128,
}

impl ExtFloatKind {
    /// Every format, in the order MLIR lists them.
    pub const ALL: [ExtFloatKind; 14] = [
        ExtFloatKind::F4E2M1FN,
        ExtFloatKind::F6E2M3FN,
        ExtFloatKind::F6E3M2FN,
        ExtFloatKind::F8E5M2,
        ExtFloatKind::F8E4M3,
        ExtFloatKind::F8E4M3FN,
        ExtFloatKind::F8E5M2FNUZ,
        ExtFloatKind::F8E4M3FNUZ,
        ExtFloatKind::F8E4M3B11FNUZ,
        ExtFloatKind::F8E3M4,
        ExtFloatKind::F8E8M0FNU,
        ExtFloatKind::TF32,
        ExtFloatKind::F80,
        ExtFloatKind::F128,
    ];

    /// The keyword that spells this type.
    pub fn keyword(self) -> &'static str {
        match self {
            ExtFloatKind::F4E2M1FN => "f4E2M1FN",
            ExtFloatKind::F6E2M3FN => "f6E2M3FN",
            ExtFloatKind::F6E3M2FN => "f6E3M2FN",
            ExtFloatKind::F8E5M2 => "f8E5M2",
            ExtFloatKind::F8E4M3 => "f8E4M3",
            ExtFloatKind::F8E4M3FN => "f8E4M3FN",
            ExtFloatKind::F8E5M2FNUZ => "f8E5M2FNUZ",
            ExtFloatKind::F8E4M3FNUZ => "f8E4M3FNUZ",
            ExtFloatKind::F8E4M3B11FNUZ => "f8E4M3B11FNUZ",
            ExtFloatKind::F8E3M4 => "f8E3M4",
            ExtFloatKind::F8E8M0FNU => "f8E8M0FNU",
            ExtFloatKind::TF32 => "tf32",
            ExtFloatKind::F80 => "f80",
            ExtFloatKind::F128 => "f128",
        }
    }

    /// The format a keyword spells.
    pub fn from_keyword(word: &str) -> Option<ExtFloatKind> {
        ExtFloatKind::ALL.into_iter().find(|k| k.keyword() == word)
    }

    /// The layout of the formats wider than `f64` whose constants dlc holds as their own bit
    /// patterns (`f80`, `f128`: see [`AttrKind::WideFloat`](crate::attributes::AttrKind));
    /// `None` for the others.
    pub fn wide_layout(self) -> Option<FloatLayout> {
        let (width, mantissa_bits, explicit_integer_bit) = match self {
            ExtFloatKind::F80 => (80, 63, true),
            ExtFloatKind::F128 => (128, 112, false),
            _ => return None,
        };
        Some(FloatLayout {
            width,
            mantissa_bits,
            max_exponent: 16383,
            explicit_integer_bit,
        })
    }
}

/// The structure of a type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum TypeKind {
    /// `iN`, a signless integer of `width` bits.
    Integer { width: u32 },
    /// `siN` (`signed` true) or `uiN`: an integer of explicit signedness. dlc's own dialects
    /// compute only with signless integers, as MLIR's arith does.
    SignedInteger { width: u32, signed: bool },
    /// `index`, the target's pointer-sized integer for subscripts and loop bounds.
    Index,
    /// `f16`, `bf16`, `f32`, `f64`.
    Float(FloatKind),
    /// A builtin float format dlc only parses and prints (`f8E4M3FN`, `f80`, ...).
    ExtFloat(ExtFloatKind),
    /// `none`.
    None,
    /// `complex<f32>`: a complex number of integer or float parts.
    Complex(Type),
    /// `tuple<i32, f32>`.
    Tuple(Box<[Type]>),
    /// `tensor<4x?xf32>`: a ranked tensor; dynamic dims are [`DYNAMIC`].
    Tensor { shape: Box<[i64]>, element: Type },
    /// `tensor<4xf32, "enc">`: a ranked tensor with an encoding attribute.
    EncodedTensor {
        shape: Box<[i64]>,
        element: Type,
        encoding: Attribute,
    },
    /// `tensor<*xf32>`: a tensor of unknown rank.
    UnrankedTensor(Type),
    /// `vector<4xf32>`: a fixed-length vector; `vector<f32>`, with an empty shape, is a 0-d
    /// vector of one element.
    Vector { shape: Box<[i64]>, element: Type },
    /// `vector<2x[4]xf32>`: a vector with at least one scalable dimension (`scalable[i]` says
    /// whether dimension `i` is).
    ScalableVector {
        shape: Box<[i64]>,
        scalable: Box<[bool]>,
        element: Type,
    },
    /// `memref<4x?xf32, strided<[?, 1]>, 1>`: a ranked buffer reference, with an optional layout
    /// (a `strided<...>` or other attribute; `None` is the identity layout) and memory space
    /// (an integer other than 0, a string, a dictionary or a registered dialect's attribute;
    /// `None` is the default space).
    MemRef {
        shape: Box<[i64]>,
        element: Type,
        layout: Option<Attribute>,
        memory_space: Option<Attribute>,
    },
    /// `memref<*xf32, 1>`: a buffer reference of unknown rank.
    UnrankedMemRef {
        element: Type,
        memory_space: Option<Attribute>,
    },
    /// `(i32, f32) -> i1`.
    Function {
        inputs: Box<[Type]>,
        results: Box<[Type]>,
    },
    /// `!dialect.mnemonic<...>`: a type a registered dialect parses into parameters.
    Dialect {
        dialect: Ident,
        mnemonic: Ident,
        params: Box<[Attribute]>,
    },
    /// `!dialect.body`: a type of an unregistered dialect, kept as text.
    Opaque { dialect: Ident, body: Box<str> },
}

impl Type {
    pub const I1: Type = Type(0);
    pub const I8: Type = Type(1);
    pub const I16: Type = Type(2);
    pub const I32: Type = Type(3);
    pub const I64: Type = Type(4);
    pub const INDEX: Type = Type(5);
    pub const F16: Type = Type(6);
    pub const BF16: Type = Type(7);
    pub const F32: Type = Type(8);
    pub const F64: Type = Type(9);
    pub const NONE: Type = Type(10);
    pub const UI8: Type = Type(11);
    pub const UI16: Type = Type(12);
    pub const UI32: Type = Type(13);
    pub const UI64: Type = Type(14);
}

/// The types every context interns first, in the order of the `Type` constants.
pub(crate) const PREINTERNED: [TypeKind; 15] = [
    TypeKind::Integer { width: 1 },
    TypeKind::Integer { width: 8 },
    TypeKind::Integer { width: 16 },
    TypeKind::Integer { width: 32 },
    TypeKind::Integer { width: 64 },
    TypeKind::Index,
    TypeKind::Float(FloatKind::F16),
    TypeKind::Float(FloatKind::BF16),
    TypeKind::Float(FloatKind::F32),
    TypeKind::Float(FloatKind::F64),
    TypeKind::None,
    TypeKind::SignedInteger {
        width: 8,
        signed: false,
    },
    TypeKind::SignedInteger {
        width: 16,
        signed: false,
    },
    TypeKind::SignedInteger {
        width: 32,
        signed: false,
    },
    TypeKind::SignedInteger {
        width: 64,
        signed: false,
    },
];

impl Context {
    /// Interns a type.
    pub fn intern_type(&mut self, kind: TypeKind) -> Type {
        Type::from_index(self.interned.types.intern(kind))
    }

    /// The structure of `ty`.
    #[inline]
    pub fn type_kind(&self, ty: Type) -> &TypeKind {
        self.interned.types.get(ty.index())
    }

    /// `iN`.
    pub fn integer_type(&mut self, width: u32) -> Type {
        self.intern_type(TypeKind::Integer { width })
    }

    /// A builtin float type.
    pub fn float_type(&self, kind: FloatKind) -> Type {
        match kind {
            FloatKind::F16 => Type::F16,
            FloatKind::BF16 => Type::BF16,
            FloatKind::F32 => Type::F32,
            FloatKind::F64 => Type::F64,
        }
    }

    /// `tensor<shape x element>`; use [`DYNAMIC`] for `?` dims.
    pub fn tensor_type(&mut self, shape: &[i64], element: Type) -> Type {
        self.intern_type(TypeKind::Tensor {
            shape: shape.into(),
            element,
        })
    }

    /// `vector<shape x element>`.
    pub fn vector_type(&mut self, shape: &[i64], element: Type) -> Type {
        self.intern_type(TypeKind::Vector {
            shape: shape.into(),
            element,
        })
    }

    /// `(inputs) -> results`.
    pub fn function_type(&mut self, inputs: &[Type], results: &[Type]) -> Type {
        self.intern_type(TypeKind::Function {
            inputs: inputs.into(),
            results: results.into(),
        })
    }

    /// The width of an integer type, or `None` for other types (`index` included).
    pub fn integer_width(&self, ty: Type) -> Option<u32> {
        match self.type_kind(ty) {
            TypeKind::Integer { width } => Some(*width),
            _ => None,
        }
    }

    /// The float format of a float type.
    pub fn float_kind(&self, ty: Type) -> Option<FloatKind> {
        match self.type_kind(ty) {
            TypeKind::Float(k) => Some(*k),
            _ => None,
        }
    }

    /// The layout of a float type whose constants are held as their own bits (`f80`, `f128`).
    pub fn wide_float_layout(&self, ty: Type) -> Option<FloatLayout> {
        match self.type_kind(ty) {
            TypeKind::ExtFloat(k) => k.wide_layout(),
            _ => None,
        }
    }

    /// `(width, unsigned)` of an integer type of any signedness (`iN`, `siN`, `uiN`); `None` for
    /// other types (`index` included).
    pub fn any_integer(&self, ty: Type) -> Option<(u32, bool)> {
        match self.type_kind(ty) {
            TypeKind::Integer { width } => Some((*width, false)),
            TypeKind::SignedInteger { width, signed } => Some((*width, !*signed)),
            _ => None,
        }
    }

    /// The signless form of an integer type (`ui8` and `si8` → `i8`), which is what `arith`
    /// computes on; every other type is returned as it is.
    pub fn signless(&self, ty: Type) -> Type {
        match *self.type_kind(ty) {
            TypeKind::SignedInteger { width, .. } => {
                Type::from_index(self.interned.types.intern(TypeKind::Integer { width }))
            }
            _ => ty,
        }
    }

    /// True for `iN` and `index`.
    pub fn is_integer_or_index(&self, ty: Type) -> bool {
        matches!(
            self.type_kind(ty),
            TypeKind::Integer { .. } | TypeKind::Index
        )
    }

    /// The element type of a tensor or vector (scalable vectors and encoded tensors
    /// included), or the type itself for scalars.
    pub fn element_type(&self, ty: Type) -> Type {
        match self.type_kind(ty) {
            TypeKind::Tensor { element, .. }
            | TypeKind::EncodedTensor { element, .. }
            | TypeKind::Vector { element, .. }
            | TypeKind::ScalableVector { element, .. } => *element,
            _ => ty,
        }
    }

    /// The shape of a tensor or fixed-length vector type. Encoded tensors and scalable vectors
    /// have none here, since code asking for a shape counts elements: see
    /// [`Context::written_shape`].
    pub fn shape(&self, ty: Type) -> Option<&[i64]> {
        match self.type_kind(ty) {
            TypeKind::Tensor { shape, .. } | TypeKind::Vector { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// The dimensions a ranked tensor (encoded or not) or a vector type is written with; for a
    /// scalable vector, the scalable dimensions' minimum sizes (`[4]` for `vector<[4]xf32>`).
    pub fn written_shape(&self, ty: Type) -> Option<&[i64]> {
        match self.type_kind(ty) {
            TypeKind::Tensor { shape, .. }
            | TypeKind::EncodedTensor { shape, .. }
            | TypeKind::Vector { shape, .. }
            | TypeKind::ScalableVector { shape, .. } => Some(shape),
            _ => None,
        }
    }

    /// The scalable dimensions of a scalable vector type (`None` for every other type).
    pub fn scalable_dims(&self, ty: Type) -> Option<&[bool]> {
        match self.type_kind(ty) {
            TypeKind::ScalableVector { scalable, .. } => Some(scalable),
            _ => None,
        }
    }

    /// `ty`'s shape and container (tensor, encoding, vector, scalable dimensions) with `element`
    /// as the element type; `element` itself for a scalar `ty`.
    pub fn with_element_type(&mut self, ty: Type, element: Type) -> Type {
        match self.type_kind(ty).clone() {
            TypeKind::Tensor { shape, .. } => self.tensor_type(&shape, element),
            TypeKind::EncodedTensor {
                shape, encoding, ..
            } => self.intern_type(TypeKind::EncodedTensor {
                shape,
                element,
                encoding,
            }),
            TypeKind::Vector { shape, .. } => self.vector_type(&shape, element),
            TypeKind::ScalableVector {
                shape, scalable, ..
            } => self.intern_type(TypeKind::ScalableVector {
                shape,
                scalable,
                element,
            }),
            _ => element,
        }
    }

    /// The inputs and results of a function type.
    pub fn function_signature(&self, ty: Type) -> Option<(&[Type], &[Type])> {
        match self.type_kind(ty) {
            TypeKind::Function { inputs, results } => Some((inputs, results)),
            _ => None,
        }
    }
}
