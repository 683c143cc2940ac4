//! Seats against factions: the rows and the reading of a run with `--rotate-seats`.
//!
//! Owns what a report says about seats: each seat's win rate averaged over the factions
//! that sat there (equally often, by the rotation), its edge over the fair share, each
//! faction's rate from each seat, and the one reading that tells a seat's edge from a
//! faction's. The counts are [`crate::stats::seats`]'s.

use serde::{Deserialize, Serialize};

use crate::stats::margin::{Judgement, judge, pp};
use crate::stats::seats::{SeatTally, edge};
use crate::stats::{Diff, Rate};

/// Why a model's games never read the seating (see
/// [`crate::model::Model::seat_uses`]): what `validate` and a rotated run's report say.
pub const UNMOVED: &str = "every faction phase orders its turns by keys that never tie, no formula reads table_seat and no hand is passed along the table";

/// What a rotated run of such a model says instead of a seat table.
pub fn unmoved_words() -> String {
    format!(
        "--rotate-seats changed no game: {UNMOVED}. No seat table is shown: each faction's \
         win rate is its own from any seat."
    )
}

/// One seat's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatRow {
    /// Seat (1 = first in turn order).
    pub seat: u32,
    /// Sole wins from this seat over all games, whoever sat there.
    pub win: Rate,
    /// The win rate minus the fair share, with the rate's interval moved.
    pub edge: Diff,
    /// The fair share: the games someone won alone over the seats (1 / factions when every
    /// game has a sole winner; less with draws or shared wins, which no seat wins).
    pub fair: f64,
    /// Each faction's sole wins from this seat, in faction order (`n`: its games there).
    pub by_faction: Vec<Rate>,
}

/// The seat rows of a run's seat counts over `games` games.
pub fn rows(t: &SeatTally, games: u64, z: f64) -> Vec<SeatRow> {
    let won: u64 = t.wins.iter().fold(0u64, |a, &b| a.saturating_add(b));
    let fair = won as f64 / games.max(1) as f64 / t.seats.max(1) as f64;
    (0..t.seats)
        .map(|s| {
            let win = t.seat_rate(s, games, z);
            SeatRow {
                seat: s as u32 + 1,
                edge: edge(&win, fair),
                fair,
                win,
                by_faction: (0..t.seats).map(|f| t.cell(f, s, z)).collect(),
            }
        })
        .collect()
}

/// The reading of a rotated run: which seats win more or less than the fair share beyond
/// noise (at `margin`), and whether the factions, each averaged over every seat, differ
/// beyond noise (their intervals apart). `factions` are `(label, win)` pairs.
pub fn reading(seats: &[SeatRow], factions: &[(String, Rate)], margin: f64) -> String {
    let fair = seats.first().map_or(0.0, |r| r.fair);
    let mut parts = Vec::new();
    for r in seats {
        let words = match judge(&r.edge, margin) {
            Judgement::Up | Judgement::Down => "beyond noise",
            Judgement::Small => "beyond noise but less than the margin",
            Judgement::Unsettled => "beyond noise; whether it reaches the margin is undecided",
            Judgement::Within | Judgement::Undecided => continue,
        };
        parts.push(format!(
            "seat {} wins {} over the fair share, {words}",
            r.seat,
            r.edge.signed(" pp")
        ));
    }
    let seat_words = if parts.is_empty() {
        let widest = seats
            .iter()
            .map(|r| (r.edge.high - r.edge.low) / 2.0)
            .fold(0.0, f64::max);
        format!(
            "no seat wins more or less than the fair share ({:.1}%) beyond noise (each within ±{:.1} pp)",
            100.0 * fair,
            100.0 * widest
        )
    } else {
        format!(
            "{} (fair share {:.1}%, margin {} pp)",
            parts.join("; "),
            100.0 * fair,
            pp(margin)
        )
    };
    let top = factions.iter().max_by(|a, b| a.1.rate.total_cmp(&b.1.rate));
    let bottom = factions.iter().min_by(|a, b| a.1.rate.total_cmp(&b.1.rate));
    let faction_words = match (top, bottom) {
        (Some(t), Some(b)) if t.1.low > b.1.high => format!(
            "factions differ beyond noise, each averaged over every seat: {} {:.1}% against {} {:.1}%",
            t.0,
            100.0 * t.1.rate,
            b.0,
            100.0 * b.1.rate
        ),
        _ => "factions within noise of each other, each averaged over every seat".into(),
    };
    format!("{seat_words}; {faction_words}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(c: u64, n: u64) -> Rate {
        Rate::wilson(c, n, 1.96)
    }

    #[test]
    fn a_seat_edge_and_even_factions_read_apart() {
        let seats: Vec<SeatRow> = [4000u64, 3000, 3000]
            .iter()
            .enumerate()
            .map(|(s, &w)| {
                let win = rate(w, 10_000);
                SeatRow {
                    seat: s as u32 + 1,
                    edge: edge(&win, 1.0 / 3.0),
                    fair: 1.0 / 3.0,
                    win,
                    by_faction: vec![],
                }
            })
            .collect();
        let factions = vec![
            ("A".to_string(), rate(3340, 10_000)),
            ("B".to_string(), rate(3330, 10_000)),
            ("C".to_string(), rate(3330, 10_000)),
        ];
        let r = reading(&seats, &factions, 0.02);
        assert!(r.starts_with("seat 1 wins +6.7 pp"), "{r}");
        assert!(r.contains("seat 2 wins -3.3 pp"), "{r}");
        assert!(
            r.ends_with("factions within noise of each other, each averaged over every seat."),
            "{r}"
        );
    }
}
