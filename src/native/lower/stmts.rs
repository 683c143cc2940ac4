//! Lowering statements: stores with their flooring, overflow checks, bounds, points-by-source
//! credit and the immediate end conditions they note, `if`, `each` (planned, or faction by faction), `for
//! held`, `draw` and `take`, `discard`, `complete`, `end` and `win`/`lose` marks, each as the
//! engine runs it (awards, races and orders are in `places`).

use super::*;

impl Lower<'_, '_> {
    /// Lowers statement `k` (or a branch of it), continuing at `next`.
    pub(super) fn stmt(&mut self, s: &Stmt, next: Block) {
        match s {
            Stmt::Assign {
                lv,
                op,
                value,
                source,
            } if !matches!(lv.elem, Elem::Bound) => self.assign(lv, *op, value, *source, next),
            Stmt::AssignAt(a) => self.assign_at(a, next),
            Stmt::Regions(r) => self.regions(r, next),
            // A template's copies, or `{ ...; ... }`: in order (only `end`, which returns,
            // stops a statement list before its end).
            Stmt::Block(body) => {
                for s in body.iter() {
                    let after = self.b.create_block();
                    self.stmt(s, after);
                    self.b.switch_to_block(after);
                }
                self.b.ins().jump(next, &[]);
            }
            Stmt::If { cond, then, els } => {
                let c = self.value(cond);
                let c = self.truth(c);
                let yes = self.b.create_block();
                let no = match els {
                    Some(_) => self.b.create_block(),
                    None => next,
                };
                self.b.ins().brif(c, yes, &[], no, &[]);
                self.b.switch_to_block(yes);
                self.stmt(then, next);
                if let Some(e) = els {
                    self.b.switch_to_block(no);
                    self.stmt(e, next);
                }
            }
            Stmt::Each { others, body } if crate::expr::simple_assign(body).is_none() => {
                self.each_in_turn(*others, body, next)
            }
            Stmt::ForHeld { deck, body } => self.for_held(*deck, body, next),
            Stmt::Discard => {
                self.call_quiet(h::discard as *const () as usize, &[self.ptr], &[self.env]);
                if let Some(bits) = self.hooks.map(|h| &h.on_draw[..]) {
                    self.note_pending(bits);
                }
                self.b.ins().jump(next, &[]);
            }
            Stmt::Pass { deck, dir } => {
                let (d, dir) = (self.i32c(*deck as u32), self.i32c(*dir as i32 as u32));
                let env = self.env;
                self.call_quiet(
                    h::pass as *const () as usize,
                    &[self.ptr, I32, I32],
                    &[env, d, dir],
                );
                if let Some(bits) = self.hooks.map(|h| &h.on_draw[..]) {
                    self.note_pending(bits);
                }
                self.b.ins().jump(next, &[]);
            }
            Stmt::Complete => {
                self.call_quiet(h::complete as *const () as usize, &[self.ptr], &[self.env]);
                if let Some(bits) = self.hooks.map(|h| &h.on_draw[..]) {
                    self.note_pending(bits);
                }
                self.b.ins().jump(next, &[]);
            }
            Stmt::Each { others, body } => self.each(*others, body, next),
            Stmt::Race(r) => self.race(r, next),
            Stmt::Award(a)
                if a.chain.is_empty() && crate::native::stmts::const_scale(&a.scale).is_some() =>
            {
                let scale = crate::native::stmts::const_scale(&a.scale).unwrap_or_default();
                self.award(a, &scale, next)
            }
            Stmt::Title(t) => self.title(t, next),
            Stmt::Order { lv, keys } if keys.len() <= crate::state::MAX_ORDER_KEYS => {
                self.order(lv, keys, next)
            }
            Stmt::Draw(d, cond) => self.take(*d, cond.as_ref(), false, next),
            Stmt::Take { deck, cond } => self.take(*deck, cond.as_ref(), true, next),
            // The game ends here: nothing after this runs.
            Stmt::End(r) => {
                let code = self.int((HELD | u64::from(r.0)) as i64);
                self.leave(code);
            }
            Stmt::Outcome { kind, reason } => {
                let env = self.env;
                let kind = self.i32c(matches!(kind, OutcomeKind::Lose) as u32);
                let reason = self.i32c(u32::from(reason.0));
                self.call_quiet(
                    h::mark as *const () as usize,
                    &[self.ptr, I32, I32],
                    &[env, kind, reason],
                );
                self.b.ins().jump(next, &[]);
            }
            // Not taken by the grouping: never reached.
            _ => {
                self.b.ins().jump(next, &[]);
            }
        }
    }

