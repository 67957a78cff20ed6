//! The GPU smoke test: dlc's PTX run on a real GPU and compared with the loop interpreter.
//!
//! A few graph programs (the shapes that found GPU bugs: a 16-thread block reduction, a
//! reduction wider than a block, a layer norm, an elementwise map), or any given ones, among
//! them the random graph generator's ([`Program::random`]), go through
//! `decompose,fuse,lower{target=gpu},gpu-default`. The loop interpreter then runs each host
//! function on random inputs, and every kernel launch becomes a [`KernelCase`]: the arguments
//! the program gave the kernel (launch dims and sizes of `?` dims included) and the buffers
//! after the interpreter ran it ([`KernelCase::expected`]). `gpu-smoke` ([`cuda`]) loads the
//! module's PTX with the CUDA driver, runs each kernel on the same arguments and compares.
//! Without a GPU it prepares the cases (so the compile and interpreter side is always checked)
//! and reports that it skipped the device runs.

pub mod cuda;

use dlc_driver::check;
use dlc_graph::generate::{GraphGen, Rng};
use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::DYNAMIC;
use dlc_ir::{parse_source, print_op, Context, Op, PrintOptions};
use dlc_loop::interp::{run_host_traced, KernelArg, Launch};
use dlc_loop::{
    buffer_parts, host_functions, is_gpu_kernel, AllocOp, KernelOp, LaunchDim, MemorySpace,
};
use dlc_tensor::{DType, Literal, Scalar};

/// The pipeline the programs are compiled with: the default GPU pipeline after lowering.
pub const PIPELINE: &str = "decompose,fuse,lower{target=gpu},gpu-default";

/// The smoke programs: (name, graph program text).
pub const PROGRAMS: &[(&str, &str)] = &[
    (
        "softmax_4x10",
        "func.func @softmax(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
           %p = graph.softmax %x {axis = 1 : i64} : tensor<4x10xf32>
           return %p : tensor<4x10xf32>
         }",
    ),
    (
        "row_sum_4x100",
        "func.func @row_sum(%x: tensor<4x100xf32>) -> tensor<4xf32> {
           %s = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<4x100xf32> -> tensor<4xf32>
           return %s : tensor<4xf32>
         }",
    ),
    (
        "row_max_2x2048",
        "func.func @row_max(%x: tensor<2x2048xf32>) -> tensor<2xf32> {
           %s = graph.reduce_max %x {axes = array<i64: 1>} : tensor<2x2048xf32> -> tensor<2xf32>
           return %s : tensor<2xf32>
         }",
    ),
    (
        "layer_norm_8x256",
        "func.func @layer_norm(%x: tensor<8x256xf32>, %g: tensor<256xf32>, %b: tensor<256xf32>) -> tensor<8x256xf32> {
           %y = graph.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f64} : tensor<8x256xf32>, tensor<256xf32>, tensor<256xf32> -> tensor<8x256xf32>
           return %y : tensor<8x256xf32>
         }",
    ),
    (
        "gelu_1000",
        "func.func @gelu(%x: tensor<1000xf32>) -> tensor<1000xf32> {
           %y = graph.gelu %x {approximate = \"tanh\"} : tensor<1000xf32>
           return %y : tensor<1000xf32>
         }",
    ),
];

/// A graph program to compile and run: its text and, where known, the concrete shape of each
/// argument (else a `?` dim is [`DYNAMIC_SIZE`]).
pub struct Program {
    pub name: String,
    pub text: String,
    pub shapes: Option<Vec<Vec<usize>>>,
}

/// The size a `?` dim of an argument gets when the program says nothing else.
pub const DYNAMIC_SIZE: usize = 3;

