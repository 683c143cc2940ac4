//! `vpsim sweep` and `vpsim sensitivity`: win rates as parameters move.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use super::RunOpts;
use crate::error::{Error, Result};
use crate::overrides::Override;
use crate::report::{RunInfo, Summary};
use crate::stats::Rate;

/// `--param path=v1,v2,...` or `path=start:stop:step`.
#[derive(Debug, Clone)]
pub struct Param {
    /// Dotted path.
    pub path: String,
    /// Values to try, as written.
    pub values: Vec<String>,
}

fn parse_param(s: &str) -> std::result::Result<Param, String> {
    let (path, spec) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not PATH=VALUES (v1,v2,... or start:stop:step)"))?;
    let values: Vec<String> = if spec.contains(':') && !spec.contains(',') {
        let parts: Vec<f64> = spec
            .split(':')
            .map(|x| x.trim().parse::<f64>())
            .collect::<std::result::Result<_, _>>()
            .map_err(|_| format!("`{spec}` is not start:stop:step"))?;
        let [start, stop, step] = parts[..] else {
            return Err(format!("`{spec}` is not start:stop:step"));
        };
        if step <= 0.0 || stop < start {
            return Err(format!(
                "`{spec}`: step must be positive and stop at least start"
            ));
        }
        let n = ((stop - start) / step + 1e-9).floor() as usize + 1;
        if n > 1000 {
            return Err(format!("`{spec}` makes {n} points; at most 1000"));
        }
        (0..n).map(|i| fmt_num(start + i as f64 * step)).collect()
    } else {
        let values: Vec<String> = spec.split(',').map(|v| v.trim().to_string()).collect();
        if values.iter().any(|v| v.is_empty()) {
            return Err(format!(
                "`{spec}` has an empty value: separate values by single commas, e.g. 0.2,0.3"
            ));
        }
        // A value given twice plays the same point twice: a typo, not a wish.
        if let Some((i, v)) = values
            .iter()
            .enumerate()
            .find(|(i, v)| values[..*i].contains(v))
        {
            return Err(format!(
                "`{spec}` gives `{v}` twice (values {} and {}): give each value once",
                values[..i].iter().position(|w| w == v).unwrap_or(0) + 1,
                i + 1
            ));
        }
        values
    };
    if values.is_empty() {
        return Err(format!("`{s}` names no values"));
    }
    Ok(Param {
        path: path.trim().to_string(),
        values,
    })
}

/// A win rate in a sweep's tables: `48.1% [47.4, 48.8]`.
fn rate_cell(r: &Rate) -> String {
    format!(
        "{:.1}% [{:.1}, {:.1}]",
        100.0 * r.rate,
        100.0 * r.low,
        100.0 * r.high
    )
}

/// One parameter's effect on one win rate in sensitivity's tables: the change in points one
/// step down and one step up from `base`, `-1.2 / +0.8`.
fn step_cell(down: &Rate, up: &Rate, base: f64) -> String {
    format!(
        "{:+.1} / {:+.1}",
        100.0 * (down.rate - base),
        100.0 * (up.rate - base)
    )
}

fn fmt_num(x: f64) -> String {
    // 12 significant digits: `start + i * step` loses its last bits of noise (0.1 + 0.2 is
    // 0.3), and a value of any size keeps its own (1e-12 stays 1e-12).
    let r: f64 = format!("{x:.11e}").parse().unwrap_or(x);
    if r.fract() == 0.0 && r.abs() < 9e15 {
        format!("{}", r as i64)
    } else {
        format!("{r}")
    }
}

/// Run the scenario at each value of one or two parameters.
#[derive(Debug, clap::Args)]
// Its results are one JSON file and a chart, not tables: no --csv offered.
#[command(mut_arg("csv", |a| a.hide(true)))]
#[command(after_help = "Examples:
  vpsim sweep scenarios/race_to_three.toml --param settings.p=0.2:0.5:0.05 --games 20000
  vpsim sweep scenarios/race_to_three.toml --param settings.p=0.3,0.4 \\
    --param settings.q=0.3,0.4 --json")]
pub struct SweepArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// A parameter and its values: PATH=v1,v2,... or PATH=start:stop:step (once or twice).
    #[arg(long, required = true, value_parser = parse_param)]
    pub param: Vec<Param>,
    /// Run options.
    #[command(flatten)]
    pub opts: RunOpts,
}