    /// `lv op value` as the engine stores it (a change credited to `source`, if tagged),
    /// then, when the value changed, the variable's immediate end conditions noted as
    /// pending; then on to `next`.
    pub(super) fn assign(
        &mut self,
        lv: &LValue,
        op: AssignOp,
        value: &Expr,
        source: Option<u8>,
        next: Block,
    ) {
        let x = self.value(value);
        let x = self.storable(lv, x);
        let (v, old) = self.store(lv, op, x);
        self.credit(lv, source, v, old);
        if self.hooked(lv.var) {
            let changed = self.b.ins().icmp(IntCC::NotEqual, v, old);
            self.after_change(changed, lv.var, next);
        } else {
            self.b.ins().jump(next, &[]);
        }
    }

    /// Stores `x` into `lv` with `op` and credits the change to `source` ([`Lower::store`],
    /// [`Lower::credit`]), noting in `changed` (an `i8` variable) whether the value changed:
    /// one of many stores whose immediate end conditions run once after them all.
    pub(super) fn store_noting(
        &mut self,
        lv: &LValue,
        op: AssignOp,
        x: Value,
        source: Option<u8>,
        changed: Variable,
    ) {
        let (v, old) = self.store(lv, op, x);
        self.credit(lv, source, v, old);
        let c = self.b.ins().icmp(IntCC::NotEqual, v, old);
        let was = self.b.use_var(changed);
        let now = self.b.ins().bor(was, c);
        self.b.def_var(changed, now);
    }

    /// A store into `lv` tagged `as SOURCE` that changed the value from `old` to `v`: the
    /// change is credited to the faction's points from that source, as the engine's
    /// `record` does (a global variable earns no points).
    pub(super) fn credit(&mut self, lv: &LValue, source: Option<u8>, v: Value, old: Value) {
        let Some(src) = source else { return };
        if lv.fstride == 0 {
            return;
        }
        let changed = self.b.ins().icmp(IntCC::NotEqual, v, old);
        let (yes, go) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(changed, yes, &[], go, &[]);
        self.b.switch_to_block(yes);
        let f = self.who(lv.who);
        let (env, src) = (self.env, self.i32c(src as u32));
        self.call_quiet(
            h::credit as *const () as usize,
            &[self.ptr, I64, I32, I64, I64],
            &[env, f, src, old, v],
        );
        self.b.ins().jump(go, &[]);
        self.b.switch_to_block(go);
    }

    /// Whether `var` has immediate end conditions.
    pub(super) fn hooked(&self, var: u16) -> bool {
        self.hooks
            .and_then(|h| h.by_var.get(var as usize))
            .is_some_and(|c| !c.is_empty())
    }

    /// After a store into `var` that changed its value when `changed` holds: `var`'s
    /// immediate end conditions noted as pending, as the engine's `after_change` notes them
    /// (none while a worked example is set up), then on to `next`.
    pub(super) fn after_change(&mut self, changed: Value, var: u16, next: Block) {
        let Some(bits) = self
            .hooks
            .and_then(|h| h.by_var.get(var as usize))
            .filter(|c| !c.is_empty())
        else {
            self.b.ins().jump(next, &[]);
            return;
        };
        let run = self.b.create_block();
        self.b.ins().brif(changed, run, &[], next, &[]);
        self.b.switch_to_block(run);
        let quiet = self.env_load(types::I8, Off::QUIET);
        let go = self.b.create_block();
        self.b.ins().brif(quiet, next, &[], go, &[]);
        self.b.switch_to_block(go);
        self.note_pending(bits);
        self.b.ins().jump(next, &[]);
    }

