//! What `vpsim watch` says about a version of a scenario: its own few lines, and what changed
//! beyond noise against the previous version on common random numbers.
//!
//! Owns the choice of what is worth a line. Both versions play games `0..N` of the seed, so
//! a change that leaves the rules alone changes nothing, and the noise that is left is the
//! change's own. Every test (each faction's win rate, each end reason's share, the mean game
//! length) gets a paired 95% interval and a p-value; the p-values are Holm-adjusted together,
//! so the chance that any printed line is noise is at most alpha.

use crate::compare::{PairTally, holm, mcnemar, rate_shift};
use crate::ids::FactionId;
use crate::model::Model;
use crate::report::Summary;
use crate::stats::z_for;

/// The lines that describe one version on its own: win rates with their intervals, the
/// share of each end reason, and the game length.
pub fn overview(s: &Summary) -> Vec<String> {
    let pct = |x: f64| {
        if x > 0.0 && x < 0.0005 {
            "<0.1%".to_string()
        } else {
            format!("{:.1}%", 100.0 * x)
        }
    };
    let wins: Vec<String> = s
        .factions
        .iter()
        .map(|f| {
            format!(
                "{} {} [{:.1}, {:.1}]",
                f.label,
                pct(f.win.rate),
                100.0 * f.win.low,
                100.0 * f.win.high
            )
        })
        .collect();
    let mut ends: Vec<(&str, f64)> = s
        .end_reasons
        .iter()
        .filter(|r| r.rate.count > 0)
        .map(|r| (r.name.as_str(), r.rate.rate))
        .collect();
    ends.sort_by(|a, b| b.1.total_cmp(&a.1));
    let ends: Vec<String> = ends
        .iter()
        .map(|(n, r)| format!("{n} {}", pct(*r)))
        .collect();
    let mut lines = wrap("  win rate  ", &wins);
    lines.extend(wrap("  ends      ", &ends));
    if let Some(l) = &s.length.spread {
        lines.push(format!(
            "  length    {:.2} rounds on average (median {}, {} to {})",
            l.mean, l.median, l.min, l.max
        ));
    }
    if s.draws.count > 0 || s.nobody_wins.count > 0 || s.shared_wins.count > 0 {
        lines.push(format!(
            "  no sole winner: draws {}, nobody wins {}, shared first place {}",
            pct(s.draws.rate),
            pct(s.nobody_wins.rate),
            pct(s.shared_wins.rate)
        ));
    }
    lines
}

/// `items` after `head`, three spaces apart, in lines of at most [`WIDTH`] characters where
/// the items allow; later lines are indented under the first item.
fn wrap(head: &str, items: &[String]) -> Vec<String> {
    let indent = " ".repeat(head.chars().count());
    let mut lines = vec![head.to_string()];
    let mut empty = true;
    for item in items {
        let line = lines.last_mut().expect("one line at least");
        let len = line.chars().count() + item.chars().count() + 3;
        if !empty && len > WIDTH {
            lines.push(format!("{indent}{item}"));
        } else {
            if !empty {
                line.push_str("   ");
            }
            line.push_str(item);
        }
        empty = false;
    }
    lines
}

/// The width the overview's lines wrap at.
const WIDTH: usize = 96;

/// One measured change between versions A (before) and B (after).
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// What changed: `win rate Alice`, `end "goal"`, `length`.
    pub what: String,
    /// The value in A, as printed.
    pub before: String,
    /// The value in B, as printed.
    pub after: String,
    /// B − A with its interval, as printed.
    pub shift: String,
    /// Two-sided p-value before the Holm adjustment.
    pub p: f64,
    /// Holm-adjusted over every change tested.
    pub p_holm: f64,
}

