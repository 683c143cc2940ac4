//! `report.md`: the charts with a one-line reading each, the summary table, and how to
//! reproduce the run.
//!
//! Owns the wording of readings. Each is computed from the run's numbers and says whether a
//! difference is beyond noise (non-overlapping 95% intervals) or within it.

use std::fmt::Write as _;

use super::Summary;

mod escape;
use escape::longest_backticks;
pub use escape::{code, code_block, code_cell, md_inline, md_text};

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
            "Last place (rank {n}) goes to {} most often, {}, beyond noise (its 95% interval is above every other faction's).",
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
            "Last place (rank {n}) goes to each faction {} to {} of the time, within noise: no faction takes last place more often than the others beyond the 95% intervals.",
            pct(lo),
            pct(worst.rate)
        )
    })
}

/// The score race's reading: the feedback test (see [`crate::stats::feedback`]). A lead
/// that makes the next round better is named a snowball, one that makes it worse a catch-up,
/// only when the pooled difference's interval excludes 0. The leader's margin is no such
/// test: the gap between independent random walks grows by itself.
pub fn race_reading(s: &Summary) -> Option<String> {
    let f = s.feedback?;
    Some(format!(
        "Feedback: a faction gains {:+.3} [{:+.3}, {:+.3}] points more in a round after leading (alone or tied) than after trailing, the same faction in the same round compared, pooled over {} gains in {} (faction, round) pairs, those with at least 2 rounds after leading and 2 after trailing ({}% interval): {}.",
        f.gain,
        f.low,
        f.high,
        crate::report::thousands(f.gains),
        crate::report::thousands(f.cells as u64),
        s.confidence * 100.0,
        feedback_verdict(&f)
    ))
}

/// What else reads as a snowball: the same faction in the same round is compared, so a
/// faction's fixed strength does not, but an edge that lasts a whole game (drawn at setup,
/// such as a random skill) does.
const LASTING: &str =
    " (or an edge that lasts the whole game, such as one drawn at setup: both read alike)";

/// What else reads as a catch-up when the run kept no split (scores spread too wide): the
/// test compares a faction with itself, so a faction that scores in bursts (saving up,
/// then cashing in) gains less after the rounds it led in, with no rule acting between
/// factions. The reading names no mechanism it did not isolate.
const OWN_RHYTHM: &str = " (a catch-up rule between factions and each faction's own uneven scoring, such as saving up and then cashing in, read alike: this test does not tell them apart)";

/// Snowball, catch-up or neither, from the pooled feedback (see
/// [`crate::stats::feedback::Estimate::verdict`]), with its split into the factions'
/// interaction and each faction's own rhythm when the run could make it: a mechanism
/// between factions is named only when the interaction part is beyond noise.
fn feedback_verdict(f: &crate::stats::feedback::Estimate) -> String {
    use crate::stats::feedback::{NEGLIGIBLE, Verdict};
    let share = format!("{}% of a round's typical gain", NEGLIGIBLE * 100.0);
    let part = |p: &crate::stats::feedback::Part| {
        format!("{:+.3} [{:+.3}, {:+.3}]", p.gain, p.low, p.high)
    };
    let split = f.interaction.zip(f.own);
    let parts = split.map(|(i, o)| {
        format!(
            "the factions' interaction makes {} ({} noise) and each faction's own rhythm {}",
            part(&i),
            if i.beyond_noise() { "beyond" } else { "within" },
            part(&o)
        )
    });
    let tail = |lower: bool| match (split, &parts) {
        (Some((i, _)), Some(p)) if lower && i.high < 0.0 => {
            format!(": {p}, so the leader is held back by the others (a catch-up between factions)")
        }
        (Some((i, _)), Some(p)) if !lower && i.low > 0.0 => {
            format!(": {p}, so a lead helps against the others (a snowball between factions)")
        }
        // The interaction beyond noise the other way: named, and what outweighs it.
        (Some((i, _)), Some(p)) if lower && i.low > 0.0 => format!(
            ": {p}, so between factions a lead helps (a snowball between factions), and each faction's own rhythm (a faction that scores in bursts gains less after leading) more than offsets it"
        ),
        (Some((i, _)), Some(p)) if !lower && i.high < 0.0 => format!(
            ": {p}, so between factions the leader is held back (a catch-up between factions), and each faction's own rhythm more than offsets it{LASTING}"
        ),
        (Some(_), Some(p)) if lower => format!(
            ": {p}; no catch-up between factions is measured (a faction that scores in bursts gains less after leading by itself)"
        ),
        (Some(_), Some(p)) => format!(": {p}; no snowball between factions is measured{LASTING}"),
        _ if lower => OWN_RHYTHM.to_string(),
        _ => LASTING.to_string(),
    };
    match f.verdict() {
        Verdict::Snowball if f.low < NEGLIGIBLE * f.typical => format!(
            "a lead snowballs, beyond noise, perhaps by less than {share}{}",
            tail(false)
        ),
        Verdict::Snowball => format!("a lead snowballs, beyond noise{}", tail(false)),
        Verdict::CatchUp if f.high > -NEGLIGIBLE * f.typical => format!(
            "gains after leading are lower, beyond noise, perhaps by less than {share}{}",
            tail(true)
        ),
        Verdict::CatchUp => format!("gains after leading are lower, beyond noise{}", tail(true)),
        Verdict::Negligible => format!(
            "no feedback that matters: the difference is beyond noise but within {share} ({:.3} points)",
            NEGLIGIBLE * f.typical
        ),
        Verdict::None => "no feedback beyond noise".into(),
    }
}

