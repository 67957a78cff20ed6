//! Custom syntax of the loop ops, CINN-like for loops and schedule blocks:
//!
//! ```text
//! loop.kernel @k(%a: !loop.buffer<?x128xf32, global> {loop.noalias}, %n: index) attributes {grid = [...]} {
//!   %s = loop.alloc : !loop.buffer<128xf32, shared>
//!   loop.for thread.x %t = %c0 to %c128 step %c1 {
//!     loop.schedule_block "sum" (%i = %t, %k = %kk reduce) attributes {reduce_method = "block"} init {
//!       loop.yield
//!     } {
//!       %v = loop.load %a[%i, %k] : !loop.buffer<?x128xf32, global>
//!       loop.store %v, %s[%i] : !loop.buffer<128xf32, shared>
//!       loop.yield
//!     }
//!     loop.yield
//!   }
//!   loop.return
//! }
//! ```
//!
//! Region bodies print their `loop.yield` / `loop.return`; when parsing, a missing terminator
//! is added. Host calls name their callees inline and hide the attributes that hold them:
//!
//! ```text
//! %r = loop.call_if %c then @f else @g (%a) : (!loop.buffer<i1, global>, index) -> index
//! %s:2 = loop.call_loop @body (%m, %c, %x) captures (%y) : (...) -> (...)
//! ```
//!
//! These are the ops whose syntax a declarative format (`format = "..."` in their definition,
//! `dlc_ir::format`) cannot say: regions with argument lists, an elided terminator, optional
//! groups (`else`, sizes), one type written for several operands, keywords that are attribute
//! values. The others (`loop.dim`, `loop.check`, `loop.warp_reduce`, the terminators, ...) have
//! a format.

use crate::ops::{IterKind, LoopKind, ReturnOp, ScheduleBlockOp, YieldOp};
use crate::types::buffer_parts;
use dlc_ir::parser::lexer::Tok;
use dlc_ir::parser::{Argument, UnresolvedOperand};
use dlc_ir::{
    AttrKind, Attribute, Diagnostic, InsertPoint, Op, OpSpec, OpView, PResult, Parser, Printer,
    Region, Traits, Type, Value,
};

fn set_attr(p: &mut Parser<'_>, spec: &mut OpSpec, name: &str, value: Attribute) {
    spec.set_attr(p.ctx(), name, value);
}

/// Adds `terminator` to the region's single block if it does not end in one.
fn ensure_terminator(p: &mut Parser<'_>, region: Region, terminator: &str, args: &[Type]) {
    let loc = p.current_loc();
    let ctx = p.ctx();
    let block = match ctx.blocks(region).first() {
        Some(b) => *b,
        None => {
            let b = ctx.create_block(args);
            ctx.append_block(region, b);
            b
        }
    };
    let ends = ctx
        .last_op(block)
        .is_some_and(|op| ctx.has_trait(op, Traits::TERMINATOR));
    if !ends {
        let spec = OpSpec::new(ctx, terminator, loc);
        ctx.build(InsertPoint::End(block), spec);
    }
}

/// Parses an integer literal token.
fn parse_int(p: &mut Parser<'_>, what: &str) -> PResult<i64> {
    let text = p.peek_text();
    if p.peek() != Tok::Integer {
        return Err(p.error(format!("expected {what}")));
    }
    let v = text
        .parse::<i64>()
        .map_err(|_| p.error(format!("expected {what}")))?;
    p.consume(Tok::Integer);
    Ok(v)
}

/// Parses a string literal token.
fn parse_string(p: &mut Parser<'_>, what: &str) -> PResult<String> {
    let attr = match p.peek() {
        Tok::String => p.parse_attribute()?,
        _ => return Err(p.error(format!("expected {what}"))),
    };
    Ok(p.ctx().attr_as_str(attr).unwrap_or("").to_string())
}

/// Parses `%name` (a new value being defined) and returns its text.
fn parse_new_name<'a>(p: &mut Parser<'a>) -> PResult<(&'a str, dlc_ir::Location)> {
    let loc = p.current_loc();
    let name = p.peek_text();
    p.expect(Tok::PercentIdent, "SSA value name")?;
    Ok((name, loc))
}

fn resolve_index<'a>(p: &mut Parser<'a>, u: &UnresolvedOperand<'a>) -> PResult<Value> {
    p.resolve_operand(u, Type::INDEX)
}

/// Parses `[%i, %j]` into index operands.
fn parse_indices(p: &mut Parser<'_>) -> PResult<Vec<Value>> {
    let mut us = Vec::new();
    p.parse_delimited(Tok::LSquare, Tok::RSquare, "]", |p| {
        us.push(p.parse_operand()?);
        Ok(())
    })?;
    us.iter().map(|u| resolve_index(p, u)).collect()
}

