//! Integer histograms: exact counts over a growing range, coarsened into power-of-two bins
//! past a bound so that memory stays flat whatever values games produce.
//!
//! Owns [`Histogram`] (counting, merging in any order, quantiles) and what a coarse one
//! keeps exactly ([`Exact`]).

use serde::{Deserialize, Serialize};

use super::MAX_BINS;

/// An integer histogram over a growing contiguous range.
///
/// Exact while the values it has seen span at most [`MAX_BINS`]; past that it keeps bins of
/// a power-of-two `width`, so memory stays bounded whatever values games produce. Coarse
/// bins keep the count, sum, smallest and largest value exact (in `exact`); quantiles are
/// then given to the bin (its lowest value).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Histogram {
    /// Lowest value of the bin `counts[0]` (a multiple of `width`).
    pub offset: i64,
    /// Count per bin.
    pub counts: Vec<u64>,
    /// Values per bin: 1 (exact) unless the range outgrew [`MAX_BINS`].
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub width: u64,
    /// Sum, smallest and largest value, kept once bins are coarse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<Exact>,
}

/// What a coarse histogram keeps exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exact {
    /// Sum of the values.
    pub sum: i128,
    /// Smallest value.
    pub min: i64,
    /// Largest value.
    pub max: i64,
}

fn one() -> u64 {
    1
}

fn is_one(w: &u64) -> bool {
    *w == 1
}

impl Histogram {
    /// Whether the histogram is one this type can have built (a check of one read from a
    /// file): a power-of-two `width`, at most `max_bins` bins starting at a multiple of it
    /// and ending inside `i64`, and for coarse bins an exact part inside them.
    pub fn well_formed(&self, max_bins: usize) -> bool {
        // An empty histogram's width is 0 (the default): 1, as `width()` reads it.
        let w = self.width();
        let end = self.offset as i128 + self.counts.len() as i128 * w;
        let exact_ok = match self.exact {
            None => w == 1,
            Some(e) => {
                e.min <= e.max && e.min as i128 >= self.offset as i128 && (e.max as i128) < end
            }
        };
        self.width.max(1).is_power_of_two()
            && self.counts.len() <= max_bins
            && (self.offset as i128).rem_euclid(w) == 0
            && end <= i64::MAX as i128 + 1
            && (self.counts.is_empty() || exact_ok)
    }

    /// Counts one value.
    #[inline]
    pub fn add(&mut self, v: i64) {
        self.add_n(v, 1, MAX_BINS);
    }

    /// Counts one value, keeping at most `max_bins` bins.
    #[inline]
    pub fn add_within(&mut self, v: i64, max_bins: i128) {
        self.add_n(v, 1, max_bins);
    }

    /// Counts value `v` `n` times (as `n` calls of [`Histogram::add_within`] would).
    #[inline]
    pub fn add_count(&mut self, v: i64, n: u64, max_bins: i128) {
        self.add_n(v, n, max_bins);
    }

    fn width(&self) -> i128 {
        self.width.max(1) as i128
    }

    #[inline(always)]
    fn add_n(&mut self, v: i64, n: u64, max_bins: i128) {
        // The common case, many times per game: an exact histogram already covering v.
        // `v - offset` as unsigned is below the bins' count exactly when v is in them: a v
        // below the offset wraps high, and so does a difference that overflows (it is 2^63
        // or more away).
        if self.width == 1
            && let Some(c) = usize::try_from(v.wrapping_sub(self.offset) as u64)
                .ok()
                .and_then(|i| self.counts.get_mut(i))
        {
            *c += n;
            return;
        }
        self.add_new(v, n, max_bins);
    }

    /// Counts a value the bins do not cover yet (or into wider bins).
    #[inline(never)]
    fn add_new(&mut self, v: i64, n: u64, max_bins: i128) {
        if self.counts.is_empty() {
            self.width = self.width.max(1);
            self.offset = ((v as i128).div_euclid(self.width()) * self.width()) as i64;
            self.counts.push(0);
        }
        loop {
            let w = self.width();
            let (first, bin) = (self.offset as i128 / w, (v as i128).div_euclid(w));
            let lo = first.min(bin);
            let hi = (first + self.counts.len() as i128 - 1).max(bin);
            if hi - lo < max_bins {
                if bin < first {
                    let grow = (first - bin) as usize;
                    self.counts.splice(0..0, std::iter::repeat_n(0, grow));
                    self.offset = (bin * w) as i64;
                } else if bin > first + self.counts.len() as i128 - 1 {
                    self.counts.resize((bin - first) as usize + 1, 0);
                }
                self.counts[(bin - (self.offset as i128 / w)) as usize] += n;
                break;
            }
            // The exact parts taken here count the bins so far, without `v`.
            self.coarsen();
        }
        if let Some(e) = &mut self.exact {
            e.sum += v as i128 * n as i128;
            e.min = e.min.min(v);
            e.max = e.max.max(v);
        }
    }

