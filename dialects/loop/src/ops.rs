//! The loop ops — kernel ops and the host ops `loop.dim`, `loop.read_size`, `loop.launch`,
//! `loop.constant`, `loop.view`, `loop.reshape`, `loop.call_if` and `loop.call_loop` — their
//! definitions, typed accessors, the enums their attributes encode
//! ([`LoopKind`], [`IterKind`], [`ReduceMethod`], [`ReduceKind`], [`Dim`]) and builders.

use crate::compiled::CompiledKernelOp;
use crate::interfaces::{
    Allocates, ForLoop, MemoryAccess, NoEffects, ReadsOperand, Synchronizes, LOAD, PADDED_LOAD,
    PREFETCH, STORE, VLOAD, VSTORE,
};
use crate::types::buffer_parts;
use crate::{syntax, verify};
use dlc_ir::{
    AttrKind, Attribute, Block, Context, DenseValue, InsertPoint, Location, Op, OpSpec, Traits,
    Type, TypeKind, Value,
};
use dlc_ir::{LoopLike, MemoryEffects};

dlc_ir::define_op! {
    /// A kernel: a symbol whose body runs on the device; its entry block args are its arguments.
    pub struct KernelOp = "loop.kernel";
    traits = Traits::ISOLATED_FROM_ABOVE
        .union(Traits::SYMBOL)
        .union(Traits::SINGLE_BLOCK);
    operands = [];
    results = [];
    attributes = [sym_name, function_type, arg_attrs, grid, block];
    regions = 1;
    verify = verify::verify_kernel;
    parse = syntax::parse_kernel;
    print = syntax::print_kernel;
}

dlc_ir::define_op! {
    /// Ends a kernel.
    pub struct ReturnOp = "loop.return";
    traits = Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE);
    operands = [];
    results = [];
    parents = &["loop.kernel"];
    format = "attr-dict";
}

dlc_ir::define_op! {
    /// Allocates a buffer: shared or local inside a kernel, global (zero-filled) in a host function;
    /// one index operand per `?` dim.
    pub struct AllocOp = "loop.alloc";
    traits = Traits::empty();
    operands = *;
    results = [result];
    interfaces = [dyn MemoryEffects => Allocates];
    verify = verify::verify_alloc;
    parse = syntax::parse_alloc;
    print = syntax::print_alloc;
}

dlc_ir::define_op! {
    /// A loop `for (iv = lb; iv < ub; iv += step)` of a given kind (serial, vectorize, GPU-bound...).
    pub struct ForOp = "loop.for";
    traits = Traits::SINGLE_BLOCK;
    operands = [lower_bound, upper_bound, step];
    results = [];
    attributes = [kind, width, factor];
    regions = 1;
    interfaces = [dyn LoopLike => ForLoop, dyn MemoryEffects => NoEffects];
    verify = verify::verify_for;
    parse = syntax::parse_for;
    print = syntax::print_for;
}

dlc_ir::define_op! {
    /// A schedule block: binds iter vars to iter values around a body (and a reduction init).
    pub struct ScheduleBlockOp = "loop.schedule_block";
    traits = Traits::SINGLE_BLOCK;
    operands = *;
    results = [];
    attributes = [name, iter_kinds, reduce_method];
    regions = 2;
    interfaces = [dyn MemoryEffects => NoEffects];
    verify = verify::verify_schedule_block;
    parse = syntax::parse_schedule_block;
    print = syntax::print_schedule_block;
}

dlc_ir::define_op! {
    /// Reads one element of a buffer.
    pub struct LoadOp = "loop.load";
    traits = Traits::empty();
    operands = *;
    results = [result];
    interfaces = [dyn MemoryAccess => LOAD, dyn MemoryEffects => LOAD];
    verify = verify::verify_load;
    parse = syntax::parse_load;
    print = syntax::print_load;
}

dlc_ir::define_op! {
    /// Writes one element of a buffer.
    pub struct StoreOp = "loop.store";
    traits = Traits::empty();
    operands = *;
    results = [];
    interfaces = [dyn MemoryAccess => STORE, dyn MemoryEffects => STORE];
    verify = verify::verify_store;
    parse = syntax::parse_store;
    print = syntax::print_store;
}

dlc_ir::define_op! {
    /// Reads a contiguous vector along the last dim of a buffer.
    pub struct VLoadOp = "loop.vload";
    traits = Traits::empty();
    operands = *;
    results = [result];
    interfaces = [dyn MemoryAccess => VLOAD, dyn MemoryEffects => VLOAD];
    verify = verify::verify_vload;
    parse = syntax::parse_vload;
    print = syntax::print_vload;
}

dlc_ir::define_op! {
    /// Reads one element of a buffer, or gives the padding value (its last operand, of the
    /// element type) where the indices fall outside the buffer, reading nothing there:
    /// `%v = loop.load_padded %buf[%i, %j], %pad : !loop.buffer<...>`. A convolution reads its
    /// input so where it would otherwise read a padded copy (`lower`).
    pub struct LoadPaddedOp = "loop.load_padded";
    traits = Traits::empty();
    operands = *;
    results = [result];
    interfaces = [dyn MemoryAccess => PADDED_LOAD, dyn MemoryEffects => PADDED_LOAD];
    verify = verify::verify_load_padded;
    parse = syntax::parse_load_padded;
    print = syntax::print_load_padded;
}

dlc_ir::define_op! {
    /// `loop.vload` with padding: lane `l` reads the element at the indices with `l` added to
    /// the last, or is the padding value (a scalar of the element type) where those indices
    /// fall outside the buffer; no memory outside it is read (MLIR's `vector.transfer_read`
    /// with a padding value, out of bounds in every dim):
    /// `%v = loop.vload_padded %buf[%i, %j], %pad : !loop.buffer<...> -> vector<16xf32>`.
    /// Code generation emits one masked load.
    pub struct VLoadPaddedOp = "loop.vload_padded";
    traits = Traits::empty();
    operands = *;
    results = [result];
    interfaces = [dyn MemoryAccess => PADDED_LOAD, dyn MemoryEffects => PADDED_LOAD];
    verify = verify::verify_vload_padded;
    parse = syntax::parse_vload_padded;
    print = syntax::print_vload_padded;
}

dlc_ir::define_op! {
    /// Writes a contiguous vector along the last dim of a buffer.
    ///
    /// With the unit attribute `nontemporal`, a streaming store past the caches (a hint, see
    /// [`VStoreOp::is_nontemporal`]).
    pub struct VStoreOp = "loop.vstore";
    traits = Traits::empty();
    operands = *;
    results = [];
    attributes = [nontemporal];
    interfaces = [dyn MemoryAccess => VSTORE, dyn MemoryEffects => VSTORE];
    verify = verify::verify_vstore;
    parse = syntax::parse_vstore;
    print = syntax::print_vstore;
}

dlc_ir::define_op! {
    /// A dot product of byte groups accumulated into 32-bit lanes:
    /// `%r = loop.dot4 %acc, %a, %b : vector<Nxi32>, vector<4Nxi8>` gives
    /// `r[i] = acc[i] + Σ_{t<4} zext(a[4i+t]) · sext(b[4i+t])`, wrapping: `a`'s bytes unsigned,
    /// `b`'s signed. A byte operand may instead be a *quad*, `vector<4xi8>`, whose four bytes
    /// stand for every group (`a[4i+t]` is `a[t]`): the types are then written out,
    /// `: vector<Nxi32>, vector<4xi8>, vector<4Nxi8>`. x86's `vpdpbusd` (AVX-512 VNNI,
    /// AVX-VNNI) computes it in one instruction, a quad broadcast to its lanes first;
    /// elsewhere code generation widens, multiplies and adds. `tile` emits it for 8-bit
    /// integer products on targets with VNNI, each row's four bytes of `A` a quad.
    pub struct Dot4Op = "loop.dot4";
    traits = Traits::PURE;
    operands = [acc, a, b];
    results = [result];
    verify = verify::verify_dot4;
    parse = syntax::parse_dot;
    print = syntax::print_dot;
}

