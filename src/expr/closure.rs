//! Closure compilation: the fast executable form of an [`Expr`](super::Expr).
//!
//! Owns the lowering of a stack program into a tree of nested closures, specialised for the
//! shapes scenarios use most: a variable of the bound, acting or target faction, a global, a
//! constant, and an operator over two of those, which then runs as one closure with no
//! dispatch and no value stack. Written by hand because no crate compiles a small expression
//! language to closures. The stack machine ([`super::exec`]) stays the reference semantics:
//! a property test holds the two to the same values and the same random draws.

use rand::RngExt;

use super::{Agg, BinOp, Elem, Env, FaultKind, Func, Op, RandFn, STACK, Who};

/// One compiled (sub)expression.
pub(crate) type Fun = Box<dyn Fn(&mut Env<'_>) -> f64 + Send + Sync>;

/// An expression tree, decoded from the structured stack program the compiler emits.
enum Node {
    Const(f64),
    Load(u32, u32, Who, Elem),
    /// An op that takes nothing from the stack.
    Leaf(Op),
    /// An op that replaces the top of the stack.
    Un(Op, Box<Node>),
    Bin(BinOp, Box<Node>, Box<Node>),
    If(Box<Node>, Box<Node>, Box<Node>),
    Call(Func, Vec<Node>),
    Rand(RandFn, Vec<Node>),
    AggF(Agg, bool, Box<Node>),
    AggS(Agg, u16, Box<Node>),
}

/// Lowers a program (as [`super::Compiler`] emits it) into one closure; faults it raises are
/// recorded at source location `loc`.
pub(crate) fn lower(code: &[Op], loc: u32) -> Fun {
    build(single(code, 0, code.len()), loc)
}

fn pop(stack: &mut Vec<Node>) -> Node {
    // The compiler checks every program's stack depth, so an operand is always there.
    stack.pop().unwrap_or(Node::Const(0.0))
}

/// The body of the aggregation at `pc`: the `len` instructions after it, as one node.
fn body(code: &[Op], pc: usize, len: u32) -> Box<Node> {
    let body = &code[pc + 1..pc + 1 + len as usize];
    Box::new(single(body, 0, body.len()))
}

/// The one value `code[from..to]` leaves (0 for an empty range, like the machine).
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
            Op::Const(v) => out.push(Node::Const(v)),
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
                out.push(fold_un(op, a));
            }
            Op::Bin(b) => {
                let y = pop(out);
                let x = pop(out);
                out.push(fold_bin(b, x, y));
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

fn fold_un(op: Op, a: Node) -> Node {
    match (op, &a) {
        (Op::Neg, Node::Const(c)) => Node::Const(-c),
        (Op::Not, Node::Const(c)) => Node::Const(1.0 - super::truth(*c)),
        (Op::Bool, Node::Const(c)) => Node::Const(super::truth(*c)),
        _ => Node::Un(op, Box::new(a)),
    }
}

fn fold_bin(op: BinOp, x: Node, y: Node) -> Node {
    if let (Node::Const(a), Node::Const(b)) = (&x, &y)
        && let Some(v) = super::arith(op, *a, *b)
    {
        return Node::Const(v);
    }
    Node::Bin(op, Box::new(x), Box::new(y))
}

/// A value read without a call: the leaves that operators take inline.
trait Get: Send + Sync + 'static {
    fn get(&self, e: &mut Env<'_>) -> f64;
}

struct K(f64);
impl Get for K {
    #[inline(always)]
    fn get(&self, _: &mut Env<'_>) -> f64 {
        self.0
    }
}

/// A slot fixed at compile time (a global, or a named faction's variable).
struct Slot(usize);
impl Get for Slot {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> f64 {
        e.st.vals[self.0] as f64
    }
}

/// The bound faction's variable: `base + bound * stride`.
struct Bound(usize, usize);
impl Get for Bound {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> f64 {
        e.st.vals[self.0 + e.cx.bound as usize * self.1] as f64
    }
}

/// The acting faction's variable.
struct Me(usize, usize);
impl Get for Me {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> f64 {
        e.st.vals[self.0 + e.cx.me as usize * self.1] as f64
    }
}

/// The target faction's variable.
struct Target(usize, usize);
impl Get for Target {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> f64 {
        e.st.vals[self.0 + e.cx.target as usize * self.1] as f64
    }
}

/// Anything else: a call into the subtree's closure.
struct Dyn(Fun);
impl Get for Dyn {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> f64 {
        (self.0)(e)
    }
}

/// The inline form of a node, when it has one.
enum Operand {
    K(f64),
    Slot(usize),
    Bound(usize, usize),
    Me(usize, usize),
    Target(usize, usize),
    Dyn(Fun),
}

fn operand(n: Node, loc: u32) -> Operand {
    match n {
        Node::Const(c) => Operand::K(c),
        Node::Load(base, fs, who, elem) => {
            let (base, fs) = (base as usize, fs as usize);
            let e = match elem {
                Elem::None => 0,
                Elem::Fixed(i) => i as usize,
                Elem::Bound => {
                    return Operand::Dyn(Box::new(move |e| {
                        e.load(base as u32, fs as u32, who, elem)
                    }));
                }
            };
            match who {
                Who::None => Operand::Slot(base + e),
                Who::Fixed(f) => Operand::Slot(base + f as usize * fs + e),
                Who::Bound => Operand::Bound(base + e, fs),
                Who::Me => Operand::Me(base + e, fs),
                Who::Target => Operand::Target(base + e, fs),
            }
        }
        other => Operand::Dyn(build(other, loc)),
    }
}

/// Runs `$body` with `$g` bound to the operand's inline form.
macro_rules! with_operand {
    ($o:expr, $g:ident => $body:expr) => {
        match $o {
            Operand::K(c) => {
                let $g = K(c);
                $body
            }
            Operand::Slot(s) => {
                let $g = Slot(s);
                $body
            }
            Operand::Bound(b, s) => {
                let $g = Bound(b, s);
                $body
            }
            Operand::Me(b, s) => {
                let $g = Me(b, s);
                $body
            }
            Operand::Target(b, s) => {
                let $g = Target(b, s);
                $body
            }
            Operand::Dyn(f) => {
                let $g = Dyn(f);
                $body
            }
        }
    };
}

fn leaf<G: Get>(g: G) -> Fun {
    Box::new(move |e| g.get(e))
}

fn bin<A: Get, B: Get>(op: BinOp, a: A, b: B, loc: u32) -> Fun {
    use super::truth;
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
        BinOp::Eq => Box::new(move |e| {
            let x = a.get(e);
            (x == b.get(e)) as u8 as f64
        }),
        BinOp::Ne => Box::new(move |e| {
            let x = a.get(e);
            (x != b.get(e)) as u8 as f64
        }),
        BinOp::Lt => Box::new(move |e| {
            let x = a.get(e);
            (x < b.get(e)) as u8 as f64
        }),
        BinOp::Le => Box::new(move |e| {
            let x = a.get(e);
            (x <= b.get(e)) as u8 as f64
        }),
        BinOp::Gt => Box::new(move |e| {
            let x = a.get(e);
            (x > b.get(e)) as u8 as f64
        }),
        BinOp::Ge => Box::new(move |e| {
            let x = a.get(e);
            (x >= b.get(e)) as u8 as f64
        }),
        // `and`/`or` arrive as `if`; these two only appear in hand-built programs.
        BinOp::And => Box::new(move |e| {
            let x = a.get(e);
            truth(x) * truth(b.get(e))
        }),
        BinOp::Or => Box::new(move |e| {
            let x = a.get(e);
            ((x != 0.0) || (b.get(e) != 0.0)) as u8 as f64
        }),
        BinOp::Div | BinOp::FloorDiv | BinOp::Mod => Box::new(move |e| {
            let x = a.get(e);
            let y = b.get(e);
            if y == 0.0 {
                return e.fault_at(FaultKind::DivisionByZero(x), loc);
            }
            match op {
                BinOp::Div => x / y,
                BinOp::FloorDiv => (x / y).floor(),
                _ => x - y * (x / y).floor(),
            }
        }),
    }
}

