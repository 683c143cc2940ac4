//! Estimates from a final tally: rates with Wilson confidence intervals, the spread of an
//! integer distribution, and p-values as people read them.
//!
//! Owns the floating-point side of the statistics, computed once the counts are final; the
//! counts themselves (exact, mergeable) are the parent module's.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

use super::Histogram;

/// A difference of two estimates with its interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Diff {
    /// The estimate.
    pub est: f64,
    /// Lower end of its interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

impl Diff {
    /// The difference in points with its interval, each [`signed_tenths`]: `+4.1 pp [+3.2,
    /// +5.0]` for `unit` " pp", `+2.3 [+1.5, +3.1]` for none.
    pub fn signed(&self, unit: &str) -> String {
        let t = |x: f64| signed_tenths(100.0 * x);
        format!("{}{unit} [{}, {}]", t(self.est), t(self.low), t(self.high))
    }

    /// `b - a` of two independent proportions with Newcombe's hybrid score interval
    /// (method 10), built from the two rates' Wilson intervals at normal quantile `z`.
    pub fn newcombe(a: &Rate, b: &Rate, z: f64) -> Diff {
        let (a, b) = (Rate::wilson(a.count, a.n, z), Rate::wilson(b.count, b.n, z));
        let d = b.rate - a.rate;
        let low = d - ((b.rate - b.low).powi(2) + (a.high - a.rate).powi(2)).sqrt();
        let high = d + ((b.high - b.rate).powi(2) + (a.rate - a.low).powi(2)).sqrt();
        Diff { est: d, low, high }
    }

    /// Whether the interval excludes 0.
    pub fn beyond_noise(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// A proportion with its confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    /// Events counted.
    pub count: u64,
    /// Out of.
    pub n: u64,
    /// count / n (0 when n is 0).
    pub rate: f64,
    /// Lower end of the Wilson score interval.
    pub low: f64,
    /// Upper end of the Wilson score interval.
    pub high: f64,
}

/// The two-sided normal quantile for a confidence level (1.959963984540054 for 0.95).
pub fn z_for(confidence: f64) -> f64 {
    Normal::standard().inverse_cdf(0.5 + confidence / 2.0)
}

impl Rate {
    /// `count` out of `n` with a Wilson interval at quantile `z`.
    pub fn wilson(count: u64, n: u64, z: f64) -> Rate {
        if n == 0 {
            return Rate {
                count,
                n,
                rate: 0.0,
                low: 0.0,
                high: 1.0,
            };
        }
        let nf = n as f64;
        let p = count as f64 / nf;
        let z2 = z * z;
        let denom = 1.0 + z2 / nf;
        let centre = (p + z2 / (2.0 * nf)) / denom;
        let half = z * (p * (1.0 - p) / nf + z2 / (4.0 * nf * nf)).sqrt() / denom;
        // Exact ends at 0 and n (the formula gives them up to rounding).
        let low = if count == 0 {
            0.0
        } else {
            (centre - half).max(0.0)
        };
        let high = if count == n {
            1.0
        } else {
            (centre + half).min(1.0)
        };
        Rate {
            count,
            n,
            rate: p,
            low,
            high,
        }
    }
}

/// Summary of an integer distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Mean.
    pub mean: f64,
    /// Sample standard deviation (n - 1).
    pub sd: f64,
    /// Smallest.
    pub min: i64,
    /// First quartile (nearest rank).
    pub q1: i64,
    /// Median (nearest rank).
    pub median: i64,
    /// Third quartile (nearest rank).
    pub q3: i64,
    /// Largest.
    pub max: i64,
}

