//! What a host program accepts: one [`TensorSpec`] per input, with the `?` dims named by
//! symbols so that dims which must agree share a symbol.
//!
//! A host function alone says nothing about which of its `?` dims agree, so
//! [`Signature::from_host_function`] gives every `?` its own symbol. The graph function it was
//! lowered from knows more: [`Signature::from_graph_function`] uses
//! [`dlc_graph::shapes::SymbolicShapes`], giving one symbol to dims the analysis proves equal
//! *and* to dims its runtime equality constraints require equal (broadcasts of two `?`s, matmul
//! inner dims), so the one check at entry covers what lowering assumed. Constraints on sizes no
//! input determines (a reshape's inferred dim) cannot be checked before the run.

use crate::error::RuntimeError;
use crate::tensor::{dtype_name, Tensor};
use dlc_graph::shapes::{DimExpr, SymbolicShapes};
use dlc_ir::pass::Analysis;
use dlc_ir::{Context, Diagnostic, Op, Type, DYNAMIC};
use dlc_loop::interp::DType;

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

/// The entry block arguments of a function.
fn entry_args(ctx: &Context, func: Op) -> Result<&[dlc_ir::Value], Diagnostic> {
    ctx.regions(func)
        .first()
        .and_then(|&r| ctx.blocks(r).first())
        .map(|&b| ctx.block_args(b))
        .ok_or_else(|| Diagnostic::error(ctx.op_loc(func), "function has no body"))
}

impl Signature {
    /// The signature of a host function: every `?` dim its own symbol.
    pub fn from_host_function(ctx: &Context, func: Op) -> Result<Signature, Diagnostic> {
        let mut next = 0u32;
        let mut inputs = Vec::new();
        for (i, &arg) in entry_args(ctx, func)?.iter().enumerate() {
            let (dtype, dims) = type_parts(ctx, ctx.value_type(arg)).ok_or_else(|| {
                Diagnostic::error(
                    ctx.op_loc(func),
                    format!("argument #{i} has a type the runtime cannot pass"),
                )
            })?;
            let dims = dims
                .iter()
                .map(|&d| {
                    if d == DYNAMIC {
                        next += 1;
                        DimSpec::Symbol(next - 1)
                    } else {
                        DimSpec::Static(d as u64)
                    }
                })
                .collect();
            inputs.push(TensorSpec {
                name: format!("%arg{i}"),
                dtype,
                dims,
            });
        }
        Ok(Signature { inputs })
    }

    /// The signature of a graph function (before lowering): `?` dims that the symbolic shape
    /// analysis proves equal, or requires equal by a runtime constraint, share a symbol.
    pub fn from_graph_function(ctx: &Context, func: Op) -> Result<Signature, Diagnostic> {
        let shapes = SymbolicShapes::compute(ctx, func);
        let args = entry_args(ctx, func)?;
        // Symbols of argument dims, each mapped to the first argument symbol it must equal.
        let mut reps: Vec<DimExpr> = Vec::new();
        let mut inputs = Vec::new();
        for (i, &arg) in args.iter().enumerate() {
            let (dtype, static_dims) = type_parts(ctx, ctx.value_type(arg)).ok_or_else(|| {
                Diagnostic::error(
                    ctx.op_loc(func),
                    format!("argument #{i} has a type the runtime cannot pass"),
                )
            })?;
            let symbolic = shapes.shape(arg);
            let mut dims = Vec::with_capacity(static_dims.len());
            for (axis, &d) in static_dims.iter().enumerate() {
                let expr = symbolic.and_then(|s| s.get(axis)).copied();
                let spec = match expr {
                    Some(DimExpr::Symbol(s)) => {
                        let me = DimExpr::Symbol(s);
                        let rep = reps
                            .iter()
                            .copied()
                            .find(|&r| shapes.equal_under_constraints(r, me));
                        match rep {
                            Some(DimExpr::Symbol(r)) => DimSpec::Symbol(r),
                            _ => {
                                reps.push(me);
                                DimSpec::Symbol(s)
                            }
                        }
                    }
                    Some(DimExpr::Static(n)) if n >= 0 => DimSpec::Static(n as u64),
                    _ if d >= 0 => DimSpec::Static(d as u64),
                    _ => {
                        return Err(Diagnostic::error(
                            ctx.op_loc(func),
                            format!("argument #{i}: dim {axis} has no symbolic size"),
                        ))
                    }
                };
                dims.push(spec);
            }
            inputs.push(TensorSpec {
                name: format!("%arg{i}"),
                dtype,
                dims,
            });
        }
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

    /// Checks `inputs` against the signature. `seen` is scratch space of [`Self::num_symbols`]
    /// entries: for each symbol, the (input, dim, size) that first gave it a value.
    pub(crate) fn check(
        &self,
        inputs: &[&Tensor],
        seen: &mut [Option<(usize, usize, usize)>],
    ) -> Result<(), RuntimeError> {
        if inputs.len() != self.inputs.len() {
            return Err(RuntimeError::InputCount {
                expected: self.inputs.len(),
                got: inputs.len(),
            });
        }
        seen.fill(None);
        for (index, (spec, t)) in self.inputs.iter().zip(inputs).enumerate() {
            if t.dtype() != spec.dtype {
                return Err(RuntimeError::InputDType {
                    index,
                    expected: dtype_name(spec.dtype),
                    got: dtype_name(t.dtype()),
                });
            }
            if t.shape().len() != spec.dims.len() {
                return Err(RuntimeError::InputRank {
                    index,
                    name: spec.name.clone(),
                    expected: spec.dims.len(),
                    got: t.shape().to_vec(),
                });
            }
            for (dim, (&d, &got)) in spec.dims.iter().zip(t.shape()).enumerate() {
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
        }
        Ok(())
    }
}
