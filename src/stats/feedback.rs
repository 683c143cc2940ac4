//! The feedback test: does a lead make a faction's next round better (a snowball) or worse
//! (a catch-up), beyond noise?
//!
//! Owns [`Cell`] (the exact sums of one faction's score gains in one round, split by whether
//! it led after the round before) and [`estimate`], which pools the cells into one
//! difference with an interval.
//!
//! Why this and not the leader's margin: the gap between independent random walks grows by
//! itself (its spread grows with the square root of the rounds), and later rounds count only
//! the games still running, so a growing margin is no evidence of feedback. Comparing the
//! same faction's gain in the same round, led against not led, is: with independent rounds
//! the gain does not depend on who leads, and the difference is 0 in expectation whatever
//! the factions' strengths or the rounds' sizes.

use serde::{Deserialize, Serialize};

/// Exact sums of score gains: their count, sum and sum of squares (saturating, which only
/// gains near the `i64` limits reach).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gains {
    /// Gains counted.
    pub n: u64,
    /// Their sum.
    pub sum: i128,
    /// The sum of their squares.
    pub squares: i128,
}

impl Gains {
    #[inline]
    fn add(&mut self, g: i128) {
        self.n += 1;
        self.sum = self.sum.saturating_add(g);
        // A gain under 2^31 squares in 64 bits (every game's, in practice): a 128-bit
        // saturating multiply costs a library call per faction and round.
        let square = match i64::try_from(g) {
            Ok(x) if x.unsigned_abs() < 1 << 31 => (x * x) as i128,
            _ => g.saturating_mul(g),
        };
        self.squares = self.squares.saturating_add(square);
    }

    fn merge(&mut self, o: &Gains) {
        self.n += o.n;
        self.sum = self.sum.saturating_add(o.sum);
        self.squares = self.squares.saturating_add(o.squares);
    }

    /// Mean and the variance of the mean (`None` below 2 gains).
    fn mean_and_variance(&self) -> Option<(f64, f64)> {
        if self.n < 2 {
            return None;
        }
        let n = self.n as f64;
        let mean = self.sum as f64 / n;
        // The centred sum of squares from exact sums: n Σg² − (Σg)², in 128 bits where it
        // fits, so that whole-number gains lose nothing to cancellation.
        let centred = (self.n as i128)
            .checked_mul(self.squares)
            .zip(self.sum.checked_mul(self.sum))
            .and_then(|(a, b)| a.checked_sub(b))
            .map_or_else(
                || self.squares as f64 - self.sum as f64 * mean,
                |c| c as f64 / n,
            );
        let var = (centred / (n - 1.0)).max(0.0);
        Some((mean, var / n))
    }
}

/// One faction's gains in round `r + 2` of the games that played it, split by whether the
/// faction led (alone or tied for first) after round `r + 1`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cell {
    /// When it led.
    pub lead: Gains,
    /// When it did not.
    pub rest: Gains,
}

impl Cell {
    /// Games counted.
    pub fn games(&self) -> u64 {
        self.lead.n + self.rest.n
    }

    /// Adds another cell (exact; order does not matter).
    pub fn merge(&mut self, o: &Cell) {
        self.lead.merge(&o.lead);
        self.rest.merge(&o.rest);
    }
}

/// Counts one game's rounds: `before` and `after` are the factions' ranking scores after two
/// consecutive rounds, `cells` that round's row.
#[inline]
pub fn add_round(cells: &mut [Cell], before: &[i64], after: &[i64]) {
    let Some(&max) = before.iter().max() else {
        return;
    };
    for ((c, &b), &a) in cells.iter_mut().zip(before).zip(after) {
        let g = match a.checked_sub(b) {
            Some(g) => g as i128,
            None => a as i128 - b as i128,
        };
        if b == max {
            c.lead.add(g);
        } else {
            c.rest.add(g);
        }
    }
}

/// The pooled feedback: a faction's mean gain in a round when it led after the round before,
/// minus when it did not.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// The pooled difference, in points per round.
    pub gain: f64,
    /// Its interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
    /// The (faction, round) cells pooled: those with at least 2 gains on each side.
    pub cells: usize,
    /// Gains counted in those cells.
    pub gains: u64,
    /// A round's typical gain in those cells: the root mean square, the scale against
    /// which a difference is small or large.
    pub typical: f64,
}

