//! The usage section of a run's results: per faction, each action's share of its
//! decisions and uses per game, and its win rate in games with and without it; each card's
//! games and win rates likewise.
//!
//! Owns the summary rows ([`ActionRow`], [`CardRow`]) computed from the tally's
//! [`crate::stats::usage::Usage`] and the names in [`super::RunInfo`], and which of their
//! differences are beyond noise. These are associations under the agents' play, not
//! effects: every reading of them says so.

use serde::{Deserialize, Serialize};

use super::RunInfo;
use crate::stats::usage::Usage;
use crate::stats::{Diff, Rate, Tally};

/// One faction's use of one action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionRow {
    /// The action.
    pub action: String,
    /// Decisions that chose it.
    pub decisions: u64,
    /// Its share of the faction's decisions.
    pub share: f64,
    /// Mean decisions choosing it per game.
    pub per_game: f64,
    /// Games in which the faction chose it at least once.
    pub games: u64,
    /// The faction's sole-win rate in those games.
    pub win_if_used: Rate,
    /// ... in the other games.
    pub win_if_unused: Rate,
    /// `win_if_used - win_if_unused` with its interval, simultaneous at 95% over every
    /// faction and action compared (Bonferroni); `None` when either side has no game.
    pub difference: Option<Diff>,
    /// Never chosen in any game.
    pub never_chosen: bool,
    /// Chosen in every game.
    pub every_game: bool,
}

/// One faction's games with one card (any copy of it) held or completed at the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CardRow {
    /// The card's deck.
    pub deck: String,
    /// The card.
    pub card: String,
    /// Games the faction ended holding or having completed it.
    pub games: u64,
    /// The faction's sole-win rate in those games.
    pub win_if_held: Rate,
    /// ... in the other games.
    pub win_if_not: Rate,
    /// `win_if_held - win_if_not` with its interval, simultaneous at 95% over every
    /// faction and card compared; `None` when either side has no game.
    pub difference: Option<Diff>,
}

/// Per faction (in seat order), its action rows and card rows, when the tally has usage
/// counts; `z` is the quantile of each rate's interval.
pub fn rows(info: &RunInfo, t: &Tally, z: f64) -> Vec<(Vec<ActionRow>, Vec<CardRow>)> {
    let Some(u) = &t.usage else {
        return Vec::new();
    };
    if u.actions as usize != info.actions.len() || u.cards as usize != info.cards.len() {
        return Vec::new();
    }
    let n = t.games;
    let nf = t.factions.len();
    // Every difference is one of a family: those with games on both sides.
    let compared = |cols: usize, with: &[u64]| {
        (0..nf * cols)
            .filter(|&i| with[i] > 0 && with[i] < n)
            .count()
    };
    let family = compared(info.actions.len(), &u.used) + compared(info.cards.len(), &u.held);
    let zj = crate::stats::z_for(1.0 - 0.05 / family.max(1) as f64);
    let diff = |with: &Rate, without: &Rate| {
        (with.n > 0 && without.n > 0).then(|| Diff::newcombe(without, with, zj))
    };
    (0..nf)
        .map(|f| {
            let wins = t.factions[f].wins;
            (
                action_rows(info, u, f, (n, wins), z, &diff),
                card_rows(info, u, f, (n, wins), z, &diff),
            )
        })
        .collect()
}

type DiffOf<'a> = dyn Fn(&Rate, &Rate) -> Option<Diff> + 'a;

fn action_rows(
    info: &RunInfo,
    u: &Usage,
    f: usize,
    (n, wins): (u64, u64),
    z: f64,
    diff: &DiffOf<'_>,
) -> Vec<ActionRow> {
    (info.actions.iter().enumerate())
        .map(|(i, name)| {
            let a = u.action(f, i, n, wins, z);
            ActionRow {
                action: name.clone(),
                decisions: a.decisions,
                share: a.share,
                per_game: a.per_game,
                games: a.games_used,
                difference: diff(&a.win_if_used, &a.win_if_unused),
                win_if_used: a.win_if_used,
                win_if_unused: a.win_if_unused,
                never_chosen: a.never_chosen,
                every_game: a.every_game,
            }
        })
        .collect()
}

fn card_rows(
    info: &RunInfo,
    u: &Usage,
    f: usize,
    (n, wins): (u64, u64),
    z: f64,
    diff: &DiffOf<'_>,
) -> Vec<CardRow> {
    (info.cards.iter().enumerate())
        .map(|(k, (deck, card))| {
            let (games, held, not) = u.card(f, k, n, wins, z);
            CardRow {
                deck: deck.clone(),
                card: card.clone(),
                games,
                difference: diff(&held, &not),
                win_if_held: held,
                win_if_not: not,
            }
        })
        .collect()
}

/// The sentence every usage table carries: what its win rates are and are not.
pub const CAVEAT: &str = "Win rates with and without an action or card are associations under the agents' play, not effects: a faction may choose an action, or keep a card, because it is already winning.";
