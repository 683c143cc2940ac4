//! Balance at every skill level: how each faction's win rate moves as every faction plays
//! better.
//!
//! Owns the reading of a ladder: given each level's win rates (every faction on that
//! level), whether a faction's edge over the fair share grows or shrinks from the first
//! level to the last, beyond noise. The levels' games are independent runs of the same
//! seed, so the change's interval is the difference of two independent proportions
//! (Newcombe's hybrid score interval from the two Wilson intervals), made simultaneous over
//! the factions (Bonferroni), so the chance that any reading claims a change that is noise
//! is at most 5%.

use crate::stats::Rate;

/// How a faction's win rate moved from the first level to the last.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    /// Last level's rate minus the first's.
    pub est: f64,
    /// Lower end of its 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// The change from `a` to `b` with Newcombe's interval (method 10), built from the two
/// rates' Wilson intervals at normal quantile `z`.
pub fn change(a: &Rate, b: &Rate, z: f64) -> Change {
    let (a, b) = (Rate::wilson(a.count, a.n, z), Rate::wilson(b.count, b.n, z));
    let d = b.rate - a.rate;
    let low = d - ((b.rate - b.low).powi(2) + (a.high - a.rate).powi(2)).sqrt();
    let high = d + ((b.high - b.rate).powi(2) + (a.rate - a.low).powi(2)).sqrt();
    Change { est: d, low, high }
}

/// The normal quantile of an interval simultaneous at 95% over `family` factions.
pub fn z_joint(family: usize) -> f64 {
    crate::stats::z_for(1.0 - 0.05 / family.max(1) as f64)
}

/// One faction's reading: its rate at the first and last level, the change (interval at
/// quantile `z`), and whether its win rate rises or falls beyond noise, and what that does
/// to its edge over the fair share `fair`.
pub fn reading(
    name: &str,
    (first, last): (&Rate, &Rate),
    levels: (&str, &str),
    fair: f64,
    z: f64,
) -> String {
    let c = change(first, last, z);
    let pts = format!(
        "{:.1}% -> {:.1}% from {} to {} ({:+.1} points [{:+.1}, {:+.1}])",
        100.0 * first.rate,
        100.0 * last.rate,
        levels.0,
        levels.1,
        100.0 * c.est,
        100.0 * c.low,
        100.0 * c.high
    );
    if c.low <= 0.0 && c.high >= 0.0 {
        return format!("{name}: {pts}: no change beyond noise");
    }
    let way = if c.est > 0.0 { "rises" } else { "falls" };
    let (above_before, above_after) = (first.rate > fair, last.rate > fair);
    let what = if above_before != above_after {
        "it crosses the fair share"
    } else if (last.rate - fair).abs() > (first.rate - fair).abs() {
        if above_after {
            "its edge grows"
        } else {
            "its handicap grows"
        }
    } else if above_after {
        "its edge shrinks"
    } else {
        "its handicap shrinks"
    };
    format!("{name}: {pts}: its win rate {way} with skill, beyond noise ({what})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_rise_grows_the_edge_and_noise_reads_as_none() {
        let z = crate::stats::z_for(0.95);
        let third = 1.0 / 3.0;
        let a = Rate::wilson(3500, 10000, z);
        let b = Rate::wilson(6000, 10000, z);
        assert!(
            reading("A", (&a, &b), ("w", "l"), third, z)
                .contains("rises with skill, beyond noise (its edge grows)")
        );
        let c = Rate::wilson(3520, 10000, z);
        assert!(reading("A", (&a, &c), ("w", "l"), third, z).contains("no change beyond noise"));
        let low = Rate::wilson(1000, 10000, z);
        assert!(
            reading("C", (&low, &a), ("w", "l"), third, z).contains("(it crosses the fair share)")
        );
        let lower = Rate::wilson(2000, 10000, z);
        assert!(
            reading("C", (&low, &lower), ("w", "l"), third, z).contains("(its handicap shrinks)")
        );
        let ch = change(&a, &b, z);
        assert!(ch.low < 0.25 && ch.high > 0.25);
        // A wider family widens the interval.
        let wide = change(&a, &c, z_joint(6));
        let narrow = change(&a, &c, z);
        assert!(wide.high - wide.low > narrow.high - narrow.low);
    }
}
