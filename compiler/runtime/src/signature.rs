//! What a host program accepts: one [`TensorSpec`] per input, with the `?` dims named by
//! symbols so that dims which must agree share a symbol.
//!
//! The host function says which of its `?` dims agree in its [`DIM_SYMBOLS`] attribute, which
//! `lower` records from the symbolic shape analysis of the graph function it lowers: dims the
//! analysis proves equal *and* dims its runtime equality constraints require equal (broadcasts
//! of two `?`s, matmul inner dims) share a symbol, so the one check at entry covers what
//! lowering assumed. Without the attribute every `?` is its own symbol. Constraints on sizes no
//! input determines (a reshape's inferred dim) cannot be checked before the run.

use crate::error::RuntimeError;
use dlc_ir::{AttrKind, Context, Diagnostic, Op, Type, DYNAMIC};
use dlc_loop::{DIM_SYMBOLS, SOURCE_TYPE};
use dlc_tensor::DType;

/// One dim of a [`TensorSpec`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DimSpec {
    /// A size fixed at compile time.
    Static(u64),
    /// A size known at run time; dims with the same symbol must be equal.
    Symbol(u32),
}

/// The expected type of one input or output.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TensorSpec {
    /// The name used in messages (`%arg0`, `result 0`).
    pub name: String,
    /// The element type.
    pub dtype: DType,
    /// One entry per dim (empty for a scalar passed as a 0-d tensor).
    pub dims: Vec<DimSpec>,
}

/// The inputs a program accepts.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct Signature {
    /// One spec per function argument, in order.
    pub inputs: Vec<TensorSpec>,
}

/// The dtype and dims of a buffer, tensor or integer type (`None` for other types).
pub(crate) fn type_parts(ctx: &Context, ty: Type) -> Option<(DType, Vec<i64>)> {
    if let Some((dims, elem, _)) = dlc_loop::buffer_parts(ctx, ty) {
        return Some((DType::from_type(ctx, elem)?, dims));
    }
    if ctx.is_integer_or_index(ty) {
        return Some((DType::from_type(ctx, ty)?, Vec::new()));
    }
    let shape = ctx.shape(ty)?;
    Some((DType::from_type(ctx, ctx.element_type(ty))?, shape.to_vec()))
}

/// The dtypes of the arguments and results of `func` as its [`SOURCE_TYPE`] attribute gives
/// them (the graph types whose signedness its buffers dropped), or `None` without one; each
/// must be a dtype the runtime passes.
pub(crate) fn source_dtypes(ctx: &Context, func: Op) -> Result<Option<DTypes>, Diagnostic> {
    let bad = |message: String| Diagnostic::error(ctx.op_loc(func), message);
    let Some(source) = dlc_loop::source_dtypes(ctx, func).map_err(bad)? else {
        return Ok(None);
    };
    let all = |d: Vec<Option<DType>>| -> Result<Vec<DType>, Diagnostic> {
        d.into_iter()
            .map(|d| {
                d.ok_or_else(|| {
                    bad(format!(
                        "'{SOURCE_TYPE}' has an element type the runtime cannot pass"
                    ))
                })
            })
            .collect()
    };
    Ok(Some(DTypes {
        inputs: all(source.inputs)?,
        results: all(source.results)?,
    }))
}

/// One dtype per argument and per result of a host function.
pub(crate) struct DTypes {
    pub inputs: Vec<DType>,
    pub results: Vec<DType>,
}

/// `declared` when it stands for the same bytes as `buffer` (a relabeling of its integers'
/// signedness), else an error naming `what`.
pub(crate) fn relabel(
    ctx: &Context,
    func: Op,
    what: &str,
    buffer: DType,
    declared: DType,
) -> Result<DType, Diagnostic> {
    let same_bits =
        declared.is_int() && buffer.is_int() && declared.size_bytes() == buffer.size_bytes();
    if declared == buffer || same_bits {
        Ok(declared)
    } else {
        Err(Diagnostic::error(
            ctx.op_loc(func),
            format!("'{SOURCE_TYPE}' gives {what} dtype {declared}, but its buffer holds {buffer}"),
        ))
    }
}

/// The entry block arguments of a function.
fn entry_args(ctx: &Context, func: Op) -> Result<&[dlc_ir::Value], Diagnostic> {
    ctx.regions(func)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
        .map(|&b| ctx.block_args(b))
        .ok_or_else(|| Diagnostic::error(ctx.op_loc(func), "function has no body"))
}

/// The symbol of each `?` dim of each argument (`dynamic` counts them per argument): read from
/// `func`'s [`DIM_SYMBOLS`] attribute, which must hold one `array<i64>` per argument with one
/// entry per `?` dim, each in `[0, number of ? dims)`; without it, a new symbol per dim.
fn dim_symbols(ctx: &Context, func: Op, dynamic: &[usize]) -> Result<Vec<Vec<u32>>, Diagnostic> {
    let total: usize = dynamic.iter().sum();
    let Some(attr) = ctx.attr(func, DIM_SYMBOLS) else {
        let mut next = 0u32..;
        return Ok(dynamic
            .iter()
            .map(|&n| next.by_ref().take(n).collect())
            .collect());
    };
    let bad =
        |message: String| Diagnostic::error(ctx.op_loc(func), format!("'{DIM_SYMBOLS}' {message}"));
    let AttrKind::Array(entries) = ctx.attr_kind(attr) else {
        return Err(bad("must be an array of one array<i64> per argument".into()));
    };
    if entries.len() != dynamic.len() {
        return Err(bad(format!(
            "has {} entries, but the function takes {} arguments",
            entries.len(),
            dynamic.len()
        )));
    }
    entries
        .iter()
        .zip(dynamic)
        .enumerate()
        .map(|(i, (&entry, &n))| {
            let values = match ctx.attr_kind(entry) {
                AttrKind::DenseArray { element, values } if *element == Type::I64 => values,
                _ => return Err(bad(format!("entry #{i} is not an array<i64>"))),
            };
            if values.len() != n {
                return Err(bad(format!(
                    "entry #{i} has {} symbols, but argument #{i} has {n} '?' dims",
                    values.len()
                )));
            }
            values
                .iter()
                .map(|&s| {
                    u32::try_from(s)
                        .ok()
                        .filter(|&s| (s as usize) < total)
                        .ok_or_else(|| {
                            bad(format!("entry #{i}: symbol {s} is not in [0, {total})"))
                        })
                })
                .collect()
        })
        .collect()
}