fn print_indices(p: &mut Printer<'_>, values: &[Value]) {
    p.write("[");
    p.print_operands(values);
    p.write("]");
}

// ---------------------------------------------------------------------------------------------
// loop.kernel / loop.return

pub(crate) fn parse_kernel(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    let name_attr = p.ctx().string_attr(&name);
    set_attr(p, spec, "sym_name", name_attr);
    let mut args: Vec<Argument<'_>> = Vec::new();
    // One dictionary per argument, as `func.func`'s `arg_attrs`: `%a: type {loop.noalias}`.
    let mut arg_attrs: Vec<Option<Attribute>> = Vec::new();
    p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
        args.push(p.parse_argument()?);
        arg_attrs.push(if p.peek() == Tok::LBrace {
            let mut entries = Vec::new();
            p.parse_attr_dict_into(&mut entries)?;
            Some(p.ctx().dict_attr(&entries))
        } else {
            None
        });
        Ok(())
    })?;
    let inputs: Vec<Type> = args.iter().map(|a| a.ty).collect();
    let fn_ty = p.ctx().function_type(&inputs, &[]);
    let ty_attr = p.ctx().type_attr(fn_ty);
    set_attr(p, spec, "function_type", ty_attr);
    if arg_attrs.iter().any(Option::is_some) {
        let empty = p.ctx().intern_attr(AttrKind::Dict(Box::new([])));
        let dicts: Vec<Attribute> = arg_attrs.into_iter().map(|a| a.unwrap_or(empty)).collect();
        let array = p.ctx().array_attr(&dicts);
        set_attr(p, spec, "arg_attrs", array);
    }
    p.parse_optional_attr_dict_with_keyword(&mut spec.attrs)?;
    let region = p.parse_region(&args, true)?;
    ensure_terminator(p, region, ReturnOp::NAME, &inputs);
    spec.regions.push(region);
    Ok(())
}

pub(crate) fn print_kernel(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let kernel = crate::KernelOp(op);
    p.write(" ");
    p.print_symbol_name(kernel.name(ctx));
    let region = ctx.region(op, 0);
    p.write("(");
    if let Some(entry) = ctx.blocks(region).first() {
        for (i, a) in ctx.block_args(*entry).iter().enumerate() {
            if i > 0 {
                p.write(", ");
            }
            p.print_argument(*a);
            let dict = kernel
                .arg_attrs(ctx)
                .and_then(|all| match ctx.attr_kind(all) {
                    AttrKind::Array(dicts) => dicts.get(i).copied(),
                    _ => None,
                });
            if let Some(d) =
                dict.filter(|d| !matches!(ctx.attr_kind(*d), AttrKind::Dict(e) if e.is_empty()))
            {
                p.write(" ");
                p.print_attr(d);
            }
        }
    }
    p.write(")");
    p.print_optional_attr_dict_with_keyword(op, &["sym_name", "function_type", "arg_attrs"]);
    p.write(" ");
    p.print_region(region, false);
}

// ---------------------------------------------------------------------------------------------
// loop.alloc

pub(crate) fn parse_alloc(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let mut sizes = Vec::new();
    if p.peek() == Tok::LParen {
        p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
            sizes.push(p.parse_operand()?);
            Ok(())
        })?;
    }
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let ty = p.parse_colon_type()?;
    for u in &sizes {
        let v = resolve_index(p, u)?;
        spec.operands.push(v);
    }
    spec.result_types.push(ty);
    Ok(())
}

pub(crate) fn print_alloc(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let sizes = ctx.operands(op);
    if !sizes.is_empty() {
        p.write("(");
        p.print_operands(sizes);
        p.write(")");
    }
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
}

// ---------------------------------------------------------------------------------------------
// loop.for

pub(crate) fn parse_for(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let kind_loc = p.current_loc();
    let word = p.parse_keyword(
        "loop kind (serial, parallel, vectorize(N), unroll(N), block.x, thread.x, ...)",
    )?;
    let param = if matches!(word, "vectorize" | "unroll") {
        p.expect(Tok::LParen, "'(' and a width or factor")?;
        let v = parse_int(p, "integer width or factor")?;
        p.expect(Tok::RParen, "')'")?;
        v
    } else {
        0
    };
    let kind = LoopKind::from_name(word, param)
        .ok_or_else(|| Diagnostic::error(kind_loc, format!("unknown loop kind '{word}'")))?;
    let kind_attr = p.ctx().string_attr(kind.name());
    set_attr(p, spec, "kind", kind_attr);
    match kind {
        LoopKind::Vectorize(w) => {
            let a = p.ctx().integer_attr(w.into(), Type::I64);
            set_attr(p, spec, "width", a);
        }
        LoopKind::Unroll(f) => {
            let a = p.ctx().integer_attr(f.into(), Type::I64);
            set_attr(p, spec, "factor", a);
        }
        _ => {}
    }
    let (iv, iv_loc) = parse_new_name(p)?;
    p.expect(Tok::Equal, "'='")?;
    let lb = p.parse_operand()?;
    if !p.consume_keyword("to") {
        return Err(p.error("expected 'to'"));
    }
    let ub = p.parse_operand()?;
    if !p.consume_keyword("step") {
        return Err(p.error("expected 'step'"));
    }
    let step = p.parse_operand()?;
    for u in [lb, ub, step] {
        let v = resolve_index(p, &u)?;
        spec.operands.push(v);
    }
    p.parse_optional_attr_dict_with_keyword(&mut spec.attrs)?;
    let args = [Argument {
        name: iv,
        ty: Type::INDEX,
        loc: iv_loc,
    }];
    let region = p.parse_region(&args, false)?;
    ensure_terminator(p, region, YieldOp::NAME, &[Type::INDEX]);
    spec.regions.push(region);
    Ok(())
}

