//! The typed expression tree and the meaning of every operation: the reference semantics.
//!
//! Owns the types of formulas and what each operation computes. A program (flat [`Op`]s, as
//! the compiler emits them) decodes into a `Node` tree; every node has a static type,
//! [`Ty::Int`] or [`Ty::Real`]: integers compute in `i64` with checked arithmetic (overflow
//! is a fault), reals in `f64`. A node is real when it is a real literal or setting, `/`,
//! `random()`, `normal()`, or an operation with a real operand; everything else (variables,
//! builtins, dice, counts, comparisons, `floor`, `ceil`, `round`) is an integer. An integer
//! operand of a real operation is converted to `f64`.
//!
//! `eval` walks the tree: it is the reference the fast closures of the `closure` module
//! are held to (a property test compares them on random formulas, faults included), and it
//! folds constants. Both call the operation functions defined here, so an operation has one
//! definition.

use rand::RngExt;
use rand_distr::Distribution;

use super::{Agg, BinOp, Elem, Env, FaultKind, Func, Op, RandFn, Who};
use crate::rng::Rng;

/// The static type of a formula.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// A 64-bit integer.
    Int,
    /// A 64-bit float.
    Real,
}

/// A value of either type. Values compare by number, not by type: `Int(1) == Real(1.0)`.
#[derive(Debug, Clone, Copy)]
pub enum Num {
    /// An integer.
    Int(i64),
    /// A real.
    Real(f64),
}

impl Num {
    /// As a real (integers beyond 2^53 round to the nearest real).
    #[inline]
    pub fn real(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Real(r) => r,
        }
    }

    /// Whether it counts as true (non-zero).
    #[inline]
    pub fn truth(self) -> bool {
        match self {
            Num::Int(i) => i != 0,
            Num::Real(r) => r != 0.0,
        }
    }

    /// The type.
    pub fn ty(self) -> Ty {
        match self {
            Num::Int(_) => Ty::Int,
            Num::Real(_) => Ty::Real,
        }
    }
}

impl PartialEq for Num {
    fn eq(&self, other: &Num) -> bool {
        self.partial_cmp(other) == Some(std::cmp::Ordering::Equal)
    }
}

impl PartialOrd for Num {
    /// Integers compare exactly; a comparison with a real compares as reals.
    fn partial_cmp(&self, other: &Num) -> Option<std::cmp::Ordering> {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(b)),
            _ => self.real().partial_cmp(&other.real()),
        }
    }
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Real(r) => write!(f, "{r}"),
        }
    }
}

/// An expression tree, decoded from the structured stack program the compiler emits.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Int(i64),
    Real(f64),
    Load(u32, u32, Who, Elem),
    /// A builtin that takes nothing (all integers).
    Leaf(Op),
    /// `Neg`, `Not`, `Bool` or `HasCompleted` of one operand.
    Un(Op, Box<Node>),
    Bin(BinOp, Box<Node>, Box<Node>),
    If(Box<Node>, Box<Node>, Box<Node>),
    Call(Func, Vec<Node>),
    Rand(RandFn, Vec<Node>),
    AggF(Agg, bool, Box<Node>),
    AggS(Agg, u16, Box<Node>),
}

fn all_int(ns: &[Node]) -> Ty {
    if ns.iter().all(|n| n.ty() == Ty::Int) {
        Ty::Int
    } else {
        Ty::Real
    }
}

fn both(a: &Node, b: &Node) -> Ty {
    if a.ty() == Ty::Int && b.ty() == Ty::Int {
        Ty::Int
    } else {
        Ty::Real
    }
}

