//! The compiled model: a validated scenario as flat, index-based structures.
//!
//! Owns the shape the engine runs: every name has been resolved to an index, every formula
//! is an [`Expr`] or [`Stmt`]. Built once by [`crate::scenario::compile`], shared read-only by
//! all worker threads. Names are kept only for reports and traces.

use crate::error::Location;
use crate::expr::{Expr, Stmt};
use crate::ids::{ActionId, FactionId, IdVec, ReasonId, VarId};
use crate::state::Tables;

mod action;
mod agent;
mod bounds;
mod init;
mod parts;
mod ranking;
mod seating;
mod unseen;
pub use crate::ir::Policy;
pub use action::Action;
pub use agent::{Agent, Lookahead, Objective, Search};
pub use bounds::Bounds;
pub(crate) use init::InitPlan;
pub use ranking::{Ranking, TieBreak};
pub use seating::SeatUse;
pub use unseen::{Unseen, unseen_read};

/// A faction.
#[derive(Debug, Clone)]
pub struct Faction {
    /// Identifier.
    pub name: String,
    /// Display name.
    pub label: String,
    /// Side or team name.
    pub side: Option<String>,
    /// Player or non-player.
    pub player: bool,
}

/// A variable.
#[derive(Debug, Clone)]
pub struct Var {
    /// Identifier.
    pub name: String,
    /// Per-faction (else global).
    pub faction: bool,
    /// Set it is indexed by.
    pub set: Option<u16>,
    /// First slot.
    pub base: u32,
    /// Slots per faction.
    pub fstride: u32,
    /// Elements per faction (1 when not indexed).
    pub width: u32,
    /// Initial value; per-faction overrides in `init_for`.
    pub init: Expr,
    /// Per-faction initial values replacing `init`.
    pub init_for: Vec<Option<Expr>>,
    /// A 0/1 flag.
    pub flag: bool,
    /// Display-only flip: past this value a track marker is flipped and counts again from 0;
    /// the value itself keeps counting (traces show both).
    pub flip: Option<i64>,
    /// The points source credited with each faction's starting value (`init_as`).
    pub init_as: Option<u8>,
    /// Who sees its value (what a searching faction's playouts redraw).
    pub visible: Visible,
    /// What a faction that cannot see it assumes it is, drawn afresh for each playout.
    pub prior: Option<Expr>,
    /// The prior as written, for `validate`.
    pub prior_text: Option<String>,
}

/// Who sees a variable's value (`visible`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Visible {
    /// Every faction.
    All,
    /// Each faction its own value (a faction variable).
    Owner,
    /// No faction (a face-down card, a hidden draw).
    None,
}

impl Visible {
    /// The keyword of the scenario file.
    pub fn name(self) -> &'static str {
        match self {
            Visible::All => "all",
            Visible::Owner => "owner",
            Visible::None => "none",
        }
    }
}

impl Var {
    /// The initial value of owner `f`'s copy (0 for a global): its own, else the shared one.
    pub fn init_of(&self, f: usize) -> &crate::expr::Expr {
        self.init_for
            .get(f)
            .and_then(Option::as_ref)
            .unwrap_or(&self.init)
    }
}

/// A phase of the round.
#[derive(Debug, Clone)]
pub struct Phase {
    /// Name.
    pub name: String,
    /// Runs once per faction (else once).
    pub faction: bool,
    /// Condition to run.
    pub when: Option<Expr>,
    /// Turn order keys, ascending.
    pub order: Vec<Expr>,
    /// Agent decisions per faction turn.
    pub actions: Option<Expr>,
    /// Statements each faction runs as its turn begins, before its decisions.
    pub before: Vec<Stmt>,
    /// Statements.
    pub effects: Vec<Stmt>,
    /// Its place among the scenario's phases, in file order: what names its part of the
    /// random stream ([`crate::rng::part`]), so that a phase draws the same dice whichever
    /// list ([`Model::phases`] or [`Model::end_phases`]) it sits in.
    pub place: u16,
}

/// A phase of a model: the `i`-th of the round's phases or of the game-end phases.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseRef {
    /// [`Model::phases`]`[i]`.
    Round(usize),
    /// [`Model::end_phases`]`[i]`.
    End(usize),
}

/// When an event is rolled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventAt {
    /// Before the first phase.
    RoundStart,
    /// After the last phase.
    RoundEnd,
}

/// A random event.
#[derive(Debug, Clone)]
pub struct Event {
    /// Name.
    pub name: String,
    /// When it is rolled.
    pub at: EventAt,
    /// Eligibility.
    pub when: Option<Expr>,
    /// Chance per round.
    pub probability: Expr,
    /// Statements.
    pub effects: Vec<Stmt>,
}

