//! The printer: writes IR as MLIR text, in custom syntax where an op has one or generic form.
//!
//! Values are named the way mlir-opt names them: `%argN` for entry-block arguments, `%N` for
//! everything else, numbered per isolated-from-above scope; blocks are `^bbN`. Names are assigned
//! for a whole scope before it is printed, so uses that precede definitions (graph regions,
//! branches to later blocks) print correctly. Printing what was parsed and parsing it again
//! yields the same text.

use crate::attributes::{dense_element_bytes, AttrKind, Attribute, DenseValue, NamedAttr};
use crate::dialect::Traits;
use crate::ir::{Block, Op, Region, Value};
use crate::location::{CompositeLocKind, Location};
use crate::types::{FloatKind, Type, TypeKind, DYNAMIC};
use crate::Context;
use rustc_hash::FxHashMap;
use std::fmt::Write;

/// Printing options.
#[derive(Copy, Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in the generic form (`--print-generic`).
    pub generic: bool,
    /// Print `loc(...)` after each op (`--print-debuginfo`).
    pub debuginfo: bool,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum ValueName {
    None,
    Num(u32),
    Arg(u32),
    /// Result `index` of the op whose first result is `%num`.
    Group(u32, u32),
}

/// Writes IR text into a string.
pub struct Printer<'a> {
    ctx: &'a Context,
    out: String,
    options: PrintOptions,
    indent: usize,
    names: Vec<ValueName>,
    block_names: FxHashMap<Block, u32>,
    next_value: u32,
    next_arg: u32,
    /// Dialect prefixes that may be dropped inside the op being printed.
    default_dialects: Vec<&'static str>,
}

/// Prints `op` (usually a module) with `options`.
pub fn print_op(ctx: &Context, op: Op, options: PrintOptions) -> String {
    let mut p = Printer::new(ctx);
    p.options = options;
    p.out.reserve(ctx.ops.len() * 40);
    p.number_scope_of(op);
    p.print_operation(op);
    p.out
}

impl<'a> Printer<'a> {
    /// A printer with default options and no names assigned (for types and attributes).
    pub fn new(ctx: &'a Context) -> Self {
        Printer {
            ctx,
            out: String::new(),
            options: PrintOptions::default(),
            indent: 0,
            names: Vec::new(),
            block_names: FxHashMap::default(),
            next_value: 0,
            next_arg: 0,
            default_dialects: Vec::new(),
        }
    }

