//! Compiled expressions and statements, and how expressions run.
//!
//! Owns the executable form of every formula in a scenario: an [`Expr`] is a flat slice of
//! [`Op`]s over indexed state slots (no names, no allocation while it runs), run by the stack
//! machine here as the reference semantics and, in games, as the specialised closures the
//! `closure` module lowers it into. A [`Stmt`] is an effect built from expressions. Parsing
//! lives in [`parse`], name resolution and code generation in [`compile`]; the engine decides
//! when statements run.

mod closure;
pub mod compile;
pub mod parse;

use rand::RngExt;
use rand_distr::Distribution;

use crate::rng::Rng;
use crate::state::{State, Tables};

pub use parse::{AssignOp, BinOp, OutcomeKind, TiePolicy};

/// Which faction a reference is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// Not a faction variable.
    None,
    /// The faction bound by the innermost context (the acting faction, or the faction an
    /// aggregation is iterating over).
    Bound,
    /// The acting faction (`me.x`), even inside an aggregation.
    Me,
    /// The action's target faction (`target.x`).
    Target,
    /// A faction named in the scenario.
    Fixed(u8),
}

/// Which element of a set an indexed reference is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elem {
    /// Not an indexed variable.
    None,
    /// The element bound by the innermost set aggregation.
    Bound,
    /// An element named in the scenario.
    Fixed(u16),
}

/// Aggregation kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agg {
    /// Sum of the body.
    Sum,
    /// Largest value of the body.
    Max,
    /// Smallest value of the body.
    Min,
    /// How many times the body is true.
    Count,
}

/// Pure functions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// `min(a, ...)`
    Min,
    /// `max(a, ...)`
    Max,
    /// `abs(x)`
    Abs,
    /// `floor(x)`
    Floor,
    /// `ceil(x)`
    Ceil,
    /// `round(x)`, halves away from zero
    Round,
    /// `clamp(x, lo, hi)`
    Clamp,
}

/// Random draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RandFn {
    /// `uniform(a, b)`: integer uniform on `a..=b`.
    Uniform,
    /// `random()`: real uniform on `[0, 1)`.
    Random,
    /// `bernoulli(p)`: 1 with probability p.
    Bernoulli,
    /// `binomial(n, p)`.
    Binomial,
    /// `poisson(lambda)`.
    Poisson,
    /// `normal(mean, sd)`, real.
    Normal,
    /// `roll(n, sides)`: sum of n dice.
    Roll,
    /// `choice(v1, v2, ...)`: one of the values, uniformly.
    Choice,
    /// `weighted(w1, v1, w2, v2, ...)`: one of the values with probability proportional to its
    /// weight.
    Weighted,
}

/// One instruction of the stack machine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Op {
    /// Push a constant.
    Const(f64),
    /// Push variable slot `base + faction * fstride + element`.
    Load {
        /// First slot of the variable.
        base: u32,
        /// Slots per faction (0 for a global variable).
        fstride: u32,
        /// Whose value.
        who: Who,
        /// Which element.
        elem: Elem,
    },
    /// Push the round number.
    Round,
    /// Push the age number.
    Age,
    /// Push the number of factions.
    NFactions,
    /// Push the round number within the current age (1 in an age's first round).
    AgeRound,
    /// Push 1 when a faction has lost and left the game.
    Eliminated(Who),
    /// Push a faction's seat (1-based).
    Seat(Who),
    /// Push a faction's side id (1-based, 0 for none).
    Side(Who),
    /// Push 1 for a player faction, 0 for a non-player.
    Player(Who),
    /// Push 1 when the last `draw` produced a card.
    Drawn,
    /// Push an attribute of the last drawn card (0 when none).
    CardAttr(u16),
    /// Push the number of cards left in a deck.
    DeckLeft(u16),
    /// Push the number of cards of a deck the bound faction holds.
    Held(u16),
    /// Push the number of cards of a deck the bound faction has completed.
    Completed(u16),
    /// Pop an id; push 1 when the bound faction has completed the deck's card with that `id`.
    HasCompleted(u16),
    /// Negate the top.
    Neg,
    /// Logical not of the top.
    Not,
    /// Turn the top into 0 or 1.
    Bool,
    /// Pop two, push the result.
    Bin(BinOp),
    /// Pop; jump to the absolute position when it was 0.
    JumpIfFalse(u32),
    /// Jump to the absolute position.
    Jump(u32),
    /// Pop `n` arguments, push the function's value.
    Call(Func, u8),
    /// Pop `n` arguments, push a random draw.
    Rand(RandFn, u8),
    /// Push the sum of `n` dice with `s` sides.
    Dice(u32, u32),
    /// Run the next `len` ops once per faction (skipping the bound one when `others`) and
    /// push the aggregate.
    AggFactions {
        /// Sum, max, min or count.
        kind: Agg,
        /// Skip the faction bound outside.
        others: bool,
        /// Length of the body that follows.
        len: u32,
    },
    /// Run the next `len` ops once per element of a set of `n` elements.
    AggSet {
        /// Sum, max, min or count.
        kind: Agg,
        /// Number of elements.
        n: u16,
        /// Length of the body that follows.
        len: u32,
    },
}

