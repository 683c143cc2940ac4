//! Compiled statements: the effects that phases, actions and events run.
//!
//! Owns [`Stmt`], where an assignment writes ([`LValue`]) and the parts of a race
//! ([`Race`]); [`super::compile`] builds statements and the engine decides when they run.

use super::{AssignOp, Elem, Env, Expr, OutcomeKind, TiePolicy, Who, slot};
use crate::ids::ReasonId;
use crate::runtime::abi::{Ran, Run};

/// `award VAR by METRIC [min K] scale [...] [ties ...] [then ...] [as SOURCE]`: rank the
/// factions by `metric` (highest first) and add `scale[place]` to `lv`.
#[derive(Debug, Clone)]
pub struct Award {
    /// The faction variable receiving awards.
    pub lv: LValue,
    /// The metric.
    pub metric: Expr,
    /// `min K`: only factions whose metric is at least K are ranked; the others get nothing
    /// and take no place.
    pub min: Option<Expr>,
    /// Award per place (0 beyond the end): formulas of the moment, evaluated when the award
    /// runs (constants in most files, which the native engine lowers inline).
    pub scale: Box<[Expr]>,
    /// How ties share.
    pub ties: TiePolicy,
    /// Tie-break chain (higher first) before the policy.
    pub chain: Box<[Expr]>,
    /// Points-by-source tag.
    pub source: Option<u8>,
}

/// `race done count if cond by key award lv scale`: factions not yet `done` for which
/// `cond` holds complete now, in ascending `key` order; each gets `scale[count]` and the
/// counter moves on.
#[derive(Debug, Clone)]
pub struct Race {
    /// Per-faction completion flag.
    pub done: LValue,
    /// Global count of completers so far.
    pub count: LValue,
    /// Completion condition.
    pub cond: Expr,
    /// Order among same-moment completers.
    pub key: Expr,
    /// Variable receiving the reward.
    pub lv: LValue,
    /// Reward by completion order.
    pub scale: Box<[i64]>,
    /// Points-by-source tag.
    pub source: Option<u8>,
}

/// `var[at] op value` where `at` is known only while playing (`pile[colour(card)] += 1`):
/// the position is evaluated first, then the value; a position outside `1..=n` is the
/// computed subscript's fault, as a read at it is. Stored as [`Stmt::Assign`] stores.
#[derive(Debug, Clone)]
pub struct AssignAt {
    /// The variable, at its set's first element.
    pub lv: LValue,
    /// The number of elements of its set.
    pub n: u16,
    /// The 1-based position (a whole number).
    pub at: Expr,
    /// How.
    pub op: AssignOp,
    /// What.
    pub value: Expr,
    /// Points-by-source tag.
    pub source: Option<u8>,
}

impl AssignAt {
    /// The variable at 1-based position `k` (`None` outside the set).
    pub fn at(&self, k: i64) -> Option<LValue> {
        (1..=i64::from(self.n)).contains(&k).then(|| LValue {
            elem: Elem::Fixed((k - 1) as u16),
            ..self.lv
        })
    }
}

/// `regions KEY into SIZE [label LABEL]`: over a grid, each cell's SIZE becomes the number
/// of cells of its region (cells of one nonzero KEY value joined through orthogonal
/// neighbours of that value; 0 where KEY is 0) and its LABEL the 1-based position of the
/// region's first cell ([`crate::runtime::regions`]). Each reference is the variable at the
/// grid's first cell.
#[derive(Debug, Clone)]
pub struct Regions {
    /// The grid variable read.
    pub key: LValue,
    /// Each cell's region size.
    pub size: LValue,
    /// Each cell's region label.
    pub label: Option<LValue>,
    /// The grid's rows.
    pub rows: u16,
    /// The grid's columns.
    pub cols: u16,
}

/// Where an assignment writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LValue {
    /// Variable id (for bounds and names).
    pub var: u16,
    /// First slot.
    pub base: u32,
    /// Slots per faction (0 for a global).
    pub fstride: u32,
    /// Whose variable.
    pub who: Who,
    /// Which element.
    pub elem: Elem,
}