    /// The context being printed.
    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }

    /// Appends raw text.
    pub fn write(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// The text of a type.
    pub fn type_to_string(&self, ty: Type) -> String {
        let mut p = Printer::new(self.ctx);
        p.print_type(ty);
        p.out
    }

    /// The text of an attribute.
    pub fn attr_to_string(&self, attr: Attribute) -> String {
        let mut p = Printer::new(self.ctx);
        p.print_attr(attr);
        p.out
    }

    // -----------------------------------------------------------------------------------------
    // Naming.

    fn set_name(&mut self, v: Value, name: ValueName) {
        let i = v.index();
        if i >= self.names.len() {
            self.names
                .resize(self.ctx.values.len().max(i + 1), ValueName::None);
        }
        self.names[i] = name;
    }

    /// Names the values of `op`'s regions (and of `op` itself if it is a root).
    fn number_scope_of(&mut self, op: Op) {
        self.names.resize(self.ctx.values.len(), ValueName::None);
        self.number_results(op);
        self.number_regions(op);
    }

    fn number_results(&mut self, op: Op) {
        let n = self.ctx.num_results(op);
        if n == 0 {
            return;
        }
        let num = self.next_value;
        self.next_value += 1;
        for (i, v) in self.ctx.results(op).enumerate() {
            self.set_name(
                v,
                if n == 1 {
                    ValueName::Num(num)
                } else {
                    ValueName::Group(num, i as u32)
                },
            );
        }
    }

    fn number_regions(&mut self, op: Op) {
        let saved = (self.next_value, self.next_arg);
        if self.ctx.has_trait(op, Traits::ISOLATED_FROM_ABOVE) {
            self.next_value = 0;
            self.next_arg = 0;
        }
        for &region in self.ctx.regions(op) {
            for (bi, &block) in self.ctx.blocks(region).iter().enumerate() {
                self.block_names.insert(block, bi as u32);
                for &arg in self.ctx.block_args(block) {
                    let name = if bi == 0 {
                        self.next_arg += 1;
                        ValueName::Arg(self.next_arg - 1)
                    } else {
                        self.next_value += 1;
                        ValueName::Num(self.next_value - 1)
                    };
                    self.set_name(arg, name);
                }
                for inner in self.ctx.block_ops(block) {
                    self.number_results(inner);
                    self.number_regions(inner);
                }
            }
        }
        if self.ctx.has_trait(op, Traits::ISOLATED_FROM_ABOVE) {
            (self.next_value, self.next_arg) = saved;
        }
    }

    // -----------------------------------------------------------------------------------------
    // Operations.

    fn newline(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn print_operation(&mut self, op: Op) {
        let n = self.ctx.num_results(op);
        if n > 0 {
            self.print_value_def(self.ctx.result(op, 0), n);
            self.out.push_str(" = ");
        }
        let def = self.ctx.op_def(op);
        match def.and_then(|d| d.print).filter(|_| !self.options.generic) {
            Some(print) => {
                let name = self.ctx.op_name(op);
                let short = self
                    .default_dialects
                    .last()
                    .filter(|d| !d.is_empty())
                    .and_then(|d| name.strip_prefix(d).and_then(|r| r.strip_prefix('.')))
                    .or_else(|| name.strip_prefix("builtin."))
                    .unwrap_or(name);
                self.out.push_str(short);
                self.default_dialects
                    .push(def.and_then(|d| d.default_dialect).unwrap_or(""));
                print(self, op);
                self.default_dialects.pop();
            }
            None => self.print_generic(op),
        }
        if self.options.debuginfo {
            self.out.push(' ');
            self.print_location(self.ctx.op_loc(op));
        }
    }

    fn print_value_def(&mut self, v: Value, count: usize) {
        match self
            .names
            .get(v.index())
            .copied()
            .unwrap_or(ValueName::None)
        {
            ValueName::Group(num, _) => {
                self.out.push('%');
                self.out.push_str(itoa::Buffer::new().format(num));
                let _ = write!(self.out, ":{count}");
            }
            _ => self.print_operand(v),
        }
    }

    /// Prints a value use (`%3`, `%arg0`, `%2#1`).
    pub fn print_operand(&mut self, v: Value) {
        let mut buf = itoa::Buffer::new();
        match self
            .names
            .get(v.index())
            .copied()
            .unwrap_or(ValueName::None)
        {
            ValueName::Num(n) => {
                self.out.push('%');
                self.out.push_str(buf.format(n));
            }
            ValueName::Arg(n) => {
                self.out.push_str("%arg");
                self.out.push_str(buf.format(n));
            }
            ValueName::Group(n, i) => {
                self.out.push('%');
                self.out.push_str(buf.format(n));
                self.out.push('#');
                self.out.push_str(buf.format(i));
            }
            ValueName::None => {
                let _ = write!(self.out, "%<<UNKNOWN {v:?}>>");
            }
        }
    }

    /// Prints values separated by `, `.
    pub fn print_operands(&mut self, values: &[Value]) {
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_operand(*v);
        }
    }

    /// Prints `%name: type` for a block argument.
    pub fn print_argument(&mut self, v: Value) {
        self.print_operand(v);
        self.out.push_str(": ");
        self.print_type(self.ctx.value_type(v));
    }

    /// Prints `^bbN`.
    pub fn print_successor(&mut self, b: Block) {
        let n = self.block_names.get(&b).copied().unwrap_or(u32::MAX);
        let _ = write!(self.out, "^bb{n}");
    }

    fn print_generic(&mut self, op: Op) {
        self.out.push('"');
        self.out.push_str(self.ctx.op_name(op));
        self.out.push_str("\"(");
        self.print_operands(self.ctx.operands(op));
        self.out.push(')');
        let succ = self.ctx.successors(op);
        if !succ.is_empty() {
            self.out.push('[');
            for (i, b) in succ.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_successor(*b);
            }
            self.out.push(']');
        }
        let inherent = self.ctx.op_def(op).map_or(&[][..], |d| d.inherent_attrs);
        let (props, rest): (Vec<NamedAttr>, Vec<NamedAttr>) = self
            .ctx
            .attrs(op)
            .iter()
            .partition(|a| inherent.contains(&self.ctx.ident_str(a.name)));
        if !props.is_empty() {
            self.out.push_str(" <");
            self.print_attr_dict(&props);
            self.out.push('>');
        }
        let regions = self.ctx.regions(op);
        if !regions.is_empty() {
            self.out.push_str(" (");
            for (i, r) in regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_region(*r, true);
            }
            self.out.push(')');
        }
        if !rest.is_empty() {
            self.out.push(' ');
            self.print_attr_dict(&rest);
        }
        self.out.push_str(" : (");
        let types: Vec<Type> = self
            .ctx
            .operands(op)
            .iter()
            .map(|v| self.ctx.value_type(*v))
            .collect();
        self.print_type_list(&types);
        self.out.push_str(") -> ");
        let results = self.ctx.result_types(op);
        if results.len() == 1
            && !matches!(self.ctx.type_kind(results[0]), TypeKind::Function { .. })
        {
            self.print_type(results[0]);
        } else {
            self.out.push('(');
            self.print_type_list(&results);
            self.out.push(')');
        }
    }

    /// Prints `{` blocks `}`. With `print_entry_args` false the entry block's label and
    /// arguments are left out (a custom signature already showed them).
    pub fn print_region(&mut self, region: Region, print_entry_args: bool) {
        self.out.push('{');
        self.indent += 1;
        let blocks = self.ctx.blocks(region);
        for (bi, &block) in blocks.iter().enumerate() {
            let args = self.ctx.block_args(block);
            let print_label = bi > 0 || (print_entry_args && !args.is_empty());
            if print_label {
                self.indent -= 1;
                self.newline();
                self.print_successor(block);
                if !args.is_empty() {
                    self.out.push('(');
                    for (i, a) in args.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.print_argument(*a);
                    }
                    self.out.push(')');
                }
                self.out.push(':');
                self.indent += 1;
            }
            for op in self.ctx.block_ops(block) {
                self.newline();
                self.print_operation(op);
            }
        }
        self.indent -= 1;
        self.newline();
        self.out.push('}');
    }

    /// Prints ` {a = 1}` for the op's attributes not in `elided`, or nothing if none remain.
    pub fn print_optional_attr_dict(&mut self, op: Op, elided: &[&str]) {
        let attrs: Vec<NamedAttr> = self
            .ctx
            .attrs(op)
            .iter()
            .filter(|a| !elided.contains(&self.ctx.ident_str(a.name)))
            .copied()
            .collect();
        if !attrs.is_empty() {
            self.out.push(' ');
            self.print_attr_dict(&attrs);
        }
    }

    /// Prints ` attributes {a = 1}` for the op's attributes not in `elided`.
    pub fn print_optional_attr_dict_with_keyword(&mut self, op: Op, elided: &[&str]) {
        let attrs: Vec<NamedAttr> = self
            .ctx
            .attrs(op)
            .iter()
            .filter(|a| !elided.contains(&self.ctx.ident_str(a.name)))
            .copied()
            .collect();
        if !attrs.is_empty() {
            self.out.push_str(" attributes ");
            self.print_attr_dict(&attrs);
        }
    }

    fn print_attr_dict(&mut self, attrs: &[NamedAttr]) {
        self.out.push('{');
        for (i, a) in attrs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_key(self.ctx.ident_str(a.name));
            if !matches!(self.ctx.attr_kind(a.value), AttrKind::Unit) {
                self.out.push_str(" = ");
                self.print_attr(a.value);
            }
        }
        self.out.push('}');
    }

    fn print_key(&mut self, key: &str) {
        if is_bare_identifier(key) {
            self.out.push_str(key);
        } else {
            self.print_string(key);
        }
    }

    /// Prints `@name`, quoting it when it is not a bare identifier.
    pub fn print_symbol_name(&mut self, name: &str) {
        self.out.push('@');
        if is_bare_identifier(name) {
            self.out.push_str(name);
        } else {
            self.print_string(name);
        }
    }

    /// Prints a quoted, escaped string.
    pub fn print_string(&mut self, s: &str) {
        self.out.push('"');
        for b in s.bytes() {
            match b {
                b'"' | b'\\' => {
                    self.out.push('\\');
                    self.out.push(b as char);
                }
                0x20..=0x7e => self.out.push(b as char),
                _ => {
                    let _ = write!(self.out, "\\{b:02X}");
                }
            }
        }
        self.out.push('"');
    }

    // -----------------------------------------------------------------------------------------
    // Types.

    /// Prints a type.
    pub fn print_type(&mut self, ty: Type) {
        match self.ctx.type_kind(ty) {
            TypeKind::Integer { width } => {
                self.out.push('i');
                self.out.push_str(itoa::Buffer::new().format(*width));
            }
            TypeKind::Index => self.out.push_str("index"),
            TypeKind::Float(k) => self.out.push_str(k.keyword()),
            TypeKind::None => self.out.push_str("none"),
            TypeKind::Tensor { shape, element } => {
                self.out.push_str("tensor<");
                self.print_shape(shape);
                self.print_type(*element);
                self.out.push('>');
            }
            TypeKind::Vector { shape, element } => {
                self.out.push_str("vector<");
                self.print_shape(shape);
                self.print_type(*element);
                self.out.push('>');
            }
            TypeKind::Function { inputs, results } => {
                self.out.push('(');
                self.print_type_list(inputs);
                self.out.push_str(") -> ");
                if results.len() == 1
                    && !matches!(self.ctx.type_kind(results[0]), TypeKind::Function { .. })
                {
                    self.print_type(results[0]);
                } else {
                    self.out.push('(');
                    self.print_type_list(results);
                    self.out.push(')');
                }
            }
            TypeKind::Dialect { dialect, .. } => {
                let dname = self.ctx.ident_str(*dialect);
                self.out.push('!');
                self.out.push_str(dname);
                self.out.push('.');
                if let Some(print) = self
                    .ctx
                    .registry
                    .dialect(*dialect)
                    .and_then(|d| d.print_type)
                {
                    print(self, ty);
                }
            }
            TypeKind::Opaque { dialect, body } => {
                let _ = write!(self.out, "!{}.{}", self.ctx.ident_str(*dialect), body);
            }
        }
    }

    fn print_shape(&mut self, shape: &[i64]) {
        for d in shape {
            if *d == DYNAMIC {
                self.out.push('?');
            } else {
                self.out.push_str(itoa::Buffer::new().format(*d));
            }
            self.out.push('x');
        }
    }

    /// Prints types separated by `, `.
    pub fn print_type_list(&mut self, types: &[Type]) {
        for (i, t) in types.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_type(*t);
        }
    }

    // -----------------------------------------------------------------------------------------
    // Attributes.

    /// Prints an attribute, with its type where MLIR prints one (`42 : i32`, `1.0 : f64`).
    pub fn print_attr(&mut self, attr: Attribute) {
        match self.ctx.attr_kind(attr) {
            AttrKind::Integer { value, ty } => {
                if *ty == Type::I1 {
                    self.out
                        .push_str(if *value != 0 { "true" } else { "false" });
                } else {
                    let _ = write!(self.out, "{value} : ");
                    self.print_type(*ty);
                }
            }
            AttrKind::Float { bits, ty } => {
                let kind = self.ctx.float_kind(*ty).unwrap_or(FloatKind::F64);
                self.print_float(f64::from_bits(*bits), kind);
                self.out.push_str(" : ");
                self.print_type(*ty);
            }
            AttrKind::String(s) => self.print_string(s),
            AttrKind::Unit => self.out.push_str("unit"),
            AttrKind::Array(elems) => {
                self.out.push('[');
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.print_attr(*e);
                }
                self.out.push(']');
            }
            AttrKind::Dict(entries) => self.print_attr_dict(entries),
            AttrKind::Type(t) => self.print_type(*t),
            AttrKind::SymbolRef(path) => {
                for (i, s) in path.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str("::");
                    }
                    self.print_symbol_name(self.ctx.ident_str(*s));
                }
            }
            AttrKind::DenseElements(d) => {
                self.out.push_str("dense<");
                let shape = self.ctx.shape(d.ty).unwrap_or(&[]).to_vec();
                if d.splat {
                    self.print_dense_value(self.ctx.dense_element(d, 0), d.ty);
                } else if shape.iter().product::<i64>() > 0 || shape.is_empty() {
                    self.print_dense_level(d, &shape, 0, &mut 0);
                }
                self.out.push_str("> : ");
                self.print_type(d.ty);
            }
            AttrKind::DenseArray { element, values } => {
                self.out.push_str("array<");
                self.print_type(*element);
                if !values.is_empty() {
                    self.out.push_str(": ");
                }
                let kind = self.ctx.float_kind(*element);
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    match kind {
                        Some(k) => self.print_float(f64::from_bits(*v as u64), k),
                        None if *element == Type::I1 => {
                            self.out.push_str(if *v != 0 { "true" } else { "false" })
                        }
                        None => self.out.push_str(itoa::Buffer::new().format(*v)),
                    }
                }
                self.out.push('>');
            }
            AttrKind::Dialect { dialect, .. } => {
                self.out.push('#');
                self.out.push_str(self.ctx.ident_str(*dialect));
                self.out.push('.');
                if let Some(print) = self
                    .ctx
                    .registry
                    .dialect(*dialect)
                    .and_then(|d| d.print_attr)
                {
                    print(self, attr);
                }
            }
            AttrKind::Opaque { dialect, body } => {
                let _ = write!(self.out, "#{}.{}", self.ctx.ident_str(*dialect), body);
            }
        }
    }

    fn print_dense_level(
        &mut self,
        d: &crate::attributes::DenseElements,
        shape: &[i64],
        depth: usize,
        next: &mut usize,
    ) {
        if depth == shape.len() {
            let v = self.ctx.dense_element(d, *next);
            *next += 1;
            self.print_dense_value(v, d.ty);
            return;
        }
        self.out.push('[');
        for i in 0..shape[depth] {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_dense_level(d, shape, depth + 1, next);
        }
        self.out.push(']');
    }

    fn print_dense_value(&mut self, v: DenseValue, ty: Type) {
        let elem = self.ctx.element_type(ty);
        match v {
            DenseValue::Float(x) => {
                self.print_float(x, self.ctx.float_kind(elem).unwrap_or(FloatKind::F64))
            }
            DenseValue::Int(x) if elem == Type::I1 => {
                self.out.push_str(if x != 0 { "true" } else { "false" })
            }
            DenseValue::Int(x) => {
                let _ = write!(self.out, "{x}");
            }
        }
        debug_assert!(dense_element_bytes(self.ctx.type_kind(elem)).is_some());
    }

    /// Prints a float so that parsing it back in format `kind` gives the same value: six
    /// significant decimals (`1.500000e+00`) when that is exact, else the shortest decimal that
    /// round-trips, and the bit pattern in hex for NaN and infinities.
    pub fn print_float(&mut self, v: f64, kind: FloatKind) {
        if !v.is_finite() {
            let digits = kind.width() as usize / 4;
            let _ = write!(self.out, "0x{:0digits$X}", kind.to_bits(v));
            return;
        }
        let six = format!("{v:.6e}");
        let text = if six.parse::<f64>().map(|p| kind.round(p)) == Ok(v) {
            six
        } else if kind == FloatKind::F64 {
            format!("{v:e}")
        } else {
            format!("{:e}", v as f32)
        };
        let (mantissa, exp) = text.split_once('e').unwrap_or((&text, "0"));
        self.out.push_str(mantissa);
        if !mantissa.contains('.') {
            self.out.push_str(".0");
        }
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        let _ = write!(self.out, "e{sign}{digits:0>2}");
    }

    // -----------------------------------------------------------------------------------------
    // Locations.

    /// Prints `loc(...)`.
    pub fn print_location(&mut self, loc: Location) {
        self.out.push_str("loc(");
        self.print_location_inner(loc);
        self.out.push(')');
    }

    fn print_location_inner(&mut self, loc: Location) {
        match loc {
            Location::Unknown => self.out.push_str("unknown"),
            Location::FileLineCol { file, line, col } => {
                self.print_string(self.ctx.ident_str(file));
                let _ = write!(self.out, ":{line}:{col}");
            }
            Location::Composite(c) => match self.ctx.composite_loc_kind(c) {
                CompositeLocKind::Name { name, child } => {
                    self.print_string(self.ctx.ident_str(*name));
                    if let Some(child) = child {
                        self.out.push('(');
                        self.print_location_inner(*child);
                        self.out.push(')');
                    }
                }
                CompositeLocKind::CallSite { callee, caller } => {
                    self.out.push_str("callsite(");
                    self.print_location_inner(*callee);
                    self.out.push_str(" at ");
                    self.print_location_inner(*caller);
                    self.out.push(')');
                }
                CompositeLocKind::Fused {
                    locations,
                    metadata,
                } => {
                    self.out.push_str("fused");
                    if let Some(m) = metadata {
                        self.out.push('<');
                        self.print_attr(*m);
                        self.out.push('>');
                    }
                    self.out.push('[');
                    for (i, l) in locations.iter().enumerate() {
                        if i > 0 {
                            self.out.push_str(", ");
                        }
                        self.print_location_inner(*l);
                    }
                    self.out.push(']');
                }
            },
        }
    }
}

/// True if `s` can be written without quotes as an attribute name or symbol.
pub fn is_bare_identifier(s: &str) -> bool {
    let mut bytes = s.bytes();
    matches!(bytes.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_')
        && bytes.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.'))
}
