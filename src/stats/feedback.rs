//! The feedback test: does a lead make a faction's next round better (a snowball) or worse
//! (a catch-up), beyond noise?
//!
//! Owns [`Cell`] (the exact sums of one faction's score gains in one round, split by whether
//! it led after the round before), [`Own`] (the same gains by the faction's own score, and
//! the best of the others' scores) and [`estimate`], which pools the cells into one
//! difference with an interval and splits it into the factions' interaction and each
//! faction's own rhythm.
//!
//! The split: a faction that scores in bursts (saving, then cashing in) gains less after
//! the rounds it led in with no rule acting between factions. The null keeps each
//! faction's own dynamics and removes interaction: the faction set against the others of
//! an independent game, where it leads with probability `F(s)`, the share of games whose
//! best other score is at most its own score `s`. The same difference computed with those
//! probabilities is the own-rhythm part; the observed difference minus it is the
//! interaction part (0 in expectation for factions that cannot affect each other). Counting
//! by score instead of pairing games keeps the counts exact and mergeable for any split.
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

    /// Whether these sums can be those of `n` whole-number gains: none when `n` is 0, a sum
    /// of squares at least 0 and of the sum's parity (g² and g are both odd or both even),
    /// and (Σg)² ≤ n Σg² (Cauchy–Schwarz). Sums that saturated are not judged.
    pub fn plausible(&self) -> bool {
        if self.n == 0 {
            return self.sum == 0 && self.squares == 0;
        }
        let saturated = [i128::MIN, i128::MAX].contains(&self.sum) || self.squares == i128::MAX;
        if saturated {
            return self.squares >= 0;
        }
        let spread = (self.sum.checked_mul(self.sum))
            .zip((self.n as i128).checked_mul(self.squares))
            .is_none_or(|(s2, nq)| s2 <= nq);
        self.squares >= 0 && (self.squares - self.sum) % 2 == 0 && spread
    }

    pub(super) fn merge(&mut self, o: &Gains) {
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

    /// Whether both halves' sums can be those of whole-number gains ([`Gains::plausible`]).
    pub fn plausible(&self) -> bool {
        self.lead.plausible() && self.rest.plausible()
    }

    /// Adds another cell (exact; order does not matter).
    pub fn merge(&mut self, o: &Cell) {
        self.lead.merge(&o.lead);
        self.rest.merge(&o.rest);
    }
}

/// The most distinct scores an [`Own`] keeps (own scores, and best other scores): scores
/// spread wider leave the cell out of the split.
pub const OWN_BINS: i64 = 1 << 10;

/// One faction's gains in round `r + 2` by its own score after round `r + 1` (and whether it
/// led then), and the games by the best of the other factions' scores then: the counts of
/// the null that removes interaction (see the module's doc). A gain is counted here or, once
/// the scores have spread over more than [`OWN_BINS`] values (`wide`), in the faction's
/// [`Cell`]; the observed difference reads both ([`Own::total`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Own {
    /// The own score of `gains[0]`.
    pub offset: i64,
    /// By own score from `offset`: gains when it did not lead (`[0]`) and when it did.
    pub gains: Vec<[Gains; 2]>,
    /// The best other score of `others[0]`.
    pub others_offset: i64,
    /// Games by the best other score, from `others_offset`.
    pub others: Vec<u64>,
    /// Scores spread over more than [`OWN_BINS`] values: the gains went to the cell and
    /// nothing is kept here (whatever the order games were counted or merged in).
    pub wide: bool,
}

/// The range `lo..=hi` of the values of bins from `offset` (their ends are values counted).
fn range<T>(offset: i64, bins: &[T]) -> Option<(i128, i128)> {
    (!bins.is_empty()).then(|| (offset as i128, offset as i128 + bins.len() as i128 - 1))
}

/// Whether bins over both ranges would span more than [`OWN_BINS`] values.
fn too_wide(a: Option<(i128, i128)>, b: Option<(i128, i128)>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.1.max(b.1) - a.0.min(b.0) >= OWN_BINS as i128,
        (Some(x), None) | (None, Some(x)) => x.1 - x.0 >= OWN_BINS as i128,
        (None, None) => false,
    }
}

