//! What each operation computes: the arithmetic, comparisons, conversions, functions,
//! random draws, aggregates and builtin leaves of the formula language.
//!
//! One definition per operation, shared by the tree walker in the parent module (the
//! reference semantics), the fast closures of the `closure` module and the native engine's
//! helpers; the parent re-exports them, so their paths are `crate::expr::tree::X`.

use rand::RngExt;
use rand_distr::Distribution;

use crate::expr::{Agg, BinOp, Env, FaultKind, Func, Num, Op, RandFn, Ty};
use crate::rng::Rng;
use crate::state::MAX_DICE;

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
        Func::Row | Func::Col | Func::Cell => grid(f, a),
    })
}

/// `row(i)`, `col(i)` and `cell(r, c)` of a grid of `rows` x `cols` positions numbered row
/// by row from 1, the grid's size last among the arguments: 0 for a position (or a row or
/// column) off the grid, so that `cell(r, c + 1) > 0` asks whether a neighbour exists.
pub(crate) fn grid(f: Func, a: &[i64]) -> i64 {
    match f {
        Func::Cell => {
            let (r, c, rows, cols) = (a[0], a[1], a[2], a[3]);
            if (1..=rows).contains(&r) && (1..=cols).contains(&c) {
                (r - 1) * cols + c
            } else {
                0
            }
        }
        _ => {
            let (i, rows, cols) = (a[0], a[1], a[2]);
            if !(1..=rows * cols).contains(&i) {
                0
            } else if f == Func::Row {
                (i - 1) / cols + 1
            } else {
                (i - 1) % cols + 1
            }
        }
    }
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
        // Positions are integers (the compiler refuses a real one); as integers here.
        Func::Row | Func::Col | Func::Cell => {
            let a: Vec<i64> = a.iter().map(|&x| x as i64).collect();
            grid(f, &a) as f64
        }
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
    pub(crate) fn new(kind: Agg) -> IntAgg {
        IntAgg {
            kind,
            acc: 0,
            seen: false,
        }
    }

    /// Adds one value of the body (for `count`, its truth).
    #[inline]
    pub(crate) fn step(&mut self, v: i64) -> Result<(), FaultKind> {
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
    pub(crate) fn finish(self) -> i64 {
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
        Op::TableSeat(w) => e.seating.of[e.who(w)] as i64 + 1,
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
