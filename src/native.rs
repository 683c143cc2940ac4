//! The native engine: a model compiled to machine code with Cranelift.
//!
//! Owns the choice of engine (`--engine native|interp`) and the compilation of a loaded
//! [`Model`] into four kinds of machine-code functions, each lowered by the `lower` module:
//! - every formula that is not a constant (conditions, weights, values, chances, costs,
//!   initial values, ranking keys, the right-hand side of every assignment), installed in its
//!   [`Expr`], which then runs it instead of the interpreter's closures;
//! - every run of assignments, `if`s, `each`, `for held`, `race`, `award` (without a
//!   tie-break chain), `order`, `draw`, `take`, `discard`, `complete`, `end` and
//!   `win`/`lose` marks in an effect list ([`crate::expr::NativeRun`], installed as one [`Stmt::Native`]): the
//!   stores, with their flooring, overflow checks, bounds and points-by-source credit, run in
//!   machine code, which notes the immediate end conditions of a variable a store changes
//!   as pending; marks and pending conditions go to the environment, where the engine
//!   settles them when the list ends;
//! - the end conditions ([`Checks`]): those of each timing checked at one moment in one
//!   function, and the pending immediate ones in another (the end of a statement list);
//! - each agent's turn ([`Menu`]): availability, targets, costs and weights of its whole
//!   menu in one straight-line function, then the choice among the options (a weighted
//!   choice inline, its uniform draw too; a priority choice by one
//!   helper), then the chosen action taken inline when its effects are nothing or one
//!   statement run (its costs paid as stores); any other chosen action returns to the
//!   engine to take;
//! - the round ([`Round`]), when every piece of it has machine code: events, checks, phases,
//!   turn order, each turn's decisions and the step budget, calling the functions above at
//!   their addresses, so that a round enters machine code once.
//!
//! The interpreter stays the reference semantics: the generated code calls the same
//! operation definitions for everything that can fault or draw a random number (the
//! `helpers` module), so both engines give identical games, faults and random streams, and
//! the tests hold them to that. Traces always interpret statements, so they show every store.
//!
//! Where Cranelift cannot target the host, [`prepare`] says so once on stderr and the model
//! runs on the interpreter.

mod helpers;
mod jit;
mod lower;
mod profile;
mod stmts;
mod unit;

use crate::ids::{ActionId, FactionId};
use std::time::{Duration, Instant};

use cranelift_codegen::ir::{AbiParam, types};

use crate::expr::{Expr, Stmt};
use crate::model::{Model, Moment, Policy, Timing};
use crate::runtime::abi::{CheckFns, Checks, Formula, Keep, Menu, Round};
pub use stmts::runs_left_to_the_engine;
use stmts::{compile_setup, compile_stmts};
use unit::Unit;

/// Which engine plays the games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Engine {
    /// Formulas compiled to machine code when the scenario is loaded (the default).
    #[default]
    Native,
    /// The interpreter: the reference semantics, identical results, slower.
    Interp,
}

/// What a compilation did.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    /// Machine-code functions made: formulas that are not constants and run on their own,
    /// statement runs, option scans, end checks and rounds.
    pub functions: usize,
    /// Time spent lowering and compiling.
    pub elapsed: Duration,
}

/// Prepares `m` for `engine`: compiles it (not its examples' setting variants, see
/// [`prepare_examples`]) to machine code for the native engine. Returns the engine the model
/// will run on: the interpreter when the host cannot be targeted (said once per process on
/// stderr).
pub fn prepare(m: &mut Model, engine: Engine) -> Engine {
    if engine == Engine::Interp {
        return Engine::Interp;
    }
    match compile_model(m) {
        Ok(_) => Engine::Native,
        // Stopped by a signal: the caller exits (see `crate::signal`); nothing to warn of.
        Err(_) if crate::signal::stopped() => Engine::Interp,
        Err(why) => {
            unavailable(&why);
            Engine::Interp
        }
    }
}

