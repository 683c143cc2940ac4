//! The inline operands of the closures: the leaves an operator reads without a call (a
//! constant, a slot, a variable of the bound, acting or target faction, or any other
//! formula as a call), and the macros that bind an operator's body to each shape, so that
//! the commonest formulas run as one closure with no dispatch.

use super::{FFun, IFun, int, real};
use crate::expr::tree::Node;
use crate::expr::{Elem, Env, Who};

/// An integer read without a call: the leaves that operators take inline.
pub(super) trait Get: Send + Sync + 'static {
    fn get(&self, e: &mut Env<'_>) -> i64;
}

pub(super) struct K(pub(super) i64);
impl Get for K {
    #[inline(always)]
    fn get(&self, _: &mut Env<'_>) -> i64 {
        self.0
    }
}

/// A slot fixed at compile time (a global, or a named faction's variable).
pub(super) struct Slot(pub(super) usize);
impl Get for Slot {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> i64 {
        e.st.vals[self.0]
    }
}

/// The bound faction's variable: `base + bound * stride`.
pub(super) struct Bound(pub(super) usize, pub(super) usize);
impl Get for Bound {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> i64 {
        e.st.vals[self.0 + e.cx.bound as usize * self.1]
    }
}

/// The acting faction's variable.
pub(super) struct Me(pub(super) usize, pub(super) usize);
impl Get for Me {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> i64 {
        e.st.vals[self.0 + e.cx.me as usize * self.1]
    }
}

/// The target faction's variable.
pub(super) struct Target(pub(super) usize, pub(super) usize);
impl Get for Target {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> i64 {
        e.st.vals[self.0 + e.cx.target as usize * self.1]
    }
}

/// Anything else: a call into the subtree's closure.
pub(super) struct Dyn(pub(super) IFun);
impl Get for Dyn {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> i64 {
        (self.0)(e)
    }
}

/// The inline form of an integer node, when it has one.
pub(super) enum Operand {
    K(i64),
    Slot(usize),
    Bound(usize, usize),
    Me(usize, usize),
    Target(usize, usize),
    Dyn(IFun),
}

pub(super) fn operand(n: Node, loc: u32) -> Operand {
    match n {
        Node::Int(c) => Operand::K(c),
        Node::Load(base, fs, who, elem) => {
            let (base, fs) = (base as usize, fs as usize);
            let e = match elem {
                Elem::None => 0,
                Elem::Fixed(i) => i as usize,
                // The element bound by a set aggregate.
                Elem::Bound => {
                    return Operand::Dyn(match who {
                        Who::None => Box::new(move |e| e.st.vals[base + e.cx.elem as usize]),
                        Who::Fixed(f) => {
                            let b = base + f as usize * fs;
                            Box::new(move |e| e.st.vals[b + e.cx.elem as usize])
                        }
                        Who::Bound => Box::new(move |e| {
                            e.st.vals[base + e.cx.bound as usize * fs + e.cx.elem as usize]
                        }),
                        _ => Box::new(move |e| e.load(base as u32, fs as u32, who, elem)),
                    });
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
        other => Operand::Dyn(int(other, loc)),
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

/// A real read without a call.
pub(super) trait FGet: Send + Sync + 'static {
    fn get(&self, e: &mut Env<'_>) -> f64;
}

pub(super) struct KF(pub(super) f64);
impl FGet for KF {
    #[inline(always)]
    fn get(&self, _: &mut Env<'_>) -> f64 {
        self.0
    }
}

pub(super) struct DynF(pub(super) FFun);
impl FGet for DynF {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> f64 {
        (self.0)(e)
    }
}

/// An integer operand read as a real.
pub(super) struct AsReal<G>(pub(super) G);
impl<G: Get> FGet for AsReal<G> {
    #[inline(always)]
    fn get(&self, e: &mut Env<'_>) -> f64 {
        self.0.get(e) as f64
    }
}

/// The inline form of an operand of a real operator.
pub(super) enum RealOperand {
    K(f64),
    Int(Operand),
    Dyn(FFun),
}

pub(super) fn real_operand(n: Node, loc: u32) -> RealOperand {
    match n {
        Node::Real(c) => RealOperand::K(c),
        Node::Int(c) => RealOperand::K(c as f64),
        n @ Node::Load(..) => RealOperand::Int(operand(n, loc)),
        n => RealOperand::Dyn(real(n, loc)),
    }
}

/// Runs `$body` with `$g` bound to the real operand's inline form.
macro_rules! with_real_operand {
    ($o:expr, $g:ident => $body:expr) => {
        match $o {
            RealOperand::K(c) => {
                let $g = KF(c);
                $body
            }
            RealOperand::Dyn(f) => {
                let $g = DynF(f);
                $body
            }
            RealOperand::Int(o) => with_operand!(o, i => {
                let $g = AsReal(i);
                $body
            }),
        }
    };
}
