//! After the search: the secant refinement, the confirmation on fresh games, and for one
//! whole-number parameter with a target, the whole values on each side of the crossing.
//!
//! Owns [`tune`], the whole of a tune given a way to measure the goal at some values
//! (`play`), and what it found ([`Tuned`]). The command lays out and writes the answer.

use super::{Goal, Noise, Param, Search, search, within_noise};
use crate::stats::{Rate, Val};

/// What one measurement at some values gives: the goal metric on the games played and,
/// with rotated seats, each seat's sole-win rate (empty without rotation).
pub struct Measured {
    /// The goal metric.
    pub metric: Val,
    /// Each seat's sole-win rate.
    pub seats: Vec<Rate>,
}

/// How a tune measures: `play(values, first, games)` plays games `first..first + games` with
/// the parameters at `values`.
pub(super) type Play<'a, E> = dyn FnMut(&[f64], u64, u64) -> Result<Measured, E> + 'a;

/// How many games a tune plays: at most `evals` candidates of `games` games each, then
/// `confirm` games for the refinement, the confirmation and a whole value beside it.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Candidates the search may play.
    pub evals: usize,
    /// Games each candidate plays (games `0..games` of the seed).
    pub games: u64,
    /// Games of the confirmation run (and of the refinement before it).
    pub confirm: u64,
}

impl Budget {
    /// The candidates a search of `params` for `goal` plays unless told: 16 for one
    /// parameter with `EXPR = VALUE` (bisection), 40 otherwise.
    pub fn default_evals(params: &[Param], goal: &Goal) -> usize {
        match (params.len(), goal) {
            (1, Goal::Equal { .. }) => 16,
            _ => 40,
        }
    }

    /// The most games the tune can play (for a progress bar).
    pub fn most_games(&self, params: &[Param], goal: &Goal) -> u64 {
        let runs = if whole_target(params, goal) { 3 } else { 2 };
        (self.evals as u64)
            .saturating_mul(self.games)
            .saturating_add(self.confirm.saturating_mul(runs))
    }
}

/// One whole-number parameter with a target: its answer is the whole values beside the
/// crossing.
fn whole_target(params: &[Param], goal: &Goal) -> bool {
    matches!((params, goal), ([p], Goal::Equal { .. }) if p.integer)
}

/// The secant step after a one-parameter search: where it was measured (games
/// `first..first + confirm`), and what it measured.
pub struct Refined {
    /// The search's root, where the step was measured.
    pub at: f64,
    /// The first game it played.
    pub first: u64,
    /// The goal metric there.
    pub metric: Val,
}

/// For one whole-number parameter with a target: where the line through the confirmation
/// with the local slope crosses VALUE, and the whole values on each side of it, measured on
/// the confirmation's games.
pub struct Sides {
    /// Where the line crosses VALUE.
    pub crossing: f64,
    /// Each whole value beside it with its goal metric, lowest first.
    pub values: Vec<(f64, Val)>,
    /// What they say.
    pub verdict: Whole,
}

/// What a tune found: the search, its refinement, and the confirmation run (games
/// `first..first + confirm`) with, for one real parameter, the value's interval, or for a
/// whole-number one the whole values beside it; and the trials within noise of the best.
pub struct Tuned {
    /// The search.
    pub s: Search,
    /// The secant step, for one parameter with a target whose bounds bracket it.
    pub refined: Option<Refined>,
    /// The confirmation's first game.
    pub first: u64,
    /// The confirmation's games.
    pub confirm: u64,
    /// The goal metric on the confirmation's games, at the best values.
    pub confirmed: Val,
    /// With `--rotate-seats`, each seat's sole-win rate at the best value, on the
    /// confirmation's games (empty without rotation).
    pub seats: Vec<Rate>,
    /// For one real parameter with a target: the values that meet the goal, from the
    /// confirmation and the local slope.
    pub interval: Option<(f64, f64)>,
    /// For one whole-number parameter with a target: the whole values beside the crossing.
    pub sides: Option<Sides>,
    /// The trials within noise of the best.
    pub noise: Option<Noise>,
}

