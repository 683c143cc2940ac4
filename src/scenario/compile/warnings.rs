//! Compile warnings: what compiles but is likely not what the author meant.
//!
//! Owns the checks that a real constant stored into a variable (which holds whole numbers) is
//! not silently changed by flooring, that an `end NAME` statement does not invent an
//! end reason by a typo, and that `card.ATTR` is not read with no card ever bound.

use super::phases::Phases;
use crate::error::Location;
use crate::expr::{Expr, Num, Stmt};
use crate::model::{Action, Event, Var};

/// Warns where a real constant is stored into a variable and flooring changes it
/// (`init = { chance = "p0" }` with `p0 = 0.30` stores 0): a variable holds whole numbers.
pub(super) fn floored_constants(
    vars: &[Var],
    phases: &Phases,
    actions: &[Action],
    events: &[Event],
    locs: &[Location],
    out: &mut Vec<String>,
) {
    let mut warn = |e: &Expr, var: &str| {
        let Some(Num::Real(r)) = e.as_const_num() else {
            return;
        };
        let at = locs
            .get(e.loc as usize)
            .map(|l| l.to_string())
            .unwrap_or_default();
        let (floor, near) = (r.floor(), r.round());
        if floor == r || (floor == near && (r - near).abs() <= 1e-9 * r.abs().max(1.0)) {
            // Whole, or a hair above a whole number (0.3 * 100 is 30.000000000000004).
            return;
        }
        out.push(if (r - near).abs() <= 1e-9 * r.abs().max(1.0) {
            format!(
                "{at}: the real {r} is stored in `{var}` as {floor}, not {near}: the formula \
                 is a hair below a whole number in binary floating point and stores floor; \
                 write round(...) around it"
            )
        } else {
            format!(
                "{at}: the real {r} is stored in `{var}` as {floor}: a variable holds whole \
                 numbers (floored); scale it (a percentage, say) or write a whole number"
            )
        });
    };
    for v in vars {
        warn(&v.init, &v.name);
        for e in v.init_for.iter().flatten() {
            warn(e, &v.name);
        }
    }
    fn walk(s: &Stmt, vars: &[Var], warn: &mut impl FnMut(&Expr, &str)) {
        match s {
            Stmt::Assign { lv, value, .. } => warn(value, &vars[lv.var as usize].name),
            Stmt::AssignAt(a) => warn(&a.value, &vars[a.lv.var as usize].name),
            Stmt::If { then, els, .. } => {
                walk(then, vars, warn);
                if let Some(e) = els {
                    walk(e, vars, warn);
                }
            }
            Stmt::Block(b) => b.iter().for_each(|s| walk(s, vars, warn)),
            Stmt::Each { body, .. } | Stmt::ForHeld { body, .. } => walk(body, vars, warn),
            _ => {}
        }
    }
    let lists = phases
        .all()
        .flat_map(|p| [&p.before, &p.effects])
        .chain(actions.iter().map(|a| &a.effects))
        .chain(events.iter().map(|e| &e.effects));
    for list in lists {
        for s in list {
            walk(s, vars, &mut warn);
        }
    }
    for a in actions {
        for (lv, e) in &a.cost {
            warn(e, &vars[lv.var as usize].name);
        }
    }
}

/// Warns where an `end NAME` statement names a reason no `[[end]]` table declares and no
/// other statement uses: most likely a typo (`end tenpoints` for `ten_points`), which would
/// otherwise count as a reason of its own.
pub(super) fn ends_named_once(
    uses: &[String],
    declared: &[String],
    src: &super::Source,
    out: &mut Vec<String>,
) {
    for name in uses {
        if declared.contains(name) || uses.iter().filter(|u| *u == name).count() > 1 {
            continue;
        }
        let at = find_end_statement(src.text, name)
            .map(|i| format!("{}: ", src.at(i)))
            .unwrap_or_default();
        let hint = crate::expr::compile::suggest(name, declared.iter());
        out.push(format!(
            "{at}`end {name}` names an end reason that no [[end]] table declares and no other \
             statement uses{hint}; if it is meant, declare it: [[end]] name = \"{name}\""
        ));
    }
}

/// Warns that `card.ATTR` is read while no statement ever binds a card (so it is always 0),
/// located at the first `card.` of the file if there is one.
pub(super) fn card_unbound(src: &super::Source, out: &mut Vec<String>) {
    let at = src
        .text
        .find("card.")
        .map(|i| format!("{}: ", src.at(i)))
        .unwrap_or_default();
    out.push(format!(
        "{at}`card.ATTR` is read, but no `draw`, `take` or `for held` statement ever binds a \
         card, so it is always 0: draw a card first"
    ));
}

/// The byte offset of the name in the first `end NAME` of `text`.
fn find_end_statement(text: &str, name: &str) -> Option<usize> {
    let needle = format!("end {name}");
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(i) = text[from..].find(&needle) {
        let start = from + i;
        let end = start + needle.len();
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(ident) && !after.is_some_and(ident) {
            return Some(start + 4);
        }
        from = end;
    }
    None
}

/// Warns at each `immediate` end condition that nothing re-checks: one that reads no
/// variable and no deck (only the round, the age, constants), since an immediate condition
/// is checked after a statement list changes what it reads, and no statement changes those.
pub(super) fn never_rechecked(
    checks: &[crate::model::Check],
    immediate: &[u16],
    by_var: &[Vec<u16>],
    on_draw: &[u16],
    names: &[String],
    locs: &[Location],
    out: &mut Vec<String>,
) {
    for (bit, &ci) in immediate.iter().enumerate() {
        let bit = bit as u16;
        if by_var.iter().any(|v| v.contains(&bit)) || on_draw.contains(&bit) {
            continue;
        }
        let c = &checks[ci as usize];
        let at = locs
            .get(c.when.loc as usize)
            .map(|l| format!("{l}: "))
            .unwrap_or_default();
        let name = names.get(c.reason.index()).map_or("", String::as_str);
        out.push(format!(
            "{at}the immediate end condition `{name}` reads no variable and no deck, so no \
             statement ever makes it checked (an immediate condition is checked after a \
             statement list changes what it reads): give it timing = \"round_start\" or \
             \"round_end\" to check it each round"
        ));
    }
}
