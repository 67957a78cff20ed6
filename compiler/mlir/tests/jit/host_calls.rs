//! `loop.call_if` and `loop.call_loop` exported to MLIR, lowered, JIT-compiled and run, against
//! the loop interpreter: the branch a run-time condition picks, trip counts (zero and negative
//! included), a condition that stops the loop early, and a carried buffer the body writes in
//! place, which must leave the caller's initial value as it was.

use super::symbol;
use dlc_ir::{Context, Op};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_mlir::{mlir_context, ExportOptions};

/// `@main(%out, %v, %m, %k) -> index`: `p = v != 0 ? 1 : 2` by `loop.call_if`; then a
/// `loop.call_loop` of trip count `m` whose body adds one in place to a carried `1xi64` buffer
/// (starting at 0), adds one to a carried index (starting at `p`), and continues while
/// `i + 1 < k` (`k` captured). `out` gets the carried buffer's element and the initial
/// buffer's; `main` returns the carried index. The kernels `@less` (`c = i + 1 < k`) and the
/// others of tools/fixtures/host/kernels.mlir come first.
const PROGRAM: &str = concat!(
    include_str!("../../../../tools/fixtures/host/kernels.mlir"),
    r#"
loop.kernel @set(%b: !loop.buffer<i64, global>, %v: index) {
  %x = arith.index_cast %v : index to i64
  loop.store %x, %b[] : !loop.buffer<i64, global>
  loop.return
}

loop.kernel @set_flag(%b: !loop.buffer<i1, global>, %v: index) {
  %c0 = arith.constant 0 : index
  %x = arith.cmpi ne, %v, %c0 : index
  loop.store %x, %b[] : !loop.buffer<i1, global>
  loop.return
}

loop.kernel @inc(%x: !loop.buffer<1xi64, global>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  %v = loop.load %x[%c0] : !loop.buffer<1xi64, global>
  %w = arith.addi %v, %one : i64
  loop.store %w, %x[%c0] : !loop.buffer<1xi64, global>
  loop.return
}

loop.kernel @report(%a: !loop.buffer<1xi64, global>, %b: !loop.buffer<1xi64, global>, %out: !loop.buffer<2xi64, global>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = loop.load %a[%c0] : !loop.buffer<1xi64, global>
  %y = loop.load %b[%c0] : !loop.buffer<1xi64, global>
  loop.store %x, %out[%c0] : !loop.buffer<2xi64, global>
  loop.store %y, %out[%c1] : !loop.buffer<2xi64, global>
  loop.return
}

func.func @one() -> index {
  %c1 = arith.constant 1 : index
  return %c1 : index
}

func.func @two() -> index {
  %c2 = arith.constant 2 : index
  return %c2 : index
}

func.func @body(%i: !loop.buffer<i64, global>, %c: !loop.buffer<i1, global>, %x: !loop.buffer<1xi64, global>, %n: index, %k: index) -> (!loop.buffer<i1, global>, !loop.buffer<1xi64, global>, index) {
  loop.launch @inc(%x) : (!loop.buffer<1xi64, global>) -> ()
  %c1 = arith.constant 1 : index
  %n1 = arith.addi %n, %c1 : index
  %go = loop.alloc : !loop.buffer<i1, global>
  loop.launch @less(%i, %k, %go) : (!loop.buffer<i64, global>, index, !loop.buffer<i1, global>) -> ()
  return %go, %x, %n1 : !loop.buffer<i1, global>, !loop.buffer<1xi64, global>, index
}

func.func @zeros() -> !loop.buffer<2xi64, global> {
  %z = loop.alloc : !loop.buffer<2xi64, global>
  return %z : !loop.buffer<2xi64, global>
}

func.func @main(%out: !loop.buffer<2xi64, global>, %v: index, %m: index, %k: index) -> index {
  %flag = loop.alloc : !loop.buffer<i1, global>
  loop.launch @set_flag(%flag, %v) : (!loop.buffer<i1, global>, index) -> ()
  %p = loop.call_if %flag then @one else @two () : (!loop.buffer<i1, global>) -> index
  %mb = loop.alloc : !loop.buffer<i64, global>
  loop.launch @set(%mb, %m) : (!loop.buffer<i64, global>, index) -> ()
  %c1 = arith.constant 1 : index
  %go = loop.alloc : !loop.buffer<1xi1, global>
  %go0 = loop.reshape %go : !loop.buffer<1xi1, global> -> !loop.buffer<i1, global>
  loop.launch @set_flag(%go0, %c1) : (!loop.buffer<i1, global>, index) -> ()
  %x0 = loop.alloc : !loop.buffer<1xi64, global>
  %r:2 = loop.call_loop @body (%mb, %go, %x0, %p) captures (%k) : (!loop.buffer<i64, global>, !loop.buffer<1xi1, global>, !loop.buffer<1xi64, global>, index, index) -> (!loop.buffer<1xi64, global>, index)
  loop.launch @report(%r#0, %x0, %out) : (!loop.buffer<1xi64, global>, !loop.buffer<1xi64, global>, !loop.buffer<2xi64, global>) -> ()
  return %r#1 : index
}
"#
);

/// `main` after lowering: the `memref<2xi64>` descriptor (allocated and aligned pointers,
/// offset, size, stride), then `v`, `m`, `k`.
type MainFn = unsafe extern "C" fn(*mut i64, *mut i64, i64, i64, i64, i64, i64, i64) -> i64;

fn parse() -> (Context, Op) {
    super::parse(PROGRAM, "host_calls.mlir")
}

/// The value `main` returns and the two elements of `out`, for the inputs `(v, m, k)`.
fn expected(v: i64, m: i64, k: i64) -> (i64, [i64; 2]) {
    let p = if v != 0 { 1 } else { 2 };
    let iterations = if m <= 0 { 0 } else { m.min(k.max(1)) };
    (p + iterations, [iterations, 0])
}

#[test]
fn exported_calls_run_as_the_interpreter_does() {
    let (ctx, module) = parse();
    let mlir = mlir_context();
    let engine = super::engine(&ctx, module, &mlir, &ExportOptions::default());
    let entry = engine.lookup("main");
    assert!(!entry.is_null(), "no symbol main");
    // SAFETY: `main` lowers to exactly `MainFn` (a rank-1 memref is five scalars, an index an
    // i64), and `out` outlives the call.
    let main: MainFn = unsafe { std::mem::transmute::<*mut (), MainFn>(entry) };
    // The interpreter's `out`: this crate does not name the interpreter's tensor type, so a
    // host function makes the buffer.
    let zeros = run_host(&ctx, symbol(&ctx, module, "zeros"), vec![]).expect("interprets");
    let main_op = symbol(&ctx, module, "main");
    for (v, m, k) in [
        (1, 3, 10),
        (0, 3, 10),
        (1, 10, 4),
        (0, 10, 1),
        (1, 0, 5),
        (0, -3, 5),
    ] {
        let mut out = [-1i64; 2];
        // SAFETY: as above; the descriptor describes `out` (offset 0, size 2, stride 1).
        let got = unsafe { main(out.as_mut_ptr(), out.as_mut_ptr(), 0, 2, 1, v, m, k) };
        let (want, want_out) = expected(v, m, k);
        assert_eq!((got, out), (want, want_out), "v = {v}, m = {m}, k = {k}");
        let args = vec![
            zeros[0].clone(),
            KernelArg::Index(v),
            KernelArg::Index(m),
            KernelArg::Index(k),
        ];
        let interpreted = run_host(&ctx, main_op, args).expect("interprets");
        assert_eq!(
            interpreted,
            [KernelArg::Index(want)],
            "v = {v}, m = {m}, k = {k}"
        );
    }
}
