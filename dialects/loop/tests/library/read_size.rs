//! `loop.read_size` in the host interpreter (`run_host`): a size a kernel counted sizes the
//! buffer the host allocates after it; narrow elements are sign-extended; a negative size is an
//! error at the op naming the value; and the builder, checked by running what it builds.

use crate::host::symbol;
use dlc_ir::{Context, Diagnostic, InsertPoint, Location, Op, PrintOptions, Type, DYNAMIC};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_loop::{buffer_type, MemorySpace, ReadSizeOp};
use dlc_tensor::{DType, Literal};

/// tools/fixtures/host/read_size.mlir, after kernels.mlir.
const PROGRAM: &str = concat!(
    include_str!("../../../../tools/fixtures/host/kernels.mlir"),
    include_str!("../../../../tools/fixtures/host/read_size.mlir"),
);

/// Parses the program; verified unless the caller adds to it.
fn parse(verify: bool) -> (Context, Op) {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_loop::dialect());
    ctx.register_dialect(dlc_loop::math_dialect());
    let module = dlc_ir::parse_source(&mut ctx, PROGRAM, "read_size.mlir", 1)
        .unwrap_or_else(|d| panic!("parse error: {d:?}"));
    if verify {
        dlc_ir::verify(&ctx, module).unwrap_or_else(|d| panic!("verify error: {d:?}"));
    }
    (ctx, module)
}

/// Runs host function `name` of the program on `args`.
fn run(name: &str, args: Vec<KernelArg>) -> Result<Vec<KernelArg>, Diagnostic> {
    let (ctx, module) = parse(true);
    run_host(&ctx, symbol(&ctx, module, name), args)
}

fn f32_buf(values: &[f64]) -> KernelArg {
    KernelArg::Buffer(Literal::from_f64(DType::F32, &[values.len()], values))
}

fn literal(arg: &KernelArg) -> &Literal {
    match arg {
        KernelArg::Buffer(b) => b,
        KernelArg::Index(_) => panic!("not a buffer"),
    }
}

#[test]
fn a_counted_size_sizes_the_next_allocation() {
    let cases: [&[f64]; 4] = [
        &[1.0, -2.0, 3.0, 0.0, 5.0],
        &[-1.0, -2.0],
        &[],
        &[0.5, 0.25, 4.0],
    ];
    for x in cases {
        let kept: Vec<f64> = x.iter().copied().filter(|&v| v > 0.0).collect();
        let r = run("filter", vec![f32_buf(x)]).unwrap_or_else(|d| panic!("{x:?}: {d:?}"));
        assert_eq!(literal(&r[0]).shape(), [kept.len()], "{x:?}");
        assert_eq!(literal(&r[0]).to_f64_vec(), kept, "{x:?}");
        // The size read is an index like any other: `@filter_into` returns it.
        let out = f32_buf(&vec![0.0; x.len()]);
        let r = run("filter_into", vec![f32_buf(x), out]).unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(r, [KernelArg::Index(kept.len() as i64)], "{x:?}");
    }
}

#[test]
fn narrow_elements_are_sign_extended() {
    let r = run("narrow", vec![KernelArg::Index(100)]).unwrap();
    assert_eq!(literal(&r[0]).shape(), [100, 100]);
    // 300 wraps to 44 in an i8.
    let r = run("narrow", vec![KernelArg::Index(300)]).unwrap();
    assert_eq!(literal(&r[0]).shape(), [44, 300]);
}

#[test]
fn a_negative_size_is_an_error_at_the_op() {
    let e = run("narrow", vec![KernelArg::Index(-3)]).unwrap_err();
    assert_eq!(e.message, "a size read from memory is negative: -3");
    // The i32 read is the first.
    let at = PROGRAM.find("%n32 = loop.read_size").unwrap();
    let line = PROGRAM[..at].matches('\n').count() + 1;
    let (ctx, _) = parse(true);
    assert_eq!(
        ctx.file_position(e.location).map(|(_, l, _)| l as usize),
        Some(line)
    );
    // 200 fits the i32 but is -56 in the i8.
    let e = run("narrow", vec![KernelArg::Index(200)]).unwrap_err();
    assert_eq!(e.message, "a size read from memory is negative: -56");
}

#[test]
fn builder_makes_a_runnable_read() {
    let (mut ctx, module) = parse(false);
    let top = ctx.blocks(ctx.region(module, 0))[0];
    let loc = Location::Unknown;
    let count_ty = buffer_type(&mut ctx, &[1, 1], Type::I32, MemorySpace::Global);
    let vec_ty = buffer_type(&mut ctx, &[DYNAMIC], Type::F32, MemorySpace::Global);
    let fn_ty = ctx.function_type(&[count_ty], &[vec_ty]);
    let (region, entry) = ctx.create_region_with_block(&[count_ty]);
    let name = ctx.string_attr("main");
    let ty_attr = ctx.type_attr(fn_ty);
    let spec = dlc_ir::OpSpec::new(&mut ctx, "func.func", loc)
        .attr(&mut ctx, "sym_name", name)
        .attr(&mut ctx, "function_type", ty_attr)
        .region(region);
    ctx.build(InsertPoint::End(top), spec);
    let count = ctx.block_args(entry)[0];
    let at = InsertPoint::End(entry);
    let n = dlc_loop::build_read_size(&mut ctx, at, count, loc);
    let y = dlc_loop::build_alloc(&mut ctx, at, vec_ty, &[n], loc);
    let spec = dlc_ir::OpSpec::new(&mut ctx, "func.return", loc).operands(&[y]);
    ctx.build(at, spec);
    dlc_ir::verify(&ctx, module).unwrap();
    assert_eq!(ctx.value_type(n), Type::INDEX);
    let read = ctx
        .defining_op(n)
        .and_then(|op| ctx.view::<ReadSizeOp>(op))
        .expect("a loop.read_size");
    assert_eq!(read.buffer(&ctx), count);

    let text = dlc_ir::print_op(&ctx, module, PrintOptions::default());
    assert!(
        text.contains("%0 = loop.read_size %arg0 : !loop.buffer<1x1xi32, global>"),
        "{text}"
    );

    let mut c = Literal::zeros(DType::I32, &[1, 1]);
    c.set(0, dlc_tensor::Scalar::Int(3));
    let main = symbol(&ctx, module, "main");
    let r = run_host(&ctx, main, vec![KernelArg::Buffer(c)]).unwrap();
    assert_eq!(literal(&r[0]).shape(), [3]);
}