impl Node {
    /// The static type of the node's value.
    pub fn ty(&self) -> Ty {
        match self {
            Node::Real(_) => Ty::Real,
            Node::Int(_) | Node::Load(..) | Node::Leaf(_) => Ty::Int,
            Node::Un(Op::Neg, a) => a.ty(),
            Node::Un(..) => Ty::Int,
            Node::Bin(op, a, b) => match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::Mod => both(a, b),
                BinOp::Div => Ty::Real,
                _ => Ty::Int,
            },
            Node::If(_, t, f) => both(t, f),
            Node::Call(f, args) => match f {
                Func::Floor | Func::Ceil | Func::Round => Ty::Int,
                _ => all_int(args),
            },
            Node::Rand(f, args) => match f {
                RandFn::Random | RandFn::Normal => Ty::Real,
                RandFn::Choice => all_int(args),
                RandFn::Weighted => {
                    if args.iter().skip(1).step_by(2).all(|n| n.ty() == Ty::Int) {
                        Ty::Int
                    } else {
                        Ty::Real
                    }
                }
                _ => Ty::Int,
            },
            Node::AggF(Agg::Count, ..) | Node::AggS(Agg::Count, ..) => Ty::Int,
            Node::AggF(_, _, body) | Node::AggS(_, _, body) => body.ty(),
        }
    }
}

/// Decodes a whole program into one tree.
pub(crate) fn decode_program(code: &[Op]) -> Node {
    single(code, 0, code.len())
}

fn pop(stack: &mut Vec<Node>) -> Node {
    // The compiler checks every program's stack depth, so an operand is always there.
    stack.pop().unwrap_or(Node::Int(0))
}

/// The body of the aggregation at `pc`: the `len` instructions after it, as one node.
fn body(code: &[Op], pc: usize, len: u32) -> Box<Node> {
    let body = &code[pc + 1..pc + 1 + len as usize];
    Box::new(single(body, 0, body.len()))
}

/// The one value `code[from..to]` leaves (0 for an empty range).
fn single(code: &[Op], from: usize, to: usize) -> Node {
    let mut out = Vec::new();
    decode(code, from, to, &mut out);
    pop(&mut out)
}

/// Symbolic execution of `code[from..to]`: pushes a tree for every value the range leaves.
/// Jumps only come from `if`, `and` and `or`, in the shape
/// `cond; JumpIfFalse(else); then; Jump(end); else...; end:`.
fn decode(code: &[Op], from: usize, to: usize, out: &mut Vec<Node>) {
    let mut pc = from;
    while pc < to {
        let op = code[pc];
        match op {
            Op::Const(v) => out.push(Node::Real(v)),
            Op::Int(v) => out.push(Node::Int(v)),
            Op::Load {
                base,
                fstride,
                who,
                elem,
            } => out.push(Node::Load(base, fstride, who, elem)),
            Op::Round
            | Op::Age
            | Op::NFactions
            | Op::AgeRound
            | Op::Eliminated(_)
            | Op::Seat(_)
            | Op::Side(_)
            | Op::Player(_)
            | Op::Drawn
            | Op::CardAttr(_)
            | Op::DeckLeft(_)
            | Op::Held(_)
            | Op::Completed(_)
            | Op::Dice(..) => out.push(Node::Leaf(op)),
            Op::Neg | Op::Not | Op::Bool | Op::HasCompleted(_) => {
                let a = pop(out);
                out.push(Node::Un(op, Box::new(a)));
            }
            Op::Bin(b) => {
                let y = pop(out);
                let x = pop(out);
                out.push(Node::Bin(b, Box::new(x), Box::new(y)));
            }
            Op::Call(f, n) => {
                let args = out.split_off(out.len().saturating_sub(n as usize));
                out.push(Node::Call(f, args));
            }
            Op::Rand(f, n) => {
                let args = out.split_off(out.len().saturating_sub(n as usize));
                out.push(Node::Rand(f, args));
            }
            Op::JumpIfFalse(els) => {
                let cond = pop(out);
                let els = els as usize;
                let end = match code[els - 1] {
                    Op::Jump(end) => end as usize,
                    _ => els,
                };
                let then = single(code, pc + 1, els - 1);
                let other = single(code, els, end);
                out.push(Node::If(Box::new(cond), Box::new(then), Box::new(other)));
                pc = end;
                continue;
            }
            // Consumed with its `JumpIfFalse`.
            Op::Jump(to) => {
                pc = to as usize;
                continue;
            }
            Op::AggFactions { kind, others, len } => {
                out.push(Node::AggF(kind, others, body(code, pc, len)));
                pc += 1 + len as usize;
                continue;
            }
            Op::AggSet { kind, n, len } => {
                out.push(Node::AggS(kind, n, body(code, pc, len)));
                pc += 1 + len as usize;
                continue;
            }
        }
        pc += 1;
    }
}

