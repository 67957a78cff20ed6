//! Host programs that call other host functions (`loop.call_if`, `loop.call_loop`), run by the
//! runtime with hand-written kernels: results against the reference host interpreter for
//! branches taken at run time, loops with run-time trip counts, early stops, carried values
//! that change size, empty loops and nesting; poison mode, profiling and memory reuse across
//! runs; and the errors a call can hit at compile time and at run time.

use dlc_ir::{Context, Location, Op};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_runtime::{HostProgram, KernelFn, KernelTable, Session, Tensor};
use dlc_tensor::DType;

use crate::fixture_kernels;

/// The kernels, in MLIR (for the interpreter and the runtime's checks): those of
/// tools/fixtures/host/kernels.mlir (`@add`, `@accumulate`), then `@below` (`out = a[0] <
/// limit`), `@is_even` and `@grow` (`out` is `a` and a one) ...
const KERNELS: &str = concat!(
    include_str!("../../../../tools/fixtures/host/kernels.mlir"),
    r#"
loop.kernel @below(%a: !loop.buffer<?xf32, global>, %limit: !loop.buffer<f32, global>, %out: !loop.buffer<i1, global>) {
  %c0 = arith.constant 0 : index
  %x = loop.load %a[%c0] : !loop.buffer<?xf32, global>
  %l = loop.load %limit[] : !loop.buffer<f32, global>
  %p = arith.cmpf olt, %x, %l : f32
  loop.store %p, %out[] : !loop.buffer<i1, global>
  loop.return
}

loop.kernel @is_even(%i: !loop.buffer<i64, global>, %out: !loop.buffer<i1, global>) {
  %v = loop.load %i[] : !loop.buffer<i64, global>
  %c2 = arith.constant 2 : i64
  %c0 = arith.constant 0 : i64
  %r = arith.remsi %v, %c2 : i64
  %e = arith.cmpi eq, %r, %c0 : i64
  loop.store %e, %out[] : !loop.buffer<i1, global>
  loop.return
}

loop.kernel @grow(%a: !loop.buffer<?xf32, global>, %out: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for serial %i = %c0 to %n step %c1 {
    %x = loop.load %a[%i] : !loop.buffer<?xf32, global>
    loop.store %x, %out[%i] : !loop.buffer<?xf32, global>
  }
  %one = arith.constant 1.0 : f32
  loop.store %one, %out[%n] : !loop.buffer<?xf32, global>
  loop.return
}
"#
);

/// ... and in Rust, over the slot ABI (kernels.mlir's in tools/fixtures/host/kernels.rs).
///
/// # Safety
/// `w` holds the words of `@below`'s arguments.
unsafe extern "C" fn below(w: *const u64) {
    // SAFETY: 4 words: (ptr, n) for a, then the pointers of the rank-0 limit and out.
    unsafe {
        let w = std::slice::from_raw_parts(w, 4);
        let (a, limit, out) = (w[0] as *const f32, w[2] as *const f32, w[3] as *mut u8);
        *out = u8::from(*a < *limit);
    }
}

unsafe extern "C" fn is_even(w: *const u64) {
    // SAFETY: 2 words: the pointers of the rank-0 i64 and i1 buffers.
    unsafe {
        let w = std::slice::from_raw_parts(w, 2);
        let (i, out) = (w[0] as *const i64, w[1] as *mut u8);
        *out = u8::from(*i % 2 == 0);
    }
}

unsafe extern "C" fn grow(w: *const u64) {
    // SAFETY: 5 words: (ptr, dim) for a and out, then n; a holds n f32s and out n + 1.
    unsafe {
        let w = std::slice::from_raw_parts(w, 5);
        let n = w[4] as usize;
        assert_eq!(
            w[3] as usize,
            n + 1,
            "the runtime passed a buffer of the wrong size"
        );
        let (a, out) = (w[0] as *const f32, w[2] as *mut f32);
        for i in 0..n {
            *out.add(i) = *a.add(i);
        }
        *out.add(n) = 1.0;
    }
}

struct Kernels;

impl KernelTable for Kernels {
    fn kernel(&self, name: &str) -> Option<KernelFn> {
        let kernel: KernelFn = match name {
            "below" => below,
            "is_even" => is_even,
            "grow" => grow,
            _ => return fixture_kernels::kernel(name),
        };
        Some(kernel)
    }
}