/// When an end condition is checked: at a moment of the round, or at the end of each
/// faction turn, where holding schedules the game's end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Timing {
    /// At this moment of the round.
    At(Moment),
    /// At the end of each faction turn, for it: holding schedules the game's end so.
    Then(Schedule),
}

impl Timing {
    /// This timing's bit in a set of timings (a model's, to skip the moments with none).
    pub const fn bit(self) -> u8 {
        match self {
            Timing::At(m) => 1 << m as u8,
            Timing::Then(s) => 1 << (4 + s as u8),
        }
    }
}

/// A moment of the round at which end conditions are checked (the numbering is the random
/// stream's: the round's own moments draw from a part named by it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// After any change to a variable the condition reads.
    Immediate,
    /// At the start of each faction turn (phases with actions), for that faction.
    TurnStart,
    /// Before the round's first phase.
    RoundStart,
    /// After the round's last phase.
    RoundEnd,
}

impl Moment {
    /// The moments of the round's own structure, whose conditions machine code evaluates
    /// by moment (the immediate ones are evaluated when a change makes them pending).
    pub const ROUND: [Moment; 3] = [Moment::TurnStart, Moment::RoundStart, Moment::RoundEnd];
}

/// How a condition checked at each turn's end schedules the game's end when it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Schedule {
    /// One more turn each, the triggering faction's own last (`"final_turns"`).
    FinalTurns,
    /// The round is the game's last (`"final_round"`).
    FinalRound,
}

/// An end condition.
#[derive(Debug, Clone)]
pub struct Check {
    /// End reason id.
    pub reason: ReasonId,
    /// Condition.
    pub when: Expr,
    /// When it is checked.
    pub timing: Timing,
    /// What holding means: the game ends, or a faction wins or loses.
    pub kind: CheckKind,
    /// A turn-start win or lose condition is evaluated for every faction still in the game
    /// (`who = "all"`) rather than only for the faction whose turn starts.
    pub all: bool,
}

/// What an end condition does when it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    /// The game ends with the reason (`result = "rank"`, `"draw"` or `"nobody"`).
    End,
    /// The faction it holds for wins (`result = "win"`).
    Win,
    /// The faction it holds for loses and leaves the game (`result = "lose"`).
    Lose,
}

/// What an end reason means for the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasonResult {
    /// The ranking decides the winner.
    Rank,
    /// Nobody wins; every faction gets a draw.
    Draw,
    /// Nobody wins; every faction loses (a non-player faction passed a check, say).
    Nobody,
}

/// Why a game ended and what that means.
#[derive(Debug, Clone)]
pub struct Reason {
    /// Name.
    pub name: String,
    /// What it means for the result.
    pub result: ReasonResult,
    /// Which mechanism uses it: `condition`, `end statement`, `win`, `lose`, `last round`...
    pub mechanism: String,
    /// Free text.
    pub description: String,
}

/// The result a worked example expects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExpectedResult {
    /// `win NAME`.
    Win(FactionId),
    /// `shared NAME NAME ...`.
    Shared(u32),
    /// `draw`.
    Draw,
    /// `nobody`.
    Nobody,
    /// `running`: the game has not ended.
    Running,
}

impl ExpectedResult {
    /// As written in a scenario.
    pub fn describe(&self, m: &Model) -> String {
        match self {
            ExpectedResult::Win(f) => format!("win {}", m.factions[*f].name),
            ExpectedResult::Shared(mask) => {
                format!("shared {}", m.names_in(*mask).join(" "))
            }
            ExpectedResult::Draw => "draw".into(),
            ExpectedResult::Nobody => "nobody".into(),
            ExpectedResult::Running => "running".into(),
        }
    }
}

