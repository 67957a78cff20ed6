//! The loop interpreter on small kernels: the three example kernels of docs/examples (broadcast
//! add, CPU row softmax, GPU row sum through shared memory) against plain Rust loops,
//! each loop kind, schedule blocks with init, warp and block reductions, vector accesses, and
//! the run-time errors (bounds, arguments, barrier divergence, division by zero, unsupported
//! ops, and the strict grid simulation's warp lockstep, shared-memory races, uninitialised
//! reads and device limits), which must come back as diagnostics at the op.

use dlc_ir::{Context, Diagnostic, FloatKind, Location, Op};
use dlc_loop::interp::{run_kernel, KernelArg};
use dlc_tensor::{DType, Literal};

/// Parses and verifies `src`; returns the context and the module.
fn parse(src: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_loop::dialect());
    ctx.register_dialect(dlc_loop::math_dialect());
    let module = match dlc_ir::parse_source(&mut ctx, src, "test.mlir", 1) {
        Ok(m) => m,
        Err(d) => panic!("parse error: {d:?}"),
    };
    if let Err(d) = dlc_ir::verify(&ctx, module) {
        panic!("verify error: {d:?}");
    }
    (ctx, module)
}

/// The `loop.kernel` named `name`.
fn kernel(ctx: &Context, module: Op, name: &str) -> Op {
    let mut found = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.op_name(op) == "loop.kernel"
            && ctx.attr(op, "sym_name").and_then(|a| ctx.attr_as_str(a)) == Some(name)
        {
            found = Some(op);
        }
    });
    found.unwrap_or_else(|| panic!("no kernel @{name}"))
}

/// Parses `src` and runs its kernel `name` on `args`.
fn run(src: &str, name: &str, args: &mut [KernelArg]) -> Result<(), Diagnostic> {
    let (ctx, module) = parse(src);
    let k = kernel(&ctx, module, name);
    run_kernel(&ctx, k, args)
}

fn f32_buf(shape: &[usize], values: &[f64]) -> KernelArg {
    KernelArg::Buffer(Literal::from_f64(DType::F32, shape, values))
}

fn floats(arg: &KernelArg) -> Vec<f64> {
    match arg {
        KernelArg::Buffer(b) => b.to_f64_vec(),
        KernelArg::Index(_) => panic!("not a buffer"),
    }
}

/// Deterministic pseudo-random inputs in [-2, 2).
fn inputs(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) as f64 / (1u64 << 31) as f64) * 4.0 - 2.0
        })
        .map(|v| v as f32 as f64)
        .collect()
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "element {i}: got {g}, want {w}"
        );
    }
}

fn line(d: &Diagnostic) -> u32 {
    match d.location {
        Location::FileLineCol { line, .. } => line,
        other => panic!("diagnostic without a line: {other:?}"),
    }
}

/// The 1-based line of the first line of `src` containing `needle`.
fn line_of(src: &str, needle: &str) -> u32 {
    src.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
}

// ---------------------------------------------------------------------------------------------
// The example kernels of docs/examples, against plain Rust loops.

const BROADCAST_ADD: &str = include_str!("../../../../docs/examples/loop_broadcast_add.mlir");
const ROW_SOFTMAX: &str = include_str!("../../../../docs/examples/loop_row_softmax.mlir");
const GPU_ROW_SUM: &str = include_str!("../../../../docs/examples/loop_gpu_row_sum.mlir");

#[test]
fn broadcast_add_example_matches_reference() {
    let (m, n) = (3, 5);
    let (a, b) = (inputs(m * n, 1), inputs(n, 2));
    let mut args = [
        f32_buf(&[m, n], &a),
        f32_buf(&[n], &b),
        f32_buf(&[m, n], &vec![0.0; m * n]),
        KernelArg::Index(m as i64),
        KernelArg::Index(n as i64),
    ];
    run(BROADCAST_ADD, "broadcast_add", &mut args).unwrap();
    let mut want = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            want[i * n + j] = (a[i * n + j] as f32 + b[j] as f32) as f64;
        }
    }
    assert_eq!(floats(&args[2]), want);
}

#[test]
fn row_softmax_example_matches_reference() {
    let (m, n) = (4, 128);
    let x = inputs(m * n, 3);
    let mut args = [
        f32_buf(&[m, n], &x),
        f32_buf(&[m, n], &vec![0.0; m * n]),
        KernelArg::Index(m as i64),
    ];
    run(ROW_SOFTMAX, "row_softmax", &mut args).unwrap();
    let mut want = vec![0.0; m * n];
    for i in 0..m {
        let row = &x[i * n..(i + 1) * n];
        let mx = row.iter().cloned().fold(f64::MIN, f64::max);
        let sum: f64 = row.iter().map(|v| (v - mx).exp()).sum();
        for j in 0..n {
            want[i * n + j] = (row[j] - mx).exp() / sum;
        }
    }
    assert_close(&floats(&args[1]), &want, 1e-5);
}

fn row_sums(x: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..m)
        .map(|i| x[i * n..(i + 1) * n].iter().sum::<f64>())
        .collect()
}

#[test]
fn gpu_row_sum_example_matches_reference() {
    let (m, n) = (3, 128);
    let x = inputs(m * n, 4);
    let mut args = [
        f32_buf(&[m, n], &x),
        f32_buf(&[m], &vec![0.0; m]),
        KernelArg::Index(m as i64),
    ];
    run(GPU_ROW_SUM, "gpu_row_sum", &mut args).unwrap();
    assert_close(&floats(&args[1]), &row_sums(&x, m, n), 1e-5);
}

