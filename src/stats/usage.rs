//! Usage: which actions each faction chooses and which cards it ends the game with, and
//! how its win rate differs between games with and without them.
//!
//! Owns [`Usage`], the integer counts (mergeable exactly, like the rest of the tally), how
//! one game adds to them, and the estimates read from them ([`ActionUsage`] and [`Usage::card`]).
//! Both are associations under the agents' play: a faction that wins more in games where it
//! used an action may use it because it was winning. The report says so; nothing here
//! claims an effect.

use serde::{Deserialize, Serialize};

use super::Rate;
use crate::runtime::{Outcome, Result as GameResult};
use crate::state::{MAX_FACTIONS, is_completed};

/// Counts over games of every faction's decisions by action and the cards it ended with.
/// Every vector is indexed `faction * columns + column`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Actions (the columns of the action counts).
    pub actions: u32,
    /// Distinct cards, a deck's copies of one card counted as one (the columns of the card
    /// counts).
    pub cards: u32,
    /// Decisions that chose the action.
    pub decisions: Vec<u64>,
    /// Games in which the faction chose the action at least once.
    pub used: Vec<u64>,
    /// ... of which it won alone.
    pub used_wins: Vec<u64>,
    /// Games the faction ended holding, or having completed, a copy of the card.
    pub held: Vec<u64>,
    /// ... of which it won alone.
    pub held_wins: Vec<u64>,
}

impl Usage {
    /// Empty counts for `nf` factions, `actions` actions and `cards` distinct cards.
    pub fn new(nf: usize, actions: usize, cards: usize) -> Usage {
        Usage {
            actions: actions as u32,
            cards: cards as u32,
            decisions: vec![0; nf * actions],
            used: vec![0; nf * actions],
            used_wins: vec![0; nf * actions],
            held: vec![0; nf * cards],
            held_wins: vec![0; nf * cards],
        }
    }

    /// Counts one game: its outcome, its decisions by faction and action (`uses`), and
    /// where each card ended (`owner`, by card) with the distinct card each is a copy of
    /// (`key`). `seen` is scratch space of `nf * cards` flags.
    pub fn add(
        &mut self,
        o: &Outcome,
        uses: &[u32],
        (owner, key): (&[u8], &[u32]),
        seen: &mut Vec<bool>,
    ) {
        let winner = match o.result {
            GameResult::Win(f) => Some(f as usize),
            _ => None,
        };
        let a = self.actions as usize;
        for (i, &n) in uses.iter().enumerate().filter(|(_, n)| **n > 0) {
            let won = winner == Some(i / a.max(1)) && a > 0;
            self.decisions[i] += n as u64;
            self.used[i] += 1;
            self.used_wins[i] += won as u64;
        }
        let c = self.cards as usize;
        if c == 0 {
            return;
        }
        seen.clear();
        seen.resize(self.held.len(), false);
        for (&code, &k) in owner.iter().zip(key) {
            let f = match code as usize {
                h @ 1..=MAX_FACTIONS => h - 1,
                _ if is_completed(code) => code as usize - 101,
                _ => continue,
            };
            let i = f * c + k as usize;
            if let Some(s) = seen.get_mut(i).filter(|s| !**s) {
                *s = true;
                self.held[i] += 1;
                self.held_wins[i] += (winner == Some(f)) as u64;
            }
        }
    }

