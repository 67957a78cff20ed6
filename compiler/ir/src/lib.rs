//! The dlc IR core: the context and its arenas, operations, blocks, regions, values, interned
//! types and attributes, the MLIR text format (parser and printer), the verifier and
//! diagnostics.
//!
//! The core knows one dialect, `builtin` (for `builtin.module`); every other dialect registers
//! itself through [`Context::register_dialect`] with [`OpDef`]s written with [`define_op!`].

pub mod affine;
pub mod attr_def;
pub mod attributes;
pub mod builtin;
mod clone;
mod context;
pub mod diagnostics;
pub mod dialect;
pub mod dominance;
mod entity;
pub mod equivalence;
pub mod format;
mod hex;
pub mod interfaces;
mod intern;
mod ir;
pub mod location;
mod op_id;
pub mod parser;
pub mod pass;
pub mod printer;
pub mod rewrite;
pub mod symbol;
mod transplant;
pub mod types;
pub mod verifier;
mod walk;
pub mod wide_int;
pub mod work_queue;

pub use attr_def::AttrDef;
pub use attributes::{AttrKind, AttrValue, Attribute, DenseValue, NamedAttr};
pub use clone::ValueMap;
pub use context::Context;
pub use diagnostics::{Diagnostic, Severity, SourceMap};
pub use dialect::{fold_to_value, Arity, Dialect, FoldResult, Folded, OpDef, OpView, Traits};
pub use interfaces::{Effect, EffectKind, LoopLike, MemoryEffects};
pub use intern::Ident;
pub use ir::{Block, BlockOps, InsertPoint, Op, OpSpec, Region, Use, Value, ValueDef};
pub use location::Location;
pub use op_id::OpNameId;
pub use parser::{parse_source, PResult, Parser};
pub use printer::{print_op, print_op_in, print_op_to, value_name, PrintOptions, Printer};
pub use types::{FloatKind, Type, TypeKind, DYNAMIC};
pub use verifier::{op_error, verify};
pub use walk::{WalkOrder, WalkResult};
