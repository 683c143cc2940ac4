//! Variables: `[[var]]` tables compiled into the state's slot layout and [`Var`]s.
//!
//! Owns where each variable lives in the state (its first slot, its width over a set, its
//! stride per faction), its bounds (a flag is 0..1, min above max is an error), its
//! initial values, global or set by a faction's `init` table, and who sees it (`visible`,
//! with the `prior` a faction that cannot see it assumes).

use super::declare::Decls;
use super::{Cx, Source};
use crate::error::Result;
use crate::expr::Expr;
use crate::expr::compile::{Compiler, Ctx, VarSym, suggest};
use crate::model::{Action, Unseen, Var, Visible, unseen_read};
use crate::scenario::raw::RawScenario;
use crate::state::Tables;

/// Variables: slot layout. Claims each variable's name, records its symbol and returns the
/// number of slots the state needs.
pub(super) fn layout(raw: &RawScenario, src: &Source, cx: &Cx, d: &mut Decls) -> Result<u32> {
    let nf = raw.factions.len();
    // Counted in 64 bits, so no number of variables can wrap the layout.
    let mut slots = 0u64;
    for (id, v) in raw.vars.iter().enumerate() {
        let v = v.get_ref();
        // A variable is a 16-bit id.
        if id == crate::state::MAX_VARS {
            return Err(src.fail(
                v.name.span().start,
                format!(
                    "too many variables: a scenario declares at most {}",
                    crate::state::MAX_VARS
                ),
            ));
        }
        d.names.claim(&v.name, "variable")?;
        let faction =
            cx.keyword(&v.scope, &["faction", "global"], "faction", "scope")? == "faction";
        let set = match &v.over {
            None => None,
            Some(s) => match d.syms.sets.get(s.get_ref()) {
                Some(set) => Some(set.id),
                None => {
                    return Err(src.fail(
                        s.span().start,
                        format!(
                            "`{}` is not a set{}",
                            s.get_ref(),
                            suggest(s.get_ref(), d.syms.sets.keys())
                        ),
                    ));
                }
            },
        };
        let width = set.map_or(1, |s| d.sets[s as usize].1.len() as u32);
        let fstride = if faction { width } else { 0 };
        d.syms.vars.insert(
            v.name.get_ref().clone(),
            VarSym {
                id: id as u16,
                base: slots as u32,
                faction,
                set,
                fstride,
            },
        );
        let takes = u64::from(width) * if faction { nf as u64 } else { 1 };
        if slots + takes > crate::state::MAX_SLOTS {
            return Err(src.fail(
                v.name.span().start,
                format!(
                    "the game's state would hold {} values with `{}` ({takes} = {width} element(s) x {} faction(s)), over the limit of {}: every game's state, and each searcher's copy, holds every variable; use fewer or smaller variables",
                    slots + takes,
                    v.name.get_ref(),
                    if faction { nf } else { 1 },
                    crate::state::MAX_SLOTS,
                ),
            ));
        }
        slots += takes;
    }
    Ok(slots as u32)
}

