//! The loop ops (`src/ops.rs`): every builder, checked by verifying and round-tripping what
//! it builds; the reduction combiners' names, read back as the reductions they name; and the
//! loop kinds' names.

use dlc_ir::{print_op, Context, InsertPoint, Location, PrintOptions, Type, DYNAMIC};
use dlc_loop::{
    before_terminator, buffer_type, build_alloc, build_barrier, build_for, build_kernel,
    build_load, build_schedule_block, build_store, Dim, ForOp, IterKind, LoopKind, MemorySpace,
    ReduceKind,
};

fn context() -> Context {
    let mut ctx = Context::new();
    ctx.register_dialect(dlc_loop::dialect());
    ctx.register_dialect(dlc_loop::math_dialect());
    ctx.register_dialect(dlc_arith::dialect());
    ctx
}

/// Every combiner a reduction names (its float one where it has one, its integer one) is
/// the op [`ReduceKind::of_combiner`] reads back as the same reduction: `lower` builds
/// reduction bodies from the names and the loop passes read them back.
#[test]
fn combiners_round_trip() {
    let mut ctx = context();
    let kinds = [
        ReduceKind::Add,
        ReduceKind::Mul,
        ReduceKind::Max,
        ReduceKind::Min,
        ReduceKind::And,
        ReduceKind::Or,
    ];
    for kind in kinds {
        let names = kind
            .float_combiner()
            .into_iter()
            .chain([kind.int_combiner()]);
        for name in names {
            let spec = dlc_ir::OpSpec::new(&mut ctx, name, Location::Unknown);
            let op = ctx.create_op(spec);
            assert_eq!(ReduceKind::of_combiner(&ctx, op), Some(kind), "{name}");
        }
    }
}

/// Builds a GPU copy kernel with every builder, then verifies and round-trips it.
#[test]
fn builders_make_valid_ir() {
    let mut ctx = context();
    let loc = Location::Unknown;
    let module = dlc_ir::parse_source(&mut ctx, "", "empty", 1).unwrap();
    let top = ctx.blocks(ctx.region(module, 0))[0];
    let global = buffer_type(&mut ctx, &[DYNAMIC], Type::F32, MemorySpace::Global);
    let (kernel, entry) = build_kernel(
        &mut ctx,
        InsertPoint::End(top),
        "copy",
        &[global, global, Type::INDEX, Type::INDEX, Type::INDEX],
        loc,
    );
    let args = ctx.block_args(entry).to_vec();
    let at = before_terminator(&ctx, entry);
    let (_, body, t) = build_for(
        &mut ctx,
        at,
        (args[2], args[3], args[4]),
        LoopKind::Thread(Dim::X),
        loc,
    );
    let shared = buffer_type(&mut ctx, &[DYNAMIC], Type::F32, MemorySpace::Shared);
    let at = before_terminator(&ctx, body);
    let tmp = build_alloc(&mut ctx, at, shared, &[args[3]], loc);
    let (sb, sb_body, init) =
        build_schedule_block(&mut ctx, at, "copy", &[(t, IterKind::Spatial)], false, loc);
    assert!(init.is_none());
    let i = ctx.block_args(sb_body)[0];
    let at = before_terminator(&ctx, sb_body);
    let v = build_load(&mut ctx, at, args[0], &[i], loc);
    build_store(&mut ctx, at, v, tmp, &[i], loc);
    build_barrier(&mut ctx, at, loc);
    let w = build_load(&mut ctx, at, tmp, &[i], loc);
    build_store(&mut ctx, at, w, args[1], &[i], loc);
    dlc_ir::verify(&ctx, module).unwrap();

    assert_eq!(kernel.name(&ctx), "copy");
    assert_eq!(
        ctx.view::<ForOp>(ctx.parent_op(sb.0).unwrap())
            .and_then(|f| f.loop_kind(&ctx)),
        Some(LoopKind::Thread(Dim::X))
    );
    assert_eq!(sb.iter_kind_list(&ctx), vec![IterKind::Spatial]);
    let text = print_op(&ctx, module, PrintOptions::default());
    assert!(
        text.contains("loop.for thread.x %arg5 = %arg2 to %arg3 step %arg4"),
        "{text}"
    );
    let mut again = context();
    let reparsed = dlc_ir::parse_source(&mut again, &text, "printed", 1).unwrap();
    dlc_ir::verify(&again, reparsed).unwrap();
    assert_eq!(print_op(&again, reparsed, PrintOptions::default()), text);
}

#[test]
fn loop_kind_names_round_trip() {
    let cases = [
        (LoopKind::Serial, 0),
        (LoopKind::Parallel, 0),
        (LoopKind::Vectorize(4), 4),
        (LoopKind::Unroll(2), 2),
        (LoopKind::Block(Dim::Y), 0),
        (LoopKind::Thread(Dim::Z), 0),
    ];
    for (kind, param) in cases {
        assert_eq!(LoopKind::from_name(kind.name(), param), Some(kind));
    }
    assert_eq!(LoopKind::from_name("warp.x", 0), None);
    assert_eq!(LoopKind::from_name("block.w", 0), None);
}