/// Prepares the setting variants of `m`'s worked examples for `engine` (only running the
/// examples needs them), as [`prepare`] does the model.
pub fn prepare_examples(m: &mut Model, engine: Engine) {
    if engine == Engine::Interp {
        return;
    }
    for ex in &mut m.examples {
        if let Some(v) = &mut ex.variant
            && let Err(why) = compile_one(v)
        {
            if !crate::signal::stopped() {
                unavailable(&why);
            }
            return;
        }
    }
}

/// Says once per process that the native engine is not available, and why.
fn unavailable(why: &str) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        crate::diagnostic::say(&format!(
            "vpsim: the native engine is not available here ({why}); using the interpreter"
        ))
    });
}

/// Compiles `m` (not its examples' setting variants) to machine code.
pub fn compile_model(m: &mut Model) -> Result<Report, String> {
    let start = Instant::now();
    let functions = compile_one(m)?;
    Ok(Report {
        functions,
        elapsed: start.elapsed(),
    })
}

/// Compiles `m` and its examples' setting variants to machine code.
pub fn compile(m: &mut Model) -> Result<Report, String> {
    let start = Instant::now();
    let mut functions = compile_one(m)?;
    for ex in &mut m.examples {
        if let Some(v) = &mut ex.variant {
            functions += compile_one(v)?;
        }
    }
    Ok(Report {
        functions,
        elapsed: start.elapsed(),
    })
}

fn compile_one(m: &mut Model) -> Result<usize, String> {
    let tables = m.tables.clone();
    let slots = m.slots;
    // Statement runs and option scans first: the formulas they hold need no function of
    // their own.
    let n = compile_stmts(m)? + compile_menus(m)? + compile_checks(m)?;
    let n = n + compile_round(m)? + compile_setup(m)?;
    Ok(n + compile_with(&tables, slots, &mut |f| m.loose_exprs_mut(f))?)
}

/// The most options a turn compiled to machine code scans (see [`compile_menus`]).
const NATIVE_MENU_OPTIONS: usize = 2048;

/// Compiles the option scan of every faction whose policy is weighted or priority (the
/// greedy policy draws noise per option and stays on the interpreter, as do a fixed mix and
/// a faction whose choices are counted). Returns how many functions were made.
fn compile_menus(m: &mut Model) -> Result<usize, String> {
    m.menus = Vec::new();
    if m.slots == 0 {
        return Ok(0);
    }
    let n = m.nfactions();
    let hooks = hooks(m);
    let mut unit = Unit::new(&m.tables)?;
    // Factions with the same menu and scores share one function.
    // Each function's menu, priorities and capacity.
    type Made<'m> = (Vec<u16>, Option<&'m [u16]>, usize, bool, u32);
    let mut made: Vec<Made<'_>> = Vec::new();
    let mut ids = Vec::new();
    let mut of_faction = vec![None; n];
    for (f, slot) in of_faction.iter_mut().enumerate() {
        let agent = &m.agents[FactionId::from_index(f)];
        let priority = match agent.policy {
            // A mix's weights and a counted faction's choices stay with the engine.
            _ if agent.mix.is_some() || agent.counted => continue,
            Policy::Weighted => None,
            Policy::Priority => Some(&agent.priority[..]),
            Policy::Greedy => continue,
        };
        let searched = agent.look.is_some();
        let menu: Vec<u16> = m.menu(FactionId::from_index(f)).map(|a| a.0).collect();
        // A menu of thousands of options stays with the engine's scan: one function that
        // long costs Cranelift's optimiser time and memory that grow faster than its size,
        // for a turn whose scan is as long either way.
        let options: usize = menu
            .iter()
            .map(|&ai| {
                if m.actions[ActionId(ai)].targeted {
                    n - 1
                } else {
                    1
                }
            })
            .sum();
        if options > NATIVE_MENU_OPTIONS {
            continue;
        }
        if let Some(i) = made
            .iter()
            .position(|(k, p, _, s, _)| *k == menu && *p == priority && *s == searched)
        {
            *slot = Some(i);
            continue;
        }
        let items: Vec<(u16, &crate::model::Action)> = menu
            .iter()
            .map(|&ai| (ai, &m.actions[ActionId(ai)]))
            .collect();
        let cap = items
            .iter()
            .map(|(_, a)| if a.targeted { n - 1 } else { 1 })
            .sum();
        let sig = &mut unit.ctx.func.signature;
        sig.call_conv = unit.cc;
        for _ in 0..3 {
            sig.params.push(AbiParam::new(unit.ptr));
        }
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        unit.lower(&m.tables, m.slots, 0)
            .with_hooks(&hooks)
            .with_uses(m.count_uses.then_some(m.actions.len() as u64))
            .finish_menu(n as u8, &items, priority, agent.look.is_some());
        let id = unit.define("an agent's turn")?;
        *slot = Some(made.len());
        ids.push(id);
        made.push((menu, priority, cap, searched, unit.last_size));
    }
    let (code, fns) = unit.finish(&ids, jit::Code::finish_menus)?;
    let menus = of_faction
        .iter()
        .enumerate()
        .map(|(f, i)| i.map(|i| Menu::new(fns[i], f as u8, made[i].2, made[i].4, code.clone())))
        .collect();
    m.menus = menus;
    Ok(ids.len())
}

