//! Agents: each faction's `agent` (or the scenario's default `[agent]`).
//!
//! Owns an agent's policy, noise, priority list, mix and search settings (`lookahead` or
//! `mcts`: the search, its horizon and objective, with `policy` then the rollout policy),
//! each action it names checked against the compiled actions, with a located error.

use super::Cx;
use crate::error::Result;
use crate::expr::Expr;
use crate::expr::compile::{Compiler, Ctx, suggest};
use crate::model::{Action, Agent, Lookahead, Objective, Policy, Search};
use crate::scenario::raw::{RawAgent, RawScenario};
use std::collections::BTreeMap;
use toml::Spanned;

/// Agents: each faction's `agent`, or the scenario's default `[agent]` when it has none.
pub(super) fn agents(
    raw: &RawScenario,
    cx: &mut Cx,
    comp: &Compiler,
    actions: &[Action],
) -> Result<Vec<Agent>> {
    let mut agents = Vec::new();
    for f in &raw.factions {
        let ra = f.get_ref().agent.as_ref().or(raw.agent.as_ref());
        agents.push(agent(cx, comp, ra, actions)?);
    }
    Ok(agents)
}

/// One agent: its policy, its noise and its priority list, each action name checked; the
/// weighted policy without noise when `ra` is absent. A lookahead agent's `policy` is its
/// rollout policy, its settings in `look`.
fn agent(cx: &mut Cx, comp: &Compiler, ra: Option<&RawAgent>, actions: &[Action]) -> Result<Agent> {
    let Some(ra) = ra else {
        return Ok(Agent {
            policy: Policy::Weighted,
            noise: Expr::constant(0.0),
            priority: vec![u16::MAX; actions.len()],
            mix: None,
            look: None,
            counted: false,
        });
    };
    let kind = cx.keyword(
        &ra.policy,
        &["weighted", "greedy", "priority", "lookahead", "mcts"],
        "weighted",
        "policy",
    )?;
    let look = match kind {
        "lookahead" | "mcts" => Some(lookahead(cx, ra, kind == "mcts")?),
        _ => None,
    };
    let played = match kind {
        "lookahead" | "mcts" => cx.keyword(
            &ra.rollout_policy,
            &["weighted", "greedy", "priority"],
            "weighted",
            "rollout_policy",
        )?,
        k => k,
    };
    let policy = match played {
        "weighted" => Policy::Weighted,
        "greedy" => Policy::Greedy,
        _ => Policy::Priority,
    };
    let noise = match &ra.noise {
        Some(f) => {
            let e = cx.expr(comp, f, Ctx::faction())?;
            // A standard deviation: a constant below 0 is a mistake (a formula's value is
            // read as no noise when it falls below 0 in a game).
            if e.as_const().is_some_and(|c| !(c >= 0.0 && c.is_finite())) {
                return Err(cx.src.fail(
                    f.span().start,
                    "`noise` is a standard deviation: give 0 or more",
                ));
            }
            e
        }
        None => Expr::constant(0.0),
    };
    let mut priority = vec![u16::MAX; actions.len()];
    for (rank, name) in ra.priority.iter().enumerate() {
        priority[action_named(cx, actions, name)?] = rank as u16;
    }
    if policy == Policy::Priority && ra.priority.is_empty() {
        let at = match &ra.rollout_policy {
            Some(p) if look.is_some() => p.span().start,
            _ => ra.policy.as_ref().map_or(0, |p| p.span().start),
        };
        return Err(cx.src.fail(
            at,
            "policy = \"priority\" needs a `priority` list of action names",
        ));
    }
    let mix = match &ra.mix {
        Some(m) => Some(mix(cx, m, actions)?),
        None => None,
    };
    Ok(Agent {
        policy,
        noise,
        priority,
        mix,
        look,
        counted: false,
    })
}

/// The index of the action `name` names, or a located error with the nearest name.
fn action_named(cx: &Cx, actions: &[Action], name: &Spanned<String>) -> Result<usize> {
    actions
        .iter()
        .position(|a| &a.name == name.get_ref())
        .ok_or_else(|| {
            let known = actions.iter().map(|a| a.name.as_str());
            cx.src.fail(
                name.span().start,
                format!(
                    "`{}` is not an action{}",
                    name.get_ref(),
                    suggest(name.get_ref(), known)
                ),
            )
        })
}

/// A searching agent's settings (a tree search when `tree`), each checked with a located
/// error; a key of the other search is refused where it is written.
fn lookahead(cx: &Cx, ra: &RawAgent, tree: bool) -> Result<Lookahead> {
    let count = |v: &Option<Spanned<i64>>, key: &str, max: i64| -> Result<Option<u32>> {
        match v {
            None => Ok(None),
            Some(x) if (1..=max).contains(x.get_ref()) => Ok(Some(*x.get_ref() as u32)),
            Some(x) => Err(cx.src.fail(
                x.span().start,
                format!("`{key}` must be a whole number from 1 to {max}"),
            )),
        }
    };
    let objective = match cx.keyword(
        &ra.objective,
        &["win", "rank", "margin"],
        "win",
        "objective",
    )? {
        "rank" => Objective::Rank,
        "margin" => Objective::Margin,
        _ => Objective::Win,
    };
    let misplaced = |at: Option<usize>, key: &str, other: &str| match at {
        Some(at) => Err(cx.src.fail(
            at,
            format!("`{key}` is a setting of {other}, not of this policy"),
        )),
        None => Ok(()),
    };
    let start = |s: &Option<Spanned<i64>>| s.as_ref().map(|s| s.span().start);
    if tree {
        misplaced(
            start(&ra.rollouts),
            "rollouts",
            "lookahead (mcts takes `iterations`)",
        )?;
        let c = match &ra.c {
            None => std::f64::consts::SQRT_2,
            Some(c) if c.get_ref().is_finite() && *c.get_ref() >= 0.0 => *c.get_ref(),
            Some(c) => {
                return Err(cx
                    .src
                    .fail(c.span().start, "`c` must be a number 0 or more"));
            }
        };
        return Ok(Lookahead {
            search: Search::Tree {
                iterations: count(&ra.iterations, "iterations", 1_000_000)?.unwrap_or(1000),
                c,
            },
            horizon: count(&ra.horizon, "horizon", 100_000)?,
            objective,
        });
    }
    misplaced(
        start(&ra.iterations),
        "iterations",
        "mcts (lookahead takes `rollouts`)",
    )?;
    misplaced(ra.c.as_ref().map(|c| c.span().start), "c", "mcts")?;
    Ok(Lookahead {
        search: Search::Flat {
            rollouts: count(&ra.rollouts, "rollouts", 100_000)?.unwrap_or(32),
        },
        horizon: count(&ra.horizon, "horizon", 100_000)?,
        objective,
    })
}

/// A `mix`: each named action's fixed weight (finite, not negative), 0 for the others.
fn mix(cx: &Cx, m: &Spanned<BTreeMap<String, f64>>, actions: &[Action]) -> Result<Vec<f64>> {
    let mut w = vec![0.0; actions.len()];
    for (name, &x) in m.get_ref() {
        let named = Spanned::new(m.span(), name.clone());
        let i = action_named(cx, actions, &named)?;
        if !(x.is_finite() && x >= 0.0) {
            return Err(cx.src.fail(
                m.span().start,
                format!("the mix's weight of `{name}` must be a number 0 or more"),
            ));
        }
        w[i] = x;
    }
    Ok(w)
}
