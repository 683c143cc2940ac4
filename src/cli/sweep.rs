//! `vpsim sweep`: win rates as parameters move. The parsing of values and the loading of a
//! point are shared with `vpsim sensitivity` (`super::sensitivity`).

use std::fmt::Write as _;
use std::path::PathBuf;

use super::RunOpts;
use crate::error::{Error, Result};
use crate::overrides::Override;
use crate::stats::Rate;
use crate::sweep::{Cell, Sweep};

mod page;

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
    // Every point compiles and the output folder is checked before the first game.
    let cells = (grid(&a.param).into_iter())
        .map(|extra| {
            let loaded = load_point(&a.scenario, o, &extra).map_err(|e| as_param(e, &extra))?;
            Ok((extra, loaded))
        })
        .collect::<Result<Vec<Cell>>>()?;
    let base = load_point(&a.scenario, o, &[])?.warnings;
    let floored = crate::sweep::floored_warnings(&cells, &base);
    for w in floored.iter().take(3) {
        crate::diagnostic::say(&format!(
            "warning: a swept value is floored where it is stored, so the response between whole stored values is a step (the chart draws points only): {w}"
        ));
    }
    let out = super::command_out_dir(&cells[0].1.name, o, "sweep");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let plan = crate::sweep::Plan {
        seed: o.seed,
        games: o.games,
        threads: o.threads.map(|t| t as usize),
    };
    // Progress for a person watching: nothing on a redirected stderr but errors.
    let watched = !o.quiet && !o.json && crate::diagnostic::stderr_is_terminal();
    let done = |extra: &[Override]| {
        if watched {
            let point: Vec<String> = extra.iter().map(|e| e.to_string()).collect();
            crate::diagnostic::say(&format!("  {}: done", point.join(" ")));
        }
    };
    let played = crate::sweep::play(&cells, &plan, &done)?;
    let params: Vec<String> = a.param.iter().map(|p| p.path.clone()).collect();
    let same = crate::sweep::same_games(&params, &played);
    if let Some(w) = &same {
        crate::diagnostic::say(&format!("warning: {w}"));
    }
    let sweep = Sweep {
        scenario: a.scenario.display().to_string(),
        params,
        factions: played.factions,
        games: o.games,
        seed: o.seed,
        points: played.points,
        floored: !floored.is_empty() || same.is_some(),
        variance_reduction: played.variance_reduction,
    };
    let mut pairing = pairing_line(sweep.variance_reduction, sweep.games);
    if cells.iter().all(|(_, m)| m.seats_unmoved) && !cells.is_empty() {
        let note = format!("Seats: {}", crate::report::seats::unmoved_words());
        pairing = Some(pairing.map_or(note.clone(), |p| format!("{p}\n{note}")));
    }
    let json = super::pretty_json(&sweep)?;
    if let Some(dir) = &out {
        super::begin_report_with(dir, "sweep", &json)?;
        page::write_page(&a, &cells[0].1, dir, &sweep, pairing.as_deref())?;
    }
    if o.json {
        return super::out(&format!("{json}\n"));
    }
    super::out(&table(&sweep, pairing.as_deref()))
}

/// The points of the grid, first parameter slowest, each as the overrides that set it.
fn grid(params: &[Param]) -> Vec<Vec<Override>> {
    let set = |p: &Param, v: &String| Override {
        path: p.path.clone(),
        value: v.clone(),
    };
    match params {
        [p] => p.values.iter().map(|v| vec![set(p, v)]).collect(),
        [p, q] => (p.values.iter())
            .flat_map(|v| q.values.iter().map(move |w| vec![set(p, v), set(q, w)]))
            .collect(),
        _ => Vec::new(),
    }
}

/// The terminal table: a row per point, each faction's win rate (and each seat's, with
/// rotated seats) with its interval, then the pairing's worth.
fn table(sweep: &Sweep, pairing: Option<&str>) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: win rate [95% CI] per point, {} games each, seed {} (every point plays the same seeds)\n",
        sweep.scenario,
        crate::report::thousands(sweep.games),
        sweep.seed
    );
    for h in &sweep.params {
        let _ = write!(t, "{h:<22}");
    }
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
        for v in &p.values {
            let _ = write!(t, "{v:<22}");
        }
        for r in p.win.iter().chain(&p.seats) {
            let _ = write!(t, "{:>24}", rate_cell(r));
        }
        let _ = writeln!(t);
    }
    if let Some(p) = pairing {
        let _ = writeln!(t, "\n{p}");
    }
    t
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