// --- the operations -------------------------------------------------------------------------

/// `a op b` on integers: `+ - *` checked, `//` floor division, `%` remainder with the
/// divisor's sign; comparisons give 0 or 1.
#[inline]
pub(crate) fn int_bin(op: BinOp, a: i64, b: i64) -> Result<i64, FaultKind> {
    let over = || FaultKind::Overflow(op, a, b);
    match op {
        BinOp::Add => a.checked_add(b).ok_or_else(over),
        BinOp::Sub => a.checked_sub(b).ok_or_else(over),
        BinOp::Mul => a.checked_mul(b).ok_or_else(over),
        BinOp::Div => unreachable_real(),
        BinOp::FloorDiv | BinOp::Mod if b == 0 => Err(FaultKind::DivisionByZero(Num::Int(a))),
        BinOp::FloorDiv => {
            let q = a.checked_div(b).ok_or_else(over)?;
            Ok(if a % b != 0 && ((a < 0) != (b < 0)) {
                q - 1
            } else {
                q
            })
        }
        BinOp::Mod => {
            if b == -1 {
                return Ok(0);
            }
            let r = a % b;
            Ok(if r != 0 && ((r < 0) != (b < 0)) {
                r + b
            } else {
                r
            })
        }
        _ => Ok(compare_int(op, a, b)),
    }
}

/// `/` is always real; the typing never sends it to the integer path.
#[cold]
fn unreachable_real() -> Result<i64, FaultKind> {
    Ok(0)
}

/// `a op b` on reals (arithmetic only; comparisons go through [`cmp`]).
#[inline]
pub(crate) fn real_bin(op: BinOp, a: f64, b: f64) -> Result<f64, FaultKind> {
    Ok(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div | BinOp::FloorDiv | BinOp::Mod if b == 0.0 => {
            return Err(FaultKind::DivisionByZero(Num::Real(a)));
        }
        BinOp::Div => a / b,
        BinOp::FloorDiv => (a / b).floor(),
        BinOp::Mod => a - b * (a / b).floor(),
        _ => compare_real(op, a, b) as f64,
    })
}

/// A comparison (or a hand-built `and`/`or`) of two integers: 0 or 1.
#[inline]
pub(crate) fn compare_int(op: BinOp, a: i64, b: i64) -> i64 {
    match op {
        BinOp::And => (a != 0 && b != 0) as i64,
        BinOp::Or => (a != 0 || b != 0) as i64,
        _ => cmp(op, Some(a.cmp(&b))),
    }
}

/// A comparison of two reals (an integer compared with a real is compared as a real).
#[inline]
pub(crate) fn compare_real(op: BinOp, a: f64, b: f64) -> i64 {
    match op {
        BinOp::And => (a != 0.0 && b != 0.0) as i64,
        BinOp::Or => (a != 0.0 || b != 0.0) as i64,
        _ => cmp(op, a.partial_cmp(&b)),
    }
}

/// A comparison's 0 or 1 from an ordering (`None`: a NaN was compared; only `!=` holds).
#[inline]
fn cmp(op: BinOp, o: Option<std::cmp::Ordering>) -> i64 {
    use std::cmp::Ordering::*;
    (match (op, o) {
        (BinOp::Ne, o) => o != Some(Equal),
        (BinOp::Eq, Some(Equal)) => true,
        (BinOp::Lt, Some(Less)) => true,
        (BinOp::Le, Some(Less | Equal)) => true,
        (BinOp::Gt, Some(Greater)) => true,
        (BinOp::Ge, Some(Greater | Equal)) => true,
        _ => false,
    }) as i64
}

