//! `loop.read_size` in the runtime, with hand-written kernels (no JIT here): a kernel counts
//! the positive elements of its input, the host reads the count and allocates a buffer of that
//! size, and a second kernel fills it; results against the reference host interpreter over runs
//! of one session whose sizes change, with poisoned memory, before and after `plan-memory`;
//! narrow counts sign-extended; and a negative count as a run-time error at the op.

use dlc_ir::{Context, Op};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_runtime::{HostProgram, KernelFn, KernelTable, RuntimeError, Session, Tensor};
use dlc_tensor::DType;

/// The kernels in MLIR, for the interpreter and the runtime's checks: `@count_positive` writes
/// how many elements of `x` are positive into a rank-0 `i64` buffer, `@keep_positive` writes
/// them in order to the front of `y`, `@copy` copies `x` to `y`; `@set_i8` / `@set_i32` store an index, truncated, into a
/// one-element buffer.
const KERNELS: &str = r#"
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

loop.kernel @set_i8(%b: !loop.buffer<1xi8, global>, %v: index) {
  %c0 = arith.constant 0 : index
  %x = arith.index_cast %v : index to i8
  loop.store %x, %b[%c0] : !loop.buffer<1xi8, global>
  loop.return
}

loop.kernel @set_i32(%b: !loop.buffer<1x1xi32, global>, %v: index) {
  %c0 = arith.constant 0 : index
  %x = arith.index_cast %v : index to i32
  loop.store %x, %b[%c0, %c0] : !loop.buffer<1x1xi32, global>
  loop.return
}
"#;

/// The positive elements of `%x`, in a buffer sized by what `@count_positive` counted.
const FILTER: &str = r#"
func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %count = loop.alloc : !loop.buffer<i64, global>
  loop.launch @count_positive(%x, %count, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<i64, global>, index) -> ()
  %k = loop.read_size %count : !loop.buffer<i64, global>
  %y = loop.alloc(%k) : !loop.buffer<?xf32, global>
  loop.launch @keep_positive(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %y : !loop.buffer<?xf32, global>
}
"#;

