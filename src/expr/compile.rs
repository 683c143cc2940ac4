//! Name resolution and code generation: [`Ast`] to flat [`Op`] programs, [`StmtAst`] to
//! [`Stmt`].
//!
//! Owns the meaning of every name an author can write (settings, variables, builtins,
//! factions, sides, sets, decks, card attributes, functions) and the checks that can be made
//! before a game runs: undefined names, wrong argument counts, constant probabilities outside
//! 0..1, references to `me`/`target` where there is none. Positions in errors are byte
//! offsets in the source string; the scenario compiler turns them into file:line:column.

use std::collections::HashMap;

use crate::ids::ReasonId;

use super::parse::{Ast, BinOp, OutcomeKind, ParseError, StmtAst};
mod calls;
mod derived;
mod names;
mod namespace;
mod positions;
mod settings;
mod statements;

use super::{Agg, Elem, Expr, Func, LValue, Num, Op, RandFn, STACK, Stmt, Who};
use names::FUNCTIONS;
pub use names::{BUILTIN_TABLE, Builtin, KEYWORDS, edit_distance, is_builtin, suggest};

/// A variable as expressions see it.
#[derive(Debug, Clone)]
pub struct VarSym {
    /// Variable id.
    pub id: u16,
    /// First slot.
    pub base: u32,
    /// Per-faction variable.
    pub faction: bool,
    /// The set it is indexed by, if any.
    pub set: Option<u16>,
    /// Slots per faction.
    pub fstride: u32,
}

/// A named set of elements.
#[derive(Debug, Clone)]
pub struct SetSym {
    /// Set id.
    pub id: u16,
    /// Element names, in order.
    pub elements: Vec<String>,
    /// `Some((rows, cols))` for a grid (elements numbered row by row).
    pub grid: Option<(u16, u16)>,
}

/// Every name a scenario defines.
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    /// Settings (named constants).
    pub settings: HashMap<String, Num>,
    /// Settings some faction gives its own value: each faction's value, by faction index.
    pub faction_settings: HashMap<String, Vec<Num>>,
    /// Variables.
    pub vars: HashMap<String, VarSym>,
    /// Factions by name, to index.
    pub factions: HashMap<String, u8>,
    /// Sides by name, to 1-based id.
    pub sides: HashMap<String, i64>,
    /// Sets by name.
    pub sets: HashMap<String, SetSym>,
    /// Decks by name.
    pub decks: HashMap<String, u16>,
    /// Card attributes by name.
    pub attrs: HashMap<String, u16>,
    /// The scenario's last round (`[scenario] rounds`): the builtin `rounds`.
    pub rounds: i64,
    /// `rounds` is a formula not yet evaluated (it is, once settings and factions are
    /// declared): until then the builtin `rounds` cannot be read.
    pub rounds_pending: bool,
    /// Derived values by name: each formula, compiled wherever it is read.
    pub derived: HashMap<String, Derived>,
}

/// A derived value (`[[derived]]`): a named formula, expanded where it is read as if its
/// text stood there, so it is computed from the state of that moment and never stored.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The formula.
    pub ast: Ast,
    /// A value per faction (else one global value).
    pub faction: bool,
}

/// What a formula may refer to where it appears.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ctx {
    /// There is an acting faction (`me`, and unqualified faction variables).
    pub me: bool,
    /// There is a target faction.
    pub target: bool,
    /// A faction is bound (acting faction or inside an aggregation over factions).
    pub bound: bool,
    /// The set bound by the innermost set aggregation.
    pub set: Option<u16>,
}

impl Ctx {
    /// A global context: no faction.
    pub fn global() -> Ctx {
        Ctx::default()
    }
    /// The context of a faction's own formula.
    pub fn faction() -> Ctx {
        Ctx {
            me: true,
            bound: true,
            ..Ctx::default()
        }
    }
}