/// Compiles the end conditions: one function for the conditions of each timing checked at
/// one moment (turn start, round start, round end), and one for the immediate conditions
/// pending at the end of a statement list. Returns how many functions were made.
fn compile_checks(m: &mut Model) -> Result<usize, String> {
    m.check_fns = CheckFns::default();
    if m.slots == 0 || m.checks.is_empty() {
        return Ok(0);
    }
    let mut unit = Unit::new(&m.tables)?;
    // Each function's conditions, and where it goes: `Some(timing)`, or `None` (pending).
    let mut lists: Vec<(Vec<&crate::model::Check>, Option<usize>)> = Vec::new();
    for t in Moment::ROUND {
        let list: Vec<_> = m
            .checks
            .iter()
            .filter(|c| c.timing == Timing::At(t))
            .collect();
        if !list.is_empty() {
            lists.push((list, Some(t as usize)));
        }
    }
    if !m.immediate.is_empty() {
        let list = m.immediate.iter().map(|&i| &m.checks[i as usize]).collect();
        lists.push((list, None));
    }
    let mut ids = Vec::new();
    for (list, at) in &lists {
        unit.env_vals();
        let lower = unit.lower(&m.tables, m.slots, 0);
        match at {
            Some(_) => lower.finish_checks(list),
            None => lower.finish_pending(list),
        }
        ids.push(unit.define("end conditions")?);
    }
    let (code, fns) = unit.finish(&ids, jit::Code::finish)?;
    let mut made = CheckFns::default();
    for ((_, at), f) in lists.iter().zip(fns) {
        let c = Some(Checks::new(f, code.clone()));
        match *at {
            Some(t) => made.timing[t] = c,
            None => made.pending = c,
        }
    }
    m.check_fns = made;
    Ok(ids.len())
}

/// The statement run an effect list is, by address, with its code: `Some(None)` for no
/// effects, `None` when the list is anything else (the round then stays in the engine).
fn run_of(list: &[Stmt]) -> Option<Option<(usize, Keep)>> {
    match list {
        [] => Some(None),
        [Stmt::Native(n)] => n.f.as_ref().map(|f| Some(f.parts())),
        _ => None,
    }
}

/// Compiles the round loop when every piece of it has machine code: each phase's and
/// event's effects are nothing or one compiled statement run, turn order has at most
/// [`crate::state::MAX_ORDER_KEYS`] keys (which the language allows), and every faction has a turn whose actions all run inline (pays its costs and runs
/// its effects itself). Returns how many functions were made (0 or 1).
fn compile_round(m: &mut Model) -> Result<usize, String> {
    m.round_fn = None;
    m.round_in_engine = None;
    match round_plan_parts(m) {
        Ok(()) => {}
        Err(why) => {
            m.round_in_engine = why;
            return Ok(0);
        }
    }
    finish_compile_round(m)
}

