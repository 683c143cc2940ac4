//! Validation and compilation of a [`RawScenario`] into a [`Model`].
//!
//! Owns every rule about what a well-formed scenario is (unique identifiers, reserved words,
//! constant bounds, sums of ages, known policies and timings) and the slot layout of the
//! state. Each problem becomes an [`Error::Scenario`] naming file:line:column.

use std::collections::HashMap;
use std::ops::Range;

use toml::Spanned;

mod actions;
mod ends;
mod examples;
mod warnings;

use super::raw::{Formula, RawScenario};
use crate::error::{Error, Location, Result};
use crate::expr::compile::{BUILTINS, Compiler, Ctx, KEYWORDS, SetSym, Symbols, VarSym, suggest};
use crate::expr::parse::ParseError;
use crate::expr::{Expr, Num, Stmt};
use crate::model::*;
use crate::state::{MAX_FACTIONS, Tables};

/// Where formulas come from: the file's text, for turning byte offsets into locations.
pub struct Source<'a> {
    /// File name as given.
    pub file: &'a str,
    /// The text.
    pub text: &'a str,
    /// Byte offset where each line starts, so that a location is a binary search, not a
    /// count from the start of the file (loading stays linear in the file's size).
    line_starts: Vec<usize>,
}

impl<'a> Source<'a> {
    /// The source `text` of file `file`.
    pub fn new(file: &'a str, text: &'a str) -> Source<'a> {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Source {
            file,
            text,
            line_starts,
        }
    }

    /// The location of a byte offset.
    pub fn at(&self, byte: usize) -> Location {
        let byte = byte.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= byte).max(1);
        let start = self.line_starts[line - 1];
        let col = self.text.get(start..byte).map_or(0, |l| l.chars().count()) + 1;
        Location {
            file: self.file.to_string(),
            line,
            col,
        }
    }

    /// A scenario error at a byte offset.
    pub fn fail(&self, byte: usize, msg: impl Into<String>) -> Error {
        Error::Scenario {
            loc: self.at(byte),
            msg: msg.into(),
        }
    }

    /// Where the formula's own text starts inside its TOML value (after any quotes).
    pub fn inner_start(&self, span: &Range<usize>) -> usize {
        let s = &self.text[span.start.min(self.text.len())..];
        if s.starts_with("\"\"\"") || s.starts_with("'''") {
            span.start + 3
        } else if s.starts_with('"') || s.starts_with('\'') {
            span.start + 1
        } else {
            span.start
        }
    }
}

/// FNV-1a, 64-bit: a stable fingerprint of the scenario text for reports (not security).
pub fn fnv1a(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

struct Cx<'a> {
    src: &'a Source<'a>,
    locs: Vec<Location>,
}

impl Cx<'_> {
    fn loc(&mut self, byte: usize) -> u32 {
        self.locs.push(self.src.at(byte));
        (self.locs.len() - 1) as u32
    }

    fn map(&self, f: &Formula, e: ParseError) -> Error {
        self.src
            .fail(self.src.inner_start(&f.span()) + e.pos, e.msg)
    }

    fn expr(&mut self, c: &Compiler, f: &Formula, ctx: Ctx) -> Result<Expr> {
        let start = self.src.inner_start(&f.span());
        let loc = self.loc(start);
        c.expr(&f.get_ref().0, ctx, loc).map_err(|e| self.map(f, e))
    }

    fn opt(&mut self, c: &Compiler, f: &Option<Formula>, ctx: Ctx) -> Result<Option<Expr>> {
        f.as_ref().map(|f| self.expr(c, f, ctx)).transpose()
    }

    fn stmts(&mut self, c: &mut Compiler, fs: &[Formula], ctx: Ctx) -> Result<Vec<Stmt>> {
        fs.iter()
            .map(|f| {
                let start = self.src.inner_start(&f.span());
                let loc = self.loc(start);
                c.stmt(&f.get_ref().0, ctx, loc).map_err(|e| self.map(f, e))
            })
            .collect()
    }

    fn constant(&mut self, c: &Compiler, f: &Formula, what: &str) -> Result<f64> {
        self.constant_num(c, f, what).map(Num::real)
    }

    /// A constant with its type: a whole number is an integer, kept exactly.
    fn constant_num(&mut self, c: &Compiler, f: &Formula, what: &str) -> Result<Num> {
        let e = self.expr(c, f, Ctx::global())?;
        e.as_const_num().ok_or_else(|| {
            self.src.fail(
                f.span().start,
                format!("{what} must be a constant (numbers and settings only)"),
            )
        })
    }

    fn keyword<'k>(
        &self,
        s: &Option<Spanned<String>>,
        allowed: &[&'k str],
        default: &'k str,
        what: &str,
    ) -> Result<&'k str> {
        match s {
            None => Ok(default),
            Some(s) => allowed
                .iter()
                .find(|a| **a == s.get_ref())
                .copied()
                .ok_or_else(|| {
                    self.src.fail(
                        s.span().start,
                        format!(
                            "unknown {what} `{}`: expected one of {}",
                            s.get_ref(),
                            allowed.join(", ")
                        ),
                    )
                }),
        }
    }
}