/// A rulebook's worked example, executable.
#[derive(Debug, Clone)]
pub struct Example {
    /// Name (cite the rulebook section).
    pub name: String,
    /// Seed of the setup's randomness.
    pub seed: u64,
    /// The scenario compiled with this example's settings, when it changes any; its
    /// example of the same index is this one.
    pub variant: Option<Box<Model>>,
    /// The round the example happens in.
    pub round: u32,
    /// Statements that set the state (no end checks fire).
    pub given: Vec<Stmt>,
    /// The phase to run once, if any.
    pub phase: Option<PhaseRef>,
    /// Statements to run instead of a phase.
    pub effects: Vec<Stmt>,
    /// The faction the effects or the action run for.
    pub actor: Option<FactionId>,
    /// An action to take (as `actor`, against `target`).
    pub action: Option<ActionId>,
    /// The action's target.
    pub target: Option<FactionId>,
    /// Run the round-end step (events, then checks) afterwards.
    pub round_end: bool,
    /// Then end the game with the last-round reason if it has not ended.
    pub finish: bool,
    /// Formulas that must hold afterwards, with their source.
    pub expect: Vec<(Expr, String)>,
    /// For each expectation, the names it reads (to show their values on failure).
    pub probes: Vec<Vec<(String, Expr)>>,
    /// Expected result.
    pub result: Option<ExpectedResult>,
    /// Expected end reason.
    pub reason: Option<ReasonId>,
    /// Expected final order, first places first: each place the factions that share it.
    pub order: Vec<Vec<u8>>,
    /// `available`: whether `action` must be available to `actor` (true, the default: an
    /// unavailable action fails the example, naming why) or must not be (false: the example
    /// checks exactly that, and takes no action).
    pub available: bool,
    /// Why the example cannot run with these settings (it is set in a round past the last
    /// one), with its place in the file: `vpsim test` reports it, other commands ignore it.
    pub skipped: Option<String>,
}

/// A custom metric (`[[metric]]`): a formula recorded next to each game's outcome.
#[derive(Debug, Clone)]
pub struct Metric {
    /// Identifier (names its columns).
    pub name: String,
    /// The formula (never random: recording it must not change the games).
    pub formula: Expr,
    /// Recorded after every round (else once, when the game ends).
    pub per_round: bool,
    /// A value per faction (else one per game).
    pub faction: bool,
}

/// A compiled scenario.
#[derive(Debug, Clone)]
pub struct Model {
    /// Scenario identifier.
    pub name: String,
    /// Title.
    pub title: String,
    /// The file it came from.
    pub file: String,
    /// The `--set` overrides applied to the file, as written (a fault's reproduce command
    /// repeats them).
    pub overrides: Vec<String>,
    /// FNV-1a 64-bit hash of the file's bytes, hex.
    pub hash: String,
    /// Factions, in seat order.
    pub factions: IdVec<FactionId, Faction>,
    /// Variables.
    pub vars: IdVec<VarId, Var>,
    /// Total slots.
    pub slots: usize,
    /// Static tables for expressions.
    pub tables: Tables,
    /// Last round.
    pub rounds: u32,
    /// The most agent decisions one game may make (a fault past it).
    pub max_steps: u64,
    /// Age of each round (index = round; 0 unused).
    pub age_of_round: Vec<i64>,
    /// Round within its age of each round (index = round; 0 unused).
    pub age_round: Vec<i64>,
    /// Sides are teams: when every other side has left the game, the last side's members win.
    pub teams: bool,
    /// Each game counts every faction's decisions by action and the cards it ends holding
    /// or having completed (the usage tables; see [`crate::stats::usage`]). Set by the
    /// command before the native backend compiles (off: no counting code at all).
    pub count_uses: bool,
    /// Each game also counts the feedback test's gains by score, for its split into
    /// interaction and own rhythm (see [`crate::stats::feedback`]): set by a command whose
    /// report shows it (the terminal table does not).
    pub split_feedback: bool,
    /// Each game records each round's leader and every faction's score after it (the
    /// score race, margins, the feedback test and per-round metrics): on unless the command
    /// shows none of them (`run` with neither `--json` nor `--out`: the terminal table does
    /// not), so a game costs only what its outputs tell. Recording draws no random number
    /// and changes no game.
    pub record_rounds: bool,
    /// The seatings games take in turn when the seats rotate (game `g` takes entry `g mod
    /// len`; see [`crate::runtime::seats`]), built once by the command; empty otherwise.
    pub seatings: Vec<crate::runtime::seats::Seating>,
    /// The seats rotate, yet no game reads the seating ([`Model::seat_uses`] is empty): the
    /// rotation changes no game, and reports show no seat table. Set with `seatings`.
    pub seats_unmoved: bool,
    /// Custom metrics, in file order.
    pub metrics: Vec<Metric>,
    /// Points-by-source tags.
    pub sources: Vec<String>,
    /// Sets: name and element names.
    pub sets: Vec<(String, Vec<String>)>,
    /// Decks: name and card names.
    pub decks: Vec<(String, Vec<String>)>,
    /// For each card of the pool, the index of its distinct `(deck, card)` in `cards`
    /// (copies are one card; see [`card_keys`]).
    pub card_of: Vec<u32>,
    /// The distinct cards as `(deck, card)`: the columns of the usage counts' cards.
    pub cards: Vec<(String, String)>,
    /// Whether each deck's held cards are seen by every faction (`public`); otherwise a
    /// faction sees only its own hand. No faction sees a deck's order.
    pub deck_public: Vec<bool>,
    /// The variables some faction cannot see (`visible` not `"all"`), in declaration order.
    pub hidden: Vec<u16>,
    /// Some action's menu entry (`when`, `target_when`, a cost or its weight) reads a value
    /// some faction may not see, so a menu can reveal it: a search keeps only the
    /// determinizations that list the options its faction saw.
    pub menu_reads_unseen: bool,
    /// The round's phases, in file order.
    pub phases: Vec<Phase>,
    /// The phases run once when the game has ended, before the ranking (`at = "game_end"`),
    /// in file order.
    pub end_phases: Vec<Phase>,
    /// Actions.
    pub actions: IdVec<ActionId, Action>,
    /// Agent of each faction.
    pub agents: IdVec<FactionId, Agent>,
    /// Each faction's option scan in machine code (empty on the interpreter, `None` for a
    /// faction whose policy the native engine leaves to the interpreter).
    pub menus: Vec<Option<crate::runtime::abi::Menu>>,
    /// The end conditions in machine code (empty on the interpreter).
    pub check_fns: crate::runtime::abi::CheckFns,
    /// The round loop in machine code, when every piece of a round has machine code (none
    /// on the interpreter).
    pub round_fn: Option<crate::runtime::abi::Round>,
    /// Why the native backend left the round loop to the engine (its statement lists still
    /// run as machine code), when it did: what `validate` prints.
    pub round_in_engine: Option<String>,
    /// Setup's evaluated initial values in machine code (none on the interpreter, or when
    /// setup evaluates every initial value in order).
    pub setup_fn: Option<crate::expr::NativeRun>,
    /// Events.
    pub events: Vec<Event>,
    /// End conditions.
    pub checks: Vec<Check>,
    /// The immediate checks, by index in `checks`, in the order declared: the `i`-th is
    /// bit `i` of a [`crate::runtime::Pending`] set.
    pub immediate: Vec<u16>,
    /// The immediate checks (their bits) a change to each variable triggers (by variable id).
    pub immediate_by_var: Vec<Vec<u16>>,
    /// The immediate checks (their bits) a draw triggers.
    pub immediate_on_draw: Vec<u16>,
    /// End reasons.
    pub reasons: IdVec<ReasonId, Reason>,
    /// Reason used when the last round finishes.
    pub last_round_reason: ReasonId,
    /// Final ranking.
    pub ranking: Ranking,
    /// Source locations of formulas.
    pub locs: Vec<Location>,
    /// Worked examples.
    pub examples: Vec<Example>,
    /// Warnings found while compiling (a real constant stored into a variable, say), each
    /// with its location; `validate` and `run` print them.
    pub warnings: Vec<String>,
    /// Balance assertions: name, formula over run metrics, where it is written.
    pub asserts: Vec<(String, String, Location)>,
}

