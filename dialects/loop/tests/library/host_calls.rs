//! Host calls in the host interpreter (`run_host`): `loop.call_if` choosing its branch by a
//! run-time condition, `loop.call_loop` with run-time trip counts, carried values (copied
//! between iterations, changing shape), scan outputs, zero trips and early exits; their run-time
//! errors (unbounded recursion, scan elements that do not stack, missing callees); and the
//! builders, checked by running what they build.

use crate::host::symbol;
use dlc_ir::{Context, Diagnostic, InsertPoint, Location, Op, PrintOptions, Type, DYNAMIC};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_loop::{buffer_type, MemorySpace};
use dlc_tensor::{DType, Literal, Scalar};

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_loop::dialect());
    ctx.register_dialect(dlc_loop::math_dialect());
    ctx
}

/// Parses `src` without verifying it; returns the context and the module.
fn parse_unverified(src: &str) -> (Context, Op) {
    let mut ctx = context();
    match dlc_ir::parse_source(&mut ctx, src, "test.mlir", 1) {
        Ok(m) => (ctx, m),
        Err(d) => panic!("parse error: {d:?}"),
    }
}

/// Parses and verifies the kernels and `host`, and runs its `@main` on `args`.
fn run(host: &str, args: Vec<KernelArg>) -> Result<Vec<KernelArg>, Diagnostic> {
    let (ctx, module) = parse_unverified(&format!("{KERNELS}\n{host}"));
    if let Err(d) = dlc_ir::verify(&ctx, module) {
        panic!("verify error: {d:?}");
    }
    run_host(&ctx, symbol(&ctx, module, "main"), args)
}

/// Runs `host` and returns its error message.
fn error(host: &str, args: Vec<KernelArg>) -> String {
    match run(host, args) {
        Ok(r) => panic!("expected an error, got {r:?}"),
        Err(d) => d.message,
    }
}

fn f32_buf(shape: &[usize], values: &[f64]) -> KernelArg {
    KernelArg::Buffer(Literal::from_f64(DType::F32, shape, values))
}

/// A rank-0 `i1` buffer.
fn flag(value: bool) -> KernelArg {
    let mut t = Literal::zeros(DType::I1, &[]);
    t.set(0, Scalar::Bool(value));
    KernelArg::Buffer(t)
}

/// A rank-0 `i64` buffer.
fn count(value: i64) -> KernelArg {
    let mut t = Literal::zeros(DType::I64, &[]);
    t.set(0, Scalar::Int(value));
    KernelArg::Buffer(t)
}

fn literal(arg: &KernelArg) -> &Literal {
    match arg {
        KernelArg::Buffer(b) => b,
        KernelArg::Index(_) => panic!("not a buffer"),
    }
}

