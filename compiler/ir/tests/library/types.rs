//! Builtin types (`dlc_ir::types`): half-precision bit patterns and rounding as IEEE defines
//! them, and the builtin types the context interns up front.

use dlc_ir::{Context, FloatKind, Type, TypeKind, DYNAMIC};

#[test]
fn half_precision_rounding_matches_ieee() {
    for (v, bits) in [
        (1.0, 0x3c00u16),
        (-2.0, 0xc000),
        (65504.0, 0x7bff),
        (0.0, 0),
    ] {
        assert_eq!(FloatKind::F16.to_bits(v), u64::from(bits), "{v}");
        assert_eq!(FloatKind::F16.from_bits(u64::from(bits)), v);
    }
    assert_eq!(FloatKind::F16.to_bits(1e6), 0x7c00);
    assert_eq!(FloatKind::BF16.to_bits(1.0), 0x3f80);
    assert_eq!(FloatKind::BF16.round(2.71875 + 0.001), 2.71875);
}

#[test]
fn builtin_types_are_preinterned() {
    let mut ctx = Context::new();
    assert_eq!(ctx.integer_type(32), Type::I32);
    assert_eq!(ctx.intern_type(TypeKind::Index), Type::INDEX);
    let t1 = ctx.tensor_type(&[4, DYNAMIC], Type::F32);
    let t2 = ctx.tensor_type(&[4, DYNAMIC], Type::F32);
    assert_eq!(t1, t2);
}