/// Variable bounds and initial values: one [`Var`] per `[[var]]`, with each bound recorded
/// in `tables.var_min` and `tables.var_max`.
pub(super) fn compile(
    raw: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &Compiler,
    sets: &[(String, Vec<String>)],
    tables: &mut Tables,
) -> Result<Vec<Var>> {
    let nf = raw.factions.len();
    let mut vars = Vec::new();
    tables.var_min = Vec::new();
    tables.var_max = Vec::new();
    for rv in &raw.vars {
        let rv = rv.get_ref();
        let sym = &comp.syms.vars[rv.name.get_ref()];
        let ctx = if sym.faction {
            Ctx::faction()
        } else {
            Ctx::global()
        };
        let (mut lo, mut hi) = (i64::MIN, i64::MAX);
        if rv.flag {
            (lo, hi) = (0, 1);
        }
        if let Some(f) = &rv.min {
            lo = cx.constant(comp, f, "a variable's min")?.floor() as i64;
        }
        if let Some(f) = &rv.max {
            hi = cx.constant(comp, f, "a variable's max")?.floor() as i64;
        }
        if lo > hi {
            return Err(src.fail(
                rv.name.span().start,
                format!("`{}` has min {lo} above max {hi}", rv.name.get_ref()),
            ));
        }
        tables.var_min.push(lo);
        tables.var_max.push(hi);
        let flip = match &rv.flip {
            Some(f) => Some(cx.constant(comp, f, "a variable's flip")?.floor() as i64),
            None => None,
        };
        let init = match &rv.init {
            Some(f) => cx.expr(comp, f, ctx)?,
            None => Expr::int(0),
        };
        let width = sym.set.map_or(1, |s| sets[s as usize].1.len() as u32);
        let visible = match cx.keyword(&rv.visible, &["all", "owner", "none"], "all", "visible")? {
            "owner" => Visible::Owner,
            "none" => Visible::None,
            _ => Visible::All,
        };
        if visible == Visible::Owner && !sym.faction {
            let at = rv
                .visible
                .as_ref()
                .map_or(rv.name.span().start, |v| v.span().start);
            return Err(src.fail(
                at,
                format!(
                    "`{}` is global, so no faction owns it: give visible = \"all\" or \"none\"",
                    rv.name.get_ref()
                ),
            ));
        }
        let prior = match &rv.prior {
            Some(f) => Some(cx.expr(comp, f, ctx)?),
            None => None,
        };
        vars.push(Var {
            name: rv.name.get_ref().clone(),
            faction: sym.faction,
            set: sym.set,
            base: sym.base,
            fstride: sym.fstride,
            width,
            init,
            init_for: vec![None; nf],
            flag: rv.flag,
            flip,
            init_as: None,
            visible,
            prior,
            prior_text: rv.prior.as_ref().map(|f| f.get_ref().0.clone()),
        });
    }
    faction_inits(raw, src, cx, comp, &mut vars)?;
    Ok(vars)
}

/// Each faction's `init` table: the initial value of its own copy of a faction variable.
fn faction_inits(
    raw: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &Compiler,
    vars: &mut [Var],
) -> Result<()> {
    let syms = comp.syms;
    for (i, f) in raw.factions.iter().enumerate() {
        for (k, formula) in &f.get_ref().init {
            // Errors about the name point at the key.
            let key = super::key_start(src.text, formula.span().start, k);
            let Some(sym) = syms.vars.get(k) else {
                return Err(src.fail(
                    key,
                    format!("`{k}` is not a variable{}", suggest(k, syms.vars.keys())),
                ));
            };
            if !sym.faction {
                return Err(src.fail(
                    key,
                    format!("`{k}` is global; a faction can only set its own variables"),
                ));
            }
            vars[sym.id as usize].init_for[i] = Some(cx.expr(comp, formula, Ctx::faction())?);
        }
    }
    Ok(())
}

/// Resolves each variable's `init_as`: the points source its starting values are credited
/// to, interned as `as SOURCE` interns one. Only a faction's variable has a faction to
/// credit.
pub(super) fn credits(
    raw: &RawScenario,
    src: &Source,
    comp: &mut Compiler,
    vars: &mut [Var],
) -> Result<()> {
    for (rv, v) in raw.vars.iter().zip(vars.iter_mut()) {
        let Some(name) = &rv.get_ref().init_as else {
            continue;
        };
        let at = name.span().start;
        if !v.faction {
            return Err(src.fail(
                at,
                format!(
                    "`{}` is global: only a faction's variable credits its starting value to a points source",
                    v.name
                ),
            ));
        }
        super::check_ident(src, name.get_ref(), at)?;
        v.init_as = Some(
            comp.source_named(name.get_ref())
                .map_err(|msg| src.fail(at, msg))?,
        );
    }
    Ok(())
}