dlc_ir::define_op! {
    /// A dot product of 16-bit pairs accumulated into 32-bit lanes:
    /// `%r = loop.dot2 %acc, %a, %b : vector<Nxi32>, vector<2Nxi16>` gives
    /// `r[i] = acc[i] + sext(a[2i]) · sext(b[2i]) + sext(a[2i+1]) · sext(b[2i+1])`, wrapping.
    /// A 16-bit operand may instead be a *pair*, `vector<2xi16>`, which stands for every group
    /// (`a[2i+t]` is `a[t]`); the types are then written out, `: vector<Nxi32>,
    /// vector<2xi16>, vector<2Nxi16>`. x86's `pmaddwd` (SSE2, AVX2, AVX-512BW) computes the
    /// pairs' sums in one instruction, which code generation adds to the accumulator;
    /// elsewhere it widens, multiplies and adds. `tile` emits it for 8-bit integer products on
    /// x86 CPUs without VNNI, and with VNNI for those `vpdpbusd` cannot take, the bytes
    /// widened to `i16` (exactly: no sum of two products of bytes overflows 32 bits), each
    /// row's two elements of `A` a pair.
    pub struct Dot2Op = "loop.dot2";
    traits = Traits::PURE;
    operands = [acc, a, b];
    results = [result];
    verify = verify::verify_dot2;
    parse = syntax::parse_dot;
    print = syntax::print_dot;
}

dlc_ir::define_op! {
    /// Its scalar operand in every lane of its `vector<NxT>` result: how `vectorize` and `tile`
    /// splat a value the same in every lane. Code generation emits one broadcast (an
    /// `insertelement` and a splat `shufflevector`), where `N` stores to a local buffer and a
    /// vector load back took `2N + 1` LLVM instructions (a quarter of ppocr_det's IR).
    pub struct BroadcastOp = "loop.broadcast";
    traits = Traits::PURE;
    operands = [value];
    results = [result];
    format = "$value attr-dict `:` type($value) `to` type($result)";
    verify = verify::verify_broadcast;
}

dlc_ir::define_op! {
    /// Hints that the element of a global buffer at the indices will be read soon: code
    /// generation may fetch its cache line ahead (x86 `prefetcht1`). The indices must be in
    /// bounds, as a load's; nothing is read, and the code is correct without it.
    pub struct PrefetchOp = "loop.prefetch";
    traits = Traits::empty();
    operands = *;
    results = [];
    interfaces = [dyn MemoryAccess => PREFETCH, dyn MemoryEffects => PREFETCH];
    verify = verify::verify_prefetch;
    parse = syntax::parse_prefetch;
    print = syntax::print_load;
}

dlc_ir::define_op! {
    /// Runs the then region if the condition holds, else the (optional) else region.
    pub struct IfOp = "loop.if";
    traits = Traits::SINGLE_BLOCK;
    operands = [condition];
    results = [];
    regions = 2;
    interfaces = [dyn MemoryEffects => NoEffects];
    verify = verify::verify_if;
    parse = syntax::parse_if;
    print = syntax::print_if;
}

dlc_ir::define_op! {
    /// Ends the body of a loop.for, loop.schedule_block or loop.if.
    pub struct YieldOp = "loop.yield";
    traits = Traits::TERMINATOR.union(Traits::RETURN_LIKE).union(Traits::PURE);
    operands = [];
    results = [];
    parents = &["loop.for", "loop.schedule_block", "loop.if"];
    format = "attr-dict";
}

dlc_ir::define_op! {
    /// Waits until every thread of the GPU block reaches it (`__syncthreads`).
    pub struct BarrierOp = "loop.barrier";
    traits = Traits::empty();
    operands = [];
    results = [];
    interfaces = [dyn MemoryEffects => Synchronizes];
    format = "attr-dict";
    verify = verify::verify_barrier;
}

dlc_ir::define_op! {
    /// The thread index within the block along one axis.
    pub struct ThreadIdOp = "loop.thread_id";
    traits = Traits::PURE;
    operands = [];
    results = [result];
    attributes = [dim];
    verify = verify::verify_gpu_index;
    parse = syntax::parse_gpu_index;
    print = syntax::print_gpu_index;
}

dlc_ir::define_op! {
    /// The block index within the grid along one axis.
    pub struct BlockIdOp = "loop.block_id";
    traits = Traits::PURE;
    operands = [];
    results = [result];
    attributes = [dim];
    verify = verify::verify_gpu_index;
    parse = syntax::parse_gpu_index;
    print = syntax::print_gpu_index;
}

dlc_ir::define_op! {
    /// The number of threads per block along one axis.
    pub struct BlockDimOp = "loop.block_dim";
    traits = Traits::PURE;
    operands = [];
    results = [result];
    attributes = [dim];
    verify = verify::verify_gpu_index;
    parse = syntax::parse_gpu_index;
    print = syntax::print_gpu_index;
}

dlc_ir::define_op! {
    /// Combines a value over the 32 threads of a warp; every thread gets the result.
    pub struct WarpReduceOp = "loop.warp_reduce";
    traits = Traits::SAME_OPERANDS_AND_RESULT_TYPE;
    operands = [value];
    results = [result];
    attributes = [kind: String];
    interfaces = [dyn MemoryEffects => NoEffects];
    format = "$value attr-dict `:` type($result)";
    verify = verify::verify_reduce;
}

dlc_ir::define_op! {
    /// Combines a value over all threads of a block; every thread gets the result.
    pub struct BlockReduceOp = "loop.block_reduce";
    traits = Traits::SAME_OPERANDS_AND_RESULT_TYPE;
    operands = [value];
    results = [result];
    attributes = [kind: String];
    interfaces = [dyn MemoryEffects => NoEffects];
    format = "$value attr-dict `:` type($result)";
    verify = verify::verify_reduce;
}

dlc_ir::define_op! {
    /// The size of one dimension (attribute `axis`) of a buffer, as an `index`.
    pub struct DimOp = "loop.dim";
    traits = Traits::PURE;
    operands = [buffer];
    results = [result];
    attributes = [axis: i64];
    fixed_types = [result: Type::INDEX];
    format = "$buffer `,` $axis attr-dict `:` type($buffer)";
    verify = verify::verify_dim;
}

dlc_ir::define_op! {
    /// The one element of a one-element integer buffer, as an `index`: a size a kernel computed
    /// (how many elements it found, say), read on the host to size what it allocates next. A
    /// read of the buffer, so never moved across the launch that writes it.
    pub struct ReadSizeOp = "loop.read_size";
    traits = Traits::empty();
    operands = [buffer];
    results = [result];
    interfaces = [dyn MemoryEffects => ReadsOperand];
    fixed_types = [result: Type::INDEX];
    format = "$buffer attr-dict `:` type($buffer)";
    verify = verify::verify_read_size;
}

dlc_ir::define_op! {
    /// Stops the run with an error at its location, saying `message`, when its `i1` operand is
    /// false: a fact the kernels after it rely on (two sizes a broadcast made one) checked on
    /// the host before they run. Not a read or write of memory, but never moved or removed.
    pub struct CheckOp = "loop.check";
    traits = Traits::empty();
    operands = [condition];
    results = [];
    attributes = [message: String];
    fixed_types = [condition: Type::I1];
    format = "$condition `,` $message attr-dict";
    verify = verify::verify_check;
}

dlc_ir::define_op! {
    /// Runs a `loop.kernel` from a host function on buffers and scalars.
    pub struct LaunchOp = "loop.launch";
    traits = Traits::empty();
    operands = *;
    results = [];
    attributes = [callee];
    verify = verify::verify_launch;
    verify_symbols = verify::verify_launch_symbols;
    parse = syntax::parse_launch;
    print = syntax::print_launch;
}

dlc_ir::define_op! {
    /// A global buffer holding a dense constant, in a host function.
    pub struct ConstantOp = "loop.constant";
    traits = Traits::PURE;
    operands = [];
    results = [result];
    attributes = [value];
    verify = verify::verify_constant;
    parse = syntax::parse_constant;
    print = syntax::print_constant;
}

dlc_ir::define_op! {
    /// A typed global buffer over bytes of a 1-D `i8` arena, in a host function.
    pub struct ViewOp = "loop.view";
    traits = Traits::PURE;
    operands = *;
    results = [result];
    verify = verify::verify_view;
    parse = syntax::parse_view;
    print = syntax::print_view;
}

