//! A tune's answer: for one whole-number parameter, the whole values beside the crossing
//! and which meet the goal; the values the answer names (what the chart marks) and its
//! headline.

use std::fmt::Write as _;

use super::{Args, fmt_val, fmt_x};
use crate::stats::Val;
use crate::tune::Whole;
use crate::tune::{Sides, Tuned};

/// For a whole-number parameter: the whole values beside the crossing and what they say.
pub(super) fn sides_words(a: &Args, w: &Sides, first: u64, confirm: u64, value: f64) -> String {
    let p = &a.param[0];
    let mut t = format!(
        "{} takes whole values: the goal metric crosses {value} near {} (from the confirmation \
         and the local slope)\nwhole values on each side, on games {}..{}:\n",
        p.path,
        fmt_x(w.crossing),
        crate::report::thousands(first),
        crate::report::thousands(first + confirm)
    );
    let mut met = Vec::new();
    for (x, v) in &w.values {
        let ok = v.lo <= value && value <= v.hi;
        if ok {
            met.push(format!("{} = {}", p.path, p.show(*x)));
        }
        let _ = writeln!(
            t,
            "  {} = {}: {}, {}",
            p.path,
            p.show(*x),
            fmt_val(v),
            if ok {
                "the goal is inside: met within noise"
            } else {
                "the goal is outside: not met beyond noise"
            }
        );
    }
    let shown: Vec<String> = w.values.iter().map(|(x, _)| p.show(*x)).collect();
    let _ = writeln!(
        t,
        "{}",
        match w.verdict {
            Whole::Met => format!(
                "whole values that meet the goal within noise: {}",
                met.join(", ")
            ),
            Whole::Between => format!(
                "no whole value of {} meets the goal: the metric passes {value} between {}, \
                 so no number of games or trials will find one",
                p.path,
                shown.join(" and ")
            ),
            Whole::Missed => String::from(
                "no whole value beside the crossing meets the goal within noise, and they miss \
                 it on one side: the crossing is off; more --games narrow it"
            ),
        }
    );
    t
}

/// The values the answer names, with the confirmation's metric at each, and the legend's
/// words for them: for one whole-number parameter with a target, the whole values that meet
/// the goal within noise (else those beside the crossing); otherwise the chosen value.
pub(super) fn chosen(a: &Args, r: &Tuned) -> (Vec<(f64, Val)>, String) {
    match &r.sides {
        Some(w) if w.verdict == Whole::Met => {
            let value = a.goal.target().unwrap_or(0.0);
            let met = (w.values.iter())
                .filter(|(_, v)| v.lo <= value && value <= v.hi)
                .copied()
                .collect();
            (met, "meets the goal (confirmation)".into())
        }
        Some(w) => (
            w.values.clone(),
            "beside the crossing, not meeting the goal (confirmation)".into(),
        ),
        None => (
            vec![(r.s.best[0], r.confirmed)],
            "chosen (confirmation)".into(),
        ),
    }
}

/// The answer's headline: for one whole-number parameter, the whole values that meet the
/// goal (what the chart marks), else the chosen values.
pub(super) fn headline(a: &Args, r: &Tuned) -> Option<String> {
    let w = r.sides.as_ref()?;
    let p = &a.param[0];
    let (values, _) = chosen(a, r);
    let shown: Vec<String> = values.iter().map(|(x, _)| p.show(*x)).collect();
    Some(match w.verdict {
        Whole::Met => format!(
            "answer: {} = {} meets the goal within noise (confirmation games)",
            p.path,
            shown.join(" or ")
        ),
        Whole::Between => format!(
            "answer: no whole value of {} meets the goal; it is passed between {}",
            p.path,
            shown.join(" and ")
        ),
        Whole::Missed => format!(
            "answer: undecided: neither whole value beside the crossing ({}) meets the goal \
             within noise; more --games narrow it",
            shown.join(", ")
        ),
    })
}
