//! The builtin dialect: `builtin.module`, the top-level container of every dlc program.

use crate::dialect::{Dialect, Traits};
use crate::ir::{Op, OpSpec};
use crate::parser::{PResult, Parser};
use crate::printer::Printer;

crate::define_op! {
    /// A top-level container of symbols (functions, kernels) in one block.
    pub struct ModuleOp = "builtin.module";
    traits = Traits::ISOLATED_FROM_ABOVE
        .union(Traits::SYMBOL_TABLE)
        .union(Traits::NO_TERMINATOR)
        .union(Traits::SINGLE_BLOCK)
        .union(Traits::GRAPH_REGION);
    operands = [];
    results = [];
    attributes = [sym_name];
    regions = 1;
}

impl ModuleOp {
    /// The module's single block.
    pub fn body(self, ctx: &crate::Context) -> crate::Block {
        ctx.blocks(ctx.region(self.0, 0))[0]
    }
}

pub(crate) fn dialect() -> Dialect {
    let mut module = ModuleOp::def();
    module.parse = Some(parse_module);
    module.print = Some(print_module);
    module.verify = Some(verify_module);
    module.default_dialect = Some("builtin");
    Dialect::new("builtin", vec![module])
}

/// MLIR's rules for modules: one block, and discardable attributes named `dialect.name`.
fn verify_module(ctx: &crate::Context, op: Op) -> Result<(), crate::Diagnostic> {
    if ctx.blocks(ctx.region(op, 0)).len() != 1 {
        return Err(crate::op_error(
            ctx,
            op,
            "region #0 ('bodyRegion') failed to verify constraint: region with 1 blocks",
        ));
    }
    for a in ctx.attrs(op) {
        let name = ctx.ident_str(a.name);
        if !matches!(name, "sym_name" | "sym_visibility") && !name.contains('.') {
            return Err(crate::op_error(
                ctx,
                op,
                format!("can only contain attributes with dialect-prefixed names, found: '{name}'"),
            ));
        }
    }
    Ok(())
}

fn parse_module(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    if let Some(name) = p.parse_optional_symbol_name()? {
        let attr = p.ctx().string_attr(&name);
        let key = p.ctx().ident("sym_name");
        p.ctx().insert_sorted(
            &mut spec.attrs,
            crate::NamedAttr {
                name: key,
                value: attr,
            },
        );
    }
    p.parse_optional_attr_dict_with_keyword(&mut spec.attrs)?;
    let region = p.parse_region(&[], true)?;
    if p.ctx().blocks(region).is_empty() {
        let block = p.ctx().create_block(&[]);
        p.ctx().append_block(region, block);
    }
    spec.regions.push(region);
    Ok(())
}

fn print_module(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    if let Some(name) = crate::symbol::symbol_name(ctx, op) {
        p.write(" ");
        p.print_symbol_name(name);
    }
    p.print_optional_attr_dict_with_keyword(op, &["sym_name"]);
    p.write(" ");
    p.print_region(ctx.region(op, 0), false);
}
