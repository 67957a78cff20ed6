//! Dialects and op definitions: how a dialect teaches the context its ops, types and attributes.
//!
//! An [`OpDef`] is plain data: the op's name, its traits, operand/result/region counts, the
//! inherent attributes it owns, and optional hooks (verifier, custom syntax, folder). The
//! [`define_op!`](crate::define_op) macro writes the typed wrapper and the `OpDef` skeleton in a
//! few lines, which is the API downstream dialects are written with.

use crate::attr_def::AttrDef;
use crate::attributes::Attribute;
use crate::diagnostics::Diagnostic;
use crate::format::{AsmFormat, AttrSyntax};
use crate::interfaces::Interfaces;
use crate::intern::Ident;
use crate::ir::{Op, OpSpec, Value};
use crate::location::Location;
use crate::op_id::OpNameId;
use crate::parser::{PResult, Parser};
use crate::printer::Printer;
use crate::symbol::SymbolTables;
use crate::types::Type;
use crate::Context;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::sync::Arc;

bitflags::bitflags! {
    /// Properties of an op that generic code (verifier, passes) relies on.
    #[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
    pub struct Traits: u32 {
        /// No side effects: the op may be removed when unused, hoisted and CSE'd.
        const PURE = 1 << 0;
        /// Ends a block; must be the block's last op.
        const TERMINATOR = 1 << 1;
        /// Regions may not use values defined outside the op.
        const ISOLATED_FROM_ABOVE = 1 << 2;
        /// Defines a symbol: has a `sym_name` string attribute.
        const SYMBOL = 1 << 3;
        /// Its single region holds symbols with unique names.
        const SYMBOL_TABLE = 1 << 4;
        /// All operands and results have one type.
        const SAME_OPERANDS_AND_RESULT_TYPE = 1 << 5;
        /// Operand order does not matter.
        const COMMUTATIVE = 1 << 6;
        /// Materializes its `value` attribute as its one result.
        const CONSTANT_LIKE = 1 << 7;
        /// Each region has exactly one block.
        const SINGLE_BLOCK = 1 << 8;
        /// Blocks of its regions need no terminator.
        const NO_TERMINATOR = 1 << 9;
        /// Its regions are graph regions: no dominance requirement between ops.
        const GRAPH_REGION = 1 << 10;
        /// A terminator that returns control to the parent op (func.return, yield).
        const RETURN_LIKE = 1 << 11;
        /// Each result element is computed from the operands' elements at the same position
        /// (after broadcasting, where the dialect broadcasts): MLIR's `Elementwise`. Fusion
        /// may put such ops into any loop nest over their result.
        const ELEMENTWISE = 1 << 12;
        /// Combines the elements of its operand along some axes into fewer elements (a sum, a
        /// maximum): its result is complete only after a loop over the reduced axes.
        const REDUCTION = 1 << 13;
        /// Multiplies two operands and sums the products over shared axes (a matmul, a
        /// convolution): MLIR's `ContractionOpInterface`.
        const CONTRACTION = 1 << 14;
    }
}

/// How many operands, results or regions an op takes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Arity {
    Exact(u32),
    AtLeast(u32),
}

impl Arity {
    /// True if `n` satisfies the arity.
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Exact(k) => n == k as usize,
            Arity::AtLeast(k) => n >= k as usize,
        }
    }
}

