//! The final ranking: the score, the tier ranked before it, the tie-break chain and shared
//! places, and the bounds a score keeps.

use super::Model;
use crate::expr::Expr;

/// One link of the tie-break chain.
#[derive(Debug, Clone)]
pub enum TieBreak {
    /// Higher value wins.
    Expr(Expr, String),
    /// A die roll (a uniformly random order among the tied).
    Die,
}

/// The final ranking.
#[derive(Debug, Clone)]
pub struct Ranking {
    /// Ranked before the score, higher first (all equal when absent).
    pub tier: Option<Expr>,
    /// Score.
    pub score: Expr,
    /// Tie-break chain.
    pub tiebreak: Vec<TieBreak>,
    /// Ties that survive the chain are shared places.
    pub shared: bool,
}

impl Ranking {
    /// Display name of chain link `k`.
    pub fn link_name(&self, k: usize) -> String {
        match &self.tiebreak[k] {
            TieBreak::Expr(_, s) => s.clone(),
            TieBreak::Die => "die".into(),
        }
    }
}

impl Model {
    /// The lowest and highest score a game can end with, when the ranking's score is a
    /// faction's own variable (its `min` and `max`; the engine keeps a variable within them).
    pub fn score_bounds(&self) -> Option<(i64, i64)> {
        let (base, _) = self.ranking.score.own_var()?;
        let vi = self.vars.iter().position(|v| v.base == base)?;
        Some((*self.tables.var_min.get(vi)?, *self.tables.var_max.get(vi)?))
    }
}
