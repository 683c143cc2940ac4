//! Lowering a whole round: the round-start events and checks, the phases (turn order, each
//! turn's start-of-turn checks, agent decisions and effects), the round-end events and
//! checks, exactly as the engine's round loop ([`crate::engine::round`]) runs them.
//!
//! The pieces that already have machine code of their own (statement runs, agents' turns,
//! end checks) are called at their addresses; what the engine's loop did in Rust between
//! them (binding factions, evaluating `when`, probabilities, turn-order keys and action
//! counts, the step budget, settling `win`/`lose` marks, remembering why the game ended)
//! runs here, so a round enters machine code once.

use super::*;
use crate::model::{Event, EventAt, Phase};
use crate::rng::part;

/// What a round needs besides the model's tables: the machine code of each piece, by
/// address, and the step budget.
pub(crate) struct RoundPlan<'m> {
    /// Each phase played in rounds, with its index among the model's phases and the
    /// addresses of its `before` and its effects' statement runs (none when a list is
    /// empty), and whether its turns begin and end parts of the stream of their own
    /// ([`crate::model::Model::turn_parts`]).
    pub phases: Vec<PhasePlan<'m>>,
    /// Each event, with the address of its effects' statement run.
    pub events: Vec<(&'m Event, Option<usize>)>,
    /// The end conditions of each moment of the round (`Moment as usize`), by address.
    pub checks: [Option<usize>; 4],
    /// The pending immediate end conditions' function, by address, and the conditions.
    pub pending: Option<(usize, Vec<&'m crate::model::Check>)>,
    /// Each faction's turn, by address (every faction of a phase with actions has one).
    pub menus: Vec<usize>,
    /// The model's `max_steps`.
    pub max_steps: u64,
    /// The final-turns and final-round end conditions, in the model's order.
    pub finals: Vec<&'m crate::model::Check>,
    /// The turn every faction shares, lowered inline at each decision (else each decision
    /// calls its faction's turn function).
    pub turn: Option<InlineTurn<'m>>,
}

/// An agent's turn a round lowers inline: the menu's actions in order, the priorities of a
/// priority agent, and whether the agent searches (see [`Lower::finish_menu`]).
pub(crate) struct InlineTurn<'m> {
    /// The menu: each action's index and the action.
    pub items: Vec<(u16, &'m crate::model::Action)>,
    /// A priority agent's priorities.
    pub priority: Option<&'m [u16]>,
    /// Whether the agent decides by a search.
    pub searched: bool,
}

/// A phase of a [`RoundPlan`].
pub(crate) struct PhasePlan<'m> {
    /// The phase.
    pub phase: &'m Phase,
    /// The addresses of its `before` and its effects' statement runs.
    pub runs: [Option<usize>; 2],
    /// Whether its turns begin and end parts of the stream of their own.
    pub parts: (bool, bool),
}

/// No reason yet: the game goes on.
const GOING: i64 = -1;

/// Up to this many immediate end conditions are evaluated inline at the end of a statement
/// list (each list's end a copy); more are one call to their function.
const INLINE_PENDING: usize = 4;

