//! The tune's terminal table (also the body of report.md): the search's trials, the best
//! values and what is within noise of them, the refinement and confirmation, and whether the
//! goal is met.

use std::fmt::Write as _;

use super::answer::{headline, sides_words};
use super::{Args, fmt_val, fmt_x, goal_met, trial_words, values_words};
use crate::tune::{Goal, Noise, Search, Tuned, Whole};

/// The terminal table (also the body of report.md).
pub(super) fn table(a: &Args, r: &Tuned) -> String {
    let mut t = trials(a, r);
    t.push_str(&best(a, r));
    t.push_str(&confirmation(a, r));
    t.push_str(&verdict(a, r));
    t
}

/// What was tuned, how, and every trial with its goal metric.
fn trials(a: &Args, r: &Tuned) -> String {
    let (o, s) = (&a.opts, &r.s);
    let mut t = String::new();
    let aim = match &a.goal {
        Goal::Equal { expr, value } => format!("{expr} = {value}"),
        Goal::Minimize { expr } => format!("minimize {expr}"),
    };
    let ranges: Vec<String> = (a.param.iter())
        .map(|p| format!("{} in {}..{}", p.path, p.show(p.lo), p.show(p.hi)))
        .collect();
    let _ = writeln!(
        t,
        "{}: tune {} for `{aim}`",
        a.scenario.display(),
        ranges.join(", ")
    );
    let _ = writeln!(
        t,
        "method: {}; every trial plays games 0..{} of seed {} (common random numbers)",
        s.method.describe(),
        crate::report::thousands(o.games),
        o.seed
    );
    if let Some(h) = headline(a, r) {
        let _ = writeln!(t, "{h}");
    }
    let _ = writeln!(t);
    let w: Vec<usize> = (a.param.iter())
        .map(|p| p.path.chars().count().max(10) + 2)
        .collect();
    let _ = write!(t, "{:>5}  ", "trial");
    for (p, w) in a.param.iter().zip(&w) {
        let _ = write!(t, "{:<w$}", p.path);
    }
    let _ = writeln!(t, "goal metric [95% CI]");
    for (i, tr) in s.trials.iter().enumerate() {
        let _ = write!(t, "{:>5}  ", i + 1);
        for ((p, w), x) in a.param.iter().zip(&w).zip(&tr.values) {
            let _ = write!(t, "{:<w$}", p.show(*x));
        }
        let _ = writeln!(t, "{}", fmt_val(&tr.metric));
    }
    t
}

/// The best values, a bound they sit on, and the trials within noise of them.
fn best(a: &Args, r: &Tuned) -> String {
    let (s, noise) = (&r.s, &r.noise);
    let mut t = String::new();
    // Every other trial within noise of the best: the search games single out no best.
    let undecided = (noise.as_ref())
        .is_some_and(|n| s.trials.len() > 1 && n.within.len() + 1 == s.trials.len());
    if undecided {
        let _ = writeln!(
            t,
            "\nno trial differs from the others beyond noise: the lowest loss was at {} (undecided; more --games would tell the trials apart)",
            values_words(a, &s.best)
        );
    } else if r.sides.is_some() {
        // The answer is the whole values below, not the search's lowest loss.
        let _ = writeln!(
            t,
            "\nlowest loss in the search: {}",
            values_words(a, &s.best)
        );
    } else {
        let _ = writeln!(t, "\nbest: {}", values_words(a, &s.best));
    }
    // A best value on a bound of a search over several parameters: the best may lie past it.
    if a.param.len() > 1 {
        for (p, x) in a.param.iter().zip(&s.best) {
            if *x <= p.lo || *x >= p.hi {
                let _ = writeln!(
                    t,
                    "{} is at a bound of its range ({}): the best may lie past it; widen {}={}:{} to look",
                    p.path,
                    p.show(*x),
                    p.path,
                    p.show(p.lo),
                    p.show(p.hi)
                );
            }
        }
    }
    if !s.bracketed {
        let _ = writeln!(
            t,
            "the goal metric does not cross the goal inside the bounds: this is the nearer end; widen the bounds"
        );
    }
    // The list of trials within noise of the best, unless every trial is (said above).
    if let Some(n) = noise.as_ref().filter(|_| !undecided) {
        t.push_str(&noise_words(a, s, n));
    }
    t
}

