//! Compiled expressions and statements, and how expressions run.
//!
//! Owns the executable form of every formula in a scenario: an [`Expr`] is a flat slice of
//! [`Op`]s over indexed state slots (no names, no allocation while it runs), decoded into a
//! typed tree ([`tree`]: integers are exact and checked, reals are `f64`; the tree walker
//! there is the reference semantics) and, in games, run as the specialised closures the
//! `closure` module lowers the tree into. What a formula sees while it runs is the
//! environment ([`Env`], in `env`); a [`Stmt`] (in `stmt`) is an effect built from
//! expressions. Parsing lives in [`parse`], name resolution and code generation in
//! [`compile`]; the engine decides when statements run.

mod closure;
pub mod compile;
pub mod parse;
mod stmt;
pub mod tree;

use crate::state::{State, Tables};

pub use crate::ir::{
    Agg, AssignOp, BinOp, Elem, Func, Num, Op, OutcomeKind, RandFn, STACK, TiePolicy, Ty, Who,
};
pub use crate::runtime::{Ctx, Env, Fault, FaultKind, slot};
pub(crate) use stmt::simple_assign;
pub use stmt::{AssignAt, Award, LValue, NativeRun, Race, Regions, Stmt, Title};

/// A compiled expression: the stack program (shown by `validate`), its static type, and its
/// closure form, which is what runs.
pub struct Expr {
    code: Box<[Op]>,
    ty: Ty,
    konst: Option<Num>,
    fun: closure::Fun,
    /// The machine-code form, when the native engine compiled the model.
    native: Option<crate::runtime::abi::Formula>,
    /// Source location index (for faults and traces).
    pub loc: u32,
}

impl Clone for Expr {
    /// Closures cannot be cloned; the copy lowers the same program again (models are cloned
    /// only while compiling, never per game).
    fn clone(&self) -> Self {
        Expr {
            native: self.native.clone(),
            ..Expr::new(self.code.to_vec(), self.loc)
        }
    }
}

impl std::fmt::Debug for Expr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expr")
            .field("code", &self.code)
            .field("ty", &self.ty)
            .field("konst", &self.konst)
            .field("loc", &self.loc)
            .finish()
    }
}

impl Expr {
    /// An expression from code; folds it when it reads neither state nor randomness.
    pub fn new(code: Vec<Op>, loc: u32) -> Expr {
        let node = tree::decode_program(&code);
        let ty = node.ty();
        let konst = if code.iter().all(is_pure) {
            const_eval(&node)
        } else {
            None
        };
        let fun = match konst {
            Some(Num::Int(c)) => closure::Fun::Int(Box::new(move |_| c)),
            Some(Num::Real(c)) => closure::Fun::Real(Box::new(move |_| c)),
            None => closure::lower(node, loc),
        };
        Expr {
            code: code.into_boxed_slice(),
            ty,
            konst,
            fun,
            native: None,
            loc,
        }
    }

    /// Whether the expression runs as machine code.
    pub fn is_native(&self) -> bool {
        self.native.is_some()
    }

    /// Installs the machine-code form (the native engine's).
    pub(crate) fn set_native(&mut self, f: crate::runtime::abi::Formula) {
        self.native = Some(f);
    }

    /// The typed tree (what the native engine lowers).
    pub(crate) fn tree(&self) -> tree::Node {
        tree::decode_program(&self.code)
    }

    /// A real constant expression.
    pub fn constant(v: f64) -> Expr {
        Expr::new(vec![Op::Const(v)], 0)
    }

    /// An integer constant expression.
    pub fn int(v: i64) -> Expr {
        Expr::new(vec![Op::Int(v)], 0)
    }

    /// The value as a real when it is a compile-time constant.
    pub fn as_const(&self) -> Option<f64> {
        self.konst.map(Num::real)
    }

    /// The value when it is a compile-time constant.
    pub fn as_const_num(&self) -> Option<Num> {
        self.konst
    }

    /// The static type.
    pub fn ty(&self) -> Ty {
        self.ty
    }

