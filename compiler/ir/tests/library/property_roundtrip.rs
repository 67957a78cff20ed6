//! Property tests for the text format: random well-formed IR prints, parses back, verifies and
//! prints to the same text in every form, and no mutation of a valid program panics the parser.
//!
//! The hand-written round-trip tests cover the syntax someone thought of. These build IR through
//! the API instead — random nesting, blocks with arguments, branches between blocks, multi-result
//! ops, every builtin type and attribute kind, and the awkward values (NaN, -0.0, subnormals,
//! `i128::MIN`, escaped and non-ASCII strings) — so the printer and the parser are checked against
//! each other on shapes nobody wrote down.
//!
//! The generator draws every decision from a byte string (the way Hypothesis does): proptest
//! shrinks the bytes, and because an exhausted string answers "the first option" to every
//! question, a shorter string is a smaller program, so failures come back minimal.

use dlc_ir::affine::{AffineExpr, AffineMap, AffineOp, IntegerSet};
use dlc_ir::location::CompositeLocKind;
use dlc_ir::types::ExtFloatKind;
use dlc_ir::{
    parse_source, print_op, verify, AttrKind, Attribute, Block, Context, DenseValue, Location,
    NamedAttr, Op, OpSpec, PrintOptions, Region, Type, TypeKind, Value, DYNAMIC,
};
use proptest::prelude::*;

/// The forms every program must round-trip in.
const FORMS: [PrintOptions; 3] = [
    PrintOptions {
        generic: false,
        debuginfo: false,
    },
    PrintOptions {
        generic: true,
        debuginfo: false,
    },
    PrintOptions {
        generic: true,
        debuginfo: true,
    },
];

/// Decisions read from a byte string; past its end every decision is 0.
struct Choices {
    bytes: Vec<u8>,
    pos: usize,
}

