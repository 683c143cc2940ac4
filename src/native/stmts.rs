//! Effect lists and setup in machine code: which statements the lowering takes, the runs
//! of them in each effect list of phases, actions and events (each one [`NativeRun`],
//! installed as a [`Stmt::Native`]), and setup's evaluated initial values (one more
//! [`NativeRun`]).

use super::unit::Unit;
use super::{hooks, jit};
use crate::expr::{AssignOp, Elem, LValue, NativeRun, Stmt, Who};
use crate::ids::VarId;
use crate::model::Model;
use crate::runtime::abi::Run;

/// Whether the statement-list lowering takes `s`: an assignment (to a variable or a fixed
/// element; a points-by-source tag is credited as the engine does, and the variable's
/// immediate end conditions noted as pending), a `win` or `lose` mark, `end`, `race`, an `award`
/// without a tie-break chain, a `title`, an `order` by up to four keys, `draw`, `take`, `discard`,
/// `complete`, a write at a computed position, `regions`, a condition or a block (a
/// template's copies) over such statements, or an `each` or `for held` over them.
fn lowerable(s: &Stmt) -> bool {
    match s {
        Stmt::Assign { lv, .. } => !matches!(lv.elem, Elem::Bound),
        Stmt::AssignAt(_) | Stmt::Regions(_) | Stmt::Pass { .. } => true,
        Stmt::Block(body) => body.iter().all(lowerable),
        Stmt::If { then, els, .. } => lowerable(then) && els.as_deref().is_none_or(lowerable),
        Stmt::Each { body, .. } => match crate::expr::simple_assign(body) {
            Some((lv, ..)) => !matches!(lv.elem, Elem::Bound),
            None => lowerable(body),
        },
        Stmt::ForHeld { body, .. } => lowerable(body),
        Stmt::Order { lv, keys } => {
            keys.len() <= crate::state::MAX_ORDER_KEYS && !matches!(lv.elem, Elem::Bound)
        }
        Stmt::Race(r) => [&r.done, &r.count, &r.lv]
            .iter()
            .all(|l| !matches!(l.elem, Elem::Bound)),
        // The engine ranks a tie-break chain first and scales read at the moment; the other
        // awards (constant scales, no chain, with or without `min K`) are lowered.
        Stmt::Award(a) => {
            a.chain.is_empty()
                && const_scale(&a.scale).is_some()
                && !matches!(a.lv.elem, Elem::Bound)
        }
        Stmt::Title(t) => !matches!(t.lv.elem, Elem::Bound),
        // `win` and `lose` mark the bound faction; the engine settles the marks when the list
        // ends, as it does after an interpreted statement.
        Stmt::Outcome { .. }
        | Stmt::End(_)
        | Stmt::Draw(..)
        | Stmt::Take { .. }
        | Stmt::Discard
        | Stmt::Complete => true,
        _ => false,
    }
}

/// The most statements (counted through conditions, loops and blocks) one generated
/// function holds: a template over a whole grid expands to tens of thousands of
/// assignments, and compiling them as one function took minutes and gigabytes (the code
/// generator's time grows faster than a function's size). Runs are cut at this size, a
/// statement larger alone stays in the engine, and so does setup past it: compile time and
/// memory stay linear, and a signal is honoured between functions.
const MAX_FUNCTION_STMTS: usize = 1024;

/// The most statement runs compiled to machine code (a template action over a whole grid
/// makes one per element: 65,280 took a minute and 4 GB): compile time stays about a
/// second; the runs past it are played by the engine, and `validate` says how many.
const MAX_STATEMENT_FUNCTIONS: usize = 4096;

/// How many statement runs of `m`'s effect lists the engine plays though they could be
/// machine code: those past the compile budget (4,096 runs).
pub fn runs_left_to_the_engine(m: &Model) -> usize {
    m.statements()
        .filter(|s| matches!(s, Stmt::Native(n) if !n.compiled()))
        .count()
}

/// How many statements `s` holds, itself included (conditions, loops and blocks counted
/// through).
fn size(s: &Stmt) -> usize {
    1 + match s {
        Stmt::If { then, els, .. } => size(then) + els.as_deref().map_or(0, size),
        Stmt::Each { body, .. } | Stmt::ForHeld { body, .. } => size(body),
        Stmt::Block(b) => b.iter().map(size).sum(),
        _ => 0,
    }
}

/// Replaces each run of lowerable statements of `list` by one [`Stmt::Native`] (a run of
/// more than [`MAX_FUNCTION_STMTS`] statements by several).
fn group(list: &mut Vec<Stmt>) {
    let old = std::mem::take(list);
    let mut run: Vec<Stmt> = Vec::new();
    let flush = |run: &mut Vec<Stmt>, list: &mut Vec<Stmt>| {
        if !run.is_empty() {
            list.push(Stmt::Native(Box::new(NativeRun {
                stmts: std::mem::take(run).into_boxed_slice(),
                f: None,
            })));
        }
    };
    let mut held = 0;
    for s in old {
        let n = size(&s);
        if n <= MAX_FUNCTION_STMTS && lowerable(&s) {
            if held + n > MAX_FUNCTION_STMTS {
                flush(&mut run, list);
                held = 0;
            }
            held += n;
            run.push(s);
        } else {
            held = 0;
            flush(&mut run, list);
            list.push(s);
        }
    }
    flush(&mut run, list);
}

