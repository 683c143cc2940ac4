//! The game engine: plays one game of a [`Model`] from its random stream to an [`Outcome`].
//!
//! Owns the order of play (setup, rounds, events, phases, faction turns, agent decisions,
//! statements, end checks) and the final ranking with its tie-break chain. It knows no game:
//! everything it does is read from the model. A [`Game`] is built once per worker and reused,
//! so playing a game allocates nothing; tracing is a type parameter that compiles away.

pub mod example;
pub mod trace;

use rand::RngExt;
use rand_distr::{Distribution, StandardNormal};

use crate::expr::compile::{ALL_LOST, LAST_STANDING, LAST_TEAM, MAX_ORDER_KEYS};
use crate::expr::{AssignOp, Env, Expr, Fault, FaultKind, LValue, OutcomeKind, Stmt, TiePolicy};
use crate::model::{EventAt, Model, Policy, TieBreak, Timing};
use crate::rng::game_rng;
use crate::state::{MAX_FACTIONS, State};
pub use trace::{NoTrace, TextTrace, Tracer};

/// How a game's winner was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decider {
    /// The top score was not tied (or the game was a draw).
    Score,
    /// A link of the tie-break chain separated the top faction (index into the chain).
    Link(u8),
    /// The tie at the top survived the chain: a shared win.
    Shared,
    /// A `win`/`lose` rule decided (win statement, last one standing, last team).
    Rule,
}

/// The result of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Result {
    /// One winner.
    Win(u8),
    /// Several factions share first place (bit mask).
    Shared(u32),
    /// Nobody wins: a draw.
    Draw,
    /// Nobody wins and every faction loses.
    Nobody,
}

/// Everything the statistics need from one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outcome {
    /// End reason id.
    pub reason: u16,
    /// Rounds played (the round in which the game ended).
    pub rounds: u32,
    /// Final score of each faction.
    pub scores: [i64; MAX_FACTIONS],
    /// Final rank of each faction, 1-based; tied factions share a rank.
    pub ranks: [u8; MAX_FACTIONS],
    /// Who won.
    pub result: Result,
    /// How the winner was decided.
    pub decided_by: Decider,
}

#[derive(Clone, Copy)]
struct Bind {
    me: u8,
    bound: u8,
    target: u8,
}

impl Bind {
    fn faction(f: u8) -> Bind {
        Bind {
            me: f,
            bound: f,
            target: f,
        }
    }
    fn global() -> Bind {
        Bind {
            me: 0,
            bound: 0,
            target: 0,
        }
    }
}

/// A game stopped by a fault. The fault itself waits in the evaluation context until
/// [`Game::play`] hands it out, so that every step of the engine returns a result no larger
/// than its value.
#[derive(Debug, Clone, Copy)]
struct Halt;

type Step<T = ()> = std::result::Result<T, Halt>;

/// No faction leads alone.
pub const NO_LEADER: u8 = u8::MAX;
/// Rounds for which the leader is recorded (the `leader_by_round` table).
pub const LEADER_ROUNDS: usize = 200;

/// A reusable game player for one model.
pub struct Game<'m, T: Tracer = NoTrace> {
    m: &'m Model,
    /// State, random stream and bindings: what expressions see.
    env: Env<'m>,
    opts: Vec<(u16, u8, f64)>,
    /// The actions each faction's agent considers, in model order:
    /// `menu[menu_at[f]..menu_at[f + 1]]` (actions it may not take, or that its priority
    /// list leaves out, are not on it).
    menu: Vec<u16>,
    menu_at: Vec<u32>,
    ended: Option<u16>,
    /// Factions that won, lost or drew by rule, waiting for the end of the statement.
    pending_win: u32,
    pending_lose: u32,
    forced: Option<Result>,
    pending_reason: u16,
    /// Setting up a worked example: changes do not trigger immediate checks.
    quiet: bool,
    /// Reason ids of the rule-based endings (when the scenario uses `lose`).
    rule_reasons: [Option<u16>; 3],
    /// Points by source, `faction * sources + source`.
    points: Vec<i64>,
    /// The faction leading alone on the ranking score after each round (index round - 1),
    /// `NO_LEADER` when the lead is shared; kept for the first `LEADER_ROUNDS` rounds.
    leaders: Vec<u8>,
    /// The tracer (a [`TextTrace`] collects the story of the game).
    pub tracer: T,
}

impl<'m> Game<'m, NoTrace> {
    /// A game player without tracing.
    pub fn new(m: &'m Model) -> Self {
        Game::with_tracer(m, NoTrace)
    }
}

impl<'m, T: Tracer> Game<'m, T> {
    /// A game player with the given tracer.
    pub fn with_tracer(m: &'m Model, tracer: T) -> Self {
        let (mut menu, mut menu_at) = (Vec::new(), vec![0u32]);
        for (f, agent) in m.agents.iter().enumerate() {
            menu.extend((0..m.actions.len()).filter_map(|ai| {
                let allowed = m.actions[ai].allowed & (1 << f) != 0;
                let listed = agent.policy != Policy::Priority || agent.priority[ai] != u16::MAX;
                (allowed && listed).then_some(ai as u16)
            }));
            menu_at.push(menu.len() as u32);
        }
        Game {
            m,
            env: Env::new(State::new(m.slots, &m.tables), &m.tables, game_rng(0, 0)),
            opts: Vec::with_capacity(m.actions.len() * m.nfactions() + 1),
            menu,
            menu_at,
            ended: None,
            pending_win: 0,
            pending_lose: 0,
            forced: None,
            pending_reason: 0,
            quiet: false,
            rule_reasons: [LAST_STANDING, ALL_LOST, LAST_TEAM]
                .map(|n| m.reasons.iter().position(|r| r.name == n).map(|i| i as u16)),
            points: vec![0; m.nfactions() * m.sources.len()],
            leaders: Vec::with_capacity((m.rounds as usize).min(LEADER_ROUNDS)),
            tracer,
        }
    }

    /// Random words (32-bit) the last game consumed.
    pub fn words_used(&self) -> u128 {
        crate::rng::words_used(&self.env.rng)
    }

    /// The state after the last game (for tests and examples).
    pub fn state(&self) -> &State {
        &self.env.st
    }

    /// The faction leading alone on the ranking score after each round of the last game
    /// ([`NO_LEADER`] for a shared lead).
    pub fn leaders(&self) -> &[u8] {
        &self.leaders
    }