/// The share of a round's typical gain below which a difference, even one beyond noise, is
/// too small to matter (with millions of games, noise alone no longer hides a 0.1% effect).
pub const NEGLIGIBLE: f64 = 0.01;

/// What the feedback test found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A lead makes the next round better, beyond noise and by at least [`NEGLIGIBLE`].
    Snowball,
    /// A lead makes the next round worse, beyond noise and by at least [`NEGLIGIBLE`].
    CatchUp,
    /// Beyond noise, but the whole interval is within [`NEGLIGIBLE`] of 0.
    Negligible,
    /// The interval includes 0.
    None,
}

impl Estimate {
    /// The verdict: a direction is named only when the interval excludes 0 and reaches past
    /// the negligible share of a round's typical gain.
    pub fn verdict(&self) -> Verdict {
        let small = NEGLIGIBLE * self.typical;
        if self.low > 0.0 && self.high > small {
            Verdict::Snowball
        } else if self.high < 0.0 && self.low < -small {
            Verdict::CatchUp
        } else if self.low > 0.0 || self.high < 0.0 {
            Verdict::Negligible
        } else {
            Verdict::None
        }
    }
}

/// Pools the cells' differences (led minus not led) into one, weighting each cell by
/// `n_lead * n_rest / (n_lead + n_rest)`, the weight that makes a common difference's
/// estimate most precise, with a normal interval at `z` from the cells' own variances.
/// Each cell compares one faction in one round, so neither the factions' strengths nor the
/// rounds' sizes enter the difference. `None` when no cell has 2 gains on each side.
pub fn estimate(rows: &[Vec<Cell>], z: f64) -> Option<Estimate> {
    let (mut w_sum, mut wd_sum, mut w2v_sum) = (0.0, 0.0, 0.0);
    let (mut cells, mut gains, mut squares) = (0, 0, 0.0);
    for c in rows.iter().flatten() {
        let (Some((ml, vl)), Some((mr, vr))) =
            (c.lead.mean_and_variance(), c.rest.mean_and_variance())
        else {
            continue;
        };
        let (nl, nr) = (c.lead.n as f64, c.rest.n as f64);
        let w = nl * nr / (nl + nr);
        w_sum += w;
        wd_sum += w * (ml - mr);
        w2v_sum += w * w * (vl + vr);
        cells += 1;
        gains += c.games();
        squares += c.lead.squares as f64 + c.rest.squares as f64;
    }
    if cells == 0 {
        return None;
    }
    let gain = wd_sum / w_sum;
    let half = z * w2v_sum.sqrt() / w_sum;
    Some(Estimate {
        gain,
        low: gain - half,
        high: gain + half,
        cells,
        gains,
        typical: (squares / gains as f64).sqrt(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lead_that_adds_a_point_reads_as_feedback() {
        let mut row = vec![Cell::default(); 2];
        // Faction 0 leads and gains 2, 3; faction 1 trails and gains 1, 2; then swapped.
        for (b, a) in [
            ([1, 0], [3, 1]),
            ([1, 0], [4, 2]),
            ([0, 1], [1, 3]),
            ([0, 1], [2, 4]),
        ] {
            add_round(&mut row, &b, &a);
        }
        let e = estimate(&[row], 1.96).unwrap();
        assert_eq!(e.cells, 2);
        assert!((e.gain - 1.0).abs() < 1e-12, "{e:?}");
        assert!(e.low < 1.0 && e.high > 1.0);
    }

    #[test]
    fn a_tie_for_first_counts_as_a_lead_and_one_sided_cells_are_left_out() {
        let mut row = vec![Cell::default(); 2];
        add_round(&mut row, &[2, 2], &[3, 2]);
        add_round(&mut row, &[2, 2], &[2, 3]);
        assert_eq!(row[0].lead.n, 2);
        assert_eq!(row[0].rest.n, 0);
        assert_eq!(estimate(&[row], 1.96), None);
    }
}