/// The effect lists of phases, actions and events (examples run as written).
fn effect_lists(m: &mut Model) -> impl Iterator<Item = &mut Vec<Stmt>> {
    (m.phases.iter_mut().chain(&mut m.end_phases))
        .flat_map(|p| [&mut p.before, &mut p.effects])
        .chain(m.actions.iter_mut().map(|a| &mut a.effects))
        .chain(m.events.iter_mut().map(|e| &mut e.effects))
}

/// Groups the runs of assignments and conditions of every effect list and compiles each run
/// to one function. Returns how many functions were made.
pub(super) fn compile_stmts(m: &mut Model) -> Result<usize, String> {
    if m.slots == 0 {
        return Ok(0);
    }
    // A host that cannot be targeted fails here, before the model is changed.
    let mut unit = Unit::new(&m.tables)?;
    for list in effect_lists(m) {
        group(list);
    }
    let hooks = hooks(m);
    let (t, slots) = (m.tables.clone(), m.slots);
    let mut ids = Vec::new();
    'lists: for list in effect_lists(m) {
        for s in list.iter() {
            let Stmt::Native(n) = s else { continue };
            // Past the budget the runs stay with the engine (in order: the functions made
            // are matched to the first runs below).
            if ids.len() == MAX_STATEMENT_FUNCTIONS {
                break 'lists;
            }
            unit.env_vals();
            unit.lower(&t, slots, 0)
                .with_hooks(&hooks)
                .finish_stmts(&n.stmts);
            ids.push(unit.define("an effect list")?);
        }
    }
    let (code, fns) = unit.finish(&ids, jit::Code::finish)?;
    let made = fns.len();
    let mut fns = fns.into_iter();
    for list in effect_lists(m) {
        for s in list.iter_mut() {
            if let Stmt::Native(n) = s {
                n.f = fns.next().map(|f| Run::new(f, code.clone()));
            }
        }
    }
    Ok(made)
}

/// Compiles setup's evaluated initial values (those the engine's `InitPlan` leaves to each
/// game, after the template of constant ones) to one function. Returns how many functions
/// were made: none when setup evaluates nothing or evaluates everything in order.
pub(super) fn compile_setup(m: &mut Model) -> Result<usize, String> {
    m.setup_fn = None;
    let plan = crate::model::InitPlan::new(m);
    let Some(list) = plan.evaluated().filter(|l| !l.is_empty() && m.slots > 0) else {
        return Ok(0);
    };
    // One assignment per element and owner: past the size of one function, the engine sets
    // the values up (see MAX_FUNCTION_STMTS).
    let assignments: usize = (list.iter())
        .map(|&(vi, _)| m.vars[VarId(vi)].width as usize)
        .sum();
    if assignments > MAX_FUNCTION_STMTS {
        return Ok(0);
    }
    // Each element of each pair is assigned its own evaluation, as `init_var` does.
    let mut inits = Vec::new();
    for &(vi, f) in list {
        let v = &m.vars[VarId(vi)];
        let init = v.init_of(f as usize);
        for e in 0..v.width {
            // Each owner's values draw from a part of their own, as the engine's setup.
            let part = (e == 0)
                .then(|| crate::rng::part::id(0, crate::rng::part::SETUP, f as u64, vi as u64, 0));
            let lv = LValue {
                var: vi,
                base: v.base,
                fstride: v.fstride,
                who: Who::Fixed(f),
                elem: Elem::Fixed(e as u16),
            };
            let value = init.clone();
            let s = Stmt::Assign {
                lv,
                op: AssignOp::Set,
                value,
                source: None,
            };
            inits.push((f, part, s));
        }
    }
    let mut unit = Unit::new(&m.tables)?;
    unit.env_vals();
    unit.lower(&m.tables, m.slots, 0).finish_setup(&inits);
    let ids = [unit.define("setup")?];
    let (code, fns) = unit.finish(&ids, jit::Code::finish)?;
    m.setup_fn = fns.into_iter().next().map(|f| NativeRun {
        stmts: inits.into_iter().map(|(_, _, s)| s).collect(),
        f: Some(Run::new(f, code)),
    });
    Ok(1)
}

/// An award's scale as whole numbers, when every entry is a constant (the case the native
/// engine lowers inline).
pub(crate) fn const_scale(scale: &[crate::expr::Expr]) -> Option<Vec<i64>> {
    scale
        .iter()
        .map(|e| match e.as_const_num()? {
            crate::expr::Num::Int(v) => Some(v),
            crate::expr::Num::Real(r) => crate::expr::tree::to_int(r).ok(),
        })
        .collect()
}
