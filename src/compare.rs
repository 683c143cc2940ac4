//! Paired comparison of two variants that play the same games (common random numbers).
//!
//! Owns the paired tally and the statistics on it. Game `i` of variant A and game `i` of
//! variant B draw from the same random stream, so most of the noise cancels and a file
//! compared with itself differs by exactly zero. Per faction: the win-rate difference with a
//! paired 95% interval and an exact McNemar p-value, Holm-adjusted across factions; the shift
//! in mean score with a paired interval and p-value (also Holm-adjusted); and a verdict.

use serde::{Deserialize, Serialize};
use statrs::distribution::{Binomial, ContinuousCDF, DiscreteCDF, Normal};

use crate::engine::Game;
use crate::error::Result;
use crate::model::Model;
use crate::runner::recorder;
use crate::runtime::{Outcome, Result as GameResult};
use crate::stats::{rounds::Recorder, z_for};

mod comparison;
mod seats;
pub use comparison::{Comparison, Plan, Played, Sequential, Variant, play};
pub use seats::{SeatDiff, seat_diffs};

/// Paired counts for one faction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairFaction {
    /// Sole wins in A.
    pub wins_a: u64,
    /// Sole wins in B.
    pub wins_b: u64,
    /// Games won in A and not in B.
    pub only_a: u64,
    /// Games won in B and not in A.
    pub only_b: u64,
    /// Sum of score differences (B - A).
    pub sum_d: i128,
    /// Sum of squared score differences.
    pub sum_d2: i128,
    /// Sum of A's scores.
    pub sum_a: i128,
}

/// Paired counts over a set of games (integers: merge exactly).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairTally {
    /// Games.
    pub games: u64,
    /// Per faction.
    pub factions: Vec<PairFaction>,
    /// Variant A's own tally (for its report).
    pub a: crate::stats::Tally,
    /// Variant B's own tally.
    pub b: crate::stats::Tally,
    /// Games by end reason in A and in B: `ends[ra * reasons_b + rb]` (empty for
    /// [`PairTally::new`]). A's and B's reasons may differ when the variants are two files.
    #[serde(default)]
    pub ends: Vec<u64>,
    /// B's number of end reasons: the row length of `ends`.
    #[serde(default)]
    pub reasons_b: usize,
    /// Paired game lengths: the sum of A's rounds, of B − A and of (B − A)².
    #[serde(default)]
    pub rounds: PairSum,
    /// Games whose result differs between A and B (another sole winner, or a win against a
    /// shared win, a draw or nobody): changes that cancel in the win rates still count here.
    #[serde(default)]
    pub changed: u64,
    /// With rotated seats, paired counts by seat (the faction that sat there won alone):
    /// game `i` seats the factions alike in A and B, so a seat's wins pair as a faction's.
    /// Empty without rotation. Only the win counts are kept.
    #[serde(default)]
    pub seats: Vec<PairFaction>,
}

/// Sums over paired values: exact integers, so tallies merge exactly.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairSum {
    /// Sum of A's values.
    pub sum_a: i128,
    /// Sum of the differences B − A.
    pub sum_d: i128,
    /// Sum of the squared differences.
    pub sum_d2: i128,
}

impl PairSum {
    fn add(&mut self, a: i128, b: i128) {
        let d = b - a;
        self.sum_a += a;
        self.sum_d += d;
        self.sum_d2 += d * d;
    }

    fn merge(&mut self, o: &PairSum) {
        self.sum_a += o.sum_a;
        self.sum_d += o.sum_d;
        self.sum_d2 += o.sum_d2;
    }

    /// The mean difference B − A over `n` pairs with its interval at normal quantile `z`, and
    /// its two-sided p-value (normal approximation; 1 when every difference is 0).
    pub fn shift(&self, n: u64, z: f64) -> (Est, f64) {
        let n = n.max(1) as f64;
        let mean = self.sum_d as f64 / n;
        let var = ((self.sum_d2 as f64 / n) - mean * mean).max(0.0) * n / (n - 1.0).max(1.0);
        let se = (var / n).sqrt();
        let p = if se == 0.0 {
            if mean == 0.0 { 1.0 } else { 0.0 }
        } else {
            2.0 * (1.0 - Normal::standard().cdf((mean / se).abs()))
        };
        let est = Est {
            estimate: mean,
            low: mean - z * se,
            high: mean + z * se,
        };
        (est, p)
    }
}

