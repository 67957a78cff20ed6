//! `loop.read_size` in the host interpreter (`run_host`): a size a kernel counted sizes the
//! buffer the host allocates after it; narrow elements are sign-extended; a negative size is an
//! error at the op naming the value; and the builder, checked by running what it builds.

use dlc_ir::{Context, Diagnostic, InsertPoint, Location, Op, PrintOptions, Type, DYNAMIC};
use dlc_loop::interp::{run_host, KernelArg};
use dlc_loop::{buffer_type, MemorySpace, ReadSizeOp};
use dlc_tensor::{DType, Tensor};

/// `@count_positive` writes how many elements of `x` are positive into a rank-0 `i64` buffer;
/// `@keep_positive` writes them, in order, to the front of `y`; `@set_i8` / `@set_i32` store an
/// index, truncated, into a one-element buffer.
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
func.func @main(%x: !loop.buffer<?xf32, global>) -> (!loop.buffer<?xf32, global>, index) {
  %n = loop.dim %x, 0 : !loop.buffer<?xf32, global>
  %count = loop.alloc : !loop.buffer<i64, global>
  loop.launch @count_positive(%x, %count, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<i64, global>, index) -> ()
  %k = loop.read_size %count : !loop.buffer<i64, global>
  %y = loop.alloc(%k) : !loop.buffer<?xf32, global>
  loop.launch @keep_positive(%x, %y, %n) : (!loop.buffer<?xf32, global>, !loop.buffer<?xf32, global>, index) -> ()
  return %y, %k : !loop.buffer<?xf32, global>, index
}
"#;

/// `%v` stored in a `1xi8` and a `1x1xi32` buffer and read back as sizes.
const NARROW: &str = r#"
func.func @main(%v: index) -> (index, index) {
  %a = loop.alloc : !loop.buffer<1xi8, global>
  loop.launch @set_i8(%a, %v) : (!loop.buffer<1xi8, global>, index) -> ()
  %b = loop.alloc : !loop.buffer<1x1xi32, global>
  loop.launch @set_i32(%b, %v) : (!loop.buffer<1x1xi32, global>, index) -> ()
  %n32 = loop.read_size %b : !loop.buffer<1x1xi32, global>
  %n8 = loop.read_size %a : !loop.buffer<1xi8, global>
  return %n8, %n32 : index, index
}
"#;

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_arith::dialect());
    ctx.register_dialect(dlc_func::dialect());
    ctx.register_dialect(dlc_loop::dialect());
    ctx.register_dialect(dlc_loop::math_dialect());
    ctx
}

/// Parses and verifies the kernels and `host`.
fn parse(host: &str) -> (Context, Op) {
    let mut ctx = context();
    let module = dlc_ir::parse_source(&mut ctx, &format!("{KERNELS}\n{host}"), "test.mlir", 1)
        .unwrap_or_else(|d| panic!("parse error: {d:?}"));
    dlc_ir::verify(&ctx, module).unwrap_or_else(|d| panic!("verify error: {d:?}"));
    (ctx, module)
}

/// The symbol `name` of `module`.
fn symbol(ctx: &Context, module: Op, name: &str) -> Op {
    let mut found = None;
    ctx.for_each_op(module, &mut |op| {
        if ctx.attr(op, "sym_name").and_then(|a| ctx.attr_as_str(a)) == Some(name) {
            found = Some(op);
        }
    });
    found.unwrap_or_else(|| panic!("no symbol @{name}"))
}

/// Runs `@main` of the kernels and `host` on `args`.
fn run(host: &str, args: Vec<KernelArg>) -> Result<Vec<KernelArg>, Diagnostic> {
    let (ctx, module) = parse(host);
    run_host(&ctx, symbol(&ctx, module, "main"), args)
}

fn f32_buf(values: &[f64]) -> KernelArg {
    KernelArg::Buffer(Tensor::from_f64(DType::F32, &[values.len()], values))
}

fn tensor(arg: &KernelArg) -> &Tensor {
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
        let r = run(FILTER, vec![f32_buf(x)]).unwrap_or_else(|d| panic!("{x:?}: {d:?}"));
        assert_eq!(tensor(&r[0]).shape(), [kept.len()], "{x:?}");
        assert_eq!(tensor(&r[0]).to_f64_vec(), kept, "{x:?}");
        assert_eq!(r[1], KernelArg::Index(kept.len() as i64), "{x:?}");
    }
}

#[test]
fn narrow_elements_are_sign_extended() {
    let r = run(NARROW, vec![KernelArg::Index(100)]).unwrap();
    assert_eq!(r, [KernelArg::Index(100), KernelArg::Index(100)]);
    // 300 wraps to 44 in an i8.
    let r = run(NARROW, vec![KernelArg::Index(300)]).unwrap();
    assert_eq!(r, [KernelArg::Index(44), KernelArg::Index(300)]);
}

#[test]
fn a_negative_size_is_an_error_at_the_op() {
    let e = run(NARROW, vec![KernelArg::Index(-3)]).unwrap_err();
    assert_eq!(e.message, "a size read from memory is negative: -3");
    // The i32 read is the first: line 8 of `NARROW`, after the kernels.
    let line = KERNELS.lines().count() + 8;
    let (ctx, _) = parse(NARROW);
    assert_eq!(
        ctx.file_position(e.location).map(|(_, l, _)| l as usize),
        Some(line)
    );
    // 200 fits the i32 but is -56 in the i8.
    let e = run(NARROW, vec![KernelArg::Index(200)]).unwrap_err();
    assert_eq!(e.message, "a size read from memory is negative: -56");
}

#[test]
fn builder_makes_a_runnable_read() {
    let mut ctx = context();
    let module = dlc_ir::parse_source(&mut ctx, KERNELS, "kernels.mlir", 1).unwrap();
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

    let mut c = Tensor::zeros(DType::I32, &[1, 1]);
    c.set(0, dlc_tensor::Scalar::Int(3));
    let main = symbol(&ctx, module, "main");
    let r = run_host(&ctx, main, vec![KernelArg::Buffer(c)]).unwrap();
    assert_eq!(tensor(&r[0]).shape(), [3]);
}
