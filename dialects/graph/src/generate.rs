//! A random graph generator: well-typed `func.func` graph functions for fuzzing and
//! differential tests.
//!
//! [`GraphGen`] builds one function per seed (the same seed gives the same function) over the
//! primitive and composite graph ops, with random shapes, dtypes and attributes. Shapes are
//! tracked symbolically while generating: every `?` dim of a function argument is a symbol with
//! a concrete size chosen for it, an op only combines dims that are provably equal (the same
//! static size or the same symbol, or a static 1 under broadcasting), and an op that makes a new
//! dynamic size (padding a `?` axis, a reshape flattening `?` dims, whose size operand is the
//! product of their `graph.dim`s) makes a new symbol; a reshape sized by `graph.dim`s keeps the
//! symbols. So every generated function verifies,
//! and runs on inputs of the shapes in [`Generated::arg_shapes`] without a shape error.
//!
//! Values stay runnable too: integer divisors are clamped to at least 1, gather indices are in
//! range, pooling windows always hold an unpadded element. Floats may still become NaN or ∞
//! (`log` of a negative); that is not an error.

use crate::decompose::GraphBuilder;
use dlc_ir::attributes::DenseValue;
use dlc_ir::{Block, Context, InsertPoint, Location, Op, OpSpec, Type, Value, DYNAMIC};

/// The generator's random numbers (`dlc_testkit`'s, the one generator the tests share).
pub use dlc_testkit::Rng;

/// The knobs of the generator. [`GraphGen::new`] gives the defaults used by the tests.
#[derive(Clone, Debug)]
pub struct GraphGen {
    /// Everything random follows from it.
    pub seed: u64,
    /// How many ops to generate (constants and helper ops included).
    pub num_ops: usize,
    /// The largest rank of a generated argument.
    pub max_rank: usize,
    /// Static dims are drawn from `1..=max_dim`.
    pub max_dim: i64,
    /// Give function arguments `?` dims.
    pub dynamic: bool,
    /// Generate composite ops (softmax, conv2d, sdpa, ...).
    pub composites: bool,
    /// Return at most this many values.
    pub max_outputs: usize,
    /// Skip an op whose result would have more elements than this.
    pub max_elements: i64,
    /// Makes every float type the generator chooses this one (the gradient check forces
    /// `f64`); `None` keeps the random choice. The type is still drawn and then replaced, so
    /// with `None` every seed gives the program it always gave. (With a type forced, a seed's
    /// program may differ in more than its types: values of once different float types can now
    /// be combined.)
    pub float: Option<Type>,
}

/// A generated function.
#[derive(Clone, Debug)]
pub struct Generated {
    /// The `builtin.module` holding the function.
    pub module: Op,
    /// The `func.func @graph`.
    pub func: Op,
    /// The concrete shape of each argument: its static dims, and the size chosen for each `?`.
    pub arg_shapes: Vec<Vec<usize>>,
    /// The same shapes with every `?` two larger: a second size at which to run the function
    /// compiled once (gather indices and windows stay in range as the axes grow).
    pub grown_shapes: Vec<Vec<usize>>,
}

impl GraphGen {
    /// The default configuration for `seed`: about 12 ops, ranks up to 4, dims up to 5,
    /// dynamic dims and composites on.
    pub fn new(seed: u64) -> Self {
        GraphGen {
            seed,
            num_ops: 12,
            max_rank: 4,
            max_dim: 5,
            dynamic: true,
            composites: true,
            max_outputs: 3,
            max_elements: 4096,
            float: None,
        }
    }

    /// Builds a `builtin.module` holding one `func.func @graph` in `ctx`. The context needs the
    /// func dialect (and the graph dialect, or `allow_unregistered`) to verify it.
    pub fn generate(&self, ctx: &mut Context) -> Generated {
        let loc = Location::Unknown;
        let (module_region, module_block) = ctx.create_region_with_block(&[]);
        let spec = OpSpec::new(ctx, "builtin.module", loc).region(module_region);
        let module = ctx.create_op(spec);
        let (body, entry) = ctx.create_region_with_block(&[]);

        let mut state = State {
            cfg: self,
            rng: Rng::new(self.seed),
            ctx,
            block: entry,
            pool: Vec::new(),
            sizes: Vec::new(),
            derivations: Vec::new(),
            args: Vec::new(),
        };
        let mut made = 0;
        let mut attempts = 0;
        while made < self.num_ops && attempts < self.num_ops * 20 {
            attempts += 1;
            if state.step() {
                made += 1;
            }
        }
        if state.pool.is_empty() {
            let dims = state.random_dims(2);
            let elem = state.float(Type::F32);
            state.arg(dims, elem);
        }
        let outputs = state.outputs();
        let shapes = |grow: i64| -> Vec<Vec<usize>> {
            state
                .args
                .iter()
                .map(|dims| {
                    dims.iter()
                        .map(|d| state.grown(*d, grow) as usize)
                        .collect()
                })
                .collect()
        };
        let (arg_shapes, grown_shapes) = (shapes(0), shapes(2));
        let ctx = state.ctx;

        let spec = OpSpec::new(ctx, "func.return", loc).operands(&outputs);
        ctx.build(InsertPoint::End(entry), spec);
        let inputs: Vec<Type> = ctx
            .block_args(entry)
            .iter()
            .map(|v| ctx.value_type(*v))
            .collect();
        let results: Vec<Type> = outputs.iter().map(|v| ctx.value_type(*v)).collect();
        let fn_ty = ctx.function_type(&inputs, &results);
        let name = ctx.string_attr("graph");
        let ty_attr = ctx.type_attr(fn_ty);
        let spec = OpSpec::new(ctx, "func.func", loc)
            .attr(ctx, "sym_name", name)
            .attr(ctx, "function_type", ty_attr)
            .region(body);
        let func = ctx.build(InsertPoint::End(module_block), spec);
        Generated {
            module,
            func,
            grown_shapes,
            arg_shapes,
        }
    }
}

/// A dim of a generated value: a static size or a symbol (index into `State::sizes`).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Dim {
    Static(i64),
    Sym(usize),
}

/// The kind of element type an op accepts.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Float,
    Int,
    Bool,
}