/// [`FILTER`] through an intermediate copy made between the count and its read: `plan-memory`
/// places the copy in its arena, and must leave the count (read after that launch) alone.
const FILTER_COPY: &str = r#"
func.func @main(%x: !loop.buffer<?xf32, global>) -> !loop.buffer<?xf32, global> {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %count = loop.alloc : !loop.buffer<i64, global>
  loop.launch @count_positive(%x, %count, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<i64, global>, index) -> ()
  %t = loop.alloc(%n) : !loop.buffer<?xf32, global>
  loop.launch @copy(%x, %t, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  %k = loop.read_size %count : !loop.buffer<i64, global>
  %y = loop.alloc(%k) : !loop.buffer<?xf32, global>
  loop.launch @keep_positive(%t, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %y : !loop.buffer<?xf32, global>
}
"#;

/// `%v` stored in a `1xi8` and a `1x1xi32` buffer, read back as sizes: the dims of the result.
const NARROW: &str = r#"
func.func @main(%v: index) -> !loop.buffer<?x?xi8, global> {
  %a = loop.alloc : !loop.buffer<1xi8, global>
  loop.launch @set_i8(%a, %v) : (!loop.buffer<1xi8, global>, index) -> ()
  %b = loop.alloc : !loop.buffer<1x1xi32, global>
  loop.launch @set_i32(%b, %v) : (!loop.buffer<1x1xi32, global>, index) -> ()
  %n32 = loop.read_size %b : !loop.buffer<1x1xi32, global>
  %n8 = loop.read_size %a : !loop.buffer<1xi8, global>
  %r = loop.alloc(%n8, %n32) : !loop.buffer<?x?xi8, global>
  return %r : !loop.buffer<?x?xi8, global>
}
"#;

/// `@count_positive` over the slot ABI.
///
/// # Safety
/// `w` holds the words of `@count_positive`'s arguments.
unsafe extern "C" fn count_positive(w: *const u64) {
    // SAFETY: 4 words: x's pointer and size, count's pointer (rank 0: no dims), n; x holds n
    // f32s and count one i64.
    unsafe {
        let w = std::slice::from_raw_parts(w, 4);
        let (x, count, n) = (w[0] as *const f32, w[2] as *mut i64, w[3] as usize);
        *count = (0..n).filter(|&i| *x.add(i) > 0.0).count() as i64;
    }
}

/// `@keep_positive` over the slot ABI.
///
/// # Safety
/// `w` holds the words of `@keep_positive`'s arguments.
unsafe extern "C" fn keep_positive(w: *const u64) {
    // SAFETY: 5 words: (ptr, size) of x and y, then n; x holds n f32s and y as many as its
    // size, which is never exceeded.
    unsafe {
        let w = std::slice::from_raw_parts(w, 5);
        let (x, y, size, n) = (
            w[0] as *const f32,
            w[2] as *mut f32,
            w[3] as usize,
            w[4] as usize,
        );
        let mut j = 0;
        for i in 0..n {
            let v = *x.add(i);
            if v > 0.0 && j < size {
                *y.add(j) = v;
                j += 1;
            }
        }
    }
}

/// `@copy` over the slot ABI.
///
/// # Safety
/// `w` holds the words of `@copy`'s arguments.
unsafe extern "C" fn copy(w: *const u64) {
    // SAFETY: 5 words: (ptr, size) of x and y, then n; both hold n f32s and do not overlap.
    unsafe {
        let w = std::slice::from_raw_parts(w, 5);
        let n = w[4] as usize;
        std::ptr::copy_nonoverlapping(w[0] as *const f32, w[2] as *mut f32, n);
    }
}

/// `@set_i8` over the slot ABI.
///
/// # Safety
/// `w` holds the words of `@set_i8`'s arguments.
unsafe extern "C" fn set_i8(w: *const u64) {
    // SAFETY: 3 words: b's pointer and its one dim (1), then v.
    unsafe {
        let w = std::slice::from_raw_parts(w, 3);
        *(w[0] as *mut i8) = w[2] as i8;
    }
}

/// `@set_i32` over the slot ABI.
///
/// # Safety
/// `w` holds the words of `@set_i32`'s arguments.
unsafe extern "C" fn set_i32(w: *const u64) {
    // SAFETY: 4 words: b's pointer and its two dims (1, 1), then v; b is 64-byte aligned.
    unsafe {
        let w = std::slice::from_raw_parts(w, 4);
        *(w[0] as *mut i32) = w[3] as i32;
    }
}

struct Kernels;

impl KernelTable for Kernels {
    fn kernel(&self, name: &str) -> Option<KernelFn> {
        match name {
            "count_positive" => Some(count_positive),
            "keep_positive" => Some(keep_positive),
            "copy" => Some(copy),
            "set_i8" => Some(set_i8),
            "set_i32" => Some(set_i32),
            _ => None,
        }
    }
}

/// Parses and verifies the kernels and `host`; returns the context, the module and `@main`.
fn parse(host: &str) -> (Context, Op, Op) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let src = format!("{KERNELS}\n{host}");
    let module = dlc_ir::parse_source(&mut ctx, &src, "test.mlir", 1)
        .unwrap_or_else(|d| panic!("parse error: {d:?}"));
    dlc_ir::verify(&ctx, module).unwrap_or_else(|d| panic!("verify error: {d:?}"));
    let mut main = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.attr(op, "sym_name").and_then(|a| ctx.attr_as_str(a)) == Some("main") {
            main = Some(op);
        }
    });
    (ctx, module, main.expect("a @main"))
}

fn index(v: i64) -> Tensor {
    Tensor::from_bytes(DType::Index, &[], &v.to_le_bytes()).unwrap()
}

/// What the interpreter returns for `@main` on `args`: its one buffer.
fn interpreted(ctx: &Context, main: Op, args: Vec<KernelArg>) -> dlc_tensor::Tensor {
    match run_host(ctx, main, args).unwrap_or_else(|d| panic!("interpreter: {d:?}")) {
        r if r.len() == 1 => match r.into_iter().next() {
            Some(KernelArg::Buffer(b)) => b,
            other => panic!("expected a buffer, got {other:?}"),
        },
        r => panic!("expected one result, got {r:?}"),
    }
}

