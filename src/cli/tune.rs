//! `vpsim tune`: find parameter values that meet a balance goal.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::RunOpts;

mod answer;
mod json;
mod page;
mod table;
use crate::error::{Error, Result};
use crate::overrides::Override;
use crate::report::{RunInfo, Summary};
use crate::runner::RunSpec;
use crate::stats::Val;
use crate::tune::{Budget, Goal, Measured, Param, Search};

/// Find parameter values that meet a balance goal, on common random numbers.
#[derive(Debug, clap::Args)]
// Its results are one JSON file and a chart, not tables: no --csv offered.
#[command(mut_arg("csv", |a| a.hide(true)))]
#[command(after_help = "Examples:
  vpsim tune scenarios/race_to_three.toml --param settings.q=0.2:0.5 \\
    --goal 'seat_advantage = 0' --games 20000
  vpsim tune scenarios/race_to_three.toml --param settings.p=0.2:0.5 \\
    --param settings.q=0.2:0.5 --goal 'minimize max(win_rate) - min(win_rate)' --games 2000 --evals 10

GOAL is `EXPR = VALUE`, `minimize EXPR` or `maximize EXPR`, where EXPR is any metric expression
`vpsim check` accepts. One parameter with `EXPR = VALUE` is solved by bisection; anything else
by a compass search inside the bounds. Every candidate plays the same games 0..N of the seed
(common random numbers). The best value is then confirmed on games the search never played,
N..N+2 CONFIRM (one parameter with a target: a secant step on the first CONFIRM games, the
confirmation on the next), which gives the goal metric's 95% interval there and, for one parameter, an
interval for the value that meets the goal; for a whole-number one, the whole values on each side of
it are measured on the confirmation's games instead. The output names the trials within noise of
the best: their 95% intervals of |EXPR - VALUE| (or of EXPR, to minimize) overlap the best's.

Bounds written as whole numbers (2:6) tune a whole-number parameter; write 0.0:1.0 for a real.")]
pub struct Args {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// A parameter and its bounds, PATH=LO:HI (repeatable).
    #[arg(long, required = true, value_name = "PATH=LO:HI", value_parser = Param::parse)]
    pub param: Vec<Param>,
    /// The goal: `EXPR = VALUE`, `minimize EXPR` or `maximize EXPR`.
    #[arg(long, value_name = "GOAL", value_parser = Goal::parse, allow_hyphen_values = true)]
    pub goal: Goal,
    /// At most this many candidates (each plays --games games). Default: 16 for one
    /// parameter with `EXPR = VALUE`, 40 otherwise.
    #[arg(long, value_parser = evals)]
    pub evals: Option<u64>,
    /// Games of the confirmation run at the best value. Default: 4 x --games.
    #[arg(long, value_parser = super::parse_games)]
    pub confirm: Option<u64>,
    /// Run options.
    #[command(flatten)]
    pub opts: RunOpts,
}

fn evals(s: &str) -> std::result::Result<u64, String> {
    super::whole(s, 2, 10_000)
}

/// The metric of `goal` on a played summary.
/// A value that is not a finite number (a division by zero, say) steers no search and meets no
/// goal: it is refused, as `check` refuses to compare one.
fn metric(s: &Summary, goal: &Goal) -> Result<Val> {
    let v = crate::check::metric(s, goal.expr())
        .map_err(|e| Error::Usage(format!("--goal: `{}`: {}", goal.expr(), e.msg)))?;
    if !v.est.is_finite() {
        return Err(Error::Usage(format!(
            "--goal: `{}` is {} on the games played, not a finite number (a division by \
             zero?): write a metric that has a value",
            goal.expr(),
            v.est
        )));
    }
    Ok(v)
}

/// For `EXPR = VALUE`: whether VALUE is inside the confirmation's interval.
fn goal_met(goal: &Goal, v: &Val) -> Option<bool> {
    goal.target().map(|value| v.lo <= value && value <= v.hi)
}

fn fmt_val(v: &Val) -> String {
    format!("{:.4} [{:.4}, {:.4}]", v.est, v.lo, v.hi)
}

