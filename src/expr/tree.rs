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
//! folds constants. Both call the operation functions of `ops` (re-exported here), so an
//! operation has one definition.

mod ops;

use super::{Agg, BinOp, Elem, Env, FaultKind, Func, Op, RandFn, Who};
pub use crate::ir::{Num, Ty};
pub use crate::state::MAX_DICE;
pub(crate) use ops::{
    IntAgg, compare_int, compare_real, dice, has_completed, int_bin, int_func, leaf, rand_fn,
    real_agg_finish, real_agg_start, real_agg_step, real_bin, real_func, round_fn, to_int,
};

/// An expression tree, decoded from the structured stack program the compiler emits.
#[derive(Debug, Clone)]
pub(crate) enum Node {
    Int(i64),
    Real(f64),
    Load(u32, u32, Who, Elem),
    /// A computed subscript: base, faction stride, whose, the set's size and the position.
    LoadAt(u32, u32, Who, u16, Box<Node>),
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
    /// How many random draws evaluating the node may make, counting each draw of the
    /// formula once, and any draw an aggregation repeats as two (so 1 means one draw, made
    /// once at most).
    pub(crate) fn draw_sites(&self) -> u32 {
        let sum = |ns: &[Node]| ns.iter().map(Node::draw_sites).fold(0, u32::saturating_add);
        match self {
            Node::Int(_) | Node::Real(_) | Node::Load(..) => 0,
            Node::Leaf(op) => matches!(op, Op::Dice(..)) as u32,
            Node::LoadAt(.., a) | Node::Un(_, a) => a.draw_sites(),
            Node::Bin(_, a, b) => a.draw_sites().saturating_add(b.draw_sites()),
            Node::If(c, t, f) => c
                .draw_sites()
                .saturating_add(t.draw_sites())
                .saturating_add(f.draw_sites()),
            Node::Call(_, args) => sum(args),
            Node::Rand(_, args) => sum(args).saturating_add(1),
            Node::AggF(.., body) | Node::AggS(.., body) => body.draw_sites().saturating_mul(2),
        }
    }

    /// The static type of the node's value.
    pub(crate) fn ty(&self) -> Ty {
        match self {
            Node::Real(_) => Ty::Real,
            Node::Int(_) | Node::Load(..) | Node::LoadAt(..) | Node::Leaf(_) => Ty::Int,
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

/// Decodes the one value `code[from..to]` leaves (jumps in it are absolute positions in
/// `code`), for the compiler to type a part of the program it is emitting.
pub(crate) fn decode_range(code: &[Op], from: usize, to: usize) -> Node {
    single(code, from, to)
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
            Op::LoadAt {
                base,
                fstride,
                who,
                n,
            } => {
                let i = pop(out);
                out.push(Node::LoadAt(base, fstride, who, n, Box::new(i)));
            }
            Op::Round
            | Op::Age
            | Op::NFactions
            | Op::AgeRound
            | Op::Eliminated(_)
            | Op::Seat(_)
            | Op::TableSeat(_)
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
        Node::LoadAt(base, fs, who, n, i) => {
            // The compiler makes every position an integer.
            let i = match eval(i, e, loc) {
                Num::Int(i) => i,
                Num::Real(r) => r as i64,
            };
            ok(e.load_at(*base, *fs, *who, *n, i).map(Num::Int), e)
        }
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