impl Lower<'_, '_> {
    /// Lowers one round as a function `(env, vals) -> i64` and finishes: it returns
    /// [`DONE`] when the round ended with the game going on, [`HELD`] with the reason when
    /// the game ended in it (an `end`, an end condition, settled marks), or [`FAULTED`].
    pub(crate) fn finish_round(mut self, plan: &RoundPlan<'_>) {
        let ended = self.b.declare_var(I64);
        let going = self.int(GOING);
        self.b.def_var(ended, going);
        let opts = plan
            .phases
            .iter()
            .any(|pp| pp.phase.actions.is_some())
            .then(|| self.call_ptr(h::opts as *const () as usize));
        let out = self.b.create_block();
        self.events(plan, EventAt::RoundStart, ended, out);
        self.checks_at(plan, Moment::RoundStart, None, ended, false);
        for pp in &plan.phases {
            let (p, run) = (pp.phase, pp.runs[1]);
            self.unless_ended(ended, out);
            let next = self.b.create_block();
            self.seek_to(u64::from(pp.phase.place), Err(part::GLOBAL), Err(0), 0);
            if let Some(w) = &p.when {
                self.bind_all(None);
                let c = self.value(w);
                self.pass_if(c, next);
            }
            if p.faction {
                self.turns(plan, pp, opts, ended, next);
            } else {
                self.bind_all(None);
                self.run(plan, run, ended);
                self.b.ins().jump(next, &[]);
            }
            self.b.switch_to_block(next);
        }
        self.unless_ended(ended, out);
        self.events(plan, EventAt::RoundEnd, ended, out);
        self.checks_at(plan, Moment::RoundEnd, None, ended, false);
        // A final round ends the game once it is finished.
        if plan
            .finals
            .iter()
            .any(|c| c.timing == Timing::Then(Schedule::FinalRound))
        {
            self.unless_ended(ended, out);
            let env = self.env;
            let r = self.call_pure(h::final_round as *const () as usize, &[self.ptr], &[env]);
            self.b.def_var(ended, r);
        }
        self.b.ins().jump(out, &[]);
        self.b.switch_to_block(out);
        let r = self.b.use_var(ended);
        let held = self.b.ins().bor_imm_s(r, HELD as i64);
        let going = self.b.ins().icmp_imm_s(IntCC::Equal, r, GOING);
        let done = self.int(DONE as i64);
        let code = self.b.ins().select(going, done, held);
        self.b.ins().return_(&[code]);
        self.end();
    }