dlc_ir::define_op! {
    /// A global buffer holding another one's elements in a new shape, in a host function: it
    /// shares the source's memory (a `graph.reshape` between kernels, at no cost).
    pub struct ReshapeOp = "loop.reshape";
    traits = Traits::PURE;
    operands = *;
    results = [result];
    verify = verify::verify_reshape;
    parse = syntax::parse_reshape;
    print = syntax::print_reshape;
}

dlc_ir::define_op! {
    /// Calls one of two host functions, chosen at run time by the one `i1` element of a global
    /// buffer (`cond`, then the arguments): `then_callee` when it is nonzero, else
    /// `else_callee`; the results are the callee's. The outlined branches of a graph `If`.
    pub struct CallIfOp = "loop.call_if";
    traits = Traits::empty();
    operands = *;
    results = *;
    attributes = [then_callee_attr = "then_callee", else_callee_attr = "else_callee"];
    verify = verify::verify_call_if;
    verify_symbols = verify::verify_call_if_symbols;
    parse = syntax::parse_call_if;
    print = syntax::print_call_if;
}

dlc_ir::define_op! {
    /// Calls a host function as the body of an ONNX `Loop` (operands: the trip count, the
    /// condition, `num_carried` loop-carried values, then captures): the body runs while the
    /// iteration number is below the trip count and the condition holds, and returns the next
    /// condition, the next carried values and one scan element per extra result. The op's
    /// results are the final carried values, then each scan output stacked on a new leading axis.
    pub struct CallLoopOp = "loop.call_loop";
    traits = Traits::empty();
    operands = *;
    results = *;
    attributes = [callee_attr = "callee", num_carried_attr = "num_carried"];
    verify = verify::verify_call_loop;
    verify_symbols = verify::verify_call_loop_symbols;
    parse = syntax::parse_call_loop;
    print = syntax::print_call_loop;
}

dlc_ir::op_set! {
    /// Every op of the loop dialect: `LoopOps::of(ctx, op)` to dispatch on the kind of a
    /// loop op without comparing names, `LoopOps::defs()` for the dialect.
    pub enum LoopOps {
        KernelOp,
        CompiledKernelOp,
        ReturnOp,
        AllocOp,
        ForOp,
        ScheduleBlockOp,
        LoadOp,
        StoreOp,
        VLoadOp,
        VStoreOp,
        LoadPaddedOp,
        VLoadPaddedOp,
        Dot4Op,
        Dot2Op,
        BroadcastOp,
        PrefetchOp,
        IfOp,
        YieldOp,
        BarrierOp,
        ThreadIdOp,
        BlockIdOp,
        BlockDimOp,
        WarpReduceOp,
        BlockReduceOp,
        DimOp,
        ReadSizeOp,
        CheckOp,
        LaunchOp,
        ConstantOp,
        ViewOp,
        ReshapeOp,
        CallIfOp,
        CallLoopOp,
    }
}

// ---------------------------------------------------------------------------------------------
// Attribute enums.

/// A GPU axis: x, y or z.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Dim {
    X,
    Y,
    Z,
}

impl Dim {
    /// `"x"`, `"y"` or `"z"`.
    pub fn keyword(self) -> &'static str {
        match self {
            Dim::X => "x",
            Dim::Y => "y",
            Dim::Z => "z",
        }
    }

    /// The axis a keyword names.
    pub fn from_keyword(s: &str) -> Option<Self> {
        match s {
            "x" => Some(Dim::X),
            "y" => Some(Dim::Y),
            "z" => Some(Dim::Z),
            _ => None,
        }
    }

    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// How a `loop.for` runs, from its `kind` attribute (plus `width` / `factor`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LoopKind {
    Serial,
    Parallel,
    /// Vectorized by `width` lanes.
    Vectorize(i64),
    /// Unrolled by `factor`.
    Unroll(i64),
    /// Bound to the GPU block index along an axis.
    Block(Dim),
    /// Bound to the GPU thread index along an axis.
    Thread(Dim),
}

impl LoopKind {
    /// The `kind` attribute string (`"vectorize"`, `"thread.x"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            LoopKind::Serial => "serial",
            LoopKind::Parallel => "parallel",
            LoopKind::Vectorize(_) => "vectorize",
            LoopKind::Unroll(_) => "unroll",
            LoopKind::Block(Dim::X) => "block.x",
            LoopKind::Block(Dim::Y) => "block.y",
            LoopKind::Block(Dim::Z) => "block.z",
            LoopKind::Thread(Dim::X) => "thread.x",
            LoopKind::Thread(Dim::Y) => "thread.y",
            LoopKind::Thread(Dim::Z) => "thread.z",
        }
    }

    /// The kind named `name`, with `param` as width or factor (ignored for other kinds).
    pub fn from_name(name: &str, param: i64) -> Option<Self> {
        Some(match name {
            "serial" => LoopKind::Serial,
            "parallel" => LoopKind::Parallel,
            "vectorize" => LoopKind::Vectorize(param),
            "unroll" => LoopKind::Unroll(param),
            _ => {
                let (unit, axis) = name.split_once('.')?;
                let axis = Dim::from_keyword(axis)?;
                match unit {
                    "block" => LoopKind::Block(axis),
                    "thread" => LoopKind::Thread(axis),
                    _ => return None,
                }
            }
        })
    }

    /// True for block.* and thread.* loops.
    pub fn is_gpu(self) -> bool {
        matches!(self, LoopKind::Block(_) | LoopKind::Thread(_))
    }
}

/// The role of a schedule-block iter var.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum IterKind {
    Spatial,
    Reduce,
}

impl IterKind {
    /// `"spatial"` or `"reduce"`.
    pub fn name(self) -> &'static str {
        match self {
            IterKind::Spatial => "spatial",
            IterKind::Reduce => "reduce",
        }
    }

    /// The kind named `s`.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "spatial" => Some(IterKind::Spatial),
            "reduce" => Some(IterKind::Reduce),
            _ => None,
        }
    }
}

/// How a schedule block's reduction is carried out on a GPU (CINN's reduce_method).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ReduceMethod {
    None,
    Warp,
    Block,
    Discrete,
}

impl ReduceMethod {
    /// The attribute string.
    pub fn name(self) -> &'static str {
        match self {
            ReduceMethod::None => "none",
            ReduceMethod::Warp => "warp",
            ReduceMethod::Block => "block",
            ReduceMethod::Discrete => "discrete",
        }
    }

    /// The method named `s`.
    pub fn from_name(s: &str) -> Option<Self> {
        match s {
            "none" => Some(ReduceMethod::None),
            "warp" => Some(ReduceMethod::Warp),
            "block" => Some(ReduceMethod::Block),
            "discrete" => Some(ReduceMethod::Discrete),
            _ => None,
        }
    }
}

/// The scalar classes a reduction identity is defined on ([`ReduceKind::identity_of`]).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ReduceScalar {
    /// Any float type.
    Float,
    /// A signless integer of this width.
    Int(u32),
}

/// The combining function of loop.warp_reduce / loop.block_reduce.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ReduceKind {
    Add,
    Mul,
    Max,
    Min,
    And,
    Or,
}

