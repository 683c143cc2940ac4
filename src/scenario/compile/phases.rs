//! Phases: `[[phase]]` tables, the steps every round goes through in order.
//!
//! Owns a phase's kind (global, or once per faction in an order), when it runs, its order
//! keys, the actions a faction may take in it and its effects.

use super::{Cx, Source};
use crate::error::Result;
use crate::expr::compile::{Compiler, Ctx};
use crate::model::Phase;
use crate::scenario::raw::RawScenario;
use crate::state::MAX_ORDER_KEYS;

/// Phases: compiles `raw.phases` (none is needed: a scenario may be decided at setup).
pub(super) fn compile(
    raw: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &mut Compiler,
) -> Result<Vec<Phase>> {
    let mut phases = Vec::new();
    for p in &raw.phases {
        let p = p.get_ref();
        let faction =
            cx.keyword(&p.each, &["global", "faction"], "global", "phase kind")? == "faction";
        let ctx = if faction {
            Ctx::faction()
        } else {
            Ctx::global()
        };
        if !faction && (p.actions.is_some() || !p.order.is_empty() || !p.before.is_empty()) {
            let at = p.each.as_ref().map_or(0, |e| e.span().start);
            return Err(src.fail(
                at,
                format!(
                    "phase `{}`: `actions`, `order` and `before` need each = \"faction\"",
                    p.name
                ),
            ));
        }
        if p.order.len() > MAX_ORDER_KEYS {
            return Err(src.fail(
                p.order[0].span().start,
                format!("phase `{}`: at most {MAX_ORDER_KEYS} order keys", p.name),
            ));
        }
        phases.push(Phase {
            name: p.name.0.clone(),
            faction,
            when: cx.opt(comp, &p.when, Ctx::global())?,
            order: p
                .order
                .iter()
                .map(|f| cx.expr(comp, f, Ctx::faction()))
                .collect::<Result<_>>()?,
            actions: cx.opt(comp, &p.actions, Ctx::faction())?,
            before: cx.stmts(comp, &p.before, ctx)?,
            effects: cx.stmts(comp, &p.effects, ctx)?,
        });
    }
    // A scenario decided at setup (its ranking reads only the starting values) needs no
    // phase: its rounds pass with nothing to do.
    Ok(phases)
}
