//! Actions: the `[[action]]` tables.
//!
//! Owns who may take an action, its target, availability, costs, weight and value, each
//! checked with a located error. Each faction's agent, which chooses among them, is
//! compiled in [`super::agents`].

use super::{Cx, Source, check_ident};
use crate::error::Result;
use crate::expr::Expr;
use crate::expr::compile::{Compiler, Ctx, Symbols, suggest};
use crate::model::Action;
use crate::scenario::raw::RawScenario;

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