pub(crate) fn print_for(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let for_op = crate::ForOp(op);
    p.write(" ");
    let kind = for_op.loop_kind(ctx);
    match kind {
        Some(LoopKind::Vectorize(w)) => p.write(&format!("vectorize({w})")),
        Some(LoopKind::Unroll(f)) => p.write(&format!("unroll({f})")),
        Some(k) => p.write(k.name()),
        // A malformed kind cannot be written in the custom form; the verifier rejects it.
        None => p.write("serial"),
    }
    p.write(" ");
    match for_op.induction_var(ctx) {
        Some(iv) => p.print_operand(iv),
        None => p.write("%iv"),
    }
    let ops = ctx.operands(op);
    p.write(" = ");
    p.print_operand(ops[0]);
    p.write(" to ");
    p.print_operand(ops[1]);
    p.write(" step ");
    p.print_operand(ops[2]);
    let mut elided = vec!["kind"];
    match kind {
        Some(LoopKind::Vectorize(_)) => elided.push("width"),
        Some(LoopKind::Unroll(_)) => elided.push("factor"),
        _ => {}
    }
    p.print_optional_attr_dict_with_keyword(op, &elided);
    p.write(" ");
    p.print_region(ctx.region(op, 0), false);
}

// ---------------------------------------------------------------------------------------------
// loop.schedule_block

pub(crate) fn parse_schedule_block(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let name = parse_string(p, "schedule block name string")?;
    let name_attr = p.ctx().string_attr(&name);
    set_attr(p, spec, "name", name_attr);
    let mut args: Vec<Argument<'_>> = Vec::new();
    let mut values = Vec::new();
    let mut kinds = Vec::new();
    p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
        let (name, loc) = parse_new_name(p)?;
        p.expect(Tok::Equal, "'='")?;
        values.push(p.parse_operand()?);
        let kind = if p.consume_keyword("reduce") {
            IterKind::Reduce
        } else {
            IterKind::Spatial
        };
        kinds.push(kind);
        args.push(Argument {
            name,
            ty: Type::INDEX,
            loc,
        });
        Ok(())
    })?;
    for u in &values {
        let v = resolve_index(p, u)?;
        spec.operands.push(v);
    }
    let kind_attrs: Vec<Attribute> = kinds
        .iter()
        .map(|k| p.ctx().string_attr(k.name()))
        .collect();
    let kinds_attr = p.ctx().array_attr(&kind_attrs);
    set_attr(p, spec, "iter_kinds", kinds_attr);
    p.parse_optional_attr_dict_with_keyword(&mut spec.attrs)?;
    let arg_types = vec![Type::INDEX; args.len()];
    let init = if p.consume_keyword("init") {
        let r = p.parse_region(&args, false)?;
        ensure_terminator(p, r, YieldOp::NAME, &arg_types);
        r
    } else {
        p.ctx().create_region()
    };
    let body = p.parse_region(&args, false)?;
    ensure_terminator(p, body, YieldOp::NAME, &arg_types);
    spec.regions.push(body);
    spec.regions.push(init);
    Ok(())
}

pub(crate) fn print_schedule_block(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let sb = ScheduleBlockOp(op);
    p.write(" ");
    p.print_string(sb.label(ctx));
    p.write(" (");
    let kinds = sb.iter_kind_list(ctx);
    let body = sb.body(ctx);
    for (i, v) in ctx.operands(op).iter().enumerate() {
        if i > 0 {
            p.write(", ");
        }
        match body.and_then(|b| ctx.block_args(b).get(i).copied()) {
            Some(arg) => p.print_operand(arg),
            None => p.write("%iter"),
        }
        p.write(" = ");
        p.print_operand(*v);
        if kinds.get(i) == Some(&IterKind::Reduce) {
            p.write(" reduce");
        }
    }
    p.write(")");
    p.print_optional_attr_dict_with_keyword(op, &["name", "iter_kinds"]);
    // The init block's arguments are printed under the body's names: both regions bind the
    // same iter vars. The printer names each region's arguments itself, so the init region is
    // printed first and names stay consistent within each region.
    if let Some(init) = ctx.regions(op).get(1).copied() {
        if !ctx.blocks(init).is_empty() {
            p.write(" init ");
            p.print_region(init, false);
        }
    }
    p.write(" ");
    p.print_region(ctx.region(op, 0), false);
}

