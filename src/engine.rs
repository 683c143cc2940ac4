//! The game engine: plays one game of a [`Model`] from its random stream to an [`Outcome`].
//!
//! It knows no game: everything it does is read from the model. A [`Game`] is built once per
//! worker and reused, so playing a game allocates nothing; tracing is a type parameter that
//! compiles away. This file owns the game player's state and how formulas are evaluated; each
//! mechanism has a file of its own:
//!
//! | file | the rule it owns |
//! | --- | --- |
//! | [`round`] | the round and phase loop: one game read top to bottom |
//! | [`settle`] | end conditions at their timings; win, lose and draw settled together |
//! | [`statements`] | what a statement does; storing values, bounds, points by source |
//! | [`agents`] | options, policies and weighted choice |
//! | [`playouts`] | the playouts of searched decisions and what a result is worth |
//! | [`awards`] | rank awards and their tie policies (where ties are split) |
//! | [`titles`] | titles: who holds one, and the points it gives |
//! | [`races`] | completion races |
//! | [`hands`] | hands and decks |
//! | [`order`] | turn order |
//! | [`ranking`] | the final ranking and the tie-break chain |
//! | [`example`] | worked examples |
//! | [`trace`] | the story of one game |

pub mod agents;
pub mod awards;
pub mod claims;
pub mod example;
pub mod hands;
pub mod order;
pub mod playouts;
pub mod races;
pub mod ranking;
pub mod round;
pub mod settle;
pub mod statements;
pub mod titles;
pub mod trace;

use crate::expr::compile::{ALL_LOST, LAST_STANDING, LAST_TEAM};
use crate::expr::{Env, Expr, Fault, FaultKind, Num};
use crate::ids::{ActionId, FactionId, Grid, ReasonId};
use crate::model::Model;
use crate::rng::game_rng;
use crate::runtime::abi::Opt;
pub use crate::runtime::{Decider, LEADER_ROUNDS, NO_LEADER, Outcome, Result};
use crate::state::State;
pub use awards::rank_awards;
pub use trace::{NoTrace, TextTrace, Tracer};

#[derive(Clone, Copy)]
struct Bind {
    me: FactionId,
    bound: FactionId,
    target: FactionId,
}

impl Bind {
    fn faction(f: FactionId) -> Bind {
        Bind {
            me: f,
            bound: f,
            target: f,
        }
    }
    fn global() -> Bind {
        Bind::faction(FactionId(0))
    }
    /// Faction `f` acting, against `target` (itself for an untargeted action).
    fn acting(f: FactionId, target: FactionId) -> Bind {
        Bind {
            me: f,
            bound: f,
            target,
        }
    }
}

/// A game stopped by a fault. The fault itself waits in the evaluation context until
/// [`Game::play`] hands it out, so that every step of the engine returns a result no larger
/// than its value.
#[derive(Debug, Clone, Copy)]
struct Halt;

type Step<T = ()> = std::result::Result<T, Halt>;