/// Whether every piece of a round has machine code: `Err(why)` names the first that has
/// not (`Err(None)` for a model with no state, whose round has nothing to compile).
fn round_plan_parts(m: &Model) -> Result<(), Option<String>> {
    let no = |why: String| Err(Some(why));
    if m.slots == 0 {
        return Err(None);
    }
    // Automatic actions follow a turn: the engine plays such rounds (its statement lists
    // still run as machine code).
    if let Some(a) = m.actions.iter().find(|a| a.auto.is_some()) {
        return no(format!("the automatic action {} follows a turn", a.name));
    }
    for p in &m.phases {
        if run_of(&p.effects).is_none() || run_of(&p.before).is_none() {
            return no(format!(
                "phase {}'s statements are not all machine code",
                p.name
            ));
        }
        if p.order.len() > crate::state::MAX_ORDER_KEYS {
            return no(format!(
                "phase {} orders its turns by more than {} keys",
                p.name,
                crate::state::MAX_ORDER_KEYS
            ));
        }
    }
    if let Some(e) = m.events.iter().find(|e| run_of(&e.effects).is_none()) {
        return no(format!(
            "event {}'s statements are not one machine-code run",
            e.name
        ));
    }
    if m.phases.iter().any(|p| p.actions.is_some()) {
        if let Some(a) = m
            .actions
            .iter()
            .find(|a| lower::inline_effects(a).is_none())
        {
            return no(format!("action {}'s effects do not run inline", a.name));
        }
        if m.menus.len() != m.nfactions() || m.menus.iter().any(Option::is_none) {
            return no("a faction's menu has no machine-code scan".into());
        }
    }
    for t in Moment::ROUND {
        let at = Timing::At(t);
        if m.checks.iter().any(|c| c.timing == at) && m.check_fns.timing[t as usize].is_none() {
            return no(
                "an end condition checked at a turn or round boundary has no machine code".into(),
            );
        }
    }
    if m.check_fns.pending.is_none() && !m.immediate.is_empty() {
        return no("an immediate end condition has no machine code".into());
    }
    Ok(())
}

/// Compiles the round loop of a model whose every piece has machine code
/// ([`round_plan_parts`]). Returns how many functions were made (1).
fn finish_compile_round(m: &mut Model) -> Result<usize, String> {
    let mut codes = Vec::new();
    let mut keep = |r: Option<(usize, Keep)>| {
        r.map(|(a, c)| {
            codes.push(c);
            a
        })
    };
    let mut phases = Vec::new();
    // The round's phases (the game-end ones, a list of their own, are the engine's to run,
    // once, when the game has ended).
    for p in &m.phases {
        let (Some(run), Some(before)) = (run_of(&p.effects), run_of(&p.before)) else {
            return Ok(0);
        };
        let before = keep(before);
        phases.push(lower::PhasePlan {
            phase: p,
            runs: [before, keep(run)],
            parts: m.turn_parts(p),
        });
    }
    let mut events = Vec::new();
    for e in &m.events {
        let Some(run) = run_of(&e.effects) else {
            return Ok(0);
        };
        events.push((e, keep(run)));
    }
    let mut menus = Vec::new();
    let mut cap = 0;
    if m.phases.iter().any(|p| p.actions.is_some()) {
        for menu in &m.menus {
            let Some(menu) = menu else { return Ok(0) };
            let (f, code) = menu.parts();
            menus.push(f);
            cap = cap.max(menu.capacity());
            codes.push(code);
        }
    }
    let mut checks = [None; 4];
    for t in Moment::ROUND {
        if m.checks.iter().any(|c| c.timing == Timing::At(t)) {
            let Some(c) = &m.check_fns.timing[t as usize] else {
                return Ok(0);
            };
            let (f, code) = c.parts();
            checks[t as usize] = Some(f);
            codes.push(code);
        }
    }
    let pending = match &m.check_fns.pending {
        Some(c) => {
            let (f, code) = c.parts();
            codes.push(code);
            Some((
                f,
                m.immediate.iter().map(|&i| &m.checks[i as usize]).collect(),
            ))
        }
        None => None,
    };
    let plan = lower::RoundPlan {
        phases,
        events,
        checks,
        pending,
        menus,
        max_steps: m.max_steps,
        finals: (m.checks.iter())
            .filter(|c| matches!(c.timing, Timing::Then(_)))
            .collect(),
        turn: shared_turn(m),
    };
    let hooks = hooks(m);
    let mut unit = Unit::new(&m.tables)?;
    unit.env_vals();
    (unit.lower(&m.tables, m.slots, 0))
        .with_hooks(&hooks)
        .with_uses(m.count_uses.then_some(m.actions.len() as u64))
        .finish_round(&plan);
    let id = unit.define("a round")?;
    let (code, fns) = unit.finish(&[id], jit::Code::finish_round)?;
    codes.insert(0, code);
    m.round_fn = Some(Round::new(fns[0], cap, codes));
    Ok(1)
}