fn agg_load(kind: Agg, others: bool, base: usize, fs: usize) -> Fun {
    use super::{agg_finish, agg_start, agg_step};
    Box::new(move |e| {
        let outer = e.cx.bound as usize;
        let mut acc = agg_start(kind);
        for f in 0..e.t.nfactions as usize {
            if others && f == outer {
                continue;
            }
            acc = agg_step(kind, acc, e.st.vals[base + f * fs] as f64);
        }
        agg_finish(acc)
    })
}

/// Evaluates `args` left to right into a buffer on the stack and hands `k` the values; a
/// small buffer for the usual one to four arguments, so most calls clear 32 bytes, not 512.
#[inline]
fn with_args(args: &[Fun], e: &mut Env<'_>, k: impl FnOnce(&mut Env<'_>, &[f64]) -> f64) -> f64 {
    fn fill<const N: usize>(args: &[Fun], e: &mut Env<'_>) -> [f64; N] {
        let mut v = [0.0f64; N];
        for (slot, a) in v.iter_mut().zip(args) {
            *slot = a(e);
        }
        v
    }
    if args.len() <= 4 {
        let v = fill::<4>(args, e);
        k(e, &v[..args.len()])
    } else {
        let v = fill::<STACK>(args, e);
        k(e, &v[..args.len()])
    }
}