impl LValue {
    /// The slot this lvalue names in `env`.
    #[inline]
    pub fn slot(&self, env: &Env<'_>) -> usize {
        let e = match self.elem {
            Elem::None => 0,
            Elem::Bound => env.cx.elem as usize,
            Elem::Fixed(i) => i as usize,
        };
        slot(env.who(self.who), self.base, self.fstride, e)
    }

    /// The faction whose variable this is, in `env` (for traces).
    pub fn faction(&self, env: &Env<'_>) -> Option<usize> {
        (self.who != Who::None).then(|| env.who(self.who))
    }
}

/// A compiled statement (an effect).
#[derive(Debug, Clone)]
pub enum Stmt {
    /// `x = e`, `x += e`, `x -= e`; the result is floored to an integer and clamped to the
    /// variable's bounds.
    Assign {
        /// Where.
        lv: LValue,
        /// How.
        op: AssignOp,
        /// What.
        value: Expr,
        /// Points-by-source tag.
        source: Option<u8>,
    },
    /// `var[at] op value`: a write at a position computed while playing (see [`AssignAt`]).
    AssignAt(Box<AssignAt>),
    /// Rank factions by a metric and award points by place (see [`Award`]).
    Award(Box<Award>),
    /// A completion race (see [`Race`]).
    Race(Box<Race>),
    /// A title (`title VAR by METRIC min K [points P] [as SOURCE]`): held by one faction
    /// at most, whose `lv` is P (the others' 0); see the engine's `title` for who takes it.
    Title(Box<Title>),
    /// Statements in order.
    Block(Box<[Stmt]>),
    /// `win` or `lose` (the faction in scope), with an end reason.
    Outcome {
        /// Which.
        kind: OutcomeKind,
        /// End reason.
        reason: ReasonId,
    },
    /// Run `then` when `cond` holds, else `els` if there is one.
    If {
        /// Condition.
        cond: Expr,
        /// The statement.
        then: Box<Stmt>,
        /// `else: ...`.
        els: Option<Box<Stmt>>,
    },
    /// Run `body` for every faction (except the acting one with `others`) simultaneously:
    /// every condition and value is evaluated before any is applied.
    Each {
        /// Skip the acting faction.
        others: bool,
        /// The statement.
        body: Box<Stmt>,
    },
    /// End the game with this reason.
    End(ReasonId),
    /// Draw a card face up from this deck into the card register: uniformly among the cards
    /// for which the condition holds, when there is one.
    Draw(u16, Option<Expr>),
    /// The faction in scope draws a uniformly random card among the deck's cards for which
    /// `cond` holds (with `card` bound to the candidate) into its hand.
    Take {
        /// The deck.
        deck: u16,
        /// Eligibility.
        cond: Option<Expr>,
    },
    /// Run `body` with `card` bound to each card of the deck the faction in scope holds.
    ForHeld {
        /// The deck.
        deck: u16,
        /// The statement.
        body: Box<Stmt>,
    },
    /// Return the card in `card` to its deck.
    Discard,
    /// The faction in scope completes the card in `card`: it leaves the hand and stays out
    /// of the deck.
    Complete,
    /// Consecutive assignments and conditions that run as one machine-code function, made
    /// by the native backend when it compiles the model (the interpreter never sees one).
    Native(Box<NativeRun>),
    /// `pass DECK left|right`: every hand of the deck moves at once to the faction one seat
    /// along (`dir` 1: the next seat, -1: the one before), among the factions still in.
    Pass {
        /// The deck.
        deck: u16,
        /// 1 or -1.
        dir: i8,
    },
    /// The connected regions of a grid variable (see [`Regions`]).
    Regions(Box<Regions>),
    /// Set a faction variable to each faction's 1-based position when sorted ascending by the
    /// keys (ties by seat).
    Order {
        /// The faction variable.
        lv: LValue,
        /// Sort keys, most significant first.
        keys: Box<[Expr]>,
    },
}

impl Stmt {
    /// Calls `f` on the statement and every statement nested in it (machine-code runs
    /// included), outermost first.
    pub fn visit(&self, f: &mut dyn FnMut(&Stmt)) {
        f(self);
        match self {
            Stmt::Block(body) => body.iter().for_each(|s| s.visit(f)),
            Stmt::Native(n) => n.stmts.iter().for_each(|s| s.visit(f)),
            Stmt::If { then, els, .. } => {
                then.visit(f);
                if let Some(e) = els {
                    e.visit(f);
                }
            }
            Stmt::Each { body, .. } | Stmt::ForHeld { body, .. } => body.visit(f),
            _ => {}
        }
    }

