//! The comparison's terminal table: the variants, how they were played, each faction's win
//! rates, paired difference, Holm-adjusted p and score shift with its verdict, then the notes
//! (an interval against a verdict, what would settle an undecided faction, seats, the
//! sequential looks), the pairing's worth and the verdict in words.

use std::fmt::Write as _;

use crate::compare::{Comparison, Variant};

/// The whole terminal text, with the `notes` ([`notes`]) under the table.
pub(super) fn table(cmp: &Comparison, labels: &[String], notes: &str) -> String {
    let mut s = head(cmp);
    s.push_str(&rows(cmp, labels));
    s.push_str(notes);
    if let Some((r, n)) = crate::compare::pairing_worth(&cmp.factions, cmp.games) {
        let _ = writeln!(
            s,
            "\npairing made this comparison as precise as about {} independent games a variant (variance reduction {r:.1}, the mean over factions)",
            crate::report::thousands(n)
        );
    }
    let _ = writeln!(s, "\n{}", cmp.sentence);
    s
}

/// The intervals' level in words: `95%`, or wider for a sequential comparison.
pub(super) fn level_words(cmp: &Comparison) -> String {
    let lv = crate::compare::level(cmp.alpha_used());
    format!("{lv}{}", widened(cmp))
}

/// What a sequential comparison's intervals are, beside their level.
fn widened(cmp: &Comparison) -> &'static str {
    match cmp.sequential {
        Some(_) => " (widened from 95% for the sequential looks)",
        None => "",
    }
}

/// The variants, their agents, and how they were played.
fn head(cmp: &Comparison) -> String {
    let mut s = String::new();
    let side = |v: &Variant| match v.overrides.is_empty() {
        true => v.file.clone(),
        false => format!("{} with {}", v.file, v.overrides.join(" ")),
    };
    let _ = writeln!(s, "A: {}\nB: {}", side(&cmp.a), side(&cmp.b));
    if cmp.a.agents != cmp.b.agents {
        let _ = writeln!(s, "A {}\nB {}", cmp.a.agents, cmp.b.agents);
    } else {
        let _ = writeln!(s, "{}", cmp.a.agents);
    }
    let lv = crate::compare::level(cmp.alpha_used());
    let widened = widened(cmp);
    let _ = writeln!(
        s,
        "{} games each on the same seeds (seed {}), paired {lv} intervals{widened}, Holm-adjusted p-values\n",
        crate::report::thousands(cmp.games),
        cmp.seed,
    );
    s
}

/// A row per faction, under a header.
fn rows(cmp: &Comparison, labels: &[String]) -> String {
    let mut s = String::new();
    let lv = crate::compare::level(cmp.alpha_used());
    let w = (labels.iter().map(|n| n.chars().count()))
        .max()
        .unwrap_or(7)
        .max(7);
    let _ = writeln!(
        s,
        "{:<w$}  {:>7} {:>7}  {:^26}  {:>9}  {:^26}  verdict",
        "faction",
        "win A",
        "win B",
        format!("B - A [{lv} CI]"),
        "p (Holm)",
        format!("score shift [{lv} CI]")
    );
    for (f, label) in cmp.factions.iter().zip(labels) {
        let p = crate::stats::fmt_p(f.p_holm)
            .replace("p = ", "")
            .replace("p < ", "<");
        let _ = writeln!(
            s,
            "{:<w$}  {:>6.1}% {:>6.1}%  {:>+6.2} [{:>+6.2}, {:>+6.2}] pp   {:>9}  {:>+7.3} [{:>+7.3}, {:>+7.3}]  {}",
            label,
            100.0 * f.win_a,
            100.0 * f.win_b,
            100.0 * f.win_diff.estimate,
            100.0 * f.win_diff.low,
            100.0 * f.win_diff.high,
            p,
            f.score_shift.estimate,
            f.score_shift.low,
            f.score_shift.high,
            f.verdict
        );
    }
    s
}

/// The notes under the table (also in the report): an interval that excludes 0 beside a
/// verdict that is not `different`, what more games would settle each undecided faction,
/// the seats, and the sequential looks.
pub(super) fn notes(cmp: &Comparison, labels: &[String], seats_unmoved: bool) -> String {
    let mut notes = String::new();
    let alpha_used = cmp.alpha_used();
    // A per-faction interval may exclude 0 while the Holm-adjusted p, which guards every
    // faction at once, stays above alpha: say which one the verdict follows.
    if (cmp.factions.iter())
        .any(|f| (f.win_diff.low > 0.0 || f.win_diff.high < 0.0) && f.p_holm >= alpha_used)
    {
        let _ = writeln!(
            notes,
            "\nnote: an interval is one faction's; the verdict follows the Holm-adjusted p, which \
             holds for all {} factions at once, so an interval can exclude 0 beside a verdict that \
             is not `different`",
            cmp.factions.len()
        );
    }
    // What more games would settle each undecided faction (as ladder's rows say).
    let open: Vec<String> = (cmp.factions.iter().zip(labels))
        .filter(|(f, _)| f.verdict == "undecided")
        .map(|(f, label)| {
            let (width, more) =
                crate::stats::margin::undecided_parts(&f.win_diff.diff(), cmp.games, cmp.delta, "");
            format!("{} ({width}: {more})", label.trim_end())
        })
        .collect();
    if !open.is_empty() {
        let _ = writeln!(notes, "\nundecided: {}", open.join("; "));
    }
    notes.push_str(&seat_lines(&cmp.seats));
    if seats_unmoved {
        let _ = writeln!(notes, "\nseats: {}", crate::report::seats::unmoved_words());
    }
    if let Some(q) = &cmp.sequential {
        let _ = writeln!(
            notes,
            "\nsequential: {} of {} planned looks, alpha {} split over them; {}",
            q.looks,
            q.planned_looks,
            cmp.alpha,
            if q.decided {
                "every faction decided"
            } else {
                "stopped at --games with some undecided"
            }
        );
    }
    notes
}

/// With rotated seats, each seat's win rates and paired difference, then which seats moved
/// beyond noise: a rule about a seat shows here as a seat effect. Empty without rotation.
fn seat_lines(seats: &[crate::compare::SeatDiff]) -> String {
    let mut s = String::new();
    if seats.is_empty() {
        return s;
    }
    let _ = writeln!(
        s,
        "\nseats (rotated: each faction sat in each seat equally often; paired 95% intervals, each seat's own):\n  seat    win A   win B       B - A [95% CI]"
    );
    for d in seats {
        let _ = writeln!(
            s,
            "  {:<4} {:>6.1}% {:>6.1}%   {:>+6.2} [{:>+6.2}, {:>+6.2}] pp{}",
            d.seat,
            100.0 * d.win_a,
            100.0 * d.win_b,
            100.0 * d.win_diff.estimate,
            100.0 * d.win_diff.low,
            100.0 * d.win_diff.high,
            if d.beyond_noise { " *" } else { "" }
        );
    }
    let moved: Vec<String> = (seats.iter().filter(|d| d.beyond_noise))
        .map(|d| {
            let e = crate::stats::signed_tenths(100.0 * d.win_diff.estimate);
            format!("seat {} {e} pp", d.seat)
        })
        .collect();
    let _ = writeln!(
        s,
        "{}",
        match moved.is_empty() {
            true => "no seat's win rate moved beyond noise".to_string(),
            false => format!(
                "B moves seats' win rates beyond noise (*): {}",
                moved.join(", ")
            ),
        }
    );
    s
}