/// The variables some faction cannot see, in declaration order; an error for those a
/// searching faction (lookahead, mcts) would have to guess without a `prior`, at the first
/// one's `visible` and listing every other with its line.
pub(super) fn hidden(
    raw: &RawScenario,
    src: &Source,
    vars: &[Var],
    agents: &[crate::model::Agent],
) -> Result<Vec<u16>> {
    let searcher = agents
        .iter()
        .position(|a| a.look.is_some())
        .map(|f| raw.factions[f].get_ref().name.get_ref().clone());
    let mut hidden = Vec::new();
    let mut unguessable = Vec::new();
    for (i, (rv, v)) in raw.vars.iter().zip(vars).enumerate() {
        let guessed = match v.visible {
            Visible::All => continue,
            Visible::None => true,
            // A faction sees its own value: others' are guessed only with two or more.
            Visible::Owner => raw.factions.len() > 1,
        };
        if guessed && v.prior.is_none() && searcher.is_some() {
            let rv = rv.get_ref();
            let at = rv
                .visible
                .as_ref()
                .map_or(rv.name.span().start, |s| s.span().start);
            unguessable.push((v, at));
        }
        hidden.push(i as u16);
    }
    let (Some(who), Some(&(v, at))) = (&searcher, unguessable.first()) else {
        return Ok(hidden);
    };
    let others: Vec<String> = (unguessable[1..].iter())
        .map(|(v, at)| format!("`{}` (line {})", v.name, src.at(*at).line))
        .collect();
    let also = match others.len() {
        0 => String::new(),
        1 => format!("; {} also needs one", others[0]),
        _ => format!("; {} also need one", others.join(", ")),
    };
    Err(src.fail(
        at,
        format!(
            "`{}` is hidden (visible = \"{}\") and `{who}` searches, so its playouts must guess it: add `prior = FORMULA` to the variable (what a player who cannot see it assumes, e.g. prior = \"d6\"){also}",
            v.name,
            v.visible.name()
        ),
    ))
}

/// Refuses a `prior` that reads what a faction may not see (a hidden variable, its own
/// included, or the current card), at the name it reads: a prior is what a player who
/// cannot see the value assumes, evaluated in every playout, so reading the true value
/// would let the search peek, and reading another hidden value would make the result
/// depend on which is redrawn first.
pub(super) fn priors_see_only_what_is_shown(
    raw: &RawScenario,
    src: &Source,
    vars: &[Var],
) -> Result<()> {
    for (rv, v) in raw.vars.iter().zip(vars) {
        let (Some(prior), Some(text)) = (&v.prior, &rv.get_ref().prior) else {
            continue;
        };
        let Some(unseen) = unseen_read(prior.code(), vars) else {
            continue;
        };
        let start = src.inner_start(&text.span());
        let formula = &text.get_ref().0;
        let (what, name) = match unseen {
            Unseen::Var(i) => {
                let h = &vars[i as usize];
                let own = if h.name == v.name { " itself" } else { "" };
                (
                    format!(
                        "`{}`{own}, which is hidden (visible = \"{}\")",
                        h.name,
                        h.visible.name()
                    ),
                    h.name.as_str(),
                )
            }
            Unseen::Card => (
                "the current card, which may be in a hand the faction cannot see".to_string(),
                "card",
            ),
        };
        let at = word_at(formula, name).map_or(start, |i| start + i);
        return Err(src.fail(
            at,
            format!(
                "the prior of `{}` reads {what}: a prior is what a player who cannot see the value assumes, so it may read only what every faction sees (numbers, settings, dice and random draws, round, seat, deck counts and variables with visible = \"all\"), e.g. prior = \"d6\"; a card dealt to a faction is better kept in its hand than in a variable",
                v.name
            ),
        ));
    }
    Ok(())
}

/// The byte offset of `name` as a whole word in `formula` (not part of a longer name).
fn word_at(formula: &str, name: &str) -> Option<usize> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    formula.match_indices(name).map(|(i, _)| i).find(|&i| {
        let before = formula[..i].chars().next_back().is_none_or(|c| !word(c));
        let after = formula[i + name.len()..]
            .chars()
            .next()
            .is_none_or(|c| !word(c));
        before && after
    })
}

/// Whether some action's menu entry reads a value some faction may not see: its `when`,
/// its `target_when`, a cost's amount or the variable it is paid from, or its weight.
pub(super) fn menu_reads_unseen(vars: &[Var], actions: &[Action]) -> bool {
    let reads = |e: &Expr| unseen_read(e.code(), vars).is_some();
    actions.iter().any(|a| {
        a.when.as_ref().is_some_and(reads)
            || a.target_when.as_ref().is_some_and(reads)
            || reads(&a.weight)
            || a.cost
                .iter()
                .any(|(lv, amount)| vars[lv.var as usize].visible != Visible::All || reads(amount))
    })
}