impl Signature {
    /// The signature of a host function: its `?` dims named by its [`DIM_SYMBOLS`] attribute,
    /// or each its own symbol when it has none. An attribute that does not fit the arguments is
    /// an error.
    pub fn from_host_function(ctx: &Context, func: Op) -> Result<Signature, Diagnostic> {
        let mut parts = Vec::new();
        for (i, &arg) in entry_args(ctx, func)?.iter().enumerate() {
            parts.push(type_parts(ctx, ctx.value_type(arg)).ok_or_else(|| {
                Diagnostic::error(
                    ctx.op_loc(func),
                    format!("argument #{i} has a type the runtime cannot pass"),
                )
            })?);
        }
        let dynamic: Vec<usize> = parts
            .iter()
            .map(|(_, dims)| dims.iter().filter(|&&d| d == DYNAMIC).count())
            .collect();
        let symbols = dim_symbols(ctx, func, &dynamic)?;
        if let Some(DTypes {
            inputs: declared, ..
        }) = source_dtypes(ctx, func)?
        {
            if declared.len() != parts.len() {
                return Err(Diagnostic::error(
                    ctx.op_loc(func),
                    format!("'{SOURCE_TYPE}' does not have one input per argument"),
                ));
            }
            for (i, (part, &d)) in parts.iter_mut().zip(&declared).enumerate() {
                part.0 = relabel(ctx, func, &format!("argument #{i}"), part.0, d)?;
            }
        }
        let inputs = parts
            .into_iter()
            .zip(symbols)
            .enumerate()
            .map(|(i, ((dtype, dims), symbols))| {
                let mut symbols = symbols.into_iter();
                let dims = dims
                    .iter()
                    .map(|&d| match d {
                        // `dim_symbols` gave one symbol per `?` dim.
                        DYNAMIC => DimSpec::Symbol(symbols.next().unwrap_or_default()),
                        d => DimSpec::Static(d as u64),
                    })
                    .collect();
                TensorSpec {
                    name: format!("%arg{i}"),
                    dtype,
                    dims,
                }
            })
            .collect();
        Ok(Signature { inputs })
    }

    /// The largest symbol number plus one (the size of a table indexed by symbol).
    pub(crate) fn num_symbols(&self) -> usize {
        self.inputs
            .iter()
            .flat_map(|s| &s.dims)
            .filter_map(|d| match d {
                DimSpec::Symbol(s) => Some(*s as usize + 1),
                DimSpec::Static(_) => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Checks the number of inputs of a run.
    pub(crate) fn check_count(&self, got: usize) -> Result<(), RuntimeError> {
        if got == self.inputs.len() {
            Ok(())
        } else {
            Err(RuntimeError::InputCount {
                expected: self.inputs.len(),
                got,
            })
        }
    }

    /// Checks the element type of input `index`.
    pub(crate) fn check_dtype(&self, index: usize, dtype: DType) -> Result<(), RuntimeError> {
        match self.inputs.get(index) {
            Some(spec) if spec.dtype != dtype => Err(RuntimeError::InputDType {
                index,
                expected: spec.dtype.name(),
                got: dtype.name(),
            }),
            _ => Ok(()),
        }
    }

    /// Checks the shape of input `index` (`shape`) against its spec and the dims of the inputs
    /// before it. `seen` is scratch space of [`Self::num_symbols`] entries, cleared before the
    /// first input: for each symbol, the (input, dim, size) that first gave it a value.
    pub(crate) fn check_shape(
        &self,
        index: usize,
        shape: &[usize],
        seen: &mut [Option<(usize, usize, usize)>],
    ) -> Result<(), RuntimeError> {
        let Some(spec) = self.inputs.get(index) else {
            return Err(RuntimeError::InputCount {
                expected: self.inputs.len(),
                got: index + 1,
            });
        };
        if shape.len() != spec.dims.len() {
            return Err(RuntimeError::InputRank {
                index,
                name: spec.name.clone(),
                expected: spec.dims.len(),
                got: shape.to_vec(),
            });
        }
        for (dim, (&d, &got)) in spec.dims.iter().zip(shape).enumerate() {
            match d {
                DimSpec::Static(expected) if expected != got as u64 => {
                    return Err(RuntimeError::InputStaticDim {
                        index,
                        name: spec.name.clone(),
                        dim,
                        got,
                        expected,
                    })
                }
                DimSpec::Static(_) => {}
                DimSpec::Symbol(s) => match seen.get_mut(s as usize) {
                    Some(Some((other_index, other_dim, expected))) if *expected != got => {
                        return Err(RuntimeError::InputDimMismatch {
                            index,
                            name: spec.name.clone(),
                            dim,
                            got,
                            other_index: *other_index,
                            other_dim: *other_dim,
                            expected: *expected,
                        })
                    }
                    Some(slot @ None) => *slot = Some((index, dim, got)),
                    _ => {}
                },
            }
        }
        Ok(())
    }
}