/// Parses `host` after the kernels; `verify` runs the verifier (the run-time error tests
/// leave it out, to reach checks a verified program never needs).
fn parse(host: &str, verify: bool) -> (Context, Op) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let src = format!("{KERNELS}\n{host}");
    let module = dlc_ir::parse_source(&mut ctx, &src, "calls.mlir", 1)
        .unwrap_or_else(|d| panic!("parse error: {d:?}"));
    if verify {
        dlc_ir::verify(&ctx, module).unwrap_or_else(|d| panic!("verify error: {d:?}"));
    }
    (ctx, module)
}

/// The source line of the first line of `host` containing `needle`, as `parse` numbers it.
fn line_of(host: &str, needle: &str) -> u32 {
    let src = format!("{KERNELS}\n{host}");
    let at = src.find(needle).expect("the needle is in the source");
    src[..at].lines().count() as u32
}

/// The line of `location`, a file position.
fn line(location: Location) -> u32 {
    match location {
        Location::FileLineCol { line, .. } => line,
        other => panic!("expected a file location, got {other:?}"),
    }
}

fn compile(ctx: &Context, module: Op) -> HostProgram {
    HostProgram::compile(ctx, module, "main", &Kernels)
        .unwrap_or_else(|d| panic!("compile error: {d:?}"))
}

fn f32s(values: &[f32]) -> Tensor {
    Tensor::from_f32(&[values.len()], values).unwrap()
}

fn flag(value: bool) -> Tensor {
    Tensor::from_bytes(DType::I1, &[], &[u8::from(value)]).unwrap()
}

fn trips(n: i64) -> Tensor {
    Tensor::from_bytes(DType::I64, &[], &n.to_le_bytes()).unwrap()
}

/// Host function `main` of `module`.
fn main_function(ctx: &Context, module: Op) -> Op {
    let mut func = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.attr(op, "sym_name").and_then(|a| ctx.attr_as_str(a)) == Some("main") {
            func = Some(op);
        }
    });
    func.expect("a host function @main")
}

/// Runs `session` on `inputs`, checks its outputs against the host interpreter's run of
/// `main`, and returns them.
fn run_checked(
    ctx: &Context,
    module: Op,
    session: &mut Session<'_>,
    inputs: &[&Tensor],
) -> Vec<Tensor> {
    let outputs = session
        .run(inputs)
        .unwrap_or_else(|e| panic!("run error: {e}"));
    let got: Vec<Tensor> = outputs.iter().map(|v| v.to_tensor().unwrap()).collect();
    let args = inputs
        .iter()
        .map(|t| KernelArg::Buffer(t.to_literal()))
        .collect();
    let expected = run_host(ctx, main_function(ctx, module), args)
        .unwrap_or_else(|d| panic!("interpreter error: {d:?}"));
    let got_host: Vec<KernelArg> = got
        .iter()
        .map(|t| KernelArg::Buffer(t.to_literal()))
        .collect();
    assert_eq!(
        got_host, expected,
        "the runtime differs from the interpreter"
    );
    got
}

fn values(t: &Tensor) -> Vec<f64> {
    t.to_f64_vec().unwrap()
}