    /// The variable this formula is when it is nothing but the bound faction's own variable
    /// (`vp`, say): its base slot and faction stride, for callers that read it straight from
    /// the state.
    pub fn own_var(&self) -> Option<(u32, u32)> {
        match self.code() {
            [
                Op::Load {
                    base,
                    fstride,
                    who: Who::Bound,
                    elem: Elem::None,
                },
            ] => Some((*base, *fstride)),
            _ => None,
        }
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

    /// Evaluates the expression; a fault is recorded in `env` and the value is 0.
    #[inline]
    pub fn eval_num(&self, env: &mut Env<'_>) -> Num {
        if let Some(n) = &self.native {
            return self.native_num(n, env);
        }
        self.fun.num(env)
    }

    /// Runs the machine-code form and types its bits.
    #[inline(always)]
    fn native_num(&self, n: &crate::runtime::abi::Formula, env: &mut Env<'_>) -> Num {
        let bits = n.call(env);
        match self.ty {
            Ty::Int => Num::Int(bits as i64),
            Ty::Real => Num::Real(f64::from_bits(bits)),
        }
    }

    /// Evaluates the expression as a real (an integer is converted).
    #[inline]
    pub fn eval(&self, env: &mut Env<'_>) -> f64 {
        if let Some(n) = &self.native {
            return self.native_num(n, env).real();
        }
        match &self.fun {
            closure::Fun::Int(f) => f(env) as f64,
            closure::Fun::Real(f) => f(env),
        }
    }

    /// Evaluates the expression as a condition: true when non-zero.
    #[inline]
    pub fn truth(&self, env: &mut Env<'_>) -> bool {
        if let Some(n) = &self.native {
            return self.native_num(n, env).truth();
        }
        match &self.fun {
            closure::Fun::Int(f) => f(env) != 0,
            closure::Fun::Real(f) => f(env) != 0.0,
        }
    }

    /// Evaluates the expression with the reference tree walker (tests hold
    /// [`Expr::eval_num`] to it).
    pub fn eval_reference(&self, env: &mut Env<'_>) -> Num {
        tree::eval(&tree::decode_program(&self.code), env, self.loc)
    }
}

fn is_pure(op: &Op) -> bool {
    matches!(
        op,
        Op::Const(_)
            | Op::Int(_)
            | Op::Neg
            | Op::Not
            | Op::Bool
            | Op::Bin(_)
            | Op::JumpIfFalse(_)
            | Op::Jump(_)
            | Op::Call(..)
    )
}

/// The value of a program that reads no state, unless it faults (the fault then happens, and
/// is reported, when a game runs it).
fn const_eval(node: &tree::Node) -> Option<Num> {
    let t = Tables::default();
    let mut env = Env::new(State::empty(), &t, crate::rng::game_rng(0, 0));
    let v = tree::eval(node, &mut env, 0);
    if env.cx.fault.is_some() {
        None
    } else {
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(code: Vec<Op>) -> Num {
        let st = State {
            vals: vec![3, 5, 7],
            round: 2,
            age: 1,
            age_round: 1,
            out: 0,
            card: crate::state::NO_CARD,
            deck_left: vec![],
            pool: vec![],
            owner: vec![],
            owned: vec![],
            hands: vec![],
            known: vec![],
        };
        let t = Tables {
            nfactions: 3,
            side: vec![0; 3],
            player: vec![1; 3],
            ..Tables::default()
        };
        let mut env = Env::new(st, &t, crate::rng::game_rng(1, 1));
        let e = Expr::new(code, 0);
        let fast = e.eval_num(&mut env);
        assert_eq!(fast, e.eval_reference(&mut env));
        fast
    }

    #[test]
    fn arithmetic_and_aggregates() {
        assert_eq!(
            run(vec![Op::Const(2.0), Op::Const(3.0), Op::Bin(BinOp::Mul)]),
            Num::Real(6.0)
        );
        assert_eq!(
            run(vec![Op::Int(-7), Op::Int(2), Op::Bin(BinOp::FloorDiv)]),
            Num::Int(-4)
        );
        assert_eq!(
            run(vec![Op::Int(-7), Op::Int(3), Op::Bin(BinOp::Mod)]),
            Num::Int(2)
        );
        assert_eq!(
            run(vec![Op::Int(7), Op::Int(-3), Op::Bin(BinOp::Mod)]),
            Num::Int(-2)
        );
        assert_eq!(
            run(vec![
                Op::Const(-7.0),
                Op::Const(2.0),
                Op::Bin(BinOp::FloorDiv)
            ]),
            Num::Real(-4.0)
        );
        assert_eq!(
            run(vec![Op::Const(-7.0), Op::Const(3.0), Op::Bin(BinOp::Mod)]),
            Num::Real(2.0)
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
            Num::Int(7)
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
            Num::Int(12)
        );
    }

    #[test]
    fn integers_are_exact_and_overflow_is_a_fault() {
        assert_eq!(
            run(vec![Op::Int(9_007_199_254_740_993)]),
            Num::Int(9_007_199_254_740_993)
        );
        let t = Tables::default();
        let mut env = Env::new(State::empty(), &t, crate::rng::game_rng(1, 1));
        // Round is 0 in an empty state: 0 + MAX fits; MAX + (0 + 1) does not.
        let e = Expr::new(vec![Op::Round, Op::Int(i64::MAX), Op::Bin(BinOp::Add)], 4);
        assert_eq!(e.ty(), Ty::Int);
        assert_eq!(e.eval_num(&mut env), Num::Int(i64::MAX));
        assert!(env.cx.fault.is_none());
        let e = Expr::new(
            vec![
                Op::Int(i64::MAX),
                Op::Round,
                Op::Int(1),
                Op::Bin(BinOp::Add),
                Op::Bin(BinOp::Add),
            ],
            5,
        );
        e.eval_num(&mut env);
        let f = env.cx.take_fault().unwrap();
        assert_eq!(
            (f.loc, f.kind),
            (5, FaultKind::Overflow(BinOp::Add, i64::MAX, 1))
        );
        let e = Expr::new(vec![Op::Round, Op::Round, Op::Bin(BinOp::Mod)], 6);
        e.eval_num(&mut env);
        assert_eq!(
            env.cx.take_fault().unwrap().kind,
            FaultKind::DivisionByZero(Num::Int(0))
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