/// Size of the value stack: the deepest an expression may use, counting nested aggregate
/// bodies (which continue on the same stack); checked when it is compiled.
pub const STACK: usize = 64;

/// A run-time fault: something the scenario asked for that has no meaning (a probability of
/// 1.7, a division by zero). The game stops and the run reports where. Plain data (no
/// strings) so that results on the hot path stay small; [`FaultKind::describe`] words it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fault {
    /// Index of the source location in the model.
    pub loc: u32,
    /// What happened.
    pub kind: FaultKind,
}

/// What went wrong at run time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FaultKind {
    /// A probability outside 0..1.
    Probability(f64),
    /// A division (or `//`, `%`) by zero of this value.
    DivisionByZero(f64),
    /// `uniform(a, b)` with `a > b`.
    EmptyRange(i64, i64),
    /// `binomial(n, p)` with a negative `n`.
    NegativeCount(f64),
    /// `poisson(l)` with a negative or non-finite rate.
    PoissonRate(f64),
    /// `normal(mean, sd)` with a negative or non-finite deviation.
    NormalParameters(f64, f64),
    /// `roll(n, sides)` with `n < 0` or `sides < 1`.
    BadDice(i64, i64),
    /// `weighted(...)` with a negative weight or all weights zero.
    BadWeights,
    /// A value that is not a finite number assigned to a variable (by id).
    NotStorable(f64, u16),
    /// A score that is not a finite number.
    BadScore(f64),
}

impl FaultKind {
    /// The fault in words; variable names come from `vars`.
    pub fn describe(&self, vars: &[String]) -> String {
        match *self {
            FaultKind::Probability(p) => format!("probability {p} is outside 0..1"),
            FaultKind::DivisionByZero(a) => format!("division by zero ({a} divided by 0)"),
            FaultKind::EmptyRange(a, b) => {
                format!("uniform({a}, {b}): the low end is above the high end")
            }
            FaultKind::NegativeCount(n) => format!("binomial: negative count {n}"),
            FaultKind::PoissonRate(l) => {
                format!("poisson({l}): the rate must be a finite number of 0 or more")
            }
            FaultKind::NormalParameters(m, sd) => {
                format!("normal({m}, {sd}): the deviation must be a finite number of 0 or more")
            }
            FaultKind::BadDice(n, s) => {
                format!("roll({n}, {s}): need n >= 0 dice with at least 1 side")
            }
            FaultKind::BadWeights => {
                "weighted(...): weights must be non-negative and not all zero".into()
            }
            FaultKind::NotStorable(x, v) => {
                format!(
                    "value {x} cannot be stored in `{}`",
                    vars.get(v as usize).map_or("?", |s| s.as_str())
                )
            }
            FaultKind::BadScore(x) => format!("score {x} is not a number"),
        }
    }
}

