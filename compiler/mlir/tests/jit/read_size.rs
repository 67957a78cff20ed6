//! `loop.read_size` exported to MLIR, lowered, JIT-compiled and run: a count a kernel wrote
//! sizes the buffer allocated after it (the elements kept checked against the input, the count
//! against the loop interpreter's), and narrow elements are sign-extended. A negative size is
//! not checked by the export (the interpreter and the runtime report it): it comes out as the
//! negative index it is.

use super::symbol;
use dlc_ir::{Context, Op};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_mlir::{mlir_context, ExportOptions};

/// tools/fixtures/host/read_size.mlir, after kernels.mlir. `@ramp(%n)` makes the `n` inputs
/// `x[i] = (7i mod 5) - 2` (the interpreter's buffers are tensors this crate does not name, so a
/// host function makes them). `@filter_into(%x, %out) -> index` counts the positive elements of
/// `x`, reads the count, allocates a buffer of that size, fills it with the positive elements
/// and copies it to the front of `out`; it returns the count. `@read_i32(%v) -> index` stores
/// `v` in a `1x1xi32` buffer and reads it back.
const PROGRAM: &str = concat!(
    include_str!("../../../../tools/fixtures/host/kernels.mlir"),
    include_str!("../../../../tools/fixtures/host/read_size.mlir"),
);

/// `filter_into` after lowering: two `memref<?xf32>` descriptors (allocated and aligned pointers,
/// offset, size, stride).
type FilterFn = unsafe extern "C" fn(
    *mut f32,
    *mut f32,
    i64,
    i64,
    i64,
    *mut f32,
    *mut f32,
    i64,
    i64,
    i64,
) -> i64;

/// `read_i32` after lowering.
type ReadI32Fn = unsafe extern "C" fn(i64) -> i64;

fn parse() -> (Context, Op) {
    super::parse(PROGRAM, "read_size.mlir")
}

#[test]
fn exported_reads_run_as_the_interpreter_does() {
    let (ctx, module) = parse();
    let mlir = mlir_context();
    let engine = super::engine(&ctx, module, &mlir, &ExportOptions::default());
    let (filter, read_i32) = (engine.lookup("filter_into"), engine.lookup("read_i32"));
    assert!(!filter.is_null() && !read_i32.is_null(), "no symbols");
    // SAFETY: `filter_into` and `read_i32` lower to exactly these types (a rank-1 memref is five
    // scalars, an index an i64).
    let filter: FilterFn = unsafe { std::mem::transmute::<*mut (), FilterFn>(filter) };
    // SAFETY: as above.
    let read_i32: ReadI32Fn = unsafe { std::mem::transmute::<*mut (), ReadI32Fn>(read_i32) };

    let (filter_op, ramp_op) = (
        symbol(&ctx, module, "filter_into"),
        symbol(&ctx, module, "ramp"),
    );
    for n in [0, 1, 4, 12] {
        let mut x: Vec<f32> = (0..n).map(|i| ((7 * i) % 5) as f32 - 2.0).collect();
        let kept: Vec<f32> = x.iter().copied().filter(|&v| v > 0.0).collect();
        let mut out = vec![-1.0f32; x.len()];
        let n = n as i64;
        let (xp, op) = (x.as_mut_ptr(), out.as_mut_ptr());
        // SAFETY: the descriptors describe `x` and `out` (offset 0, size n, stride 1), which
        // outlive the call; the program writes at most `kept.len() <= n` elements of `out`.
        let k = unsafe { filter(xp, xp, 0, n, 1, op, op, 0, n, 1) };
        assert_eq!(k, kept.len() as i64, "n = {n}");
        assert_eq!(out[..kept.len()], kept[..], "n = {n}");
        assert!(out[kept.len()..].iter().all(|&v| v == -1.0), "n = {n}");

        let ramp = |n| run_host(&ctx, ramp_op, vec![KernelArg::Index(n)]).expect("interprets");
        let args = [ramp(n), ramp(n)].map(|mut r| r.remove(0));
        let interpreted = run_host(&ctx, filter_op, args.to_vec()).expect("interprets");
        assert_eq!(interpreted, [KernelArg::Index(k)], "n = {n}");
    }

    let read_i32_op = symbol(&ctx, module, "read_i32");
    for v in [0, 7, 1 << 30] {
        // SAFETY: `read_i32` takes and returns an index.
        let got = unsafe { read_i32(v) };
        assert_eq!(got, v);
        let interpreted =
            run_host(&ctx, read_i32_op, vec![KernelArg::Index(v)]).expect("interprets");
        assert_eq!(interpreted, [KernelArg::Index(v)]);
    }
    // 2^31 + 5 is negative in the i32: the export sign-extends it and does not check it; the
    // interpreter reports it.
    let v = (1 << 31) + 5;
    let wrapped = i64::from(v as i32);
    // SAFETY: as above.
    assert_eq!(unsafe { read_i32(v) }, wrapped);
    let e = run_host(&ctx, read_i32_op, vec![KernelArg::Index(v)]).unwrap_err();
    assert_eq!(
        e.message,
        format!("a size read from memory is negative: {wrapped}")
    );
}