/// Reasons the win/lose rules can end a game with, interned when `lose` is used.
pub const LAST_STANDING: &str = "last_standing";
/// Everyone left lost at once: a draw.
pub const ALL_LOST: &str = "all_lost";
/// Every other team has left the game.
pub const LAST_TEAM: &str = "last_team";

/// Most distinct points-by-source tags.
pub const MAX_SOURCES: usize = 16;

fn err<T>(pos: usize, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(perr(pos, msg))
}

/// A [`ParseError`] at byte offset `pos`.
fn perr(pos: usize, msg: impl Into<String>) -> ParseError {
    ParseError {
        pos,
        msg: msg.into(),
    }
}

/// Turns parsed formulas into programs against one scenario's [`Symbols`].
pub struct Compiler<'s> {
    /// The names in scope.
    pub syms: &'s Symbols,
    /// End reasons, interned in first-use order.
    pub reasons: Vec<String>,
    /// The mechanism that first used each reason (parallel to `reasons`).
    pub mechanisms: Vec<&'static str>,
    /// Points-by-source tags, interned in first-use order.
    pub sources: Vec<String>,
    /// The reason of every `end NAME` statement compiled, once per use (for the warning
    /// about a reason named only once).
    pub end_uses: Vec<String>,
    /// How many formulas read `card.ATTR` (counted while compiling, through `&self`).
    pub card_reads: std::cell::Cell<u32>,
    /// How many `draw`, `take` and `for held` statements bind a card.
    pub card_binders: u32,
    /// The elements the templates in scope bind while their copies compile, outermost
    /// first: the word that stands for each, its set's id and the element's index (a
    /// `for_each` action, then the `for ... in` templates nested in its statements).
    pub templates: Vec<Template>,
    /// How many derived values are being expanded inside one another right now.
    pub expanding: std::cell::Cell<usize>,
}

/// A template's binding (`for_each` on an action, `for m in SET:` in statements): `word`
/// stands for element `elem` of set `set`, as an index (`done[it]`) or as its 1-based
/// position (`it`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The word bound.
    pub word: String,
    /// The set's id.
    pub set: u16,
    /// The element's index in it.
    pub elem: u16,
}

impl<'s> Compiler<'s> {
    /// A compiler over `syms` with the given pre-declared end reasons.
    pub fn new(syms: &'s Symbols, reasons: Vec<String>) -> Self {
        let mechanisms = vec!["condition"; reasons.len()];
        Compiler {
            syms,
            reasons,
            mechanisms,
            sources: Vec::new(),
            end_uses: Vec::new(),
            card_reads: std::cell::Cell::new(0),
            card_binders: 0,
            templates: Vec::new(),
            expanding: std::cell::Cell::new(0),
        }
    }

    /// The innermost template whose word is `word`.
    pub(super) fn template(&self, word: &str) -> Option<&Template> {
        self.templates.iter().rev().find(|t| t.word == word)
    }

    fn reason(&mut self, r: &str, mechanism: &'static str) -> ReasonId {
        match self.reasons.iter().position(|x| x == r) {
            Some(i) => ReasonId::from_index(i),
            None => {
                self.reasons.push(r.to_string());
                self.mechanisms.push(mechanism);
                ReasonId::from_index(self.reasons.len() - 1)
            }
        }
    }

    /// Interns the reasons a loss can end the game with (last one standing, everyone lost,
    /// last team standing): a scenario in which factions can lose can end by them.
    pub fn rule_reasons(&mut self) {
        self.reason(LAST_STANDING, "lose");
        self.reason(ALL_LOST, "lose");
        self.reason(LAST_TEAM, "lose");
    }

    /// The index of points source `name`, interned if new (an error past the most sources).
    pub fn source_named(&mut self, name: &str) -> Result<u8, String> {
        self.source(&Some((name.to_string(), 0)))
            .map(|s| s.unwrap_or(0))
            .map_err(|e| e.msg)
    }