impl Spread {
    /// From a histogram; `None` when it is empty.
    pub fn of(h: &Histogram) -> Option<Spread> {
        let n = h.total();
        if n == 0 {
            return None;
        }
        let (s, q) = h.moments();
        let nn = n as i128;
        let mean = s as f64 / n as f64;
        // Exact integer numerator n*sum(x^2) - sum(x)^2 while it fits in 128 bits; otherwise
        // (values near the 64-bit edge, or coarse bins) the deviations in floating point.
        let exact = q
            .and_then(|q| nn.checked_mul(q)?.checked_sub(s.checked_mul(s)?))
            .map(|num| num as f64 / (n as f64 * (n - 1).max(1) as f64));
        let var = exact.unwrap_or_else(|| {
            h.iter()
                .map(|(v, c)| c as f64 * (v as f64 - mean).powi(2))
                .sum::<f64>()
                / (n - 1).max(1) as f64
        });
        let sd = if n > 1 { var.sqrt() } else { 0.0 };
        Some(Spread {
            mean,
            sd,
            min: h.min()?,
            q1: h.quantile(0.25)?,
            median: h.quantile(0.5)?,
            q3: h.quantile(0.75)?,
            max: h.max()?,
        })
    }
}

/// A signed difference to one decimal (`+2.3`, `-0.7`), as a reader can trust it: a value
/// that rounds to zero without being zero keeps a second decimal (`+0.04`, `-0.03`), so an
/// interval beyond noise never shows a bound of `+0.0` and a tiny loss never reads `-0.0`;
/// zero (or less than 0.005) is `0.0`.
pub fn signed_tenths(x: f64) -> String {
    let s = format!("{x:+.1}");
    if s != "+0.0" && s != "-0.0" {
        return s;
    }
    let s = format!("{x:+.2}");
    if s == "+0.00" || s == "-0.00" {
        "0.0".into()
    } else {
        s
    }
}

/// A p-value in plain decimals, as people read them: `p = 0.27`, `p = 0.004`, `p < 0.001`.
pub fn fmt_p(p: f64) -> String {
    if p < 0.001 {
        "p < 0.001".into()
    } else if p < 0.01 {
        format!("p = {p:.3}")
    } else {
        format!("p = {p:.2}")
    }
}

/// A metric value: estimate and interval (equal for exact numbers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Val {
    /// Point estimate.
    pub est: f64,
    /// Lower end.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Val {
    /// An exact number: its interval is the number itself.
    pub fn point(x: f64) -> Val {
        Val {
            est: x,
            lo: x,
            hi: x,
        }
    }
    /// A rate's estimate and interval.
    pub fn rate(r: &Rate) -> Val {
        Val {
            est: r.rate,
            lo: r.low,
            hi: r.high,
        }
    }
    /// A truth value as 1 or 0, exactly.
    pub fn truth(b: bool) -> Val {
        Val::point(b as u8 as f64)
    }
}

/// A whole number with thousands separators: `200,000`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    /// A value that rounds to zero keeps a second decimal; zero is `0.0`, never `-0.0`.
    #[test]
    fn signed_tenths_never_read_minus_zero() {
        use super::signed_tenths;
        assert_eq!(signed_tenths(2.34), "+2.3");
        assert_eq!(signed_tenths(-0.7), "-0.7");
        assert_eq!(signed_tenths(0.04), "+0.04");
        assert_eq!(signed_tenths(-0.03), "-0.03");
        assert_eq!(signed_tenths(-0.001), "0.0");
        assert_eq!(signed_tenths(0.0), "0.0");
        assert_eq!(signed_tenths(-0.0), "0.0");
    }

    use super::*;

    #[test]
    fn p_values_read_as_plain_decimals() {
        assert_eq!(fmt_p(0.265), "p = 0.27");
        assert_eq!(fmt_p(0.0042), "p = 0.004");
        assert_eq!(fmt_p(2.1e-9), "p < 0.001");
        assert_eq!(fmt_p(1.0), "p = 1.00");
    }

    #[test]
    fn wilson_matches_known_values() {
        let z = z_for(0.95);
        assert!((z - 1.959963984540054).abs() < 1e-12);
        let r = Rate::wilson(50, 100, z);
        assert!((r.low - 0.403831).abs() < 1e-5, "{r:?}");
        assert!((r.high - 0.596169).abs() < 1e-5, "{r:?}");
        let r = Rate::wilson(0, 10, z);
        assert_eq!(r.low, 0.0);
        assert!((r.high - 0.277533).abs() < 1e-5, "{r:?}");
    }
}