    /// The faction with the strictly highest ranking score now, if any.
    fn leader(&mut self) -> Step<u8> {
        let m = self.m;
        let (mut best, mut who, mut tied) = (f64::NEG_INFINITY, NO_LEADER, false);
        for f in 0..m.nfactions() {
            let s = self.eval(&m.ranking.score, Bind::faction(f as u8))?;
            if s > best {
                (best, who, tied) = (s, f as u8, false);
            } else if s == best {
                tied = true;
            }
        }
        Ok(if tied { NO_LEADER } else { who })
    }

    /// Points each faction gained from each source in the last game,
    /// `faction * sources + source`.
    pub fn points(&self) -> &[i64] {
        &self.points
    }

    /// Plays game `game` of master seed `seed`.
    pub fn play(&mut self, seed: u64, game: u64) -> std::result::Result<Outcome, Fault> {
        let out = self.play_steps(seed, game);
        out.map_err(|Halt| self.take_fault())
    }

    /// The fault that halted the game.
    fn take_fault(&mut self) -> Fault {
        self.env.cx.fault.take().unwrap_or(Fault {
            loc: 0,
            kind: FaultKind::BadScore(f64::NAN),
        })
    }

    /// Records a fault found by the engine itself (the first one wins) and halts.
    #[cold]
    fn halt(&mut self, f: Fault) -> Halt {
        if self.env.cx.fault.is_none() {
            self.env.cx.fault = Some(f);
        }
        Halt
    }