/// One point of a sweep.
#[derive(Debug, Serialize)]
pub struct Point {
    /// The parameters' values at this point.
    pub values: Vec<String>,
    /// Win rate of each faction.
    pub win: Vec<Rate>,
    /// Draw rate.
    pub draws: Rate,
}

/// What `vpsim sweep --json` prints.
#[derive(Debug, Serialize)]
pub struct Sweep {
    /// Scenario file.
    pub scenario: String,
    /// Parameter paths.
    pub params: Vec<String>,
    /// Factions.
    pub factions: Vec<String>,
    /// Games per point.
    pub games: u64,
    /// Seed (every point plays the same seeds).
    pub seed: u64,
    /// The points, first parameter slowest.
    pub points: Vec<Point>,
}

/// Compiles the scenario with the run's overrides and `extra`, before any game is played.
fn load_point(path: &std::path::Path, o: &RunOpts, extra: &[Override]) -> Result<crate::Model> {
    let sets: Vec<Override> = o.set.iter().chain(extra).cloned().collect();
    super::load(path, &sets, o.engine)
}

/// A sweep point's value the scenario refuses, named by the flag that gave it.
fn as_param(e: Error, point: &[Override]) -> Error {
    match e {
        Error::Usage(m) => Error::Usage(
            point
                .iter()
                .find_map(|x| {
                    m.strip_prefix(&format!("--set {x}: "))
                        .map(|rest| format!("--param {x}: {rest}"))
                })
                .unwrap_or(m),
        ),
        e => e,
    }
}

/// Plays one compiled point quietly and summarises it.
fn play_point(model: &crate::Model, o: &RunOpts) -> Result<Summary> {
    let mut quiet = o.clone();
    quiet.quiet = true;
    let p = super::run::play(model, &quiet, 0, o.games, None)?;
    let info = RunInfo::of(model, o.seed);
    Ok(Summary::of(&info, 0, &p.tally, p.elapsed, p.threads))
}