/// A real made an integer (by `floor`, `ceil`, `round` or a store): it must be finite and
/// within the 64-bit range.
#[inline]
pub(crate) fn to_int(x: f64) -> Result<i64, FaultKind> {
    // 2^63 is exactly representable; every finite real below it and at or above -2^63 fits.
    if x.is_finite() && (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x) {
        Ok(x as i64)
    } else {
        Err(FaultKind::OutOfRange(x))
    }
}

/// `floor`, `ceil`, `round` (halves away from zero) of a real.
#[inline]
pub(crate) fn round_fn(f: Func, x: f64) -> Result<i64, FaultKind> {
    to_int(match f {
        Func::Floor => x.floor(),
        Func::Ceil => x.ceil(),
        _ => x.round(),
    })
}

/// `min`, `max`, `abs`, `clamp` on integers.
pub(crate) fn int_func(f: Func, a: &[i64]) -> Result<i64, FaultKind> {
    Ok(match f {
        Func::Min => a.iter().copied().min().unwrap_or(0),
        Func::Max => a.iter().copied().max().unwrap_or(0),
        Func::Abs => a[0]
            .checked_abs()
            .ok_or(FaultKind::Overflow(BinOp::Sub, 0, a[0]))?,
        Func::Clamp => a[0].max(a[1]).min(a[2]),
        // Integers are already whole.
        Func::Floor | Func::Ceil | Func::Round => a[0],
    })
}

/// The larger of two reals, the formula language's `max`: a NaN is ignored (the other one
/// is the result) and of two equal values (0 and -0) the first one is. Spelled out rather
/// than `f64::max`, which leaves the sign of a zero result to the platform; machine code
/// computes exactly this.
#[inline]
pub(crate) fn fmax(a: f64, b: f64) -> f64 {
    if b > a || a.is_nan() { b } else { a }
}

/// The smaller of two reals, the formula language's `min`: as [`fmax`] says.
#[inline]
pub(crate) fn fmin(a: f64, b: f64) -> f64 {
    if b < a || a.is_nan() { b } else { a }
}

/// `min`, `max`, `abs`, `clamp` on reals.
pub(crate) fn real_func(f: Func, a: &[f64]) -> f64 {
    match f {
        Func::Min => a.iter().copied().fold(f64::INFINITY, fmin),
        Func::Max => a.iter().copied().fold(f64::NEG_INFINITY, fmax),
        Func::Abs => a[0].abs(),
        Func::Clamp => fmin(fmax(a[0], a[1]), a[2]),
        Func::Floor => a[0].floor(),
        Func::Ceil => a[0].ceil(),
        Func::Round => a[0].round(),
    }
}

fn check_p(p: f64) -> Result<f64, FaultKind> {
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(FaultKind::Probability(p))
    }
}

/// A whole-number argument of a random draw: integers as they are, reals rounded.
#[inline]
fn whole(x: Num) -> i64 {
    match x {
        Num::Int(i) => i,
        Num::Real(r) => r.round() as i64,
    }
}

