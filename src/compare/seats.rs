//! Seats in a comparison with rotated seats: game `i` seats the factions alike in both
//! variants, so each seat's sole wins pair as a faction's do.

use serde::Serialize;

use super::{Est, PairTally, rate_shift};

/// One seat's win rate in A and in B and the paired difference, with rotated seats.
#[derive(Debug, Clone, Serialize)]
pub struct SeatDiff {
    /// The seat, from 1.
    pub seat: usize,
    /// Its sole-win rate in A (over the factions that sat there).
    pub win_a: f64,
    /// In B.
    pub win_b: f64,
    /// B − A with its paired interval.
    pub win_diff: Est,
    /// Whether the interval excludes 0.
    pub beyond_noise: bool,
}

/// Each seat's paired difference at normal quantile `z` (empty without rotated seats). The
/// intervals are each seat's own (95%), not simultaneous.
pub fn seat_diffs(t: &PairTally, z: f64) -> Vec<SeatDiff> {
    let n = t.games.max(1) as f64;
    (t.seats.iter().enumerate())
        .map(|(s, p)| {
            let win_diff = rate_shift(p.only_a, p.only_b, t.games, z);
            SeatDiff {
                seat: s + 1,
                win_a: p.wins_a as f64 / n,
                win_b: p.wins_b as f64 / n,
                beyond_noise: win_diff.low > 0.0 || win_diff.high < 0.0,
                win_diff,
            }
        })
        .collect()
}
