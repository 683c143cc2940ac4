//! Events: `[[event]]` tables, random happenings at the start or end of a round.
//!
//! Owns an event's timing, its condition, its probability (a constant one must lie in
//! 0..1) and its effects.

use super::{Cx, Source};
use crate::error::Result;
use crate::expr::compile::{Compiler, Ctx};
use crate::model::{Event, EventAt};
use crate::scenario::raw::RawScenario;

/// Events: compiles `raw.events`.
pub(super) fn compile(
    raw: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &mut Compiler,
) -> Result<Vec<Event>> {
    let mut events = Vec::new();
    for e in &raw.events {
        let e = e.get_ref();
        let at = match cx.keyword(
            &e.at,
            &["round_start", "round_end"],
            "round_start",
            "event timing",
        )? {
            "round_start" => EventAt::RoundStart,
            _ => EventAt::RoundEnd,
        };
        let probability = cx.expr(comp, &e.probability, Ctx::global())?;
        if let Some(p) = probability.as_const()
            && !(0.0..=1.0).contains(&p)
        {
            return Err(src.fail(
                e.probability.span().start,
                format!("probability {p} is outside 0..1"),
            ));
        }
        events.push(Event {
            name: e.name.0.clone(),
            at,
            when: cx.opt(comp, &e.when, Ctx::global())?,
            probability,
            effects: cx.stmts(comp, &e.effects, Ctx::global())?,
        });
    }
    Ok(events)
}
