//! Lowering the operations of the formula language: constants, loads, builtins, unary and
//! binary operators (checked integer arithmetic, real arithmetic, comparisons), conditionals,
//! functions, random draws and aggregations over factions and set elements.

use super::*;

impl Lower<'_, '_> {
    pub(super) fn node(&mut self, n: &Node) -> V {
        let int = |v| V { v, ty: Ty::Int };
        match n {
            Node::Int(c) => int(self.int(*c)),
            Node::Real(c) => V {
                v: self.real(*c),
                ty: Ty::Real,
            },
            Node::Load(base, fs, who, elem) => int(self.load(*base, *fs, *who, *elem)),
            Node::Leaf(op) => int(self.leaf(*op)),
            Node::Un(op, a) => self.unary(*op, a),
            Node::Bin(op, a, b) => self.binary(*op, a, b, n.ty()),
            Node::If(c, t, f) => self.cond(c, t, f, n.ty()),
            Node::Call(f, args) => self.func(*f, args, n.ty()),
            Node::Rand(f, args) => self.rand(*f, args, n.ty()),
            Node::AggF(kind, others, body) => self.agg(*kind, Some(*others), 0, body, n.ty()),
            Node::AggS(kind, count, body) => self.agg(*kind, None, *count, body, n.ty()),
        }
    }