#[test]
fn a_counted_size_sizes_the_next_allocation_as_in_the_interpreter() {
    let (ctx, module, main) = parse(FILTER);
    let program = HostProgram::compile(&ctx, module, "main", &Kernels).unwrap();
    let mut session = Session::new(&program);
    // Every byte a run reads must have been written in that run.
    session.set_poison(true);
    let inputs: [&[f32]; 5] = [
        &[1.0, -2.0, 3.0, 0.0, 5.0],
        &[-1.0, -2.0],
        &[0.5, 0.25, 4.0, 8.0, 16.0, 32.0, -1.0, 64.0],
        &[],
        &[2.0],
    ];
    for x in inputs {
        let x = Tensor::from_f32(&[x.len()], x).unwrap();
        let out = session.run(&[&x]).unwrap_or_else(|e| panic!("{e}"));
        let got = out.get(0).unwrap().to_host_tensor().unwrap();
        let want = interpreted(&ctx, main, vec![KernelArg::Buffer(x.to_host_tensor())]);
        assert_eq!(got, want);
    }
}

/// Runs [`FILTER_COPY`] after `plan-memory` with poisoned memory, against the interpreter.
#[test]
fn planned_memory_leaves_the_count_alone() {
    let (mut ctx, module, main) = parse(FILTER_COPY);
    let mut registry = dlc_ir::pass::PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = dlc_ir::pass::parse_pipeline("plan-memory").unwrap();
    let mut pm = registry.build(&spec, "builtin.module").unwrap();
    pm.run(&mut ctx, module).unwrap();
    dlc_ir::verify(&ctx, module).unwrap();
    // The copy is a view of the arena; the count keeps its own allocation.
    let (mut reads, mut views) = (Vec::new(), 0);
    ctx.for_each_op(main, &mut |op| {
        if let Some(read) = ctx.view::<dlc_loop::ReadSizeOp>(op) {
            reads.push(ctx.defining_op(read.buffer(&ctx)).map(|d| ctx.op_name(d)));
        }
        views += usize::from(ctx.view::<dlc_loop::ViewOp>(op).is_some());
    });
    assert_eq!(reads, [Some("loop.alloc")]);
    assert_eq!(views, 1);

    let program = HostProgram::compile(&ctx, module, "main", &Kernels).unwrap();
    let mut session = Session::new(&program);
    session.set_poison(true);
    for x in [&[3.0, -1.0, 2.0][..], &[-4.0; 9], &[1.0; 17]] {
        let x = Tensor::from_f32(&[x.len()], x).unwrap();
        let out = session.run(&[&x]).unwrap_or_else(|e| panic!("{e}"));
        let got = out.get(0).unwrap().to_host_tensor().unwrap();
        let want = interpreted(&ctx, main, vec![KernelArg::Buffer(x.to_host_tensor())]);
        assert_eq!(got, want);
    }
}

#[test]
fn narrow_sizes_are_sign_extended_and_negative_ones_are_errors() {
    let (ctx, module, main) = parse(NARROW);
    let program = HostProgram::compile(&ctx, module, "main", &Kernels).unwrap();
    let mut session = Session::new(&program);
    // 300 wraps to 44 in the i8; both fit the i32.
    for (v, dims) in [(100, [100, 100]), (300, [44, 300]), (0, [0, 0])] {
        let out = session
            .run(&[&index(v)])
            .unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(out.get(0).unwrap().shape, dims, "{v}");
        let want = interpreted(&ctx, main, vec![KernelArg::Index(v)]);
        assert_eq!(want.shape(), dims, "{v}");
    }
    // The i32 read comes first: line 8 of `NARROW`, after the kernels.
    let line = KERNELS.lines().count() + 8;
    // 200 fits the i32 but is -56 in the i8, read on the next line.
    for (v, message, line) in [
        (-3, "a size read from memory is negative: -3", line),
        (200, "a size read from memory is negative: -56", line + 1),
    ] {
        let e = session.run(&[&index(v)]).unwrap_err();
        let RuntimeError::Op { location, .. } = &e else {
            panic!("expected an error at an op, got {e:?}");
        };
        assert_eq!(e.to_string(), message);
        assert_eq!(
            ctx.file_position(*location).map(|(_, l, _)| l as usize),
            Some(line),
            "{v}"
        );
        let d = run_host(&ctx, main, vec![KernelArg::Index(v)]).unwrap_err();
        assert_eq!((d.message.as_str(), d.location), (message, *location));
    }
    // The session still runs after an error.
    let out = session.run(&[&index(2)]).unwrap();
    assert_eq!(out.get(0).unwrap().shape, [2, 2]);
}
