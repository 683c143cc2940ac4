//! Settling the end of a game: end conditions at their timings, `win` and `lose` marks.
//!
//! Owns "what happens when several things hold at once": every condition checked at one
//! moment (the start of a faction's turn, the end of a statement list, the
//! start or end of a round) is evaluated first and settled together. A faction that wins and
//! loses at once loses; losers leave the game; a winner ends it; everyone remaining losing at
//! once is a draw; with teams the last side standing wins with all its members; otherwise the
//! last faction standing wins.

use super::{Bind, Game, Halt, Step, Tracer};
use crate::expr::OutcomeKind;
use crate::ids::{FactionId, ReasonId};
use crate::model::{Check, CheckKind, Moment, Timing};

impl<T: Tracer> Game<'_, T> {
    /// Every end condition of `timing`, as one moment: conditions are evaluated in the order
    /// they are declared, win and lose marks are settled together, and then, if that did not
    /// end the game, the first game-ending condition that held ends it. At turn start `b` is
    /// the faction whose turn starts.
    pub(super) fn checks(&mut self, timing: Moment, b: Bind) -> Step {
        if self.timings & Timing::At(timing).bit() == 0 {
            // No condition at this timing: nothing to evaluate.
            self.resolve();
            return Ok(());
        }
        // The round's own checks draw from a part of their own (a turn's are in its
        // beginning, the final-turn ones in its end).
        if self.ended.is_none() && matches!(timing, Moment::RoundStart | Moment::RoundEnd) {
            let place = crate::rng::part::CHECKS + timing as u64;
            self.seek(place, crate::rng::part::GLOBAL, 0, 0);
        }
        let m = self.m;
        if !T::ON
            && let Some(f) = &m.check_fns.timing[timing as usize]
        {
            if self.ended.is_some() {
                self.resolve();
                return Ok(());
            }
            self.bind(b);
            let end = match f.call(&mut self.env) {
                crate::runtime::abi::Held::Faulted => return Err(Halt),
                crate::runtime::abi::Held::Nothing => None,
                crate::runtime::abi::Held::End(r) => Some(r),
            };
            self.resolve();
            if let Some(r) = end
                && self.ended.is_none()
            {
                self.ended = Some(r);
            }
            return Ok(());
        }
        let mut end = None;
        for c in m.checks.iter().filter(|c| c.timing == Timing::At(timing)) {
            if self.ended.is_some() {
                break;
            }
            if c.kind == CheckKind::End && end.is_some() {
                continue;
            }
            if self.holds(c, b)? {
                end = Some(c.reason);
            }
        }
        self.resolve();
        if let Some(r) = end
            && self.ended.is_none()
        {
            self.ended = Some(r);
        }
        Ok(())
    }

    /// Evaluates one condition. A win or lose condition marks each faction it holds for (the
    /// faction whose turn starts, or every faction still in the game) and returns false; a
    /// game-ending condition returns whether it holds.
    pub(super) fn holds(&mut self, c: &Check, b: Bind) -> Step<bool> {
        let m = self.m;
        let kind = match c.kind {
            CheckKind::End => {
                let met = self.test(&c.when, b)?;
                if T::ON && met {
                    self.tracer.line(format_args!(
                        "  end condition met: {}",
                        m.reasons[c.reason].name
                    ));
                }
                return Ok(met);
            }
            CheckKind::Win => OutcomeKind::Win,
            CheckKind::Lose => OutcomeKind::Lose,
        };
        let (from, to) = if c.timing == Timing::At(Moment::TurnStart) && !c.all {
            (b.me.0, b.me.0 + 1)
        } else {
            (0, m.nfactions() as u8)
        };
        for f in from..to {
            if (self.env.st.out >> f) & 1 != 0 {
                continue;
            }
            let fb = Bind::faction(FactionId(f));
            if self.test(&c.when, fb)? {
                if T::ON {
                    self.tracer.line(format_args!(
                        "  {} condition met for {}: {}",
                        if kind == OutcomeKind::Win {
                            "win"
                        } else {
                            "lose"
                        },
                        m.factions[FactionId(f)].name,
                        m.reasons[c.reason].name
                    ));
                }
                self.mark(kind, c.reason, fb);
            }
        }
        Ok(false)
    }

    /// Notes the immediate conditions that read `var`, which a store just changed (none
    /// while a worked example is set up): they are checked at the end of the statement list.
    #[inline]
    pub(super) fn after_change(&mut self, var: u16) -> Step {
        if !self.env.quiet {
            for &bit in &self.m.immediate_by_var[var as usize] {
                self.env.progress.pending.set(bit);
            }
        }
        Ok(())
    }

    /// The end of a statement list (an action's costs and effects, one turn of a phase, an
    /// event), one moment: the immediate conditions its changes triggered are evaluated in
    /// the order declared, the `win` and `lose` marks are settled together, and then, if
    /// that did not end the game, the first game-ending condition that held ends it.
    pub(super) fn moment_end(&mut self) -> Step {
        if self.env.progress.pending.any() {
            if self.closing {
                // The game has ended: the game-end phases check no end condition.
                self.env.progress.pending = Default::default();
                return Ok(());
            }
            let end = self.pending_checks()?;
            if let Some(r) = end
                && self.ended.is_none()
            {
                self.ended = Some(r);
            }
        }
        self.resolve();
        Ok(())
    }

    /// Evaluates the pending immediate conditions, leaving none: the marks they make, and
    /// the reason of the first game-ending one that held. Nothing is evaluated once the game
    /// has ended (an `end` in the list).
    #[inline(never)]
    fn pending_checks(&mut self) -> Step<Option<ReasonId>> {
        let m = self.m;
        if self.ended.is_some() {
            self.env.progress.pending = Default::default();
            return Ok(None);
        }
        if !T::ON
            && let Some(f) = &m.check_fns.pending
        {
            self.bind(Bind::global());
            return match f.call(&mut self.env) {
                crate::runtime::abi::Held::Faulted => Err(Halt),
                crate::runtime::abi::Held::Nothing => Ok(None),
                crate::runtime::abi::Held::End(r) => Ok(Some(r)),
            };
        }
        let mut end = None;
        for bit in self.env.progress.pending.take() {
            let c = &m.checks[m.immediate[bit as usize] as usize];
            if c.kind == CheckKind::End && end.is_some() {
                continue;
            }
            if self.holds(c, Bind::global())? {
                end = Some(c.reason);
            }
        }
        Ok(end)
    }

    /// Settles the `win`/`lose` marks of the statement just run: winning and losing at once
    /// is a loss; losers leave the game; a winner ends it; if everyone left has lost at once
    /// it is a draw; with teams, the last side standing wins with all its members; otherwise
    /// the last faction standing wins.
    #[inline]
    pub(super) fn resolve(&mut self) {
        if self.env.progress.marks.win | self.env.progress.marks.lose != 0 {
            self.settle();
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn settle(&mut self) {
        let before = self.env.st.out;
        let ended = self.env.settle();
        let lose = self.env.st.out & !before;
        if T::ON && lose != 0 {
            let names = self.m.names_in(lose);
            self.tracer.line(format_args!(
                "    lost and left the game: {}",
                names.join(", ")
            ));
        }
        if ended.is_some() {
            self.ended = ended.map(ReasonId);
        }
    }

    /// `win` or `lose` for the bound faction: a mark settled at the end of the moment.
    pub(super) fn mark(&mut self, kind: OutcomeKind, reason: ReasonId, b: Bind) {
        self.env.progress.marks.mark(kind, reason.0, b.bound.0);
        if T::ON {
            let verb = if kind == OutcomeKind::Win {
                "wins"
            } else {
                "loses"
            };
            self.tracer.line(format_args!(
                "    {} {verb} ({})",
                self.m.factions[b.bound].name, self.m.reasons[reason].name
            ));
        }
    }

    /// `end NAME`, or an immediate condition that held in machine code: the game ends now
    /// with that reason (the first one given stands).
    pub(super) fn end(&mut self, r: ReasonId) {
        if self.ended.is_none() {
            self.ended = Some(r);
            if T::ON {
                self.tracer
                    .line(format_args!("  end: {}", self.m.reasons[r].name));
            }
        }
    }
}