    fn play_steps(&mut self, seed: u64, game: u64) -> Step<Outcome> {
        self.env.cx.fault = None;
        self.env.rng = game_rng(seed, game);
        self.env.st.reset(&self.m.tables);
        self.ended = None;
        self.pending_win = 0;
        self.pending_lose = 0;
        self.forced = None;
        self.points.fill(0);
        self.leaders.clear();
        if T::ON {
            self.tracer
                .line(format_args!("game {game} of seed {seed}: {}", self.m.title));
        }
        self.setup()?;
        self.checks(Timing::Immediate, Bind::global())?;
        let m = self.m;
        let mut round = 0;
        while round < m.rounds && self.ended.is_none() {
            round += 1;
            self.env.st.round = round as i64;
            self.env.st.age = m.age_of_round[round as usize];
            self.env.st.age_round = m.age_round[round as usize];
            if T::ON {
                self.tracer
                    .line(format_args!("round {round} (age {})", self.env.st.age));
            }
            self.round()?;
            if self.leaders.len() < LEADER_ROUNDS {
                let leader = self.leader()?;
                self.leaders.push(leader);
            }
        }
        let reason = self.ended.unwrap_or(m.last_round_reason);
        if T::ON {
            let r = &m.reasons[reason as usize];
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
        Ok(out)
    }

    #[inline]
    fn eval(&mut self, e: &Expr, b: Bind) -> Step<f64> {
        self.bind(b);
        self.eval_bound(e)
    }

    /// Binds the factions formulas see as "this", the bound one and the target.
    #[inline]
    fn bind(&mut self, b: Bind) {
        self.env.cx.me = b.me;
        self.env.cx.bound = b.bound;
        self.env.cx.target = b.target;
    }

    /// Evaluates `e` with the factions already bound.
    #[inline]
    fn eval_bound(&mut self, e: &Expr) -> Step<f64> {
        // Constant weights, chances and amounts are common; they need no call.
        if let Some(c) = e.as_const() {
            return Ok(c);
        }
        let v = e.eval(&mut self.env);
        if self.env.cx.fault.is_some() {
            return Err(Halt);
        }
        Ok(v)
    }

    fn setup(&mut self) -> Step {
        let m = self.m;
        self.env.st.vals.fill(0);
        for (vi, v) in m.vars.iter().enumerate() {
            let owners = if v.faction { m.nfactions() } else { 1 };
            for f in 0..owners {
                let init = v.init_for[f].as_ref().unwrap_or(&v.init);
                let b = Bind::faction(f as u8);
                for e in 0..v.width {
                    let x = self.eval(init, b)?;
                    let lv = LValue {
                        var: vi as u16,
                        base: v.base,
                        fstride: v.fstride,
                        who: if v.faction {
                            crate::expr::Who::Fixed(f as u8)
                        } else {
                            crate::expr::Who::None
                        },
                        elem: if v.set.is_some() {
                            crate::expr::Elem::Fixed(e as u16)
                        } else {
                            crate::expr::Elem::None
                        },
                    };
                    let slot = self.slot(&lv, b);
                    self.env.st.vals[slot] = self.store(lv.var, x, init.loc)?;
                    if T::ON && init.is_random() {
                        let name =
                            m.slot_name(lv.var, v.faction.then_some(f), v.set.map(|_| e as usize));
                        self.tracer.line(format_args!(
                            "  setup: {name} = {} (drawn)",
                            self.env.st.vals[slot]
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn round(&mut self) -> Step {
        let m = self.m;
        self.events(EventAt::RoundStart)?;
        self.checks(Timing::RoundStart, Bind::global())?;
        for p in &m.phases {
            if self.ended.is_some() {
                return Ok(());
            }
            if let Some(w) = &p.when
                && self.eval(w, Bind::global())? == 0.0
            {
                continue;
            }
            self.phase(p)?;
        }
        if self.ended.is_none() {
            self.events(EventAt::RoundEnd)?;
            self.checks(Timing::RoundEnd, Bind::global())?;
        }
        Ok(())
    }

    /// Runs one phase: its effects once, or a turn for every faction still in the game.
    fn phase(&mut self, p: &crate::model::Phase) -> Step {
        if T::ON {
            self.tracer.line(format_args!(" phase {}", p.name));
        }
        if !p.faction {
            return self.run(&p.effects, Bind::global());
        }
        let mut order = [0u8; MAX_FACTIONS];
        let n = self.m.nfactions();
        self.sorted_order(&p.order, &mut order[..n])?;
        for &f in &order[..n] {
            if self.ended.is_some() {
                return Ok(());
            }
            if (self.env.st.out >> f) & 1 != 0 {
                continue;
            }
            let b = Bind::faction(f);
            if let Some(k) = &p.actions {
                self.checks(Timing::TurnStart, b)?;
                if self.ended.is_some() {
                    return Ok(());
                }
                let count = self.eval(k, b)?.max(0.0) as u32;
                for _ in 0..count {
                    if self.ended.is_some() {
                        return Ok(());
                    }
                    self.decide(f)?;
                }
            }
            self.run(&p.effects, b)?;
        }
        Ok(())
    }

    /// Fills `order` with faction indices sorted ascending by `keys` (ties by seat).
    #[inline(never)]
    fn sorted_order(&mut self, keys: &[Expr], order: &mut [u8]) -> Step {
        let n = order.len();
        for (i, o) in order.iter_mut().enumerate() {
            *o = i as u8;
        }
        if keys.is_empty() {
            return Ok(());
        }
        let mut k = [[0.0f64; MAX_ORDER_KEYS]; MAX_FACTIONS];
        let nk = keys.len().min(MAX_ORDER_KEYS);
        for (f, row) in k.iter_mut().enumerate().take(n) {
            for (j, e) in keys.iter().take(nk).enumerate() {
                row[j] = self.eval(e, Bind::faction(f as u8))?;
            }
        }
        // Insertion sort: stable, no allocation, n <= 16.
        for i in 1..n {
            let mut j = i;
            while j > 0 && less(&k[order[j] as usize][..nk], &k[order[j - 1] as usize][..nk]) {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        Ok(())
    }

    fn events(&mut self, at: EventAt) -> Step {
        let m = self.m;
        for e in m.events.iter().filter(|e| e.at == at) {
            if self.ended.is_some() {
                return Ok(());
            }
            if let Some(w) = &e.when
                && self.eval(w, Bind::global())? == 0.0
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

    fn checks(&mut self, timing: Timing, b: Bind) -> Step {
        let m = self.m;
        for (i, c) in m.checks.iter().enumerate() {
            if c.timing == timing {
                self.check(i as u16, b)?;
            }
        }
        Ok(())
    }

    fn check(&mut self, i: u16, b: Bind) -> Step {
        let m = self.m;
        if self.ended.is_some() {
            return Ok(());
        }
        let c = &m.checks[i as usize];
        if self.eval(&c.when, b)? != 0.0 {
            if T::ON {
                self.tracer.line(format_args!(
                    "  end condition met: {}",
                    m.reasons[c.reason as usize].name
                ));
            }
            if c.wins {
                self.pending_win |= 1 << b.me;
                self.pending_reason = c.reason;
                self.resolve();
            } else {
                self.ended = Some(c.reason);
            }
        }
        Ok(())
    }

    /// Settles the `win`/`lose` marks of the statement just run: winning and losing at once
    /// is a loss; losers leave the game; a winner ends it; if everyone left has lost at once
    /// it is a draw; with teams, the last side standing wins with all its members; otherwise
    /// the last faction standing wins.
    #[inline]
    fn resolve(&mut self) {
        if self.pending_win | self.pending_lose != 0 {
            self.settle();
        }
    }

    #[cold]
    #[inline(never)]
    fn settle(&mut self) {
        let n = self.m.nfactions();
        let all = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let lose = self.pending_lose & !self.env.st.out;
        let win = self.pending_win & !lose & !self.env.st.out;
        self.pending_win = 0;
        self.pending_lose = 0;
        self.env.st.out |= lose;
        if T::ON && lose != 0 {
            let names: Vec<&str> = (0..n)
                .filter(|f| lose & (1 << f) != 0)
                .map(|f| self.m.factions[f].name.as_str())
                .collect();
            self.tracer.line(format_args!(
                "    lost and left the game: {}",
                names.join(", ")
            ));
        }
        let winners = |mask: u32| {
            if mask.count_ones() == 1 {
                Result::Win(mask.trailing_zeros() as u8)
            } else {
                Result::Shared(mask)
            }
        };
        if win != 0 {
            self.forced = Some(winners(win));
            self.ended = Some(self.pending_reason);
            return;
        }
        if lose == 0 {
            return;
        }
        let remaining = all & !self.env.st.out;
        let [last_standing, all_lost, last_team] = self.rule_reasons;
        if remaining == 0 {
            self.forced = Some(Result::Draw);
            self.ended = all_lost.or(Some(self.pending_reason));
        } else if self.m.teams {
            let t = &self.m.tables;
            let first = remaining.trailing_zeros() as usize;
            let side = t.side[first];
            if side != 0 && (0..n).all(|f| remaining & (1 << f) == 0 || t.side[f] == side) {
                // Every member of the last team wins, even those who had left the game.
                let team = (0..n)
                    .filter(|&f| t.side[f] == side)
                    .fold(0u32, |m, f| m | 1 << f);
                self.forced = Some(winners(team));
                self.ended = last_team.or(Some(self.pending_reason));
            }
        } else if remaining.count_ones() == 1 && n > 1 {
            self.forced = Some(winners(remaining));
            self.ended = last_standing.or(Some(self.pending_reason));
        }
    }

    /// Runs an effect list. `win` and `lose` marks made anywhere in the list are settled
    /// together at its end: one effect is one moment.
    fn run(&mut self, stmts: &[Stmt], b: Bind) -> Step {
        for s in stmts {
            if self.ended.is_some() {
                break;
            }
            self.exec(s, b)?;
        }
        self.resolve();
        Ok(())
    }

    fn slot(&self, lv: &LValue, b: Bind) -> usize {
        let f = match lv.who {
            crate::expr::Who::None => 0,
            crate::expr::Who::Bound => b.bound as usize,
            crate::expr::Who::Me => b.me as usize,
            crate::expr::Who::Target => b.target as usize,
            crate::expr::Who::Fixed(f) => f as usize,
        };
        let e = match lv.elem {
            crate::expr::Elem::Fixed(e) => e as usize,
            _ => 0,
        };
        crate::expr::slot(f, lv.base, lv.fstride, e)
    }

    #[inline]
    fn store(&mut self, var: u16, x: f64, loc: u32) -> Step<i64> {
        if !x.is_finite() {
            return Err(self.not_storable(x, var, loc));
        }
        let t = &self.m.tables;
        Ok(floor_i64(x).clamp(t.var_min[var as usize], t.var_max[var as usize]))
    }

    #[cold]
    #[inline(never)]
    fn not_storable(&mut self, x: f64, var: u16, loc: u32) -> Halt {
        self.halt(Fault {
            loc,
            kind: FaultKind::NotStorable(x, var),
        })
    }

    /// Stores an assignment; returns whether the value changed.
    fn assign(&mut self, lv: &LValue, op: AssignOp, x: f64, b: Bind, loc: u32) -> Step<bool> {
        self.assign_from(lv, op, x, b, loc, None)
    }

    /// Stores an assignment, crediting the change to `source`; returns whether it changed.
    /// Always inline: it is the body of the hottest statement, and without a source or a
    /// trace it is four lines.
    #[inline(always)]
    fn assign_from(
        &mut self,
        lv: &LValue,
        op: AssignOp,
        x: f64,
        b: Bind,
        loc: u32,
        source: Option<u8>,
    ) -> Step<bool> {
        let slot = self.slot(lv, b);
        let old = self.env.st.vals[slot];
        let new = self.store(lv.var, combine(op, old, x), loc)?;
        self.env.st.vals[slot] = new;
        if source.is_some() || T::ON {
            self.record(lv, op, x, b, (slot, old, new), source);
        }
        Ok(new != old)
    }

    /// Credits a stored change (`slot`, `old`, `new`) to its source and traces it.
    #[inline(never)]
    fn record(
        &mut self,
        lv: &LValue,
        op: AssignOp,
        x: f64,
        b: Bind,
        (slot, old, new): (usize, i64, i64),
        source: Option<u8>,
    ) {
        if let Some(src) = source
            && lv.fstride != 0
        {
            let f = (slot - lv.base as usize) / lv.fstride as usize;
            self.points[f * self.m.sources.len() + src as usize] += new - old;
        }
        if T::ON {
            let who = match lv.who {
                crate::expr::Who::None => None,
                crate::expr::Who::Bound => Some(b.bound as usize),
                crate::expr::Who::Me => Some(b.me as usize),
                crate::expr::Who::Target => Some(b.target as usize),
                crate::expr::Who::Fixed(f) => Some(f as usize),
            };
            let elem = match lv.elem {
                crate::expr::Elem::Fixed(e) => Some(e as usize),
                _ => None,
            };
            let name = self.m.slot_name(lv.var, who, elem);
            let sym = match op {
                AssignOp::Set => "=",
                AssignOp::Add => "+=",
                AssignOp::Sub => "-=",
            };
            let shown = if op == AssignOp::Set {
                x
            } else {
                (x - old as f64).abs()
            };
            let flip = match self.m.vars[lv.var as usize].flip {
                Some(f) if f > 0 && new >= f => format!(", shown as {} on the +{f} side", new % f),
                _ => String::new(),
            };
            self.tracer.line(format_args!(
                "    {name} {sym} {shown} -> {new} (was {old}{flip})"
            ));
        }
    }

    /// Runs the immediate checks that read `var` (none while a worked example is set up).
    #[inline]
    fn after_change(&mut self, var: u16) -> Step {
        if self.quiet || self.m.immediate_by_var[var as usize].is_empty() {
            return Ok(());
        }
        self.immediate_checks(var)
    }

    #[inline(never)]
    fn immediate_checks(&mut self, var: u16) -> Step {
        let m = self.m;
        for &c in &m.immediate_by_var[var as usize] {
            self.check(c, Bind::global())?;
        }
        Ok(())
    }

    /// Runs one statement. Assignments and conditions (nearly every statement a game runs)
    /// are handled here; the rest in a separate function, so that this one stays small.
    #[inline]
    fn exec(&mut self, s: &Stmt, b: Bind) -> Step {
        match s {
            // The common case, inline: no points-by-source tag and no trace to write.
            Stmt::Assign {
                lv,
                op,
                value,
                source: None,
            } if !T::ON => {
                let x = self.eval(value, b)?;
                if self.assign_from(lv, *op, x, b, value.loc, None)? {
                    self.after_change(lv.var)?;
                }
                Ok(())
            }
            Stmt::If { cond, then } => {
                if self.eval(cond, b)? != 0.0 {
                    self.exec(then, b)?;
                }
                Ok(())
            }
            _ => self.exec_more(s, b),
        }
    }

    #[inline(never)]
    fn exec_more(&mut self, s: &Stmt, b: Bind) -> Step {
        match s {
            Stmt::Assign {
                lv,
                op,
                value,
                source,
            } => {
                let x = self.eval(value, b)?;
                if self.assign_from(lv, *op, x, b, value.loc, *source)? {
                    self.after_change(lv.var)?;
                }
            }
            Stmt::Award {
                lv,
                metric,
                scale,
                ties,
                chain,
                source,
            } => self.award(lv, metric, scale, *ties, chain, *source, b)?,
            Stmt::Block(body) => {
                for s in body.iter() {
                    if self.ended.is_some() {
                        break;
                    }
                    self.exec(s, b)?;
                }
            }
            Stmt::Race {
                done,
                count,
                cond,
                key,
                lv,
                scale,
                source,
            } => self.race(done, count, cond, key, lv, scale, *source, b)?,
            Stmt::Outcome { kind, reason } => match kind {
                OutcomeKind::Win => {
                    if self.pending_win == 0 {
                        self.pending_reason = *reason;
                    }
                    self.pending_win |= 1 << b.bound;
                    if T::ON {
                        self.tracer.line(format_args!(
                            "    {} wins ({})",
                            self.m.factions[b.bound as usize].name,
                            self.m.reasons[*reason as usize].name
                        ));
                    }
                }
                OutcomeKind::Lose => {
                    if self.pending_win == 0 && self.pending_lose == 0 {
                        self.pending_reason = *reason;
                    }
                    self.pending_lose |= 1 << b.bound;
                    if T::ON {
                        self.tracer.line(format_args!(
                            "    {} loses ({})",
                            self.m.factions[b.bound as usize].name,
                            self.m.reasons[*reason as usize].name
                        ));
                    }
                }
            },
            Stmt::If { cond, then } => {
                if self.eval(cond, b)? != 0.0 {
                    self.exec(then, b)?;
                }
            }
            Stmt::Each { others, body } => self.each(*others, body, b)?,
            Stmt::End(r) => {
                if self.ended.is_none() {
                    self.ended = Some(*r);
                    if T::ON {
                        self.tracer
                            .line(format_args!("  end: {}", self.m.reasons[*r as usize].name));
                    }
                }
            }
            Stmt::Draw(d, cond) => self.pick(*d, cond.as_ref(), b, crate::state::REVEALED)?,
            Stmt::Take { deck, cond } => {
                self.pick(*deck, cond.as_ref(), b, crate::state::held_by(b.bound))?
            }
            Stmt::ForHeld { deck, body } => {
                let code = crate::state::held_by(b.bound);
                for c in self.m.tables.deck_cards(*deck) {
                    if self.ended.is_some() {
                        break;
                    }
                    // Each card is looked at once, even if the body discards or completes it.
                    if self.env.st.owner[c] == code {
                        self.env.st.card = Some(c as u16);
                        self.exec(body, b)?;
                    }
                }
            }
            Stmt::Discard => {
                if let Some(c) = self.env.st.card {
                    self.return_card(c as usize);
                }
            }
            Stmt::Complete => {
                if let Some(c) = self.env.st.card {
                    if self.env.st.owner[c as usize] == crate::state::IN_POOL {
                        self.remove_from_pool(c as usize);
                    }
                    self.env.st.owner[c as usize] = crate::state::completed_by(b.bound);
                    if T::ON {
                        self.tracer.line(format_args!(
                            "    {} completes {}",
                            self.m.factions[b.bound as usize].name,
                            self.card_name(c)
                        ));
                    }
                }
            }
            Stmt::Order { lv, keys } => {
                let n = self.m.nfactions();
                let mut order = [0u8; MAX_FACTIONS];
                self.sorted_order(keys, &mut order[..n])?;
                for (pos, &f) in order[..n].iter().enumerate() {
                    let fb = Bind { bound: f, ..b };
                    let slot = self.slot(lv, fb);
                    self.env.st.vals[slot] = self.store(lv.var, (pos + 1) as f64, 0)?;
                }
                if T::ON {
                    let list: Vec<String> = order[..n]
                        .iter()
                        .map(|&f| self.m.factions[f as usize].name.clone())
                        .collect();
                    self.tracer.line(format_args!(
                        "    order {}: {}",
                        self.m.vars[lv.var as usize].name,
                        list.join(", ")
                    ));
                }
                self.after_change(lv.var)?;
            }
        }
        Ok(())
    }

    /// `each`: every faction's condition and value are evaluated against the state before any
    /// assignment is made, so "all tied leaders gain 1" is simultaneous.
    #[inline(never)]
    fn each(&mut self, others: bool, body: &Stmt, b: Bind) -> Step {
        let n = self.m.nfactions();
        let outer = b.bound;
        let Some((lv, op, value, source)) = simple_assign(body) else {
            for f in 0..n as u8 {
                if (others && f == outer) || self.ended.is_some() {
                    continue;
                }
                self.exec(body, Bind { bound: f, ..b })?;
            }
            return Ok(());
        };
        let mut planned = [None::<f64>; MAX_FACTIONS];
        for f in 0..n as u8 {
            if others && f == outer {
                continue;
            }
            planned[f as usize] = self.plan(body, Bind { bound: f, ..b })?;
        }
        let mut changed = false;
        for f in 0..n as u8 {
            if let Some(x) = planned[f as usize] {
                changed |=
                    self.assign_from(lv, op, x, Bind { bound: f, ..b }, value.loc, source)?;
            }
        }
        if changed {
            self.after_change(lv.var)?;
        }
        Ok(())
    }

    /// Rank awards: every faction's metric is read first, then awards are added together.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn award(
        &mut self,
        lv: &LValue,
        metric: &Expr,
        scale: &[i64],
        ties: TiePolicy,
        chain: &[Expr],
        source: Option<u8>,
        b: Bind,
    ) -> Step {
        let n = self.m.nfactions();
        let mut key = [0.0f64; MAX_FACTIONS];
        for (f, k) in key.iter_mut().enumerate().take(n) {
            *k = self.eval(
                metric,
                Bind {
                    bound: f as u8,
                    ..b
                },
            )?;
        }
        if !chain.is_empty() {
            // Fold the chain into one key: each faction's key becomes the number of factions
            // strictly behind it on (metric, chain...), so ties the chain breaks are no longer
            // ties and ties it leaves remain.
            let mut keys = [[0.0f64; MAX_ORDER_KEYS]; MAX_FACTIONS];
            for f in 0..n {
                keys[f][0] = key[f];
                for (j, e) in chain.iter().enumerate() {
                    keys[f][j + 1] = self.eval(
                        e,
                        Bind {
                            bound: f as u8,
                            ..b
                        },
                    )?;
                }
            }
            let nk = chain.len() + 1;
            for f in 0..n {
                key[f] = (0..n)
                    .filter(|&g| less(&keys[g][..nk], &keys[f][..nk]))
                    .count() as f64;
            }
        }
        let mut amounts = [0i64; MAX_FACTIONS];
        rank_awards(&key[..n], scale, ties, &mut amounts[..n]);
        let mut changed = false;
        for (f, &a) in amounts.iter().enumerate().take(n) {
            changed |= self.assign_from(
                lv,
                AssignOp::Add,
                a as f64,
                Bind {
                    bound: f as u8,
                    ..b
                },
                metric.loc,
                source,
            )?;
        }
        if changed {
            self.after_change(lv.var)?;
        }
        Ok(())
    }

    /// Completion-order races: every faction's completion is read first (the same moment),
    /// then completers are rewarded in ascending `key` order (ties by seat).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn race(
        &mut self,
        done: &LValue,
        count: &LValue,
        cond: &Expr,
        key: &Expr,
        lv: &LValue,
        scale: &[i64],
        source: Option<u8>,
        b: Bind,
    ) -> Step {
        let n = self.m.nfactions();
        let mut order = [0u8; MAX_FACTIONS];
        let mut keys = [0.0f64; MAX_FACTIONS];
        let mut k = 0;
        for f in 0..n as u8 {
            let fb = Bind { bound: f, ..b };
            let slot = self.slot(done, fb);
            if self.env.st.vals[slot] != 0 || (self.env.st.out >> f) & 1 != 0 {
                continue;
            }
            if self.eval(cond, fb)? != 0.0 {
                keys[f as usize] = self.eval(key, fb)?;
                order[k] = f;
                k += 1;
            }
        }
        for i in 1..k {
            let mut j = i;
            while j > 0 && keys[order[j] as usize] < keys[order[j - 1] as usize] {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        for &f in &order[..k] {
            let fb = Bind { bound: f, ..b };
            let cslot = self.slot(count, fb);
            let place = self.env.st.vals[cslot];
            let reward = usize::try_from(place)
                .ok()
                .and_then(|p| scale.get(p))
                .copied()
                .unwrap_or(0);
            self.assign(done, AssignOp::Set, 1.0, fb, cond.loc)?;
            self.assign_from(lv, AssignOp::Add, reward as f64, fb, cond.loc, source)?;
            self.assign(count, AssignOp::Add, 1.0, fb, cond.loc)?;
        }
        if k > 0 {
            self.after_change(done.var)?;
            self.after_change(lv.var)?;
            self.after_change(count.var)?;
        }
        Ok(())
    }

    fn plan(&mut self, s: &Stmt, b: Bind) -> Step<Option<f64>> {
        match s {
            Stmt::If { cond, then } => {
                if self.eval(cond, b)? != 0.0 {
                    self.plan(then, b)
                } else {
                    Ok(None)
                }
            }
            Stmt::Assign { value, .. } => Ok(Some(self.eval(value, b)?)),
            _ => Ok(None),
        }
    }

    fn card_name(&self, c: u16) -> String {
        let d = self.deck_of(c as usize);
        let deck = &self.m.decks[d];
        format!(
            "{} ({})",
            deck.1[c as usize - self.m.tables.deck_start[d] as usize],
            deck.0
        )
    }

    fn deck_of(&self, c: usize) -> usize {
        let t = &self.m.tables;
        (0..t.deck_start.len())
            .rev()
            .find(|&d| t.deck_start[d] as usize <= c)
            .unwrap_or(0)
    }

    /// Takes card `c` out of its deck's pool (it must be there).
    fn remove_from_pool(&mut self, c: usize) {
        let d = self.deck_of(c);
        let start = self.m.tables.deck_start[d] as usize;
        let left = self.env.st.deck_left[d] as usize;
        if let Some(j) = (start..start + left).find(|&j| self.env.st.pool[j] as usize == c) {
            self.env.st.pool.swap(j, start + left - 1);
            self.env.st.deck_left[d] -= 1;
        }
    }

    /// Puts card `c` back into its deck's pool.
    fn return_card(&mut self, c: usize) {
        if self.env.st.owner[c] == crate::state::IN_POOL {
            return;
        }
        let d = self.deck_of(c);
        let start = self.m.tables.deck_start[d] as usize;
        let len = self.m.tables.deck_len[d] as usize;
        let left = self.env.st.deck_left[d] as usize;
        if let Some(j) = (start + left..start + len).find(|&j| self.env.st.pool[j] as usize == c) {
            self.env.st.pool.swap(j, start + left);
            self.env.st.deck_left[d] += 1;
        }
        self.env.st.owner[c] = crate::state::IN_POOL;
        if T::ON {
            self.tracer.line(format_args!(
                "    {} goes back to its deck",
                self.card_name(c as u16)
            ));
        }
    }

    /// `take` and `draw`: a uniformly random card among the deck's eligible cards leaves the
    /// pool for `owner` (a hand, or face up). Drawing an ineligible card, putting it back and
    /// drawing again until an eligible one comes gives exactly this distribution.
    #[inline(never)]
    fn pick(&mut self, d: u16, cond: Option<&Expr>, b: Bind, owner: u8) -> Step {
        let start = self.m.tables.deck_start[d as usize] as usize;
        let left = self.env.st.deck_left[d as usize] as usize;
        let mut eligible = 0usize;
        let mut pick = None;
        if let Some(cond) = cond {
            // Count the eligible cards, then draw the k-th: one random number per take.
            let saved = self.env.st.card;
            let mut ok = [false; 1024];
            for j in 0..left.min(ok.len()) {
                self.env.st.card = Some(self.env.st.pool[start + j]);
                ok[j] = self.eval(cond, b)? != 0.0;
                eligible += ok[j] as usize;
            }
            self.env.st.card = saved;
            if eligible > 0 {
                let mut k = self.env.rng.random_range(0..eligible);
                for (j, &o) in ok.iter().enumerate().take(left) {
                    if o {
                        if k == 0 {
                            pick = Some(j);
                            break;
                        }
                        k -= 1;
                    }
                }
            }
        } else if left > 0 {
            eligible = left;
            pick = Some(self.env.rng.random_range(0..left));
        }
        match pick {
            None => {
                self.env.st.card = None;
                if T::ON {
                    self.tracer.line(format_args!(
                        "    {}: no eligible card",
                        self.m.decks[d as usize].0
                    ));
                }
            }
            Some(j) => {
                let card = self.env.st.pool[start + j];
                self.env.st.pool.swap(start + j, start + left - 1);
                self.env.st.deck_left[d as usize] -= 1;
                self.env.st.owner[card as usize] = owner;
                self.env.st.card = Some(card);
                if T::ON {
                    let who = if owner == crate::state::REVEALED {
                        "draw:".to_string()
                    } else {
                        format!("{} takes", self.m.factions[b.bound as usize].name)
                    };
                    self.tracer.line(format_args!(
                        "    {who} {} ({eligible} eligible, {} left)",
                        self.card_name(card),
                        left - 1
                    ));
                }
            }
        }
        let m = self.m;
        for &c in &m.immediate_on_draw {
            self.check(c, Bind::global())?;
        }
        Ok(())
    }

    /// One agent decision for faction `f`.
    #[inline(never)]
    fn decide(&mut self, f: u8) -> Step {
        let m = self.m;
        let agent = &m.agents[f as usize];
        let noise = if agent.policy == Policy::Greedy {
            self.eval(&agent.noise, Bind::faction(f))?
        } else {
            0.0
        };
        let mut opts = std::mem::take(&mut self.opts);
        opts.clear();
        let result = self.options(f, noise, &mut opts);
        let chosen = match result {
            Ok(()) => self.choose(agent.policy, &opts),
            Err(e) => {
                self.opts = opts;
                return Err(e);
            }
        };
        self.opts = opts;
        let Some((ai, t)) = chosen else {
            if T::ON {
                self.tracer.line(format_args!(
                    "  {}: no action available, passes",
                    m.factions[f as usize].name
                ));
            }
            return Ok(());
        };
        let a = &m.actions[ai as usize];
        if T::ON {
            let tgt = if a.targeted {
                format!(" targeting {}", m.factions[t as usize].name)
            } else {
                String::new()
            };
            self.tracer.line(format_args!(
                "  {}: {}{tgt}",
                m.factions[f as usize].name, a.name
            ));
        }
        self.act(
            ai as usize,
            Bind {
                me: f,
                bound: f,
                target: t,
            },
        )
    }

    /// Lists faction `f`'s options (action, target, score) in menu order, each with its
    /// weight, noisy value or priority. The acting faction is bound once for the whole list
    /// and only the target changes, so each formula runs without rebinding.
    #[inline]
    fn options(&mut self, f: u8, noise: f64, opts: &mut Vec<(u16, u8, f64)>) -> Step {
        let m = self.m;
        let agent = &m.agents[f as usize];
        let n = m.nfactions() as u8;
        let (lo, hi) = (
            self.menu_at[f as usize] as usize,
            self.menu_at[f as usize + 1] as usize,
        );
        self.bind(Bind::faction(f));
        for i in lo..hi {
            let ai = self.menu[i];
            let a = &m.actions[ai as usize];
            // `when` cannot name the target, so it is evaluated once per action.
            if let Some(w) = &a.when
                && self.eval_bound(w)? == 0.0
            {
                continue;
            }
            let targets = if a.targeted { 0..n } else { f..f + 1 };
            for t in targets {
                if a.targeted {
                    if t == f {
                        continue;
                    }
                    self.env.cx.target = t;
                    if let Some(w) = &a.target_when
                        && self.eval_bound(w)? == 0.0
                    {
                        continue;
                    }
                }
                if !a.cost.is_empty() && !self.affordable(ai, f, t)? {
                    continue;
                }
                let score = match agent.policy {
                    Policy::Weighted => {
                        let w = self.eval_bound(&a.weight)?;
                        if w <= 0.0 {
                            continue;
                        }
                        w
                    }
                    Policy::Greedy => {
                        let v = self.eval_bound(&a.value)?;
                        if noise > 0.0 {
                            let z: f64 = StandardNormal.sample(&mut self.env.rng);
                            v + noise * z
                        } else {
                            v
                        }
                    }
                    Policy::Priority => -(agent.priority[ai as usize] as f64),
                };
                opts.push((ai, t, score));
            }
            self.env.cx.target = f;
        }
        Ok(())
    }

    /// Whether `f` can pay every cost of action `ai` against `t`.
    #[inline(never)]
    fn affordable(&mut self, ai: u16, f: u8, t: u8) -> Step<bool> {
        let a = &self.m.actions[ai as usize];
        let b = Bind {
            me: f,
            bound: f,
            target: t,
        };
        for (lv, amount) in &a.cost {
            let need = self.eval(amount, b)?;
            let slot = self.slot(lv, b);
            if (self.env.st.vals[slot] as f64) < need {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Takes action `ai` as `b.me` against `b.target`: pays its cost, runs its effects.
    fn act(&mut self, ai: usize, b: Bind) -> Step {
        let a = &self.m.actions[ai];
        for (lv, amount) in &a.cost {
            let x = self.eval(amount, b)?;
            if self.assign(lv, AssignOp::Sub, x, b, amount.loc)? {
                self.after_change(lv.var)?;
            }
        }
        self.run(&a.effects, b)
    }

    fn choose(&mut self, policy: Policy, opts: &[(u16, u8, f64)]) -> Option<(u16, u8)> {
        if opts.is_empty() {
            return None;
        }
        match policy {
            Policy::Weighted => {
                let total: f64 = opts.iter().map(|o| o.2).sum();
                let mut x = self.env.rng.random::<f64>() * total;
                for o in opts {
                    if x < o.2 {
                        return Some((o.0, o.1));
                    }
                    x -= o.2;
                }
                opts.last().map(|o| (o.0, o.1))
            }
            Policy::Greedy => {
                let best = opts
                    .iter()
                    .fold(opts[0], |a, o| if o.2 > a.2 { *o } else { a });
                Some((best.0, best.1))
            }
            Policy::Priority => {
                let top = opts.iter().map(|o| o.2).fold(f64::NEG_INFINITY, f64::max);
                let count = opts.iter().filter(|o| o.2 == top).count();
                let pick = if count > 1 {
                    self.env.rng.random_range(0..count)
                } else {
                    0
                };
                opts.iter()
                    .filter(|o| o.2 == top)
                    .nth(pick)
                    .map(|o| (o.0, o.1))
            }
        }
    }

    /// Final ranking: factions that won by rule first (sharing first place), then score
    /// (higher first), then the tie-break chain.
    fn rank(&mut self, reason: u16) -> Step<Outcome> {
        use crate::model::ReasonResult;
        let m = self.m;
        let n = m.nfactions();
        let mut scores = [0i64; MAX_FACTIONS];
        for (f, s) in scores.iter_mut().enumerate().take(n) {
            let x = self.eval(&m.ranking.score, Bind::faction(f as u8))?;
            if !x.is_finite() {
                return Err(self.halt(Fault {
                    loc: m.ranking.score.loc,
                    kind: FaultKind::BadScore(x),
                }));
            }
            *s = x.floor() as i64;
        }
        let mut tiers = [0i64; MAX_FACTIONS];
        if let Some(tier) = &m.ranking.tier {
            for (f, t) in tiers.iter_mut().enumerate().take(n) {
                *t = floor_i64(self.eval(tier, Bind::faction(f as u8))?);
            }
        }
        let winmask = match self.forced {
            Some(Result::Win(f)) => 1u32 << f,
            Some(Result::Shared(mask)) => mask,
            _ => 0,
        };
        // Sort key: rule winners first (all equal), then score.
        let key = |f: usize| -> (bool, i64, i64) {
            if winmask & (1 << f) != 0 {
                (true, 0, 0)
            } else {
                (false, tiers[f], scores[f])
            }
        };
        let mut order = [0u8; MAX_FACTIONS];
        for (i, o) in order.iter_mut().enumerate().take(n) {
            *o = i as u8;
        }
        for i in 1..n {
            let mut j = i;
            while j > 0 && key(order[j] as usize) > key(order[j - 1] as usize) {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        // `tied[i]`: position i stays tied with position i - 1 after the chain.
        let mut tied = [false; MAX_FACTIONS];
        let mut decided_by = Decider::Score;
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && key(order[end] as usize) == key(order[start] as usize) {
                end += 1;
            }
            if key(order[start] as usize).0 {
                // Factions that won by rule share first place; no chain separates them.
                for t in tied.iter_mut().take(end).skip(start + 1) {
                    *t = true;
                }
            } else if end - start > 1 {
                self.break_ties(&mut order[..n], start, end, 0, &mut tied, &mut decided_by)?;
            }
            start = end;
        }
        let mut ranks = [0u8; MAX_FACTIONS];
        for i in 0..n {
            ranks[order[i] as usize] = if i > 0 && tied[i] {
                ranks[order[i - 1] as usize]
            } else {
                i as u8 + 1
            };
        }
        let result = match (self.forced, m.reasons[reason as usize].result) {
            (Some(r), _) => {
                decided_by = if matches!(r, Result::Win(_) | Result::Shared(_)) {
                    Decider::Rule
                } else {
                    Decider::Score
                };
                r
            }
            (None, ReasonResult::Draw) => Result::Draw,
            (None, ReasonResult::Nobody) => Result::Nobody,
            (None, ReasonResult::Rank) if n > 1 && tied[1] => {
                decided_by = Decider::Shared;
                Result::Shared(
                    ranks[..n]
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| **r == 1)
                        .fold(0u32, |m, (f, _)| m | 1 << f),
                )
            }
            (None, ReasonResult::Rank) => Result::Win(order[0]),
        };
        if matches!(result, Result::Draw | Result::Nobody) {
            decided_by = Decider::Score;
        }
        if T::ON {
            let list: Vec<String> = order[..n]
                .iter()
                .map(|&f| {
                    format!(
                        "{}. {} ({})",
                        ranks[f as usize], m.factions[f as usize].name, scores[f as usize]
                    )
                })
                .collect();
            self.tracer
                .line(format_args!("final ranking: {}", list.join(", ")));
            match decided_by {
                Decider::Link(k) => self.tracer.line(format_args!(
                    "tie at the top broken by `{}`",
                    m.ranking.link_name(k as usize)
                )),
                Decider::Shared => self.tracer.line(format_args!(
                    "tie at the top is not broken: first place is shared"
                )),
                Decider::Rule => self.tracer.line(format_args!("decided by a win/lose rule")),
                Decider::Score => {}
            }
            match result {
                Result::Win(f) => self
                    .tracer
                    .line(format_args!("winner: {}", m.factions[f as usize].name)),
                Result::Shared(mask) => {
                    let names: Vec<&str> = (0..n)
                        .filter(|f| mask & (1 << f) != 0)
                        .map(|f| m.factions[f].name.as_str())
                        .collect();
                    self.tracer
                        .line(format_args!("shared win: {}", names.join(", ")))
                }
                Result::Draw => self.tracer.line(format_args!("draw: nobody wins")),
                Result::Nobody => self
                    .tracer
                    .line(format_args!("nobody wins: every faction loses")),
            }
        }
        Ok(Outcome {
            reason,
            rounds: 0,
            scores,
            ranks,
            result,
            decided_by,
        })
    }

    /// Orders `order[start..end]` (tied so far) by chain link `k` and recurses into groups
    /// still tied.
    fn break_ties(
        &mut self,
        order: &mut [u8],
        start: usize,
        end: usize,
        k: usize,
        tied: &mut [bool; MAX_FACTIONS],
        decided: &mut Decider,
    ) -> Step {
        let m = self.m;
        if k >= m.ranking.tiebreak.len() {
            for t in tied.iter_mut().take(end).skip(start + 1) {
                *t = true;
            }
            return Ok(());
        }
        let mut key = [0.0f64; MAX_FACTIONS];
        for &f in &order[start..end] {
            key[f as usize] = match &m.ranking.tiebreak[k] {
                TieBreak::Expr(e, _) => self.eval(e, Bind::faction(f))?,
                TieBreak::Die => self.env.rng.random::<u64>() as f64,
            };
        }
        for i in start + 1..end {
            let mut j = i;
            while j > start && key[order[j] as usize] > key[order[j - 1] as usize] {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        let mut s = start;
        while s < end {
            let mut e = s + 1;
            while e < end && key[order[e] as usize] == key[order[s] as usize] {
                e += 1;
            }
            if s == 0 && e == 1 && start == 0 {
                *decided = Decider::Link(k as u8);
            }
            if e - s > 1 {
                self.break_ties(order, s, e, k + 1, tied, decided)?;
            }
            s = e;
        }
        Ok(())
    }
}

/// Awards by rank: `metric` is ranked highest first; place `p` earns `scale[p]` (0 past the
/// end). Tied factions share according to `ties`: `Split` sums the tied places' awards and
/// divides evenly, rounding down; `High` gives each the best tied place's award; `Low` the
/// worst's; `Zero` gives tied factions nothing ("ties negate").
pub fn rank_awards(metric: &[f64], scale: &[i64], ties: TiePolicy, out: &mut [i64]) {
    let n = metric.len();
    let at = |p: usize| scale.get(p).copied().unwrap_or(0);
    for f in 0..n {
        let above = metric.iter().filter(|&&m| m > metric[f]).count();
        let tied = metric.iter().filter(|&&m| m == metric[f]).count();
        out[f] = match ties {
            TiePolicy::Split => (above..above + tied)
                .map(at)
                .sum::<i64>()
                .div_euclid(tied as i64),
            TiePolicy::High => at(above),
            TiePolicy::Low => at(above + tied - 1),
            TiePolicy::Zero if tied > 1 => 0,
            TiePolicy::Zero => at(above),
        };
    }
}

/// The value `old op x` stores before it is floored and clamped: `+=` and `-=` floor `x` first.
#[inline]
fn combine(op: AssignOp, old: i64, x: f64) -> f64 {
    match op {
        AssignOp::Set => x,
        AssignOp::Add => old as f64 + floor_i64(x) as f64,
        AssignOp::Sub => old as f64 - floor_i64(x) as f64,
    }
}

/// `x.floor() as i64` without a libm call (the hot path stores every assigned value).
#[inline]
fn floor_i64(x: f64) -> i64 {
    let i = x as i64;
    if (i as f64) > x { i - 1 } else { i }
}

fn less(a: &[f64], b: &[f64]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x < y {
            return true;
        }
        if x > y {
            return false;
        }
    }
    false
}

/// The assignment at the end of an `if ...: if ...: x op e` chain, if that is what `s` is.
fn simple_assign(s: &Stmt) -> Option<(&LValue, AssignOp, &Expr, Option<u8>)> {
    match s {
        Stmt::Assign {
            lv,
            op,
            value,
            source,
        } => Some((lv, *op, value, *source)),
        Stmt::If { then, .. } => simple_assign(then),
        _ => None,
    }
}
