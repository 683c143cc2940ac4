//! Lexer and Pratt parser for the expression and statement language.
//!
//! Owns the surface syntax only: text in, [`Ast`] / [`StmtAst`] out, each node carrying the
//! byte offset where it starts so that compile errors can point at the exact column. Name
//! resolution and code generation live in [`super::compile`]. This file holds the tokens
//! cursor and the expressions; the statement forms live in the `stmt` child module.
//!
//! Written by hand because the language is small and we need byte offsets on every node and
//! dice literals (`2d6`); general expression crates evaluate by string look-up at run time,
//! which the engine must never do.

mod lex;
mod stmt;

use lex::{Tok, lex};

pub use crate::ir::{AssignOp, BinOp, OutcomeKind, TiePolicy};

/// A parse error: byte offset within the source string and a message.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// Byte offset into the expression text.
    pub pos: usize,
    /// What went wrong, in words for a scenario author.
    pub msg: String,
}

/// The result of a parsing step.
type PResult<T> = Result<T, ParseError>;

/// A [`ParseError`] at byte offset `pos`.
fn err<T>(pos: usize, msg: impl Into<String>) -> PResult<T> {
    Err(ParseError {
        pos,
        msg: msg.into(),
    })
}

/// An expression tree with source positions.
#[derive(Debug, Clone, PartialEq)]
pub enum Ast {
    /// A number literal.
    Num(f64, usize),
    /// An integer literal (also `true` and `false`).
    Int(i64, usize),
    /// `NdS` dice.
    Dice(u32, u32, usize),
    /// `[owner.]name[\[index\]]`.
    Name {
        /// `me`, `target`, or a faction name.
        owner: Option<(String, usize)>,
        /// The variable, setting or builtin.
        name: String,
        /// An element of the variable's set.
        index: Option<(String, usize)>,
        /// Where the reference starts.
        pos: usize,
    },
    /// `f(a, b, ...)`.
    Call(String, Vec<Ast>, usize),
    /// `-e`.
    Neg(Box<Ast>, usize),
    /// `not e`.
    Not(Box<Ast>, usize),
    /// `a op b`.
    Bin(BinOp, Box<Ast>, Box<Ast>, usize),
    /// `[owner.]name[formula]`: a computed subscript, the element at the formula's 1-based
    /// position in the variable's set (the name, a `Name` without index, and the formula).
    Index(Box<Ast>, Box<Ast>, usize),
}

impl Ast {
    /// Byte offset where this node starts.
    pub fn pos(&self) -> usize {
        match self {
            Ast::Num(_, p)
            | Ast::Int(_, p)
            | Ast::Dice(_, _, p)
            | Ast::Call(_, _, p)
            | Ast::Neg(_, p)
            | Ast::Not(_, p) => *p,
            Ast::Name { pos, .. } | Ast::Bin(_, _, _, pos) | Ast::Index(_, _, pos) => *pos,
        }
    }
}

