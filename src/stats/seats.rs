//! Wins by seat when the seats rotate: games and sole wins of each faction in each seat.
//!
//! Owns the integer counts `--rotate-seats` adds to a tally (merged exactly, checked when
//! shards merge) and the estimates read from them: each seat's win rate over the factions
//! that sat there, and its edge over the fair share. With every faction in every seat
//! equally often (see [`crate::runtime::seats`]), a seat's rate is the average over
//! factions and a faction's is the average over seats.

use serde::{Deserialize, Serialize};

use super::{Diff, Rate};
use crate::runtime::seats::Seating;
use crate::runtime::{Outcome, Result as GameResult};

/// Games and sole wins by faction and seat, `faction * seats + seat`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeatTally {
    /// Number of seats (= factions).
    pub seats: usize,
    /// Games each faction played in each seat.
    pub games: Vec<u64>,
    /// Games each faction won alone from each seat.
    pub wins: Vec<u64>,
}

impl SeatTally {
    /// Empty counts for `n` factions.
    pub fn new(n: usize) -> SeatTally {
        SeatTally {
            seats: n,
            games: vec![0; n * n],
            wins: vec![0; n * n],
        }
    }

    /// Counts one game played with `seating`.
    #[inline]
    pub fn add(&mut self, o: &Outcome, seating: &Seating) {
        let n = self.seats;
        for f in 0..n {
            self.games[f * n + seating.of[f] as usize] += 1;
        }
        if let GameResult::Win(f) = o.result {
            let f = f as usize;
            self.wins[f * n + seating.of[f] as usize] += 1;
        }
    }

    /// Adds another tally's counts (exact; order does not matter).
    pub fn merge(&mut self, o: &SeatTally) {
        for (a, b) in self.games.iter_mut().zip(&o.games) {
            *a += b;
        }
        for (a, b) in self.wins.iter_mut().zip(&o.wins) {
            *a += b;
        }
    }

    /// Why these counts cannot come from `games` games whose factions won alone `wins[f]`
    /// times, if they cannot (a damaged or edited shard).
    pub fn inconsistent(&self, games: u64, wins: &[u64]) -> Option<String> {
        let n = self.seats;
        if n != wins.len() || self.games.len() != n * n || self.wins.len() != n * n {
            return Some(format!("seat counts for {n} seats, not {}", wins.len()));
        }
        for (f, &won) in wins.iter().enumerate() {
            let row = f * n..(f + 1) * n;
            // In 128 bits: an edited count near 2^64 must not wrap into agreement.
            let sum = |v: &[u64]| v.iter().map(|&x| x as u128).sum::<u128>();
            if sum(&self.games[row.clone()]) != games as u128 {
                return Some(format!(
                    "faction {}'s games by seat do not add to the games",
                    f + 1
                ));
            }
            if sum(&self.wins[row.clone()]) != won as u128 {
                return Some(format!(
                    "faction {}'s wins by seat do not add to its wins",
                    f + 1
                ));
            }
            if self.wins[row.clone()]
                .iter()
                .zip(&self.games[row])
                .any(|(w, g)| w > g)
            {
                return Some(format!(
                    "faction {} won more games in a seat than it played there",
                    f + 1
                ));
            }
        }
        for s in 0..n {
            if (0..n).map(|f| self.games[f * n + s] as u128).sum::<u128>() != games as u128 {
                return Some(format!("seat {} was not filled once a game", s + 1));
            }
        }
        None
    }

    /// Seat `s`'s sole wins over `games` games (whoever sat there), with its interval.
    pub fn seat_rate(&self, s: usize, games: u64, z: f64) -> Rate {
        let n = self.seats;
        let wins = (0..n)
            .map(|f| self.wins[f * n + s])
            .fold(0u64, u64::saturating_add);
        Rate::wilson(wins, games, z)
    }

    /// Faction `f`'s sole wins from seat `s`, with its interval.
    pub fn cell(&self, f: usize, s: usize, z: f64) -> Rate {
        let i = f * self.seats + s;
        Rate::wilson(self.wins[i], self.games[i], z)
    }

    /// Whether every faction sat in every seat equally often.
    pub fn balanced(&self) -> bool {
        self.games.windows(2).all(|w| w[0] == w[1])
    }
}

/// A rate's edge over the fair share `fair`, with the rate's interval moved by it.
pub fn edge(r: &Rate, fair: f64) -> Diff {
    Diff {
        est: r.rate - fair,
        low: r.low - fair,
        high: r.high - fair,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(f: u8) -> Outcome {
        Outcome {
            reason: crate::ids::ReasonId(0),
            rounds: 1,
            scores: [0; crate::state::MAX_FACTIONS],
            ranks: [1; crate::state::MAX_FACTIONS],
            result: GameResult::Win(f),
            decided_by: crate::runtime::Decider::Score,
        }
    }

    #[test]
    fn counts_add_up_and_merge_exactly() {
        let mut a = SeatTally::new(3);
        let mut b = SeatTally::new(3);
        for g in 0..12u64 {
            let s = Seating::rotated(3, g);
            // The faction in seat 1 always wins.
            let t = if g < 5 { &mut a } else { &mut b };
            t.add(&win(s.at[0]), &s);
        }
        a.merge(&b);
        assert!(a.inconsistent(12, &[4, 4, 4]).is_none());
        assert_eq!(a.seat_rate(0, 12, 1.96).count, 12);
        assert_eq!(a.seat_rate(1, 12, 1.96).count, 0);
        assert!(a.balanced(), "12 games are two 6-game cycles");
        let mut c = a.clone();
        c.add(&win(0), &Seating::rotated(3, 12));
        assert!(!c.balanced());
        let mut c = a.clone();
        c.wins[0] += 1;
        assert!(c.inconsistent(12, &[4, 4, 4]).is_some());
    }
}
