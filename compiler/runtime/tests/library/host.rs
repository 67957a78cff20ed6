//! Host programs run by the runtime with hand-written kernels (no JIT here): results against
//! the reference host interpreter, arena reuse and poisoning, input validation, launch checks,
//! run-time arithmetic errors and compile-time diagnostics; inputs borrowed as views, read in
//! place.

use dlc_ir::{Context, Op};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_runtime::{
    DimSpec, HostProgram, KernelFn, KernelTable, RuntimeError, Session, Signature, Tensor,
};
use dlc_tensor::{DType, Literal};

use crate::fixture_kernels;

/// The kernels, in MLIR (for the interpreter and the runtime's checks): those of
/// tools/fixtures/host/kernels.mlir (`@add`, `@accumulate`), then `@fill4`, which sets its four
/// elements to one ...
const KERNELS: &str = concat!(
    include_str!("../../../../tools/fixtures/host/kernels.mlir"),
    r#"
loop.kernel @fill4(%x: !loop.buffer<4xf32, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.0 : f32
  loop.for serial %i = %c0 to %c4 step %c1 {
    loop.store %one, %x[%i] : !loop.buffer<4xf32, global>
  }
  loop.return
}
"#
);

/// ... and in Rust, over the slot ABI (kernels.mlir's in tools/fixtures/host/kernels.rs).
///
/// # Safety
/// `w` holds the words of `@fill4`'s arguments.
unsafe extern "C" fn fill4(w: *const u64) {
    FILL4_RAN_HERE.set(true);
    // SAFETY: 2 words: the pointer and the static dim 4, checked by the runtime.
    unsafe {
        let w = std::slice::from_raw_parts(w, 2);
        assert_eq!(w[1], 4, "the runtime passed a buffer of the wrong size");
        let x = w[0] as *mut f32;
        for i in 0..4 {
            *x.add(i) = 1.0;
        }
    }
}