    fn source(&mut self, s: &Option<(String, usize)>) -> Result<Option<u8>, ParseError> {
        let Some((name, pos)) = s else {
            return Ok(None);
        };
        if let Some(i) = self.sources.iter().position(|x| x == name) {
            return Ok(Some(i as u8));
        }
        if self.sources.len() >= MAX_SOURCES {
            return err(
                *pos,
                format!("at most {MAX_SOURCES} different point sources"),
            );
        }
        self.sources.push(name.clone());
        Ok(Some((self.sources.len() - 1) as u8))
    }

    fn faction_var(
        &self,
        var: &(String, usize),
        ctx: Ctx,
        what: &str,
    ) -> Result<LValue, ParseError> {
        let name = Ast::Name {
            owner: None,
            name: var.0.clone(),
            index: None,
            pos: var.1,
        };
        let (lv, v) = self.var_ref(&name, Ctx { bound: true, ..ctx })?;
        if !v.faction || v.set.is_some() {
            return err(
                var.1,
                format!(
                    "{what} must be a plain per-faction variable; `{}` is not one",
                    var.0
                ),
            );
        }
        Ok(lv)
    }

    /// Compiles an expression source string.
    pub fn expr(&self, src: &str, ctx: Ctx, loc: u32) -> Result<Expr, ParseError> {
        let ast = super::parse::parse_expr(src)?;
        let code = self.code(&ast, ctx)?;
        Ok(Expr::new(code, loc))
    }

    /// Compiles a statement source string.
    pub fn stmt(&mut self, src: &str, ctx: Ctx, loc: u32) -> Result<Stmt, ParseError> {
        let ast = super::parse::parse_stmt(src)?;
        self.stmt_ast(&ast, ctx, loc)
    }

    fn code(&self, ast: &Ast, ctx: Ctx) -> Result<Vec<Op>, ParseError> {
        let mut out = Vec::new();
        self.emit(ast, ctx, &mut out)?;
        if depth(&out) > STACK {
            return err(
                ast.pos(),
                format!("expression too deeply nested (more than {STACK} pending values)"),
            );
        }
        let work = visits(&out, self.syms.factions.len().max(1) as u128);
        if work > MAX_VISITS {
            return err(
                ast.pos(),
                format!(
                    "aggregates nested this way visit {work} combinations each time the formula \
                     runs (at most {MAX_VISITS}): compute the inner one into a variable first"
                ),
            );
        }
        for op in &out {
            if let Op::Dice(n, _) = op
                && *n as i64 > super::tree::MAX_DICE
            {
                return err(
                    ast.pos(),
                    format!("at most {} dice in one throw", super::tree::MAX_DICE),
                );
            }
        }
        Ok(out)
    }