/// The callees of [`IF`] and [`NESTED`]: `@then` adds the arguments, `@else` doubles the first.
macro_rules! branches {
    () => {
        r#"
func.func @then(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %out = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @add(%x, %y, %out, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %out : !loop.buffer<?xf32, global>
}

func.func @else(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %out = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @add(%x, %x, %out, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %out : !loop.buffer<?xf32, global>
}
"#
    };
}

/// `main` picks `@then` or `@else` by a run-time flag.
const IF: &str = concat!(
    branches!(),
    r#"
func.func @main(%c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @then else @else (%x, %y) : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}
"#
);

#[test]
fn call_if_takes_the_branch_the_condition_chooses() {
    let (ctx, module) = parse(IF, true);
    let program = compile(&ctx, module);
    assert_eq!(program.callee_names().collect::<Vec<_>>(), ["then", "else"]);
    assert_eq!(program.num_launches(), 0);
    assert_eq!(program.arena_bytes(), None);
    let mut session = Session::new(&program);
    let (x, y) = (f32s(&[1.0, 2.0, 3.0]), f32s(&[10.0, 20.0, 30.0]));
    let out = run_checked(&ctx, module, &mut session, &[&flag(true), &x, &y]);
    assert_eq!(values(&out[0]), [11.0, 22.0, 33.0]);
    let out = run_checked(&ctx, module, &mut session, &[&flag(false), &x, &y]);
    assert_eq!(values(&out[0]), [2.0, 4.0, 6.0]);
    // Each branch keeps its memory: running both again allocates nothing.
    let count = session.allocation_count();
    assert_eq!(count, 2, "one output allocation per callee");
    let bytes = session.arena_bytes();
    run_checked(&ctx, module, &mut session, &[&flag(true), &x, &y]);
    run_checked(&ctx, module, &mut session, &[&flag(false), &x, &y]);
    assert_eq!(session.allocation_count(), count);
    assert_eq!(session.arena_bytes(), bytes);
}

/// `@body` adds the capture to the carried value; the sum is also the scan element. The trip
/// count and the initial condition are inputs.
const LOOP: &str = r#"
func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %acc: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) {
  %n = loop.dim %acc, 0 : !loop.buffer<?xf32, global>
  %next = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @add(%acc, %y, %next, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %c, %next, %next : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>
}

func.func @main(%m: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>) {
  %r:2 = loop.call_loop @body (%m, %c, %x) captures (%y) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>)
  return %r#0, %r#1 : !loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>
}
"#;

#[test]
fn call_loop_carries_and_scans() {
    let (ctx, module) = parse(LOOP, true);
    let program = compile(&ctx, module);
    assert_eq!(program.callee_names().collect::<Vec<_>>(), ["body"]);
    let mut session = Session::new(&program);
    let (x, y) = (f32s(&[1.0, 2.0]), f32s(&[10.0, 100.0]));
    let out = run_checked(
        &ctx,
        module,
        &mut session,
        &[&trips(3), &flag(true), &x, &y],
    );
    assert_eq!(values(&out[0]), [31.0, 302.0]);
    assert_eq!(out[1].shape(), &[3, 2]);
    assert_eq!(values(&out[1]), [11.0, 102.0, 21.0, 202.0, 31.0, 302.0]);
    assert_eq!(values(&x), [1.0, 2.0], "the initial value is untouched");

    // More iterations than before: the scan output grows, keeping what it holds.
    let out = run_checked(
        &ctx,
        module,
        &mut session,
        &[&trips(40), &flag(true), &x, &y],
    );
    assert_eq!(out[1].shape(), &[40, 2]);
    assert_eq!(values(&out[0]), [401.0, 4002.0]);
    assert_eq!(&values(&out[1])[..4], [11.0, 102.0, 21.0, 202.0]);
}

#[test]
fn zero_trip_loops_return_the_initial_values_and_empty_scans() {
    let (ctx, module) = parse(LOOP, true);
    let program = compile(&ctx, module);
    let mut session = Session::new(&program);
    let (x, y) = (f32s(&[1.0, 2.0]), f32s(&[10.0, 100.0]));
    for (m, c) in [(0, true), (-5, true), (4, false)] {
        let out = run_checked(&ctx, module, &mut session, &[&trips(m), &flag(c), &x, &y]);
        assert_eq!(values(&out[0]), [1.0, 2.0], "trip count {m}, condition {c}");
        assert_eq!(
            out[1].shape(),
            &[0, 0],
            "a `?` trailing dim of an empty scan is 0"
        );
    }
    // After a loop that ran, an empty one still returns a copy of the initial value.
    run_checked(
        &ctx,
        module,
        &mut session,
        &[&trips(2), &flag(true), &x, &y],
    );
    let out = run_checked(
        &ctx,
        module,
        &mut session,
        &[&trips(0), &flag(true), &x, &y],
    );
    assert_eq!(values(&out[0]), [1.0, 2.0]);
}

/// The body stops the loop once the first carried element reaches the limit.
const UNTIL: &str = r#"
func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %acc: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %limit: !loop.buffer<f32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) {
  %n = loop.dim %acc, 0 : !loop.buffer<?xf32, global>
  %next = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @add(%acc, %y, %next, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  %go = loop.alloc : !loop.buffer<i1, global>
  loop.launch @below(%next, %limit, %go) : (!loop.buffer<?xf32, global>, !loop.buffer<f32, global>, !loop.buffer<i1, global>) -> ()
  return %go, %next, %next : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>
}

func.func @main(%m: !loop.buffer<i64, global>, %x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %limit: !loop.buffer<f32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>) {
  %t = loop.constant dense<true> : !loop.buffer<i1, global>
  %r:2 = loop.call_loop @body (%m, %t, %x) captures (%y, %limit) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<f32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>)
  return %r#0, %r#1 : !loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>
}
"#;

