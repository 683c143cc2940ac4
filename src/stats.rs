//! Mergeable tallies of game outcomes, and the estimates computed from them.
//!
//! Owns the statistics: a [`Tally`] holds only integers (counts, exact `i128` sums, integer
//! histograms), so tallies merge exactly in any order and a run's results are bit-identical
//! for any thread count or chunking. Floating point appears only when estimates are computed
//! from the final tally. Memory is independent of the number of games.

use serde::{Deserialize, Serialize};

use crate::runtime::{Decider, Outcome, Result as GameResult};

mod estimates;
pub mod feedback;
mod histogram;
pub mod margin;
pub mod metrics;
mod relations;
pub mod rounds;
pub mod seats;
pub mod usage;

pub use estimates::{Diff, Rate, Spread, Val, fmt_p, signed_tenths, thousands, z_for};
pub use histogram::{Exact, Histogram};

/// The most bins a histogram keeps. A wider range of values is kept in coarser bins.
pub const MAX_BINS: i128 = 1 << 16;

/// The most bins a by-round histogram keeps (there is one per faction and round).
pub const ROUND_BINS: i128 = 1 << 10;

/// Rounds the by-round score tally covers: the first 100. With [`ROUND_BINS`], its memory is
/// at most 100 x 16 x 8 KiB whatever the scores.
pub const BY_ROUND: usize = 100;

/// Per-faction counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactionTally {
    /// Sole wins.
    pub wins: u64,
    /// Shared first places.
    pub shared_wins: u64,
    /// Games ending in a draw.
    pub draws: u64,
    /// Games at each rank (index 0 = rank 1).
    pub ranks: Vec<u64>,
    /// Final scores.
    pub scores: Histogram,
}

/// Everything counted over a set of games.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tally {
    /// Games counted.
    pub games: u64,
    /// Per faction.
    pub factions: Vec<FactionTally>,
    /// Game lengths in rounds.
    pub lengths: Histogram,
    /// Games per end reason.
    pub reasons: Vec<u64>,
    /// Games with a winner, by what decided it: 0 = score, 1 + k = tie-break link k,
    /// then shared, then a win/lose rule.
    pub decided: Vec<u64>,
    /// Games that were draws.
    pub draws: u64,
    /// Games nobody won (every faction lost).
    pub nobody: u64,
    /// Points by source, summed over games: `faction * sources + source`.
    pub points: Vec<i128>,
    /// Games with a sole leader after round `r + 1`.
    #[serde(default)]
    pub leader_games: Vec<u64>,
    /// ... of which that leader went on to win alone.
    #[serde(default)]
    pub leader_won: Vec<u64>,
    /// Games whose first place was shared.
    pub shared: u64,
    /// Each faction's ranking score after round `r + 1` (for the first [`BY_ROUND`] rounds)
    /// over the games that played that round: `by_round[r][f]`.
    #[serde(default)]
    pub by_round: Vec<Vec<Histogram>>,
    /// The leader's margin over the rest after round `r + 1`, times `nfactions - 1` so that
    /// it is a whole number: `nfactions * max - sum` of the scores.
    #[serde(default)]
    pub margins: Vec<Histogram>,
    /// Each faction's score gain in round `r + 2`, split by whether it led after round
    /// `r + 1`: `feedback[r][f]` (the feedback test's counts).
    #[serde(default)]
    pub feedback: Vec<Vec<feedback::Cell>>,
    /// The same gains by the faction's own score, and the games by the best other score:
    /// `feedback_own[r][f]` (the split of the feedback test into interaction and own rhythm).
    #[serde(default)]
    pub feedback_own: Vec<Vec<feedback::Own>>,
    /// Whether `feedback_own` is kept: only when a report shows the split (the terminal
    /// table does not), since it costs each game a count per faction and round.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub split: bool,
    /// Decisions by action and cards held at the end, when the run counted them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<usage::Usage>,
    /// Games and wins by faction and seat, when the seats rotated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seats: Option<seats::SeatTally>,
    /// The scenario's custom metrics, when it has some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metrics: Option<metrics::MetricTally>,
}