/// Runs `vpsim sweep`.
pub fn sweep(a: SweepArgs) -> Result<()> {
    if a.param.len() > 2 {
        return Err(Error::Usage(
            "--param: a sweep takes one or two parameters".into(),
        ));
    }
    let o = &a.opts;
    o.refuse_csv("sweep.json")?;
    o.check()?;
    o.check_params(&a.param.iter().map(|p| p.path.as_str()).collect::<Vec<_>>())?;
    let grid: Vec<Vec<(String, String)>> = match a.param.as_slice() {
        [p] => p
            .values
            .iter()
            .map(|v| vec![(p.path.clone(), v.clone())])
            .collect(),
        [p, q] => p
            .values
            .iter()
            .flat_map(|v| {
                q.values
                    .iter()
                    .map(move |w| vec![(p.path.clone(), v.clone()), (q.path.clone(), w.clone())])
            })
            .collect(),
        _ => unreachable!("checked above"),
    };
    // Every point compiles and the output folder is checked before the first game.
    let models = grid
        .iter()
        .map(|point| {
            let extra: Vec<Override> = point
                .iter()
                .map(|(p, v)| Override {
                    path: p.clone(),
                    value: v.clone(),
                })
                .collect();
            let loaded = load_point(&a.scenario, o, &extra).map_err(|e| as_param(e, &extra))?;
            Ok((extra, loaded))
        })
        .collect::<Result<Vec<_>>>()?;
    let out = super::command_out_dir(&models[0].1.name, o, "sweep");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let mut points = Vec::new();
    let mut factions = Vec::new();
    for (point, (extra, model)) in grid.iter().zip(&models) {
        if crate::signal::stopped() {
            return Err(Error::Interrupted);
        }
        let s = play_point(model, o)?;
        factions = s.factions.iter().map(|f| f.name.clone()).collect();
        if !o.quiet && !o.json {
            crate::diagnostic::say(&format!(
                "  {}: done",
                extra
                    .iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
        points.push(Point {
            values: point.iter().map(|(_, v)| v.clone()).collect(),
            win: s.factions.iter().map(|f| f.win).collect(),
            draws: s.draws,
        });
    }
    let sweep = Sweep {
        scenario: a.scenario.display().to_string(),
        params: a.param.iter().map(|p| p.path.clone()).collect(),
        factions,
        games: o.games,
        seed: o.seed,
        points,
    };
    let json = serde_json::to_string_pretty(&sweep)
        .map_err(|e| Error::Usage(format!("cannot encode JSON: {e}")))?;
    if let Some(dir) = &out {
        crate::output::clear_report(dir)?;
        crate::output::write_atomic(&dir.join("sweep.json"), json.as_bytes())?;
        let title = format!("Win rate against {}", sweep.params.join(" and "));
        let sub = super::chart_subtitle(&a.scenario, o, "per point");
        match a.param.as_slice() {
            [p] => {
                let xs: Option<Vec<f64>> = p.values.iter().map(|v| v.parse().ok()).collect();
                if let Some(xs) = xs {
                    let series: Vec<(String, Vec<Rate>)> = sweep
                        .factions
                        .iter()
                        .enumerate()
                        .map(|(i, f)| {
                            (f.clone(), sweep.points.iter().map(|pt| pt.win[i]).collect())
                        })
                        .collect();
                    crate::report::charts::write_sweep_lines(
                        dir,
                        "sweep",
                        (&title, &sub),
                        &p.path,
                        &xs,
                        &series,
                        o.chart_size,
                    )?;
                }
            }
            [p, q] => {
                let maps: Vec<(String, Vec<Vec<f64>>)> = sweep
                    .factions
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let grid = (0..p.values.len())
                            .map(|x| {
                                (0..q.values.len())
                                    .map(|y| sweep.points[x * q.values.len() + y].win[i].rate)
                                    .collect()
                            })
                            .collect();
                        (f.clone(), grid)
                    })
                    .collect();
                crate::report::charts::write_heat_maps(
                    dir,
                    "sweep",
                    (&title, &sub),
                    (
                        (p.path.as_str(), p.values.as_slice()),
                        (q.path.as_str(), q.values.as_slice()),
                    ),
                    &maps,
                    o.chart_size,
                )?;
            }
            _ => {}
        }
        let title = format!("Sweep: {}", models[0].1.title);
        let mut md = super::report_header(
            &title,
            &models[0].1,
            o.seed,
            o.games,
            "per variant or point",
        );
        let _ = write!(
            md,
            "![Win rate against {}](sweep.svg)\n\nWin rate of each faction with its 95% interval at each point; every point plays the same seeds.\n\n| {} | {} |\n|{}\n",
            sweep.params.join(" and "),
            sweep.params.join(" | "),
            sweep.factions.join(" | "),
            "---|".repeat(sweep.params.len() + sweep.factions.len())
        );
        for p in &sweep.points {
            let _ = writeln!(
                md,
                "| {} | {} |",
                p.values.join(" | "),
                p.win.iter().map(rate_cell).collect::<Vec<_>>().join(" | ")
            );
        }
        super::write_report(dir, &md, &title)?;
    }
    if o.json {
        return super::out(&format!("{json}\n"));
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: win rate [95% CI] per point, {} games each, seed {} (every point plays the same seeds)\n",
        sweep.scenario,
        crate::report::thousands(sweep.games),
        sweep.seed
    );
    let head: Vec<String> = sweep.params.clone();
    let _ = write!(
        t,
        "{}",
        head.iter().map(|h| format!("{h:<22}")).collect::<String>()
    );
    for f in &sweep.factions {
        let _ = write!(t, "{f:>24}");
    }
    let _ = writeln!(t);
    for p in &sweep.points {
        let _ = write!(
            t,
            "{}",
            p.values
                .iter()
                .map(|v| format!("{v:<22}"))
                .collect::<String>()
        );
        for r in &p.win {
            let _ = write!(t, "{:>24}", rate_cell(r));
        }
        let _ = writeln!(t);
    }
    super::out(&t)
}

/// Move each parameter one step down and up and measure the effect on every win rate.
#[derive(Debug, clap::Args)]
// Its results are one JSON file and a chart, not tables: no --csv offered.
#[command(mut_arg("csv", |a| a.hide(true)))]
#[command(after_help = "Examples:
  vpsim sensitivity scenarios/race_to_three.toml --param settings.p \\
    --param settings.q=0.05 --games 20000

A step defaults to 10% of the parameter's value (1 for whole numbers).")]
pub struct SensitivityArgs {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// A numeric value to move: PATH or PATH=STEP (repeatable).
    #[arg(long, required = true)]
    pub param: Vec<String>,
    /// Run options.
    #[command(flatten)]
    pub opts: RunOpts,
}

/// One parameter's effect.
#[derive(Debug, Serialize)]
pub struct Effect {
    /// Parameter path.
    pub param: String,
    /// Its value in the file.
    pub base: f64,
    /// The step.
    pub step: f64,
    /// Win rates one step down.
    pub down: Vec<Rate>,
    /// Win rates one step up.
    pub up: Vec<Rate>,
}

/// What `vpsim sensitivity --json` prints.
#[derive(Debug, Serialize)]
pub struct Sensitivity {
    /// Scenario file.
    pub scenario: String,
    /// Factions.
    pub factions: Vec<String>,
    /// Win rates at the file's values.
    pub base: Vec<Rate>,
    /// Games per run.
    pub games: u64,
    /// Seed (every run plays the same seeds).
    pub seed: u64,
    /// Per parameter, largest swing first.
    pub effects: Vec<Effect>,
}

/// Runs `vpsim sensitivity`.
pub fn sensitivity(a: SensitivityArgs) -> Result<()> {
    let o = &a.opts;
    o.refuse_csv("sensitivity.json")?;
    o.check()?;
    // The values each parameter moves from are the scenario's with `--set` applied: the
    // baseline's.
    let text = crate::overrides::apply(&crate::scenario::read_text(&a.scenario)?, &o.set)?;
    // Every step compiles and the output folder is checked before the first game.
    let mut plan = Vec::new();
    for p in &a.param {
        let (path, step) = match p.split_once('=') {
            Some((path, s)) => (
                path.trim().to_string(),
                Some(
                    s.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && *x > 0.0)
                        .ok_or_else(|| {
                            Error::Usage(format!(
                                "--param {p}: `{s}` is not a step: give a positive number, e.g. {path}=0.05"
                            ))
                        })?,
                ),
            ),
            None => (p.trim().to_string(), None),
        };
        let value = crate::overrides::current_number(&text, &path)?;
        // A whole number (0 included) moves by 1; any other value by a tenth of itself.
        let step = step.unwrap_or(if value.fract() == 0.0 {
            1.0
        } else {
            value.abs() * 0.1
        });
        let mut ends = Vec::new();
        for v in [value - step, value + step] {
            let at = Override {
                path: path.clone(),
                value: fmt_num(v),
            };
            let loaded = load_point(&a.scenario, o, std::slice::from_ref(&at)).map_err(|e| {
                Error::Usage(format!(
                    "--param {p}: one step from {} is {}, which the scenario does not take: {e}\n  give the step yourself: --param {path}=STEP",
                    fmt_num(value),
                    fmt_num(v),
                ))
            })?;
            ends.push(loaded);
        }
        plan.push((path, value, step, ends));
    }
    let out = super::command_out_dir(&plan[0].3[0].name, o, "sensitivity");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let base_model = load_point(&a.scenario, o, &[])?;
    let base = play_point(&base_model, o)?;
    let mut effects = Vec::new();
    for (path, value, step, ends) in plan {
        if crate::signal::stopped() {
            return Err(Error::Interrupted);
        }
        let down = play_point(&ends[0], o)?;
        let up = play_point(&ends[1], o)?;
        effects.push(Effect {
            param: path,
            base: value,
            step,
            down: down.factions.iter().map(|f| f.win).collect(),
            up: up.factions.iter().map(|f| f.win).collect(),
        });
    }
    let swing = |e: &Effect| {
        e.down
            .iter()
            .zip(&e.up)
            .map(|(d, u)| (u.rate - d.rate).abs())
            .fold(0.0, f64::max)
    };
    effects.sort_by(|x, y| swing(y).total_cmp(&swing(x)));
    let s = Sensitivity {
        scenario: a.scenario.display().to_string(),
        factions: base.factions.iter().map(|f| f.name.clone()).collect(),
        base: base.factions.iter().map(|f| f.win).collect(),
        games: o.games,
        seed: o.seed,
        effects,
    };
    let json = serde_json::to_string_pretty(&s)
        .map_err(|e| Error::Usage(format!("cannot encode JSON: {e}")))?;
    if let Some(dir) = &out {
        crate::output::clear_report(dir)?;
        crate::output::write_atomic(&dir.join("sensitivity.json"), json.as_bytes())?;
        let params: Vec<String> = s.effects.iter().map(|e| e.param.clone()).collect();
        let effects: Vec<(String, Vec<(f64, f64)>)> = s
            .factions
            .iter()
            .enumerate()
            .map(|(i, f)| {
                (
                    f.clone(),
                    s.effects
                        .iter()
                        .map(|e| {
                            (
                                e.down[i].rate - s.base[i].rate,
                                e.up[i].rate - s.base[i].rate,
                            )
                        })
                        .collect(),
                )
            })
            .collect();
        crate::report::charts::write_tornado(
            dir,
            "tornado",
            (
                "Effect of one step of each parameter on win rates",
                &super::chart_subtitle(&a.scenario, o, "per run"),
            ),
            &params,
            &effects,
            o.chart_size,
        )?;
        let title = format!("Sensitivity: {}", base_model.title);
        let mut md =
            super::report_header(&title, &base_model, o.seed, o.games, "per variant or point");
        let _ = write!(
            md,
            "![Effect of one step of each parameter on win rates](tornado.svg)\n\nChange in each faction's win rate, in points, one step down / one step up; every run plays the same seeds.\n\n| parameter | value | step | {} |\n|---|---|---|{}\n",
            s.factions.join(" | "),
            "---|".repeat(s.factions.len())
        );
        for e in &s.effects {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                e.param,
                fmt_num(e.base),
                fmt_num(e.step),
                e.down
                    .iter()
                    .zip(&e.up)
                    .zip(&s.base)
                    .map(|((d, u), b)| step_cell(d, u, b.rate))
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        super::write_report(dir, &md, &title)?;
    }
    if o.json {
        return super::out(&format!("{json}\n"));
    }
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: change in win rate (points) one step down / up, {} games per run, seed {}\n",
        s.scenario,
        crate::report::thousands(s.games),
        s.seed
    );
    let labels: Vec<String> = s
        .effects
        .iter()
        .map(|e| format!("{} ({} ± {})", e.param, fmt_num(e.base), fmt_num(e.step)))
        .collect();
    let lw = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(24)
        + 2;
    let _ = write!(t, "{:<lw$}", "parameter (value ± step)");
    for f in &s.factions {
        let _ = write!(t, "{f:>20}");
    }
    let _ = writeln!(t);
    for (e, label) in s.effects.iter().zip(&labels) {
        let _ = write!(t, "{label:<lw$}");
        for (i, (d, u)) in e.down.iter().zip(&e.up).enumerate() {
            let b = s.base[i].rate;
            let _ = write!(t, "{:>20}", step_cell(d, u, b));
        }
        let _ = writeln!(t);
    }
    super::out(&t)
}

