//! What a run's counts can be, as the scenario alone decides: the score's bounds and the
//! cards that no statement can put in a hand or a completed pile.
//!
//! Owns [`Bounds`], which `merge` checks a shard's tables against (a value edited by hand
//! that the scenario rules out is refused).

use super::Model;
use crate::expr::Stmt;

/// What the scenario allows a run's counts to be.
#[derive(Debug, Clone, Default)]
pub struct Bounds {
    /// The lowest and highest score a game can end with, when the scenario bounds it.
    pub score: Option<(i64, i64)>,
    /// For each distinct card (the usage counts' columns), whether no game can end with a
    /// faction holding or having completed it: its deck is never taken from, and no card
    /// of it is ever completed.
    pub never_held: Vec<bool>,
}

impl Model {
    /// The scenario's [`Bounds`].
    pub fn bounds(&self) -> Bounds {
        let mut taken = vec![false; self.decks.len()];
        let mut drawn = vec![false; self.decks.len()];
        let mut completes = false;
        for s in self.statements() {
            s.visit(&mut |s| match s {
                Stmt::Take { deck, .. } => taken[*deck as usize] = true,
                Stmt::Draw(d, _) => drawn[*d as usize] = true,
                Stmt::Complete => completes = true,
                _ => {}
            });
        }
        let holdable: Vec<bool> = (taken.iter().zip(&drawn))
            .map(|(&t, &d)| t || (completes && d))
            .collect();
        let never_held = (self.cards.iter())
            .map(|(deck, _)| {
                let d = self.decks.iter().position(|(name, _)| name == deck);
                d.is_some_and(|d| !holdable[d])
            })
            .collect();
        Bounds {
            score: self.score_bounds(),
            never_held,
        }
    }
}
