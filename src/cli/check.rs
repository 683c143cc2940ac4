//! `vpsim check`: balance assertions that pass or fail a CI build.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::RunOpts;
use crate::check::{Judge, Verdict, judge, validate};
use crate::error::{Error, Result};
use crate::report::{RunInfo, Summary};

/// Evaluate balance assertions (from the scenario's [[assert]] tables and --assert) on a run.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  vpsim check scenarios/race_to_three.toml --assert 'win_rate(First) < 0.5'
  vpsim check scenarios/race_to_three.toml --assert 'max(win_rate) - min(win_rate) < 0.4' \\
    --judge interval --junit checks.xml
  vpsim run scenarios/race_to_three.toml --out earlier -q > /dev/null   # or vpsim merge --out
  vpsim check scenarios/race_to_three.toml --from earlier --assert 'win_rate(First) < 0.5'

Metrics: win_rate(F), shared_rate(F), loss_rate(F), mean_score(F), mean_rank(F), rank_rate(F, K),
end_rate(REASON), draw_rate, nobody_rate, shared_rate, mean_length, seat_advantage, fair_share,
games; max(METRIC) and min(METRIC) over factions; abs, +, -, *, /, comparisons, and, or, not.

Exit codes: 0 all pass, 1 one fails, 2 usage or scenario errors (an unknown metric included).")]
pub struct Args {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Run options.
    #[command(flatten)]
    pub opts: RunOpts,
    /// An assertion over run metrics (repeatable), e.g. 'draw_rate < 0.01'.
    #[arg(long = "assert", value_name = "EXPR", allow_hyphen_values = true)]
    pub asserts: Vec<String>,
    /// Judge on the point estimates, or pass only when the whole 95% intervals agree.
    #[arg(long, value_enum, default_value_t = Judge::Estimate)]
    pub judge: Judge,
    /// Write the results as JUnit XML for CI systems.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Judge an earlier run instead of playing: the report folder of `vpsim run --out` or
    /// `vpsim merge --out` (its tally.json), a run of this scenario with the same --set and
    /// --agent (refused otherwise). Its games and seed are the run's.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub from: Option<PathBuf>,
}

fn fmt_val(v: &crate::stats::Val) -> String {
    if v.lo == v.hi {
        format!("{:.4}", v.est)
    } else {
        format!("{:.4} [{:.4}, {:.4}]", v.est, v.lo, v.hi)
    }
}

