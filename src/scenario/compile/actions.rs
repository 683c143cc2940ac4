//! Actions and agents: `[[action]]` tables and each faction's `agent`.
//!
//! Owns who may take an action, its target, availability, costs, weight and value, and an
//! agent's policy, noise and priority list, each name checked with a located error.

use super::{Cx, Source, check_ident};
use crate::error::Result;
use crate::expr::Expr;
use crate::expr::compile::{Compiler, Ctx, Symbols, suggest};
use crate::model::{Action, Agent, Policy};
use crate::scenario::raw::{RawAgent, RawScenario};

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
    for a in &raw.actions {
        let a = a.get_ref();
        check_ident(src, a.name.get_ref(), a.name.span().start)?;
        if actions.iter().any(|x: &Action| &x.name == a.name.get_ref()) {
            return Err(src.fail(
                a.name.span().start,
                format!("action `{}` is declared twice", a.name.get_ref()),
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
                        f.span().start,
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
            name: a.name.get_ref().clone(),
            allowed,
            when,
            cost,
            weight,
            value,
            targeted,
            target_when,
            effects: cx.stmts(comp, &a.effects, ctx)?,
        });
    }

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
/// weighted policy without noise when `ra` is absent.
fn agent(cx: &mut Cx, comp: &Compiler, ra: Option<&RawAgent>, actions: &[Action]) -> Result<Agent> {
    let Some(ra) = ra else {
        return Ok(Agent {
            policy: Policy::Weighted,
            noise: Expr::constant(0.0),
            priority: vec![u16::MAX; actions.len()],
        });
    };
    let policy = match cx.keyword(
        &Some(ra.policy.clone()),
        &["weighted", "greedy", "priority"],
        "weighted",
        "policy",
    )? {
        "weighted" => Policy::Weighted,
        "greedy" => Policy::Greedy,
        _ => Policy::Priority,
    };
    let noise = match &ra.noise {
        Some(f) => cx.expr(comp, f, Ctx::faction())?,
        None => Expr::constant(0.0),
    };
    let mut priority = vec![u16::MAX; actions.len()];
    for (rank, name) in ra.priority.iter().enumerate() {
        match actions.iter().position(|a| &a.name == name.get_ref()) {
            Some(i) => priority[i] = rank as u16,
            None => {
                let known = actions.iter().map(|a| a.name.as_str());
                return Err(cx.src.fail(
                    name.span().start,
                    format!(
                        "`{}` is not an action{}",
                        name.get_ref(),
                        suggest(name.get_ref(), known)
                    ),
                ));
            }
        }
    }
    if policy == Policy::Priority && ra.priority.is_empty() {
        return Err(cx.src.fail(
            ra.policy.span().start,
            "policy = \"priority\" needs a `priority` list of action names",
        ));
    }
    Ok(Agent {
        policy,
        noise,
        priority,
    })
}