// ---------------------------------------------------------------------------------------------
// loop.load / loop.store / loop.vload / loop.vstore

/// The element type of a buffer type, or an error at `loc`.
fn element_of(p: &mut Parser<'_>, ty: Type, loc: dlc_ir::Location) -> PResult<Type> {
    buffer_parts(p.ctx(), ty)
        .map(|(_, e, _)| e)
        .ok_or_else(|| Diagnostic::error(loc, "expected a !loop.buffer type"))
}

pub(crate) fn parse_load(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let elem = parse_element_access(p, spec)?;
    spec.result_types.push(elem);
    Ok(())
}

/// `loop.prefetch %buf[%i, ...] : !loop.buffer<...>`: a load's syntax without its result.
pub(crate) fn parse_prefetch(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    parse_element_access(p, spec).map(|_| ())
}

/// `%buf[%i, ...] {attrs} : !loop.buffer<...>` into `spec`'s operands and attributes; returns
/// the buffer's element type.
fn parse_element_access(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<Type> {
    parse_access(p, spec, false)
}

/// [`parse_element_access`], with `, %pad` after the indices when `padded` (a padded read's
/// padding, of the element type, which becomes the last operand).
fn parse_access(p: &mut Parser<'_>, spec: &mut OpSpec, padded: bool) -> PResult<Type> {
    let buf = p.parse_operand()?;
    let indices = parse_indices(p)?;
    let padding = if padded {
        p.expect(Tok::Comma, "',' and a padding value")?;
        Some(p.parse_operand()?)
    } else {
        None
    };
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let ty = p.parse_type()?;
    let elem = element_of(p, ty, loc)?;
    let buf = p.resolve_operand(&buf, ty)?;
    spec.operands.push(buf);
    spec.operands.extend(indices);
    if let Some(padding) = padding {
        let padding = p.resolve_operand(&padding, elem)?;
        spec.operands.push(padding);
    }
    Ok(elem)
}

/// Prints a load or a prefetch: the buffer, the indices, the attributes and the buffer type.
pub(crate) fn print_load(p: &mut Printer<'_>, op: Op) {
    print_access(p, op, false);
}

/// [`print_load`], with `, %pad` after the indices when `padded` (a padded read's last
/// operand).
fn print_access(p: &mut Printer<'_>, op: Op, padded: bool) {
    let ctx = p.ctx();
    let ops = ctx.operands(op);
    let (access, padding) = match (padded, ops.split_last()) {
        (true, Some((&padding, access))) => (access, Some(padding)),
        _ => (ops, None),
    };
    let Some((&buffer, indices)) = access.split_first() else {
        return;
    };
    p.write(" ");
    p.print_operand(buffer);
    print_indices(p, indices);
    if let Some(padding) = padding {
        p.write(", ");
        p.print_operand(padding);
    }
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(buffer));
}

/// `loop.load_padded %buf[%i, ...], %pad : !loop.buffer<...>`.
pub(crate) fn parse_load_padded(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let elem = parse_access(p, spec, true)?;
    spec.result_types.push(elem);
    Ok(())
}

/// `loop.vload_padded %buf[%i, ...], %pad : !loop.buffer<...> -> vector<...>`.
pub(crate) fn parse_vload_padded(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    parse_access(p, spec, true)?;
    p.expect(Tok::Arrow, "'->' and a vector type")?;
    let vty = p.parse_type()?;
    spec.result_types.push(vty);
    Ok(())
}

pub(crate) fn print_load_padded(p: &mut Printer<'_>, op: Op) {
    print_access(p, op, true);
}

pub(crate) fn print_vload_padded(p: &mut Printer<'_>, op: Op) {
    print_access(p, op, true);
    p.write(" -> ");
    let ty = p.ctx().value_type(p.ctx().result(op, 0));
    p.print_type(ty);
}

pub(crate) fn parse_store(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let value = p.parse_operand()?;
    p.expect(Tok::Comma, "','")?;
    let buf = p.parse_operand()?;
    let indices = parse_indices(p)?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let ty = p.parse_type()?;
    let elem = element_of(p, ty, loc)?;
    let value = p.resolve_operand(&value, elem)?;
    let buf = p.resolve_operand(&buf, ty)?;
    spec.operands.push(value);
    spec.operands.push(buf);
    spec.operands.extend(indices);
    Ok(())
}

pub(crate) fn print_store(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let ops = ctx.operands(op);
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    p.print_operand(ops[1]);
    print_indices(p, &ops[2..]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[1]));
}