fn describe(v: &Verdict) -> String {
    match &v.measured {
        Some((l, r)) => format!("measured {}, against {}", fmt_val(l), fmt_val(r)),
        None => {
            let parts: Vec<String> = (v.parts.iter())
                .map(|(t, l, r)| format!("{t} {} against {}", fmt_val(l), fmt_val(r)))
                .collect();
            if parts.is_empty() {
                String::new()
            } else {
                format!("measured {}", parts.join("; "))
            }
        }
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML for a list of (name, verdict).
pub fn junit(suite: &str, results: &[(String, Verdict)]) -> String {
    let failures = results.iter().filter(|(_, v)| !v.passed).count();
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<testsuites tests=\"{}\" failures=\"{failures}\">",
        results.len()
    );
    let _ = writeln!(
        s,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\">",
        xml(suite),
        results.len()
    );
    for (name, v) in results {
        let _ = write!(
            s,
            "    <testcase classname=\"{}\" name=\"{}\"",
            xml(suite),
            xml(name)
        );
        if v.passed {
            let _ = writeln!(s, "/>");
        } else {
            let _ = writeln!(
                s,
                ">\n      <failure message=\"{}\">{}: {}</failure>\n    </testcase>",
                xml(&describe(v)),
                xml(&v.expr),
                xml(&describe(v))
            );
        }
    }
    s.push_str("  </testsuite>\n</testsuites>\n");
    s
}

/// Checks the syntax and the names of `checks` (name, expression, where it was written)
/// against a summary of no games: what can be known before a game is played.
pub fn check_names(
    model: &crate::Model,
    info: &RunInfo,
    checks: &[(String, String, String)],
) -> Result<()> {
    let empty = Summary::of(
        info,
        0,
        &crate::runner::empty_tally(model),
        std::time::Duration::ZERO,
        1,
    );
    for (_, e, at) in checks {
        validate(&empty, e).map_err(|err| {
            Error::Usage(format!(
                "{at}: in `{}` at column {}: {}",
                clip(e, err.pos),
                err.pos + 1,
                err.msg
            ))
        })?;
    }
    Ok(())
}

/// The characters of an assertion shown in a message: all of a short one, of a long one
/// (a generated 100 KB expression) a window around character `at` marked with `...`, so
/// that an error is one readable line.
pub fn clip(e: &str, at: usize) -> String {
    const BEFORE: usize = 40;
    const WIDTH: usize = 120;
    let chars: Vec<char> = e.chars().collect();
    if chars.len() <= WIDTH {
        return e.to_string();
    }
    let lo = at.min(chars.len()).saturating_sub(BEFORE);
    let hi = chars.len().min(lo + WIDTH);
    let mut out: String = if lo > 0 { "...".into() } else { String::new() };
    out.extend(&chars[lo..hi]);
    if hi < chars.len() {
        out.push_str("...");
    }
    out
}

/// Runs `vpsim check`.
pub fn run(a: Args) -> Result<()> {
    // A JUnit file from an earlier check must not outlive this one: if this check stops on
    // an error, a CI system would read the old verdicts as this run's.
    if let Some(path) = &a.junit
        && std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file())
    {
        std::fs::remove_file(path).map_err(|source| Error::Write {
            what: path.display().to_string(),
            source,
        })?;
    }
    let o = &a.opts;
    o.check()?;
    let model = super::load(&a.scenario, &o.set, o.prep())?;
    let mut checks: Vec<(String, String, String)> = model
        .asserts
        .iter()
        .map(|(n, e, loc)| (n.clone(), e.clone(), loc.to_string()))
        .collect();
    checks.extend(
        a.asserts
            .iter()
            .map(|e| (e.clone(), e.clone(), format!("--assert '{}'", clip(e, 0)))),
    );
    if checks.is_empty() {
        return Err(Error::Usage(
            "nothing to check: add [[assert]] tables to the scenario or pass --assert EXPR".into(),
        ));
    }
    let info = RunInfo::of(&model, o.seed);
    // Check every assertion's names before playing a single game.
    check_names(&model, &info, &checks)?;
    let out = o.out_dir(&model.name);
    if let Some(d) = &out {
        super::prepare_out(d, o.force)?;
    }
    if let Some(path) = &a.junit {
        crate::output::check_file(path, "--junit")?;
    }
    let summary = match &a.from {
        Some(dir) => earlier_run(dir, &model)?,
        None => played(&model, o, &info, out.as_deref())?,
    };
    judge_all(&a, &model, &summary, &checks)
}

/// The summary of the run in report folder `dir`, refused unless it is a whole run (not one
/// shard) of `model` as compiled here (the same file, --set and --agent).
fn earlier_run(dir: &std::path::Path, model: &crate::Model) -> Result<Summary> {
    let f = crate::report::read_tally(dir, |p, f| {
        if let Some(s) = f.shard {
            return Err(Error::Usage(format!(
                "{}: this is shard {}/{} of a run: merge the shards first (`vpsim merge \
                 DIR... --out MERGED`) and check MERGED",
                p.display(),
                s.index,
                s.count
            )));
        }
        Ok(())
    })?;
    // What makes a run this one: the file, the --set and --agent choices, the seat rotation
    // (what else `info` holds follows from them, or from what the run also counted).
    let here = RunInfo::of(model, f.info.seed);
    let differs = [
        (here.scenario.hash != f.info.scenario.hash).then_some("scenario.hash"),
        (here.overrides != f.info.overrides).then_some("overrides"),
        (here.rotate_seats != f.info.rotate_seats).then_some("rotate_seats"),
    ];
    if let Some(field) = differs.into_iter().flatten().next() {
        return Err(Error::Usage(format!(
            "{}: a run of another scenario or other options (its `info.{field}` differs from \
             {} with these --set, --agent and --rotate-seats): check with the scenario and \
             options it was run with",
            dir.join("tally.json").display(),
            model.name
        )));
    }
    Ok(Summary::of(
        &f.info,
        0,
        &f.tally,
        std::time::Duration::try_from_secs_f64(f.elapsed_s).unwrap_or_default(),
        f.threads,
    ))
}