impl ReduceKind {
    /// The attribute string.
    pub fn name(self) -> &'static str {
        match self {
            ReduceKind::Add => "add",
            ReduceKind::Mul => "mul",
            ReduceKind::Max => "max",
            ReduceKind::Min => "min",
            ReduceKind::And => "and",
            ReduceKind::Or => "or",
        }
    }

    /// The kind named `s`.
    pub fn from_name(s: &str) -> Option<Self> {
        Some(match s {
            "add" => ReduceKind::Add,
            "mul" => ReduceKind::Mul,
            "max" => ReduceKind::Max,
            "min" => ReduceKind::Min,
            "and" => ReduceKind::And,
            "or" => ReduceKind::Or,
            _ => return None,
        })
    }

    /// The `arith` op that combines two integers under this reduction (`arith.addi`,
    /// `arith.maxsi`: integer max and min are signed): the inverse of
    /// [`ReduceKind::of_combiner`], for code that builds or names the combining op.
    pub fn int_combiner(self) -> &'static str {
        match self {
            ReduceKind::Add => "arith.addi",
            ReduceKind::Mul => "arith.muli",
            ReduceKind::Max => "arith.maxsi",
            ReduceKind::Min => "arith.minsi",
            ReduceKind::And => "arith.andi",
            ReduceKind::Or => "arith.ori",
        }
    }

    /// The `arith` op that combines two floats under this reduction (`arith.addf`,
    /// `arith.maximumf`: NaN-propagating max and min); `None` for `and` and `or`.
    pub fn float_combiner(self) -> Option<&'static str> {
        Some(match self {
            ReduceKind::Add => "arith.addf",
            ReduceKind::Mul => "arith.mulf",
            ReduceKind::Max => "arith.maximumf",
            ReduceKind::Min => "arith.minimumf",
            ReduceKind::And | ReduceKind::Or => return None,
        })
    }

    /// The reduction a combining `arith` op performs (`arith.addf` adds, `arith.maximumf` takes
    /// the maximum, ...): the ops a reduction's body may combine its accumulator with.
    pub fn of_combiner(ctx: &Context, op: Op) -> Option<Self> {
        use dlc_arith::ArithOps as A;
        Some(match A::of(ctx, op)? {
            A::AddFOp(_) | A::AddIOp(_) => ReduceKind::Add,
            A::MulFOp(_) | A::MulIOp(_) => ReduceKind::Mul,
            A::MaximumFOp(_) | A::MaxSIOp(_) => ReduceKind::Max,
            A::MinimumFOp(_) | A::MinSIOp(_) => ReduceKind::Min,
            A::AndIOp(_) => ReduceKind::And,
            A::OrIOp(_) => ReduceKind::Or,
            _ => return None,
        })
    }

    /// The identity of this reduction on the scalar type `ty` (signed for integer max/min):
    /// `0`, `1`, `∓∞` for floats, all ones for `and`; `None` for a type without one.
    pub fn identity(self, ctx: &Context, ty: Type) -> Option<DenseValue> {
        let scalar = match ctx.type_kind(ty) {
            TypeKind::Float(_) => ReduceScalar::Float,
            TypeKind::Integer { width } => ReduceScalar::Int(*width),
            TypeKind::Index => ReduceScalar::Int(64),
            _ => return None,
        };
        self.identity_of(scalar)
    }

    /// [`ReduceKind::identity`] for a scalar class, the one definition the code generators
    /// share: `0` for `add` and `or`, `1` for `mul`, all ones for `and`, `-∞`/`+∞` or the
    /// signed minimum/maximum for `max`/`min`; floats have none for `and` and `or`. `i1` has
    /// none: its signed `max` and `min` (true is -1) reverse the boolean order, so no pass
    /// builds an `i1` reduction that needs one (a boolean reduction is lowered on `i8`).
    pub fn identity_of(self, scalar: ReduceScalar) -> Option<DenseValue> {
        let width = match scalar {
            ReduceScalar::Float => {
                return Some(DenseValue::Float(match self {
                    ReduceKind::Add => 0.0,
                    ReduceKind::Mul => 1.0,
                    ReduceKind::Max => f64::NEG_INFINITY,
                    ReduceKind::Min => f64::INFINITY,
                    ReduceKind::And | ReduceKind::Or => return None,
                }))
            }
            ReduceScalar::Int(width) if (2..=64).contains(&width) => width,
            ReduceScalar::Int(_) => return None,
        };
        let min = -(1i128 << (width - 1));
        Some(DenseValue::Int(match self {
            ReduceKind::Add | ReduceKind::Or => 0,
            ReduceKind::Mul => 1,
            ReduceKind::And => -1,
            ReduceKind::Max => min,
            ReduceKind::Min => -min - 1,
        }))
    }

    /// Two integer elements (sign-extended) combined, before wrapping to their width; signed
    /// `max` and `min`, as `loop.warp_reduce` and `loop.block_reduce` define them.
    pub fn combine_int(self, a: i64, b: i64) -> i64 {
        match self {
            ReduceKind::Add => a.wrapping_add(b),
            ReduceKind::Mul => a.wrapping_mul(b),
            ReduceKind::Max => a.max(b),
            ReduceKind::Min => a.min(b),
            ReduceKind::And => a & b,
            ReduceKind::Or => a | b,
        }
    }

    /// Two float elements combined (`max` and `min` propagate NaN and order -0 below +0, as
    /// `arith.maximumf` does); `None` for `and` and `or`, which floats do not have.
    pub fn combine_float(self, a: f64, b: f64) -> Option<f64> {
        Some(match self {
            ReduceKind::Add => a + b,
            ReduceKind::Mul => a * b,
            ReduceKind::Max => dlc_arith::fold::ieee_maximum(a, b),
            ReduceKind::Min => dlc_arith::fold::ieee_minimum(a, b),
            ReduceKind::And | ReduceKind::Or => return None,
        })
    }

    /// Whether the scalar attribute `value` of type `ty` is this reduction's identity.
    pub fn is_identity_attr(self, ctx: &Context, value: Attribute, ty: Type) -> bool {
        match self.identity(ctx, ty) {
            Some(DenseValue::Float(x)) => ctx.attr_as_float(value) == Some(x),
            Some(DenseValue::Int(x)) => ctx.attr_as_int(value) == Some(x),
            None => false,
        }
    }

    /// [`ReduceKind::identity`] as a scalar attribute of type `ty`.
    pub fn identity_attr(self, ctx: &mut Context, ty: Type) -> Option<Attribute> {
        Some(match self.identity(ctx, ty)? {
            DenseValue::Float(x) => ctx.float_attr(x, ty),
            DenseValue::Int(x) => ctx.integer_attr(x, ty),
        })
    }
}

/// A launch dimension of a kernel's `grid` / `block` attribute.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LaunchDim {
    /// A constant size.
    Const(i64),
    /// The value of the kernel argument with this position (written `"argN"`).
    Arg(usize),
}

// ---------------------------------------------------------------------------------------------
// Typed accessors.

fn str_attr(ctx: &Context, a: Option<Attribute>) -> Option<&str> {
    ctx.attr_as_str(a?)
}

/// The attribute dictionary of argument `i` of kernel `op` (an entry of its `arg_attrs`).
pub(crate) fn arg_attr_dict(ctx: &Context, op: Op, i: usize) -> Option<&[dlc_ir::NamedAttr]> {
    let AttrKind::Array(dicts) = ctx.attr_kind(ctx.attr(op, "arg_attrs")?) else {
        return None;
    };
    match ctx.attr_kind(*dicts.get(i)?) {
        AttrKind::Dict(entries) => Some(entries),
        _ => None,
    }
}

/// The single block of region `i` of `op`, if it has one.
fn region_block(ctx: &Context, op: Op, i: usize) -> Option<Block> {
    ctx.regions(op)
        .get(i)
        .and_then(|r| ctx.blocks(*r).first().copied())
}

impl KernelOp {
    /// The entry block, whose arguments are the kernel arguments.
    pub fn body(self, ctx: &Context) -> Option<Block> {
        region_block(ctx, self.0, 0)
    }

    /// The argument types from `function_type`.
    pub fn argument_types(self, ctx: &Context) -> Option<Vec<Type>> {
        Some(kernel_signature(ctx, self.0)?.0.to_vec())
    }

    /// The kernel's name.
    pub fn name(self, ctx: &Context) -> &str {
        dlc_ir::symbol::symbol_name(ctx, self.0).unwrap_or("")
    }

    /// The attribute dictionary of argument `i` (an entry of `arg_attrs`), if it has one.
    pub fn arg_attr_dict(self, ctx: &Context, i: usize) -> Option<&[dlc_ir::NamedAttr]> {
        arg_attr_dict(ctx, self.0, i)
    }

    /// For each argument, whether the kernel may write memory through it: an op in it with a
    /// write effect on that argument, or with effects it does not declare. One walk of the body.
    pub fn written_args(self, ctx: &Context) -> Vec<bool> {
        let Some(args) = self.body(ctx).map(|b| ctx.block_args(b)) else {
            return Vec::new();
        };
        let mut written = vec![false; args.len()];
        ctx.for_each_op(self.0, &mut |op| match ctx.memory_effects(op) {
            None if op != self.0 => written.fill(true),
            None => {}
            Some(effects) => {
                for e in effects
                    .iter()
                    .filter(|e| e.kind == dlc_ir::EffectKind::Write)
                {
                    match e.on.map(|b| args.iter().position(|&a| a == b)) {
                        None => written.fill(true),
                        Some(Some(i)) => written[i] = true,
                        Some(None) => {}
                    }
                }
            }
        });
        written
    }