    /// Adds the immediate end conditions `bits` to the pending set, as
    /// [`crate::runtime::Pending::set`] does: one `or` into each word they touch.
    fn note_pending(&mut self, bits: &[u16]) {
        let mut masks = [0u64; crate::runtime::PENDING_WORDS];
        for &b in bits {
            masks[b as usize / 64] |= 1 << (b % 64);
        }
        for (w, &mask) in masks.iter().enumerate().filter(|(_, m)| **m != 0) {
            let at = Off::PENDING + 8 * w as i32;
            let was = self.env_load(I64, at);
            let now = self.b.ins().bor_imm_s(was, mask as i64);
            self.env_store(now, at);
        }
    }

    /// `draw DECK [if cond]` (face up) or, with `hand`, `take DECK [if cond]` (into the
    /// bound faction's hand), as the engine's `pick` runs it: with a condition, each card of
    /// the pool in turn becomes the current card and the condition marks it eligible or not
    /// (inline), then the current card is put back and one helper draws among the eligible
    /// cards ([`h::take_eligible`]); with none, one helper draws ([`h::take_any`]). Then the
    /// immediate end conditions that read draws, and on to `next`.
    pub(super) fn take(&mut self, d: u16, cond: Option<&Expr>, hand: bool, next: Block) {
        let env = self.env;
        let owner = if hand {
            let f = self.who(Who::Bound);
            let code = self.b.ins().iadd_imm_s(f, crate::state::held_by(0) as i64);
            self.b.ins().ireduce(I32, code)
        } else {
            self.i32c(crate::state::REVEALED as u32)
        };
        let dv = self.i32c(d as u32);
        match cond {
            None => self.call_quiet(
                h::take_any as *const () as usize,
                &[self.ptr, I32, I32],
                &[env, dv, owner],
            ),
            Some(cond) => {
                let saved = self.env_load(I32, Off::CARD);
                // A card index each; the buffer keeps its length for the whole game.
                let pools = self.call_ptr(h::pools as *const () as usize);
                let start = self.t.deck_start[d as usize] as i64;
                let left = self.call_pure(
                    h::deck_left as *const () as usize,
                    &[self.ptr, I32],
                    &[env, dv],
                );
                // The eligible set holds a deck's most cards (the engine's cap).
                let cap = self.int(crate::state::MAX_DECK_CARDS as i64);
                let left = self.b.ins().smin(left, cap);
                // A deck of at most 64 cards keeps its eligible set in one word, built in a
                // register and stored once after the scan.
                let one_word = self.t.deck_len[d as usize] <= 64;
                let (head, body, done) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                for _ in 0..3 {
                    self.b.append_block_param(head, I64);
                }
                self.b.append_block_param(done, I64);
                self.b.append_block_param(done, I64);
                let zero = self.int(0);
                let start_args = [BlockArg::Value(zero); 3];
                self.b.ins().jump(head, &start_args);
                self.b.switch_to_block(head);
                let ps = self.b.block_params(head);
                let (j, n, word) = (ps[0], ps[1], ps[2]);
                let end = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, j, left);
                let done_args = [BlockArg::Value(n), BlockArg::Value(word)];
                self.b.ins().brif(end, done, &done_args, body, &[]);
                self.b.switch_to_block(body);
                // The `j`-th card of the pool becomes the current card (`State::look_at_pool`);
                // `j < left`, the deck's cards left, so the index is in the deck's range.
                let at = self.b.ins().iadd_imm_s(j, start);
                let at = self.b.ins().ishl_imm_u(at, 1);
                let p = self.b.ins().iadd(pools, at);
                let card = self.b.ins().uload16(I32, MemFlagsData::trusted(), p, 0);
                self.env_store(card, Off::CARD);
                let c = self.value(cond);
                let c = self.truth(c);
                let yes = self.bool_int(c);
                // Bit `j` of the eligible set, as `mark_eligible` sets it: the first card of
                // a word clears it. `j < left <= MAX_DECK_CARDS`, so the word is in the set.
                let bit = self.b.ins().band_imm_s(j, 63);
                let set = self.b.ins().ishl(yes, bit);
                let word = if one_word {
                    self.b.ins().bor(word, set)
                } else {
                    let w = self.b.ins().ushr_imm_u(j, 6);
                    let w = self.b.ins().ishl_imm_u(w, 3);
                    let addr = self.b.ins().iadd(env, w);
                    let mem = MemFlagsData::trusted();
                    let old = self.b.ins().load(I64, mem, addr, Off::ELIGIBLE);
                    let first = self.b.ins().icmp_imm_s(IntCC::Equal, bit, 0);
                    let old = self.b.ins().select(first, zero, old);
                    let new = self.b.ins().bor(old, set);
                    self.b.ins().store(mem, new, addr, Off::ELIGIBLE);
                    word
                };
                let n1 = self.b.ins().iadd(n, yes);
                let j1 = self.b.ins().iadd_imm_s(j, 1);
                let next_args = [j1, n1, word].map(BlockArg::Value);
                self.b.ins().jump(head, &next_args);
                self.b.switch_to_block(done);
                let (n, word) = (self.b.block_params(done)[0], self.b.block_params(done)[1]);
                if one_word {
                    let mem = MemFlagsData::trusted();
                    self.b.ins().store(mem, word, env, Off::ELIGIBLE);
                }
                self.env_store(saved, Off::CARD);
                self.call_quiet(
                    h::take_eligible as *const () as usize,
                    &[self.ptr, I32, I64, I64, I32],
                    &[env, dv, left, n, owner],
                );
            }
        }
        if let Some(bits) = self.hooks.map(|h| &h.on_draw[..]) {
            self.note_pending(bits);
        }
        self.b.ins().jump(next, &[]);
    }

    /// `x` as the integer a store into `lv` reads: a real floored, a fault (at `self.loc`)
    /// if it has no 64-bit integer value.
    pub(super) fn storable(&mut self, lv: &LValue, x: V) -> Value {
        match x.ty {
            Ty::Int => x.v,
            Ty::Real => {
                let env = self.env;
                let (var, loc) = (self.i32c(lv.var as u32), self.i32c(self.loc));
                let k = self.call(
                    h::store_real as *const () as usize,
                    &[self.ptr, F64, I32, I32],
                    Some(I64),
                    &[env, x.v, var, loc],
                );
                self.fault_exit();
                k
            }
        }
    }

    /// Stores `lv op x` as the engine does (`+=` and `-=` checked, a fault at `self.loc`;
    /// the result clamped to the variable's bounds); returns the new and the old value.
    pub(super) fn store(&mut self, lv: &LValue, op: AssignOp, x: Value) -> (Value, Value) {
        let place = self.lv_addr(lv);
        self.store_in(lv, place, op, x)
    }

    /// [`Lower::store`] into the slot at `addr + off` (`lv`'s variable, at an element
    /// computed while playing).
    pub(super) fn store_in(
        &mut self,
        lv: &LValue,
        (addr, off): (Value, i32),
        op: AssignOp,
        x: Value,
    ) -> (Value, Value) {
        let env = self.env;
        let old = self.b.ins().load(I64, MemFlagsData::trusted(), addr, off);
        let v = match op {
            AssignOp::Set => x,
            AssignOp::Add | AssignOp::Sub => {
                let (r, over) = if op == AssignOp::Add {
                    self.b.ins().sadd_overflow(old, x)
                } else {
                    self.b.ins().ssub_overflow(old, x)
                };
                let cold = self.b.create_block();
                let go = self.b.create_block();
                self.b.set_cold_block(cold);
                self.b.ins().brif(over, cold, &[], go, &[]);
                self.b.switch_to_block(cold);
                let code = self.i32c((op == AssignOp::Sub) as u32);
                let loc = self.i32c(self.loc);
                self.rarely(|l| {
                    l.call(
                        h::store_overflow as *const () as usize,
                        &[l.ptr, I32, I64, I64, I32],
                        None,
                        &[env, code, old, x, loc],
                    )
                });
                self.faulty = false;
                let ret = self.fault_block();
                self.b.ins().jump(ret, &[]);
                self.b.switch_to_block(go);
                r
            }
        };
        let (lo, hi) = (
            self.t.var_min[lv.var as usize],
            self.t.var_max[lv.var as usize],
        );
        let mut v = v;
        if lo != i64::MIN {
            let lo = self.int(lo);
            v = self.b.ins().smax(v, lo);
        }
        if hi != i64::MAX {
            let hi = self.int(hi);
            v = self.b.ins().smin(v, hi);
        }
        self.b.ins().store(MemFlagsData::trusted(), v, addr, off);
        (v, old)
    }

    /// `for held DECK: body` for the bound faction: the body runs for each card of the deck
    /// it holds, in card order, each card looked at once, as the engine's walk
    /// (`State::next_owned`) goes: from card `c` on, the next card held is found in the
    /// faction's hand bits (`State::hands`), read afresh at each step (so a card the body
    /// discards, completes or takes counts as the engine's walk counts it), a word of 64
    /// cards at a time; a card held becomes the current card.
    pub(super) fn for_held(&mut self, deck: u16, body: &Stmt, next: Block) {
        let cards = self.t.deck_cards(deck);
        let f = self.who(Who::Bound);
        // The faction's row of words (`f` is proven below the number of factions).
        let words = crate::state::hand_words(self.t.pool.len()) as i64;
        let hands = self.call_ptr(h::hands as *const () as usize);
        let row = self.b.ins().imul_imm_s(f, words * 8);
        let row = self.b.ins().iadd(hands, row);
        let (head, test, step, found, run, cont) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, I64);
        self.b.append_block_param(run, I64);
        // `card` is the loop's own: after it, `card` is again what it was before.
        let outer = self.env_load(I32, Off::CARD);
        let exit = self.b.create_block();
        let start = self.int(cards.start as i64);
        self.b.ins().jump(head, &[BlockArg::Value(start)]);
        self.b.switch_to_block(head);
        let c = self.b.block_params(head)[0];
        let end = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, c, cards.end as i64);
        self.b.ins().brif(end, exit, &[], test, &[]);
        self.b.switch_to_block(test);
        // `start <= c < end`: a card of this deck, so its word is inside the row.
        let w = self.b.ins().ushr_imm_u(c, 6);
        let off = self.b.ins().ishl_imm_u(w, 3);
        let p = self.b.ins().iadd(row, off);
        let bits = self.b.ins().load(I64, MemFlagsData::trusted(), p, 0);
        let shift = self.b.ins().band_imm_s(c, 63);
        let ahead = self.b.ins().ushr(bits, shift);
        self.b.ins().brif(ahead, found, &[], step, &[]);
        self.b.switch_to_block(step);
        // No card held from `c` to the end of its word: on to the next word.
        let w1 = self.b.ins().iadd_imm_s(w, 1);
        let c1 = self.b.ins().ishl_imm_u(w1, 6);
        self.b.ins().jump(head, &[BlockArg::Value(c1)]);
        self.b.switch_to_block(found);
        let skip = self.b.ins().ctz(ahead);
        let held = self.b.ins().iadd(c, skip);
        let past = self
            .b
            .ins()
            .icmp_imm_s(IntCC::SignedGreaterThanOrEqual, held, cards.end as i64);
        self.b
            .ins()
            .brif(past, exit, &[], run, &[BlockArg::Value(held)]);
        self.b.switch_to_block(run);
        let held = self.b.block_params(run)[0];
        let c32 = self.b.ins().ireduce(I32, held);
        self.env_store(c32, Off::CARD);
        self.stmt(body, cont);
        self.b.switch_to_block(cont);
        let after = self.b.ins().iadd_imm_s(held, 1);
        self.b.ins().jump(head, &[BlockArg::Value(after)]);
        self.b.switch_to_block(exit);
        self.env_store(outer, Off::CARD);
        self.b.ins().jump(next, &[]);
    }

    /// Binds faction `f` as the bound faction (in the environment and as known) for one
    /// turn of a loop over factions, first going to `skip` when `f` is `skip_if`, the
    /// faction an `each others` leaves out. Returns `f` as an `i8`.
    pub(super) fn bind_each(&mut self, f: u8, skip_if: Option<Value>, skip: Block) -> Value {
        let fv = self.b.ins().iconst(types::I8, f as i64);
        if let Some(outer) = skip_if {
            let me = self.b.ins().icmp(IntCC::Equal, outer, fv);
            let go = self.b.create_block();
            self.b.ins().brif(me, skip, &[], go, &[]);
            self.b.switch_to_block(go);
        }
        self.env_store(fv, Off::BOUND);
        self.known[BOUND] = Some(Known::Const(f));
        fv
    }

    /// `each` over statements that are not one planned assignment (marks, `for held`,
    /// several kinds): the body runs for each faction in turn, as the engine runs it, then
    /// the outer binding is restored.
    pub(super) fn each_in_turn(&mut self, others: bool, body: &Stmt, next: Block) {
        let outer = self.env_load(types::I8, Off::BOUND);
        let known = self.known[BOUND];
        for f in 0..self.t.nfactions {
            let done = self.b.create_block();
            self.bind_each(f, others.then_some(outer), done);
            self.stmt(body, done);
            self.b.switch_to_block(done);
        }
        self.env_store(outer, Off::BOUND);
        self.known[BOUND] = known;
        self.b.ins().jump(next, &[]);
    }

    /// `each: body` whose body is an assignment, perhaps under `if`s (see
    /// [`crate::expr::simple_assign`]), as the engine runs it: first every
    /// faction's value is planned (its conditions and value read against the state before
    /// any store), then the planned values are stored in seat order; `others` skips the
    /// faction bound on entry. A change to a variable with immediate checks notes them once,
    /// after every store.
    pub(super) fn each(&mut self, others: bool, body: &Stmt, next: Block) {
        let Some((lv, op, first, source)) = crate::expr::simple_assign(body) else {
            self.b.ins().jump(next, &[]);
            return;
        };
        let n = self.t.nfactions;
        let outer = self.env_load(types::I8, Off::BOUND);
        let known = self.known[BOUND];
        // Per faction: what was planned (0 nothing, 1 an integer, 2 a real's bits) and the
        // value.
        let mut plans = Vec::with_capacity(n as usize);
        for f in 0..n {
            let (kind, bits) = (self.b.declare_var(types::I8), self.b.declare_var(I64));
            let (z8, z) = (self.b.ins().iconst(types::I8, 0), self.int(0));
            self.b.def_var(kind, z8);
            self.b.def_var(bits, z);
            let done = self.b.create_block();
            self.bind_each(f, others.then_some(outer), done);
            self.plan(body, kind, bits, done);
            self.b.switch_to_block(done);
            plans.push((kind, bits));
        }
        let changed = self.b.declare_var(types::I8);
        let z8 = self.b.ins().iconst(types::I8, 0);
        self.b.def_var(changed, z8);
        for (f, (kind, bits)) in plans.into_iter().enumerate() {
            let skip = self.b.create_block();
            let kv = self.b.use_var(kind);
            let go = self.b.create_block();
            self.b.ins().brif(kv, go, &[], skip, &[]);
            self.b.switch_to_block(go);
            let fv = self.b.ins().iconst(types::I8, f as i64);
            self.env_store(fv, Off::BOUND);
            self.known[BOUND] = Some(Known::Const(f as u8));
            // A store fault is located at the (first) assignment, as the engine does.
            self.loc = first.loc;
            let raw = self.b.use_var(bits);
            let x = match types_of(body) {
                (true, false) => raw,
                (false, true) => {
                    let r = self.b.ins().bitcast(F64, MemFlagsData::new(), raw);
                    self.storable(lv, V { v: r, ty: Ty::Real })
                }
                _ => {
                    let real = self.b.create_block();
                    let int = self.b.create_block();
                    let join = self.b.create_block();
                    self.b.append_block_param(join, I64);
                    let is_real = self.b.ins().icmp_imm_s(IntCC::Equal, kv, 2);
                    self.b.ins().brif(is_real, real, &[], int, &[]);
                    self.b.switch_to_block(real);
                    let r = self.b.ins().bitcast(F64, MemFlagsData::new(), raw);
                    let x = self.storable(lv, V { v: r, ty: Ty::Real });
                    self.b.ins().jump(join, &[BlockArg::Value(x)]);
                    self.b.switch_to_block(int);
                    self.b.ins().jump(join, &[BlockArg::Value(raw)]);
                    self.b.switch_to_block(join);
                    self.b.block_params(join)[0]
                }
            };
            self.store_noting(lv, op, x, source, changed);
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
        }
        self.env_store(outer, Off::BOUND);
        self.known[BOUND] = known;
        let c = self.b.use_var(changed);
        self.after_change(c, lv.var, next);
    }

    /// Plans `s` (an `if` chain ending in assignments) for the bound faction: records the
    /// value's kind and bits in `kind` and `bits`, then goes on to `done`.
    pub(super) fn plan(&mut self, s: &Stmt, kind: Variable, bits: Variable, done: Block) {
        match s {
            Stmt::If { cond, then, els } => {
                let c = self.value(cond);
                let c = self.truth(c);
                let yes = self.b.create_block();
                let no = if els.is_some() {
                    self.b.create_block()
                } else {
                    done
                };
                self.b.ins().brif(c, yes, &[], no, &[]);
                self.b.switch_to_block(yes);
                self.plan(then, kind, bits, done);
                if let Some(e) = els {
                    self.b.switch_to_block(no);
                    self.plan(e, kind, bits, done);
                }
            }
            Stmt::Assign { value, .. } => {
                let x = self.value(value);
                // The stores rely on it (see `types_of`).
                debug_assert_eq!(x.ty, value.ty(), "a formula's static type");
                let (k, v) = match x.ty {
                    Ty::Int => (1, x.v),
                    Ty::Real => (2, self.b.ins().bitcast(I64, MemFlagsData::new(), x.v)),
                };
                let k = self.b.ins().iconst(types::I8, k);
                self.b.def_var(kind, k);
                self.b.def_var(bits, v);
                self.b.ins().jump(done, &[]);
            }
            _ => {
                self.b.ins().jump(done, &[]);
            }
        }
    }

    /// The address and offset of the slot `lv` names (an element fixed or none), inside
    /// the buffer like every load ([`Lower::slot`]).
    pub(super) fn lv_addr(&mut self, lv: &LValue) -> (Value, i32) {
        let e = match lv.elem {
            Elem::Fixed(i) => i as u64,
            _ => 0,
        };
        self.slot(lv.base, lv.fstride, lv.who, e)
    }
}

/// Whether the assignments at the leaves of an `if` chain store integers, reals.
fn types_of(s: &Stmt) -> (bool, bool) {
    match s {
        Stmt::If { then, els, .. } => {
            let (a, b) = types_of(then);
            let (c, d) = els.as_deref().map_or((false, false), types_of);
            (a || c, b || d)
        }
        Stmt::Assign { value, .. } => (value.ty() == Ty::Int, value.ty() == Ty::Real),
        _ => (false, false),
    }
}