/// The kernels of tools/fixtures/host/kernels.mlir (`@add`, `@copy`, `@less`), then `@negate`
/// (`y = -x`) and `@add_one_in_place` (`x += 1`) on `?xf32` buffers and `@iteration`
/// (`out[0] = float(i)`); and the host functions the calls name (`@twice` is `x + x`).
const KERNELS: &str = concat!(
    include_str!("../../../../tools/fixtures/host/kernels.mlir"),
    r#"
loop.kernel @negate(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for serial %j = %c0 to %n step %c1 {
    %v = loop.load %x[%j] : !loop.buffer<?xf32, global>
    %r = arith.negf %v : f32
    loop.store %r, %y[%j] : !loop.buffer<?xf32, global>
  }
  loop.return
}

loop.kernel @add_one_in_place(%x: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  loop.for serial %j = %c0 to %n step %c1 {
    %v = loop.load %x[%j] : !loop.buffer<?xf32, global>
    %r = arith.addf %v, %one : f32
    loop.store %r, %x[%j] : !loop.buffer<?xf32, global>
  }
  loop.return
}

loop.kernel @iteration(%i: !loop.buffer<i64, global>, %out: !loop.buffer<1xf32, global>) {
  %c0 = arith.constant 0 : index
  %v = loop.load %i[] : !loop.buffer<i64, global>
  %f = arith.sitofp %v : i64 to f32
  loop.store %f, %out[%c0] : !loop.buffer<1xf32, global>
  loop.return
}

func.func @twice(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %y = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @add(%x, %x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %y : !loop.buffer<?xf32, global>
}

func.func @minus(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %y = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @negate(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %y : !loop.buffer<?xf32, global>
}

// Adds one to the carried value in place and returns it as the carried value and as the scan
// element, with the iteration number as a second scan element: the loop must copy what it
// keeps, since the next iteration writes the same bytes again.
func.func @step(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %acc: !loop.buffer<?xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<1xf32, global>) {
  %n = loop.dim %acc, 0 : !loop.buffer<?xf32, global>
  loop.launch @add_one_in_place(%acc, %n) : (!loop.buffer<?xf32, global>, index) -> ()
  %it = loop.alloc : !loop.buffer<1xf32, global>
  loop.launch @iteration(%i, %it) : (!loop.buffer<i64, global>, !loop.buffer<1xf32, global>) -> ()
  return %c, %acc, %acc, %it : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<1xf32, global>
}

// Continues while `i + 1 < k` (k captured), adding one to the carried value each time.
func.func @until(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %acc: !loop.buffer<?xf32, global>, %k: index) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>) {
  %n = loop.dim %acc, 0 : !loop.buffer<?xf32, global>
  %next = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @copy(%acc, %next, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  loop.launch @add_one_in_place(%next, %n) : (!loop.buffer<?xf32, global>, index) -> ()
  %go = loop.alloc : !loop.buffer<i1, global>
  loop.launch @less(%i, %k, %go) : (!loop.buffer<i64, global>, index, !loop.buffer<i1, global>) -> ()
  return %go, %next : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>
}

// Grows the carried value by one (zero) element per iteration, and scans it.
func.func @grow(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) {
  %c1 = arith.constant 1 : index
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %m = arith.addi %n, %c1 : index
  %y = loop.alloc(%m) : !loop.buffer<?xf32, global>
  loop.launch @copy(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %c, %y, %y : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>
}
"#
);

#[test]
fn call_if_picks_the_branch_at_run_time() {
    let host = r#"
func.func @main(%c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @twice else @minus (%x) : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}
"#;
    let x = [1.0, -2.0, 3.5];
    let r = run(host, vec![flag(true), f32_buf(&[3], &x)]).unwrap();
    assert_eq!(literal(&r[0]).to_f64_vec(), [2.0, -4.0, 7.0]);
    let r = run(host, vec![flag(false), f32_buf(&[3], &x)]).unwrap();
    assert_eq!(literal(&r[0]).to_f64_vec(), [-1.0, 2.0, -3.5]);
}

/// `@step` under a loop of trip count `%m`: the carried value, both scans and the input.
const STEP_LOOP: &str = r#"
func.func @main(%m: !loop.buffer<i64, global>, %x: !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>, !loop.buffer<?x1xf32, global>, !loop.buffer<?xf32, global>) {
  %t = loop.constant dense<true> : !loop.buffer<1xi1, global>
  %r:3 = loop.call_loop @step (%m, %t, %x) : (!loop.buffer<i64, global>, !loop.buffer<1xi1, global>, !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>, !loop.buffer<?x1xf32, global>)
  return %r#0, %r#1, %r#2, %x : !loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>, !loop.buffer<?x1xf32, global>, !loop.buffer<?xf32, global>
}
"#;

#[test]
fn call_loop_carries_and_scans() {
    let x = [10.0, 20.0];
    let r = run(STEP_LOOP, vec![count(3), f32_buf(&[2], &x)]).unwrap();
    assert_eq!(literal(&r[0]).to_f64_vec(), [13.0, 23.0]);
    assert_eq!(literal(&r[1]).shape(), [3, 2]);
    assert_eq!(
        literal(&r[1]).to_f64_vec(),
        [11.0, 21.0, 12.0, 22.0, 13.0, 23.0]
    );
    assert_eq!(literal(&r[2]).shape(), [3, 1]);
    assert_eq!(literal(&r[2]).to_f64_vec(), [0.0, 1.0, 2.0]);
    // The body writes its carried value in place; the caller's initial value is untouched.
    assert_eq!(literal(&r[3]).to_f64_vec(), x);
}

#[test]
fn zero_trip_loop_returns_the_initial_values_and_empty_scans() {
    for m in [0, -4] {
        let r = run(STEP_LOOP, vec![count(m), f32_buf(&[2], &[1.0, 2.0])]).unwrap();
        assert_eq!(literal(&r[0]).to_f64_vec(), [1.0, 2.0]);
        // A `?` trailing dim of an empty scan is 0; a static one stays.
        assert_eq!(literal(&r[1]).shape(), [0, 0]);
        assert_eq!(literal(&r[2]).shape(), [0, 1]);
    }
}

#[test]
fn the_condition_stops_the_loop() {
    let host = r#"
func.func @main(%c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>, %k: index) -> !loop.buffer<?xf32, global> {
  %m = loop.constant dense<10> : !loop.buffer<i64, global>
  %r = loop.call_loop @until (%m, %c, %x) captures (%k) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, index) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}
"#;
    let args = |c: bool, k: i64| vec![flag(c), f32_buf(&[1], &[0.0]), KernelArg::Index(k)];
    // Iteration i continues while i + 1 < k: k iterations (at least one), at most 10.
    for (k, iterations) in [(2, 2.0), (1, 1.0), (5, 5.0), (50, 10.0)] {
        let r = run(host, args(true, k)).unwrap();
        assert_eq!(literal(&r[0]).to_f64_vec(), [iterations], "k = {k}");
    }
    let r = run(host, args(false, 5)).unwrap();
    assert_eq!(literal(&r[0]).to_f64_vec(), [0.0]);
}

#[test]
fn carried_values_change_shape_and_scans_must_stack() {
    let host = |scan: &str| {
        format!(
            r#"
func.func @main(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {{
  %r:2 = loop.call_loop @grow (%m, %c, %x) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, {scan})
  return %r#0 : !loop.buffer<?xf32, global>
}}
"#
        )
    };
    let args = |m: i64| vec![count(m), flag(true), f32_buf(&[1], &[7.0])];
    // One iteration: the scan has one element, whatever its shape.
    let r = run(&host("!loop.buffer<?x?xf32, global>"), args(1)).unwrap();
    assert_eq!(literal(&r[0]).to_f64_vec(), [7.0, 0.0]);
    // More: the carried value grows, and the scan elements no longer stack.
    let msg = error(&host("!loop.buffer<?x?xf32, global>"), args(3));
    assert!(
        msg.contains("scan output #0, iteration 1: an element of shape [3] does not stack on elements of shape [2]"),
        "{msg}"
    );
    // A static leading dim of a scan output is checked against the iterations run.
    let msg = error(&host("!loop.buffer<2x?xf32, global>"), args(1));
    assert!(
        msg.contains("result #1: a F32 buffer of shape [1, 2] is not a value of type '!loop.buffer<2x?xf32, global>'"),
        "{msg}"
    );
}

#[test]
fn unbounded_recursion_is_an_error() {
    let host = r#"
func.func @main(%c: !loop.buffer<i1, global>) {
  loop.call_if %c then @main else @main (%c) : (!loop.buffer<i1, global>, !loop.buffer<i1, global>) -> ()
  return
}
"#;
    let msg = error(host, vec![flag(true)]);
    assert!(msg.contains("host calls nest deeper than 64"), "{msg}");
}

#[test]
fn a_missing_callee_is_an_error() {
    // The verifier rejects it; the interpreter must not rely on that.
    let (ctx, module) = parse_unverified(
        r#"
func.func @main(%c: !loop.buffer<i1, global>) {
  loop.call_if %c then @nowhere else @nowhere () : (!loop.buffer<i1, global>) -> ()
  return
}
"#,
    );
    let err = run_host(&ctx, symbol(&ctx, module, "main"), vec![flag(false)]).unwrap_err();
    assert!(
        err.message
            .contains("'nowhere' does not reference a 'func.func'"),
        "{}",
        err.message
    );
}

#[test]
fn builders_make_runnable_calls() {
    let (mut ctx, module) = parse_unverified(KERNELS);
    let top = ctx.blocks(ctx.region(module, 0))[0];
    let loc = Location::Unknown;
    let vec_ty = buffer_type(&mut ctx, &[DYNAMIC], Type::F32, MemorySpace::Global);
    let flag_ty = buffer_type(&mut ctx, &[], Type::I1, MemorySpace::Global);
    let count_ty = buffer_type(&mut ctx, &[], Type::I64, MemorySpace::Global);
    let fn_ty = ctx.function_type(&[flag_ty, count_ty, vec_ty, Type::INDEX], &[vec_ty, vec_ty]);
    let (region, entry) = ctx.create_region_with_block(&[flag_ty, count_ty, vec_ty, Type::INDEX]);
    let name = ctx.string_attr("main");
    let ty_attr = ctx.type_attr(fn_ty);
    let spec = dlc_ir::OpSpec::new(&mut ctx, "func.func", loc)
        .attr(&mut ctx, "sym_name", name)
        .attr(&mut ctx, "function_type", ty_attr)
        .region(region);
    ctx.build(InsertPoint::End(top), spec);
    let [c, m, x, k] = ctx.block_args(entry)[..] else {
        unreachable!()
    };
    let at = InsertPoint::End(entry);
    let if_op = dlc_loop::build_call_if(&mut ctx, at, c, &[x], "twice", "minus", &[vec_ty], loc);
    let doubled = ctx.result(if_op, 0);
    let loop_op = dlc_loop::build_call_loop(
        &mut ctx,
        at,
        m,
        c,
        &[doubled],
        &[k],
        "until",
        &[vec_ty],
        loc,
    );
    let looped = ctx.result(loop_op, 0);
    let spec = dlc_ir::OpSpec::new(&mut ctx, "func.return", loc).operands(&[doubled, looped]);
    ctx.build(at, spec);
    dlc_ir::verify(&ctx, module).unwrap();

    let call = dlc_loop::CallLoopOp(loop_op);
    assert_eq!(call.callee(&ctx), Some("until"));
    assert_eq!(call.num_carried(&ctx), Some(1));
    assert_eq!(call.carried(&ctx), [doubled]);
    assert_eq!(call.captures(&ctx), [k]);
    assert_eq!((call.max_trip(&ctx), call.cond(&ctx)), (m, c));
    let call = dlc_loop::CallIfOp(if_op);
    assert_eq!(call.then_callee(&ctx), Some("twice"));
    assert_eq!(call.else_callee(&ctx), Some("minus"));
    assert_eq!((call.cond(&ctx), call.args(&ctx)), (c, &[x][..]));

    let text = dlc_ir::print_op(&ctx, module, PrintOptions::default());
    assert!(
        text.contains("loop.call_if %arg0 then @twice else @minus (%arg2)"),
        "{text}"
    );
    assert!(
        text.contains("loop.call_loop @until (%arg1, %arg0, %0) captures (%arg3)"),
        "{text}"
    );
    let mut again = context();
    let reparsed = dlc_ir::parse_source(&mut again, &text, "printed", 1).unwrap();
    dlc_ir::verify(&again, reparsed).unwrap();
    assert_eq!(
        dlc_ir::print_op(&again, reparsed, PrintOptions::default()),
        text
    );

    let main = symbol(&ctx, module, "main");
    let args = vec![
        flag(true),
        count(4),
        f32_buf(&[2], &[1.0, 2.0]),
        KernelArg::Index(3),
    ];
    let r = run_host(&ctx, main, args).unwrap();
    assert_eq!(literal(&r[0]).to_f64_vec(), [2.0, 4.0]);
    // `@until` runs while i + 1 < 3: three iterations.
    assert_eq!(literal(&r[1]).to_f64_vec(), [5.0, 7.0]);
}
