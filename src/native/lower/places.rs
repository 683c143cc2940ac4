//! Lowering the statements that place factions against each other: rank awards, titles,
//! completion races and `order` (with the sort of factions by keys that turn order shares).

use super::*;
use crate::expr::{Award, Race, TiePolicy, Title};

impl Lower<'_, '_> {
    /// `award lv by metric scale ... ties policy` (no tie-break chain), as the engine's
    /// `award` and [`crate::engine::rank_awards`] run it: every faction's metric is read
    /// first, in seat order, with that faction bound; each faction's place is the number of
    /// metrics above its own, and the number tied with it (its own included) says how it
    /// shares: alone it earns its place's entry of the scale (0 past the end); tied, `split`
    /// divides the sum of the tied places' entries evenly, rounding down (an empty tie,
    /// which only a NaN makes, earns 0), `high` pays the best tied place, `low` the worst
    /// (0 for an empty tie) and `zero` nothing (an empty tie its place). Then every faction's `lv` gains its amount
    /// (stored, clamped and credited as an assignment), and the variable's immediate end
    /// conditions are noted as pending if any value changed. With `min K` (read after the
    /// metrics, with the outer binding), only the factions whose metric is at least K take
    /// places, ranked among themselves; the others gain 0.
    /// `scale` is the award's scale, every entry a constant (the caller lowers no other).
    pub(super) fn award(&mut self, a: &Award, scale: &[i64], next: Block) {
        let Award {
            lv,
            metric,
            min,
            ties,
            source,
            ..
        } = a;
        let (min, ties, source) = (min.as_ref(), *ties, *source);
        let n = self.t.nfactions;
        let outer = self.env_load(types::I8, Off::BOUND);
        let known = self.known[BOUND];
        let mut keys = Vec::with_capacity(n as usize);
        let mut real = metric.ty() == Ty::Real;
        for f in 0..n {
            let skip = self.b.create_block();
            self.bind_each(f, None, skip);
            let x = self.value(metric);
            real = x.ty == Ty::Real;
            keys.push(x.v);
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
        }
        // With `min K`, each faction's eligibility: whether its metric is at least K.
        let eligible: Option<Vec<Value>> = min.map(|k| {
            self.env_store(outer, Off::BOUND);
            self.known[BOUND] = known;
            let floor = self.value(k);
            let ty = if real { Ty::Real } else { Ty::Int };
            (keys.iter())
                .map(|&v| self.at_least(V { v, ty }, floor))
                .collect()
        });
        let at = |l: &mut Self, p: Value| l.entry(scale, p);
        // The sum of the scale's entries before place `p`, as the engine sums them
        // (wrapping; a difference of two sums is the sum between them).
        let before = |l: &mut Self, p: Value| {
            let mut v = l.int(0);
            let mut sum = 0i64;
            for (i, &s) in scale.iter().enumerate() {
                sum = sum.wrapping_add(s);
                let past =
                    l.b.ins()
                        .icmp_imm_s(IntCC::UnsignedGreaterThan, p, i as i64);
                let sv = l.int(sum);
                v = l.b.ins().select(past, sv, v);
            }
            v
        };
        let mut amounts = Vec::with_capacity(n as usize);
        for (i, &k) in keys.iter().enumerate() {
            let (mut above, mut tied) = (self.int(0), self.int(0));
            // A faction below K is below every faction at least K (or NaN, equal to
            // nothing): counting it above or tied changes no eligible faction's place.
            for &m in &keys {
                let (gt, eq) = if real {
                    (
                        self.b.ins().fcmp(FloatCC::GreaterThan, m, k),
                        self.b.ins().fcmp(FloatCC::Equal, m, k),
                    )
                } else {
                    (
                        self.b.ins().icmp(IntCC::SignedGreaterThan, m, k),
                        self.b.ins().icmp(IntCC::Equal, m, k),
                    )
                };
                let gt = self.b.ins().uextend(I64, gt);
                let eq = self.b.ins().uextend(I64, eq);
                above = self.b.ins().iadd(above, gt);
                tied = self.b.ins().iadd(tied, eq);
            }
            let alone = self.b.ins().icmp_imm_s(IntCC::Equal, tied, 1);
            let place = at(self, above);
            let zero = self.int(0);
            let shared = match ties {
                TiePolicy::Split | TiePolicy::SplitTowardZero => {
                    let end = self.b.ins().iadd(above, tied);
                    let hi = before(self, end);
                    let lo = before(self, above);
                    let sum = self.b.ins().isub(hi, lo);
                    let one = self.int(1);
                    let d = self.b.ins().smax(tied, one);
                    // Truncation; for Euclidean division by a positive divisor (down), one
                    // lower when the remainder is negative.
                    let q = self.b.ins().sdiv(sum, d);
                    if ties == TiePolicy::SplitTowardZero {
                        q
                    } else {
                        let r = self.b.ins().srem(sum, d);
                        let neg = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, r, 0);
                        let neg = self.b.ins().uextend(I64, neg);
                        self.b.ins().isub(q, neg)
                    }
                }
                TiePolicy::High => place,
                TiePolicy::Low => {
                    let end = self.b.ins().iadd(above, tied);
                    let last = self.b.ins().iadd_imm_s(end, -1);
                    let v = at(self, last);
                    let empty = self.b.ins().icmp_imm_s(IntCC::Equal, end, 0);
                    self.b.ins().select(empty, zero, v)
                }
                TiePolicy::Zero => {
                    let many = self.b.ins().icmp_imm_s(IntCC::SignedGreaterThan, tied, 1);
                    self.b.ins().select(many, zero, place)
                }
            };
            let amount = self.b.ins().select(alone, place, shared);
            amounts.push(match &eligible {
                Some(e) => self.b.ins().select(e[i], amount, zero),
                None => amount,
            });
        }
        self.loc = metric.loc;
        let changed = self.b.declare_var(types::I8);
        let no = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(changed, no);
        for (f, &a) in amounts.iter().enumerate() {
            let skip = self.b.create_block();
            self.bind_each(f as u8, None, skip);
            self.store_noting(lv, AssignOp::Add, a, source, changed);
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
        }
        self.env_store(outer, Off::BOUND);
        self.known[BOUND] = known;
        let any = self.b.use_var(changed);
        self.after_change(any, lv.var, next);
    }

    /// Whether `x >= floor`, as the engine compares two numbers: integers exactly, else as
    /// reals (false on a NaN). An `i8` truth.
    fn at_least(&mut self, x: V, floor: V) -> Value {
        if x.ty == Ty::Int && floor.ty == Ty::Int {
            return (self.b.ins()).icmp(IntCC::SignedGreaterThanOrEqual, x.v, floor.v);
        }
        let (p, q) = (self.as_real(x), self.as_real(floor));
        self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, p, q)
    }

    /// `title lv by metric min K points P [ties nobody]`, as the engine's `title` runs it:
    /// every faction's metric is read in seat order with it bound (into `env.race`'s keys),
    /// then K and P with the outer binding; the holder is the first faction whose `lv` is
    /// not 0; one helper applies the rule of who holds it next
    /// ([`crate::runtime::titles::next_holder`]). When that changes, the holder's `lv` is set
    /// to 0 and the new holder's to P (stored and credited as assignments), and the
    /// variable's immediate end conditions are noted as pending if a value changed.
    pub(super) fn title(&mut self, t: &Title, next: Block) {
        let n = self.t.nfactions;
        let outer = self.env_load(types::I8, Off::BOUND);
        let known = self.known[BOUND];
        let mut real = t.metric.ty() == Ty::Real;
        for f in 0..n {
            let skip = self.b.create_block();
            self.bind_each(f, None, skip);
            let x = self.value(&t.metric);
            real = x.ty == Ty::Real;
            let bits = match x.ty {
                Ty::Int => x.v,
                Ty::Real => self.b.ins().bitcast(I64, MemFlagsData::new(), x.v),
            };
            (self.b.ins()).store(
                MemFlagsData::trusted(),
                bits,
                self.env,
                Off::RACE_KEYS + 8 * f as i32,
            );
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
        }
        self.env_store(outer, Off::BOUND);
        self.known[BOUND] = known;
        let min = self.value(&t.min);
        let points = self.value(&t.points);
        let at = |f: u8| LValue {
            who: Who::Fixed(f),
            ..t.lv
        };
        // The holder: the first faction whose variable is not 0 (-1: none).
        let mut holder = self.int(-1);
        for f in (0..n).rev() {
            let (addr, off) = self.lv_addr(&at(f));
            let v = self.b.ins().load(I64, MemFlagsData::trusted(), addr, off);
            let fv = self.int(f as i64);
            holder = self.b.ins().select(v, fv, holder);
        }
        let min_bits = match min.ty {
            Ty::Int => min.v,
            Ty::Real => self.b.ins().bitcast(I64, MemFlagsData::new(), min.v),
        };
        let (env, nv) = (self.env, self.int(n as i64));
        let (realv, min_real) = (
            self.i32c(real as u32),
            self.i32c((min.ty == Ty::Real) as u32),
        );
        let nobody = self.i32c(t.tied_nobody as u32);
        let to = self.call_pure(
            h::title as *const () as usize,
            &[self.ptr, I64, I32, I64, I32, I64, I32],
            &[env, nv, realv, min_bits, min_real, holder, nobody],
        );
        let moves = self.b.create_block();
        let same = self.b.ins().icmp(IntCC::Equal, to, holder);
        self.b.ins().brif(same, next, &[], moves, &[]);
        self.b.switch_to_block(moves);
        self.loc = t.metric.loc;
        let changed = self.b.declare_var(types::I8);
        let no = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(changed, no);
        // The holder's variable to 0, then the new holder's to the points.
        for (who, x) in [(holder, None), (to, Some(points))] {
            let x = match x {
                Some(p) => self.storable(&t.lv, p),
                None => self.int(0),
            };
            for f in 0..n {
                let (yes, skip) = (self.b.create_block(), self.b.create_block());
                let me = self.b.ins().icmp_imm_s(IntCC::Equal, who, f as i64);
                self.b.ins().brif(me, yes, &[], skip, &[]);
                self.b.switch_to_block(yes);
                self.store_noting(&at(f), AssignOp::Set, x, t.source, changed);
                self.b.ins().jump(skip, &[]);
                self.b.switch_to_block(skip);
            }
        }
        let any = self.b.use_var(changed);
        self.after_change(any, t.lv.var, next);
    }

    /// `race done count if cond by key award lv scale`, as the engine's `race` runs it: every
    /// faction not yet done and still in the game whose condition holds completes now (its
    /// key read at the same moment, in seat order, into `env.race`); one helper sorts the
    /// completers by key, ties by seat ([`h::sort_completers`], the engine's own order);
    /// then, in that order, each is marked done, gains the scale's reward for the place the
    /// count says, and the count goes up. With any completer, the immediate conditions of
    /// the three variables are noted after every store.
    pub(super) fn race(&mut self, r: &Race, next: Block) {
        let (done, count, lv) = (&r.done, &r.count, &r.lv);
        let (cond, key, scale, source) = (&r.cond, &r.key, &r.scale[..], r.source);
        let outer = self.env_load(types::I8, Off::BOUND);
        let known = self.known[BOUND];
        let k = self.b.declare_var(I64);
        let zero = self.int(0);
        self.b.def_var(k, zero);
        let mut real = key.ty() == Ty::Real;
        for f in 0..self.t.nfactions {
            let skip = self.b.create_block();
            let fv = self.bind_each(f, None, skip);
            let (addr, off) = self.lv_addr(done);
            let d = self.b.ins().load(I64, MemFlagsData::trusted(), addr, off);
            let out = self.env_load(I32, Off::OUT);
            let out = self.b.ins().ushr_imm_u(out, f as i64);
            let out = self.b.ins().band_imm_s(out, 1);
            let out = self.b.ins().uextend(I64, out);
            let gone = self.b.ins().bor(d, out);
            let go = self.b.create_block();
            self.b.ins().brif(gone, skip, &[], go, &[]);
            self.b.switch_to_block(go);
            let c = self.value(cond);
            self.pass_if(c, skip);
            let x = self.value(key);
            real = x.ty == Ty::Real;
            let bits = match x.ty {
                Ty::Int => x.v,
                Ty::Real => self.b.ins().bitcast(I64, MemFlagsData::new(), x.v),
            };
            let i = self.b.use_var(k);
            let at = self.b.ins().ishl_imm_u(i, 3);
            let p = self.b.ins().iadd(self.env, at);
            self.b
                .ins()
                .store(MemFlagsData::trusted(), bits, p, Off::RACE_KEYS);
            let p = self.b.ins().iadd(self.env, i);
            self.b
                .ins()
                .store(MemFlagsData::trusted(), fv, p, Off::RACE_ORDER);
            let i1 = self.b.ins().iadd_imm_s(i, 1);
            self.b.def_var(k, i1);
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
        }
        let n = self.b.use_var(k);
        let env = self.env;
        let realv = self.i32c(real as u32);
        self.call_quiet(
            h::sort_completers as *const () as usize,
            &[self.ptr, I64, I32],
            &[env, n, realv],
        );
        // The rewards, in order.
        let (head, body, after) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, I64);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let i = self.b.block_params(head)[0];
        let end = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, i, n);
        self.b.ins().brif(end, after, &[], body, &[]);
        self.b.switch_to_block(body);
        let p = self.b.ins().iadd(self.env, i);
        let fv = self
            .b
            .ins()
            .load(types::I8, MemFlagsData::trusted(), p, Off::RACE_ORDER);
        self.env_store(fv, Off::BOUND);
        let f64v = self.b.ins().uextend(I64, fv);
        let f64v = self.proven(f64v);
        self.known[BOUND] = Some(Known::Val(f64v));
        let (caddr, off) = self.lv_addr(count);
        let place = self.b.ins().load(I64, MemFlagsData::trusted(), caddr, off);
        let reward = self.entry(scale, place);
        // Every store of a race is located at its condition, as the engine does.
        self.loc = cond.loc;
        let one = self.int(1);
        self.store(done, AssignOp::Set, one);
        let (v, old) = self.store(lv, AssignOp::Add, reward);
        self.credit(lv, source, v, old);
        self.store(count, AssignOp::Add, one);
        let i1 = self.b.ins().iadd_imm_s(i, 1);
        self.b.ins().jump(head, &[BlockArg::Value(i1)]);
        self.b.switch_to_block(after);
        self.env_store(outer, Off::BOUND);
        self.known[BOUND] = known;
        let any = self.b.ins().icmp_imm_s(IntCC::NotEqual, n, 0);
        for var in [done.var, lv.var, count.var] {
            let go = self.b.create_block();
            self.after_change(any, var, go);
            self.b.switch_to_block(go);
        }
        self.b.ins().jump(next, &[]);
    }

    /// Sorts every faction by `keys` (none: seat order; at most
    /// [`crate::state::MAX_ORDER_KEYS`]) as the engine's `sorted_order` does: each
    /// faction's keys are evaluated in turn with that faction as every binding, faction
    /// after faction in seat order; then, for one key and at most 8 factions, they are
    /// ranked inline ([`Lower::rank_factions`]); else they go into `env.race` (the factions
    /// in seat order beside them) and one helper sorts them (ascending, ties by seat):
    /// [`h::sort_completers`] for one key, [`h::sort_rows`] for more. The order is left in
    /// `env.race.order`. Each faction's binding is pending while its keys are evaluated
    /// (stored only if something reads it), so the environment's binding is left as it was
    /// or as the last stored key set it (`known` says nothing of it).
    pub(super) fn sort_factions(&mut self, keys: &[Expr]) {
        debug_assert_eq!(self.pending, [None; 3], "a sort is a statement's");
        let n = self.t.nfactions;
        // `rows[f][j]`: faction `f`'s key `j`.
        let mut rows = Vec::new();
        for f in 0..n {
            let fv = self.b.ins().iconst(types::I8, f as i64);
            self.pending = [Some(fv); 3];
            self.known = [Some(Known::Const(f)); 3];
            rows.push(keys.iter().map(|key| self.value(key)).collect::<Vec<V>>());
        }
        self.known = [None; 3];
        self.pending = [None; 3];
        // Rotating seats, ties go by this game's seating, which the helpers' sort knows.
        if keys.len() == 1 && n <= 8 && !self.t.rotate_seats {
            let ks: Vec<V> = rows.iter().map(|r| r[0]).collect();
            return self.rank_factions(&ks);
        }
        self.sort_by_helper(&rows);
    }

    /// Stores the factions in seat order and their keys `rows` (one row a faction) into
    /// `env.race` and sorts them there with the engine's own sort: [`h::sort_completers`]
    /// for one key, [`h::sort_rows`] for more (none: seat order).
    fn sort_by_helper(&mut self, rows: &[Vec<V>]) {
        let mem = MemFlagsData::trusted();
        let nk = rows.first().map_or(0, Vec::len);
        let mut real = 0u32;
        for (f, row) in rows.iter().enumerate() {
            let fv = self.b.ins().iconst(types::I8, f as i64);
            self.b
                .ins()
                .store(mem, fv, self.env, Off::RACE_ORDER + f as i32);
            for (j, x) in row.iter().enumerate() {
                let bits = match x.ty {
                    Ty::Int => x.v,
                    Ty::Real => self.b.ins().bitcast(I64, MemFlagsData::new(), x.v),
                };
                real |= ((x.ty == Ty::Real) as u32) << j;
                let at = if nk == 1 {
                    Off::RACE_KEYS + 8 * f as i32
                } else {
                    let row = f * crate::state::MAX_ORDER_KEYS + j;
                    Off::RACE_ROWS + 8 * row as i32
                };
                self.b.ins().store(mem, bits, self.env, at);
            }
        }
        let env = self.env;
        let k = self.int(rows.len() as i64);
        let real = self.i32c(real);
        match nk {
            0 => {}
            1 => self.call_quiet(
                h::sort_completers as *const () as usize,
                &[self.ptr, I64, I32],
                &[env, k, real],
            ),
            nk => {
                let nk = self.int(nk as i64);
                self.call_quiet(
                    h::sort_rows as *const () as usize,
                    &[self.ptr, I64, I64, I32],
                    &[env, k, nk, real],
                );
            }
        }
    }

    /// The order of the factions by their keys `ks` (at most 8, of one type), ascending,
    /// ties by seat, left in `env.race.order` as [`h::sort_completers`] leaves it. It is
    /// the branch-free ranking of [`crate::runtime::order::sort_by`], inline: each pair `j <
    /// i` compared once adds one to the rank of whichever goes later (`i` unless its key is
    /// below `j`'s), ranks kept as the bytes of one word, and each faction is stored at its
    /// rank; nothing else is stored. Real keys with a NaN among them (which the ranking
    /// does not order) take [`Lower::sort_by_helper`] on a cold path, whose insertion sort
    /// is the reference for them.
    fn rank_factions(&mut self, ks: &[V]) {
        let n = ks.len();
        let real = ks.first().is_some_and(|k| k.ty == Ty::Real);
        let done = self.b.create_block();
        if real {
            let mut any = self.b.ins().fcmp(FloatCC::Unordered, ks[0].v, ks[0].v);
            for k in &ks[1..] {
                let nan = self.b.ins().fcmp(FloatCC::Unordered, k.v, k.v);
                any = self.b.ins().bor(any, nan);
            }
            let (slow, fast) = (self.b.create_block(), self.b.create_block());
            self.b.set_cold_block(slow);
            self.b.ins().brif(any, slow, &[], fast, &[]);
            self.b.switch_to_block(slow);
            let rows: Vec<Vec<V>> = ks.iter().map(|&k| vec![k]).collect();
            self.sort_by_helper(&rows);
            self.b.ins().jump(done, &[]);
            self.b.switch_to_block(fast);
        }
        let mut ranks = self.int(0);
        for i in 1..n {
            for j in 0..i {
                let below = match real {
                    true => self.b.ins().fcmp(FloatCC::LessThan, ks[i].v, ks[j].v),
                    false => self.b.ins().icmp(IntCC::SignedLessThan, ks[i].v, ks[j].v),
                };
                let (before, after) = (self.int(1 << (8 * j)), self.int(1 << (8 * i)));
                let add = self.b.ins().select(below, before, after);
                ranks = self.b.ins().iadd(ranks, add);
            }
        }
        let top = self.int(n as i64 - 1);
        for i in 0..n {
            let r = self.b.ins().ushr_imm_u(ranks, 8 * i as i64);
            let r = self.b.ins().band_imm_s(r, 0xff);
            // A rank is at most n - 1 by construction; the bound makes the store's
            // address provably inside `order`.
            let r = self.b.ins().umin(r, top);
            let p = self.b.ins().iadd(self.env, r);
            let fv = self.b.ins().iconst(types::I8, i as i64);
            self.b
                .ins()
                .store(MemFlagsData::trusted(), fv, p, Off::RACE_ORDER);
        }
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// `order VAR by KEYS` as the engine's `order_stmt` runs it: the factions sorted by
    /// [`Lower::sort_factions`], then each one's place (1 first) stored into its `VAR` in
    /// that order, with the statement's own binding but for the bound faction; then the
    /// variable's immediate end conditions are noted, whether or not a value changed.
    pub(super) fn order(&mut self, lv: &LValue, keys: &[Expr], next: Block) {
        let at = [Off::ME, Off::BOUND, Off::TARGET];
        let saved = at.map(|o| self.env_load(types::I8, o));
        let known = self.known;
        self.sort_factions(keys);
        for (v, o) in saved.into_iter().zip(at) {
            self.env_store(v, o);
        }
        self.known = known;
        for pos in 0..self.t.nfactions {
            let fv = self.b.ins().load(
                types::I8,
                MemFlagsData::trusted(),
                self.env,
                Off::RACE_ORDER + pos as i32,
            );
            self.env_store(fv, Off::BOUND);
            let f = self.b.ins().uextend(I64, fv);
            let f = self.proven(f);
            self.known[BOUND] = Some(Known::Val(f));
            let place = self.int(pos as i64 + 1);
            self.store(lv, AssignOp::Set, place);
        }
        self.env_store(saved[BOUND], Off::BOUND);
        self.known = known;
        let always = self.b.ins().iconst(types::I8, 1);
        self.after_change(always, lv.var, next);
    }
}