/// A statement tree with source positions.
#[derive(Debug, Clone, PartialEq)]
pub enum StmtAst {
    /// `lvalue op expr [as source]`.
    Assign {
        /// The variable written (a `Name` node).
        target: Ast,
        /// `=`, `+=` or `-=`.
        op: AssignOp,
        /// The value.
        value: Ast,
        /// Points-by-source tag.
        source: Option<(String, usize)>,
    },
    /// `if cond: stmt [else: stmt]`.
    If(Ast, Box<StmtAst>, Option<Box<StmtAst>>),
    /// `each: stmt` / `each others: stmt`, simultaneous over factions.
    Each {
        /// Skip the acting faction.
        others: bool,
        /// The statement run for every faction.
        body: Box<StmtAst>,
        /// Where `each` starts.
        pos: usize,
    },
    /// `end reason`.
    End(String, usize),
    /// `draw deck [if cond]`.
    Draw(String, usize, Option<Ast>),
    /// `award var[\[elem\]] by metric [min K] scale a, b, ... [ties split|high|low|zero]
    /// [as source]`.
    Award {
        /// Faction variable receiving the awards.
        var: (String, usize),
        /// The element of an indexed variable receiving them.
        index: Option<(String, usize)>,
        /// Metric ranked highest first.
        metric: Ast,
        /// `min K`: only factions whose metric is at least K are ranked.
        min: Option<Ast>,
        /// Award per place: formulas of the moment (round, settings, global variables).
        scale: Vec<Ast>,
        /// Tie policy.
        ties: TiePolicy,
        /// Tie-break chain (higher first) applied before the policy.
        chain: Vec<Ast>,
        /// Points-by-source tag.
        source: Option<(String, usize)>,
    },
    /// `{ stmt; stmt; ... }`: statements in order.
    Block(Vec<StmtAst>),
    /// `title var by metric min K [points P] [as source]`.
    Title {
        /// Faction variable holding the title's points.
        var: (String, usize),
        /// What the title is for.
        metric: Ast,
        /// The least metric that may hold it.
        min: Ast,
        /// The holder's points (default 1).
        points: Option<Ast>,
        /// `ties nobody`: challengers tied above the holder take the title from it and
        /// leave it to nobody (default: the holder keeps it).
        tied_nobody: bool,
        /// Points-by-source tag.
        source: Option<(String, usize)>,
    },
    /// `race done count if cond by key award var a, b, ... [as source]`.
    Race {
        /// Per-faction flag: already completed.
        done: (String, usize),
        /// Global counter of completers.
        count: (String, usize),
        /// Completion condition.
        cond: Ast,
        /// Order of same-moment completers (ascending).
        key: Ast,
        /// Faction variable receiving the rewards.
        var: (String, usize),
        /// Reward by completion order: constant formulas.
        scale: Vec<Ast>,
        /// Points-by-source tag.
        source: Option<(String, usize)>,
    },
    /// `win [reason]`, `lose [reason]`.
    Outcome {
        /// What happens to the faction in scope.
        kind: OutcomeKind,
        /// End reason.
        reason: Option<(String, usize)>,
        /// Where the statement starts.
        pos: usize,
    },
    /// `take deck [if cond]`: the faction in scope draws an eligible card into its hand.
    Take(String, usize, Option<Ast>),
    /// `for held deck: stmt`: run `stmt` for each card of the deck the faction holds.
    ForHeld(String, usize, Box<StmtAst>),
    /// `for WORD in SET: stmt`: a template, the statement once per element of SET with
    /// WORD standing for the element.
    ForIn {
        /// The word and where it is.
        word: (String, usize),
        /// The set and where it is named.
        set: (String, usize),
        /// The statement.
        body: Box<StmtAst>,
    },
    /// `discard`: return the card in hand to its deck.
    Discard(usize),
    /// `complete`: the faction in scope completes the card in hand (kept out of the deck).
    Complete(usize),
    /// `order var by key1, key2, ...`.
    Order {
        /// Faction variable receiving 1-based positions.
        var: (String, usize),
        /// Ascending sort keys.
        keys: Vec<Ast>,
    },
    /// `pass DECK left|right`: every hand of the deck moves to the next faction along.
    Pass {
        /// The deck.
        deck: (String, usize),
        /// 1 for left (the next seat), -1 for right.
        dir: i8,
    },
    /// `regions KEY into SIZE [label LABEL]`: the connected regions of a grid variable.
    Regions {
        /// The grid variable whose equal nonzero neighbours form regions.
        key: (String, usize),
        /// Receives each cell's region size.
        size: (String, usize),
        /// Receives each cell's region label, if named.
        label: Option<(String, usize)>,
    },
}

/// A cursor over the tokens of one formula or statement, with the limits spent so far.
struct Parser {
    /// The tokens with their byte offsets, ending with `Eof`.
    toks: Vec<(Tok, usize)>,
    /// Index of the current token.
    i: usize,
    /// Nesting so far (parentheses, calls, `-`, `not`, statements inside statements).
    depth: usize,
    /// Binary operators so far.
    ops: usize,
}

/// The deepest nesting a formula or statement may have: far beyond any rule, well within
/// the stack of the threads that compile and run it.
pub const MAX_DEPTH: usize = 64;

/// The most binary operators one formula may have (a long sum is a deep tree too).
pub const MAX_OPERATORS: usize = 1000;

