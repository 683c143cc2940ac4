//! `vpsim sweep`: win rates as parameters move. The parsing of values and the loading of a
//! point are shared with `vpsim sensitivity` (`super::sensitivity`).

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

/// A value as written in a sweep or sensitivity step: 12 significant digits, whole numbers
/// without a point.
pub(super) fn fmt_num(x: f64) -> String {
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
    /// With `--rotate-seats`, each seat's sole-win rate, whoever sat there (empty without).
    pub seats: Vec<Rate>,
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
    /// Whether a swept value is floored where it is stored (a real put in a variable, which
    /// holds whole numbers): between whole stored values the response is a step, and the
    /// chart draws the points alone.
    pub floored: bool,
    /// What pairing neighbouring points was worth (points 1 and 2, 3 and 4, ... play the same
    /// games side by side): the variance of two independent runs' difference over the
    /// paired one, the mean over factions and pairs; `null` with one point or no change.
    pub variance_reduction: Option<f64>,
}

/// The warnings of the points' models that say a swept real is floored where it is stored
/// (warnings the file's own values do not give), each once.
fn floored_warnings(models: &[(Vec<Override>, crate::Model)], base: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in models.iter().flat_map(|(_, m)| &m.warnings) {
        if w.contains("is stored in `") && !base.contains(w) && !out.contains(w) {
            out.push(w.clone());
        }
    }
    out
}

/// What a point's games came to, as text to compare points by: every faction's results,
/// scores and ranks, the lengths and the end reasons (not the point's own overrides).
fn outcome_print(s: &Summary) -> String {
    serde_json::to_string(&(
        &s.factions,
        &s.draws,
        &s.length,
        &s.end_reasons,
        &s.by_round,
    ))
    .unwrap_or_default()
}

/// For a sweep of one parameter, the first two neighbouring values whose points played
/// identical games (every point plays the same seeds), as a warning: between them the value
/// changes nothing (it is floored where it is used, or not read), so the response is a step
/// and the chart draws points only. Catches what the compile-time warning cannot: a swept
/// real floored inside a formula (`vp += catchup * lag`).
fn same_games(params: &[Param], points: &[Point], prints: &[String]) -> Option<String> {
    let [p] = params else {
        return None;
    };
    let at = (1..points.len()).find(|&i| prints[i] == prints[i - 1] && !prints[i].is_empty())?;
    Some(format!(
        "{} = {} and {} played identical games (every point plays the same seeds): between them the value changes nothing, as when it is floored where it is used, so the response is a step (the chart draws points only)",
        p.path,
        points[at - 1].values[0],
        points[at].values[0]
    ))
}