/// A random draw. `args` are the evaluated arguments; the result has the node's type
/// (`ty`): `choice` and `weighted` return one of their values converted to it.
pub(crate) fn rand_fn(f: RandFn, args: &[Num], ty: Ty, rng: &mut Rng) -> Result<Num, FaultKind> {
    let conv = |v: Num| match ty {
        Ty::Int => v,
        Ty::Real => Num::Real(v.real()),
    };
    Ok(match f {
        RandFn::Uniform => {
            let (a, b) = (whole(args[0]), whole(args[1]));
            if a > b {
                return Err(FaultKind::EmptyRange(a, b));
            }
            Num::Int(rng.random_range(a..=b))
        }
        RandFn::Random => Num::Real(rng.random::<f64>()),
        RandFn::Bernoulli => Num::Int(rng.random_bool(check_p(args[0].real())?) as i64),
        RandFn::Binomial => {
            let n = match args[0] {
                Num::Int(n) if n < 0 => return Err(FaultKind::NegativeCount(n as f64)),
                Num::Int(n) => n as u64,
                Num::Real(n) if n < 0.0 => return Err(FaultKind::NegativeCount(n)),
                Num::Real(n) => n as u64,
            };
            let p = check_p(args[1].real())?;
            let d = rand_distr::Binomial::new(n, p).map_err(|_| FaultKind::Probability(p))?;
            Num::Int(d.sample(rng) as i64)
        }
        RandFn::Poisson => {
            let l = args[0].real();
            if l == 0.0 {
                return Ok(Num::Int(0));
            }
            let d = rand_distr::Poisson::new(l).map_err(|_| FaultKind::PoissonRate(l))?;
            Num::Int(to_int(d.sample(rng).round())?)
        }
        RandFn::Normal => {
            let (m, sd) = (args[0].real(), args[1].real());
            let d =
                rand_distr::Normal::new(m, sd).map_err(|_| FaultKind::NormalParameters(m, sd))?;
            Num::Real(d.sample(rng))
        }
        RandFn::Roll => {
            let (n, s) = (whole(args[0]), whole(args[1]));
            if !(0..=MAX_DICE).contains(&n) || s < 1 {
                return Err(FaultKind::BadDice(n, s));
            }
            let mut t = 0i64;
            for _ in 0..n {
                let d = rng.random_range(1..=s);
                t = t
                    .checked_add(d)
                    .ok_or(FaultKind::Overflow(BinOp::Add, t, d))?;
            }
            Num::Int(t)
        }
        RandFn::Choice => conv(args[rng.random_range(0..args.len())]),
        RandFn::Weighted => {
            let w = |c: &[Num]| c[0].real();
            let total: f64 = args.chunks(2).map(w).sum();
            if args.chunks(2).any(|c| w(c) < 0.0 || !w(c).is_finite()) || total <= 0.0 {
                return Err(FaultKind::BadWeights);
            }
            let mut x = rng.random::<f64>() * total;
            for c in args.chunks(2) {
                if x < w(c) {
                    return Ok(conv(c[1]));
                }
                x -= w(c);
            }
            // Rounding can leave x a hair above the last cumulative weight.
            conv(
                args.chunks(2)
                    .rev()
                    .find(|c| w(c) > 0.0)
                    .map_or(Num::Int(0), |c| c[1]),
            )
        }
    })
}

/// The most dice one `roll(n, sides)` or `NdS` may throw (bounded work per formula).
pub const MAX_DICE: i64 = 1_000_000;

/// The sum of `n` dice with `s` sides.
#[inline]
pub(crate) fn dice(n: u32, s: u32, rng: &mut Rng) -> i64 {
    let mut t = 0u64;
    for _ in 0..n {
        t += rng.random_range(1..=s as u64);
    }
    t as i64
}

/// An integer aggregate in progress: a sum, a count, or the largest or smallest so far
/// (`None` before the first value: an aggregate over nothing is 0).
#[derive(Clone, Copy)]
pub(crate) struct IntAgg {
    kind: Agg,
    acc: i64,
    seen: bool,
}

impl IntAgg {
    #[inline]
    pub fn new(kind: Agg) -> IntAgg {
        IntAgg {
            kind,
            acc: 0,
            seen: false,
        }
    }

    /// Adds one value of the body (for `count`, its truth).
    #[inline]
    pub fn step(&mut self, v: i64) -> Result<(), FaultKind> {
        self.acc = match self.kind {
            Agg::Sum => {
                self.acc
                    .checked_add(v)
                    .ok_or(FaultKind::Overflow(BinOp::Add, self.acc, v))?
            }
            Agg::Count => self.acc + (v != 0) as i64,
            Agg::Max if self.seen => self.acc.max(v),
            Agg::Min if self.seen => self.acc.min(v),
            Agg::Max | Agg::Min => v,
        };
        self.seen = true;
        Ok(())
    }

    #[inline]
    pub fn finish(self) -> i64 {
        self.acc
    }
}