    /// Whether passing overlapping memory for arguments `i` and `j` breaks a [`NOALIAS`]
    /// promise: one of them carries it and the kernel may write through one of them (as with
    /// LLVM's `noalias`, memory that is only read may be shared). Returns the marked argument.
    pub fn noalias_conflict(self, ctx: &Context, i: usize, j: usize) -> Option<usize> {
        crate::KernelSymbol::Body(self).noalias_conflict(ctx, i, j)
    }

    /// Whether argument `i` carries [`NOALIAS`].
    pub fn is_noalias(self, ctx: &Context, i: usize) -> bool {
        crate::KernelSymbol::Body(self).is_noalias(ctx, i)
    }

    /// The attribute dictionaries of the first `n` arguments, empty where there is none.
    fn arg_attr_dicts(self, ctx: &Context, n: usize) -> Vec<Vec<dlc_ir::NamedAttr>> {
        (0..n)
            .map(|j| {
                self.arg_attr_dict(ctx, j)
                    .map(<[_]>::to_vec)
                    .unwrap_or_default()
            })
            .collect()
    }

    /// Puts [`NOALIAS`] on argument `i` (`on`) or removes it, keeping the argument's other
    /// attributes; `arg_attrs` keeps one dictionary per argument, and goes when all are empty.
    pub fn set_noalias(self, ctx: &mut Context, i: usize, on: bool) {
        let n = self.body(ctx).map_or(0, |b| ctx.block_args(b).len());
        let mut dicts = self.arg_attr_dicts(ctx, n);
        let Some(dict) = dicts.get_mut(i) else {
            return;
        };
        dict.retain(|a| ctx.ident_str(a.name) != NOALIAS);
        if on {
            let name = ctx.ident(NOALIAS);
            let value = ctx.unit_attr();
            dict.push(dlc_ir::NamedAttr { name, value });
        }
        self.set_arg_attrs(ctx, &dicts);
    }

    /// Appends an argument of type `ty` (entry block argument, `function_type` and an empty
    /// `arg_attrs` entry) and returns it.
    pub fn append_arg(self, ctx: &mut Context, ty: Type) -> Option<Value> {
        let entry = self.body(ctx)?;
        let n = ctx.block_args(entry).len();
        let mut dicts = self.arg_attr_dicts(ctx, n);
        let arg = ctx.add_block_arg(entry, ty);
        let types: Vec<Type> = ctx
            .block_args(entry)
            .iter()
            .map(|&a| ctx.value_type(a))
            .collect();
        let fn_ty = ctx.function_type(&types, &[]);
        let attr = ctx.type_attr(fn_ty);
        ctx.set_attr(self.0, "function_type", attr);
        dicts.push(Vec::new());
        self.set_arg_attrs(ctx, &dicts);
        Some(arg)
    }

    /// Sets `arg_attrs` to one dictionary per entry of `dicts`, or removes it when all are
    /// empty (as MLIR prints no `arg_attrs` then).
    fn set_arg_attrs(self, ctx: &mut Context, dicts: &[Vec<dlc_ir::NamedAttr>]) {
        if dicts.iter().all(Vec::is_empty) {
            ctx.remove_attr(self.0, "arg_attrs");
            return;
        }
        let attrs: Vec<Attribute> = dicts.iter().map(|d| ctx.dict_attr(d)).collect();
        let array = ctx.array_attr(&attrs);
        ctx.set_attr(self.0, "arg_attrs", array);
    }

    /// The `grid` launch dims, if set and well formed.
    pub fn grid_dims(self, ctx: &Context) -> Option<[LaunchDim; 3]> {
        launch_dims(ctx, self.grid(ctx)?)
    }

    /// The `block` launch dims, if set and well formed.
    pub fn block_dims(self, ctx: &Context) -> Option<[LaunchDim; 3]> {
        launch_dims(ctx, self.block(ctx)?)
    }
}

/// The kernel argument attribute (unit) promising that, while the kernel runs, the memory of
/// that buffer argument overlaps no other buffer argument of the launch (docs/dialects/loop.md,
/// "Argument attributes"). `lower` sets it; the verifier and the interpreter check launches
/// against it; memory passes and codegen rely on it.
pub const NOALIAS: &str = "loop.noalias";

/// The most threads a block may have: CUDA's limit on every device (the grid simulation
/// enforces it at launch, PTX code generation for static blocks).
pub const MAX_BLOCK_THREADS: i64 = 1024;

/// Reads a `[a, b, c]` launch attribute: index integers or `"argN"` strings.
pub fn launch_dims(ctx: &Context, attr: Attribute) -> Option<[LaunchDim; 3]> {
    let AttrKind::Array(items) = ctx.attr_kind(attr) else {
        return None;
    };
    if items.len() != 3 {
        return None;
    }
    let mut out = [LaunchDim::Const(1); 3];
    for (slot, item) in out.iter_mut().zip(items.iter()) {
        *slot = match ctx.attr_kind(*item) {
            AttrKind::Integer { value, ty } if *ty == Type::INDEX => {
                LaunchDim::Const(i64::try_from(*value).ok()?)
            }
            AttrKind::String(s) => LaunchDim::Arg(s.strip_prefix("arg")?.parse().ok()?),
            _ => return None,
        };
    }
    Some(out)
}

impl ForOp {
    /// The loop body.
    pub fn body(self, ctx: &Context) -> Option<Block> {
        region_block(ctx, self.0, 0)
    }

    /// The induction variable (the body's block argument).
    pub fn induction_var(self, ctx: &Context) -> Option<Value> {
        self.body(ctx)
            .and_then(|b| ctx.block_args(b).first().copied())
    }

    /// The loop kind with its width or factor.
    pub fn loop_kind(self, ctx: &Context) -> Option<LoopKind> {
        let name = str_attr(ctx, self.kind(ctx))?;
        let param = self
            .width(ctx)
            .or(self.factor(ctx))
            .and_then(|a| ctx.attr_as_int(a))
            .unwrap_or(0) as i64;
        LoopKind::from_name(name, param)
    }
}

impl ScheduleBlockOp {
    /// The body block; its arguments are the iter vars.
    pub fn body(self, ctx: &Context) -> Option<Block> {
        region_block(ctx, self.0, 0)
    }

    /// The init block of a reduction, if present.
    pub fn init_block(self, ctx: &Context) -> Option<Block> {
        region_block(ctx, self.0, 1)
    }

    /// The label (`name` attribute).
    pub fn label(self, ctx: &Context) -> &str {
        str_attr(ctx, self.name(ctx)).unwrap_or("")
    }

    /// The iter values bound to the iter vars.
    pub fn iter_values(self, ctx: &Context) -> &[Value] {
        ctx.operands(self.0)
    }

    /// The kind of each iter var (invalid entries are skipped).
    pub fn iter_kind_list(self, ctx: &Context) -> Vec<IterKind> {
        let Some(AttrKind::Array(items)) = self.iter_kinds(ctx).map(|a| ctx.attr_kind(a)) else {
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|a| ctx.attr_as_str(*a).and_then(IterKind::from_name))
            .collect()
    }

    /// The reduce method (`none` when absent).
    pub fn method(self, ctx: &Context) -> ReduceMethod {
        str_attr(ctx, self.reduce_method(ctx))
            .and_then(ReduceMethod::from_name)
            .unwrap_or(ReduceMethod::None)
    }
}

macro_rules! buffer_access {
    ($ty:ident, $buf:expr) => {
        impl $ty {
            /// The buffer accessed.
            pub fn buffer(self, ctx: &Context) -> Value {
                ctx.operand(self.0, $buf)
            }

            /// The indices, one per buffer dim.
            pub fn indices(self, ctx: &Context) -> &[Value] {
                &ctx.operands(self.0)[$buf + 1..]
            }
        }
    };
}
buffer_access!(LoadOp, 0);
buffer_access!(VLoadOp, 0);
buffer_access!(StoreOp, 1);
buffer_access!(VStoreOp, 1);
buffer_access!(PrefetchOp, 0);