const RESERVED: [&str; 3] = ["target", "card", "die"];

/// Agent decisions one game may make unless `[scenario] max_steps` says otherwise: far more
/// than any rules need, few enough that a runaway game stops within seconds.
pub const DEFAULT_MAX_STEPS: u64 = 10_000_000;

/// Names the author defines share one namespace: settings, variables, factions, sides, sets,
/// decks.
struct Names<'a> {
    src: &'a Source<'a>,
    seen: HashMap<String, &'static str>,
}

impl Names<'_> {
    fn claim(&mut self, name: &Spanned<String>, kind: &'static str) -> Result<()> {
        let n = name.get_ref();
        let pos = name.span().start;
        check_ident(self.src, n, pos)?;
        if let Some(prev) = self.seen.insert(n.clone(), kind) {
            return Err(self.src.fail(
                pos,
                format!("`{n}` is already defined as a {prev}; every name must be unique"),
            ));
        }
        Ok(())
    }
}

fn check_ident(src: &Source, n: &str, pos: usize) -> Result<()> {
    let ok = n
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(src.fail(
            pos,
            format!(
                "`{n}` is not a valid name: use letters, digits and `_`, starting with a letter"
            ),
        ));
    }
    let dice = n.len() > 1 && n.starts_with('d') && n[1..].bytes().all(|b| b.is_ascii_digit());
    if KEYWORDS.contains(&n) || BUILTINS.contains(&n) || RESERVED.contains(&n) || dice {
        return Err(src.fail(
            pos,
            format!("`{n}` is a reserved word; choose another name"),
        ));
    }
    Ok(())
}

/// Compiles a parsed scenario.
pub fn compile(raw: &RawScenario, src: &Source) -> Result<Model> {
    compile_at(raw, src, true)
}