    /// Adds another game range's counts (exact; order does not matter). Counts of another
    /// shape are refused.
    pub fn merge(&mut self, o: &Usage) -> bool {
        if (
            self.actions,
            self.cards,
            self.decisions.len(),
            self.held.len(),
        ) != (o.actions, o.cards, o.decisions.len(), o.held.len())
        {
            return false;
        }
        for (a, b) in [
            (&mut self.decisions, &o.decisions),
            (&mut self.used, &o.used),
            (&mut self.used_wins, &o.used_wins),
            (&mut self.held, &o.held),
            (&mut self.held_wins, &o.held_wins),
        ] {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        true
    }

    /// Whether these counts can come from `games` games of `nf` factions with `wins` sole
    /// wins each (a check of counts read from a file): shapes agree, no count exceeds the
    /// games, wins in games with (or without) an action or card stay within the faction's.
    pub fn consistent(&self, games: u64, wins: &[u64]) -> bool {
        let nf = wins.len();
        let (a, c) = (self.actions as usize, self.cards as usize);
        let shape = [&self.decisions, &self.used, &self.used_wins]
            .iter()
            .all(|v| v.len() == nf * a)
            && [&self.held, &self.held_wins]
                .iter()
                .all(|v| v.len() == nf * c);
        let within = |n: &[u64], w: &[u64], cols: usize| {
            n.iter().zip(w).enumerate().all(|(i, (&n, &w))| {
                let fw = wins[i / cols.max(1)];
                n <= games && w <= n && w <= fw && fw - w <= games - n
            })
        };
        shape
            && within(&self.used, &self.used_wins, a)
            && within(&self.held, &self.held_wins, c)
            && self.decisions.iter().zip(&self.used).all(|(&d, &u)| d >= u)
    }

    /// Faction `f`'s use of action `i` over `games` games in which it won `wins` alone,
    /// intervals at quantile `z` (the difference's at `z_diff`).
    pub fn action(&self, f: usize, i: usize, games: u64, wins: u64, z: f64) -> ActionUsage {
        let a = self.actions as usize;
        let row = &self.decisions[f * a..(f + 1) * a];
        let total: u64 = row.iter().sum();
        let j = f * a + i;
        let (used, used_wins) = (self.used[j], self.used_wins[j]);
        ActionUsage {
            decisions: row[i],
            share: if total == 0 {
                0.0
            } else {
                row[i] as f64 / total as f64
            },
            per_game: row[i] as f64 / games.max(1) as f64,
            games_used: used,
            win_if_used: Rate::wilson(used_wins, used, z),
            win_if_unused: Rate::wilson(wins - used_wins, games - used, z),
            never_chosen: used == 0,
            every_game: used == games && games > 0,
        }
    }

    /// Faction `f`'s games with card `k`, as [`Usage::action`].
    pub fn card(&self, f: usize, k: usize, games: u64, wins: u64, z: f64) -> (u64, Rate, Rate) {
        let j = f * self.cards as usize + k;
        let (held, held_wins) = (self.held[j], self.held_wins[j]);
        (
            held,
            Rate::wilson(held_wins, held, z),
            Rate::wilson(wins - held_wins, games - held, z),
        )
    }
}

/// One faction's use of one action.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ActionUsage {
    /// Decisions that chose it.
    pub decisions: u64,
    /// Its share of the faction's decisions.
    pub share: f64,
    /// Mean decisions choosing it per game.
    pub per_game: f64,
    /// Games in which it was chosen at least once.
    pub games_used: u64,
    /// The faction's sole-win rate in those games.
    pub win_if_used: Rate,
    /// ... in the other games.
    pub win_if_unused: Rate,
    /// Never chosen in any game.
    pub never_chosen: bool,
    /// Chosen in every game.
    pub every_game: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Decider;

    fn outcome(result: GameResult) -> Outcome {
        Outcome {
            reason: crate::ids::ReasonId(0),
            rounds: 1,
            scores: [0; MAX_FACTIONS],
            ranks: [1; MAX_FACTIONS],
            result,
            decided_by: Decider::Score,
        }
    }

    #[test]
    fn a_game_counts_uses_once_and_copies_of_a_card_once() {
        let (key, names) =
            crate::model::card_keys(&[("d".into(), vec!["x".into(), "x".into(), "y".into()])]);
        assert_eq!(key, vec![0, 0, 1]);
        assert_eq!(names.len(), 2);
        let mut u = Usage::new(2, 2, 2);
        let mut seen = Vec::new();
        // Faction 0 chose action 1 three times and holds both copies of x; faction 1
        // completed y and won.
        u.add(
            &outcome(GameResult::Win(1)),
            &[0, 3, 1, 0],
            (&[1, 1, 102], &key),
            &mut seen,
        );
        u.add(
            &outcome(GameResult::Win(0)),
            &[0, 1, 0, 0],
            (&[0, 0, 0], &key),
            &mut seen,
        );
        assert_eq!(u.decisions, vec![0, 4, 1, 0]);
        assert_eq!(u.used, vec![0, 2, 1, 0]);
        assert_eq!(u.used_wins, vec![0, 1, 1, 0]);
        assert_eq!(u.held, vec![1, 0, 0, 1]);
        assert_eq!(u.held_wins, vec![0, 0, 0, 1]);
        assert!(u.consistent(2, &[1, 1]));
        let z = crate::stats::z_for(0.95);
        let x = u.action(0, 1, 2, 1, z);
        assert!(x.every_game && !x.never_chosen);
        assert_eq!((x.win_if_used.count, x.win_if_used.n), (1, 2));
        assert_eq!(x.win_if_unused.n, 0);
        assert!(u.action(0, 0, 2, 1, z).never_chosen);
        let mut twice = u.clone();
        assert!(twice.merge(&u));
        assert_eq!(twice.decisions, vec![0, 8, 2, 0]);
        assert!(!twice.consistent(2, &[1, 1]));
        assert!(!twice.merge(&Usage::new(2, 3, 2)));
    }
}
