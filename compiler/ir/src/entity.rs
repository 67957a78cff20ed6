//! Dense `u32` ids for IR entities.
//!
//! Operations, blocks, regions, values, types, attributes and identifiers are all named by small
//! `Copy` ids into arenas owned by the [`Context`](crate::Context), as in Cranelift: they are cheap
//! to store and compare, cannot form reference cycles, and never hit a runtime borrow check.

/// Declares a `Copy` id newtype over `u32` with an index accessor.
macro_rules! entity {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub(crate) u32);

        impl $name {
            /// The dense index of this id in its arena.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }

            #[inline]
            pub(crate) fn from_index(index: usize) -> Self {
                debug_assert!(index < u32::MAX as usize, "arena overflow");
                Self(index as u32)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}{}", stringify!($name), self.0)
            }
        }
    };
}
pub(crate) use entity;
