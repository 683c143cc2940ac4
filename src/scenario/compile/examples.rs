//! Worked examples: `[[example]]` tables compiled into executable checks.
//!
//! Owns what an example may say (a phase, an action or effects; the actor and target; the
//! round; settings that compile a variant of the scenario) and the expectations it checks
//! (formulas, result, end reason, final order), each name resolved with a located error.

use crate::ids::{ActionId, FactionId, ReasonId};
use toml::Spanned;

use super::phases::Phases;
use super::{Cx, Source, compile_at};
use crate::error::Result;
use crate::expr::compile::{Compiler, Ctx, Symbols, suggest};
use crate::model::{Action, Example, ExpectedResult};
use crate::scenario::raw::RawScenario;

/// Compiles every example of `raw`; `variants` is false inside a variant (one level only).
#[allow(
    clippy::too_many_arguments,
    reason = "the compile context an example needs, passed as the model's compile holds it"
)]
pub(super) fn compile(
    raw: &RawScenario,
    whole: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &mut Compiler,
    syms: &Symbols,
    phases: &Phases,
    actions: &[Action],
    rounds: i64,
    variants: bool,
) -> Result<Vec<Example>> {
    let mut examples = Vec::new();
    for ex in &raw.examples {
        let place = ex.span().start;
        let ex = ex.get_ref();
        // An example naming a faction that sits out assumes more players: kept for `vpsim
        // test` to report, as one set past the last round is.
        // An example with settings of its own runs in the scenario compiled with them.
        if variants && (!ex.settings.is_empty() || !ex.seats.is_empty()) {
            let mut v = whole.clone();
            for (k, f) in &ex.settings {
                // `A.chance`: faction A's own setting; `chance`: the scenario's.
                let own = k.split_once('.').and_then(|(who, name)| {
                    let fi = v
                        .factions
                        .iter()
                        .position(|x| x.get_ref().name.get_ref() == who)?;
                    Some((fi, name))
                });
                match own {
                    Some((fi, name))
                        if v.settings.contains_key(name)
                            || v.factions[fi].get_ref().settings.contains_key(name) =>
                    {
                        let fac = v.factions[fi].get_mut();
                        fac.settings.insert(name.to_string(), f.clone());
                    }
                    None if v.settings.contains_key(k) => {
                        v.settings.insert(k.clone(), f.clone());
                    }
                    _ => {
                        return Err(src.fail(
                            super::key_start(src.text, f.span().start, k),
                            format!(
                                "`{k}` is not a setting{}: name a setting, or a faction's own \
                                 as `Faction.setting`",
                                suggest(k, raw.settings.keys())
                            ),
                        ));
                    }
                }
            }
            let mut e = placeholder(ex);
            let mut variant = compile_at(&v, src, false)?;
            if !ex.seats.is_empty() {
                // Seated as the example says: the variant rotates seats with that one seating.
                let seating = seating(&ex.seats, &variant.factions, src)?;
                variant.tables.rotate_seats = true;
                variant.seatings = vec![seating];
            }
            e.variant = Some(Box::new(variant));
            examples.push(e);
            continue;
        }
        if let Some(who) = cx.out.iter().find(|f| names(ex, f)) {
            let mut e = placeholder(ex);
            e.skipped = Some(format!(
                "{}: this example names {who}, who sits out with {} players: give it `settings` with the player count it assumes",
                src.at(place),
                raw.factions.len()
            ));
            examples.push(e);
            continue;
        }
        let given = cx.stmts(comp, &ex.given, Ctx::global())?;
        let fac = |n: &Spanned<String>| -> Result<u8> {
            syms.factions
                .get(n.get_ref().as_str())
                .copied()
                .ok_or_else(|| {
                    src.fail(
                        n.span().start,
                        format!(
                            "`{}` is not a faction{}",
                            n.get_ref(),
                            suggest(n.get_ref(), syms.factions.keys())
                        ),
                    )
                })
        };
        let actor = ex.actor.as_ref().map(fac).transpose()?.map(FactionId);
        let target = ex.target.as_ref().map(fac).transpose()?.map(FactionId);
        let action = match &ex.action {
            None => None,
            Some(a) => match actions.iter().position(|x| &x.name == a.get_ref()) {
                Some(i) => Some(ActionId::from_index(i)),
                None => {
                    let known = actions.iter().map(|x| x.name.as_str());
                    return Err(src.fail(
                        a.span().start,
                        format!(
                            "`{}` is not an action{}",
                            a.get_ref(),
                            suggest(a.get_ref(), known)
                        ),
                    ));
                }
            },
        };
        if (action.is_some() || !ex.effects.is_empty()) && ex.phase.is_some() {
            return Err(src.fail(
                ex.phase.as_ref().map_or(0, |p| p.span().start),
                "an example runs a `phase`, an `action` or `effects`, one of them",
            ));
        }
        // An action and effects together: the effects would be dropped silently.
        if action.is_some()
            && let Some(first) = ex.effects.first()
        {
            return Err(src.fail(
                first.span().start,
                "an example runs a `phase`, an `action` or `effects`, one of them: to set the state before the action, write these statements in `given`",
            ));
        }
        if action.is_some() && actor.is_none() {
            return Err(src.fail(
                ex.action.as_ref().map_or(0, |a| a.span().start),
                "an example's `action` needs an `actor`",
            ));
        }
        if let Some(a) = action
            && actions[a.index()].targeted != target.is_some()
        {
            let at = ex.action.as_ref().map_or(0, |a| a.span().start);
            return Err(src.fail(
                at,
                if actions[a.index()].targeted {
                    "this action needs a `target`"
                } else {
                    "this action takes no `target`"
                },
            ));
        }
        let ectx = if actor.is_some() {
            Ctx::faction()
        } else {
            Ctx::global()
        };
        let effects = cx.stmts(comp, &ex.effects, ectx)?;
        let phase = match &ex.phase {
            None => None,
            Some(p) => match phases.find(p.get_ref()) {
                Some(at) => Some(at),
                None => {
                    let known = phases.all().map(|x| x.name.as_str());
                    return Err(src.fail(
                        p.span().start,
                        format!(
                            "`{}` is not a phase{}",
                            p.get_ref(),
                            suggest(p.get_ref(), known)
                        ),
                    ));
                }
            },
        };
        if phase.is_some() && !effects.is_empty() {
            return Err(src.fail(
                ex.phase.as_ref().map_or(0, |p| p.span().start),
                "an example runs a `phase` or `effects`, not both",
            ));
        }
        let mut expect = Vec::new();
        let mut probes = Vec::new();
        for f in &ex.expect {
            let e = cx.expr(comp, f, Ctx::global())?;
            let mut names = Vec::new();
            if let Ok(ast) = crate::expr::parse::parse_expr(&f.get_ref().0) {
                crate::expr::parse::names(&ast, &mut names);
            }
            let probe = names
                .into_iter()
                .filter_map(|n| comp.expr(&n, Ctx::global(), e.loc).ok().map(|p| (n, p)))
                .collect();
            expect.push((e, f.get_ref().0.clone()));
            probes.push(probe);
        }
        let result = match &ex.result {
            None => None,
            Some(r) => {
                let words: Vec<&str> = r.get_ref().split_whitespace().collect();
                let named = |w: &[&str]| -> Result<u32> {
                    w.iter().try_fold(0u32, |m, n| {
                        Ok(m | 1 << fac(&Spanned::new(r.span(), n.to_string()))?)
                    })
                };
                Some(match words.as_slice() {
                    ["win", f] => {
                        ExpectedResult::Win(FactionId(fac(&Spanned::new(r.span(), f.to_string()))?))
                    }
                    ["shared", rest @ ..] if rest.len() >= 2 => {
                        ExpectedResult::Shared(named(rest)?)
                    }
                    ["draw"] => ExpectedResult::Draw,
                    ["nobody"] => ExpectedResult::Nobody,
                    ["running"] => ExpectedResult::Running,
                    _ => {
                        return Err(src.fail(
                            r.span().start,
                            "result is `win NAME`, `shared NAME NAME ...`, `draw`, `nobody` or `running`",
                        ));
                    }
                })
            }
        };
        let reason = match &ex.reason {
            None => None,
            Some(r) => match comp.reasons.iter().position(|x| x == r.get_ref()) {
                Some(i) => Some(ReasonId::from_index(i)),
                None => {
                    return Err(src.fail(
                        r.span().start,
                        format!(
                            "`{}` is not an end reason{}",
                            r.get_ref(),
                            suggest(r.get_ref(), comp.reasons.iter())
                        ),
                    ));
                }
            },
        };
        let order = ex
            .order
            .iter()
            .map(|place| place_of(place, &fac))
            .collect::<Result<Vec<_>>>()?;
        let mut seen = std::collections::BTreeSet::new();
        if order.iter().flatten().any(|&f| !seen.insert(f)) {
            let at = ex.order.first().map_or(0, |o| o.span().start);
            return Err(src.fail(at, "`order` names a faction twice: list each faction once"));
        }
        let available = match (&ex.available, ex.action.is_some()) {
            (Some(a), false) => {
                return Err(src.fail(
                    a.span().start,
                    "`available` says whether the example's `action` is available: add an `action`",
                ));
            }
            (a, _) => a.as_ref().is_none_or(|a| *a.get_ref()),
        };
        let round = ex.round.as_ref().map_or(1, |r| *r.get_ref());
        let at = ex.round.as_ref().map_or(0, |r| r.span().start);
        if round < 1 {
            return Err(src.fail(at, "round must be 1 or more".to_string()));
        }
        // An example set past the last round cannot run with these settings (a shorter game
        // by `--set scenario.rounds`): it is kept, for `vpsim test` to report, and blocks
        // nothing else.
        let skipped = (round > rounds).then(|| {
            format!(
                "{}: this example is set in round {round}, past the last round, {rounds}",
                src.at(at)
            )
        });
        let round = round.min(rounds.max(1));
        examples.push(Example {
            name: ex.name.0.clone(),
            seed: ex.seed,
            variant: None,
            round: round as u32,
            given,
            phase,
            effects,
            actor,
            action,
            target,
            round_end: ex.round_end || ex.finish,
            finish: ex.finish,
            expect,
            probes,
            result,
            reason,
            order,
            available,
            skipped,
        });
    }

    Ok(examples)
}