impl PairFaction {
    /// Counts one pair of games: whether it won alone in A (`wa`) and in B (`wb`).
    #[inline]
    fn count(&mut self, wa: bool, wb: bool) {
        self.wins_a += wa as u64;
        self.wins_b += wb as u64;
        self.only_a += (wa && !wb) as u64;
        self.only_b += (wb && !wa) as u64;
    }

    /// Adds another's counts (exact; order does not matter).
    fn merge(&mut self, o: &PairFaction) {
        self.wins_a += o.wins_a;
        self.wins_b += o.wins_b;
        self.only_a += o.only_a;
        self.only_b += o.only_b;
        self.sum_d += o.sum_d;
        self.sum_d2 += o.sum_d2;
        self.sum_a += o.sum_a;
    }
}

impl PairTally {
    /// An empty tally for `nf` factions (no per-variant tallies: see [`PairTally::for_models`]).
    pub fn new(nf: usize) -> PairTally {
        PairTally {
            games: 0,
            factions: vec![PairFaction::default(); nf],
            a: Default::default(),
            b: Default::default(),
            ends: Vec::new(),
            reasons_b: 0,
            rounds: PairSum::default(),
            changed: 0,
            seats: Vec::new(),
        }
    }

    /// An empty tally shaped for two models.
    pub fn for_models(a: &Model, b: &Model) -> PairTally {
        PairTally {
            a: crate::runner::empty_tally(a),
            b: crate::runner::empty_tally(b),
            ends: vec![0; a.reasons.len() * b.reasons.len()],
            reasons_b: b.reasons.len(),
            seats: match a.tables.rotate_seats && !(a.seats_unmoved && b.seats_unmoved) {
                true => vec![PairFaction::default(); a.nfactions()],
                false => Vec::new(),
            },
            ..PairTally::new(a.nfactions())
        }
    }

    /// Counts one pair of games, and each game in its variant's tally (its rounds through
    /// that variant's recorder, `rounds`).
    pub fn add(&mut self, (a, b): (&Outcome, &Outcome), g: [&Game; 2], rounds: &mut [Recorder; 2]) {
        let [ga, gb] = g;
        self.games += 1;
        if !self.a.factions.is_empty() {
            self.a.add_game(a, ga.points(), ga.leaders());
            rounds[0].add(&mut self.a, ga.round_scores());
            self.b.add_game(b, gb.points(), gb.leaders());
            rounds[1].add(&mut self.b, gb.round_scores());
            if let Some(s) = &mut self.a.seats {
                s.add(a, ga.seating());
            }
            if let Some(s) = &mut self.b.seats {
                s.add(b, gb.seating());
            }
        }
        if !self.seats.is_empty() {
            let seat_of = |o: &Outcome, g: &Game| match o.result {
                GameResult::Win(f) => Some(g.seating().of[f as usize] as usize),
                _ => None,
            };
            let (sa, sb) = (seat_of(a, ga), seat_of(b, gb));
            for (s, ps) in self.seats.iter_mut().enumerate() {
                ps.count(sa == Some(s), sb == Some(s));
            }
        }
        if !self.ends.is_empty() {
            self.ends[a.reason.index() * self.reasons_b + b.reason.index()] += 1;
        }
        self.rounds.add(a.rounds as i128, b.rounds as i128);
        self.changed += (a.result != b.result) as u64;
        for (f, pf) in self.factions.iter_mut().enumerate() {
            pf.count(
                a.result == GameResult::Win(f as u8),
                b.result == GameResult::Win(f as u8),
            );
            let d = (b.scores[f] - a.scores[f]) as i128;
            pf.sum_d += d;
            pf.sum_d2 += d * d;
            pf.sum_a += a.scores[f] as i128;
        }
    }

