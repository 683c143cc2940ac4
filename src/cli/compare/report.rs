//! `vpsim compare --out DIR`: the comparison's report, laid out like `run`'s (how to
//! reproduce it, a table of what was compared, then sections of a chart and its reading),
//! with the paired-difference chart: each faction's win rate B − A with its interval.

use std::fmt::Write as _;
use std::path::Path;

use crate::compare::{Comparison, Variant};
use crate::error::Result;
use crate::report::markdown::{code_cell, md_text};

/// What the report needs besides the comparison.
pub(super) struct Page<'a> {
    /// The scenario's title (A's).
    pub title: &'a str,
    /// The factions' labels, in file order.
    pub labels: &'a [String],
    /// The games asked for (`--games`): more than were played when `--until-decided`
    /// stopped early.
    pub asked: u64,
    /// The intervals' level in words: `95%`, or wider for a sequential comparison.
    pub level: &'a str,
    /// The notes under the terminal table (interval against verdict, sequential looks).
    pub notes: &'a str,
    /// The chart's subtitle.
    pub sub: &'a str,
    /// The chart's size.
    pub canvas: crate::report::charts::Canvas,
}

/// A variant in the header table: its file, hash and overrides.
fn variant_cell(v: &Variant) -> String {
    format!(
        "{} (FNV-1a `{}`), {}",
        code_cell(std::slice::from_ref(&v.file), ""),
        v.hash,
        code_cell(&v.overrides, "no overrides")
    )
}

/// report.md's text.
fn markdown(cmp: &Comparison, page: &Page<'_>) -> String {
    let mut m = header(cmp, page);
    m.push_str(&factions(cmp, page));
    m.push_str(&changed_and_pairing(cmp));
    let _ = writeln!(
        m,
        "## Each variant\n\nEach variant's full report: [A](a/report.html) \
         ([Markdown](a/report.md)), [B](b/report.html) ([Markdown](b/report.md))."
    );
    m
}

/// The title, how to reproduce it, and the table of what was compared.
fn header(cmp: &Comparison, page: &Page<'_>) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# Compare: {}\n", md_text(page.title));
    let command = super::super::reproduce_line();
    let fence = "`".repeat(3.max(command.matches('`').count() + 1));
    let _ = writeln!(m, "Reproduce with:\n\n{fence}sh\n{command}\n{fence}\n");
    let _ = writeln!(m, "| | |\n|---|---|");
    let _ = writeln!(m, "| vpsim | {} |", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(m, "| A | {} |", variant_cell(&cmp.a));
    let _ = writeln!(m, "| B | {} |", variant_cell(&cmp.b));
    let _ = writeln!(
        m,
        "| seed | {} (both variants play the same games) |",
        cmp.seed
    );
    let games = crate::report::thousands(cmp.games);
    let games = if cmp.games < page.asked {
        format!(
            "{games} per variant (stopped when decided; up to {})",
            crate::report::thousands(page.asked)
        )
    } else {
        format!("{games} per variant")
    };
    let _ = writeln!(m, "| games | {games} |");
    let agents = |v: &Variant| md_text(v.agents.trim_start_matches("agents: "));
    if cmp.a.agents == cmp.b.agents {
        let _ = writeln!(m, "| agents | {} |", agents(&cmp.a));
    } else {
        let _ = writeln!(
            m,
            "| agents | A: {}; B: {} |",
            agents(&cmp.a),
            agents(&cmp.b)
        );
    }
    let _ = writeln!(
        m,
        "| intervals | paired {}, Holm-adjusted p-values over the factions |\n",
        page.level
    );
    m
}

/// The verdict, each faction's row, and the notes under them.
fn factions(cmp: &Comparison, page: &Page<'_>) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "## Verdict\n\n{}\n", md_text(&cmp.sentence));
    let _ = writeln!(
        m,
        "## Win rates, B − A\n\n![Win rates, B − A](compare.png)\n\n\
         | faction | win A | win B | B − A [{lv} CI] | p (Holm) | score shift [{lv} CI] | verdict |\n\
         |---|---|---|---|---|---|---|",
        lv = page.level
    );
    for (f, label) in cmp.factions.iter().zip(page.labels) {
        let d = &f.win_diff;
        let s = &f.score_shift;
        let _ = writeln!(
            m,
            "| {} | {:.1}% | {:.1}% | {:+.2} pp [{:+.2}, {:+.2}] | {} | {:+.3} [{:+.3}, {:+.3}] | {} |",
            md_text(label),
            100.0 * f.win_a,
            100.0 * f.win_b,
            100.0 * d.estimate,
            100.0 * d.low,
            100.0 * d.high,
            crate::stats::fmt_p(f.p_holm)
                .replace("p = ", "")
                .replace("p < ", "< "),
            s.estimate,
            s.low,
            s.high,
            f.verdict
        );
    }
    let notes = page.notes.trim();
    if !notes.is_empty() {
        let _ = writeln!(m, "\n{}", md_text(notes));
    }
    m
}

/// The games whose winner changed, and what the pairing was worth.
fn changed_and_pairing(cmp: &Comparison) -> String {
    let mut m = String::new();
    let w = &cmp.winner_changed;
    let _ = writeln!(
        m,
        "\n## Games whose winner changed\n\nThe winner changed in {} of the {} games ({:.2}% \
         [{:.2}%, {:.2}%]): both variants play each game from the same random stream, so this \
         also counts changes that cancel out in the win rates. Two independent games would give \
         different winners in about {:.1}%; a share not below that says the games diverged.\n",
        crate::report::thousands(w.count),
        crate::report::thousands(cmp.games),
        100.0 * w.rate,
        100.0 * w.low,
        100.0 * w.high,
        100.0 * cmp.winner_changed_independent
    );
    if let Some((r, n)) = crate::compare::pairing_worth(&cmp.factions, cmp.games) {
        let _ = writeln!(
            m,
            "Pairing made this comparison as precise as about {} independent games a variant \
             (variance reduction {r:.1}, the mean over factions; each faction's is in \
             `compare.json`).\n",
            crate::report::thousands(n)
        );
    }
    m
}

/// Writes the paired-difference chart, report.md and report.html into `dir`.
pub(super) fn write(dir: &Path, cmp: &Comparison, page: &Page<'_>) -> Result<()> {
    let rows: Vec<crate::report::charts::LiftRow> = (cmp.factions.iter())
        .zip(page.labels)
        .map(|(f, label)| {
            let v = crate::stats::Val {
                est: f.win_diff.estimate,
                lo: f.win_diff.low,
                hi: f.win_diff.high,
            };
            (label.clone(), v, f.verdict == "different")
        })
        .collect();
    crate::report::charts::write_lift(
        dir,
        "compare",
        (
            &format!("Win rate, B minus A (paired {} intervals)", page.level),
            page.sub,
        ),
        crate::report::charts::DiffWords {
            axis: "change in win rate, B minus A",
            beyond: "different (Holm-adjusted)",
            within: "not shown different",
        },
        &rows,
        cmp.delta,
        page.canvas,
    )?;
    let title = format!("Compare: {}", page.title);
    super::super::write_report(dir, &markdown(cmp, page), &title)
}