/// A value the generator can use as an operand.
#[derive(Clone, Debug)]
struct Node {
    value: Value,
    dims: Vec<Dim>,
    elem: Type,
}

const FLOATS: [Type; 4] = [Type::F32, Type::F32, Type::F64, Type::F16];
const INTS: [Type; 3] = [Type::I32, Type::I64, Type::I8];

const FLOAT_UNARY: &[&str] = &[
    "graph.exp",
    "graph.log",
    "graph.sqrt",
    "graph.rsqrt",
    "graph.reciprocal",
    "graph.tanh",
    "graph.sigmoid",
    "graph.erf",
    "graph.sin",
    "graph.cos",
    "graph.floor",
    "graph.ceil",
    "graph.round",
];
const NUMERIC_UNARY: &[&str] = &["graph.neg", "graph.abs", "graph.relu", "graph.sign"];
const NUMERIC_BINARY: &[&str] = &[
    "graph.add",
    "graph.sub",
    "graph.mul",
    "graph.max",
    "graph.min",
];
/// The reductions of every element type; floats also get `graph.reduce_mean`.
const REDUCTIONS: &[&str] = &[
    "graph.reduce_sum",
    "graph.reduce_max",
    "graph.reduce_min",
    "graph.reduce_prod",
];
const PREDICATES: &[&str] = &["eq", "ne", "lt", "le", "gt", "ge"];

/// The product of the static dims of `dims` (the element count per combination of symbols).
fn static_count(dims: &[Dim]) -> i64 {
    dims.iter()
        .map(|d| match d {
            Dim::Static(n) => *n,
            Dim::Sym(_) => 1,
        })
        .product()
}

/// How a symbol's size follows from other dims.
#[derive(Clone, Debug)]
enum Derivation {
    /// A `?` dim of an argument.
    Base,
    /// The sum of the dims (a concat).
    Sum(Vec<Dim>),
    /// The dim plus a constant (a pad).
    Plus(Dim, i64),
    /// The product of the dims times a constant (a reshape flattening them).
    Product(Vec<Dim>, i64),
}

/// The generator's working state for one function.
struct State<'g, 'c> {
    cfg: &'g GraphGen,
    rng: Rng,
    ctx: &'c mut Context,
    block: Block,
    pool: Vec<Node>,
    /// The concrete size of each symbol.
    sizes: Vec<i64>,
    /// How each symbol's size follows from others.
    derivations: Vec<Derivation>,
    /// The dims of each function argument.
    args: Vec<Vec<Dim>>,
}

impl State<'_, '_> {
    /// Generates one op; false if the chosen op did not fit (nothing was added then).
    fn step(&mut self) -> bool {
        // Start from a couple of arguments so most ops consume earlier values.
        if self.pool.len() < 2 {
            let rank = self.rng.range(1, self.cfg.max_rank as i64) as usize;
            let dims = self.random_dims(rank);
            let kind = self.random_kind();
            let elem = self.random_elem(kind);
            self.arg(dims, elem);
            return true;
        }
        let choice = self.rng.below(if self.cfg.composites { 26 } else { 20 });
        match choice {
            0..=2 => self.gen_unary(),
            3..=5 => self.gen_binary(),
            6 => self.gen_div(),
            7 => self.gen_logic(),
            8 => self.gen_cmp_select(),
            9 => self.gen_cast(),
            10 => self.gen_reduce(),
            11 => self.gen_matmul(),
            12 => self.gen_transpose(),
            13 => self.gen_reshape(),
            14 => self.gen_slice(),
            15 => self.gen_concat(),
            16 => self.gen_pad(),
            17 => self.gen_gather(),
            18 => self.gen_broadcast(),
            19 => self.gen_source(),
            20 => self.gen_softmax_like(),
            21 => self.gen_norm(),
            22 => self.gen_linear(),
            23 => self.gen_conv(),
            24 => self.gen_pool(),
            _ => self.gen_sdpa(),
        }
    }

    // -----------------------------------------------------------------------------------------
    // Shapes, dtypes and operands.

    fn size(&self, d: Dim) -> i64 {
        match d {
            Dim::Static(n) => n,
            Dim::Sym(s) => self.sizes[s],
        }
    }

    fn numel(&self, dims: &[Dim]) -> i64 {
        dims.iter().map(|d| self.size(*d)).product()
    }

    fn static_dims(dims: &[Dim]) -> Option<Vec<i64>> {
        dims.iter()
            .map(|d| match d {
                Dim::Static(n) => Some(*n),
                Dim::Sym(_) => None,
            })
            .collect()
    }

    fn ir_shape(dims: &[Dim]) -> Vec<i64> {
        dims.iter()
            .map(|d| match d {
                Dim::Static(n) => *n,
                Dim::Sym(_) => DYNAMIC,
            })
            .collect()
    }

    /// A new argument symbol of size `size`.
    fn new_sym(&mut self, size: i64) -> Dim {
        self.derived(Derivation::Base, size)
    }

    /// A new symbol of size `size`, computed from others as `how` says.
    fn derived(&mut self, how: Derivation, size: i64) -> Dim {
        self.sizes.push(size);
        self.derivations.push(how);
        Dim::Sym(self.sizes.len() - 1)
    }

    /// The size of `d` when every argument symbol is `grow` larger.
    fn grown(&self, d: Dim, grow: i64) -> i64 {
        let Dim::Sym(s) = d else {
            return self.size(d);
        };
        match &self.derivations[s] {
            Derivation::Base => self.sizes[s] + grow,
            Derivation::Sum(parts) => parts.iter().map(|p| self.grown(*p, grow)).sum(),
            Derivation::Plus(x, k) => self.grown(*x, grow) + k,
            Derivation::Product(parts, k) => {
                parts.iter().map(|p| self.grown(*p, grow)).product::<i64>() * k
            }
        }
    }

    /// A random dim: static, or (for arguments with `dynamic`) a new or an existing symbol.
    fn random_dim(&mut self) -> Dim {
        if self.cfg.dynamic && self.rng.chance(0.25) {
            if !self.sizes.is_empty() && self.rng.chance(0.5) {
                return Dim::Sym(self.rng.below(self.sizes.len()));
            }
            let n = self.rng.range(1, self.cfg.max_dim);
            return self.new_sym(n);
        }
        Dim::Static(self.rng.range(1, self.cfg.max_dim))
    }

