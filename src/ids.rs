//! Typed ids: a faction, an action, a variable and an end reason are each named by an index
//! of its own type, so that one cannot be passed where another is meant.
//!
//! Owns the id newtypes ([`FactionId`], [`ActionId`], [`VarId`], [`ReasonId`]), the
//! vector indexed by one of them ([`IdVec`]) and the table indexed by two ([`Grid`], a
//! faction's count of each action, say, where code used to flatten `f * n + a` by hand).
//!
//! After cranelift-entity's `PrimaryMap` and `entity_impl!`, written here rather than
//! taken from that crate because its keys are `u32`, while a game's ids are as narrow as the
//! state they index (a faction is a `u8` in a turn order, an option and the machine code's
//! ABI; an action a `u16`), and because an [`IdVec`] must still lend its plain slice to
//! the code that walks every entry.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut, Index, IndexMut};

/// An index of its own type: what an [`IdVec`] or a [`Grid`] is indexed by.
pub trait Id: Copy {
    /// The id as a vector index.
    fn index(self) -> usize;
    /// The id of vector index `i` (which fits the id's width: the model's limits keep it so).
    fn from_index(i: usize) -> Self;
}

/// Declares an id newtype over an unsigned integer.
macro_rules! id {
    ($(#[$doc:meta])* $name:ident($repr:ty)) => {
        $(#[$doc])*
        #[repr(transparent)]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub $repr);

        impl $name {
            /// The id as a vector index.
            #[inline(always)]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// The id of vector index `i` (which fits the id's width: the model's limits
            /// keep it so).
            #[inline(always)]
            pub const fn from_index(i: usize) -> Self {
                debug_assert!(i <= <$repr>::MAX as usize, "an id past its width");
                $name(i as $repr)
            }
        }

        impl Id for $name {
            #[inline(always)]
            fn index(self) -> usize {
                $name::index(self)
            }
            #[inline(always)]
            fn from_index(i: usize) -> Self {
                $name::from_index(i)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id!(
    /// A faction: its index in the model's factions (at most `state::MAX_FACTIONS`).
    FactionId(u8)
);
id!(
    /// An action: its index in the model's actions.
    ActionId(u16)
);
id!(
    /// A variable: its index in the model's variables.
    VarId(u16)
);
id!(
    /// An end reason: its index in the model's reasons.
    ReasonId(u16)
);

/// A vector indexed by an id `K`. It lends its plain slice (`Deref`) to code that walks
/// every entry or has not yet been given typed ids.
pub struct IdVec<K, V> {
    items: Vec<V>,
    key: PhantomData<fn(K) -> K>,
}

impl<K: Id, V> IdVec<K, V> {
    /// Every id, in order.
    pub fn ids(&self) -> impl Iterator<Item = K> + use<K, V> {
        (0..self.items.len()).map(K::from_index)
    }

    /// Every entry with its id, in order.
    pub fn iter_ids(&self) -> impl Iterator<Item = (K, &V)> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, v)| (K::from_index(i), v))
    }

    /// The entries as a plain vector.
    pub fn into_vec(self) -> Vec<V> {
        self.items
    }
}

impl<K, V: Clone> Clone for IdVec<K, V> {
    fn clone(&self) -> Self {
        IdVec {
            items: self.items.clone(),
            key: PhantomData,
        }
    }
}

impl<K, V: fmt::Debug> fmt::Debug for IdVec<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.items.fmt(f)
    }
}

impl<K, V> From<Vec<V>> for IdVec<K, V> {
    fn from(items: Vec<V>) -> Self {
        IdVec {
            items,
            key: PhantomData,
        }
    }
}

impl<'a, K, V> IntoIterator for &'a IdVec<K, V> {
    type Item = &'a V;
    type IntoIter = std::slice::Iter<'a, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut IdVec<K, V> {
    type Item = &'a mut V;
    type IntoIter = std::slice::IterMut<'a, V>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter_mut()
    }
}

impl<K, V> Deref for IdVec<K, V> {
    type Target = [V];
    fn deref(&self) -> &[V] {
        &self.items
    }
}

impl<K, V> DerefMut for IdVec<K, V> {
    fn deref_mut(&mut self) -> &mut [V] {
        &mut self.items
    }
}

impl<K: Id, V> Index<K> for IdVec<K, V> {
    type Output = V;
    #[inline(always)]
    fn index(&self, k: K) -> &V {
        &self.items[k.index()]
    }
}

impl<K: Id, V> IndexMut<K> for IdVec<K, V> {
    #[inline(always)]
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.items[k.index()]
    }
}

/// A table with a row per id `R` and a column per id `C`, flattened row by row: a
/// faction's count of each action, say.
#[derive(Clone)]
pub struct Grid<R, C, V> {
    cols: usize,
    cells: Vec<V>,
    key: PhantomData<fn(R, C)>,
}

impl<R: Id, C: Id, V: Clone> Grid<R, C, V> {
    /// A table of `rows` rows and `cols` columns, every cell `v`.
    pub fn new(rows: usize, cols: usize, v: V) -> Self {
        Grid {
            cols,
            cells: vec![v; rows * cols],
            key: PhantomData,
        }
    }
}

impl<R: Id, C: Id, V> Grid<R, C, V> {
    /// The flat index of cell `(r, c)` (what a per-cell stream or counter is keyed by).
    #[inline(always)]
    pub fn cell(&self, r: R, c: C) -> usize {
        r.index() * self.cols + c.index()
    }

    /// Row `r`.
    pub fn row(&self, r: R) -> &[V] {
        let at = r.index() * self.cols;
        &self.cells[at..at + self.cols]
    }
}

impl<R, C, V: fmt::Debug> fmt::Debug for Grid<R, C, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Grid")
            .field("cols", &self.cols)
            .field("cells", &self.cells)
            .finish()
    }
}

impl<R: Id, C: Id, V> Index<(R, C)> for Grid<R, C, V> {
    type Output = V;
    #[inline(always)]
    fn index(&self, (r, c): (R, C)) -> &V {
        &self.cells[self.cell(r, c)]
    }
}

impl<R: Id, C: Id, V> IndexMut<(R, C)> for Grid<R, C, V> {
    #[inline(always)]
    fn index_mut(&mut self, (r, c): (R, C)) -> &mut V {
        let i = self.cell(r, c);
        &mut self.cells[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_vec_is_indexed_by_its_id_and_lends_its_slice() {
        let v: IdVec<FactionId, &str> = vec!["a", "b"].into();
        let (a, b) = (FactionId(0), FactionId(1));
        assert_eq!(v[b], "b");
        assert_eq!(v.len(), 2);
        assert_eq!(v.ids().collect::<Vec<_>>(), [a, b]);
        assert_eq!(
            v.iter_ids().map(|(k, s)| (k.0, *s)).collect::<Vec<_>>(),
            [(0, "a"), (1, "b")]
        );
    }

    #[test]
    fn a_grid_flattens_row_by_row() {
        let mut g: Grid<FactionId, ActionId, u64> = Grid::new(3, 4, 0);
        g[(FactionId(2), ActionId(1))] += 5;
        assert_eq!(g.cell(FactionId(2), ActionId(1)), 9);
        assert_eq!(g.row(FactionId(2)), [0, 5, 0, 0]);
    }

    #[test]
    fn ids_keep_the_width_of_what_they_index() {
        assert_eq!(std::mem::size_of::<FactionId>(), 1);
        assert_eq!(std::mem::size_of::<ActionId>(), 2);
        assert_eq!(FactionId::from_index(5).index(), 5);
    }
}