/// Row sums with explicit launch attrs (one block per row, 64 threads) and `loop.thread_id`:
/// each thread sums a strided part of the row (n need not be 64), then a shared-memory tree.
const LAUNCH_ROW_SUM: &str = r#"
loop.kernel @launch_row_sum(%x: !loop.buffer<?x?xf32, global>, %out: !loop.buffer<?xf32, global>, %m: index, %n: index) attributes {grid = ["arg2", 1 : index, 1 : index], block = [64 : index, 1 : index, 1 : index]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %row = loop.block_id x
  %t = loop.thread_id x
  %s = loop.alloc : !loop.buffer<64xf32, shared>
  %part = loop.alloc : !loop.buffer<1xf32, local>
  loop.store %zero, %part[%c0] : !loop.buffer<1xf32, local>
  loop.for serial %k = %t to %n step %c64 {
    %v = loop.load %x[%row, %k] : !loop.buffer<?x?xf32, global>
    %p = loop.load %part[%c0] : !loop.buffer<1xf32, local>
    %q = arith.addf %p, %v : f32
    loop.store %q, %part[%c0] : !loop.buffer<1xf32, local>
    loop.yield
  }
  %mine = loop.load %part[%c0] : !loop.buffer<1xf32, local>
  loop.store %mine, %s[%t] : !loop.buffer<64xf32, shared>
  loop.barrier
  loop.for serial %l = %c0 to %c6 step %c1 {
    %stride = arith.shrui %c32, %l : index
    %active = arith.cmpi ult, %t, %stride : index
    loop.if %active {
      %o = arith.addi %t, %stride : index
      %a = loop.load %s[%t] : !loop.buffer<64xf32, shared>
      %b = loop.load %s[%o] : !loop.buffer<64xf32, shared>
      %c = arith.addf %a, %b : f32
      loop.store %c, %s[%t] : !loop.buffer<64xf32, shared>
      loop.yield
    }
    loop.barrier
    loop.yield
  }
  %first = arith.cmpi eq, %t, %c0 : index
  loop.if %first {
    %total = loop.load %s[%c0] : !loop.buffer<64xf32, shared>
    loop.store %total, %out[%row] : !loop.buffer<?xf32, global>
    loop.yield
  }
  loop.return
}
"#;

#[test]
fn launch_attrs_with_thread_ids() {
    let (m, n) = (3, 150);
    let x = inputs(m * n, 4);
    let mut args = [
        f32_buf(&[m, n], &x),
        f32_buf(&[m], &vec![0.0; m]),
        KernelArg::Index(m as i64),
        KernelArg::Index(n as i64),
    ];
    run(LAUNCH_ROW_SUM, "launch_row_sum", &mut args).unwrap();
    assert_close(&floats(&args[1]), &row_sums(&x, m, n), 1e-5);
}