/// Checks an op beyond what its traits and counts say.
pub type VerifyFn = fn(&Context, Op) -> Result<(), Diagnostic>;
/// Checks an op's references to symbols (`func.call @f`), with a cache of symbol tables.
pub type VerifySymbolsFn = fn(&Context, Op, &mut SymbolTables) -> Result<(), Diagnostic>;
/// Parses an op's custom syntax after its name; fills operands, types, attributes, regions.
pub type ParseFn = fn(&mut Parser<'_>, &mut OpSpec) -> PResult<()>;
/// Prints an op's custom syntax after `%results = name`.
pub type PrintFn = fn(&mut Printer<'_>, Op);
/// Folds an op given its operands' constant values (None where not constant). An empty list
/// (or the op's own results) means the folder updated the op in place.
pub type FoldFn = fn(&mut Context, Op, &[Option<Attribute>]) -> Folded;
/// What a folder returns: one [`FoldResult`] per result, or `None` when the op does not fold.
pub type Folded = Option<SmallVec<[FoldResult; 1]>>;

/// The fold of a one-result op to an existing value.
pub fn fold_to_value(v: Value) -> Folded {
    Some(SmallVec::from_elem(FoldResult::Value(v), 1))
}
/// Parses a dialect type or attribute body after `!dialect.mnemonic` or `#dialect.mnemonic`.
pub type ParseTypeFn = fn(&mut Parser<'_>, &str) -> PResult<Type>;
pub type ParseAttrFn = fn(&mut Parser<'_>, &str) -> PResult<Attribute>;
/// Prints a dialect type or attribute as `mnemonic<...>` (without the `!dialect.` prefix).
pub type PrintTypeFn = fn(&mut Printer<'_>, Type);
pub type PrintAttrFn = fn(&mut Printer<'_>, Attribute);
/// Suggests a name for an op's results in custom-form output (`%c0_i32`, `%cst`), as MLIR's
/// `getAsmResultNames`; the printer makes it unique.
pub type ResultNameFn = fn(&Context, Op) -> Option<String>;
/// Builds an op that produces constant `value` of type `ty` (used by folding).
pub type MaterializeFn = fn(&mut Context, Attribute, Type, Location) -> Option<OpSpec>;

/// What folding produced for one result.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FoldResult {
    /// The result is this constant.
    Constant(Attribute),
    /// The result is this existing value.
    Value(Value),
}

/// The definition of one op.
#[derive(Clone)]
pub struct OpDef {
    pub name: &'static str,
    pub summary: &'static str,
    pub traits: Traits,
    pub operands: Arity,
    pub results: Arity,
    pub regions: Arity,
    /// Ops this op may be nested directly in (MLIR's `HasParent`); empty means any.
    pub parents: &'static [&'static str],
    /// Attributes that belong to the op (printed in `<{...}>` in generic form).
    pub inherent_attrs: &'static [&'static str],
    /// For each inherent attribute declared with a Rust type, how a format writes it.
    pub attr_syntax: &'static [Option<AttrSyntax>],
    /// The declarative assembly format ([`crate::format`]), which parses and prints the op
    /// when it has no `parse`/`print` hooks.
    pub format: Option<Arc<AsmFormat>>,
    /// Dialect whose ops may be written without their prefix inside this op (`return` inside
    /// `func.func`), as MLIR's `getDefaultDialect`.
    pub default_dialect: Option<&'static str>,
    pub verify: Option<VerifyFn>,
    pub verify_symbols: Option<VerifySymbolsFn>,
    pub parse: Option<ParseFn>,
    pub print: Option<PrintFn>,
    pub fold: Option<FoldFn>,
    pub result_name: Option<ResultNameFn>,
    /// Fixed names of the results, one per result, for ops whose MLIR `getAsmResultNames`
    /// names each result (`%sum, %overflow = arith.addui_extended ...`); empty for none.
    pub result_names: &'static [&'static str],
    /// Builds the op's canonicalization patterns (MLIR's `getCanonicalizationPatterns`), which
    /// `canonicalize` runs together with the folder.
    pub canonicalize: Option<crate::rewrite::CanonicalizeFn>,
    /// The op interfaces it implements ([`crate::interfaces`]).
    pub interfaces: Interfaces,
}

impl OpDef {
    /// A definition with no traits, any operands and results, no regions and no hooks.
    pub const fn new(name: &'static str) -> Self {
        OpDef {
            name,
            summary: "",
            traits: Traits::empty(),
            operands: Arity::AtLeast(0),
            results: Arity::AtLeast(0),
            regions: Arity::Exact(0),
            parents: &[],
            inherent_attrs: &[],
            attr_syntax: &[],
            format: None,
            default_dialect: None,
            verify: None,
            verify_symbols: None,
            parse: None,
            print: None,
            fold: None,
            result_name: None,
            result_names: &[],
            canonicalize: None,
            interfaces: Interfaces::new(),
        }
    }
}

/// A dialect: a namespace of ops plus optional type and attribute syntax.
#[derive(Clone)]
pub struct Dialect {
    pub name: &'static str,
    pub ops: Vec<OpDef>,
    pub parse_type: Option<ParseTypeFn>,
    pub print_type: Option<PrintTypeFn>,
    pub parse_attr: Option<ParseAttrFn>,
    pub print_attr: Option<PrintAttrFn>,
    /// Attributes defined with [`define_attr!`](crate::define_attr), which the parser and the
    /// printer handle without `parse_attr`/`print_attr` hooks (the hooks, when set, come first).
    pub attrs: Vec<AttrDef>,
    pub materialize_constant: Option<MaterializeFn>,
    /// Dialects whose ops this one's ops use or produce (the loop dialect's kernels hold
    /// `arith` and `math` ops): registering this dialect registers them first, as MLIR's
    /// `dependentDialects`.
    pub dependencies: Vec<fn() -> Dialect>,
}

impl Dialect {
    /// A dialect with the given ops and no type or attribute syntax.
    pub fn new(name: &'static str, ops: Vec<OpDef>) -> Self {
        Dialect {
            name,
            ops,
            parse_type: None,
            print_type: None,
            parse_attr: None,
            print_attr: None,
            attrs: Vec::new(),
            materialize_constant: None,
            dependencies: Vec::new(),
        }
    }

    /// The definition of the attribute `#name.mnemonic`, if the dialect lists one.
    pub fn attr_def(&self, mnemonic: &str) -> Option<AttrDef> {
        self.attrs
            .iter()
            .find(|d| d.mnemonic() == mnemonic)
            .copied()
    }
}

/// Index of a registered op definition.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct OpDefId(u32);

/// Index of a registered dialect.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct DialectId(u32);

/// The registered dialects and op definitions of a context.
#[derive(Default, Clone)]
pub(crate) struct Registry {
    ops: Vec<(OpDef, DialectId)>,
    op_names: Vec<Ident>,
    /// The process-wide id of each registered op's name.
    name_ids: Vec<OpNameId>,
    by_name: FxHashMap<Ident, OpDefId>,
    dialects: Vec<Dialect>,
    dialects_by_name: FxHashMap<Ident, DialectId>,
}

impl Registry {
    #[inline]
    pub(crate) fn lookup(&self, name: Ident) -> Option<OpDefId> {
        self.by_name.get(&name).copied()
    }

    /// The process-wide id of a registered op's name.
    pub(crate) fn name_id(&self, id: OpDefId) -> OpNameId {
        self.name_ids[id.0 as usize]
    }

    /// The interned name of a registered op.
    pub(crate) fn op_name(&self, id: OpDefId) -> Ident {
        self.op_names[id.0 as usize]
    }

    #[inline]
    pub(crate) fn op(&self, id: OpDefId) -> &OpDef {
        &self.ops[id.0 as usize].0
    }

    pub(crate) fn dialect_of_op(&self, id: OpDefId) -> &Dialect {
        &self.dialects[self.ops[id.0 as usize].1 .0 as usize]
    }

    pub(crate) fn dialect(&self, name: Ident) -> Option<&Dialect> {
        self.dialects_by_name
            .get(&name)
            .map(|d| &self.dialects[d.0 as usize])
    }
}

impl Context {
    /// Registers a dialect, the dialects it depends on, and its ops. Registering a dialect
    /// twice is a no-op.
    pub fn register_dialect(&mut self, mut dialect: Dialect) {
        let dname = self.ident(dialect.name);
        if self.registry.dialects_by_name.contains_key(&dname) {
            return;
        }
        for dependency in &dialect.dependencies {
            self.register_dialect(dependency());
        }
        let names: Vec<Ident> = dialect.ops.iter().map(|d| self.ident(d.name)).collect();
        // Registration happens before a context is forked; if it is shared already, the
        // registry is copied rather than changed under the other contexts.
        let registry = Arc::make_mut(&mut self.registry);
        let did = DialectId(registry.dialects.len() as u32);
        for (def, name) in std::mem::take(&mut dialect.ops).into_iter().zip(names) {
            let id = OpDefId(registry.ops.len() as u32);
            registry.name_ids.push(OpNameId::intern(def.name));
            registry.ops.push((def, did));
            registry.op_names.push(name);
            registry.by_name.insert(name, id);
        }
        registry.dialects.push(dialect);
        registry.dialects_by_name.insert(dname, did);
    }

    /// The definition of `op`, or `None` if its dialect is not registered.
    #[inline]
    pub fn op_def(&self, op: Op) -> Option<&OpDef> {
        self.ops[op.index()].def.map(|d| self.registry.op(d))
    }

    /// The definition registered under `name`.
    pub fn op_def_by_name(&self, name: &str) -> Option<&OpDef> {
        let id = self.find_ident(name)?;
        self.registry.lookup(id).map(|d| self.registry.op(d))
    }

    /// True if a dialect called `name` is registered.
    pub fn is_dialect_registered(&self, name: &str) -> bool {
        self.find_ident(name)
            .is_some_and(|n| self.registry.dialect(n).is_some())
    }

    /// The definition registered under `name`, to change (attach an interface).
    pub(crate) fn op_def_mut_by_name(&mut self, name: &str) -> Option<&mut OpDef> {
        let id = self.registry.lookup(self.find_ident(name)?)?;
        Some(&mut Arc::make_mut(&mut self.registry).ops[id.0 as usize].0)
    }

    /// The registered dialect `name`.
    pub fn dialect(&self, name: &str) -> Option<&Dialect> {
        self.registry.dialect(self.find_ident(name)?)
    }

    /// The names of all registered dialects.
    pub fn dialect_names(&self) -> Vec<&'static str> {
        self.registry.dialects.iter().map(|d| d.name).collect()
    }

    /// All registered op definitions.
    pub fn op_defs(&self) -> impl Iterator<Item = &OpDef> {
        self.registry.ops.iter().map(|(d, _)| d)
    }

    /// The op that defines `v`, when it is a `T` (MLIR's `Value::getDefiningOp<T>`).
    pub fn defining<T: OpView>(&self, v: Value) -> Option<T> {
        self.view(self.defining_op(v)?)
    }

    /// Views `op` as the typed wrapper `T` if it is that op.
    pub fn view<T: OpView>(&self, op: Op) -> Option<T> {
        let id = self.op_name_global_id(op);
        let is = if id == OpNameId::UNKNOWN {
            self.op_name(op) == T::NAME
        } else {
            id == T::name_id()
        };
        is.then(|| T::wrap(op))
    }

    /// Folds `op` with its dialect's folder, feeding it the `value` attribute of each operand
    /// defined by a constant-like op. Returns `None` when the op does not fold.
    pub fn fold(&mut self, op: Op) -> Folded {
        let fold = self.op_def(op)?.fold?;
        let constants: SmallVec<[Option<Attribute>; 3]> = self
            .operands(op)
            .iter()
            .map(|v| self.constant_value(*v))
            .collect();
        fold(self, op, &constants)
    }

    /// The constant a value holds, if it is defined by a constant-like op.
    pub fn constant_value(&self, v: Value) -> Option<Attribute> {
        let def = self.defining_op(v)?;
        if !self.has_trait(def, Traits::CONSTANT_LIKE) {
            return None;
        }
        self.attr(def, "value")
    }

    /// Asks the dialect of `op` to build a constant op for a folded value.
    pub fn materialize_constant(
        &mut self,
        op: Op,
        value: Attribute,
        ty: Type,
        loc: Location,
    ) -> Option<OpSpec> {
        let def = self.ops[op.index()].def?;
        let materialize = self.registry.dialect_of_op(def).materialize_constant?;
        materialize(self, value, ty, loc)
    }
}

/// A typed view of one kind of op, as written by [`define_op!`](crate::define_op).
pub trait OpView: Copy {
    /// The op's full name.
    const NAME: &'static str;
    /// The process-wide id of [`OpView::NAME`] (`define_op!` caches it).
    fn name_id() -> OpNameId;
    /// Wraps an op known to be of this kind.
    fn wrap(op: Op) -> Self;
    /// The underlying op.
    fn op(self) -> Op;
}

/// Position of `name` in `names`, at compile time (used by `define_op!` accessors).
pub const fn position(name: &str, names: &[&str]) -> usize {
    let mut i = 0;
    while i < names.len() {
        let (a, b) = (names[i].as_bytes(), name.as_bytes());
        if a.len() == b.len() {
            let mut j = 0;
            while j < a.len() && a[j] == b[j] {
                j += 1;
            }
            if j == a.len() {
                return i;
            }
        }
        i += 1;
    }
    panic!("name not in list")
}

/// Defines an op in one place: its typed wrapper, accessors and complete [`OpDef`].
///
/// ```
/// use dlc_ir::{define_op, Context, Diagnostic, Op, Traits};
/// fn verify_add(_: &Context, _: Op) -> Result<(), Diagnostic> { Ok(()) }
/// define_op! {
///     /// Integer addition.
///     pub struct AddOp = "demo.add";
///     traits = Traits::PURE.union(Traits::COMMUTATIVE);
///     operands = [lhs, rhs];
///     results = [result];
///     verify = verify_add;
/// }
/// let def = AddOp::def();
/// assert_eq!(def.name, "demo.add");
/// assert!(def.verify.is_some());
/// ```
///
/// The clauses, in this order:
/// - `traits`, `operands` and `results` (required): `operands = *;` / `results = *;` accept any
///   number, `[a, b]` names each one and writes an accessor for it;
/// - `attributes = [value, overflow_flags = "overflowFlags"];` names the inherent attributes,
///   each with an accessor (named after the attribute, or given when the attribute's name is
///   not a Rust name);
/// - `regions = N;` the region count (default 0);
/// - `parents = &["dialect.op"];` the ops it may be nested in directly;
/// - `interfaces = [dyn MemoryEffects => LoadEffects, ...];` the op interfaces it implements
///   ([`crate::interfaces`]), each a `'static` implementation value;
/// - `fixed_types = [size: Type::INDEX];` operands and results whose type is always the same,
///   which a format then does not write;
/// - `format = "$input `,` $factor attr-dict `:` type($input)";` the op's custom syntax as a
///   declarative assembly format ([`crate::format`]), in place of `parse` and `print` hooks;
/// - the hooks, the `Option` fields of [`OpDef`] given without `Some`: `verify`,
///   `verify_symbols`, `parse`, `print`, `fold`, `canonicalize`, `result_name`,
///   `default_dialect`, and `result_names = &["low", "high"];` ([`OpDef::result_names`]).
///
/// A dialect lists its ops once with [`op_set!`](crate::op_set), which builds the dialect's
/// definitions and a typed enum to dispatch on.
#[macro_export]
macro_rules! define_op {
    (
        $(#[doc = $doc:literal])*
        $vis:vis struct $name:ident = $opname:literal;
        traits = $traits:expr;
        operands = $operands:tt;
        results = $results:tt;
        $(attributes = [$($attr:ident $(= $attr_name:literal)? $(: $attr_ty:ty)?),* $(,)?];)?
        $(regions = $regions:expr;)?
        $(parents = $parents:expr;)?
        $(interfaces = [$(dyn $iface:path => $imp:expr),* $(,)?];)?
        $(fixed_types = [$($fixed:ident : $fixed_ty:expr),* $(,)?];)?
        $(format = $format:literal;)?
        $(verify = $verify:expr;)?
        $(verify_symbols = $verify_symbols:expr;)?
        $(parse = $parse:expr;)?
        $(print = $print:expr;)?
        $(fold = $fold:expr;)?
        $(canonicalize = $canonicalize:expr;)?
        $(result_name = $result_name:expr;)?
        $(result_names = $result_names:expr;)?
        $(default_dialect = $default_dialect:expr;)?
    ) => {
        $(#[doc = $doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        $vis struct $name(pub $crate::Op);

        impl $crate::OpView for $name {
            const NAME: &'static str = $opname;
            fn name_id() -> $crate::OpNameId {
                static ID: ::std::sync::OnceLock<$crate::OpNameId> = ::std::sync::OnceLock::new();
                *ID.get_or_init(|| $crate::OpNameId::intern($opname))
            }
            fn wrap(op: $crate::Op) -> Self {
                $name(op)
            }
            fn op(self) -> $crate::Op {
                self.0
            }
        }

        #[allow(dead_code)]
        impl $name {
            /// The op's complete definition: name, summary (the doc's first line), traits,
            /// counts, interfaces and hooks.
            pub fn def() -> $crate::OpDef {
                let mut def = $crate::OpDef::new($opname);
                def.summary = $crate::define_op!(@summary $($doc)*);
                def.traits = $traits;
                def.operands = $crate::define_op!(@arity $operands);
                def.results = $crate::define_op!(@arity $results);
                $(
                    def.inherent_attrs = &[$($crate::define_op!(@attr_name $attr $($attr_name)?)),*];
                    const SYNTAX: &[Option<$crate::format::AttrSyntax>] =
                        &[$($crate::define_op!(@attr_syntax [$($attr_ty)?])),*];
                    def.attr_syntax = SYNTAX;
                )?
                $(def.regions = $crate::Arity::Exact($regions);)?
                $(def.parents = $parents;)?
                $($(def.interfaces.add::<dyn $iface>(&$imp);)*)?
                // Read by the format, when there is one.
                #[allow(unused_variables)]
                let fixed_types: &[(&str, $crate::Type)] =
                    &[$($((stringify!($fixed), $fixed_ty)),*)?];
                $(
                    let format = $crate::format::AsmFormat::new(
                        $format,
                        &def,
                        &$crate::define_op!(@names_of $operands),
                        &$crate::define_op!(@names_of $results),
                        fixed_types,
                    );
                    // A malformed format is a bug in this definition, found when it is built.
                    let format = format.unwrap_or_else(|e| panic!("{}: format: {e}", $opname));
                    def.format = Some(::std::sync::Arc::new(format));
                )?
                $(def.verify = Some($verify);)?
                $(def.verify_symbols = Some($verify_symbols);)?
                $(def.parse = Some($parse);)?
                $(def.print = Some($print);)?
                $(def.fold = Some($fold);)?
                $(def.canonicalize = Some($canonicalize);)?
                $(def.result_name = Some($result_name);)?
                $(def.result_names = $result_names;)?
                $(def.default_dialect = Some($default_dialect);)?
                def
            }
            $crate::define_op!(@values operand $operands);
            $crate::define_op!(@values result $results);
            $($(
                $crate::define_op!(@attr_accessor $attr [$($attr_name)?] [$($attr_ty)?]);
            )*)?
        }
    };
    (@attr_accessor $attr:ident [$($attr_name:literal)?] []) => {
        /// The inherent attribute of this name.
        pub fn $attr(self, ctx: &$crate::Context) -> Option<$crate::Attribute> {
            ctx.attr(self.0, $crate::define_op!(@attr_name $attr $($attr_name)?))
        }
    };
    (@attr_accessor $attr:ident [$($attr_name:literal)?] [$attr_ty:ty]) => {
        /// The inherent attribute of this name, as its Rust value ([`AttrValue`]); `None`
        /// when it is missing or of another kind (the verifier's to report).
        ///
        /// [`AttrValue`]: $crate::AttrValue
        pub fn $attr(self, ctx: &$crate::Context) -> Option<$attr_ty> {
            let attr = ctx.attr(self.0, $crate::define_op!(@attr_name $attr $($attr_name)?))?;
            <$attr_ty as $crate::AttrValue>::from_attr(ctx, attr)
        }
    };
    (@attr_syntax []) => { None };
    (@attr_syntax [$attr_ty:ty]) => { Some($crate::format::AttrSyntax::of::<$attr_ty>()) };
    (@names_of *) => { [] as [&str; 0] };
    (@names_of [$($y:ident),* $(,)?]) => { [$(stringify!($y)),*] };
    (@attr_name $attr:ident) => { stringify!($attr) };
    (@attr_name $attr:ident $name:literal) => { $name };
    (@summary $first:literal $($rest:literal)*) => { $first.trim_ascii() };
    (@summary) => { "" };
    (@arity *) => { $crate::Arity::AtLeast(0) };
    (@arity [$($x:ident),* $(,)?]) => { $crate::Arity::Exact(<[&str]>::len(&[$(stringify!($x)),*]) as u32) };
    (@values $kind:ident *) => {};
    (@values $kind:ident [$($x:ident),* $(,)?]) => {
        $crate::define_op!(@accessors $kind [$($x),*] [$($x),*]);
    };
    (@accessors operand [$($x:ident),*] $all:tt) => {
        $(
            /// The operand of this name.
            pub fn $x(self, ctx: &$crate::Context) -> $crate::Value {
                const NAMES: &[&str] = &$crate::define_op!(@names $all);
                ctx.operand(self.0, $crate::dialect::position(stringify!($x), NAMES))
            }
        )*
    };
    (@accessors result [$($x:ident),*] $all:tt) => {
        $(
            /// The result of this name.
            pub fn $x(self, ctx: &$crate::Context) -> $crate::Value {
                const NAMES: &[&str] = &$crate::define_op!(@names $all);
                ctx.result(self.0, $crate::dialect::position(stringify!($x), NAMES))
            }
        )*
    };
    (@names [$($y:ident),*]) => { [$(stringify!($y)),*] };
}

/// Lists a dialect's ops once (each written with [`define_op!`](crate::define_op)) and derives
/// from the list an enum with one variant per op, for typed dispatch instead of matching op
/// names, and the definitions to register.
///
/// ```
/// use dlc_ir::{define_op, op_set, Traits};
/// define_op! {
///     /// A constant.
///     pub struct ConstOp = "demo.const";
///     traits = Traits::PURE;
///     operands = [];
///     results = [result];
/// }
/// define_op! {
///     /// Negation.
///     pub struct NegOp = "demo.neg";
///     traits = Traits::PURE;
///     operands = [operand];
///     results = [result];
/// }
/// op_set! {
///     /// The demo dialect's ops.
///     pub enum DemoOp { ConstOp, NegOp }
/// }
/// assert_eq!(DemoOp::defs().len(), 2);
/// ```
///
/// `DemoOp::of(ctx, op)` is `Some(DemoOp::NegOp(NegOp(op)))` for a `demo.neg`, `None` for an
/// op of another kind; `DemoOp::defs()` goes to [`Dialect::new`].
#[macro_export]
macro_rules! op_set {
    ($(#[doc = $doc:literal])* $vis:vis enum $set:ident { $($op:ident),* $(,)? }) => {
        $(#[doc = $doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
        $vis enum $set {
            $(
                #[allow(missing_docs)]
                $op($op),
            )*
        }

        #[allow(dead_code)]
        impl $set {
            /// `op` as one of these ops, or `None` if it is of another kind.
            pub fn of(ctx: &$crate::Context, op: $crate::Op) -> Option<Self> {
                // By the op's name id, through a table from ids to these ops (built once);
                // an op whose name had no id when it was made compares its name.
                type Make = fn($crate::Op) -> $set;
                static TABLE: ::std::sync::OnceLock<Vec<Option<Make>>> =
                    ::std::sync::OnceLock::new();
                let id = ctx.op_name_global_id(op);
                if id == $crate::OpNameId::UNKNOWN {
                    let name = ctx.op_name(op);
                    $(
                        if name == <$op as $crate::OpView>::NAME {
                            return Some($set::$op($op(op)));
                        }
                    )*
                    return None;
                }
                let table = TABLE.get_or_init(|| {
                    let makes: Vec<($crate::OpNameId, Make)> = vec![
                        $((<$op as $crate::OpView>::name_id(), |op| $set::$op($op(op)))),*
                    ];
                    let len = makes.iter().map(|(id, _)| id.index() + 1).max().unwrap_or(0);
                    let mut table = vec![None; len];
                    for (id, make) in makes {
                        table[id.index()] = Some(make);
                    }
                    table
                });
                table.get(id.index()).copied().flatten().map(|make| make(op))
            }

            /// The underlying op.
            pub fn op(self) -> $crate::Op {
                match self {
                    $($set::$op(x) => x.0,)*
                }
            }

            /// The definitions of all these ops, in list order.
            pub fn defs() -> Vec<$crate::OpDef> {
                vec![$($op::def()),*]
            }
        }
    };
}
