//! End conditions: `[[end]]` tables with a `when`, compiled into checks.
//!
//! Owns what a condition does when it holds (end the game, or make a faction win or lose),
//! when it is checked (its timing), whose it is (`who`), and which immediate conditions must
//! be re-checked after a change to which variable.

use std::collections::HashMap;

use super::{Cx, Source};
use crate::error::Result;
use crate::expr::Op;
use crate::expr::compile::{Compiler, Ctx};
use crate::model::{Check, CheckKind, Moment, Schedule, Timing, Var};
use crate::runtime::MAX_IMMEDIATE;
use crate::scenario::raw::RawScenario;

/// Compiles the conditions of `raw.ends`; `reasons` holds each declared reason's result.
pub(super) fn checks(
    raw: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &Compiler,
    reasons: &[(String, &str, String)],
) -> Result<Vec<Check>> {
    let mut checks = Vec::new();
    for (i, e) in raw.ends.iter().enumerate() {
        let e = e.get_ref();
        let timing = match cx.keyword(
            &e.timing,
            &[
                "immediate",
                "turn_start",
                "round_start",
                "round_end",
                "final_turns",
                "final_round",
            ],
            "immediate",
            "timing",
        )? {
            "immediate" => Timing::At(Moment::Immediate),
            "turn_start" => Timing::At(Moment::TurnStart),
            "round_start" => Timing::At(Moment::RoundStart),
            "final_turns" => Timing::Then(Schedule::FinalTurns),
            "final_round" => Timing::Then(Schedule::FinalRound),
            _ => Timing::At(Moment::RoundEnd),
        };
        if let Some(w) = &e.when {
            let kind = match reasons[i].1 {
                "win" => CheckKind::Win,
                "lose" => CheckKind::Lose,
                _ => CheckKind::End,
            };
            let last = matches!(timing, Timing::Then(_));
            if last && kind != CheckKind::End {
                return Err(src.fail(
                    w.span().start,
                    "final turns end the game with a ranking (or a draw, or nobody): a \
                     `win` or `lose` result has no final turns",
                ));
            }
            // A win or lose condition is about one faction; a turn-start or final-turns
            // condition can read the faction whose turn starts or ends.
            let ctx = if timing == Timing::At(Moment::TurnStart) || last || kind != CheckKind::End {
                Ctx::faction()
            } else {
                Ctx::global()
            };
            let immediate = checks
                .iter()
                .filter(|c: &&Check| c.timing == Timing::At(Moment::Immediate));
            if timing == Timing::At(Moment::Immediate) && immediate.count() == MAX_IMMEDIATE {
                return Err(src.fail(
                    e.name.span().start,
                    format!(
                        "more than {MAX_IMMEDIATE} immediate end conditions: give the others \
                         a timing, or join conditions with `or`"
                    ),
                ));
            }
            checks.push(Check {
                reason: crate::ids::ReasonId::from_index(i),
                when: cx.expr(comp, w, ctx)?,
                timing,
                kind,
                all: e.who.as_ref().is_some_and(|w| w.get_ref() == "all"),
            });
        } else if e.timing.is_some() {
            return Err(src.fail(
                e.name.span().start,
                "an end condition with a timing needs `when`",
            ));
        }
    }
    Ok(checks)
}

/// The immediate checks (by index in `checks`, in the order declared); for each variable,
/// those that read it; and those that read what a draw, take, discard or complete changes. The last two hold each
/// check's position in the first (its bit in a pending set).
pub(super) fn immediate(vars: &[Var], checks: &[Check]) -> (Vec<u16>, Vec<Vec<u16>>, Vec<u16>) {
    let base_to_var: HashMap<u32, u16> = vars
        .iter()
        .enumerate()
        .map(|(i, v)| (v.base, i as u16))
        .collect();
    let mut immediate = Vec::new();
    let mut immediate_by_var = vec![Vec::new(); vars.len()];
    let mut immediate_on_draw = Vec::new();
    for (ci, c) in checks.iter().enumerate() {
        if c.timing != Timing::At(Moment::Immediate) {
            continue;
        }
        let bit = immediate.len() as u16;
        immediate.push(ci as u16);
        for op in c.when.code() {
            match op {
                Op::Load { base, .. } | Op::LoadAt { base, .. } => {
                    let list = &mut immediate_by_var[base_to_var[base] as usize];
                    if !list.contains(&bit) {
                        list.push(bit);
                    }
                }
                // What a draw, take, discard or complete changes: the cards left, the current
                // card, the hands and completed piles.
                Op::DeckLeft(_)
                | Op::Drawn
                | Op::CardAttr(_)
                | Op::Held(_)
                | Op::Completed(_)
                | Op::HasCompleted(_)
                    if !immediate_on_draw.contains(&bit) =>
                {
                    immediate_on_draw.push(bit)
                }
                _ => {}
            }
        }
    }
    (immediate, immediate_by_var, immediate_on_draw)
}
