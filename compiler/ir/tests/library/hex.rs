//! Hex text of byte payloads, through the printer and the parser: a dense constant of more than
//! 100 elements prints its bytes as upper-case `"0x..."` digits, the parser reads them back in
//! either case, and refuses an odd count of digits or a character that is not one.

use dlc_ir::{parse_source, Attribute, Context, Printer};

/// The attribute `a` of a `t.op` written with `a = text` (generic form, unregistered op), or the
/// parser's message.
fn parse_attr(ctx: &mut Context, text: &str) -> Result<Attribute, String> {
    ctx.allow_unregistered = true;
    let src = format!("\"t.op\"() {{a = {text}}} : () -> ()\n");
    let module = parse_source(ctx, &src, "hex.mlir", 1).map_err(|d| d.message)?;
    let body = ctx.blocks(ctx.region(module, 0))[0];
    let op = ctx.first_op(body).expect("one op");
    Ok(ctx.attr(op, "a").expect("attribute `a`"))
}

#[test]
fn round_trips_every_byte() {
    let bytes: Vec<u8> = (0..=255).collect();
    let mut ctx = Context::new();
    let i8 = ctx.integer_type(8);
    let ty = ctx.tensor_type(&[256], i8);
    let attr = ctx.dense_attr_packed(ty, bytes);
    let printed = Printer::new(&ctx).attr_to_string(attr);
    let text = printed
        .strip_prefix("dense<\"0x")
        .and_then(|t| t.strip_suffix("\"> : tensor<256xi8>"))
        .unwrap_or_else(|| panic!("a hex dense constant: {printed}"));
    assert_eq!(text.len(), 512);
    assert_eq!(&text[..6], "000102");
    assert_eq!(&text[text.len() - 2..], "FF");
    assert_eq!(parse_attr(&mut ctx, &printed), Ok(attr));
    let lower = format!("dense<\"0x{}\"> : tensor<256xi8>", text.to_lowercase());
    assert_eq!(parse_attr(&mut ctx, &lower), Ok(attr));
}

#[test]
fn refuses_odd_counts_and_other_characters() {
    let mut ctx = Context::new();
    let mut parse =
        |digits: &str| parse_attr(&mut ctx, &format!("dense<\"0x{digits}\"> : tensor<0xi8>"));
    let odd = "hex string in dense attribute has an odd number of digits";
    let invalid = "invalid hex digit in dense attribute";
    assert_eq!(parse("ABC"), Err(odd.to_string()));
    assert_eq!(parse("0G"), Err(invalid.to_string()));
    assert_eq!(parse("é0"), Err(invalid.to_string()));
    let empty = parse("").expect("no digits are no bytes");
    let i8 = ctx.integer_type(8);
    let ty = ctx.tensor_type(&[0], i8);
    assert_eq!(empty, ctx.dense_attr_packed(ty, Vec::new()));
}