impl Program {
    /// A program whose `?` dims are [`DYNAMIC_SIZE`].
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Program {
            name: name.into(),
            text: text.into(),
            shapes: None,
        }
    }

    /// The random graph generator's program for `seed` (`dlc_graph::generate::GraphGen`'s
    /// defaults, `?` dims included), with the argument shapes it chose.
    pub fn random(seed: u64) -> Self {
        let mut ctx = Context::new();
        dlc_dialects::register_all_dialects(&mut ctx);
        let generated = GraphGen::new(seed).generate(&mut ctx);
        Program {
            name: format!("random_{seed}"),
            text: print_op(&ctx, generated.module, PrintOptions::default()),
            shapes: Some(generated.arg_shapes),
        }
    }
}

/// One kernel launch to repeat on the device: the arguments the program gave it and what the
/// interpreter's kernel made of them.
pub struct KernelCase {
    /// `program/kernel`.
    pub label: String,
    /// The kernel's symbol (its PTX entry name).
    pub kernel: String,
    /// Launch dims.
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The arguments before the run.
    pub inputs: Vec<KernelArg>,
    /// The arguments after the interpreter ran the kernel on `inputs`.
    pub expected: Vec<KernelArg>,
    /// The bytes a thread allocates on its stack for local buffers of dynamic size
    /// ([`dynamic_local_bytes`]).
    pub stack_bytes: u64,
}

/// A compiled program: its PTX for `sm` and its kernel cases.
pub struct Compiled {
    pub name: String,
    pub ptx: String,
    pub cases: Vec<KernelCase>,
    /// Launches left out, with the reason (an in-place launch, a host function the
    /// interpreter refused, ...).
    pub skipped: Vec<String>,
}

/// Compiles `program` with [`PIPELINE`] for `sm`, runs each host function in the loop
/// interpreter on random inputs, and makes a case of every kernel launch, with the arguments
/// the run gave it.
pub fn compile(program: &Program, sm: u32) -> Result<Compiled, String> {
    let name = &program.name;
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let module = parse_source(&mut ctx, &program.text, name, 1).map_err(|d| d.message.clone())?;
    let mut registry = PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = parse_pipeline(PIPELINE).map_err(|e| e.message)?;
    let mut pm = registry
        .build(&spec, "builtin.module")
        .map_err(|e| e.message)?;
    pm.run(&mut ctx, module)
        .map_err(|f| format!("{name}: pipeline failed: {:?}", f.diagnostics))?;
    let ptx = dlc_codegen::emit_ptx(&ctx, module, sm).map_err(|d| d.message)?;
    let mut cases = Vec::new();
    let mut skipped = Vec::new();
    for (i, func) in host_functions(&ctx, module).into_iter().enumerate() {
        let mut rng = Rng::new(i as u64);
        let args = match random_args(&ctx, func, program.shapes.as_deref(), &mut rng) {
            Ok(args) => args,
            Err(why) => {
                skipped.push(format!("{name}: a host function: {why}"));
                continue;
            }
        };
        let mut launches = Vec::new();
        let run = run_host_traced(&ctx, func, args, &mut |launch| launches.push(launch));
        if let Err(d) = run {
            skipped.push(format!("{name}: the interpreter: {}", d.message));
            continue;
        }
        for launch in launches {
            let symbol = dlc_ir::symbol::symbol_name(&ctx, launch.kernel)
                .unwrap_or_default()
                .to_string();
            let label = format!("{name}/{symbol}");
            match kernel_case(&ctx, launch, label.clone(), symbol) {
                Ok(case) => cases.push(case),
                Err(why) => skipped.push(format!("{label}: {why}")),
            }
        }
    }
    Ok(Compiled {
        name: name.to_string(),
        ptx,
        cases,
        skipped,
    })
}