/// The summary with the free text a scenario gives (its title, the factions' labels) escaped
/// for Markdown ([`md_text`]), so that a label renders as itself in every reading and table.
fn escaped(s: &Summary) -> Summary {
    let mut e = s.clone();
    e.scenario.title = md_text(&s.scenario.title);
    for f in &mut e.factions {
        f.label = md_text(&f.label);
    }
    e
}

/// Writes report.md.
pub fn report(s: &Summary, command: &str, charts: &[String]) -> String {
    let s = &escaped(s);
    let mut m = String::new();
    let _ = writeln!(
        m,
        "# {}{}\n",
        s.scenario.title,
        md_text(&s.with_overrides())
    );
    let fence = "`".repeat(3.max(longest_backticks(command) + 1));
    let _ = writeln!(m, "Reproduce with:\n\n{fence}sh\n{command}\n{fence}\n");
    let _ = writeln!(m, "| | |\n|---|---|");
    let _ = writeln!(m, "| vpsim | {} |", s.vpsim_version);
    let _ = writeln!(
        m,
        "| scenario | {} (FNV-1a `{}`) |",
        code(&s.scenario.file.replace('|', "\\|")),
        s.scenario.hash
    );
    let _ = writeln!(m, "| seed | {} |", s.seed);
    let _ = writeln!(m, "| games | {} |", super::thousands(s.games));
    let overrides = code_cell(&s.overrides, "none");
    let _ = writeln!(m, "| overrides | {overrides} |");
    let agents = s.agents();
    let agents = agents.trim_start_matches("agents: ");
    // Built from the (escaped) labels.
    let _ = writeln!(m, "| agents | {agents} |");
    let _ = writeln!(m, "| intervals | {:.0}% Wilson |\n", 100.0 * s.confidence);
    let words = super::why::Words {
        code: &|x: &str| code(x),
        label: &|x: &str| x.to_string(),
    };
    let _ = writeln!(m, "## Why\n\n{}\n", super::why::HEADING);
    for line in super::why::lines(s, &words) {
        let _ = writeln!(m, "- {line}");
    }
    let _ = writeln!(m);
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
            if r.rate.count == r.rate.n {
                format!("Every game ends by {} ({}).", code(&r.name), r.mechanism)
            } else if r.rate.rate >= 0.9995 {
                // A share that would print as 100.0%: the games that end otherwise, counted.
                format!(
                    "All but {} of the {} games end by {} ({}).",
                    super::thousands(r.rate.n - r.rate.count),
                    super::thousands(r.rate.n),
                    code(&r.name),
                    r.mechanism
                )
            } else {
                format!(
                    "Most games end by {} ({}): {}.",
                    code(&r.name),
                    r.mechanism,
                    ci(&r.rate)
                )
            },
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
                lead_words(&l.won, fair)
            ),
        );
    }
    if let Some(reading) = race_reading(s) {
        chart(&mut m, "score_race", "Score race", reading);
    }
    if let Some(reading) = usage_reading(s) {
        chart(&mut m, "usage", "Action usage", reading);
        let pairs = s.factions.iter().flat_map(|f| &f.cards);
        let beyond = (pairs.clone())
            .filter(|c| c.difference.is_some_and(|d| d.beyond_noise()))
            .count();
        chart(
            &mut m,
            "cards",
            "Cards",
            format!(
                "Each faction's share of games ending with each card held or completed, colored by its win rate in those games minus the others where beyond noise: {beyond} of {} faction-card pairs differ beyond noise. {}",
                pairs.count(),
                super::usage::CAVEAT
            ),
        );
    }
    if s.seats_unmoved {
        let _ = writeln!(m, "## Seats\n\n{}\n", super::seats::unmoved_words());
    } else if let Some(reading) = s.seat_reading() {
        write_seats(&mut m, s, &reading);
    }
    let labels: Vec<String> = (s.factions.iter()).map(|f| f.label.clone()).collect();
    m.push_str(&super::metrics::markdown(&s.metrics, &labels));
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

