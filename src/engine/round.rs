//! The round loop: one game read top to bottom.
//!
//! Owns the order of play: the random stream of a game, setup from the variables' initial
//! values, then round after round the round-start events and checks, the phases (once, or a
//! turn per faction in turn order, each turn its start-of-turn checks and agent decisions),
//! the round-end events and checks; then the final ranking. What each step does lives in the
//! file named after it: [`super::settle`] (win, lose, draw and end checks), [`super::agents`],
//! [`super::statements`], [`super::ranking`].

use super::{Bind, Game, Halt, LEADER_ROUNDS, Outcome, Step, Tracer};
use crate::expr::{AssignOp, Fault, FaultKind, Num};
use crate::ids::{FactionId, VarId};
use crate::model::{EventAt, Moment, Phase, Schedule, Timing};
use crate::rng::part;
use crate::runtime::abi::Opt;
use crate::runtime::search::Pos;
use crate::state::MAX_FACTIONS;
use rand::RngExt;

/// The part of the stream variable `vi`'s initial value for owner `f` draws from.
fn setup_part(vi: usize, f: usize) -> u64 {
    part::id(0, part::SETUP, f as u64, vi as u64, 0)
}

/// When a metric is taken: at the end of the game, or after every round.
#[derive(Clone, Copy)]
enum Taken {
    AtEnd,
    EachRound,
}