impl Choices {
    fn byte(&mut self) -> u8 {
        let b = self.bytes.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A number in `0..n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.byte() as usize % n
    }

    fn flip(&mut self) -> bool {
        self.below(2) == 1
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(std::array::from_fn(|_| self.byte()))
    }
}

/// Names that need no quoting, need quoting, or need escapes, for keys and symbols.
const NAMES: &[&str] = &[
    "a",
    "b.c",
    "_x$1",
    "with space",
    "1st",
    "dash-ed",
    "ü",
    "quote\"back\\",
    "tab\tnl\n",
    "日本",
];

/// String attribute payloads: escapes, control bytes, and multi-byte UTF-8.
const STRINGS: &[&str] = &[
    "",
    "plain",
    "q\"uote",
    "back\\slash",
    "\n\t\r",
    "\0",
    "\u{7f}\u{1b}[0m",
    "é",
    "日本語",
    "🦀",
    "\\22",
    "}]>)",
];

/// Opaque dialect type and attribute bodies (kept as text by the IR).
const OPAQUE_BODIES: &[&str] = &[
    "thing",
    "thing<a, [b]>",
    "p<\"s>\", {k = 1}>",
    "x.y<<1>>",
    "fn<(i32) -> (i1, [x])>",
    "t<a> <b>",
    "<x>",
    "-9",
    "-",
    "a-",
];

/// Builds random IR into a context.
struct IrGen<'c> {
    ctx: &'c mut Context,
    choices: Choices,
    /// Ops nest at most this deep.
    max_depth: usize,
}

impl<'c> IrGen<'c> {
    fn new(ctx: &'c mut Context, bytes: Vec<u8>) -> Self {
        IrGen {
            ctx,
            choices: Choices { bytes, pos: 0 },
            max_depth: 3,
        }
    }

    // -----------------------------------------------------------------------------------------
    // Structure.

    /// A `builtin.module` holding random ops (a graph region, so any order is fine, but the
    /// generator only ever uses values that dominate anyway).
    fn module(&mut self) -> Op {
        let (region, block) = self.ctx.create_region_with_block(&[]);
        self.fill_block(block, Vec::new(), &[], 0);
        let loc = self.location(0);
        let mut spec = OpSpec::new(self.ctx, "builtin.module", loc).region(region);
        if self.choices.flip() {
            let name = self.choices.pick(NAMES);
            let attr = self.ctx.string_attr(name);
            spec.set_attr(self.ctx, "sym_name", attr);
        }
        for _ in 0..self.choices.below(2) {
            // A module's other attributes must be dialect-prefixed, as in MLIR.
            let name = format!("test.{}", self.choices.pick(NAMES));
            let value = self.attr(0);
            spec.set_attr(self.ctx, &name, value);
        }
        self.ctx.create_op(spec)
    }

    /// Appends random ops to `block`. `visible` holds the values that dominate the block's
    /// start; `targets` are the blocks a branch at the end may jump to.
    fn fill_block(
        &mut self,
        block: Block,
        mut visible: Vec<Value>,
        targets: &[Block],
        depth: usize,
    ) {
        visible.extend_from_slice(self.ctx.block_args(block));
        let count = self.choices.below(if depth == 0 { 8 } else { 5 });
        for _ in 0..count {
            let op = self.op(&visible, &[], depth);
            self.ctx.insert_op(dlc_ir::InsertPoint::End(block), op);
            visible.extend(self.ctx.results(op));
        }
        // Unregistered ops need no terminator, so a block may also just end (or be empty).
        if !targets.is_empty() && self.choices.below(4) != 0 {
            let op = self.op(&visible, targets, depth);
            self.ctx.insert_op(dlc_ir::InsertPoint::End(block), op);
        }
    }

    /// A detached `test.*` op with operands from `visible` and, if `targets` is not empty, one
    /// to three successors from it.
    fn op(&mut self, visible: &[Value], targets: &[Block], depth: usize) -> Op {
        let suffix = self
            .choices
            .pick(&["op", "a.b", "with space", "q\"uote", "ü", "x$_1"]);
        let loc = self.location(0);
        let mut spec = OpSpec::new(self.ctx, &format!("test.{suffix}"), loc);
        if !visible.is_empty() {
            for _ in 0..self.choices.below(4) {
                spec.operands.push(self.choices.pick(visible));
            }
        }
        let results = self.choices.pick(&[0, 0, 1, 1, 1, 2, 3]);
        for _ in 0..results {
            let ty = self.ty(0);
            spec.result_types.push(ty);
        }
        for _ in 0..self.choices.below(3) {
            self.add_attr(&mut spec, 0);
        }
        if depth < self.max_depth {
            let regions = self.choices.pick(&[0, 0, 0, 1, 1, 2, 3]);
            for _ in 0..regions {
                let r = self.region(visible, depth + 1);
                spec.regions.push(r);
            }
        }
        if !targets.is_empty() {
            for _ in 0..=self.choices.below(3) {
                spec.successors.push(self.choices.pick(targets));
            }
        }
        self.ctx.create_op(spec)
    }

    /// A region of zero to three blocks; every block but the entry may be a branch target, and
    /// in a multi-block region most blocks end in a branch.
    fn region(&mut self, visible: &[Value], depth: usize) -> Region {
        let region = self.ctx.create_region();
        let count = self.choices.pick(&[0, 1, 1, 1, 2, 3]);
        let mut blocks = Vec::new();
        for _ in 0..count {
            let args: Vec<Type> = (0..self.choices.below(3)).map(|_| self.ty(0)).collect();
            let b = self.ctx.create_block(&args);
            self.ctx.append_block(region, b);
            blocks.push(b);
        }
        let targets: Vec<Block> = blocks.iter().skip(1).copied().collect();
        for &b in &blocks {
            self.fill_block(b, visible.to_vec(), &targets, depth);
        }
        region
    }

    fn location(&mut self, depth: usize) -> Location {
        match self.choices.below(if depth < 2 { 6 } else { 2 }) {
            0 => Location::Unknown,
            1 => {
                let file = self.choices.pick(NAMES);
                let (line, col) = (self.choices.byte() as u32, self.choices.byte() as u32);
                self.ctx.file_loc(file, line, col)
            }
            2 => {
                let name = self.ctx.ident(self.choices.pick(NAMES));
                let child = self.choices.flip().then(|| self.location(depth + 1));
                self.ctx
                    .composite_loc(CompositeLocKind::Name { name, child })
            }
            3 => {
                let callee = self.location(depth + 1);
                let caller = self.location(depth + 1);
                self.ctx
                    .composite_loc(CompositeLocKind::CallSite { callee, caller })
            }
            _ => {
                let locations: Vec<Location> = (0..self.choices.below(3))
                    .map(|_| self.location(depth + 1))
                    .collect();
                let metadata = self.choices.flip().then(|| self.attr(2));
                self.ctx.composite_loc(CompositeLocKind::Fused {
                    locations: locations.into(),
                    metadata,
                })
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Types.

    fn int_type(&mut self) -> Type {
        let width = self.choices.pick(&[
            1, 8, 16, 32, 64, 2, 3, 7, 17, 33, 65, 127, 128, 200, 0, 129, 256, 1024,
        ]);
        self.ctx.integer_type(width)
    }

    /// `siN` or `uiN`; a `ui128` dense element above 2^127 does not print back, so dense
    /// constants ask for no `ui128` (`ui128_ok`).
    fn signed_int_type(&mut self, ui128_ok: bool) -> Type {
        let width = self.choices.pick(&[8, 32, 1, 0, 3, 64, 128, 200, 256]);
        let signed = self.choices.flip() || (width == 128 && !ui128_ok);
        self.ctx
            .intern_type(TypeKind::SignedInteger { width, signed })
    }

    /// A builtin float format dlc only parses and prints.
    fn ext_float_type(&mut self) -> Type {
        let k = self.choices.pick(&ExtFloatKind::ALL);
        self.ctx.intern_type(TypeKind::ExtFloat(k))
    }

    fn float_type(&mut self) -> Type {
        self.choices
            .pick(&[Type::F16, Type::BF16, Type::F32, Type::F64])
    }

    /// An integer, `index` or float type: what tensors, vectors and dense constants hold.
    fn scalar_type(&mut self) -> Type {
        match self.choices.below(4) {
            0 => self.int_type(),
            1 => Type::INDEX,
            2 => self.signed_int_type(false),
            _ => self.float_type(),
        }
    }

    /// An element of a tensor, vector or memref type: a scalar or a format only printed.
    fn element_type(&mut self) -> Type {
        if self.choices.below(4) == 0 {
            return self.ext_float_type();
        }
        self.scalar_type()
    }

    fn shape(&mut self, allow_dynamic: bool, min_dim: i64) -> Vec<i64> {
        (0..self.choices.below(4))
            .map(|_| match self.choices.below(5) {
                0 if allow_dynamic => DYNAMIC,
                k => min_dim + k as i64,
            })
            .collect()
    }

    fn ty(&mut self, depth: usize) -> Type {
        match self.choices.below(if depth < 2 { 9 } else { 4 }) {
            0 => self.scalar_type(),
            1 => self.element_type(),
            2 => Type::NONE,
            3 => {
                let dialect = self.ctx.ident("test");
                let body = self.choices.pick(OPAQUE_BODIES).into();
                self.ctx.intern_type(TypeKind::Opaque { dialect, body })
            }
            4 | 5 => {
                let shape = self.shape(true, 0);
                let element = self.scalar_type();
                self.ctx.tensor_type(&shape, element)
            }
            6 => {
                let mut shape = self.shape(false, 1);
                let element = self.element_type();
                // A fixed vector may be 0-d (`vector<f32>`); a scalable one has a dimension.
                if self.choices.flip() {
                    return self.ctx.vector_type(&shape, element);
                }
                if shape.is_empty() {
                    shape.push(1);
                }
                let mut scalable: Vec<bool> = shape.iter().map(|_| self.choices.flip()).collect();
                scalable[0] = true;
                self.ctx.intern_type(TypeKind::ScalableVector {
                    shape: shape.into(),
                    scalable: scalable.into(),
                    element,
                })
            }
            7 => self.builtin_container_type(depth),
            _ => {
                let inputs: Vec<Type> = (0..self.choices.below(3))
                    .map(|_| self.ty(depth + 1))
                    .collect();
                let results: Vec<Type> = (0..self.choices.below(3))
                    .map(|_| self.ty(depth + 1))
                    .collect();
                self.ctx.function_type(&inputs, &results)
            }
        }
    }

    /// A `complex`, `tuple`, unranked or encoded `tensor`, or ranked or unranked `memref`.
    fn builtin_container_type(&mut self, depth: usize) -> Type {
        match self.choices.below(6) {
            0 => {
                let part = if self.choices.flip() {
                    self.ext_float_type()
                } else {
                    self.signed_int_type(true)
                };
                self.ctx.intern_type(TypeKind::Complex(part))
            }
            1 => {
                let elements: Vec<Type> = (0..self.choices.below(3))
                    .map(|_| self.ty(depth + 1))
                    .collect();
                self.ctx.intern_type(TypeKind::Tuple(elements.into()))
            }
            2 => {
                let element = self.element_type();
                self.ctx.intern_type(TypeKind::UnrankedTensor(element))
            }
            3 => {
                let shape = self.shape(true, 0);
                let element = self.element_type();
                let encoding = self.attr(2);
                self.ctx.intern_type(TypeKind::EncodedTensor {
                    shape: shape.into(),
                    element,
                    encoding,
                })
            }
            4 => {
                let element = self.element_type();
                let memory_space = self.memory_space();
                self.ctx.intern_type(TypeKind::UnrankedMemRef {
                    element,
                    memory_space,
                })
            }
            _ => {
                let shape = self.shape(true, 0);
                let element = self.element_type();
                let layout = self.choices.flip().then(|| self.strided_attr(shape.len()));
                let memory_space = self.memory_space();
                self.ctx.intern_type(TypeKind::MemRef {
                    shape: shape.into(),
                    element,
                    layout,
                    memory_space,
                })
            }
        }
    }

    /// An affine expression over `dims` dimensions or else `symbols` symbols, built through the
    /// simplifying constructors as the parser builds it; `symbolic` keeps dimensions out.
    ///
    /// It never mixes the two: the builders move a symbolic operand of a sum to the right, so
    /// `s0 + 1 + d0` becomes `d0 + (s0 + 1)`, which mlir-opt prints as `d0 + s0 + 1` and reads
    /// back as a different tree. The printer matches mlir-opt there; it is simply not a fixed
    /// point.
    fn affine_expr(&mut self, dims: u32, symbols: u32, depth: usize, symbolic: bool) -> AffineExpr {
        let leaf = depth >= 3 || self.choices.below(3) == 0;
        if leaf {
            return match self.choices.below(3) {
                0 if dims > 0 && !symbolic => {
                    AffineExpr::Dim(self.choices.below(dims as usize) as u32)
                }
                0 if symbols > 0 && dims == 0 => {
                    AffineExpr::Symbol(self.choices.below(symbols as usize) as u32)
                }
                _ => AffineExpr::Constant(self.choices.pick(&[0, 1, -1, 2, -3, 7, 1 << 40])),
            };
        }
        let l = self.affine_expr(dims, symbols, depth + 1, symbolic);
        // A sum's right operand is a leaf: text reads sums left to right, so `a + (b + c)` is
        // a tree no text gives (mlir-opt prints it as `a + b + c` too).
        match self.choices.below(6) {
            0 => AffineExpr::sum(l, self.affine_expr(dims, symbols, 3, symbolic)),
            1 => AffineExpr::sum(
                l,
                AffineExpr::negated(self.affine_expr(dims, symbols, 3, symbolic)),
            ),
            2 => AffineExpr::negated(l),
            3 => AffineExpr::product(l, self.affine_expr(dims, symbols, depth + 1, true)),
            4 => {
                let op = self
                    .choices
                    .pick(&[AffineOp::FloorDiv, AffineOp::CeilDiv, AffineOp::Mod]);
                AffineExpr::div(op, l, self.affine_expr(dims, symbols, depth + 1, true))
            }
            _ => AffineExpr::product(self.affine_expr(dims, symbols, depth + 1, true), l),
        }
    }

    /// An `affine_map` or `affine_set` attribute.
    fn affine_attr(&mut self) -> Attribute {
        let dims = self.choices.below(3) as u32;
        let symbols = self.choices.below(3) as u32;
        let n = self.choices.below(4);
        let use_dims = self.choices.flip();
        let exprs: Vec<AffineExpr> = (0..n)
            .map(|_| self.affine_expr(if use_dims { dims } else { 0 }, symbols, 0, false))
            .collect();
        if self.choices.flip() {
            return self.ctx.intern_attr(AttrKind::AffineMap(AffineMap {
                dims,
                symbols,
                results: exprs.into(),
            }));
        }
        let constraints: Vec<(AffineExpr, bool)> = exprs
            .into_iter()
            .map(|e| (e, self.choices.flip()))
            .collect();
        self.ctx.intern_attr(AttrKind::IntegerSet(IntegerSet {
            dims,
            symbols,
            constraints: constraints.into(),
        }))
    }

    /// No memory space, or a non-default one of a kind MLIR accepts: an integer (`true`
    /// included), a string, typed or not, or a dictionary.
    fn memory_space(&mut self) -> Option<Attribute> {
        match self.choices.below(7) {
            0 => None,
            1 => Some(
                self.ctx
                    .integer_attr(1 + self.choices.below(3) as i128, Type::I64),
            ),
            2 => Some(self.ctx.integer_attr(-7, Type::I32)),
            3 => Some(self.ctx.bool_attr(true)),
            4 => {
                let entries: Vec<NamedAttr> = (0..self.choices.below(3))
                    .map(|_| NamedAttr {
                        name: self.ctx.ident(self.choices.pick(NAMES)),
                        value: self.attr(2),
                    })
                    .collect();
                Some(self.ctx.dict_attr(&entries))
            }
            _ => Some(self.string_attr()),
        }
    }

    /// A string attribute, sometimes with a type.
    fn string_attr(&mut self) -> Attribute {
        let s = self.string();
        let ty = if self.choices.flip() {
            self.ty(2)
        } else {
            Type::NONE
        };
        self.ctx.typed_string_attr(&s, ty)
    }

    /// `strided<[...], offset: ...>` with `rank` strides.
    fn strided_attr(&mut self, rank: usize) -> Attribute {
        let mut stride = || match self.choices.below(4) {
            0 => DYNAMIC,
            1 => 0,
            2 => -3,
            _ => self.choices.u64() as i64 >> 1,
        };
        let strides: Vec<i64> = (0..rank).map(|_| stride()).collect();
        let offset = stride();
        self.ctx.intern_attr(AttrKind::Strided {
            strides: strides.into(),
            offset,
        })
    }

    // -----------------------------------------------------------------------------------------
    // Attributes.

    fn add_attr(&mut self, spec: &mut OpSpec, depth: usize) {
        let name = self.choices.pick(NAMES);
        let value = self.attr(depth);
        spec.set_attr(self.ctx, name, value);
    }

    fn attr(&mut self, depth: usize) -> Attribute {
        let kinds = if depth < 2 { 13 } else { 9 };
        match self.choices.below(kinds) {
            0 => self.ctx.unit_attr(),
            1 => self.integer_attr(),
            2 => self.float_attr(),
            3 => self.string_attr(),
            4 => {
                let v = self.choices.flip();
                self.ctx.bool_attr(v)
            }
            5 => {
                let path: Vec<_> = (0..=self.choices.below(3))
                    .map(|_| self.ctx.ident(self.choices.pick(NAMES)))
                    .collect();
                self.ctx.intern_attr(AttrKind::SymbolRef(path.into()))
            }
            6 => self.dense_array_attr(),
            7 => {
                let dialect = self.ctx.ident("test");
                let body = self.choices.pick(OPAQUE_BODIES).into();
                let ty = if self.choices.flip() {
                    self.ty(2)
                } else {
                    Type::NONE
                };
                self.ctx.intern_attr(AttrKind::Opaque { dialect, body, ty })
            }
            8 => self.dense_attr(),
            9 => {
                let ty = self.ty(0);
                self.ctx.type_attr(ty)
            }
            10 if self.choices.flip() => {
                let rank = self.choices.below(4);
                self.strided_attr(rank)
            }
            11 if self.choices.flip() => self.affine_attr(),
            10 | 11 => {
                let elements: Vec<Attribute> = (0..self.choices.below(4))
                    .map(|_| self.attr(depth + 1))
                    .collect();
                self.ctx.array_attr(&elements)
            }
            _ => {
                let entries: Vec<NamedAttr> = (0..self.choices.below(4))
                    .map(|_| NamedAttr {
                        name: self.ctx.ident(self.choices.pick(NAMES)),
                        value: self.attr(depth + 1),
                    })
                    .collect();
                self.ctx.dict_attr(&entries)
            }
        }
    }

    /// An integer attribute, often at the edges of its type's range; in a type wider than 128
    /// bits, often a value no `i128` holds.
    fn integer_attr(&mut self) -> Attribute {
        let ty = match self.choices.below(5) {
            0 => Type::INDEX,
            1 => self.signed_int_type(true),
            _ => self.int_type(),
        };
        let wide = matches!(
            self.ctx.type_kind(ty),
            TypeKind::Integer { width: 129.. } | TypeKind::SignedInteger { width: 129.., .. }
        );
        if wide && self.choices.flip() {
            let bytes: Vec<u8> = (0..self.choices.below(40))
                .flat_map(|_| self.choices.u64().to_le_bytes())
                .collect();
            return self.ctx.wide_integer_attr(&bytes, ty);
        }
        let value = self.int_value(ty);
        self.ctx.integer_attr(value, ty)
    }

    /// A value for an integer of type `ty`, usually at the edge of its range; the context
    /// truncates it to the width.
    fn int_value(&mut self, ty: Type) -> i128 {
        let width = match self.ctx.type_kind(ty) {
            TypeKind::SignedInteger { width, .. } => *width,
            _ => self.ctx.integer_width(ty).unwrap_or(64),
        };
        let max = match width.min(128) {
            0 => 0,
            128 => i128::MAX,
            w => (1i128 << (w - 1)) - 1,
        };
        match self.choices.below(8) {
            0 => 0,
            1 => 1,
            2 => -1,
            3 => max,
            4 => -max - 1,
            5 => max.wrapping_mul(2).wrapping_add(1),
            6 => self.choices.u64() as i64 as i128,
            _ => (self.choices.u64() as i128) << 64 | self.choices.u64() as i128,
        }
    }

    /// A float attribute holding a special value or random bits, rounded to its type; one in
    /// four is an `f80` or `f128` (see [`Self::wide_float_bits`]).
    fn float_attr(&mut self) -> Attribute {
        if self.choices.below(4) == 0 {
            let kind = self.wide_float_kind();
            let bits = self.wide_float_bits(kind);
            return self
                .ctx
                .wide_float_attr(bits, kind)
                .expect("bits fit the format");
        }
        let ty = self.float_type();
        let value = self.float_value(ty);
        self.ctx.float_attr(value, ty)
    }

    fn float_value(&mut self, ty: Type) -> f64 {
        // The smallest subnormal of each format.
        let tiny = match ty {
            Type::F16 => 2f64.powi(-24),
            Type::BF16 => 2f64.powi(-133),
            Type::F32 => f32::from_bits(1) as f64,
            _ => f64::from_bits(1),
        };
        let max = match ty {
            Type::F16 => 65504.0,
            Type::BF16 => f32::from_bits(0x7f7f_0000) as f64,
            Type::F32 => f32::MAX as f64,
            _ => f64::MAX,
        };
        match self.choices.below(14) {
            0 => 0.0,
            1 => -0.0,
            2 => 1.0,
            3 => -1.5,
            4 => f64::NAN,
            5 => -f64::NAN,
            6 => f64::INFINITY,
            7 => f64::NEG_INFINITY,
            8 => tiny,
            9 => -tiny * 3.0,
            10 => max,
            11 => std::f64::consts::PI,
            12 => 0.1,
            _ => f64::from_bits(self.choices.u64()),
        }
    }

    fn wide_float_kind(&mut self) -> ExtFloatKind {
        self.choices.pick(&[ExtFloatKind::F80, ExtFloatKind::F128])
    }

    /// A bit pattern of `kind` (`f80` or `f128`) that prints back as itself: a widened
    /// `f64` (any), an infinity or NaN (any payload), or an `f80` unnormal (a NaN). Other values
    /// print in decimal, which mlir-opt-22 and dlc read through an `f64`, so they do not round
    /// trip (builtin-ext-float-constants.mlir checks that both tools re-read them alike).
    fn wide_float_bits(&mut self, kind: ExtFloatKind) -> u128 {
        let layout = kind.wide_layout().expect("f80 and f128 have layouts");
        let width = layout.width;
        let random = (self.choices.u64() as u128) << 64 | self.choices.u64() as u128;
        let sign = (self.choices.flip() as u128) << (width - 1);
        // The bits below the sign and the 15-bit exponent.
        let low = random >> (128 - (width - 16));
        match self.choices.below(4) {
            1 => sign | 0x7fff << (width - 16) | low,
            // An exponent neither zero nor all ones, and the integer bit clear.
            2 if layout.explicit_integer_bit => {
                let exponent = 1 + self.choices.u64() as u128 % 0x7ffe;
                sign | exponent << (width - 16) | (low & !(1 << 63))
            }
            3 => sign,
            _ => layout.from_f64(self.float_value(Type::F64)),
        }
    }

    fn string(&mut self) -> String {
        (0..self.choices.below(3))
            .map(|_| self.choices.pick(STRINGS))
            .collect()
    }

    /// `dense<...>` over a tensor or vector of any element type, as a splat or element by
    /// element.
    fn dense_attr(&mut self) -> Attribute {
        let mut element = self.scalar_type();
        if dlc_ir::attributes::dense_element_bytes(self.ctx.type_kind(element)).is_none() {
            // Zero-width integers have no dense form.
            element = Type::I8;
        }
        let ty = if self.choices.flip() {
            let shape = self.shape(false, 0);
            self.ctx.tensor_type(&shape, element)
        } else {
            let shape = self.shape(false, 1);
            self.ctx.vector_type(&shape, element)
        };
        let count: i64 = self.ctx.shape(ty).expect("shaped").iter().product();
        let count = if self.choices.flip() { 1 } else { count };
        if self.choices.below(4) == 0 {
            return self.wide_dense_attr(ty, count);
        }
        let values: Vec<DenseValue> = (0..count)
            .map(|_| match self.ctx.float_kind(element) {
                Some(_) => DenseValue::Float(self.float_value(element)),
                None => DenseValue::Int(self.int_value(element)),
            })
            .collect();
        self.ctx.dense_attr(ty, &values)
    }

    /// A dense constant of `ty`'s shape with `f80` or `f128` elements (see
    /// [`Self::wide_float_bits`]), stored as the parser stores a hex string: `count` elements (1
    /// for a splat).
    fn wide_dense_attr(&mut self, ty: Type, count: i64) -> Attribute {
        let kind = self.wide_float_kind();
        let bytes = kind.wide_layout().expect("f80 and f128 have layouts").width as usize / 8;
        let mut data = Vec::new();
        for _ in 0..count {
            let bits = self.wide_float_bits(kind);
            data.extend_from_slice(&bits.to_le_bytes()[..bytes]);
        }
        let element = self.ctx.intern_type(TypeKind::ExtFloat(kind));
        let ty = self.ctx.with_element_type(ty, element);
        self.ctx
            .intern_attr(AttrKind::DenseElements(dlc_ir::attributes::DenseElements {
                ty,
                splat: count == 1,
                data: data.into(),
            }))
    }

    /// `array<T: ...>` of an integer or float element type.
    fn dense_array_attr(&mut self) -> Attribute {
        let element = self.choices.pick(&[
            Type::I1,
            Type::I8,
            Type::I16,
            Type::I32,
            Type::I64,
            Type::F16,
            Type::BF16,
            Type::F32,
            Type::F64,
        ]);
        let values: Vec<i64> = (0..self.choices.below(4))
            .map(|_| match self.ctx.float_kind(element) {
                Some(k) => k.round(self.float_value(element)).to_bits() as i64,
                None => {
                    // Stored as the parser stores them: sign-extended, an `i1` as 0 or 1.
                    let w = self.ctx.integer_width(element).expect("integer");
                    let v = dlc_ir::attributes::sign_extend(self.int_value(element), w) as i64;
                    if w == 1 {
                        v & 1
                    } else {
                        v
                    }
                }
            })
            .collect();
        self.ctx.intern_attr(AttrKind::DenseArray {
            element,
            values: values.into(),
        })
    }
}

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    ctx
}

/// Builds a program from `bytes`; returns the context and its module.
fn generate(bytes: Vec<u8>) -> (Context, Op) {
    let mut ctx = context();
    let module = IrGen::new(&mut ctx, bytes).module();
    (ctx, module)
}

/// Prints `module` in `options`, parses the text, checks the result verifies and prints the
/// same.
fn check_round_trip(ctx: &Context, module: Op, options: PrintOptions) -> Result<(), TestCaseError> {
    let once = print_op(ctx, module, options);
    let mut ctx2 = context();
    let module2 = parse_source(&mut ctx2, &once, "printed.mlir", 1).map_err(|d| {
        TestCaseError::fail(format!(
            "printed IR does not parse ({options:?}): {}\n{once}",
            d.message
        ))
    })?;
    verify(&ctx2, module2).map_err(|d| {
        TestCaseError::fail(format!(
            "re-parsed IR does not verify ({options:?}): {}\n{once}",
            d.message
        ))
    })?;
    let twice = print_op(&ctx2, module2, options);
    prop_assert_eq!(&once, &twice, "{:?}", options);
    Ok(())
}

/// A text mutation: what a careless edit or a truncated file does to a program.
#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, text: &'static str },
    Duplicate { at: usize, len: usize },
    Replace { at: usize, with: char },
}

/// Fragments of syntax worth splicing into a program: delimiters, sigils, keywords, numbers at
/// the edges of their types.
const FRAGMENTS: &[&str] = &[
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "<",
    ">",
    ",",
    ":",
    "::",
    "=",
    "->",
    "%",
    "%0",
    "%0#7",
    "^bb0",
    "^bb9:",
    "@",
    "@\"",
    "#",
    "!",
    "\"",
    "\\",
    "0x",
    "-",
    "?",
    "x",
    "1e400",
    "1.0",
    "99999999999999999999999999999999999999999",
    "-170141183460469231731687303715884105728",
    "i0",
    "i99999999",
    "tensor<",
    "vector<0x",
    "dense<",
    "array<",
    "loc(",
    "#a = ",
    "!a = ",
    "unit",
    "true",
    "module",
    "\n",
    "//",
    "{-#",
    "\u{e9}",
    "\u{1F980}",
];

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 1usize..16).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), prop::sample::select(FRAGMENTS))
            .prop_map(|(at, text)| Mutation::Insert { at, text }),
        (any::<usize>(), 1usize..32).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        (any::<usize>(), any::<char>()).prop_map(|(at, with)| Mutation::Replace { at, with }),
    ]
}

/// Applies `m` to `text`, keeping it valid UTF-8 by snapping offsets to character boundaries.
fn apply(text: &mut String, m: &Mutation) {
    let snap = |text: &String, at: usize| {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    match *m {
        Mutation::Delete { at, len } => {
            let start = snap(text, at);
            let end = snap(text, start + len.min(text.len() - start));
            text.replace_range(start..end.max(start), "");
        }
        Mutation::Insert { at, text: t } => {
            let at = snap(text, at);
            text.insert_str(at, t);
        }
        Mutation::Duplicate { at, len } => {
            let start = snap(text, at);
            let end = snap(text, start + len.min(text.len() - start)).max(start);
            let piece = text[start..end].to_string();
            text.insert_str(end, &piece);
        }
        Mutation::Replace { at, with } => {
            let at = snap(text, at);
            if let Some(c) = text[at..].chars().next() {
                text.replace_range(at..at + c.len_utf8(), with.encode_utf8(&mut [0; 4]));
            }
        }
    }
}

/// Parses `src` and, if it parses, verifies and prints it: none of it may panic.
fn parse_print_no_panic(src: &str) {
    for allow_unregistered in [false, true] {
        let mut ctx = Context::new();
        ctx.allow_unregistered = allow_unregistered;
        if let Ok(module) = parse_source(&mut ctx, src, "mutated.mlir", 1) {
            let _ = verify(&ctx, module);
            for options in FORMS {
                print_op(&ctx, module, options);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        // 1024 in the default tier, times DLC_TEST_SCALE in the long one (dlc_testkit).
        cases: 1024 * dlc_testkit::scale() as u32,
        max_shrink_iters: 4096,
        // Failures print their minimal program; regressions go to fuzz_regressions.rs by hand.
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Random well-formed IR verifies, and print → parse → print is the identity on the text in
    /// the custom, generic and debug-info forms.
    #[test]
    fn generated_ir_round_trips(bytes in prop::collection::vec(any::<u8>(), 0..1024)) {
        let (ctx, module) = generate(bytes);
        if let Err(d) = verify(&ctx, module) {
            let text = print_op(&ctx, module, PrintOptions { generic: true, debuginfo: false });
            return Err(TestCaseError::fail(format!("generated IR does not verify: {}\n{text}", d.message)));
        }
        for options in FORMS {
            check_round_trip(&ctx, module, options)?;
        }
    }

    /// Mutating the text of a valid program never panics the parser, the verifier or the
    /// printer; it may only produce an error.
    #[test]
    fn mutated_text_never_panics(
        bytes in prop::collection::vec(any::<u8>(), 0..512),
        generic in any::<bool>(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let (ctx, module) = generate(bytes);
        let mut text = print_op(&ctx, module, PrintOptions { generic, debuginfo: true });
        for m in &mutations {
            apply(&mut text, m);
        }
        let outcome = std::panic::catch_unwind(|| parse_print_no_panic(&text));
        prop_assert!(outcome.is_ok(), "panicked on this input:\n{}", text);
    }
}