    fn random_dims(&mut self, rank: usize) -> Vec<Dim> {
        (0..rank).map(|_| self.random_dim()).collect()
    }

    fn random_static(&mut self) -> Dim {
        Dim::Static(self.rng.range(1, self.cfg.max_dim))
    }

    fn random_kind(&mut self) -> Kind {
        match self.rng.below(10) {
            0..=5 => Kind::Float,
            6..=8 => Kind::Int,
            _ => Kind::Bool,
        }
    }

    fn random_elem(&mut self, kind: Kind) -> Type {
        match kind {
            Kind::Float => {
                let drawn = self.rng.pick(&FLOATS);
                self.float(drawn)
            }
            Kind::Int => self.rng.pick(&INTS),
            Kind::Bool => Type::I1,
        }
    }

    /// The float type to use where `drawn` was drawn: the configured one, if any.
    fn float(&self, drawn: Type) -> Type {
        self.cfg.float.unwrap_or(drawn)
    }

    fn kind(&self, elem: Type) -> Kind {
        if self.ctx.float_kind(elem).is_some() {
            Kind::Float
        } else if elem == Type::I1 {
            Kind::Bool
        } else {
            Kind::Int
        }
    }

    fn builder(&mut self) -> GraphBuilder<'_> {
        GraphBuilder::new(self.ctx, InsertPoint::End(self.block), Location::Unknown)
    }

    /// Adds a function argument.
    fn arg(&mut self, dims: Vec<Dim>, elem: Type) -> Node {
        let ty = self.ctx.tensor_type(&Self::ir_shape(&dims), elem);
        let value = self.ctx.add_block_arg(self.block, ty);
        self.args.push(dims.clone());
        let node = Node { value, dims, elem };
        self.pool.push(node.clone());
        node
    }

    /// Records `value` (built with dims `dims`) as a new operand candidate.
    fn push(&mut self, value: Value, dims: Vec<Dim>) -> Node {
        let elem = self.ctx.element_type(self.ctx.value_type(value));
        debug_assert_eq!(
            self.ctx
                .shape(self.ctx.value_type(value))
                .map(<[i64]>::to_vec),
            Some(Self::ir_shape(&dims)),
            "generator and builder disagree on a shape"
        );
        let node = Node { value, dims, elem };
        self.pool.push(node.clone());
        node
    }

    /// A random existing value whose element kind is one of `kinds` and that satisfies `pred`.
    fn pick_node(&mut self, kinds: &[Kind], pred: impl Fn(&Node) -> bool) -> Option<Node> {
        let candidates: Vec<usize> = (0..self.pool.len())
            .filter(|i| {
                let n = &self.pool[*i];
                kinds.contains(&self.kind(n.elem)) && pred(n)
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        // Prefer recent values, so the graph is deep rather than wide.
        let i = if self.rng.chance(0.6) {
            candidates[candidates.len() - 1 - self.rng.below(candidates.len().min(3))]
        } else {
            self.rng.pick(&candidates)
        };
        Some(self.pool[i].clone())
    }

    /// An existing value of one of `kinds`, or a new argument of the first kind.
    fn operand(&mut self, kinds: &[Kind], min_rank: usize) -> Node {
        if let Some(n) = self.pick_node(kinds, |n| n.dims.len() >= min_rank) {
            return n;
        }
        let rank = self.rng.range(
            min_rank.max(1) as i64,
            self.cfg.max_rank.max(min_rank) as i64,
        );
        let dims = self.random_dims(rank as usize);
        let elem = self.random_elem(kinds[0]);
        self.arg(dims, elem)
    }

    /// A second operand for a broadcasting op with `a`: an existing compatible value, or a new
    /// argument or constant whose dims are a suffix of `a`'s with some set to 1.
    fn partner(&mut self, a: &Node) -> Node {
        let a_dims = a.dims.clone();
        let elem = a.elem;
        if let Some(n) = self.pick_node(&[self.kind(elem)], |n| {
            n.elem == elem && n.value != a.value && broadcastable(&a_dims, &n.dims)
        }) {
            if self.rng.chance(0.5) {
                return n;
            }
        }
        if self.rng.chance(0.15) {
            return a.clone();
        }
        let drop = self.rng.below(a_dims.len().min(2) + 1).min(a_dims.len());
        let mut dims: Vec<Dim> = a_dims[drop..].to_vec();
        for d in dims.iter_mut() {
            if self.rng.chance(0.3) {
                *d = Dim::Static(1);
            }
        }
        if dims.is_empty() {
            dims.push(Dim::Static(1));
        }
        if self.rng.chance(0.3) {
            // A constant: its `?` dims become 1.
            let shape: Vec<i64> = dims
                .iter()
                .map(|d| match d {
                    Dim::Static(n) => *n,
                    Dim::Sym(_) => 1,
                })
                .collect();
            let dims: Vec<Dim> = shape.iter().map(|n| Dim::Static(*n)).collect();
            let v = self.random_constant(&shape, elem);
            return self.push(v, dims);
        }
        self.arg(dims, elem)
    }

    /// A `graph.constant` of random values.
    fn random_constant(&mut self, shape: &[i64], elem: Type) -> Value {
        let n: i64 = shape.iter().product();
        let kind = self.kind(elem);
        let values: Vec<DenseValue> = (0..n.max(1))
            .map(|_| match kind {
                // Four decimals: readable when printed.
                Kind::Float => {
                    DenseValue::Float(((self.rng.unit() * 4.0 - 2.0) * 1e4).round() / 1e4)
                }
                Kind::Int => DenseValue::Int(self.rng.range(-4, 4) as i128),
                Kind::Bool => DenseValue::Int(self.rng.below(2) as i128),
            })
            .collect();
        let ty = self.ctx.tensor_type(shape, elem);
        self.builder().constant(ty, &values)
    }

    /// True if a result with `dims` is small enough to keep.
    fn fits(&self, dims: &[Dim]) -> bool {
        dims.len() <= 6 && self.numel(dims) <= self.cfg.max_elements
    }

    // -----------------------------------------------------------------------------------------
    // One generator per op family.

    fn gen_unary(&mut self) -> bool {
        let x = self.operand(&[Kind::Float, Kind::Int, Kind::Bool], 1);
        let name = match self.kind(x.elem) {
            Kind::Float if self.rng.chance(0.7) => self.rng.pick(FLOAT_UNARY),
            Kind::Float | Kind::Int => self.rng.pick(NUMERIC_UNARY),
            Kind::Bool => "graph.not",
        };
        let v = self.builder().unary(name, x.value);
        self.push(v, x.dims);
        true
    }

    fn gen_binary(&mut self) -> bool {
        let a = self.operand(&[Kind::Float, Kind::Int], 1);
        let b = self.partner(&a);
        let mut names = NUMERIC_BINARY.to_vec();
        if self.kind(a.elem) == Kind::Float {
            names.push("graph.pow");
        }
        let name = self.rng.pick(&names);
        let dims = broadcast_dims(&a.dims, &b.dims);
        let (x, y) = if self.rng.chance(0.5) { (a, b) } else { (b, a) };
        let v = self.builder().binary(name, x.value, y.value);
        self.push(v, dims);
        true
    }

    /// `div` / `rem`; an integer divisor is clamped to at least 1 with `max`.
    fn gen_div(&mut self) -> bool {
        let a = self.operand(&[Kind::Float, Kind::Int], 1);
        let mut b = self.partner(&a);
        if self.kind(a.elem) == Kind::Int {
            let ones = vec![1; b.dims.len()];
            let one = self.builder().splat(1.0, a.elem, &ones);
            let v = self.builder().binary("graph.max", b.value, one);
            b = self.push(v, b.dims.clone());
        }
        let name = if self.rng.chance(0.6) {
            "graph.div"
        } else {
            "graph.rem"
        };
        let dims = broadcast_dims(&a.dims, &b.dims);
        let v = self.builder().binary(name, a.value, b.value);
        self.push(v, dims);
        true
    }

    fn gen_logic(&mut self) -> bool {
        let a = self.operand(&[Kind::Bool, Kind::Int], 1);
        let b = self.partner(&a);
        let name = if self.rng.chance(0.5) {
            "graph.and"
        } else {
            "graph.or"
        };
        let dims = broadcast_dims(&a.dims, &b.dims);
        let v = self.builder().binary(name, a.value, b.value);
        self.push(v, dims);
        true
    }

    /// `cmp`, then often a `select` on its result.
    fn gen_cmp_select(&mut self) -> bool {
        let a = self.operand(&[Kind::Float, Kind::Int], 1);
        let b = self.partner(&a);
        let p = self.rng.pick(PREDICATES);
        let dims = broadcast_dims(&a.dims, &b.dims);
        let c = self.builder().cmp(p, a.value, b.value);
        let c = self.push(c, dims.clone());
        if self.rng.chance(0.6) {
            let v = self.builder().select(c.value, b.value, a.value);
            self.push(v, dims);
        }
        true
    }

    fn gen_cast(&mut self) -> bool {
        let x = self.operand(&[Kind::Float, Kind::Int, Kind::Bool], 1);
        let kind = self.random_kind();
        let elem = self.random_elem(kind);
        let v = self.builder().cast(x.value, elem);
        self.push(v, x.dims);
        true
    }

    fn gen_reduce(&mut self) -> bool {
        let x = self.operand(&[Kind::Float, Kind::Int], 1);
        let rank = x.dims.len();
        let mut axes: Vec<i64> = (0..rank as i64).filter(|_| self.rng.chance(0.4)).collect();
        if axes.is_empty() {
            axes.push(self.rng.below(rank) as i64);
        }
        let mut keepdim = self.rng.chance(0.5);
        if axes.len() == rank {
            keepdim = true;
        }
        if self.rng.chance(0.2) {
            let axis = axes[0];
            let keepdim = keepdim || rank == 1;
            let name = if self.rng.chance(0.5) {
                "graph.argmax"
            } else {
                "graph.argmin"
            };
            let dims = reduce_dims(&x.dims, &[axis], keepdim);
            let v = self.builder().arg_reduce(name, x.value, axis, keepdim);
            self.push(v, dims);
            return true;
        }
        let mut names = REDUCTIONS.to_vec();
        if self.kind(x.elem) == Kind::Float {
            names.push("graph.reduce_mean");
        }
        let name = self.rng.pick(&names);
        let dims = reduce_dims(&x.dims, &axes, keepdim);
        let v = self.builder().reduce(name, x.value, &axes, keepdim);
        self.push(v, dims);
        true
    }

    fn gen_matmul(&mut self) -> bool {
        let a = self.operand(&[Kind::Float, Kind::Int], 2);
        let r = a.dims.len();
        let k = a.dims[r - 1];
        let n = self.random_static();
        let mut b_dims = if self.rng.chance(0.5) {
            a.dims[..r - 2].to_vec()
        } else {
            Vec::new()
        };
        // About a quarter of them read `b` transposed (`transpose_b`, `b` as [.., n, k]),
        // chosen from `n` rather than by a new draw, so that the random stream, and with it
        // every other op of every seed's program, stays what it was.
        let transposed = matches!(n, Dim::Static(size) if size % 4 == 3);
        b_dims.extend(if transposed { [n, k] } else { [k, n] });
        let dims: Vec<Dim> = a.dims[..r - 1].iter().copied().chain([n]).collect();
        if !self.fits(&dims) {
            return false;
        }
        let b = self.arg(b_dims, a.elem);
        let v = if transposed {
            self.builder().matmul_transposed_b(a.value, b.value)
        } else {
            self.builder().matmul(a.value, b.value)
        };
        self.push(v, dims);
        true
    }

    fn gen_transpose(&mut self) -> bool {
        let x = self.operand(&[Kind::Float, Kind::Int, Kind::Bool], 2);
        let mut perm: Vec<i64> = (0..x.dims.len() as i64).collect();
        for i in (1..perm.len()).rev() {
            let j = self.rng.below(i + 1);
            perm.swap(i, j);
        }
        let dims: Vec<Dim> = perm.iter().map(|p| x.dims[*p as usize]).collect();
        let v = self.builder().transpose(x.value, &perm);
        self.push(v, dims);
        true
    }

    /// Regroups the static dims; a single `?` dim survives as the inferred (-1) entry.
    fn gen_reshape(&mut self) -> bool {
        let Some(x) = self.pick_node(&[Kind::Float, Kind::Int, Kind::Bool], |_| true) else {
            return false;
        };
        let symbols = x.dims.iter().filter(|d| matches!(d, Dim::Sym(_))).count();
        if symbols > 1 || (symbols == 1 && self.rng.chance(0.4)) {
            return self.gen_sized_reshape(&x);
        }
        let sym = x.dims.iter().copied().find(|d| matches!(d, Dim::Sym(_)));
        let mut total = static_count(&x.dims);
        // Factor the static element count into random dims.
        let mut dims = Vec::new();
        while total > 1 && dims.len() < 4 {
            let divisors: Vec<i64> = (2..=total).filter(|d| total % d == 0).collect();
            let d = self.rng.pick(&divisors);
            dims.push(Dim::Static(d));
            total /= d;
        }
        // A count with more prime factors than four dims hold: the last dim takes the rest
        // (without a draw, so that every other program keeps its random stream).
        if total > 1 {
            if let Some(Dim::Static(last)) = dims.last_mut() {
                *last *= total;
            }
        }
        if self.rng.chance(0.3) || dims.is_empty() {
            dims.push(Dim::Static(1));
        }
        let mut target: Vec<i64> = dims
            .iter()
            .map(|d| match d {
                Dim::Static(n) => *n,
                Dim::Sym(_) => -1,
            })
            .collect();
        match sym {
            Some(s) => {
                let at = self.rng.below(dims.len() + 1);
                dims.insert(at, s);
                target.insert(at, -1);
            }
            None if self.rng.chance(0.3) => {
                let at = self.rng.below(target.len());
                target[at] = -1;
            }
            None => {}
        }
        let v = self.builder().reshape(x.value, &target);
        self.push(v, dims);
        true
    }

    /// A `graph.reshape` of a value with `?` dims whose sizes are `index` operands: either each
    /// symbol kept (its `graph.dim` as the size, a shared symbol) among the static dims
    /// refactored, or everything flattened into one dim, the product of the sizes (a derived
    /// symbol).
    fn gen_sized_reshape(&mut self, x: &Node) -> bool {
        let mut b = GraphBuilder::new(self.ctx, InsertPoint::End(self.block), Location::Unknown);
        let mut sizes = Vec::new();
        let mut dims = Vec::new();
        for (axis, d) in x.dims.iter().enumerate() {
            if let Dim::Sym(_) = d {
                let a = b.i64_attr(axis as i64);
                sizes.push(b.build_one("graph.dim", &[x.value], vec![("axis", a)], Type::INDEX));
                dims.push(*d);
            }
        }
        let count = static_count(&x.dims);
        if self.rng.chance(0.3) {
            // Flatten: one dim of every element.
            let value = b.ctx.integer_attr(count as i128, Type::INDEX);
            let mut total = b.build_one("arith.constant", &[], vec![("value", value)], Type::INDEX);
            let mut size = count;
            for (&v, d) in sizes.iter().zip(&dims) {
                total = b.build_one("arith.muli", &[total, v], vec![], Type::INDEX);
                if let Dim::Sym(s) = d {
                    size *= self.sizes[*s];
                }
            }
            let shape = b.i64_array(&[-1]);
            let ty = b.ctx.tensor_type(&[DYNAMIC], x.elem);
            let v = b.build_one(
                "graph.reshape",
                &[x.value, total],
                vec![("shape", shape)],
                ty,
            );
            let sym = self.derived(Derivation::Product(dims, count), size);
            self.push(v, vec![sym]);
            return true;
        }
        // The static count split into random factors, the symbols placed among them in order.
        let mut out: Vec<Dim> = Vec::new();
        let mut rest = count;
        while rest > 1 {
            let divisors: Vec<i64> = (2..=rest).filter(|d| rest % d == 0).collect();
            let d = if out.len() == 2 {
                rest // at most three static dims: the last takes what is left
            } else {
                self.rng.pick(&divisors)
            };
            out.push(Dim::Static(d));
            rest /= d;
        }
        for d in dims {
            let at = self.rng.below(out.len() + 1);
            let at = out
                .iter()
                .rposition(|e| matches!(e, Dim::Sym(_)))
                .map_or(at, |last| at.max(last + 1));
            out.insert(at, d);
        }
        let shape: Vec<i64> = out
            .iter()
            .map(|d| match d {
                Dim::Static(n) => *n,
                Dim::Sym(_) => -1,
            })
            .collect();
        let mut b = self.builder();
        let attr = b.i64_array(&shape);
        let ty = b.ctx.tensor_type(&Self::ir_shape(&out), x.elem);
        let v = b.build_one(
            "graph.reshape",
            &[&[x.value][..], &sizes].concat(),
            vec![("shape", attr)],
            ty,
        );
        self.push(v, out);
        true
    }

    /// Slices a fully static value (numpy-style starts and ends, negative ones too).
    fn gen_slice(&mut self) -> bool {
        let Some(x) = self.pick_node(&[Kind::Float, Kind::Int, Kind::Bool], |n| {
            n.dims.iter().all(|d| matches!(d, Dim::Static(_)))
        }) else {
            return false;
        };
        let shape = Self::static_dims(&x.dims).unwrap_or_default();
        let (mut starts, mut ends, mut steps, mut dims) = (vec![], vec![], vec![], vec![]);
        for &d in &shape {
            let s = self.rng.range(0, d - 1);
            let e = self.rng.range(s + 1, d);
            let step = self.rng.range(1, 2);
            // Sometimes count from the end.
            starts.push(if self.rng.chance(0.2) { s - d } else { s });
            ends.push(if self.rng.chance(0.2) && e < d {
                e - d
            } else {
                e
            });
            steps.push(step);
            dims.push(Dim::Static((e - s + step - 1) / step));
        }
        let v = self.builder().slice(x.value, &starts, &ends, &steps);
        self.push(v, dims);
        true
    }

    fn gen_concat(&mut self) -> bool {
        let x = self.operand(&[Kind::Float, Kind::Int, Kind::Bool], 1);
        let axis = self.rng.below(x.dims.len());
        let mut parts = vec![x.clone()];
        for _ in 0..self.rng.range(1, 2) {
            let same = self.pick_node(&[self.kind(x.elem)], |n| {
                n.elem == x.elem
                    && n.dims.len() == x.dims.len()
                    && n.dims
                        .iter()
                        .zip(&x.dims)
                        .enumerate()
                        .all(|(i, (a, b))| i == axis || a == b)
                    && (i_static(n.dims[axis]) && i_static(x.dims[axis]) || n.dims == x.dims)
            });
            let part = match same {
                Some(n) if self.rng.chance(0.5) => n,
                _ => {
                    let mut dims = x.dims.clone();
                    if matches!(dims[axis], Dim::Static(_)) {
                        dims[axis] = self.random_static();
                    }
                    self.arg(dims, x.elem)
                }
            };
            parts.push(part);
        }
        let mut dims = x.dims.clone();
        let total = parts.iter().map(|p| self.size(p.dims[axis])).sum();
        dims[axis] = if parts.iter().all(|p| i_static(p.dims[axis])) {
            Dim::Static(total)
        } else {
            let sum = parts.iter().map(|p| p.dims[axis]).collect();
            self.derived(Derivation::Sum(sum), total)
        };
        if !self.fits(&dims) {
            return false;
        }
        let values: Vec<Value> = parts.iter().map(|p| p.value).collect();
        let v = self.builder().concat(&values, axis as i64);
        self.push(v, dims);
        true
    }

    fn gen_pad(&mut self) -> bool {
        let x = self.operand(&[Kind::Float, Kind::Int, Kind::Bool], 1);
        let rank = x.dims.len();
        let low: Vec<i64> = (0..rank).map(|_| self.rng.range(0, 2)).collect();
        let high: Vec<i64> = (0..rank).map(|_| self.rng.range(0, 2)).collect();
        let mut dims = Vec::with_capacity(rank);
        for i in 0..rank {
            let grow = low[i] + high[i];
            dims.push(match x.dims[i] {
                Dim::Static(n) => Dim::Static(n + grow),
                d @ Dim::Sym(_) if grow == 0 => d,
                d @ Dim::Sym(s) => self.derived(Derivation::Plus(d, grow), self.sizes[s] + grow),
            });
        }
        if !self.fits(&dims) {
            return false;
        }
        let value = match self.kind(x.elem) {
            Kind::Bool => self.rng.range(0, 1) as f64,
            Kind::Int => self.rng.range(-3, 3) as f64,
            Kind::Float => self.rng.range(-4, 4) as f64 * 0.5,
        };
        let v = self.builder().pad(x.value, &low, &high, value);
        self.push(v, dims);
        true
    }

    /// Gathers along a static axis with constant in-range indices.
    fn gen_gather(&mut self) -> bool {
        let Some(x) = self.pick_node(&[Kind::Float, Kind::Int, Kind::Bool], |n| {
            n.dims.iter().any(|d| i_static(*d))
        }) else {
            return false;
        };
        let axes: Vec<usize> = (0..x.dims.len()).filter(|i| i_static(x.dims[*i])).collect();
        let axis = self.rng.pick(&axes);
        let size = self.size(x.dims[axis]);
        let idx_rank = self.rng.range(1, 2) as usize;
        let idx_shape: Vec<i64> = (0..idx_rank).map(|_| self.rng.range(1, 4)).collect();
        let mut dims = x.dims[..axis].to_vec();
        dims.extend(idx_shape.iter().map(|n| Dim::Static(*n)));
        dims.extend(&x.dims[axis + 1..]);
        if !self.fits(&dims) {
            return false;
        }
        let idx_elem = if self.rng.chance(0.5) {
            Type::I32
        } else {
            Type::I64
        };
        let n: i64 = idx_shape.iter().product();
        let values: Vec<DenseValue> = (0..n)
            .map(|_| DenseValue::Int(self.rng.range(0, size - 1) as i128))
            .collect();
        let ty = self.ctx.tensor_type(&idx_shape, idx_elem);
        let idx = self.builder().constant(ty, &values);
        self.push(idx, idx_shape.iter().map(|n| Dim::Static(*n)).collect());
        let v = self.builder().gather(x.value, idx, axis as i64);
        self.push(v, dims);
        true
    }

    /// Broadcasts to added leading dims and expanded static 1s; `?` dims stay (-1).
    fn gen_broadcast(&mut self) -> bool {
        let x = self.operand(&[Kind::Float, Kind::Int, Kind::Bool], 1);
        let mut dims: Vec<Dim> = (0..self.rng.below(2))
            .map(|_| self.random_static())
            .collect();
        for d in &x.dims {
            dims.push(match d {
                Dim::Static(1) if self.rng.chance(0.7) => self.random_static(),
                d => *d,
            });
        }
        if !self.fits(&dims) {
            return false;
        }
        let shape = Self::ir_shape(&dims);
        let v = self.builder().broadcast_to(x.value, &shape);
        self.push(v, dims);
        true
    }

    /// A source op: a random constant, `graph.iota` or `graph.fill`; or a `graph.fill` of a
    /// dynamic shape whose `?` sizes are read with `graph.dim` from a value that has them.
    fn gen_source(&mut self) -> bool {
        if self.rng.chance(0.3) {
            if let Some(t) = self.pick_node(&[Kind::Float, Kind::Int, Kind::Bool], |n| {
                n.dims.iter().any(|d| !i_static(*d))
            }) {
                return self.gen_dynamic_fill(&t);
            }
        }
        let rank = self.rng.range(1, 3) as usize;
        let shape: Vec<i64> = (0..rank)
            .map(|_| self.rng.range(1, self.cfg.max_dim))
            .collect();
        let dims: Vec<Dim> = shape.iter().map(|n| Dim::Static(*n)).collect();
        let kind = self.random_kind();
        let elem = self.random_elem(kind);
        let ty = self.ctx.tensor_type(&shape, elem);
        let v = match self.rng.below(3) {
            0 => self.random_constant(&shape, elem),
            1 if kind != Kind::Bool => {
                let axis = self.rng.below(rank) as i64;
                let mut b = self.builder();
                let a = b.i64_attr(axis);
                b.build_one("graph.iota", &[], vec![("axis", a)], ty)
            }
            _ => {
                let value = if kind == Kind::Bool { 1.0 } else { 2.0 };
                let mut b = self.builder();
                let a = b.scalar_attr(value, elem);
                b.build_one("graph.fill", &[], vec![("value", a)], ty)
            }
        };
        self.push(v, dims);
        true
    }

    /// `graph.fill` shaped `[?, n]` with the `?` read by `graph.dim` from an axis of `t`.
    fn gen_dynamic_fill(&mut self, t: &Node) -> bool {
        let axes: Vec<usize> = (0..t.dims.len())
            .filter(|i| !i_static(t.dims[*i]))
            .collect();
        let axis = self.rng.pick(&axes);
        let dims = vec![t.dims[axis], self.random_static()];
        let kind = self.random_kind();
        let elem = self.random_elem(kind);
        let ty = self.ctx.tensor_type(&Self::ir_shape(&dims), elem);
        let mut b = self.builder();
        let a = b.i64_attr(axis as i64);
        let size = b.build_one("graph.dim", &[t.value], vec![("axis", a)], Type::INDEX);
        let value = b.scalar_attr(1.0, elem);
        let v = b.build_one("graph.fill", &[size], vec![("value", value)], ty);
        self.push(v, dims);
        true
    }

    // -----------------------------------------------------------------------------------------
    // Composites (float only).

    fn gen_softmax_like(&mut self) -> bool {
        let x = self.operand(&[Kind::Float], 1);
        /// The attribute an op takes.
        #[derive(Copy, Clone)]
        enum Takes {
            Axis,
            Approximate,
            Nothing,
        }
        let (name, takes) = self.rng.pick(&[
            ("graph.softmax", Takes::Axis),
            ("graph.log_softmax", Takes::Axis),
            ("graph.gelu", Takes::Approximate),
            ("graph.silu", Takes::Nothing),
        ]);
        let ty = self.ctx.value_type(x.value);
        let tanh = self.rng.chance(0.5);
        let axis = self.rng.below(x.dims.len()) as i64;
        let mut b = self.builder();
        let attrs = match takes {
            Takes::Approximate => {
                let mode = if tanh { "tanh" } else { "none" };
                vec![("approximate", b.ctx.string_attr(mode))]
            }
            Takes::Axis => vec![("axis", b.i64_attr(axis))],
            Takes::Nothing => vec![],
        };
        let v = b.build_one(name, &[x.value], attrs, ty);
        self.push(v, x.dims);
        true
    }

    fn gen_norm(&mut self) -> bool {
        let x = self.operand(&[Kind::Float], 1);
        let axis = self.rng.below(x.dims.len());
        let gamma = self.arg(x.dims[axis..].to_vec(), x.elem);
        let rms = self.rng.chance(0.4);
        let mut operands = vec![x.value, gamma.value];
        if !rms {
            let beta = self.arg(x.dims[axis..].to_vec(), x.elem);
            operands.push(beta.value);
        }
        let ty = self.ctx.value_type(x.value);
        let name = if rms {
            "graph.rms_norm"
        } else {
            "graph.layer_norm"
        };
        let mut b = self.builder();
        let attrs = vec![
            ("axis", b.i64_attr(axis as i64)),
            ("epsilon", b.ctx.float_attr(1e-5, Type::F64)),
        ];
        let v = b.build_one(name, &operands, attrs, ty);
        self.push(v, x.dims);
        true
    }

    fn gen_linear(&mut self) -> bool {
        let x = self.operand(&[Kind::Float], 1);
        let k = *x.dims.last().unwrap_or(&Dim::Static(1));
        let n = self.random_static();
        let mut dims = x.dims.clone();
        *dims.last_mut().unwrap_or(&mut Dim::Static(1)) = n;
        if !self.fits(&dims) {
            return false;
        }
        let w = self.arg(vec![k, n], x.elem);
        let bias = self.arg(vec![n], x.elem);
        let ty = self.ctx.tensor_type(&Self::ir_shape(&dims), x.elem);
        let v =
            self.builder()
                .build_one("graph.linear", &[x.value, w.value, bias.value], vec![], ty);
        self.push(v, dims);
        true
    }

    /// An NCHW input with static C, H, W (an existing one or a new argument).
    fn image(&mut self) -> Node {
        let existing = self.pick_node(&[Kind::Float], |n| {
            n.dims.len() == 4 && n.dims[1..].iter().all(|d| i_static(*d))
        });
        if let Some(n) = existing {
            return n;
        }
        let batch = if self.cfg.dynamic && self.rng.chance(0.5) {
            let n = self.rng.range(1, 2);
            self.new_sym(n)
        } else {
            Dim::Static(self.rng.range(1, 2))
        };
        let c = Dim::Static(self.rng.range(1, 4));
        let h = Dim::Static(self.rng.range(3, 6));
        let w = Dim::Static(self.rng.range(3, 6));
        let drawn = if self.rng.chance(0.8) {
            Type::F32
        } else {
            Type::F64
        };
        let elem = self.float(drawn);
        self.arg(vec![batch, c, h, w], elem)
    }

    fn gen_conv(&mut self) -> bool {
        let x = self.image();
        let [n, c, h, w] = [x.dims[0], x.dims[1], x.dims[2], x.dims[3]];
        let (c, h, w) = (self.size(c), self.size(h), self.size(w));
        let groups = if c % 2 == 0 && self.rng.chance(0.4) {
            2
        } else {
            1
        };
        let o = groups * self.rng.range(1, 3);
        let (kh, kw) = (self.rng.range(1, 3.min(h)), self.rng.range(1, 3.min(w)));
        let strides = [self.rng.range(1, 2), self.rng.range(1, 2)];
        let dilations = [self.rng.range(1, 2), self.rng.range(1, 2)];
        let padding: Vec<i64> = (0..4).map(|_| self.rng.range(0, 1)).collect();
        let out = |size: i64, lo: i64, hi: i64, k: i64, s: i64, d: i64| {
            let span = size + lo + hi - d * (k - 1) - 1;
            (span >= 0).then(|| span / s + 1)
        };
        let (Some(oh), Some(ow)) = (
            out(h, padding[0], padding[2], kh, strides[0], dilations[0]),
            out(w, padding[1], padding[3], kw, strides[1], dilations[1]),
        ) else {
            return false;
        };
        let wt = self.arg(
            vec![
                Dim::Static(o),
                Dim::Static(c / groups),
                Dim::Static(kh),
                Dim::Static(kw),
            ],
            x.elem,
        );
        let dims = vec![n, Dim::Static(o), Dim::Static(oh), Dim::Static(ow)];
        let ty = self.ctx.tensor_type(&Self::ir_shape(&dims), x.elem);
        let mut b = self.builder();
        let attrs = vec![
            ("strides", b.i64_array(&strides)),
            ("padding", b.i64_array(&padding)),
            ("dilations", b.i64_array(&dilations)),
            ("groups", b.i64_attr(groups)),
        ];
        let v = b.build_one("graph.conv2d", &[x.value, wt.value], attrs, ty);
        self.push(v, dims);
        true
    }

    /// max_pool2d / avg_pool2d with padding at most half the kernel (every window holds an
    /// unpadded element).
    fn gen_pool(&mut self) -> bool {
        let x = self.image();
        let (h, w) = (self.size(x.dims[2]), self.size(x.dims[3]));
        let kernel = [self.rng.range(1, 3.min(h)), self.rng.range(1, 3.min(w))];
        let strides = [self.rng.range(1, 2), self.rng.range(1, 2)];
        let ph = self.rng.range(0, kernel[0] / 2);
        let pw = self.rng.range(0, kernel[1] / 2);
        let padding = [ph, pw, self.rng.range(0, ph), self.rng.range(0, pw)];
        let oh = (h + padding[0] + padding[2] - kernel[0]) / strides[0] + 1;
        let ow = (w + padding[1] + padding[3] - kernel[1]) / strides[1] + 1;
        let dims = vec![x.dims[0], x.dims[1], Dim::Static(oh), Dim::Static(ow)];
        let name = if self.rng.chance(0.5) {
            "graph.max_pool2d"
        } else {
            "graph.avg_pool2d"
        };
        let ty = self.ctx.tensor_type(&Self::ir_shape(&dims), x.elem);
        let mut b = self.builder();
        let attrs = vec![
            ("kernel", b.i64_array(&kernel)),
            ("strides", b.i64_array(&strides)),
            ("padding", b.i64_array(&padding)),
        ];
        let v = b.build_one(name, &[x.value], attrs, ty);
        self.push(v, dims);
        true
    }

    fn gen_sdpa(&mut self) -> bool {
        let q = self.operand(&[Kind::Float], 2);
        let r = q.dims.len();
        let batch = q.dims[..r - 2].to_vec();
        let (lq, d) = (q.dims[r - 2], q.dims[r - 1]);
        let lk = self.random_dim();
        let dv = self.random_static();
        let with = |tail: [Dim; 2]| -> Vec<Dim> { batch.iter().copied().chain(tail).collect() };
        let dims = with([lq, dv]);
        if !self.fits(&dims) || !self.fits(&with([lq, lk])) {
            return false;
        }
        let k = self.arg(with([lk, d]), q.elem);
        let v = self.arg(with([lk, dv]), q.elem);
        let mut operands = vec![q.value, k.value, v.value];
        if self.rng.chance(0.5) {
            let mask = self.arg(vec![lq, lk], q.elem);
            operands.push(mask.value);
        }
        let scale = 1.0 / (self.size(d) as f64).sqrt();
        let ty = self.ctx.tensor_type(&Self::ir_shape(&dims), q.elem);
        let mut b = self.builder();
        let attrs = vec![("scale", b.ctx.float_attr(scale, Type::F64))];
        let out = b.build_one("graph.sdpa", &operands, attrs, ty);
        self.push(out, dims);
        true
    }

    /// The values to return: the newest unused op results.
    fn outputs(&mut self) -> Vec<Value> {
        let mut outs: Vec<Value> = self
            .pool
            .iter()
            .rev()
            .filter(|n| self.ctx.defining_op(n.value).is_some() && self.ctx.is_unused(n.value))
            .map(|n| n.value)
            .take(self.cfg.max_outputs.max(1))
            .collect();
        if outs.is_empty() {
            outs.push(self.pool[self.pool.len() - 1].value);
        }
        outs.reverse();
        outs
    }
}

fn i_static(d: Dim) -> bool {
    matches!(d, Dim::Static(_))
}

/// True if `b` broadcasts against `a` without changing `a`'s dims.
fn broadcastable(a: &[Dim], b: &[Dim]) -> bool {
    b.len() <= a.len()
        && b.iter()
            .rev()
            .zip(a.iter().rev())
            .all(|(x, y)| x == y || *x == Dim::Static(1))
}

/// Numpy broadcasting of two dim lists whose pairs are equal or a static 1.
fn broadcast_dims(a: &[Dim], b: &[Dim]) -> Vec<Dim> {
    let rank = a.len().max(b.len());
    let at = |s: &[Dim], i: usize| {
        let pad = rank - s.len();
        if i < pad {
            Dim::Static(1)
        } else {
            s[i - pad]
        }
    };
    (0..rank)
        .map(|i| match (at(a, i), at(b, i)) {
            (Dim::Static(1), y) => y,
            (x, _) => x,
        })
        .collect()
}

fn reduce_dims(dims: &[Dim], axes: &[i64], keepdim: bool) -> Vec<Dim> {
    let mut out = Vec::new();
    for (i, d) in dims.iter().enumerate() {
        if axes.contains(&(i as i64)) {
            if keepdim {
                out.push(Dim::Static(1));
            }
        } else {
            out.push(*d);
        }
    }
    out
}