#[cfg(test)]
mod tests {
    use super::{fmt_num, parse_param};

    #[test]
    fn sweep_values_keep_their_size_and_lose_float_noise() {
        assert_eq!(fmt_num(0.1 + 0.2), "0.3");
        assert_eq!(fmt_num(0.2 + 7.0 * 0.05), "0.55");
        assert_eq!(fmt_num(3.0), "3");
        assert_eq!(fmt_num(-2.0), "-2");
        assert_eq!(fmt_num(1e-12), "0.000000000001");
        assert_eq!(fmt_num(1e-12 + 2.0 * 1e-12), "0.000000000003");
        assert_eq!(fmt_num(123456.789), "123456.789");
    }

    #[test]
    fn a_range_of_tiny_values_plays_them_and_an_empty_value_is_an_error() {
        let p = parse_param("settings.p=1e-12:3e-12:1e-12").unwrap();
        assert_eq!(
            p.values,
            ["0.000000000001", "0.000000000002", "0.000000000003"]
        );
        assert!(
            parse_param("settings.p=0.2,,0.3")
                .unwrap_err()
                .contains("empty value")
        );
    }

    #[test]
    fn a_value_given_twice_is_an_error() {
        let e = parse_param("settings.p=0.2,0.3,0.2").unwrap_err();
        assert!(e.contains("`0.2` twice (values 1 and 3)"), "{e}");
        assert_eq!(
            parse_param("settings.p=0.2,0.3").unwrap().values,
            ["0.2", "0.3"]
        );
    }
}