/// A real aggregate's start, step and finish (`count` is always an integer aggregate).
#[inline]
pub(crate) fn real_agg_start(kind: Agg) -> f64 {
    match kind {
        Agg::Max => f64::NEG_INFINITY,
        Agg::Min => f64::INFINITY,
        _ => 0.0,
    }
}

#[inline]
pub(crate) fn real_agg_step(kind: Agg, acc: f64, v: f64) -> f64 {
    match kind {
        Agg::Max => fmax(acc, v),
        Agg::Min => fmin(acc, v),
        _ => acc + v,
    }
}

#[inline]
pub(crate) fn real_agg_finish(acc: f64) -> f64 {
    // An aggregate over nothing (`max_others` with one faction) is 0, not infinity.
    if acc.is_finite() { acc } else { 0.0 }
}

/// Whether the bound faction has completed the card of `deck` whose `id` attribute is `id`.
pub(crate) fn has_completed(e: &Env<'_>, deck: u16, id: i64) -> bool {
    let code = crate::state::completed_by(e.cx.bound);
    // The kept count answers at once for a faction that has completed none.
    if e.count_owned(deck, code) == 0 {
        return false;
    }
    e.t.cards_with_id(deck, id).any(|c| e.st.owner[c] == code)
}

/// The value of a builtin leaf.
#[inline]
pub(crate) fn leaf(op: Op, e: &mut Env<'_>) -> i64 {
    match op {
        Op::Round => e.st.round,
        Op::Age => e.st.age,
        Op::NFactions => e.t.nfactions as i64,
        Op::AgeRound => e.st.age_round,
        Op::Eliminated(w) => ((e.st.out >> e.who(w)) & 1) as i64,
        Op::Seat(w) => e.who(w) as i64 + 1,
        Op::Side(w) => e.t.side[e.who(w)],
        Op::Player(w) => e.t.player[e.who(w)],
        Op::Drawn => e.st.card().is_some() as i64,
        Op::CardAttr(a) => match e.st.card() {
            Some(c) => e.t.card_attrs[c as usize * e.t.n_attrs + a as usize],
            None => 0,
        },
        Op::DeckLeft(d) => e.st.deck_left[d as usize] as i64,
        Op::Held(d) => e.count_owned(d, crate::state::held_by(e.cx.bound)) as i64,
        Op::Completed(d) => e.count_owned(d, crate::state::completed_by(e.cx.bound)) as i64,
        Op::Dice(n, s) => dice(n, s, &mut e.rng),
        _ => 0,
    }
}

// --- the reference evaluator ----------------------------------------------------------------