/// Compiles the scenario with the run's overrides and `extra`, before any game is played.
pub(super) fn load_point(
    path: &std::path::Path,
    o: &RunOpts,
    extra: &[Override],
) -> Result<crate::Model> {
    let sets: Vec<Override> = o.set.iter().chain(extra).cloned().collect();
    super::load(path, &sets, o.prep())
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

/// Plays two points on the same games, game `i` of one beside game `i` of the other (so
/// their difference is paired): each point's summary and the paired tally.
fn play_pair(
    ma: &crate::Model,
    mb: &crate::Model,
    o: &RunOpts,
) -> Result<(Summary, Summary, crate::compare::PairTally)> {
    let start = std::time::Instant::now();
    let threads = o.threads.map(|t| t as usize);
    let t = crate::compare::run_pair(ma, mb, o.seed, 0, o.games, threads, &|_| {})?;
    let (elapsed, used) = (start.elapsed(), threads.unwrap_or(0));
    let a = Summary::of(&RunInfo::of(ma, o.seed), 0, &t.a, elapsed, used);
    let b = Summary::of(&RunInfo::of(mb, o.seed), 0, &t.b, elapsed, used);
    Ok((a, b, t))
}

/// What pairing neighbouring points was worth, in one line (`None` when no pair's wins
/// differ): points are played two by two on the same games (1 with 2, 3 with 4, ...).
fn pairing_line(reduction: Option<f64>, games: u64) -> Option<String> {
    let r = reduction?;
    Some(format!(
        "Pairing: points are played two by two on the same games (1 with 2, 3 with 4, ...); it made their differences as precise as about {} independent games a point (variance reduction {r:.1}, the mean over factions and pairs).",
        crate::report::thousands(crate::compare::two_figures(games as f64 * r))
    ))
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
    let base = load_point(&a.scenario, o, &[])?.warnings;
    let floored = floored_warnings(&models, &base);
    for w in floored.iter().take(3) {
        crate::diagnostic::say(&format!(
            "warning: a swept value is floored where it is stored, so the response between whole stored values is a step (the chart draws points only): {w}"
        ));
    }
    let out = super::command_out_dir(&models[0].1.name, o, "sweep");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let mut points = Vec::new();
    let mut prints = Vec::new();
    let mut factions = Vec::new();
    let mut pairs = Vec::new();
    let cells: Vec<_> = grid.iter().zip(&models).collect();
    // Two by two: each pair of neighbouring points plays the same games side by side, so
    // what pairing is worth is measured at no extra cost.
    for two in cells.chunks(2) {
        if crate::signal::stopped() {
            return Err(Error::Interrupted);
        }
        let played = match two {
            [(_, (_, ma)), (_, (_, mb))] => {
                let (sa, sb, t) = play_pair(ma, mb, o)?;
                pairs.push(t);
                vec![sa, sb]
            }
            [(_, (_, m))] => vec![play_point(m, o)?],
            _ => unreachable!("chunks of two"),
        };
        for ((point, (extra, _)), s) in two.iter().zip(played) {
            factions = s.factions.iter().map(|f| f.name.clone()).collect();
            // Progress for a person watching: nothing on a redirected stderr but errors.
            if !o.quiet && !o.json && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                crate::diagnostic::say(&format!(
                    "  {}: done",
                    extra
                        .iter()
                        .map(|e| e.to_string())
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
            prints.push(outcome_print(&s));
            points.push(Point {
                values: point.iter().map(|(_, v)| v.clone()).collect(),
                win: s.factions.iter().map(|f| f.win).collect(),
                draws: s.draws,
                seats: s.seats.iter().map(|r| r.win).collect(),
            });
        }
    }
    let same = same_games(&a.param, &points, &prints);
    if let Some(w) = &same {
        crate::diagnostic::say(&format!("warning: {w}"));
    }
    let sweep = Sweep {
        scenario: a.scenario.display().to_string(),
        params: a.param.iter().map(|p| p.path.clone()).collect(),
        factions,
        games: o.games,
        seed: o.seed,
        points,
        floored: !floored.is_empty() || same.is_some(),
        variance_reduction: crate::compare::mean_reduction(&pairs),
    };
    let mut pairing = pairing_line(sweep.variance_reduction, sweep.games);
    if models.iter().all(|(_, m)| m.seats_unmoved) && !models.is_empty() {
        let note = format!("Seats: {}", crate::report::seats::unmoved_words());
        pairing = Some(pairing.map_or(note.clone(), |p| format!("{p}\n{note}")));
    }
    let json = serde_json::to_string_pretty(&sweep)
        .map_err(|e| Error::Usage(format!("cannot encode JSON: {e}")))?;
    if let Some(dir) = &out {
        crate::output::begin_report(dir)?;
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
                        (&xs, sweep.floored),
                        &series,
                        o.canvas(),
                    )?;
                }
            }
            [p, q] => {
                let maps: Vec<(String, Vec<Vec<Rate>>)> = sweep
                    .factions
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        let grid = (0..p.values.len())
                            .map(|x| {
                                (0..q.values.len())
                                    .map(|y| sweep.points[x * q.values.len() + y].win[i])
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
                    o.canvas(),
                )?;
            }
            _ => {}
        }
        let title = format!("Sweep: {}", models[0].1.title);
        let seats = sweep.points.first().map_or(0, |p| p.seats.len());
        let seat_cols: Vec<String> = (1..=seats).map(|i| format!("seat {i}")).collect();
        let mut md = super::report_header(
            &title,
            &models[0].1,
            o.seed,
            o.games,
            "per variant or point",
        );
        let _ = write!(
            md,
            "![Win rate against {}](sweep.svg)\n\nWin rate of each faction{} with its 95% interval at each point; every point plays the same seeds.\n\n| {} | {} |\n|{}\n",
            sweep.params.join(" and "),
            if seat_cols.is_empty() {
                ""
            } else {
                " and each seat (the factions rotated through the seats)"
            },
            sweep.params.join(" | "),
            sweep
                .factions
                .iter()
                .chain(&seat_cols)
                .cloned()
                .collect::<Vec<_>>()
                .join(" | "),
            "---|".repeat(sweep.params.len() + sweep.factions.len() + seat_cols.len())
        );
        for p in &sweep.points {
            let _ = writeln!(
                md,
                "| {} | {} |",
                p.values.join(" | "),
                p.win
                    .iter()
                    .chain(&p.seats)
                    .map(rate_cell)
                    .collect::<Vec<_>>()
                    .join(" | ")
            );
        }
        if let Some(p) = &pairing {
            let _ = writeln!(md, "\n{p}");
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
    // With rotated seats, each seat's sole wins after the factions'.
    let seats = sweep.points.first().map_or(0, |p| p.seats.len());
    for i in 1..=seats {
        let _ = write!(t, "{:>24}", format!("seat {i}"));
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
        for r in p.win.iter().chain(&p.seats) {
            let _ = write!(t, "{:>24}", rate_cell(r));
        }
        let _ = writeln!(t);
    }
    if let Some(p) = &pairing {
        let _ = writeln!(t, "\n{p}");
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