/// Parameter values in words: `settings.p = 0.3, settings.q = 0.4`.
fn values_words(a: &Args, xs: &[f64]) -> String {
    a.param
        .iter()
        .zip(xs)
        .map(|(p, x)| format!("{} = {}", p.path, p.show(*x)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A trial in words: `trial 5 (settings.edge = 3)`.
fn trial_words(a: &Args, s: &Search, i: usize) -> String {
    format!("trial {} ({})", i + 1, values_words(a, &s.trials[i].values))
}

fn fmt_x(x: f64) -> String {
    format!("{:.4}", x)
}

/// Runs `vpsim tune`.
pub fn run(a: Args) -> Result<()> {
    let o = &a.opts;
    o.refuse_csv("tune.json")?;
    o.check()?;
    o.check_params(&a.param.iter().map(|p| p.path.as_str()).collect::<Vec<_>>())?;
    let load = |xs: &[f64]| super::load(&a.scenario, &overrides(&a, xs), o.prep());
    // Both bounds of every parameter compile, and the goal names real metrics, before any
    // game is played.
    let start = start_values(&a)?;
    // An error the file or the other flags give at the start is theirs, not a bound's.
    let model = load(&start)?;
    check_bounds(&a, &start, &load)?;
    super::warn(&model);
    check_goal(&a.goal, &model, o.seed)?;
    let out = super::command_out_dir(&model.name, o, "tune");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let budget = Budget {
        evals: (a.evals).map_or(Budget::default_evals(&a.param, &a.goal), |e| e as usize),
        games: o.games,
        confirm: (a.confirm).unwrap_or(o.games.saturating_mul(4).min(super::MAX_GAMES)),
    };
    let most = budget.most_games(&a.param, &a.goal);
    let bar = super::progress_bar(most, o.quiet || o.json);
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    };
    let mut play = |xs: &[f64], first: u64, games: u64| -> Result<Measured> {
        let s = play(&load(xs)?, o, first, games, &tick)?;
        Ok(Measured {
            metric: metric(&s, &a.goal)?,
            seats: s.seats.iter().map(|r| r.win).collect(),
        })
    };
    let result = crate::tune::tune(&a.param, &a.goal, budget, &start, &mut play);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let tuned = result?;
    let doc = json::to_json(&a, &tuned);
    let mut text = table::table(&a, &tuned);
    if model.seats_unmoved {
        let _ = writeln!(text, "seats: {}", crate::report::seats::unmoved_words());
    }
    if let Some(dir) = &out {
        page::write_page(&a, &model, dir, &tuned, &doc, &text)?;
    }
    if o.json {
        return super::out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    }
    super::out(&text)
}

/// The `--set` overrides with the parameters at `xs`.
fn overrides(a: &Args, xs: &[f64]) -> Vec<Override> {
    let params = a.param.iter().zip(xs).map(|(p, x)| Override {
        path: p.path.clone(),
        value: p.show(*x),
    });
    a.opts.set.iter().cloned().chain(params).collect()
}

/// Where the search starts: the file's values (the middle of the bounds where a value lies
/// outside them, or where the file writes a formula, which the tried numbers replace).
fn start_values(a: &Args) -> Result<Vec<f64>> {
    let text = crate::overrides::apply(&crate::scenario::read_text(&a.scenario)?, &a.opts.set)?;
    let mut start = Vec::new();
    for p in &a.param {
        let now = match crate::overrides::current_value(&text, &p.path)? {
            crate::overrides::Current::Number(x) => Some(x),
            crate::overrides::Current::Formula(_) => None,
        };
        start.push(p.snap(match now {
            Some(x) if (p.lo..=p.hi).contains(&x) => x,
            _ => (p.lo + p.hi) / 2.0,
        }));
    }
    Ok(start)
}

/// Refuses a bound the scenario does not take (each parameter at each bound, the others at
/// `start`), naming the parameter.
fn check_bounds(
    a: &Args,
    start: &[f64],
    load: &dyn Fn(&[f64]) -> Result<crate::Model>,
) -> Result<()> {
    for (i, p) in a.param.iter().enumerate() {
        for x in [p.lo, p.hi] {
            let mut at = start.to_vec();
            at[i] = p.snap(x);
            load(&at).map_err(|e| {
                Error::Usage(format!(
                    "--param {}: the scenario does not take {}: {e}",
                    p.path,
                    p.show(at[i])
                ))
            })?;
        }
    }
    Ok(())
}

/// Refuses a goal that does not name real metrics of `model`, pointing at the column.
fn check_goal(goal: &Goal, model: &crate::Model, seed: u64) -> Result<()> {
    let info = RunInfo::of(model, seed);
    let tally = crate::runner::empty_tally(model);
    let empty = Summary::of(&info, 0, &tally, std::time::Duration::ZERO, 1);
    crate::check::metric(&empty, goal.expr()).map_err(|e| {
        Error::Usage(format!(
            "--goal: in `{}` at column {}: {}",
            crate::cli::check::clip(goal.expr(), e.pos),
            e.pos + 1,
            e.msg
        ))
    })?;
    Ok(())
}

/// Plays games `first..first + games` of `model` (stopping at Ctrl-C) and summarizes them.
fn play(
    model: &crate::Model,
    o: &RunOpts,
    first: u64,
    games: u64,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<Summary> {
    if crate::signal::stopped() {
        return Err(Error::Interrupted);
    }
    let spec = RunSpec {
        seed: o.seed,
        first,
        games,
        threads: o.threads.map(|t| t as usize),
    };
    let r = crate::runner::run(model, &spec, tick)?;
    let info = RunInfo::of(model, o.seed);
    Ok(Summary::of(&info, first, &r.tally, r.elapsed, r.threads))
}