    /// The address of variable slot `idx`, computed at run time. The engine binds only
    /// factions and elements that exist, so the index is always in range; the check keeps
    /// every access inside the buffer whatever happens (slot 0 stands in).
    pub(super) fn slot_addr(&mut self, idx: Value) -> Value {
        let inside = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, idx, self.slots as i64);
        let zero = self.int(0);
        let idx = self.b.ins().select(inside, idx, zero);
        let off = self.b.ins().ishl_imm_u(idx, 3);
        self.b.ins().iadd(self.vals, off)
    }

    /// The address and offset of the slot of faction `who`'s element `e` of the variable at
    /// `base` with faction stride `fs`. A faction index is always a [`Lower::proven`] value,
    /// so when the last faction's slot is inside the buffer every faction's is, and the
    /// address needs no check of its own; otherwise it is checked like a bound element's.
    pub(super) fn slot(&mut self, base: u32, fs: u32, who: Who, e: u64) -> (Value, i32) {
        let last = self.t.nfactions.checked_sub(1).map(u64::from);
        let (base, fs) = (base as u64, fs as u64);
        match last {
            Some(l) if base + l * fs + e < self.slots => {
                let off = ((base + e) * 8) as i32;
                if fs == 0 {
                    return (self.vals, off);
                }
                let w = self.who(who);
                let row = self.b.ins().imul_imm_s(w, (fs * 8) as i64);
                (self.b.ins().iadd(self.vals, row), off)
            }
            _ => {
                let w = self.who(who);
                let idx = self.b.ins().imul_imm_s(w, fs as i64);
                let idx = self.b.ins().iadd_imm_s(idx, (base + e) as i64);
                (self.slot_addr(idx), 0)
            }
        }
    }

    pub(super) fn load(&mut self, base: u32, fs: u32, who: Who, elem: Elem) -> Value {
        if self.slots == 0 {
            return self.int(0);
        }
        let fixed_elem = match elem {
            Elem::None => Some(0u64),
            Elem::Fixed(i) => Some(i as u64),
            Elem::Bound => None,
        };
        let known = |k: usize| match self.known[k] {
            Some(Known::Const(c)) => Some(c as u64),
            _ => None,
        };
        let fixed_who = match who {
            Who::None => Some(0u64),
            Who::Fixed(f) => Some(f as u64),
            Who::Bound => known(BOUND),
            Who::Me => known(ME),
            Who::Target => known(TARGET),
        };
        let idx = match (fixed_who, fixed_elem) {
            (Some(f), Some(e)) if base as u64 + f * fs as u64 + e < self.slots => {
                let off = (base as u64 + f * fs as u64 + e) * 8;
                return self
                    .b
                    .ins()
                    .load(I64, MemFlagsData::trusted(), self.vals, off as i32);
            }
            (_, Some(e)) => {
                let (addr, off) = self.slot(base, fs, who, e);
                return self.b.ins().load(I64, MemFlagsData::trusted(), addr, off);
            }
            (_, None) => {
                if let (Some((e, count)), Some(last)) = (self.elem, self.t.nfactions.checked_sub(1))
                {
                    // The loop's own count, below the set's size: inside the buffer when
                    // the last faction's last element is.
                    let (base, fs) = (base as u64, fs as u64);
                    if base + last as u64 * fs + count as u64 - 1 < self.slots && count > 0 {
                        let w = self.who(who);
                        let row = self.b.ins().imul_imm_s(w, fs as i64);
                        let i = self.b.ins().iadd(row, e);
                        let at = self.b.ins().ishl_imm_u(i, 3);
                        let addr = self.b.ins().iadd(self.vals, at);
                        return self.b.ins().load(
                            I64,
                            MemFlagsData::trusted(),
                            addr,
                            (base * 8) as i32,
                        );
                    }
                }
                let w = self.who(who);
                let mut idx = self.b.ins().imul_imm_s(w, fs as i64);
                idx = self.b.ins().iadd_imm_s(idx, base as i64);
                let e = self.env_load(types::I16, Off::ELEM);
                let e = self.b.ins().uextend(I64, e);
                self.b.ins().iadd(idx, e)
            }
        };
        let addr = self.slot_addr(idx);
        self.b.ins().load(I64, MemFlagsData::trusted(), addr, 0)
    }

    pub(super) fn leaf(&mut self, op: Op) -> Value {
        let d = match op {
            Op::Round => return self.env_load(I64, Off::ROUND),
            Op::Age => return self.env_load(I64, Off::AGE),
            Op::AgeRound => return self.env_load(I64, Off::AGE_ROUND),
            Op::NFactions => return self.int(self.t.nfactions as i64),
            Op::Eliminated(w) => {
                let out = self.env_load(I32, Off::OUT);
                let out = self.b.ins().uextend(I64, out);
                let f = self.who(w);
                let s = self.b.ins().ushr(out, f);
                return self.b.ins().band_imm_s(s, 1);
            }
            Op::Seat(w) => {
                let f = self.who(w);
                return self.b.ins().iadd_imm_s(f, 1);
            }
            Op::Side(w) | Op::Player(w) => {
                let table = if matches!(op, Op::Side(_)) {
                    &self.t.side
                } else {
                    &self.t.player
                };
                if let Who::Fixed(f) = w
                    && let Some(&c) = table.get(f as usize)
                {
                    return self.int(c);
                }
                if table.len() == self.t.nfactions as usize
                    && table.len() <= UNROLL_FACTIONS as usize
                {
                    // A few factions: the table's entry by selects (the faction is proven
                    // below their number).
                    let f = self.who(w);
                    let mut v = self.int(0);
                    for (i, &c) in table.iter().enumerate() {
                        let here = self.b.ins().icmp_imm_s(IntCC::Equal, f, i as i64);
                        let cv = self.int(c);
                        v = self.b.ins().select(here, cv, v);
                    }
                    return v;
                }
                let f = self.who(w);
                let env = self.env;
                let fun = if matches!(op, Op::Side(_)) {
                    h::side as *const () as usize
                } else {
                    h::player as *const () as usize
                };
                return self.call_pure(fun, &[self.ptr, I64], &[env, f]);
            }
            Op::Dice(n, s) if (1..=4).contains(&n) && s >= 1 => return self.dice(n, s),
            Op::Dice(n, s) => {
                let (n, s) = (self.i32c(n), self.i32c(s));
                let env = self.env;
                return self.call(
                    h::dice as *const () as usize,
                    &[self.ptr, I32, I32],
                    Some(I64),
                    &[env, n, s],
                );
            }
            Op::Drawn => {
                let env = self.env;
                return self.call_pure(h::drawn as *const () as usize, &[self.ptr], &[env]);
            }
            Op::CardAttr(a) if self.attrs.is_some() => return self.card_attr(a),
            Op::CardAttr(a) => (h::card_attr as *const () as usize, a),
            Op::DeckLeft(x) => (h::deck_left as *const () as usize, x),
            Op::Held(x) => (h::held as *const () as usize, x),
            Op::Completed(x) => (h::completed as *const () as usize, x),
            _ => return self.int(0),
        };
        let a = self.i32c(d.1 as u32);
        let env = self.env;
        self.call_pure(d.0, &[self.ptr, I32], &[env, a])
    }

    /// `card.ATTR` inline, as [`h::card_attr`] reads it: attribute `a` of the current card
    /// from the model's table, 0 when there is no current card.
    fn card_attr(&mut self, a: u16) -> Value {
        let gv = self.attrs.expect("the attribute table is imported");
        let c = self.env_load(I32, Off::CARD);
        let c = self.b.ins().uextend(I64, c);
        let none = self
            .b
            .ins()
            .icmp_imm_s(IntCC::Equal, c, crate::state::NO_CARD as i64);
        // Card 0 stands in for "none" so that the load stays in the table.
        let zero = self.int(0);
        let c = self.b.ins().select(none, zero, c);
        let row = (self.t.n_attrs * 8) as i64;
        let off = self.b.ins().imul_imm_s(c, row);
        let base = self.b.ins().symbol_value(self.ptr, gv);
        let p = self.b.ins().iadd(base, off);
        let v = self.b.ins().load(
            I64,
            MemFlagsData::trusted().with_readonly(),
            p,
            a as i32 * 8,
        );
        self.b.ins().select(none, zero, v)
    }

    pub(super) fn unary(&mut self, op: Op, a: &Node) -> V {
        let x = self.node(a);
        let v = match (op, x.ty) {
            (Op::Neg, Ty::Int) => {
                let zero = self.int(0);
                return V {
                    v: self.checked(BinOp::Sub, zero, x.v),
                    ty: Ty::Int,
                };
            }
            (Op::Neg, Ty::Real) => {
                return V {
                    v: self.b.ins().fneg(x.v),
                    ty: Ty::Real,
                };
            }
            (Op::Not, _) => {
                let t = self.truth(x);
                let t = self.b.ins().bxor_imm_s(t, 1);
                self.bool_int(t)
            }
            (Op::HasCompleted(d), _) => {
                let id = match x.ty {
                    Ty::Int => x.v,
                    Ty::Real => self.b.ins().fcvt_to_sint_sat(I64, x.v),
                };
                // It records no fault.
                let d = self.i32c(d as u32);
                let env = self.env;
                self.call_pure(
                    h::has_completed as *const () as usize,
                    &[self.ptr, I32, I64],
                    &[env, d, id],
                )
            }
            _ => {
                let t = self.truth(x);
                self.bool_int(t)
            }
        };
        V { v, ty: Ty::Int }
    }

    /// `a op b` for `+ - *` with the overflow check; the overflow path calls the reference
    /// operation, which records the fault and yields 0.
    pub(super) fn checked(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let (r, over) = match op {
            BinOp::Add => self.b.ins().sadd_overflow(a, b),
            BinOp::Sub => self.b.ins().ssub_overflow(a, b),
            _ => self.b.ins().smul_overflow(a, b),
        };
        self.unless(over, r, I64, |l| l.int_helper(op, a, b))
    }

    /// `fast`, unless `bad` holds: then the value `slow` builds on a cold path (where a
    /// helper records the fault).
    pub(super) fn unless(
        &mut self,
        bad: Value,
        fast: Value,
        ty: Type,
        slow: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        let cold = self.b.create_block();
        let done = self.b.create_block();
        let out = self.b.append_block_param(done, ty);
        self.b.set_cold_block(cold);
        self.b
            .ins()
            .brif(bad, cold, &[], done, &[BlockArg::Value(fast)]);
        self.b.switch_to_block(cold);
        let v = slow(self);
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(done);
        out
    }

    /// `a op b` on reals through the reference operation (`/` by zero, `//`, `%`).
    pub(super) fn real_helper(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let (o, l) = (self.i32c(code_of(&BIN_OPS, op)), self.i32c(self.loc));
        let env = self.env;
        self.call(
            h::real_bin as *const () as usize,
            &[self.ptr, I32, F64, F64, I32],
            Some(F64),
            &[env, o, a, b, l],
        )
    }

    /// `a // b` or `a % b` on integers inline, as the reference computes them (the quotient
    /// floored; the remainder takes the divisor's sign); a divisor of 0 (a fault) or -1
    /// (whose quotient may overflow) goes to the reference on a cold path.
    fn int_divide(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let zero = self.b.ins().icmp_imm_s(IntCC::Equal, b, 0);
        let minus1 = self.b.ins().icmp_imm_s(IntCC::Equal, b, -1);
        let bad = self.b.ins().bor(zero, minus1);
        // A divisor that cannot trap, for the value the cold path replaces.
        let one = self.int(1);
        let d = self.b.ins().select(bad, one, b);
        let r = self.b.ins().srem(a, d);
        let inexact = self.b.ins().icmp_imm_s(IntCC::NotEqual, r, 0);
        // The signs of two nonzero integers differ when their exclusive or is negative.
        let (s, adjusted) = if op == BinOp::Mod {
            (r, self.b.ins().iadd(r, d))
        } else {
            let q = self.b.ins().sdiv(a, d);
            (q, self.b.ins().iadd_imm_s(q, -1))
        };
        let other = if op == BinOp::Mod { r } else { a };
        let x = self.b.ins().bxor(other, d);
        let differ = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, x, 0);
        let adjust = self.b.ins().band(inexact, differ);
        let v = self.b.ins().select(adjust, adjusted, s);
        self.unless(bad, v, I64, |l| l.int_helper(op, a, b))
    }

    pub(super) fn int_helper(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let (o, l) = (self.i32c(code_of(&BIN_OPS, op)), self.i32c(self.loc));
        let env = self.env;
        self.call(
            h::int_bin as *const () as usize,
            &[self.ptr, I32, I64, I64, I32],
            Some(I64),
            &[env, o, a, b, l],
        )
    }

    pub(super) fn binary(&mut self, op: BinOp, a: &Node, b: &Node, ty: Ty) -> V {
        let (x, y) = (self.node(a), self.node(b));
        let arith = matches!(
            op,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::Mod | BinOp::Div
        );
        if arith && ty == Ty::Int {
            let v = match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => self.checked(op, x.v, y.v),
                BinOp::FloorDiv | BinOp::Mod => self.int_divide(op, x.v, y.v),
                _ => self.int_helper(op, x.v, y.v),
            };
            return V { v, ty: Ty::Int };
        }
        if arith {
            let (p, q) = (self.as_real(x), self.as_real(y));
            let v = match op {
                BinOp::Add => self.b.ins().fadd(p, q),
                BinOp::Sub => self.b.ins().fsub(p, q),
                BinOp::Mul => self.b.ins().fmul(p, q),
                // `/` inline; a zero divisor goes to the reference, which records the fault.
                BinOp::Div => {
                    let z = self.real(0.0);
                    let zero = self.b.ins().fcmp(FloatCC::Equal, q, z);
                    let v = self.b.ins().fdiv(p, q);
                    self.unless(zero, v, F64, |l| l.real_helper(op, p, q))
                }
                _ => self.real_helper(op, p, q),
            };
            return V { v, ty: Ty::Real };
        }
        let c = match op {
            BinOp::And | BinOp::Or => {
                let (p, q) = (self.truth(x), self.truth(y));
                if op == BinOp::And {
                    self.b.ins().band(p, q)
                } else {
                    self.b.ins().bor(p, q)
                }
            }
            _ if x.ty == Ty::Int && y.ty == Ty::Int => {
                let cc = match op {
                    BinOp::Eq => IntCC::Equal,
                    BinOp::Ne => IntCC::NotEqual,
                    BinOp::Lt => IntCC::SignedLessThan,
                    BinOp::Le => IntCC::SignedLessThanOrEqual,
                    BinOp::Gt => IntCC::SignedGreaterThan,
                    _ => IntCC::SignedGreaterThanOrEqual,
                };
                self.b.ins().icmp(cc, x.v, y.v)
            }
            _ => {
                // Ordered comparisons are false on a NaN; `!=` (unordered or not equal) is
                // true, as `partial_cmp` gives.
                let cc = match op {
                    BinOp::Eq => FloatCC::Equal,
                    BinOp::Ne => FloatCC::NotEqual,
                    BinOp::Lt => FloatCC::LessThan,
                    BinOp::Le => FloatCC::LessThanOrEqual,
                    BinOp::Gt => FloatCC::GreaterThan,
                    _ => FloatCC::GreaterThanOrEqual,
                };
                let (p, q) = (self.as_real(x), self.as_real(y));
                self.b.ins().fcmp(cc, p, q)
            }
        };
        V {
            v: self.bool_int(c),
            ty: Ty::Int,
        }
    }

    pub(super) fn cond(&mut self, c: &Node, t: &Node, f: &Node, ty: Ty) -> V {
        let c = self.node(c);
        let c = self.truth(c);
        let (yes, no, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let out = self
            .b
            .append_block_param(done, if ty == Ty::Int { I64 } else { F64 });
        self.b.ins().brif(c, yes, &[], no, &[]);
        for (block, n) in [(yes, t), (no, f)] {
            self.b.switch_to_block(block);
            let v = self.node(n);
            let v = self.conv(v, ty);
            self.b.ins().jump(done, &[BlockArg::Value(v)]);
        }
        self.b.switch_to_block(done);
        V { v: out, ty }
    }

    pub(super) fn func(&mut self, f: Func, args: &[Node], ty: Ty) -> V {
        let vs: Vec<V> = args.iter().map(|a| self.node(a)).collect();
        if matches!(f, Func::Floor | Func::Ceil | Func::Round) {
            let x = vs[0];
            if x.ty == Ty::Int {
                return x;
            }
            let (k, l) = (self.i32c(code_of(&ROUND_FNS, f)), self.i32c(self.loc));
            let env = self.env;
            let v = self.call(
                h::round as *const () as usize,
                &[self.ptr, I32, F64, I32],
                Some(I64),
                &[env, k, x.v, l],
            );
            return V { v, ty: Ty::Int };
        }
        let v = if ty == Ty::Int {
            let a: Vec<Value> = vs.iter().map(|v| v.v).collect();
            match f {
                Func::Min => a[1..].iter().fold(a[0], |m, &x| self.b.ins().smin(m, x)),
                Func::Max => a[1..].iter().fold(a[0], |m, &x| self.b.ins().smax(m, x)),
                Func::Abs => {
                    let (env, l) = (self.env, self.i32c(self.loc));
                    self.call(
                        h::abs as *const () as usize,
                        &[self.ptr, I64, I32],
                        Some(I64),
                        &[env, a[0], l],
                    )
                }
                _ => {
                    let m = self.b.ins().smax(a[0], a[1]);
                    self.b.ins().smin(m, a[2])
                }
            }
        } else {
            let a: Vec<Value> = vs.iter().map(|&v| self.as_real(v)).collect();
            match f {
                Func::Min | Func::Max => {
                    let max = f == Func::Max;
                    let mut m = self.real(if max {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    });
                    for &x in &a {
                        m = self.fminmax(max, m, x);
                    }
                    m
                }
                Func::Abs => self.b.ins().fabs(a[0]),
                _ => {
                    let m = self.fminmax(true, a[0], a[1]);
                    self.fminmax(false, m, a[2])
                }
            }
        };
        V { v, ty }
    }

    /// `bernoulli(p)`, exactly as the reference draws it (`rand`'s `Bernoulli`): for `p` in
    /// [0, 1), one 64-bit word below `p * 2^64` (truncated) is a success. That common case
    /// runs inline with one call for the word; `p` of 1 (true without a draw) and the
    /// faulting cases call the reference helper.
    pub(super) fn bernoulli(&mut self, p: Value, loc: Value) -> Value {
        // 2^64, the scale `rand` uses.
        let scale = 2.0 * (1u64 << 63) as f64;
        if let Some(c) = self.const_real(p).filter(|c| (0.0..1.0).contains(c)) {
            // A constant probability: its bound is known here (`as` saturates as
            // `fcvt_to_uint_sat` does), so the draw is one compare.
            let bound = self.int((c * scale) as u64 as i64);
            let word = self.word();
            let hit = self.b.ins().icmp(IntCC::UnsignedLessThan, word, bound);
            return self.b.ins().uextend(I64, hit);
        }
        let env = self.env;
        let (draw, other, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(done, I64);
        let (zero, one) = (self.real(0.0), self.real(1.0));
        let lo = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, p, zero);
        let hi = self.b.ins().fcmp(FloatCC::LessThan, p, one);
        let inside = self.b.ins().band(lo, hi);
        self.b.ins().brif(inside, draw, &[], other, &[]);
        self.b.set_cold_block(other);
        self.b.switch_to_block(other);
        let v = self.call(
            h::bernoulli as *const () as usize,
            &[self.ptr, F64, I32],
            Some(I64),
            &[env, p, loc],
        );
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(draw);
        let scale = self.real(scale);
        let scaled = self.b.ins().fmul(p, scale);
        let bound = self.b.ins().fcvt_to_uint_sat(I64, scaled);
        let word = self.word();
        let hit = self.b.ins().icmp(IntCC::UnsignedLessThan, word, bound);
        let v = self.b.ins().uextend(I64, hit);
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// `NdS` for a few dice, inline, exactly as the reference throws them (`rand`'s
    /// `random_range(1..=S)` on `u64`, the widening-multiply method): each die is the high
    /// word of a 64-bit draw times `S`, plus one; when the low word falls in the biased
    /// zone (above `2^64 - S`), a second draw's high word decides whether it carries.
    pub(super) fn dice(&mut self, n: u32, s: u32) -> Value {
        let sv = self.int(s as i64);
        let zone = self.int((s as u64).wrapping_neg() as i64);
        let mut total = self.int(n as i64);
        for _ in 0..n {
            let w = self.word();
            let hi = self.b.ins().umulhi(w, sv);
            let lo = self.b.ins().imul(w, sv);
            let (again, done) = (self.b.create_block(), self.b.create_block());
            self.b.append_block_param(done, I64);
            let biased = self.b.ins().icmp(IntCC::UnsignedGreaterThan, lo, zone);
            self.b.set_cold_block(again);
            self.b
                .ins()
                .brif(biased, again, &[], done, &[BlockArg::Value(hi)]);
            self.b.switch_to_block(again);
            let w2 = self.word();
            let hi2 = self.b.ins().umulhi(w2, sv);
            let sum = self.b.ins().iadd(lo, hi2);
            let carry = self.b.ins().icmp(IntCC::UnsignedLessThan, sum, lo);
            let carry = self.b.ins().uextend(I64, carry);
            let up = self.b.ins().iadd(hi, carry);
            self.b.ins().jump(done, &[BlockArg::Value(up)]);
            self.b.switch_to_block(done);
            let die = self.b.block_params(done)[0];
            total = self.b.ins().iadd(total, die);
        }
        total
    }

    /// The value of `v` when the code makes it a real constant (an `f64const`).
    pub(super) fn const_real(&self, v: Value) -> Option<f64> {
        let dfg = &self.b.func.dfg;
        match dfg.insts[dfg.value_def(v).inst()?] {
            InstructionData::UnaryIeee64 {
                opcode: Opcode::F64const,
                imm,
            } => Some(f64::from_bits(imm.bits())),
            _ => None,
        }
    }

    /// The stream's next 64-bit draw (two words, the first low), as
    /// [`crate::rng::Rng`] makes it: read inline from the stream's buffer while two words
    /// are left in it, else by the helper that refills it.
    pub(super) fn word(&mut self) -> Value {
        let at = self.env_load(I64, Off::RNG_AT);
        let (fast, slow, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(done, I64);
        let two = self.b.ins().icmp_imm_u(
            IntCC::UnsignedLessThan,
            at,
            crate::rng::BUF_WORDS as i64 - 1,
        );
        self.b.set_cold_block(slow);
        self.b.ins().brif(two, fast, &[], slow, &[]);
        self.b.switch_to_block(slow);
        let env = self.env;
        let v = self.call_pure(h::word as *const () as usize, &[self.ptr], &[env]);
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(fast);
        // Words `at` and `at + 1` (`at` below 63: inside the buffer), one little-endian
        // load, aligned to a word only.
        let off = self.b.ins().ishl_imm_u(at, 2);
        let p = self.b.ins().iadd(env, off);
        let v = self
            .b
            .ins()
            .load(I64, MemFlagsData::new().with_notrap(), p, Off::RNG_BUF);
        let at2 = self.b.ins().iadd_imm_s(at, 2);
        self.env_store(at2, Off::RNG_AT);
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// `random()`: a uniform real in [0, 1) as `rand` makes it from one 64-bit draw (its
    /// top 53 bits times 2^-53).
    pub(super) fn unit(&mut self) -> Value {
        let w = self.word();
        let top = self.b.ins().ushr_imm_u(w, 11);
        let x = self.b.ins().fcvt_from_uint(F64, top);
        let scale = self.real(1.0 / (1u64 << 53) as f64);
        self.b.ins().fmul(x, scale)
    }

    pub(super) fn rand(&mut self, f: RandFn, args: &[Node], ty: Ty) -> V {
        let vs: Vec<V> = args.iter().map(|a| self.node(a)).collect();
        let env = self.env;
        let l = self.i32c(self.loc);
        match f {
            RandFn::Bernoulli if vs.len() == 1 => {
                let p = self.as_real(vs[0]);
                return V {
                    v: self.bernoulli(p, l),
                    ty: Ty::Int,
                };
            }
            RandFn::Uniform if vs.len() == 2 && vs.iter().all(|v| v.ty == Ty::Int) => {
                let v = self.call(
                    h::uniform as *const () as usize,
                    &[self.ptr, I64, I64, I32],
                    Some(I64),
                    &[env, vs[0].v, vs[1].v, l],
                );
                return V { v, ty: Ty::Int };
            }
            RandFn::Random => {
                let v = self.unit();
                return V { v, ty: Ty::Real };
            }
            _ => {}
        }
        let mut reals = 0u64;
        for (i, v) in vs.iter().enumerate() {
            if v.ty == Ty::Real {
                reals |= 1 << i;
            }
            self.b
                .ins()
                .store(MemFlagsData::trusted(), v.v, env, Off::ARGS + 8 * i as i32);
        }
        let fc = self.i32c(code_of(&RAND_FNS, f));
        let n = self.i32c(vs.len() as u32);
        let reals = self.int(reals as i64);
        let real = self.i32c((ty == Ty::Real) as u32);
        let bits = self.call(
            h::rand as *const () as usize,
            &[self.ptr, I32, I32, I64, I32, I32],
            Some(I64),
            &[env, fc, n, reals, real, l],
        );
        match ty {
            Ty::Int => V {
                v: bits,
                ty: Ty::Int,
            },
            Ty::Real => V {
                v: self.b.ins().bitcast(F64, MemFlagsData::new(), bits),
                ty: Ty::Real,
            },
        }
    }

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
            (Some(_), Some(f)) => self.b.ins().iconst(bty, f as i64),
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
                if others == Some(true) {
                    let fv = self.b.ins().iconst(types::I8, f as i64);
                    let skip = self.b.ins().icmp(IntCC::Equal, outer, fv);
                    let go = self.b.create_block();
                    self.b.ins().brif(skip, next, &[], go, &[]);
                    self.b.switch_to_block(go);
                }
                self.pending[BOUND] = Some(f);
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
                    let t = self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0);
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
    /// The larger (`max`) or smaller of two reals, exactly as the formula language's
    /// [`crate::expr::tree::fmax`] and `fmin` say: `b` when it is beyond `a` or `a` is NaN,
    /// else `a`.
    pub(super) fn fminmax(&mut self, max: bool, a: Value, b: Value) -> Value {
        let cc = if max {
            FloatCC::GreaterThan
        } else {
            FloatCC::LessThan
        };
        let beyond = self.b.ins().fcmp(cc, b, a);
        let nan = self.b.ins().fcmp(FloatCC::Unordered, a, a);
        let take = self.b.ins().bor(beyond, nan);
        self.b.ins().select(take, b, a)
    }

    pub(super) fn checked_sum(&mut self, a: Value, v: Value) -> Value {
        let (r, over) = self.b.ins().sadd_overflow(a, v);
        self.unless(over, r, I64, |l| {
            l.int_helper(BinOp::Add, a, v);
            a
        })
    }
}

/// Aggregations over at most this many factions are unrolled (when their body is small).
const UNROLL_FACTIONS: i64 = 8;

/// Whether `n` has at most `budget` nodes.
fn small(n: &Node, budget: &mut i32) -> bool {
    *budget -= 1;
    if *budget < 0 {
        return false;
    }
    match n {
        Node::Int(_) | Node::Real(_) | Node::Load(..) | Node::Leaf(_) => true,
        Node::Un(_, a) | Node::AggF(_, _, a) | Node::AggS(_, _, a) => small(a, budget),
        Node::Bin(_, a, b) => small(a, budget) && small(b, budget),
        Node::If(c, a, b) => small(c, budget) && small(a, budget) && small(b, budget),
        Node::Call(_, args) | Node::Rand(_, args) => args.iter().all(|a| small(a, budget)),
    }
}