    /// Adds another tally.
    pub fn merge(mut self, o: PairTally) -> PairTally {
        if o.games == 0 {
            return self;
        }
        if self.games == 0 {
            return o;
        }
        self.games += o.games;
        self.a = std::mem::take(&mut self.a).merge(o.a);
        self.b = std::mem::take(&mut self.b).merge(o.b);
        for (x, y) in self.ends.iter_mut().zip(&o.ends) {
            *x += y;
        }
        self.rounds.merge(&o.rounds);
        self.changed += o.changed;
        for (x, y) in self.seats.iter_mut().zip(&o.seats) {
            x.merge(y);
        }
        for (x, y) in self.factions.iter_mut().zip(&o.factions) {
            x.merge(y);
        }
        self
    }
}

/// Plays games `first..first + games` of both models on the same streams, in parallel.
pub fn run_pair(
    a: &Model,
    b: &Model,
    seed: u64,
    first: u64,
    games: u64,
    threads: Option<usize>,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<PairTally> {
    let pool = crate::runner::pool(threads)?;
    let chunk = crate::runner::chunk_games(a).min(crate::runner::chunk_games(b));
    // A stop is an error without a game (`None`); a fault names its game and variant.
    type Failed = Option<(u64, crate::expr::Fault, bool)>;
    let merged: std::result::Result<PairTally, Failed> = crate::runner::par_chunks(
        &pool,
        games.div_ceil(chunk),
        || (Game::new(a), Game::new(b)),
        |(ga, gb), c| -> std::result::Result<PairTally, Failed> {
            if crate::signal::stopped() {
                return Err(None);
            }
            let lo = first + c * chunk;
            let hi = (lo + chunk).min(first + games);
            let mut t = PairTally::for_models(a, b);
            let mut rounds = [recorder(a, &t.a), recorder(b, &t.b)];
            for i in lo..hi {
                let oa = ga.play(seed, i).map_err(|f| Some((i, f, true)))?;
                let ob = gb.play(seed, i).map_err(|f| Some((i, f, false)))?;
                t.add((&oa, &ob), [ga, gb], &mut rounds);
            }
            rounds[0].finish(&mut t.a);
            rounds[1].finish(&mut t.b);
            progress(hi - lo);
            Ok(t)
        },
        (|| PairTally::for_models(a, b), PairTally::merge),
        |e1, e2| match (e1, e2) {
            (Some(x), Some(y)) => Some(if x.0 <= y.0 { x } else { y }),
            (x @ Some(_), None) | (None, x) => x,
        },
        || None,
    );
    match merged {
        Ok(t) => Ok(t),
        Err(None) => Err(crate::Error::Interrupted),
        Err(Some((i, f, in_a))) => Err(crate::runner::fault_error(
            if in_a { a } else { b },
            seed,
            i,
            f,
        )),
    }
}

/// An estimate with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Est {
    /// Estimate.
    pub estimate: f64,
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

impl Est {
    /// The estimate as a difference with its interval, for judging at a margin.
    pub fn diff(&self) -> crate::stats::Diff {
        crate::stats::Diff {
            est: self.estimate,
            low: self.low,
            high: self.high,
        }
    }
}

/// One faction's comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactionDiff {
    /// Faction.
    pub name: String,
    /// Win rate in A.
    pub win_a: f64,
    /// Win rate in B.
    pub win_b: f64,
    /// Win rate B - A with a paired 95% interval.
    pub win_diff: Est,
    /// Exact McNemar two-sided p-value.
    pub p: f64,
    /// Holm-adjusted across factions.
    pub p_holm: f64,
    /// Mean score in A.
    pub score_a: f64,
    /// Mean score shift B - A with a paired 95% interval.
    pub score_shift: Est,
    /// Two-sided p-value of the score shift (normal approximation).
    pub score_p: f64,
    /// Holm-adjusted across factions.
    pub score_p_holm: f64,
    /// `different`, `no difference beyond ±D points` (D the equivalence margin `--delta`),
    /// or `undecided`.
    pub verdict: String,
    /// The variance of the win-rate difference of two independent runs of as many games
    /// over the paired variance measured here: how many times fewer games the pairing needs
    /// (`None`: this faction's wins never differ between A and B, nothing to remove).
    pub variance_reduction: Option<f64>,
}

/// McNemar's exact test: under no difference the games won by exactly one variant split
/// like a fair coin.
pub fn mcnemar(only_a: u64, only_b: u64) -> f64 {
    let m = only_a + only_b;
    if m == 0 {
        return 1.0;
    }
    let Ok(bin) = Binomial::new(0.5, m) else {
        return 1.0;
    };
    let k = only_a.min(only_b);
    (2.0 * bin.cdf(k)).min(1.0)
}