impl StoreOp {
    /// The value stored.
    pub fn value(self, ctx: &Context) -> Value {
        ctx.operand(self.0, 0)
    }
}

impl VStoreOp {
    /// The vector stored.
    pub fn value(self, ctx: &Context) -> Value {
        ctx.operand(self.0, 0)
    }

    /// True when the store carries `nontemporal`: its data is not read again soon, so code
    /// generation may write it around the caches (x86 `movnt`), which saves reading each line
    /// before writing it. A hint: the code stays correct without it, and only aligned stores
    /// stream (LLVM splits a store it cannot prove aligned into element-sized streaming stores).
    pub fn is_nontemporal(self, ctx: &Context) -> bool {
        self.nontemporal(ctx).is_some()
    }
}

impl IfOp {
    /// The then block.
    pub fn then_block(self, ctx: &Context) -> Option<Block> {
        region_block(ctx, self.0, 0)
    }

    /// The else block, if present.
    pub fn else_block(self, ctx: &Context) -> Option<Block> {
        region_block(ctx, self.0, 1)
    }
}

impl DimOp {
    /// The dimension queried, if the `axis` attribute is a non-negative integer.
    pub fn axis_index(self, ctx: &Context) -> Option<usize> {
        self.axis(ctx).and_then(|v| usize::try_from(v).ok())
    }
}

impl LaunchOp {
    /// The name of the launched kernel.
    pub fn callee_name(self, ctx: &Context) -> Option<&str> {
        let id = ctx.attr_as_symbol(self.callee(ctx)?)?;
        Some(ctx.ident_str(id))
    }

    /// The kernel arguments, in order.
    pub fn args(self, ctx: &Context) -> &[Value] {
        ctx.operands(self.0)
    }
}

impl ViewOp {
    /// The `i8` arena the view reads.
    pub fn arena(self, ctx: &Context) -> Value {
        ctx.operand(self.0, 0)
    }

    /// The byte offset of the view in the arena.
    pub fn offset(self, ctx: &Context) -> Value {
        ctx.operand(self.0, 1)
    }

    /// One size per `?` dim of the result, in order.
    pub fn dynamic_sizes(self, ctx: &Context) -> &[Value] {
        ctx.operands(self.0).get(2..).unwrap_or(&[])
    }
}

impl ReshapeOp {
    /// The buffer whose elements the result holds.
    pub fn source(self, ctx: &Context) -> Value {
        ctx.operand(self.0, 0)
    }

    /// One size per `?` dim of the result, in order.
    pub fn dynamic_sizes(self, ctx: &Context) -> &[Value] {
        ctx.operands(self.0).get(1..).unwrap_or(&[])
    }
}

/// The name a symbol reference attribute holds.
fn symbol_str(ctx: &Context, a: Option<Attribute>) -> Option<&str> {
    Some(ctx.ident_str(ctx.attr_as_symbol(a?)?))
}

impl CallIfOp {
    /// The condition: a global `i1` buffer of one element (the first operand, which a
    /// verified op has).
    pub fn cond(self, ctx: &Context) -> Value {
        ctx.operand(self.0, 0)
    }

    /// The arguments passed to the callee, in order.
    pub fn args(self, ctx: &Context) -> &[Value] {
        ctx.operands(self.0).get(1..).unwrap_or(&[])
    }

    /// The host function called when the condition holds.
    pub fn then_callee(self, ctx: &Context) -> Option<&str> {
        symbol_str(ctx, self.then_callee_attr(ctx))
    }

    /// The host function called when it does not.
    pub fn else_callee(self, ctx: &Context) -> Option<&str> {
        symbol_str(ctx, self.else_callee_attr(ctx))
    }
}

impl CallLoopOp {
    /// The trip count: a global `i64` buffer of one element (operand 0, which a verified op
    /// has).
    pub fn max_trip(self, ctx: &Context) -> Value {
        ctx.operand(self.0, 0)
    }

    /// The initial condition: a global `i1` buffer of one element (operand 1).
    pub fn cond(self, ctx: &Context) -> Value {
        ctx.operand(self.0, 1)
    }

    /// How many loop-carried values the op has: its `num_carried` attribute, if that is an
    /// integer from 0 to the number of operands after the trip count and condition.
    pub fn num_carried(self, ctx: &Context) -> Option<usize> {
        let n = usize::try_from(ctx.attr_as_int(self.num_carried_attr(ctx)?)?).ok()?;
        (n <= ctx.operands(self.0).len().checked_sub(2)?).then_some(n)
    }

    /// The initial values of the loop-carried values (empty when [`CallLoopOp::num_carried`]
    /// is `None`, which the verifier rejects).
    pub fn carried(self, ctx: &Context) -> &[Value] {
        let n = self.num_carried(ctx).unwrap_or(0);
        ctx.operands(self.0).get(2..2 + n).unwrap_or(&[])
    }

    /// The values every iteration of the body reads unchanged, after the carried ones.
    pub fn captures(self, ctx: &Context) -> &[Value] {
        let n = self.num_carried(ctx).unwrap_or(0);
        ctx.operands(self.0).get(2 + n..).unwrap_or(&[])
    }

    /// The host function run as the loop body.
    pub fn callee(self, ctx: &Context) -> Option<&str> {
        symbol_str(ctx, self.callee_attr(ctx))
    }
}

/// The `loop.kernel` attribute that lists the kernel's index preconditions, as
/// `array<i64: i, d, a, ...>`: triples saying that argument `i`, an integer buffer, holds
/// indices into axis `a` of buffer argument `d`, each in `[-n, n)` for that axis' size `n`
/// (negative ones count from the end, as numpy and ONNX do). The kernel loads at those indices
/// without a check of its own; whoever launches it checks them first (`dlc-runtime` does, and
/// fails the run with an error naming the index). `lower` sets it on `graph.gather` kernels.
pub const INDEX_CHECKS: &str = "index_checks";

/// The host-function attribute that says which `?` dims of the arguments must be equal, as
/// `[array<i64: ...>, ...]`: one array per argument holding the symbol of each of its `?` dims
/// in order (an empty array for an argument without one), dims with the same symbol being
/// equal. Symbols are numbered from 0 in order of first appearance. `lower` records it from the
/// symbolic shape analysis of the graph function, and `dlc-runtime` checks the inputs of a run
/// against it; without it every `?` dim is independent.
pub const DIM_SYMBOLS: &str = "loop.dim_symbols";

/// The host-function attribute that keeps the signedness its buffers drop: the type of the
/// graph function it was lowered from (`(tensor<4xui8>) -> tensor<4xui8>`). Loop code holds
/// integers signless (a `ui8` tensor becomes an `i8` buffer), so `lower` records the graph
/// types when an argument or result is unsigned, and the runtime and the loop interpreter take
/// the element types of the inputs they accept and the outputs they return from it.
pub const SOURCE_TYPE: &str = "loop.source_type";

/// The dtypes a host function's [`SOURCE_TYPE`] records: one per argument and one per result
/// of the graph function it was lowered from (`None` where the type is not a tensor of a host
/// dtype).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct SourceDTypes {
    pub inputs: Vec<Option<dlc_tensor::DType>>,
    pub results: Vec<Option<dlc_tensor::DType>>,
}

/// The [`SourceDTypes`] of host function `func`, `None` when it has no [`SOURCE_TYPE`], or
/// an error when the attribute is not a function type.
pub fn source_dtypes(ctx: &Context, func: Op) -> Result<Option<SourceDTypes>, String> {
    let Some(attr) = ctx.attr(func, SOURCE_TYPE) else {
        return Ok(None);
    };
    let (inputs, results) = ctx
        .attr_as_type(attr)
        .and_then(|t| ctx.function_signature(t))
        .ok_or_else(|| format!("'{SOURCE_TYPE}' must be a function type"))?;
    let dtypes = |types: &[Type]| {
        types
            .iter()
            .map(|&t| dlc_tensor::DType::from_type(ctx, ctx.element_type(t)))
            .collect()
    };
    Ok(Some(SourceDTypes {
        inputs: dtypes(inputs),
        results: dtypes(results),
    }))
}

