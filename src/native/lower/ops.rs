//! Lowering the operations of the formula language: constants, loads, builtins, unary and
//! binary operators (checked integer arithmetic, real arithmetic, comparisons), conditionals
//! and functions. Random draws are in `draws`, aggregations in `aggs`.

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
            Node::LoadAt(base, fs, who, n, i) => int(self.load_at(*base, *fs, *who, *n, i)),
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
                let bit = self.b.ins().band_imm_s(s, 1);
                // 0 or 1: its truth is the bit itself.
                let t = self.b.ins().ireduce(types::I8, bit);
                self.bools.insert(bit, t);
                return bit;
            }
            Op::Seat(w) => {
                let f = self.who(w);
                return self.b.ins().iadd_imm_s(f, 1);
            }
            Op::TableSeat(w) => {
                let f = self.who(w);
                if !self.t.rotate_seats {
                    return self.b.ins().iadd_imm_s(f, 1);
                }
                // `env.seating.of[f]`.
                let at = self.b.ins().iadd(self.env, f);
                let s = self
                    .b
                    .ins()
                    .uload8(I64, MemFlagsData::trusted(), at, Off::SEAT_OF);
                return self.b.ins().iadd_imm_s(s, 1);
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
                    && table.len() <= aggs::UNROLL_FACTIONS as usize
                {
                    // A few factions: the table's entry by selects (the faction is proven
                    // below their number).
                    let f = self.who(w);
                    return self.entry(table, f);
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
            Op::Dice(n, s) if (1..=draws::INLINE_DICE).contains(&n) && s >= 1 => {
                return self.dice(n, s);
            }
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
            Op::Held(d) => return self.owned(d, crate::state::held_by(0)),
            Op::Completed(d) => return self.owned(d, crate::state::completed_by(0)),
            _ => return self.int(0),
        };
        let a = self.i32c(d.1 as u32);
        let env = self.env;
        self.call_pure(d.0, &[self.ptr, I32], &[env, a])
    }

    /// `held(deck)` (`code0` is `held_by(0)`) or `completed(deck)` (`completed_by(0)`) for
    /// the bound faction, as `Env::count_owned` answers it: the kept count of the deck's
    /// cards with the faction's owner code, read inline ([`h::owned_counts`]).
    fn owned(&mut self, d: u16, code0: u8) -> Value {
        let f = self.who(Who::Bound);
        // `owned_slot(d, code0 + f)`: hands before completed piles, `MAX_FACTIONS` each.
        let first = crate::state::owned_slot(d as usize, code0).expect("a faction's code");
        let counts = self.call_ptr(h::owned_counts as *const () as usize);
        let at = self.b.ins().iadd_imm_s(f, first as i64);
        let at = self.b.ins().ishl_imm_u(at, 2);
        let p = self.b.ins().iadd(counts, at);
        self.b.ins().uload32(MemFlagsData::trusted(), p, 0)
    }

    /// `card.ATTR` inline, as [`h::card_attr`] reads it: attribute `a` of the current card
    /// from the model's table, 0 when there is no current card. The table ends with a row
    /// of zeros ([`crate::native`]'s `attr_table`) that every index past the cards, and so
    /// [`crate::state::NO_CARD`], is clamped to: one `umin`, with no test of its own.
    fn card_attr(&mut self, a: u16) -> Value {
        let gv = self.attrs.expect("the attribute table is imported");
        let c = self.env_load(I32, Off::CARD);
        let c = self.b.ins().uextend(I64, c);
        let cards = (self.t.card_attrs.len() / self.t.n_attrs.max(1)) as i64;
        let last = self.int(cards);
        let c = self.b.ins().umin(c, last);
        let row = (self.t.n_attrs * 8) as i64;
        let off = self.b.ins().imul_imm_s(c, row);
        let base = self.b.ins().symbol_value(self.ptr, gv);
        let p = self.b.ins().iadd(base, off);
        self.b.ins().load(
            I64,
            MemFlagsData::trusted().with_readonly(),
            p,
            a as i32 * 8,
        )
    }

    /// `has_completed(deck, id)` inline for a deck whose ids name one card each, as
    /// [`h::has_completed`] answers it: the card `table` gives for `id` (none out of its
    /// range), then whether the bound faction completed it. An `i64` 0 or 1.
    fn has_completed(&mut self, table: super::IdTable, id: Value) -> Value {
        let gv = self.attrs.expect("the card data is imported");
        // `id - lo` as unsigned is below `len` exactly when `id` is in the table (as
        // `Tables::cards_with_id` reads it); any other id reads the last entry, -1.
        let k = self.b.ins().iadd_imm_s(id, table.lo.wrapping_neg());
        let len = self.int(table.len as i64);
        let k = self.b.ins().umin(k, len);
        let off = self.b.ins().ishl_imm_u(k, 3);
        let base = self.b.ins().symbol_value(self.ptr, gv);
        let p = self.b.ins().iadd(base, off);
        let flags = MemFlagsData::trusted().with_readonly();
        let card = self.b.ins().load(I64, flags, p, table.at);
        let some = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, card, 0);
        // Card 0's owner is read for no card, so that the load stays in the buffer.
        let zero = self.int(0);
        let c = self.b.ins().select(some, card, zero);
        let owners = self.call_ptr(h::owners as *const () as usize);
        let p = self.b.ins().iadd(owners, c);
        let owner = self.b.ins().uload8(I64, MemFlagsData::trusted(), p, 0);
        let f = self.who(Who::Bound);
        let code = self
            .b
            .ins()
            .iadd_imm_s(f, crate::state::completed_by(0) as i64);
        let mine = self.b.ins().icmp(IntCC::Equal, owner, code);
        let yes = self.b.ins().band(mine, some);
        self.bool_int(yes)
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
                match self.ids.get(d as usize).copied().flatten() {
                    Some(table) => self.has_completed(table, id),
                    None => {
                        // It records no fault.
                        let d = self.i32c(d as u32);
                        let env = self.env;
                        self.call_pure(
                            h::has_completed as *const () as usize,
                            &[self.ptr, I32, I64],
                            &[env, d, id],
                        )
                    }
                }
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
        self.unless_fault(over, r, I64, |l| l.int_helper(op, a, b))
    }

    /// `fast`, unless `bad` holds: then the value `slow` builds on a cold, rare path
    /// ([`Lower::rarely`]), where a helper may record a fault.
    pub(super) fn unless(
        &mut self,
        bad: Value,
        fast: Value,
        ty: Type,
        slow: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        let (done, out) = self.branch_cold(bad, fast, ty);
        let v = self.rarely(slow);
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(done);
        out
    }

    /// [`Lower::unless`] where `slow` surely records a fault: inside a statement's formula
    /// the cold path then returns [`FAULTED`](super::FAULTED) at once, and what follows
    /// needs no check of the fault flag for it ([`Lower::fault_or_join`]).
    pub(super) fn unless_fault(
        &mut self,
        bad: Value,
        fast: Value,
        ty: Type,
        slow: impl FnOnce(&mut Self) -> Value,
    ) -> Value {
        let faulty = self.faulty;
        let (done, out) = self.branch_cold(bad, fast, ty);
        let v = self.rarely(slow);
        self.fault_or_join(faulty, 0, done, v);
        self.b.switch_to_block(done);
        out
    }

    /// Goes on with `fast` to a new block (returned, with its parameter of type `ty`)
    /// unless `bad` holds, and switches to the cold block taken when it does.
    fn branch_cold(&mut self, bad: Value, fast: Value, ty: Type) -> (Block, Value) {
        let cold = self.b.create_block();
        let done = self.b.create_block();
        let out = self.b.append_block_param(done, ty);
        self.b.set_cold_block(cold);
        self.b
            .ins()
            .brif(bad, cold, &[], done, &[BlockArg::Value(fast)]);
        self.b.switch_to_block(cold);
        (done, out)
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
                // A constant divisor other than 0 (or NaN) needs no test. A power of two
                // whose reciprocal is normal divides as a product by that reciprocal: both
                // are the correctly rounded value of the same real, so they are equal.
                BinOp::Div if let Some(c) = constant(b).filter(|&c| c != 0.0 && !c.is_nan()) => {
                    match exact_reciprocal(c) {
                        Some(r) => {
                            let r = self.real(r);
                            self.b.ins().fmul(p, r)
                        }
                        None => self.b.ins().fdiv(p, q),
                    }
                }
                // `/` inline; a zero divisor goes to the reference, which records the fault.
                BinOp::Div => {
                    let z = self.real(0.0);
                    let zero = self.b.ins().fcmp(FloatCC::Equal, q, z);
                    let v = self.b.ins().fdiv(p, q);
                    self.unless_fault(zero, v, F64, |l| l.real_helper(op, p, q))
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
                Func::Row | Func::Col | Func::Cell => self.grid(f, &a),
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

    /// The larger (`max`) or smaller of two reals, exactly as the formula language's
    /// [`crate::expr::tree::ops::fmax`] and `fmin` say: `b` when it is beyond `a` or `a` is
    /// NaN, else `a`.
    pub(super) fn fminmax(&mut self, max: bool, a: Value, b: Value) -> Value {
        if self.const_real(b).is_some_and(|c| !c.is_nan()) {
            // `b` is no NaN, so "beyond, or `a` is NaN" is one unordered compare.
            let cc = if max {
                FloatCC::UnorderedOrGreaterThan
            } else {
                FloatCC::UnorderedOrLessThan
            };
            let take = self.b.ins().fcmp(cc, b, a);
            return self.b.ins().select(take, b, a);
        }
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
}

/// The value of a constant node as a real (an integer converted as the division converts
/// it), or `None` for any other node.
fn constant(n: &Node) -> Option<f64> {
    match *n {
        Node::Real(c) => Some(c),
        Node::Int(c) => Some(c as f64),
        _ => None,
    }
}

/// The reciprocal of `c` when `c` is a power of two and its reciprocal is normal: then
/// `x * (1 / c)` is `x / c` bit for bit, as both are the same real correctly rounded.
fn exact_reciprocal(c: f64) -> Option<f64> {
    let r = 1.0 / c;
    (c.is_normal() && r.is_normal() && c.to_bits() << 12 == 0).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::exact_reciprocal;
    use proptest::prelude::*;

    proptest! {
        /// The rewrite of `x / c` for a power of two `c` with a normal reciprocal: the
        /// product by the reciprocal is the same real, bit for bit, for any `x` (subnormal
        /// and overflowing results included).
        #[test]
        fn dividing_by_a_power_of_two_is_multiplying_by_its_reciprocal(
            x in prop_oneof![any::<f64>(), -1e-300f64..1e-300, Just(f64::MAX), Just(5e-324)],
            k in -1022i32..=1022,
            negative in any::<bool>(),
        ) {
            let c = if negative { -(2f64.powi(k)) } else { 2f64.powi(k) };
            let r = exact_reciprocal(c);
            prop_assume!(r.is_some());
            let r = r.unwrap_or(1.0);
            let (q, p) = (x / c, x * r);
            prop_assert!(q.to_bits() == p.to_bits() || (q.is_nan() && p.is_nan()), "{x} / {c}");
        }
    }
}