fn build(n: Node, loc: u32) -> Fun {
    use super::{agg_finish, agg_start, agg_step, func, rand_fn, truth};
    match n {
        Node::Const(c) => Box::new(move |_| c),
        Node::Load(base, fs, who, elem) => match operand(Node::Load(base, fs, who, elem), loc) {
            Operand::Dyn(f) => f,
            o => with_operand!(o, g => leaf(g)),
        },
        Node::Leaf(op) => match op {
            Op::Round => Box::new(|e| e.st.round as f64),
            Op::Age => Box::new(|e| e.st.age as f64),
            Op::NFactions => Box::new(|e| e.t.nfactions as f64),
            Op::AgeRound => Box::new(|e| e.st.age_round as f64),
            Op::Eliminated(w) => Box::new(move |e| ((e.st.out >> e.who(w)) & 1) as f64),
            Op::Seat(w) => Box::new(move |e| (e.who(w) + 1) as f64),
            Op::Side(w) => Box::new(move |e| e.t.side[e.who(w)] as f64),
            Op::Player(w) => Box::new(move |e| e.t.player[e.who(w)] as f64),
            Op::Drawn => Box::new(|e| e.st.card.is_some() as u8 as f64),
            Op::CardAttr(a) => Box::new(move |e| match e.st.card {
                Some(c) => e.t.card_attrs[c as usize * e.t.n_attrs + a as usize] as f64,
                None => 0.0,
            }),
            Op::DeckLeft(d) => Box::new(move |e| e.st.deck_left[d as usize] as f64),
            Op::Held(d) => {
                Box::new(move |e| e.count_owned(d, crate::state::held_by(e.cx.bound)) as f64)
            }
            Op::Completed(d) => {
                Box::new(move |e| e.count_owned(d, crate::state::completed_by(e.cx.bound)) as f64)
            }
            Op::Dice(n, s) => Box::new(move |e| {
                let mut t = 0u64;
                for _ in 0..n {
                    t += e.rng.random_range(1..=s as u64);
                }
                t as f64
            }),
            // Every other op takes operands and never decodes to a leaf.
            _ => Box::new(|_| 0.0),
        },
        Node::Un(op, a) => {
            let a = build(*a, loc);
            match op {
                Op::Neg => Box::new(move |e| -a(e)),
                Op::Not => Box::new(move |e| 1.0 - truth(a(e))),
                Op::Bool => Box::new(move |e| truth(a(e))),
                Op::HasCompleted(d) => Box::new(move |e| {
                    let id = a(e) as i64;
                    let code = crate::state::completed_by(e.cx.bound);
                    let t = e.t;
                    t.deck_cards(d).any(|c| {
                        e.st.owner[c] == code
                            && t.id_attr
                                .is_some_and(|at| t.card_attrs[c * t.n_attrs + at as usize] == id)
                    }) as u8 as f64
                }),
                _ => a,
            }
        }
        Node::Bin(op, x, y) => {
            let (x, y) = (operand(*x, loc), operand(*y, loc));
            // Constants on the left are as common as on the right (`0.04 * skill`), but a
            // load on both sides of an operator is not worth its own instantiations.
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
            let (c, t, f) = (build(*c, loc), build(*t, loc), build(*f, loc));
            Box::new(move |e| if c(e) != 0.0 { t(e) } else { f(e) })
        }
        Node::Call(Func::Clamp, args) if args.len() == 3 => {
            let mut it = args.into_iter().map(|a| build(a, loc));
            let (x, lo, hi) = (it.next().unwrap(), it.next().unwrap(), it.next().unwrap());
            Box::new(move |e| {
                let v = x(e);
                let l = lo(e);
                v.max(l).min(hi(e))
            })
        }
        Node::Call(f, args) => {
            let args: Vec<Fun> = args.into_iter().map(|a| build(a, loc)).collect();
            Box::new(move |e| with_args(&args, e, |_, v| func(f, v)))
        }
        Node::Rand(RandFn::Bernoulli, args) if args.len() == 1 => {
            let p = build(args.into_iter().next().unwrap(), loc);
            Box::new(move |e| {
                let p = p(e);
                if (0.0..=1.0).contains(&p) {
                    e.rng.random_bool(p) as u8 as f64
                } else {
                    e.fault_at(FaultKind::Probability(p), loc)
                }
            })
        }
        Node::Rand(RandFn::Random, args) if args.is_empty() => Box::new(|e| e.rng.random::<f64>()),
        Node::Rand(f, args) => {
            let args: Vec<Fun> = args.into_iter().map(|a| build(a, loc)).collect();
            Box::new(move |e| {
                with_args(&args, e, |e, v| match rand_fn(f, v, &mut e.rng) {
                    Ok(x) => x,
                    Err(kind) => e.fault_at(kind, loc),
                })
            })
        }
        Node::AggF(kind, others, body) => {
            if let Node::Load(base, fs, Who::Bound, Elem::None) = *body {
                return agg_load(kind, others, base as usize, fs as usize);
            }
            let body = build(*body, loc);
            Box::new(move |e| {
                let outer = e.cx.bound;
                let mut acc = agg_start(kind);
                for f in 0..e.t.nfactions {
                    if others && f == outer {
                        continue;
                    }
                    e.cx.bound = f;
                    acc = agg_step(kind, acc, body(e));
                }
                e.cx.bound = outer;
                agg_finish(acc)
            })
        }
        Node::AggS(kind, n, body) => {
            let body = build(*body, loc);
            Box::new(move |e| {
                let outer = e.cx.elem;
                let mut acc = agg_start(kind);
                for i in 0..n {
                    e.cx.elem = i;
                    acc = agg_step(kind, acc, body(e));
                }
                e.cx.elem = outer;
                agg_finish(acc)
            })
        }
    }
}