/// A compiled expression: the stack program (the reference semantics, shown by `validate`)
/// and its closure form, which is what runs.
pub struct Expr {
    code: Box<[Op]>,
    konst: Option<f64>,
    fun: closure::Fun,
    /// Source location index (for faults and traces).
    pub loc: u32,
}

impl Clone for Expr {
    /// Closures cannot be cloned; the copy lowers the same program again (models are cloned
    /// only while compiling, never per game).
    fn clone(&self) -> Self {
        Expr::new(self.code.to_vec(), self.loc)
    }
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expr")
            .field("code", &self.code)
            .field("konst", &self.konst)
            .field("loc", &self.loc)
            .finish()
    }
}

impl Expr {
    /// An expression from code; folds it when it reads neither state nor randomness.
    pub fn new(code: Vec<Op>, loc: u32) -> Expr {
        let konst = if code.iter().all(is_pure) {
            const_eval(&code)
        } else {
            None
        };
        let fun: closure::Fun = match konst {
            Some(c) => Box::new(move |_| c),
            None => closure::lower(&code, loc),
        };
        Expr {
            code: code.into_boxed_slice(),
            konst,
            fun,
            loc,
        }
    }

    /// A constant expression.
    pub fn constant(v: f64) -> Expr {
        Expr::new(vec![Op::Const(v)], 0)
    }

    /// The value when it is a compile-time constant.
    pub fn as_const(&self) -> Option<f64> {
        self.konst
    }

    /// The instructions (for the model summary and tests).
    pub fn code(&self) -> &[Op] {
        &self.code
    }

    /// Whether the expression draws random numbers.
    pub fn is_random(&self) -> bool {
        self.code
            .iter()
            .any(|op| matches!(op, Op::Rand(..) | Op::Dice(..)))
    }

    /// Evaluates the expression; a fault is recorded in `env` and yields 0.
    #[inline]
    pub fn eval(&self, env: &mut Env<'_>) -> f64 {
        (self.fun)(env)
    }

    /// Evaluates the expression on the reference stack machine (tests hold [`Expr::eval`]
    /// to it).
    pub fn eval_reference(&self, env: &mut Env<'_>) -> f64 {
        let v = exec(&self.code, env, 0);
        if let Some(f) = env.cx.fault.as_mut()
            && f.loc == u32::MAX
        {
            f.loc = self.loc;
        }
        v
    }
}

fn is_pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Const(_)
            | Op::Neg
            | Op::Not
            | Op::Bool
            | Op::Bin(_)
            | Op::JumpIfFalse(_)
            | Op::Jump(_)
            | Op::Call(..)
    )
}

fn const_eval(code: &[Op]) -> Option<f64> {
    let t = Tables::default();
    let mut env = Env::new(State::empty(), &t, crate::rng::game_rng(0, 0));
    let v = exec(code, &mut env, 0);
    if env.cx.fault.is_some() {
        None
    } else {
        Some(v)
    }
}

/// The mutable evaluation context that persists across evaluations: who is bound, the first
/// fault, and the value stack. One lives in each [`crate::engine::Game`].
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The acting faction.
    pub me: u8,
    /// The faction bound by the innermost context.
    pub bound: u8,
    /// The action's target.
    pub target: u8,
    /// The element bound by the innermost set aggregation.
    pub elem: u16,
    /// The first fault raised, if any.
    pub fault: Option<Fault>,
    /// The value stack, shared by nested evaluations (see [`STACK`]).
    pub stack: [f64; STACK],
}

impl Default for Ctx {
    fn default() -> Self {
        Ctx {
            me: 0,
            bound: 0,
            target: 0,
            elem: 0,
            fault: None,
            stack: [0.0; STACK],
        }
    }
}

/// Everything an expression can see while it runs: the game's state, random stream and
/// bindings, owned here so that an evaluation passes one pointer; the static tables are
/// borrowed from the model.
pub struct Env<'a> {
    /// The game's state.
    pub st: State,
    /// The model's static tables.
    pub t: &'a Tables,
    /// The game's random stream.
    pub rng: Rng,
    /// Bindings, fault and stack.
    pub cx: Ctx,
}

