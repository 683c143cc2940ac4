//! Declarations: settings, factions and sides, and sets.
//!
//! Owns the [`Decls`] the declaration sections fill before any rule is compiled: the one
//! namespace of author-defined names, the symbols formulas resolve against, and the state
//! tables (faction sides and players, and later the card pool and variable bounds).

use std::collections::HashMap;

use toml::Spanned;

use super::{Cx, Names, Source, check_ident};
use crate::error::Result;
use crate::expr::Num;
use crate::expr::compile::{Compiler, SetSym, Symbols};
use crate::model::Faction;
use crate::scenario::raw::RawScenario;
use crate::state::{MAX_FACTIONS, Tables};

/// What the declaration sections (settings, factions, sets, decks, variable layout) build
/// section by section, and every later section reads.
pub(super) struct Decls<'a> {
    /// The one namespace of author-defined names, checked as each is claimed.
    pub(super) names: Names<'a>,
    /// The names formulas resolve against.
    pub(super) syms: Symbols,
    /// The per-model tables expressions consult while a game runs.
    pub(super) tables: Tables,
    /// The factions, in file order.
    pub(super) factions: Vec<Faction>,
    /// Each set's name and elements, in file order.
    pub(super) sets: Vec<(String, Vec<String>)>,
    /// Each deck's name and the names of its cards, one per copy.
    pub(super) decks: Vec<(String, Vec<String>)>,
}

impl<'a> Decls<'a> {
    /// Nothing declared yet, save the builtin `rounds` when the file gives a number (a
    /// formula is evaluated once the settings and factions are declared: [`super::clock`]).
    pub(super) fn new(raw: &RawScenario, src: &'a Source<'a>) -> Decls<'a> {
        Decls {
            names: Names {
                src,
                seen: HashMap::new(),
            },
            syms: Symbols {
                rounds: raw.scenario.rounds.get_ref().0.trim().parse().unwrap_or(0),
                rounds_pending: raw
                    .scenario
                    .rounds
                    .get_ref()
                    .0
                    .trim()
                    .parse::<i64>()
                    .is_err(),
                ..Symbols::default()
            },
            tables: Tables::default(),
            factions: Vec::new(),
            sets: Vec::new(),
            decks: Vec::new(),
        }
    }
}

/// Settings: constants, resolved before anything can refer to them.
pub(super) fn settings(raw: &RawScenario, cx: &mut Cx, d: &mut Decls) -> Result<()> {
    for (k, f) in &raw.settings {
        // An error about the name points at the key, not at its value.
        let key = super::key_start(cx.src.text, f.span().start, k);
        d.names
            .claim(&Spanned::new(key..key + k.len(), k.clone()), "setting")?;
        let empty = Symbols {
            rounds: d.syms.rounds,
            rounds_pending: d.syms.rounds_pending,
            ..Symbols::default()
        };
        let v = cx.constant_num(&Compiler::new(&empty, vec![]), f, "a setting")?;
        d.syms.settings.insert(k.clone(), v);
    }
    Ok(())
}

/// Settings a faction gives its own value (`[[faction]] settings = { chance = 0.55 }`), after
/// the factions. A faction that gives none takes the `[settings]` value; without one, every
/// faction must give its own. A faction's value is a constant formula of numbers and settings.
pub(super) fn faction_settings(raw: &RawScenario, cx: &mut Cx, d: &mut Decls) -> Result<()> {
    let consts = Symbols {
        settings: d.syms.settings.clone(),
        rounds: d.syms.rounds,
        rounds_pending: d.syms.rounds_pending,
        ..Symbols::default()
    };
    let mut given: HashMap<String, Vec<Option<Num>>> = HashMap::new();
    let mut first: Vec<(String, usize)> = Vec::new();
    for (i, f) in raw.factions.iter().enumerate() {
        for (k, v) in &f.get_ref().settings {
            if !given.contains_key(k) {
                if !d.syms.settings.contains_key(k) {
                    let key = super::key_start(cx.src.text, v.span().start, k);
                    check_ident(cx.src, k, key)?;
                    d.names
                        .claim(&Spanned::new(key..key + k.len(), k.clone()), "setting")?;
                }
                first.push((k.clone(), v.span().start));
            }
            let x = cx.constant_num(&Compiler::new(&consts, vec![]), v, "a faction's setting")?;
            given
                .entry(k.clone())
                .or_insert_with(|| vec![None; raw.factions.len()])[i] = Some(x);
        }
    }
    for (k, at) in first {
        let shared = d.syms.settings.get(&k).copied();
        let mut values = Vec::new();
        for (f, v) in raw.factions.iter().zip(&given[&k]) {
            match v.or(shared) {
                Some(v) => values.push(v),
                None => {
                    return Err(cx.src.fail(
                        at,
                        format!(
                            "faction {} gives no value of `{k}`: give every faction one, or \
                             declare `{k}` in [settings] for the factions that give none",
                            f.get_ref().name.get_ref()
                        ),
                    ));
                }
            }
        }
        d.syms.faction_settings.insert(k, values);
    }
    Ok(())
}

