//! Custom metrics' tallies: each `[[metric]]`'s values as integer histograms.
//!
//! Owns the counts a run keeps for the scenario's metrics (merged exactly, checked when
//! shards merge) and the estimates read from them. A metric taken at the end keeps, per
//! owner (each faction, or the game), the histogram of all games and, for a faction's
//! metric, of the games that faction won alone and of the others; a metric taken after
//! every round keeps one histogram per round and owner, over the games that played that
//! round (the first [`super::BY_ROUND`] rounds, in at most [`super::ROUND_BINS`] bins).

use serde::{Deserialize, Serialize};

use super::{Histogram, Spread};
use crate::runtime::{Outcome, Result as GameResult};

/// One owner's values of a metric taken at the end.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndCell {
    /// Every game.
    pub all: Histogram,
    /// The games the owner won alone (a faction's metric only).
    pub won: Histogram,
    /// The other games (a faction's metric only).
    pub lost: Histogram,
}

/// The metrics' histograms.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricTally {
    /// Owners of each metric taken at the end (factions, or 1 for the game), file order.
    pub end_owners: Vec<usize>,
    /// Whether each metric taken at the end is a faction's (its games are split by
    /// whether that faction won alone).
    pub end_faction: Vec<bool>,
    /// Owners of each metric taken after every round.
    pub round_owners: Vec<usize>,
    /// `end[m][owner]`.
    pub end: Vec<Vec<EndCell>>,
    /// `rounds[r][m][owner]`: round `r + 1`.
    pub rounds: Vec<Vec<Vec<Histogram>>>,
}

impl MetricTally {
    /// Empty histograms for the metrics taken at the end (`end`: each one's owners and
    /// whether it is a faction's) and after every round (each one's owners).
    pub fn new(end: &[(usize, bool)], round_owners: Vec<usize>) -> MetricTally {
        let end_owners: Vec<usize> = end.iter().map(|e| e.0).collect();
        MetricTally {
            end_faction: end.iter().map(|e| e.1).collect(),
            end: end_owners
                .iter()
                .map(|&o| vec![EndCell::default(); o])
                .collect(),
            rounds: Vec::new(),
            end_owners,
            round_owners,
        }
    }

    /// Counts one game: `end` its metrics taken at the end, `rounds` those taken after
    /// each round, round by round (the layout of [`crate::engine::Game::metric_end`] and
    /// [`crate::engine::Game::metric_rounds`]).
    pub fn add(&mut self, o: &Outcome, end: &[i64], rounds: &[i64]) {
        let mut at = 0;
        let metrics = self.end.iter_mut().zip(&self.end_owners);
        for ((cells, &owners), &faction) in metrics.zip(&self.end_faction) {
            for (f, cell) in cells.iter_mut().enumerate() {
                let Some(&v) = end.get(at + f) else { return };
                cell.all.add(v);
                if faction {
                    if o.result == GameResult::Win(f as u8) {
                        cell.won.add(v);
                    } else {
                        cell.lost.add(v);
                    }
                }
            }
            at += owners;
        }
        let width: usize = self.round_owners.iter().sum();
        if width == 0 {
            return;
        }
        let played = (rounds.len() / width).min(super::BY_ROUND);
        if self.rounds.len() < played {
            let empty = self.empty_round();
            self.rounds.resize(played, empty);
        }
        for (row, vals) in self.rounds.iter_mut().zip(rounds.chunks_exact(width)) {
            let mut vals = vals.iter();
            for hs in row.iter_mut() {
                for (h, &v) in hs.iter_mut().zip(vals.by_ref()) {
                    h.add_within(v, super::ROUND_BINS);
                }
            }
        }
    }

    fn empty_round(&self) -> Vec<Vec<Histogram>> {
        (self.round_owners.iter())
            .map(|&o| vec![Histogram::default(); o])
            .collect()
    }

    /// Adds another tally's histograms (exact; order does not matter). False when the two
    /// have different shapes.
    pub fn merge(&mut self, o: &MetricTally) -> bool {
        if self.end_owners != o.end_owners
            || self.end_faction != o.end_faction
            || self.round_owners != o.round_owners
        {
            return false;
        }
        for (a, b) in self.end.iter_mut().zip(&o.end) {
            for (x, y) in a.iter_mut().zip(b) {
                x.all.merge(&y.all);
                x.won.merge(&y.won);
                x.lost.merge(&y.lost);
            }
        }
        if self.rounds.len() < o.rounds.len() {
            let empty = self.empty_round();
            self.rounds.resize(o.rounds.len(), empty);
        }
        for (a, b) in self.rounds.iter_mut().zip(&o.rounds) {
            for (x, y) in a.iter_mut().zip(b) {
                for (h, k) in x.iter_mut().zip(y) {
                    h.merge_within(k, super::ROUND_BINS);
                }
            }
        }
        true
    }

