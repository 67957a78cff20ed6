//! `loop.read_size` in the runtime, with hand-written kernels (no JIT here): a kernel counts
//! the positive elements of its input, the host reads the count and allocates a buffer of that
//! size, and a second kernel fills it; results against the reference host interpreter over runs
//! of one session whose sizes change, with poisoned memory, before and after `plan-memory`;
//! narrow counts sign-extended; and a negative count as a run-time error at the op.
//!
//! The program is tools/fixtures/host/read_size.mlir, after kernels.mlir.

use dlc_ir::{Context, Op};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_runtime::{HostProgram, KernelFn, KernelTable, RuntimeError, Session, Tensor};
use dlc_tensor::DType;

use crate::fixture_kernels;

const PROGRAM: &str = concat!(
    include_str!("../../../../tools/fixtures/host/kernels.mlir"),
    include_str!("../../../../tools/fixtures/host/read_size.mlir"),
);

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
            "set_i8" => Some(set_i8),
            "set_i32" => Some(set_i32),
            _ => fixture_kernels::kernel(name),
        }
    }
}

/// Parses and verifies the program; returns the context, the module and its host function
/// `name`.
fn parse(name: &str) -> (Context, Op, Op) {
    let mut ctx = Context::new();
    dlc_dialects::register_all_dialects(&mut ctx);
    let module = dlc_ir::parse_source(&mut ctx, PROGRAM, "read_size.mlir", 1)
        .unwrap_or_else(|d| panic!("parse error: {d:?}"));
    dlc_ir::verify(&ctx, module).unwrap_or_else(|d| panic!("verify error: {d:?}"));
    let mut func = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.attr(op, "sym_name").and_then(|a| ctx.attr_as_str(a)) == Some(name) {
            func = Some(op);
        }
    });
    (ctx, module, func.unwrap_or_else(|| panic!("no @{name}")))
}

fn index(v: i64) -> Tensor {
    Tensor::from_bytes(DType::Index, &[], &v.to_le_bytes()).unwrap()
}

/// What the interpreter returns for `func` on `args`: its one buffer.
fn interpreted(ctx: &Context, func: Op, args: Vec<KernelArg>) -> dlc_tensor::Literal {
    match run_host(ctx, func, args).unwrap_or_else(|d| panic!("interpreter: {d:?}")) {
        r if r.len() == 1 => match r.into_iter().next() {
            Some(KernelArg::Buffer(b)) => b,
            other => panic!("expected a buffer, got {other:?}"),
        },
        r => panic!("expected one result, got {r:?}"),
    }
}

/// Runs `session`, with poisoned memory, on each of `inputs`, and checks its one output
/// against the interpreter's run of `func`.
fn check_runs(ctx: &Context, func: Op, session: &mut Session<'_>, inputs: &[&[f32]]) {
    // Every byte a run reads must have been written in that run.
    session.set_poison(true);
    for x in inputs {
        let x = Tensor::from_f32(&[x.len()], x).unwrap();
        let out = session.run(&[&x]).unwrap_or_else(|e| panic!("{e}"));
        let got = out.get(0).unwrap().to_literal().unwrap();
        let want = interpreted(ctx, func, vec![KernelArg::Buffer(x.to_literal())]);
        assert_eq!(got, want);
    }
}

#[test]
fn a_counted_size_sizes_the_next_allocation_as_in_the_interpreter() {
    let (ctx, module, filter) = parse("filter");
    let program = HostProgram::compile(&ctx, module, "filter", &Kernels).unwrap();
    let inputs: [&[f32]; 5] = [
        &[1.0, -2.0, 3.0, 0.0, 5.0],
        &[-1.0, -2.0],
        &[0.5, 0.25, 4.0, 8.0, 16.0, 32.0, -1.0, 64.0],
        &[],
        &[2.0],
    ];
    check_runs(&ctx, filter, &mut Session::new(&program), &inputs);
}

/// Runs `@filter_copy` after `plan-memory` with poisoned memory, against the interpreter.
#[test]
fn planned_memory_leaves_the_count_alone() {
    let (mut ctx, module, filter) = parse("filter_copy");
    let mut registry = dlc_ir::pass::PassRegistry::new();
    dlc_passes::register_all(&mut registry);
    let spec = dlc_ir::pass::parse_pipeline("plan-memory").unwrap();
    let mut pm = registry.build(&spec, "builtin.module").unwrap();
    pm.run(&mut ctx, module).unwrap();
    dlc_ir::verify(&ctx, module).unwrap();
    // The copy is a view of the arena; the count keeps its own allocation.
    let (mut reads, mut views) = (Vec::new(), 0);
    ctx.for_each_op(filter, &mut |op| {
        if let Some(read) = ctx.view::<dlc_loop::ReadSizeOp>(op) {
            reads.push(ctx.defining_op(read.buffer(&ctx)).map(|d| ctx.op_name(d)));
        }
        views += usize::from(ctx.view::<dlc_loop::ViewOp>(op).is_some());
    });
    assert_eq!(reads, [Some("loop.alloc")]);
    assert_eq!(views, 1);

    let program = HostProgram::compile(&ctx, module, "filter_copy", &Kernels).unwrap();
    let inputs: [&[f32]; 3] = [&[3.0, -1.0, 2.0], &[-4.0; 9], &[1.0; 17]];
    check_runs(&ctx, filter, &mut Session::new(&program), &inputs);
}

#[test]
fn narrow_sizes_are_sign_extended_and_negative_ones_are_errors() {
    let (ctx, module, narrow) = parse("narrow");
    let program = HostProgram::compile(&ctx, module, "narrow", &Kernels).unwrap();
    let mut session = Session::new(&program);
    // 300 wraps to 44 in the i8; both fit the i32.
    for (v, dims) in [(100, [100, 100]), (300, [44, 300]), (0, [0, 0])] {
        let out = session
            .run(&[&index(v)])
            .unwrap_or_else(|e| panic!("{v}: {e}"));
        assert_eq!(out.get(0).unwrap().shape, dims, "{v}");
        let want = interpreted(&ctx, narrow, vec![KernelArg::Index(v)]);
        assert_eq!(want.shape(), dims, "{v}");
    }
    // The i32 read comes first.
    let at = PROGRAM.find("%n32 = loop.read_size").unwrap();
    let line = PROGRAM[..at].matches('\n').count() + 1;
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
        let d = run_host(&ctx, narrow, vec![KernelArg::Index(v)]).unwrap_err();
        assert_eq!((d.message.as_str(), d.location), (message, *location));
    }
    // The session still runs after an error.
    let out = session.run(&[&index(2)]).unwrap();
    assert_eq!(out.get(0).unwrap().shape, [2, 2]);
}
