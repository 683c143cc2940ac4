//! Balance at every skill level: how each faction's win rate moves as every faction plays
//! better.
//!
//! Owns the reading of a ladder: given each level's win rates (every faction on that
//! level), whether a faction's edge over the fair share grows or shrinks from the first
//! level to the last, beyond noise. The levels' games are independent runs of the same
//! seed, so the change's interval is the difference of two independent proportions
//! (Newcombe's hybrid score interval from the two Wilson intervals).

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
/// rates' own Wilson intervals at the same level.
pub fn change(a: &Rate, b: &Rate) -> Change {
    let d = b.rate - a.rate;
    let low = d - ((b.rate - b.low).powi(2) + (a.high - a.rate).powi(2)).sqrt();
    let high = d + ((b.high - b.rate).powi(2) + (a.rate - a.low).powi(2)).sqrt();
    Change { est: d, low, high }
}

/// One faction's reading: its rate at the first and last level, the change, and whether its
/// edge over the fair share `fair` grows, shrinks or holds beyond noise.
pub fn reading(name: &str, first: &Rate, last: &Rate, levels: (&str, &str), fair: f64) -> String {
    let c = change(first, last);
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
    // Away from the fair share is a growing edge (or handicap); toward it, a shrinking one.
    let away = (last.rate - fair).abs() > (first.rate - fair).abs();
    let side = if last.rate >= fair {
        "edge"
    } else {
        "handicap"
    };
    let how = if away { "grows" } else { "shrinks" };
    format!("{name}: {pts}: its {side} {how} with skill, beyond noise")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clear_rise_grows_the_edge_and_noise_reads_as_none() {
        let z = crate::stats::z_for(0.95);
        let a = Rate::wilson(3300, 10000, z);
        let b = Rate::wilson(6000, 10000, z);
        assert!(reading("A", &a, &b, ("w", "l"), 1.0 / 3.0).contains("edge grows"));
        let c = Rate::wilson(3320, 10000, z);
        assert!(reading("A", &a, &c, ("w", "l"), 1.0 / 3.0).contains("no change beyond noise"));
        let low = Rate::wilson(1000, 10000, z);
        assert!(reading("C", &low, &a, ("w", "l"), 1.0 / 3.0).contains("handicap shrinks"));
        let ch = change(&a, &b);
        assert!(ch.low < 0.27 && ch.high > 0.27);
    }
}