/// `%acc, %a, %b attr-dict : vector<Nxi32>, vector<4Nxi8>` (`loop.dot4`, and `loop.dot2`
/// with its `i16` operands); a quad or pair operand writes out both operand types.
pub(crate) fn parse_dot(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let loc = p.current_loc();
    let operands = p.parse_operand_list()?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let acc = p.parse_type()?;
    p.expect(Tok::Comma, "',' and the type of the grouped operands")?;
    let a = p.parse_type()?;
    // Operands of different types (a quad and a full vector) each have theirs.
    let b = if p.consume(Tok::Comma) {
        p.parse_type()?
    } else {
        a
    };
    spec.operands
        .extend(p.resolve_operands(&operands, &[acc, a, b], loc)?);
    spec.result_types.push(acc);
    Ok(())
}

pub(crate) fn print_dot(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let ops = ctx.operands(op);
    p.write(" ");
    p.print_operands(ops);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
    p.write(", ");
    p.print_type(ctx.value_type(ops[1]));
    if ctx.value_type(ops[2]) != ctx.value_type(ops[1]) {
        p.write(", ");
        p.print_type(ctx.value_type(ops[2]));
    }
}

pub(crate) fn parse_vload(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let buf = p.parse_operand()?;
    let indices = parse_indices(p)?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let ty = p.parse_type()?;
    p.expect(Tok::Arrow, "'->' and a vector type")?;
    let vty = p.parse_type()?;
    let buf = p.resolve_operand(&buf, ty)?;
    spec.operands.push(buf);
    spec.operands.extend(indices);
    spec.result_types.push(vty);
    Ok(())
}