    /// Goes to `out` when the game has ended (`ended` holds a reason).
    fn unless_ended(&mut self, ended: Variable, out: Block) {
        let r = self.b.use_var(ended);
        let over = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, GOING);
        let go = self.b.create_block();
        self.b.ins().brif(over, out, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    /// Binds faction `f` (an `i64`), or nothing (0) for the global binding, as every binding,
    /// in the environment and as known.
    fn bind_all(&mut self, f: Option<Value>) {
        let (v, k) = match f {
            Some(f) => (self.b.ins().ireduce(types::I8, f), Known::Val(f)),
            None => (self.b.ins().iconst(types::I8, 0), Known::Const(0)),
        };
        for off in [Off::ME, Off::BOUND, Off::TARGET] {
            self.env_store(v, off);
        }
        self.known = [Some(k); 3];
    }

    /// Calls the machine code at `addr` (a statement run or an agent's turn, `args` after
    /// the environment and the slots) and returns its code; a fault returns [`FAULTED`] at
    /// once. Nothing is known of the binding afterwards.
    fn call_code(&mut self, addr: usize, args: &[Value]) -> Value {
        let mut all = vec![self.env, self.vals];
        all.extend_from_slice(args);
        let mut params = vec![self.ptr, self.ptr];
        params.extend(args.iter().map(|_| I64));
        let r = self.call(addr, &params, Some(I64), &all);
        self.faulty = false;
        self.known = [None; 3];
        let bad = self.b.ins().icmp_imm_s(IntCC::Equal, r, FAULTED as i64);
        let ret = self.fault_block();
        let go = self.b.create_block();
        self.b.ins().brif(bad, ret, &[], go, &[]);
        self.b.switch_to_block(go);
        r
    }

    /// After machine code returned `r` (a statement run's or a turn's code): [`HELD`] ends
    /// the game with its reason (no reason was given before: the engine only runs pieces
    /// while the game goes on).
    fn held_ends(&mut self, r: Value, ended: Variable) {
        let is_held = self.b.ins().band_imm_s(r, HELD as i64);
        let (yes, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(is_held, yes, &[], go, &[]);
        self.b.switch_to_block(yes);
        let reason = self.b.ins().band_imm_s(r, 0xffff);
        self.b.def_var(ended, reason);
        self.b.ins().jump(go, &[]);
        self.b.switch_to_block(go);
    }

    /// The engine's `resolve`: pending `win`/`lose` marks are settled ([`h::settle`]), which
    /// may end the game (that reason then stands).
    fn resolve(&mut self, ended: Variable) {
        self.resolve_or_leave(ended, None);
    }

    /// [`Lower::resolve`]; with `leave` (`f`, `ended_to`, `gone_to`), once the marks are
    /// settled: to `ended_to` if the game ended, else to `gone_to` if faction `f` left it.
    /// Only settling moves a faction out, so the test is on the settling path alone.
    fn resolve_or_leave(&mut self, ended: Variable, leave: Option<(Value, Block, Block)>) {
        let win = self.env_load(I32, Off::MARKS_WIN);
        let lose = self.env_load(I32, Off::MARKS_LOSE);
        let any = self.b.ins().bor(win, lose);
        let (settle, go) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(settle);
        self.b.ins().brif(any, settle, &[], go, &[]);
        self.b.switch_to_block(settle);
        let r = self.b.use_var(ended);
        let env = self.env;
        let r = self.call_pure(h::settle as *const () as usize, &[self.ptr, I64], &[env, r]);
        self.b.def_var(ended, r);
        if let Some((f, ended_to, gone_to)) = leave {
            self.unless_ended(ended, ended_to);
            let gone = self.gone(f);
            let stay = self.b.create_block();
            self.b.ins().brif(gone, gone_to, &[], stay, &[]);
            self.b.switch_to_block(stay);
        }
        self.b.ins().jump(go, &[]);
        self.b.switch_to_block(go);
    }

    /// The engine's `run` of an effect list that is one statement run (at `run`) or
    /// nothing, with the binding in place: the run, then the end of its moment.
    fn run(&mut self, plan: &RoundPlan<'_>, run: Option<usize>, ended: Variable) {
        if let Some(addr) = run {
            let r = self.call_code(addr, &[]);
            self.held_ends(r, ended);
            self.pending(plan, ended);
        }
        self.resolve(ended);
    }

    /// The engine's `pending_checks` at the end of a statement list, before its marks are
    /// settled: when the game goes on and a change left immediate end conditions pending,
    /// they are evaluated (making marks) and the first game-ending one that held ends the
    /// game, unless the marks settled next end it otherwise ([`h::settle`]). A few
    /// conditions are evaluated here, more by a call to their function.
    fn pending(&mut self, plan: &RoundPlan<'_>, ended: Variable) {
        let Some((addr, checks)) = &plan.pending else {
            return;
        };
        let words: Vec<(i32, Value)> = (0..checks.len().div_ceil(64))
            .map(|w| {
                let at = Off::PENDING + 8 * w as i32;
                (at, self.env_load(I64, at))
            })
            .collect();
        let any = words[1..]
            .iter()
            .fold(words[0].1, |a, &(_, v)| self.b.ins().bor(a, v));
        let r = self.b.use_var(ended);
        let going = self.b.ins().icmp_imm_s(IntCC::Equal, r, GOING);
        let some = self.b.ins().icmp_imm_s(IntCC::NotEqual, any, 0);
        let due = self.b.ins().band(going, some);
        let (eval, go) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(eval);
        self.b.ins().brif(due, eval, &[], go, &[]);
        self.b.switch_to_block(eval);
        // `r` is the reason plus one, 0 when none held.
        let r = if checks.len() <= INLINE_PENDING {
            let zero = self.int(0);
            for &(at, _) in &words {
                self.env_store(zero, at);
            }
            let guards: Vec<Value> = (0..checks.len())
                .map(|i| self.b.ins().band_imm_s(words[i / 64].1, 1i64 << (i % 64)))
                .collect();
            let none = self.b.ins().iconst(types::I8, 0);
            let r = self.held(checks, [none; 3], [Some(Known::Const(0)); 3], Some(&guards));
            // A condition may have stored its binding: nothing is known of it afterwards.
            self.known = [None; 3];
            r
        } else {
            self.call_code(*addr, &[])
        };
        let held = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
        let reason = self.b.ins().iadd_imm_s(r, -1);
        let still = self.int(GOING);
        let v = self.b.ins().select(held, reason, still);
        self.b.def_var(ended, v);
        self.b.ins().jump(go, &[]);
        self.b.switch_to_block(go);
    }

    /// The engine's `checks` of `timing` with faction `f` bound (none: the global
    /// binding), the game still going: the conditions' function, its marks settled, then
    /// the first game-ending condition that held ends the game unless the marks did.
    /// `going` says the code has just seen the game going on (no test is made again).
    fn checks_at(
        &mut self,
        plan: &RoundPlan<'_>,
        timing: Moment,
        f: Option<Value>,
        ended: Variable,
        going: bool,
    ) {
        let Some(addr) = plan.checks[timing as usize] else {
            self.resolve(ended);
            return;
        };
        let skip = self.b.create_block();
        if !going {
            self.unless_ended(ended, skip);
        }
        if matches!(timing, Moment::RoundStart | Moment::RoundEnd) {
            self.seek_to(part::CHECKS + timing as u64, Err(part::GLOBAL), Err(0), 0);
        }
        self.bind_all(f);
        let r = self.call_code(addr, &[]);
        self.resolve(ended);
        // `r` is the reason plus one, 0 when none held.
        let now = self.b.use_var(ended);
        let going = self.b.ins().icmp_imm_s(IntCC::Equal, now, GOING);
        let some = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
        let both = self.b.ins().band(going, some);
        let reason = self.b.ins().iadd_imm_s(r, -1);
        let v = self.b.ins().select(both, reason, now);
        self.b.def_var(ended, v);
        self.b.ins().jump(skip, &[]);
        self.b.switch_to_block(skip);
    }

    /// The engine's `events` at `at`: each event of that moment in order, while the game
    /// goes on (else to `out`): its `when`, then its probability (a fault outside [0, 1],
    /// as the engine's check) and one draw, then its effects.
    fn events(&mut self, plan: &RoundPlan<'_>, at: EventAt, ended: Variable, out: Block) {
        for (i, &(e, run)) in plan
            .events
            .iter()
            .enumerate()
            .filter(|(_, (e, _))| e.at == at)
        {
            self.unless_ended(ended, out);
            let next = self.b.create_block();
            self.seek_to(part::EVENTS + i as u64, Err(part::GLOBAL), Err(0), 0);
            self.bind_all(None);
            if let Some(w) = &e.when {
                let c = self.value(w);
                self.pass_if(c, next);
            }
            let p = self.value(&e.probability);
            let p = self.as_real(p);
            let loc = self.i32c(e.probability.loc);
            let hit = self.bernoulli(p, loc);
            self.fault_exit();
            let go = self.b.create_block();
            self.b.ins().brif(hit, go, &[], next, &[]);
            self.b.switch_to_block(go);
            self.bind_all(None);
            self.run(plan, run, ended);
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(next);
        }
    }

    /// A phase played by every faction still in the game, in turn order (the engine's
    /// `phase`): the order sorted once, then for each faction its start-of-turn checks, its
    /// decisions (the step budget counted) and its effects; on to `next` when every faction
    /// has played or the game ended.
    fn turns(
        &mut self,
        plan: &RoundPlan<'_>,
        pp: &PhasePlan<'_>,
        opts: Option<Value>,
        ended: Variable,
        next: Block,
    ) {
        let (p, [before, run], place) = (pp.phase, pp.runs, u64::from(pp.phase.place));
        let n = self.t.nfactions;
        let mem = MemFlagsData::trusted();
        // Sorted turn order, kept apart (the effects may sort factions again: a race,
        // `order`); with no key, seat order is the loop's own count.
        let order = (!p.order.is_empty()).then(|| {
            self.sort_factions(&p.order);
            let slot = self
                .b
                .create_sized_stack_slot(cranelift_codegen::ir::StackSlotData::new(
                    cranelift_codegen::ir::StackSlotKind::ExplicitSlot,
                    n as u32,
                    0,
                ));
            for i in 0..n {
                let f = self
                    .b
                    .ins()
                    .load(types::I8, mem, self.env, Off::RACE_ORDER + i as i32);
                self.b.ins().stack_store(self.ptr, f, slot, i as i32);
            }
            slot
        });
        let (head, body, cont) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, I64);
        self.b.append_block_param(cont, I64);
        let zero = self.int(0);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let i = self.b.block_params(head)[0];
        let all = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, i, n as i64);
        self.b.ins().brif(all, next, &[], body, &[]);
        self.b.switch_to_block(body);
        self.unless_ended(ended, next);
        let f = match order {
            Some(slot) => {
                let at = self.b.ins().stack_addr(self.ptr, slot, 0);
                let at = self.b.ins().iadd(at, i);
                let f = self.b.ins().uload8(I64, mem, at, 0);
                self.proven(f)
            }
            // Rotating seats: the faction in seat `i` this game.
            None if self.t.rotate_seats => {
                let at = self.b.ins().iadd(self.env, i);
                let f = self.b.ins().uload8(I64, mem, at, Off::SEAT_AT);
                self.proven(f)
            }
            None => i,
        };
        self.skip_if_out(f, cont, i);
        if pp.parts.0 {
            self.seek_to(place, Ok(f), Err(0), part::BEGIN);
        }
        if p.actions.is_some() {
            // The game goes on: this body began with that test.
            self.checks_at(plan, Moment::TurnStart, Some(f), ended, true);
            self.unless_ended(ended, next);
            // It may have lost as its turn began.
            self.skip_if_out(f, cont, i);
        }
        // `before`: as the effects run, then the same tests as after the turn-start checks.
        if let Some(addr) = before {
            self.bind_all(Some(f));
            let r = self.call_code(addr, &[]);
            self.held_ends(r, ended);
            self.pending(plan, ended);
            self.resolve(ended);
            self.unless_ended(ended, next);
            self.skip_if_out(f, cont, i);
        }
        if let Some(k) = &p.actions {
            // A turn binds its faction itself: only a count that is a formula needs it.
            if k.as_const_num().is_none() {
                self.bind_all(Some(f));
            }
            let c = self.value(k);
            let count = match c.ty {
                Ty::Int => {
                    let z = self.int(0);
                    let c = self.b.ins().smax(c.v, z);
                    let top = self.int(u32::MAX as i64);
                    self.b.ins().smin(c, top)
                }
                // `as u32` of a real: NaN and below 0 are 0, above the range its top.
                Ty::Real => {
                    let c = self.b.ins().fcvt_to_uint_sat(I32, c.v);
                    self.b.ins().uextend(I64, c)
                }
            };
            self.decisions(plan, (place, f), count, k.loc, opts, ended, next);
        }
        // The game goes on here: tested as the body began and after each decision that
        // took an action (nothing else in between ends it).
        // With no effects nothing ran since the last decision's conditions were checked.
        if pp.parts.1 {
            self.seek_to(place, Ok(f), Err(0), part::END);
        }
        if let Some(addr) = run {
            self.bind_all(Some(f));
            let r = self.call_code(addr, &[]);
            self.held_ends(r, ended);
            self.pending(plan, ended);
        }
        self.resolve(ended);
        if p.actions.is_some() && !plan.finals.is_empty() {
            self.turn_over(plan, f, ended);
        }
        self.b.ins().jump(cont, &[BlockArg::Value(i)]);
        self.b.switch_to_block(cont);
        let i = self.b.block_params(cont)[0];
        let i1 = self.b.ins().iadd_imm_s(i, 1);
        self.b.ins().jump(head, &[BlockArg::Value(i1)]);
    }

