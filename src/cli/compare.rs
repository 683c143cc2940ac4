//! `vpsim compare`: two variants on the same games, and whether they differ beyond noise.

mod report;

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use super::RunOpts;
use crate::compare::{FactionDiff, PairTally, changed_clause, diffs, run_pair, sentence};
use crate::error::{Error, Result};
use crate::overrides::{Override, parse_override};

/// Compare two scenario variants on the same seeds (common random numbers).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  vpsim compare scenarios/race_to_three.toml --a-set settings.p=0.3 --b-set settings.p=0.33
  vpsim compare scenarios/race_to_three.toml --b-set settings.q=0.35 --rotate-seats
  vpsim compare scenarios/race_to_three.toml --b-set settings.p=0.35 --games 1000000 \\
    --json
  vpsim compare scenarios/race_to_three.toml --b-set settings.q=0.41 --until-decided \\
    --games 4000000")]
pub struct Args {
    /// Variant A (TOML).
    pub a: PathBuf,
    /// Variant B (default: the same file, changed with --b-set).
    pub b: Option<PathBuf>,
    /// Run options (--set applies to both variants).
    #[command(flatten)]
    pub opts: RunOpts,
    /// Override a value in variant A only (repeatable).
    #[arg(long = "a-set", value_name = "PATH=VALUE", value_parser = parse_override)]
    pub a_set: Vec<Override>,
    /// Override a value in variant B only (repeatable).
    #[arg(long = "b-set", value_name = "PATH=VALUE", value_parser = parse_override)]
    pub b_set: Vec<Override>,
    /// Choose variant A's agents (as --agent, A only; repeatable).
    #[arg(long = "a-agent", value_name = "[FACTION=]POLICY", value_parser = crate::overrides::parse_agent)]
    pub a_agent: Vec<Override>,
    /// Choose variant B's agents (as --agent, B only; repeatable).
    #[arg(long = "b-agent", value_name = "[FACTION=]POLICY", value_parser = crate::overrides::parse_agent)]
    pub b_agent: Vec<Override>,
    /// Stop as soon as every faction's difference is decided (different, or within ±delta),
    /// or at --games.
    #[arg(long)]
    pub until_decided: bool,
    /// Family-wise error rate of the comparison.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.05, value_parser = parse_unit)]
    pub alpha: f64,
    /// The smallest win-rate difference that matters (for "no difference" verdicts).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.01, value_parser = parse_unit)]
    pub delta: f64,
}

pub(crate) fn parse_unit(s: &str) -> std::result::Result<f64, String> {
    let x: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if x > 0.0 && x < 1.0 {
        Ok(x)
    } else {
        Err(format!("{x} must be between 0 and 1"))
    }
}

/// What `vpsim compare --json` prints.
#[derive(Debug, Serialize)]
pub struct Comparison {
    /// Variant A: file, hash, overrides.
    pub a: Variant,
    /// Variant B.
    pub b: Variant,
    /// Master seed (both variants).
    pub seed: u64,
    /// Games played by each variant.
    pub games: u64,
    /// Family-wise error rate.
    pub alpha: f64,
    /// Smallest difference that matters.
    pub delta: f64,
    /// With --until-decided: looks taken and whether everything was decided.
    pub sequential: Option<Sequential>,
    /// Per faction.
    pub factions: Vec<FactionDiff>,
    /// Games whose result differs between A and B, played on the same streams, with a 95%
    /// Wilson interval: a change whose moves cancel in the win rates shows here.
    pub winner_changed: crate::stats::Rate,
    /// The share of games two independent games of A and B would give different winners
    /// (from the sole-win rates; a floor): a `winner_changed` not below it beyond noise
    /// says the variants' games diverged.
    pub winner_changed_independent: f64,
    /// The mean of the factions' variance reductions (`factions[].variance_reduction`):
    /// how many times fewer games the pairing needed than two independent runs.
    pub variance_reduction: Option<f64>,
    /// With `--rotate-seats`, each seat's win rate in A and B and the paired difference
    /// (empty without rotation).
    pub seats: Vec<crate::compare::SeatDiff>,
    /// The verdict in words.
    pub sentence: String,
}

/// One side of a comparison.
#[derive(Debug, Serialize)]
pub struct Variant {
    /// File.
    pub file: String,
    /// Scenario hash (after overrides).
    pub hash: String,
    /// Overrides.
    pub overrides: Vec<String>,
    /// The agent model of each faction (`agents: ...`).
    pub agents: String,
}

/// How a sequential comparison went.
#[derive(Debug, Serialize)]
pub struct Sequential {
    /// Looks at the data.
    pub looks: u32,
    /// Looks planned up to --games (the alpha is split over them).
    pub planned_looks: u32,
    /// Every faction decided before --games.
    pub decided: bool,
}