    fn name(&self, ast: &Ast, ctx: Ctx) -> Result<Op, ParseError> {
        let (owner, name, index, pos) = name_parts(ast);
        if let Some((o, op)) = owner
            && o == "card"
        {
            self.card_reads.set(self.card_reads.get() + 1);
            return match self.syms.attrs.get(name) {
                Some(&a) => Ok(Op::CardAttr(a)),
                None => err(
                    *op,
                    format!(
                        "no card has an attribute `{name}`{}",
                        suggest(name, self.syms.attrs.keys())
                    ),
                ),
            };
        }
        if owner.is_none() && index.is_none() {
            if let Some(&v) = self.syms.settings.get(name) {
                return Ok(match v {
                    Num::Int(i) => Op::Int(i),
                    Num::Real(r) => Op::Const(r),
                });
            }
            if let Some(t) = self.template(name) {
                return Ok(Op::Int(t.elem as i64 + 1));
            }
            match name.as_str() {
                "round" => return Ok(Op::Round),
                "age" => return Ok(Op::Age),
                // The number of factions is the model's: a constant (an award's scale may
                // read it, "only 1st scores with 2 players").
                "nfactions" if !self.syms.factions.is_empty() => {
                    return Ok(Op::Int(self.syms.factions.len() as i64));
                }
                "nfactions" => return Ok(Op::NFactions),
                "age_round" => return Ok(Op::AgeRound),
                "drawn" => return Ok(Op::Drawn),
                _ => {}
            }
            if let Some(&f) = self.syms.factions.get(name) {
                return Ok(Op::Int(f as i64 + 1));
            }
            if let Some(&s) = self.syms.sides.get(name) {
                return Ok(Op::Int(s));
            }
        }
        match name.as_str() {
            "seat" => return Ok(Op::Seat(self.who(owner, ctx, pos)?)),
            "table_seat" => return Ok(Op::TableSeat(self.who(owner, ctx, pos)?)),
            "side" => return Ok(Op::Side(self.who(owner, ctx, pos)?)),
            "player" => return Ok(Op::Player(self.who(owner, ctx, pos)?)),
            "eliminated" => return Ok(Op::Eliminated(self.who(owner, ctx, pos)?)),
            // The last round, a constant; a variable or setting of that name (allowed
            // before the builtin existed) comes first.
            "rounds"
                if owner.is_none() && index.is_none() && !self.syms.vars.contains_key(name) =>
            {
                if self.syms.rounds_pending {
                    return err(
                        pos,
                        "`rounds` is a formula of settings here ([scenario] rounds), so a \
                         setting or the rounds themselves cannot read it: write the number",
                    );
                }
                return Ok(Op::Int(self.syms.rounds));
            }
            _ => {}
        }
        // An element's name read as a value is its 1-based position in its set
        // (`col(it) == wasabi`); a variable of that name comes first.
        if owner.is_none()
            && index.is_none()
            && !self.syms.vars.contains_key(name)
            && let Some(p) = self.element_position(name, pos)?
        {
            return Ok(Op::Int(p));
        }
        let (lv, _) = self.var_ref(ast, ctx)?;
        Ok(Op::Load {
            base: lv.base,
            fstride: lv.fstride,
            who: lv.who,
            elem: lv.elem,
        })
    }

    fn var_ref(&self, ast: &Ast, ctx: Ctx) -> Result<(LValue, &VarSym), ParseError> {
        if let Some(written) = self.at_position(ast, ctx) {
            return written;
        }
        let Ast::Name {
            owner,
            name,
            index,
            pos,
        } = ast
        else {
            return err(ast.pos(), "expected a variable");
        };
        let Some(v) = self.syms.vars.get(name) else {
            if self.syms.derived.contains_key(name) {
                return err(
                    *pos,
                    format!(
                        "`{name}` is a derived value, computed from its formula wherever it is \
                         read: it holds nothing to assign; assign the variables its formula reads"
                    ),
                );
            }
            let known = self
                .syms
                .vars
                .keys()
                .chain(self.syms.settings.keys())
                .chain(self.syms.factions.keys())
                .chain(self.syms.sides.keys());
            return err(
                *pos,
                format!("`{name}` is not defined{}", suggest(name, known)),
            );
        };
        let who = if v.faction {
            self.who(owner, ctx, *pos)?
        } else {
            if let Some((o, p)) = owner {
                return err(
                    *p,
                    format!("`{name}` is a global variable: write `{name}`, not `{o}.{name}`"),
                );
            }
            Who::None
        };
        let elem = match (v.set, index) {
            (None, None) => Elem::None,
            (None, Some((_, p))) => return err(*p, format!("`{name}` is not indexed by a set")),
            (Some(s), Some((e, p))) if self.template(e).is_some() => {
                let t = self.template(e).filter(|t| t.set == s);
                let what = format!("`{e}` is an element of another set than `{name}`'s");
                let hint = format!("for its position as a number, write `{name}[({e})]`");
                Elem::Fixed(t.ok_or_else(|| perr(*p, format!("{what} ({hint})")))?.elem)
            }
            (Some(s), Some((e, p))) => {
                let set = self.set_by_id(s);
                match set.elements.iter().position(|x| x == e) {
                    Some(i) => Elem::Fixed(i as u16),
                    None => {
                        return err(
                            *p,
                            format!(
                                "`{e}` is not an element of `{name}`'s set{}",
                                suggest(e, set.elements.iter())
                            ),
                        );
                    }
                }
            }
            (Some(s), None) if ctx.set == Some(s) => Elem::Bound,
            (Some(_), None) => {
                return err(
                    *pos,
                    format!(
                        "`{name}` is indexed: write `{name}[element]`, or use it inside sum_in/count_in/max_in/min_in over its set"
                    ),
                );
            }
        };
        Ok((
            LValue {
                var: v.id,
                base: v.base,
                fstride: v.fstride,
                who,
                elem,
            },
            v,
        ))
    }

