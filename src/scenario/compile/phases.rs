//! Phases: `[[phase]]` tables, the steps every round goes through in order.
//!
//! Owns a phase's kind (global, or once per faction in an order), when it runs (every round,
//! or once at the game's end), its order keys, the actions a faction may take in it and its
//! effects.

use super::{Cx, Source};
use crate::error::Result;
use crate::expr::compile::{Compiler, Ctx};
use crate::model::{Phase, PhaseRef};
use crate::scenario::raw::RawScenario;
use crate::state::MAX_ORDER_KEYS;

/// The compiled phases, each list in file order.
pub(super) struct Phases {
    /// The round's phases.
    pub(super) round: Vec<Phase>,
    /// The phases run once when the game has ended (`at = "game_end"`).
    pub(super) end: Vec<Phase>,
}

impl Phases {
    /// Every phase: the round's, then the game-end ones.
    pub(super) fn all(&self) -> impl Iterator<Item = &Phase> + '_ {
        self.round.iter().chain(&self.end)
    }

    /// The phase named `name`.
    pub(super) fn find(&self, name: &str) -> Option<PhaseRef> {
        let at = |list: &[Phase]| list.iter().position(|p| p.name == name);
        at(&self.round)
            .map(PhaseRef::Round)
            .or_else(|| at(&self.end).map(PhaseRef::End))
    }
}

/// Phases: compiles `raw.phases` (none is needed: a scenario may be decided at setup).
pub(super) fn compile(
    raw: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &mut Compiler,
) -> Result<Phases> {
    let mut phases = Phases {
        round: Vec::new(),
        end: Vec::new(),
    };
    for (place, p) in raw.phases.iter().enumerate() {
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
        let at_end =
            cx.keyword(&p.at, &["round", "game_end"], "round", "phase timing")? == "game_end";
        if at_end && let Some(a) = &p.actions {
            return Err(src.fail(
                a.span().start,
                format!(
                    "phase `{}`: a game-end phase takes no decisions (the game has ended): drop \
                     `actions`, or score what the decisions would in `effects`",
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
        let before = cx.stmts(comp, &p.before, ctx)?;
        let effects = cx.stmts(comp, &p.effects, ctx)?;
        if at_end {
            // The game has ended: nothing in it may end it again or mark a win or a loss.
            let lists = p
                .before
                .iter()
                .zip(&before)
                .chain(p.effects.iter().zip(&effects));
            if let Some((f, _)) = lists.into_iter().find(|(_, s)| ends_or_marks(s)) {
                return Err(src.fail(
                    f.span().start,
                    format!(
                        "phase `{}` runs when the game has ended: `end`, `win` and `lose` have \
                         no place in it (score what decides the game, and let the ranking rank)",
                        p.name
                    ),
                ));
            }
        }
        let list = if at_end {
            &mut phases.end
        } else {
            &mut phases.round
        };
        list.push(Phase {
            name: p.name.0.clone(),
            faction,
            when: cx.opt(comp, &p.when, Ctx::global())?,
            order: p
                .order
                .iter()
                .map(|f| cx.expr(comp, f, Ctx::faction()))
                .collect::<Result<_>>()?,
            actions: cx.opt(comp, &p.actions, Ctx::faction())?,
            before,
            effects,
            place: place as u16,
        });
    }
    // A scenario decided at setup (its ranking reads only the starting values) needs no
    // phase: its rounds pass with nothing to do.
    Ok(phases)
}

/// Whether a statement ends the game or marks a win or a loss, at any depth.
fn ends_or_marks(s: &crate::expr::Stmt) -> bool {
    use crate::expr::Stmt;
    match s {
        Stmt::End(_) | Stmt::Outcome { .. } => true,
        Stmt::Block(body) => body.iter().any(ends_or_marks),
        Stmt::If { then, els, .. } => {
            ends_or_marks(then) || els.as_deref().is_some_and(ends_or_marks)
        }
        Stmt::Each { body, .. } | Stmt::ForHeld { body, .. } => ends_or_marks(body),
        _ => false,
    }
}