    /// The engine's `turn_over` at the end of faction `f`'s turn in a phase with actions,
    /// while the game goes on: a final turn counted (the last ends the game), or else the
    /// final-turns and final-round conditions tested in order with `f` bound (final-round
    /// ones only while no final round is under way); the first that holds begins the final
    /// turns or the final round ([`h::final_turn`], [`h::begin_final`]).
    fn turn_over(&mut self, plan: &RoundPlan<'_>, f: Value, ended: Variable) {
        let done = self.b.create_block();
        self.unless_ended(ended, done);
        let env = self.env;
        let r = self.call_pure(h::final_turn as *const () as usize, &[self.ptr], &[env]);
        let (check, counted) = (self.b.create_block(), self.b.create_block());
        let none = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, -1);
        self.b.ins().brif(none, check, &[], counted, &[]);
        // A final turn counted: -1 (GOING) when more are to come, else the game's reason.
        self.b.switch_to_block(counted);
        self.b.def_var(ended, r);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(check);
        for c in &plan.finals {
            let next = self.b.create_block();
            let turns = c.timing == Timing::Then(Schedule::FinalTurns);
            if !turns {
                let set = self.b.ins().icmp_imm_s(IntCC::Equal, r, -3);
                let go = self.b.create_block();
                self.b.ins().brif(set, next, &[], go, &[]);
                self.b.switch_to_block(go);
            }
            self.bind_all(Some(f));
            let holds = self.value(&c.when);
            self.pass_if(holds, next);
            let env = self.env;
            let args = [
                env,
                self.i32c(u32::from(c.reason.0)),
                self.i32c(turns as u32),
                self.i32c(self.t.nfactions as u32),
            ];
            self.call_quiet(
                h::begin_final as *const () as usize,
                &[self.ptr, I32, I32, I32],
                &args,
            );
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(next);
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
        // A condition may have stored its binding: nothing is known of it afterwards.
        self.known = [None; 3];
    }

