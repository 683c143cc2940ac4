//! A sweep: the scenario at each point of a grid of one or two parameters' values, every
//! point on the same seeds, and what `vpsim sweep --json` prints ([`Sweep`]).
//!
//! Points are played two by two, game `i` of one beside game `i` of the next (1 with 2, 3
//! with 4, ...), so what pairing neighbouring points is worth is measured at no extra cost.
//! A swept value that changes nothing between two points (floored where it is stored or
//! used) is found, so that the chart draws the points alone.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::model::Model;
use crate::overrides::Override;
use crate::report::{RunInfo, Summary};
use crate::stats::Rate;

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

/// One point to play: its parameters' values (as overrides) and the model they compile to.
pub type Cell = (Vec<Override>, Model);

/// How a sweep plays: every point plays games `0..games` of `seed`.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Master seed.
    pub seed: u64,
    /// Games per point.
    pub games: u64,
    /// Worker threads (`None`: every core).
    pub threads: Option<usize>,
}

/// What the points played: each point, the factions' names, and what pairing was worth.
pub struct Played {
    /// The points, in the order of the cells.
    pub points: Vec<Point>,
    /// The factions' names.
    pub factions: Vec<String>,
    /// Each point's games as text to compare points by ([`outcome_print`]).
    prints: Vec<String>,
    /// What pairing neighbouring points was worth (see [`Sweep::variance_reduction`]).
    pub variance_reduction: Option<f64>,
}

/// Plays every cell, two by two on the same games; `done` is told each point as it ends.
/// Stops between pairs at Ctrl-C.
pub fn play(cells: &[Cell], plan: &Plan, done: &dyn Fn(&[Override])) -> Result<Played> {
    let mut played = Played {
        points: Vec::new(),
        factions: Vec::new(),
        prints: Vec::new(),
        variance_reduction: None,
    };
    let mut pairs = Vec::new();
    for two in cells.chunks(2) {
        if crate::signal::stopped() {
            return Err(Error::Interrupted);
        }
        let summaries = match two {
            [(_, ma), (_, mb)] => {
                let (sa, sb, t) = play_pair(ma, mb, plan)?;
                pairs.push(t);
                vec![sa, sb]
            }
            [(_, m)] => vec![play_point(m, plan)?],
            _ => Vec::new(),
        };
        for ((extra, _), s) in two.iter().zip(summaries) {
            played.factions = s.factions.iter().map(|f| f.name.clone()).collect();
            done(extra);
            played.prints.push(outcome_print(&s));
            played.points.push(Point {
                values: extra.iter().map(|o| o.value.clone()).collect(),
                win: s.factions.iter().map(|f| f.win).collect(),
                draws: s.draws,
                seats: s.seats.iter().map(|r| r.win).collect(),
            });
        }
    }
    played.variance_reduction = crate::compare::mean_reduction(&pairs);
    Ok(played)
}

/// Plays one compiled point and summarises it.
fn play_point(model: &Model, plan: &Plan) -> Result<Summary> {
    let spec = crate::runner::RunSpec {
        seed: plan.seed,
        first: 0,
        games: plan.games,
        threads: plan.threads,
    };
    let r = crate::runner::run(model, &spec, &|_| {})?;
    let info = RunInfo::of(model, plan.seed);
    Ok(Summary::of(&info, 0, &r.tally, r.elapsed, r.threads))
}

/// Plays two points on the same games, game `i` of one beside game `i` of the other (so
/// their difference is paired): each point's summary and the paired tally.
fn play_pair(
    ma: &Model,
    mb: &Model,
    plan: &Plan,
) -> Result<(Summary, Summary, crate::compare::PairTally)> {
    let start = std::time::Instant::now();
    let t = crate::compare::run_pair(ma, mb, plan.seed, 0, plan.games, plan.threads, &|_| {})?;
    let (elapsed, used) = (start.elapsed(), plan.threads.unwrap_or(0));
    let a = Summary::of(&RunInfo::of(ma, plan.seed), 0, &t.a, elapsed, used);
    let b = Summary::of(&RunInfo::of(mb, plan.seed), 0, &t.b, elapsed, used);
    Ok((a, b, t))
}

/// What a point's games came to, as text to compare points by: every faction's results,
/// scores and ranks, the lengths and the end reasons (not the point's own overrides).
fn outcome_print(s: &Summary) -> String {
    let print = (
        &s.factions,
        &s.draws,
        &s.length,
        &s.end_reasons,
        &s.by_round,
    );
    serde_json::to_string(&print).unwrap_or_default()
}

/// For a sweep of one parameter (`params`' one path), the first two neighbouring values
/// whose points played identical games (every point plays the same seeds), as a warning:
/// between them the value changes nothing (it is floored where it is used, or not read), so
/// the response is a step and the chart draws points only. Catches what the compile-time
/// warning cannot: a swept real floored inside a formula (`vp += catchup * lag`).
pub fn same_games(params: &[String], played: &Played) -> Option<String> {
    let [path] = params else {
        return None;
    };
    let (points, prints) = (&played.points, &played.prints);
    let at = (1..points.len()).find(|&i| prints[i] == prints[i - 1] && !prints[i].is_empty())?;
    Some(format!(
        "{path} = {} and {} played identical games (every point plays the same seeds): between them the value changes nothing, as when it is floored where it is used, so the response is a step (the chart draws points only)",
        points[at - 1].values[0],
        points[at].values[0]
    ))
}

/// The warnings of the points' models that say a swept real is floored where it is stored
/// (warnings the file's own values, `base`, do not give), each once.
pub fn floored_warnings(cells: &[Cell], base: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in cells.iter().flat_map(|(_, m)| &m.warnings) {
        if w.contains("is stored in `") && !base.contains(w) && !out.contains(w) {
            out.push(w.clone());
        }
    }
    out
}