impl<'a> Env<'a> {
    /// An environment over the given state, tables and stream, with nothing bound.
    pub fn new(st: State, t: &'a Tables, rng: Rng) -> Env<'a> {
        Env {
            st,
            t,
            rng,
            cx: Ctx::default(),
        }
    }

    #[inline]
    fn who(&self, w: Who) -> usize {
        match w {
            Who::None => 0,
            Who::Bound => self.cx.bound as usize,
            Who::Me => self.cx.me as usize,
            Who::Target => self.cx.target as usize,
            Who::Fixed(f) => f as usize,
        }
    }

    #[inline]
    fn load(&self, base: u32, fstride: u32, who: Who, elem: Elem) -> f64 {
        let e = match elem {
            Elem::None => 0,
            Elem::Bound => self.cx.elem as usize,
            Elem::Fixed(i) => i as usize,
        };
        self.st.vals[slot(self.who(who), base, fstride, e)] as f64
    }

    fn count_owned(&self, deck: u16, code: u8) -> usize {
        self.t
            .deck_cards(deck)
            .filter(|&c| self.st.owner[c] == code)
            .count()
    }

    /// Records a fault at source location `loc` (the first one wins); yields 0.
    #[cold]
    fn fault_at(&mut self, kind: FaultKind, loc: u32) -> f64 {
        if self.cx.fault.is_none() {
            self.cx.fault = Some(Fault { loc, kind });
        }
        0.0
    }

    #[cold]
    fn fault(&mut self, kind: FaultKind) -> f64 {
        if self.cx.fault.is_none() {
            self.cx.fault = Some(Fault {
                loc: u32::MAX,
                kind,
            });
        }
        0.0
    }
}

/// The slot an `Op::Load` / `LValue` refers to.
#[inline]
pub fn slot(env_who: usize, base: u32, fstride: u32, elem: usize) -> usize {
    base as usize + env_who * fstride as usize + elem
}

#[inline]
fn truth(v: f64) -> f64 {
    if v != 0.0 { 1.0 } else { 0.0 }
}

#[inline]
fn binop(op: BinOp, a: f64, b: f64, env: &mut Env<'_>) -> f64 {
    match arith(op, a, b) {
        Some(v) => v,
        None => env.fault(FaultKind::DivisionByZero(a)),
    }
}

/// `a op b`, or `None` for a division (`/`, `//`, `%`) by zero.
#[inline]
fn arith(op: BinOp, a: f64, b: f64) -> Option<f64> {
    Some(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div | BinOp::FloorDiv | BinOp::Mod if b == 0.0 => return None,
        BinOp::Div => a / b,
        BinOp::FloorDiv => (a / b).floor(),
        BinOp::Mod => a - b * (a / b).floor(),
        BinOp::Eq => truth((a == b) as u8 as f64),
        BinOp::Ne => truth((a != b) as u8 as f64),
        BinOp::Lt => truth((a < b) as u8 as f64),
        BinOp::Le => truth((a <= b) as u8 as f64),
        BinOp::Gt => truth((a > b) as u8 as f64),
        BinOp::Ge => truth((a >= b) as u8 as f64),
        // Compiled to jumps; never reaches the machine as a `Bin`.
        BinOp::And => truth(a) * truth(b),
        BinOp::Or => truth(((a != 0.0) || (b != 0.0)) as u8 as f64),
    })
}

fn check_p(p: f64) -> Result<f64, FaultKind> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(FaultKind::Probability(p))
    }
}