pub(crate) fn print_vload(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let ops = ctx.operands(op);
    p.write(" ");
    p.print_operand(ops[0]);
    print_indices(p, &ops[1..]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
    p.write(" -> ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
}

pub(crate) fn parse_vstore(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let value = p.parse_operand()?;
    p.expect(Tok::Comma, "','")?;
    let buf = p.parse_operand()?;
    let indices = parse_indices(p)?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let vty = p.parse_type()?;
    p.expect(Tok::Comma, "',' and a buffer type")?;
    let ty = p.parse_type()?;
    let value = p.resolve_operand(&value, vty)?;
    let buf = p.resolve_operand(&buf, ty)?;
    spec.operands.push(value);
    spec.operands.push(buf);
    spec.operands.extend(indices);
    Ok(())
}

pub(crate) fn print_vstore(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let ops = ctx.operands(op);
    p.write(" ");
    p.print_operand(ops[0]);
    p.write(", ");
    p.print_operand(ops[1]);
    print_indices(p, &ops[2..]);
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
    p.write(", ");
    p.print_type(ctx.value_type(ops[1]));
}

// ---------------------------------------------------------------------------------------------
// loop.if

pub(crate) fn parse_if(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let cond = p.parse_operand()?;
    let cond = p.resolve_operand(&cond, Type::I1)?;
    spec.operands.push(cond);
    p.parse_optional_attr_dict_with_keyword(&mut spec.attrs)?;
    let then = p.parse_region(&[], false)?;
    ensure_terminator(p, then, YieldOp::NAME, &[]);
    let otherwise = if p.consume_keyword("else") {
        let r = p.parse_region(&[], false)?;
        ensure_terminator(p, r, YieldOp::NAME, &[]);
        r
    } else {
        p.ctx().create_region()
    };
    spec.regions.push(then);
    spec.regions.push(otherwise);
    Ok(())
}

pub(crate) fn print_if(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    p.write(" ");
    p.print_operand(ctx.operand(op, 0));
    p.print_optional_attr_dict_with_keyword(op, &[]);
    p.write(" ");
    p.print_region(ctx.region(op, 0), false);
    if let Some(otherwise) = ctx.regions(op).get(1).copied() {
        if !ctx.blocks(otherwise).is_empty() {
            p.write(" else ");
            p.print_region(otherwise, false);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// loop.thread_id / block_id / block_dim

pub(crate) fn parse_gpu_index(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let loc = p.current_loc();
    let word = p.parse_keyword("dimension x, y or z")?;
    if crate::Dim::from_keyword(word).is_none() {
        return Err(Diagnostic::error(
            loc,
            format!("expected dimension x, y or z, found '{word}'"),
        ));
    }
    let a = p.ctx().string_attr(word);
    set_attr(p, spec, "dim", a);
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    spec.result_types.push(Type::INDEX);
    Ok(())
}

pub(crate) fn print_gpu_index(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    p.write(" ");
    match ctx.attr(op, "dim").and_then(|a| ctx.attr_as_str(a)) {
        Some(d) => p.write(d),
        None => p.write("x"),
    }
    p.print_optional_attr_dict(op, &["dim"]);
}

// ---------------------------------------------------------------------------------------------
// Attribute helpers

/// Reads an array-of-strings attribute.
pub(crate) fn string_array(ctx: &dlc_ir::Context, a: Attribute) -> Option<Vec<&str>> {
    let AttrKind::Array(items) = ctx.attr_kind(a) else {
        return None;
    };
    items.iter().map(|i| ctx.attr_as_str(*i)).collect()
}

// ---------------------------------------------------------------------------------------------
// Host ops: loop.dim, loop.launch, loop.constant, loop.view

/// `@kernel(%a, %n) attr-dict : (types) -> ()`.
pub(crate) fn parse_launch(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    let callee = p.ctx().symbol_ref_attr(&name);
    set_attr(p, spec, "callee", callee);
    let mut operands = Vec::new();
    p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
        operands.push(p.parse_operand()?);
        Ok(())
    })?;
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let ty = p.parse_type()?;
    let Some((inputs, results)) = p
        .ctx()
        .function_signature(ty)
        .map(|(i, r)| (i.to_vec(), r.len()))
    else {
        return Err(Diagnostic::error(loc, "expected a function type"));
    };
    if results != 0 {
        return Err(Diagnostic::error(loc, "'loop.launch' has no results"));
    }
    spec.operands
        .extend(p.resolve_operands(&operands, &inputs, loc)?);
    Ok(())
}

pub(crate) fn print_launch(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    p.write(" ");
    match ctx.attr(op, "callee") {
        Some(callee) => p.print_attr(callee),
        None => p.write("@\"\""),
    }
    p.write("(");
    p.print_operands(ctx.operands(op));
    p.write(")");
    p.print_optional_attr_dict(op, &["callee"]);
    p.write(" : (");
    let inputs: Vec<Type> = ctx
        .operands(op)
        .iter()
        .map(|v| ctx.value_type(*v))
        .collect();
    p.print_type_list(&inputs);
    p.write(") -> ()");
}

/// `attr-dict dense<...> : buffer-type`. The dense literal is written without its type: it is
/// the tensor of the buffer's shape and element type.
pub(crate) fn parse_constant(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let loc = p.current_loc();
    if p.peek() == Tok::BareIdent && p.peek_text() == "dense_resource" {
        // Elements held outside the IR, with their type: `dense_resource<name> : tensor<...>`
        // (the verifier asks for them to be put back as `dense<...>` before it runs).
        let value = p.parse_attribute()?;
        p.expect(Tok::Colon, "':'")?;
        let ty = p.parse_type()?;
        set_attr(p, spec, "value", value);
        spec.result_types.push(ty);
        return Ok(());
    }
    if p.peek() != Tok::BareIdent || p.peek_text() != "dense" {
        return Err(p.error("expected a dense elements attribute 'dense<...>'"));
    }
    // The literal's meaning depends on its type, which comes after it: keep its tokens and parse
    // them once the type is known.
    let mut literal = String::new();
    let mut depth = 0i32;
    loop {
        let tok = p.peek();
        match tok {
            Tok::Eof | Tok::Error => return Err(p.error("unterminated dense attribute")),
            Tok::Less => depth += 1,
            Tok::Greater => depth -= 1,
            _ => {}
        }
        literal.push_str(p.peek_text());
        literal.push(' ');
        p.consume(tok);
        if tok == Tok::Greater && depth <= 0 {
            break;
        }
    }
    p.expect(Tok::Colon, "':'")?;
    let ty_loc = p.current_loc();
    let ty = p.parse_type()?;
    let tensor = match buffer_parts(p.ctx(), ty) {
        Some((dims, elem, _)) if !dims.contains(&dlc_ir::DYNAMIC) => {
            p.ctx().tensor_type(&dims, elem)
        }
        _ => {
            return Err(Diagnostic::error(
                ty_loc,
                "expected a statically shaped !loop.buffer type",
            ))
        }
    };
    let value = parse_dense_literal(p.ctx(), &literal, tensor)
        .map_err(|d| Diagnostic::error(loc, d.message))?;
    set_attr(p, spec, "value", value);
    spec.result_types.push(ty);
    Ok(())
}

/// Parses the dense literal `text` as an attribute of type `tensor` with the IR's own dense
/// parser (the parser has no entry point for a literal whose type is known from elsewhere), by
/// reading it as an attribute of a throw-away module.
fn parse_dense_literal(ctx: &mut dlc_ir::Context, text: &str, tensor: Type) -> PResult<Attribute> {
    let tensor = Printer::new(ctx).type_to_string(tensor);
    let src = format!("module attributes {{loop.value = {text}: {tensor}}} {{\n}}\n");
    let module = dlc_ir::parse_source(ctx, &src, "<loop.constant>", 1)?;
    let value = ctx.attr(module, "loop.value");
    ctx.erase_op(module);
    value.ok_or_else(|| Diagnostic::error(dlc_ir::Location::Unknown, "expected a dense attribute"))
}

pub(crate) fn print_constant(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    p.print_optional_attr_dict(op, &["value"]);
    let result_ty = ctx.value_type(ctx.result(op, 0));
    if let Some(value) = ctx.attr(op, "value") {
        p.write(" ");
        let text = p.attr_to_string(value);
        // Drop the literal's type when the buffer type implies it.
        let implied = match (ctx.attr_kind(value), buffer_parts(ctx, result_ty)) {
            (AttrKind::DenseElements(d), Some((dims, elem, _))) => match ctx.type_kind(d.ty) {
                dlc_ir::TypeKind::Tensor { shape, element } => **shape == *dims && *element == elem,
                _ => false,
            }
            .then(|| format!(" : {}", p.type_to_string(d.ty))),
            _ => None,
        };
        match implied
            .as_deref()
            .and_then(|suffix| text.strip_suffix(suffix))
        {
            Some(literal) => p.write(literal),
            None => p.write(&text),
        }
    }
    p.write(" : ");
    p.print_type(result_ty);
}

/// `loop.view %arena[%offset](%d0, %d1) attr-dict : arena-type -> buffer-type`.
pub(crate) fn parse_view(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    parse_host_buffer(p, spec, true)
}

pub(crate) fn print_view(p: &mut Printer<'_>, op: Op) {
    print_host_buffer(p, op, true)
}

/// `loop.reshape %source(%d0, %d1) attr-dict : source-type -> buffer-type`.
pub(crate) fn parse_reshape(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    parse_host_buffer(p, spec, false)
}

pub(crate) fn print_reshape(p: &mut Printer<'_>, op: Op) {
    print_host_buffer(p, op, false)
}

/// The form of the host ops that make a buffer over another one's memory:
/// `%source[%offset](%d0, %d1) attr-dict : source-type -> buffer-type`, the bracketed byte
/// offset only `with_offset`, the size list (one per `?` dim of the result) left out when
/// there are none.
fn parse_host_buffer(p: &mut Parser<'_>, spec: &mut OpSpec, with_offset: bool) -> PResult<()> {
    let source = p.parse_operand()?;
    let offset = if with_offset {
        p.expect(Tok::LSquare, "'[' and a byte offset")?;
        let offset = p.parse_operand()?;
        p.expect(Tok::RSquare, "']'")?;
        Some(offset)
    } else {
        None
    };
    let mut sizes = Vec::new();
    if p.peek() == Tok::LParen {
        p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
            sizes.push(p.parse_operand()?);
            Ok(())
        })?;
    }
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    let source_ty = p.parse_colon_type()?;
    p.expect(Tok::Arrow, "'->' and a buffer type")?;
    let ty = p.parse_type()?;
    let source = p.resolve_operand(&source, source_ty)?;
    spec.operands.push(source);
    for u in offset.iter().chain(&sizes) {
        let v = resolve_index(p, u)?;
        spec.operands.push(v);
    }
    spec.result_types.push(ty);
    Ok(())
}

fn print_host_buffer(p: &mut Printer<'_>, op: Op, with_offset: bool) {
    let ctx = p.ctx();
    let ops = ctx.operands(op);
    let fixed = if with_offset { 2 } else { 1 };
    if ops.len() < fixed {
        // Too few operands for the custom form; the verifier rejects the op.
        p.print_optional_attr_dict(op, &[]);
        p.write(" : ");
        p.print_type(ctx.value_type(ctx.result(op, 0)));
        return;
    }
    p.write(" ");
    p.print_operand(ops[0]);
    if with_offset {
        p.write("[");
        p.print_operand(ops[1]);
        p.write("]");
    }
    if ops.len() > fixed {
        p.write("(");
        p.print_operands(&ops[fixed..]);
        p.write(")");
    }
    p.print_optional_attr_dict(op, &[]);
    p.write(" : ");
    p.print_type(ctx.value_type(ops[0]));
    p.write(" -> ");
    p.print_type(ctx.value_type(ctx.result(op, 0)));
}

// ---------------------------------------------------------------------------------------------
// Host calls: loop.call_if, loop.call_loop

/// `(%a, %b)` into unresolved operands, appended to `into`.
fn parse_operand_list<'a>(
    p: &mut Parser<'a>,
    into: &mut Vec<UnresolvedOperand<'a>>,
) -> PResult<()> {
    p.parse_delimited(Tok::LParen, Tok::RParen, ")", |p| {
        into.push(p.parse_operand()?);
        Ok(())
    })
}