/// The paired difference B − A of a rate over `n` games, from the games where only A
/// (`only_a`) or only B (`only_b`) had the event, with its interval at normal quantile `z`.
pub fn rate_shift(only_a: u64, only_b: u64, n: u64, z: f64) -> Est {
    let n = n.max(1) as f64;
    let d = (only_b as f64 - only_a as f64) / n;
    let e2 = (only_a + only_b) as f64 / n;
    let se = ((e2 - d * d).max(0.0) / n).sqrt();
    Est {
        estimate: d,
        low: d - z * se,
        high: d + z * se,
    }
}

/// Holm's step-down adjustment of p-values (same order as given).
pub fn holm(p: &[f64]) -> Vec<f64> {
    let k = p.len();
    let mut idx: Vec<usize> = (0..k).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![0.0; k];
    let mut running: f64 = 0.0;
    for (rank, &i) in idx.iter().enumerate() {
        running = running.max(((k - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// The per-faction comparison at significance `alpha`, with `delta` the smallest win-rate
/// difference that matters.
pub fn diffs(names: &[String], t: &PairTally, alpha: f64, delta: f64) -> Vec<FactionDiff> {
    let n = t.games.max(1) as f64;
    let z = z_for(1.0 - alpha);
    let ps: Vec<f64> = t
        .factions
        .iter()
        .map(|f| mcnemar(f.only_a, f.only_b))
        .collect();
    let holm_p = holm(&ps);
    let shifts: Vec<(Est, f64)> = t
        .factions
        .iter()
        .map(|f| {
            let sums = PairSum {
                sum_a: f.sum_a,
                sum_d: f.sum_d,
                sum_d2: f.sum_d2,
            };
            sums.shift(t.games, z)
        })
        .collect();
    let score_ps: Vec<f64> = shifts.iter().map(|s| s.1).collect();
    let score_holm = holm(&score_ps);
    t.factions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let win_diff = rate_shift(f.only_a, f.only_b, t.games, z);
            let verdict = if holm_p[i] < alpha {
                "different".to_string()
            } else if win_diff.low > -delta && win_diff.high < delta {
                format!("no difference beyond ±{} pp", points(delta))
            } else {
                "undecided".to_string()
            };
            let (pa, pb) = (f.wins_a as f64 / n, f.wins_b as f64 / n);
            FactionDiff {
                name: names[i].clone(),
                win_a: pa,
                win_b: pb,
                win_diff,
                p: ps[i],
                p_holm: holm_p[i],
                score_a: f.sum_a as f64 / n,
                score_shift: shifts[i].0,
                score_p: score_ps[i],
                score_p_holm: score_holm[i],
                verdict,
                variance_reduction: variance_reduction(pa, pb, f.only_a, f.only_b, t.games),
            }
        })
        .collect()
}

/// The confidence level of intervals at significance `alpha`: `95%`, or `98.8%` when a
/// sequential comparison split alpha over several looks.
pub fn level(alpha: f64) -> String {
    let l = 100.0 * (1.0 - alpha);
    if (l - l.round()).abs() < 1e-9 {
        format!("{l:.0}%")
    } else {
        format!("{l:.1}%")
    }
}

/// A fraction as points of win rate, as short as it is exact to 0.01 (`1`, `0.5`, `2.25`).
fn points(x: f64) -> String {
    let s = format!("{:.2}", 100.0 * x);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The variance reduction of one faction's paired win-rate difference over `n` games:
/// the unpaired variance `pa(1 - pa) + pb(1 - pb)` (two independent runs' sole-win rates)
/// over the paired one, `(only_a + only_b)/n - d²`; `None` when the paired variance is 0.
pub fn variance_reduction(pa: f64, pb: f64, only_a: u64, only_b: u64, n: u64) -> Option<f64> {
    let n = n.max(1) as f64;
    let d = (only_b as f64 - only_a as f64) / n;
    let paired = (only_a + only_b) as f64 / n - d * d;
    let unpaired = pa * (1.0 - pa) + pb * (1.0 - pb);
    (paired > 0.0).then(|| unpaired / paired)
}

/// The mean variance reduction over the factions whose wins differ between A and B, and the
/// independent games a variant that would be as precise as `games` paired ones (`None`:
/// no faction's wins differ).
pub fn pairing_worth(d: &[FactionDiff], games: u64) -> Option<(f64, u64)> {
    let r: Vec<f64> = d.iter().filter_map(|f| f.variance_reduction).collect();
    if r.is_empty() {
        return None;
    }
    let mean = r.iter().sum::<f64>() / r.len() as f64;
    Some((mean, two_figures(games as f64 * mean)))
}

/// The variance reductions of every faction of the paired tallies `pairs` (each faction's
/// paired win-rate difference against two independent runs'), averaged over the factions
/// of every tally whose wins differ; `None` when no faction's do. What `sensitivity`
/// reports of its steps.
pub fn mean_reduction<'t>(pairs: impl IntoIterator<Item = &'t PairTally>) -> Option<f64> {
    let r: Vec<f64> = pairs
        .into_iter()
        .flat_map(|t| {
            let n = t.games.max(1) as f64;
            (t.factions.iter()).filter_map(move |f| {
                let (pa, pb) = (f.wins_a as f64 / n, f.wins_b as f64 / n);
                variance_reduction(pa, pb, f.only_a, f.only_b, t.games)
            })
        })
        .collect();
    (!r.is_empty()).then(|| r.iter().sum::<f64>() / r.len() as f64)
}

/// `x` rounded to two significant figures (an equivalent count is no more precise).
pub fn two_figures(x: f64) -> u64 {
    if x.is_nan() || x < 1.0 || !x.is_finite() {
        return x.max(0.0).round() as u64;
    }
    let unit = 10f64.powi(x.log10().floor() as i32 - 1).max(1.0);
    ((x / unit).round() * unit) as u64
}

/// The share of games whose winner two independent games of A and of B would give
/// differently, from the sole-win rates: one minus the chance both have the same sole
/// winner or both have none (counting every result without a sole winner as one: a floor
/// for the share).
pub fn independent_changed(d: &[FactionDiff]) -> f64 {
    let same: f64 = d.iter().map(|f| f.win_a * f.win_b).sum();
    let none_a = 1.0 - d.iter().map(|f| f.win_a).sum::<f64>();
    let none_b = 1.0 - d.iter().map(|f| f.win_b).sum::<f64>();
    (1.0 - same - none_a.max(0.0) * none_b.max(0.0)).clamp(0.0, 1.0)
}

/// The clause a verdict adds about the games whose winner changed (`changed`, a rate over
/// the paired games), read against the share two independent games would give: only a
/// share below that beyond noise says the games stayed paired, so only then may a change
/// be read game by game (when no win rate moved, the moves between factions cancel);
/// otherwise the variants' games diverged and no reading per game is possible.
pub fn changed_clause(d: &[FactionDiff], changed: &crate::stats::Rate, alpha: f64) -> String {
    let share = format!(
        "{:.2}% [{:.2}, {:.2}]",
        100.0 * changed.rate,
        100.0 * changed.low,
        100.0 * changed.high
    );
    if changed.count == 0 {
        return " The winner is the same in every game.".into();
    }
    let apart = independent_changed(d);
    let baseline = format!("{:.1}%", 100.0 * apart);
    if changed.high >= apart {
        let how = if changed.low > apart {
            "more often than"
        } else {
            "about as often as"
        };
        return format!(
            " The winner changed in {share} of the games, {how} two independent games would give different winners ({baseline}): the variants' games diverged, so no reading game by game is possible."
        );
    }
    let moved = d.iter().any(|f| f.p_holm < alpha);
    if !moved && changed.low > 0.0 {
        format!(
            " Yet the winner changed in {share} of the games (the same games in both; {baseline} between independent games): B moves wins between factions in both directions, and the moves cancel in the win rates."
        )
    } else {
        format!(
            " The winner changed in {share} of the games (the same games in both; {baseline} between independent games)."
        )
    }
}

/// A plain sentence saying which differences are beyond noise.
pub fn sentence(d: &[FactionDiff], alpha: f64) -> String {
    let beyond: Vec<String> = d
        .iter()
        .filter(|f| f.p_holm < alpha)
        .map(|f| {
            let t = |x: f64| crate::stats::signed_tenths(100.0 * x);
            format!(
                "{} ({} pp in win rate, {} CI [{}, {}], Holm-adjusted {})",
                f.name,
                t(f.win_diff.estimate),
                level(alpha),
                t(f.win_diff.low),
                t(f.win_diff.high),
                crate::stats::fmt_p(f.p_holm)
            )
        })
        .collect();
    let scores: Vec<String> = d
        .iter()
        .filter(|f| f.score_p_holm < alpha)
        .map(|f| format!("{} ({:+.2})", f.name, f.score_shift.estimate))
        .collect();
    let mut s = if beyond.is_empty() {
        format!(
            "No win-rate difference is beyond noise with {} confidence (Holm-adjusted).",
            level(alpha)
        )
    } else {
        let rest = if beyond.len() < d.len() {
            " The other factions' differences are within noise."
        } else {
            ""
        };
        format!(
            "B differs from A beyond noise for: {}.{rest}",
            beyond.join("; ")
        )
    };
    if !scores.is_empty() {
        s.push_str(&format!(
            " Mean scores shift beyond noise for: {}.",
            scores.join(", ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holm_matches_a_worked_example() {
        // p = 0.01, 0.04, 0.03 over 3 tests: 0.03, 0.06, 0.06.
        let h = holm(&[0.01, 0.04, 0.03]);
        assert!(
            (h[0] - 0.03).abs() < 1e-12
                && (h[1] - 0.06).abs() < 1e-12
                && (h[2] - 0.06).abs() < 1e-12,
            "{h:?}"
        );
    }

    #[test]
    fn pairing_is_worth_the_unpaired_variance_over_the_paired_one() {
        // Two 50% factions, the winner changed in 10% of 1,000 games, evenly: paired
        // variance 0.1, unpaired 0.5, a reduction of 5.
        let r = variance_reduction(0.5, 0.5, 50, 50, 1000).unwrap();
        assert!((r - 5.0).abs() < 1e-12, "{r}");
        assert_eq!(variance_reduction(0.5, 0.5, 0, 0, 1000), None);
        assert_eq!(
            [19_783.0, 3_020.0, 994.6, 7.2].map(two_figures),
            [20_000, 3_000, 990, 7]
        );
    }

    #[test]
    fn independent_games_disagree_as_their_win_rates_say() {
        let f = |a: f64, b: f64| FactionDiff {
            name: String::new(),
            win_a: a,
            win_b: b,
            win_diff: Est {
                estimate: 0.0,
                low: 0.0,
                high: 0.0,
            },
            p: 1.0,
            p_holm: 1.0,
            score_a: 0.0,
            score_shift: Est {
                estimate: 0.0,
                low: 0.0,
                high: 0.0,
            },
            score_p: 1.0,
            score_p_holm: 1.0,
            verdict: String::new(),
            variance_reduction: None,
        };
        // Four even factions: independent games agree a quarter of the time.
        let d: Vec<FactionDiff> = (0..4).map(|_| f(0.25, 0.25)).collect();
        assert!((independent_changed(&d) - 0.75).abs() < 1e-12);
        // A drifted same-distribution variant: 74% changed is no per-game reading.
        let changed = crate::stats::Rate::wilson(740, 1000, 1.96);
        let text = changed_clause(&d, &changed, 0.05);
        assert!(
            text.contains("diverged") && !text.contains("moves wins"),
            "{text}"
        );
        // A paired one whose moves cancel: 10% changed.
        let changed = crate::stats::Rate::wilson(100, 1000, 1.96);
        let text = changed_clause(&d, &changed, 0.05);
        assert!(text.contains("moves wins between factions"), "{text}");
    }

    #[test]
    fn mcnemar_is_symmetric_and_exact() {
        assert_eq!(mcnemar(0, 0), 1.0);
        assert!((mcnemar(5, 5) - 1.0).abs() < 1e-12);
        // 0 of 10 discordant pairs on one side: 2 * 0.5^10.
        assert!((mcnemar(0, 10) - 2.0 / 1024.0).abs() < 1e-12);
        assert_eq!(mcnemar(3, 9), mcnemar(9, 3));
    }
}