    fn emit(&self, ast: &Ast, ctx: Ctx, out: &mut Vec<Op>) -> Result<(), ParseError> {
        match ast {
            Ast::Num(v, _) => out.push(Op::Const(*v)),
            Ast::Int(v, _) => out.push(Op::Int(*v)),
            Ast::Dice(n, s, _) => out.push(Op::Dice(*n, *s)),
            Ast::Name { name, owner, .. }
                if self.syms.derived.contains_key(name)
                    && owner.as_ref().is_none_or(|(o, _)| o != "card") =>
            {
                self.derived(ast, ctx, out)?
            }
            Ast::Name { name, owner, .. }
                if self.syms.faction_settings.contains_key(name)
                    && owner.as_ref().is_none_or(|(o, _)| o != "card") =>
            {
                self.faction_setting(ast, ctx, out)?
            }
            Ast::Name { .. } => match self.named_position(ast) {
                Some(at) => self.emit(&at, ctx, out)?,
                None => out.push(self.name(ast, ctx)?),
            },
            Ast::Index(var, at, _) => self.index(var, at, ctx, out)?,
            Ast::Neg(e, _) => {
                self.emit(e, ctx, out)?;
                out.push(Op::Neg);
            }
            Ast::Not(e, _) => {
                self.emit(e, ctx, out)?;
                out.push(Op::Not);
            }
            Ast::Bin(BinOp::And, l, r, _) => {
                // l ? bool(r) : 0
                self.emit(l, ctx, out)?;
                let j = out.len();
                out.push(Op::JumpIfFalse(0));
                self.emit(r, ctx, out)?;
                out.push(Op::Bool);
                let k = out.len();
                out.push(Op::Jump(0));
                out[j] = Op::JumpIfFalse(out.len() as u32);
                out.push(Op::Int(0));
                out[k] = Op::Jump(out.len() as u32);
            }
            Ast::Bin(BinOp::Or, l, r, _) => {
                // l ? 1 : bool(r)
                self.emit(l, ctx, out)?;
                let j = out.len();
                out.push(Op::JumpIfFalse(0));
                out.push(Op::Int(1));
                let k = out.len();
                out.push(Op::Jump(0));
                out[j] = Op::JumpIfFalse(out.len() as u32);
                self.emit(r, ctx, out)?;
                out.push(Op::Bool);
                out[k] = Op::Jump(out.len() as u32);
            }
            Ast::Bin(op, l, r, _) => {
                self.emit(l, ctx, out)?;
                self.emit(r, ctx, out)?;
                out.push(Op::Bin(*op));
            }
            Ast::Call(name, args, pos) => self.call(name, args, *pos, ctx, out)?,
        }
        Ok(())
    }

    fn deck_arg(&self, a: &Ast) -> Result<u16, ParseError> {
        match a {
            Ast::Name {
                owner: None,
                name: d,
                index: None,
                pos,
            } => self.deck(d, *pos),
            other => err(other.pos(), "expected a deck name"),
        }
    }

