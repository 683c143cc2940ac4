//! Lowering aggregations over the factions and over a set's elements (`sum_all`,
//! `max_all`, `count_all`, `sum_in`, ...): unrolled for a few factions with small bodies,
//! a loop otherwise, each member's binding pending until something reads it.

use super::*;

impl Lower<'_, '_> {
    /// An aggregation over the factions (`others` is `Some`) or over the `count` elements of
    /// a set: the binding is saved, set to each member in turn and restored.
    pub(super) fn agg(
        &mut self,
        kind: Agg,
        others: Option<bool>,
        count: u16,
        body: &Node,
        ty: Ty,
    ) -> V {
        let (off, bty, n) = match others {
            Some(_) => (Off::BOUND, types::I8, self.t.nfactions as i64),
            None => (Off::ELEM, types::I16, count as i64),
        };
        // The binding outside: a pending one is known here without a read.
        let outer = match (others, self.pending[BOUND]) {
            (Some(_), Some(v)) => v,
            _ => self.env_load(bty, off),
        };
        let known = self.known[BOUND];
        let (pending, flushed) = (self.pending[BOUND], self.flushed[BOUND]);
        let int = ty == Ty::Int || kind == Agg::Count;
        let acc_ty = if int { I64 } else { F64 };
        let start = if int {
            self.int(0)
        } else {
            self.real(match kind {
                Agg::Max => f64::NEG_INFINITY,
                Agg::Min => f64::INFINITY,
                _ => 0.0,
            })
        };
        let acc = self.b.declare_var(acc_ty);
        let seen = self.b.declare_var(I64);
        self.b.def_var(acc, start);
        let zero = self.int(0);
        self.b.def_var(seen, zero);
        // Whether the environment's binding changed here: it is restored on exit.
        let stored;
        if others.is_some() && n <= UNROLL_FACTIONS && small(body, &mut 24) {
            // A few factions and a small body: one copy per faction, each with its faction
            // known (its loads at fixed slots), in seat order as the loop would run them.
            // Each member's faction is pending: stored only if something reads it.
            self.flushed[BOUND] = false;
            for f in 0..n as u8 {
                let next = self.b.create_block();
                let fv = self.b.ins().iconst(types::I8, f as i64);
                if others == Some(true) {
                    let skip = self.b.ins().icmp(IntCC::Equal, outer, fv);
                    let go = self.b.create_block();
                    self.b.ins().brif(skip, next, &[], go, &[]);
                    self.b.switch_to_block(go);
                }
                self.pending[BOUND] = Some(fv);
                self.known[BOUND] = Some(Known::Const(f));
                self.agg_member(kind, int, acc, seen, body, known);
                self.b.ins().jump(next, &[]);
                self.b.switch_to_block(next);
            }
            stored = self.flushed[BOUND];
        } else {
            // Each member's binding is stored as the loop binds it.
            if others.is_some() {
                self.pending[BOUND] = None;
            }
            stored = true;
            let i = self.b.declare_var(I64);
            self.b.def_var(i, zero);
            let (head, member, next, exit) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            self.b.ins().jump(head, &[]);
            self.b.switch_to_block(head);
            let iv = self.b.use_var(i);
            let more = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, iv, n);
            self.b.ins().brif(more, member, &[], exit, &[]);

            self.b.switch_to_block(member);
            let iv = self.b.use_var(i);
            if others == Some(true) {
                let o = self.b.ins().uextend(I64, outer);
                let skip = self.b.ins().icmp(IntCC::Equal, iv, o);
                let go = self.b.create_block();
                self.b.ins().brif(skip, next, &[], go, &[]);
                self.b.switch_to_block(go);
            }
            let narrow = self.b.ins().ireduce(bty, iv);
            self.env_store(narrow, off);
            let elem = self.elem;
            if others.is_some() {
                self.known[BOUND] = Some(Known::Val(iv));
            } else {
                self.elem = Some((iv, count));
            }
            self.agg_member(kind, int, acc, seen, body, known);
            self.elem = elem;
            self.b.ins().jump(next, &[]);

            self.b.switch_to_block(next);
            let iv = self.b.use_var(i);
            let iv = self.b.ins().iadd_imm_s(iv, 1);
            self.b.def_var(i, iv);
            self.b.ins().jump(head, &[]);
            self.b.switch_to_block(exit);
        }
        if others.is_none() {
            self.env_store(outer, off);
        } else {
            self.pending[BOUND] = pending;
            if stored {
                self.env_store(outer, off);
            }
            // Memory now holds the outer binding: a pending one counts as stored.
            self.flushed[BOUND] = flushed || (stored && pending.is_some());
        }
        self.known[BOUND] = known;
        let a = self.b.use_var(acc);
        if int {
            return V { v: a, ty: Ty::Int };
        }
        // An aggregate over nothing is 0, not infinity.
        let mag = self.b.ins().fabs(a);
        let inf = self.real(f64::INFINITY);
        let finite = self.b.ins().fcmp(FloatCC::LessThan, mag, inf);
        let z = self.real(0.0);
        V {
            v: self.b.ins().select(finite, a, z),
            ty: Ty::Real,
        }
    }

    /// One member of an aggregation (bound already): its value, folded into `acc`; `seen`
    /// set. `known` is the bound faction outside the aggregation, restored after the body.
    pub(super) fn agg_member(
        &mut self,
        kind: Agg,
        int: bool,
        acc: Variable,
        seen: Variable,
        body: &Node,
        known: Option<Known>,
    ) {
        let v = self.node(body);
        self.known[BOUND] = known;
        let a = self.b.use_var(acc);
        let new = if int {
            let v = match v.ty {
                Ty::Int => v.v,
                Ty::Real => {
                    let t = self.truth(v);
                    self.bool_int(t)
                }
            };
            match kind {
                Agg::Sum => self.checked_sum(a, v),
                Agg::Count => {
                    let t = self.truth(V { v, ty: Ty::Int });
                    let t = self.bool_int(t);
                    self.b.ins().iadd(a, t)
                }
                Agg::Max | Agg::Min => {
                    let m = if kind == Agg::Max {
                        self.b.ins().smax(a, v)
                    } else {
                        self.b.ins().smin(a, v)
                    };
                    let s = self.b.use_var(seen);
                    let s = self.b.ins().icmp_imm_s(IntCC::NotEqual, s, 0);
                    self.b.ins().select(s, m, v)
                }
            }
        } else {
            let v = self.as_real(v);
            match kind {
                Agg::Max => self.fminmax(true, a, v),
                Agg::Min => self.fminmax(false, a, v),
                _ => self.b.ins().fadd(a, v),
            }
        };
        self.b.def_var(acc, new);
        let one = self.int(1);
        self.b.def_var(seen, one);
    }

    /// `acc + v` for a sum; on overflow the fault is recorded and the sum keeps `acc`, as
    /// the reference aggregate does.
    pub(super) fn checked_sum(&mut self, a: Value, v: Value) -> Value {
        let (r, over) = self.b.ins().sadd_overflow(a, v);
        self.unless_fault(over, r, I64, |l| {
            l.int_helper(BinOp::Add, a, v);
            a
        })
    }
}

/// Aggregations over at most this many factions are unrolled (when their body is small).
pub(super) const UNROLL_FACTIONS: i64 = 8;

/// Whether `n` has at most `budget` nodes.
fn small(n: &Node, budget: &mut i32) -> bool {
    *budget -= 1;
    if *budget < 0 {
        return false;
    }
    match n {
        Node::Int(_) | Node::Real(_) | Node::Load(..) | Node::Leaf(_) => true,
        Node::Un(_, a) | Node::LoadAt(.., a) => small(a, budget),
        // A body holding an aggregate is not unrolled: unrolled inside one another, nested
        // aggregates would make code of factions^depth copies (14 deep, 16,384 copies and
        // gigabytes for Cranelift); only the innermost one is.
        Node::AggF(..) | Node::AggS(..) => false,
        Node::Bin(_, a, b) => small(a, budget) && small(b, budget),
        Node::If(c, a, b) => small(c, budget) && small(a, budget) && small(b, budget),
        Node::Call(_, args) | Node::Rand(_, args) => args.iter().all(|a| small(a, budget)),
    }
}