/// The trials within noise of the best, and the criterion, in words.
fn noise_words(a: &Args, s: &Search, n: &Noise) -> String {
    // A long compass search can leave many: the rest are in the JSON and report.md.
    const SHOWN: usize = 10;
    let mut list: Vec<String> = (n.within.iter().take(SHOWN))
        .map(|&i| trial_words(a, s, i))
        .collect();
    if n.within.len() > SHOWN {
        list.push(format!(
            "and {} more (in --json and report.md)",
            n.within.len() - SHOWN
        ));
    }
    let loss = match &a.goal {
        Goal::Equal { value, .. } => format!("|goal metric - {value}|"),
        Goal::Minimize { .. } => "the goal metric".to_string(),
    };
    format!(
        "trials within noise of the best, {}: {}\n  (within noise: its 95% interval of {loss} \
         overlaps the best's; the search games do not tell them apart)\n",
        trial_words(a, s, n.best),
        if list.is_empty() {
            "none".to_string()
        } else {
            list.join(", ")
        }
    )
}

/// The refinement, the confirmation, and each seat's rate there.
fn confirmation(a: &Args, r: &Tuned) -> String {
    let (first, confirm) = (r.first, r.confirm);
    let mut t = String::new();
    if let Some(rf) = &r.refined {
        let _ = writeln!(
            t,
            "refinement on games {}..{}: at {} the metric is {}; one secant step moves to {}",
            crate::report::thousands(rf.first),
            crate::report::thousands(rf.first + confirm),
            a.param[0].show(rf.at),
            fmt_val(&rf.metric),
            a.param[0].show(r.s.best[0])
        );
    }
    let _ = writeln!(
        t,
        "confirmation on games {}..{} (played by nothing before): {}",
        crate::report::thousands(first),
        crate::report::thousands(first + confirm),
        fmt_val(&r.confirmed)
    );
    if !r.seats.is_empty() {
        let pc = |x: f64| format!("{:.1}", 100.0 * x);
        let each: Vec<String> = (r.seats.iter().enumerate())
            .map(|(i, s)| {
                let (rate, lo, hi) = (pc(s.rate), pc(s.low), pc(s.high));
                format!("seat {} {rate}% [{lo}, {hi}]", i + 1)
            })
            .collect();
        let _ = writeln!(
            t,
            "seats at the best value there (the factions rotated; sole wins): {}",
            each.join(", ")
        );
    }
    t
}

/// Whether the goal is met, the whole values beside the crossing, and the value's interval.
fn verdict(a: &Args, r: &Tuned) -> String {
    let mut t = String::new();
    if let Goal::Equal { value, .. } = &a.goal {
        let met = goal_met(&a.goal, &r.confirmed) == Some(true);
        // More games or evaluations narrow a real parameter's search; a whole-number one is
        // judged by its whole values below, and only a crossing that is off wants more games.
        let advice = r.s.bracketed && (r.sides.as_ref()).is_none_or(|w| w.verdict == Whole::Missed);
        let line = match (met, advice) {
            (true, _) => format!("the goal {value} is inside the interval: met within noise"),
            (false, true) => format!(
                "the goal {value} is outside the interval: not met beyond noise; more --games \
                 or --evals narrow the search"
            ),
            (false, false) => {
                format!("the goal {value} is outside the interval: not met beyond noise")
            }
        };
        let _ = writeln!(t, "{line}");
        if let Some(w) = &r.sides {
            t.push_str(&sides_words(a, w, r.first, r.confirm, *value));
        }
    }
    if let Some((lo, hi)) = r.interval {
        let _ = writeln!(
            t,
            "{} that meets the goal: 95% interval [{}, {}] (from the confirmation and the local slope)",
            a.param[0].path,
            fmt_x(lo),
            fmt_x(hi)
        );
    }
    t
}