impl Model {
    /// Number of factions.
    pub fn nfactions(&self) -> usize {
        self.factions.len()
    }

    /// Values a game records for the metrics taken at its end (or, `per_round`, after each
    /// round): each such metric's owners (every faction, or the game) in file order.
    pub fn metric_values(&self, per_round: bool) -> usize {
        (self.metrics.iter().filter(|m| m.per_round == per_round))
            .map(|m| if m.faction { self.nfactions() } else { 1 })
            .sum()
    }

    /// Every statement of the rules' effect lists, top level (phases' `before` and
    /// `effects`, actions' and events' effects); [`crate::expr::Stmt::visit`] reaches the
    /// nested ones.
    pub fn statements(&self) -> impl Iterator<Item = &crate::expr::Stmt> + '_ {
        (self.phases.iter().chain(&self.end_phases))
            .flat_map(|p| [&p.before, &p.effects])
            .chain(self.actions.iter().map(|a| &a.effects))
            .chain(self.events.iter().map(|e| &e.effects))
            .flatten()
    }

    /// Every phase, the round's and the game-end ones, in the order the file lists them.
    pub fn phases_in_file_order(&self) -> impl Iterator<Item = &Phase> + '_ {
        let mut all: Vec<&Phase> = self.phases.iter().chain(&self.end_phases).collect();
        all.sort_by_key(|p| p.place);
        all.into_iter()
    }

    /// The names of the factions of `mask` (bit `f` for faction `f`), in faction order.
    pub fn names_in(&self, mask: u32) -> Vec<&str> {
        (self.factions.iter_ids())
            .filter(|(f, _)| mask >> f.0 & 1 != 0)
            .map(|(_, x)| x.name.as_str())
            .collect()
    }

    /// The actions faction `f` may choose among, in menu order: those allowed to it (and,
    /// under the priority policy, those its priority list names).
    pub fn menu(&self, f: FactionId) -> impl Iterator<Item = ActionId> + '_ {
        let agent = &self.agents[f];
        self.actions.iter_ids().filter_map(move |(ai, a)| {
            let allowed = a.allowed & (1 << f.0) != 0 && a.auto.is_none();
            let listed = agent.policy != Policy::Priority || agent.priority[ai.index()] != u16::MAX;
            (allowed && listed).then_some(ai)
        })
    }

    /// `Faction.var` or `var` for a slot write, for traces.
    pub fn slot_name(&self, var: u16, faction: Option<usize>, elem: Option<usize>) -> String {
        let v = &self.vars[VarId(var)];
        let mut s = match faction {
            Some(f) if v.faction => format!(
                "{}.{}",
                self.factions[FactionId::from_index(f)].name,
                v.name
            ),
            _ => v.name.clone(),
        };
        if let (Some(set), Some(e)) = (v.set, elem) {
            s.push_str(&format!("[{}]", self.sets[set as usize].1[e]));
        }
        s
    }

    /// Calls `f` on every formula of the model, its worked examples included (not on the
    /// examples' setting variants, which are models of their own), in a fixed order.
    pub fn exprs_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        self.walk(false, f);
    }

    /// Calls `f` on every formula that still runs on its own after the native engine's
    /// compilation of statement runs and option scans: as [`Model::exprs_mut`], without the
    /// formulas inside a [`Stmt::Native`] and, when every faction has a [`Model::menus`]
    /// scan, without the actions' availability, target conditions, weights and values. (The
    /// interpreter's closures still run those for traces.)
    pub fn loose_exprs_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        self.walk(true, f);
    }

    fn walk(&mut self, loose: bool, f: &mut dyn FnMut(&mut Expr)) {
        let stmts = |ss: &mut Vec<Stmt>, f: &mut dyn FnMut(&mut Expr)| {
            for s in ss {
                if !(loose && matches!(s, Stmt::Native(_))) {
                    s.exprs_mut(f);
                }
            }
        };
        let scanned = loose && !self.menus.is_empty() && self.menus.iter().all(Option::is_some);
        for v in &mut self.vars {
            f(&mut v.init);
            v.init_for.iter_mut().flatten().for_each(&mut *f);
        }
        for a in &mut self.agents {
            f(&mut a.noise);
        }
        for p in self.phases.iter_mut().chain(&mut self.end_phases) {
            p.when.iter_mut().for_each(&mut *f);
            p.order.iter_mut().for_each(&mut *f);
            p.actions.iter_mut().for_each(&mut *f);
            stmts(&mut p.before, f);
            stmts(&mut p.effects, f);
        }
        for a in &mut self.actions {
            a.cost.iter_mut().for_each(|(_, e)| f(e));
            if !scanned {
                a.when.iter_mut().for_each(&mut *f);
                f(&mut a.weight);
                f(&mut a.value);
                a.target_when.iter_mut().for_each(&mut *f);
            }
            stmts(&mut a.effects, f);
        }
        for e in &mut self.events {
            e.when.iter_mut().for_each(&mut *f);
            f(&mut e.probability);
            stmts(&mut e.effects, f);
        }
        for c in &mut self.checks {
            f(&mut c.when);
        }
        let r = &mut self.ranking;
        r.tier.iter_mut().for_each(&mut *f);
        f(&mut r.score);
        for t in &mut r.tiebreak {
            if let TieBreak::Expr(e, _) = t {
                f(e);
            }
        }
        for mt in &mut self.metrics {
            f(&mut mt.formula);
        }
        for x in &mut self.examples {
            stmts(&mut x.given, f);
            stmts(&mut x.effects, f);
            x.expect.iter_mut().for_each(|(e, _)| f(e));
            x.probes.iter_mut().flatten().for_each(|(_, e)| f(e));
        }
    }
}

/// The distinct cards of the decks: for each card of the pool (numbered deck after deck),
/// the index of its `(deck, name)` among the distinct ones, and those in order of first
/// appearance. Copies of a card (the same name in one deck) are one.
pub fn card_keys(decks: &[(String, Vec<String>)]) -> (Vec<u32>, Vec<(String, String)>) {
    let mut keys: Vec<(String, String)> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut of_card = Vec::new();
    for (deck, cards) in decks {
        for card in cards {
            let k = *index.entry((deck, card)).or_insert_with(|| {
                keys.push((deck.clone(), card.clone()));
                keys.len() - 1
            });
            of_card.push(k as u32);
        }
    }
    (of_card, keys)
}
