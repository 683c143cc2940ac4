//! The by-round tables of a tally: each faction's score after each round, the leader's
//! margin, and the feedback test's gains, recorded game by game.
//!
//! Owns how a game's rounds are counted ([`add_direct`], straight into the tally's
//! histograms and exact sums) and the cheaper way a chunk of games counts them
//! ([`Recorder`]): while every score stays in the small range the ranking's variable is kept
//! in, a game costs one increment of a flat `u32` table per faction and round, and the
//! tally's histograms and sums are derived from those counts once, when the chunk ends
//! ([`Recorder::finish`]). The two give the same tally, field for field (a test checks it):
//! the histograms are exact (one bin a value) in that range, and sums of whole-number gains
//! do not depend on the order they are added in.

use super::feedback::{self, Cell, Gains, Own};
use super::{BY_ROUND, Histogram, ROUND_BINS, Tally};
use crate::state::MAX_FACTIONS;

/// `nfactions * max - sum` of one round's scores in `i128`, clamped to `i64`: the leader's
/// margin when the `i64` sum or product overflows.
#[cold]
fn wide_margin(s: &[i64]) -> i64 {
    let (max, sum) = s.iter().fold((i128::MIN, 0i128), |(m, t), &v| {
        (m.max(v as i128), t + v as i128)
    });
    let margin = s.len() as i128 * max - sum;
    margin.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

/// Counts one game's rounds into `t`: `scores` holds each faction's ranking score after each
/// round, a row of `nfactions` a round. Rows past [`BY_ROUND`] are not counted.
pub fn add_direct(t: &mut Tally, scores: &[i64]) {
    let nf = t.factions.len();
    let Some(rounds) = scores.len().checked_div(nf) else {
        return;
    };
    let rounds = rounds.min(BY_ROUND);
    if t.by_round.len() < rounds {
        t.by_round.resize(rounds, vec![Histogram::default(); nf]);
        t.margins.resize(rounds, Histogram::default());
    }
    let rows = t.by_round.iter_mut().zip(&mut t.margins);
    for ((hs, margin), s) in rows.zip(scores.chunks_exact(nf)).take(rounds) {
        // The margin in `i64` unless a sum or product near its limits overflows, then in
        // `i128`: the same value either way.
        let (mut max, mut sum, mut wide) = (i64::MIN, 0i64, false);
        for (h, &v) in hs.iter_mut().zip(s) {
            h.add_within(v, ROUND_BINS);
            max = max.max(v);
            let (t, o) = sum.overflowing_add(v);
            (sum, wide) = (t, wide | o);
        }
        let m = (nf as i64)
            .checked_mul(max)
            .and_then(|x| x.checked_sub(sum))
            .filter(|_| !wide)
            .unwrap_or_else(|| wide_margin(s));
        margin.add_within(m, ROUND_BINS);
    }
    let rows = rounds.saturating_sub(1);
    if t.feedback.len() < rows {
        t.feedback.resize(rows, vec![Cell::default(); nf]);
        if t.split {
            t.feedback_own.resize(rows, vec![Own::default(); nf]);
        }
    }
    let pairs = scores.windows(2 * nf).step_by(nf);
    if t.split {
        let rows = t.feedback.iter_mut().zip(t.feedback_own.iter_mut());
        for ((cells, own), pair) in rows.zip(pairs) {
            feedback::add_round_split(cells, own, &pair[..nf], &pair[nf..]);
        }
    } else {
        for (cells, pair) in t.feedback.iter_mut().zip(pairs) {
            feedback::add_round(cells, &pair[..nf], &pair[nf..]);
        }
    }
}

/// The widest score range the flat tables take (the scores a game's ranking variable may
/// hold, `max - min + 1`).
const MAX_SPAN: usize = 64;

/// The most cells the flat tables of one chunk take (512 KiB of `u32` counts): folding them
/// at the chunk's end then costs at most about 250 instructions a game of a 2,048-game
/// chunk, a fraction of what counting straight costs a game long enough to fill them.
const MAX_CELLS: usize = 1 << 17;

/// How a chunk of games counts their rounds into its tally: straight into it, or through
/// flat tables when the scores keep to a small range (see the module's doc). Call
/// [`Recorder::finish`] before reading the tally.
#[derive(Debug, Default)]
pub struct Recorder {
    flat: Option<Flat>,
}

/// The flat counts of a chunk's rounds. Scores are kept as `score - lo`, below `span`.
#[derive(Debug)]
struct Flat {
    lo: i64,
    span: usize,
    nf: usize,
    /// Rows (rounds) the tables have: at most [`BY_ROUND`].
    rows: usize,
    split: bool,
    /// Margins a row: `(nf - 1) * (span - 1) + 1`.
    mspan: usize,
    /// Games by the scores of two consecutive rounds `r`, `r + 1` and whether the faction
    /// led in `r`: `[r][f][before][led][after]`.
    pairs: Vec<u32>,
    /// Games whose last counted round is `r`, by score: `[r][f][score]`.
    last: Vec<u32>,
    /// Games by the leader's margin (see [`Tally::margins`]): `[r][margin]`.
    margins: Vec<u32>,
    /// With the split: games of the pair `r`, `r + 1` by the best score in `r`: `[r][max]`.
    top: Vec<u32>,
    /// ... and those with a sole leader `f`, by the best and second-best score:
    /// `[r][f][max][second]`.
    sole: Vec<u32>,
    /// Each row's best score and margin, for the game being counted.
    best: Vec<Best>,
    /// The most rows a game counted here had.
    seen: usize,
    /// Games counted since the last fold (the counts stay below 2^31).
    games: u32,
}

/// A round's best score (offset from `lo`) and leader's margin, in one game.
#[derive(Debug, Clone, Copy, Default)]
struct Best {
    max: u8,
    margin: u16,
}

impl Recorder {
    /// A recorder for `t`'s games over at most `rounds` rounds, whose ranking scores stay
    /// within `bounds` (inclusive, when known): flat tables when the bounds fit the tables'
    /// budget (at most 64 scores); a game with a score outside them is counted
    /// straight.
    pub fn new(t: &Tally, bounds: Option<(i64, i64)>, rounds: u32) -> Recorder {
        let nf = t.factions.len();
        let rows = (rounds as usize).min(BY_ROUND);
        let usable = (2..=MAX_FACTIONS).contains(&nf) && rows >= 1;
        let flat = bounds.filter(|_| usable).and_then(|(lo, hi)| {
            // Cells a squared span takes: the pairs' and, with the split, the sole leaders'.
            let per = (rows - 1) * nf * 2 + if t.split { rows * nf } else { 0 };
            let budget = (MAX_CELLS / per.max(1)).isqrt().min(MAX_SPAN) as i128;
            // Scores past the tables would be counted straight after a wasted pass, so bounds
            // wider than the budget (an unbounded score, most often) count every game
            // straight (measured: a seed scenario with unbounded scores ran 2.4k
            // instructions a game slower with tables cut to the budget from 0).
            let span = hi as i128 - lo as i128 + 1;
            let span = usize::try_from(span)
                .ok()
                .filter(|&s| s as i128 <= budget)?;
            let sole_cells = if t.split { rows * nf * span * span } else { 0 };
            let mspan = (nf - 1) * (span - 1) + 1;
            Some(Flat {
                lo,
                span,
                nf,
                rows,
                split: t.split,
                mspan,
                pairs: vec![0; (rows - 1) * nf * 2 * span * span],
                last: vec![0; rows * nf * span],
                margins: vec![0; rows * mspan],
                top: vec![0; if t.split { rows * span } else { 0 }],
                sole: vec![0; sole_cells],
                best: vec![Best::default(); rows],
                seen: 0,
                games: 0,
            })
        });
        Recorder { flat }
    }

    /// Counts one game's rounds (as [`add_direct`] does) into `t` or the flat tables.
    #[inline]
    pub fn add(&mut self, t: &mut Tally, scores: &[i64]) {
        // A game that recorded no round (the run shows none) has nothing to count.
        if scores.is_empty() {
            return;
        }
        let Some(flat) = &mut self.flat else {
            return add_direct(t, scores);
        };
        if !flat.add(scores) {
            add_direct(t, scores);
        } else if flat.games >= 1 << 31 {
            flat.fold_into(t);
        }
    }

    /// Folds the flat counts into `t`; after this `t` holds every game added.
    pub fn finish(&mut self, t: &mut Tally) {
        if let Some(flat) = &mut self.flat {
            flat.fold_into(t);
        }
    }
}

impl Flat {
    /// Counts a game in the tables; false (counting nothing) when a score is out of their
    /// range or the game has more rows than they do.
    #[inline]
    fn add(&mut self, scores: &[i64]) -> bool {
        let nf = self.nf;
        let rows = (scores.len() / nf).min(BY_ROUND);
        if rows > self.rows {
            return false;
        }
        if rows == 0 {
            return true;
        }
        let scores = &scores[..rows * nf];
        let (lo, s) = (self.lo, self.span);
        // Scores as offsets from `lo` (one below `lo` wraps to a huge offset). The loop
        // leaves at the first score out of range, which also keeps the compiler from
        // vectorizing it: a row has a handful of scores, too few for vectors to pay.
        let rel = |v: i64| v.wrapping_sub(lo) as u64 as usize;
        for (row, best) in scores.chunks_exact(nf).zip(&mut self.best) {
            let (mut max, mut sum) = (0usize, 0usize);
            for &v in row {
                let x = rel(v);
                if x >= s {
                    return false;
                }
                max = max.max(x);
                sum += x;
            }
            best.max = max as u8;
            best.margin = (nf * max - sum) as u16;
        }
        self.games += 1;
        self.seen = self.seen.max(rows);
        let best = &self.best[..rows];
        let tables = self.margins.chunks_exact_mut(self.mspan);
        for (r, (b, margins)) in best.iter().zip(tables).enumerate() {
            margins[b.margin as usize] += 1;
            if r + 1 == rows {
                break;
            }
            // The pair of rounds r, r + 1; who led in r alone (if one did), and the best of
            // the rest then (the split's counts).
            let (before, after) = (&scores[r * nf..][..nf], &scores[(r + 1) * nf..][..nf]);
            let cells = &mut self.pairs[r * nf * 2 * s * s..][..nf * 2 * s * s];
            let max = b.max as usize;
            let (mut ties, mut who, mut second) = (0, 0, 0);
            for (f, (&b, &a)) in before.iter().zip(after).enumerate() {
                let b = rel(b);
                let led = b == max;
                cells[((f * s + b) * 2 + led as usize) * s + rel(a)] += 1;
                ties += led as usize;
                who = if led { f } else { who };
                second = if led { second } else { second.max(b) };
            }
            if self.split {
                self.top[r * s + max] += 1;
                if ties == 1 {
                    self.sole[((r * nf + who) * s + max) * s + second] += 1;
                }
            }
        }
        let last = &mut self.last[(rows - 1) * nf * s..][..nf * s];
        for (f, &b) in scores[(rows - 1) * nf..].iter().enumerate() {
            last[f * s + rel(b)] += 1;
        }
        true
    }

    /// Adds the counts to `t`'s histograms and sums, and empties the tables.
    fn fold_into(&mut self, t: &mut Tally) {
        if self.games == 0 {
            return;
        }
        let (nf, s, lo) = (self.nf, self.span, self.lo);
        let rows = self.seen;
        if t.by_round.len() < rows {
            t.by_round.resize(rows, vec![Histogram::default(); nf]);
            t.margins.resize(rows, Histogram::default());
        }
        let pair_rows = rows - 1;
        if t.feedback.len() < pair_rows {
            t.feedback.resize(pair_rows, vec![Cell::default(); nf]);
            if t.split {
                t.feedback_own.resize(pair_rows, vec![Own::default(); nf]);
            }
        }
        for r in 0..rows {
            let margins = &self.margins[r * self.mspan..][..self.mspan];
            for (m, &c) in margins.iter().enumerate().filter(|(_, c)| **c > 0) {
                t.margins[r].add_count(m as i64, c as u64, ROUND_BINS);
            }
            for f in 0..nf {
                // A faction's scores in round r: games that ended there and games that went
                // on (their pair's `before`).
                let mut at = [0u64; MAX_SPAN];
                for (n, &c) in at.iter_mut().zip(&self.last[(r * nf + f) * s..][..s]) {
                    *n = c as u64;
                }
                if r < pair_rows {
                    let cells = &self.pairs[(r * nf + f) * s * 2 * s..][..s * 2 * s];
                    for (b, n) in at.iter_mut().take(s).enumerate() {
                        *n += cells[b * 2 * s..][..2 * s]
                            .iter()
                            .map(|&c| c as u64)
                            .sum::<u64>();
                    }
                    self.fold_gains(t, r, f, cells);
                }
                for (b, &n) in at.iter().take(s).enumerate() {
                    if n > 0 {
                        t.by_round[r][f].add_count(lo + b as i64, n, ROUND_BINS);
                    }
                }
            }
        }
        self.games = 0;
        self.seen = 0;
        for table in [
            &mut self.pairs,
            &mut self.last,
            &mut self.margins,
            &mut self.top,
            &mut self.sole,
        ] {
            table.fill(0);
        }
    }

    /// Adds the gains of faction `f` from round `r` to `r + 1` (its `[before][led][after]`
    /// counts, `cells`) to the feedback cell, or with the split to its [`Own`].
    fn fold_gains(&self, t: &mut Tally, r: usize, f: usize, cells: &[u32]) {
        let s = self.span;
        // Gains by (before, led) from the counts: n, Σ g, Σ g².
        let gains = |b: usize, led: usize| {
            let mut g = Gains::default();
            for (a, &c) in cells[(b * 2 + led) * s..][..s].iter().enumerate() {
                let d = a as i128 - b as i128;
                g.n += c as u64;
                g.sum += c as i128 * d;
                g.squares += c as i128 * d * d;
            }
            g
        };
        if !self.split {
            let mut cell = Cell::default();
            for b in 0..s {
                cell.rest.merge(&gains(b, 0));
                cell.lead.merge(&gains(b, 1));
            }
            t.feedback[r][f].merge(&cell);
            return;
        }
        // The split's counts as an `Own` of this chunk, merged as two tallies' are.
        let by_score: Vec<[Gains; 2]> = (0..s).map(|b| [gains(b, 0), gains(b, 1)]).collect();
        let others: Vec<u64> = (0..s)
            .map(|x| {
                let sole = &self.sole[(r * self.nf + f) * s * s..][..s * s];
                let alone_at_max: u64 = sole[x * s..][..s].iter().map(|&c| c as u64).sum();
                let alone_second: u64 = (0..s).map(|m| sole[m * s + x] as u64).sum();
                self.top[r * s + x] as u64 - alone_at_max + alone_second
            })
            .collect();
        let own = trimmed_own(self.lo, by_score, others);
        let (cell, mine) = (&mut t.feedback[r][f], &mut t.feedback_own[r][f]);
        mine.merge(cell, &own, &Cell::default());
    }
}

/// An [`Own`] of bins from score `lo`, cut to the first and last bins that hold a count (as
/// counting the games one by one would have grown them).
fn trimmed_own(lo: i64, gains: Vec<[Gains; 2]>, others: Vec<u64>) -> Own {
    fn cut<T>(lo: i64, mut v: Vec<T>, empty: impl Fn(&T) -> bool) -> (i64, Vec<T>) {
        let Some(first) = v.iter().position(|x| !empty(x)) else {
            return (0, Vec::new());
        };
        let end = v.iter().rposition(|x| !empty(x)).map_or(0, |i| i + 1);
        v.truncate(end);
        v.drain(..first);
        (lo + first as i64, v)
    }
    let (offset, gains) = cut(lo, gains, |g| g[0].n == 0 && g[1].n == 0);
    let (others_offset, others) = cut(lo, others, |&c| c == 0);
    Own {
        offset,
        gains,
        others_offset,
        others,
        wide: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Games of `nf` factions: each a list of rows of scores, mostly within `lo..=hi`.
    fn games() -> impl Strategy<Value = (usize, i64, i64, u32, Vec<Vec<i64>>)> {
        (2usize..=5, -3i64..3, 0i64..6, 1u32..8).prop_flat_map(|(nf, lo, w, rounds)| {
            let hi = lo + w;
            let score = prop_oneof![20 => lo..=hi, 1 => lo - 2..=hi + 2];
            let game = (0..=rounds as usize + 1)
                .prop_flat_map(move |rows| prop::collection::vec(score.clone(), rows * nf));
            (
                Just(nf),
                Just(lo),
                Just(hi),
                Just(rounds),
                prop::collection::vec(game, 0..40),
            )
        })
    }

    proptest! {
        /// The flat tables give the tally that counting each game straight into it gives,
        /// field for field, with and without the split, games out of their range (or longer
        /// than they are) included.
        #[test]
        fn flat_tables_give_the_direct_tally(
            (nf, lo, hi, rounds, games) in games(),
            split in any::<bool>(),
        ) {
            let mut direct = Tally::new(nf, 1, 0, 1);
            direct.split = split;
            let mut flat = direct.clone();
            let mut rec = Recorder::new(&flat, Some((lo, hi)), rounds);
            prop_assert!(rec.flat.is_some());
            for g in &games {
                add_direct(&mut direct, g);
                rec.add(&mut flat, g);
            }
            rec.finish(&mut flat);
            prop_assert_eq!(&flat, &direct);
            // A recorder is reused after it folds.
            for g in &games {
                add_direct(&mut direct, g);
                rec.add(&mut flat, g);
            }
            rec.finish(&mut flat);
            prop_assert_eq!(flat, direct);
        }
    }

    /// One faction, no bounds or bounds wider than the tables' budget: every game is counted
    /// straight.
    #[test]
    fn tables_are_sized_to_their_budget() {
        let t = Tally::new(4, 1, 0, 1);
        let span = |r: Recorder| r.flat.map(|f| f.span);
        assert_eq!(span(Recorder::new(&t, None, 10)), None);
        let one = Tally::new(1, 1, 0, 1);
        assert_eq!(span(Recorder::new(&one, Some((0, 5)), 10)), None);
        assert_eq!(span(Recorder::new(&t, Some((0, 10)), 12)), Some(11));
        assert_eq!(span(Recorder::new(&t, Some((0, 0)), 10)), Some(1));
        // 9 pairs of rounds, 4 factions, 2 sides: 72 cells a squared span; 2^17 / 72 = 1820.
        assert_eq!(span(Recorder::new(&t, Some((0, 41)), 10)), Some(42));
        assert_eq!(span(Recorder::new(&t, Some((0, 42)), 10)), None);
        assert_eq!(span(Recorder::new(&t, Some((0, i64::MAX)), 10)), None);
        assert_eq!(
            span(Recorder::new(&t, Some((i64::MIN, i64::MAX)), 10)),
            None
        );
        // 99 pairs: 792 cells a squared span, 165 in all: 12 scores.
        assert_eq!(span(Recorder::new(&t, Some((0, 11)), 100_000)), Some(12));
        assert_eq!(span(Recorder::new(&t, Some((0, 12)), 100_000)), None);
    }
}