/// `attr-dict : (inputs) -> results` after a call's operands: resolves `operands` against the
/// inputs into `spec`, and takes the results as its result types.
fn parse_call_tail<'a>(
    p: &mut Parser<'a>,
    spec: &mut OpSpec,
    operands: &[UnresolvedOperand<'a>],
) -> PResult<()> {
    p.parse_optional_attr_dict(&mut spec.attrs)?;
    p.expect(Tok::Colon, "':'")?;
    let loc = p.current_loc();
    let ty = p.parse_type()?;
    let Some((inputs, results)) = p
        .ctx()
        .function_signature(ty)
        .map(|(i, r)| (i.to_vec(), r.to_vec()))
    else {
        return Err(Diagnostic::error(loc, "expected a function type"));
    };
    spec.operands
        .extend(p.resolve_operands(operands, &inputs, loc)?);
    spec.result_types.extend(results);
    Ok(())
}

/// The symbol reference attribute `key` of `op`, printed as `@name` (`@""` when missing: the
/// verifier rejects the op).
fn print_callee(p: &mut Printer<'_>, op: Op, key: &str) {
    match p.ctx().attr(op, key) {
        Some(callee) => p.print_attr(callee),
        None => p.write("@\"\""),
    }
}

/// `attr-dict : (operand types) -> results`, the single result bare as `func.call` prints it.
fn print_call_tail(p: &mut Printer<'_>, op: Op, elided: &[&str]) {
    let ctx = p.ctx();
    p.print_optional_attr_dict(op, elided);
    let inputs: Vec<Type> = ctx
        .operands(op)
        .iter()
        .map(|v| ctx.value_type(*v))
        .collect();
    p.write(" : (");
    p.print_type_list(&inputs);
    p.write(") -> ");
    let results = ctx.result_types(op);
    p.print_function_result_types(&results);
}