    /// Doubles the width of the bins.
    fn coarsen(&mut self) {
        if self.exact.is_none() {
            let (sum, _) = self.moments();
            self.exact = Some(Exact {
                sum,
                min: self.min().unwrap_or(0),
                max: self.max().unwrap_or(0),
            });
        }
        let w = self.width();
        let first = self.offset as i128 / w;
        let new_first = first.div_euclid(2);
        let mut counts = vec![0u64; self.counts.len() / 2 + 2];
        for (i, &c) in self.counts.iter().enumerate() {
            counts[((first + i as i128).div_euclid(2) - new_first) as usize] += c;
        }
        while counts.len() > 1 && counts.last() == Some(&0) {
            counts.pop();
        }
        self.counts = counts;
        self.width *= 2;
        self.offset = (new_first * 2 * w) as i64;
    }

    /// Adds another histogram's counts.
    pub fn merge(&mut self, o: &Histogram) {
        self.merge_within(o, MAX_BINS)
    }

    /// Adds another histogram's counts, keeping at most `max_bins` bins.
    pub fn merge_within(&mut self, o: &Histogram, max_bins: i128) {
        if o.counts.is_empty() {
            return;
        }
        if self.counts.is_empty() {
            *self = o.clone();
            return;
        }
        let (mine, theirs) = (self.exact_parts(), o.exact_parts());
        while self.width < o.width {
            self.coarsen();
        }
        // Coarse bins are added by their lowest value, so the running sum, min and max are
        // combined from both sides' exact parts instead.
        let coarse = self.width > 1 || o.width > 1;
        for (i, &c) in o.counts.iter().enumerate() {
            if c > 0 {
                self.add_n(
                    (o.offset as i128 + i as i128 * o.width.max(1) as i128) as i64,
                    c,
                    max_bins,
                );
            }
        }
        if coarse || self.width > 1 {
            self.exact = Some(Exact {
                sum: mine.sum + theirs.sum,
                min: mine.min.min(theirs.min),
                max: mine.max.max(theirs.max),
            });
        }
    }

    /// The exact sum, min and max (from the bins while they are exact).
    fn exact_parts(&self) -> Exact {
        self.exact.unwrap_or_else(|| Exact {
            sum: self.moments().0,
            min: self.min().unwrap_or(0),
            max: self.max().unwrap_or(0),
        })
    }

    /// Number of values counted.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// `(value, count)` pairs with a non-zero count, ascending; with coarse bins, each bin's
    /// lowest value.
    pub fn iter(&self) -> impl Iterator<Item = (i64, u64)> + '_ {
        let w = self.width();
        self.counts
            .iter()
            .enumerate()
            .filter(|(_, c)| **c > 0)
            .map(move |(i, c)| ((self.offset as i128 + i as i128 * w) as i64, *c))
    }

    /// Smallest value counted.
    pub fn min(&self) -> Option<i64> {
        match self.exact {
            Some(e) if self.total() > 0 => Some(e.min),
            _ => self.iter().next().map(|x| x.0),
        }
    }

    /// Largest value counted.
    pub fn max(&self) -> Option<i64> {
        match self.exact {
            Some(e) if self.total() > 0 => Some(e.max),
            _ => self.iter().last().map(|x| x.0),
        }
    }

    /// Nearest-rank quantile: the smallest value whose cumulative count reaches `p` of the
    /// total (`p` in 0..=1). With coarse bins it is the bin's lowest value, kept within the
    /// smallest and largest values counted (a bin may start below the smallest).
    pub fn quantile(&self, p: f64) -> Option<i64> {
        let n = self.total();
        if n == 0 {
            return None;
        }
        let (lo, hi) = (self.min()?, self.max()?);
        let need = ((p * n as f64).ceil() as u64).max(1);
        let mut cum = 0;
        for (v, c) in self.iter() {
            cum += c;
            if cum >= need {
                return Some(v.clamp(lo, hi));
            }
        }
        Some(hi)
    }

    /// Sum of the values (exact) and sum of their squares (`None` past 128 bits, or with
    /// coarse bins, where it is not known exactly).
    pub fn moments(&self) -> (i128, Option<i128>) {
        let mut sum = 0i128;
        let mut squares = Some(0i128);
        for (v, c) in self.iter() {
            let (v, c) = (v as i128, c as i128);
            sum += v * c;
            squares = squares.and_then(|q| q.checked_add(v.checked_mul(v)?.checked_mul(c)?));
        }
        match self.exact {
            Some(e) => (e.sum, None),
            None => (sum, squares),
        }
    }
}
