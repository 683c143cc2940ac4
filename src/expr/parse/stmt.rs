//! The statement half of the parser: [`StmtAst`] out of tokens.
//!
//! Owns every statement form (blocks, `if`, `each`, `end`, `draw`, `take`, `for held`,
//! `discard`, `complete`, `award`, `race`, `win`/`lose`, `order`, `regions`, `pass` and assignments), one
//! function per leading keyword, plus the small pieces only statements use (number lists,
//! `as source` tags, required words). Expressions inside statements are parsed by the
//! expression methods of `Parser` in the parent module.

use super::lex::Tok;
use super::{AssignOp, Ast, OutcomeKind, PResult, Parser, StmtAst, TiePolicy, err};

impl Parser {
    /// One statement, one nesting level deeper (statements nest inside `if`, `each`,
    /// `for held` and blocks).
    pub(super) fn stmt(&mut self) -> PResult<StmtAst> {
        self.nested(Self::stmt_at)
    }

    /// Dispatches on the statement's first token. The keywords are tried in this order; a
    /// statement starting with none of them is an assignment.
    fn stmt_at(&mut self) -> PResult<StmtAst> {
        if self.is_sym("{") {
            self.stmt_block()
        } else if self.is_word("if") {
            self.stmt_if()
        } else if self.is_word("each") {
            self.stmt_each()
        } else if self.is_word("end") {
            self.stmt_end()
        } else if self.is_word("draw") {
            self.stmt_draw()
        } else if self.is_word("take") {
            self.stmt_take()
        } else if self.is_word("for") {
            self.stmt_for()
        } else if self.is_word("discard") {
            self.stmt_discard()
        } else if self.is_word("complete") {
            self.stmt_complete()
        } else if self.is_word("award") {
            self.stmt_award()
        } else if self.is_word("title") && matches!(self.peek_at(1), Tok::Ident(_)) {
            self.stmt_title()
        } else if self.is_word("race") {
            self.stmt_race()
        } else if self.is_word("win") {
            self.stmt_outcome(OutcomeKind::Win)
        } else if self.is_word("lose") {
            self.stmt_outcome(OutcomeKind::Lose)
        } else if self.is_word("order") {
            self.stmt_order()
        } else if self.is_word("regions") && matches!(self.peek_at(1), Tok::Ident(_)) {
            self.stmt_regions()
        } else if self.is_word("pass") && matches!(self.peek_at(1), Tok::Ident(_)) {
            self.stmt_pass()
        } else {
            self.stmt_assign()
        }
    }

    /// `{ stmt; stmt; ... }`: statements separated by `;` (a trailing `;` is allowed, and
    /// `{}` is an empty block).
    fn stmt_block(&mut self) -> PResult<StmtAst> {
        self.bump();
        let mut body = Vec::new();
        while !self.is_sym("}") {
            body.push(self.stmt()?);
            if self.is_sym(";") {
                self.bump();
            } else if !self.is_sym("}") {
                return err(self.pos(), format!("expected `;` or `}}` {}", self.found()));
            }
        }
        self.bump();
        Ok(StmtAst::Block(body))
    }

    /// `if cond: stmt [else: stmt]`.
    fn stmt_if(&mut self) -> PResult<StmtAst> {
        self.bump();
        let c = self.expr()?;
        self.expect_sym(":")?;
        let then = Box::new(self.stmt()?);
        // `else` belongs to the nearest `if` (`if a: if b: x else: y` is `if a: {if b: x
        // else: y}`).
        let els = if self.is_word("else") {
            self.bump();
            self.expect_sym(":")?;
            Some(Box::new(self.stmt()?))
        } else {
            None
        };
        Ok(StmtAst::If(c, then, els))
    }

    /// `each: stmt` or `each others: stmt`.
    fn stmt_each(&mut self) -> PResult<StmtAst> {
        let pos = self.pos();
        self.bump();
        let others = if self.is_word("others") {
            self.bump();
            true
        } else {
            false
        };
        self.expect_sym(":")?;
        Ok(StmtAst::Each {
            others,
            body: Box::new(self.stmt()?),
            pos,
        })
    }

    /// `end reason`.
    fn stmt_end(&mut self) -> PResult<StmtAst> {
        self.bump();
        let (r, rp) = self.ident("an end reason name after `end`")?;
        Ok(StmtAst::End(r, rp))
    }

    /// `draw deck [if cond]`.
    fn stmt_draw(&mut self) -> PResult<StmtAst> {
        self.bump();
        let (d, dp) = self.ident("a deck name after `draw`")?;
        let cond = self.opt_if()?;
        Ok(StmtAst::Draw(d, dp, cond))
    }

    /// `take deck [if cond]`.
    fn stmt_take(&mut self) -> PResult<StmtAst> {
        self.bump();
        let (d, dp) = self.ident("a deck name after `take`")?;
        let cond = self.opt_if()?;
        Ok(StmtAst::Take(d, dp, cond))
    }

