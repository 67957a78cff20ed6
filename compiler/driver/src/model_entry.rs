//! The payload of a model-cache entry: the lowered module's text with its large dense
//! constants (the weights) out of line, as binary blobs after it.
//!
//! Weights printed as `dense<"0x...">` double in size and must be lexed and decoded back on
//! every load; out of line they are read as they are. In the text a constant of at least
//! [`OUT_OF_LINE_BYTES`] is `dense_resource<dlc_blob_N> : type`, MLIR's spelling for elements
//! held outside the IR, and blob `N` holds its packed little-endian bytes
//! ([`dlc_ir::DenseElements`]). Loading puts each blob back as the `dense<...>` attribute it
//! was, so the loaded module is the stored one.
//!
//! | bytes | field |
//! |---|---|
//! | 8 | the text's length `t`, little-endian |
//! | `t` | the module's text (UTF-8) |
//! | 4 | the number of blobs `n` |
//! | `n` × (8 + length) | each blob: its length, then its bytes |

use crate::byte_reader::Reader;
use dlc_ir::attributes::{dense_element_bytes, DenseElements};
use dlc_ir::{AttrKind, Attribute, Context, Op};
use rustc_hash::FxHashMap;

/// Dense constants of at least this many bytes are stored out of line.
const OUT_OF_LINE_BYTES: usize = 1024;

/// The resource name of blob `i`.
fn blob_name(i: usize) -> String {
    format!("dlc_blob_{i}")
}

/// Replaces every dense attribute of at least [`OUT_OF_LINE_BYTES`] on the ops in `module`
/// with a `dense_resource` naming its blob, and returns the blobs in order (an attribute used
/// several times is one blob).
pub(crate) fn outline_constants(ctx: &mut Context, module: Op) -> Vec<Box<[u8]>> {
    let mut found = Vec::new();
    ctx.for_each_op(module, &mut |op| {
        for a in ctx.attrs(op) {
            if let AttrKind::DenseElements(d) = ctx.attr_kind(a.value) {
                if !d.splat && d.data.len() >= OUT_OF_LINE_BYTES {
                    found.push((op, a.name, a.value));
                }
            }
        }
    });
    let mut blobs = Vec::new();
    let mut named: FxHashMap<Attribute, Attribute> = FxHashMap::default();
    for (op, name, value) in found {
        let resource = match named.get(&value) {
            Some(&r) => r,
            None => {
                let AttrKind::DenseElements(d) = ctx.attr_kind(value) else {
                    continue;
                };
                let (ty, data) = (d.ty, d.data.clone());
                let r = ctx.intern_attr(AttrKind::DenseResource {
                    name: blob_name(blobs.len()).into(),
                    ty,
                });
                blobs.push(data);
                named.insert(value, r);
                r
            }
        };
        let name = ctx.ident_str(name).to_string();
        ctx.set_attr(op, &name, resource);
    }
    blobs
}

/// Replaces each `dense_resource<dlc_blob_N>` attribute on the ops in `module` with the
/// dense attribute of blob `N`; an error names a blob that is missing or whose size does not
/// fit its type.
pub(crate) fn inline_constants(
    ctx: &mut Context,
    module: Op,
    blobs: &[&[u8]],
) -> Result<(), String> {
    let mut found = Vec::new();
    ctx.for_each_op(module, &mut |op| {
        for a in ctx.attrs(op) {
            if let AttrKind::DenseResource { name, ty } = ctx.attr_kind(a.value) {
                found.push((op, a.name, name.to_string(), *ty));
            }
        }
    });
    let mut made: FxHashMap<String, Attribute> = FxHashMap::default();
    for (op, attr_name, resource, ty) in found {
        let value = match made.get(&resource) {
            Some(&v) => v,
            None => {
                let blob = resource
                    .strip_prefix("dlc_blob_")
                    .and_then(|i| i.parse::<usize>().ok())
                    .and_then(|i| blobs.get(i))
                    .ok_or_else(|| format!("no blob for 'dense_resource<{resource}>'"))?;
                let expected = dense_bytes(ctx, ty);
                if expected != Some(blob.len()) {
                    return Err(format!(
                        "blob '{resource}' holds {} bytes, not the {} its type takes",
                        blob.len(),
                        expected.map_or("unknown".to_string(), |n| n.to_string())
                    ));
                }
                let v = ctx.intern_attr(AttrKind::DenseElements(DenseElements {
                    ty,
                    splat: false,
                    data: (*blob).into(),
                }));
                made.insert(resource, v);
                v
            }
        };
        let attr_name = ctx.ident_str(attr_name).to_string();
        ctx.set_attr(op, &attr_name, value);
    }
    Ok(())
}

