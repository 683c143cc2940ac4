//! Ranking: the `[ranking]` table and `[scenario] teams`.
//!
//! Owns how factions are placed when a game ends by rank: tier, score, the tie-break chain
//! and whether ties are shared, and whether sides play as teams.

use super::Cx;
use crate::error::Result;
use crate::expr::compile::{Compiler, Ctx};
use crate::model::{Ranking, TieBreak};
use crate::scenario::raw::RawScenario;

/// Ranking: compiles the tier, the score and the tie-break chain.
pub(super) fn compile(raw: &RawScenario, cx: &mut Cx, comp: &Compiler) -> Result<Ranking> {
    let r = &raw.ranking;
    let score = cx.expr(comp, &r.score, Ctx::faction())?;
    let tier = cx.opt(comp, &r.tier, Ctx::faction())?;
    let mut tiebreak = Vec::new();
    for f in &r.tiebreak {
        if f.get_ref().0.trim() == "die" {
            tiebreak.push(TieBreak::Die);
        } else {
            tiebreak.push(TieBreak::Expr(
                cx.expr(comp, f, Ctx::faction())?,
                f.get_ref().0.trim().to_string(),
            ));
        }
    }
    if !r.shared && !matches!(tiebreak.last(), Some(TieBreak::Die)) {
        // A strict ranking must end somewhere: without `shared = true`, ties that survive the
        // chain are settled by a die, as most rulebooks do.
        tiebreak.push(TieBreak::Die);
    }
    Ok(Ranking {
        tier,
        score,
        tiebreak,
        shared: r.shared,
    })
}

/// Whether sides are teams (`[scenario] teams`, a constant; off when absent): when every
/// other side has left the game, the last side's members win.
pub(super) fn teams(raw: &RawScenario, cx: &mut Cx, comp: &Compiler) -> Result<bool> {
    Ok(match &raw.scenario.teams {
        Some(f) => cx.constant(comp, f, "`teams`")? != 0.0,
        None => false,
    })
}