/// The chart's subtitle: the games played (fewer than `--games` when `--until-decided`
/// stopped early), the overrides both variants share and each one's own.
fn subtitle(a: &Args, games: u64) -> String {
    let name =
        a.a.file_stem()
            .map_or("scenario".to_string(), |s| s.to_string_lossy().to_string());
    let own = |tag: &str, sets: &[&Override]| -> Option<String> {
        let list: Vec<String> = sets.iter().map(|o| o.to_string()).collect();
        (!list.is_empty()).then(|| format!("{tag}: {}", list.join(" ")))
    };
    let a_only: Vec<&Override> = a.a_agent.iter().chain(&a.a_set).collect();
    let b_only: Vec<&Override> = a.b_agent.iter().chain(&a.b_set).collect();
    let overrides: Vec<String> = (a.opts.overrides().into_iter())
        .chain(own("A", &a_only))
        .chain(own("B", &b_only))
        .collect();
    crate::report::charts::subtitle_of(
        &name,
        a.opts.seed,
        games,
        " per variant",
        &overrides,
        "no overrides",
    )
}

/// Runs `vpsim compare`.
pub fn run(a: Args) -> Result<()> {
    let o = &a.opts;
    o.check()?;
    let b_path = a.b.clone().unwrap_or_else(|| a.a.clone());
    let sets_a: Vec<Override> = (o.set.iter().chain(&a.a_agent).chain(&a.a_set))
        .cloned()
        .collect();
    let sets_b: Vec<Override> = (o.set.iter().chain(&a.b_agent).chain(&a.b_set))
        .cloned()
        .collect();
    let ma = super::load(&a.a, &sets_a, a.opts.prep())?;
    let mb = super::load(&b_path, &sets_b, a.opts.prep())?;
    let names: Vec<String> = ma.factions.iter().map(|f| f.name.clone()).collect();
    let names_b: Vec<String> = mb.factions.iter().map(|f| f.name.clone()).collect();
    if names != names_b {
        return Err(Error::Usage(format!(
            "the variants have different factions ({} vs {}): compare variants of one game",
            names.join(", "),
            names_b.join(", ")
        )));
    }
    let out = o.out_dir(&format!("{}-compare", ma.name));
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let threads = o.threads.map(|t| t as usize);
    let bar = super::progress_bar(o.games, o.quiet);
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    };
    let mut tally = PairTally::for_models(&ma, &mb);
    let mut sequential = None;
    let result: Result<Vec<FactionDiff>> = (|| {
        if !a.until_decided {
            tally = run_pair(&ma, &mb, o.seed, 0, o.games, threads, &tick)?;
            return Ok(diffs(&names, &tally, a.alpha, a.delta));
        }
        // Looks at 10k, 20k, 40k, ... games; the alpha is split evenly over the looks planned
        // up to --games (Bonferroni), which keeps the overall error rate at most alpha.
        let mut bounds = Vec::new();
        let mut n = o.games.min(10_000);
        while n < o.games {
            bounds.push(n);
            n *= 2;
        }
        bounds.push(o.games);
        let planned = bounds.len() as u32;
        let alpha_look = a.alpha / planned as f64;
        let mut last = Vec::new();
        for (look, &upto) in bounds.iter().enumerate() {
            let more = run_pair(
                &ma,
                &mb,
                o.seed,
                tally.games,
                upto - tally.games,
                threads,
                &tick,
            )?;
            tally = std::mem::take(&mut tally).merge(more);
            last = diffs(&names, &tally, alpha_look, a.delta);
            let decided = last.iter().all(|d| d.verdict != "undecided");
            if decided || upto == o.games {
                sequential = Some(Sequential {
                    looks: look as u32 + 1,
                    planned_looks: planned,
                    decided,
                });
                break;
            }
        }
        Ok(last)
    })();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let factions = result?;
    let winner_changed = crate::stats::Rate::wilson(
        tally.changed,
        tally.games,
        crate::stats::z_for(crate::report::CONFIDENCE),
    );
    let alpha_used = match &sequential {
        Some(s) => a.alpha / s.planned_looks as f64,
        None => a.alpha,
    };
    let cmp = Comparison {
        a: Variant {
            file: ma.file.clone(),
            hash: ma.hash.clone(),
            overrides: ma.overrides.clone(),
            agents: super::agents_line(&ma),
        },
        b: Variant {
            file: mb.file.clone(),
            hash: mb.hash.clone(),
            overrides: mb.overrides.clone(),
            agents: super::agents_line(&mb),
        },
        seed: o.seed,
        games: tally.games,
        alpha: a.alpha,
        delta: a.delta,
        sequential,
        winner_changed,
        winner_changed_independent: crate::compare::independent_changed(&factions),
        variance_reduction: crate::compare::pairing_worth(&factions, tally.games).map(|p| p.0),
        seats: crate::compare::seat_diffs(&tally, crate::stats::z_for(crate::report::CONFIDENCE)),
        // The sentence is for people: it names factions by their labels.
        sentence: sentence(
            &factions
                .iter()
                .zip(&ma.factions)
                .map(|(d, f)| FactionDiff {
                    name: f.label.clone(),
                    ..d.clone()
                })
                .collect::<Vec<_>>(),
            alpha_used,
        ) + &changed_clause(&factions, &winner_changed, alpha_used),
        factions,
    };
    let json = serde_json::to_string_pretty(&cmp)
        .map_err(|e| Error::Usage(format!("cannot encode JSON: {e}")))?;
    let mut s = String::new();
    let side = |v: &Variant| {
        if v.overrides.is_empty() {
            v.file.clone()
        } else {
            format!("{} with {}", v.file, v.overrides.join(" "))
        }
    };
    let _ = writeln!(s, "A: {}\nB: {}", side(&cmp.a), side(&cmp.b));
    if cmp.a.agents != cmp.b.agents {
        let _ = writeln!(s, "A {}\nB {}", cmp.a.agents, cmp.b.agents);
    } else {
        let _ = writeln!(s, "{}", cmp.a.agents);
    }
    let lv = crate::compare::level(alpha_used);
    let widened = if cmp.sequential.is_some() {
        " (widened from 95% for the sequential looks)"
    } else {
        ""
    };
    let _ = writeln!(
        s,
        "{} games each on the same seeds (seed {}), paired {lv} intervals{widened}, Holm-adjusted p-values\n",
        crate::report::thousands(cmp.games),
        cmp.seed
    );
    let labels: Vec<&str> = ma.factions.iter().map(|f| f.label.as_str()).collect();
    let w = labels
        .iter()
        .map(|n| n.chars().count())
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
    for (f, label) in cmp.factions.iter().zip(&labels) {
        let _ = writeln!(
            s,
            "{:<w$}  {:>6.1}% {:>6.1}%  {:>+6.2} [{:>+6.2}, {:>+6.2}] pp   {:>9}  {:>+7.3} [{:>+7.3}, {:>+7.3}]  {}",
            label,
            100.0 * f.win_a,
            100.0 * f.win_b,
            100.0 * f.win_diff.estimate,
            100.0 * f.win_diff.low,
            100.0 * f.win_diff.high,
            crate::stats::fmt_p(f.p_holm)
                .replace("p = ", "")
                .replace("p < ", "<"),
            f.score_shift.estimate,
            f.score_shift.low,
            f.score_shift.high,
            f.verdict
        );
    }
    let mut notes = String::new();
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
    let open: Vec<String> = (cmp.factions.iter().zip(&labels))
        .filter(|(f, _)| f.verdict == "undecided")
        .map(|(f, label)| {
            let (width, more) =
                crate::stats::margin::undecided_parts(&f.win_diff.diff(), cmp.games, cmp.delta, "");
            format!("{} ({width}: {more})", label.trim_end())
        })
        .collect();
    if !open.is_empty() {
        let _ = writeln!(
            notes,
            "
undecided: {}",
            open.join("; ")
        );
    }
    notes.push_str(&seat_lines(&cmp.seats));
    if ma.seats_unmoved && mb.seats_unmoved {
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
    s.push_str(&notes);
    if let Some((r, n)) = crate::compare::pairing_worth(&cmp.factions, cmp.games) {
        let _ = writeln!(
            s,
            "\npairing made this comparison as precise as about {} independent games a variant (variance reduction {r:.1}, the mean over factions)",
            crate::report::thousands(n)
        );
    }
    let _ = writeln!(s, "\n{}", cmp.sentence);
    if let Some(dir) = &out {
        crate::output::begin_report(dir)?;
        crate::output::write_atomic(&dir.join("compare.json"), json.as_bytes())?;
        // Each variant's own report beside the comparison.
        for (sub, m, t) in [("a", &ma, &tally.a), ("b", &mb, &tally.b)] {
            let info = crate::report::RunInfo::of(m, o.seed);
            let summary = crate::report::Summary::of(&info, 0, t, std::time::Duration::ZERO, 1);
            let file = crate::report::TallyFile {
                vpsim_version: env!("CARGO_PKG_VERSION").into(),
                info,
                shard: None,
                total_games: t.games,
                first_game: 0,
                elapsed_s: 0.0,
                threads: 1,
                tally: t.clone(),
                command: Vec::new(),
            };
            super::write_outputs(&dir.join(sub), &summary, &file, o.csv, o.canvas())?;
        }
        let labels: Vec<String> = ma.factions.iter().map(|f| f.label.clone()).collect();
        let level = format!("{lv}{widened}");
        let page = report::Page {
            title: &ma.title,
            labels: &labels,
            asked: o.games,
            level: &level,
            notes: &notes,
            sub: &subtitle(&a, cmp.games),
            canvas: o.canvas(),
        };
        report::write(dir, &cmp, &page)?;
    }
    if o.json {
        return super::out(&format!("{json}\n"));
    }
    super::out(&s)
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
