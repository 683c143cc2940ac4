//! Name resolution and code generation: [`Ast`] to flat [`Op`] programs, [`StmtAst`] to
//! [`Stmt`].
//!
//! Owns the meaning of every name an author can write (settings, variables, builtins,
//! factions, sides, sets, decks, card attributes, functions) and the checks that can be made
//! before a game runs: undefined names, wrong argument counts, constant probabilities outside
//! 0..1, references to `me`/`target` where there is none. Positions in errors are byte
//! offsets in the source string; the scenario compiler turns them into file:line:column.

use std::collections::HashMap;

use super::parse::{Ast, BinOp, OutcomeKind, ParseError, StmtAst};
use super::{Agg, Elem, Expr, Func, LValue, Num, Op, RandFn, STACK, Stmt, Who};

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
}

/// Every name a scenario defines.
#[derive(Debug, Clone, Default)]
pub struct Symbols {
    /// Settings (named constants).
    pub settings: HashMap<String, Num>,
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

/// The most sort keys an `order` statement or a phase order may have.
pub const MAX_ORDER_KEYS: usize = 4;

/// Builtin names that are never variables.
pub const BUILTINS: [&str; 10] = [
    "round",
    "age",
    "age_round",
    "nfactions",
    "seat",
    "side",
    "player",
    "drawn",
    "card",
    "eliminated",
];

/// Reserved words of the statement and expression syntax.
pub const KEYWORDS: [&str; 27] = [
    "and", "or", "not", "if", "else", "each", "others", "end", "draw", "order", "by", "true",
    "false", "me", "award", "scale", "ties", "as", "race", "win", "lose", "split", "zero", "take",
    "for", "discard", "complete",
];

/// Reasons the win/lose rules can end a game with, interned when `lose` is used.
pub const LAST_STANDING: &str = "last_standing";
/// Everyone left lost at once: a draw.
pub const ALL_LOST: &str = "all_lost";
/// Every other team has left the game.
pub const LAST_TEAM: &str = "last_team";

/// Most distinct points-by-source tags.
pub const MAX_SOURCES: usize = 16;

fn err<T>(pos: usize, msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        pos,
        msg: msg.into(),
    })
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
        }
    }

    fn reason(&mut self, r: &str, mechanism: &'static str) -> u16 {
        match self.reasons.iter().position(|x| x == r) {
            Some(i) => i as u16,
            None => {
                self.reasons.push(r.to_string());
                self.mechanisms.push(mechanism);
                (self.reasons.len() - 1) as u16
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

    fn scale(&self, scale: &[(f64, usize)]) -> Result<Box<[i64]>, ParseError> {
        scale
            .iter()
            .map(|&(v, p)| {
                if v.fract() == 0.0 {
                    Ok(v as i64)
                } else {
                    err(p, format!("awards are whole numbers, not {v}"))
                }
            })
            .collect()
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
        Ok(out)
    }

    fn who(
        &self,
        owner: &Option<(String, usize)>,
        ctx: Ctx,
        pos: usize,
    ) -> Result<Who, ParseError> {
        match owner {
            None if ctx.bound => Ok(Who::Bound),
            None => err(
                pos,
                "this refers to a faction variable but no faction is in scope here: name one \
                 (`Faction.var`) or use an aggregate such as max_all(...)",
            ),
            Some((o, p)) if o == "me" => {
                if ctx.me {
                    Ok(Who::Me)
                } else {
                    err(
                        *p,
                        "`me` is only defined where a faction acts (faction phases, actions, ranking)",
                    )
                }
            }
            Some((o, p)) if o == "target" => {
                if ctx.target {
                    Ok(Who::Target)
                } else {
                    err(
                        *p,
                        "`target` is only defined in an action with `target = \"other\"`",
                    )
                }
            }
            Some((o, p)) => match self.syms.factions.get(o) {
                Some(&f) => Ok(Who::Fixed(f)),
                None => err(
                    *p,
                    format!(
                        "`{o}` is not a faction{}",
                        suggest(o, self.syms.factions.keys())
                    ),
                ),
            },
        }
    }

    fn name(&self, ast: &Ast, ctx: Ctx) -> Result<Op, ParseError> {
        let Ast::Name {
            owner,
            name,
            index,
            pos,
        } = ast
        else {
            unreachable!("name() on a non-name")
        };
        let pos = *pos;
        if let Some((o, op)) = owner
            && o == "card"
        {
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
            match name.as_str() {
                "round" => return Ok(Op::Round),
                "age" => return Ok(Op::Age),
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
            "side" => return Ok(Op::Side(self.who(owner, ctx, pos)?)),
            "player" => return Ok(Op::Player(self.who(owner, ctx, pos)?)),
            "eliminated" => return Ok(Op::Eliminated(self.who(owner, ctx, pos)?)),
            _ => {}
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
            let known = self.syms.vars.keys().chain(self.syms.settings.keys());
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
            (Some(s), Some((e, p))) => {
                let set = self
                    .syms
                    .sets
                    .values()
                    .find(|x| x.id == s)
                    .expect("set ids are dense");
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
            Ast::Name { .. } => out.push(self.name(ast, ctx)?),
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

    fn call(
        &self,
        name: &str,
        args: &[Ast],
        pos: usize,
        ctx: Ctx,
        out: &mut Vec<Op>,
    ) -> Result<(), ParseError> {
        let arity = |n: usize| -> Result<(), ParseError> {
            if args.len() == n {
                Ok(())
            } else {
                err(
                    pos,
                    format!(
                        "{name}() takes {n} argument{}, got {}",
                        if n == 1 { "" } else { "s" },
                        args.len()
                    ),
                )
            }
        };
        let pure = |f: Func, out: &mut Vec<Op>| -> Result<(), ParseError> {
            for a in args {
                self.emit(a, ctx, out)?;
            }
            out.push(Op::Call(f, args.len() as u8));
            Ok(())
        };
        let rand = |f: RandFn, out: &mut Vec<Op>| -> Result<(), ParseError> {
            for a in args {
                self.emit(a, ctx, out)?;
            }
            out.push(Op::Rand(f, args.len() as u8));
            Ok(())
        };
        match name {
            "min" | "max" => {
                if args.len() < 2 {
                    return err(
                        pos,
                        format!(
                            "{name}() compares two or more values; over factions use {name}_all(...) or {name}_others(...)"
                        ),
                    );
                }
                if args.len() > STACK {
                    return err(pos, format!("{name}() takes at most {STACK} values"));
                }
                pure(if name == "min" { Func::Min } else { Func::Max }, out)?;
            }
            "abs" | "floor" | "ceil" | "round" => {
                arity(1)?;
                let f = match name {
                    "abs" => Func::Abs,
                    "floor" => Func::Floor,
                    "ceil" => Func::Ceil,
                    _ => Func::Round,
                };
                pure(f, out)?;
            }
            "clamp" => {
                arity(3)?;
                pure(Func::Clamp, out)?;
            }
            "if" => {
                arity(3)?;
                self.emit(&args[0], ctx, out)?;
                let j = out.len();
                out.push(Op::JumpIfFalse(0));
                self.emit(&args[1], ctx, out)?;
                let k = out.len();
                out.push(Op::Jump(0));
                out[j] = Op::JumpIfFalse(out.len() as u32);
                self.emit(&args[2], ctx, out)?;
                out[k] = Op::Jump(out.len() as u32);
            }
            "uniform" => {
                arity(2)?;
                rand(RandFn::Uniform, out)?;
            }
            "random" => {
                arity(0)?;
                rand(RandFn::Random, out)?;
            }
            "bernoulli" => {
                arity(1)?;
                self.check_probability(&args[0], ctx)?;
                rand(RandFn::Bernoulli, out)?;
            }
            "binomial" => {
                arity(2)?;
                self.check_probability(&args[1], ctx)?;
                rand(RandFn::Binomial, out)?;
            }
            "poisson" => {
                arity(1)?;
                if let Some(l) = self.const_of(&args[0], ctx)?
                    && !(l >= 0.0 && l.is_finite())
                {
                    return err(
                        args[0].pos(),
                        format!("poisson() needs a rate of 0 or more, got {l}"),
                    );
                }
                rand(RandFn::Poisson, out)?;
            }
            "normal" => {
                arity(2)?;
                rand(RandFn::Normal, out)?;
            }
            "roll" => {
                arity(2)?;
                rand(RandFn::Roll, out)?;
            }
            "choice" => {
                if args.is_empty() || args.len() > STACK {
                    return err(pos, format!("choice() takes 1 to {STACK} values"));
                }
                rand(RandFn::Choice, out)?;
            }
            "weighted" => {
                if args.is_empty() || !args.len().is_multiple_of(2) || args.len() > STACK {
                    return err(
                        pos,
                        "weighted() takes pairs: weighted(weight1, value1, weight2, value2, ...)",
                    );
                }
                for w in args.iter().step_by(2) {
                    if let Some(x) = self.const_of(w, ctx)?
                        && x < 0.0
                    {
                        return err(w.pos(), format!("a weight cannot be negative (got {x})"));
                    }
                }
                rand(RandFn::Weighted, out)?;
            }
            "held" | "completed" => {
                arity(1)?;
                let d = self.deck_arg(&args[0])?;
                if !ctx.bound {
                    return err(
                        pos,
                        format!(
                            "{name}() counts the cards of the faction in scope, and no faction is in scope here"
                        ),
                    );
                }
                out.push(if name == "held" {
                    Op::Held(d)
                } else {
                    Op::Completed(d)
                });
            }
            "has_completed" => {
                arity(2)?;
                let d = self.deck_arg(&args[0])?;
                if !self.syms.attrs.contains_key("id") {
                    return err(
                        pos,
                        "has_completed(deck, id) matches the cards' `id` attribute, and no card has one",
                    );
                }
                if !ctx.bound {
                    return err(
                        pos,
                        "has_completed() looks at the faction in scope, and no faction is in scope here",
                    );
                }
                self.emit(&args[1], ctx, out)?;
                out.push(Op::HasCompleted(d));
            }
            "left" => {
                arity(1)?;
                out.push(Op::DeckLeft(self.deck_arg(&args[0])?));
            }
            _ => {
                if let Some((kind, scope)) = agg_name(name) {
                    return self.aggregate(kind, scope, args, pos, ctx, out);
                }
                return err(
                    pos,
                    format!(
                        "unknown function `{name}`{}",
                        suggest(name, FUNCTIONS.iter())
                    ),
                );
            }
        }
        Ok(())
    }

    fn aggregate(
        &self,
        kind: Agg,
        scope: &str,
        args: &[Ast],
        pos: usize,
        ctx: Ctx,
        out: &mut Vec<Op>,
    ) -> Result<(), ParseError> {
        match scope {
            "all" | "others" => {
                if args.len() != 1 {
                    return err(
                        pos,
                        "a faction aggregate takes one expression, evaluated for each faction",
                    );
                }
                let others = scope == "others";
                if others && !ctx.bound {
                    return err(
                        pos,
                        "`_others` needs a faction in scope to leave out; use `_all` here",
                    );
                }
                let inner = Ctx { bound: true, ..ctx };
                let body = self.code(&args[0], inner)?;
                out.push(Op::AggFactions {
                    kind,
                    others,
                    len: body.len() as u32,
                });
                out.extend(body);
            }
            _ => {
                if args.len() != 2 {
                    return err(
                        pos,
                        "a set aggregate takes a set and an expression: sum_in(areas, strength)",
                    );
                }
                let set = match &args[0] {
                    Ast::Name {
                        owner: None,
                        name,
                        index: None,
                        pos,
                    } => match self.syms.sets.get(name) {
                        Some(s) => s,
                        None => {
                            return err(
                                *pos,
                                format!(
                                    "`{name}` is not a set{}",
                                    suggest(name, self.syms.sets.keys())
                                ),
                            );
                        }
                    },
                    other => return err(other.pos(), "the first argument must be a set name"),
                };
                let inner = Ctx {
                    set: Some(set.id),
                    ..ctx
                };
                let body = self.code(&args[1], inner)?;
                out.push(Op::AggSet {
                    kind,
                    n: set.elements.len() as u16,
                    len: body.len() as u32,
                });
                out.extend(body);
            }
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
            } => match self.syms.decks.get(d) {
                Some(&id) => Ok(id),
                None => err(
                    *pos,
                    format!("`{d}` is not a deck{}", suggest(d, self.syms.decks.keys())),
                ),
            },
            other => err(other.pos(), "expected a deck name"),
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

    fn stmt_ast(&mut self, ast: &StmtAst, ctx: Ctx, loc: u32) -> Result<Stmt, ParseError> {
        Ok(match ast {
            StmtAst::Assign {
                target,
                op,
                value,
                source,
            } => {
                if let Ast::Name {
                    owner: None,
                    name,
                    index: None,
                    pos,
                } = target
                    && (self.syms.settings.contains_key(name) || BUILTINS.contains(&name.as_str()))
                {
                    return err(
                        *pos,
                        format!("`{name}` is read-only: only variables can be assigned"),
                    );
                }
                let (lv, _) = self.var_ref(target, ctx)?;
                let source = self.source(source)?;
                Stmt::Assign {
                    lv,
                    op: *op,
                    value: Expr::new(self.code(value, ctx)?, loc),
                    source,
                }
            }
            StmtAst::Award {
                var,
                metric,
                scale,
                ties,
                chain,
                source,
            } => {
                let lv = self.faction_var(var, ctx, "an award's target")?;
                let inner = Ctx { bound: true, ..ctx };
                let metric = Expr::new(self.code(metric, inner)?, loc);
                if chain.len() > MAX_ORDER_KEYS - 1 {
                    return err(
                        var.1,
                        format!(
                            "an award's tie-break chain takes at most {} keys",
                            MAX_ORDER_KEYS - 1
                        ),
                    );
                }
                let chain = chain
                    .iter()
                    .map(|k| Ok(Expr::new(self.code(k, inner)?, loc)))
                    .collect::<Result<Vec<_>, ParseError>>()?;
                Stmt::Award {
                    lv,
                    metric,
                    scale: self.scale(scale)?,
                    ties: *ties,
                    chain: chain.into_boxed_slice(),
                    source: self.source(source)?,
                }
            }
            StmtAst::Block(body) => {
                let body = body
                    .iter()
                    .map(|s| self.stmt_ast(s, ctx, loc))
                    .collect::<Result<Vec<_>, ParseError>>()?;
                Stmt::Block(body.into_boxed_slice())
            }
            StmtAst::Race {
                done,
                count,
                cond,
                key,
                var,
                scale,
                source,
            } => {
                let done = self.faction_var(done, ctx, "a race's completion flag")?;
                let cname = Ast::Name {
                    owner: None,
                    name: count.0.clone(),
                    index: None,
                    pos: count.1,
                };
                let (count_lv, cv) = self.var_ref(&cname, ctx)?;
                if cv.faction || cv.set.is_some() {
                    return err(
                        count.1,
                        format!(
                            "a race's counter must be a plain global variable; `{}` is not one",
                            count.0
                        ),
                    );
                }
                let lv = self.faction_var(var, ctx, "a race's reward variable")?;
                let inner = Ctx { bound: true, ..ctx };
                Stmt::Race {
                    done,
                    count: count_lv,
                    cond: Expr::new(self.code(cond, inner)?, loc),
                    key: Expr::new(self.code(key, inner)?, loc),
                    lv,
                    scale: self.scale(scale)?,
                    source: self.source(source)?,
                }
            }
            StmtAst::Outcome { kind, reason, pos } => {
                if !ctx.bound {
                    return err(
                        *pos,
                        "`win` and `lose` apply to the faction in scope: use them in a faction phase, an action, or inside `each`",
                    );
                }
                let (default, mech) = match kind {
                    OutcomeKind::Win => ("won", "win"),
                    OutcomeKind::Lose => ("lost", "lose"),
                };
                let r = reason
                    .as_ref()
                    .map_or(default, |r| r.0.as_str())
                    .to_string();
                let reason = self.reason(&r, mech);
                if *kind == OutcomeKind::Lose {
                    self.rule_reasons();
                }
                Stmt::Outcome {
                    kind: *kind,
                    reason,
                }
            }
            StmtAst::If(c, s, e) => Stmt::If {
                cond: Expr::new(self.code(c, ctx)?, loc),
                then: Box::new(self.stmt_ast(s, ctx, loc)?),
                els: match e {
                    Some(e) => Some(Box::new(self.stmt_ast(e, ctx, loc)?)),
                    None => None,
                },
            },
            StmtAst::Each { others, body, pos } => {
                if *others && !ctx.bound {
                    return err(
                        *pos,
                        "`each others` needs a faction in scope to leave out; use `each` here",
                    );
                }
                let inner = Ctx { bound: true, ..ctx };
                Stmt::Each {
                    others: *others,
                    body: Box::new(self.stmt_ast(body, inner, loc)?),
                }
            }
            StmtAst::End(r, _) => Stmt::End(self.reason(r, "end statement")),
            StmtAst::Take(d, p, cond) => {
                let deck = self.hand_deck(d, *p, ctx, "`take` puts a card in the hand")?;
                let cond = match cond {
                    Some(c) => Some(Expr::new(self.code(c, ctx)?, loc)),
                    None => None,
                };
                Stmt::Take { deck, cond }
            }
            StmtAst::ForHeld(d, p, body) => {
                let deck = self.hand_deck(d, *p, ctx, "`for held` looks at the hand")?;
                Stmt::ForHeld {
                    deck,
                    body: Box::new(self.stmt_ast(body, ctx, loc)?),
                }
            }
            StmtAst::Discard(_) => Stmt::Discard,
            StmtAst::Complete(p) => {
                if !ctx.bound {
                    return err(
                        *p,
                        "`complete` credits the faction in scope, and no faction is in scope here",
                    );
                }
                Stmt::Complete
            }
            StmtAst::Draw(d, p, cond) => match self.syms.decks.get(d) {
                Some(&id) => Stmt::Draw(
                    id,
                    match cond {
                        Some(c) => Some(Expr::new(self.code(c, ctx)?, loc)),
                        None => None,
                    },
                ),
                None => {
                    return err(
                        *p,
                        format!("`{d}` is not a deck{}", suggest(d, self.syms.decks.keys())),
                    );
                }
            },
            StmtAst::Order { var, keys } => {
                if keys.len() > MAX_ORDER_KEYS {
                    return err(
                        var.1,
                        format!("`order` takes at most {MAX_ORDER_KEYS} sort keys"),
                    );
                }
                let name = Ast::Name {
                    owner: None,
                    name: var.0.clone(),
                    index: None,
                    pos: var.1,
                };
                let inner = Ctx { bound: true, ..ctx };
                let (lv, v) = self.var_ref(&name, inner)?;
                if !v.faction || v.set.is_some() {
                    return err(
                        var.1,
                        format!(
                            "`order` writes a plain per-faction variable; `{}` is not one",
                            var.0
                        ),
                    );
                }
                let keys = keys
                    .iter()
                    .map(|k| Ok(Expr::new(self.code(k, inner)?, loc)))
                    .collect::<Result<Vec<_>, ParseError>>()?;
                Stmt::Order {
                    lv,
                    keys: keys.into_boxed_slice(),
                }
            }
        })
    }
}

const FUNCTIONS: [&str; 30] = [
    "held",
    "completed",
    "has_completed",
    "min",
    "max",
    "abs",
    "floor",
    "ceil",
    "round",
    "clamp",
    "if",
    "uniform",
    "random",
    "bernoulli",
    "binomial",
    "poisson",
    "normal",
    "roll",
    "choice",
    "weighted",
    "left",
    "sum_all",
    "max_all",
    "min_all",
    "count_all",
    "sum_others",
    "max_others",
    "min_others",
    "count_others",
    "sum_in",
];

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
            Op::Neg | Op::Not | Op::Bool | Op::Jump(_) => 0,
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

/// " (did you mean `x`?)" for the closest known name, or nothing.
pub fn suggest<'a>(
    name: &str,
    known: impl Iterator<Item = &'a (impl AsRef<str> + 'a + ?Sized)>,
) -> String {
    let best = known
        .map(|k| k.as_ref())
        .map(|k| (edit_distance(name, k), k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3))
        .min();
    match best {
        Some((_, k)) => format!(" (did you mean `{k}`?)"),
        None => String::new(),
    }
}

/// Levenshtein distance, for "did you mean" hints.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + (ca != *cb) as usize)
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Env;
    use crate::state::{State, Tables};

    fn syms() -> Symbols {
        let mut s = Symbols::default();
        s.settings.insert("target".into(), Num::Int(10));
        s.vars.insert(
            "vp".into(),
            VarSym {
                id: 0,
                base: 0,
                faction: true,
                set: None,
                fstride: 1,
            },
        );
        s.vars.insert(
            "pool".into(),
            VarSym {
                id: 1,
                base: 2,
                faction: false,
                set: None,
                fstride: 0,
            },
        );
        s.factions.insert("A".into(), 0);
        s.factions.insert("B".into(), 1);
        s
    }

    fn eval(src: &str, ctx: Ctx) -> Result<Num, ParseError> {
        let s = syms();
        let c = Compiler::new(&s, vec![]);
        let e = c.expr(src, ctx, 0)?;
        let st = State {
            vals: vec![4, 9, 2],
            round: 3,
            ..State::empty()
        };
        let t = Tables {
            nfactions: 2,
            side: vec![0; 2],
            player: vec![1; 2],
            ..Tables::default()
        };
        let mut env = Env::new(st, &t, crate::rng::game_rng(0, 0));
        Ok(e.eval_num(&mut env))
    }

    #[test]
    fn resolves_names() {
        assert_eq!(
            eval("target - max_all(vp)", Ctx::global()).unwrap(),
            Num::Int(1)
        );
        assert_eq!(eval("vp + B.vp", Ctx::faction()).unwrap(), Num::Int(13));
        assert_eq!(eval("max_others(vp)", Ctx::faction()).unwrap(), Num::Int(9));
        assert_eq!(
            eval("count_all(vp > 5) + pool * round", Ctx::global()).unwrap(),
            Num::Int(7)
        );
        assert_eq!(
            eval("if(vp > 3 and not (pool == 1), 10, 20)", Ctx::faction()).unwrap(),
            Num::Int(10)
        );
        assert_eq!(eval("0 or 0", Ctx::global()).unwrap(), Num::Int(0));
        assert_eq!(eval("0 or 5", Ctx::global()).unwrap(), Num::Int(1));
        assert_eq!(eval("seat + A", Ctx::faction()).unwrap(), Num::Int(2));
        // Integers are exact; `/` and real literals make reals.
        let big = eval("9007199254740993 + vp - vp", Ctx::faction()).unwrap();
        assert!(matches!(big, Num::Int(9_007_199_254_740_993)), "{big:?}");
        assert!(matches!(eval("vp / 8", Ctx::faction()).unwrap(), Num::Real(r) if r == 0.5));
        assert!(matches!(
            eval("vp * 0.5", Ctx::faction()).unwrap(),
            Num::Real(_)
        ));
        assert!(matches!(
            eval("vp // 3", Ctx::faction()).unwrap(),
            Num::Int(1)
        ));
        assert!(matches!(
            eval("floor(vp / 3)", Ctx::faction()).unwrap(),
            Num::Int(1)
        ));
    }

    #[test]
    fn reports_mistakes() {
        let e = eval("vp", Ctx::global()).unwrap_err();
        assert!(e.msg.contains("no faction is in scope"), "{}", e.msg);
        let e = eval("1 + vpp", Ctx::faction()).unwrap_err();
        assert_eq!(e.pos, 4);
        assert!(e.msg.contains("did you mean `vp`"), "{}", e.msg);
        let e = eval("bernoulli(1.7)", Ctx::global()).unwrap_err();
        assert!(e.msg.contains("outside 0..1"));
        assert_eq!(e.pos, 10);
        assert!(
            eval("target.vp", Ctx::faction())
                .unwrap_err()
                .msg
                .contains("target")
        );
        assert!(
            eval("max(vp)", Ctx::faction())
                .unwrap_err()
                .msg
                .contains("max_all")
        );
    }

    #[test]
    fn constant_folding() {
        let s = syms();
        let c = Compiler::new(&s, vec![]);
        assert_eq!(
            c.expr("target * 2 + 1", Ctx::global(), 0)
                .unwrap()
                .as_const(),
            Some(21.0)
        );
        assert!(matches!(
            c.expr("target * 2 + 1", Ctx::global(), 0)
                .unwrap()
                .as_const_num(),
            Some(Num::Int(21))
        ));
        assert_eq!(c.expr("d6", Ctx::global(), 0).unwrap().as_const(), None);
    }

    /// Random formulas over the test symbols.
    fn formula() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            (-3i32..12).prop_map(|n| n.to_string()),
            Just("0.5".to_string()),
            Just("vp".to_string()),
            Just("pool".to_string()),
            Just("A.vp".to_string()),
            Just("B.vp".to_string()),
            Just("round".to_string()),
            Just("seat".to_string()),
            Just("target".to_string()),
            Just("random()".to_string()),
            Just("uniform(1, 6)".to_string()),
            Just("2d6".to_string()),
            Just("max_all(vp)".to_string()),
            // Near the 64-bit edge, so that overflow faults are compared too.
            Just("9223372036854775807".to_string()),
            Just("(-9223372036854775807 - 1)".to_string()),
            Just("4611686018427387904".to_string()),
            Just("9007199254740993".to_string()),
        ];
        leaf.prop_recursive(4, 24, 3, |inner| {
            let ops = prop_oneof![
                Just("+"),
                Just("-"),
                Just("*"),
                Just("/"),
                Just("//"),
                Just("%"),
                Just("=="),
                Just("!="),
                Just("<"),
                Just("<="),
                Just(">"),
                Just(">="),
                Just("and"),
                Just("or"),
            ];
            prop_oneof![
                (inner.clone(), ops, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
                inner.clone().prop_map(|a| format!("(not {a})")),
                inner.clone().prop_map(|a| format!("(-{a})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c)| format!("if({a}, {b}, {c})")),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(a, b, c)| format!("clamp({a}, {b}, {c})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("min({a}, {b})")),
                inner.clone().prop_map(|a| format!("floor({a} / 3)")),
                inner.clone().prop_map(|a| format!("bernoulli({a} / 10)")),
                inner.clone().prop_map(|a| format!("sum_others(vp * {a})")),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("choice({a}, {b}, 7)")),
                (inner.clone(), inner).prop_map(|(a, b)| format!("weighted(1, {a}, 2, {b})")),
            ]
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::test_runner::Config::with_cases(256))]

        /// The closures that run are the reference tree walker's semantics: the same type and
        /// value, the same fault (overflow and division by zero included) and the same random
        /// draws, for any formula.
        #[test]
        fn closures_agree_with_the_reference(src in formula(), seed in 0u64..1000) {
            let s = syms();
            let c = Compiler::new(&s, vec![]);
            // A constant probability outside 0..1 is a compile error, not a case to compare.
            let Ok(e) = c.expr(&src, Ctx::faction(), 7) else {
                return Ok(());
            };
            let t = Tables {
                nfactions: 2,
                side: vec![0; 2],
                player: vec![1; 2],
                ..Tables::default()
            };
            let state = || State {
                vals: vec![4, 9, 2],
                round: 3,
                ..State::empty()
            };
            let mut fast = Env::new(state(), &t, crate::rng::game_rng(seed, 0));
            let mut slow = Env::new(state(), &t, crate::rng::game_rng(seed, 0));
            fast.cx.bound = 1;
            slow.cx.bound = 1;
            let (a, b) = (e.eval_num(&mut fast), e.eval_reference(&mut slow));
            let nan = |x: Num| x.real().is_nan();
            proptest::prop_assert_eq!(a.ty(), e.ty(), "{}", src);
            proptest::prop_assert_eq!(a.ty(), b.ty(), "{}", src);
            proptest::prop_assert!(a == b || (nan(a) && nan(b)), "{src}: {a} vs {b}");
            proptest::prop_assert_eq!(fast.cx.fault, slow.cx.fault, "{}", src);
            proptest::prop_assert_eq!(fast.rng.get_word_pos(), slow.rng.get_word_pos());
        }
    }
}
