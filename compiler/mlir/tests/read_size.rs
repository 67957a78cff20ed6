//! `loop.read_size` exported to MLIR, lowered, JIT-compiled and run: a count a kernel wrote
//! sizes the buffer allocated after it (the elements kept checked against the input, the count
//! against the loop interpreter's), and narrow elements are sign-extended. A negative size is
//! not checked by the export (the interpreter and the runtime report it): it comes out as the
//! negative index it is.

use dlc_ir::{parse_source, Context, Op};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_mlir::{mlir_context, to_mlir, ExportOptions, LLVM_PIPELINE};
use melior::pass::PassManager;
use melior::ExecutionEngine;

/// `@ramp(%n)` makes the `n` inputs `x[i] = (7i mod 5) - 2` (the interpreter's buffers are
/// tensors this crate does not name, so a host function makes them). `@filter(%x, %out) ->
/// index` counts the positive elements of `x`, reads the count, allocates a buffer of that
/// size, fills it with the positive elements and copies it to the front of `out`; it returns
/// the count. `@narrow(%v) -> index` stores `v` in a `1x1xi32` buffer and reads it back.
const PROGRAM: &str = r#"
loop.kernel @count_positive(%x: !loop.buffer<?xf32, global>, %count: !loop.buffer<i64, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  loop.store %z, %count[] : !loop.buffer<i64, global>
  loop.for serial %i = %c0 to %n step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<?xf32, global>
    %positive = arith.cmpf ogt, %v, %zero : f32
    %inc = arith.select %positive, %one, %z : i64
    %c = loop.load %count[] : !loop.buffer<i64, global>
    %s = arith.addi %c, %inc : i64
    loop.store %s, %count[] : !loop.buffer<i64, global>
  }
  loop.return
}

loop.kernel @keep_positive(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %z = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %at = loop.alloc : !loop.buffer<i64, local>
  loop.store %z, %at[] : !loop.buffer<i64, local>
  loop.for serial %i = %c0 to %n step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<?xf32, global>
    %positive = arith.cmpf ogt, %v, %zero : f32
    loop.if %positive {
      %k = loop.load %at[] : !loop.buffer<i64, local>
      %j = arith.index_cast %k : i64 to index
      loop.store %v, %y[%j] : !loop.buffer<?xf32, global>
      %k1 = arith.addi %k, %one : i64
      loop.store %k1, %at[] : !loop.buffer<i64, local>
    }
  }
  loop.return
}

loop.kernel @copy(%x: !loop.buffer<?xf32, global>, %y: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  loop.for serial %i = %c0 to %n step %c1 {
    %v = loop.load %x[%i] : !loop.buffer<?xf32, global>
    loop.store %v, %y[%i] : !loop.buffer<?xf32, global>
  }
  loop.return
}

loop.kernel @fill_ramp(%x: !loop.buffer<?xf32, global>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %two = arith.constant 2.0 : f32
  loop.for serial %i = %c0 to %n step %c1 {
    %a = arith.muli %i, %c7 : index
    %b = arith.remui %a, %c5 : index
    %c = arith.index_cast %b : index to i64
    %f = arith.sitofp %c : i64 to f32
    %v = arith.subf %f, %two : f32
    loop.store %v, %x[%i] : !loop.buffer<?xf32, global>
  }
  loop.return
}

loop.kernel @set_i32(%b: !loop.buffer<1x1xi32, global>, %v: index) {
  %c0 = arith.constant 0 : index
  %x = arith.index_cast %v : index to i32
  loop.store %x, %b[%c0, %c0] : !loop.buffer<1x1xi32, global>
  loop.return
}