/// Random buffers for host function `func`'s arguments: floats in [-2, 2), integers in
/// [-8, 8), booleans.
fn random_args(
    ctx: &Context,
    func: Op,
    shapes: Option<&[Vec<usize>]>,
    rng: &mut Rng,
) -> Result<Vec<KernelArg>, String> {
    let entry = ctx
        .regions(func)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
        .copied()
        .ok_or("a function without a body")?;
    let mut args = Vec::new();
    for (i, &arg) in ctx.block_args(entry).iter().enumerate() {
        let (dims, elem, _) =
            buffer_parts(ctx, ctx.value_type(arg)).ok_or("a non-buffer argument")?;
        let shape: Vec<usize> = match shapes.and_then(|s| s.get(i)) {
            Some(shape) => shape.clone(),
            None => dims
                .iter()
                .map(|&d| usize::try_from(d).unwrap_or(DYNAMIC_SIZE))
                .collect(),
        };
        let dtype = DType::from_type(ctx, elem).ok_or("an unsupported element type")?;
        let n: usize = shape.iter().product();
        let values: Vec<Scalar> = (0..n)
            .map(|_| {
                if dtype.is_float() {
                    Scalar::Float(rng.unit() * 4.0 - 2.0)
                } else if dtype == DType::I1 {
                    Scalar::Bool(rng.chance(0.5))
                } else {
                    Scalar::Int(rng.range(-8, 7))
                }
            })
            .collect();
        args.push(KernelArg::Buffer(Literal::from_scalars(
            dtype, shape, values,
        )));
    }
    Ok(args)
}

fn kernel_case(
    ctx: &Context,
    launch: Launch,
    label: String,
    symbol: String,
) -> Result<KernelCase, String> {
    if launch.aliased {
        return Err("an in-place launch (two arguments are one buffer)".into());
    }
    let k = ctx.view::<KernelOp>(launch.kernel).ok_or("not a kernel")?;
    // A kernel without launch dims runs as one thread (every point loop had extent 1 and is
    // gone), unless it has `block.*`/`thread.*` loops: their extents size its launch in the
    // interpreter and the code generator, which this tool does not compute.
    let has_launch =
        ctx.attr(launch.kernel, "grid").is_some() || ctx.attr(launch.kernel, "block").is_some();
    if !has_launch && is_gpu_kernel(ctx, launch.kernel) {
        return Err("a launch sized by its GPU loops' extents (no grid or block attribute)".into());
    }
    let grid = launch_dims(ctx, launch.kernel, "grid", k.grid_dims(ctx), &launch.before)
        .ok_or("the grid does not fit")?;
    let block = launch_dims(
        ctx,
        launch.kernel,
        "block",
        k.block_dims(ctx),
        &launch.before,
    )
    .ok_or("the block does not fit")?;
    Ok(KernelCase {
        label,
        kernel: symbol,
        grid,
        block,
        stack_bytes: dynamic_local_bytes(ctx, launch.kernel, &launch.before),
        inputs: launch.before,
        expected: launch.after,
    })
}

/// The bytes of `kernel`'s local buffers of dynamic size in a launch with `args`. The code
/// generator makes them stack allocations (docs/codegen.md, "NVPTX"), and CUDA gives a thread
/// 1 KiB of stack unless the launcher asks for more, so the launcher must size the stack from
/// them. A `?` size that is an index argument of the kernel is read from `args`; any other
/// counts as [`UNKNOWN_LOCAL_BYTES`] for its buffer.
pub fn dynamic_local_bytes(ctx: &Context, kernel: Op, args: &[KernelArg]) -> u64 {
    let entry_args = ctx
        .regions(kernel)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
        .map(|&b| ctx.block_args(b).to_vec())
        .unwrap_or_default();
    let size_of = |v| {
        let i = entry_args.iter().position(|&a| a == v)?;
        match args.get(i)? {
            KernelArg::Index(n) => u64::try_from(*n).ok(),
            KernelArg::Buffer(_) => None,
        }
    };
    let mut bytes = 0u64;
    ctx.for_each_op(kernel, &mut |op| {
        if ctx.view::<AllocOp>(op).is_none() {
            return;
        }
        let Some((dims, elem, MemorySpace::Local)) =
            buffer_parts(ctx, ctx.value_type(ctx.result(op, 0)))
        else {
            return;
        };
        if !dims.contains(&DYNAMIC) {
            return;
        }
        let elem_bytes = DType::from_type(ctx, elem).map_or(8, |d| d.size_bytes() as u64);
        let mut sizes = ctx.operands(op).iter().map(|&v| size_of(v));
        let count = dims.iter().try_fold(1u64, |n, &d| {
            let d = if d == DYNAMIC {
                sizes.next().flatten()?
            } else {
                d as u64
            };
            n.checked_mul(d)
        });
        let buffer = count.and_then(|c| c.checked_mul(elem_bytes));
        bytes = bytes.saturating_add(buffer.unwrap_or(UNKNOWN_LOCAL_BYTES));
    });
    bytes
}

