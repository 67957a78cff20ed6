//! Source locations attached to operations and diagnostics.
//!
//! The common case, `file:line:col`, is stored inline so that parsing a million ops interns
//! nothing per op; names, call sites and fused locations are interned.

use crate::attributes::Attribute;
use crate::intern::Ident;
use crate::Context;

/// Where an operation came from.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Location {
    /// `loc(unknown)`.
    #[default]
    Unknown,
    /// `loc("file":line:col)`, 1-based.
    FileLineCol { file: Ident, line: u32, col: u32 },
    /// A name, call-site or fused location, interned in the context.
    Composite(CompositeLoc),
}

crate::entity::entity!(
    /// An interned [`CompositeLocKind`].
    CompositeLoc
);

/// The locations that are not a plain file position.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum CompositeLocKind {
    /// `loc("name")` or `loc("name"(child))`.
    Name {
        name: Ident,
        child: Option<Location>,
    },
    /// `loc(callsite(callee at caller))`.
    CallSite { callee: Location, caller: Location },
    /// `loc(fused[a, b])` or `loc(fused<#meta>[a, b])`.
    Fused {
        locations: Box<[Location]>,
        metadata: Option<Attribute>,
    },
}

impl Context {
    /// A `file:line:col` location.
    pub fn file_loc(&mut self, file: &str, line: u32, col: u32) -> Location {
        Location::FileLineCol {
            file: self.ident(file),
            line,
            col,
        }
    }

    /// Interns a composite location.
    pub fn composite_loc(&mut self, kind: CompositeLocKind) -> Location {
        Location::Composite(CompositeLoc::from_index(self.interned.locs.intern(kind)))
    }

    /// The structure of a composite location.
    pub fn composite_loc_kind(&self, loc: CompositeLoc) -> &CompositeLocKind {
        self.interned.locs.get(loc.index())
    }

    /// The first file position inside `loc`, used to point a caret at source text.
    pub fn file_position(&self, loc: Location) -> Option<(Ident, u32, u32)> {
        match loc {
            Location::Unknown => None,
            Location::FileLineCol { file, line, col } => Some((file, line, col)),
            Location::Composite(c) => match self.composite_loc_kind(c) {
                CompositeLocKind::Name { child, .. } => child.and_then(|l| self.file_position(l)),
                CompositeLocKind::CallSite { callee, .. } => self.file_position(*callee),
                CompositeLocKind::Fused { locations, .. } => {
                    locations.iter().find_map(|l| self.file_position(*l))
                }
            },
        }
    }
}