/// What the leader's win rate says against the fair share: a lead pays (or is overturned)
/// only when the interval excludes the fair share and the rate is at least the default
/// margin (2 pp) from it; a smaller effect beyond noise is named as such.
fn lead_words(won: &crate::stats::Rate, fair: f64) -> String {
    use crate::stats::margin::{DEFAULT_MARGIN, Judgement, judge, pp};
    let d = crate::stats::Diff {
        est: won.rate - fair,
        low: won.low - fair,
        high: won.high - fair,
    };
    match judge(&d, DEFAULT_MARGIN) {
        Judgement::Up => "an early lead pays, beyond noise".into(),
        Judgement::Down => {
            "an early lead is overturned more often than chance, beyond noise".into()
        }
        Judgement::Small => format!(
            "beyond noise, but within {} pp of the fair share: too small to call a lead that pays",
            pp(DEFAULT_MARGIN)
        ),
        Judgement::Unsettled => format!(
            "beyond noise; whether it is {} pp from the fair share, enough to call a lead that \
             pays, is undecided",
            pp(DEFAULT_MARGIN)
        ),
        Judgement::Within | Judgement::Undecided => "within noise of the fair share".into(),
    }
}

/// The seats section of a rotated run: each seat's win rate and edge, each faction's rate
/// from each seat, and the reading.
fn write_seats(m: &mut String, s: &Summary, reading: &str) {
    let _ = writeln!(
        m,
        "## Seats\n\nThe factions rotated through the seats (each sat in each seat equally often, to within one game). Sole wins by seat, and each faction's from that seat:\n"
    );
    let labels: Vec<String> = s.factions.iter().map(|f| f.label.clone()).collect();
    let _ = writeln!(
        m,
        "| seat | win [95% CI] | over fair share | {} |",
        labels.join(" | ")
    );
    let _ = writeln!(m, "|---|---|---|{}", "---|".repeat(labels.len()));
    for r in &s.seats {
        let cells: Vec<String> = r.by_faction.iter().map(|c| pct(c.rate)).collect();
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} |",
            r.seat,
            ci(&r.win),
            r.edge.signed(" pp"),
            cells.join(" | ")
        );
    }
    let _ = writeln!(m, "\n{reading}\n");
}