/// What [`dynamic_local_bytes`] counts for a local buffer whose size it cannot read.
pub const UNKNOWN_LOCAL_BYTES: u64 = 16 << 10;

/// The launch dims `name` (`grid` or `block`) of `kernel` for a launch with `args`: `dims`,
/// a symbolic one read from its index argument, or one when the kernel has no such attribute.
fn launch_dims(
    ctx: &Context,
    kernel: Op,
    name: &str,
    dims: Option<[LaunchDim; 3]>,
    args: &[KernelArg],
) -> Option<[u32; 3]> {
    let mut out = [1u32; 3];
    if ctx.attr(kernel, name).is_none() {
        return Some(out);
    }
    for (slot, d) in out.iter_mut().zip(dims?) {
        let n = match d {
            LaunchDim::Const(n) => n,
            LaunchDim::Arg(i) => match args.get(i)? {
                KernelArg::Index(n) => *n,
                KernelArg::Buffer(_) => return None,
            },
        };
        *slot = u32::try_from(n).ok()?;
    }
    Some(out)
}

/// Compares the device's buffers with the interpreter's by `dlc-run --check`'s rule
/// ([`dlc_driver::check`]): integers exactly; floats normwise, the largest difference within
/// `atol + rtol · max|reference|`, with the loosest `(rtol, atol)` of the kernel's buffer
/// dtypes (a float result computed from `f16` values is only as precise as `f16`); infinities
/// and NaNs must match. Returns the first buffer that differs.
pub fn compare(got: &[KernelArg], expected: &[KernelArg]) -> Result<(), String> {
    let pairs: Vec<(usize, &Literal, &Literal)> = got
        .iter()
        .zip(expected)
        .enumerate()
        .filter_map(|(i, pair)| match pair {
            (KernelArg::Buffer(g), KernelArg::Buffer(e)) => Some((i, g, e)),
            _ => None,
        })
        .collect();
    let floor = pairs
        .iter()
        .filter_map(|(_, _, e)| check::tolerance(e.dtype()))
        .fold((0.0f64, 0.0f64), |(r, a), (rtol, atol)| {
            (r.max(rtol), a.max(atol))
        });
    let reference: Vec<Literal> = pairs.iter().map(|(_, _, e)| (*e).clone()).collect();
    let actual: Vec<Literal> = pairs.iter().map(|(_, g, _)| (*g).clone()).collect();
    let reports = check::compare(&reference, &actual, floor)?;
    match pairs.iter().zip(&reports).find(|(_, r)| !r.ok) {
        Some(((i, _, _), r)) => Err(format!(
            "argument {i} ({:?} {:?}): max |error| {:e} (relative {:e}), over the tolerance",
            r.dtype, r.shape, r.max_abs, r.max_rel
        )),
        None => Ok(()),
    }
}

/// The PTX target for a device of compute capability `cc` (`major * 10 + minor`): the newest
/// architecture dlc's tests assemble for (sm_80, sm_90) that the device runs; PTX is
/// forward-compatible, so newer devices JIT the sm_90 text.
pub fn sm_for(cc: u32) -> u32 {
    if cc >= 90 {
        90
    } else {
        80
    }
}