/// One place of an example's `order`: a faction, or factions that share the place written
/// `"A = B"`, each resolved by `fac` (a name's error points at the entry).
fn place_of(
    place: &Spanned<String>,
    fac: &dyn Fn(&Spanned<String>) -> Result<u8>,
) -> Result<Vec<u8>> {
    place
        .get_ref()
        .split('=')
        .map(|name| fac(&Spanned::new(place.span(), name.trim().to_string())))
        .collect()
}

/// Whether example `ex` names faction `f`: as its actor or target, in its order or result,
/// or as a word of one of its formulas.
fn names(ex: &crate::scenario::raw::RawExample, f: &str) -> bool {
    let word = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .any(|w| w == f)
    };
    [&ex.actor, &ex.target, &ex.result]
        .into_iter()
        .flatten()
        .any(|s| word(s.get_ref()))
        || ex.order.iter().any(|o| word(o.get_ref()))
        || ex
            .given
            .iter()
            .chain(&ex.effects)
            .chain(&ex.expect)
            .any(|e| word(&e.get_ref().0))
}

/// An example with its name and seed only: one that runs as its variant, or is skipped.
fn placeholder(ex: &crate::scenario::raw::RawExample) -> Example {
    Example {
        name: ex.name.0.clone(),
        seed: ex.seed,
        variant: None,
        round: 1,
        given: Vec::new(),
        phase: None,
        effects: Vec::new(),
        actor: None,
        action: None,
        target: None,
        round_end: false,
        finish: false,
        expect: Vec::new(),
        probes: Vec::new(),
        result: None,
        reason: None,
        order: Vec::new(),
        available: true,
        skipped: None,
    }
}

