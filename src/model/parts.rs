//! Which parts of a game draw from substreams of their own ([`crate::rng::part`]), asked
//! by both engines so that they begin the same parts.

use super::{Model, Moment, Phase, Schedule, Timing};

impl Model {
    /// Whether turns of phase `p` begin and end parts of the stream of their own
    /// ([`crate::rng::part`]): a beginning when `before`, turn-start checks or a formula
    /// action count run there; an end when effects, automatic actions or final-turn checks
    /// do. Both engines ask this, so they begin the same parts.
    pub fn turn_parts(&self, p: &Phase) -> (bool, bool) {
        let any = |t: &[Timing]| self.checks.iter().any(|c| t.contains(&c.timing));
        let acts = p.actions.as_ref();
        let begin = !p.before.is_empty()
            || acts.is_some_and(|k| {
                any(&[Timing::At(Moment::TurnStart)]) || k.as_const_num().is_none()
            });
        let auto = self.actions.iter().any(|a| a.auto.is_some());
        let end = !p.effects.is_empty()
            || acts.is_some_and(|_| {
                auto || any(&[
                    Timing::Then(Schedule::FinalTurns),
                    Timing::Then(Schedule::FinalRound),
                ])
            });
        (begin, end)
    }
}
