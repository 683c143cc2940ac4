//! A ladder's report folder: `ladder.json`, the chart of each faction's win rate at each
//! level, with --matchups the head-to-head map, and report.md.

use crate::ids::FactionId;
use std::fmt::Write as _;
use std::path::Path;

use super::{Args, Rung, matchup_readings};
use crate::error::Result;
use crate::ladder::Matchup;
use crate::overrides::Override;

/// Writes the folder's files: the JSON `doc`, the charts, and report.md around the terminal
/// table `text` (without the matchups, which report.md shows as a table of their own).
pub(super) fn write_page(
    a: &Args,
    m: &crate::Model,
    dir: &Path,
    (rungs, matchups): (&[Rung], &[Matchup]),
    doc: &serde_json::Value,
    text: &str,
) -> Result<()> {
    let o = &a.opts;
    super::super::begin_report_with(dir, "ladder", &super::super::pretty_json(doc)?)?;
    charts(a, m, dir, rungs, matchups)?;
    let title = format!("Ladder: {}", m.title);
    let mut md = super::super::report_header(&title, m, o.seed, o.games, "a level");
    let _ = write!(
        md,
        "![Win rate at each skill level](ladder.svg)\n\n{}\n\
         Each level gives every faction the same agent. The agents are a model of play, not \
         people: a lookahead agent scores each option by playouts of the rest of the game, so its \
         strength grows with its playouts but it never plans beyond them; an mcts agent also \
         plans its own later moves. Both see only what their faction can see.\n",
        super::super::text_then_list(text, "readings")
    );
    if !matchups.is_empty() {
        let readings: Vec<String> = (matchup_readings(matchups, a.margin).iter())
            .map(|r| format!("- {}", crate::report::markdown::md_inline(r)))
            .collect();
        let _ = write!(
            md,
            "\n## Matchups\n\n![Head to head](matchups.svg)\n\n{}\n{}\n",
            matchup_markdown(&a.levels, matchups),
            readings.join("\n")
        );
    }
    super::super::write_report(dir, &md, &title)
}

/// The ladder's chart (each faction's win rate at each level against the fair share) and,
/// with matchups, the head-to-head map.
fn charts(
    a: &Args,
    m: &crate::Model,
    dir: &Path,
    rungs: &[Rung],
    matchups: &[Matchup],
) -> Result<()> {
    let o = &a.opts;
    let fair = 1.0 / m.nfactions() as f64;
    let levels: Vec<String> = rungs.iter().map(|r| r.name.clone()).collect();
    let series: Vec<(String, Vec<crate::stats::Rate>)> = (0..m.nfactions())
        .map(|f| {
            let rates = rungs.iter().map(|r| r.summary.factions[f].win).collect();
            (m.factions[FactionId::from_index(f)].label.clone(), rates)
        })
        .collect();
    let sub = super::super::chart_subtitle(&a.scenario, o, "a level");
    let title = "Win rate at each skill level (every faction on it; 95% intervals)";
    let canvas = o.canvas();
    crate::report::charts::write_ladder(
        dir,
        "ladder",
        (title, &sub),
        &levels,
        &series,
        fair,
        canvas,
    )?;
    if matchups.is_empty() {
        return Ok(());
    }
    let names: Vec<String> = a.levels.iter().map(|l| l.value.clone()).collect();
    let at = |n: &str| names.iter().position(|x| x == n).unwrap_or(0);
    let cells: Vec<_> = (matchups.iter())
        .map(|x| (at(&x.a), at(&x.b), x.a_win))
        .collect();
    let title = "Head to head: one faction on the row's level, the others on the column's";
    let sub = super::super::chart_subtitle(&a.scenario, o, "a matchup");
    crate::report::charts::write_matchups(dir, (title, &sub), &names, &cells, fair, canvas)?;
    Ok(())
}

/// The matchups as a Markdown table: the one faction's sole-win rate with its interval,
/// rows by its level, columns by the others'.
fn matchup_markdown(levels: &[Override], ms: &[Matchup]) -> String {
    use crate::report::markdown::code;
    let mut s = format!(
        "One faction on the row's level, every other on the column's: its sole wins (95% Wilson), fair share {:.1}%.\n\n| one faction \\ the others | {} |\n|---|{}\n",
        100.0 * ms.first().map_or(0.0, |x| x.fair),
        (levels.iter().map(|l| code(&l.value)))
            .collect::<Vec<_>>()
            .join(" | "),
        "---|".repeat(levels.len())
    );
    for la in levels {
        let cells: Vec<String> = (levels.iter())
            .map(|lb| {
                ms.iter()
                    .find(|x| x.a == la.value && x.b == lb.value)
                    .map_or("-".to_string(), |x| {
                        let r = &x.a_win;
                        format!(
                            "{:.1}% [{:.1}, {:.1}]",
                            100.0 * r.rate,
                            100.0 * r.low,
                            100.0 * r.high
                        )
                    })
            })
            .collect();
        let _ = writeln!(s, "| {} | {} |", code(&la.value), cells.join(" | "));
    }
    s
}
