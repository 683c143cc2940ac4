//! Lowering a model to Cranelift IR: formulas, statement runs, agents' turns and end checks.
//!
//! Owns the machine-code form of every operation of the formula language. Integers are `i64`
//! values and reals `f64` values, exactly as the typing of [`crate::expr::tree`] says; `+ - *`
//! and comparisons, loads of variables, bindings, conditionals and aggregations over
//! factions and set elements are lowered inline, and the overflow path of integer arithmetic
//! branches to the reference operation, which records the fault. Everything that is a real
//! algorithm or can fail in more than one way (random draws, `//`, `%`, rounding a real, the
//! deck builtins) is a call to a named function of [`super::helpers`].
//!
//! This file owns the builder ([`Lower`]), the four kinds of functions it finishes
//! (formulas, statement runs, agents' turns, end checks) with their entry and exit codes, and
//! the small building blocks they share; [`calls`] calls helpers (and their trampolines),
//! [`ops`] lowers the operations of formulas, [`stmts`] the statements, [`places`] those that
//! place factions (awards, races, orders), [`menu`] agents' turns and [`round`] whole rounds.

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    Block, BlockArg, GlobalValue, InstBuilder, InstructionData, MemFlagsData, Opcode, SigRef, Type,
    Value, types,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::{FunctionBuilder, Variable};