fn rand_fn(f: RandFn, args: &[f64], rng: &mut Rng) -> Result<f64, FaultKind> {
    Ok(match f {
        RandFn::Uniform => {
            let (a, b) = (args[0].round() as i64, args[1].round() as i64);
            if a > b {
                return Err(FaultKind::EmptyRange(a, b));
            }
            rng.random_range(a..=b) as f64
        }
        RandFn::Random => rng.random::<f64>(),
        RandFn::Bernoulli => rng.random_bool(check_p(args[0])?) as u8 as f64,
        RandFn::Binomial => {
            let n = args[0];
            if n < 0.0 {
                return Err(FaultKind::NegativeCount(n));
            }
            let p = check_p(args[1])?;
            let d =
                rand_distr::Binomial::new(n as u64, p).map_err(|_| FaultKind::Probability(p))?;
            d.sample(rng) as f64
        }
        RandFn::Poisson => {
            let l = args[0];
            if l == 0.0 {
                return Ok(0.0);
            }
            let d = rand_distr::Poisson::new(l).map_err(|_| FaultKind::PoissonRate(l))?;
            d.sample(rng).round()
        }
        RandFn::Normal => {
            let d = rand_distr::Normal::new(args[0], args[1])
                .map_err(|_| FaultKind::NormalParameters(args[0], args[1]))?;
            d.sample(rng)
        }
        RandFn::Roll => {
            let (n, s) = (args[0].round() as i64, args[1].round() as i64);
            if n < 0 || s < 1 {
                return Err(FaultKind::BadDice(n, s));
            }
            (0..n).map(|_| rng.random_range(1..=s)).sum::<i64>() as f64
        }
        RandFn::Choice => args[rng.random_range(0..args.len())],
        RandFn::Weighted => {
            let total: f64 = args.chunks(2).map(|c| c[0]).sum();
            if args.chunks(2).any(|c| c[0] < 0.0 || !c[0].is_finite()) || total <= 0.0 {
                return Err(FaultKind::BadWeights);
            }
            let mut x = rng.random::<f64>() * total;
            for c in args.chunks(2) {
                if x < c[0] {
                    return Ok(c[1]);
                }
                x -= c[0];
            }
            // Rounding can leave x a hair above the last cumulative weight.
            args.chunks(2)
                .rev()
                .find(|c| c[0] > 0.0)
                .map_or(0.0, |c| c[1])
        }
    })
}

fn func(f: Func, a: &[f64]) -> f64 {
    match f {
        Func::Min => a.iter().copied().fold(f64::INFINITY, f64::min),
        Func::Max => a.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Func::Abs => a[0].abs(),
        Func::Floor => a[0].floor(),
        Func::Ceil => a[0].ceil(),
        Func::Round => a[0].round(),
        Func::Clamp => a[0].max(a[1]).min(a[2]),
    }
}

fn agg_step(kind: Agg, acc: f64, v: f64) -> f64 {
    match kind {
        Agg::Sum => acc + v,
        Agg::Max => acc.max(v),
        Agg::Min => acc.min(v),
        Agg::Count => acc + truth(v),
    }
}

fn agg_start(kind: Agg) -> f64 {
    match kind {
        Agg::Sum | Agg::Count => 0.0,
        Agg::Max => f64::NEG_INFINITY,
        Agg::Min => f64::INFINITY,
    }
}

fn agg_finish(acc: f64) -> f64 {
    // An aggregate over nothing (`max_others` with one faction) is 0, not infinity.
    if acc.is_finite() { acc } else { 0.0 }
}

