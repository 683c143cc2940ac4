//! Lexer and Pratt parser for the expression and statement language.
//!
//! Owns the surface syntax only: text in, [`Ast`] / [`StmtAst`] out, each node carrying the
//! byte offset where it starts so that compile errors can point at the exact column. Name
//! resolution and code generation live in [`super::compile`].
//!
//! Written by hand because the language is small and we need byte offsets on every node and
//! dice literals (`2d6`); general expression crates evaluate by string look-up at run time,
//! which the engine must never do.

mod lex;

use lex::{Tok, lex};

/// A parse error: byte offset within the source string and a message.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// Byte offset into the expression text.
    pub pos: usize,
    /// What went wrong, in words for a scenario author.
    pub msg: String,
}

type PResult<T> = Result<T, ParseError>;

fn err<T>(pos: usize, msg: impl Into<String>) -> PResult<T> {
    Err(ParseError {
        pos,
        msg: msg.into(),
    })
}

/// Binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (real division)
    Div,
    /// `//` (floor division)
    FloorDiv,
    /// `%` (remainder with the sign of the divisor)
    Mod,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `and` (short-circuit)
    And,
    /// `or` (short-circuit)
    Or,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
        }
    }
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
            Ast::Name { pos, .. } | Ast::Bin(_, _, _, pos) => *pos,
        }
    }
}

/// `win` or `lose`. (A game ends in a draw through `end REASON` with a draw reason.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutcomeKind {
    /// The faction in scope wins.
    Win,
    /// The faction in scope loses and leaves the game.
    Lose,
}

/// Assignment operators of a statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignOp {
    /// `=`
    Set,
    /// `+=`
    Add,
    /// `-=`
    Sub,
}

/// How tied factions share a rank award.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TiePolicy {
    /// Sum the tied places' awards and divide evenly, rounding down.
    Split,
    /// Every tied faction gets the award of the best tied place.
    High,
    /// Every tied faction gets the award of the worst tied place.
    Low,
    /// Tied factions get nothing ("ties negate").
    Zero,
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
    /// `award var by metric scale a, b, ... [ties split|high|low|zero] [as source]`.
    Award {
        /// Faction variable receiving the awards.
        var: (String, usize),
        /// Metric ranked highest first.
        metric: Ast,
        /// Award per place.
        scale: Vec<(f64, usize)>,
        /// Tie policy.
        ties: TiePolicy,
        /// Tie-break chain (higher first) applied before the policy.
        chain: Vec<Ast>,
        /// Points-by-source tag.
        source: Option<(String, usize)>,
    },
    /// `{ stmt; stmt; ... }`: statements in order.
    Block(Vec<StmtAst>),
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
        /// Reward by completion order.
        scale: Vec<(f64, usize)>,
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
}

