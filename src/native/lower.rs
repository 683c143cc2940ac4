//! Lowering a typed formula tree to Cranelift IR.
//!
//! Owns the machine-code form of every operation of the formula language. Integers are `i64`
//! values and reals `f64` values, exactly as the typing of [`crate::expr::tree`] says; `+ - *`
//! and comparisons, loads of variables, bindings, conditionals and aggregations over
//! factions and set elements are lowered inline, and the overflow path of integer arithmetic
//! branches to the reference operation, which records the fault. Everything that is a real
//! algorithm or can fail in more than one way (random draws, `//`, `%`, rounding a real, the
//! deck builtins) is a call to a named function of [`super::helpers`].

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, InstBuilder, MemFlagsData, SigRef, Signature, Type, Value, types,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::helpers::{self as h, BIN_OPS, RAND_FNS, ROUND_FNS, code_of};
use crate::expr::tree::{Node, Ty};
use crate::expr::{
    Agg, AssignOp, BinOp, Elem, Env, Expr, Func, LValue, Op, OutcomeKind, RandFn, Stmt, Who,
};
use crate::model::{Action, Check, CheckKind, Timing};
use crate::state::{State, Tables};

const I64: Type = types::I64;
const F64: Type = types::F64;
const I32: Type = types::I32;

/// Byte offsets of the environment fields generated code reads and writes, in this build.
struct Off;
impl Off {
    const ROUND: i32 =
        (std::mem::offset_of!(Env<'static>, st) + std::mem::offset_of!(State, round)) as i32;
    const AGE: i32 =
        (std::mem::offset_of!(Env<'static>, st) + std::mem::offset_of!(State, age)) as i32;
    const AGE_ROUND: i32 =
        (std::mem::offset_of!(Env<'static>, st) + std::mem::offset_of!(State, age_round)) as i32;
    const OUT: i32 =
        (std::mem::offset_of!(Env<'static>, st) + std::mem::offset_of!(State, out)) as i32;
    const ME: i32 = std::mem::offset_of!(Env<'static>, cx.me) as i32;
    const BOUND: i32 = std::mem::offset_of!(Env<'static>, cx.bound) as i32;
    const TARGET: i32 = std::mem::offset_of!(Env<'static>, cx.target) as i32;
    const ELEM: i32 = std::mem::offset_of!(Env<'static>, cx.elem) as i32;
    const FAULTED: i32 = std::mem::offset_of!(Env<'static>, cx.faulted) as i32;
    const ARGS: i32 = std::mem::offset_of!(Env<'static>, args) as i32;
}

/// A binding (acting faction, bound faction or target) the code being built knows without
/// loading it from the environment: a constant, or an `i64` value computed earlier.
#[derive(Clone, Copy)]
enum Known {
    Const(u8),
    Val(Value),
}

/// The index in [`Lower::known`] of a binding.
const ME: usize = 0;
const BOUND: usize = 1;
const TARGET: usize = 2;

/// A value and its static type.
#[derive(Clone, Copy)]
struct V {
    v: Value,
    ty: Ty,
}

/// The lowering of one formula into the function being built.
pub(super) struct Lower<'a, 'f> {
    b: FunctionBuilder<'f>,
    env: Value,
    vals: Value,
    t: &'a Tables,
    slots: u64,
    loc: u32,
    ptr: Type,
    cc: CallConv,
    cfg: TargetFrontendConfig,
    sigs: HashMap<(Vec<Type>, Option<Type>), SigRef>,
    /// Whether code built since this was last cleared calls a helper (which may record a
    /// fault).
    faulty: bool,
    /// The third parameter, if any: in a statement-list function, the index of the
    /// statement to start at; in an option scan, the buffer the options are written to.
    third: Option<Value>,
    /// The fourth parameter, if any: in an option scan, the acting faction.
    fourth: Option<Value>,
    /// In a statement-list function: the block that returns [`FAULTED`].
    fault_ret: Option<Block>,
    /// In an agent's turn, while the chosen action's statements are lowered: the bits that
    /// mark a change exit as one of that action's ([`CHANGED`], the action and the target).
    exit_tag: Option<Value>,
    /// The bindings this point of the code knows (each also stored in the environment,
    /// which helpers read): `[me, bound, target]`.
    known: [Option<Known>; 3],
}

/// What a statement-list function returns when every statement ran.
pub(super) const DONE: u64 = 0;
/// ... when a fault was recorded (the statement that faulted stored nothing).
pub(super) const FAULTED: u64 = u64::MAX;
// Otherwise `((k + 1) << 16) | var`: statement `k` changed `var`, which has immediate checks.

/// What an agent's turn returns when the faction had no option (it passes). A turn also
/// returns [`DONE`] (the chosen action ran to its end) and [`FAULTED`].
pub(super) const PASS: u64 = 1 << 62;
/// ... `CHOSE | action << 8 | target` when the chosen action is not lowered: the engine
/// takes it.
pub(super) const CHOSE: u64 = 1 << 61;
/// ... `CHANGED | action << 40 | target << 32 | (k + 1) << 16 | var` when statement `k` of
/// the chosen action's effects changed `var`, which has immediate checks.
pub(super) const CHANGED: u64 = 1 << 60;

impl<'a, 'f> Lower<'a, 'f> {
    /// Starts the body of a function `(env, vals) -> i64` in `b`.
    pub fn new(
        mut b: FunctionBuilder<'f>,
        t: &'a Tables,
        slots: usize,
        loc: u32,
        cfg: TargetFrontendConfig,
    ) -> Self {
        let (ptr, cc) = (cfg.pointer_type(), cfg.default_call_conv);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.seal_block(entry);
        let env = b.block_params(entry)[0];
        let vals = b.block_params(entry)[1];
        let third = b.block_params(entry).get(2).copied();
        let fourth = b.block_params(entry).get(3).copied();
        Lower {
            b,
            env,
            vals,
            t,
            slots: slots as u64,
            loc,
            ptr,
            cc,
            cfg,
            sigs: HashMap::new(),
            faulty: false,
            third,
            fourth,
            fault_ret: None,
            exit_tag: None,
            known: [None; 3],
        }
    }

    /// Lowers `n` as the function's value (a real is returned as its bits) and finishes.
    pub fn finish(mut self, n: &Node) {
        let v = self.node(n);
        let bits = match v.ty {
            Ty::Int => v.v,
            Ty::Real => self.b.ins().bitcast(I64, MemFlagsData::new(), v.v),
        };
        self.b.ins().return_(&[bits]);
        self.b.seal_all_blocks();
        self.b.finalize(self.cfg);
    }

    /// Lowers the statements of a statement-list function `(env, vals, at) -> i64` and
    /// finishes: it runs `stmts[at..]` and returns [`DONE`], [`FAULTED`], or the code of a
    /// change to a variable that `hooked` says has immediate checks, right after the store.
    pub fn finish_stmts(mut self, stmts: &[Stmt], hooked: &[bool]) {
        let n = stmts.len();
        let starts: Vec<Block> = (0..=n).map(|_| self.b.create_block()).collect();
        // Resuming after statement k - 1 is rare: a chain of tests is enough. `at == n`
        // (the last statement changed a hooked variable) resumes at the end.
        if let Some(at) = self.third {
            for (k, &start) in starts.iter().enumerate().skip(1) {
                let here = self.b.ins().icmp_imm_s(IntCC::Equal, at, k as i64);
                let next = self.b.create_block();
                self.b.ins().brif(here, start, &[], next, &[]);
                self.b.switch_to_block(next);
            }
        }
        self.b.ins().jump(starts[0], &[]);
        for (k, s) in stmts.iter().enumerate() {
            self.b.switch_to_block(starts[k]);
            self.stmt(s, k, starts[k + 1], hooked);
        }
        self.b.switch_to_block(starts[n]);
        let done = self.int(DONE as i64);
        self.b.ins().return_(&[done]);
        self.end();
    }

    /// Lowers the end conditions `checks` of one timing, in declaration order, as one
    /// function `(env, vals) -> i64` and finishes, exactly as the engine's `checks` evaluates
    /// them with the binding it finds in `env`: a `win` or `lose` condition marks each
    /// faction still in the game it holds for (only the bound faction at the start of its
    /// turn, unless `all`); a game-ending condition is skipped once one held. Returns the
    /// reason of the first game-ending condition that held plus one, 0 when none did, or
    /// [`FAULTED`].
    pub fn finish_checks(mut self, checks: &[&Check]) {
        let n = self.t.nfactions;
        let at = [Off::ME, Off::BOUND, Off::TARGET];
        let given: Vec<Value> = at.iter().map(|&o| self.env_load(types::I8, o)).collect();
        let end = self.b.declare_var(I64);
        let zero = self.int(0);
        self.b.def_var(end, zero);
        for c in checks {
            let next = self.b.create_block();
            match c.kind {
                CheckKind::End => {
                    let go = self.b.create_block();
                    let found = self.b.use_var(end);
                    self.b.ins().brif(found, next, &[], go, &[]);
                    self.b.switch_to_block(go);
                    for (&v, &o) in given.iter().zip(&at) {
                        self.env_store(v, o);
                    }
                    self.known = [None; 3];
                    let v = self.value(&c.when);
                    let held = self.truth(v);
                    let reason = self.int(c.reason as i64 + 1);
                    let was = self.b.use_var(end);
                    let now = self.b.ins().select(held, reason, was);
                    self.b.def_var(end, now);
                    self.b.ins().jump(next, &[]);
                }
                CheckKind::Win | CheckKind::Lose => {
                    let kind = if c.kind == CheckKind::Win {
                        OutcomeKind::Win
                    } else {
                        OutcomeKind::Lose
                    };
                    let mark = Stmt::Outcome {
                        kind,
                        reason: c.reason,
                    };
                    let only_bound = c.timing == Timing::TurnStart && !c.all;
                    let factions: Vec<Option<u8>> = if only_bound {
                        vec![None]
                    } else {
                        (0..n).map(Some).collect()
                    };
                    for f in factions {
                        let skip = self.b.create_block();
                        let fv = match f {
                            Some(f) => self.b.ins().iconst(types::I8, f as i64),
                            None => given[ME],
                        };
                        let out = self.env_load(I32, Off::OUT);
                        let out = self.b.ins().uextend(I64, out);
                        let wide = self.b.ins().uextend(I64, fv);
                        let bit = self.b.ins().ushr(out, wide);
                        let bit = self.b.ins().band_imm_s(bit, 1);
                        let go = self.b.create_block();
                        self.b.ins().brif(bit, skip, &[], go, &[]);
                        self.b.switch_to_block(go);
                        for &o in &at {
                            self.env_store(fv, o);
                        }
                        self.known = match f {
                            Some(f) => [Some(Known::Const(f)); 3],
                            None => [Some(Known::Val(wide)); 3],
                        };
                        let v = self.value(&c.when);
                        let held = self.truth(v);
                        let yes = self.b.create_block();
                        self.b.ins().brif(held, yes, &[], skip, &[]);
                        self.b.switch_to_block(yes);
                        self.stmt(&mark, 0, skip, &[]);
                        self.b.switch_to_block(skip);
                    }
                    self.b.ins().jump(next, &[]);
                }
            }
            self.b.switch_to_block(next);
        }
        let r = self.b.use_var(end);
        self.b.ins().return_(&[r]);
        self.end();
    }

    /// Fills the block that returns [`FAULTED`], if one was made, and finishes.
    fn end(mut self) {
        if let Some(f) = self.fault_ret {
            self.b.switch_to_block(f);
            let code = self.int(FAULTED as i64);
            self.b.ins().return_(&[code]);
        }
        self.b.seal_all_blocks();
        self.b.finalize(self.cfg);
    }

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
    /// with no cost whose effects are one statement run ([`Stmt::Native`]) runs here,
    /// its changes to variables with immediate checks (`hooked`) returning [`CHANGED`]
    /// codes; any other action returns [`CHOSE`] for the engine to take.
    pub fn finish_menu(
        mut self,
        n: u8,
        items: &[(u16, &Action)],
        priority: Option<&[u16]>,
        hooked: &[bool],
    ) {
        let out = self.third.expect("an option scan has an output buffer");
        let f = self.fourth.expect("an option scan has a faction");
        let byte = |b: &mut Self, v: u8| b.b.ins().iconst(types::I8, v as i64);
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
                let skip = self.b.create_block();
                let tv = match t {
                    Some(t) => byte(&mut self, t),
                    None => fv,
                };
                if let Some(t) = t {
                    let me = self.b.ins().icmp_imm_s(IntCC::Equal, f, t as i64);
                    let go = self.b.create_block();
                    self.b.ins().brif(me, skip, &[], go, &[]);
                    self.b.switch_to_block(go);
                    self.env_store(tv, Off::TARGET);
                    self.known[TARGET] = Some(Known::Const(t));
                    if let Some(w) = &a.target_when {
                        let c = self.value(w);
                        self.pass_if(c, skip);
                    }
                }
                for (lv, amount) in &a.cost {
                    let need = self.value(amount);
                    let addr = self.lv_addr(lv);
                    let have = self.b.ins().load(I64, MemFlagsData::trusted(), addr, 0);
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
                let off = self
                    .b
                    .ins()
                    .imul_imm_s(k, std::mem::size_of::<super::Opt>() as i64);
                let p = self.b.ins().iadd(out, off);
                let mem = MemFlagsData::trusted();
                self.b.ins().store(
                    mem,
                    score,
                    p,
                    std::mem::offset_of!(super::Opt, score) as i32,
                );
                let av = self.b.ins().iconst(types::I16, ai as i64);
                self.b
                    .ins()
                    .store(mem, av, p, std::mem::offset_of!(super::Opt, action) as i32);
                self.b
                    .ins()
                    .store(mem, tv, p, std::mem::offset_of!(super::Opt, target) as i32);
                let k = self.b.ins().iadd_imm_s(k, 1);
                self.b.def_var(count, k);
                self.b.ins().jump(skip, &[]);
                self.b.switch_to_block(skip);
                // Reached with or without this target stored.
                self.known[TARGET] = None;
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
        self.b.ins().return_(&[code]);
        self.b.switch_to_block(chosen);
        let total = self.b.use_var(total);
        let i = match priority {
            Some(_) => {
                let (env, policy) = (self.env, self.int(1));
                self.call(
                    h::pick as *const () as usize,
                    &[self.ptr, I64, I64],
                    Some(I64),
                    &[env, k, policy],
                )
            }
            None => self.weighted(out, k, total),
        };
        // The choice records no fault.
        self.faulty = false;
        self.choice(out, i, items, hooked);
        self.end();
    }

    /// The weighted choice among the `k > 0` options in `out`, whose weights sum to
    /// `total`, exactly as [`crate::engine::agents::pick`] makes it: one uniform real in
    /// [0, 1) times the total, then the first option whose weight exceeds what is left
    /// (the last one if none does). Returns the option's index.
    fn weighted(&mut self, out: Value, k: Value, total: Value) -> Value {
        let env = self.env;
        let u = self.call(
            h::unit as *const () as usize,
            &[self.ptr],
            Some(F64),
            &[env],
        );
        let x0 = self.b.ins().fmul(u, total);
        let (head, test, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, I64);
        self.b.append_block_param(head, F64);
        self.b.append_block_param(done, I64);
        let zero = self.int(0);
        self.b
            .ins()
            .jump(head, &[BlockArg::Value(zero), BlockArg::Value(x0)]);
        self.b.switch_to_block(head);
        let (i, x) = (self.b.block_params(head)[0], self.b.block_params(head)[1]);
        let last = self.b.ins().iadd_imm_s(k, -1);
        let at_last = self.b.ins().icmp(IntCC::Equal, i, last);
        self.b
            .ins()
            .brif(at_last, done, &[BlockArg::Value(i)], test, &[]);
        self.b.switch_to_block(test);
        let off = self
            .b
            .ins()
            .imul_imm_s(i, std::mem::size_of::<super::Opt>() as i64);
        let p = self.b.ins().iadd(out, off);
        let score = std::mem::offset_of!(super::Opt, score) as i32;
        let w = self.b.ins().load(F64, MemFlagsData::trusted(), p, score);
        let hit = self.b.ins().fcmp(FloatCC::LessThan, x, w);
        let rest = self.b.ins().fsub(x, w);
        let i1 = self.b.ins().iadd_imm_s(i, 1);
        self.b.ins().brif(
            hit,
            done,
            &[BlockArg::Value(i)],
            head,
            &[BlockArg::Value(i1), BlockArg::Value(rest)],
        );
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// The chosen option `i` of `out` and its action (see [`Lower::finish_menu`]).
    fn choice(&mut self, out: Value, i: Value, items: &[(u16, &Action)], hooked: &[bool]) {
        let off = self
            .b
            .ins()
            .imul_imm_s(i, std::mem::size_of::<super::Opt>() as i64);
        let p = self.b.ins().iadd(out, off);
        let mem = MemFlagsData::trusted();
        let action = std::mem::offset_of!(super::Opt, action) as i32;
        let av = self.b.ins().uload16(I64, mem, p, action);
        let target = std::mem::offset_of!(super::Opt, target) as i32;
        let tv = self.b.ins().load(types::I8, mem, p, target);
        self.env_store(tv, Off::TARGET);
        let t64 = self.b.ins().uextend(I64, tv);
        self.known[TARGET] = Some(Known::Val(t64));
        let mut sw = cranelift_frontend::Switch::new();
        let mut bodies = Vec::new();
        for &(ai, a) in items {
            if let (true, [Stmt::Native(run)]) = (a.cost.is_empty(), &a.effects[..]) {
                let body = self.b.create_block();
                sw.set_entry(ai as u128, body);
                bodies.push((ai, &run.stmts[..], body));
            }
        }
        let other = self.b.create_block();
        sw.emit(&mut self.b, av, other);
        self.b.switch_to_block(other);
        let code = self.b.ins().ishl_imm_u(av, 8);
        let code = self.b.ins().bor(code, t64);
        let code = self.b.ins().bor_imm_s(code, CHOSE as i64);
        self.b.ins().return_(&[code]);
        for (ai, stmts, body) in bodies {
            self.b.switch_to_block(body);
            let tag = self.b.ins().ishl_imm_u(t64, 32);
            let tag = self
                .b
                .ins()
                .bor_imm_s(tag, (CHANGED | (ai as u64) << 40) as i64);
            self.exit_tag = Some(tag);
            let starts: Vec<Block> = (0..=stmts.len()).map(|_| self.b.create_block()).collect();
            self.b.ins().jump(starts[0], &[]);
            for (k, s) in stmts.iter().enumerate() {
                self.b.switch_to_block(starts[k]);
                self.stmt(s, k, starts[k + 1], hooked);
            }
            self.b.switch_to_block(starts[stmts.len()]);
            let done = self.int(DONE as i64);
            self.b.ins().return_(&[done]);
            self.exit_tag = None;
        }
    }

    /// Goes on when condition `c` holds, else jumps to `skip`.
    fn pass_if(&mut self, c: V, skip: Block) {
        let c = self.truth(c);
        let go = self.b.create_block();
        self.b.ins().brif(c, go, &[], skip, &[]);
        self.b.switch_to_block(go);
    }

    /// Lowers statement `k` (or a branch of it), continuing at `next`.
    fn stmt(&mut self, s: &Stmt, k: usize, next: Block, hooked: &[bool]) {
        match s {
            Stmt::Assign {
                lv,
                op,
                value,
                source,
            } if !matches!(lv.elem, Elem::Bound) => {
                self.assign(lv, *op, value, *source, k, next, hooked)
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
                self.stmt(then, k, next, hooked);
                if let Some(e) = els {
                    self.b.switch_to_block(no);
                    self.stmt(e, k, next, hooked);
                }
            }
            Stmt::Each { others, body }
                if crate::engine::statements::simple_assign(body).is_none() =>
            {
                self.each_in_turn(*others, body, k, next, hooked)
            }
            Stmt::ForHeld { deck, body } => self.for_held(*deck, body, k, next, hooked),
            // Neither can fault.
            Stmt::Discard | Stmt::Complete => {
                let env = self.env;
                let faulty = self.faulty;
                let f = match s {
                    Stmt::Discard => h::discard as *const () as usize,
                    _ => h::complete as *const () as usize,
                };
                self.call(f, &[self.ptr], None, &[env]);
                self.faulty = faulty;
                self.b.ins().jump(next, &[]);
            }
            Stmt::Each { others, body } => self.each(*others, body, k, next, hooked),
            Stmt::Outcome { kind, reason } => {
                let env = self.env;
                let kind = self.i32c(matches!(kind, OutcomeKind::Lose) as u32);
                let reason = self.i32c(*reason as u32);
                // A mark cannot fault.
                let faulty = self.faulty;
                self.call(
                    h::mark as *const () as usize,
                    &[self.ptr, I32, I32],
                    None,
                    &[env, kind, reason],
                );
                self.faulty = faulty;
                self.b.ins().jump(next, &[]);
            }
            // Not taken by the grouping: never reached.
            _ => {
                self.b.ins().jump(next, &[]);
            }
        }
    }

    /// The value of formula `e`; when computing it called a helper, a recorded fault returns
    /// [`FAULTED`] at once.
    fn value(&mut self, e: &Expr) -> V {
        self.loc = e.loc;
        // A constant is the engine's constant (its tree is never run).
        match e.as_const_num() {
            Some(crate::expr::Num::Int(c)) => {
                return V {
                    v: self.int(c),
                    ty: Ty::Int,
                };
            }
            Some(crate::expr::Num::Real(c)) => {
                return V {
                    v: self.real(c),
                    ty: Ty::Real,
                };
            }
            None => {}
        }
        self.faulty = false;
        let v = self.node(&e.tree());
        self.fault_exit();
        v
    }

    /// Returns [`FAULTED`] if code built since `faulty` was cleared recorded a fault.
    fn fault_exit(&mut self) {
        if !self.faulty {
            return;
        }
        self.faulty = false;
        let f = self.env_load(types::I8, Off::FAULTED);
        let ret = self.fault_block();
        let go = self.b.create_block();
        self.b.ins().brif(f, ret, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    /// The block that returns [`FAULTED`] (filled by [`Lower::finish_stmts`]).
    fn fault_block(&mut self) -> Block {
        if let Some(b) = self.fault_ret {
            return b;
        }
        let b = self.b.create_block();
        self.b.set_cold_block(b);
        self.fault_ret = Some(b);
        b
    }

    /// `lv op value` as the engine stores it (a change credited to `source`, if tagged),
    /// then, when `lv`'s variable has immediate checks and the value changed, a return that
    /// says so; else on to `next`.
    #[allow(clippy::too_many_arguments)]
    fn assign(
        &mut self,
        lv: &LValue,
        op: AssignOp,
        value: &Expr,
        source: Option<u8>,
        k: usize,
        next: Block,
        hooked: &[bool],
    ) {
        let x = self.value(value);
        let x = self.storable(lv, x);
        let (v, old) = self.store(lv, op, x);
        self.credit(lv, source, v, old);
        if hooked.get(lv.var as usize).copied().unwrap_or(false) {
            let changed = self.b.ins().icmp(IntCC::NotEqual, v, old);
            self.changed_exit(changed, lv, k, next);
        } else {
            self.b.ins().jump(next, &[]);
        }
    }

    /// A store into `lv` tagged `as SOURCE` that changed the value from `old` to `v`: the
    /// change is credited to the faction's points from that source, as the engine's
    /// `record` does (a global variable earns no points).
    fn credit(&mut self, lv: &LValue, source: Option<u8>, v: Value, old: Value) {
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
        // A credit cannot fault.
        let faulty = self.faulty;
        self.call(
            h::credit as *const () as usize,
            &[self.ptr, I64, I32, I64, I64],
            None,
            &[env, f, src, old, v],
        );
        self.faulty = faulty;
        self.b.ins().jump(go, &[]);
        self.b.switch_to_block(go);
    }

    /// Returns "statement `k` changed `lv`'s variable" when `changed` holds, else goes on to
    /// `next`.
    fn changed_exit(&mut self, changed: Value, lv: &LValue, k: usize, next: Block) {
        let ret = self.b.create_block();
        self.b.ins().brif(changed, ret, &[], next, &[]);
        self.b.switch_to_block(ret);
        let mut code = self.int((((k as i64) + 1) << 16) | lv.var as i64);
        if let Some(tag) = self.exit_tag {
            code = self.b.ins().bor(code, tag);
        }
        self.b.ins().return_(&[code]);
    }

    /// `x` as the integer a store into `lv` reads: a real floored, a fault (at `self.loc`)
    /// if it has no 64-bit integer value.
    fn storable(&mut self, lv: &LValue, x: V) -> Value {
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
    fn store(&mut self, lv: &LValue, op: AssignOp, x: Value) -> (Value, Value) {
        let env = self.env;
        let addr = self.lv_addr(lv);
        let old = self.b.ins().load(I64, MemFlagsData::trusted(), addr, 0);
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
                self.call(
                    h::store_overflow as *const () as usize,
                    &[self.ptr, I32, I64, I64, I32],
                    None,
                    &[env, code, old, x, loc],
                );
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
        self.b.ins().store(MemFlagsData::trusted(), v, addr, 0);
        (v, old)
    }

    /// `each: body` whose body is an assignment, perhaps under `if`s (see
    /// [`crate::engine::statements::simple_assign`]), as the engine runs it: first every faction's value
    /// is planned (its conditions and value read against the state before any store), then
    /// the planned values are stored in seat order; `others` skips the faction bound on
    /// entry. A change to a variable with immediate checks returns once, after every store.
    /// `for held DECK: body` for the bound faction: the body runs for each card of the deck
    /// it holds, in card order, each card looked at once (the engine's walk, one helper call
    /// a card); the body stores no variable with immediate checks.
    fn for_held(&mut self, deck: u16, body: &Stmt, k: usize, next: Block, hooked: &[bool]) {
        let (head, run, cont) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(head, I64);
        let zero = self.int(0);
        self.b.ins().jump(head, &[BlockArg::Value(zero)]);
        self.b.switch_to_block(head);
        let from = self.b.block_params(head)[0];
        let env = self.env;
        let d = self.i32c(deck as u32);
        let c = self.call_pure(
            h::next_held as *const () as usize,
            &[self.ptr, I32, I64],
            &[env, d, from],
        );
        let none = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, c, 0);
        self.b.ins().brif(none, next, &[], run, &[]);
        self.b.switch_to_block(run);
        self.stmt(body, k, cont, hooked);
        self.b.switch_to_block(cont);
        let after = self.b.ins().iadd_imm_s(c, 1);
        self.b.ins().jump(head, &[BlockArg::Value(after)]);
    }

    /// `each` over statements that are not one planned assignment (marks, `for held`,
    /// several kinds): the body runs for each faction in turn, as the engine runs it, then
    /// the outer binding is restored. The body stores no variable with immediate checks, so
    /// nothing in it can end the game.
    fn each_in_turn(&mut self, others: bool, body: &Stmt, k: usize, next: Block, hooked: &[bool]) {
        let outer = self.env_load(types::I8, Off::BOUND);
        let known = self.known[BOUND];
        for f in 0..self.t.nfactions {
            let done = self.b.create_block();
            let fv = self.b.ins().iconst(types::I8, f as i64);
            if others {
                let me = self.b.ins().icmp(IntCC::Equal, outer, fv);
                let go = self.b.create_block();
                self.b.ins().brif(me, done, &[], go, &[]);
                self.b.switch_to_block(go);
            }
            self.env_store(fv, Off::BOUND);
            self.known[BOUND] = Some(Known::Const(f));
            self.stmt(body, k, done, hooked);
            self.b.switch_to_block(done);
        }
        self.env_store(outer, Off::BOUND);
        self.known[BOUND] = known;
        self.b.ins().jump(next, &[]);
    }

    fn each(&mut self, others: bool, body: &Stmt, k: usize, next: Block, hooked: &[bool]) {
        let Some((lv, op, first, source)) = crate::engine::statements::simple_assign(body) else {
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
            let fv = self.b.ins().iconst(types::I8, f as i64);
            if others {
                let me = self.b.ins().icmp(IntCC::Equal, outer, fv);
                let go = self.b.create_block();
                self.b.ins().brif(me, done, &[], go, &[]);
                self.b.switch_to_block(go);
            }
            self.env_store(fv, Off::BOUND);
            self.known[BOUND] = Some(Known::Const(f));
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
            let (v, old) = self.store(lv, op, x);
            self.credit(lv, source, v, old);
            let c = self.b.ins().icmp(IntCC::NotEqual, v, old);
            let was = self.b.use_var(changed);
            let now = self.b.ins().bor(was, c);
            self.b.def_var(changed, now);
            self.b.ins().jump(skip, &[]);
            self.b.switch_to_block(skip);
        }
        self.env_store(outer, Off::BOUND);
        self.known[BOUND] = known;
        if hooked.get(lv.var as usize).copied().unwrap_or(false) {
            let c = self.b.use_var(changed);
            self.changed_exit(c, lv, k, next);
        } else {
            self.b.ins().jump(next, &[]);
        }
    }

    /// Plans `s` (an `if` chain ending in assignments) for the bound faction: records the
    /// value's kind and bits in `kind` and `bits`, then goes on to `done`.
    fn plan(&mut self, s: &Stmt, kind: Variable, bits: Variable, done: Block) {
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

    /// The address of the slot `lv` names (an element fixed or none), checked inside the
    /// buffer like every load.
    fn lv_addr(&mut self, lv: &LValue) -> Value {
        let e = match lv.elem {
            Elem::Fixed(i) => i as i64,
            _ => 0,
        };
        let w = self.who(lv.who);
        let mut idx = self.b.ins().imul_imm_s(w, lv.fstride as i64);
        idx = self.b.ins().iadd_imm_s(idx, lv.base as i64 + e);
        let inside = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, idx, self.slots as i64);
        let zero = self.int(0);
        let idx = self.b.ins().select(inside, idx, zero);
        let off = self.b.ins().ishl_imm_u(idx, 3);
        self.b.ins().iadd(self.vals, off)
    }

    // --- helpers for building -------------------------------------------------------------

    fn int(&mut self, c: i64) -> Value {
        self.b.ins().iconst(I64, c)
    }

    fn i32c(&mut self, c: u32) -> Value {
        self.b.ins().iconst(I32, c as i64)
    }

    fn real(&mut self, c: f64) -> Value {
        self.b.ins().f64const(c)
    }

    /// `v` as a real (an integer converted).
    fn as_real(&mut self, v: V) -> Value {
        match v.ty {
            Ty::Int => self.b.ins().fcvt_from_sint(F64, v.v),
            Ty::Real => v.v,
        }
    }

    /// `v` with type `ty` (an integer widened to a real when `ty` is real).
    fn conv(&mut self, v: V, ty: Ty) -> Value {
        match ty {
            Ty::Int => v.v,
            Ty::Real => self.as_real(v),
        }
    }

    /// `v != 0` as an `i8` truth value.
    fn truth(&mut self, v: V) -> Value {
        match v.ty {
            Ty::Int => self.b.ins().icmp_imm_s(IntCC::NotEqual, v.v, 0),
            Ty::Real => {
                let z = self.real(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, v.v, z)
            }
        }
    }

    /// An `i8` truth as an integer 0 or 1.
    fn bool_int(&mut self, c: Value) -> Value {
        self.b.ins().uextend(I64, c)
    }

    fn env_load(&mut self, ty: Type, off: i32) -> Value {
        self.b
            .ins()
            .load(ty, MemFlagsData::trusted(), self.env, off)
    }

    fn env_store(&mut self, v: Value, off: i32) {
        self.b
            .ins()
            .store(MemFlagsData::trusted(), v, self.env, off);
    }

    /// Calls helper `f` (an `extern "C"` function with these parameter and result types).
    fn call(&mut self, f: usize, params: &[Type], ret: Option<Type>, args: &[Value]) -> Value {
        self.faulty = true;
        let key = (params.to_vec(), ret);
        let sig = match self.sigs.get(&key) {
            Some(s) => *s,
            None => {
                let mut s = Signature::new(self.cc);
                s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
                s.returns.extend(ret.map(AbiParam::new));
                let r = self.b.import_signature(s);
                self.sigs.insert(key, r);
                r
            }
        };
        let addr = self.b.ins().iconst(self.ptr, f as i64);
        let call = self.b.ins().call_indirect(sig, addr, args);
        match ret {
            Some(_) => self.b.inst_results(call)[0],
            None => addr,
        }
    }

    /// Like [`Lower::call`] for a helper that returns an `i64` and can record no fault.
    fn call_pure(&mut self, f: usize, params: &[Type], args: &[Value]) -> Value {
        let faulty = self.faulty;
        let v = self.call(f, params, Some(I64), args);
        self.faulty = faulty;
        v
    }

    /// The faction index `w` names, as an `i64`.
    fn who(&mut self, w: Who) -> Value {
        let (off, k) = match w {
            Who::None => return self.int(0),
            Who::Fixed(f) => return self.int(f as i64),
            Who::Bound => (Off::BOUND, BOUND),
            Who::Me => (Off::ME, ME),
            Who::Target => (Off::TARGET, TARGET),
        };
        match self.known[k] {
            Some(Known::Const(c)) => return self.int(c as i64),
            Some(Known::Val(v)) => return v,
            None => {}
        }
        let v = self.env_load(types::I8, off);
        self.b.ins().uextend(I64, v)
    }

    // --- the operations ---------------------------------------------------------------------

    fn node(&mut self, n: &Node) -> V {
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

    fn load(&mut self, base: u32, fs: u32, who: Who, elem: Elem) -> Value {
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
            _ => {
                let w = self.who(who);
                let mut idx = self.b.ins().imul_imm_s(w, fs as i64);
                idx = self.b.ins().iadd_imm_s(idx, base as i64);
                if fixed_elem.is_none() {
                    let e = self.env_load(types::I16, Off::ELEM);
                    let e = self.b.ins().uextend(I64, e);
                    idx = self.b.ins().iadd(idx, e);
                } else if let Some(e) = fixed_elem {
                    idx = self.b.ins().iadd_imm_s(idx, e as i64);
                }
                idx
            }
        };
        // The engine binds only factions and elements that exist, so the index is always in
        // range; the check keeps every access inside the buffer whatever happens.
        let inside = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedLessThan, idx, self.slots as i64);
        let zero = self.int(0);
        let idx = self.b.ins().select(inside, idx, zero);
        let off = self.b.ins().ishl_imm_u(idx, 3);
        let addr = self.b.ins().iadd(self.vals, off);
        self.b.ins().load(I64, MemFlagsData::trusted(), addr, 0)
    }

    fn leaf(&mut self, op: Op) -> Value {
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
                if let Who::Fixed(f) = w {
                    let table = if matches!(op, Op::Side(_)) {
                        &self.t.side
                    } else {
                        &self.t.player
                    };
                    if let Some(&c) = table.get(f as usize) {
                        return self.int(c);
                    }
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

    fn unary(&mut self, op: Op, a: &Node) -> V {
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
                let d = self.i32c(d as u32);
                let env = self.env;
                self.call(
                    h::has_completed as *const () as usize,
                    &[self.ptr, I32, I64],
                    Some(I64),
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
    fn checked(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let (r, over) = match op {
            BinOp::Add => self.b.ins().sadd_overflow(a, b),
            BinOp::Sub => self.b.ins().ssub_overflow(a, b),
            _ => self.b.ins().smul_overflow(a, b),
        };
        self.unless(over, r, I64, |l| l.int_helper(op, a, b))
    }

    /// `fast`, unless `bad` holds: then the value `slow` builds on a cold path (where a
    /// helper records the fault).
    fn unless(
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
    fn real_helper(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let (o, l) = (self.i32c(code_of(&BIN_OPS, op)), self.i32c(self.loc));
        let env = self.env;
        self.call(
            h::real_bin as *const () as usize,
            &[self.ptr, I32, F64, F64, I32],
            Some(F64),
            &[env, o, a, b, l],
        )
    }

    fn int_helper(&mut self, op: BinOp, a: Value, b: Value) -> Value {
        let (o, l) = (self.i32c(code_of(&BIN_OPS, op)), self.i32c(self.loc));
        let env = self.env;
        self.call(
            h::int_bin as *const () as usize,
            &[self.ptr, I32, I64, I64, I32],
            Some(I64),
            &[env, o, a, b, l],
        )
    }

    fn binary(&mut self, op: BinOp, a: &Node, b: &Node, ty: Ty) -> V {
        let (x, y) = (self.node(a), self.node(b));
        let arith = matches!(
            op,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::Mod | BinOp::Div
        );
        if arith && ty == Ty::Int {
            let v = match op {
                BinOp::Add | BinOp::Sub | BinOp::Mul => self.checked(op, x.v, y.v),
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

    fn cond(&mut self, c: &Node, t: &Node, f: &Node, ty: Ty) -> V {
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

    fn func(&mut self, f: Func, args: &[Node], ty: Ty) -> V {
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
            let two = [F64, F64];
            match f {
                Func::Min | Func::Max => {
                    let (start, h) = if f == Func::Min {
                        (f64::INFINITY, h::fmin as *const () as usize)
                    } else {
                        (f64::NEG_INFINITY, h::fmax as *const () as usize)
                    };
                    let mut m = self.real(start);
                    for &x in &a {
                        m = self.call(h, &two, Some(F64), &[m, x]);
                    }
                    m
                }
                Func::Abs => self.b.ins().fabs(a[0]),
                _ => {
                    let m = self.call(
                        h::fmax as *const () as usize,
                        &two,
                        Some(F64),
                        &[a[0], a[1]],
                    );
                    self.call(h::fmin as *const () as usize, &two, Some(F64), &[m, a[2]])
                }
            }
        };
        V { v, ty }
    }

    /// `bernoulli(p)`, exactly as the reference draws it (`rand`'s `Bernoulli`): for `p` in
    /// [0, 1), one 64-bit word below `p * 2^64` (truncated) is a success. That common case
    /// runs inline with one call for the word; `p` of 1 (true without a draw) and the
    /// faulting cases call the reference helper.
    fn bernoulli(&mut self, p: Value, loc: Value) -> Value {
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
        // 2^64, the scale `rand` uses.
        let scale = self.real(2.0 * (1u64 << 63) as f64);
        let scaled = self.b.ins().fmul(p, scale);
        let bound = self.b.ins().fcvt_to_uint_sat(I64, scaled);
        let word = self.call_pure(h::word as *const () as usize, &[self.ptr], &[env]);
        let hit = self.b.ins().icmp(IntCC::UnsignedLessThan, word, bound);
        let v = self.b.ins().uextend(I64, hit);
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    fn rand(&mut self, f: RandFn, args: &[Node], ty: Ty) -> V {
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
                let v = self.call(
                    h::unit as *const () as usize,
                    &[self.ptr],
                    Some(F64),
                    &[env],
                );
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
    fn agg(&mut self, kind: Agg, others: Option<bool>, count: u16, body: &Node, ty: Ty) -> V {
        let (off, bty, n) = match others {
            Some(_) => (Off::BOUND, types::I8, self.t.nfactions as i64),
            None => (Off::ELEM, types::I16, count as i64),
        };
        let outer = self.env_load(bty, off);
        let known = self.known[BOUND];
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
        if others.is_some() && n <= UNROLL_FACTIONS && small(body, &mut 24) {
            // A few factions and a small body: one copy per faction, each with its faction
            // known (its loads at fixed slots), in seat order as the loop would run them.
            for f in 0..n as u8 {
                let next = self.b.create_block();
                if others == Some(true) {
                    let fv = self.b.ins().iconst(types::I8, f as i64);
                    let skip = self.b.ins().icmp(IntCC::Equal, outer, fv);
                    let go = self.b.create_block();
                    self.b.ins().brif(skip, next, &[], go, &[]);
                    self.b.switch_to_block(go);
                }
                let fv = self.b.ins().iconst(types::I8, f as i64);
                self.env_store(fv, off);
                self.known[BOUND] = Some(Known::Const(f));
                self.agg_member(kind, int, acc, seen, body, known);
                self.b.ins().jump(next, &[]);
                self.b.switch_to_block(next);
            }
        } else {
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
            if others.is_some() {
                self.known[BOUND] = Some(Known::Val(iv));
            }
            self.agg_member(kind, int, acc, seen, body, known);
            self.b.ins().jump(next, &[]);

            self.b.switch_to_block(next);
            let iv = self.b.use_var(i);
            let iv = self.b.ins().iadd_imm_s(iv, 1);
            self.b.def_var(i, iv);
            self.b.ins().jump(head, &[]);
            self.b.switch_to_block(exit);
        }
        self.env_store(outer, off);
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
    fn agg_member(
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
                Agg::Max => self.call(
                    h::fmax as *const () as usize,
                    &[F64, F64],
                    Some(F64),
                    &[a, v],
                ),
                Agg::Min => self.call(
                    h::fmin as *const () as usize,
                    &[F64, F64],
                    Some(F64),
                    &[a, v],
                ),
                _ => self.b.ins().fadd(a, v),
            }
        };
        self.b.def_var(acc, new);
        let one = self.int(1);
        self.b.def_var(seen, one);
    }

    /// `acc + v` for a sum; on overflow the fault is recorded and the sum keeps `acc`, as
    /// the reference aggregate does.
    fn checked_sum(&mut self, a: Value, v: Value) -> Value {
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