/// Runs a code slice to completion, using the stack from `base` up, and returns the value
/// left on top. Aggregate bodies run recursively on the same stack above the caller's values,
/// so no evaluation allocates or clears memory.
fn exec(code: &[Op], env: &mut Env<'_>, base: usize) -> f64 {
    let mut sp = base;
    let mut pc = 0usize;
    macro_rules! push {
        ($v:expr) => {{
            let v = $v;
            env.cx.stack[sp] = v;
            sp += 1;
        }};
    }
    while pc < code.len() {
        match code[pc] {
            Op::Const(v) => push!(v),
            Op::Load {
                base: b,
                fstride,
                who,
                elem,
            } => push!(env.load(b, fstride, who, elem)),
            Op::Round => push!(env.st.round as f64),
            Op::Age => push!(env.st.age as f64),
            Op::NFactions => push!(env.t.nfactions as f64),
            Op::AgeRound => push!(env.st.age_round as f64),
            Op::Eliminated(w) => push!(((env.st.out >> env.who(w)) & 1) as f64),
            Op::Seat(w) => push!((env.who(w) + 1) as f64),
            Op::Side(w) => push!(env.t.side[env.who(w)] as f64),
            Op::Player(w) => push!(env.t.player[env.who(w)] as f64),
            Op::Drawn => push!(env.st.card.is_some() as u8 as f64),
            Op::CardAttr(a) => push!(match env.st.card {
                Some(c) => env.t.card_attrs[c as usize * env.t.n_attrs + a as usize] as f64,
                None => 0.0,
            }),
            Op::DeckLeft(d) => push!(env.st.deck_left[d as usize] as f64),
            Op::Held(d) => push!(env.count_owned(d, crate::state::held_by(env.cx.bound)) as f64),
            Op::Completed(d) => {
                push!(env.count_owned(d, crate::state::completed_by(env.cx.bound)) as f64)
            }
            Op::HasCompleted(d) => {
                let id = env.cx.stack[sp - 1] as i64;
                let code = crate::state::completed_by(env.cx.bound);
                let t = env.t;
                let found = t.deck_cards(d).any(|c| {
                    env.st.owner[c] == code
                        && t.id_attr
                            .is_some_and(|a| t.card_attrs[c * t.n_attrs + a as usize] == id)
                });
                env.cx.stack[sp - 1] = found as u8 as f64;
            }
            Op::Neg => env.cx.stack[sp - 1] = -env.cx.stack[sp - 1],
            Op::Not => env.cx.stack[sp - 1] = 1.0 - truth(env.cx.stack[sp - 1]),
            Op::Bool => env.cx.stack[sp - 1] = truth(env.cx.stack[sp - 1]),
            Op::Bin(op) => {
                sp -= 1;
                let (a, b) = (env.cx.stack[sp - 1], env.cx.stack[sp]);
                env.cx.stack[sp - 1] = binop(op, a, b, env);
            }
            Op::JumpIfFalse(to) => {
                sp -= 1;
                if env.cx.stack[sp] == 0.0 {
                    pc = to as usize;
                    continue;
                }
            }
            Op::Jump(to) => {
                pc = to as usize;
                continue;
            }
            Op::Call(f, n) => {
                let n = n as usize;
                let v = func(f, &env.cx.stack[sp - n..sp]);
                sp -= n;
                push!(v)
            }
            Op::Rand(f, n) => {
                let n = n as usize;
                let v = match rand_fn(f, &env.cx.stack[sp - n..sp], &mut env.rng) {
                    Ok(v) => v,
                    Err(kind) => env.fault(kind),
                };
                sp -= n;
                push!(v)
            }
            Op::Dice(n, s) => {
                let mut t = 0u64;
                for _ in 0..n {
                    t += env.rng.random_range(1..=s as u64);
                }
                push!(t as f64)
            }
            Op::AggFactions { kind, others, len } => {
                let body = &code[pc + 1..pc + 1 + len as usize];
                let outer = env.cx.bound;
                let mut acc = agg_start(kind);
                for f in 0..env.t.nfactions {
                    if others && f == outer {
                        continue;
                    }
                    env.cx.bound = f;
                    // Fast path for the common `max_all(vp)`: a single load needs no machine.
                    let v = match body {
                        [
                            Op::Load {
                                base: b,
                                fstride,
                                who: Who::Bound,
                                elem: Elem::None,
                            },
                        ] => env.st.vals[slot(f as usize, *b, *fstride, 0)] as f64,
                        _ => exec(body, env, sp),
                    };
                    acc = agg_step(kind, acc, v);
                }
                env.cx.bound = outer;
                push!(agg_finish(acc));
                pc += 1 + len as usize;
                continue;
            }
            Op::AggSet { kind, n, len } => {
                let body = &code[pc + 1..pc + 1 + len as usize];
                let outer = env.cx.elem;
                let mut acc = agg_start(kind);
                for e in 0..n {
                    env.cx.elem = e;
                    let v = exec(body, env, sp);
                    acc = agg_step(kind, acc, v);
                }
                env.cx.elem = outer;
                push!(agg_finish(acc));
                pc += 1 + len as usize;
                continue;
            }
        }
        pc += 1;
    }
    if sp == base {
        0.0
    } else {
        env.cx.stack[sp - 1]
    }
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
    /// Rank factions by `metric` (highest first) and add `scale[place]` to `lv`.
    Award {
        /// The faction variable receiving awards.
        lv: LValue,
        /// The metric.
        metric: Expr,
        /// Award per place (0 beyond the end).
        scale: Box<[i64]>,
        /// How ties share.
        ties: TiePolicy,
        /// Tie-break chain (higher first) before the policy.
        chain: Box<[Expr]>,
        /// Points-by-source tag.
        source: Option<u8>,
    },
    /// Factions not yet `done` for which `cond` holds complete now, in ascending `key`
    /// order; each gets `scale[count]` and the counter moves on.
    Race {
        /// Per-faction completion flag.
        done: LValue,
        /// Global count of completers so far.
        count: LValue,
        /// Completion condition.
        cond: Expr,
        /// Order among same-moment completers.
        key: Expr,
        /// Variable receiving the reward.
        lv: LValue,
        /// Reward by completion order.
        scale: Box<[i64]>,
        /// Points-by-source tag.
        source: Option<u8>,
    },
    /// Statements in order.
    Block(Box<[Stmt]>),
    /// `win` or `lose` (the faction in scope), with an end reason.
    Outcome {
        /// Which.
        kind: OutcomeKind,
        /// End reason.
        reason: u16,
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
    End(u16),
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
    /// Set a faction variable to each faction's 1-based position when sorted ascending by the
    /// keys (ties by seat).
    Order {
        /// The faction variable.
        lv: LValue,
        /// Sort keys, most significant first.
        keys: Box<[Expr]>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(code: Vec<Op>) -> f64 {
        let st = State {
            vals: vec![3, 5, 7],
            round: 2,
            age: 1,
            age_round: 1,
            out: 0,
            card: None,
            deck_left: vec![],
            pool: vec![],
            owner: vec![],
        };
        let t = Tables {
            nfactions: 3,
            side: vec![0; 3],
            player: vec![1; 3],
            ..Tables::default()
        };
        let mut env = Env::new(st, &t, crate::rng::game_rng(1, 1));
        exec(&code, &mut env, 0)
    }

    #[test]
    fn arithmetic_and_aggregates() {
        assert_eq!(
            run(vec![Op::Const(2.0), Op::Const(3.0), Op::Bin(BinOp::Mul)]),
            6.0
        );
        assert_eq!(
            run(vec![
                Op::Const(-7.0),
                Op::Const(2.0),
                Op::Bin(BinOp::FloorDiv)
            ]),
            -4.0
        );
        assert_eq!(
            run(vec![Op::Const(-7.0), Op::Const(3.0), Op::Bin(BinOp::Mod)]),
            2.0
        );
        let load = Op::Load {
            base: 0,
            fstride: 1,
            who: Who::Bound,
            elem: Elem::None,
        };
        assert_eq!(
            run(vec![
                Op::AggFactions {
                    kind: Agg::Max,
                    others: false,
                    len: 1
                },
                load
            ]),
            7.0
        );
        assert_eq!(
            run(vec![
                Op::AggFactions {
                    kind: Agg::Sum,
                    others: true,
                    len: 1
                },
                load
            ]),
            12.0
        );
    }

    #[test]
    fn faults_instead_of_panics() {
        let st = State::empty();
        let t = Tables::default();
        let mut env = Env::new(st, &t, crate::rng::game_rng(1, 1));
        let e = Expr::new(
            vec![
                Op::Round,
                Op::Const(1.7),
                Op::Bin(BinOp::Add),
                Op::Rand(RandFn::Bernoulli, 1),
            ],
            9,
        );
        e.eval(&mut env);
        let f = env.cx.fault.unwrap();
        assert_eq!(f.loc, 9);
        assert_eq!(f.kind, FaultKind::Probability(1.7));
    }
}
