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

/// How a faction's win rate moved from the first level to the last: the last level's rate
/// minus the first's, with its interval.
pub type Change = crate::stats::Diff;

/// The change from `a` to `b` with Newcombe's interval (see [`crate::stats::Diff::newcombe`]).
pub fn change(a: &Rate, b: &Rate, z: f64) -> Change {
    crate::stats::Diff::newcombe(a, b, z)
}

/// The normal quantile of an interval simultaneous at 95% over `family` factions.
pub fn z_joint(family: usize) -> f64 {
    crate::stats::z_for(1.0 - 0.05 / family.max(1) as f64)
}

/// One faction's reading: its rate at the first and last level, the change (interval at
/// quantile `z`), and whether its win rate rises or falls beyond noise by at least
/// `margin` (see [`crate::stats::margin::judge`]), and what that does to its edge over the
/// fair share `fair`. An interval that holds 0 but reaches past the margin is undecided,
/// with the games per level that would decide it; never "no change".
pub fn reading(
    name: &str,
    (first, last): (&Rate, &Rate),
    levels: (&str, &str),
    fair: f64,
    (z, margin): (f64, f64),
) -> String {
    use crate::stats::margin::{Judgement, judge, pp, undecided};
    let c = change(first, last, z);
    let pts = format!(
        "{:.1}% -> {:.1}% from {} to {} ({:+.1} pp [{:+.1}, {:+.1}])",
        100.0 * first.rate,
        100.0 * last.rate,
        levels.0,
        levels.1,
        100.0 * c.est,
        100.0 * c.low,
        100.0 * c.high
    );
    match judge(&c, margin) {
        Judgement::Undecided => {
            return format!(
                "{name}: {pts}: {}",
                undecided(&c, first.n, margin, " per level")
            );
        }
        Judgement::Within => {
            return format!(
                "{name}: {pts}: no change of {} pp or more (the interval is within the margin)",
                pp(margin)
            );
        }
        Judgement::Small => {
            let way = if c.est > 0.0 { "rises" } else { "falls" };
            return format!(
                "{name}: {pts}: its win rate {way} with skill beyond noise, but by less than the {} pp margin",
                pp(margin)
            );
        }
        Judgement::Up | Judgement::Down => {}
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
        let z = (z, crate::stats::margin::DEFAULT_MARGIN);
        let a = Rate::wilson(3500, 10000, z.0);
        let b = Rate::wilson(6000, 10000, z.0);
        assert!(
            reading("A", (&a, &b), ("w", "l"), third, z)
                .contains("rises with skill, beyond noise (its edge grows)")
        );
        let c = Rate::wilson(3520, 10000, z.0);
        assert!(reading("A", (&a, &c), ("w", "l"), third, z).contains("within the margin"));
        let few = (Rate::wilson(35, 100, z.0), Rate::wilson(37, 100, z.0));
        let words = reading("A", (&few.0, &few.1), ("w", "l"), third, z);
        assert!(words.contains("undecided (±13.") && words.contains("games per level"));
        let small = Rate::wilson(3650, 10000, z.0);
        assert!(reading("A", (&a, &small), ("w", "l"), third, z).contains("less than the 2 pp"));
        let low = Rate::wilson(1000, 10000, z.0);
        assert!(
            reading("C", (&low, &a), ("w", "l"), third, z).contains("(it crosses the fair share)")
        );
        let lower = Rate::wilson(2000, 10000, z.0);
        assert!(
            reading("C", (&low, &lower), ("w", "l"), third, z).contains("(its handicap shrinks)")
        );
        let ch = change(&a, &b, z.0);
        assert!(ch.low < 0.25 && ch.high > 0.25);
        // A wider family widens the interval.
        let wide = change(&a, &c, z_joint(6));
        let narrow = change(&a, &c, z.0);
        assert!(wide.high - wide.low > narrow.high - narrow.low);
    }
}
