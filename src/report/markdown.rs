//! `report.md`: the charts with a one-line reading each, the summary table, and how to
//! reproduce the run.
//!
//! Owns the wording of readings. Each is computed from the run's numbers and says whether a
//! difference is beyond noise (non-overlapping 95% intervals) or within it.

use std::fmt::Write as _;

use super::Summary;

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn ci(r: &crate::stats::Rate) -> String {
    format!("{} [{}, {}]", pct(r.rate), pct(r.low), pct(r.high))
}

/// The reading of the win-rate chart.
pub fn win_reading(s: &Summary) -> String {
    let Some(best) = s
        .factions
        .iter()
        .max_by(|a, b| a.win.rate.total_cmp(&b.win.rate))
    else {
        return String::new();
    };
    let Some(worst) = s
        .factions
        .iter()
        .min_by(|a, b| a.win.rate.total_cmp(&b.win.rate))
    else {
        return String::new();
    };
    let fair = 1.0 / s.factions.len().max(1) as f64;
    if best.win.low > worst.win.high {
        format!(
            "{} wins most often, {}; {} least, {}; the gap is beyond noise (the 95% intervals do not overlap). The fair share is {}.",
            best.label,
            ci(&best.win),
            worst.label,
            ci(&worst.win),
            pct(fair)
        )
    } else {
        format!(
            "Win rates run from {} ({}) to {} ({}), within noise: the 95% intervals overlap, so this run shows no faction ahead. The fair share is {}.",
            pct(worst.win.rate),
            worst.label,
            pct(best.win.rate),
            best.label,
            pct(fair)
        )
    }
}

/// The reading of the rank chart: which faction finishes last most often, only when that
/// is beyond noise (its interval is above every other faction's).
fn rank_reading(s: &Summary) -> Option<String> {
    let n = s.factions.len();
    let last = |f: &super::FactionSummary| f.ranks.get(n - 1).map(|r| r.rate);
    let (i, worst) = s
        .factions
        .iter()
        .enumerate()
        .filter_map(|(i, f)| last(f).map(|r| (i, r)))
        .max_by(|a, b| a.1.rate.total_cmp(&b.1.rate))?;
    let beyond = s
        .factions
        .iter()
        .enumerate()
        .filter(|(j, _)| *j != i)
        .all(|(_, f)| last(f).is_some_and(|r| worst.low > r.high));
    let f = &s.factions[i];
    Some(if beyond {
        format!(
            "{} finishes last (rank {n}) most often, {}, beyond noise (its 95% interval is above every other faction's).",
            f.label,
            ci(&worst)
        )
    } else {
        let lo = s
            .factions
            .iter()
            .filter_map(last)
            .map(|r| r.rate)
            .fold(f64::INFINITY, f64::min);
        format!(
            "Last place (rank {n}) goes to each faction {} to {} of the time, within noise: no faction finishes last more often than the others beyond the 95% intervals.",
            pct(lo),
            pct(worst.rate)
        )
    })
}

/// The score race's reading: the leader's margin over the rest after the first round and
/// after the last round that at least 5% of the games played. It names a runaway (the margin
/// grows) or a catch-up (it shrinks) only when the two intervals separate. Both rounds are
/// of the same games where they overlap, which makes the separate intervals conservative.
pub fn race_reading(s: &Summary) -> Option<String> {
    let kept: Vec<_> = s
        .by_round
        .iter()
        .filter(|r| r.games * 20 >= s.games && r.margin.is_some())
        .collect();
    let (first, last) = (kept.first()?, kept.last()?);
    let (a, b) = (first.margin?, last.margin?);
    let show = |m: &crate::report::Margin| format!("{:.2} [{:.2}, {:.2}]", m.mean, m.low, m.high);
    if first.round == last.round {
        return Some(format!(
            "After round {}, the leader is {} points ahead of the mean of the rest; too few games go on to later rounds to read a trend.",
            first.round,
            show(&a)
        ));
    }
    let verdict = race_verdict(&a, &b);
    Some(format!(
        "The leader's margin over the mean of the rest is {} points after round {} and {} after round {} (among the {} games still playing): {verdict}.",
        show(&a),
        first.round,
        show(&b),
        last.round,
        crate::report::thousands(last.games),
    ))
}