impl Parser {
    /// A parser at the first token of `src`.
    fn new(src: &str) -> PResult<Self> {
        Ok(Parser {
            toks: lex(src)?,
            i: 0,
            depth: 0,
            ops: 0,
        })
    }
    /// The current token.
    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }
    /// The token `k` after the current one (`Eof` past the end).
    fn peek_at(&self, k: usize) -> &Tok {
        let last = self.toks.len() - 1;
        &self.toks[(self.i + k).min(last)].0
    }
    /// Byte offset of the current token.
    fn pos(&self) -> usize {
        self.toks[self.i].1
    }
    /// Consumes and returns the current token (staying on the final `Eof`).
    fn bump(&mut self) -> (Tok, usize) {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    /// Whether the current token is the symbol `s`.
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }
    /// Whether the current token is the word `w`.
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(x) if x == w)
    }
    /// Consumes the required symbol `s`.
    fn expect_sym(&mut self, s: &str) -> PResult<()> {
        if self.is_sym(s) {
            self.bump();
            Ok(())
        } else {
            err(self.pos(), format!("expected `{s}` {}", self.found()))
        }
    }
    /// "but found ...": the current token, for error messages.
    fn found(&self) -> String {
        match self.peek() {
            Tok::Eof => "but the expression ended".into(),
            Tok::Num(n) => format!("but found `{n}`"),
            Tok::Int(n) => format!("but found `{n}`"),
            Tok::Dice(n, s) => format!("but found `{n}d{s}`"),
            Tok::Ident(w) => format!("but found `{w}`"),
            Tok::Sym(s) => format!("but found `{s}`"),
        }
    }
    /// Consumes a word (a name), described as `what` if it is missing.
    fn ident(&mut self, what: &str) -> PResult<(String, usize)> {
        match self.peek().clone() {
            Tok::Ident(w) => {
                let p = self.pos();
                self.bump();
                Ok((w, p))
            }
            _ => err(self.pos(), format!("expected {what} {}", self.found())),
        }
    }

    /// A whole expression.
    fn expr(&mut self) -> PResult<Ast> {
        self.binary(0)
    }

    /// The binary operator at the cursor with its precedence (higher binds tighter), if
    /// any.
    fn binop(&self) -> Option<(BinOp, u8)> {
        let op = match self.peek() {
            Tok::Ident(w) if w == "or" => (BinOp::Or, 1),
            Tok::Ident(w) if w == "and" => (BinOp::And, 2),
            Tok::Sym(s) => match *s {
                "==" => (BinOp::Eq, 4),
                "!=" => (BinOp::Ne, 4),
                "<" => (BinOp::Lt, 4),
                "<=" => (BinOp::Le, 4),
                ">" => (BinOp::Gt, 4),
                ">=" => (BinOp::Ge, 4),
                "+" => (BinOp::Add, 5),
                "-" => (BinOp::Sub, 5),
                "*" => (BinOp::Mul, 6),
                "/" => (BinOp::Div, 6),
                "//" => (BinOp::FloorDiv, 6),
                "%" => (BinOp::Mod, 6),
                _ => return None,
            },
            _ => return None,
        };
        Some(op)
    }

    /// Runs `f` one level deeper, refusing to go past [`MAX_DEPTH`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if self.depth >= MAX_DEPTH {
            return err(
                self.pos(),
                format!(
                    "nested too deeply (more than {MAX_DEPTH} levels of parentheses, calls, \
                     `-`, `not` or statements): split it with a variable or a setting"
                ),
            );
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    /// Binary operators of precedence at least `min_prec`, one nesting level deeper.
    fn binary(&mut self, min_prec: u8) -> PResult<Ast> {
        self.nested(|p| p.binary_at(min_prec))
    }

    /// Operands joined by binary operators of precedence at least `min_prec`.
    fn binary_at(&mut self, min_prec: u8) -> PResult<Ast> {
        let mut lhs = self.unary()?;
        while let Some((op, prec)) = self.binop() {
            if prec < min_prec {
                break;
            }
            let p = self.pos();
            self.ops += 1;
            if self.ops > MAX_OPERATORS {
                return err(
                    p,
                    format!(
                        "a formula may have at most {MAX_OPERATORS} operators: split it with \
                         a variable or a setting"
                    ),
                );
            }
            self.bump();
            // Left-associative; comparisons do not chain: `a < b < c` is an error rather
            // than a surprise.
            let rhs = self.binary(prec + 1)?;
            if prec == 4 && matches!(self.binop(), Some((_, 4))) {
                return err(
                    self.pos(),
                    "comparisons do not chain: write `a < b and b < c`",
                );
            }
            lhs = Ast::Bin(op, Box::new(lhs), Box::new(rhs), p);
        }
        Ok(lhs)
    }

    /// `-e`, `not e` or a primary value.
    fn unary(&mut self) -> PResult<Ast> {
        let p = self.pos();
        if self.is_sym("-") {
            self.bump();
            return Ok(Ast::Neg(Box::new(self.nested(Self::unary)?), p));
        }
        if self.is_word("not") {
            self.bump();
            // `not` binds looser than comparisons: `not a == b` is `not (a == b)`.
            return Ok(Ast::Not(Box::new(self.binary(3)?), p));
        }
        self.primary()
    }

    /// A number, dice, `true`/`false`, `(e)`, a call `f(a, ...)` or a name.
    fn primary(&mut self) -> PResult<Ast> {
        let p = self.pos();
        match self.peek().clone() {
            Tok::Num(v) => {
                self.bump();
                Ok(Ast::Num(v, p))
            }
            Tok::Int(v) => {
                self.bump();
                Ok(Ast::Int(v, p))
            }
            Tok::Dice(n, s) => {
                self.bump();
                if n == 0 || s == 0 {
                    return err(p, "dice need at least one die with at least one side");
                }
                Ok(Ast::Dice(n, s, p))
            }
            Tok::Sym("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect_sym(")")?;
                Ok(e)
            }
            Tok::Ident(w) => {
                self.bump();
                if w == "true" {
                    return Ok(Ast::Int(1, p));
                }
                if w == "false" {
                    return Ok(Ast::Int(0, p));
                }
                if self.is_sym("(") {
                    return Ok(Ast::Call(w, self.call_args()?, p));
                }
                self.name_rest(w, p)
            }
            _ => err(p, format!("expected a value {}", self.found())),
        }
    }

    /// The arguments of a call, `(a, b, ...)` or `()`, parentheses included.
    fn call_args(&mut self) -> PResult<Vec<Ast>> {
        self.bump();
        let mut args = Vec::new();
        if !self.is_sym(")") {
            loop {
                args.push(self.expr()?);
                if self.is_sym(",") {
                    self.bump();
                } else {
                    break;
                }
            }
        }
        self.expect_sym(")")?;
        Ok(args)
    }

    /// The rest of a name whose first word `first` (at `p`) is consumed: `[.var][\[index\]]`.
    fn name_rest(&mut self, first: String, p: usize) -> PResult<Ast> {
        let (owner, name) = if self.is_sym(".") {
            self.bump();
            let (n, _) = self.ident("a variable name after `.`")?;
            (Some((first, p)), n)
        } else {
            (None, first)
        };
        // `[word]` names an element; anything else inside `[ ]` is a formula giving a
        // position (`wall[it + 1]`).
        let named = matches!(
            (self.peek_at(1), self.peek_at(2)),
            (Tok::Ident(_), Tok::Sym("]"))
        );
        let index = if self.is_sym("[") && named {
            self.bump();
            let ix = self.ident("an element name inside `[ ]`")?;
            self.expect_sym("]")?;
            Some(ix)
        } else {
            None
        };
        let name = Ast::Name {
            owner,
            name,
            index,
            pos: p,
        };
        if !self.is_sym("[") {
            return Ok(name);
        }
        self.bump();
        let at = self.nested(Self::expr)?;
        self.expect_sym("]")?;
        Ok(Ast::Index(Box::new(name), Box::new(at), p))
    }

    /// Checks that all the text was used, explaining common leftovers.
    fn finish(&self) -> PResult<()> {
        match self.peek() {
            Tok::Eof => Ok(()),
            Tok::Sym("=") => err(self.pos(), "`=` assigns a value; to compare, write `==`"),
            Tok::Sym(";") => err(
                self.pos(),
                "`;` separates statements only inside braces: write `{a; b}`, or give each \
                 statement its own entry in the list",
            ),
            _ => err(
                self.pos(),
                format!("unexpected text after the end {}", self.found()),
            ),
        }
    }
}

