//! Helpers shared by the arith integration tests: a context with the dialect registered, and
//! parse/print shorthands that fail the test with the diagnostic's text.

#![allow(dead_code)]

use dlc_ir::{parse_source, print_op, verify, Context, Op, PrintOptions};

/// A context with arith registered and unregistered ops allowed (for `test.*` scaffolding).
pub fn context() -> Context {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    ctx.register_dialect(dlc_arith::dialect());
    ctx
}

/// Parses and verifies `src`, panicking with the diagnostic on failure.
pub fn parse(ctx: &mut Context, src: &str) -> Op {
    let module = parse_source(ctx, src, "test.mlir", 1)
        .unwrap_or_else(|d| panic!("parse error: {}\n{src}", d.message));
    verify(ctx, module).unwrap_or_else(|d| panic!("verify error: {}\n{src}", d.message));
    module
}

/// The custom-form text of `op`.
pub fn custom(ctx: &Context, op: Op) -> String {
    print_op(ctx, op, PrintOptions::default())
}

/// The generic-form text of `op`.
pub fn generic(ctx: &Context, op: Op) -> String {
    print_op(
        ctx,
        op,
        PrintOptions {
            generic: true,
            ..PrintOptions::default()
        },
    )
}

/// The ops of a module's body, in order.
pub fn body_ops(ctx: &Context, module: Op) -> Vec<Op> {
    let block = ctx.blocks(ctx.region(module, 0))[0];
    ctx.block_ops(block).collect()
}