/// Compiles a parsed scenario; `variants` compiles the examples' setting variants too.
fn compile_at(raw: &RawScenario, src: &Source, variants: bool) -> Result<Model> {
    let mut cx = Cx {
        src,
        locs: Vec::new(),
    };
    let mut names = Names {
        src,
        seen: HashMap::new(),
    };
    let mut syms = Symbols {
        rounds: *raw.scenario.rounds.get_ref(),
        ..Symbols::default()
    };

    // Settings: constants, resolved before anything can refer to them.
    for (k, f) in &raw.settings {
        names.claim(&Spanned::new(f.span(), k.clone()), "setting")?;
        let empty = Symbols {
            rounds: syms.rounds,
            ..Symbols::default()
        };
        let v = cx.constant_num(&Compiler::new(&empty, vec![]), f, "a setting")?;
        syms.settings.insert(k.clone(), v);
    }

    // Factions and sides.
    let nf = raw.factions.len();
    if nf == 0 || nf > MAX_FACTIONS {
        return Err(src.fail(
            0,
            format!("a scenario needs 1 to {MAX_FACTIONS} [[faction]] tables, found {nf}"),
        ));
    }
    let mut factions = Vec::new();
    let mut side_names: Vec<String> = Vec::new();
    let mut tables = Tables {
        nfactions: nf as u8,
        ..Tables::default()
    };
    for (i, f) in raw.factions.iter().enumerate() {
        let f = f.get_ref();
        names.claim(&f.name, "faction")?;
        syms.factions.insert(f.name.get_ref().clone(), i as u8);
        let side = match &f.side {
            Some(s) => {
                let id = match side_names.iter().position(|x| x == s.get_ref()) {
                    Some(id) => id,
                    None => {
                        names.claim(s, "side")?;
                        side_names.push(s.get_ref().clone());
                        syms.sides
                            .insert(s.get_ref().clone(), side_names.len() as i64);
                        side_names.len() - 1
                    }
                };
                id as i64 + 1
            }
            None => 0,
        };
        tables.side.push(side);
        tables.player.push(f.player as i64);
        factions.push(Faction {
            name: f.name.get_ref().clone(),
            label: f.label.clone().unwrap_or_else(|| f.name.get_ref().clone()),
            side: f.side.as_ref().map(|s| s.get_ref().clone()),
            player: f.player,
        });
    }

    // Sets.
    let mut sets = Vec::new();
    for (i, s) in raw.sets.iter().enumerate() {
        names.claim(&s.name, "set")?;
        let mut elements: Vec<String> = Vec::new();
        for e in &s.elements {
            check_ident(src, e.get_ref(), e.span().start)?;
            if elements.contains(e.get_ref()) {
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
        syms.sets.insert(
            s.name.get_ref().clone(),
            SetSym {
                id: i as u16,
                elements: elements.clone(),
            },
        );
        sets.push((s.name.get_ref().clone(), elements));
    }

    // Decks and card attributes.
    let mut decks = Vec::new();
    let mut cards: Vec<(String, Vec<(String, i64)>)> = Vec::new();
    for (d, deck) in raw.decks.iter().enumerate() {
        let deck = deck.get_ref();
        names.claim(&deck.name, "deck")?;
        syms.decks.insert(deck.name.get_ref().clone(), d as u16);
        tables.deck_start.push(tables.pool.len() as u32);
        let mut card_names = Vec::new();
        for c in &deck.cards {
            let n = *c.count.get_ref();
            if !(0..=10_000).contains(&n) {
                return Err(src.fail(
                    c.count.span().start,
                    format!("card count {n} must be between 0 and 10000"),
                ));
            }
            for a in c.attrs.keys() {
                let next = syms.attrs.len() as u16;
                syms.attrs.entry(a.clone()).or_insert(next);
            }
            for _ in 0..n {
                tables.pool.push(cards.len() as u16);
                card_names.push(c.name.clone());
                cards.push((
                    c.name.clone(),
                    c.attrs.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                ));
            }
        }
        tables.deck_len.push(card_names.len() as u32);
        decks.push((deck.name.get_ref().clone(), card_names));
    }
    if cards.len() > u16::MAX as usize {
        return Err(src.fail(0, "too many cards (at most 65535 in all decks)"));
    }
    if let Some(d) = decks.iter().find(|d| d.1.len() > super::MAX_DECK_CARDS) {
        return Err(src.fail(
            0,
            format!(
                "deck `{}` has {} cards; a deck holds at most {}",
                d.0,
                d.1.len(),
                super::MAX_DECK_CARDS
            ),
        ));
    }
    tables.n_attrs = syms.attrs.len();
    tables.id_attr = syms.attrs.get("id").copied();
    tables.card_attrs = vec![0; cards.len() * tables.n_attrs];
    for (i, (_, attrs)) in cards.iter().enumerate() {
        for (k, v) in attrs {
            tables.card_attrs[i * tables.n_attrs + syms.attrs[k] as usize] = *v;
        }
    }
    tables.index_ids();

    // Variables: slot layout.
    let mut slots = 0u32;
    for (id, v) in raw.vars.iter().enumerate() {
        let v = v.get_ref();
        names.claim(&v.name, "variable")?;
        let faction =
            cx.keyword(&v.scope, &["faction", "global"], "faction", "scope")? == "faction";
        let set = match &v.over {
            None => None,
            Some(s) => match syms.sets.get(s.get_ref()) {
                Some(set) => Some(set.id),
                None => {
                    return Err(src.fail(
                        s.span().start,
                        format!(
                            "`{}` is not a set{}",
                            s.get_ref(),
                            suggest(s.get_ref(), syms.sets.keys())
                        ),
                    ));
                }
            },
        };
        let width = set.map_or(1, |s| sets[s as usize].1.len() as u32);
        let fstride = if faction { width } else { 0 };
        syms.vars.insert(
            v.name.get_ref().clone(),
            VarSym {
                id: id as u16,
                base: slots,
                faction,
                set,
                fstride,
            },
        );
        slots += width * if faction { nf as u32 } else { 1 };
    }

    // End reasons: declared ones first, then the last-round reason, then any `end NAME`.
    let mut reasons_meta: Vec<(String, &str, String)> = Vec::new();
    for e in &raw.ends {
        let e = e.get_ref();
        check_ident(src, e.name.get_ref(), e.name.span().start)?;
        if reasons_meta.iter().any(|r| &r.0 == e.name.get_ref()) {
            return Err(src.fail(
                e.name.span().start,
                format!("end reason `{}` is declared twice", e.name.get_ref()),
            ));
        }
        let result = cx.keyword(
            &e.result,
            &["rank", "draw", "nobody", "win", "lose"],
            "rank",
            "result",
        )?;
        let turn_start = e
            .timing
            .as_ref()
            .is_some_and(|t| t.get_ref() == "turn_start");
        if let Some(w) = &e.who {
            if !turn_start || !matches!(result, "win" | "lose") {
                return Err(src.fail(
                    w.span().start,
                    "`who` chooses whose win or lose condition is checked at turn start: \
                     it needs timing = \"turn_start\" and result = \"win\" or \"lose\"",
                ));
            }
            cx.keyword(&e.who, &["turn", "all"], "turn", "who")?;
        }
        if matches!(result, "win" | "lose") && e.when.is_none() {
            let at = e.result.as_ref().map_or(0, |r| r.span().start);
            return Err(src.fail(
                at,
                format!(
                    "a {result} condition needs `when`: the formula that makes a faction {result}"
                ),
            ));
        }
        reasons_meta.push((
            e.name.get_ref().clone(),
            result,
            e.description.clone().unwrap_or_default(),
        ));
    }
    let last = raw
        .scenario
        .last_round_reason
        .as_ref()
        .map_or("last_round".to_string(), |s| s.get_ref().clone());
    let last_round_reason = match reasons_meta.iter().position(|r| r.0 == last) {
        Some(i) => i,
        None => {
            reasons_meta.push((last.clone(), "rank", "the last round was played".into()));
            reasons_meta.len() - 1
        }
    } as u16;
    let mut comp = Compiler::new(&syms, reasons_meta.iter().map(|r| r.0.clone()).collect());

    // Variable bounds and initial values.
    let mut vars = Vec::new();
    tables.var_min = Vec::new();
    tables.var_max = Vec::new();
    for rv in &raw.vars {
        let rv = rv.get_ref();
        let sym = &syms.vars[rv.name.get_ref()];
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
            lo = cx.constant(&comp, f, "a variable's min")?.floor() as i64;
        }
        if let Some(f) = &rv.max {
            hi = cx.constant(&comp, f, "a variable's max")?.floor() as i64;
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
            Some(f) => Some(cx.constant(&comp, f, "a variable's flip")?.floor() as i64),
            None => None,
        };
        let init = match &rv.init {
            Some(f) => cx.expr(&comp, f, ctx)?,
            None => Expr::int(0),
        };
        let width = sym.set.map_or(1, |s| sets[s as usize].1.len() as u32);
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
        });
    }
    for (i, f) in raw.factions.iter().enumerate() {
        for (k, formula) in &f.get_ref().init {
            let Some(sym) = syms.vars.get(k) else {
                return Err(src.fail(
                    formula.span().start,
                    format!("`{k}` is not a variable{}", suggest(k, syms.vars.keys())),
                ));
            };
            if !sym.faction {
                return Err(src.fail(
                    formula.span().start,
                    format!("`{k}` is global; a faction can only set its own variables"),
                ));
            }
            vars[sym.id as usize].init_for[i] = Some(cx.expr(&comp, formula, Ctx::faction())?);
        }
    }

    // The name names report folders (`reports/<name>/`): a plain word, never a path.
    let name = raw.scenario.name.get_ref();
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !plain {
        return Err(src.fail(
            raw.scenario.name.span().start,
            format!(
                "the scenario name `{name}` is not a plain name: use letters, digits, `_` and `-`, starting with a letter or digit (it names report folders; `title` takes any text)"
            ),
        ));
    }

    // Clock.
    let rounds = *raw.scenario.rounds.get_ref();
    if !(1..=100_000).contains(&rounds) {
        return Err(src.fail(
            raw.scenario.rounds.span().start,
            format!("rounds must be between 1 and 100000, got {rounds}"),
        ));
    }
    let max_steps = match &raw.scenario.max_steps {
        None => DEFAULT_MAX_STEPS,
        Some(m) if *m.get_ref() >= 1 => *m.get_ref() as u64,
        Some(m) => {
            return Err(src.fail(
                m.span().start,
                format!("max_steps must be at least 1, got {}", m.get_ref()),
            ));
        }
    };
    let mut age_of_round = vec![1i64; rounds as usize + 1];
    if let Some(ages) = &raw.scenario.ages {
        let total: i64 = ages.get_ref().iter().sum();
        if ages.get_ref().iter().any(|&a| a < 1) || total != rounds {
            return Err(src.fail(
                ages.span().start,
                format!("ages list rounds per age; each must be at least 1 and they must add up to rounds = {rounds} (they add up to {total})"),
            ));
        }
        let mut r = 1;
        for (a, &n) in ages.get_ref().iter().enumerate() {
            for _ in 0..n {
                age_of_round[r] = a as i64 + 1;
                r += 1;
            }
        }
    }

    // Actions.
    let actions = actions::compile(raw, src, &mut cx, &mut comp, &syms, nf)?;

    // Agents.
    let default_agent = raw.agent.clone();
    let mut agents = Vec::new();
    for f in &raw.factions {
        let ra = f.get_ref().agent.clone().or_else(|| default_agent.clone());
        agents.push(actions::agent(&mut cx, &comp, ra.as_ref(), &actions)?);
    }

    // Phases.
    let mut phases = Vec::new();
    for p in &raw.phases {
        let p = p.get_ref();
        let faction =
            cx.keyword(&p.each, &["global", "faction"], "global", "phase kind")? == "faction";
        let ctx = if faction {
            Ctx::faction()
        } else {
            Ctx::global()
        };
        if !faction && (p.actions.is_some() || !p.order.is_empty()) {
            let at = p.each.as_ref().map_or(0, |e| e.span().start);
            return Err(src.fail(
                at,
                format!(
                    "phase `{}`: `actions` and `order` need each = \"faction\"",
                    p.name
                ),
            ));
        }
        if p.order.len() > crate::expr::compile::MAX_ORDER_KEYS {
            return Err(src.fail(
                p.order[0].span().start,
                format!(
                    "phase `{}`: at most {} order keys",
                    p.name,
                    crate::expr::compile::MAX_ORDER_KEYS
                ),
            ));
        }
        phases.push(Phase {
            name: p.name.clone(),
            faction,
            when: cx.opt(&comp, &p.when, Ctx::global())?,
            order: p
                .order
                .iter()
                .map(|f| cx.expr(&comp, f, Ctx::faction()))
                .collect::<Result<_>>()?,
            actions: cx.opt(&comp, &p.actions, Ctx::faction())?,
            effects: cx.stmts(&mut comp, &p.effects, ctx)?,
        });
    }
    if phases.is_empty() {
        return Err(src.fail(0, "a scenario needs at least one [[phase]]"));
    }

    // Events.
    let mut events = Vec::new();
    for e in &raw.events {
        let e = e.get_ref();
        let at = match cx.keyword(
            &e.at,
            &["round_start", "round_end"],
            "round_start",
            "event timing",
        )? {
            "round_start" => EventAt::RoundStart,
            _ => EventAt::RoundEnd,
        };
        let probability = cx.expr(&comp, &e.probability, Ctx::global())?;
        if let Some(p) = probability.as_const()
            && !(0.0..=1.0).contains(&p)
        {
            return Err(src.fail(
                e.probability.span().start,
                format!("probability {p} is outside 0..1"),
            ));
        }
        events.push(Event {
            name: e.name.clone(),
            at,
            when: cx.opt(&comp, &e.when, Ctx::global())?,
            probability,
            effects: cx.stmts(&mut comp, &e.effects, Ctx::global())?,
        });
    }

    // End conditions.
    let checks = ends::checks(raw, src, &mut cx, &comp, &reasons_meta)?;
    if checks.iter().any(|c| c.kind == CheckKind::Lose) {
        comp.rule_reasons();
    }
    let (immediate_by_var, immediate_on_draw) = ends::immediate(&vars, &checks);

    // Ranking.
    let r = &raw.ranking;
    let score = cx.expr(&comp, &r.score, Ctx::faction())?;
    let tier = cx.opt(&comp, &r.tier, Ctx::faction())?;
    let mut tiebreak = Vec::new();
    for f in &r.tiebreak {
        if f.get_ref().0.trim() == "die" {
            tiebreak.push(TieBreak::Die);
        } else {
            tiebreak.push(TieBreak::Expr(
                cx.expr(&comp, f, Ctx::faction())?,
                f.get_ref().0.trim().to_string(),
            ));
        }
    }
    if !r.shared && !matches!(tiebreak.last(), Some(TieBreak::Die)) {
        // A strict ranking must end somewhere: without `shared = true`, ties that survive the
        // chain are settled by a die, as most rulebooks do.
        tiebreak.push(TieBreak::Die);
    }

    let teams = match &raw.scenario.teams {
        Some(f) => cx.constant(&comp, f, "`teams`")? != 0.0,
        None => false,
    };

    // Worked examples.
    let examples = examples::compile(
        raw, src, &mut cx, &mut comp, &syms, &phases, &actions, rounds, variants,
    )?;

    let reason_names = comp.reasons.clone();
    let mechanisms = comp.mechanisms.clone();
    let sources = comp.sources.clone();
    let end_uses = std::mem::take(&mut comp.end_uses);
    let card_unbound = comp.card_reads.get() > 0 && comp.card_binders == 0;
    drop(comp);
    let reasons = reason_names
        .iter()
        .zip(&mechanisms)
        .enumerate()
        .map(|(i, (n, mech))| {
            let (result, description) = match reasons_meta.iter().find(|r| &r.0 == n) {
                Some((_, res, d)) => (*res, d.clone()),
                None if n == crate::expr::compile::ALL_LOST => (
                    "draw",
                    "every faction still in the game lost at once".into(),
                ),
                None if n == crate::expr::compile::LAST_STANDING => {
                    ("rank", "every opponent left the game".into())
                }
                None if n == crate::expr::compile::LAST_TEAM => {
                    ("rank", "every other team left the game".into())
                }
                None => ("rank", String::new()),
            };
            Reason {
                name: n.clone(),
                result: match result {
                    "draw" => ReasonResult::Draw,
                    "nobody" => ReasonResult::Nobody,
                    _ => ReasonResult::Rank,
                },
                mechanism: if i == last_round_reason as usize {
                    "last round".into()
                } else if let Some(c) = checks.iter().find(|c| c.reason as usize == i) {
                    match c.kind {
                        CheckKind::Win => "win condition".into(),
                        CheckKind::Lose => "lose condition".into(),
                        CheckKind::End => "condition".into(),
                    }
                } else if *mech == "condition" {
                    // Declared in [[end]] without `when`: only `end NAME` statements use it.
                    "end statement".into()
                } else {
                    mech.to_string()
                },
                description,
            }
        })
        .collect();
    let mut age_round = vec![0i64; age_of_round.len()];
    for r in 1..age_of_round.len() {
        age_round[r] = if r > 1 && age_of_round[r] == age_of_round[r - 1] {
            age_round[r - 1] + 1
        } else {
            1
        };
    }

    let mut warnings = Vec::new();
    warnings::floored_constants(&vars, &phases, &actions, &events, &cx.locs, &mut warnings);
    let declared: Vec<String> = raw
        .ends
        .iter()
        .map(|e| e.get_ref().name.get_ref().clone())
        .collect();
    warnings::ends_named_once(&end_uses, &declared, src, &mut warnings);
    if card_unbound {
        let at = src
            .text
            .find("card.")
            .map(|i| format!("{}: ", src.at(i)))
            .unwrap_or_default();
        warnings.push(format!(
            "{at}`card.ATTR` is read, but no `draw`, `take` or `for held` statement ever binds a \
             card, so it is always 0: draw a card first"
        ));
    }

    Ok(Model {
        warnings,
        max_steps,
        menus: Vec::new(),
        check_fns: Default::default(),
        round_fn: None,
        setup_fn: None,
        name: raw.scenario.name.get_ref().clone(),
        title: raw
            .scenario
            .title
            .clone()
            .unwrap_or_else(|| raw.scenario.name.get_ref().clone()),
        file: src.file.to_string(),
        overrides: Vec::new(),
        hash: fnv1a(src.text.as_bytes()),
        factions,
        vars,
        slots: slots as usize,
        tables,
        rounds: rounds as u32,
        age_of_round,
        age_round,
        teams,
        sources,
        sets,
        decks,
        phases,
        actions,
        agents,
        events,
        checks,
        immediate_by_var,
        immediate_on_draw,
        reasons,
        last_round_reason,
        ranking: Ranking {
            tier,
            score,
            tiebreak,
            shared: r.shared,
        },
        locs: cx.locs,
        examples,
        asserts: raw
            .asserts
            .iter()
            .map(|a| {
                let text = a.expr.get_ref().0.clone();
                (
                    a.name.clone().unwrap_or_else(|| text.clone()),
                    text,
                    src.at(src.inner_start(&a.expr.span())),
                )
            })
            .collect(),
    })
}