/// Evaluates `n` by walking the tree; a fault is recorded at `loc` and the faulting operation
/// yields 0 (evaluation goes on, so both evaluators draw the same random numbers).
pub(crate) fn eval(n: &Node, e: &mut Env<'_>, loc: u32) -> Num {
    let ty = n.ty();
    let zero = match ty {
        Ty::Int => Num::Int(0),
        Ty::Real => Num::Real(0.0),
    };
    let ok = |r: Result<Num, FaultKind>, e: &mut Env<'_>| match r {
        Ok(v) => v,
        Err(k) => {
            e.fault_at(k, loc);
            zero
        }
    };
    match n {
        Node::Int(i) => Num::Int(*i),
        Node::Real(r) => Num::Real(*r),
        Node::Load(base, fs, who, elem) => Num::Int(e.load(*base, *fs, *who, *elem)),
        Node::Leaf(op) => Num::Int(leaf(*op, e)),
        Node::Un(op, a) => {
            let a = eval(a, e, loc);
            match (op, a) {
                (Op::Neg, Num::Int(i)) => ok(
                    i.checked_neg()
                        .map(Num::Int)
                        .ok_or(FaultKind::Overflow(BinOp::Sub, 0, i)),
                    e,
                ),
                (Op::Neg, Num::Real(r)) => Num::Real(-r),
                (Op::Not, a) => Num::Int(!a.truth() as i64),
                (Op::HasCompleted(d), a) => Num::Int(has_completed(e, *d, whole_id(a)) as i64),
                (_, a) => Num::Int(a.truth() as i64),
            }
        }
        Node::Bin(op, a, b) => {
            let (x, y) = (eval(a, e, loc), eval(b, e, loc));
            match (op, ty) {
                (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::Mod, Ty::Int) => {
                    let (Num::Int(x), Num::Int(y)) = (x, y) else {
                        return zero;
                    };
                    ok(int_bin(*op, x, y).map(Num::Int), e)
                }
                (BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::Mod, _)
                | (BinOp::Div, _) => ok(real_bin(*op, x.real(), y.real()).map(Num::Real), e),
                _ => match (x, y) {
                    (Num::Int(x), Num::Int(y)) => Num::Int(compare_int(*op, x, y)),
                    _ => Num::Int(compare_real(*op, x.real(), y.real())),
                },
            }
        }
        Node::If(c, t, f) => {
            let v = if eval(c, e, loc).truth() {
                eval(t, e, loc)
            } else {
                eval(f, e, loc)
            };
            conv(v, ty)
        }
        Node::Call(f, args) => {
            let v: Vec<Num> = args.iter().map(|a| eval(a, e, loc)).collect();
            match (f, ty) {
                (Func::Floor | Func::Ceil | Func::Round, _) => match v[0] {
                    Num::Int(i) => Num::Int(i),
                    Num::Real(r) => ok(round_fn(*f, r).map(Num::Int), e),
                },
                (_, Ty::Int) => {
                    let v: Vec<i64> = v.iter().map(|x| whole_id(*x)).collect();
                    ok(int_func(*f, &v).map(Num::Int), e)
                }
                (_, Ty::Real) => {
                    let v: Vec<f64> = v.iter().map(|x| x.real()).collect();
                    Num::Real(real_func(*f, &v))
                }
            }
        }
        Node::Rand(f, args) => {
            let v: Vec<Num> = args.iter().map(|a| eval(a, e, loc)).collect();
            let r = rand_fn(*f, &v, ty, &mut e.rng);
            ok(r, e)
        }
        Node::AggF(kind, others, body) => {
            let outer = e.cx.bound;
            let n = e.t.nfactions as usize;
            let r = agg(*kind, ty, e, loc, body, n, |e, i| {
                if *others && i as u8 == outer {
                    return false;
                }
                e.cx.bound = i as u8;
                true
            });
            e.cx.bound = outer;
            r
        }
        Node::AggS(kind, n, body) => {
            let outer = e.cx.elem;
            let r = agg(*kind, ty, e, loc, body, *n as usize, |e, i| {
                e.cx.elem = i as u16;
                true
            });
            e.cx.elem = outer;
            r
        }
    }
}

/// An integer read of a value that the typing guarantees is an integer.
fn whole_id(v: Num) -> i64 {
    match v {
        Num::Int(i) => i,
        Num::Real(r) => r as i64,
    }
}

fn conv(v: Num, ty: Ty) -> Num {
    match ty {
        Ty::Int => v,
        Ty::Real => Num::Real(v.real()),
    }
}

/// Runs an aggregate over `count` members: `bind(e, i)` binds the i-th (false to skip it).
fn agg(
    kind: Agg,
    ty: Ty,
    e: &mut Env<'_>,
    loc: u32,
    body: &Node,
    count: usize,
    mut bind: impl FnMut(&mut Env<'_>, usize) -> bool,
) -> Num {
    if ty == Ty::Int || kind == Agg::Count {
        let mut acc = IntAgg::new(kind);
        for i in 0..count {
            if !bind(e, i) {
                continue;
            }
            let v = match eval(body, e, loc) {
                Num::Int(v) => v,
                Num::Real(r) => (r != 0.0) as i64,
            };
            if let Err(k) = acc.step(v) {
                e.fault_at(k, loc);
            }
        }
        Num::Int(acc.finish())
    } else {
        let mut acc = real_agg_start(kind);
        for i in 0..count {
            if bind(e, i) {
                acc = real_agg_step(kind, acc, eval(body, e, loc).real());
            }
        }
        Num::Real(real_agg_finish(acc))
    }
}