/// Tunes `params` for `goal` from `start`: the search on games `0..games`, then (one
/// parameter with a target) a secant step measured on the next `confirm` games, the
/// confirmation on the `confirm` after those, and a whole-number parameter's whole values
/// beside the crossing on the confirmation's games. `play(values, first, games)` measures.
pub fn tune<E>(
    params: &[Param],
    goal: &Goal,
    budget: Budget,
    start: &[f64],
    play: &mut Play<'_, E>,
) -> Result<Tuned, E> {
    let Budget {
        evals,
        games,
        confirm,
    } = budget;
    let mut s = search(params, goal, evals, start, &mut |xs| {
        Ok(play(xs, 0, games)?.metric)
    })?;
    let mut first = games;
    let refined = refine(params, goal, &mut s, first, confirm, play)?;
    if refined.is_some() {
        first += confirm;
    }
    let run = play(&s.best, first, confirm)?;
    let confirmed = run.metric;
    let sides = match refined {
        Some(_) => sides(params, goal, &s, confirmed, first, confirm, play)?,
        None => None,
    };
    // The value's interval needs the same slope the refinement stepped along; a
    // whole-number parameter has its whole values instead.
    let interval = line(params, goal, &s)
        .filter(|_| refined.is_some() && sides.is_none())
        .map(|(_, value, slope)| value_interval(s.best[0], &confirmed, value, slope));
    let noise = within_noise(&s, goal);
    Ok(Tuned {
        s,
        refined,
        first,
        confirm,
        confirmed,
        seats: run.seats,
        interval,
        sides,
        noise,
    })
}

/// For one parameter and a target `EXPR = VALUE`, once the search measured the local slope:
/// the parameter, VALUE and the slope (the line the refinement, the sides and the value's
/// interval all use).
fn line<'p>(params: &'p [Param], goal: &Goal, s: &Search) -> Option<(&'p Param, f64, f64)> {
    match (params, goal.target(), s.slope) {
        ([p], Some(value), Some(slope)) => Some((p, value, slope)),
        _ => None,
    }
}

/// One parameter with a target: one secant step from the search's root, measured on fresh
/// games (`first..first + games`), removes most of the search's own noise from the chosen
/// value. Moves `s.best` there.
fn refine<E>(
    params: &[Param],
    goal: &Goal,
    s: &mut Search,
    first: u64,
    games: u64,
    play: &mut Play<'_, E>,
) -> Result<Option<Refined>, E> {
    let Some((p, value, slope)) = line(params, goal, s).filter(|_| s.bracketed) else {
        return Ok(None);
    };
    let at = s.best[0];
    let metric = play(&[at], first, games)?.metric;
    s.best[0] = p.snap(at - (metric.est - value) / slope);
    Ok(Some(Refined { at, first, metric }))
}

/// A whole-number parameter cannot take a value between two whole ones: the whole values on
/// each side of where the line through the confirmation (with the slope the refinement
/// stepped along) crosses VALUE are measured on the confirmation's games.
fn sides<E>(
    params: &[Param],
    goal: &Goal,
    s: &Search,
    confirmed: Val,
    first: u64,
    games: u64,
    play: &mut Play<'_, E>,
) -> Result<Option<Sides>, E> {
    let Some((p, value, slope)) = line(params, goal, s).filter(|(p, ..)| p.integer) else {
        return Ok(None);
    };
    let crossing = s.best[0] - (confirmed.est - value) / slope;
    let mut values = Vec::new();
    for x in whole_sides(p, crossing) {
        let v = match x == s.best[0] {
            true => confirmed,
            false => play(&[x], first, games)?.metric,
        };
        values.push((x, v));
    }
    let metrics: Vec<Val> = values.iter().map(|(_, v)| *v).collect();
    Ok(Some(Sides {
        crossing,
        verdict: Whole::judge(&metrics, value),
        values,
    }))
}

/// An interval for the parameter value where the metric equals `target`, from the
/// confirmation run's metric `v` at `x` and the local `slope`: the values the line through
/// `(x, v)` with that slope crosses `target` at, over the metric's interval.
pub fn value_interval(x: f64, v: &Val, target: f64, slope: f64) -> (f64, f64) {
    let a = x - (v.hi - target) / slope;
    let b = x - (v.lo - target) / slope;
    (a.min(b), a.max(b))
}

/// For a whole-number parameter: the whole values on each side of `x` (its floor and its
/// ceiling, inside the bounds), lowest first; one value when `x` is whole.
pub fn whole_sides(p: &Param, x: f64) -> Vec<f64> {
    let mut v = vec![p.snap(x.floor()), p.snap(x.ceil())];
    v.dedup();
    v
}

/// What the whole values beside the crossing of `EXPR = VALUE` say, each measured with its
/// interval on the same games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whole {
    /// At least one has VALUE inside its interval: it meets the goal within noise.
    Met,
    /// None meets the goal, and they miss it on both sides: the metric passes VALUE between
    /// two whole values, so no whole value meets it, however many games are played.
    Between,
    /// None meets the goal, and all miss it on one side: the crossing's estimate is off.
    Missed,
}

impl Whole {
    /// Judges the metrics measured at the whole values against `value`.
    pub fn judge(metrics: &[Val], value: f64) -> Whole {
        if metrics.iter().any(|v| v.lo <= value && value <= v.hi) {
            return Whole::Met;
        }
        let above = metrics.iter().filter(|v| v.est > value).count();
        if above > 0 && above < metrics.len() {
            Whole::Between
        } else {
            Whole::Missed
        }
    }
}