/// The seating an example's `seats` names: every faction once, first seat first.
fn seating(
    seats: &[Spanned<String>],
    factions: &[crate::model::Faction],
    src: &Source,
) -> Result<crate::runtime::seats::Seating> {
    let mut s = crate::runtime::seats::Seating::identity();
    let mut seen = vec![false; factions.len()];
    for (k, name) in seats.iter().enumerate() {
        let Some(f) = factions.iter().position(|x| &x.name == name.get_ref()) else {
            return Err(src.fail(
                name.span().start,
                format!(
                    "`{}` is not a faction{}",
                    name.get_ref(),
                    suggest(name.get_ref(), factions.iter().map(|x| &x.name))
                ),
            ));
        };
        if k >= factions.len() || seen[f] {
            return Err(src.fail(
                name.span().start,
                format!(
                    "`{}` is seated twice: `seats` names every faction once",
                    name.get_ref()
                ),
            ));
        }
        seen[f] = true;
        s.at[k] = f as u8;
        s.of[f] = k as u8;
    }
    if let Some(f) = seen.iter().position(|x| !x) {
        let at = seats.last().map_or(0, |n| n.span().start);
        return Err(src.fail(
            at,
            format!(
                "`seats` leaves out `{}`: name every faction once, first seat first",
                factions[f].name
            ),
        ));
    }
    Ok(s)
}
