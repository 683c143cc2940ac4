//! Lowering an agent's turn: the option scan of its whole menu (availability, targets,
//! target conditions, costs and weights, in a straight line), the choice among the options,
//! and the chosen action taken inline when its effects allow.

use super::*;

/// The most options a weighted turn chooses among inline; a longer menu writes its options
/// to the buffer and the engine's choice picks (the same draw, in linear compile time).
const INLINE_OPTIONS: usize = 64;

impl Lower<'_, '_> {
    /// Lowers an agent's turn `(env, vals, out, f) -> i64` and finishes.
    ///
    /// The option scan binds faction `f`, then for each action of `items` (its index and
    /// definition, in menu order) and each target, exactly as the engine's scan does, tests
    /// `when`, `target_when` and the costs, scores the option (its weight, skipped when not
    /// positive, or `-priority` when `priority` is given) and writes it to `out`. The
    /// targets of `n` factions are unrolled: a scan is a straight line, one function for
    /// every faction with the same menu.
    ///
    /// With no option it returns [`PASS`]. Otherwise the engine's own choice
    /// ([`h::pick`], the same random draw) picks one, its target is bound, and an action
    /// whose effects are nothing or one statement run ([`Stmt::Native`]) is taken here,
    /// its costs paid first (returning [`DONE`], or [`HELD`] when it ran an `end`); any
    /// other action returns [`CHOSE`] for the engine to take.
    ///
    /// A faction that decides by lookahead (`searched`) writes its weighted options to
    /// `out` too and has [`h::pick`] choose (searching, walking a tree search's tree or
    /// picking by weight, [`crate::runtime::search::decide`]); a search can fault, so the
    /// fault flag is tested after it.
    pub(crate) fn finish_menu(
        mut self,
        n: u8,
        items: &[(u16, &Action)],
        priority: Option<&[u16]>,
        searched: bool,
    ) {
        self.menu_body(n, items, priority, searched);
        self.end();
    }