/// Plays the run and writes its report folder `out`, if any; its summary.
fn played(
    model: &crate::Model,
    o: &super::RunOpts,
    info: &RunInfo,
    out: Option<&std::path::Path>,
) -> Result<Summary> {
    let p = super::run::play(model, o, 0, o.games, None)?;
    let summary = Summary::of(info, 0, &p.tally, p.elapsed, p.threads);
    if let Some(dir) = out {
        let file = crate::report::TallyFile {
            vpsim_version: env!("CARGO_PKG_VERSION").into(),
            info: info.clone(),
            shard: None,
            total_games: o.games,
            first_game: 0,
            elapsed_s: p.elapsed.as_secs_f64(),
            threads: p.threads,
            tally: p.tally.clone(),
            command: Vec::new(),
        };
        crate::output::begin_report(dir)?;
        super::write_outputs(dir, &summary, &file, o.csv, o.canvas())?;
    }
    Ok(summary)
}

/// Judges every check on `summary`, writes --junit and prints the verdicts; an error when
/// one fails.
fn judge_all(
    a: &Args,
    model: &crate::Model,
    summary: &Summary,
    checks: &[(String, String, String)],
) -> Result<()> {
    let o = &a.opts;
    let mut results = Vec::new();
    for (name, e, at) in checks {
        let v =
            judge(summary, e, a.judge).map_err(|err| Error::Usage(format!("{at}: {}", err.msg)))?;
        results.push((name.clone(), v));
    }
    let failed = results.iter().filter(|(_, v)| !v.passed).count();
    if let Some(path) = &a.junit {
        crate::output::write_file(
            path,
            "--junit",
            junit(&format!("vpsim check {}", model.name), &results).as_bytes(),
        )?;
    }
    if o.json {
        let doc = verdicts_json(a.judge, summary, &results);
        super::out(&format!("{}\n", super::pretty_json(&doc)?))?;
    } else {
        super::out(&verdicts_text(a.judge, summary, &results))?;
    }
    if failed > 0 {
        let names: Vec<String> = results
            .iter()
            .filter(|(_, v)| !v.passed)
            .map(|(n, _)| format!("`{n}`"))
            .collect();
        return Err(Error::Failed(format!(
            "{failed} balance check{} failed: {}",
            if failed == 1 { "" } else { "s" },
            names.join(", ")
        )));
    }
    Ok(())
}

/// The verdicts as `--json` prints them, with the run's summary.
fn verdicts_json(
    judge: Judge,
    summary: &Summary,
    results: &[(String, Verdict)],
) -> serde_json::Value {
    let val =
        |v: &crate::stats::Val| serde_json::json!({"estimate": v.est, "low": v.lo, "high": v.hi});
    let checks: Vec<serde_json::Value> = results
        .iter()
        .map(|(n, v)| {
            serde_json::json!({
                "name": n, "expr": v.expr, "passed": v.passed,
                "measured": v.measured.map(|(l, _)| val(&l)),
                "against": v.measured.map(|(_, r)| val(&r)),
                "parts": v.parts.iter().map(|(t, l, r)| serde_json::json!({
                    "metric": t, "measured": val(l), "against": val(r),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let judge = format!("{judge:?}").to_lowercase();
    serde_json::json!({ "judge": judge, "checks": checks, "summary": summary })
}

/// The verdicts as the terminal shows them: the run, a line a check, and the count.
fn verdicts_text(judge: Judge, summary: &Summary, results: &[(String, Verdict)]) -> String {
    let mut text = format!(
        "{}{} — {} games, seed {}, judged on the {}\n{}\n",
        summary.scenario.title,
        summary.with_overrides(),
        crate::report::thousands(summary.games),
        summary.seed,
        match judge {
            Judge::Estimate => "estimates",
            Judge::Interval => "95% intervals",
        },
        summary.agents()
    );
    for (name, v) in results {
        let _ = writeln!(
            text,
            "  {}  {name}  {}",
            if v.passed { "pass" } else { "FAIL" },
            describe(v)
        );
    }
    let failed = results.iter().filter(|(_, v)| !v.passed).count();
    let _ = writeln!(text, "{} passed, {failed} failed", results.len() - failed);
    text
}
