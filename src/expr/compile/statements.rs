//! Statement compilation: [`StmtAst`] to [`Stmt`].
//!
//! Owns what each statement form means once its names are resolved: the variable an
//! assignment writes (and whether it may), `if`/`else`, blocks, `each`, `win`/`lose` and their
//! reasons, awards and races with their scales, draws and hands, `order`.

use super::*;
use crate::expr::Award;
use crate::state::MAX_ORDER_KEYS;

/// How deep templates nest: a `for_each` action and two `for ... in` inside it, or three
/// `for ... in`.
pub(super) const MAX_TEMPLATE_DEPTH: usize = 3;

/// The most copies of one statement the templates around it make (the product of their
/// sets' sizes, a `for_each` action's included): a template over the largest grid, or
/// nested ones over smaller sets, compile in bounded time.
pub(super) const MAX_TEMPLATE_COPIES: usize = 1 << 18;

impl Compiler<'_> {
    pub(super) fn stmt_ast(
        &mut self,
        ast: &StmtAst,
        ctx: Ctx,
        loc: u32,
    ) -> Result<Stmt, ParseError> {
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
                    && (self.syms.settings.contains_key(name) || super::names::is_builtin(name))
                {
                    return err(
                        *pos,
                        format!("`{name}` is read-only: only variables can be assigned"),
                    );
                }
                if let Some((lv, n, at)) = self.computed_write(target, ctx)? {
                    return Ok(Stmt::AssignAt(Box::new(crate::expr::AssignAt {
                        lv,
                        n,
                        at: Expr::new(at, loc),
                        op: *op,
                        value: Expr::new(self.code(value, ctx)?, loc),
                        source: self.source(source)?,
                    })));
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
                index,
                metric,
                min,
                scale,
                ties,
                chain,
                source,
            } => {
                let lv = self.award_target(var, index, ctx)?;
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
                let min = match min {
                    Some(k) => Some(Expr::new(self.code(k, ctx)?, loc)),
                    None => None,
                };
                Stmt::Award(Box::new(Award {
                    lv,
                    metric,
                    min,
                    scale: self.award_scale(scale, ctx, loc)?,
                    ties: *ties,
                    chain: chain.into_boxed_slice(),
                    source: self.source(source)?,
                }))
            }
            StmtAst::Title {
                var,
                metric,
                min,
                points,
                tied_nobody,
                source,
            } => {
                let lv = self.faction_var(var, ctx, "a title's variable")?;
                let inner = Ctx { bound: true, ..ctx };
                let one = Ast::Int(1, var.1);
                Stmt::Title(Box::new(crate::expr::Title {
                    lv,
                    metric: Expr::new(self.code(metric, inner)?, loc),
                    min: Expr::new(self.code(min, ctx)?, loc),
                    points: Expr::new(self.code(points.as_ref().unwrap_or(&one), ctx)?, loc),
                    tied_nobody: *tied_nobody,
                    source: self.source(source)?,
                }))
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
                Stmt::Race(Box::new(crate::expr::Race {
                    done,
                    count: count_lv,
                    cond: Expr::new(self.code(cond, inner)?, loc),
                    key: Expr::new(self.code(key, inner)?, loc),
                    lv,
                    scale: self.scale(scale, ctx)?,
                    source: self.source(source)?,
                }))
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
            StmtAst::If(c, s, e) => {
                let cond = Expr::new(self.code(c, ctx)?, loc);
                if let Some(k) = cond.as_const_num() {
                    return self.known_if(k, s, e.as_deref(), ctx, loc);
                }
                Stmt::If {
                    cond,
                    then: Box::new(self.stmt_ast(s, ctx, loc)?),
                    els: match e {
                        Some(e) => Some(Box::new(self.stmt_ast(e, ctx, loc)?)),
                        None => None,
                    },
                }
            }
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
            StmtAst::End(r, _) => {
                self.end_uses.push(r.clone());
                Stmt::End(self.reason(r, "end statement"))
            }
            StmtAst::Take(d, p, cond) => {
                self.card_binders += 1;
                let deck = self.hand_deck(d, *p, ctx, "`take` puts a card in the hand")?;
                let cond = match cond {
                    Some(c) => Some(Expr::new(self.code(c, ctx)?, loc)),
                    None => None,
                };
                Stmt::Take { deck, cond }
            }
            StmtAst::ForIn { word, set, body } => {
                let Some(s) = self.syms.sets.get(&set.0) else {
                    return err(
                        set.1,
                        format!(
                            "`{}` is not a set{}",
                            set.0,
                            suggest(&set.0, self.syms.sets.keys())
                        ),
                    );
                };
                if self.templates.len() >= MAX_TEMPLATE_DEPTH {
                    return err(
                        word.1,
                        format!(
                            "templates nest at most {MAX_TEMPLATE_DEPTH} deep (a `for_each` \
                             action counts as one): move the innermost into a variable or a \
                             phase of its own"
                        ),
                    );
                }
                if self.template(&word.0).is_some() {
                    return err(
                        word.1,
                        format!(
                            "`{}` already stands for an element of a template around this one: \
                             give the inner template another name",
                            word.0
                        ),
                    );
                }
                if let Some(kind) = self.name_kind(&word.0) {
                    return err(
                        word.1,
                        format!(
                            "`{}` is already {kind}: a template's name must be a new one (it would \
                             stand for an element in some places and keep its meaning in others); \
                             choose another, such as `m`",
                            word.0
                        ),
                    );
                }
                let (id, n) = (s.id, s.elements.len());
                let copies_around: usize = self
                    .templates
                    .iter()
                    .map(|t| self.set_by_id(t.set).elements.len())
                    .product();
                if copies_around.saturating_mul(n) > MAX_TEMPLATE_COPIES {
                    return err(
                        set.1,
                        format!(
                            "this template makes {} copies of its statement inside the templates \
                             around it ({copies_around} x {n}), over the limit of \
                             {MAX_TEMPLATE_COPIES}: loop over a smaller set",
                            copies_around.saturating_mul(n)
                        ),
                    );
                }
                let mut copies = Vec::with_capacity(n);
                for elem in 0..n {
                    self.templates.push(super::Template {
                        word: word.0.clone(),
                        set: id,
                        elem: elem as u16,
                    });
                    let copy = self.stmt_ast(body, ctx, loc);
                    self.templates.pop();
                    // A copy whose condition ruled it out is nothing: it is left out.
                    match copy? {
                        Stmt::Block(b) if b.is_empty() => {}
                        copy => copies.push(copy),
                    }
                }
                Stmt::Block(copies.into_boxed_slice())
            }
            StmtAst::ForHeld(d, p, body) => {
                self.card_binders += 1;
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
            StmtAst::Draw(d, p, cond) => {
                self.card_binders += 1;
                let id = self.deck(d, *p)?;
                let cond = match cond {
                    Some(c) => Some(Expr::new(self.code(c, ctx)?, loc)),
                    None => None,
                };
                Stmt::Draw(id, cond)
            }
            StmtAst::Regions { key, size, label } => self.regions(key, size, label, ctx)?,
            StmtAst::Pass { deck, dir } => Stmt::Pass {
                deck: self.deck(&deck.0, deck.1)?,
                dir: *dir,
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

impl Compiler<'_> {
    /// `if COND: S [else: E]` whose condition is known before the game runs (a template's
    /// copy, `if s < 4: x[s + 1] = 0`, or a setting): only the branch taken is kept. Inside
    /// a template the other is not compiled, so a copy may hold what would be wrong where
    /// it never runs (a position past the set's end); elsewhere both are, so that a mistake
    /// in either is still refused.
    fn known_if(
        &mut self,
        k: Num,
        then: &StmtAst,
        els: Option<&StmtAst>,
        ctx: Ctx,
        loc: u32,
    ) -> Result<Stmt, ParseError> {
        let holds = match k {
            Num::Int(v) => v != 0,
            Num::Real(v) => v != 0.0,
        };
        let (taken, other) = if holds {
            (Some(then), els)
        } else {
            (els, Some(then))
        };
        if self.templates.is_empty()
            && let Some(o) = other
        {
            self.stmt_ast(o, ctx, loc)?;
        }
        match taken {
            Some(s) => self.stmt_ast(s, ctx, loc),
            None => Ok(Stmt::Block(Box::new([]))),
        }
    }

    /// A race's scale: each a constant formula (numbers and settings, so that `--set`,
    /// `sweep` and `tune` reach award values) giving a whole number.
    pub(super) fn scale(&self, scale: &[Ast], ctx: Ctx) -> Result<Box<[i64]>, ParseError> {
        scale
            .iter()
            .map(|a| {
                let p = a.pos();
                let e = Expr::new(self.code(a, ctx)?, 0);
                match e.as_const_num() {
                    Some(Num::Int(v)) => Ok(v),
                    Some(Num::Real(v)) if v.fract() == 0.0 && v.abs() < 9.0e18 => Ok(v as i64),
                    Some(Num::Real(v)) => err(p, format!("awards are whole numbers, not {v}")),
                    None => err(
                        p,
                        "a race's award is a constant formula: numbers and settings, no \
                         variable or dice",
                    ),
                }
            })
            .collect()
    }

    /// An award's scale: formulas of the moment (round, settings, global variables),
    /// evaluated when the award runs; a constant one must be a whole number.
    pub(super) fn award_scale(
        &self,
        scale: &[Ast],
        ctx: Ctx,
        loc: u32,
    ) -> Result<Box<[Expr]>, ParseError> {
        scale
            .iter()
            .map(|a| {
                let p = a.pos();
                let e = Expr::new(self.code(a, ctx)?, loc);
                match e.as_const_num() {
                    Some(Num::Real(v)) if v.fract() != 0.0 || v.abs() >= 9.0e18 => {
                        err(p, format!("awards are whole numbers, not {v}"))
                    }
                    _ => Ok(e),
                }
            })
            .collect()
    }

    /// The variable an award adds to: a plain per-faction variable, or one element of a
    /// per-faction variable indexed by a set (`award_vp[landlord]`).
    pub(super) fn award_target(
        &self,
        var: &(String, usize),
        index: &Option<(String, usize)>,
        ctx: Ctx,
    ) -> Result<LValue, ParseError> {
        let Some(ix) = index else {
            return self.faction_var(var, ctx, "an award's target");
        };
        let name = Ast::Name {
            owner: None,
            name: var.0.clone(),
            index: Some(ix.clone()),
            pos: var.1,
        };
        let (lv, v) = self.var_ref(&name, Ctx { bound: true, ..ctx })?;
        if !v.faction || !matches!(lv.elem, Elem::Fixed(_)) {
            return err(
                var.1,
                format!(
                    "an award's target must be a per-faction variable or one named element of one; `{}[{}]` is not",
                    var.0, ix.0
                ),
            );
        }
        Ok(lv)
    }
}
