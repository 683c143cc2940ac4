//! Closure compilation: the fast executable form of an [`Expr`](super::Expr).
//!
//! Owns the lowering of a typed [`Node`] tree into nested closures: integer nodes become
//! closures returning `i64`, real nodes closures returning `f64`, so no value changes type
//! unless the typing says so. The shapes scenarios use most (a variable of the bound, acting
//! or target faction, a global, a constant, and an integer operator over two of those) run as
//! one closure with no dispatch. Every operation calls the definition in [`super::tree`],
//! whose tree walker is the reference: a property test holds the two to the same values, the
//! same faults and the same random draws. Written by hand because no crate compiles a small
//! expression language to closures.

use rand::RngExt;

use super::tree::{
    self, IntAgg, Node, Num, Ty, compare_int, compare_real, int_bin, int_func, real_agg_finish,
    real_agg_start, real_agg_step, real_bin, real_func, round_fn,
};
use super::{Agg, BinOp, Elem, Env, FaultKind, Func, Op, RandFn, Who};

#[macro_use]
mod operands;
use operands::{
    AsReal, Bound, Dyn, DynF, FGet, Get, K, KF, Me, Operand, RealOperand, Slot, Target, operand,
    real_operand,
};

/// An integer (sub)expression.
pub(crate) type IFun = Box<dyn Fn(&mut Env<'_>) -> i64 + Send + Sync>;
/// A real (sub)expression.
pub(crate) type FFun = Box<dyn Fn(&mut Env<'_>) -> f64 + Send + Sync>;

/// A compiled expression of either type.
pub(crate) enum Fun {
    Int(IFun),
    Real(FFun),
}

impl Fun {
    #[inline]
    pub(super) fn num(&self, e: &mut Env<'_>) -> Num {
        match self {
            Fun::Int(f) => Num::Int(f(e)),
            Fun::Real(f) => Num::Real(f(e)),
        }
    }
}

/// Lowers a typed tree into one closure; faults it raises are recorded at location `loc`.
pub(crate) fn lower(n: Node, loc: u32) -> Fun {
    match n.ty() {
        Ty::Int => Fun::Int(int(n, loc)),
        Ty::Real => Fun::Real(real(n, loc)),
    }
}

fn rbin<A: FGet, B: FGet>(op: BinOp, a: A, b: B, loc: u32) -> FFun {
    match op {
        BinOp::Add => Box::new(move |e| {
            let x = a.get(e);
            x + b.get(e)
        }),
        BinOp::Sub => Box::new(move |e| {
            let x = a.get(e);
            x - b.get(e)
        }),
        BinOp::Mul => Box::new(move |e| {
            let x = a.get(e);
            x * b.get(e)
        }),
        _ => Box::new(move |e| {
            let x = a.get(e);
            let y = b.get(e);
            real_bin(op, x, y).unwrap_or_else(|k| fail(e, k, loc) as f64)
        }),
    }
}

fn rcmp<A: FGet, B: FGet>(op: BinOp, a: A, b: B) -> IFun {
    Box::new(move |e| {
        let x = a.get(e);
        compare_real(op, x, b.get(e))
    })
}

/// Runs `$body` with `$a` and `$b` bound to two real operands' inline forms.
macro_rules! real_op {
    ($x:expr, $y:expr, $a:ident, $b:ident => $body:expr) => {
        match $y {
            RealOperand::K(c) => {
                let $b = KF(c);
                with_real_operand!($x, $a => $body)
            }
            RealOperand::Dyn(f) => {
                let $b = DynF(f);
                with_real_operand!($x, $a => $body)
            }
            // A load on both sides is not worth its own instantiations: the right one is a call.
            RealOperand::Int(o) => {
                let $b = AsReal(Dyn(with_operand!(o, g => leaf(g))));
                with_real_operand!($x, $a => $body)
            }
        }
    };
}

fn leaf<G: Get>(g: G) -> IFun {
    Box::new(move |e| g.get(e))
}

/// An integer operator over two inline operands.
fn bin<A: Get, B: Get>(op: BinOp, a: A, b: B, loc: u32) -> IFun {
    macro_rules! checked {
        ($m:ident) => {
            Box::new(move |e| {
                let x = a.get(e);
                let y = b.get(e);
                match x.$m(y) {
                    Some(v) => v,
                    None => {
                        e.fault_at(FaultKind::Overflow(op, x, y), loc);
                        0
                    }
                }
            })
        };
    }
    macro_rules! compare {
        ($o:tt) => {
            Box::new(move |e| {
                let x = a.get(e);
                (x $o b.get(e)) as i64
            })
        };
    }
    match op {
        BinOp::Add => checked!(checked_add),
        BinOp::Sub => checked!(checked_sub),
        BinOp::Mul => checked!(checked_mul),
        BinOp::Eq => compare!(==),
        BinOp::Ne => compare!(!=),
        BinOp::Lt => compare!(<),
        BinOp::Le => compare!(<=),
        BinOp::Gt => compare!(>),
        BinOp::Ge => compare!(>=),
        BinOp::And | BinOp::Or => Box::new(move |e| {
            let x = a.get(e);
            compare_int(op, x, b.get(e))
        }),
        BinOp::FloorDiv | BinOp::Mod | BinOp::Div => Box::new(move |e| {
            let x = a.get(e);
            let y = b.get(e);
            match int_bin(op, x, y) {
                Ok(v) => v,
                Err(k) => {
                    e.fault_at(k, loc);
                    0
                }
            }
        }),
    }
}

/// An integer aggregate of one faction variable over the factions (`max_all(vp)`).
fn agg_load(kind: Agg, others: bool, base: usize, fs: usize, loc: u32) -> IFun {
    Box::new(move |e| {
        let outer = e.cx.bound as usize;
        let mut acc = IntAgg::new(kind);
        for f in 0..e.t.nfactions as usize {
            if others && f == outer {
                continue;
            }
            if let Err(k) = acc.step(e.st.vals[base + f * fs]) {
                e.fault_at(k, loc);
            }
        }
        acc.finish()
    })
}

/// Evaluates `args` left to right into a buffer on the stack and hands `k` the values; a
/// small buffer for the usual one to four arguments.
#[inline]
fn with_args<T: Copy + Default, R>(
    args: &[impl Fn(&mut Env<'_>) -> T],
    e: &mut Env<'_>,
    k: impl FnOnce(&mut Env<'_>, &[T]) -> R,
) -> R {
    if args.len() <= 4 {
        let mut v = [T::default(); 4];
        for (slot, a) in v.iter_mut().zip(args) {
            *slot = a(e);
        }
        k(e, &v[..args.len()])
    } else {
        // The compiler bounds a call's arguments by the stack depth.
        let mut v = [T::default(); super::STACK];
        for (slot, a) in v.iter_mut().zip(args) {
            *slot = a(e);
        }
        k(e, &v[..args.len().min(super::STACK)])
    }
}

/// A condition: true when non-zero, whatever its type.
fn truth(n: Node, loc: u32) -> Box<dyn Fn(&mut Env<'_>) -> bool + Send + Sync> {
    match lower(n, loc) {
        Fun::Int(f) => Box::new(move |e| f(e) != 0),
        Fun::Real(f) => Box::new(move |e| f(e) != 0.0),
    }
}

/// Records a fault and yields the integer 0.
#[cold]
fn fail(e: &mut Env<'_>, k: FaultKind, loc: u32) -> i64 {
    e.fault_at(k, loc);
    0
}

/// Lowers an integer node.
fn int(n: Node, loc: u32) -> IFun {
    debug_assert_eq!(n.ty(), Ty::Int);
    match n {
        Node::Int(c) => Box::new(move |_| c),
        Node::Real(_) => Box::new(|_| 0),
        Node::Load(base, fs, who, elem) => match operand(Node::Load(base, fs, who, elem), loc) {
            Operand::Dyn(f) => f,
            o => with_operand!(o, g => leaf(g)),
        },
        Node::LoadAt(base, fs, who, n, i) => {
            let i = int(*i, loc);
            Box::new(move |e| {
                let i = i(e);
                e.load_at(base, fs, who, n, i)
                    .unwrap_or_else(|k| fail(e, k, loc))
            })
        }
        Node::Leaf(op) => match op {
            Op::Round => Box::new(|e| e.st.round),
            Op::Age => Box::new(|e| e.st.age),
            Op::AgeRound => Box::new(|e| e.st.age_round),
            Op::NFactions => Box::new(|e| e.t.nfactions as i64),
            Op::Drawn => Box::new(|e| e.st.card().is_some() as i64),
            Op::Seat(Who::Bound) => Box::new(|e| e.cx.bound as i64 + 1),
            Op::Seat(Who::Me) => Box::new(|e| e.cx.me as i64 + 1),
            Op::Seat(Who::Target) => Box::new(|e| e.cx.target as i64 + 1),
            Op::Eliminated(Who::Bound) => Box::new(|e| ((e.st.out >> e.cx.bound) & 1) as i64),
            Op::Eliminated(Who::Target) => Box::new(|e| ((e.st.out >> e.cx.target) & 1) as i64),
            Op::Side(Who::Bound) => Box::new(|e| e.t.side[e.cx.bound as usize]),
            Op::Player(Who::Bound) => Box::new(|e| e.t.player[e.cx.bound as usize]),
            Op::CardAttr(a) => Box::new(move |e| match e.st.card() {
                Some(c) => e.t.card_attrs[c as usize * e.t.n_attrs + a as usize],
                None => 0,
            }),
            Op::DeckLeft(d) => Box::new(move |e| e.st.deck_left[d as usize] as i64),
            Op::Held(d) => {
                Box::new(move |e| e.count_owned(d, crate::state::held_by(e.cx.bound)) as i64)
            }
            Op::Completed(d) => {
                Box::new(move |e| e.count_owned(d, crate::state::completed_by(e.cx.bound)) as i64)
            }
            Op::Dice(1, s) => Box::new(move |e| e.rng.random_range(1..=s as u64) as i64),
            Op::Dice(n, s) => Box::new(move |e| tree::dice(n, s, &mut e.rng)),
            op => Box::new(move |e| tree::leaf(op, e)),
        },
        Node::Un(op, a) => match op {
            Op::Neg => {
                let a = int(*a, loc);
                Box::new(move |e| {
                    let x = a(e);
                    match x.checked_neg() {
                        Some(v) => v,
                        None => fail(e, FaultKind::Overflow(BinOp::Sub, 0, x), loc),
                    }
                })
            }
            Op::Not => {
                let a = truth(*a, loc);
                Box::new(move |e| !a(e) as i64)
            }
            Op::HasCompleted(d) => {
                let a = lower(*a, loc);
                Box::new(move |e| {
                    let id = match a.num(e) {
                        Num::Int(i) => i,
                        Num::Real(r) => r as i64,
                    };
                    tree::has_completed(e, d, id) as i64
                })
            }
            _ => {
                let a = truth(*a, loc);
                Box::new(move |e| a(e) as i64)
            }
        },
        Node::Bin(op, x, y) => {
            if x.ty() == Ty::Real || y.ty() == Ty::Real {
                // A comparison with a real operand.
                let (x, y) = (real_operand(*x, loc), real_operand(*y, loc));
                return real_op!(x, y, a, b => rcmp(op, a, b));
            }
            let (x, y) = (operand(*x, loc), operand(*y, loc));
            // Constants on the left are as common as on the right, but a load on both sides
            // of an operator is not worth its own instantiations.
            match y {
                Operand::K(c) => with_operand!(x, a => bin(op, a, K(c), loc)),
                Operand::Dyn(f) => with_operand!(x, a => bin(op, a, Dyn(f), loc)),
                y => {
                    let b = Dyn(with_operand!(y, g => leaf(g)));
                    with_operand!(x, a => bin(op, a, b, loc))
                }
            }
        }
        Node::If(c, t, f) => {
            let (c, t, f) = (truth(*c, loc), int(*t, loc), int(*f, loc));
            Box::new(move |e| if c(e) { t(e) } else { f(e) })
        }
        Node::Call(f @ (Func::Floor | Func::Ceil | Func::Round), mut args) => {
            match lower(args.swap_remove(0), loc) {
                Fun::Int(a) => a,
                Fun::Real(a) => Box::new(move |e| {
                    let x = a(e);
                    match round_fn(f, x) {
                        Ok(v) => v,
                        Err(k) => fail(e, k, loc),
                    }
                }),
            }
        }
        Node::Call(f, args) => {
            let args: Vec<IFun> = args.into_iter().map(|a| int(a, loc)).collect();
            Box::new(move |e| {
                let r = with_args(&args, e, |_, v| int_func(f, v));
                r.unwrap_or_else(|k| fail(e, k, loc))
            })
        }
        Node::Rand(RandFn::Bernoulli, args) if args.len() == 1 => {
            let p = real(args.into_iter().next().unwrap_or(Node::Int(0)), loc);
            Box::new(move |e| {
                let p = p(e);
                if (0.0..=1.0).contains(&p) {
                    e.rng.random_bool(p) as i64
                } else {
                    fail(e, FaultKind::Probability(p), loc)
                }
            })
        }
        Node::Rand(f, args) => {
            let r = rand(f, args, Ty::Int, loc);
            Box::new(move |e| match r(e) {
                Num::Int(i) => i,
                Num::Real(x) => x as i64,
            })
        }
        Node::AggF(kind, others, body) => {
            if kind != Agg::Count
                && let Node::Load(base, fs, Who::Bound, Elem::None) = *body
            {
                return agg_load(kind, others, base as usize, fs as usize, loc);
            }
            let body = int_or_truth(kind, *body, loc);
            Box::new(move |e| {
                let outer = e.cx.bound;
                let mut acc = IntAgg::new(kind);
                for f in 0..e.t.nfactions {
                    if others && f == outer {
                        continue;
                    }
                    e.cx.bound = f;
                    let v = body(e);
                    if let Err(k) = acc.step(v) {
                        e.fault_at(k, loc);
                    }
                }
                e.cx.bound = outer;
                acc.finish()
            })
        }
        Node::AggS(kind, n, body) => {
            let body = int_or_truth(kind, *body, loc);
            Box::new(move |e| {
                let outer = e.cx.elem;
                let mut acc = IntAgg::new(kind);
                for i in 0..n {
                    e.cx.elem = i;
                    let v = body(e);
                    if let Err(k) = acc.step(v) {
                        e.fault_at(k, loc);
                    }
                }
                e.cx.elem = outer;
                acc.finish()
            })
        }
    }
}

/// The body of an integer aggregate: its value, or for `count` of a real body, its truth.
fn int_or_truth(kind: Agg, body: Node, loc: u32) -> IFun {
    match (kind, lower(body, loc)) {
        (_, Fun::Int(f)) => f,
        (_, Fun::Real(f)) => Box::new(move |e| (f(e) != 0.0) as i64),
    }
}

/// A random draw of any type, its arguments evaluated left to right first.
fn rand(
    f: RandFn,
    args: Vec<Node>,
    ty: Ty,
    loc: u32,
) -> Box<dyn Fn(&mut Env<'_>) -> Num + Send + Sync> {
    let args: Vec<Fun> = args.into_iter().map(|a| lower(a, loc)).collect();
    let zero = match ty {
        Ty::Int => Num::Int(0),
        Ty::Real => Num::Real(0.0),
    };
    Box::new(move |e| {
        // A small buffer for the usual few arguments; the compiler bounds a call's
        // arguments by the stack depth.
        let mut small = [Num::Int(0); 4];
        let mut large;
        let v: &mut [Num] = if args.len() <= small.len() {
            &mut small[..args.len()]
        } else {
            large = [Num::Int(0); super::STACK];
            &mut large[..args.len().min(super::STACK)]
        };
        for (slot, a) in v.iter_mut().zip(&args) {
            *slot = a.num(e);
        }
        tree::rand_fn(f, v, ty, &mut e.rng).unwrap_or_else(|k| {
            e.fault_at(k, loc);
            zero
        })
    })
}

/// Lowers a node as a real: an integer node is computed as an integer and converted.
fn real(n: Node, loc: u32) -> FFun {
    if n.ty() == Ty::Int {
        let f = int(n, loc);
        return Box::new(move |e| f(e) as f64);
    }
    match n {
        Node::Real(c) => Box::new(move |_| c),
        Node::Un(_, a) => {
            // The only real unary operator is `-`.
            let a = real(*a, loc);
            Box::new(move |e| -a(e))
        }
        Node::Bin(op, x, y) => {
            let (x, y) = (real_operand(*x, loc), real_operand(*y, loc));
            real_op!(x, y, a, b => rbin(op, a, b, loc))
        }
        Node::If(c, t, f) => {
            let (c, t, f) = (truth(*c, loc), real(*t, loc), real(*f, loc));
            Box::new(move |e| if c(e) { t(e) } else { f(e) })
        }
        Node::Call(f, args) => {
            let args: Vec<FFun> = args.into_iter().map(|a| real(a, loc)).collect();
            Box::new(move |e| with_args(&args, e, |_, v| real_func(f, v)))
        }
        Node::Rand(RandFn::Random, args) if args.is_empty() => Box::new(|e| e.rng.random::<f64>()),
        Node::Rand(f, args) => {
            let r = rand(f, args, Ty::Real, loc);
            Box::new(move |e| r(e).real())
        }
        Node::AggF(kind, others, body) => {
            let body = real(*body, loc);
            Box::new(move |e| {
                let outer = e.cx.bound;
                let mut acc = real_agg_start(kind);
                for f in 0..e.t.nfactions {
                    if others && f == outer {
                        continue;
                    }
                    e.cx.bound = f;
                    acc = real_agg_step(kind, acc, body(e));
                }
                e.cx.bound = outer;
                real_agg_finish(acc)
            })
        }
        Node::AggS(kind, n, body) => {
            let body = real(*body, loc);
            Box::new(move |e| {
                let outer = e.cx.elem;
                let mut acc = real_agg_start(kind);
                for i in 0..n {
                    e.cx.elem = i;
                    acc = real_agg_step(kind, acc, body(e));
                }
                e.cx.elem = outer;
                real_agg_finish(acc)
            })
        }
        // Integer nodes returned above.
        _ => Box::new(|_| 0.0),
    }
}