/// The same row sum with bound loops (block.x over rows, thread.x over 64 threads) and a
/// `loop.block_reduce` instead of the shared-memory tree.
const BOUND_ROW_SUM: &str = r#"
loop.kernel @bound_row_sum(%x: !loop.buffer<?x?xf32, global>, %out: !loop.buffer<?xf32, global>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  loop.for block.x %row = %c0 to %m step %c1 {
    loop.for thread.x %t = %c0 to %c64 step %c1 {
      %part = loop.alloc : !loop.buffer<1xf32, local>
      loop.store %zero, %part[%c0] : !loop.buffer<1xf32, local>
      loop.for serial %k = %t to %n step %c64 {
        %v = loop.load %x[%row, %k] : !loop.buffer<?x?xf32, global>
        %p = loop.load %part[%c0] : !loop.buffer<1xf32, local>
        %q = arith.addf %p, %v : f32
        loop.store %q, %part[%c0] : !loop.buffer<1xf32, local>
        loop.yield
      }
      %mine = loop.load %part[%c0] : !loop.buffer<1xf32, local>
      %total = loop.block_reduce %mine {kind = "add"} : f32
      %first = arith.cmpi eq, %t, %c0 : index
      loop.if %first {
        loop.store %total, %out[%row] : !loop.buffer<?xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
"#;

#[test]
fn bound_loops_with_block_reduce() {
    let (m, n) = (5, 100);
    let x = inputs(m * n, 5);
    let mut args = [
        f32_buf(&[m, n], &x),
        f32_buf(&[m], &vec![0.0; m]),
        KernelArg::Index(m as i64),
        KernelArg::Index(n as i64),
    ];
    run(BOUND_ROW_SUM, "bound_row_sum", &mut args).unwrap();
    assert_close(&floats(&args[1]), &row_sums(&x, m, n), 1e-5);
}

// ---------------------------------------------------------------------------------------------
// Loop kinds, schedule blocks, reductions, vectors, memory.

#[test]
fn two_dimensional_bound_loops_and_dynamic_local_alloc() {
    let src = r#"
loop.kernel @grid2d(%out: !loop.buffer<?x8xindex, global>, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %c100 = arith.constant 100 : index
  loop.for block.y %b = %c0 to %m step %c1 {
    loop.for thread.y %ty = %c0 to %c2 step %c1 {
      loop.for thread.x %tx = %c0 to %c4 step %c1 {
        %tmp = loop.alloc(%c2) : !loop.buffer<?xindex, local>
        %hi = arith.muli %b, %c100 : index
        %mid = arith.muli %ty, %c10 : index
        %v0 = arith.addi %hi, %mid : index
        %v = arith.addi %v0, %tx : index
        loop.store %v, %tmp[%c1] : !loop.buffer<?xindex, local>
        %w = loop.load %tmp[%c1] : !loop.buffer<?xindex, local>
        %dy = loop.block_dim y
        %row = arith.muli %ty, %c4 : index
        %col = arith.addi %row, %tx : index
        %chk = arith.muli %dy, %c1 : index
        %ok = arith.cmpi eq, %chk, %c2 : index
        loop.if %ok {
          loop.store %w, %out[%b, %col] : !loop.buffer<?x8xindex, global>
          loop.yield
        }
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
"#;
    let m = 3;
    let mut args = [
        KernelArg::Buffer(Literal::zeros(DType::Index, &[m, 8])),
        KernelArg::Index(m as i64),
    ];
    run(src, "grid2d", &mut args).unwrap();
    let KernelArg::Buffer(out) = &args[0] else {
        unreachable!()
    };
    let mut want = Vec::new();
    for b in 0..m as i64 {
        for ty in 0..2 {
            for tx in 0..4 {
                want.push(b * 100 + ty * 10 + tx);
            }
        }
    }
    assert_eq!(out.to_i64_vec(), &want[..]);
}

#[test]
fn every_loop_kind_runs_serially() {
    let src = r#"
loop.kernel @kinds(%out: !loop.buffer<4x?xindex, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c100 = arith.constant 100 : index
  %c200 = arith.constant 200 : index
  %c300 = arith.constant 300 : index
  loop.for serial %i = %c0 to %n step %c1 {
    loop.store %i, %out[%c0, %i] : !loop.buffer<4x?xindex, global>
    loop.yield
  }
  loop.for parallel %i = %c0 to %n step %c1 {
    %v = arith.addi %i, %c100 : index
    loop.store %v, %out[%c1, %i] : !loop.buffer<4x?xindex, global>
    loop.yield
  }
  loop.for vectorize(4) %i = %c0 to %n step %c1 {
    %v = arith.addi %i, %c200 : index
    loop.store %v, %out[%c2, %i] : !loop.buffer<4x?xindex, global>
    loop.yield
  }
  loop.for unroll(3) %i = %c1 to %n step %c2 {
    %v = arith.addi %i, %c300 : index
    loop.store %v, %out[%c3, %i] : !loop.buffer<4x?xindex, global>
    loop.yield
  }
  loop.return
}
"#;
    let n = 10;
    let mut args = [
        KernelArg::Buffer(Literal::zeros(DType::Index, &[4, n])),
        KernelArg::Index(n as i64),
    ];
    run(src, "kinds", &mut args).unwrap();
    let KernelArg::Buffer(out) = &args[0] else {
        unreachable!()
    };
    let mut want = vec![0i64; 4 * n];
    for i in 0..n {
        want[i] = i as i64;
        want[n + i] = i as i64 + 100;
        want[2 * n + i] = i as i64 + 200;
        if i % 2 == 1 {
            want[3 * n + i] = i as i64 + 300;
        }
    }
    assert_eq!(out.to_i64_vec(), &want[..]);
}

#[test]
fn schedule_block_init_runs_once_per_reduction() {
    let src = r#"
loop.kernel @row_sum(%x: !loop.buffer<3x4xf32, global>, %out: !loop.buffer<3xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  loop.for serial %i = %c0 to %c3 step %c1 {
    loop.for serial %k = %c0 to %c4 step %c1 {
      loop.schedule_block "sum" (%ii = %i, %kk = %k reduce) init {
        loop.store %zero, %out[%ii] : !loop.buffer<3xf32, global>
        loop.yield
      } {
        %a = loop.load %out[%ii] : !loop.buffer<3xf32, global>
        %b = loop.load %x[%ii, %kk] : !loop.buffer<3x4xf32, global>
        %c = arith.addf %a, %b : f32
        loop.store %c, %out[%ii] : !loop.buffer<3xf32, global>
        loop.yield
      }
      loop.yield
    }
    loop.yield
  }
  loop.return
}
"#;
    let x: Vec<f64> = (0..12).map(|v| v as f64).collect();
    let mut args = [f32_buf(&[3, 4], &x), f32_buf(&[3], &[999.0; 3])];
    run(src, "row_sum", &mut args).unwrap();
    assert_eq!(floats(&args[1]), vec![6.0, 22.0, 38.0]);
}

#[test]
fn warp_reduce_combines_each_warp() {
    let src = r#"
loop.kernel @warps(%out: !loop.buffer<64xf32, global>, %mx: !loop.buffer<64xi32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [64 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %i = arith.index_cast %t : index to i32
  %f = arith.sitofp %i : i32 to f32
  %s = loop.warp_reduce %f {kind = "add"} : f32
  loop.store %s, %out[%t] : !loop.buffer<64xf32, global>
  %m = loop.warp_reduce %i {kind = "max"} : i32
  loop.store %m, %mx[%t] : !loop.buffer<64xi32, global>
  loop.return
}
"#;
    let mut args = [
        f32_buf(&[64], &[0.0; 64]),
        KernelArg::Buffer(Literal::zeros(DType::I32, &[64])),
    ];
    run(src, "warps", &mut args).unwrap();
    let sums = floats(&args[0]);
    let (w0, w1) = ((0..32).sum::<i32>() as f64, (32..64).sum::<i32>() as f64);
    assert!(sums[..32].iter().all(|&v| v == w0));
    assert!(sums[32..].iter().all(|&v| v == w1));
    let KernelArg::Buffer(mx) = &args[1] else {
        unreachable!()
    };
    let maxes = mx.to_i64_vec();
    assert!(maxes[..32].iter().all(|&v| v == 31));
    assert!(maxes[32..].iter().all(|&v| v == 63));
}

#[test]
fn warp_reduce_combines_in_the_shuffle_tree_order() {
    // In f16, 2048 + 1 rounds back to 2048 (ties to even), so adding the 31 ones to lane 0's
    // 2048 one at a time, in lane order, would leave 2048. The shuffle tree pairs lane l with
    // lane l + 16, 8, 4, 2, 1: the ones add up among themselves (2, 4, 8, 16) before they meet
    // 2048, giving 2048 + 2 + 4 + 8 + 16 = 2078, what the GPU computes. A block reduction
    // over 64 threads combines the two warps' totals the same way.
    let src = r#"
loop.kernel @tree(%x: !loop.buffer<64xf32, global>, %w: !loop.buffer<64xf32, global>, %b: !loop.buffer<64xf32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [64 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<64xf32, global>
  %h = arith.truncf %v : f32 to f16
  %s = loop.warp_reduce %h {kind = "add"} : f16
  %sw = arith.extf %s : f16 to f32
  loop.store %sw, %w[%t] : !loop.buffer<64xf32, global>
  %r = loop.block_reduce %h {kind = "add"} : f16
  %rb = arith.extf %r : f16 to f32
  loop.store %rb, %b[%t] : !loop.buffer<64xf32, global>
  loop.return
}
"#;
    let x: Vec<f64> = (0..64)
        .map(|t| if t % 32 == 0 { 2048.0 } else { 1.0 })
        .collect();
    let mut args = [
        f32_buf(&[64], &x),
        f32_buf(&[64], &[0.0; 64]),
        f32_buf(&[64], &[0.0; 64]),
    ];
    run(src, "tree", &mut args).unwrap();
    assert!(floats(&args[1]).iter().all(|&v| v == 2078.0));
    // 2078 + 2078 = 4156, an f16 (its ulp at 4096 is 4).
    assert!(floats(&args[2]).iter().all(|&v| v == 4156.0));
}

#[test]
fn block_reduce_max_reaches_every_thread() {
    let src = r#"
loop.kernel @bmax(%x: !loop.buffer<48xf32, global>, %out: !loop.buffer<48xf32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [48 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %x[%t] : !loop.buffer<48xf32, global>
  %m = loop.block_reduce %v {kind = "max"} : f32
  loop.store %m, %out[%t] : !loop.buffer<48xf32, global>
  loop.return
}
"#;
    let x = inputs(48, 6);
    let mx = x.iter().cloned().fold(f64::MIN, f64::max);
    let mut args = [f32_buf(&[48], &x), f32_buf(&[48], &[0.0; 48])];
    run(src, "bmax", &mut args).unwrap();
    assert_eq!(floats(&args[1]), vec![mx; 48]);
}

#[test]
fn shared_memory_needs_the_barrier() {
    // Each thread writes its element to shared memory and, after the barrier, reads its
    // mirror's: correct only if every thread's write happened before any read.
    let src = r#"
loop.kernel @reverse(%x: !loop.buffer<32xf32, global>, %y: !loop.buffer<32xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c31 = arith.constant 31 : index
  %c32 = arith.constant 32 : index
  %s = loop.alloc : !loop.buffer<32xf32, shared>
  loop.for thread.x %t = %c0 to %c32 step %c1 {
    %v = loop.load %x[%t] : !loop.buffer<32xf32, global>
    loop.store %v, %s[%t] : !loop.buffer<32xf32, shared>
    loop.barrier
    %r = arith.subi %c31, %t : index
    %w = loop.load %s[%r] : !loop.buffer<32xf32, shared>
    loop.store %w, %y[%t] : !loop.buffer<32xf32, global>
    loop.yield
  }
  loop.return
}
"#;
    let x: Vec<f64> = (0..32).map(|v| v as f64 + 1.0).collect();
    let mut args = [f32_buf(&[32], &x), f32_buf(&[32], &[0.0; 32])];
    run(src, "reverse", &mut args).unwrap();
    let want: Vec<f64> = x.iter().rev().cloned().collect();
    assert_eq!(floats(&args[1]), want);
}

#[test]
fn vector_load_and_store() {
    let src = r#"
loop.kernel @double(%x: !loop.buffer<2x8xf32, global>, %y: !loop.buffer<2x8xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  loop.for serial %i = %c0 to %c2 step %c1 {
    loop.for vectorize(4) %j = %c0 to %c8 step %c4 {
      %v = loop.vload %x[%i, %j] : !loop.buffer<2x8xf32, global> -> vector<4xf32>
      %w = arith.addf %v, %v : vector<4xf32>
      loop.vstore %w, %y[%i, %j] : vector<4xf32>, !loop.buffer<2x8xf32, global>
      loop.yield
    }
    loop.yield
  }
  loop.return
}
"#;
    let x = inputs(16, 7);
    let mut args = [f32_buf(&[2, 8], &x), f32_buf(&[2, 8], &[0.0; 16])];
    run(src, "double", &mut args).unwrap();
    let want: Vec<f64> = x.iter().map(|v| v * 2.0).collect();
    assert_eq!(floats(&args[1]), want);
}

#[test]
fn f16_stores_round() {
    let src = r#"
loop.kernel @conv(%x: !loop.buffer<4xf32, global>, %y: !loop.buffer<4xf16, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  loop.for serial %i = %c0 to %c4 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<4xf32, global>
    %h = arith.truncf %v : f32 to f16
    loop.store %h, %y[%i] : !loop.buffer<4xf16, global>
    loop.yield
  }
  loop.return
}
"#;
    let x = [0.1, -1.7, 2.5, 1e-3];
    let mut args = [
        f32_buf(&[4], &x),
        KernelArg::Buffer(Literal::zeros(DType::F16, &[4])),
    ];
    run(src, "conv", &mut args).unwrap();
    let halves: Vec<f64> = x
        .iter()
        .map(|&v| FloatKind::F16.round(v as f32 as f64))
        .collect();
    assert_eq!(floats(&args[1]), halves);
}

#[test]
fn truncf_rounds_in_its_mode() {
    let src = r#"
loop.kernel @conv(%x: !loop.buffer<3xf32, global>, %d: !loop.buffer<3xf16, global>, %u: !loop.buffer<3xf16, global>, %z: !loop.buffer<3xf16, global>, %a: !loop.buffer<3xf16, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  loop.for serial %i = %c0 to %c3 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<3xf32, global>
    %hd = arith.truncf %v downward : f32 to f16
    loop.store %hd, %d[%i] : !loop.buffer<3xf16, global>
    %hu = arith.truncf %v upward : f32 to f16
    loop.store %hu, %u[%i] : !loop.buffer<3xf16, global>
    %hz = arith.truncf %v toward_zero : f32 to f16
    loop.store %hz, %z[%i] : !loop.buffer<3xf16, global>
    %ha = arith.truncf %v to_nearest_away : f32 to f16
    loop.store %ha, %a[%i] : !loop.buffer<3xf16, global>
    loop.yield
  }
  loop.return
}
"#;
    // 0.1 lies between the f16 values 0x2E66 and 0x2E67; 1 + 2^-11 halfway between 1 and the
    // next f16.
    let (below, above) = (0.0999755859375, 0.10003662109375);
    let (one, next) = (1.0, 1.0009765625);
    let x = [0.1, -0.1, 1.00048828125];
    let half = || KernelArg::Buffer(Literal::zeros(DType::F16, &[3]));
    let mut args = [f32_buf(&[3], &x), half(), half(), half(), half()];
    run(src, "conv", &mut args).unwrap();
    assert_eq!(floats(&args[1]), [below, -above, one]);
    assert_eq!(floats(&args[2]), [above, -below, next]);
    assert_eq!(floats(&args[3]), [below, -below, one]);
    assert_eq!(floats(&args[4]), [below, -below, next]);
}

#[test]
fn int_to_float_rounds_once() {
    let src = r#"
loop.kernel @conv(%x: !loop.buffer<2xi64, global>, %s: !loop.buffer<2xf32, global>, %u: !loop.buffer<2xf16, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  loop.for serial %i = %c0 to %c2 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<2xi64, global>
    %f = arith.sitofp %v : i64 to f32
    loop.store %f, %s[%i] : !loop.buffer<2xf32, global>
    %h = arith.uitofp %v : i64 to f16
    loop.store %h, %u[%i] : !loop.buffer<2xf16, global>
    loop.yield
  }
  loop.return
}
"#;
    // Just above the midpoint of two f32 values: through f64 it would land on the midpoint
    // and tie down; rounded once, as LLVM's sitofp does, it goes up. -1 is 2^64 - 1 unsigned,
    // beyond f16's range.
    let x = (1i64 << 60) + (1 << 36) + 1;
    let mut args = [
        KernelArg::Buffer(Literal::from_i64(DType::I64, &[2], &[x, -1])),
        f32_buf(&[2], &[0.0, 0.0]),
        KernelArg::Buffer(Literal::zeros(DType::F16, &[2])),
    ];
    run(src, "conv", &mut args).unwrap();
    assert_eq!(floats(&args[1]), [x as f32 as f64, -1.0]);
    assert_ne!(floats(&args[1])[0], x as f64 as f32 as f64);
    assert_eq!(floats(&args[2])[1], f64::INFINITY);
}

#[test]
fn math_ops_evaluate_in_f64() {
    let src = r#"
loop.kernel @math(%x: !loop.buffer<5xf64, global>, %erf: !loop.buffer<5xf64, global>, %mix: !loop.buffer<5xf64, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  loop.for serial %i = %c0 to %c5 step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<5xf64, global>
    %e = math.erf %v : f64
    loop.store %e, %erf[%i] : !loop.buffer<5xf64, global>
    %a = math.absf %v : f64
    %s = math.sqrt %a : f64
    %t = math.tanh %v : f64
    %r = math.fma %s, %t, %v : f64
    %f = math.floor %r : f64
    %m = arith.subf %r, %f : f64
    loop.store %m, %mix[%i] : !loop.buffer<5xf64, global>
    loop.yield
  }
  loop.return
}
"#;
    let x = [0.5, 1.0, -2.0, 3.5, 4.5];
    // erf from published tables (Abramowitz & Stegun 7.1; Wolfram for 3.5 and 4.5).
    let erf = [
        0.520_499_877_813_046_5,
        0.842_700_792_949_714_9,
        -0.995_322_265_018_952_7,
        0.999_999_256_901_627_7,
        0.999_999_999_803_383_9,
    ];
    let buf = |v: &[f64]| KernelArg::Buffer(Literal::from_f64(DType::F64, &[5], v));
    let mut args = [buf(&x), buf(&[0.0; 5]), buf(&[0.0; 5])];
    run(src, "math", &mut args).unwrap();
    assert_close(&floats(&args[1]), &erf, 1e-12);
    let mix: Vec<f64> = x
        .iter()
        .map(|&v: &f64| {
            let r = v.abs().sqrt().mul_add(v.tanh(), v);
            r - r.floor()
        })
        .collect();
    assert_eq!(floats(&args[2]), mix);
}

// ---------------------------------------------------------------------------------------------
// Errors.

const COPY: &str = r#"
loop.kernel @copy(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<8xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for serial %i = %c0 to %n step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<?xf32, global>
    loop.store %v, %y[%i] : !loop.buffer<8xf32, global>
    loop.yield
  }
  loop.return
}
"#;

#[test]
fn out_of_bounds_load_is_reported_at_the_load() {
    let mut args = [
        f32_buf(&[4], &[1.0; 4]),
        f32_buf(&[8], &[0.0; 8]),
        KernelArg::Index(5),
    ];
    let err = run(COPY, "copy", &mut args).unwrap_err();
    assert!(err.message.contains("out-of-bounds"), "{}", err.message);
    assert_eq!(line(&err), line_of(COPY, "loop.load"));
    // The writes before the failing access happened, and the buffers are given back.
    assert_eq!(floats(&args[1])[..4], [1.0; 4]);
}

#[test]
fn out_of_bounds_vector_access_is_reported() {
    let src = r#"
loop.kernel @vl(%x: !loop.buffer<6xf32, global>, %y: !loop.buffer<6xf32, global>) {
  %c4 = arith.constant 4 : index
  %v = loop.vload %x[%c4] : !loop.buffer<6xf32, global> -> vector<4xf32>
  loop.vstore %v, %y[%c4] : vector<4xf32>, !loop.buffer<6xf32, global>
  loop.return
}
"#;
    let mut args = [f32_buf(&[6], &[0.0; 6]), f32_buf(&[6], &[0.0; 6])];
    let err = run(src, "vl", &mut args).unwrap_err();
    assert!(
        err.message.contains("out-of-bounds vector access"),
        "{}",
        err.message
    );
    assert_eq!(line(&err), line_of(src, "loop.vload"));
}

#[test]
fn wrong_arguments_are_reported() {
    let ok = || {
        vec![
            f32_buf(&[4], &[1.0; 4]),
            f32_buf(&[8], &[0.0; 8]),
            KernelArg::Index(4),
        ]
    };
    let kernel_line = line_of(COPY, "loop.kernel");
    let mut few = ok();
    few.pop();
    let err = run(COPY, "copy", &mut few).unwrap_err();
    assert!(
        err.message.contains("takes 3 arguments but 2"),
        "{}",
        err.message
    );
    assert_eq!(line(&err), kernel_line);

    let mut swapped = ok();
    swapped[2] = f32_buf(&[1], &[0.0]);
    let err = run(COPY, "copy", &mut swapped).unwrap_err();
    assert!(err.message.contains("expected an index"), "{}", err.message);

    let mut index_for_buffer = ok();
    index_for_buffer[0] = KernelArg::Index(3);
    let err = run(COPY, "copy", &mut index_for_buffer).unwrap_err();
    assert!(err.message.contains("expected a buffer"), "{}", err.message);

    let mut dtype = ok();
    dtype[0] = KernelArg::Buffer(Literal::zeros(DType::F64, &[4]));
    let err = run(COPY, "copy", &mut dtype).unwrap_err();
    assert!(err.message.contains("argument #0"), "{}", err.message);

    let mut shape = ok();
    shape[1] = f32_buf(&[7], &[0.0; 7]);
    let err = run(COPY, "copy", &mut shape).unwrap_err();
    assert!(
        err.message.contains("does not match the declared dims"),
        "{}",
        err.message
    );
}

#[test]
fn barrier_in_divergent_code_is_an_error() {
    let src = r#"
loop.kernel @diverge(%y: !loop.buffer<32xf32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [32 : index, 1 : index, 1 : index]} {
  %c16 = arith.constant 16 : index
  %t = loop.thread_id x
  %low = arith.cmpi ult, %t, %c16 : index
  loop.if %low {
    loop.barrier
    loop.yield
  }
  loop.return
}
"#;
    let mut args = [f32_buf(&[32], &[0.0; 32])];
    let err = run(src, "diverge", &mut args).unwrap_err();
    assert!(
        err.message.contains("barrier divergence"),
        "{}",
        err.message
    );
    assert!(err.message.contains("16 of 32"), "{}", err.message);
    assert_eq!(line(&err), line_of(src, "loop.barrier"));
}

#[test]
fn threads_at_different_barriers_are_an_error() {
    let src = r#"
loop.kernel @two(%y: !loop.buffer<32xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  loop.for thread.x %t = %c0 to %c32 step %c1 {
    %low = arith.cmpi ult, %t, %c8 : index
    loop.if %low {
      loop.barrier
      loop.yield
    } else {
      loop.barrier {tag = "other"}
      loop.yield
    }
    loop.yield
  }
  loop.return
}
"#;
    let mut args = [f32_buf(&[32], &[0.0; 32])];
    let err = run(src, "two", &mut args).unwrap_err();
    assert!(err.message.contains("waits at another"), "{}", err.message);
    assert_eq!(err.notes.len(), 1);
    assert_eq!(line(&err.notes[0]), line_of(src, "tag = \"other\""));
}

#[test]
fn division_by_zero_is_reported() {
    let src = r#"
loop.kernel @div(%y: !loop.buffer<1xindex, global>, %d: index) {
  %c0 = arith.constant 0 : index
  %c7 = arith.constant 7 : index
  %q = arith.divsi %c7, %d : index
  loop.store %q, %y[%c0] : !loop.buffer<1xindex, global>
  loop.return
}
"#;
    let buf = || KernelArg::Buffer(Literal::zeros(DType::Index, &[1]));
    let mut args = [buf(), KernelArg::Index(2)];
    run(src, "div", &mut args).unwrap();
    let KernelArg::Buffer(b) = &args[0] else {
        unreachable!()
    };
    assert_eq!(b.to_i64_vec(), &[3]);
    let mut args = [buf(), KernelArg::Index(0)];
    let err = run(src, "div", &mut args).unwrap_err();
    assert!(err.message.contains("division by zero"), "{}", err.message);
    assert_eq!(line(&err), line_of(src, "arith.divsi"));
}

#[test]
fn rounding_divisions_and_unsigned_ops_follow_arith() {
    let src = r#"
loop.kernel @ops(%y: !loop.buffer<7xindex, global>, %f: !loop.buffer<3xf32, global>, %a: index, %b: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c6 = arith.constant 6 : index
  %na = arith.subi %c0, %a : index
  %nb = arith.subi %c0, %b : index
  %0 = arith.ceildivsi %na, %b : index
  %1 = arith.floordivsi %na, %b : index
  %2 = arith.ceildivui %a, %b : index
  %3 = arith.maxui %na, %b : index
  %4 = arith.minui %na, %b : index
  %5 = arith.floordivsi %a, %nb : index
  %n32 = arith.index_cast %na : index to i32
  %6 = arith.index_castui %n32 : i32 to index
  loop.store %0, %y[%c0] : !loop.buffer<7xindex, global>
  loop.store %1, %y[%c1] : !loop.buffer<7xindex, global>
  loop.store %2, %y[%c2] : !loop.buffer<7xindex, global>
  loop.store %3, %y[%c3] : !loop.buffer<7xindex, global>
  loop.store %4, %y[%c4] : !loop.buffer<7xindex, global>
  loop.store %5, %y[%c5] : !loop.buffer<7xindex, global>
  loop.store %6, %y[%c6] : !loop.buffer<7xindex, global>
  %nan = arith.constant 0x7FC00000 : f32
  %one = arith.constant 1.0 : f32
  %pz = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %m = arith.maxnumf %nan, %one : f32
  %z = arith.minnumf %pz, %nz : f32
  %u = arith.uitofp %n32 : i32 to f32
  loop.store %m, %f[%c0] : !loop.buffer<3xf32, global>
  loop.store %z, %f[%c1] : !loop.buffer<3xf32, global>
  loop.store %u, %f[%c2] : !loop.buffer<3xf32, global>
  loop.return
}
"#;
    let mut args = [
        KernelArg::Buffer(Literal::zeros(DType::Index, &[7])),
        f32_buf(&[3], &[0.0; 3]),
        KernelArg::Index(7),
        KernelArg::Index(2),
    ];
    run(src, "ops", &mut args).unwrap();
    let KernelArg::Buffer(b) = &args[0] else {
        unreachable!()
    };
    assert_eq!(b.to_i64_vec(), &[-3, -4, 4, -7, 2, -4, (1 << 32) - 7]);
    let got = floats(&args[1]);
    assert_eq!(got[0], 1.0);
    assert!(got[1] == 0.0 && got[1].is_sign_negative());
    assert_eq!(got[2], 4294967289.0f32 as f64);
}

#[test]
fn unsupported_op_is_reported() {
    let src = r#"
loop.kernel @odd(%y: !loop.buffer<1xf32, global>) {
  "test.mystery"() : () -> ()
  loop.return
}
"#;
    let mut args = [f32_buf(&[1], &[0.0])];
    let err = run(src, "odd", &mut args).unwrap_err();
    assert!(
        err.message.contains("does not support 'test.mystery'"),
        "{}",
        err.message
    );
    assert_eq!(line(&err), line_of(src, "test.mystery"));
}

// ---------------------------------------------------------------------------------------------
// The strict grid simulation: what a GPU leaves undefined is an error at the op.

/// Runs `src`'s kernel `name` on one f32 buffer of 64 elements and returns its error.
fn strict_err(src: &str, name: &str) -> Diagnostic {
    let mut args = [f32_buf(&[64], &[1.0; 64])];
    run(src, name, &mut args).unwrap_err()
}

fn assert_mentions(err: &Diagnostic, parts: &[&str]) {
    for part in parts {
        assert!(
            err.message.contains(part),
            "no '{part}' in: {}",
            err.message
        );
    }
}

#[test]
fn shuffle_in_a_16_thread_block_combines_the_lanes_that_exist() {
    // A partial warp's members are its lanes below the block size, as the member mask the
    // code generator builds for a 16-thread block (0xffff).
    let src = r#"
loop.kernel @half(%y: !loop.buffer<64xf32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [16 : index, 1 : index, 1 : index]} {
  %t = loop.thread_id x
  %v = loop.load %y[%t] : !loop.buffer<64xf32, global>
  %s = loop.warp_reduce %v {kind = "add"} : f32
  loop.store %s, %y[%t] : !loop.buffer<64xf32, global>
  loop.return
}
"#;
    let mut args = [f32_buf(&[64], &[1.0; 64])];
    run(src, "half", &mut args).expect("16 lanes shuffle");
    let y = floats(&args[0]);
    assert_eq!(&y[..16], &[16.0; 16]);
    assert_eq!(&y[16..], &[1.0; 48]);
}

#[test]
fn warp_shuffle_with_finished_lanes_is_an_error() {
    let src = r#"
loop.kernel @early(%y: !loop.buffer<64xf32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [64 : index, 1 : index, 1 : index]} {
  %c40 = arith.constant 40 : index
  %t = loop.thread_id x
  %low = arith.cmpi ult, %t, %c40 : index
  loop.if %low {
    %v = loop.load %y[%t] : !loop.buffer<64xf32, global>
    %s = loop.warp_reduce %v {kind = "add"} : f32
    loop.store %s, %y[%t] : !loop.buffer<64xf32, global>
    loop.yield
  }
  loop.return
}
"#;
    // Warp 0 has all its lanes at the shuffle; warp 1 only lanes 0..7.
    let err = strict_err(src, "early");
    assert_mentions(&err, &["warp 1", "lanes 8..31 finished", "[40, 0, 0]"]);
    assert_eq!(line(&err), line_of(src, "loop.warp_reduce"));
}

/// A kernel of 32 threads that stage their element of `%y` in shared memory and read their
/// mirror's, with `barrier` between the store and the load.
fn mirror_kernel(barrier: &str) -> String {
    format!(
        r#"
loop.kernel @mirror(%y: !loop.buffer<64xf32, global>) attributes {{grid = [1 : index, 1 : index, 1 : index], block = [32 : index, 1 : index, 1 : index]}} {{
  %c31 = arith.constant 31 : index
  %s = loop.alloc : !loop.buffer<32xf32, shared>
  %t = loop.thread_id x
  %v = loop.load %y[%t] : !loop.buffer<64xf32, global>
  loop.store %v, %s[%t] : !loop.buffer<32xf32, shared>
  {barrier}
  %r = arith.subi %c31, %t : index
  %w = loop.load %s[%r] : !loop.buffer<32xf32, shared>
  loop.store %w, %y[%t] : !loop.buffer<64xf32, global>
  loop.return
}}
"#
    )
}

#[test]
fn shared_race_without_a_barrier_is_an_error() {
    let src = mirror_kernel("");
    let err = strict_err(&src, "mirror");
    // Thread 0 runs first and reads element 31 before thread 31 writes it: an uninitialised
    // read, which the error (at the value's use) says a barrier would order.
    assert_mentions(
        &err,
        &[
            "thread [0, 0, 0] uses a value read from uninitialised element [31]",
            "'loop.barrier'",
        ],
    );
    assert_eq!(line(&err), line_of(&src, "loop.store %w, %y"));
    assert_eq!(line(&err.notes[0]), line_of(&src, "%w = loop.load"));

    // The same exchange with the data written in an earlier interval but overwritten in this
    // one: a read-write race naming the buffer, the element and both threads.
    let src = r#"
loop.kernel @race(%y: !loop.buffer<64xf32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [32 : index, 1 : index, 1 : index]} {
  %c31 = arith.constant 31 : index
  %s = loop.alloc : !loop.buffer<32xf32, shared>
  %t = loop.thread_id x
  %v = loop.load %y[%t] : !loop.buffer<64xf32, global>
  loop.store %v, %s[%t] : !loop.buffer<32xf32, shared>
  loop.barrier
  %r = arith.subi %c31, %t : index
  %w = loop.load %s[%r] : !loop.buffer<32xf32, shared>
  loop.store %w, %s[%t] : !loop.buffer<32xf32, shared>
  loop.return
}
"#;
    // Threads run in order: thread 15 overwrites element 15, which thread 16 then reads.
    let err = strict_err(src, "race");
    assert_mentions(
        &err,
        &[
            "data race on element [15] of the buffer !loop.buffer<32xf32, shared>",
            "thread [16, 0, 0] reads it and thread [15, 0, 0] writes it",
        ],
    );
    assert_eq!(line(&err), line_of(src, "%w = loop.load"));
    assert_eq!(err.notes.len(), 1);
    assert_eq!(line(&err.notes[0]), line_of(src, "loop.store %w, %s"));
}

#[test]
fn shared_exchange_with_the_barrier_runs() {
    let src = mirror_kernel("loop.barrier");
    let x: Vec<f64> = (0..64).map(|v| v as f64).collect();
    let mut args = [f32_buf(&[64], &x)];
    run(&src, "mirror", &mut args).unwrap();
    let got = floats(&args[0]);
    let want: Vec<f64> = (0..32).rev().chain(32..64).map(|v| v as f64).collect();
    assert_eq!(got, want);
}

#[test]
fn shared_write_write_race_is_an_error() {
    let src = r#"
loop.kernel @same(%y: !loop.buffer<64xf32, global>) attributes {grid = [2 : index, 1 : index, 1 : index], block = [64 : index, 1 : index, 1 : index]} {
  %c0 = arith.constant 0 : index
  %s = loop.alloc : !loop.buffer<4xf32, shared>
  %t = loop.thread_id x
  %v = loop.load %y[%t] : !loop.buffer<64xf32, global>
  loop.store %v, %s[%c0] : !loop.buffer<4xf32, shared>
  loop.return
}
"#;
    let err = strict_err(src, "same");
    assert_mentions(
        &err,
        &[
            "element [0]",
            "block [0, 0, 0]",
            "thread [1, 0, 0] writes it and thread [0, 0, 0] writes it",
        ],
    );
}

/// A kernel of 8 threads that write row 1 of a shared buffer and read row `row`, passing
/// the value through `arith.select %keep` (`%keep` is true in threads below 4).
fn stale_kernel(row: &str) -> String {
    format!(
        r#"
loop.kernel @stale(%y: !loop.buffer<64xf32, global>) attributes {{grid = [1 : index, 1 : index, 1 : index], block = [8 : index, 1 : index, 1 : index]}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %s = loop.alloc : !loop.buffer<2x8xf32, shared>
  %t = loop.thread_id x
  %v = loop.load %y[%t] : !loop.buffer<64xf32, global>
  loop.store %v, %s[%c1, %t] : !loop.buffer<2x8xf32, shared>
  loop.barrier
  %w = loop.load %s[{row}, %t] : !loop.buffer<2x8xf32, shared>
  %keep = arith.cmpi ult, %t, %c4 : index
  %u = arith.select %keep, %zero, %w : f32
  loop.store %u, %y[%t] : !loop.buffer<64xf32, global>
  loop.return
}}
"#
    )
}

#[test]
fn uninitialised_shared_read_is_an_error_where_used() {
    // Threads 0..3 discard the unwritten element (as a block reduction's expansion does with
    // the slots beyond its warps); thread 4 stores it.
    let src = stale_kernel("%c0");
    let err = strict_err(&src, "stale");
    assert_mentions(
        &err,
        &["thread [4, 0, 0] uses a value read from uninitialised element [0, 4] of the buffer !loop.buffer<2x8xf32, shared>"],
    );
    assert_eq!(line(&err), line_of(&src, "loop.store %u"));
    assert_eq!(line(&err.notes[0]), line_of(&src, "%w = loop.load"));
    assert_eq!(line(&err.notes[1]), line_of(&src, "loop.alloc"));

    let src = stale_kernel("%c1");
    let mut args = [f32_buf(&[64], &[2.0; 64])];
    run(&src, "stale", &mut args).unwrap();
    assert_eq!(
        floats(&args[0])[..8],
        [0.0, 0.0, 0.0, 0.0, 2.0, 2.0, 2.0, 2.0]
    );
}

#[test]
fn local_buffers_are_fresh_each_time_their_alloc_runs() {
    // The first iteration writes the register, the second reads a new, unwritten one.
    let src = r#"
loop.kernel @fresh(%y: !loop.buffer<64xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  loop.for serial %i = %c0 to %c2 step %c1 {
    %r = loop.alloc : !loop.buffer<f32, local>
    %first = arith.cmpi eq, %i, %c0 : index
    loop.if %first {
      %v = loop.load %y[%i] : !loop.buffer<64xf32, global>
      loop.store %v, %r[] : !loop.buffer<f32, local>
      loop.yield
    }
    %w = loop.load %r[] : !loop.buffer<f32, local>
    loop.store %w, %y[%i] : !loop.buffer<64xf32, global>
    loop.yield
  }
  loop.return
}
"#;
    let err = strict_err(src, "fresh");
    assert_mentions(
        &err,
        &["uses a value read from uninitialised element [] of the buffer !loop.buffer<f32, local>"],
    );
    assert_eq!(line(&err), line_of(src, "loop.store %w"));
}

#[test]
fn a_block_of_2048_threads_is_an_error() {
    let src = r#"
loop.kernel @big(%y: !loop.buffer<64xf32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [2048 : index, 1 : index, 1 : index]} {
  loop.return
}
"#;
    let err = strict_err(src, "big");
    assert_mentions(&err, &["block of 2048 threads", "limit of 1024"]);
    assert_eq!(line(&err), line_of(src, "loop.kernel"));
}

#[test]
fn launch_dims_beyond_the_device_are_errors() {
    let src = r#"
loop.kernel @tall(%y: !loop.buffer<64xf32, global>) attributes {grid = [1 : index, 65536 : index, 1 : index], block = [1 : index, 1 : index, 128 : index]} {
  loop.return
}
"#;
    assert_mentions(
        &strict_err(src, "tall"),
        &["block dim z is 128, over the limit of 64"],
    );
    let src = src.replace("128 : index]", "64 : index]");
    assert_mentions(
        &strict_err(&src, "tall"),
        &["grid dim y is 65536, over the limit of 65535"],
    );
}

#[test]
fn shared_memory_over_48_kib_is_an_error() {
    let src = r#"
loop.kernel @wide(%y: !loop.buffer<64xf32, global>) attributes {grid = [1 : index, 1 : index, 1 : index], block = [32 : index, 1 : index, 1 : index]} {
  %a = loop.alloc : !loop.buffer<16384xf32, shared>
  %b = loop.alloc : !loop.buffer<32xf32, shared>
  loop.return
}
"#;
    let err = strict_err(src, "wide");
    assert_mentions(&err, &["65664 bytes per block", "limit of 49152"]);
    assert_eq!(line(&err), line_of(src, "loop.kernel"));
    assert_eq!(line(&err.notes[0]), line_of(src, "16384xf32"));
}

/// `arith.maximumf` and `arith.minimumf` elementwise, as the CPU code runs them
/// (`llvm.maximum`/`llvm.minimum`): +0 is above -0, and a NaN wins.
const MAX_MIN: &str = r#"
loop.kernel @max_min(%a: !loop.buffer<4xf32, global>, %b: !loop.buffer<4xf32, global>, %hi: !loop.buffer<4xf32, global>, %lo: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  loop.for serial %i = %c0 to %c4 step %c1 {
    %x = loop.load %a[%i] : !loop.buffer<4xf32, global>
    %y = loop.load %b[%i] : !loop.buffer<4xf32, global>
    %h = arith.maximumf %x, %y : f32
    %l = arith.minimumf %x, %y : f32
    loop.store %h, %hi[%i] : !loop.buffer<4xf32, global>
    loop.store %l, %lo[%i] : !loop.buffer<4xf32, global>
  }
  loop.return
}
"#;

#[test]
fn maximumf_and_minimumf_order_signed_zeros_and_propagate_nan() {
    let a = [-0.0, 0.0, f64::NAN, 1.0];
    let b = [0.0, -0.0, 2.0, f64::NAN];
    let mut args = [
        f32_buf(&[4], &a),
        f32_buf(&[4], &b),
        f32_buf(&[4], &[7.0; 4]),
        f32_buf(&[4], &[7.0; 4]),
    ];
    run(MAX_MIN, "max_min", &mut args).unwrap();
    let (hi, lo) = (floats(&args[2]), floats(&args[3]));
    let bits = |v: &[f64]| v[..2].iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&hi),
        [0.0f64.to_bits(); 2],
        "max(-0, +0) is +0: {hi:?}"
    );
    assert_eq!(
        bits(&lo),
        [(-0.0f64).to_bits(); 2],
        "min(-0, +0) is -0: {lo:?}"
    );
    assert!(
        hi[2..].iter().chain(&lo[2..]).all(|x| x.is_nan()),
        "{hi:?} {lo:?}"
    );
}
