//! The buffer type `!loop.buffer<64x?xf32, global>`: a row-major array in one memory space.
//!
//! It is a [`TypeKind::Dialect`] type with three parameters: a dense i64 array of the dims
//! ([`DYNAMIC`] for `?`), a type attribute holding the element type, and a string attribute
//! naming the memory space. [`buffer_type`] and [`buffer_parts`] are the only way code should
//! build or read it; the parameter layout stays private to this file.

use dlc_ir::parser::lexer::Tok;
use dlc_ir::{AttrKind, Context, Diagnostic, PResult, Parser, Printer, Type, TypeKind, DYNAMIC};

/// Where a buffer lives.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum MemorySpace {
    /// Device (or host) main memory: kernel arguments.
    Global,
    /// Memory shared by the threads of one GPU block; allocated inside GPU-bound kernels only.
    Shared,
    /// Private to one thread (registers or stack).
    Local,
}

impl MemorySpace {
    /// The keyword in the type syntax.
    pub fn keyword(self) -> &'static str {
        match self {
            MemorySpace::Global => "global",
            MemorySpace::Shared => "shared",
            MemorySpace::Local => "local",
        }
    }

    /// The space a keyword names.
    pub fn from_keyword(s: &str) -> Option<Self> {
        match s {
            "global" => Some(MemorySpace::Global),
            "shared" => Some(MemorySpace::Shared),
            "local" => Some(MemorySpace::Local),
            _ => None,
        }
    }
}

/// The element types a buffer may hold.
pub fn is_buffer_element(ty: Type) -> bool {
    [
        Type::F16,
        Type::BF16,
        Type::F32,
        Type::F64,
        Type::I1,
        Type::I8,
        Type::I16,
        Type::I32,
        Type::I64,
        Type::INDEX,
    ]
    .contains(&ty)
}

/// The size in bytes of one element of a buffer of element type `elem` (`index` is 8 bytes,
/// `i1` one byte), as `loop.view` lays elements out in an `i8` arena; `None` for types a buffer
/// cannot hold.
pub fn elem_size_bytes(ctx: &Context, elem: Type) -> Option<u64> {
    match ctx.type_kind(elem) {
        TypeKind::Float(k) => match k {
            dlc_ir::FloatKind::F16 | dlc_ir::FloatKind::BF16 => Some(2),
            dlc_ir::FloatKind::F32 => Some(4),
            dlc_ir::FloatKind::F64 => Some(8),
        },
        TypeKind::Integer { width: 1 | 8 } => Some(1),
        TypeKind::Integer { width: 16 } => Some(2),
        TypeKind::Integer { width: 32 } => Some(4),
        TypeKind::Integer { width: 64 } | TypeKind::Index => Some(8),
        _ => None,
    }
}

/// The buffer type with these dims (`DYNAMIC` for `?`), element type and memory space.
pub fn buffer_type(ctx: &mut Context, dims: &[i64], elem: Type, space: MemorySpace) -> Type {
    let dialect = ctx.ident("loop");
    let mnemonic = ctx.ident("buffer");
    let dims = ctx.intern_attr(AttrKind::DenseArray {
        element: Type::I64,
        values: dims.into(),
    });
    let elem = ctx.type_attr(elem);
    let space = ctx.string_attr(space.keyword());
    ctx.intern_type(TypeKind::Dialect {
        dialect,
        mnemonic,
        params: Box::new([dims, elem, space]),
    })
}

/// The dims, element type and memory space of a buffer type; `None` for any other type.
pub fn buffer_parts(ctx: &Context, ty: Type) -> Option<(Vec<i64>, Type, MemorySpace)> {
    let TypeKind::Dialect {
        dialect,
        mnemonic,
        params,
    } = ctx.type_kind(ty)
    else {
        return None;
    };
    if ctx.ident_str(*dialect) != "loop" || ctx.ident_str(*mnemonic) != "buffer" {
        return None;
    }
    let [dims, elem, space] = params.as_ref() else {
        return None;
    };
    let AttrKind::DenseArray { values, .. } = ctx.attr_kind(*dims) else {
        return None;
    };
    let elem = ctx.attr_as_type(*elem)?;
    let space = MemorySpace::from_keyword(ctx.attr_as_str(*space)?)?;
    Some((values.to_vec(), elem, space))
}

/// True if `ty` is a `!loop.buffer`.
pub fn is_buffer(ctx: &Context, ty: Type) -> bool {
    buffer_parts(ctx, ty).is_some()
}

/// Parses the body of a loop type after `!loop.` (the current token is the one after the
/// mnemonic).
pub(crate) fn parse_type(p: &mut Parser<'_>, mnemonic: &str) -> PResult<Type> {
    if mnemonic != "buffer" {
        return Err(p.error(format!("unknown loop type '{mnemonic}'")));
    }
    if p.peek() != Tok::Less {
        return Err(p.error("expected '<' after '!loop.buffer'"));
    }
    let dims = p.parse_dimension_list()?;
    let elem_loc = p.current_loc();
    let elem = p.parse_type()?;
    if !is_buffer_element(elem) {
        let text = dlc_ir::Printer::new(p.ctx()).type_to_string(elem);
        return Err(Diagnostic::error(
            elem_loc,
            format!("invalid buffer element type '{text}' (expected f16, bf16, f32, f64, i1, i8, i16, i32, i64 or index)"),
        ));
    }
    p.expect(Tok::Comma, "',' and a memory space (global, shared, local)")?;
    let space_loc = p.current_loc();
    let word = p.parse_keyword("memory space (global, shared, local)")?;
    let space = MemorySpace::from_keyword(word).ok_or_else(|| {
        Diagnostic::error(
            space_loc,
            format!("unknown memory space '{word}' (expected global, shared or local)"),
        )
    })?;
    p.expect(Tok::Greater, "'>' to end a buffer type")?;
    Ok(buffer_type(p.ctx(), &dims, elem, space))
}

/// Prints `buffer<64x?xf32, global>` (the printer has written `!loop.`).
pub(crate) fn print_type(p: &mut Printer<'_>, ty: Type) {
    let ctx = p.ctx();
    let Some((dims, elem, space)) = buffer_parts(ctx, ty) else {
        p.write("<invalid>");
        return;
    };
    let mut s = String::from("buffer<");
    for d in dims {
        if d == DYNAMIC {
            s.push('?');
        } else {
            s.push_str(&d.to_string());
        }
        s.push('x');
    }
    p.write(&s);
    p.print_type(elem);
    p.write(", ");
    p.write(space.keyword());
    p.write(">");
}