/// What the usage counts show: actions never chosen or chosen in every game, and the
/// differences in win rate beyond noise, largest first, with the caveat that they are
/// associations (`None` when the run did not count usage).
fn usage_reading(s: &Summary) -> Option<String> {
    if s.factions.iter().all(|f| f.usage.is_empty()) {
        return None;
    }
    let mut parts = Vec::new();
    let listed = |pick: fn(&super::usage::ActionRow) -> bool| -> Vec<String> {
        (s.factions.iter())
            .flat_map(|f| {
                (f.usage.iter().filter(move |u| pick(u)))
                    .map(move |u| format!("{} {}", f.label, code(&u.action)))
            })
            .collect()
    };
    let never = listed(|u| u.never_chosen);
    if !never.is_empty() {
        parts.push(format!("Never chosen: {}.", never.join(", ")));
    }
    let always = listed(|u| u.every_game);
    if !always.is_empty() {
        parts.push(format!("Chosen in every game: {}.", always.join(", ")));
    }
    let mut diffs: Vec<(String, crate::stats::Diff)> = (s.factions.iter())
        .flat_map(|f| {
            let actions = (f.usage.iter()).filter_map(move |u| {
                (u.difference.filter(|d| d.beyond_noise()))
                    .map(|d| (format!("{} with {}", f.label, code(&u.action)), d))
            });
            let cards = (f.cards.iter()).filter_map(move |c| {
                (c.difference.filter(|d| d.beyond_noise())).map(|d| {
                    (
                        format!("{} holding {} ({})", f.label, code(&c.card), code(&c.deck)),
                        d,
                    )
                })
            });
            actions.chain(cards)
        })
        .collect();
    diffs.sort_by(|a, b| b.1.est.abs().total_cmp(&a.1.est.abs()));
    if diffs.is_empty() {
        parts.push(
            "No faction's win rate differs beyond noise between games with and without any action or card."
                .into(),
        );
    } else {
        let shown: Vec<String> = (diffs.iter().take(5))
            .map(|(what, d)| format!("{what} {}", d.signed(" pp")))
            .collect();
        parts.push(format!(
            "{} win-rate difference(s) between games with and without an action or card are beyond noise (intervals simultaneous over every comparison); {}: {}.",
            diffs.len(),
            match diffs.len() > shown.len() {
                true => format!("the {} largest", shown.len()),
                false => "largest first".to_string(),
            },
            shown.join("; ")
        ));
    }
    parts.push(super::usage::CAVEAT.into());
    parts.push("Tables: `usage` (faction × action) and `cards` (faction × card).".into());
    Some(parts.join(" "))
}

#[cfg(test)]
mod tests {
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

    fn est(gain: f64, half: f64) -> crate::stats::feedback::Estimate {
        crate::stats::feedback::Estimate {
            gain,
            low: gain - half,
            high: gain + half,
            cells: 10,
            gains: 1000,
            typical: 1.0,
            interaction: None,
            own: None,
        }
    }

    #[test]
    fn feedback_is_named_only_beyond_noise() {
        assert!(super::feedback_verdict(&est(0.2, 0.1)).contains("snowballs"));
        assert!(super::feedback_verdict(&est(-0.2, 0.1)).contains("gains after leading are lower"));
        assert!(super::feedback_verdict(&est(0.2, 0.3)).starts_with("no feedback"));
        assert!(super::feedback_verdict(&est(-0.2, 0.3)).starts_with("no feedback"));
        // Beyond noise but smaller than 1% of a round's typical gain.
        assert!(super::feedback_verdict(&est(0.002, 0.001)).contains("no feedback that matters"));
        assert!(super::feedback_verdict(&est(0.012, 0.004)).contains("perhaps by less than"));
    }

    #[test]
    fn an_interaction_beyond_noise_of_the_other_sign_is_read() {
        use crate::stats::feedback::Part;
        let part = |gain: f64, half: f64| Part {
            gain,
            low: gain - half,
            high: gain + half,
        };
        // Lower gains after leading overall, but between factions a lead helps.
        let mut e = est(-0.2, 0.05);
        e.interaction = Some(part(0.039, 0.008));
        e.own = Some(part(-0.24, 0.05));
        let v = super::feedback_verdict(&e);
        assert!(v.contains("a snowball between factions"), "{v}");
        assert!(
            !v.contains("no catch-up between factions is measured"),
            "{v}"
        );
        // A snowball overall, held back between factions.
        let mut e = est(0.2, 0.05);
        e.interaction = Some(part(-0.05, 0.01));
        e.own = Some(part(0.25, 0.05));
        let v = super::feedback_verdict(&e);
        assert!(v.contains("a catch-up between factions"), "{v}");
        assert!(
            !v.contains("no snowball between factions is measured"),
            "{v}"
        );
    }
}