    /// `for held deck: stmt`.
    fn stmt_for(&mut self) -> PResult<StmtAst> {
        self.bump();
        if !self.is_word("held") {
            // `for WORD in SET: stmt`: the statement once for each element of SET.
            let word = self.ident("`held` or a word for the element after `for`")?;
            self.word("in")?;
            let set = self.ident("a set name after `in`")?;
            self.expect_sym(":")?;
            return Ok(StmtAst::ForIn {
                word,
                set,
                body: Box::new(self.stmt()?),
            });
        }
        self.word("held")?;
        let (d, dp) = self.ident("a deck name after `for held`")?;
        self.expect_sym(":")?;
        Ok(StmtAst::ForHeld(d, dp, Box::new(self.stmt()?)))
    }

    /// `discard`.
    fn stmt_discard(&mut self) -> PResult<StmtAst> {
        let pos = self.pos();
        self.bump();
        Ok(StmtAst::Discard(pos))
    }

    /// `complete`.
    fn stmt_complete(&mut self) -> PResult<StmtAst> {
        let pos = self.pos();
        self.bump();
        Ok(StmtAst::Complete(pos))
    }

    /// `award var[\[elem\]] by metric [min K] scale a, b, ... [ties split|high|low|zero | ties
    /// by key, ...] [as source]`; each award is a formula of the moment (round, settings,
    /// global variables), evaluated when the award runs.
    fn stmt_award(&mut self) -> PResult<StmtAst> {
        self.bump();
        let var = self.ident("a faction variable after `award`")?;
        let index = if self.is_sym("[") {
            self.bump();
            let ix = self.ident("an element name inside `[ ]`")?;
            self.expect_sym("]")?;
            Some(ix)
        } else {
            None
        };
        self.word("by")?;
        let metric = self.expr()?;
        let min = if self.is_word("min") {
            self.bump();
            Some(self.expr()?)
        } else {
            None
        };
        self.word("scale")?;
        let scale = self.exprs()?;
        let (ties, chain) = self.award_ties()?;
        let source = self.source()?;
        Ok(StmtAst::Award {
            var,
            index,
            metric,
            min,
            scale,
            ties,
            chain,
            source,
        })
    }

    /// `title var by metric min K [points P] [as source]`.
    fn stmt_title(&mut self) -> PResult<StmtAst> {
        self.bump();
        let var = self.ident("a faction variable after `title`")?;
        self.word("by")?;
        let metric = self.expr()?;
        self.word("min")?;
        let min = self.expr()?;
        let points = if self.is_word("points") {
            self.bump();
            Some(self.expr()?)
        } else {
            None
        };
        let tied_nobody = if self.is_word("ties") {
            self.bump();
            let (w, p) = self.ident("`keep` or `nobody` after `ties`")?;
            match w.as_str() {
                "keep" => false,
                "nobody" => true,
                _ => return err(p, format!("unknown tie rule `{w}`: use keep or nobody")),
            }
        } else {
            false
        };
        let source = self.source()?;
        Ok(StmtAst::Title {
            var,
            metric,
            min,
            points,
            tied_nobody,
            source,
        })
    }

    /// The optional tie clause of `award`: `ties split [down|toward_zero]|high|low|zero` (a
    /// policy, no chain) or
    /// `ties by key, key, ...` (a tie-break chain, higher first, whose leftover ties are
    /// split). Without the clause, ties are split.
    fn award_ties(&mut self) -> PResult<(TiePolicy, Vec<Ast>)> {
        if !self.is_word("ties") {
            return Ok((TiePolicy::Split, Vec::new()));
        }
        self.bump();
        if self.is_word("by") {
            self.bump();
            return Ok((TiePolicy::Split, self.exprs()?));
        }
        let (t, tp) =
            self.ident("a tie policy (split, high, low, zero) or `by` and a tie-break chain")?;
        let ties = match t.as_str() {
            // The rounding of a share that is not whole: down (the default) or toward zero.
            "split" if self.is_word("toward_zero") => {
                self.bump();
                TiePolicy::SplitTowardZero
            }
            "split" if self.is_word("down") => {
                self.bump();
                TiePolicy::Split
            }
            "split" => TiePolicy::Split,
            "high" => TiePolicy::High,
            "low" => TiePolicy::Low,
            "zero" => TiePolicy::Zero,
            _ => {
                return err(
                    tp,
                    format!("unknown tie policy `{t}`: use split, high, low or zero"),
                );
            }
        };
        Ok((ties, Vec::new()))
    }