#[test]
fn the_body_can_stop_the_loop_early() {
    let (ctx, module) = parse(UNTIL, true);
    let program = compile(&ctx, module);
    let mut session = Session::new(&program);
    let (x, y) = (f32s(&[0.0, 5.0]), f32s(&[1.0, 1.0]));
    let limit = Tensor::from_f32(&[], &[3.5]).unwrap();
    // 1, 2, 3 are below 3.5 and 4 is not: four iterations of a hundred allowed.
    let out = run_checked(&ctx, module, &mut session, &[&trips(100), &x, &y, &limit]);
    assert_eq!(values(&out[0]), [4.0, 9.0]);
    assert_eq!(out[1].shape(), &[4, 2]);
    // The trip count still bounds it.
    let out = run_checked(&ctx, module, &mut session, &[&trips(2), &x, &y, &limit]);
    assert_eq!(values(&out[0]), [2.0, 7.0]);
}

/// The carried value grows by one element per iteration; `@main_scan` also scans it, which
/// cannot stack.
const GROW: &str = r#"
func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %a: !loop.buffer<?xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>) {
  %c1 = arith.constant 1 : index
  %n = loop.dim %a, 0 : !loop.buffer<?xf32, global>
  %n1 = arith.addi %n, %c1 : index
  %out = loop.alloc(%n1) : !loop.buffer<?xf32, global>
  loop.launch @grow(%a, %out, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %c, %out : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>
}

func.func @scan_body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %a: !loop.buffer<?xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) {
  %c1 = arith.constant 1 : index
  %n = loop.dim %a, 0 : !loop.buffer<?xf32, global>
  %n1 = arith.addi %n, %c1 : index
  %out = loop.alloc(%n1) : !loop.buffer<?xf32, global>
  loop.launch @grow(%a, %out, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %c, %out, %out : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>
}

func.func @main(%m: !loop.buffer<i64, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %t = loop.constant dense<true> : !loop.buffer<i1, global>
  %r = loop.call_loop @body (%m, %t, %x) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}

func.func @main_scan(%m: !loop.buffer<i64, global>, %x: !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>) {
  %t = loop.constant dense<true> : !loop.buffer<i1, global>
  %r:2 = loop.call_loop @scan_body (%m, %t, %x) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>)
  return %r#0, %r#1 : !loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>
}
"#;

#[test]
fn carried_values_may_change_size() {
    let (ctx, module) = parse(GROW, true);
    let program = compile(&ctx, module);
    let mut session = Session::new(&program);
    let x = f32s(&[7.0, 8.0]);
    let out = run_checked(&ctx, module, &mut session, &[&trips(3), &x]);
    assert_eq!(values(&out[0]), [7.0, 8.0, 1.0, 1.0, 1.0]);
    let count = session.allocation_count();
    let out = run_checked(&ctx, module, &mut session, &[&trips(1), &x]);
    assert_eq!(values(&out[0]), [7.0, 8.0, 1.0]);
    run_checked(&ctx, module, &mut session, &[&trips(3), &x]);
    assert_eq!(
        session.allocation_count(),
        count,
        "the memory of the longest loop is kept"
    );

    // One iteration stacks; the second's element is larger, which is an error at the op.
    let program = HostProgram::compile(&ctx, module, "main_scan", &Kernels).unwrap();
    let mut session = Session::new(&program);
    let out = session.run(&[&trips(1), &x]).unwrap();
    assert_eq!(out.get(1).unwrap().shape, &[1, 3]);
    let e = session.run(&[&trips(2), &x]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "'loop.call_loop' of '@scan_body': scan output #0: iteration 1 returned an element of \
         shape [4], but the earlier ones have shape [3]"
    );
    assert_eq!(
        line(e.to_diagnostic().location),
        line_of(GROW, "%r:2 = loop.call_loop @scan_body"),
        "at the call_loop"
    );
}