    /// The body of [`Lower::finish_menu`], with the option buffer and the faction in
    /// [`Lower::third`] and [`Lower::fourth`]: each code goes where [`Lower::leave`] says (a
    /// round lowers a turn inline this way).
    pub(super) fn menu_body(
        &mut self,
        n: u8,
        items: &[(u16, &Action)],
        priority: Option<&[u16]>,
        searched: bool,
    ) {
        // Whether the options go to the buffer for the helper's choice. A long menu's do
        // too: an inline weighted choice keeps a variable per option live across every
        // option's blocks, which costs compile memory and time quadratic in the menu.
        let options: usize = items
            .iter()
            .map(|(_, a)| if a.targeted { n as usize } else { 1 })
            .sum();
        let listed = priority.is_some() || searched || options > INLINE_OPTIONS;
        let out = self.third.expect("an option scan has an output buffer");
        let f = self.fourth.expect("an option scan has a faction");
        let byte = |b: &mut Self, v: u8| b.b.ins().iconst(types::I8, v as i64);
        let f = self.proven(f);
        let fv = self.b.ins().ireduce(types::I8, f);
        for off in [Off::ME, Off::BOUND, Off::TARGET] {
            self.env_store(fv, off);
        }
        self.known = [Some(Known::Val(f)); 3];
        let count = self.b.declare_var(I64);
        let zero = self.int(0);
        self.b.def_var(count, zero);
        // The sum of the weights, in option order (as the engine's choice sums them).
        let total = self.b.declare_var(F64);
        let z = self.real(0.0);
        self.b.def_var(total, z);
        // A weighted choice keeps each option's weight in a variable of its own (0 for an
        // option left out) instead of the buffer, or for a constant weight one bit of
        // `taken` (the weight is the constant), and the last option taken; options are
        // numbered in scan order, every target of a targeted action counted.
        let mut weights = Vec::new();
        let taken = self.b.declare_var(I64);
        self.b.def_var(taken, zero);
        let last = self.b.declare_var(I64);
        let none = self.int(-1);
        self.b.def_var(last, none);
        if !listed {
            for &(_, a) in items {
                for _ in 0..if a.targeted { n } else { 1 } {
                    // An option the scan always takes has no condition, target or cost,
                    // and a positive constant weight.
                    let always = a.when.is_none() && !a.targeted && a.cost.is_empty();
                    let w = match a.weight.as_const() {
                        Some(c) if always && c > 0.0 => Weight::Always(c),
                        Some(c) if weights.len() < 64 => Weight::Const(c),
                        _ => {
                            let w = self.b.declare_var(F64);
                            self.b.def_var(w, z);
                            Weight::Var(w)
                        }
                    };
                    weights.push(w);
                }
            }
        }
        let mut o = 0usize;
        for &(ai, a) in items {
            let next = self.b.create_block();
            if let Some(w) = &a.when {
                let c = self.value(w);
                self.pass_if(c, next);
            }
            // An untargeted action's one "target" is the acting faction.
            let targets: Vec<Option<u8>> = if a.targeted {
                (0..n).map(Some).collect()
            } else {
                vec![None]
            };
            for t in targets {
                let this = o;
                o += 1;
                let skip = self.b.create_block();
                let tv = match t {
                    Some(t) => byte(self, t),
                    None => fv,
                };
                if let Some(t) = t {
                    let me = self.b.ins().icmp_imm_s(IntCC::Equal, f, t as i64);
                    let go = self.b.create_block();
                    self.b.ins().brif(me, skip, &[], go, &[]);
                    self.b.switch_to_block(go);
                    self.pending[TARGET] = Some(tv);
                    self.known[TARGET] = Some(Known::Const(t));
                    if let Some(w) = &a.target_when {
                        let c = self.value(w);
                        self.pass_if(c, skip);
                    }
                }
                for (lv, amount) in &a.cost {
                    let need = self.value(amount);
                    let (addr, off) = self.lv_addr(lv);
                    let have = self.b.ins().load(I64, MemFlagsData::trusted(), addr, off);
                    // As the engine compares `Num`s: integers exactly, else as reals.
                    let short = match need.ty {
                        Ty::Int => self.b.ins().icmp(IntCC::SignedLessThan, have, need.v),
                        Ty::Real => {
                            let h = self.b.ins().fcvt_from_sint(F64, have);
                            self.b.ins().fcmp(FloatCC::LessThan, h, need.v)
                        }
                    };
                    let go = self.b.create_block();
                    self.b.ins().brif(short, skip, &[], go, &[]);
                    self.b.switch_to_block(go);
                }
                let score = match priority {
                    Some(p) => self.real(-(p[ai as usize] as f64)),
                    // A constant weight's test is made here: a weight that is not positive
                    // (NaN is) leaves the option out.
                    None if a.weight.as_const().is_some_and(|c| c <= 0.0) => {
                        self.b.ins().jump(skip, &[]);
                        self.b.switch_to_block(skip);
                        self.known[TARGET] = None;
                        self.pending[TARGET] = None;
                        continue;
                    }
                    None => {
                        let w = self.value(&a.weight);
                        let w = self.as_real(w);
                        if a.weight.as_const().is_none() {
                            let z = self.real(0.0);
                            let none = self.b.ins().fcmp(FloatCC::LessThanOrEqual, w, z);
                            let go = self.b.create_block();
                            self.b.ins().brif(none, skip, &[], go, &[]);
                            self.b.switch_to_block(go);
                        }
                        let sum = self.b.use_var(total);
                        let sum = self.b.ins().fadd(sum, w);
                        self.b.def_var(total, sum);
                        w
                    }
                };
                let k = self.b.use_var(count);
                if listed {
                    self.write_opt(out, k, score, ai, tv);
                } else {
                    match weights[this] {
                        Weight::Var(w) => self.b.def_var(w, score),
                        Weight::Always(_) => {}
                        Weight::Const(_) => {
                            let t = self.b.use_var(taken);
                            let t = self.b.ins().bor_imm_s(t, 1 << this);
                            self.b.def_var(taken, t);
                        }
                    }
                    let here = self.int(this as i64);
                    self.b.def_var(last, here);
                }
                let k = self.b.ins().iadd_imm_s(k, 1);
                self.b.def_var(count, k);
                self.b.ins().jump(skip, &[]);
                self.b.switch_to_block(skip);
                // Reached with or without this target stored.
                self.known[TARGET] = None;
                self.pending[TARGET] = None;
            }
            if a.targeted {
                self.env_store(fv, Off::TARGET);
            }
            self.known[TARGET] = Some(Known::Val(f));
            self.b.ins().jump(next, &[]);
            self.b.switch_to_block(next);
        }
        let k = self.b.use_var(count);
        let (pass, chosen) = (self.b.create_block(), self.b.create_block());
        self.b.ins().brif(k, chosen, &[], pass, &[]);
        self.b.switch_to_block(pass);
        let code = self.int(PASS as i64);
        self.leave(code);
        self.b.switch_to_block(chosen);
        let total = self.b.use_var(total);
        if !listed {
            let last = self.b.use_var(last);
            let taken = self.b.use_var(taken);
            self.weighted(total, &weights, taken, last, n, f, items);
            return;
        }
        let (env, policy) = (self.env, self.int(priority.is_some() as i64));
        let i = self.call(
            h::pick as *const () as usize,
            &[self.ptr, I64, I64],
            Some(I64),
            &[env, k, policy],
        );
        if searched {
            self.fault_exit();
        } else {
            // The choice records no fault.
            self.faulty = false;
        }
        self.choice(out, i, items);
    }