    /// The deck named `d` (at `pos`), or the error that names the decks there are.
    pub(super) fn deck(&self, d: &str, pos: usize) -> Result<u16, ParseError> {
        match self.syms.decks.get(d) {
            Some(&id) => Ok(id),
            None => err(
                pos,
                format!("`{d}` is not a deck{}", suggest(d, self.syms.decks.keys())),
            ),
        }
    }

    /// A deck named in a statement about the hand of the faction in scope.
    fn hand_deck(&self, d: &str, pos: usize, ctx: Ctx, what: &str) -> Result<u16, ParseError> {
        if !ctx.bound {
            return err(
                pos,
                format!("{what} of the faction in scope, and no faction is in scope here"),
            );
        }
        self.deck_arg(&Ast::Name {
            owner: None,
            name: d.to_string(),
            index: None,
            pos,
        })
    }

    fn const_of(&self, ast: &Ast, ctx: Ctx) -> Result<Option<f64>, ParseError> {
        let code = self.code(ast, ctx)?;
        Ok(Expr::new(code, 0).as_const())
    }

    fn check_probability(&self, ast: &Ast, ctx: Ctx) -> Result<(), ParseError> {
        match self.const_of(ast, ctx)? {
            Some(p) if !(0.0..=1.0).contains(&p) => {
                err(ast.pos(), format!("probability {p} is outside 0..1"))
            }
            _ => Ok(()),
        }
    }
}

fn agg_name(name: &str) -> Option<(Agg, &str)> {
    let (k, scope) = name.split_once('_')?;
    let kind = match k {
        "sum" => Agg::Sum,
        "max" => Agg::Max,
        "min" => Agg::Min,
        "count" => Agg::Count,
        _ => return None,
    };
    matches!(scope, "all" | "others" | "in").then_some((kind, scope))
}

fn depth(code: &[Op]) -> usize {
    let (mut d, mut max) = (0isize, 0isize);
    let mut i = 0;
    while i < code.len() {
        let delta = match code[i] {
            Op::Neg | Op::Not | Op::Bool | Op::Jump(_) | Op::LoadAt { .. } => 0,
            Op::Bin(_) | Op::JumpIfFalse(_) => -1,
            Op::Call(_, n) | Op::Rand(_, n) => 1 - n as isize,
            Op::AggFactions { len, .. } | Op::AggSet { len, .. } => {
                // The body runs on the same stack, above the values pending here.
                max = max
                    .max(d + 1)
                    .max(d + depth(&code[i + 1..i + 1 + len as usize]) as isize);
                i += len as usize;
                1
            }
            _ => 1,
        };
        d += delta;
        max = max.max(d);
        i += 1;
    }
    max as usize
}

/// The most combinations nested aggregates may visit in one evaluation.
const MAX_VISITS: u128 = 1_000_000;

/// How many times the innermost body of nested aggregates runs in one evaluation (the
/// product of the sizes along the deepest nesting), for `nf` factions.
fn visits(code: &[Op], nf: u128) -> u128 {
    let mut most = 1u128;
    let mut i = 0;
    while i < code.len() {
        if let Op::AggFactions { len, .. } | Op::AggSet { len, .. } = code[i] {
            let n = match code[i] {
                Op::AggSet { n, .. } => n as u128,
                _ => nf,
            };
            let body = &code[i + 1..(i + 1 + len as usize).min(code.len())];
            most = most.max(n.saturating_mul(visits(body, nf)));
            i += len as usize;
        }
        i += 1;
    }
    most
}

/// A name's owner (`me`, `target`, a faction, `card`) or index, and where it is written.
type Part = Option<(String, usize)>;

/// The parts of a name (`[owner.]name[[index]]`): owner, name, index and position.
fn name_parts(ast: &Ast) -> (&Part, &String, &Part, usize) {
    let Ast::Name {
        owner,
        name,
        index,
        pos,
    } = ast
    else {
        unreachable!("a name's parts asked of a {ast:?}")
    };
    (owner, name, index, *pos)
}

#[cfg(test)]
mod tests;