/// The bin of value `v` in bins from `offset`, growing them to hold it (the caller has
/// checked that they stay within [`OWN_BINS`]).
fn bin<'a, T: Default + Clone>(offset: &mut i64, bins: &'a mut Vec<T>, v: i64) -> &'a mut T {
    if bins.is_empty() {
        *offset = v;
    }
    if v < *offset {
        let grow = (*offset as i128 - v as i128) as usize;
        bins.splice(0..0, std::iter::repeat_n(T::default(), grow));
        *offset = v;
    }
    let i = (v as i128 - *offset as i128) as usize;
    if i >= bins.len() {
        bins.resize(i + 1, T::default());
    }
    &mut bins[i]
}

impl Own {
    /// Counts gain `g` of a faction whose own score was `own` (leading or not) and the
    /// others' best `others`, here or in `cell` once the scores spread too wide.
    #[inline]
    fn add(&mut self, cell: &mut Cell, own: i64, led: bool, others: i64, g: i128) {
        // The common case: both scores in bins already (a value below an offset wraps high).
        let i = own.wrapping_sub(self.offset) as u64;
        let j = others.wrapping_sub(self.others_offset) as u64;
        if let (Some(b), Some(c)) = (
            usize::try_from(i).ok().and_then(|i| self.gains.get_mut(i)),
            usize::try_from(j).ok().and_then(|j| self.others.get_mut(j)),
        ) {
            b[led as usize].add(g);
            *c += 1;
            return;
        }
        self.add_new(cell, own, led, others, g);
    }

    #[inline(never)]
    fn add_new(&mut self, cell: &mut Cell, own: i64, led: bool, others: i64, g: i128) {
        let point = |v: i64| Some((v as i128, v as i128));
        if self.wide
            || too_wide(range(self.offset, &self.gains), point(own))
            || too_wide(range(self.others_offset, &self.others), point(others))
        {
            self.fold_into(cell);
            let side = if led { &mut cell.lead } else { &mut cell.rest };
            side.add(g);
            return;
        }
        bin(&mut self.offset, &mut self.gains, own)[led as usize].add(g);
        *bin(&mut self.others_offset, &mut self.others, others) += 1;
    }

    /// Moves every gain kept here into `cell` and keeps none from now on.
    pub fn fold_into(&mut self, cell: &mut Cell) {
        for b in &self.gains {
            cell.rest.merge(&b[0]);
            cell.lead.merge(&b[1]);
        }
        *self = Own {
            wide: true,
            ..Own::default()
        };
    }

    /// Adds another faction-round's counts (`o`, with its cell `oc`) to these (with their
    /// cell `cell`): exact, and the same whatever the order.
    pub fn merge(&mut self, cell: &mut Cell, o: &Own, oc: &Cell) {
        cell.merge(oc);
        if self.wide
            || o.wide
            || too_wide(range(self.offset, &self.gains), range(o.offset, &o.gains))
            || too_wide(
                range(self.others_offset, &self.others),
                range(o.others_offset, &o.others),
            )
        {
            self.fold_into(cell);
            o.clone().fold_into(cell);
            return;
        }
        for (k, b) in o.gains.iter().enumerate() {
            let x = bin(&mut self.offset, &mut self.gains, o.offset + k as i64);
            x[0].merge(&b[0]);
            x[1].merge(&b[1]);
        }
        for (k, &c) in o.others.iter().enumerate() {
            *bin(
                &mut self.others_offset,
                &mut self.others,
                o.others_offset + k as i64,
            ) += c;
        }
    }

    /// Games counted here (0 when wide).
    pub fn games(&self) -> u64 {
        self.others.iter().sum()
    }

    /// All the gains of the faction-round, in `cell` and here: the observed feedback's.
    pub fn total(&self, cell: &Cell) -> Cell {
        let mut t = *cell;
        for b in &self.gains {
            t.rest.merge(&b[0]);
            t.lead.merge(&b[1]);
        }
        t
    }