    /// Why these histograms cannot come from `games` games lasting `lasted(r)` games past
    /// round `r` with sole wins `wins[f]`, if they cannot (a damaged or edited shard).
    pub fn inconsistent(
        &self,
        games: u64,
        wins: &[u64],
        lasted: &dyn Fn(usize) -> u64,
    ) -> Option<String> {
        let shaped = self.end.len() == self.end_owners.len()
            && self.end_faction.len() == self.end_owners.len()
            && self
                .end
                .iter()
                .zip(&self.end_owners)
                .all(|(c, &o)| c.len() == o)
            && self.rounds.len() <= super::BY_ROUND
            && self.rounds.iter().all(|row| {
                row.len() == self.round_owners.len()
                    && row
                        .iter()
                        .zip(&self.round_owners)
                        .all(|(h, &o)| h.len() == o)
            });
        if !shaped {
            return Some("the metric histograms do not have the metrics' shape".into());
        }
        for (m, cells) in self.end.iter().enumerate() {
            for (f, c) in cells.iter().enumerate() {
                let wf = |h: &Histogram| h.well_formed(super::MAX_BINS as usize);
                let split = self.end_faction[m] || (c.won.total() == 0 && c.lost.total() == 0);
                if !(wf(&c.all) && wf(&c.won) && wf(&c.lost)) || c.all.total() != games || !split {
                    return Some(format!("metric {} does not count every game once", m + 1));
                }
                if self.end_faction[m]
                    && (c.won.total() != wins.get(f).copied().unwrap_or(u64::MAX)
                        || c.won.total() as u128 + c.lost.total() as u128 != games as u128)
                {
                    return Some(format!(
                        "metric {}'s games won and lost do not match faction {}'s wins",
                        m + 1,
                        f + 1
                    ));
                }
            }
        }
        for (r, row) in self.rounds.iter().enumerate() {
            let ok = row
                .iter()
                .flatten()
                .all(|h| h.well_formed(super::ROUND_BINS as usize) && h.total() == lasted(r));
            if !ok {
                return Some(format!(
                    "round {}'s metric histograms do not count the games that played it",
                    r + 1
                ));
            }
        }
        None
    }
}

/// The difference of a faction metric's means in the games the faction won alone and in the
/// others (winners minus others), with its interval at normal quantile `z` (Welch's, from
/// each group's sample variance); `None` with fewer than two games in either group.
pub fn won_against_lost(c: &EndCell, z: f64) -> Option<super::Diff> {
    let (w, l) = (Spread::of(&c.won)?, Spread::of(&c.lost)?);
    let (nw, nl) = (c.won.total() as f64, c.lost.total() as f64);
    if nw < 2.0 || nl < 2.0 {
        return None;
    }
    let est = w.mean - l.mean;
    let se = (w.sd * w.sd / nw + l.sd * l.sd / nl).sqrt();
    Some(super::Diff {
        est,
        low: est - z * se,
        high: est + z * se,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{Decider, Outcome};
    use proptest::prelude::*;

    fn outcome(winner: Option<u8>) -> Outcome {
        Outcome {
            reason: crate::ids::ReasonId(0),
            rounds: 1,
            scores: [0; crate::state::MAX_FACTIONS],
            ranks: [1; crate::state::MAX_FACTIONS],
            result: winner.map_or(GameResult::Draw, GameResult::Win),
            decided_by: Decider::Score,
        }
    }

    proptest! {
        /// Counting games into two tallies and merging them gives the one tally of all the
        /// games, and that tally passes the shard check.
        #[test]
        fn split_and_merged_equals_whole(
            games in prop::collection::vec(
                (prop::option::of(0u8..2), -50i64..50, -50i64..50, 0i64..9, 0usize..4), 1..40),
            cut in 0usize..40,
        ) {
            let shape = || MetricTally::new(&[(2, true), (1, false)], vec![2]);
            let (mut whole, mut a, mut b) = (shape(), shape(), shape());
            let mut wins = [0u64; 2];
            for (i, &(w, x, y, g, rounds)) in games.iter().enumerate() {
                let o = outcome(w);
                if let Some(w) = w {
                    wins[w as usize] += 1;
                }
                let per_round: Vec<i64> = (0..rounds as i64).flat_map(|r| [x + r, y - r]).collect();
                whole.add(&o, &[x, y, g], &per_round);
                let part = if i < cut { &mut a } else { &mut b };
                part.add(&o, &[x, y, g], &per_round);
            }
            prop_assert!(a.merge(&b));
            prop_assert_eq!(&a, &whole);
            let lasted = |r: usize| whole.rounds[r][0][0].total();
            prop_assert_eq!(whole.inconsistent(games.len() as u64, &wins, &lasted), None);
            let other = MetricTally::new(&[(2, true)], vec![2]);
            prop_assert!(!a.clone().merge(&other));
        }
    }
}