/// A loop whose body calls `@then` on even iterations and `@else` on odd ones.
const NESTED: &str = concat!(
    branches!(),
    r#"
func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %acc: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) {
  %even = loop.alloc : !loop.buffer<i1, global>
  loop.launch @is_even(%i, %even) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>) -> ()
  %next = loop.call_if %even then @then else @else (%acc, %y) : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %c, %next, %next : !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>
}

func.func @main(%m: !loop.buffer<i64, global>, %x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>) {
  %t = loop.constant dense<true> : !loop.buffer<i1, global>
  %r:2 = loop.call_loop @body (%m, %t, %x) captures (%y) : (!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>)
  return %r#0, %r#1 : !loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>
}
"#
);

#[test]
fn an_if_inside_a_loop_body() {
    let (ctx, module) = parse(NESTED, true);
    let program = compile(&ctx, module);
    let mut session = Session::new(&program);
    let (x, y) = (f32s(&[1.0]), f32s(&[10.0]));
    // i = 0: +10, i = 1: *2, i = 2: +10, i = 3: *2.
    let out = run_checked(&ctx, module, &mut session, &[&trips(4), &x, &y]);
    assert_eq!(values(&out[0]), [64.0]);
    assert_eq!(values(&out[1]), [11.0, 22.0, 32.0, 64.0]);

    // Steady state: the same run again allocates nothing, and neither does a shorter one.
    let count = session.allocation_count();
    let bytes = session.arena_bytes();
    run_checked(&ctx, module, &mut session, &[&trips(4), &x, &y]);
    run_checked(&ctx, module, &mut session, &[&trips(3), &x, &y]);
    assert_eq!(session.allocation_count(), count);
    assert_eq!(session.arena_bytes(), bytes);

    // Profiling counts the callees' launches, after the caller's (here, none).
    session.set_profile(true);
    run_checked(&ctx, module, &mut session, &[&trips(4), &x, &y]);
    let times: Vec<(String, u32)> = session
        .kernel_times()
        .into_iter()
        .map(|t| (t.name, t.launches))
        .collect();
    assert_eq!(
        times,
        [
            ("is_even".to_string(), 4),
            ("add".to_string(), 2),
            ("add".to_string(), 2)
        ]
    );
}

#[test]
fn poison_reaches_the_callees() {
    // The nested program writes everything it reads: poison changes nothing.
    let (ctx, module) = parse(NESTED, true);
    let program = compile(&ctx, module);
    let mut session = Session::new(&program);
    session.set_poison(true);
    let (x, y) = (f32s(&[1.0, -1.0]), f32s(&[10.0, 0.5]));
    let poisoned = run_checked(&ctx, module, &mut session, &[&trips(5), &x, &y]);
    session.set_poison(false);
    let clean = run_checked(&ctx, module, &mut session, &[&trips(5), &x, &y]);
    assert_eq!(poisoned, clean);

    // A callee that accumulates into a fresh allocation reads it first: NaN with poison, set
    // either before or after the callee's session exists.
    let (ctx, module) = parse(
        r#"
func.func @sum(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %out = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @accumulate(%out, %x, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %out : !loop.buffer<?xf32, global>
}

func.func @main(%c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @sum else @sum (%x) : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}
"#,
        true,
    );
    let program = compile(&ctx, module);
    let x = f32s(&[1.0, 2.0]);
    let mut session = Session::new(&program);
    let run = |session: &mut Session<'_>, c: bool| {
        values(
            &session
                .run(&[&flag(c), &x])
                .unwrap()
                .get(0)
                .unwrap()
                .to_tensor()
                .unwrap(),
        )
    };
    assert_eq!(run(&mut session, true), [1.0, 2.0]);
    session.set_poison(true);
    assert!(run(&mut session, true).iter().all(|v| v.is_nan()));
    assert!(run(&mut session, false).iter().all(|v| v.is_nan()));
}

