//! The printer: writes IR as MLIR text, in custom syntax where an op has one or generic form.
//!
//! Values are named the way mlir-opt names them: `%argN` for entry-block arguments, `%N` for
//! everything else, numbered region by region in mlir-opt's order; blocks are `^bbN`. Names are
//! assigned for the whole op before it is printed, so uses that precede definitions (graph regions,
//! branches to later blocks) print correctly. Printing what was parsed and parsing it again
//! yields the same text.

use crate::attributes::{
    dense_element_bytes, is_unsigned, AttrKind, Attribute, DenseValue, NamedAttr,
};
use crate::ir::{Block, Op, Region, Value};
use crate::location::{CompositeLocKind, Location};
use crate::types::{FloatClass, FloatKind, FloatLayout, Type, TypeKind, DYNAMIC};
use crate::wide_int;
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
    /// A dialect-suggested name (`%c0_i32`), by index into the printer's name list.
    Hint(u32),
    /// Result `index` of a hinted multi-result op.
    HintGroup(u32, u32),
}

/// A region waiting to be named, with the naming state its parent region ended with.
struct PendingRegion {
    region: Region,
    next_value: u32,
    next_arg: u32,
    /// Nesting depth; hint names recorded at this depth or deeper belong to other branches.
    depth: u32,
    next_conflict: u32,
}

/// Dense constants with more elements than this print as a hex string, as in mlir-opt
/// (its `--mlir-print-elementsattrs-with-hex-if-larger` default).
const DENSE_HEX_ABOVE: i64 = 100;

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
    /// Hinted names in use (text without `%`) and, in order, the depth that introduced each.
    hints: Vec<String>,
    hints_in_scope: rustc_hash::FxHashSet<u32>,
    hint_log: Vec<(u32, u32)>,
    hint_lookup: FxHashMap<String, u32>,
    next_conflict: u32,
    /// Dialect prefixes that may be dropped inside the op being printed.
    default_dialects: Vec<&'static str>,
    /// Where finished text goes when printing streams (`print_op_to`).
    sink: Option<&'a mut dyn std::io::Write>,
    sink_error: Option<std::io::Error>,
    /// The alias names (`map1`) of the affine maps and sets printed as `#map1`.
    aliases: FxHashMap<Attribute, String>,
    /// While collecting aliases: the affine maps and sets met so far, in print order.
    collected: Option<Vec<Attribute>>,
    /// The resources `dense_resource` attributes printed so far name, in print order.
    resources_used: Vec<Box<str>>,
}