impl Tally {
    /// An empty tally for `nf` factions, `nr` end reasons, `nl` tie-break links and `ns`
    /// point sources.
    pub fn new(nf: usize, nr: usize, nl: usize, ns: usize) -> Tally {
        Tally {
            games: 0,
            factions: vec![
                FactionTally {
                    ranks: vec![0; nf],
                    ..FactionTally::default()
                };
                nf
            ],
            lengths: Histogram::default(),
            reasons: vec![0; nr],
            decided: vec![0; nl + 3],
            draws: 0,
            nobody: 0,
            points: vec![0; nf * ns],
            leader_games: Vec::new(),
            leader_won: Vec::new(),
            shared: 0,
            by_round: Vec::new(),
            margins: Vec::new(),
            feedback: Vec::new(),
            feedback_own: Vec::new(),
            split: false,
            usage: None,
            seats: None,
            metrics: None,
        }
    }

    /// Counts one game, the points it credited to each source and its rounds (each
    /// faction's ranking score after each round, `scores`).
    #[inline]
    pub fn add(&mut self, o: &Outcome, points: &[i128], leaders: &[u8], scores: &[i64]) {
        self.add_game(o, points, leaders);
        rounds::add_direct(self, scores);
    }

    /// Counts one game and the points it credited to each source, but not its scores by
    /// round (which a [`rounds::Recorder`] counts).
    #[inline]
    pub fn add_game(&mut self, o: &Outcome, points: &[i128], leaders: &[u8]) {
        self.games += 1;
        if self.leader_games.len() < leaders.len() {
            self.leader_games.resize(leaders.len(), 0);
            self.leader_won.resize(leaders.len(), 0);
        }
        for (r, &l) in leaders.iter().enumerate() {
            if l != crate::runtime::NO_LEADER {
                self.leader_games[r] += 1;
                self.leader_won[r] += (o.result == GameResult::Win(l)) as u64;
            }
        }
        for (a, &p) in self.points.iter_mut().zip(points) {
            *a += p;
        }
        self.lengths.add(o.rounds as i64);
        self.reasons[o.reason.index()] += 1;
        let nl = self.decided.len() - 3;
        for (f, ft) in self.factions.iter_mut().enumerate() {
            ft.ranks[o.ranks[f] as usize - 1] += 1;
            ft.scores.add(o.scores[f]);
        }
        match o.result {
            GameResult::Win(f) => self.factions[f as usize].wins += 1,
            GameResult::Shared(mask) => {
                self.shared += 1;
                for (f, ft) in self.factions.iter_mut().enumerate() {
                    if mask & (1 << f) != 0 {
                        ft.shared_wins += 1;
                    }
                }
            }
            GameResult::Draw => {
                self.draws += 1;
                for ft in &mut self.factions {
                    ft.draws += 1;
                }
            }
            GameResult::Nobody => self.nobody += 1,
        }
        if matches!(o.result, GameResult::Win(_) | GameResult::Shared(_)) {
            let i = match o.decided_by {
                Decider::Score => 0,
                Decider::Link(k) => 1 + k as usize,
                Decider::Shared => nl + 1,
                Decider::Rule => nl + 2,
            };
            self.decided[i] += 1;
        }
    }