use super::helpers::{self as h, BIN_OPS, RAND_FNS, ROUND_FNS, code_of};
use crate::expr::tree::{Node, Ty};
use crate::expr::{
    Agg, AssignOp, BinOp, Elem, Env, Expr, Func, LValue, Op, OutcomeKind, RandFn, Stmt, Who,
};
use crate::model::{Action, Check, CheckKind, Moment, Schedule, Timing};
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
    const RET: i32 = std::mem::offset_of!(Env<'static>, ret) as i32;
    const QUIET: i32 = std::mem::offset_of!(Env<'static>, quiet) as i32;
    const PENDING: i32 = std::mem::offset_of!(Env<'static>, progress.pending) as i32;
    const ELIGIBLE: i32 = std::mem::offset_of!(Env<'static>, eligible) as i32;
    const RACE_KEYS: i32 = (std::mem::offset_of!(Env<'static>, race)
        + std::mem::offset_of!(crate::runtime::Completers, keys)) as i32;
    const RACE_ORDER: i32 = (std::mem::offset_of!(Env<'static>, race)
        + std::mem::offset_of!(crate::runtime::Completers, order))
        as i32;
    const RACE_ROWS: i32 = (std::mem::offset_of!(Env<'static>, race)
        + std::mem::offset_of!(crate::runtime::Completers, rows)) as i32;
    const RNG_STATE: i32 = (std::mem::offset_of!(Env<'static>, rng)
        + std::mem::offset_of!(crate::rng::Rng, state)) as i32;
    const RNG_KEY: i32 = (std::mem::offset_of!(Env<'static>, rng)
        + std::mem::offset_of!(crate::rng::Rng, key)) as i32;
    const RNG_SEG: i32 = (std::mem::offset_of!(Env<'static>, rng)
        + std::mem::offset_of!(crate::rng::Rng, seg)) as i32;
    const STEPS: i32 = std::mem::offset_of!(Env<'static>, progress.steps) as i32;
    const MARKS_WIN: i32 = (std::mem::offset_of!(Env<'static>, progress.marks)
        + std::mem::offset_of!(crate::runtime::Marks, win)) as i32;
    const MARKS_LOSE: i32 = (std::mem::offset_of!(Env<'static>, progress.marks)
        + std::mem::offset_of!(crate::runtime::Marks, lose)) as i32;
    const SEAT_OF: i32 = (std::mem::offset_of!(Env<'static>, seating)
        + std::mem::offset_of!(crate::runtime::seats::Seating, of)) as i32;
    const SEAT_AT: i32 = (std::mem::offset_of!(Env<'static>, seating)
        + std::mem::offset_of!(crate::runtime::seats::Seating, at)) as i32;
    const CARD: i32 =
        (std::mem::offset_of!(Env<'static>, st) + std::mem::offset_of!(State, card)) as i32;
}

/// The immediate end conditions generated code notes as pending (their bits, see
/// [`crate::runtime::Pending`]): those that read each variable (after a store changes it),
/// and those that read draws (after a `draw` or `take`).
#[derive(Debug, Default)]
pub(super) struct Hooks {
    /// Per variable, the conditions that read it.
    pub by_var: Vec<Vec<u16>>,
    /// The conditions that read the current card or decks.
    pub on_draw: Vec<u16>,
}

/// A deck's table of the card each id names, in the data of [`card_data`]: the entry of id
/// `lo + k` for `k < len` is that card's index or -1 (no card has it), and entry `len` is
/// -1, for every id out of range.
#[derive(Debug, Clone, Copy)]
pub(super) struct IdTable {
    /// The least id.
    pub lo: i64,
    /// Entries before the last.
    pub len: u64,
    /// Byte offset of the first entry in the data.
    pub at: i32,
}

/// The read-only data the code of a model reads, as `i64` values: the card attribute table
/// (`Tables::card_attrs`, a row of `n_attrs` values a card), one row of zeros (the
/// attributes of "no card", which `card.ATTR` reads for any index past the cards), then,
/// for each deck whose ids name one card each and span a table (`Tables::id_runs`), its
/// [`IdTable`]. Also where each deck's table is.
pub(super) fn card_data(t: &crate::state::Tables) -> (Vec<i64>, Vec<Option<IdTable>>) {
    let mut data = t.card_attrs.clone();
    data.extend(std::iter::repeat_n(0, t.n_attrs));
    let mut tables = Vec::new();
    for (lo, starts) in &t.id_runs {
        let runs = starts.windows(2);
        if starts.is_empty() || runs.clone().any(|w| w[1] - w[0] > 1) {
            tables.push(None);
            continue;
        }
        let at = i32::try_from(data.len() * 8).ok();
        tables.push(at.map(|at| IdTable {
            lo: *lo,
            len: starts.len() as u64 - 1,
            at,
        }));
        for w in starts.windows(2) {
            data.push(match w[1] > w[0] {
                true => t.by_id[w[0] as usize].2 as i64,
                false => -1,
            });
        }
        data.push(-1);
    }
    (data, tables)
}

/// A binding (acting faction, bound faction or target) the code being built knows without
/// loading it from the environment: a constant, or an `i64` value computed earlier and
/// proven below the number of factions ([`Lower::proven`]).
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
    /// The third parameter, if any: in an option scan, the buffer the options are written
    /// to.
    third: Option<Value>,
    /// The fourth parameter, if any: in an option scan, the acting faction.
    fourth: Option<Value>,
    /// In a statement-list function: the block that returns [`FAULTED`].
    fault_ret: Option<Block>,
    /// While a statement's formula is lowered ([`Lower::value`]): its draw sites
    /// ([`Node::draw_sites`]). A path that surely records a fault then returns [`FAULTED`]
    /// at once when no draw can follow it ([`Lower::fault_or_join`]).
    fault_jumps: Option<u32>,
    /// Where an agent's turn lowered inline into a round goes with its code (a block with
    /// one `i64` parameter) instead of returning it ([`Lower::leave`]).
    exit: Option<Block>,
    /// The immediate end conditions a store or a draw notes as pending (none when not given).
    hooks: Option<&'a Hooks>,
    /// In an agent's turn of a model that counts decisions: the number of actions (a choice
    /// counts `faction * actions + action`, see [`crate::model::Model::count_uses`]).
    uses: Option<u64>,
    /// The card attribute table (`Tables::card_attrs`) as data of the module, when the model
    /// has one: `card.ATTR` reads it inline.
    attrs: Option<GlobalValue>,
    /// Per deck, where [`card_data`] keeps its table of the card each id names, when it
    /// has one: `has_completed` reads it inline.
    ids: Vec<Option<IdTable>>,
    /// The bindings this point of the code knows (each also stored in the environment,
    /// which helpers read, unless [`Lower::pending`] holds it): `[me, bound, target]`.
    known: [Option<Known>; 3],
    /// Inside an aggregation over a set's elements: the element (an `i64`, the loop's
    /// count, below the second value, the set's size), also stored in the environment.
    elem: Option<(Value, u16)>,
    /// Bindings (`[me, bound, target]`, `i8` values) this point of the code has made but
    /// not yet stored into the environment: the target an option scan tries, the faction of
    /// an unrolled aggregation's member, the binding of an end condition. The environment
    /// holds them only where something reads them from memory: before each helper call and
    /// each read of the binding ([`Lower::flush_pending`]).
    pending: [Option<Value>; 3],
    /// Which bindings [`Lower::flush_pending`] stored since the scope that set them began:
    /// that scope restores those on exit (and only those).
    flushed: [bool; 3],
    /// Integers this function computed that are 0 or 1 (a comparison's result, say), each
    /// with its `i8` truth: [`Lower::truth`] of one is that truth, with no compare.
    bools: HashMap<Value, Value>,
    /// The module's trampolines, through which helpers called on a rare path are called
    /// (none: every helper is called directly).
    cold: Option<Cold<'a>>,
    /// Set while [`Lower::rarely`] builds a path that runs rarely if ever (a fault, a refill
    /// of the random stream): its helpers are called through their trampolines.
    rare: bool,
}

/// The return codes of generated functions (the ABI's).
pub(super) use crate::runtime::abi::{CHOSE, DONE, FAULTED, HELD, PASS};

impl<'a, 'f> Lower<'a, 'f> {
    /// Starts the body of a function `(env, vals) -> i64` in `b`.
    pub(super) fn new(
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
            fault_jumps: None,
            exit: None,
            hooks: None,
            uses: None,
            attrs: None,
            ids: Vec::new(),
            known: [None; 3],
            elem: None,
            pending: [None; 3],
            flushed: [false; 3],
            bools: HashMap::new(),
            cold: None,
            rare: false,
        }
    }

    /// Calls helpers on rare paths through the trampolines of `cold` (see [`trampoline`]).
    pub(super) fn with_cold(mut self, cold: Cold<'a>) -> Self {
        self.cold = Some(cold);
        self
    }

    /// Notes the immediate end conditions `hooks` as pending after a store that changes
    /// their variable and after a draw (statement lists and agents' turns).
    pub(super) fn with_hooks(mut self, hooks: &'a Hooks) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Counts each choice of an agent's turn among `actions` actions (see [`Lower::uses`]).
    pub(super) fn with_uses(mut self, actions: Option<u64>) -> Self {
        self.uses = actions;
        self
    }

    /// Reads card attributes and id tables from `attrs`, the model's card data imported
    /// into this function (see [`Lower::attrs`]), with its decks' id tables where `ids` says.
    pub(super) fn with_attrs(
        mut self,
        attrs: Option<GlobalValue>,
        ids: &[Option<IdTable>],
    ) -> Self {
        self.attrs = attrs;
        self.ids = ids.to_vec();
        self
    }

    /// Lowers `n` as the function's value (a real is returned as its bits) and finishes.
    pub(super) fn finish(mut self, n: &Node) {
        self.know_entry();
        let v = self.node(n);
        let bits = match v.ty {
            Ty::Int => v.v,
            Ty::Real => self.b.ins().bitcast(I64, MemFlagsData::new(), v.v),
        };
        self.b.ins().return_(&[bits]);
        self.b.seal_all_blocks();
        self.b.finalize(self.cfg);
    }

    /// Lowers the statements of a statement-list function `(env, vals) -> i64` and
    /// finishes: it runs `stmts` and returns [`DONE`], [`FAULTED`], or [`HELD`] with the
    /// reason of an `end` it ran.
    pub(super) fn finish_stmts(mut self, stmts: &[Stmt]) {
        self.know_entry();
        self.stmts(stmts);
        let done = self.int(DONE as i64);
        self.b.ins().return_(&[done]);
        self.end();
    }

    /// Lowers setup's evaluated initial values as a function `(env, vals) -> i64` and
    /// finishes: each `(f, assignment)` in order, with faction `f` bound as setup binds it
    /// (acting, bound and target, in the environment too), as the engine's `init_var` stores
    /// it (floored, clamped, a fault at the formula). Returns [`DONE`] or [`FAULTED`]; setup
    /// runs no end conditions.
    pub(super) fn finish_setup(mut self, inits: &[(u8, Option<u64>, Stmt)]) {
        let mut bound = None;
        for (f, part, s) in inits {
            if let Some(id) = part {
                let id = self.int(*id as i64);
                self.seek(id);
            }
            if bound != Some(*f) {
                let fv = self.b.ins().iconst(types::I8, *f as i64);
                for off in [Off::ME, Off::BOUND, Off::TARGET] {
                    self.env_store(fv, off);
                }
                self.known = [Some(Known::Const(*f)); 3];
                bound = Some(*f);
            }
            let next = self.b.create_block();
            self.stmt(s, next);
            self.b.switch_to_block(next);
        }
        let done = self.int(DONE as i64);
        self.b.ins().return_(&[done]);
        self.end();
    }

    /// Reads the binding the function was called with once, at its entry (the engine binds
    /// before it calls, and the statements and formulas of one call share that binding:
    /// a loop that binds a faction restores what it knew). Reads the code never uses are
    /// dropped by the compiler.
    fn know_entry(&mut self) {
        for (k, off) in [(ME, Off::ME), (BOUND, Off::BOUND), (TARGET, Off::TARGET)] {
            if self.known[k].is_none() {
                let v = self.env_load(types::I8, off);
                let v = self.b.ins().uextend(I64, v);
                self.known[k] = Some(Known::Val(self.proven(v)));
            }
        }
    }

    /// Lowers `stmts` in order, continuing in a new current block after the last.
    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            let next = self.b.create_block();
            self.stmt(s, next);
            self.b.switch_to_block(next);
        }
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

    /// Goes on when condition `c` holds, else jumps to `skip`.
    fn pass_if(&mut self, c: V, skip: Block) {
        let c = self.truth(c);
        let go = self.b.create_block();
        self.b.ins().brif(c, go, &[], skip, &[]);
        self.b.switch_to_block(go);
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
        let tree = e.tree();
        let jumps = self.fault_jumps.replace(tree.draw_sites());
        let v = self.node(&tree);
        self.fault_jumps = jumps;
        self.fault_exit();
        v
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
            // A constant stays one (what `const_real` sees: `clamp(x, 0, 1)` compares once).
            Ty::Int => match self.const_int(v.v) {
                Some(c) => self.real(c as f64),
                None => self.b.ins().fcvt_from_sint(F64, v.v),
            },
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
            Ty::Int => match self.bools.get(&v.v) {
                Some(&t) => t,
                None => self.b.ins().icmp_imm_s(IntCC::NotEqual, v.v, 0),
            },
            Ty::Real => {
                let z = self.real(0.0);
                self.b.ins().fcmp(FloatCC::NotEqual, v.v, z)
            }
        }
    }

    /// An `i8` truth as an integer 0 or 1.
    fn bool_int(&mut self, c: Value) -> Value {
        let v = self.b.ins().uextend(I64, c);
        self.bools.insert(v, c);
        v
    }

    fn env_load(&mut self, ty: Type, off: i32) -> Value {
        if [Off::ME, Off::BOUND, Off::TARGET].contains(&off) {
            self.flush_pending();
        }
        self.b
            .ins()
            .load(ty, MemFlagsData::trusted(), self.env, off)
    }

    fn env_store(&mut self, v: Value, off: i32) {
        self.b
            .ins()
            .store(MemFlagsData::trusted(), v, self.env, off);
    }

    /// Stores the pending bindings into the environment, where a helper or a read of the
    /// binding from memory will find them (see [`Lower::pending`]). They stay pending: a
    /// later reader on another path of the code stores them again.
    fn flush_pending(&mut self) {
        for (k, off) in [(ME, Off::ME), (BOUND, Off::BOUND), (TARGET, Off::TARGET)] {
            if let Some(v) = self.pending[k] {
                self.env_store(v, off);
                self.flushed[k] = true;
            }
        }
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
        let v = self.b.ins().uextend(I64, v);
        self.proven(v)
    }

    /// `v`, an `i64` faction index, made provably below the number of factions (an index at
    /// or above it becomes the last faction's). The engine binds only factions that exist,
    /// so this changes no value; it lets the code address a faction's variables without a
    /// check of its own ([`Lower::slot`]). Every [`Lower::who`] and [`Known::Val`] is such a
    /// value: a loop over the factions counts below their number, and every other index
    /// read from memory or a parameter goes through here.
    fn proven(&mut self, v: Value) -> Value {
        let top = self.int(self.t.nfactions.saturating_sub(1) as i64);
        self.b.ins().umin(v, top)
    }

    /// The entry of `table` at index `i` (an `i64`; 0 past its end or below 0), by selects
    /// over the entries: a scale's reward for a place, a faction's side.
    fn entry(&mut self, table: &[i64], i: Value) -> Value {
        let mut v = self.int(0);
        for (k, &x) in table.iter().enumerate().rev() {
            let here = self.b.ins().icmp_imm_s(IntCC::Equal, i, k as i64);
            let xv = self.int(x);
            v = self.b.ins().select(here, xv, v);
        }
        v
    }
}

mod aggs;
mod calls;
mod checks;
mod draws;
mod menu;
mod ops;
mod places;
mod positions;
mod round;
mod stmts;

pub(super) use calls::{Cold, Trampolines, trampoline, trampoline_sig};
pub(super) use menu::inline_effects;
pub(crate) use round::{InlineTurn, PhasePlan, RoundPlan};
