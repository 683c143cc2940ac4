//! `tune.json`: the tune as JSON, what `--json` prints and `--out` writes.

use serde_json::{Value, json};

use super::{Args, goal_met};
use crate::stats::Val;
use crate::tune::Tuned;
use crate::tune::{Goal, Method, Param, Sides, Whole};

fn val_json(v: &Val) -> Value {
    json!({ "estimate": v.est, "low": v.lo, "high": v.hi })
}

fn num_json(p: &Param, x: f64) -> Value {
    if p.integer { json!(x as i64) } else { json!(x) }
}

/// The tune as JSON: what `--json` prints and `--out` writes as `tune.json`.
pub(super) fn to_json(a: &Args, r: &Tuned) -> Value {
    let o = &a.opts;
    let Tuned {
        s,
        refined,
        confirm,
        interval,
        sides,
        noise,
        ..
    } = r;
    let confirm = *confirm;
    let map = |xs: &[f64]| -> Value {
        Value::Object(
            a.param
                .iter()
                .zip(xs)
                .map(|(p, x)| (p.path.clone(), num_json(p, *x)))
                .collect(),
        )
    };
    let goal = match &a.goal {
        Goal::Equal { expr, value } => json!({ "expr": expr, "equals": value }),
        Goal::Minimize { expr } => json!({ "expr": expr, "minimize": true }),
    };
    json!({
        "scenario": a.scenario.display().to_string(),
        "goal": goal,
        "params": a.param.iter().map(|p| json!({
            "path": p.path, "low": num_json(p, p.lo), "high": num_json(p, p.hi), "integer": p.integer,
        })).collect::<Vec<_>>(),
        "method": match s.method { Method::Bisection => "bisection", Method::Compass => "compass" },
        "seed": o.seed,
        "games": o.games,
        "trials": s.trials.iter().map(|t| json!({
            "values": map(&t.values), "metric": val_json(&t.metric),
        })).collect::<Vec<_>>(),
        "bracketed": s.bracketed,
        "refinement": refined.as_ref().map(|r| json!({
            "at": r.at, "first_game": r.first, "games": confirm, "metric": val_json(&r.metric),
        })),
        "best": map(&s.best),
        // The best trial (numbered from 1) and the trials within noise of it: their 95%
        // intervals of the goal's loss overlap (see `tune::within_noise`).
        "best_trial": noise.as_ref().map(|n| n.best + 1),
        "indistinguishable": noise.iter().flat_map(|n| &n.within).map(|&i| json!({
            "trial": i + 1,
            "values": map(&s.trials[i].values),
            "metric": val_json(&s.trials[i].metric),
        })).collect::<Vec<_>>(),
        "confirmation": confirmation_json(a, r),
        "interval": interval.map(|(lo, hi)| {
            let p = &a.param[0];
            json!({ p.path.clone(): [lo, hi] })
        }),
        "whole_values": sides.as_ref().map(|w| whole_values_json(a, r, w)),
    })
}

/// The confirmation run at the best value: its metric, whether the goal is met and, with
/// `--rotate-seats`, each seat's sole wins.
fn confirmation_json(a: &Args, r: &Tuned) -> Value {
    json!({
        "first_game": r.first,
        "games": r.confirm,
        "metric": val_json(&r.confirmed),
        "goal_met": goal_met(&a.goal, &r.confirmed),
        "seats": r.seats.iter().enumerate().map(|(i, s)| json!({
            "seat": i + 1,
            "win": {"rate": s.rate, "low": s.low, "high": s.high},
        })).collect::<Vec<_>>(),
    })
}

/// A whole-number parameter's sides of the crossing: each side's metric and the verdict.
fn whole_values_json(a: &Args, r: &Tuned, w: &Sides) -> Value {
    json!({
        "crossing": w.crossing,
        "first_game": r.first,
        "games": r.confirm,
        "values": w.values.iter().map(|(x, v)| json!({
            "value": num_json(&a.param[0], *x),
            "metric": val_json(v),
            "goal_met": goal_met(&a.goal, v),
        })).collect::<Vec<_>>(),
        "verdict": match w.verdict {
            Whole::Met => "met",
            Whole::Between => "no_whole_value",
            Whole::Missed => "missed",
        },
    })
}