    /// Calls `f` on every formula of the statement, nested statements included.
    pub fn exprs_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        match self {
            Stmt::Assign { value, .. } => f(value),
            Stmt::AssignAt(a) => {
                f(&mut a.at);
                f(&mut a.value);
            }
            Stmt::Award(a) => {
                f(&mut a.metric);
                a.min.iter_mut().for_each(&mut *f);
                a.scale.iter_mut().for_each(&mut *f);
                a.chain.iter_mut().for_each(&mut *f);
            }
            Stmt::Race(r) => {
                f(&mut r.cond);
                f(&mut r.key);
            }
            Stmt::Title(t) => {
                f(&mut t.metric);
                f(&mut t.min);
                f(&mut t.points);
            }
            Stmt::Block(body) => body.iter_mut().for_each(|s| s.exprs_mut(f)),
            Stmt::If { cond, then, els } => {
                f(cond);
                then.exprs_mut(f);
                if let Some(e) = els {
                    e.exprs_mut(f);
                }
            }
            Stmt::Each { body, .. } | Stmt::ForHeld { body, .. } => body.exprs_mut(f),
            Stmt::Draw(_, cond) | Stmt::Take { cond, .. } => cond.iter_mut().for_each(&mut *f),
            Stmt::Order { keys, .. } => keys.iter_mut().for_each(&mut *f),
            Stmt::Native(n) => n.stmts.iter_mut().for_each(|s| s.exprs_mut(f)),
            Stmt::Outcome { .. }
            | Stmt::End(_)
            | Stmt::Discard
            | Stmt::Complete
            | Stmt::Pass { .. }
            | Stmt::Regions(_) => {}
        }
    }
}

/// The assignment at the end of an `if ...: if ...: x op e` chain, if that is what `s` is;
/// with `else`, both branches must assign the same variable the same way (only the value
/// differs), so that `each` can read every value first and then store them.
pub(crate) fn simple_assign(s: &Stmt) -> Option<(&LValue, AssignOp, &Expr, Option<u8>)> {
    match s {
        Stmt::Assign {
            lv,
            op,
            value,
            source,
        } => Some((lv, *op, value, *source)),
        Stmt::If {
            then, els: None, ..
        } => simple_assign(then),
        Stmt::If {
            then,
            els: Some(els),
            ..
        } => {
            let (a, b) = (simple_assign(then)?, simple_assign(els)?);
            (a.0 == b.0 && a.1 == b.1 && a.3 == b.3).then_some(a)
        }
        _ => None,
    }
}

/// Statements compiled together: a run of assignments and conditions of one effect list,
/// and the handle of their machine code.
#[derive(Clone)]
pub struct NativeRun {
    /// The statements, as the interpreter runs them (for traces).
    pub stmts: Box<[Stmt]>,
    /// Their machine code, once the native backend has compiled them.
    pub f: Option<Run>,
}

impl NativeRun {
    /// Whether the statements have their machine code (otherwise they are interpreted).
    pub fn compiled(&self) -> bool {
        self.f.is_some()
    }

    /// Runs the statements' machine code (a fault when they have none).
    #[inline(always)]
    pub fn call(&self, env: &mut Env<'_>) -> Ran {
        match &self.f {
            Some(f) => f.call(env),
            None => Ran::Faulted,
        }
    }
}

impl std::fmt::Debug for NativeRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.stmts.iter()).finish()
    }
}

/// A title such as a longest road or a largest army (see [`Stmt::Title`]).
#[derive(Debug, Clone)]
pub struct Title {
    /// The per-faction variable holding the title's points (0 for the others).
    pub lv: LValue,
    /// What the title is for, per faction (higher is better).
    pub metric: Expr,
    /// The least metric that may hold it.
    pub min: Expr,
    /// The holder's points.
    pub points: Expr,
    /// Challengers tied above the holder leave the title to nobody (else the holder keeps
    /// it).
    pub tied_nobody: bool,
    /// Points-by-source tag.
    pub source: Option<u8>,
}