/// Every change tested between `a` and `b` on the paired games of `t`, each with its
/// Holm-adjusted p-value (in the order: factions, end reasons by name, length). Win rates are
/// compared only when both versions have the same factions in the same seats.
pub fn changes(a: &Model, b: &Model, t: &PairTally, alpha: f64) -> Vec<Change> {
    let n = t.games.max(1);
    let z = z_for(1.0 - alpha);
    let pct = |x: f64| format!("{:.1}%", 100.0 * x);
    let points = |e: crate::compare::Est| e.diff().signed(" points");
    let mut out = Vec::new();
    if same_factions(a, b) {
        for (f, pf) in t.factions.iter().enumerate() {
            out.push(Change {
                what: format!("win rate {}", b.factions[FactionId::from_index(f)].label),
                before: pct(pf.wins_a as f64 / n as f64),
                after: pct(pf.wins_b as f64 / n as f64),
                shift: points(rate_shift(pf.only_a, pf.only_b, n, z)),
                p: mcnemar(pf.only_a, pf.only_b),
                p_holm: 1.0,
            });
        }
    }
    // End reasons by name: a version may add, remove or rename one.
    let mut names: Vec<&str> = a.reasons.iter().map(|r| r.name.as_str()).collect();
    for r in &b.reasons {
        if !names.contains(&r.name.as_str()) {
            names.push(&r.name);
        }
    }
    let nb = t.reasons_b;
    for name in names {
        let in_a = |ra: usize| a.reasons.get(ra).is_some_and(|r| r.name == name);
        let in_b = |rb: usize| b.reasons.get(rb).is_some_and(|r| r.name == name);
        let (mut count_a, mut count_b, mut only_a, mut only_b) = (0u64, 0u64, 0u64, 0u64);
        for (i, &c) in t.ends.iter().enumerate() {
            let (ra, rb) = (i / nb.max(1), i % nb.max(1));
            let (x, y) = (in_a(ra), in_b(rb));
            count_a += c * x as u64;
            count_b += c * y as u64;
            only_a += c * (x && !y) as u64;
            only_b += c * (y && !x) as u64;
        }
        if count_a + count_b == 0 {
            continue;
        }
        out.push(Change {
            what: format!("end \"{name}\""),
            before: pct(count_a as f64 / n as f64),
            after: pct(count_b as f64 / n as f64),
            shift: points(rate_shift(only_a, only_b, n, z)),
            p: mcnemar(only_a, only_b),
            p_holm: 1.0,
        });
    }
    let (shift, p) = t.rounds.shift(n, z);
    let mean_a = t.rounds.sum_a as f64 / n as f64;
    out.push(Change {
        what: "length".into(),
        before: format!("{mean_a:.2}"),
        after: format!("{:.2} rounds", mean_a + shift.estimate),
        shift: format!(
            "{:+.2} [{:+.2}, {:+.2}]",
            shift.estimate, shift.low, shift.high
        ),
        p,
        p_holm: 1.0,
    });
    let adjusted = holm(&out.iter().map(|c| c.p).collect::<Vec<_>>());
    for (c, p) in out.iter_mut().zip(adjusted) {
        c.p_holm = p;
    }
    out
}

/// Whether two versions have the same factions, by name, in the same seats.
pub fn same_factions(a: &Model, b: &Model) -> bool {
    a.factions.len() == b.factions.len()
        && a.factions
            .iter()
            .zip(&b.factions)
            .all(|(x, y)| x.name == y.name)
}

/// The lines for the changes beyond noise at `alpha`, aligned, then one line for the rest.
pub fn change_lines(changes: &[Change], alpha: f64) -> Vec<String> {
    let shown: Vec<&Change> = changes.iter().filter(|c| c.p_holm < alpha).collect();
    let level = crate::compare::level(alpha);
    if shown.is_empty() {
        return vec![format!(
            "  no change beyond noise in win rates, end reasons or length ({level} paired, Holm-adjusted)"
        )];
    }
    let w = shown
        .iter()
        .map(|c| c.what.chars().count())
        .max()
        .unwrap_or(0);
    let wb = shown.iter().map(|c| c.before.len()).max().unwrap_or(0);
    let wa = shown.iter().map(|c| c.after.len()).max().unwrap_or(0);
    let mut lines: Vec<String> = shown
        .iter()
        .map(|c| {
            format!(
                "  {:<w$}  {:>wb$} -> {:<wa$}  {}  {}",
                c.what,
                c.before,
                c.after,
                c.shift,
                crate::stats::fmt_p(c.p_holm)
            )
        })
        .collect();
    lines.push(format!(
        "  everything else within noise ({level} paired intervals, Holm-adjusted p)"
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(what: &str, p_holm: f64) -> Change {
        Change {
            what: what.into(),
            before: "10.0%".into(),
            after: "12.0%".into(),
            shift: "+2.0 points [+1.0, +3.0]".into(),
            p: p_holm,
            p_holm,
        }
    }

    #[test]
    fn long_lists_wrap_under_their_first_item() {
        let items: Vec<String> = (0..6)
            .map(|i| format!("Faction {i} 16.7% [16.2, 17.2]"))
            .collect();
        let lines = wrap("  win rate  ", &items);
        assert!(lines.len() > 1, "{lines:?}");
        assert!(
            lines.iter().all(|l| l.chars().count() <= WIDTH),
            "{lines:?}"
        );
        assert!(lines[1].starts_with("            Faction"), "{lines:?}");
        assert_eq!(lines.join(" ").matches("Faction").count(), 6);
    }

    #[test]
    fn only_changes_beyond_noise_get_a_line() {
        let lines = change_lines(&[change("win rate A", 0.2), change("length", 0.001)], 0.05);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].contains("length") && lines[0].contains("p = 0.001"));
        assert!(lines[1].contains("everything else within noise"));
        let none = change_lines(&[change("win rate A", 0.2)], 0.05);
        assert_eq!(none.len(), 1);
        assert!(none[0].contains("no change beyond noise"), "{none:?}");
    }
}