    /// Writes option `k` of the buffer `out`: its score, action and target.
    fn write_opt(&mut self, out: Value, k: Value, score: Value, ai: u16, tv: Value) {
        let off = self
            .b
            .ins()
            .imul_imm_s(k, std::mem::size_of::<crate::runtime::abi::Opt>() as i64);
        let p = self.b.ins().iadd(out, off);
        let mem = MemFlagsData::trusted();
        self.b.ins().store(
            mem,
            score,
            p,
            std::mem::offset_of!(crate::runtime::abi::Opt, score) as i32,
        );
        let av = self.b.ins().iconst(types::I16, ai as i64);
        self.b.ins().store(
            mem,
            av,
            p,
            std::mem::offset_of!(crate::runtime::abi::Opt, action) as i32,
        );
        self.b.ins().store(
            mem,
            tv,
            p,
            std::mem::offset_of!(crate::runtime::abi::Opt, target) as i32,
        );
    }

    /// The weighted choice among the options taken, exactly as
    /// [`crate::runtime::choice::pick`] makes it: one uniform real in [0, 1) times `total`,
    /// then the first option whose weight exceeds what is left, the last one taken (`last`)
    /// if none does. `weights` holds every option's weight in scan order, 0 for one left
    /// out: what is left never goes below 0, so such an option is never chosen and leaves
    /// it as it is. An option of constant weight weighs its constant if its bit of `taken`
    /// is set, else 0. The chosen option's action then
    /// runs with its target bound, as [`Lower::take_action`] says.
    #[allow(
        clippy::too_many_arguments,
        reason = "the Cranelift values a weighted pick reads, each live in the caller"
    )]
    fn weighted(
        &mut self,
        total: Value,
        weights: &[Weight],
        taken: Value,
        last: Value,
        n: u8,
        f: Value,
        items: &[(u16, &Action)],
    ) {
        let u = self.unit();
        let mut x = self.b.ins().fmul(u, total);
        // Each option's action and target, in scan order.
        let mut chosen = Vec::with_capacity(weights.len());
        for (i, &(_, a)) in items.iter().enumerate() {
            if a.targeted {
                chosen.extend((0..n).map(|t| (i, Some(t))));
            } else {
                chosen.push((i, None));
            }
        }
        // One block per action, its target a parameter.
        let bodies: Vec<Block> = items
            .iter()
            .map(|_| {
                let b = self.b.create_block();
                self.b.append_block_param(b, I64);
                b
            })
            .collect();
        for (o, (&w, &(i, t))) in weights.iter().zip(&chosen).enumerate() {
            let target = match t {
                Some(t) => self.int(t as i64),
                None => f,
            };
            let test = self.b.create_block();
            let is_last = self.b.ins().icmp_imm_s(IntCC::Equal, last, o as i64);
            self.b
                .ins()
                .brif(is_last, bodies[i], &[BlockArg::Value(target)], test, &[]);
            self.b.switch_to_block(test);
            let w = match w {
                Weight::Var(w) => self.b.use_var(w),
                // The constant if the option was taken, else 0, chosen without a branch (an
                // option's inclusion is as random as the game).
                Weight::Always(c) => self.real(c),
                Weight::Const(c) => {
                    let bit = self.b.ins().band_imm_s(taken, 1 << o);
                    let (cb, zero) = (self.int(c.to_bits() as i64), self.int(0));
                    let bits = self.b.ins().select(bit, cb, zero);
                    self.b.ins().bitcast(F64, MemFlagsData::new(), bits)
                }
            };
            let hit = self.b.ins().fcmp(FloatCC::LessThan, x, w);
            let go = self.b.create_block();
            self.b
                .ins()
                .brif(hit, bodies[i], &[BlockArg::Value(target)], go, &[]);
            self.b.switch_to_block(go);
            x = self.b.ins().fsub(x, w);
        }
        // Not reached: the last option taken is one of them.
        let code = self.int(PASS as i64);
        self.leave(code);
        for (&(ai, a), &body) in items.iter().zip(&bodies) {
            self.b.switch_to_block(body);
            let t = self.b.block_params(body)[0];
            self.take_action(ai, a, t);
        }
    }

    /// Action `ai` chosen against target `t` (an `i64`): the target is bound, then an
    /// action [`inline_effects`] takes is taken here ([`Lower::act`]) and returns [`DONE`]
    /// (or [`HELD`]); any other returns [`CHOSE`] for the engine to take.
    fn take_action(&mut self, ai: u16, a: &Action, t: Value) {
        // The action taken draws from a part of its own, as the engine's `decide`.
        self.seek_part(crate::rng::part::ACT);
        let t = self.proven(t);
        let tv = self.b.ins().ireduce(types::I8, t);
        self.env_store(tv, Off::TARGET);
        self.known[TARGET] = Some(Known::Val(t));
        if self.uses.is_some() {
            let av = self.int(ai as i64);
            self.count_use(av);
        }
        if let Some(run) = inline_effects(a) {
            self.act(a, run);
        } else {
            let code = self.b.ins().bor_imm_s(t, (CHOSE | (ai as u64) << 8) as i64);
            self.leave(code);
        }
    }

    /// Counts the turn's choice of action `av` (an `i64`) for its faction, when the model
    /// counts decisions ([`Lower::uses`]): a call of [`h::used`], which records no fault.
    fn count_use(&mut self, av: Value) {
        let (Some(actions), Some(f)) = (self.uses, self.fourth) else {
            return;
        };
        let row = self.b.ins().imul_imm_s(f, actions as i64);
        let i = self.b.ins().iadd(row, av);
        let faulty = self.faulty;
        let env = self.env;
        self.call(
            h::used as *const () as usize,
            &[self.ptr, I64],
            None,
            &[env, i],
        );
        self.faulty = faulty;
    }

    /// The chosen option `i` of `out` and its action (see [`Lower::finish_menu`]).
    fn choice(&mut self, out: Value, i: Value, items: &[(u16, &Action)]) {
        // The action taken draws from a part of its own, as the engine's `decide`.
        self.seek_part(crate::rng::part::ACT);
        let off = self
            .b
            .ins()
            .imul_imm_s(i, std::mem::size_of::<crate::runtime::abi::Opt>() as i64);
        let p = self.b.ins().iadd(out, off);
        let mem = MemFlagsData::trusted();
        let action = std::mem::offset_of!(crate::runtime::abi::Opt, action) as i32;
        let av = self.b.ins().uload16(I64, mem, p, action);
        let target = std::mem::offset_of!(crate::runtime::abi::Opt, target) as i32;
        let tv = self.b.ins().load(types::I8, mem, p, target);
        self.env_store(tv, Off::TARGET);
        let t64 = self.b.ins().uextend(I64, tv);
        let t64 = self.proven(t64);
        self.known[TARGET] = Some(Known::Val(t64));
        if self.uses.is_some() {
            self.count_use(av);
        }
        let mut sw = cranelift_frontend::Switch::new();
        let mut bodies = Vec::new();
        for &(ai, a) in items {
            if let Some(run) = inline_effects(a) {
                let body = self.b.create_block();
                sw.set_entry(ai as u128, body);
                bodies.push((a, run, body));
            }
        }
        let other = self.b.create_block();
        sw.emit(&mut self.b, av, other);
        self.b.switch_to_block(other);
        let code = self.b.ins().ishl_imm_u(av, 8);
        let code = self.b.ins().bor(code, t64);
        let code = self.b.ins().bor_imm_s(code, CHOSE as i64);
        self.leave(code);
        for (a, run, body) in bodies {
            self.b.switch_to_block(body);
            self.act(a, run);
        }
    }

    /// Takes action `a`, the acting faction and target bound, as the engine's `act` does:
    /// each cost paid (`lv -= amount`, a store like any other, noting its immediate end
    /// conditions), then its effects `run`; returns [`DONE`] (or [`HELD`]).
    fn act(&mut self, a: &Action, run: &[Stmt]) {
        for (lv, amount) in &a.cost {
            let next = self.b.create_block();
            self.assign(lv, AssignOp::Sub, amount, None, next);
            self.b.switch_to_block(next);
        }
        self.stmts(run);
        let done = self.int(DONE as i64);
        self.leave(done);
    }
}

/// The statements of action `a` when an agent's turn takes it inline: its costs are stores
/// of a fixed element or none, and its effects are none or one statement run.
pub(crate) fn inline_effects(a: &Action) -> Option<&[Stmt]> {
    if a.cost.iter().any(|(lv, _)| matches!(lv.elem, Elem::Bound)) {
        return None;
    }
    match &a.effects[..] {
        [] => Some(&[]),
        [Stmt::Native(run)] => Some(&run.stmts),
        _ => None,
    }
}

/// An option's weight in a weighted choice (see [`Lower::finish_menu`]).
#[derive(Clone, Copy)]
enum Weight {
    /// Computed as the scan takes the option: kept in this variable, 0 if left out.
    Var(Variable),
    /// This constant, for an option whose bit of the scan's `taken` mask is set.
    Const(f64),
    /// This constant, for an option the scan always takes (no condition, no target, no
    /// cost): it has no bit, so the mask's last `bor` is not recomputed at each option of
    /// the pick (Cranelift rematerializes an `or` with a constant in every block using it).
    Always(f64),
}
