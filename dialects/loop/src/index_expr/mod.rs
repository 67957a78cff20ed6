//! Symbolic integer expressions over loop indices and symbolic dims, for the passes that reason
//! about index arithmetic (`simplify`, `gpu-map`, `long-to-int`).
//!
//! An [`IndexExpr`] is integer arithmetic (`+`, `-`, `*`, floor `/`, floor `%`, `min`, `max`)
//! over [`Symbol`]s: IR values (induction variables, kernel index arguments) or free symbols.
//! It is kept in a canonical sum-of-products form (sorted terms with merged coefficients), so
//! structurally equal expressions compare equal with `==` and hash alike.
//!
//! Simplification follows CINN's `IndexExpr::Normalize` levels ([`Level`]): constant folding,
//! sequential (single-node) rewrites, pairwise rules over the terms of a sum, and bound-based
//! rules that use the known ranges of symbols ([`Bounds`], [`range_of`]). On top of these sit
//! the proofs [`prove_le`], [`prove_lt`], [`prove_eq`] and [`equal`].
//!
//! Layout: [`expr`] the type and canonical form, [`simplify`](mod@simplify) the rewrite levels,
//! [`bounds`] ranges and proofs, [`ir`] reading from and building to `arith` ops, [`parse`](mod@parse) a
//! small text syntax for tests, [`divisor`] known power-of-two divisors of index values (for
//! alignment). Design notes: `docs/index-expressions.md`.
//!
//! ```
//! use dlc_loop::index_expr::{parse, simplify, Bounds, Symbol};
//! let names = ["i", "j"];
//! let e = parse("(i*256 + j) / 128", &names).unwrap();
//! let bounds = Bounds::new().with(Symbol::Free(1), 0, 127);
//! assert_eq!(simplify(&e, &bounds), parse("i*2", &names).unwrap());
//! ```

pub mod bounds;
pub mod divisor;
pub mod expr;
pub mod ir;
pub mod parse;
pub mod simplify;

pub use bounds::{equal, prove_eq, prove_le, prove_lt, range_of, Bounds};
pub use expr::{Atom, IndexExpr, Monomial, Symbol};
pub use ir::{
    erase_dead_index_ops, from_ir, from_ir_with, to_ir, to_ir_with, Emitter, FromIr, Reader,
};
pub use parse::parse;
pub use simplify::{simplify, simplify_at, Level};