thread_local! {
    /// Set on the thread that runs `@fill4`.
    static FILL4_RAN_HERE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

struct Kernels;

impl KernelTable for Kernels {
    fn kernel(&self, name: &str) -> Option<KernelFn> {
        match name {
            "fill4" => Some(fill4),
            _ => fixture_kernels::kernel(name),
        }
    }
}

fn context() -> Context {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    ctx
}

fn parse(host: &str) -> (Context, Op) {
    let mut ctx = context();
    let src = format!("{KERNELS}\n{host}");
    let module = dlc_ir::parse_source(&mut ctx, &src, "test.mlir", 1)
        .unwrap_or_else(|d| panic!("parse error: {d:?}"));
    dlc_ir::verify(&ctx, module).unwrap_or_else(|d| panic!("verify error: {d:?}"));
    (ctx, module)
}

fn compile(host: &str) -> HostProgram {
    let (ctx, module) = parse(host);
    HostProgram::compile(&ctx, module, "main", &Kernels)
        .unwrap_or_else(|d| panic!("compile error: {d:?}"))
}

fn compile_err(host: &str) -> String {
    let (ctx, module) = parse(host);
    HostProgram::compile(&ctx, module, "main", &Kernels)
        .expect_err("expected a compile error")
        .message
}

fn f32s(values: &[f32]) -> Tensor {
    Tensor::from_f32(&[values.len()], values).unwrap()
}

fn ramp(n: usize, scale: f32) -> Tensor {
    let v: Vec<f32> = (0..n).map(|i| i as f32 * scale - 1.0).collect();
    f32s(&v)
}

/// `out = x + 2y`, through a view of an arena and a plain allocation.
const ADD_TWICE: &str = r#"
func.func @main(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %bytes = arith.muli %n, %c4 : index
  %arena = loop.alloc(%bytes) : !loop.buffer<?xi8, global>
  %t = loop.view %arena[%c0](%n) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  %out = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @add(%x, %y, %t, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  loop.launch @add(%t, %y, %out, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %out : !loop.buffer<?xf32, global>
}
"#;

#[test]
fn matches_the_interpreter() {
    let (ctx, module) = parse(ADD_TWICE);
    let program = HostProgram::compile(&ctx, module, "main", &Kernels).unwrap();
    assert_eq!(program.num_launches(), 2);
    assert_eq!(program.kernel_names().collect::<Vec<_>>(), ["add", "add"]);
    assert_eq!(program.arena_bytes(), None);
    assert_eq!(program.outputs().len(), 1);
    assert_eq!(program.outputs()[0].dtype, DType::F32);

    let (x, y) = (ramp(10, 0.5), ramp(10, 0.25));
    let mut session = Session::new(&program);
    let out = session.run(&[&x, &y]).unwrap();
    assert_eq!(out.len(), 1);
    let got = out.get(0).unwrap().to_literal().unwrap();

    let mut func = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.attr(op, "sym_name").and_then(|a| ctx.attr_as_str(a)) == Some("main") {
            func = Some(op);
        }
    });
    let args = vec![
        KernelArg::Buffer(x.to_literal()),
        KernelArg::Buffer(y.to_literal()),
    ];
    let expected = run_host(&ctx, func.unwrap(), args).unwrap();
    assert_eq!(expected, vec![KernelArg::Buffer(got)]);
}

#[test]
fn arena_is_reused_across_runs() {
    let program = compile(ADD_TWICE);
    let mut session = Session::new(&program);
    let (x, y) = (ramp(64, 1.0), ramp(64, 2.0));
    session.run(&[&x, &y]).unwrap();
    let first = session.allocation_count();
    assert_eq!(first, 2, "one arena and one output allocation");
    let bytes = session.arena_bytes();
    session.run(&[&x, &y]).unwrap();
    assert_eq!(
        session.allocation_count(),
        first,
        "a second run allocates nothing"
    );
    // Smaller inputs fit the existing slots.
    let (xs, ys) = (ramp(16, 1.0), ramp(16, 2.0));
    let out = session.run(&[&xs, &ys]).unwrap();
    assert_eq!(out.get(0).unwrap().shape, &[16]);
    assert_eq!(session.allocation_count(), first);
    assert_eq!(session.arena_bytes(), bytes);
    // Larger ones grow them.
    let (xl, yl) = (ramp(100, 1.0), ramp(100, 2.0));
    let out = session.run(&[&xl, &yl]).unwrap();
    let v = out.get(0).unwrap().to_f64_vec().unwrap();
    assert_eq!(v[99], (99.0 - 1.0) + 2.0 * (99.0 * 2.0 - 1.0));
    assert_eq!(session.allocation_count(), first + 2);
}

#[test]
fn poison_exposes_reads_of_unwritten_memory() {
    // `add` writes every element before it is read: poison changes nothing.
    let program = compile(ADD_TWICE);
    let mut session = Session::new(&program);
    session.set_poison(true);
    let (x, y) = (ramp(8, 1.0), ramp(8, 1.0));
    let poisoned = session
        .run(&[&x, &y])
        .unwrap()
        .get(0)
        .unwrap()
        .to_tensor()
        .unwrap();
    session.set_poison(false);
    let clean = session
        .run(&[&x, &y])
        .unwrap()
        .get(0)
        .unwrap()
        .to_tensor()
        .unwrap();
    assert_eq!(poisoned, clean);

    // `accumulate` into a fresh allocation reads it first: zeros without poison, NaN with.
    let program = compile(
        r#"
func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %out = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @accumulate(%out, %x, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %out : !loop.buffer<?xf32, global>
}
"#,
    );
    let mut session = Session::new(&program);
    let x = f32s(&[1.0, 2.0]);
    let out = session
        .run(&[&x])
        .unwrap()
        .get(0)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    assert_eq!(out, [1.0, 2.0]);
    // Reused memory is not re-zeroed: the second run accumulates onto the first.
    let out = session
        .run(&[&x])
        .unwrap()
        .get(0)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    assert_eq!(out, [2.0, 4.0]);
    session.set_poison(true);
    let out = session
        .run(&[&x])
        .unwrap()
        .get(0)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    assert!(out.iter().all(|v| v.is_nan()));
}

/// `@accumulate` adds `%y` into `%x` and returns `%x`: an input the program writes and returns.
const ACCUMULATE_X: &str = r#"
func.func @main(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  loop.launch @accumulate(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %x : !loop.buffer<?xf32, global>
}
"#;

#[test]
fn inputs_are_not_written_and_returned_inputs_are_copied() {
    let program = compile(ACCUMULATE_X);
    let mut session = Session::new(&program);
    let (x, y) = (f32s(&[1.0, 2.0]), f32s(&[10.0, 20.0]));
    let out = session
        .run(&[&x, &y])
        .unwrap()
        .get(0)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    assert_eq!(out, [11.0, 22.0]);
    assert_eq!(
        x.to_f64_vec().unwrap(),
        [1.0, 2.0],
        "the caller's tensor is untouched"
    );
}

#[test]
fn views_are_read_in_place_and_written_inputs_copied() {
    // ADD_TWICE only reads its inputs: both are read where the caller keeps them.
    let program = compile(ADD_TWICE);
    let (x, y) = (ramp(8, 0.5), ramp(8, 0.25));
    let mut session = Session::new(&program);
    let want = session.run(&[&x, &y]).unwrap().get(0).unwrap().to_literal();
    let got = session.run_views(&[x.view(), y.view()]).unwrap();
    assert_eq!(got.get(0).unwrap().to_literal(), want);
    let addresses = [x.as_ptr() as usize, y.as_ptr() as usize].map(Some);
    assert_eq!(session.input_addresses(), addresses);

    // `@accumulate` writes %x: the program reads a copy of it, and %y in place.
    let program = compile(ACCUMULATE_X);
    let mut session = Session::new(&program);
    let (x, y) = (f32s(&[1.0, 2.0]), f32s(&[10.0, 20.0]));
    let out = session.run_views(&[x.view(), y.view()]).unwrap();
    assert_eq!(out.get(0).unwrap().to_f64_vec().unwrap(), [11.0, 22.0]);
    let [a, b] = session.input_addresses()[..] else {
        panic!("two inputs")
    };
    assert_ne!(a, Some(x.as_ptr() as usize));
    assert_eq!(b, Some(y.as_ptr() as usize));
    assert_eq!(
        x.to_f64_vec().unwrap(),
        [1.0, 2.0],
        "the caller's memory is untouched"
    );
}

#[test]
fn a_program_without_parallel_loops_runs_on_the_callers_thread() {
    // No kernel of the module has a parallel loop: the run does not go through the pool.
    let program = compile(
        r#"
func.func @main(%x: !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global> {
  loop.launch @fill4(%x) : (!loop.buffer<4xf32, global>) -> ()
  return %x : !loop.buffer<4xf32, global>
}
"#,
    );
    let x = ramp(4, 1.0);
    FILL4_RAN_HERE.set(false);
    Session::new(&program).run(&[&x]).unwrap();
    assert!(FILL4_RAN_HERE.get(), "the kernel ran on another thread");
}

#[test]
fn views_must_be_aligned_and_sized() {
    let program = compile(ADD_TWICE);
    let mut session = Session::new(&program);
    let big = ramp(10, 1.0);
    let shape = [8];
    let y = ramp(8, 1.0);
    // The 8 elements after the first start 4 bytes past a 64-byte boundary: element-aligned,
    // which is all compiled code assumes of an input, so they are read in place.
    let shifted = dlc_runtime::TensorView {
        dtype: DType::F32,
        shape: &shape,
        bytes: &big.bytes()[4..36],
    };
    let out = session.run_views(&[shifted, y.view()]).unwrap();
    // x = i, y = i - 1: x + 2y = 3i - 2.
    let expected: Vec<f64> = (0..8).map(|i| f64::from(3 * i - 2)).collect();
    assert_eq!(out.get(0).unwrap().to_f64_vec().unwrap(), expected);
    // Two bytes further on, the f32 elements are not aligned.
    let misaligned = dlc_runtime::TensorView {
        dtype: DType::F32,
        shape: &shape,
        bytes: &big.bytes()[6..38],
    };
    let err = session
        .run_views(&[misaligned, y.view()])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("input 0: its memory does not start at a multiple of 4 bytes"),
        "{err}"
    );
    let short = dlc_runtime::TensorView {
        dtype: DType::F32,
        shape: &shape,
        bytes: &y.bytes()[..28],
    };
    let err = session
        .run_views(&[y.view(), short])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("input 1: 28 bytes for shape [8] of f32 (32 expected)"),
        "{err}"
    );
}

#[test]
fn reshapes_share_memory_and_inputs_stay_untouched() {
    // `accumulate` writes a reshape of the input `x`, and a reshape of it is returned: both
    // are the input's memory, so the program works on a private copy of `x`.
    let program = compile(
        r#"
func.func @main(%x: !loop.buffer<2x2xf32, global>, %y: !loop.buffer<?xf32, global>) -> !loop.buffer<1x4xf32, global> {
  %n = loop.dim %y, 0 : !loop.buffer<?xf32, global>
  %flat = loop.reshape %x(%n) : !loop.buffer<2x2xf32, global> -> !loop.buffer<?xf32, global>
  loop.launch @accumulate(%flat, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  %row = loop.reshape %flat : !loop.buffer<?xf32, global> -> !loop.buffer<1x4xf32, global>
  return %row : !loop.buffer<1x4xf32, global>
}
"#,
    );
    let mut session = Session::new(&program);
    let x = Tensor::from_f32(&[2, 2], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    let y = f32s(&[10.0, 20.0, 30.0, 40.0]);
    let out = session.run(&[&x, &y]).unwrap();
    let got = out.get(0).unwrap();
    assert_eq!(got.shape, &[1, 4]);
    assert_eq!(got.to_f64_vec().unwrap(), [11.0, 22.0, 33.0, 44.0]);
    assert_eq!(
        x.to_f64_vec().unwrap(),
        [1.0, 2.0, 3.0, 4.0],
        "the caller's tensor is untouched"
    );
    // A `?` size that makes the element counts differ fails the run at the reshape.
    let msg = run_err(&program, &[&x, &f32s(&[1.0, 2.0])]);
    assert!(
        msg.contains("cannot reshape a buffer of 16 bytes to one of 8 bytes"),
        "{msg}"
    );
}

fn run_err(program: &HostProgram, inputs: &[&Tensor]) -> String {
    let mut session = Session::new(program);
    session
        .run(inputs)
        .expect_err("expected a run error")
        .to_string()
}

#[test]
fn input_validation() {
    let program = compile(ADD_TWICE);
    let x = ramp(8, 1.0);
    assert_eq!(run_err(&program, &[&x]), "expected 2 inputs, got 1");
    let i = Tensor::zeros(DType::I32, &[8]).unwrap();
    assert_eq!(
        run_err(&program, &[&i, &x]),
        "input 0: expected f32, got i32"
    );
    let m = Tensor::zeros(DType::F32, &[2, 4]).unwrap();
    assert_eq!(
        run_err(&program, &[&x, &m]),
        "input 1 ('%arg1'): expected rank 1, got shape [2, 4]"
    );

    // The host function's `loop.dim_symbols` says which dims agree; the inputs are checked
    // against it. Without it each `?` is its own symbol.
    let sig = |p: &HostProgram| -> Vec<Vec<DimSpec>> {
        p.signature()
            .inputs
            .iter()
            .map(|s| s.dims.clone())
            .collect()
    };
    assert_eq!(sig(&program), [[DimSpec::Symbol(0)], [DimSpec::Symbol(1)]]);
    let program = compile(&with_dim_symbols(
        ADD_TWICE,
        "[array<i64: 0>, array<i64: 0>]",
    ));
    assert_eq!(sig(&program), [[DimSpec::Symbol(0)], [DimSpec::Symbol(0)]]);
    let y = ramp(7, 1.0);
    assert_eq!(
        run_err(&program, &[&x, &y]),
        "input 1 ('%arg1'): dim 0 is 7 but must equal dim 0 of input 0 (8)"
    );
    let program = compile(
        r#"
func.func @main(%x: !loop.buffer<4xf32, global>) -> !loop.buffer<4xf32, global> {
  loop.launch @fill4(%x) : (!loop.buffer<4xf32, global>) -> ()
  return %x : !loop.buffer<4xf32, global>
}
"#,
    );
    let x5 = ramp(5, 1.0);
    assert_eq!(
        run_err(&program, &[&x5]),
        "input 0 ('%arg0'): dim 0 is 5 but must be 4"
    );
    let x4 = ramp(4, 1.0);
    let mut session = Session::new(&program);
    let out = session
        .run(&[&x4])
        .unwrap()
        .get(0)
        .unwrap()
        .to_f64_vec()
        .unwrap();
    assert_eq!(out, [1.0; 4]);
}

/// `host` with `loop.dim_symbols = symbols` on its function.
fn with_dim_symbols(host: &str, symbols: &str) -> String {
    host.replacen(
        " {\n",
        &format!(" attributes {{loop.dim_symbols = {symbols}}} {{\n"),
        1,
    )
}

#[test]
fn malformed_dim_symbols_are_diagnostics() {
    let cases = [
        (
            "[array<i64: 0>]",
            "has 1 entries, but the function takes 2 arguments",
        ),
        (
            "[array<i64: 0>, array<i64>]",
            "entry #1 has 0 symbols, but argument #1 has 1 '?' dims",
        ),
        (
            "[array<i64: 0>, array<i64: 2>]",
            "entry #1: symbol 2 is not in [0, 2)",
        ),
        (
            "[array<i64: 0>, array<i64: -1>]",
            "entry #1: symbol -1 is not in [0, 2)",
        ),
        ("[array<i64: 0>, [0]]", "entry #1 is not an array<i64>"),
        (
            "array<i64: 0, 0>",
            "must be an array of one array<i64> per argument",
        ),
    ];
    for (symbols, want) in cases {
        let msg = compile_err(&with_dim_symbols(ADD_TWICE, symbols));
        assert_eq!(msg, format!("'loop.dim_symbols' {want}"), "{symbols}");
    }
}

/// `lower` records which `?` dims must agree on the host function, and the runtime's signature
/// reads them: dims the symbolic shape analysis proves equal or requires equal share a symbol.
#[test]
fn lowered_signature_shares_constrained_symbols() {
    let mut ctx = context();
    let src = r#"
func.func @g(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>, %c: tensor<?xf32>, %n: index) -> tensor<?x4xf32> {
  %0 = graph.add %a, %b : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
"#;
    let module = dlc_ir::parse_source(&mut ctx, src, "g.mlir", 1).unwrap();
    dlc_ir::verify(&ctx, module).unwrap();
    let mut registry = dlc_ir::pass::PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = dlc_ir::pass::parse_pipeline("lower").unwrap();
    let mut pm = registry.build(&spec, "builtin.module").unwrap();
    pm.run(&mut ctx, module).unwrap();
    let mut func = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.op_name(op) == "func.func" {
            func = Some(op);
        }
    });
    let sig = Signature::from_host_function(&ctx, func.unwrap()).unwrap();
    let dims: Vec<_> = sig.inputs.iter().map(|s| s.dims.clone()).collect();
    assert_eq!(dims[0], [DimSpec::Symbol(0), DimSpec::Static(4)]);
    assert_eq!(dims[1], [DimSpec::Symbol(0), DimSpec::Static(4)]);
    assert_eq!(dims[2], [DimSpec::Symbol(1)]);
    assert_eq!(dims[3], []);
    assert_eq!(sig.inputs[1].name, "%arg1");
}

#[test]
fn launch_checks_static_dims() {
    let program = compile(
        r#"
func.func @main(%n: index) -> !loop.buffer<?xf32, global> {
  %out = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @fill4(%out) : (!loop.buffer<?xf32, global>) -> ()
  return %out : !loop.buffer<?xf32, global>
}
"#,
    );
    let n = |v: i64| Tensor::from_bytes(DType::Index, &[], &v.to_le_bytes()).unwrap();
    let mut session = Session::new(&program);
    assert!(session.run(&[&n(4)]).is_ok());
    let e = session.run(&[&n(5)]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "launch of '@fill4': argument #0 has size 5 in dim 0 but the kernel declares 4"
    );
    assert!(matches!(e, RuntimeError::Op { .. }));
    let e = session.run(&[&n(-1)]).unwrap_err();
    assert_eq!(e.to_string(), "negative buffer size -1");
}

#[test]
fn host_arithmetic_errors_are_values() {
    let program = compile(
        r#"
func.func @main(%d: index) -> !loop.buffer<?xf32, global> {
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %q = arith.divsi %c8, %d : index
  %arena = loop.alloc(%c16) : !loop.buffer<?xi8, global>
  %v = loop.view %arena[%q](%c8) : !loop.buffer<?xi8, global> -> !loop.buffer<?xf32, global>
  return %v : !loop.buffer<?xf32, global>
}
"#,
    );
    let d = |v: i64| Tensor::from_bytes(DType::Index, &[], &v.to_le_bytes()).unwrap();
    let mut session = Session::new(&program);
    assert_eq!(
        session.run(&[&d(0)]).unwrap_err().to_string(),
        "division by zero"
    );
    assert_eq!(
        session.run(&[&d(2)]).unwrap_err().to_string(),
        "view of 32 bytes at byte offset 4 is out of range of an arena of 16 bytes"
    );
    assert_eq!(
        session.run(&[&d(-8)]).unwrap_err().to_string(),
        "byte offset -1 is not a non-negative multiple of the element size 4"
    );
}

#[test]
fn constants_are_materialized_once() {
    let program = compile(
        r#"
func.func @main() -> (!loop.buffer<3xi1, global>, !loop.buffer<2xf16, global>, !loop.buffer<2xindex, global>) {
  %b = loop.constant dense<[true, false, true]> : !loop.buffer<3xi1, global>
  %h = loop.constant dense<[0.1, -2.5]> : !loop.buffer<2xf16, global>
  %i = loop.constant dense<[-7, 9]> : !loop.buffer<2xindex, global>
  return %b, %h, %i : !loop.buffer<3xi1, global>, !loop.buffer<2xf16, global>, !loop.buffer<2xindex, global>
}
"#,
    );
    assert_eq!(program.arena_bytes(), Some(0));
    let mut session = Session::new(&program);
    let out = session.run(&[]).unwrap();
    assert_eq!(out.get(0).unwrap().bytes, &[1, 0, 1]);
    let h = out.get(1).unwrap().to_literal().unwrap();
    assert_eq!(h, Literal::from_f64(DType::F16, &[2], &[0.1, -2.5]));
    let i = out.get(2).unwrap().to_literal().unwrap();
    assert_eq!(i, Literal::from_i64(DType::Index, &[2], &[-7, 9]));
    assert_eq!(session.allocation_count(), 0);
}

#[test]
fn compile_time_diagnostics() {
    let e = compile_err(
        r#"
func.func @main() -> !loop.buffer<4xf32, global> {
  %out = loop.alloc : !loop.buffer<4xf32, global>
  loop.launch @missing(%out) : (!loop.buffer<4xf32, global>) -> ()
  return %out : !loop.buffer<4xf32, global>
}
loop.kernel @missing(%x: !loop.buffer<4xf32, global>) {
  loop.return
}
"#,
    );
    assert_eq!(e, "no compiled code for kernel '@missing'");
    let e = compile_err(
        r#"
func.func @main() -> !loop.buffer<4xf32, global> {
  %f = arith.constant 1.0 : f32
  %out = loop.alloc : !loop.buffer<4xf32, global>
  return %out : !loop.buffer<4xf32, global>
}
"#,
    );
    assert_eq!(e, "only integer constants are supported in a host function");
}