/// Prints `op` (usually a module) with `options` into `sink`, streaming: the text is handed over
/// in chunks as it is produced, so printing a large module does not hold all of it in memory.
pub fn print_op_to(
    ctx: &Context,
    op: Op,
    options: PrintOptions,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut p = Printer::new(ctx);
    p.options = options;
    p.sink = Some(sink);
    p.out.reserve(STREAM_CHUNK + 4096);
    p.print_alias_definitions(op);
    p.number_scope_of(op);
    p.print_operation(op);
    p.print_resources();
    p.flush_to_sink(true);
    match p.sink_error.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Bytes of text a streaming printer collects before handing them to its sink.
const STREAM_CHUNK: usize = 1 << 16;

/// Prints `op` (usually a module) with `options`.
pub fn print_op(ctx: &Context, op: Op, options: PrintOptions) -> String {
    let mut p = Printer::new(ctx);
    p.options = options;
    p.out.reserve(ctx.ops.len() * 40);
    p.print_alias_definitions(op);
    p.number_scope_of(op);
    p.print_operation(op);
    p.print_resources();
    p.out
}

/// Prints `op` as it reads inside `root`, an op that contains it (usually its module): its
/// results and the values it uses have the names that printing `root` gives them, as MLIR
/// names a nested op's values from its top-level op. A value defined outside `root` prints as
/// `%<<UNKNOWN ...>>`.
pub fn print_op_in(ctx: &Context, root: Op, op: Op, options: PrintOptions) -> String {
    let mut p = Printer::new(ctx);
    p.options = options;
    p.print_alias_definitions(op);
    p.number_scope_of(root);
    p.print_operation(op);
    p.print_resources();
    p.out
}

/// The name `v` has when `root`, an op that contains its definition, is printed: `%0`,
/// `%arg1`, `%2#1`, or a name a dialect suggests (`%c0`).
pub fn value_name(ctx: &Context, root: Op, v: Value) -> String {
    let mut p = Printer::new(ctx);
    p.number_scope_of(root);
    p.print_operand(v);
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
            hints: Vec::new(),
            hints_in_scope: Default::default(),
            hint_log: Vec::new(),
            hint_lookup: FxHashMap::default(),
            next_conflict: 0,
            default_dialects: Vec::new(),
            sink: None,
            sink_error: None,
            aliases: FxHashMap::default(),
            collected: None,
            resources_used: Vec::new(),
        }
    }

    /// Writes the `{-# dialect_resources: ... #-}` block holding the blobs of the resources the
    /// printed IR names (those with a blob), as mlir-opt does after the top-level op.
    fn print_resources(&mut self) {
        let names = std::mem::take(&mut self.resources_used);
        let blobs: Vec<(Box<str>, std::sync::Arc<[u8]>)> = names
            .into_iter()
            .filter_map(|n| self.ctx.resource_blob(&n).map(|b| (n, b)))
            .collect();
        if blobs.is_empty() {
            return;
        }
        self.out
            .push_str("\n\n{-#\n  dialect_resources: {\n    builtin: {\n");
        for (i, (name, blob)) in blobs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(",\n");
            }
            self.out.push_str("      ");
            self.print_symbol_key(name);
            self.out.push_str(": \"0x");
            crate::hex::push_hex(&mut self.out, blob);
            self.out.push('"');
        }
        self.out.push_str("\n    }\n  }\n#-}");
    }

    /// Prints a resource name: bare when it is an identifier, else quoted.
    fn print_symbol_key(&mut self, name: &str) {
        if is_bare_identifier(name) {
            self.out.push_str(name);
        } else {
            self.print_string(name);
        }
    }

    /// Names the affine maps and sets `op` prints, as mlir-opt does (`#map`, `#map1`, ...,
    /// then `#set`, ..., each in the order first printed), and writes their definitions.
    /// Costs a dry run of the printer, taken only once some affine attribute exists.
    fn print_alias_definitions(&mut self, op: Op) {
        if !self
            .ctx
            .interned
            .has_affine
            .load(std::sync::atomic::Ordering::Relaxed)
        {
            return;
        }
        let mut dry = Printer::new(self.ctx);
        dry.options = self.options;
        dry.collected = Some(Vec::new());
        dry.number_scope_of(op);
        dry.print_operation(op);
        let collected = dry.collected.unwrap_or_default();
        for prefix in ["map", "set"] {
            let mut n = 0;
            for &attr in &collected {
                let is_map = matches!(self.ctx.attr_kind(attr), AttrKind::AffineMap(_));
                if is_map != (prefix == "map") {
                    continue;
                }
                let name = match n {
                    0 => prefix.to_string(),
                    _ => format!("{prefix}{n}"),
                };
                n += 1;
                let _ = write!(self.out, "#{name} = ");
                self.print_attr(attr);
                self.out.push('\n');
                self.aliases.insert(attr, name);
            }
        }
    }

    /// Hands the collected text to the sink (when streaming), if enough has piled up or `force`.
    fn flush_to_sink(&mut self, force: bool) {
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        if !force && self.out.len() < STREAM_CHUNK {
            return;
        }
        if self.sink_error.is_none() {
            if let Err(e) = sink.write_all(self.out.as_bytes()) {
                self.sink_error = Some(e);
            }
        }
        self.out.clear();
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

    /// The text of a location: `loc("file":3:5)`.
    pub fn location_to_string(&self, loc: Location) -> String {
        let mut p = Printer::new(self.ctx);
        p.print_location(loc);
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
        self.number_results(op, 0);
        self.number_regions(op);
    }

    fn number_results(&mut self, op: Op, depth: u32) {
        let n = self.ctx.num_results(op);
        if n == 0 {
            return;
        }
        let def = self.ctx.op_def(op).filter(|_| !self.options.generic);
        if let Some(names) = def.map(|d| d.result_names).filter(|names| names.len() == n) {
            // One name per result, each made unique in turn (`%low_0, %high_1`).
            for (v, name) in self.ctx.results(op).zip(names) {
                let id = self.unique_hint(name.to_string(), depth);
                self.set_name(v, ValueName::Hint(id));
            }
            return;
        }
        let hint = def
            .and_then(|d| d.result_name)
            .and_then(|f| f(self.ctx, op));
        if let Some(hint) = hint {
            let id = self.unique_hint(hint, depth);
            for (i, v) in self.ctx.results(op).enumerate() {
                self.set_name(
                    v,
                    if n == 1 {
                        ValueName::Hint(id)
                    } else {
                        ValueName::HintGroup(id, i as u32)
                    },
                );
            }
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

    /// Makes `hint` unique among the names visible at `depth` the way mlir-opt does: the hint
    /// itself if free, else `hint_N` with a counter shared by all hints of the scope.
    fn unique_hint(&mut self, hint: String, depth: u32) -> u32 {
        let mut name = hint.clone();
        while self
            .hint_lookup
            .get(&name)
            .is_some_and(|id| self.hints_in_scope.contains(id))
        {
            name = format!("{hint}_{}", self.next_conflict);
            self.next_conflict += 1;
        }
        let id = match self.hint_lookup.get(&name) {
            Some(id) => *id,
            None => {
                let id = self.hints.len() as u32;
                self.hints.push(name.clone());
                self.hint_lookup.insert(name, id);
                id
            }
        };
        self.hints_in_scope.insert(id);
        self.hint_log.push((depth, id));
        id
    }

    /// Numbers the regions of `op` in mlir-opt's order: all block arguments and results of a
    /// region first, then the regions nested in its ops, each starting from the counters the
    /// enclosing region ended with (so sibling regions reuse numbers, and a nested name never
    /// repeats a name visible from it). In the generic form mlir-opt makes every name unique
    /// instead: the counters run on, over the nested regions taken last first.
    fn number_regions(&mut self, op: Op) {
        let saved = (self.next_value, self.next_arg);
        let mut pending: Vec<PendingRegion> = self
            .ctx
            .regions(op)
            .iter()
            .map(|r| PendingRegion {
                region: *r,
                next_value: self.next_value,
                next_arg: self.next_arg,
                depth: 1,
                next_conflict: self.next_conflict,
            })
            .collect();
        while let Some(p) = pending.pop() {
            if !self.options.generic {
                (self.next_value, self.next_arg, self.next_conflict) =
                    (p.next_value, p.next_arg, p.next_conflict);
            }
            // Hints named by regions at this depth or deeper are not visible here.
            while self.hint_log.last().is_some_and(|(d, _)| *d >= p.depth) {
                let (_, id) = self.hint_log.pop().expect("checked non-empty");
                self.hints_in_scope.remove(&id);
            }
            for (bi, &block) in self.ctx.blocks(p.region).iter().enumerate() {
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
                    self.number_results(inner, p.depth);
                }
            }
            for &block in self.ctx.blocks(p.region) {
                for inner in self.ctx.block_ops(block) {
                    for &nested in self.ctx.regions(inner) {
                        pending.push(PendingRegion {
                            region: nested,
                            next_value: self.next_value,
                            next_arg: self.next_arg,
                            depth: p.depth + 1,
                            next_conflict: self.next_conflict,
                        });
                    }
                }
            }
        }
        (self.next_value, self.next_arg) = saved;
    }

    // -----------------------------------------------------------------------------------------
    // Operations.

    fn newline(&mut self) {
        self.flush_to_sink(false);
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
        // Custom printers index operands, results and regions as the definition declares them,
        // so an op that does not match its definition (invalid IR printed for a diagnostic)
        // prints generically, as mlir-opt falls back to the generic form for invalid ops.
        let def = self.ctx.op_def(op).filter(|d| {
            d.operands.accepts(self.ctx.operands(op).len())
                && d.results.accepts(n)
                && d.regions.accepts(self.ctx.regions(op).len())
        });
        // A format prints the op only when its attributes are there to print.
        let custom =
            def.filter(|_| !self.options.generic)
                .and_then(|d| match (d.print, &d.format) {
                    (Some(print), _) => Some(Custom::Hook(print)),
                    (None, Some(format)) if format.can_print(self.ctx, op) => {
                        Some(Custom::Format(format))
                    }
                    _ => None,
                });
        match custom {
            Some(custom) => {
                let name = self.ctx.op_name(op);
                // MLIR's rule: the prefix is elided only for the dialect the enclosing op names
                // as its default (`builtin` at the top level and in a module's body, `func` in a
                // function's body, none in an op without one), so a module nested in a function
                // prints as `builtin.module`.
                let default = self.default_dialects.last().copied().unwrap_or("builtin");
                let short = (!default.is_empty())
                    .then(|| name.strip_prefix(default).and_then(|r| r.strip_prefix('.')))
                    .flatten()
                    .unwrap_or(name);
                self.out.push_str(short);
                self.default_dialects
                    .push(def.and_then(|d| d.default_dialect).unwrap_or(""));
                match custom {
                    Custom::Hook(print) => print(self, op),
                    Custom::Format(format) => format.print(self, op),
                }
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
            ValueName::HintGroup(id, _) => {
                let _ = write!(self.out, "%{}:{count}", self.hints[id as usize]);
            }
            // Results named one by one ([`OpDef::result_names`]) are listed one by one.
            ValueName::Hint(_) if count > 1 => {
                let op = self.ctx.defining_op(v);
                let results: Vec<Value> =
                    op.map_or_else(Vec::new, |op| self.ctx.results(op).collect());
                self.print_operands(&results);
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
            ValueName::Hint(id) => {
                self.out.push('%');
                self.out.push_str(&self.hints[id as usize]);
            }
            ValueName::HintGroup(id, i) => {
                let _ = write!(self.out, "%{}#{i}", self.hints[id as usize]);
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
        self.print_string(self.ctx.op_name(op));
        self.out.push('(');
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
            // An op in the generic form names no default dialect for its regions.
            self.default_dialects.push("");
            for (i, r) in regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_region(*r, true);
            }
            self.default_dialects.pop();
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
        self.print_function_result_types(&results);
    }

    /// Prints `{` blocks `}`. With `print_entry_args` false the entry block's label and
    /// arguments are left out (a custom signature already showed them).
    pub fn print_region(&mut self, region: Region, print_entry_args: bool) {
        self.out.push('{');
        self.indent += 1;
        let blocks = self.ctx.blocks(region);
        let preds = if blocks.len() > 1 {
            self.predecessors(blocks)
        } else {
            FxHashMap::default()
        };
        for (bi, &block) in blocks.iter().enumerate() {
            let args = self.ctx.block_args(block);
            // An empty entry block keeps its label, as in MLIR's generic form: without one it
            // would read back as no block at all, or the next block would become the entry.
            let print_label = bi > 0
                || (print_entry_args && (!args.is_empty() || self.ctx.first_op(block).is_none()));
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
                match preds.get(&block).map_or(&[][..], |p| &p[..]) {
                    [] if bi > 0 => self.out.push_str("  // no predecessors"),
                    [] => {}
                    [single] => {
                        let _ = write!(self.out, "  // pred: ^bb{single}");
                    }
                    all => {
                        let _ = write!(self.out, "  // {} preds: ", all.len());
                        for (i, p) in all.iter().enumerate() {
                            let sep = if i > 0 { ", " } else { "" };
                            let _ = write!(self.out, "{sep}^bb{p}");
                        }
                    }
                }
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

    /// The predecessors of each block of a region, as sorted block numbers (one per branch
    /// edge), for the `// 2 preds: ^bb0, ^bb1` comments mlir-opt writes after block labels.
    fn predecessors(&self, blocks: &[Block]) -> FxHashMap<Block, Vec<u32>> {
        let mut preds: FxHashMap<Block, Vec<u32>> = FxHashMap::default();
        for &b in blocks {
            let number = self.block_names.get(&b).copied().unwrap_or(u32::MAX);
            for op in self.ctx.block_ops(b) {
                for &succ in self.ctx.successors(op) {
                    preds.entry(succ).or_default().push(number);
                }
            }
        }
        preds.values_mut().for_each(|p| p.sort_unstable());
        preds
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

    /// Prints a quoted, escaped string the way LLVM's `printEscapedString` does: `\\` for a
    /// backslash, two hex digits for quotes and non-printable bytes.
    pub fn print_string(&mut self, s: &str) {
        self.out.push('"');
        for b in s.bytes() {
            match b {
                b'\\' => self.out.push_str("\\\\"),
                0x20..=0x7e if b != b'"' => self.out.push(b as char),
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
            TypeKind::SignedInteger { width, signed } => {
                self.out.push_str(if *signed { "si" } else { "ui" });
                self.out.push_str(itoa::Buffer::new().format(*width));
            }
            TypeKind::Index => self.out.push_str("index"),
            TypeKind::Float(k) => self.out.push_str(k.keyword()),
            TypeKind::ExtFloat(k) => self.out.push_str(k.keyword()),
            TypeKind::None => self.out.push_str("none"),
            TypeKind::Complex(element) => {
                self.out.push_str("complex<");
                self.print_type(*element);
                self.out.push('>');
            }
            TypeKind::Tuple(elements) => {
                self.out.push_str("tuple<");
                self.print_type_list(elements);
                self.out.push('>');
            }
            TypeKind::EncodedTensor {
                shape,
                element,
                encoding,
            } => {
                self.out.push_str("tensor<");
                self.print_shape(shape);
                self.print_type(*element);
                self.out.push_str(", ");
                self.print_attr(*encoding);
                self.out.push('>');
            }
            TypeKind::UnrankedTensor(element) => {
                self.out.push_str("tensor<*x");
                self.print_type(*element);
                self.out.push('>');
            }
            TypeKind::ScalableVector {
                shape,
                scalable,
                element,
            } => {
                self.out.push_str("vector<");
                for (d, s) in shape.iter().zip(scalable.iter()) {
                    if *s {
                        let _ = write!(self.out, "[{d}]x");
                    } else {
                        let _ = write!(self.out, "{d}x");
                    }
                }
                self.print_type(*element);
                self.out.push('>');
            }
            TypeKind::MemRef {
                shape,
                element,
                layout,
                memory_space,
            } => {
                self.out.push_str("memref<");
                self.print_shape(shape);
                self.print_type(*element);
                for attr in [layout, memory_space].into_iter().flatten() {
                    self.out.push_str(", ");
                    self.print_memref_attr(*attr);
                }
                self.out.push('>');
            }
            TypeKind::UnrankedMemRef {
                element,
                memory_space,
            } => {
                self.out.push_str("memref<*x");
                self.print_type(*element);
                if let Some(space) = memory_space {
                    self.out.push_str(", ");
                    self.print_memref_attr(*space);
                }
                self.out.push('>');
            }
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
                self.print_function_result_types(results);
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
                self.print_dialect_symbol('!', self.ctx.ident_str(*dialect), body)
            }
        }
    }

    /// Prints an opaque dialect type or attribute as MLIR does: `!dialect.body` when the body
    /// is an identifier, optionally followed by `<...>`, else `!dialect<body>`, unless the body
    /// would not read back inside `<...>` (`-` would make `->`): then it was written after a
    /// dot, and is printed that way.
    fn print_dialect_symbol(&mut self, prefix: char, dialect: &str, body: &str) {
        use crate::parser::lexer::Lexer;
        let rest =
            body.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '.' || c == '_');
        let simple = body.starts_with(|c: char| c.is_ascii_alphabetic())
            && (rest.is_empty() || Lexer::is_angle_group(rest));
        if simple || !Lexer::is_angle_group(&format!("<{body}>")) {
            let _ = write!(self.out, "{prefix}{dialect}.{body}");
        } else {
            let _ = write!(self.out, "{prefix}{dialect}<{body}>");
        }
    }

    /// Prints a memref layout or memory space: MLIR leaves out the type of an `i64` integer.
    fn print_memref_attr(&mut self, attr: Attribute) {
        match self.ctx.attr_kind(attr) {
            AttrKind::Integer { value, ty } if *ty == Type::I64 => {
                self.out.push_str(itoa::Buffer::new().format(*value));
            }
            _ => self.print_attr(attr),
        }
    }

    /// Prints `?` for [`DYNAMIC`], else the number.
    fn print_dim(&mut self, d: i64) {
        if d == DYNAMIC {
            self.out.push('?');
        } else {
            self.out.push_str(itoa::Buffer::new().format(d));
        }
    }

    fn print_shape(&mut self, shape: &[i64]) {
        for d in shape {
            self.print_dim(*d);
            self.out.push('x');
        }
    }

    /// A function result list after `->`: one type bare (unless it is a function type, which
    /// would read back as one), any other number in parentheses; what
    /// `Parser::parse_function_result_types` reads.
    pub fn print_function_result_types(&mut self, results: &[Type]) {
        match results {
            [one] if !matches!(self.ctx.type_kind(*one), TypeKind::Function { .. }) => {
                self.print_type(*one)
            }
            _ => {
                self.out.push('(');
                self.print_type_list(results);
                self.out.push(')');
            }
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
                    let unsigned128 = matches!(
                        self.ctx.type_kind(*ty),
                        TypeKind::SignedInteger {
                            width: 128,
                            signed: false
                        }
                    );
                    if unsigned128 {
                        let _ = write!(self.out, "{} : ", *value as u128);
                    } else {
                        let _ = write!(self.out, "{value} : ");
                    }
                    self.print_type(*ty);
                }
            }
            AttrKind::WideInteger { bits, ty } => {
                let unsigned = is_unsigned(self.ctx.type_kind(*ty));
                self.out.push_str(&wide_int::to_decimal(bits, unsigned));
                self.out.push_str(" : ");
                self.print_type(*ty);
            }
            AttrKind::Float { bits, ty } => {
                let kind = self.ctx.float_kind(*ty).unwrap_or(FloatKind::F64);
                self.print_float(f64::from_bits(*bits), kind);
                self.out.push_str(" : ");
                self.print_type(*ty);
            }
            AttrKind::WideFloat { bits, ty } => {
                match self.ctx.wide_float_layout(*ty) {
                    Some(layout) => self.print_wide_float(*bits, layout),
                    // Not built by the parser or `Context::wide_float_attr`: show the bits.
                    None => {
                        let _ = write!(self.out, "0x{bits:X}");
                    }
                }
                self.out.push_str(" : ");
                self.print_type(*ty);
            }
            AttrKind::String(s) => self.print_string(s),
            AttrKind::TypedString { value, ty } => {
                self.print_string(value);
                self.out.push_str(" : ");
                self.print_type(*ty);
            }
            AttrKind::Unit => self.out.push_str("unit"),
            AttrKind::Array(elems) => {
                self.out.push('[');
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.print_array_element(*e);
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
                let shape = self.ctx.written_shape(d.ty).unwrap_or(&[]).to_vec();
                if d.splat {
                    self.print_dense_element(d, 0);
                } else if shape.iter().product::<i64>() > DENSE_HEX_ABOVE {
                    self.print_dense_hex(d);
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
            AttrKind::Strided { strides, offset } => {
                self.out.push_str("strided<[");
                for (i, s) in strides.iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.print_dim(*s);
                }
                self.out.push(']');
                if *offset != 0 {
                    self.out.push_str(", offset: ");
                    self.print_dim(*offset);
                }
                self.out.push('>');
            }
            AttrKind::DenseResource { name, ty } => {
                self.out.push_str("dense_resource<");
                self.print_symbol_key(name);
                self.out.push_str("> : ");
                self.print_type(*ty);
                if !self.resources_used.contains(name) {
                    self.resources_used.push(name.clone());
                }
            }
            AttrKind::AffineMap(_) | AttrKind::IntegerSet(_) => {
                if let Some(name) = self.aliases.get(&attr) {
                    self.out.push('#');
                    self.out.push_str(name);
                    return;
                }
                if let Some(seen) = self.collected.as_mut() {
                    if !seen.contains(&attr) {
                        seen.push(attr);
                    }
                }
                match self.ctx.attr_kind(attr) {
                    AttrKind::AffineMap(map) => map.write(&mut self.out),
                    AttrKind::IntegerSet(set) => set.write(&mut self.out),
                    _ => {}
                }
            }
            AttrKind::Dialect {
                dialect,
                mnemonic,
                params,
            } => {
                self.out.push('#');
                self.out.push_str(self.ctx.ident_str(*dialect));
                self.out.push('.');
                let registered = self.ctx.registry.dialect(*dialect);
                let mnemonic = self.ctx.ident_str(*mnemonic);
                if let Some(print) = registered.and_then(|d| d.print_attr) {
                    print(self, attr);
                } else if let Some(def) = registered
                    .and_then(|d| d.attr_def(mnemonic))
                    .filter(|def| def.is_written_form(self.ctx, attr))
                {
                    def.print_value(self, attr);
                } else {
                    // No definition says how (or the parameters are not of its kinds, in
                    // invalid IR): the mnemonic and the parameters in generic form.
                    self.out.push_str(mnemonic);
                    for (i, &param) in params.iter().enumerate() {
                        self.out.push_str(if i == 0 { "<" } else { ", " });
                        self.print_attr(param);
                    }
                    if !params.is_empty() {
                        self.out.push('>');
                    }
                }
            }
            AttrKind::Opaque { dialect, body, ty } => {
                self.print_dialect_symbol('#', self.ctx.ident_str(*dialect), body);
                if *ty != Type::NONE {
                    self.out.push_str(" : ");
                    self.print_type(*ty);
                }
            }
        }
    }

    /// Prints an array element: MLIR leaves out the type of `i64` integers and of `f64` floats
    /// written in decimal there.
    fn print_array_element(&mut self, attr: Attribute) {
        match self.ctx.attr_kind(attr) {
            AttrKind::Integer { value, ty } if *ty == Type::I64 => {
                let _ = write!(self.out, "{value}");
            }
            AttrKind::Float { bits, ty } if *ty == Type::F64 => {
                if self.print_float_reporting_hex(f64::from_bits(*bits), FloatKind::F64) {
                    self.out.push_str(" : f64");
                }
            }
            _ => self.print_attr(attr),
        }
    }

    /// Prints the elements of a large dense constant as `"0x..."`, MLIR's raw little-endian
    /// layout: `i1` packed eight to a byte, other integers with the bits above their width
    /// cleared.
    fn print_dense_hex(&mut self, d: &crate::attributes::DenseElements) {
        let elem = self.ctx.element_type(d.ty);
        let width = match self.ctx.type_kind(elem) {
            TypeKind::Integer { width } | TypeKind::SignedInteger { width, .. } => *width,
            _ => 0,
        };
        let bytes: Vec<u8> = if width == 1 {
            d.data
                .chunks(8)
                .map(|bits| bits.iter().rev().fold(0u8, |acc, b| acc << 1 | (b & 1)))
                .collect()
        } else if width % 8 != 0 {
            let n = (width as usize).div_ceil(8);
            let top_mask = (1u8 << (width % 8)) - 1;
            let mut bytes = d.data.to_vec();
            bytes.chunks_mut(n).for_each(|e| e[n - 1] &= top_mask);
            bytes
        } else {
            d.data.to_vec()
        };
        self.out.push_str("\"0x");
        crate::hex::push_hex(&mut self.out, &bytes);
        self.out.push('"');
    }

    fn print_dense_level(
        &mut self,
        d: &crate::attributes::DenseElements,
        shape: &[i64],
        depth: usize,
        next: &mut usize,
    ) {
        if depth == shape.len() {
            self.print_dense_element(d, *next);
            *next += 1;
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

    /// Prints element `i` of a dense constant (any `i` for a splat).
    fn print_dense_element(&mut self, d: &crate::attributes::DenseElements, i: usize) {
        let elem = self.ctx.element_type(d.ty);
        let kind = self.ctx.type_kind(elem);
        if let TypeKind::Integer { width: 129.. } | TypeKind::SignedInteger { width: 129.., .. } =
            kind
        {
            // Read whole: `dense_element` holds 128 bits.
            let bytes = self.ctx.dense_element_data(d, i);
            self.out
                .push_str(&wide_int::to_decimal(bytes, is_unsigned(kind)));
        } else if let Some(layout) = self.ctx.wide_float_layout(elem) {
            self.print_wide_float(self.ctx.dense_element_bits(d, i), layout);
        } else {
            self.print_dense_value(self.ctx.dense_element(d, i), d.ty);
        }
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

    /// Prints a float exactly as MLIR does: six significant digits in exponent form
    /// (`1.500000e+00`) when that reads back as the same value, else APFloat's default form
    /// (`3.14159265358979`, `9.9999999999999995E-21`) when it has a '.', else the bit pattern
    /// in hex (also for NaN and infinities).
    pub fn print_float(&mut self, v: f64, kind: FloatKind) {
        self.print_float_reporting_hex(v, kind);
    }

    /// [`Self::print_float`], returning true when the value was printed in hex.
    fn print_float_reporting_hex(&mut self, v: f64, kind: FloatKind) -> bool {
        let reads_back = |six: &str, _: &FiniteFloat| {
            six.parse::<f64>()
                .is_ok_and(|p| kind.round(p).to_bits() == v.to_bits())
        };
        self.print_float_bits(kind.to_bits(v) as u128, kind.layout(), reads_back)
    }

    /// Prints a float of a format wider than `f64` (`f80`, `f128`) from its bit pattern, as
    /// [`Self::print_float`] prints the others.
    pub fn print_wide_float(&mut self, bits: u128, layout: FloatLayout) {
        let reads_back = |six: &str, value: &FiniteFloat| decimal_rounds_to(six, value, layout);
        self.print_float_bits(bits, layout, reads_back);
    }

    /// MLIR's float printing over any format: the six-digit form when `reads_back` says it
    /// parses back as the value, else the default form if it has a '.', else the bit pattern in
    /// hex. Returns true when it printed hex.
    fn print_float_bits(
        &mut self,
        bits: u128,
        layout: FloatLayout,
        reads_back: impl Fn(&str, &FiniteFloat) -> bool,
    ) -> bool {
        let (negative, class) = layout.decode(bits);
        if let FloatClass::Finite {
            significand,
            exponent,
        } = class
        {
            let value = FiniteFloat {
                negative,
                significand,
                exponent,
                precision_bits: layout.precision(),
            };
            let six = apfloat_to_string(&value, 6, 0, false);
            if reads_back(&six, &value) {
                self.out.push_str(&six);
                return false;
            }
            let default = apfloat_to_string(&value, 0, 3, true);
            if default.contains('.') {
                self.out.push_str(&default);
                return false;
            }
        }
        // The pattern as APFloat writes it back (an `f80` unnormal in a hex dense string prints
        // as the NaN it reads as).
        let (bits, digits) = (layout.canonical(bits), layout.width as usize / 4);
        let _ = write!(self.out, "0x{bits:0digits$X}");
        true
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

/// A finite float value: `(-1)^negative * significand * 2^exponent`, of a format whose
/// significands have `precision_bits` bits.
struct FiniteFloat {
    negative: bool,
    significand: u128,
    exponent: i32,
    precision_bits: u32,
}

/// `llvm::APFloat::toString(precision, max_padding, truncate_zero)` for `value`, digit for
/// digit: the exact decimal value is cut to a few digits more than `precision` (truncating),
/// then rounded half up to `precision` significant digits (0 means enough digits to read the
/// value back); it is written in exponent form unless that needs at most `max_padding` zeros.
fn apfloat_to_string(
    value: &FiniteFloat,
    precision: u32,
    max_padding: u32,
    truncate_zero: bool,
) -> String {
    let mut out = String::new();
    if value.negative {
        out.push('-');
    }
    if value.significand == 0 {
        if max_padding != 0 {
            out.push('0');
        } else if truncate_zero {
            out.push_str("0.0E+0");
        } else {
            out.push_str("0.0");
            out.extend(std::iter::repeat_n(
                '0',
                precision.saturating_sub(1) as usize,
            ));
            out.push_str("e+00");
        }
        return out;
    }
    let precision = if precision == 0 {
        2 + value.precision_bits * 59 / 196
    } else {
        precision
    };
    // value = significand * 2^exp, then = n * 10^exp with an integer n.
    let mut exp = value.exponent;
    let zeros = value.significand.trailing_zeros();
    let mut n = BigUint::from(value.significand >> zeros);
    exp += zeros as i32;
    if exp > 0 {
        n.mul_pow(2, exp as u32);
        exp = 0;
    } else if exp < 0 {
        n.mul_pow(5, exp.unsigned_abs());
    }
    // Drop digits far below the requested precision (a truncation, as APFloat does).
    let bits_required = (precision * 196).div_ceil(59);
    let active = n.bits();
    if active > bits_required {
        let removable = (active - bits_required) * 59 / 196;
        for _ in 0..removable {
            n.div_rem(10);
        }
        exp += removable as i32;
    }
    // Decimal digits, least significant first, without trailing zeros.
    let mut digits: Vec<u8> = Vec::new();
    while !n.is_zero() {
        let d = n.div_rem(10) as u8;
        if digits.is_empty() && d == 0 {
            exp += 1;
        } else {
            digits.push(b'0' + d);
        }
    }
    // Round half up to `precision` digits.
    let len = digits.len();
    if len > precision as usize {
        let mut first = len - precision as usize;
        if digits[first - 1] < b'5' {
            while first < len && digits[first] == b'0' {
                first += 1;
            }
        } else {
            while first < len && digits[first] == b'9' {
                first += 1;
            }
            if first < len {
                digits[first] += 1;
            }
        }
        if first == len {
            exp += first as i32;
            digits = vec![b'1'];
        } else {
            exp += first as i32;
            digits.drain(..first);
        }
    }
    let count = digits.len() as i32;
    let scientific = if max_padding == 0 {
        true
    } else if exp >= 0 {
        exp > max_padding as i32 || count + exp > precision as i32
    } else {
        let msd = exp + count - 1;
        msd < 0 && -msd > max_padding as i32
    };
    let digit = |i: i32| digits[(count - 1 - i) as usize] as char;
    if scientific {
        let e = exp + count - 1;
        out.push(digit(0));
        out.push('.');
        if count == 1 && truncate_zero {
            out.push('0');
        } else {
            (1..count).for_each(|i| out.push(digit(i)));
        }
        if !truncate_zero && precision as i32 > count - 1 {
            let pad = precision as i32 - count + 1;
            out.extend(std::iter::repeat_n('0', pad as usize));
        }
        out.push(if truncate_zero { 'E' } else { 'e' });
        out.push(if e >= 0 { '+' } else { '-' });
        if truncate_zero {
            let _ = write!(out, "{}", e.abs());
        } else {
            let _ = write!(out, "{:02}", e.abs());
        }
    } else if exp >= 0 {
        (0..count).for_each(|i| out.push(digit(i)));
        out.extend(std::iter::repeat_n('0', exp as usize));
    } else {
        let whole = exp + count;
        let mut i = 0;
        if whole > 0 {
            while i < whole {
                out.push(digit(i));
                i += 1;
            }
            out.push('.');
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-whole) as usize));
        }
        (i..count).for_each(|i| out.push(digit(i)));
    }
    out
}

/// Whether decimal `text`, in the exponent form [`apfloat_to_string`] writes, reads back as
/// `value` of format `layout` as APFloat reads decimals (exactly, rounding to nearest, ties to
/// even): whether the text's exact value lies between the midpoints to `value`'s neighbours.
fn decimal_rounds_to(text: &str, value: &FiniteFloat, layout: FloatLayout) -> bool {
    let Some((mantissa, exp10)) = text.trim_start_matches('-').split_once(['e', 'E']) else {
        return false;
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let (Ok(exp10), Ok(digits)) = (
        exp10.parse::<i32>(),
        format!("{whole}{fraction}").parse::<u128>(),
    ) else {
        return false;
    };
    let (s, q) = (value.significand, value.exponent);
    if digits == 0 || s == 0 {
        return digits == s;
    }
    let scale = exp10 - fraction.len() as i32;
    // The interval's ends as `m * 2^j`: half an ulp each way, but a quarter below the smallest
    // significand of a binade above the subnormals (the neighbour below is closer).
    let upper = (2 * s + 1, q - 1);
    let lower = if s == 1 << (layout.precision() - 1) && q > layout.min_exponent() {
        (4 * s - 1, q - 2)
    } else {
        (2 * s - 1, q - 1)
    };
    // A tie rounds to the even significand.
    let ties_here = s % 2 == 0;
    let cmp_lower = compare_decimal_binary(digits, scale, lower);
    let cmp_upper = compare_decimal_binary(digits, scale, upper);
    use std::cmp::Ordering::{Equal, Greater, Less};
    (cmp_lower == Greater || cmp_lower == Equal && ties_here)
        && (cmp_upper == Less || cmp_upper == Equal && ties_here)
}

/// Compares `d * 10^k` with `m * 2^j` exactly.
fn compare_decimal_binary(d: u128, k: i32, (m, j): (u128, i32)) -> std::cmp::Ordering {
    let (mut a, mut b) = (BigUint::from(d), BigUint::from(m));
    // d * 5^k * 2^k against m * 2^j: move the power of five to one side, then the powers of two.
    if k >= 0 {
        a.mul_pow(5, k as u32);
    } else {
        b.mul_pow(5, k.unsigned_abs());
    }
    if k > j {
        a.mul_pow(2, (k - j) as u32);
    } else {
        b.mul_pow(2, (j - k) as u32);
    }
    a.cmp(&b)
}

/// Just enough of an arbitrary-precision unsigned integer for [`apfloat_to_string`] and
/// [`decimal_rounds_to`]: exact decimal expansions of binary floats need up to ~2,500 bits for
/// an `f64` and ~33,000 for an `f128`.
struct BigUint(Vec<u32>);

impl BigUint {
    fn from(v: u128) -> Self {
        let mut limbs: Vec<u32> = (0..4).map(|i| (v >> (32 * i)) as u32).collect();
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
        BigUint(limbs)
    }

    /// Compares by value (the limbs hold no leading zeros).
    fn cmp(&self, other: &BigUint) -> std::cmp::Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn mul_small(&mut self, m: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let x = *limb as u64 * m as u64 + carry;
            *limb = x as u32;
            carry = x >> 32;
        }
        if carry != 0 {
            self.0.push(carry as u32);
        }
    }

    /// Multiplies by `base^exp` (`base` is 2 or 5).
    fn mul_pow(&mut self, base: u32, mut exp: u32) {
        // The largest powers that fit a limb: 2^31 and 5^13.
        let (step, step_exp) = if base == 2 {
            (1 << 31, 31)
        } else {
            (1_220_703_125, 13)
        };
        while exp >= step_exp {
            self.mul_small(step);
            exp -= step_exp;
        }
        self.mul_small(base.pow(exp));
    }

    /// Divides by `d` in place and returns the remainder.
    fn div_rem(&mut self, d: u32) -> u32 {
        let mut rem = 0u64;
        for limb in self.0.iter_mut().rev() {
            let x = (rem << 32) | *limb as u64;
            *limb = (x / d as u64) as u32;
            rem = x % d as u64;
        }
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        rem as u32
    }

    fn is_zero(&self) -> bool {
        self.0.iter().all(|l| *l == 0)
    }

    /// The number of significant bits.
    fn bits(&self) -> u32 {
        let top = self.0.iter().rposition(|l| *l != 0);
        top.map_or(0, |i| 32 * i as u32 + 32 - self.0[i].leading_zeros())
    }
}

/// How an op's custom form is printed: by its definition's hook or its format.
enum Custom<'a> {
    Hook(crate::dialect::PrintFn),
    Format(&'a crate::format::AsmFormat),
}
