//! The host interpreter (`run_host`): host functions that allocate, make constants and arena
//! views, query dims and launch kernels, checked against plain Rust; in-place aliasing when one
//! view is passed twice; and run-time errors (unsupported ops, misaligned or out-of-range
//! views, overlapping launch arguments, wrong arguments), which must come back as diagnostics.

use dlc_ir::{Context, Diagnostic, Op};
use dlc_loop::interp::{run_host, run_host_traced, KernelArg};
use dlc_tensor::{DType, Literal};

/// Parses and verifies `src`; returns the context and the module.
fn parse(src: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_func::dialect());
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

/// The symbol `name` (a function or kernel) of `module`; `host_calls` and `read_size` look
/// theirs up with it too.
pub(crate) fn symbol(ctx: &Context, module: Op, name: &str) -> Op {
    let mut found = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.attr(op, "sym_name").and_then(|a| ctx.attr_as_str(a)) == Some(name) {
            found = Some(op);
        }
    });
    found.unwrap_or_else(|| panic!("no symbol @{name}"))
}

/// Parses `src` and runs its host function `name` on `args`.
fn run(src: &str, name: &str, args: Vec<KernelArg>) -> Result<Vec<KernelArg>, Diagnostic> {
    let (ctx, module) = parse(src);
    let f = symbol(&ctx, module, name);
    run_host(&ctx, f, args)
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

fn shape(arg: &KernelArg) -> Vec<usize> {
    match arg {
        KernelArg::Buffer(b) => b.shape().to_vec(),
        KernelArg::Index(_) => panic!("not a buffer"),
    }
}

/// The kernels of tools/fixtures/host/kernels.mlir (among them `@accumulate`, an in-place
/// `x[i] += y[i]`), then `@scale_bias`: `out[i, j] = x[i, j] * 2 + b[j]` on `[n, 4]` buffers.
const KERNELS: &str = concat!(
    include_str!("../../../../tools/fixtures/host/kernels.mlir"),
    r#"
loop.kernel @scale_bias(%x: !loop.buffer<?x4xf32, global>, %b: !loop.buffer<4xf32, global>, %out: !loop.buffer<?x4xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  loop.for serial %i = %c0 to %n step %c1 {
    loop.for serial %j = %c0 to %c4 step %c1 {
      %v = loop.load %x[%i, %j] : !loop.buffer<?x4xf32, global>
      %w = loop.load %b[%j] : !loop.buffer<4xf32, global>
      %s = arith.mulf %v, %two : f32
      %r = arith.addf %s, %w : f32
      loop.store %r, %out[%i, %j] : !loop.buffer<?x4xf32, global>
    }
  }
  loop.return
}
"#
);

fn program(host: &str) -> String {
    format!("{KERNELS}\n{host}")
}

#[test]
fn alloc_launch_return() {
    let src = program(
        r#"
func.func @main(%x: !loop.buffer<?x4xf32, global>) -> (!loop.buffer<?x4xf32, global>, index) {
  %n = loop.dim %x, 0 : !loop.buffer<?x4xf32, global>
  %b = loop.constant dense<[0.5, 1.0, 1.5, 2.0]> : !loop.buffer<4xf32, global>
  %out = loop.alloc(%n) : !loop.buffer<?x4xf32, global>
  loop.launch @scale_bias(%x, %b, %out, %n) : (!loop.buffer<?x4xf32, global>, !loop.buffer<4xf32, global>, !loop.buffer<?x4xf32, global>, index) -> ()
  %c1 = arith.constant 1 : index
  %m = arith.addi %n, %c1 : index
  return %out, %m : !loop.buffer<?x4xf32, global>, index
}
"#,
    );
    let x: Vec<f64> = (0..12).map(|i| i as f64 - 3.0).collect();
    let results = run(&src, "main", vec![f32_buf(&[3, 4], &x)]).unwrap();
    assert_eq!(results.len(), 2);
    let bias = [0.5, 1.0, 1.5, 2.0];
    let expected: Vec<f64> = (0..12).map(|k| x[k] * 2.0 + bias[k % 4]).collect();
    assert_eq!(shape(&results[0]), vec![3, 4]);
    assert_eq!(floats(&results[0]), expected);
    assert_eq!(results[1], KernelArg::Index(4));
}

#[test]
fn host_alloc_is_zero_filled_and_constants_decode() {
    let src = r#"
func.func @main() -> (!loop.buffer<2x3xi32, global>, !loop.buffer<3xi1, global>, !loop.buffer<2xf16, global>, !loop.buffer<2xindex, global>) {
  %z = loop.alloc : !loop.buffer<2x3xi32, global>
  %b = loop.constant dense<[true, false, true]> : !loop.buffer<3xi1, global>
  %h = loop.constant dense<[0.1, -2.5]> : !loop.buffer<2xf16, global>
  %i = loop.constant dense<[-7, 9]> : !loop.buffer<2xindex, global>
  return %z, %b, %h, %i : !loop.buffer<2x3xi32, global>, !loop.buffer<3xi1, global>, !loop.buffer<2xf16, global>, !loop.buffer<2xindex, global>
}
"#;
    let r = run(src, "main", vec![]).unwrap();
    let KernelArg::Buffer(z) = &r[0] else {
        panic!()
    };
    assert_eq!(z.to_i64_vec(), &[0; 6]);
    let KernelArg::Buffer(b) = &r[1] else {
        panic!()
    };
    assert_eq!(b.to_bool_vec(), &[true, false, true]);
    let KernelArg::Buffer(h) = &r[2] else {
        panic!()
    };
    let f16 = dlc_ir::FloatKind::F16;
    assert_eq!(h.to_f64_vec(), &[f16.round(0.1), -2.5]);
    let KernelArg::Buffer(i) = &r[3] else {
        panic!()
    };
    assert_eq!(i.to_i64_vec(), &[-7, 9]);
}

#[test]
fn arena_views_at_different_offsets() {
    // Two 4-element f32 views of one 64-byte arena, at bytes 0 and 32; the arena is returned
    // too, so the test sees where the kernel wrote.
    let src = program(
        r#"
func.func @main(%x: !loop.buffer<4xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xi8, global>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %arena = loop.alloc(%c64) : !loop.buffer<?xi8, global>
  %a = loop.view %arena[%c0](%c4) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  %b = loop.view %arena[%c32](%c4) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  %xs = loop.view %arena[%c32] : !loop.buffer<?xi8, global> -> !loop.buffer<4xf32, global>
  loop.launch @accumulate(%a, %x, %c4) : (!loop.buffer<?xf32, global>, !loop.buffer<4xf32, global>, index) -> ()
  loop.launch @accumulate(%b, %a, %c4) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  loop.launch @accumulate(%xs, %a, %c4) : (!loop.buffer<4xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %a, %b, %arena : !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xi8, global>
}
"#,
    );
    let x = [1.0, 2.0, 3.0, 4.0];
    let r = run(&src, "main", vec![f32_buf(&[4], &x)]).unwrap();
    // a = 0 + x; b = 0 + a; then xs (the same bytes as b) += a.
    assert_eq!(floats(&r[0]), x);
    assert_eq!(floats(&r[1]), [2.0, 4.0, 6.0, 8.0]);
    let KernelArg::Buffer(arena) = &r[2] else {
        panic!()
    };
    let bytes = arena.to_i64_vec();
    assert_eq!(bytes.len(), 64);
    let word = |k: usize| {
        let b: Vec<u8> = bytes[k..k + 4].iter().map(|&v| v as u8).collect();
        f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64
    };
    assert_eq!(word(4), 2.0);
    assert_eq!(word(36), 4.0);
    assert!(bytes[16..32].iter().all(|&v| v == 0));
}

/// `x += x` with both arguments the same buffer, then `v += x` and `v += w` where `v` and `w`
/// are identical views of one arena.
const ALIASING: &str = r#"
func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  loop.launch @accumulate(%x, %x, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %bytes = arith.muli %n, %c4 : index
  %arena = loop.alloc(%bytes) : !loop.buffer<?xi8, global>
  %v = loop.view %arena[%c0](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  %w = loop.view %arena[%c0](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  loop.launch @accumulate(%v, %x, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  loop.launch @accumulate(%v, %w, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %w : !loop.buffer<?xf32, global>
}
"#;

#[test]
fn same_view_twice_aliases() {
    // x += x with both arguments the same buffer doubles x; with two copies, writing the
    // unchanged second copy back would undo it. Then two identical views of one arena (distinct
    // values, same bytes) are also one buffer: v = x, v += w doubles again.
    let src = program(ALIASING);
    let r = run(&src, "main", vec![f32_buf(&[3], &[1.0, -2.0, 0.5])]).unwrap();
    assert_eq!(floats(&r[0]), [4.0, -8.0, 2.0]);
}

#[test]
fn a_traced_run_reports_every_launch() {
    // The three launches of `ALIASING`, each with what the kernel got and left;
    // the first and the last name one buffer twice.
    let src = program(ALIASING);
    let (ctx, module) = parse(&src);
    let f = symbol(&ctx, module, "main");
    let mut launches = Vec::new();
    let r = run_host_traced(&ctx, f, vec![f32_buf(&[3], &[1.0, -2.0, 0.5])], &mut |l| {
        launches.push(l)
    })
    .unwrap();
    assert_eq!(floats(&r[0]), [4.0, -8.0, 2.0]);
    let aliased: Vec<bool> = launches.iter().map(|l| l.aliased).collect();
    assert_eq!(aliased, [true, false, true]);
    assert_eq!(launches[1].kernel, symbol(&ctx, module, "accumulate"));
    // The second launch: v (zeros) += x (doubled by the first).
    assert_eq!(floats(&launches[1].before[0]), [0.0, 0.0, 0.0]);
    assert_eq!(floats(&launches[1].after[0]), [2.0, -4.0, 1.0]);
    assert_eq!(floats(&launches[1].after[1]), [2.0, -4.0, 1.0]);
    assert_eq!(launches[1].after[2], KernelArg::Index(3));
}

#[test]
fn aliasing_is_visible_inside_the_kernel() {
    // A kernel that reads y[0] after writing x[0]: with x and y the same buffer it sees its own
    // write, which two copies would hide.
    let src = r#"
loop.kernel @probe(%x: !loop.buffer<2xf32, global>, %y: !loop.buffer<2xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %seven = arith.constant 7.0 : f32
  loop.store %seven, %x[%c0] : !loop.buffer<2xf32, global>
  %v = loop.load %y[%c0] : !loop.buffer<2xf32, global>
  loop.store %v, %x[%c1] : !loop.buffer<2xf32, global>
  loop.return
}

func.func @main() -> (!loop.buffer<2xf32, global>, !loop.buffer<2xf32, global>) {
  %a = loop.alloc : !loop.buffer<2xf32, global>
  loop.launch @probe(%a, %a) : (!loop.buffer<2xf32, global>, !loop.buffer<2xf32, global>) -> ()
  %b = loop.alloc : !loop.buffer<2xf32, global>
  %c = loop.alloc : !loop.buffer<2xf32, global>
  loop.launch @probe(%b, %c) : (!loop.buffer<2xf32, global>, !loop.buffer<2xf32, global>) -> ()
  return %a, %b : !loop.buffer<2xf32, global>, !loop.buffer<2xf32, global>
}
"#;
    let r = run(src, "main", vec![]).unwrap();
    assert_eq!(floats(&r[0]), [7.0, 7.0]);
    assert_eq!(floats(&r[1]), [7.0, 0.0]);
}

#[test]
fn roundeven_rounds_half_to_even() {
    let src = r#"
loop.kernel @round(%x: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for serial %i = %c0 to %n step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<?xf32, global>
    %r = math.roundeven %v : f32
    loop.store %r, %x[%i] : !loop.buffer<?xf32, global>
  }
  loop.return
}

func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  loop.launch @round(%x, %n) : (!loop.buffer<?xf32, global>, index) -> ()
  return %x : !loop.buffer<?xf32, global>
}
"#;
    let r = run(
        src,
        "main",
        vec![f32_buf(&[5], &[0.5, 1.5, 2.5, -0.5, 2.6])],
    )
    .unwrap();
    assert_eq!(floats(&r[0]), [0.0, 2.0, 2.0, -0.0, 3.0]);
}

/// Runs `host` (with the shared kernels) and returns its error message.
fn error(host: &str, args: Vec<KernelArg>) -> String {
    match run(&program(host), "main", args) {
        Ok(r) => panic!("expected an error, got {r:?}"),
        Err(d) => d.message,
    }
}

#[test]
fn unsupported_op() {
    let msg = error(
        r#"
func.func @callee() {
  return
}
func.func @main() {
  func.call @callee() : () -> ()
  return
}
"#,
        vec![],
    );
    assert!(
        msg.contains("'func.call' is not supported in a host function"),
        "{msg}"
    );
}

#[test]
fn misaligned_and_out_of_range_views() {
    let view = |offset: i64, len: i64| {
        format!(
            r#"
func.func @main() {{
  %o = arith.constant {offset} : index
  %n = arith.constant {len} : index
  %c64 = arith.constant 64 : index
  %arena = loop.alloc(%c64) : !loop.buffer<?xi8, global>
  %v = loop.view %arena[%o](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  return
}}
"#
        )
    };
    let msg = error(&view(2, 1), vec![]);
    assert!(
        msg.contains("not a non-negative multiple of the element size 4"),
        "{msg}"
    );
    let msg = error(&view(-4, 1), vec![]);
    assert!(msg.contains("not a non-negative multiple"), "{msg}");
    let msg = error(&view(60, 2), vec![]);
    assert!(
        msg.contains("out of range of an arena of 64 bytes"),
        "{msg}"
    );
    let msg = error(&view(0, -1), vec![]);
    assert!(msg.contains("negative buffer size -1"), "{msg}");
    let msg = error(&view(0, i64::MAX), vec![]);
    assert!(msg.contains("exceeds the host limit"), "{msg}");
    let msg = error(&view(i64::MAX - 3, 1), vec![]);
    assert!(msg.contains("out of range"), "{msg}");
}

#[test]
fn bad_allocations() {
    let alloc = |dims: &str, sizes: &str| {
        format!(
            r#"
func.func @main(%a: index, %b: index) {{
  %x = loop.alloc({sizes}) : !loop.buffer<{dims}xf64, global>
  return
}}
"#
        )
    };
    let msg = error(
        &alloc("?", "%a"),
        vec![KernelArg::Index(-5), KernelArg::Index(0)],
    );
    assert!(msg.contains("negative buffer size -5"), "{msg}");
    let msg = error(
        &alloc("?x?", "%a, %b"),
        vec![KernelArg::Index(1 << 40), KernelArg::Index(1 << 40)],
    );
    assert!(msg.contains("exceeds the host limit"), "{msg}");
}

#[test]
fn overlapping_views() {
    let msg = error(
        r#"
func.func @main() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %arena = loop.alloc(%c64) : !loop.buffer<?xi8, global>
  %a = loop.view %arena[%c0](%c4) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  %b = loop.view %arena[%c8](%c4) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  loop.launch @accumulate(%a, %b, %c4) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return
}
"#,
        vec![],
    );
    assert!(msg.contains("launch arguments #0 and #1 overlap"), "{msg}");
}

#[test]
fn same_view_for_a_noalias_argument() {
    // Two views of one arena at the same offset are one buffer at run time; the verifier
    // cannot tell (the sizes are dynamic), the launch can: `loop.noalias` forbids it, since
    // the kernel writes one of them.
    let msg = error(
        r#"
loop.kernel @add_into(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global> {loop.noalias}, %n: index) {
  %c0 = arith.constant 0 : index
  %v = loop.load %x[%c0] : !loop.buffer<?xf32, global>
  loop.store %v, %y[%c0] : !loop.buffer<?xf32, global>
  loop.return
}

func.func @main(%n: index) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %bytes = arith.muli %n, %c4 : index
  %arena = loop.alloc(%bytes) : !loop.buffer<?xi8, global>
  %v = loop.view %arena[%c0](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  %w = loop.view %arena[%c0](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  loop.launch @add_into(%v, %w, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return
}
"#,
        vec![KernelArg::Index(4)],
    );
    assert!(
        msg.contains("launch arguments #0 and #1 are the same buffer, which the kernel writes, but argument #1 of kernel 'add_into' is 'loop.noalias'"),
        "{msg}"
    );
}

#[test]
fn wrong_arguments() {
    let host = r#"
func.func @main(%x: !loop.buffer<?x4xf32, global>, %n: index) {
  return
}
"#;
    let msg = error(host, vec![f32_buf(&[2, 3], &[0.0; 6]), KernelArg::Index(1)]);
    assert!(msg.contains("argument #0: buffer of shape [2, 3]"), "{msg}");
    let f64_buf = Literal::from_f64(DType::F64, &[2, 4], &[0.0; 8]);
    let msg = error(host, vec![KernelArg::Buffer(f64_buf), KernelArg::Index(1)]);
    assert!(
        msg.contains("argument #0: expected Some(F32) elements"),
        "{msg}"
    );
    let msg = error(host, vec![KernelArg::Index(1), KernelArg::Index(1)]);
    assert!(msg.contains("expected a buffer, got an index"), "{msg}");
    let msg = error(host, vec![f32_buf(&[2, 4], &[0.0; 8])]);
    assert!(msg.contains("takes 2 arguments but 1 were given"), "{msg}");
}

#[test]
fn launch_checks_dynamic_dims_at_run_time() {
    // A `?x4` buffer passed to a kernel that wants `4` rows: fine statically, checked on launch.
    let src = r#"
loop.kernel @four(%x: !loop.buffer<4xf32, global>) {
  loop.return
}

func.func @main(%x: !loop.buffer<?xf32, global>) {
  loop.launch @four(%x) : (!loop.buffer<?xf32, global>) -> ()
  return
}
"#;
    assert!(run(src, "main", vec![f32_buf(&[4], &[0.0; 4])]).is_ok());
    let err = run(src, "main", vec![f32_buf(&[3], &[0.0; 3])]).unwrap_err();
    assert!(
        err.message
            .contains("buffer of shape [3] does not match the declared dims [4]"),
        "{}",
        err.message
    );
}

#[test]
fn kernel_errors_come_back_and_dim_runs_in_kernels() {
    // The kernel's own run-time errors come back through the launch.
    let msg = error(
        r#"
func.func @main(%x: !loop.buffer<?xf32, global>) {
  %c9 = arith.constant 9 : index
  loop.launch @accumulate(%x, %x, %c9) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return
}
"#,
        vec![f32_buf(&[2], &[0.0; 2])],
    );
    assert!(msg.contains("out-of-bounds"), "{msg}");
    // `loop.dim` also runs inside kernels.
    let src = r#"
loop.kernel @fill(%x: !loop.buffer<?xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  loop.for serial %i = %c0 to %n step %c1 {
    loop.store %one, %x[%i] : !loop.buffer<?xf32, global>
  }
  loop.return
}

func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  loop.launch @fill(%x) : (!loop.buffer<?xf32, global>) -> ()
  return %x : !loop.buffer<?xf32, global>
}
"#;
    let r = run(src, "main", vec![f32_buf(&[3], &[0.0; 3])]).unwrap();
    assert_eq!(floats(&r[0]), [1.0, 1.0, 1.0]);
}

#[test]
fn builders_make_a_runnable_host_function() {
    use dlc_ir::{DenseValue, Location, Type, DYNAMIC};
    use dlc_loop::{buffer_type, MemorySpace};
    let src = program(
        r#"
func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  return %x : !loop.buffer<?xf32, global>
}
"#,
    );
    let (mut ctx, module) = parse(&src);
    let main = symbol(&ctx, module, "main");
    let entry = ctx.blocks(ctx.region(main, 0))[0];
    let x = ctx.block_args(entry)[0];
    let at = dlc_loop::before_terminator(&ctx, entry);
    let loc = Location::Unknown;
    let n = dlc_loop::build_dim(&mut ctx, at, x, 0, loc);
    let c0 = dlc_arith::build_index_constant(&mut ctx, at, 0, loc);
    let c0 = ctx.result(c0, 0);
    let c16 = dlc_arith::build_index_constant(&mut ctx, at, 16, loc);
    let c16 = ctx.result(c16, 0);
    let arena_ty = buffer_type(&mut ctx, &[DYNAMIC], Type::I8, MemorySpace::Global);
    let arena = dlc_loop::build_alloc(&mut ctx, at, arena_ty, &[c16], loc);
    let dyn_f32 = buffer_type(&mut ctx, &[DYNAMIC], Type::F32, MemorySpace::Global);
    let view = dlc_loop::build_view(&mut ctx, at, arena, c0, &[n], dyn_f32, loc);
    let four = buffer_type(&mut ctx, &[4], Type::F32, MemorySpace::Global);
    let tensor = ctx.tensor_type(&[4], Type::F32);
    let values: Vec<DenseValue> = (1..=4).map(|i| DenseValue::Float(i as f64)).collect();
    let value = ctx.dense_attr(tensor, &values);
    let k = dlc_loop::build_constant(&mut ctx, at, value, four, loc);
    let launch = dlc_loop::build_launch(&mut ctx, at, "accumulate", &[view, k, n], loc);
    dlc_loop::build_launch(&mut ctx, at, "accumulate", &[x, view, n], loc);
    dlc_ir::verify(&ctx, module).unwrap();
    assert_eq!(launch.callee_name(&ctx), Some("accumulate"));
    assert_eq!(launch.args(&ctx), &[view, k, n]);
    let dim = ctx
        .defining_op(n)
        .and_then(|op| ctx.view::<dlc_loop::DimOp>(op))
        .unwrap();
    assert_eq!((dim.buffer(&ctx), dim.axis_index(&ctx)), (x, Some(0)));
    assert_eq!(dlc_loop::elem_size_bytes(&ctx, Type::BF16), Some(2));
    assert_eq!(dlc_loop::elem_size_bytes(&ctx, Type::INDEX), Some(8));

    // The printed text reads back to the same text, and the function runs.
    let text = dlc_ir::print_op(&ctx, module, dlc_ir::PrintOptions::default());
    let (again, reparsed) = parse(&text);
    assert_eq!(
        dlc_ir::print_op(&again, reparsed, dlc_ir::PrintOptions::default()),
        text
    );
    // view = 0 + [1, 2, 3, 4]; x += view.
    let r = run_host(&ctx, main, vec![f32_buf(&[4], &[10.0, 20.0, 30.0, 40.0])]).unwrap();
    assert_eq!(floats(&r[0]), [11.0, 22.0, 33.0, 44.0]);
}