    /// Adds another tally (exact; order does not matter).
    pub fn merge(mut self, o: Tally) -> Tally {
        if o.games == 0 {
            return self;
        }
        if self.games == 0 {
            return o;
        }
        self.games += o.games;
        self.draws += o.draws;
        self.nobody += o.nobody;
        if self.leader_games.len() < o.leader_games.len() {
            self.leader_games.resize(o.leader_games.len(), 0);
            self.leader_won.resize(o.leader_won.len(), 0);
        }
        for (a, b) in self.leader_games.iter_mut().zip(&o.leader_games) {
            *a += b;
        }
        for (a, b) in self.leader_won.iter_mut().zip(&o.leader_won) {
            *a += b;
        }
        for (a, b) in self.points.iter_mut().zip(&o.points) {
            *a += b;
        }
        self.shared += o.shared;
        if self.by_round.len() < o.by_round.len() {
            let nf = self.factions.len();
            self.by_round
                .resize(o.by_round.len(), vec![Histogram::default(); nf]);
            self.margins.resize(o.margins.len(), Histogram::default());
        }
        for (a, b) in self.by_round.iter_mut().zip(&o.by_round) {
            for (x, y) in a.iter_mut().zip(b) {
                x.merge_within(y, ROUND_BINS);
            }
        }
        for (a, b) in self.margins.iter_mut().zip(&o.margins) {
            a.merge_within(b, ROUND_BINS);
        }
        if self.feedback.len() < o.feedback.len() {
            let nf = self.factions.len();
            self.feedback
                .resize(o.feedback.len(), vec![feedback::Cell::default(); nf]);
        }
        // The split's counts merge when both parts kept them; otherwise they fold into the
        // cells and the whole keeps none.
        let nf = self.factions.len();
        self.feedback_own
            .resize(self.feedback.len(), vec![feedback::Own::default(); nf]);
        let none = feedback::Own::default();
        for (r, (ca, oa)) in (self.feedback.iter_mut().zip(&mut self.feedback_own)).enumerate() {
            for (f, (x, xo)) in ca.iter_mut().zip(oa.iter_mut()).enumerate() {
                let Some(y) = o.feedback.get(r).and_then(|row| row.get(f)) else {
                    continue;
                };
                let yo = (o.feedback_own.get(r).and_then(|row| row.get(f))).unwrap_or(&none);
                xo.merge(x, yo, y);
            }
        }
        self.split &= o.split;
        if !self.split {
            for (ca, oa) in self.feedback.iter_mut().zip(&mut self.feedback_own) {
                for (x, xo) in ca.iter_mut().zip(oa.iter_mut()) {
                    xo.fold_into(x);
                }
            }
            self.feedback_own.clear();
        }
        self.lengths.merge(&o.lengths);
        for (a, b) in self.reasons.iter_mut().zip(&o.reasons) {
            *a += b;
        }
        for (a, b) in self.decided.iter_mut().zip(&o.decided) {
            *a += b;
        }
        for (a, b) in self.factions.iter_mut().zip(&o.factions) {
            a.wins += b.wins;
            a.shared_wins += b.shared_wins;
            a.draws += b.draws;
            for (x, y) in a.ranks.iter_mut().zip(&b.ranks) {
                *x += y;
            }
            a.scores.merge(&b.scores);
        }
        // Usage merges only with usage of the same shape: a part without it leaves the
        // whole without it.
        self.usage = match (self.usage, o.usage) {
            (Some(mut a), Some(b)) => a.merge(&b).then_some(a),
            _ => None,
        };
        // So do seat counts: a part played without rotation leaves the whole without them.
        self.seats = match (self.seats, o.seats) {
            (Some(mut a), Some(b)) if a.seats == b.seats => {
                a.merge(&b);
                Some(a)
            }
            _ => None,
        };
        self.metrics = match (self.metrics, o.metrics) {
            (Some(mut a), Some(b)) => a.merge(&b).then_some(a),
            _ => None,
        };
        self
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    proptest! {
        /// Quartiles of coarse bins stay within the values counted: a bin's lowest value may
        /// lie below the smallest (q1 printed below min for scores spread over 10^12).
        #[test]
        fn quantiles_stay_within_min_and_max(
            values in prop::collection::vec(-1_000_000_000_000i64..1_000_000_000_000, 1..60),
            bins in 2i128..8,
        ) {
            let mut h = super::Histogram::default();
            for &v in &values {
                h.add_within(v, bins);
            }
            let (lo, hi) = (*values.iter().min().unwrap(), *values.iter().max().unwrap());
            prop_assert_eq!((h.min(), h.max()), (Some(lo), Some(hi)));
            for p in [0.0, 0.25, 0.5, 0.75, 1.0] {
                let q = h.quantile(p).unwrap();
                prop_assert!(lo <= q && q <= hi, "p {}: {} not in [{}, {}]", p, q, lo, hi);
            }
        }
    }

    proptest! {
        /// The by-round tally counts each score and the leader's margin `n * max - sum`
        /// exactly as `i128` arithmetic gives it (clamped to `i64`), scores near the `i64`
        /// limits included.
        #[test]
        fn round_margins_are_exact_at_any_scores(
            scores in prop::collection::vec(prop_oneof![
                any::<i64>(),
                -50i64..50,
                Just(i64::MAX),
                Just(i64::MIN),
            ], 3..=12),
        ) {
            use crate::runtime::{Decider, Outcome, Result as GameResult};
            let nf = 3;
            let o = Outcome {
                reason: crate::ids::ReasonId(0),
                rounds: (scores.len() / nf) as u32,
                scores: [0; crate::state::MAX_FACTIONS],
                ranks: [1; crate::state::MAX_FACTIONS],
                result: GameResult::Draw,
                decided_by: Decider::Score,
            };
            let mut t = super::Tally::new(nf, 1, 0, 1);
            t.add(&o, &[0; 3], &[], &scores);
            for (r, row) in scores.chunks_exact(nf).enumerate() {
                let max = row.iter().map(|&v| v as i128).max().unwrap();
                let sum: i128 = row.iter().map(|&v| v as i128).sum();
                let m = (3 * max - sum).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
                prop_assert_eq!(t.margins[r].min(), Some(m));
                prop_assert_eq!(t.margins[r].total(), 1);
                for (f, &v) in row.iter().enumerate() {
                    prop_assert_eq!(t.by_round[r][f].min(), Some(v));
                }
            }
        }

        /// Past its bin limit a histogram stays bounded and keeps the count, sum, min and max
        /// exact, whatever the values and however the counts are split and merged.
        #[test]
        fn coarse_histograms_stay_bounded_and_exact_where_promised(
            vals in prop::collection::vec(prop_oneof![
                any::<i64>(),
                -1000i64..1000,
                Just(i64::MAX),
                Just(i64::MIN),
            ], 1..200),
            split in 0usize..200,
        ) {
            let mut whole = super::Histogram::default();
            let (mut a, mut b) = (super::Histogram::default(), super::Histogram::default());
            for (i, &v) in vals.iter().enumerate() {
                whole.add(v);
                if i < split { a.add(v) } else { b.add(v) }
            }
            a.merge(&b);
            for h in [&whole, &a, &b] {
                // What `vpsim merge` accepts from a file: every histogram built here.
                prop_assert!(h.well_formed(super::MAX_BINS as usize));
            }
            for h in [&whole, &a] {
                prop_assert!(h.counts.len() as i128 <= super::MAX_BINS);
                prop_assert_eq!(h.total(), vals.len() as u64);
                prop_assert_eq!(h.min(), vals.iter().copied().min());
                prop_assert_eq!(h.max(), vals.iter().copied().max());
                prop_assert_eq!(h.moments().0, vals.iter().map(|&v| v as i128).sum::<i128>());
                let s = super::Spread::of(h).unwrap();
                prop_assert!(s.sd.is_finite() && s.sd >= 0.0);
            }
        }
    }

    use super::*;

    #[test]
    fn histogram_quantiles_and_growth() {
        let mut h = Histogram::default();
        for v in [5, 1, 3, 3, 9, -2] {
            h.add(v);
        }
        assert_eq!(h.min(), Some(-2));
        assert_eq!(h.max(), Some(9));
        assert_eq!(h.quantile(0.5), Some(3));
        assert_eq!(h.quantile(0.25), Some(1));
        assert_eq!(h.quantile(0.75), Some(5));
        let s = Spread::of(&h).unwrap();
        assert!((s.mean - 19.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn merging_is_exact_and_order_free() {
        let mut a = Histogram::default();
        let mut b = Histogram::default();
        for v in 0..50 {
            a.add(v % 7 - 3);
            b.add(v % 11 + 4);
        }
        let mut ab = a.clone();
        ab.merge(&b);
        let mut ba = b.clone();
        ba.merge(&a);
        assert_eq!(ab, ba);
        assert_eq!(ab.total(), 100);
    }
}