struct Parser {
    toks: Vec<(Tok, usize)>,
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
    fn peek(&self) -> &Tok {
        &self.toks[self.i].0
    }
    fn pos(&self) -> usize {
        self.toks[self.i].1
    }
    fn bump(&mut self) -> (Tok, usize) {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Sym(x) if *x == s)
    }
    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Ident(x) if x == w)
    }
    fn expect_sym(&mut self, s: &str) -> PResult<()> {
        if self.is_sym(s) {
            self.bump();
            Ok(())
        } else {
            err(self.pos(), format!("expected `{s}` {}", self.found()))
        }
    }
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

    fn expr(&mut self) -> PResult<Ast> {
        self.binary(0)
    }

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

    fn binary(&mut self, min_prec: u8) -> PResult<Ast> {
        self.nested(|p| p.binary_at(min_prec))
    }

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
                    return Ok(Ast::Call(w, args, p));
                }
                self.name_rest(w, p)
            }
            _ => err(p, format!("expected a value {}", self.found())),
        }
    }

    fn name_rest(&mut self, first: String, p: usize) -> PResult<Ast> {
        let (owner, name) = if self.is_sym(".") {
            self.bump();
            let (n, _) = self.ident("a variable name after `.`")?;
            (Some((first, p)), n)
        } else {
            (None, first)
        };
        let index = if self.is_sym("[") {
            self.bump();
            let ix = self.ident("an element name inside `[ ]`")?;
            self.expect_sym("]")?;
            Some(ix)
        } else {
            None
        };
        Ok(Ast::Name {
            owner,
            name,
            index,
            pos: p,
        })
    }

    fn stmt(&mut self) -> PResult<StmtAst> {
        self.nested(Self::stmt_at)
    }

    fn stmt_at(&mut self) -> PResult<StmtAst> {
        let p = self.pos();
        if self.is_sym("{") {
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
            return Ok(StmtAst::Block(body));
        }
        if self.is_word("if") {
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
            return Ok(StmtAst::If(c, then, els));
        }
        if self.is_word("each") {
            self.bump();
            let others = if self.is_word("others") {
                self.bump();
                true
            } else {
                false
            };
            self.expect_sym(":")?;
            return Ok(StmtAst::Each {
                others,
                body: Box::new(self.stmt()?),
                pos: p,
            });
        }
        if self.is_word("end") {
            self.bump();
            let (r, rp) = self.ident("an end reason name after `end`")?;
            return Ok(StmtAst::End(r, rp));
        }
        if self.is_word("draw") {
            self.bump();
            let (d, dp) = self.ident("a deck name after `draw`")?;
            let cond = if self.is_word("if") {
                self.bump();
                Some(self.expr()?)
            } else {
                None
            };
            return Ok(StmtAst::Draw(d, dp, cond));
        }
        if self.is_word("take") {
            self.bump();
            let (d, dp) = self.ident("a deck name after `take`")?;
            let cond = if self.is_word("if") {
                self.bump();
                Some(self.expr()?)
            } else {
                None
            };
            return Ok(StmtAst::Take(d, dp, cond));
        }
        if self.is_word("for") {
            self.bump();
            self.word("held")?;
            let (d, dp) = self.ident("a deck name after `for held`")?;
            self.expect_sym(":")?;
            return Ok(StmtAst::ForHeld(d, dp, Box::new(self.stmt()?)));
        }
        if self.is_word("discard") {
            self.bump();
            return Ok(StmtAst::Discard(p));
        }
        if self.is_word("complete") {
            self.bump();
            return Ok(StmtAst::Complete(p));
        }
        if self.is_word("award") {
            self.bump();
            let var = self.ident("a faction variable after `award`")?;
            self.word("by")?;
            let metric = self.expr()?;
            self.word("scale")?;
            let scale = self.numbers()?;
            let mut chain = Vec::new();
            let ties = if self.is_word("ties") {
                self.bump();
                if self.is_word("by") {
                    // A tie-break chain, higher first; ties it leaves are split.
                    self.bump();
                    chain.push(self.expr()?);
                    while self.is_sym(",") {
                        self.bump();
                        chain.push(self.expr()?);
                    }
                    let source = self.source()?;
                    return Ok(StmtAst::Award {
                        var,
                        metric,
                        scale,
                        ties: TiePolicy::Split,
                        chain,
                        source,
                    });
                }
                let (t, tp) = self
                    .ident("a tie policy (split, high, low, zero) or `by` and a tie-break chain")?;
                match t.as_str() {
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
                }
            } else {
                TiePolicy::Split
            };
            let source = self.source()?;
            return Ok(StmtAst::Award {
                var,
                metric,
                scale,
                ties,
                chain,
                source,
            });
        }
        if self.is_word("race") {
            self.bump();
            let done = self.ident("a per-faction flag after `race`")?;
            let count = self.ident("a global counter after the flag")?;
            self.word("if")?;
            let cond = self.expr()?;
            self.word("by")?;
            let key = self.expr()?;
            self.word("award")?;
            let var = self.ident("a faction variable after `award`")?;
            let scale = self.numbers()?;
            let source = self.source()?;
            return Ok(StmtAst::Race {
                done,
                count,
                cond,
                key,
                var,
                scale,
                source,
            });
        }
        for (w, kind) in [("win", OutcomeKind::Win), ("lose", OutcomeKind::Lose)] {
            if self.is_word(w) {
                self.bump();
                // `else` ends the statement (`if c: win else: ...`): it is no reason.
                let reason = match self.peek() {
                    Tok::Ident(_) if !self.is_word("else") => Some(self.ident("a reason")?),
                    _ => None,
                };
                return Ok(StmtAst::Outcome {
                    kind,
                    reason,
                    pos: p,
                });
            }
        }
        if self.is_word("order") {
            self.bump();
            let var = self.ident("a faction variable after `order`")?;
            if !self.is_word("by") {
                return err(self.pos(), format!("expected `by` {}", self.found()));
            }
            self.bump();
            let mut keys = vec![self.expr()?];
            while self.is_sym(",") {
                self.bump();
                keys.push(self.expr()?);
            }
            return Ok(StmtAst::Order { var, keys });
        }
        let target = match self.primary()? {
            n @ Ast::Name { .. } => n,
            _ => {
                return err(
                    p,
                    "a statement starts with a variable, `if`, `each`, `end`, `draw` or `order`",
                );
            }
        };
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
        let value = self.expr()?;
        let source = self.source()?;
        Ok(StmtAst::Assign {
            target,
            op,
            value,
            source,
        })
    }

    fn word(&mut self, w: &str) -> PResult<()> {
        if self.is_word(w) {
            self.bump();
            Ok(())
        } else {
            err(self.pos(), format!("expected `{w}` {}", self.found()))
        }
    }

    /// A comma-separated list of (possibly negative) numbers.
    fn numbers(&mut self) -> PResult<Vec<(f64, usize)>> {
        let mut out = Vec::new();
        loop {
            let p = self.pos();
            let neg = if self.is_sym("-") {
                self.bump();
                true
            } else {
                false
            };
            match self.peek().clone() {
                Tok::Num(v) => {
                    self.bump();
                    out.push((if neg { -v } else { v }, p));
                }
                Tok::Int(v) => {
                    self.bump();
                    let v = v as f64;
                    out.push((if neg { -v } else { v }, p));
                }
                _ => return err(self.pos(), format!("expected a number {}", self.found())),
            }
            if self.is_sym(",") {
                self.bump();
            } else {
                return Ok(out);
            }
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
    let mut p = Parser {
        toks: lex(src)?,
        i: 0,
        depth: 0,
        ops: 0,
    };
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
        Ast::Bin(_, l, r, _) => {
            names(l, out);
            names(r, out);
        }
        Ast::Num(..) | Ast::Int(..) | Ast::Dice(..) => {}
    }
}

/// Parses one statement.
pub fn parse_stmt(src: &str) -> Result<StmtAst, ParseError> {
    let mut p = Parser {
        toks: lex(src)?,
        i: 0,
        depth: 0,
        ops: 0,
    };
    if matches!(p.peek(), Tok::Eof) {
        return err(0, "the statement is empty");
    }
    let s = p.stmt()?;
    p.finish()?;
    Ok(s)
}

#[cfg(test)]
mod tests;
