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
        "{:.1}% -> {:.1}% from {} to {} ({})",
        100.0 * first.rate,
        100.0 * last.rate,
        levels.0,
        levels.1,
        c.signed(" pp")
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
        Judgement::Unsettled => {
            let way = if c.est > 0.0 { "rises" } else { "falls" };
            return format!(
                "{name}: {pts}: its win rate {way} with skill beyond noise; whether by the {} pp margin is {}",
                pp(margin),
                undecided(&c, first.n, margin, " per level")
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

/// One matchup: a faction on level `a` against every other faction on level `b`, each
/// faction taking the `a` seat in turn, with the seats rotated.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Matchup {
    /// The one faction's level.
    pub a: String,
    /// The others' level.
    pub b: String,
    /// The `a` faction's sole wins over every faction's games in its place.
    pub a_win: Rate,
    /// The fair share, 1 / factions.
    pub fair: f64,
}

impl Matchup {
    /// The `a` faction's edge over the fair share, with the win rate's interval moved.
    pub fn edge(&self) -> crate::stats::Diff {
        crate::stats::seats::edge(&self.a_win, self.fair)
    }
}

/// A matchup's reading at `margin`: `lookahead:8 among weighted: wins 61.2% [60.1%, 62.3%]
/// against a fair share of 25.0% (+36.2 pp): the level wins more, beyond noise`.
pub fn matchup_reading(m: &Matchup, margin: f64) -> String {
    use crate::stats::margin::{Judgement, judge, pp, undecided};
    let d = m.edge();
    let head = format!(
        "one faction on {} among {}: wins {:.1}% [{:.1}%, {:.1}%] against a fair share of {:.1}% ({} pp)",
        m.a,
        m.b,
        100.0 * m.a_win.rate,
        100.0 * m.a_win.low,
        100.0 * m.a_win.high,
        100.0 * m.fair,
        crate::stats::signed_tenths(100.0 * d.est)
    );
    let verdict = match judge(&d, margin) {
        Judgement::Up => "it wins more than its share, beyond noise".to_string(),
        Judgement::Down => "it wins less than its share, beyond noise".to_string(),
        Judgement::Small => format!(
            "beyond noise, but by less than the {} pp margin",
            pp(margin)
        ),
        Judgement::Unsettled => format!(
            "beyond noise; whether by the {} pp margin is {}",
            pp(margin),
            undecided(&d, m.a_win.n, margin, "")
        ),
        Judgement::Within => format!("within {} pp of its share", pp(margin)),
        Judgement::Undecided => undecided(&d, m.a_win.n, margin, ""),
    };
    format!("{head}: {verdict}")
}

/// Skill against luck, from the matchup of the last level against the first: how often the
/// stronger player wins, against the fair share, in words.
pub fn skill_against_luck(m: &Matchup, margin: f64) -> String {
    use crate::stats::margin::{Judgement, judge};
    let d = m.edge();
    let share = m.a_win.rate / m.fair;
    let words = match judge(&d, margin) {
        Judgement::Up => format!(
            "skill matters: the stronger player wins {:.2}x its fair share",
            share
        ),
        Judgement::Down => {
            "the stronger level loses more than its share: the levels do not order skill here"
                .into()
        }
        Judgement::Small | Judgement::Within => {
            "luck dominates: the stronger player wins about its fair share".into()
        }
        Judgement::Undecided | Judgement::Unsettled => {
            "undecided: more games would tell skill from luck".into()
        }
    };
    format!("skill against luck ({} among {}): {words}", m.a, m.b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stronger_level_reads_as_skill_and_an_even_one_as_luck() {
        let z = crate::stats::z_for(0.95);
        let m = Matchup {
            a: "lookahead:8".into(),
            b: "weighted".into(),
            a_win: Rate::wilson(6000, 10000, z),
            fair: 0.25,
        };
        assert!(
            matchup_reading(&m, 0.02)
                .contains("+35.0 pp): it wins more than its share, beyond noise")
        );
        assert!(
            skill_against_luck(&m, 0.02).contains("skill matters: the stronger player wins 2.40x")
        );
        let even = Matchup {
            a_win: Rate::wilson(2510, 10000, z),
            ..m
        };
        assert!(skill_against_luck(&even, 0.02).contains("luck dominates"));
    }

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
        // +1.5 pp beyond noise whose interval reaches past the margin: unsettled, not "less
        // than the margin"; +1.0 pp on 100,000 games, its whole interval under it: less.
        let near = Rate::wilson(3650, 10000, z.0);
        let words = reading("A", (&a, &near), ("w", "l"), third, z);
        assert!(
            words.contains("whether by the 2 pp margin is undecided"),
            "{words}"
        );
        let (many, small) = (
            Rate::wilson(35000, 100000, z.0),
            Rate::wilson(36000, 100000, z.0),
        );
        let words = reading("A", (&many, &small), ("w", "l"), third, z);
        assert!(words.contains("less than the 2 pp"), "{words}");
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