    /// Whether faction `f` has left the game (1 or 0).
    fn gone(&mut self, f: Value) -> Value {
        let out = self.env_load(I32, Off::OUT);
        let out = self.b.ins().uextend(I64, out);
        let out = self.b.ins().ushr(out, f);
        self.b.ins().band_imm_s(out, 1)
    }

    /// Goes to `cont` (with `i`) when faction `f` has left the game.
    fn skip_if_out(&mut self, f: Value, cont: Block, i: Value) {
        let gone = self.gone(f);
        let go = self.b.create_block();
        self.b
            .ins()
            .brif(gone, cont, &[BlockArg::Value(i)], go, &[]);
        self.b.switch_to_block(go);
    }

    /// Faction `f`'s `count` decisions, as the engine's turn loop makes them, the game
    /// going on as they begin: while it goes on (else to `ended_to`, tested after each
    /// turn that took an action, the only ones that can end it), each counts against the
    /// step budget (a fault located at the action count `loc` past it), then the faction's
    /// turn runs; its marks are settled after a turn that took an action.
    #[allow(
        clippy::too_many_arguments,
        reason = "the Cranelift values a turn's decisions read, each live in the caller"
    )]
    fn decisions(
        &mut self,
        plan: &RoundPlan<'_>,
        (place, f): (u64, Value),
        count: Value,
        loc: u32,
        opts: Option<Value>,
        ended: Variable,
        ended_to: Block,
    ) {
        let (head, body, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, I64);
        let zero = self.int(0);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let j = self.b.block_params(head)[0];
        let all = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, j, count);
        self.b.ins().brif(all, done, &[], body, &[]);
        self.b.switch_to_block(body);
        let steps = self.env_load(I64, Off::STEPS);
        let steps = self.b.ins().iadd_imm_s(steps, 1);
        self.env_store(steps, Off::STEPS);
        let over =
            self.b
                .ins()
                .icmp_imm_u(IntCC::UnsignedGreaterThan, steps, plan.max_steps as i64);
        let (cold, go) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(cold);
        self.b.ins().brif(over, cold, &[], go, &[]);
        self.b.switch_to_block(cold);
        let env = self.env;
        let (max, locv) = (self.int(plan.max_steps as i64), self.i32c(loc));
        self.rarely(|l| {
            l.call(
                h::step_budget as *const () as usize,
                &[l.ptr, I64, I32],
                None,
                &[env, max, locv],
            )
        });
        self.faulty = false;
        let ret = self.fault_block();
        self.b.ins().jump(ret, &[]);
        self.b.switch_to_block(go);
        let opts = opts.expect("a phase with actions has the option buffer");
        self.seek_to(place, Ok(f), Ok(j), part::PICK);
        let r = self.turn(plan, f, opts);
        let pass = self.b.ins().band_imm_s(r, PASS as i64);
        let (took, cont) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(pass, cont, &[], took, &[]);
        self.b.switch_to_block(took);
        self.held_ends(r, ended);
        self.pending(plan, ended);
        // A faction that lost in this decision makes no more of them.
        self.resolve_or_leave(ended, Some((f, ended_to, done)));
        self.unless_ended(ended, ended_to);
        self.b.ins().jump(cont, &[]);
        self.b.switch_to_block(cont);
        let j1 = self.b.ins().iadd_imm_s(j, 1);
        self.b.ins().jump(head, &[BlockArg::Value(j1)]);
        self.b.switch_to_block(done);
    }

    /// Faction `f`'s turn lowered here ([`Lower::menu_body`]), its code the value of a block
    /// every way out of the turn goes to; what the round knows of the bindings afterwards is
    /// what it knows after a call of the turn's function.
    fn inline_turn(&mut self, t: &InlineTurn<'_>, f: Value, opts: Value) -> Value {
        let exit = self.b.create_block();
        self.b.append_block_param(exit, I64);
        self.flush_pending();
        let saved = (
            self.third,
            self.fourth,
            self.exit,
            self.pending,
            self.flushed,
        );
        (self.third, self.fourth, self.exit) = (Some(opts), Some(f), Some(exit));
        self.menu_body(self.t.nfactions, &t.items, t.priority, t.searched);
        (
            self.third,
            self.fourth,
            self.exit,
            self.pending,
            self.flushed,
        ) = saved;
        self.b.switch_to_block(exit);
        self.faulty = false;
        self.known = [None; 3];
        self.b.block_params(exit)[0]
    }

    /// Calls faction `f`'s turn (the one function of every faction when they share it,
    /// else the one `f` picks) and returns its code.
    fn turn(&mut self, plan: &RoundPlan<'_>, f: Value, opts: Value) -> Value {
        if let Some(t) = &plan.turn {
            return self.inline_turn(t, f, opts);
        }
        let first = plan.menus[0];
        if plan.menus.iter().all(|&a| a == first) {
            return self.call_code(first, &[opts, f]);
        }
        let merge = self.b.create_block();
        self.b.append_block_param(merge, I64);
        let mut sw = cranelift_frontend::Switch::new();
        let blocks: Vec<Block> = plan
            .menus
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let b = self.b.create_block();
                sw.set_entry(i as u128, b);
                b
            })
            .collect();
        // Not reached: `f` is a faction.
        let other = blocks[0];
        sw.emit(&mut self.b, f, other);
        for (&b, &addr) in blocks.iter().zip(&plan.menus) {
            self.b.switch_to_block(b);
            let r = self.call_code(addr, &[opts, f]);
            self.b.ins().jump(merge, &[BlockArg::Value(r)]);
        }
        self.b.switch_to_block(merge);
        self.b.block_params(merge)[0]
    }
}