/// One precondition of a kernel's [`INDEX_CHECKS`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct IndexCheck {
    /// The argument number of the index buffer.
    pub indices: usize,
    /// The argument number of the buffer indexed.
    pub data: usize,
    /// The axis of `data` the indices select along.
    pub axis: usize,
}

/// The [`INDEX_CHECKS`] of kernel `op`: empty without the attribute; `None` if it is not a
/// list of non-negative triples (the verifier rejects that).
pub fn index_checks(ctx: &Context, op: Op) -> Option<Vec<IndexCheck>> {
    let Some(attr) = ctx.attr(op, INDEX_CHECKS) else {
        return Some(Vec::new());
    };
    let AttrKind::DenseArray { values, .. } = ctx.attr_kind(attr) else {
        return None;
    };
    if values.len() % 3 != 0 {
        return None;
    }
    values
        .chunks(3)
        .map(|t| {
            Some(IndexCheck {
                indices: usize::try_from(t[0]).ok()?,
                data: usize::try_from(t[1]).ok()?,
                axis: usize::try_from(t[2]).ok()?,
            })
        })
        .collect()
}

/// The `loop.kernel` ops directly in `module` (a `builtin.module`), in order.
pub fn module_kernels(ctx: &Context, module: Op) -> Vec<Op> {
    module_ops(ctx, module)
        .filter(|&op| ctx.op_name(op) == "loop.kernel")
        .collect()
}

/// The host functions of `module`: its `func.func` ops that launch a kernel, in order.
pub fn host_functions(ctx: &Context, module: Op) -> Vec<Op> {
    module_ops(ctx, module)
        .filter(|&op| {
            let mut launches = false;
            ctx.for_each_op(op, &mut |o| launches |= ctx.view::<LaunchOp>(o).is_some());
            ctx.view::<dlc_func::FuncOp>(op).is_some() && launches
        })
        .collect()
}

/// The ops directly in the regions of `module`, in order.
pub(crate) fn module_ops(ctx: &Context, module: Op) -> impl Iterator<Item = Op> + '_ {
    ctx.regions(module)
        .iter()
        .flat_map(|&r| ctx.blocks(r).iter())
        .flat_map(|&b| ctx.block_ops(b))
}

/// The (inputs, results) of kernel `op`'s `function_type` (a `loop.kernel` or a
/// `loop.compiled_kernel`), when it is a function type.
pub(crate) fn kernel_signature(ctx: &Context, op: Op) -> Option<(&[Type], &[Type])> {
    ctx.function_signature(ctx.attr_as_type(ctx.attr(op, "function_type")?)?)
}

/// The axis of loop.thread_id, loop.block_id or loop.block_dim.
pub fn gpu_dim(ctx: &Context, op: Op) -> Option<Dim> {
    Dim::from_keyword(str_attr(ctx, ctx.attr(op, "dim"))?)
}

/// The combining kind of loop.warp_reduce or loop.block_reduce.
pub fn reduce_kind(ctx: &Context, op: Op) -> Option<ReduceKind> {
    ReduceKind::from_name(str_attr(ctx, ctx.attr(op, "kind"))?)
}

// ---------------------------------------------------------------------------------------------
// Builders. Ops with regions are built with their blocks and terminators in place; the
// returned blocks are filled with `InsertPoint::Before(terminator)` (see [`before_terminator`]).

/// The insertion point just before `block`'s terminator (its end if it has none).
pub fn before_terminator(ctx: &Context, block: Block) -> InsertPoint {
    match ctx.last_op(block) {
        Some(last) if ctx.has_trait(last, Traits::TERMINATOR) => InsertPoint::Before(last),
        _ => InsertPoint::End(block),
    }
}

/// A region with one block of `args` ending in `terminator`.
fn region_with_terminator(
    ctx: &mut Context,
    args: &[Type],
    terminator: &str,
    loc: Location,
) -> (dlc_ir::Region, Block) {
    let (region, block) = ctx.create_region_with_block(args);
    let spec = OpSpec::new(ctx, terminator, loc);
    ctx.build(InsertPoint::End(block), spec);
    (region, block)
}

/// Builds `loop.kernel @name(args)` with an entry block ending in `loop.return`.
pub fn build_kernel(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    args: &[Type],
    loc: Location,
) -> (KernelOp, Block) {
    let (region, block) = region_with_terminator(ctx, args, "loop.return", loc);
    let fn_ty = ctx.function_type(args, &[]);
    let sym = ctx.string_attr(name);
    let fn_attr = ctx.type_attr(fn_ty);
    let spec = OpSpec::new(ctx, "loop.kernel", loc)
        .attr(ctx, "sym_name", sym)
        .attr(ctx, "function_type", fn_attr)
        .region(region);
    (KernelOp(ctx.build(at, spec)), block)
}

/// Builds `loop.for kind %iv = lb to ub step step`; returns the op, its body and the iv.
pub fn build_for(
    ctx: &mut Context,
    at: InsertPoint,
    bounds: (Value, Value, Value),
    kind: LoopKind,
    loc: Location,
) -> (ForOp, Block, Value) {
    let (region, block) = region_with_terminator(ctx, &[Type::INDEX], "loop.yield", loc);
    let kind_attr = ctx.string_attr(kind.name());
    let mut spec = OpSpec::new(ctx, "loop.for", loc)
        .operands(&[bounds.0, bounds.1, bounds.2])
        .attr(ctx, "kind", kind_attr)
        .region(region);
    match kind {
        LoopKind::Vectorize(w) => {
            let a = ctx.integer_attr(w.into(), Type::I64);
            spec.set_attr(ctx, "width", a);
        }
        LoopKind::Unroll(f) => {
            let a = ctx.integer_attr(f.into(), Type::I64);
            spec.set_attr(ctx, "factor", a);
        }
        _ => {}
    }
    let op = ctx.build(at, spec);
    let iv = ctx.block_args(block)[0];
    (ForOp(op), block, iv)
}

/// Builds `loop.schedule_block "name" (...)`; returns the op, its body and (if `with_init`) its
/// init block. Both blocks take one index argument per iter value.
pub fn build_schedule_block(
    ctx: &mut Context,
    at: InsertPoint,
    name: &str,
    iters: &[(Value, IterKind)],
    with_init: bool,
    loc: Location,
) -> (ScheduleBlockOp, Block, Option<Block>) {
    let args = vec![Type::INDEX; iters.len()];
    let (body_region, body) = region_with_terminator(ctx, &args, "loop.yield", loc);
    let (init_region, init) = if with_init {
        let (r, b) = region_with_terminator(ctx, &args, "loop.yield", loc);
        (r, Some(b))
    } else {
        (ctx.create_region(), None)
    };
    let name_attr = ctx.string_attr(name);
    let kinds: Vec<Attribute> = iters
        .iter()
        .map(|(_, k)| ctx.string_attr(k.name()))
        .collect();
    let kinds = ctx.array_attr(&kinds);
    let values: Vec<Value> = iters.iter().map(|(v, _)| *v).collect();
    let spec = OpSpec::new(ctx, "loop.schedule_block", loc)
        .operands(&values)
        .attr(ctx, "name", name_attr)
        .attr(ctx, "iter_kinds", kinds)
        .region(body_region)
        .region(init_region);
    (ScheduleBlockOp(ctx.build(at, spec)), body, init)
}

/// Builds `loop.if cond`; returns the op, the then block and (if `with_else`) the else block.
pub fn build_if(
    ctx: &mut Context,
    at: InsertPoint,
    cond: Value,
    with_else: bool,
    loc: Location,
) -> (IfOp, Block, Option<Block>) {
    let (then_region, then_block) = region_with_terminator(ctx, &[], "loop.yield", loc);
    let (else_region, else_block) = if with_else {
        let (r, b) = region_with_terminator(ctx, &[], "loop.yield", loc);
        (r, Some(b))
    } else {
        (ctx.create_region(), None)
    };
    let spec = OpSpec::new(ctx, "loop.if", loc)
        .operands(&[cond])
        .region(then_region)
        .region(else_region);
    (IfOp(ctx.build(at, spec)), then_block, else_block)
}