/// The largest turn (in bytes of its own function's machine code) a round lowers inline.
/// Measured on the seed scenarios (instructions a game, inline against a call): their turns
/// of 2.8 to 9.4 KiB ran 0.6k to 8k instructions a game faster inline, their turns of 13.8
/// to 26.5 KiB 1.8k to 7.4k slower (the round's registers spill around a long menu).
const INLINE_TURN_BYTES: u32 = 12 * 1024;

/// The turn every faction of `m` shares (the same menu, priorities and search), for a round
/// to lower inline at each decision; `None` when factions differ, no phase has actions, or
/// the turn is longer than [`INLINE_TURN_BYTES`].
fn shared_turn(m: &Model) -> Option<lower::InlineTurn<'_>> {
    if !m.phases.iter().any(|p| p.actions.is_some()) {
        return None;
    }
    // `compile_menus` gives the factions with the same menu, priorities and search one
    // function: the turn is shared when every faction's handle names the first's.
    let first = m.menus.first()?.as_ref()?;
    let addr = first.parts().0;
    let shared = (m.menus.iter()).all(|t| t.as_ref().is_some_and(|t| t.parts().0 == addr));
    if !shared || first.code_size() > INLINE_TURN_BYTES {
        return None;
    }
    let a = &m.agents[FactionId(0)];
    Some(lower::InlineTurn {
        items: m
            .menu(FactionId(0))
            .map(|ai| (ai.0, &m.actions[ai]))
            .collect(),
        priority: (a.policy == Policy::Priority).then_some(&a.priority[..]),
        searched: a.look.is_some(),
    })
}

/// The immediate end conditions machine code notes as pending, as the engine does.
fn hooks(m: &Model) -> lower::Hooks {
    lower::Hooks {
        by_var: m.immediate_by_var.clone(),
        on_draw: m.immediate_on_draw.clone(),
    }
}

/// A walk over formulas: it calls the function it is given on each one.
pub(crate) type Visit<'a> = dyn FnMut(&mut dyn FnMut(&mut Expr)) + 'a;

/// Compiles the formulas `visit` presents (twice, in the same order: once to compile, once
/// to install), over a state of `slots` variables and the static tables `t`. Returns how
/// many functions were made.
pub(crate) fn compile_with(
    t: &crate::state::Tables,
    slots: usize,
    visit: &mut Visit<'_>,
) -> Result<usize, String> {
    let mut unit = Unit::new(t)?;
    let mut ids = Vec::new();
    let mut failed = None;
    visit(&mut |e: &mut Expr| {
        if e.as_const_num().is_some() || failed.is_some() {
            return;
        }
        unit.env_vals();
        unit.lower(t, slots, e.loc).finish(&e.tree());
        match unit.define("a formula") {
            Ok(id) => ids.push(id),
            Err(err) => failed = Some(err),
        }
    });
    if let Some(f) = failed {
        return Err(f);
    }
    let (code, fns) = unit.finish(&ids, jit::Code::finish)?;
    let n = fns.len();
    let mut fns = fns.into_iter();
    visit(&mut |e: &mut Expr| {
        if e.as_const_num().is_some() {
            return;
        }
        if let Some(f) = fns.next() {
            e.set_native(Formula::new(f, code.clone()));
        }
    });
    Ok(n)
}