    /// Whether these counts are whole: sums that whole-number gains can make
    /// ([`Gains::plausible`]), a game counted by its best other score for each gain, and
    /// nothing kept once wide.
    pub fn consistent(&self) -> bool {
        if !self.gains.iter().flatten().all(Gains::plausible) {
            return false;
        }
        let gains = (self.gains.iter().flatten())
            .map(|g| g.n as u128)
            .sum::<u128>();
        let games = self.others.iter().map(|&x| x as u128).sum::<u128>();
        gains == games && !(self.wide && (gains > 0 || !self.others.is_empty()))
    }
}

/// Counts one game's rounds: `before` and `after` are the factions' ranking scores after two
/// consecutive rounds, `cells` that round's row (no split kept).
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

/// [`add_round`], keeping the split's counts in `own` (that round's row).
#[inline]
pub fn add_round_split(cells: &mut [Cell], own: &mut [Own], before: &[i64], after: &[i64]) {
    // The best score, how many share it, and the best of the rest.
    let (mut max, mut ties, mut second) = (i64::MIN, 0u32, i64::MIN);
    for &b in before {
        if b > max {
            (second, max, ties) = (max, b, 1);
        } else if b == max {
            ties += 1;
        } else if b > second {
            second = b;
        }
    }
    if before.is_empty() {
        return;
    }
    let others = before.len() > 1;
    for (((c, o), &b), &a) in cells.iter_mut().zip(own).zip(before).zip(after) {
        let g = match a.checked_sub(b) {
            Some(g) => g as i128,
            None => a as i128 - b as i128,
        };
        let led = b == max;
        if others {
            let best_other = if led && ties == 1 { second } else { max };
            o.add(c, b, led, best_other, g);
        } else if led {
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
    /// The part of `gain` that the factions' interaction makes: the observed difference
    /// minus the one each faction would show against the others of an independent game
    /// (see the module's doc); `None` when no cell's scores could be kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interaction: Option<Part>,
    /// The part each faction's own rhythm makes: the difference against independent others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own: Option<Part>,
}

/// One part of the feedback difference, in points per round, with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// The pooled part.
    pub gain: f64,
    /// Its interval's lower end.
    pub low: f64,
    /// Its upper end.
    pub high: f64,
}

impl Part {
    /// Whether the interval excludes 0.
    pub fn beyond_noise(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// One cell's split: the own-rhythm difference and the interaction part (observed minus
/// it), each with the variance of its estimate.
struct Split {
    own: f64,
    own_var: f64,
    interaction: f64,
    interaction_var: f64,
}

/// The split of cell `c` by its counts by score `o` (see the module's doc), `None` when the
/// scores were too spread to keep or either side of the null is empty.
///
/// Each part is a smooth function of means over the cell's gains, so its variance is the
/// delta method's: the mean square of each gain's influence, `a(s, led) g + b(s, led)`,
/// summed from the exact counts by (score, led), plus the variance the estimated `F` adds
/// (each game's best other score moves `F` at every score from it up).
fn split(c: &Cell, o: &Own) -> Option<Split> {
    if o.wide || o.gains.is_empty() {
        return None;
    }
    let total = o.games() as f64;
    // F(s): the share of games whose best other score is at most s.
    let mut cum = 0u64;
    let mut at = o.others_offset;
    let mut others = o.others.iter();
    let mut f_of = |s: i64| {
        while at <= s {
            match others.next() {
                Some(&x) => cum += x,
                None => break,
            }
            at += 1;
        }
        cum as f64 / total
    };
    let rows: Vec<(f64, [Gains; 2])> = (o.gains.iter().enumerate())
        .map(|(k, b)| (f_of(o.offset + k as i64), *b))
        .collect();
    let (nl, nr) = (c.lead.n as f64, c.rest.n as f64);
    let n = nl + nr;
    let (mut nl0, mut nr0, mut sl0, mut sr0) = (0.0, 0.0, 0.0, 0.0);
    for (f, b) in &rows {
        for g in b {
            nl0 += f * g.n as f64;
            nr0 += (1.0 - f) * g.n as f64;
            sl0 += f * g.sum as f64;
            sr0 += (1.0 - f) * g.sum as f64;
        }
    }
    if nl0 <= 0.0 || nr0 <= 0.0 || nl < 1.0 || nr < 1.0 {
        return None;
    }
    let (pl, pr, pl0, pr0) = (nl / n, nr / n, nl0 / n, nr0 / n);
    let (ml, mr) = (c.lead.sum as f64 / nl, c.rest.sum as f64 / nr);
    let (ml0, mr0) = (sl0 / nl0, sr0 / nr0);
    // Each gain's influence on each part: `a g + b`, by (F(s), led).
    let null = |f: f64| {
        (
            f / pl0 - (1.0 - f) / pr0,
            -f * ml0 / pl0 + (1.0 - f) * mr0 / pr0,
        )
    };
    let (mut own_sq, mut int_sq) = (0.0, 0.0);
    // k(s): how much the own part moves per unit of F(s).
    let mut k = Vec::with_capacity(rows.len());
    for (f, b) in &rows {
        let (a0, b0) = null(*f);
        let mut ks = 0.0;
        for (led, g) in b.iter().enumerate() {
            let (gn, gs, gq) = (g.n as f64, g.sum as f64, g.squares as f64);
            let mean_square = |a: f64, b: f64| a * a * gq + 2.0 * a * b * gs + b * b * gn;
            own_sq += mean_square(a0, b0);
            let (a1, b1) = match led {
                1 => (1.0 / pl, -ml / pl),
                _ => (-1.0 / pr, mr / pr),
            };
            int_sq += mean_square(a1 - a0, b1 - b0);
            ks += gs / n * (1.0 / pl0 + 1.0 / pr0) - gn / n * (ml0 / pl0 + mr0 / pr0);
        }
        k.push(ks);
    }
    // K(m) = Σ_{s >= m} k(s): the influence of a game whose best other score is m.
    let big_k = |m: i64| -> f64 {
        let from = (m - o.offset).clamp(0, k.len() as i64) as usize;
        k[from..].iter().sum()
    };
    let ks: Vec<(f64, f64)> = (o.others.iter().enumerate())
        .filter(|(_, c)| **c > 0)
        .map(|(j, &c)| (c as f64 / total, big_k(o.others_offset + j as i64)))
        .collect();
    let mean_k: f64 = ks.iter().map(|(w, x)| w * x).sum();
    let var_f: f64 = ks
        .iter()
        .map(|(w, x)| w * (x - mean_k).powi(2))
        .sum::<f64>()
        / total;
    let observed = ml - mr;
    let own = ml0 - mr0;
    Some(Split {
        own,
        own_var: own_sq / (n * n) + var_f,
        interaction: observed - own,
        interaction_var: int_sq / (n * n) + var_f,
    })
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
pub fn estimate(rows: &[Vec<Cell>], own: &[Vec<Own>], z: f64) -> Option<Estimate> {
    let (mut w_sum, mut wd_sum, mut w2v_sum) = (0.0, 0.0, 0.0);
    let (mut cells, mut gains, mut squares) = (0, 0, 0.0);
    // The split's pooled sums, over the cells that have one: weight, then own and
    // interaction weighted; and per faction, the weighted standard errors summed over its
    // rounds. A faction's rounds of one game are not independent (a saver's rhythm runs
    // through them), so they are pooled as if fully correlated, the widest case; factions
    // are pooled as independent.
    let (mut pw, mut pown, mut pint) = (0.0, 0.0, 0.0);
    let nf = rows.iter().map(Vec::len).max().unwrap_or(0);
    let (mut own_se, mut int_se) = (vec![0.0f64; nf], vec![0.0f64; nf]);
    let none = Own::default();
    let cells_of = rows.iter().enumerate().flat_map(|(r, row)| {
        (row.iter().enumerate()).map(move |(f, c)| (f, c, own.get(r).and_then(|o| o.get(f))))
    });
    for (f, c, o) in cells_of {
        let o = o.unwrap_or(&none);
        let c = &o.total(c);
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
        if let Some(sp) = split(c, o) {
            pw += w;
            pown += w * sp.own;
            pint += w * sp.interaction;
            own_se[f] += w * sp.own_var.sqrt();
            int_se[f] += w * sp.interaction_var.sqrt();
        }
        cells += 1;
        gains += c.games();
        squares += c.lead.squares as f64 + c.rest.squares as f64;
    }
    if cells == 0 {
        return None;
    }
    let gain = wd_sum / w_sum;
    let half = z * w2v_sum.sqrt() / w_sum;
    let part = |sum: f64, se: &[f64]| {
        let var: f64 = se.iter().map(|x| x * x).sum();
        let (g, h) = (sum / pw, z * var.sqrt() / pw);
        Part {
            gain: g,
            low: g - h,
            high: g + h,
        }
    };
    let has = pw > 0.0;
    Some(Estimate {
        gain,
        low: gain - half,
        high: gain + half,
        cells,
        gains,
        typical: (squares / gains as f64).sqrt(),
        own: has.then(|| part(pown, &own_se)),
        interaction: has.then(|| part(pint, &int_se)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sums of whole-number gains pass; one more in the sum or the squares (an edited
    /// file) fails, and so do sums no gains make.
    #[test]
    fn only_sums_of_whole_gains_are_plausible() {
        let mut g = Gains::default();
        assert!(g.plausible());
        for x in [3, -2, 0, 7, 7] {
            g.add(x);
            assert!(g.plausible(), "{g:?}");
        }
        for bad in [
            Gains {
                sum: g.sum + 1,
                ..g
            },
            Gains {
                squares: g.squares + 1,
                ..g
            },
            Gains { n: 0, ..g },
            Gains {
                n: 1,
                sum: 4,
                squares: 2,
            },
            Gains {
                squares: -2,
                sum: 0,
                n: 1,
            },
        ] {
            assert!(!bad.plausible(), "{bad:?}");
        }
    }

    #[test]
    fn a_lead_that_adds_a_point_reads_as_feedback() {
        let mut row = vec![Cell::default(); 2];
        let mut own = vec![Own::default(); 2];
        // Faction 0 leads and gains 2, 3; faction 1 trails and gains 1, 2; then swapped.
        for (b, a) in [
            ([1, 0], [3, 1]),
            ([1, 0], [4, 2]),
            ([0, 1], [1, 3]),
            ([0, 1], [2, 4]),
        ] {
            add_round_split(&mut row, &mut own, &b, &a);
        }
        let e = estimate(&[row], &[own], 1.96).unwrap();
        assert_eq!(e.cells, 2);
        assert!((e.gain - 1.0).abs() < 1e-12, "{e:?}");
        assert!(e.low < 1.0 && e.high > 1.0);
    }

    #[test]
    fn a_tie_for_first_counts_as_a_lead_and_one_sided_cells_are_left_out() {
        let mut row = vec![Cell::default(); 2];
        let mut own = vec![Own::default(); 2];
        add_round_split(&mut row, &mut own, &[2, 2], &[3, 2]);
        add_round_split(&mut row, &mut own, &[2, 2], &[2, 3]);
        let total = own[0].total(&row[0]);
        assert_eq!((total.lead.n, total.rest.n), (2, 0));
        assert!(own[0].consistent());
        assert_eq!(estimate(&[row.clone()], &[own.clone()], 1.96), None);
        // Without the split, the same gains go to the cells.
        let mut plain = vec![Cell::default(); 2];
        add_round(&mut plain, &[2, 2], &[3, 2]);
        add_round(&mut plain, &[2, 2], &[2, 3]);
        assert_eq!(plain[0], total);
    }

    #[test]
    fn scores_spread_too_wide_fold_into_the_cell_whatever_the_merge_order() {
        // Two factions; the first's own scores 0..7 in one part, 2000.. in the other.
        let mut parts: Vec<(Cell, Own)> = Vec::new();
        for chunk in [[0i64, 5], [2000, 7]] {
            let (mut cells, mut owns) = (vec![Cell::default(); 2], vec![Own::default(); 2]);
            for s in chunk {
                add_round_split(&mut cells, &mut owns, &[s, 1], &[s + 1, 1]);
            }
            parts.push((cells[0], owns[0].clone()));
        }
        let (mut c1, mut o1) = parts[0].clone();
        o1.merge(&mut c1, &parts[1].1, &parts[1].0);
        let (mut c2, mut o2) = parts[1].clone();
        o2.merge(&mut c2, &parts[0].1, &parts[0].0);
        assert!(o1.wide && o2.wide);
        assert_eq!(c1, c2);
        assert_eq!(c1.games(), 4);
    }
}