/// Runaway, catch-up or neither, from the leader's margin early (`a`) and late (`b`): a
/// pattern is named only when the two intervals separate.
fn race_verdict(a: &crate::report::Margin, b: &crate::report::Margin) -> &'static str {
    if b.low > a.high {
        "leaders pull away as the game goes on (a runaway pattern), beyond noise"
    } else if b.high < a.low {
        "the field closes on the leader as the game goes on (a catch-up pattern), beyond noise"
    } else {
        "no runaway or catch-up pattern beyond noise"
    }
}

/// The longest run of backticks in `s`.
fn longest_backticks(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `s` as a Markdown code span that nothing in `s` can close (a file name with backticks
/// must not turn the rest of the line into Markdown): fenced by more backticks than its
/// longest run, and padded with a space on each side when it holds one, as CommonMark asks.
pub(crate) fn code(s: &str) -> String {
    match longest_backticks(s) {
        0 => format!("`{s}`"),
        n => {
            let fence = "`".repeat(n + 1);
            format!("{fence} {s} {fence}")
        }
    }
}

/// Writes report.md.
pub fn report(s: &Summary, command: &str, charts: &[String]) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# {}{}\n", s.scenario.title, s.with_overrides());
    let fence = "`".repeat(3.max(longest_backticks(command) + 1));
    let _ = writeln!(m, "Reproduce with:\n\n{fence}sh\n{command}\n{fence}\n");
    let _ = writeln!(m, "| | |\n|---|---|");
    let _ = writeln!(m, "| vpsim | {} |", s.vpsim_version);
    let _ = writeln!(
        m,
        "| scenario | {} (hash `{}`) |",
        code(&s.scenario.file.replace('|', "\\|")),
        s.scenario.hash
    );
    let _ = writeln!(m, "| seed | {} |", s.seed);
    let _ = writeln!(m, "| games | {} |", super::thousands(s.games));
    let overrides = if s.overrides.is_empty() {
        "none".to_string()
    } else {
        s.overrides
            .iter()
            .map(|o| code(&o.replace('|', "\\|")))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(m, "| overrides | {overrides} |");
    let agents = s.agents();
    let agents = agents.trim_start_matches("agents: ");
    let _ = writeln!(m, "| agents | {} |", agents.replace('|', "\\|"));
    let _ = writeln!(m, "| intervals | {:.0}% Wilson |\n", 100.0 * s.confidence);
    let has = |c: &str| charts.iter().any(|x| x == c);
    let chart = |m: &mut String, file: &str, title: &str, reading: String| {
        if has(file) {
            let _ = writeln!(m, "## {title}\n\n![{title}]({file}.png)\n\n{reading}\n");
        }
    };
    chart(&mut m, "win_rates", "Win rates", win_reading(s));
    let scored: Vec<_> = s
        .factions
        .iter()
        .filter_map(|f| f.score.map(|sc| (f.label.as_str(), sc)))
        .collect();
    if let (Some(hi), Some(lo)) = (
        scored.iter().max_by(|a, b| a.1.mean.total_cmp(&b.1.mean)),
        scored.iter().min_by(|a, b| a.1.mean.total_cmp(&b.1.mean)),
    ) {
        chart(
            &mut m,
            "scores",
            "Score distributions",
            format!(
                "Mean final scores run from {:.2} ({}) to {:.2} ({}); the widest spread (sd) is {:.2}.",
                lo.1.mean,
                lo.0,
                hi.1.mean,
                hi.0,
                scored.iter().map(|x| x.1.sd).fold(0.0, f64::max)
            ),
        );
    }
    if let Some(reading) = rank_reading(s) {
        chart(&mut m, "ranks", "Rank distributions", reading);
    }
    if let Some(l) = s.length.spread {
        chart(
            &mut m,
            "length",
            "Game length",
            format!(
                "Games last {:.2} rounds on average (median {}, from {} to {}).",
                l.mean, l.median, l.min, l.max
            ),
        );
    }
    if let Some(r) = s.end_reasons.iter().max_by_key(|r| r.rate.count) {
        chart(
            &mut m,
            "end_reasons",
            "End reasons",
            format!(
                "Most games end by {} ({}): {}.",
                code(&r.name),
                r.mechanism,
                ci(&r.rate)
            ),
        );
    }
    if let Some(p) = s
        .points_by_source
        .iter()
        .filter(|p| p.total > 0)
        .max_by(|a, b| a.share.total_cmp(&b.share))
    {
        chart(
            &mut m,
            "points_by_source",
            "Points by source",
            format!(
                "The largest single share of any faction's points is {} from {} ({} of its tagged points, {:.2} per game).",
                p.faction,
                code(&p.source),
                pct(p.share),
                p.mean_per_game
            ),
        );
    }
    let fair = 1.0 / s.factions.len().max(1) as f64;
    let early = s.leader_by_round.iter().find(|l| l.won.n * 20 >= s.games);
    if let Some(l) = early {
        chart(
            &mut m,
            "leader_by_round",
            "Leader by round",
            format!(
                "The sole leader after round {} goes on to win {} of the time, against a fair share of {}: {}.",
                l.round,
                ci(&l.won),
                pct(fair),
                if l.won.low > fair {
                    "an early lead pays, beyond noise"
                } else if l.won.high < fair {
                    "an early lead is overturned more often than chance, beyond noise"
                } else {
                    "within noise of the fair share"
                }
            ),
        );
    }
    if let Some(reading) = race_reading(s) {
        chart(&mut m, "score_race", "Score race", reading);
    }
    let _ = writeln!(m, "## Summary\n");
    let _ = writeln!(
        m,
        "| faction | win [95% CI] | shared | draw | mean rank | score mean | sd | min | q1 | median | q3 | max |"
    );
    let _ = writeln!(m, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for f in &s.factions {
        let sc = f.score;
        let v = |g: fn(&crate::stats::Spread) -> String| sc.map_or("-".to_string(), |x| g(&x));
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} | {} |",
            f.label,
            ci(&f.win),
            pct(f.shared_win.rate),
            pct(f.draw.rate),
            f.mean_rank,
            v(|x| format!("{:.2}", x.mean)),
            v(|x| format!("{:.2}", x.sd)),
            v(|x| x.min.to_string()),
            v(|x| x.q1.to_string()),
            v(|x| x.median.to_string()),
            v(|x| x.q3.to_string()),
            v(|x| x.max.to_string()),
        );
    }
    if s.score_bin_width > 1 {
        let _ = writeln!(
            m,
            "\nScores spanned more than 65,536 values, so their distribution is kept in bins of {} values: quartiles, the `scores` table and chart are to the bin (its lowest value); counts, means, minimums and maximums are exact.",
            s.score_bin_width
        );
    }
    let _ = writeln!(
        m,
        "\nDraws {}, shared wins {}, nobody wins {}. Tables: `summary`, `scores`, `ranks`, `lengths`, `end_reasons`, `tie_breaks`, `points_by_source`, `leader_by_round`, `by_round` (Parquet, beside this file).",
        ci(&s.draws),
        ci(&s.shared_wins),
        ci(&s.nobody_wins)
    );
    m
}

#[cfg(test)]
mod tests {
    use crate::report::Margin;

    /// A name with backticks stays one code span: nothing after it becomes a link.
    #[test]
    fn a_name_cannot_leave_its_code_span() {
        for name in ["a`b", "x` [c](https://e.org) `y", "``", "`", "plain"] {
            let md = format!("see {}", super::code(name));
            let html = crate::report::html::page(&md, std::path::Path::new("."), "t");
            assert!(!html.contains("<a "), "{name}: {html}");
            assert_eq!(html.matches("<code>").count(), 1, "{name}: {html}");
        }
    }

    fn m(mean: f64, half: f64) -> Margin {
        Margin {
            mean,
            low: mean - half,
            high: mean + half,
        }
    }

    #[test]
    fn a_pattern_is_named_only_beyond_noise() {
        assert!(super::race_verdict(&m(1.0, 0.1), &m(2.0, 0.1)).contains("runaway"));
        assert!(super::race_verdict(&m(2.0, 0.1), &m(1.0, 0.1)).contains("catch-up"));
        // Overlapping intervals: no pattern, however far apart the means.
        assert!(super::race_verdict(&m(1.0, 0.6), &m(2.0, 0.6)).starts_with("no runaway"));
        assert!(super::race_verdict(&m(2.0, 0.6), &m(1.0, 0.6)).starts_with("no runaway"));
    }
}
