//! Validation and compilation of a [`RawScenario`] into a [`Model`].
//!
//! Owns every rule about what a well-formed scenario is (unique identifiers, reserved words,
//! constant bounds, sums of ages, known policies and timings) and the slot layout of the
//! state. Each problem becomes an [`Error::Scenario`] naming file:line:column.

use std::collections::HashMap;
use std::ops::Range;

use toml::Spanned;

mod actions;
mod agents;
mod clock;
mod decks;
mod declare;
mod derived;
mod ends;
mod events;
mod examples;
mod metrics;
mod phases;
mod ranking;
mod reasons;
mod vars;
mod warnings;

use super::raw::{Formula, RawScenario};
use crate::error::{Error, Location, Result};
use crate::expr::compile::{Compiler, Ctx, KEYWORDS, is_builtin};
use crate::expr::parse::ParseError;
use crate::expr::{Expr, Num, Stmt};
use crate::model::*;

/// Where formulas come from: the file's text, for turning byte offsets into locations.
pub struct Source<'a> {
    /// File name as given.
    pub file: &'a str,
    /// The text.
    pub text: &'a str,
    /// Byte offset where each line starts, so that a location is a binary search, not a
    /// count from the start of the file (loading stays linear in the file's size).
    line_starts: Vec<usize>,
    /// Where each line came from when the text is the file edited by overrides.
    map: Option<&'a super::linemap::LineMap>,
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
            map: None,
        }
    }

    /// The source `text`, the file `file` edited by overrides, its lines' origins in `map`.
    pub fn edited(file: &'a str, text: &'a str, map: &'a super::linemap::LineMap) -> Source<'a> {
        Source {
            map: Some(map),
            ..Source::new(file, text)
        }
    }

    /// The location of a byte offset.
    pub fn at(&self, byte: usize) -> Location {
        let byte = byte.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= byte).max(1);
        let start = self.line_starts[line - 1];
        let col = self.text.get(start..byte).map_or(0, |l| l.chars().count()) + 1;
        let (line, from) = match self.map {
            Some(m) => {
                let (l, flag) = m.origin(line);
                (l, flag.map(Box::from))
            }
            None => (line, None),
        };
        Location {
            file: self.file.to_string(),
            line,
            col,
            from,
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
    /// The factions sitting out (`[scenario] players` below the factions declared).
    out: Vec<String>,
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

/// Where key `k` is written before its value at `value_at` (`"A.chance" = 0.1`), so that an
/// error about the key points at the key; the value's place when it cannot be found.
pub(super) fn key_start(text: &str, value_at: usize, k: &str) -> usize {
    let before = &text[..value_at.min(text.len())];
    let Some(eq) = before.rfind('=') else {
        return value_at;
    };
    let head = before[..eq].trim_end();
    let head = head.strip_suffix('"').unwrap_or(head);
    match head.strip_suffix(k) {
        Some(rest) => rest.strip_suffix('"').map_or(rest.len(), str::len),
        None => value_at,
    }
}

fn check_ident(src: &Source, n: &str, pos: usize) -> Result<()> {
    let max = crate::scenario::raw::MAX_LINE_CHARS;
    if n.len() > max {
        return Err(src.fail(
            pos,
            format!(
                "this name is {} characters long: shorten it to at most {max}",
                n.len()
            ),
        ));
    }
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
    if KEYWORDS.contains(&n) || is_builtin(n) || RESERVED.contains(&n) || dice {
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
///
/// Runs the sections in a fixed order: the declarations (settings, factions, sets, decks,
/// variable layout, end reasons) first, then every formula against the symbols they define.
/// The order decides which error is reported first and the order of `locs`.
fn compile_at(raw: &RawScenario, src: &Source, variants: bool) -> Result<Model> {
    match players(raw, src)? {
        Some((playing, out)) => compile_with(&playing, raw, src, variants, out),
        None => compile_with(raw, raw, src, variants, Vec::new()),
    }
}

/// With `[scenario] players` below the factions declared: the scenario the first ones play
/// (the others' names dropped from actions' `factions` lists) and the names of those that
/// sit out; `None` when every faction plays.
fn players(raw: &RawScenario, src: &Source) -> Result<Option<(RawScenario, Vec<String>)>> {
    let Some(f) = &raw.scenario.players else {
        return Ok(None);
    };
    let mut cx = Cx {
        src,
        locs: Vec::new(),
        out: Vec::new(),
    };
    let mut d = declare::Decls::new(raw, src);
    declare::settings(raw, &mut cx, &mut d)?;
    if matches!(f.get_ref().0.trim(), "true" | "false") {
        return Err(src.fail(
            f.span().start,
            "players is a number of factions, not true or false: give a whole number",
        ));
    }
    let n = cx.constant_num(&Compiler::new(&d.syms, vec![]), f, "players")?;
    let all = raw.factions.len();
    let n = match n {
        Num::Int(n) if (1..=all as i64).contains(&n) => n as usize,
        _ => {
            // A huge real (1e308) is shown as written, not as its 309 digits.
            let shown = match n {
                Num::Real(r) if r.abs() >= 1e15 => format!("{r:e}"),
                n => n.to_string(),
            };
            return Err(src.fail(
                f.span().start,
                format!("players is {shown}: it must be a whole number from 1 to the {all} factions declared"),
            ));
        }
    };
    if n == all {
        return Ok(None);
    }
    let mut playing = raw.clone();
    let out: Vec<String> = playing
        .factions
        .drain(n..)
        .map(|f| f.get_ref().name.get_ref().clone())
        .collect();
    for a in &mut playing.actions {
        let a = a.get_mut();
        let listed = !a.factions.is_empty();
        a.factions.retain(|f| !out.contains(f.get_ref()));
        if listed && a.factions.is_empty() {
            // Only factions that sit out may take it: nobody may.
            a.when = Some(Spanned::new(a.name.span(), super::raw::Src("false".into())));
        }
    }
    Ok(Some((playing, out)))
}

/// Compiles `raw` with `out` the factions that sit out; `whole` is the scenario as the file
/// declares it, from which the examples' variants are compiled.
fn compile_with(
    raw: &RawScenario,
    whole: &RawScenario,
    src: &Source,
    variants: bool,
    out: Vec<String>,
) -> Result<Model> {
    let nf = raw.factions.len();
    let mut cx = Cx {
        src,
        locs: Vec::new(),
        out,
    };
    let mut d = declare::Decls::new(raw, src);
    declare::settings(raw, &mut cx, &mut d)?;
    declare::factions(raw, src, &mut d)?;
    declare::faction_settings(raw, &mut cx, &mut d)?;
    // The rounds and ages, once the settings and the factions playing are known.
    let (rounds, ages) = clock::numbers(raw, &mut cx, &Compiler::new(&d.syms, Vec::new()))?;
    (d.syms.rounds, d.syms.rounds_pending) = (rounds, false);
    declare::sets(raw, src, &mut d)?;
    decks::decks(raw, src, &mut d)?;
    let slots = vars::layout(raw, src, &cx, &mut d)?;
    let declared = reasons::declare(raw, src, &cx)?;
    derived::declare(raw, &mut cx, &mut d, &declared.names())?;
    let declare::Decls {
        syms,
        mut tables,
        factions,
        sets,
        decks,
        ..
    } = d;
    let mut comp = Compiler::new(&syms, declared.names());
    let mut vars = vars::compile(raw, src, &mut cx, &comp, &sets, &mut tables)?;
    vars::credits(raw, src, &mut comp, &mut vars)?;
    check_name(raw, src)?;
    let clock = clock::compile(raw, src, rounds, &ages)?;
    let actions = actions::compile(raw, src, &mut cx, &mut comp, &syms, nf)?;
    if crate::signal::stopped() {
        return Err(crate::error::Error::Interrupted);
    }
    let agents = agents::agents(raw, &mut cx, &comp, &actions)?;
    vars::priors_see_only_what_is_shown(raw, src, &vars)?;
    let hidden = vars::hidden(raw, src, &vars, &agents)?;
    let menu_reads_unseen = vars::menu_reads_unseen(&vars, &actions);
    let deck_public = raw.decks.iter().map(|d| d.get_ref().public).collect();
    let (card_of, cards) = crate::model::card_keys(&decks);
    let phases = phases::compile(raw, src, &mut cx, &mut comp)?;
    let events = events::compile(raw, src, &mut cx, &mut comp)?;

    // End conditions.
    let checks = ends::checks(raw, src, &mut cx, &comp, &declared.meta)?;
    if checks.iter().any(|c| c.kind == CheckKind::Lose) {
        comp.rule_reasons();
    }
    let (immediate, immediate_by_var, immediate_on_draw) = ends::immediate(&vars, &checks);

    let ranking = ranking::compile(raw, &mut cx, &comp)?;
    let metrics = metrics::compile(raw, src, &mut cx, &comp, &factions)?;
    let teams = ranking::teams(raw, &mut cx, &comp)?;
    let examples = examples::compile(
        raw,
        whole,
        src,
        &mut cx,
        &mut comp,
        &syms,
        &phases,
        &actions,
        clock.rounds,
        variants,
    )?;

    // What the compiler interned while compiling the rules.
    let reasons = reasons::finish(&declared, &comp, &checks);
    let sources = comp.sources.clone();
    let end_uses = std::mem::take(&mut comp.end_uses);
    let card_unbound = comp.card_reads.get() > 0 && comp.card_binders == 0;

    let mut warnings = Vec::new();
    warnings::floored_constants(&vars, &phases, &actions, &events, &cx.locs, &mut warnings);
    warnings::ends_named_once(&end_uses, &reasons::declared_names(raw), src, &mut warnings);
    let reason_names: Vec<String> = reasons.iter().map(|r| r.name.clone()).collect();
    warnings::never_rechecked(
        &checks,
        &immediate,
        &immediate_by_var,
        &immediate_on_draw,
        &reason_names,
        &cx.locs,
        &mut warnings,
    );
    if card_unbound {
        warnings::card_unbound(src, &mut warnings);
    }

    let mut m = Model {
        warnings,
        max_steps: clock.max_steps,
        menus: Vec::new(),
        check_fns: Default::default(),
        round_fn: None,
        round_in_engine: None,
        setup_fn: None,
        name: raw.scenario.name.get_ref().clone(),
        title: raw
            .scenario
            .title
            .as_ref()
            .map(|t| t.0.clone())
            .unwrap_or_else(|| raw.scenario.name.get_ref().clone()),
        // Shown on one line wherever it is shown (the file itself is read by its path).
        file: crate::error::one_line(src.file).into_owned(),
        overrides: Vec::new(),
        hash: fnv1a(src.text.as_bytes()),
        factions: factions.into(),
        vars: vars.into(),
        slots: slots as usize,
        tables,
        rounds: clock.rounds as u32,
        age_of_round: clock.age_of_round,
        age_round: clock.age_round,
        teams,
        count_uses: false,
        split_feedback: false,
        record_rounds: true,
        seatings: Vec::new(),
        seats_unmoved: false,
        metrics,
        sources,
        sets,
        card_of,
        cards,
        decks,
        deck_public,
        hidden,
        menu_reads_unseen,
        phases: phases.round,
        end_phases: phases.end,
        actions: actions.into(),
        agents: agents.into(),
        events,
        checks,
        immediate,
        immediate_by_var,
        immediate_on_draw,
        reasons: reasons.into(),
        last_round_reason: declared.last_round,
        ranking,
        locs: cx.locs,
        examples,
        asserts: asserts(raw, src),
    };
    // Who knows where a card is is kept only when some statement passes hands on.
    let passes = m.statements().any(|s| {
        let mut found = false;
        s.visit(&mut |s| found |= matches!(s, crate::expr::Stmt::Pass { .. }));
        found
    });
    m.tables.passes = passes;
    Ok(m)
}

/// The scenario's name names report folders (`reports/<name>/`): a plain word, never a path.
fn check_name(raw: &RawScenario, src: &Source) -> Result<()> {
    let name = raw.scenario.name.get_ref();
    let max = crate::scenario::raw::MAX_LINE_CHARS;
    if name.len() > max {
        return Err(src.fail(
            raw.scenario.name.span().start,
            format!(
                "this name is {} characters long: shorten it to at most {max} (it names report \
                 folders)",
                name.len()
            ),
        ));
    }
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
    Ok(())
}

/// The `[[assert]]` balance assertions: each one's name (its formula when unnamed), its
/// formula and where the formula is written.
fn asserts(raw: &RawScenario, src: &Source) -> Vec<(String, String, Location)> {
    raw.asserts
        .iter()
        .map(|a| {
            let text = a.expr.get_ref().0.clone();
            (
                (a.name.as_ref().map(|n| n.0.clone())).unwrap_or_else(|| text.clone()),
                text,
                src.at(src.inner_start(&a.expr.span())),
            )
        })
        .collect()
}