impl<T: Tracer> Game<'_, T> {
    /// Plays game `game` of master seed `seed`.
    pub fn play(&mut self, seed: u64, game: u64) -> std::result::Result<Outcome, Fault> {
        let out = self.play_steps(seed, game);
        out.map_err(|Halt| self.take_fault())
    }

    /// A fresh game: game `game`'s random stream of master seed `seed`, the state before
    /// setup, nothing settled, counted or recorded.
    pub(super) fn reset(&mut self, seed: u64, game: u64) {
        self.env.cx.take_fault();
        self.env.rng.select(seed, game);
        self.env.st.reset(&self.m.tables);
        self.ended = None;
        self.env.progress = Default::default();
        self.env.points.fill(0);
        self.env.uses.fill(0);
        // The seating plan, built once: game `g` takes entry `g mod len` (none: the identity).
        let plan = &self.m.seatings;
        if let Some(&s) = plan.get((game % plan.len().max(1) as u64) as usize) {
            self.env.seating = s;
        }
        self.leaders.clear();
        self.round_scores.clear();
        self.metric_end.clear();
        self.metric_rounds.clear();
        self.env.search.start(seed, game);
    }

    pub(super) fn play_steps(&mut self, seed: u64, game: u64) -> Step<Outcome> {
        self.reset(seed, game);
        if T::ON {
            self.tracer
                .line(format_args!("game {game} of seed {seed}: {}", self.m.title));
            let seats: Vec<String> = (0..self.m.nfactions())
                .map(|s| {
                    let f = self.env.seating.at[s] as usize;
                    format!(
                        "{} {}",
                        s + 1,
                        self.m.factions[FactionId::from_index(f)].name
                    )
                })
                .collect();
            self.tracer
                .line(format_args!("seats: {}", seats.join(", ")));
        }
        self.play_steps_from_reset()
    }

    /// Plays the game [`Game::reset`] prepared.
    pub(super) fn play_steps_from_reset(&mut self) -> Step<Outcome> {
        self.setup()?;
        self.checks(Moment::Immediate, Bind::global())?;
        self.rounds_after(0)
    }

    /// Plays the rounds after round `round` until the game ends, then ranks it. A game
    /// with a searcher plays its rounds in the engine, which knows where each decision sits
    /// in its round ([`crate::runtime::search::Pos`]); a playout resumed mid-round plays the
    /// rest of that round in the engine and the later ones in machine code.
    pub(super) fn rounds_after(&mut self, mut round: u32) -> Step<Outcome> {
        let m = self.m;
        // A playout with a horizon stops after its last round (`look.stop`).
        while round < m.rounds && round < self.env.search.stop && self.ended.is_none() {
            // A game may run long (up to 100,000 rounds): Ctrl-C is honoured within a round.
            if crate::signal::stopped() {
                self.env.cx.raise(Fault {
                    loc: 0,
                    kind: FaultKind::Interrupted,
                });
                return Err(Halt);
            }
            round += 1;
            self.env.st.round = round as i64;
            self.env.st.age = m.age_of_round[round as usize];
            self.env.st.age_round = m.age_round[round as usize];
            if T::ON {
                self.tracer
                    .line(format_args!("round {round} (age {})", self.env.st.age));
            }
            match &m.round_fn {
                // The whole round in machine code (no trace to write, no search to place).
                Some(r) if !T::ON && self.env.search.searcher.is_none() => {
                    match r.call(&mut self.env) {
                        crate::runtime::abi::Ran::Done => {}
                        crate::runtime::abi::Ran::Faulted => return Err(Halt),
                        crate::runtime::abi::Ran::Held(r) => self.ended = Some(r),
                    }
                }
                _ => self.round()?,
            }
            self.after_round()?;
        }
        // The game-end phases, once the game has ended (not when a playout stops at its
        // horizon, which is no end of the game).
        if !m.end_phases.is_empty() && (self.ended.is_some() || round >= m.rounds) {
            self.game_end()?;
        }
        let reason = self.ended.unwrap_or(m.last_round_reason);
        if T::ON {
            let r = &m.reasons[reason];
            self.tracer.line(format_args!(
                "game ends in round {round}: {}{}",
                r.name,
                match r.result {
                    crate::model::ReasonResult::Rank => "",
                    crate::model::ReasonResult::Draw => " (a draw)",
                    crate::model::ReasonResult::Nobody => " (nobody wins)",
                }
            ));
        }
        let mut out = self.rank(reason)?;
        out.rounds = round;
        if self.records && !m.metrics.is_empty() {
            self.record_end_metrics()?;
        }
        Ok(out)
    }

    /// Runs the game-end phases (`at = "game_end"`), each when its `when` holds, as a round
    /// runs a phase; no end condition is checked in them, and the game keeps its reason.
    pub(super) fn game_end(&mut self) -> Step {
        let m = self.m;
        let reason = self.ended.take();
        self.closing = true;
        let mut ran = Ok(());
        for p in &m.end_phases {
            self.seek(u64::from(p.place), part::GLOBAL, 0, 0);
            ran = match &p.when {
                Some(w) => self.test(w, Bind::global()),
                None => Ok(true),
            }
            .and_then(|on| if on { self.end_phase(p) } else { Ok(()) });
            if ran.is_err() {
                break;
            }
        }
        self.closing = false;
        self.ended = reason;
        ran
    }

    /// Records the metrics taken at the end of the game (traced).
    fn record_end_metrics(&mut self) -> Step {
        self.record_metrics(Taken::AtEnd)
    }

    /// Records the metrics taken after every round.
    fn record_round_metrics(&mut self) -> Step {
        self.record_metrics(Taken::EachRound)
    }

    /// Evaluates the metrics taken `when` for each of their owners and appends them to the
    /// game's record. A metric draws no random number, so recording one never changes the
    /// game.
    fn record_metrics(&mut self, when: Taken) -> Step {
        let m = self.m;
        let per_round = matches!(when, Taken::EachRound);
        for mt in m.metrics.iter().filter(|mt| mt.per_round == per_round) {
            let owners = if mt.faction { m.nfactions() } else { 1 };
            for f in 0..owners {
                let x = self.num(&mt.formula, Bind::faction(FactionId(f as u8)))?;
                let v = self.whole(x, mt.formula.loc)?;
                if T::ON && !per_round {
                    let who = match mt.faction {
                        true => format!("{}.", m.factions[FactionId::from_index(f)].name),
                        false => String::new(),
                    };
                    self.tracer
                        .line(format_args!("metric {who}{} = {v}", mt.name));
                }
                if per_round {
                    self.metric_rounds.push(v);
                } else {
                    self.metric_end.push(v);
                }
            }
        }
        Ok(())
    }

    /// What is recorded after each round for the reports: the leader of the early rounds
    /// (not in a playout, whose rounds no report reads).
    fn after_round(&mut self) -> Step {
        if self.records_rounds && self.leaders.len() < LEADER_ROUNDS {
            let leader = self.leader()?;
            self.leaders.push(leader);
            if self.round_metrics {
                self.record_round_metrics()?;
            }
        }
        Ok(())
    }

    /// Setup: every variable gets its initial value, in declaration order. Constant values
    /// come from the template built once per worker; only the others are evaluated.
    pub(super) fn setup(&mut self) -> Step {
        self.initial_values()?;
        self.credit_start();
        Ok(())
    }

    /// Credits each faction's starting values of the variables with `init_as` to their
    /// points source, after setup (on either engine).
    fn credit_start(&mut self) {
        let m = self.m;
        for v in m.vars.iter().filter(|v| v.init_as.is_some()) {
            let src = v.init_as.unwrap_or(0) as usize;
            for f in 0..m.nfactions() {
                let first = (v.base + f as u32 * v.fstride) as usize;
                let start: i128 = self.env.st.vals[first..first + v.width as usize]
                    .iter()
                    .map(|&x| x as i128)
                    .sum();
                self.env.points[f * m.sources.len() + src] += start;
            }
        }
    }

    /// Sets every variable to its initial value.
    fn initial_values(&mut self) -> Step {
        let m = self.m;
        if let Some(template) = &self.init.template {
            self.env.st.vals.copy_from_slice(template);
            if let Some(s) = m.setup_fn.as_ref().filter(|s| !T::ON && s.compiled()) {
                // The evaluated values in machine code, in the same order (no trace).
                return match s.call(&mut self.env) {
                    crate::runtime::abi::Ran::Faulted => Err(Halt),
                    _ => Ok(()),
                };
            }
            for i in 0..self.init.dynamic.len() {
                let (vi, f) = self.init.dynamic[i];
                self.env.rng.seek(setup_part(vi as usize, f as usize));
                self.init_var(vi as usize, f as usize)?;
            }
            return Ok(());
        }
        self.env.st.vals.fill(0);
        for (vi, v) in m.vars.iter().enumerate() {
            let owners = if v.faction { m.nfactions() } else { 1 };
            for f in 0..owners {
                self.env.rng.seek(setup_part(vi, f));
                self.init_var(vi, f)?;
            }
        }
        Ok(())
    }

    /// Sets variable `vi` of owner `f` (0 for a global) to its initial value.
    fn init_var(&mut self, vi: usize, f: usize) -> Step {
        let m = self.m;
        let v = &m.vars[VarId::from_index(vi)];
        let init = v.init_of(f);
        let b = Bind::faction(FactionId(f as u8));
        for e in 0..v.width {
            let x = self.num(init, b)?;
            let slot = (v.base + f as u32 * v.fstride + e) as usize;
            self.env.st.vals[slot] = self.store(vi as u16, AssignOp::Set, 0, x, init.loc)?;
            if T::ON && init.is_random() {
                let name =
                    m.slot_name(vi as u16, v.faction.then_some(f), v.set.map(|_| e as usize));
                self.tracer.line(format_args!(
                    "  setup: {name} = {} (drawn)",
                    self.env.st.vals[slot]
                ));
            }
        }
        Ok(())
    }

    pub(super) fn round(&mut self) -> Step {
        self.events(EventAt::RoundStart)?;
        self.checks(Moment::RoundStart, Bind::global())?;
        self.phases_from(0)
    }

    /// The phases from the `first`-th on (each when its `when` holds), then the round's
    /// end, unless the game ends first.
    fn phases_from(&mut self, first: usize) -> Step {
        let m = self.m;
        for (i, p) in m.phases.iter().enumerate().skip(first) {
            if self.ended.is_some() {
                return Ok(());
            }
            self.seek(u64::from(p.place), part::GLOBAL, 0, 0);
            if let Some(w) = &p.when
                && !self.test(w, Bind::global())?
            {
                continue;
            }
            self.phase(i)?;
        }
        if self.ended.is_none() {
            self.round_end()?;
        }
        Ok(())
    }

    /// The rest of a round from a decision at `at` whose option `chosen` was taken: the
    /// option's action, the turn's later decisions and effects, the phase's later turns,
    /// the later phases and the round's end, exactly as [`Game::round`] plays them.
    pub(super) fn finish_round(&mut self, at: Pos, chosen: Opt) -> Step {
        let f = at.faction();
        let b = Bind::faction(FactionId(f));
        let (pi, m) = (at.phase as usize, self.m);
        let p = &m.phases[pi];
        self.seek(u64::from(p.place), f as u64, at.k as u64, part::ACT);
        self.act(
            chosen.action,
            Bind {
                target: chosen.target,
                ..b
            },
        )?;
        let next = Pos { k: at.k + 1, ..at };
        if !self.decisions(next)? {
            return Ok(());
        }
        self.turn_end(p, b)?;
        self.turns_from(p, Some(pi), at.order, at.seat as usize + 1)?;
        self.phases_from(pi + 1)
    }

    /// The round-end step: round-end events, then round-end checks.
    pub(super) fn round_end(&mut self) -> Step {
        self.events(EventAt::RoundEnd)?;
        self.checks(Moment::RoundEnd, Bind::global())?;
        // A final round (`timing = "final_round"`) ends the game once it is finished.
        if self.ended.is_none() {
            self.ended = self.env.progress.final_round;
        }
        Ok(())
    }

    /// Runs a faction's statement list of a phase (`before` or `effects`) for `b`.
    fn turn_list(&mut self, list: &[crate::expr::Stmt], b: Bind) -> Step {
        match list {
            // One statement run (a faction phase on the native engine): no list to walk.
            [crate::expr::Stmt::Native(n)] if !T::ON => {
                if self.ended.is_none() {
                    self.native(n, b)?;
                }
                self.moment_end()
            }
            list => self.run(list, b),
        }
    }

    /// Runs the `pi`-th of the round's phases: its effects once, or a turn for every
    /// faction still in the game.
    pub(super) fn phase(&mut self, pi: usize) -> Step {
        let m = self.m;
        if T::ON {
            self.tracer
                .line(format_args!(" phase {}", m.phases[pi].name));
        }
        self.phase_body(&m.phases[pi], Some(pi))
    }

    /// Runs a game-end phase as a round runs a phase.
    pub(super) fn end_phase(&mut self, p: &Phase) -> Step {
        if T::ON {
            let name = &p.name;
            self.tracer
                .line(format_args!(" phase {name} (at the game's end)"));
        }
        self.phase_body(p, None)
    }

    /// Phase `p`'s effects once, or a turn for every faction still in the game; `pi` is its
    /// index among the round's phases (`None` for a game-end phase, which takes no
    /// decisions).
    fn phase_body(&mut self, p: &Phase, pi: Option<usize>) -> Step {
        if !p.faction {
            return self.run(&p.effects, Bind::global());
        }
        let mut order = [0u8; MAX_FACTIONS];
        let n = self.m.nfactions();
        self.sorted_order(&p.order, &mut order[..n])?;
        self.turns_from(p, pi, order, 0)
    }

    /// The turns of faction phase `p` (the `pi`-th of the round's, `None` at the game's
    /// end) in turn `order`, from the `from`-th seat on.
    fn turns_from(
        &mut self,
        p: &Phase,
        pi: Option<usize>,
        order: [u8; MAX_FACTIONS],
        from: usize,
    ) -> Step {
        let place = u64::from(p.place);
        for (seat, &f) in order[..self.m.nfactions()].iter().enumerate().skip(from) {
            if self.ended.is_some() {
                return Ok(());
            }
            if (self.env.st.out >> f) & 1 != 0 {
                continue;
            }
            let b = Bind::faction(FactionId(f));
            let (begin, _) = self.turn_parts[usize::from(p.place)];
            if begin {
                self.seek(place, f as u64, 0, part::BEGIN);
            }
            if p.actions.is_some() {
                self.checks(Moment::TurnStart, b)?;
                if self.ended.is_some() {
                    return Ok(());
                }
                // It may have lost as its turn began.
                if (self.env.st.out >> f) & 1 != 0 {
                    continue;
                }
            }
            if !p.before.is_empty() {
                self.turn_list(&p.before, b)?;
                if self.ended.is_some() {
                    return Ok(());
                }
                if (self.env.st.out >> f) & 1 != 0 {
                    continue;
                }
            }
            if let (Some(k), Some(pi)) = (&p.actions, pi) {
                let count = match self.num(k, b)? {
                    Num::Int(i) => i.clamp(0, u32::MAX as i64) as u32,
                    Num::Real(r) => r.max(0.0) as u32,
                };
                let at = Pos {
                    phase: pi as u16,
                    seat: seat as u8,
                    k: 0,
                    count,
                    order,
                };
                if !self.decisions(at)? {
                    return Ok(());
                }
            }
            self.turn_end(p, b)?;
        }
        Ok(())
    }

    /// The end of faction `b.bound`'s turn in phase `p`, in its own part of the stream
    /// when it has one ([`crate::model::Model::turn_parts`]): the phase's effects, then in a
    /// phase with actions the automatic actions and the final-turn checks.
    fn turn_end(&mut self, p: &Phase, b: Bind) -> Step {
        if self.turn_parts[usize::from(p.place)].1 {
            self.seek(u64::from(p.place), u64::from(b.bound.0), 0, part::END);
        }
        self.turn_list(&p.effects, b)?;
        if p.actions.is_some() {
            self.claims(b.bound.0)?;
            self.turn_over(b)?;
        }
        Ok(())
    }

    /// Begins the part of this round at `place` for `who` (a faction, or
    /// [`part::GLOBAL`]), decision `step`, part `p` of the game's stream.
    pub(super) fn seek(&mut self, place: u64, who: u64, step: u64, p: u64) {
        let round = self.env.st.round as u64;
        self.env.rng.seek(part::id(round, place, who, step, p));
    }

    /// The end of faction `b.bound`'s turn in a phase with actions: a final turn counted
    /// (the last ends the game), or else the final-turns and final-round conditions checked
    /// for it; once a final-turns one holds, every faction still in takes one more turn,
    /// this one's last; once a final-round one holds, the round is the game's last.
    fn turn_over(&mut self, b: Bind) -> Step {
        let m = self.m;
        const LAST: u8 =
            Timing::Then(Schedule::FinalTurns).bit() | Timing::Then(Schedule::FinalRound).bit();
        if self.ended.is_some() || self.timings & LAST == 0 {
            return Ok(());
        }
        if let Some((reason, left)) = self.env.progress.final_turns {
            self.env.progress.final_turns = (left > 1).then_some((reason, left - 1));
            if left <= 1 {
                self.ended = Some(reason);
            }
            return Ok(());
        }
        for c in &m.checks {
            let round = c.timing == Timing::Then(Schedule::FinalRound)
                && self.env.progress.final_round.is_none();
            if round && self.test(&c.when, b)? {
                self.env.progress.final_round = Some(c.reason);
                if T::ON {
                    self.tracer.line(format_args!(
                        "  final round: {} holds for {}; the round is finished, then the game ends",
                        m.reasons[c.reason].name, m.factions[b.bound].name
                    ));
                }
                break;
            }
            if c.timing == Timing::Then(Schedule::FinalTurns) && self.test(&c.when, b)? {
                let n = m.nfactions() as u32 - self.env.st.out.count_ones();
                self.env.progress.final_turns = Some((c.reason, n));
                if T::ON {
                    self.tracer.line(format_args!(
                        "  final turns: {} holds for {}; each faction still in takes one more \
                         turn, {} last",
                        m.reasons[c.reason].name,
                        m.factions[b.bound].name,
                        m.factions[b.bound].name
                    ));
                }
                break;
            }
        }
        Ok(())
    }

    /// The decisions of the turn at `at`, from its `k`-th on; false when the game ended
    /// among them (the turn's effects and the rest of the round are skipped then).
    fn decisions(&mut self, mut at: Pos) -> Step<bool> {
        let f = at.faction();
        let p = &self.m.phases[at.phase as usize];
        let place = u64::from(p.place);
        let loc = p.actions.as_ref().map_or(0, |k| k.loc);
        while at.k < at.count {
            if self.ended.is_some() {
                return Ok(false);
            }
            // A faction that lost in one of these decisions makes no more of them (the
            // phase's effects still run for it, as after every turn).
            if (self.env.st.out >> f) & 1 != 0 {
                break;
            }
            self.env.progress.steps += 1;
            if self.env.progress.steps > self.m.max_steps {
                return Err(self.halt(Fault {
                    loc,
                    kind: FaultKind::StepBudget(self.m.max_steps),
                }));
            }
            if self.env.search.searchers != 0 {
                self.env.search.pos = at;
            }
            self.seek(place, f as u64, at.k as u64, part::PICK);
            self.decide(FactionId(f))?;
            at.k += 1;
        }
        Ok(true)
    }

    pub(super) fn events(&mut self, at: EventAt) -> Step {
        let m = self.m;
        for (i, e) in m.events.iter().enumerate().filter(|(_, e)| e.at == at) {
            if self.ended.is_some() {
                return Ok(());
            }
            self.seek(part::EVENTS + i as u64, part::GLOBAL, 0, 0);
            if let Some(w) = &e.when
                && !self.test(w, Bind::global())?
            {
                continue;
            }
            let p = self.eval(&e.probability, Bind::global())?;
            if !(0.0..=1.0).contains(&p) {
                return Err(self.halt(Fault {
                    loc: e.probability.loc,
                    kind: FaultKind::Probability(p),
                }));
            }
            if self.env.rng.random_bool(p) {
                if T::ON {
                    self.tracer
                        .line(format_args!("  event {} (p = {p})", e.name));
                }
                self.run(&e.effects, Bind::global())?;
            }
        }
        Ok(())
    }
}