/// Builds `loop.alloc` of buffer type `ty`, with one size per `?` dim.
pub fn build_alloc(
    ctx: &mut Context,
    at: InsertPoint,
    ty: Type,
    dynamic_sizes: &[Value],
    loc: Location,
) -> Value {
    let spec = OpSpec::new(ctx, "loop.alloc", loc)
        .operands(dynamic_sizes)
        .results(&[ty]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// Builds `loop.load buf[indices]`; the result has the buffer's element type.
pub fn build_load(
    ctx: &mut Context,
    at: InsertPoint,
    buffer: Value,
    indices: &[Value],
    loc: Location,
) -> Value {
    build_read(ctx, at, (buffer, indices), None, loc)
}

/// `loop.load`, or `loop.load_padded` with `padding`, of `buffer` at `indices`; its result.
fn build_read(
    ctx: &mut Context,
    at: InsertPoint,
    (buffer, indices): (Value, &[Value]),
    padding: Option<Value>,
    loc: Location,
) -> Value {
    let elem = buffer_parts(ctx, ctx.value_type(buffer))
        .map(|(_, e, _)| e)
        .unwrap_or(Type::NONE);
    let name = if padding.is_some() {
        "loop.load_padded"
    } else {
        "loop.load"
    };
    let spec = OpSpec::new(ctx, name, loc)
        .operands(&[buffer])
        .operands(indices)
        .operands(padding.as_slice())
        .results(&[elem]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// Builds `loop.load_padded buf[indices], padding`: the element, or `padding` where the
/// indices fall outside the buffer.
pub fn build_load_padded(
    ctx: &mut Context,
    at: InsertPoint,
    buffer: Value,
    indices: &[Value],
    padding: Value,
    loc: Location,
) -> Value {
    build_read(ctx, at, (buffer, indices), Some(padding), loc)
}

/// Builds `loop.store value, buf[indices]`.
pub fn build_store(
    ctx: &mut Context,
    at: InsertPoint,
    value: Value,
    buffer: Value,
    indices: &[Value],
    loc: Location,
) -> StoreOp {
    let spec = OpSpec::new(ctx, "loop.store", loc)
        .operands(&[value, buffer])
        .operands(indices);
    StoreOp(ctx.build(at, spec))
}

/// Builds `loop.prefetch buffer[indices]`.
pub fn build_prefetch(
    ctx: &mut Context,
    at: InsertPoint,
    buffer: Value,
    indices: &[Value],
    loc: Location,
) -> PrefetchOp {
    let spec = OpSpec::new(ctx, "loop.prefetch", loc)
        .operands(&[buffer])
        .operands(indices);
    PrefetchOp(ctx.build(at, spec))
}

/// Builds `loop.barrier`.
pub fn build_barrier(ctx: &mut Context, at: InsertPoint, loc: Location) -> BarrierOp {
    let spec = OpSpec::new(ctx, "loop.barrier", loc);
    BarrierOp(ctx.build(at, spec))
}

/// Builds `loop.dim %buffer, axis`; the result is an `index`.
pub fn build_dim(
    ctx: &mut Context,
    at: InsertPoint,
    buffer: Value,
    axis: usize,
    loc: Location,
) -> Value {
    let axis = ctx.integer_attr(axis as i128, Type::I64);
    let spec = OpSpec::new(ctx, "loop.dim", loc)
        .operands(&[buffer])
        .attr(ctx, "axis", axis)
        .results(&[Type::INDEX]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// Builds `loop.check %condition {message}`: the run stops with `message` where `condition`
/// (an `i1`) is false.
pub fn build_check(
    ctx: &mut Context,
    at: InsertPoint,
    condition: Value,
    message: &str,
    loc: Location,
) -> Op {
    let message = ctx.string_attr(message);
    let spec = OpSpec::new(ctx, "loop.check", loc)
        .operands(&[condition])
        .attr(ctx, "message", message);
    ctx.build(at, spec)
}

/// Builds `loop.read_size %buffer`, the element of a one-element integer buffer; the result is
/// an `index`.
pub fn build_read_size(ctx: &mut Context, at: InsertPoint, buffer: Value, loc: Location) -> Value {
    let spec = OpSpec::new(ctx, "loop.read_size", loc)
        .operands(&[buffer])
        .results(&[Type::INDEX]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// Builds `loop.launch @callee(args)`.
pub fn build_launch(
    ctx: &mut Context,
    at: InsertPoint,
    callee: &str,
    args: &[Value],
    loc: Location,
) -> LaunchOp {
    let callee = ctx.symbol_ref_attr(callee);
    let spec = OpSpec::new(ctx, "loop.launch", loc)
        .operands(args)
        .attr(ctx, "callee", callee);
    LaunchOp(ctx.build(at, spec))
}

/// Builds `loop.constant value : ty`: a global buffer `ty` holding the dense attribute `value`.
pub fn build_constant(
    ctx: &mut Context,
    at: InsertPoint,
    value: Attribute,
    ty: Type,
    loc: Location,
) -> Value {
    let spec = OpSpec::new(ctx, "loop.constant", loc)
        .attr(ctx, "value", value)
        .results(&[ty]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// Builds `loop.view %arena[%offset](sizes) : ... -> ty`, one size per `?` dim of `ty`.
pub fn build_view(
    ctx: &mut Context,
    at: InsertPoint,
    arena: Value,
    offset: Value,
    dynamic_sizes: &[Value],
    ty: Type,
    loc: Location,
) -> Value {
    let spec = OpSpec::new(ctx, "loop.view", loc)
        .operands(&[arena, offset])
        .operands(dynamic_sizes)
        .results(&[ty]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// The buffer whose memory `v` is: `v` itself, or the source at the start of its chain of
/// `loop.reshape`s.
pub fn reshape_root(ctx: &Context, mut v: Value) -> Value {
    while let Some(r) = ctx.defining_op(v).and_then(|d| ctx.view::<ReshapeOp>(d)) {
        v = r.source(ctx);
    }
    v
}

/// Builds `loop.reshape %source(sizes) : ... -> ty`, one size per `?` dim of `ty`.
pub fn build_reshape(
    ctx: &mut Context,
    at: InsertPoint,
    source: Value,
    dynamic_sizes: &[Value],
    ty: Type,
    loc: Location,
) -> Value {
    let spec = OpSpec::new(ctx, "loop.reshape", loc)
        .operands(&[source])
        .operands(dynamic_sizes)
        .results(&[ty]);
    let op = ctx.build(at, spec);
    ctx.result(op, 0)
}

/// Builds `loop.call_if %cond then @then_fn else @else_fn (args)` with results of
/// `result_types`; returns the op.
#[allow(clippy::too_many_arguments)]
pub fn build_call_if(
    ctx: &mut Context,
    at: InsertPoint,
    cond: Value,
    args: &[Value],
    then_fn: &str,
    else_fn: &str,
    result_types: &[Type],
    loc: Location,
) -> Op {
    let then_ref = ctx.symbol_ref_attr(then_fn);
    let else_ref = ctx.symbol_ref_attr(else_fn);
    let spec = OpSpec::new(ctx, "loop.call_if", loc)
        .operands(&[cond])
        .operands(args)
        .attr(ctx, "then_callee", then_ref)
        .attr(ctx, "else_callee", else_ref)
        .results(result_types);
    ctx.build(at, spec)
}

/// Builds `loop.call_loop @body (max_trip, cond, carried...) captures (captures...)` with
/// results of `result_types` (the carried types, then one stacked type per scan output);
/// returns the op.
#[allow(clippy::too_many_arguments)]
pub fn build_call_loop(
    ctx: &mut Context,
    at: InsertPoint,
    max_trip: Value,
    cond: Value,
    carried: &[Value],
    captures: &[Value],
    body: &str,
    result_types: &[Type],
    loc: Location,
) -> Op {
    let callee = ctx.symbol_ref_attr(body);
    let num_carried = ctx.integer_attr(carried.len() as i128, Type::I64);
    let spec = OpSpec::new(ctx, "loop.call_loop", loc)
        .operands(&[max_trip, cond])
        .operands(carried)
        .operands(captures)
        .attr(ctx, "callee", callee)
        .attr(ctx, "num_carried", num_carried)
        .results(result_types);
    ctx.build(at, spec)
}
