//! `vpsim tune`: find parameter values that meet a balance goal.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::RunOpts;

mod answer;
mod json;
use crate::error::{Error, Result};
use crate::overrides::Override;
use crate::report::{RunInfo, Summary};
use crate::runner::RunSpec;
use crate::stats::Val;
use crate::tune::{Goal, Noise, Param, Search, Whole};
use answer::{chosen, headline, sides_words};
use json::to_json;

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

/// The secant step after a one-parameter search: where it was measured, and what it measured.
struct Refined {
    at: f64,
    first: u64,
    metric: Val,
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

/// For one whole-number parameter with a target: where the line through the confirmation
/// with the local slope crosses VALUE, and the whole values on each side of it, measured on
/// the confirmation's games.
struct Sides {
    crossing: f64,
    values: Vec<(f64, Val)>,
    verdict: Whole,
}

/// What a tune found: the search, its refinement, and the confirmation run
/// (games `first..first + confirm`) with, for one real parameter, the value's interval, or for
/// a whole-number one the whole values beside it; and the trials within noise of the best.
struct Tuned {
    s: Search,
    refined: Option<Refined>,
    first: u64,
    confirm: u64,
    confirmed: Val,
    /// With `--rotate-seats`, each seat's sole-win rate at the best value, on the
    /// confirmation's games (empty without rotation).
    seats: Vec<crate::stats::Rate>,
    interval: Option<(f64, f64)>,
    sides: Option<Sides>,
    noise: Option<Noise>,
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

/// The trials within noise of the best, and the criterion, in words.
fn noise_words(a: &Args, s: &Search, n: &Noise) -> String {
    // A long compass search can leave many: the rest are in the JSON and report.md.
    const SHOWN: usize = 10;
    let mut list: Vec<String> = n
        .within
        .iter()
        .take(SHOWN)
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

/// The terminal table (also the body of report.md).
fn table(a: &Args, r: &Tuned) -> String {
    let o = &a.opts;
    let Tuned {
        s,
        refined,
        first,
        confirm,
        confirmed,
        seats,
        interval,
        sides,
        noise,
    } = r;
    let (first, confirm, interval) = (*first, *confirm, *interval);
    let mut t = String::new();
    let aim = match &a.goal {
        Goal::Equal { expr, value } => format!("{expr} = {value}"),
        Goal::Minimize { expr } => format!("minimize {expr}"),
    };
    let _ = writeln!(
        t,
        "{}: tune {} for `{aim}`",
        a.scenario.display(),
        a.param
            .iter()
            .map(|p| format!("{} in {}..{}", p.path, p.show(p.lo), p.show(p.hi)))
            .collect::<Vec<_>>()
            .join(", ")
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
    let w: Vec<usize> = a
        .param
        .iter()
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
    // Every other trial within noise of the best: the search games single out no best.
    let undecided = noise
        .as_ref()
        .is_some_and(|n| s.trials.len() > 1 && n.within.len() + 1 == s.trials.len());
    if undecided {
        let _ = writeln!(
            t,
            "\nno trial differs from the others beyond noise: the lowest loss was at {} (undecided; more --games would tell the trials apart)",
            values_words(a, &s.best)
        );
    } else if sides.is_some() {
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
    if let Some(r) = refined {
        let _ = writeln!(
            t,
            "refinement on games {}..{}: at {} the metric is {}; one secant step moves to {}",
            crate::report::thousands(r.first),
            crate::report::thousands(r.first + confirm),
            a.param[0].show(r.at),
            fmt_val(&r.metric),
            a.param[0].show(s.best[0])
        );
    }
    let _ = writeln!(
        t,
        "confirmation on games {}..{} (played by nothing before): {}",
        crate::report::thousands(first),
        crate::report::thousands(first + confirm),
        fmt_val(confirmed)
    );
    if !seats.is_empty() {
        let each: Vec<String> = (seats.iter().enumerate())
            .map(|(i, r)| {
                let pc = |x: f64| format!("{:.1}", 100.0 * x);
                format!(
                    "seat {} {}% [{}, {}]",
                    i + 1,
                    pc(r.rate),
                    pc(r.low),
                    pc(r.high)
                )
            })
            .collect();
        let _ = writeln!(
            t,
            "seats at the best value there (the factions rotated; sole wins): {}",
            each.join(", ")
        );
    }
    if let Goal::Equal { value, .. } = &a.goal {
        let met = goal_met(&a.goal, confirmed) == Some(true);
        // More games or evaluations narrow a real parameter's search; a whole-number one is
        // judged by its whole values below, and only a crossing that is off wants more games.
        let advice = s.bracketed && sides.as_ref().is_none_or(|w| w.verdict == Whole::Missed);
        let _ = writeln!(
            t,
            "{}",
            if met {
                format!("the goal {value} is inside the interval: met within noise")
            } else {
                format!(
                    "the goal {value} is outside the interval: not met beyond noise{}",
                    if advice {
                        "; more --games or --evals narrow the search"
                    } else {
                        ""
                    }
                )
            }
        );
        if let Some(w) = sides {
            t.push_str(&sides_words(a, w, first, confirm, *value));
        }
    }
    if let Some((lo, hi)) = interval {
        let p = &a.param[0];
        let _ = writeln!(
            t,
            "{} that meets the goal: 95% interval [{}, {}] (from the confirmation and the local slope)",
            p.path,
            fmt_x(lo),
            fmt_x(hi)
        );
    }
    t
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
    let text = crate::overrides::apply(&crate::scenario::read_text(&a.scenario)?, &o.set)?;
    // Both bounds of every parameter compile, and the goal names real metrics, before any
    // game is played.
    let load = |xs: &[f64]| -> Result<crate::Model> {
        let sets: Vec<Override> = o
            .set
            .iter()
            .cloned()
            .chain(a.param.iter().zip(xs).map(|(p, x)| Override {
                path: p.path.clone(),
                value: p.show(*x),
            }))
            .collect();
        super::load(&a.scenario, &sets, o.prep())
    };
    // The search starts from the file's values (the middle of the bounds where a value lies
    // outside them, or where the file writes a formula, which the tried numbers replace).
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
    // An error the file or the other flags give at the start is theirs, not a bound's.
    let model = load(&start)?;
    for (i, p) in a.param.iter().enumerate() {
        for x in [p.lo, p.hi] {
            let mut at = start.clone();
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
    super::warn(&model);
    let info = RunInfo::of(&model, o.seed);
    let empty = Summary::of(
        &info,
        0,
        &crate::runner::empty_tally(&model),
        std::time::Duration::ZERO,
        1,
    );
    crate::check::metric(&empty, a.goal.expr()).map_err(|e| {
        Error::Usage(format!(
            "--goal: in `{}` at column {}: {}",
            crate::cli::check::clip(a.goal.expr(), e.pos),
            e.pos + 1,
            e.msg
        ))
    })?;
    let out = super::command_out_dir(&model.name, o, "tune");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let evals = a.evals.map_or(
        match (a.param.len(), &a.goal) {
            (1, Goal::Equal { .. }) => 16,
            _ => 40,
        },
        |e| e as usize,
    );
    let confirm = a
        .confirm
        .unwrap_or(o.games.saturating_mul(4).min(super::MAX_GAMES));
    // The refinement and the confirmation, and for one whole-number parameter with a target,
    // the other whole value beside the crossing.
    let whole = matches!((a.param.as_slice(), &a.goal), ([p], Goal::Equal { .. }) if p.integer);
    let bar = super::progress_bar(
        (evals as u64)
            .saturating_mul(o.games)
            .saturating_add(confirm.saturating_mul(if whole { 3 } else { 2 })),
        o.quiet || o.json,
    );
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    };
    let threads = o.threads.map(|t| t as usize);
    let play = |xs: &[f64], first: u64, games: u64| -> Result<Summary> {
        if crate::signal::stopped() {
            return Err(Error::Interrupted);
        }
        let m = load(xs)?;
        let spec = RunSpec {
            seed: o.seed,
            first,
            games,
            threads,
        };
        let r = crate::runner::run(&m, &spec, &tick)?;
        let info = RunInfo::of(&m, o.seed);
        Ok(Summary::of(&info, first, &r.tally, r.elapsed, r.threads))
    };
    let result = (|| {
        let mut s = crate::tune::search(&a.param, &a.goal, evals, &start, &mut |xs| {
            metric(&play(xs, 0, o.games)?, &a.goal)
        })?;
        let mut next = o.games;
        // One parameter with a target: one secant step from the search's root, measured on
        // fresh games, removes most of the search's own noise from the chosen value.
        let refined = match (a.goal.target(), s.slope, a.param.as_slice()) {
            (Some(value), Some(slope), [p]) if s.bracketed => {
                let at = s.best[0];
                let v = metric(&play(&[at], next, confirm)?, &a.goal)?;
                let r = Refined {
                    at,
                    first: next,
                    metric: v,
                };
                next += confirm;
                s.best[0] = p.snap(at - (v.est - value) / slope);
                Some(r)
            }
            _ => None,
        };
        let run = play(&s.best, next, confirm)?;
        let confirmed = metric(&run, &a.goal)?;
        let seats: Vec<crate::stats::Rate> = run.seats.iter().map(|r| r.win).collect();
        // A whole-number parameter cannot take a value between two whole ones: the whole
        // values on each side of where the line through the confirmation (with the slope the
        // refinement stepped along) crosses VALUE are measured on the confirmation's games.
        let sides = match (a.goal.target(), s.slope, a.param.as_slice()) {
            (Some(value), Some(slope), [p]) if p.integer && refined.is_some() => {
                let crossing = s.best[0] - (confirmed.est - value) / slope;
                let mut values = Vec::new();
                for x in crate::tune::whole_sides(p, crossing) {
                    let v = if x == s.best[0] {
                        confirmed
                    } else {
                        metric(&play(&[x], next, confirm)?, &a.goal)?
                    };
                    values.push((x, v));
                }
                let metrics: Vec<Val> = values.iter().map(|(_, v)| *v).collect();
                Some(Sides {
                    crossing,
                    verdict: Whole::judge(&metrics, value),
                    values,
                })
            }
            _ => None,
        };
        Ok::<_, Error>((s, refined, next, confirmed, seats, sides))
    })();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let (s, refined, first, confirmed, seats, sides) = result?;
    // The value's interval needs the same slope the refinement stepped along; a whole-number
    // parameter has its whole values instead.
    let interval = refined
        .as_ref()
        .filter(|_| sides.is_none())
        .and(a.goal.target())
        .zip(s.slope)
        .map(|(value, slope)| crate::tune::value_interval(s.best[0], &confirmed, value, slope));
    let noise = crate::tune::within_noise(&s, &a.goal);
    let tuned = Tuned {
        s,
        refined,
        first,
        confirm,
        confirmed,
        seats,
        interval,
        sides,
        noise,
    };
    let doc = to_json(&a, &tuned);
    let mut text = table(&a, &tuned);
    if model.seats_unmoved {
        let _ = writeln!(text, "seats: {}", crate::report::seats::unmoved_words());
    }
    let (chosen, chosen_key) = chosen(&a, &tuned);
    let Tuned {
        s,
        confirmed: tuned_confirmed,
        interval,
        noise,
        ..
    } = tuned;
    if let Some(dir) = &out {
        crate::output::begin_report(dir)?;
        let json = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::Usage(format!("cannot encode JSON: {e}")))?;
        crate::output::write_atomic(&dir.join("tune.json"), json.as_bytes())?;
        let sub = super::chart_subtitle(&a.scenario, o, "per trial");
        let target = a.goal.target();
        let panels: Vec<crate::report::charts::TunePanel> = a
            .param
            .iter()
            .enumerate()
            .map(|(i, p)| crate::report::charts::TunePanel {
                label: p.path.clone(),
                range: (p.lo, p.hi),
                tried: s.trials.iter().map(|t| (t.values[i], t.metric)).collect(),
                chosen: match i {
                    0 => chosen.clone(),
                    _ => vec![(s.best[i], tuned_confirmed)],
                },
                chosen_key: chosen_key.clone(),
                band: if i == 0 { interval } else { None },
            })
            .collect();
        let title = format!("Goal metric: {}", a.goal.expr());
        if let [px, py] = &a.param[..] {
            // Two parameters: one map of the trials, colored by the loss, instead of two
            // panels that each flatten the other parameter into noise.
            let map = crate::report::charts::TuneMap {
                axes: [
                    (px.path.clone(), (px.lo, px.hi)),
                    (py.path.clone(), (py.lo, py.hi)),
                ],
                trials: s
                    .trials
                    .iter()
                    .map(|t| (t.values[0], t.values[1], a.goal.loss(&t.metric)))
                    .collect(),
                best: (s.best[0], s.best[1]),
                loss: a.goal.loss_words(),
            };
            crate::report::charts::write_tune_map(dir, "tune", (&title, &sub), &map, o.canvas())?;
        } else {
            crate::report::charts::write_tune(
                dir,
                "tune",
                (&title, &sub),
                target,
                &panels,
                o.canvas(),
            )?;
        }
        let title = format!("Tune: {}", model.title);
        let mut md = super::report_header(&title, &model, o.seed, o.games, "per variant or point");
        let _ = write!(
            md,
            "![Goal metric against the tuned parameters](tune.svg)\n\n```text\n{text}```\n\n## Trials\n\n| trial | {} | goal metric | low | high | vs the best |\n|---|{}---|---|---|---|\n",
            a.param
                .iter()
                .map(|p| p.path.as_str())
                .collect::<Vec<_>>()
                .join(" | "),
            "---|".repeat(a.param.len())
        );
        for (i, tr) in s.trials.iter().enumerate() {
            // Within noise: their 95% intervals of the goal's loss overlap the best trial's.
            let vs = match &noise {
                Some(n) if n.best == i => "best",
                Some(n) if n.within.contains(&i) => "within noise",
                Some(_) => "beyond noise",
                None => "",
            };
            let _ = writeln!(
                md,
                "| {} | {} | {:.4} | {:.4} | {:.4} | {vs} |",
                i + 1,
                a.param
                    .iter()
                    .zip(&tr.values)
                    .map(|(p, x)| p.show(*x))
                    .collect::<Vec<_>>()
                    .join(" | "),
                tr.metric.est,
                tr.metric.lo,
                tr.metric.hi
            );
        }
        super::write_report(dir, &md, &title)?;
    }
    if o.json {
        return super::out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    }
    super::out(&text)
}