/// Parses one expression.
pub fn parse_expr(src: &str) -> Result<Ast, ParseError> {
    let mut p = Parser::new(src)?;
    if matches!(p.peek(), Tok::Eof) {
        return err(0, "the expression is empty");
    }
    let e = p.expr()?;
    p.finish()?;
    Ok(e)
}

/// The names an expression reads, as written (`Faction.var[elem]`), for explaining values.
pub fn names(ast: &Ast, out: &mut Vec<String>) {
    match ast {
        Ast::Name {
            owner, name, index, ..
        } => {
            let mut s = owner
                .as_ref()
                .map(|o| format!("{}.", o.0))
                .unwrap_or_default();
            s.push_str(name);
            if let Some((i, _)) = index {
                s.push_str(&format!("[{i}]"));
            }
            if !out.contains(&s) {
                out.push(s);
            }
        }
        Ast::Call(_, args, _) => args.iter().for_each(|a| names(a, out)),
        Ast::Neg(e, _) | Ast::Not(e, _) => names(e, out),
        Ast::Index(var, at, _) => {
            names(var, out);
            names(at, out);
        }
        Ast::Bin(_, l, r, _) => {
            names(l, out);
            names(r, out);
        }
        Ast::Num(..) | Ast::Int(..) | Ast::Dice(..) => {}
    }
}

/// Parses one statement.
pub fn parse_stmt(src: &str) -> Result<StmtAst, ParseError> {
    let mut p = Parser::new(src)?;
    if matches!(p.peek(), Tok::Eof) {
        return err(0, "the statement is empty");
    }
    let s = p.stmt()?;
    p.finish()?;
    Ok(s)
}

#[cfg(test)]
mod tests;