func.func @filter(%x: !loop.buffer<?xf32, global>, %out: !loop.buffer<?xf32, global>) -> index {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %count = loop.alloc : !loop.buffer<i64, global>
  loop.launch @count_positive(%x, %count, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<i64, global>, index) -> ()
  %k = loop.read_size %count : !loop.buffer<i64, global>
  %y = loop.alloc(%k) : !loop.buffer<?xf32, global>
  loop.launch @keep_positive(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  loop.launch @copy(%y, %out, %k) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %k : index
}

func.func @ramp(%n: index) -> !loop.buffer<?xf32, global> {
  %x = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @fill_ramp(%x, %n) : (!loop.buffer<?xf32, global>, index) -> ()
  return %x : !loop.buffer<?xf32, global>
}

func.func @narrow(%v: index) -> index {
  %b = loop.alloc : !loop.buffer<1x1xi32, global>
  loop.launch @set_i32(%b, %v) : (!loop.buffer<1x1xi32, global>, index) -> ()
  %n = loop.read_size %b : !loop.buffer<1x1xi32, global>
  return %n : index
}
"#;

/// `filter` after lowering: two `memref<?xf32>` descriptors (allocated and aligned pointers,
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

/// `narrow` after lowering.
type NarrowFn = unsafe extern "C" fn(i64) -> i64;

fn parse() -> (Context, Op) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let module = parse_source(&mut ctx, PROGRAM, "read_size.mlir", 1).expect("parses");
    dlc_ir::verify(&ctx, module).expect("verifies");
    (ctx, module)
}

/// The symbol `name` of `module`.
fn symbol(ctx: &Context, module: Op, name: &str) -> Op {
    let mut found = None;
    ctx.for_each_op(module, &mut |op| {
        if dlc_ir::symbol::symbol_name(ctx, op) == Some(name) {
            found = Some(op);
        }
    });
    found.unwrap_or_else(|| panic!("no symbol @{name}"))
}

#[test]
fn exported_reads_run_as_the_interpreter_does() {
    let (ctx, module) = parse();
    let mlir = mlir_context();
    melior::utility::register_all_passes();
    let mut exported = to_mlir(&ctx, module, &mlir, &ExportOptions::default()).expect("exports");
    let pm = PassManager::new(&mlir);
    melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), LLVM_PIPELINE)
        .expect("pipeline parses");
    pm.run(&mut exported).expect("lowers to the LLVM dialect");
    let engine = ExecutionEngine::new(&exported, 2, &[], false, false);
    let (filter, narrow) = (engine.lookup("filter"), engine.lookup("narrow"));
    assert!(!filter.is_null() && !narrow.is_null(), "no symbols");
    // SAFETY: `filter` and `narrow` lower to exactly these types (a rank-1 memref is five
    // scalars, an index an i64).
    let filter: FilterFn = unsafe { std::mem::transmute::<*mut (), FilterFn>(filter) };
    // SAFETY: as above.
    let narrow: NarrowFn = unsafe { std::mem::transmute::<*mut (), NarrowFn>(narrow) };

    let (filter_op, ramp_op) = (symbol(&ctx, module, "filter"), symbol(&ctx, module, "ramp"));
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

    let narrow_op = symbol(&ctx, module, "narrow");
    for v in [0, 7, 1 << 30] {
        // SAFETY: `narrow` takes and returns an index.
        let got = unsafe { narrow(v) };
        assert_eq!(got, v);
        let interpreted = run_host(&ctx, narrow_op, vec![KernelArg::Index(v)]).expect("interprets");
        assert_eq!(interpreted, [KernelArg::Index(v)]);
    }
    // 2^31 + 5 is negative in the i32: the export sign-extends it and does not check it; the
    // interpreter reports it.
    let v = (1 << 31) + 5;
    let wrapped = i64::from(v as i32);
    // SAFETY: as above.
    assert_eq!(unsafe { narrow(v) }, wrapped);
    let e = run_host(&ctx, narrow_op, vec![KernelArg::Index(v)]).unwrap_err();
    assert_eq!(
        e.message,
        format!("a size read from memory is negative: {wrapped}")
    );
}
