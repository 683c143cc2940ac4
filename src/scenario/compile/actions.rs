//! Actions and agents: `[[action]]` tables and each faction's `agent`.
//!
//! Owns who may take an action, its target, availability, costs, weight and value, and an
//! agent's policy, noise, priority list, mix and lookahead settings, each checked with a
//! located error.

use super::{Cx, Source, check_ident};
use crate::error::Result;
use crate::expr::Expr;
use crate::expr::compile::{Compiler, Ctx, Symbols, suggest};
use crate::model::{Action, Agent, Lookahead, Objective, Policy, Search};
use crate::scenario::raw::{RawAgent, RawScenario};
use std::collections::BTreeMap;
use toml::Spanned;

/// Compiles `raw.actions` for a scenario of `nf` factions.
pub(super) fn compile(
    raw: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &mut Compiler,
    syms: &Symbols,
    nf: usize,
) -> Result<Vec<Action>> {
    let mut actions = Vec::new();
    // The names declared so far: a set, so that a scenario of 10^5 actions compiles in
    // linear time.
    let mut names = std::collections::HashSet::new();
    // Each action, or for a template each element's copy of it.
    let mut copies = Vec::new();
    for (table, a) in raw.actions.iter().enumerate() {
        let a = a.get_ref();
        let group = a.auto.then_some(table as u16);
        match &a.for_each {
            None => copies.push((a, group, None)),
            Some(set) => {
                let Some(s) = syms.sets.get(set.get_ref()) else {
                    return Err(src.fail(
                        set.span().start,
                        format!(
                            "`{}` is not a set{}",
                            set.get_ref(),
                            suggest(set.get_ref(), syms.sets.keys())
                        ),
                    ));
                };
                for (e, elem) in s.elements.iter().enumerate() {
                    let t = crate::expr::compile::Template {
                        word: "it".into(),
                        set: s.id,
                        elem: e as u16,
                    };
                    copies.push((a, group, Some((format!("{}_{elem}", a.name.get_ref()), t))));
                }
                // The count is known from the set: refused here, before any copy compiles.
                if copies.len() > crate::state::MAX_ACTIONS {
                    return Err(src.fail(
                        set.span().start,
                        format!(
                            "too many actions: `for_each = \"{}\"` makes {} (one per element), {} with the actions before it, and a scenario declares at most {}",
                            set.get_ref(),
                            s.elements.len(),
                            copies.len(),
                            crate::state::MAX_ACTIONS
                        ),
                    ));
                }
            }
        }
    }
    for (i, (a, auto, copy)) in copies.into_iter().enumerate() {
        let (name, template) = match copy {
            Some((n, t)) => (n, Some(t)),
            None => (a.name.get_ref().clone(), None),
        };
        comp.templates = template.into_iter().collect();
        // Ctrl-C or SIGTERM stops a long compile (tens of thousands of actions).
        if i % 256 == 0 && crate::signal::stopped() {
            return Err(crate::error::Error::Interrupted);
        }
        if i == crate::state::MAX_ACTIONS {
            return Err(src.fail(
                a.name.span().start,
                format!(
                    "too many actions: a scenario declares at most {} (this is one more); merge actions that differ only in a number into one with a formula",
                    crate::state::MAX_ACTIONS
                ),
            ));
        }
        check_ident(src, &name, a.name.span().start)?;
        if !names.insert(name.clone()) {
            return Err(src.fail(
                a.name.span().start,
                format!("action `{name}` is declared twice"),
            ));
        }
        let targeted = cx.keyword(&a.target, &["none", "other"], "none", "target")? == "other";
        if targeted && nf < 2 {
            return Err(src.fail(
                a.name.span().start,
                "an action with a target needs at least two factions",
            ));
        }
        let ctx = Ctx {
            target: targeted,
            ..Ctx::faction()
        };
        let mut allowed = if a.factions.is_empty() { u32::MAX } else { 0 };
        for f in &a.factions {
            match syms.factions.get(f.get_ref()) {
                Some(&i) => allowed |= 1 << i,
                None => {
                    return Err(src.fail(
                        f.span().start,
                        format!(
                            "`{}` is not a faction{}",
                            f.get_ref(),
                            suggest(f.get_ref(), syms.factions.keys())
                        ),
                    ));
                }
            }
        }
        let mut cost = Vec::new();
        for (k, f) in &a.cost {
            match syms.vars.get(k) {
                Some(v) if v.faction && v.set.is_none() => {
                    let lv = crate::expr::LValue {
                        var: v.id,
                        base: v.base,
                        fstride: v.fstride,
                        who: crate::expr::Who::Me,
                        elem: crate::expr::Elem::None,
                    };
                    cost.push((lv, cx.expr(comp, f, ctx)?));
                }
                _ => {
                    return Err(src.fail(
                        super::key_start(src.text, f.span().start, k),
                        format!("a cost is paid from one of the acting faction's plain variables; `{k}` is not one{}", suggest(k, syms.vars.keys())),
                    ));
                }
            }
        }
        let weight = match &a.weight {
            Some(f) => cx.expr(comp, f, ctx)?,
            None => Expr::constant(1.0),
        };
        let value = match &a.value {
            Some(f) => cx.expr(comp, f, ctx)?,
            None => Expr::constant(0.0),
        };
        let target_when = cx.opt(comp, &a.target_when, ctx)?;
        // `when` decides whether the action is available at all, before any target is
        // considered; target conditions belong in `target_when`.
        let when = cx.opt(comp, &a.when, Ctx::faction())?;
        if a.target_when.is_some() && !targeted {
            return Err(src.fail(a.name.span().start, "target_when needs target = \"other\""));
        }
        actions.push(Action {
            name,
            allowed,
            when,
            cost,
            weight,
            value,
            targeted,
            target_when,
            effects: cx.stmts(comp, &a.effects, ctx)?,
            auto,
        });
    }
    comp.templates.clear();
    Ok(actions)
}

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
