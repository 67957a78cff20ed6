//! The GPU smoke test: dlc's PTX run on a real GPU and compared with the loop interpreter.
//!
//! A few graph programs with static shapes (the shapes that found GPU bugs: a 16-thread block
//! reduction, a reduction wider than a block, a layer norm, an elementwise map) go through
//! `decompose,fuse,lower{target=gpu},gpu-default`. Every kernel with constant launch dims
//! becomes a [`KernelCase`]: random contents for all its buffers, and the buffers after the
//! loop interpreter ran it ([`KernelCase::expected`]). `gpu-smoke` ([`cuda`]) loads the
//! module's PTX with the CUDA driver, runs each kernel on the same inputs and compares.
//! Without a GPU it prepares the cases (so the compile and interpreter side is always checked)
//! and reports that it skipped the device runs. Other programs can be given as text, among
//! them the random graph generator's ([`random_program`]).

pub mod cuda;

use dlc_driver::check;
use dlc_graph::generate::GraphGen;
use dlc_ir::pass::{parse_pipeline, PassRegistry};
use dlc_ir::{parse_source, print_op, Context, Op, PrintOptions};
use dlc_loop::interp::{run_kernel, KernelArg};
use dlc_loop::{buffer_parts, module_kernels, KernelOp, LaunchDim};
use dlc_tensor::{DType, Scalar, Tensor};

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

/// The text of random graph program `seed`: `dlc_graph::generate::GraphGen`'s function for
/// that seed with static shapes only (so every kernel's launch dims are constant).
pub fn random_program(seed: u64) -> String {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let generator = GraphGen {
        dynamic: false,
        ..GraphGen::new(seed)
    };
    let generated = generator.generate(&mut ctx);
    print_op(&ctx, generated.module, PrintOptions::default())
}

/// One kernel to run on the device: its inputs and what the interpreter made of them.
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
}

/// A compiled program: its PTX for `sm` and its kernel cases.
pub struct Compiled {
    pub name: String,
    pub ptx: String,
    pub cases: Vec<KernelCase>,
    /// Kernels left out, with the reason (symbolic launch dims, index arguments, ...).
    pub skipped: Vec<String>,
}

/// Compiles program `text` with [`PIPELINE`] for `sm` and prepares its kernel cases.
pub fn compile(name: &str, text: &str, sm: u32) -> Result<Compiled, String> {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let module = parse_source(&mut ctx, text, name, 1).map_err(|d| d.message.clone())?;
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
    for (i, kernel) in module_kernels(&ctx, module).into_iter().enumerate() {
        let symbol = dlc_ir::symbol::symbol_name(&ctx, kernel)
            .unwrap_or_default()
            .to_string();
        let label = format!("{name}/{symbol}");
        match kernel_case(&ctx, kernel, label.clone(), symbol, i as u64) {
            Ok(case) => cases.push(case),
            Err(why) => skipped.push(format!("{label}: {why}")),
        }
    }
    Ok(Compiled {
        name: name.to_string(),
        ptx,
        cases,
        skipped,
    })
}

fn kernel_case(
    ctx: &Context,
    kernel: Op,
    label: String,
    symbol: String,
    seed: u64,
) -> Result<KernelCase, String> {
    let k = ctx.view::<KernelOp>(kernel).ok_or("not a kernel")?;
    // A kernel without launch dims (every point loop had extent 1 and is gone) runs as one
    // thread, as the host launches it.
    let grid = launch(ctx, kernel, "grid", k.grid_dims(ctx)).ok_or("the grid is not constant")?;
    let block =
        launch(ctx, kernel, "block", k.block_dims(ctx)).ok_or("the block is not constant")?;
    let entry = k.body(ctx).ok_or("kernel without a body")?;
    let mut random = Lcg(0x9e37_79b9_7f4a_7c15 ^ seed);
    let mut inputs = Vec::new();
    for &arg in ctx.block_args(entry) {
        let (dims, elem, _) =
            buffer_parts(ctx, ctx.value_type(arg)).ok_or("a non-buffer argument")?;
        let shape: Vec<usize> = dims
            .iter()
            .map(|&d| usize::try_from(d).map_err(|_| "a dynamic buffer dim"))
            .collect::<Result<_, _>>()?;
        let dtype = DType::from_type(ctx, elem).ok_or("an unsupported element type")?;
        let n: usize = shape.iter().product();
        let values: Vec<Scalar> = (0..n).map(|_| random.scalar(dtype)).collect();
        inputs.push(KernelArg::Buffer(Tensor::from_scalars(
            dtype, shape, values,
        )));
    }
    let mut expected = inputs.clone();
    run_kernel(ctx, kernel, &mut expected).map_err(|d| format!("interpreter: {}", d.message))?;
    Ok(KernelCase {
        label,
        kernel: symbol,
        grid,
        block,
        inputs,
        expected,
    })
}

/// The launch dims `name` (`grid` or `block`) of `kernel` when they are constant: `dims`, or
/// one when the kernel has no such attribute.
fn launch(ctx: &Context, kernel: Op, name: &str, dims: Option<[LaunchDim; 3]>) -> Option<[u32; 3]> {
    let mut out = [1u32; 3];
    if ctx.attr(kernel, name).is_none() {
        return Some(out);
    }
    for (slot, d) in out.iter_mut().zip(dims?) {
        match d {
            LaunchDim::Const(n) => *slot = u32::try_from(n).ok()?,
            LaunchDim::Arg(_) => return None,
        }
    }
    Some(out)
}

/// A small deterministic generator (the smoke inputs must not depend on a seed crate).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }

    /// Floats in [-2, 2), integers in [-8, 8), booleans.
    fn scalar(&mut self, dtype: DType) -> Scalar {
        let r = self.next();
        if dtype.is_float() {
            Scalar::Float((r as f64 / (1u64 << 53) as f64) * 4.0 - 2.0)
        } else if dtype == DType::I1 {
            Scalar::Bool(r & 1 == 1)
        } else {
            Scalar::Int((r % 16) as i64 - 8)
        }
    }
}

/// Compares the device's buffers with the interpreter's by `dlc-run --check`'s rule
/// ([`dlc_driver::check`]): integers exactly; floats normwise, the largest difference within
/// `atol + rtol · max|reference|`, with the loosest `(rtol, atol)` of the kernel's buffer
/// dtypes (a float result computed from `f16` values is only as precise as `f16`); infinities
/// and NaNs must match. Returns the first buffer that differs.
pub fn compare(got: &[KernelArg], expected: &[KernelArg]) -> Result<(), String> {
    let pairs: Vec<(usize, &Tensor, &Tensor)> = got
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
    let reference: Vec<Tensor> = pairs.iter().map(|(_, _, e)| (*e).clone()).collect();
    let actual: Vec<Tensor> = pairs.iter().map(|(_, g, _)| (*g).clone()).collect();
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