/// Factions and sides: each faction's name, side and player flag.
pub(super) fn factions(raw: &RawScenario, src: &Source, d: &mut Decls) -> Result<()> {
    let nf = raw.factions.len();
    if nf == 0 || nf > MAX_FACTIONS {
        // At the first faction too many (or the top of the file when there is none).
        let at = raw.factions.get(MAX_FACTIONS).map_or(0, |f| f.span().start);
        return Err(src.fail(
            at,
            format!("a scenario needs 1 to {MAX_FACTIONS} [[faction]] tables, found {nf}"),
        ));
    }
    let mut side_names: Vec<String> = Vec::new();
    d.tables.nfactions = nf as u8;
    for (i, f) in raw.factions.iter().enumerate() {
        let f = f.get_ref();
        d.names.claim(&f.name, "faction")?;
        d.syms.factions.insert(f.name.get_ref().clone(), i as u8);
        let side = match &f.side {
            Some(s) => {
                let id = match side_names.iter().position(|x| x == s.get_ref()) {
                    Some(id) => id,
                    None => {
                        d.names.claim(s, "side")?;
                        side_names.push(s.get_ref().clone());
                        d.syms
                            .sides
                            .insert(s.get_ref().clone(), side_names.len() as i64);
                        side_names.len() - 1
                    }
                };
                id as i64 + 1
            }
            None => 0,
        };
        d.tables.side.push(side);
        d.tables.player.push(f.player as i64);
        d.factions.push(Faction {
            name: f.name.get_ref().clone(),
            label: (f.label.as_ref().map(|l| l.0.clone()))
                .unwrap_or_else(|| f.name.get_ref().clone()),
            side: f.side.as_ref().map(|s| s.get_ref().clone()),
            player: f.player,
        });
    }
    Ok(())
}

/// A set's `grid = [ROWS, COLS]`, checked: given instead of `elements`, each side at least
/// 1, at most 65,535 elements in all.
fn grid(s: &crate::scenario::raw::RawSet, src: &Source) -> Result<Option<(u16, u16)>> {
    let Some(g) = &s.grid else {
        return Ok(None);
    };
    let at = g.span().start;
    if !s.elements.is_empty() {
        return Err(src.fail(
            at,
            "a set gives either `elements` or `grid`, not both (a grid names its elements \
             r1c1, r1c2, ... itself)",
        ));
    }
    match g.get_ref()[..] {
        [r, c] if r >= 1 && c >= 1 && r.checked_mul(c).is_some_and(|n| n <= u16::MAX as i64) => {
            Ok(Some((r as u16, c as u16)))
        }
        [_, _] => Err(src.fail(
            at,
            "a grid needs at least 1 row and 1 column, and at most 65,535 elements in all",
        )),
        _ => Err(src.fail(
            at,
            "write a grid as `[ROWS, COLS]`, such as `grid = [5, 5]`",
        )),
    }
}

/// Sets: named lists of distinct elements.
pub(super) fn sets(raw: &RawScenario, src: &Source, d: &mut Decls) -> Result<()> {
    for (i, s) in raw.sets.iter().enumerate() {
        d.names.claim(&s.name, "set")?;
        let mut elements: Vec<String> = Vec::new();
        let grid = grid(s, src)?;
        if let Some((rows, cols)) = grid {
            for r in 1..=rows {
                elements.extend((1..=cols).map(|c| format!("r{r}c{c}")));
            }
        }
        // Seen elements in a hash set: a set of 100,000 elements is checked in linear time.
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for e in &s.elements {
            check_ident(src, e.get_ref(), e.span().start)?;
            if !seen.insert(e.get_ref().as_str()) {
                return Err(src.fail(
                    e.span().start,
                    format!("element `{}` appears twice", e.get_ref()),
                ));
            }
            elements.push(e.get_ref().clone());
        }
        if elements.is_empty() {
            return Err(src.fail(s.name.span().start, "a set needs at least one element"));
        }
        d.syms.sets.insert(
            s.name.get_ref().clone(),
            SetSym {
                id: i as u16,
                elements: elements.clone(),
                grid,
            },
        );
        d.sets.push((s.name.get_ref().clone(), elements));
    }
    Ok(())
}