/// The bytes a dense attribute of shaped type `ty` packs, when its shape is static.
fn dense_bytes(ctx: &Context, ty: dlc_ir::Type) -> Option<usize> {
    let shape = ctx.shape(ty)?;
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(usize::try_from(d).ok()?))?;
    let element = dense_element_bytes(ctx.type_kind(ctx.element_type(ty)))?;
    count.checked_mul(element)
}

/// The payload of `text` and `blobs`.
pub(crate) fn encode(text: &str, blobs: &[Box<[u8]>]) -> Vec<u8> {
    let size = 12 + text.len() + blobs.iter().map(|b| 8 + b.len()).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(&(text.len() as u64).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
    // A module has far fewer than 2^32 constants.
    out.extend_from_slice(&u32::try_from(blobs.len()).unwrap_or(u32::MAX).to_le_bytes());
    for b in blobs {
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        out.extend_from_slice(b);
    }
    out
}

/// The text and blobs of a payload; `None` when it does not fit the layout.
pub(crate) fn decode(bytes: &[u8]) -> Option<(&str, Vec<&[u8]>)> {
    let mut r = Reader(bytes);
    let text_len = usize::try_from(r.u64()?).ok()?;
    let text = std::str::from_utf8(r.take(text_len)?).ok()?;
    let blobs = (0..r.u32()?)
        .map(|_| {
            let n = usize::try_from(r.u64()?).ok()?;
            r.take(n)
        })
        .collect::<Option<Vec<_>>>()?;
    r.is_empty().then_some((text, blobs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_payload_round_trips_and_rejects_damage() {
        let blobs: Vec<Box<[u8]>> = vec![vec![1, 2, 3].into(), Vec::new().into()];
        let bytes = encode("module {\n}", &blobs);
        let (text, read) = decode(&bytes).expect("decodes");
        assert_eq!(text, "module {\n}");
        assert_eq!(read, vec![&[1u8, 2, 3][..], &[][..]]);
        for n in 0..bytes.len() {
            assert!(decode(&bytes[..n]).is_none(), "truncated to {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer).is_none());
    }

    /// A module with a large constant (out of line) and a small one (kept in the text).
    const MODULE: &str = r#"
func.func @f() -> (!loop.buffer<512xf32, global>, !loop.buffer<512xf32, global>, !loop.buffer<2xf32, global>) {
  %a = loop.constant dense<1.5> : !loop.buffer<512xf32, global>
  %b = loop.constant dense<2.0> : !loop.buffer<2xf32, global>
  return %a, %a, %b : !loop.buffer<512xf32, global>, !loop.buffer<512xf32, global>, !loop.buffer<2xf32, global>
}
"#;

    #[test]
    fn large_constants_go_out_of_line_and_come_back() {
        let mut ctx = dlc_dialects::context();
        let module = dlc_ir::parse_source(&mut ctx, MODULE, "m.mlir", 1).expect("parses");
        // A splat is one element: make the large constant a full one.
        let mut large = None;
        ctx.for_each_op(module, &mut |op| {
            if ctx.attr(op, "value").is_some() && large.is_none() {
                large = Some(op);
            }
        });
        let large = large.expect("a constant");
        let ty = ctx
            .attr_type(ctx.attr(large, "value").expect("value"))
            .expect("typed");
        let values: Vec<dlc_ir::DenseValue> = (0..512)
            .map(|i| dlc_ir::DenseValue::Float(i as f64))
            .collect();
        let full = ctx.dense_attr(ty, &values);
        ctx.set_attr(large, "value", full);
        let before = dlc_ir::print_op(&ctx, module, Default::default());

        let blobs = outline_constants(&mut ctx, module);
        assert_eq!(blobs.len(), 1);
        assert_eq!(blobs[0].len(), 512 * 4);
        let text = dlc_ir::print_op(&ctx, module, Default::default());
        assert!(text.contains("dense_resource<dlc_blob_0>"), "{text}");
        assert!(text.contains("dense<2.000000e+00>"), "{text}");

        let mut again = dlc_dialects::context();
        let m = dlc_ir::parse_source(&mut again, &text, "entry", 1).expect("parses back");
        let refs: Vec<&[u8]> = blobs.iter().map(|b| &b[..]).collect();
        inline_constants(&mut again, m, &refs).expect("blobs fit");
        dlc_ir::verify(&again, m).expect("verifies");
        assert_eq!(dlc_ir::print_op(&again, m, Default::default()), before);

        let mut short = dlc_dialects::context();
        let m = dlc_ir::parse_source(&mut short, &text, "entry", 1).expect("parses back");
        let error = inline_constants(&mut short, m, &[&refs[0][..8]]).expect_err("too short");
        assert!(error.contains("holds 8 bytes"), "{error}");
        let error = inline_constants(&mut short, m, &[]).expect_err("no blob");
        assert!(error.contains("no blob"), "{error}");
    }
}