/// A reusable game player for one model.
pub struct Game<'m, T: Tracer = NoTrace> {
    m: &'m Model,
    /// State, random stream and bindings: what expressions see.
    env: Env<'m>,
    opts: Vec<Opt>,
    /// The actions each faction's agent considers, in model order:
    /// `menu[menu_at[f]..menu_at[f + 1]]` (actions it may not take, or that its priority
    /// list leaves out, are not on it).
    menu: Vec<ActionId>,
    menu_at: Vec<u32>,
    /// The automatic actions (`auto = true`): for each faction, each group its agent may
    /// claim from, in file order, as `(faction, lo, hi)` over `menu` (after the menus).
    claims: Vec<(u8, u32, u32)>,
    ended: Option<ReasonId>,
    /// While the game-end phases run: no end condition is checked (the game has ended).
    closing: bool,
    /// Bit `t` set when some end condition has timing `t` (`Timing as u8`).
    timings: u8,
    /// Whether each phase's turns begin and end parts of the stream of their own
    /// ([`Model::turn_parts`]), by the phase's place, known once, not every turn.
    turn_parts: Vec<(bool, bool)>,
    /// The faction leading alone on the ranking score after each round (index round - 1),
    /// `NO_LEADER` when the lead is shared; kept for the first `LEADER_ROUNDS` rounds.
    leaders: Vec<u8>,
    /// Each faction's ranking score after each round, round by round (`nfactions` per
    /// round), for the same rounds as `leaders`.
    round_scores: Vec<i64>,
    /// The last game's metrics taken at its end: each such metric's owners in file order
    /// ([`Model::metric_values`]).
    metric_end: Vec<i64>,
    /// The same for the metrics taken after each round, round by round, for the rounds of
    /// `leaders`.
    metric_rounds: Vec<i64>,
    /// Whether the model has a metric taken after each round (checked once, not per round).
    round_metrics: bool,
    /// The constant initial state and the initial values evaluated each game.
    init: crate::model::InitPlan,
    /// Decisions this player made by faction and action, `faction * actions + action`,
    /// over every game it played (only those the engine makes: a machine-code turn does not
    /// count; see [`crate::model::Agent::counted`]).
    choices: Grid<FactionId, ActionId, u64>,
    /// Whether it records what the reports read besides the outcome (each round's leader);
    /// a searcher's playouts do not.
    records: bool,
    /// Whether it records each round's leader and scores: it records, and the command shows
    /// them ([`Model::record_rounds`]) or a metric is taken after each round (known once).
    records_rounds: bool,
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
        Game::build(m, tracer, true)
    }

    /// A game player; one that `searches` plays the playouts of its searching factions'
    /// decisions on a game player of its own (which does not search: in a playout,
    /// searching factions play their rollout policy, or walk the tree of a tree search).
    fn build(m: &'m Model, tracer: T, searches: bool) -> Self {
        let (mut menu, mut menu_at) = (Vec::new(), vec![0u32]);
        for f in m.factions.ids() {
            menu.extend(m.menu(f));
            menu_at.push(menu.len() as u32);
        }
        let claims = claims::groups(m, &mut menu);
        let mut env = Env::new(State::new(m.slots, &m.tables), &m.tables, game_rng(0, 0));
        // The buffer machine-code turns write their options into: the longest scan.
        let native_opts = m.menus.iter().flatten().map(|x| x.capacity()).max();
        env.opts = vec![Opt::default(); native_opts.unwrap_or(0)];
        env.points = vec![0; m.nfactions() * m.sources.len()];
        env.rules = crate::runtime::Rules {
            reasons: [LAST_STANDING, ALL_LOST, LAST_TEAM]
                .map(|n| m.reasons.iter().position(|r| r.name == n).map(|i| i as u16)),
            teams: m.teams,
        };
        env.search.searchers = (m.agents.iter().enumerate())
            .filter(|(_, a)| a.look.is_some())
            .fold(0, |mask, (f, _)| mask | 1 << f);
        if searches && m.count_uses {
            env.uses = vec![0; m.nfactions() * m.actions.len()];
        }
        if searches && env.search.searchers != 0 {
            env.search.searcher = Some(Box::new(playouts::Playouts::new(m)));
        }
        Game {
            m,
            env,
            opts: Vec::with_capacity(m.actions.len() * m.nfactions() + 1),
            menu,
            menu_at,
            claims,
            ended: None,
            closing: false,
            timings: m.checks.iter().fold(0, |a, c| a | c.timing.bit()),
            turn_parts: {
                let mut parts = vec![(false, false); m.phases.len() + m.end_phases.len()];
                for p in m.phases.iter().chain(&m.end_phases) {
                    parts[usize::from(p.place)] = m.turn_parts(p);
                }
                parts
            },
            leaders: Vec::with_capacity((m.rounds as usize).min(LEADER_ROUNDS)),
            round_scores: Vec::with_capacity(
                (m.rounds as usize).min(LEADER_ROUNDS) * m.nfactions(),
            ),
            metric_end: Vec::with_capacity(m.metric_values(false)),
            round_metrics: m.metrics.iter().any(|mt| mt.per_round),
            metric_rounds: Vec::with_capacity(
                (m.rounds as usize).min(LEADER_ROUNDS) * m.metric_values(true),
            ),
            init: crate::model::InitPlan::new(m),
            choices: Grid::new(m.nfactions(), m.actions.len(), 0),
            records: searches,
            records_rounds: searches
                && (m.record_rounds || m.metrics.iter().any(|mt| mt.per_round)),
            tracer,
        }
    }

    /// Where the last game's random stream stands ([`crate::rng::Rng::position`]): two
    /// engines that played a game alike end it at the same position.
    pub fn stream_position(&self) -> (u64, u64) {
        self.env.rng.position()
    }

    /// Decisions made by faction and action over every game played so far (see
    /// [`crate::model::Agent::counted`]).
    pub fn choices(&self) -> &Grid<FactionId, ActionId, u64> {
        &self.choices
    }

    /// The last game's decisions by faction and action, `faction * actions + action`, when
    /// the model counts them ([`Model::count_uses`]; empty otherwise).
    pub fn uses(&self) -> &[u32] {
        &self.env.uses
    }

    /// The last game's seating (the identity unless the model rotates seats).
    pub fn seating(&self) -> &crate::runtime::seats::Seating {
        &self.env.seating
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

    /// Each faction's ranking score after each round of the last game, round by round
    /// (`nfactions` values per round; a real score is floored), for the rounds of
    /// [`Game::leaders`].
    pub fn round_scores(&self) -> &[i64] {
        &self.round_scores
    }

    /// The last game's metrics taken at its end, each metric's owners in file order (empty
    /// when the model has none, or for a searcher's playout).
    pub fn metric_end(&self) -> &[i64] {
        &self.metric_end
    }

    /// The last game's metrics taken after each round, round by round, for the rounds of
    /// [`Game::leaders`].
    pub fn metric_rounds(&self) -> &[i64] {
        &self.metric_rounds
    }

    /// Points each faction gained from each source in the last game,
    /// `faction * sources + source`.
    pub fn points(&self) -> &[i128] {
        &self.env.points
    }

    /// The fault that halted the game.
    fn take_fault(&mut self) -> Fault {
        self.env.cx.take_fault().unwrap_or(Fault {
            loc: 0,
            kind: FaultKind::BadScore(f64::NAN),
        })
    }

    /// Records a fault found by the engine itself (the first one wins) and halts.
    #[cold]
    fn halt(&mut self, f: Fault) -> Halt {
        self.env.cx.raise(f);
        Halt
    }

    /// Evaluates `e` for `b` as a real (weights, chances, values).
    #[inline]
    fn eval(&mut self, e: &Expr, b: Bind) -> Step<f64> {
        self.bind(b);
        self.eval_bound(e)
    }

    /// Evaluates `e` for `b` with its type (values to store, keys to sort by).
    #[inline]
    fn num(&mut self, e: &Expr, b: Bind) -> Step<Num> {
        self.bind(b);
        self.num_bound(e)
    }

    /// Evaluates condition `e` for `b`.
    #[inline]
    fn test(&mut self, e: &Expr, b: Bind) -> Step<bool> {
        self.bind(b);
        self.test_bound(e)
    }

    /// Binds the factions formulas see as "this", the bound one and the target.
    #[inline]
    fn bind(&mut self, b: Bind) {
        self.env.cx.me = b.me.0;
        self.env.cx.bound = b.bound.0;
        self.env.cx.target = b.target.0;
    }

    /// Evaluates `e` as a real with the factions already bound.
    #[inline]
    fn eval_bound(&mut self, e: &Expr) -> Step<f64> {
        // Constant weights, chances and amounts are common; they need no call.
        if let Some(c) = e.as_const() {
            return Ok(c);
        }
        let v = e.eval(&mut self.env);
        self.checked(v)
    }

    /// Evaluates `e` with its type, the factions already bound.
    #[inline]
    fn num_bound(&mut self, e: &Expr) -> Step<Num> {
        if let Some(c) = e.as_const_num() {
            return Ok(c);
        }
        let v = e.eval_num(&mut self.env);
        self.checked(v)
    }

    /// Evaluates condition `e`, the factions already bound.
    #[inline]
    fn test_bound(&mut self, e: &Expr) -> Step<bool> {
        let v = e.truth(&mut self.env);
        self.checked(v)
    }

    /// `v`, unless the evaluation that produced it faulted.
    #[inline(always)]
    fn checked<V>(&self, v: V) -> Step<V> {
        if self.env.cx.fault.is_some() {
            return Err(Halt);
        }
        Ok(v)
    }
}
