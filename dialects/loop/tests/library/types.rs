//! The buffer type (`src/types.rs`): its text form, element types and shapes included, and
//! [`buffer_type`] and [`buffer_parts`], which build and read it.

use dlc_ir::{Context, Type, DYNAMIC};
use dlc_loop::{buffer_parts, buffer_type, MemorySpace};

#[test]
fn parses_shapes() {
    let cases: &[(&str, &[i64], Type)] = &[
        ("f32", &[], Type::F32),
        ("64x?xf32", &[64, DYNAMIC], Type::F32),
        ("?x128xindex", &[DYNAMIC, 128], Type::INDEX),
        ("0x4xi1", &[0, 4], Type::I1),
        ("2x3x4xbf16", &[2, 3, 4], Type::BF16),
    ];
    for (shape, dims, elem) in cases {
        let mut ctx = Context::new();
        ctx.register_dialect(dlc_loop::dialect());
        let src = format!("\"t.op\"() : () -> !loop.buffer<{shape}, global>");
        ctx.allow_unregistered = true;
        let m = dlc_ir::parse_source(&mut ctx, &src, "t.mlir", 1)
            .unwrap_or_else(|d| panic!("{shape}: {}", d.message));
        let op = ctx
            .first_op(ctx.blocks(ctx.region(m, 0))[0])
            .expect("one op");
        let ty = ctx.result_types(op)[0];
        let (d, e, _) = buffer_parts(&ctx, ty).expect("a buffer");
        assert_eq!((&d[..], e), (*dims, *elem), "{shape}");
    }
    for bad in ["4xf80", "4x", "4xvector<2xf32>"] {
        let mut ctx = Context::new();
        ctx.register_dialect(dlc_loop::dialect());
        ctx.allow_unregistered = true;
        let src = format!("\"t.op\"() : () -> !loop.buffer<{bad}, global>");
        assert!(
            dlc_ir::parse_source(&mut ctx, &src, "t.mlir", 1).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn round_trips_parts() {
    let mut ctx = Context::new();
    let ty = buffer_type(&mut ctx, &[4, DYNAMIC], Type::F32, MemorySpace::Shared);
    assert_eq!(
        buffer_parts(&ctx, ty),
        Some((vec![4, DYNAMIC], Type::F32, MemorySpace::Shared))
    );
    assert_eq!(buffer_parts(&ctx, Type::F32), None);
}