#[test]
fn results_that_may_be_constants_are_copied_before_they_are_written() {
    // `@k` returns its constant; `main` accumulates into the result. Each run must start
    // from the constant, which nothing may write.
    let (ctx, module) = parse(
        r#"
func.func @k(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<2xf32, global> {
  %k = loop.constant dense<[1.0, 2.0]> : !loop.buffer<2xf32, global>
  return %k : !loop.buffer<2xf32, global>
}

func.func @main(%c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @k else @k (%x) : (!loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<2xf32, global>
  %c2 = arith.constant 2 : index
  %flat = loop.reshape %r(%c2) : !loop.buffer<2xf32, global> -> !loop.buffer<?xf32, global>
  loop.launch @accumulate(%flat, %x, %c2) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %flat : !loop.buffer<?xf32, global>
}
"#,
        true,
    );
    let program = compile(&ctx, module);
    let mut session = Session::new(&program);
    let x = f32s(&[10.0, 20.0]);
    for _ in 0..3 {
        let out = run_checked(&ctx, module, &mut session, &[&flag(true), &x]);
        assert_eq!(values(&out[0]), [11.0, 22.0]);
    }
}

/// What running `@main` of `host` (unverified) on `inputs` fails with.
fn run_err(host: &str, inputs: &[Tensor]) -> String {
    let (ctx, module) = parse(host, false);
    let program = compile(&ctx, module);
    let mut session = Session::new(&program);
    session
        .run(&inputs.iter().collect::<Vec<_>>())
        .expect_err("expected a run error")
        .to_string()
}

#[test]
fn run_time_errors_name_the_call() {
    let cases = [
        // A condition of two elements (which the verifier rejects; the runtime checks anyway).
        (
            r#"
func.func @id(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  return %x : !loop.buffer<?xf32, global>
}

func.func @main(%c: !loop.buffer<?xi1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @id else @id (%x) : (!loop.buffer<?xi1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}
"#
            .to_string(),
            vec![
                Tensor::from_bytes(DType::I1, &[2], &[1, 0]).unwrap(),
                f32s(&[1.0]),
            ],
            "'loop.call_if': the condition must hold one i1 element, but holds 2",
        ),
        // A trip count of two elements.
        (
            LOOP.replace(
                "%m: !loop.buffer<i64, global>",
                "%m: !loop.buffer<?xi64, global>",
            )
            .replace(
                "(!loop.buffer<i64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>)",
                "(!loop.buffer<?xi64, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, !loop.buffer<?x?xf32, global>)",
            ),
            vec![
                Tensor::from_bytes(DType::I64, &[2], &[0; 16]).unwrap(),
                flag(true),
                f32s(&[1.0]),
                f32s(&[1.0]),
            ],
            "'loop.call_loop' of '@body': the trip count must hold one i64 element, but holds 16 bytes",
        ),
        // The callee's signature says its two arguments have the same size; these do not.
        (
            IF.replace(
                "func.func @then(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {",
                "func.func @then(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> attributes {loop.dim_symbols = [array<i64: 0>, array<i64: 0>]} {",
            ),
            vec![flag(true), f32s(&[1.0, 2.0]), f32s(&[1.0])],
            "'loop.call_if' of '@then': input 1 ('%arg1'): dim 0 is 1 but must equal dim 0 of input 0 (2)",
        ),
    ];
    for (host, inputs, want) in cases {
        assert_eq!(run_err(&host, &inputs), want);
    }
}

#[test]
fn recursion_is_a_compile_time_error() {
    let host = r#"
func.func @f(%c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @g else @g (%c, %x) : (!loop.buffer<i1, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}

func.func @g(%c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @f else @f (%c, %x) : (!loop.buffer<i1, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}

func.func @main(%c: !loop.buffer<i1, global>, %x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %r = loop.call_if %c then @f else @main (%c, %x) : (!loop.buffer<i1, global>, !loop.buffer<i1, global>, !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global>
  return %r : !loop.buffer<?xf32, global>
}
"#;
    let (ctx, module) = parse(host, true);
    let e = HostProgram::compile(&ctx, module, "main", &Kernels).unwrap_err();
    assert_eq!(
        e.message,
        "recursive call: '@f' -> '@g' -> '@f' (host functions cannot call themselves)"
    );
    assert_eq!(
        line(e.location),
        line_of(host, "then @f else @f"),
        "at the call in @g that closes the cycle"
    );
    let e = HostProgram::compile(&ctx, module, "g", &Kernels).unwrap_err();
    assert_eq!(
        e.message,
        "recursive call: '@g' -> '@f' -> '@g' (host functions cannot call themselves)"
    );
}