/// `%cond then @f else @g (%a, %b) attr-dict : (cond-type, arg-types) -> results`.
pub(crate) fn parse_call_if(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let mut operands = vec![p.parse_operand()?];
    for (keyword, key) in [("then", "then_callee"), ("else", "else_callee")] {
        if !p.consume_keyword(keyword) {
            return Err(p.error(format!("expected '{keyword}' and a callee")));
        }
        let name = p.parse_symbol_name()?;
        let callee = p.ctx().symbol_ref_attr(&name);
        set_attr(p, spec, key, callee);
    }
    parse_operand_list(p, &mut operands)?;
    parse_call_tail(p, spec, &operands)
}

pub(crate) fn print_call_if(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let operands = ctx.operands(op);
    if let Some(&cond) = operands.first() {
        p.write(" ");
        p.print_operand(cond);
    }
    p.write(" then ");
    print_callee(p, op, "then_callee");
    p.write(" else ");
    print_callee(p, op, "else_callee");
    p.write(" (");
    p.print_operands(operands.get(1..).unwrap_or(&[]));
    p.write(")");
    print_call_tail(p, op, &["then_callee", "else_callee"]);
}

/// `@body (%max_trip, %cond, %carried...) captures (%captured...) attr-dict : (types) ->
/// results`; `num_carried` is the length of the first list minus 2, and the captures clause
/// is left out when there are none. An op whose `num_carried` does not fit its operands (which
/// the verifier rejects) prints every operand in the first list and keeps the attribute.
pub(crate) fn parse_call_loop(p: &mut Parser<'_>, spec: &mut OpSpec) -> PResult<()> {
    let name = p.parse_symbol_name()?;
    let callee = p.ctx().symbol_ref_attr(&name);
    set_attr(p, spec, "callee", callee);
    let list_loc = p.current_loc();
    let mut operands = Vec::new();
    parse_operand_list(p, &mut operands)?;
    let listed = operands.len();
    if p.consume_keyword("captures") {
        parse_operand_list(p, &mut operands)?;
    }
    parse_call_tail(p, spec, &operands)?;
    let given = spec
        .attrs
        .iter()
        .any(|a| p.ctx().ident_str(a.name) == "num_carried");
    if !given {
        let Some(n) = listed.checked_sub(2) else {
            return Err(Diagnostic::error(
                list_loc,
                "expected the trip count and the condition before the carried values",
            ));
        };
        let n = p.ctx().integer_attr(n as i128, Type::I64);
        set_attr(p, spec, "num_carried", n);
    }
    Ok(())
}

pub(crate) fn print_call_loop(p: &mut Printer<'_>, op: Op) {
    let ctx = p.ctx();
    let call = crate::CallLoopOp(op);
    let operands = ctx.operands(op);
    p.write(" ");
    print_callee(p, op, "callee");
    p.write(" (");
    match call.num_carried(ctx) {
        Some(n) => {
            p.print_operands(&operands[..2 + n]);
            p.write(")");
            let captures = call.captures(ctx);
            if !captures.is_empty() {
                p.write(" captures (");
                p.print_operands(captures);
                p.write(")");
            }
            print_call_tail(p, op, &["callee", "num_carried"]);
        }
        None => {
            p.print_operands(operands);
            p.write(")");
            print_call_tail(p, op, &["callee"]);
        }
    }
}