    /// `race done count if cond by key award var a, b, ... [as source]`.
    fn stmt_race(&mut self) -> PResult<StmtAst> {
        self.bump();
        let done = self.ident("a per-faction flag after `race`")?;
        let count = self.ident("a global counter after the flag")?;
        self.word("if")?;
        let cond = self.expr()?;
        self.word("by")?;
        let key = self.expr()?;
        self.word("award")?;
        let var = self.ident("a faction variable after `award`")?;
        let scale = self.exprs()?;
        let source = self.source()?;
        Ok(StmtAst::Race {
            done,
            count,
            cond,
            key,
            var,
            scale,
            source,
        })
    }

    /// `win [reason]` or `lose [reason]` (the keyword matching `kind`).
    fn stmt_outcome(&mut self, kind: OutcomeKind) -> PResult<StmtAst> {
        let pos = self.pos();
        self.bump();
        // `else` ends the statement (`if c: win else: ...`): it is no reason.
        let reason = match self.peek() {
            Tok::Ident(_) if !self.is_word("else") => Some(self.ident("a reason")?),
            _ => None,
        };
        Ok(StmtAst::Outcome { kind, reason, pos })
    }

    /// `order var by key, key, ...`.
    fn stmt_order(&mut self) -> PResult<StmtAst> {
        self.bump();
        let var = self.ident("a faction variable after `order`")?;
        self.word("by")?;
        let keys = self.exprs()?;
        Ok(StmtAst::Order { var, keys })
    }

    /// `pass DECK left` or `pass DECK right`.
    fn stmt_pass(&mut self) -> PResult<StmtAst> {
        self.bump();
        let deck = self.ident("a deck after `pass`")?;
        let dir = match self.peek() {
            Tok::Ident(w) if w == "left" => 1,
            Tok::Ident(w) if w == "right" => -1,
            _ => {
                return err(
                    self.pos(),
                    format!(
                        "expected `left` or `right` after `pass {}` {}",
                        deck.0,
                        self.found()
                    ),
                );
            }
        };
        self.bump();
        Ok(StmtAst::Pass { deck, dir })
    }

    /// `regions KEY into SIZE [label LABEL]`.
    fn stmt_regions(&mut self) -> PResult<StmtAst> {
        self.bump();
        let key = self.ident("a grid variable after `regions`")?;
        self.word("into")?;
        let size = self.ident("the variable that takes each cell's region size, after `into`")?;
        let label = if self.is_word("label") {
            self.bump();
            Some(self.ident("the variable that takes each cell's region label, after `label`")?)
        } else {
            None
        };
        Ok(StmtAst::Regions { key, size, label })
    }

    /// `lvalue = expr`, `lvalue += expr` or `lvalue -= expr`, then an optional `as source`;
    /// the lvalue is a name such as `var`, `owner.var` or `var[index]`.
    fn stmt_assign(&mut self) -> PResult<StmtAst> {
        let p = self.pos();
        let target = match self.primary()? {
            n @ (Ast::Name { .. } | Ast::Index(..)) => n,
            _ => {
                return err(
                    p,
                    "a statement starts with a variable, `if`, `each`, `end`, `draw` or `order`",
                );
            }
        };
        let op = self.assign_op()?;
        let value = self.expr()?;
        let source = self.source()?;
        Ok(StmtAst::Assign {
            target,
            op,
            value,
            source,
        })
    }

    /// The operator of an assignment: `=`, `+=` or `-=`.
    fn assign_op(&mut self) -> PResult<AssignOp> {
        let op = match self.peek() {
            Tok::Sym("=") => AssignOp::Set,
            Tok::Sym("+=") => AssignOp::Add,
            Tok::Sym("-=") => AssignOp::Sub,
            _ => {
                return err(
                    self.pos(),
                    format!("expected `=`, `+=` or `-=` {}", self.found()),
                );
            }
        };
        self.bump();
        Ok(op)
    }

    /// An optional `if cond` filter (after `draw deck` or `take deck`).
    fn opt_if(&mut self) -> PResult<Option<Ast>> {
        if self.is_word("if") {
            self.bump();
            Ok(Some(self.expr()?))
        } else {
            Ok(None)
        }
    }

    /// One or more comma-separated expressions: `e, e, ...`.
    fn exprs(&mut self) -> PResult<Vec<Ast>> {
        let mut out = vec![self.expr()?];
        while self.is_sym(",") {
            self.bump();
            out.push(self.expr()?);
        }
        Ok(out)
    }

    /// The required word `w`, consumed.
    fn word(&mut self, w: &str) -> PResult<()> {
        if self.is_word(w) {
            self.bump();
            Ok(())
        } else {
            err(self.pos(), format!("expected `{w}` {}", self.found()))
        }
    }

    /// An optional `as source` tag.
    fn source(&mut self) -> PResult<Option<(String, usize)>> {
        if self.is_word("as") {
            self.bump();
            Ok(Some(self.ident("a source name after `as`")?))
        } else {
            Ok(None)
        }
    }
}
