//! Positions in a set: computed subscripts (`wall[it + 1]`, `wall[k]` with `k` a setting or
//! a variable), a grid's `row(i)`, `col(i)` and `cell(r, c)`, and `regions` over a grid.
//!
//! Owns how a subscript that is not an element name becomes a read or a write at a run-time
//! position ([`Op::LoadAt`], [`crate::expr::AssignAt`], checked against the set's size when
//! it runs), how the grid functions find their grid and are typed, and what `regions` reads
//! and writes.

use super::*;
use crate::expr::tree::{Ty, decode_range};

/// A variable reference resolved to where it is, with its symbol.
type Resolved<'a> = Result<(LValue, &'a VarSym), ParseError>;

impl Compiler<'_> {
    /// `var[at]`: the element at the 1-based position `at` of the variable's set. A constant
    /// position inside the set reads that element directly; any other is checked when it
    /// runs (so `if(it < 5, wall[it + 1], 0)` reads past no end).
    pub(super) fn index(
        &self,
        var: &Ast,
        at: &Ast,
        ctx: Ctx,
        out: &mut Vec<Op>,
    ) -> Result<(), ParseError> {
        let (lv, _, n) = self.indexed(var, at, ctx)?;
        let elem = self.position(at, ctx, out, n)?;
        out.push(match elem {
            Some(e) => Op::Load {
                base: lv.base,
                fstride: lv.fstride,
                who: lv.who,
                elem: Elem::Fixed(e),
            },
            None => Op::LoadAt {
                base: lv.base,
                fstride: lv.fstride,
                who: lv.who,
                n,
            },
        });
        Ok(())
    }

    /// Where `var[at]` (or `var[word]` with a word that is a value) is: `None` for any other
    /// reference.
    pub(super) fn at_position(&self, ast: &Ast, ctx: Ctx) -> Option<Resolved<'_>> {
        match (ast, self.named_position(ast)) {
            (Ast::Index(var, at, _), _) => Some(self.fixed_index(var, at, ctx)),
            (_, Some(Ast::Index(var, at, _))) => Some(self.fixed_index(&var, &at, ctx)),
            _ => None,
        }
    }

    /// `var[at]` written where `at` is known only while playing (not a constant position):
    /// the variable at its set's first element, the set's size and the position's code.
    /// `None` for any other reference (a constant position off the set is refused by
    /// [`Compiler::var_ref`], which says where).
    pub(super) fn computed_write(
        &self,
        ast: &Ast,
        ctx: Ctx,
    ) -> Result<Option<(LValue, u16, Vec<Op>)>, ParseError> {
        let named = self.named_position(ast);
        let (var, at) = match (ast, &named) {
            (Ast::Index(var, at, _), _) | (_, Some(Ast::Index(var, at, _))) => (&**var, &**at),
            _ => return Ok(None),
        };
        let (lv, _, n) = self.indexed(var, at, ctx)?;
        let mut code = Vec::new();
        if self.position(at, ctx, &mut code, n)?.is_some()
            || Expr::new(code.clone(), 0).as_const_num().is_some()
        {
            return Ok(None);
        }
        Ok(Some((lv, n, code)))
    }

    /// The element `var[at]` names when `at` is a constant position in the set (a formula
    /// of numbers, settings and a template's word, `line[row(picks, it)]`): where a
    /// statement writes. Any other position is refused with the way to write it.
    fn fixed_index(&self, var: &Ast, at: &Ast, ctx: Ctx) -> Resolved<'_> {
        let (mut lv, v, n) = self.indexed(var, at, ctx)?;
        let mut code = Vec::new();
        let Some(e) = self.position(at, ctx, &mut code, n)? else {
            // Known before the game runs, but off the set: say where, and for which element
            // of a template.
            if let Some(Num::Int(k)) = Expr::new(code, 0).as_const_num() {
                let copy = self.templates.last().map_or(String::new(), |t| {
                    let set = self.set_by_id(t.set);
                    format!(
                        " (in the copy for `{}`, the template's element {} of {})",
                        set.elements[t.elem as usize],
                        t.elem + 1,
                        set.elements.len()
                    )
                });
                let set_name = (v.set)
                    .and_then(|id| self.syms.sets.iter().find(|(_, s)| s.id == id))
                    .map_or(String::new(), |(name, _)| format!(" `{name}`"));
                return err(
                    at.pos(),
                    format!(
                        "this position is {k}{copy}, off the set{set_name}, whose positions are 1 to {n}: \
                         keep it inside (for example `if(it < {n}, it + 1, it)`), or write at \
                         it only where it is (`for m in SET: if m == POSITION: VAR[m] = ...`)"
                    ),
                );
            }
            return err(
                at.pos(),
                "an award, race, title or order writes at a position known before the game \
                 runs (an element, or a formula of numbers, settings and a template's word); \
                 for a computed one, put it in `for m in SET: if m == POSITION: ...` (an \
                 assignment takes a computed position as it is)",
            );
        };
        lv.elem = Elem::Fixed(e);
        Ok((lv, v))
    }

    /// The variable of `var[at]`, with owner and scope checked as for a name (its slot for
    /// the set's first element), and its set's size.
    fn indexed(&self, var: &Ast, at: &Ast, ctx: Ctx) -> Result<(LValue, &VarSym, u16), ParseError> {
        let Ast::Name {
            owner,
            name,
            index: None,
            pos,
        } = var
        else {
            return err(var.pos(), "expected a variable before `[ ]`");
        };
        let probe = |element: String| Ast::Name {
            owner: owner.clone(),
            name: name.clone(),
            index: Some((element, at.pos())),
            pos: *pos,
        };
        let Some(set) = self.syms.vars.get(name).and_then(|v| v.set) else {
            // Undefined, or not indexed: `var_ref` says which.
            self.var_ref(&probe("_".into()), ctx)?;
            return err(at.pos(), format!("`{name}` is not indexed by a set"));
        };
        let elements = &self.set_by_id(set).elements;
        let (lv, v) = self.var_ref(&probe(elements[0].clone()), ctx)?;
        Ok((lv, v, elements.len() as u16))
    }

    /// Emits position `at` into `out` (a whole number) and, when it is a constant inside
    /// `1..=n`, takes it back out and returns its element.
    fn position(
        &self,
        at: &Ast,
        ctx: Ctx,
        out: &mut Vec<Op>,
        n: u16,
    ) -> Result<Option<u16>, ParseError> {
        let start = out.len();
        self.emit(at, ctx, out)?;
        self.whole(at, out, start, "a subscript is a position in the set")?;
        // Jumps are absolute positions in `out`: the part from `start` folds alone only when
        // it holds none, or starts `out` (`if(it < 5, it + 1, it)` where a statement writes).
        let straight = start == 0
            || !out[start..]
                .iter()
                .any(|o| matches!(o, Op::Jump(_) | Op::JumpIfFalse(_)));
        if straight
            && let Some(Num::Int(k)) = Expr::new(out[start..].to_vec(), 0).as_const_num()
            && (1..=n as i64).contains(&k)
        {
            out.truncate(start);
            return Ok(Some((k - 1) as u16));
        }
        Ok(None)
    }

    /// `var[word]` where `word` is no element of the variable's set and no template's word,
    /// but a value (a setting, a variable, a derived value, a builtin): the computed
    /// subscript `var[(word)]`.
    pub(super) fn named_position(&self, ast: &Ast) -> Option<Ast> {
        let Ast::Name {
            owner,
            name,
            index: Some((word, at)),
            pos,
        } = ast
        else {
            return None;
        };
        let set = self.syms.vars.get(name)?.set?;
        let is_value = self.syms.settings.contains_key(word)
            || self.syms.vars.contains_key(word)
            || self.syms.derived.contains_key(word)
            || self.syms.faction_settings.contains_key(word)
            || super::names::is_number_builtin(word);
        // Only a value is looked up among the elements (a scan of the set: an element
        // subscript of a template over a whole grid must not pay it).
        let element = !is_value
            || self.set_by_id(set).elements.contains(word)
            || self.template(word).is_some();
        (is_value && !element).then(|| {
            let var = Ast::Name {
                owner: owner.clone(),
                name: name.clone(),
                index: None,
                pos: *pos,
            };
            let word = Ast::Name {
                owner: None,
                name: word.clone(),
                index: None,
                pos: *at,
            };
            Ast::Index(Box::new(var), Box::new(word), *pos)
        })
    }

    /// `row(i)`, `col(i)`, `cell(r, c)`, or with the grid named first (`row(wall, i)`): the
    /// grid's size is pushed after the positions, as the operation takes it.
    pub(super) fn grid_call(
        &self,
        name: &str,
        args: &[Ast],
        pos: usize,
        ctx: Ctx,
        out: &mut Vec<Op>,
    ) -> Result<(), ParseError> {
        let (f, want) = match name {
            "row" => (Func::Row, 1),
            "col" => (Func::Col, 1),
            _ => (Func::Cell, 2),
        };
        let named = match args.first() {
            Some(Ast::Name {
                owner: None,
                name: s,
                index: None,
                pos,
            }) if args.len() == want + 1 => Some((s, *pos)),
            _ => None,
        };
        let (rows, cols) = match named {
            Some((s, p)) => match self.syms.sets.get(s) {
                Some(SetSym { grid: Some(g), .. }) => *g,
                _ => {
                    return err(
                        p,
                        format!("`{s}` is not a grid: declare it with `grid = [ROWS, COLS]`"),
                    );
                }
            },
            None => self.only_grid(name, pos)?,
        };
        let positions = &args[named.is_some() as usize..];
        if positions.len() != want {
            let what = if want == 1 {
                "a position"
            } else {
                "a row and a column"
            };
            return err(
                pos,
                format!("{name}() takes {what} (and optionally the grid first)"),
            );
        }
        for a in positions {
            let start = out.len();
            self.emit(a, ctx, out)?;
            self.whole(a, out, start, &format!("{name}() takes positions"))?;
        }
        out.push(Op::Int(rows as i64));
        out.push(Op::Int(cols as i64));
        out.push(Op::Call(f, want as u8 + 2));
        Ok(())
    }

    /// The scenario's one grid, for `row(i)` and the rest written without a grid's name.
    fn only_grid(&self, name: &str, pos: usize) -> Result<(u16, u16), ParseError> {
        let mut grids = self
            .syms
            .sets
            .iter()
            .filter_map(|(n, s)| Some((n, s.grid?)));
        match (grids.next(), grids.next()) {
            (Some((_, g)), None) => Ok(g),
            (None, _) => err(
                pos,
                format!("{name}() needs a grid: declare a set with `grid = [ROWS, COLS]`"),
            ),
            (Some((a, _)), Some((b, _))) => err(
                pos,
                format!(
                    "the scenario has more than one grid: name it first, `{name}({a}, ...)` or `{name}({b}, ...)`"
                ),
            ),
        }
    }

    /// Refuses a real formula (just emitted from `start`) where a whole number is needed.
    fn whole(&self, a: &Ast, out: &[Op], start: usize, what: &str) -> Result<(), ParseError> {
        if decode_range(out, start, out.len()).ty() == Ty::Real {
            return err(
                a.pos(),
                format!(
                    "{what}, a whole number, and this formula is a real: use floor(...) or round(...)"
                ),
            );
        }
        Ok(())
    }

    /// The set whose id is `id`.
    pub(super) fn set_by_id(&self, id: u16) -> &SetSym {
        self.syms
            .sets
            .values()
            .find(|s| s.id == id)
            .expect("set ids are dense")
    }

    /// `regions KEY into SIZE [label LABEL]`: KEY over a grid, SIZE and LABEL over the same
    /// grid, all three different variables of the same owner (the faction in scope, or
    /// global).
    pub(super) fn regions(
        &self,
        key: &(String, usize),
        size: &(String, usize),
        label: &Option<(String, usize)>,
        ctx: Ctx,
    ) -> Result<Stmt, ParseError> {
        let (k, set, (rows, cols)) = self.grid_var(key, ctx)?;
        let mut written = vec![(k.var, key.0.clone())];
        let mut out = |(name, pos): &(String, usize)| -> Result<LValue, ParseError> {
            if self.syms.settings.contains_key(name) {
                return err(
                    *pos,
                    format!("`{name}` is read-only: only variables can be assigned"),
                );
            }
            let (lv, s, _) = self.grid_var(&(name.clone(), *pos), ctx)?;
            let global = k.who == Who::None;
            if s != set || (lv.who == Who::None) != global {
                let scope = if global { "global" } else { "per-faction" };
                return err(
                    *pos,
                    format!(
                        "`{name}` must be over the same grid as `{}`, and like it a {scope} variable",
                        key.0
                    ),
                );
            }
            if let Some((_, other)) = written.iter().find(|(v, _)| *v == lv.var) {
                return err(
                    *pos,
                    format!(
                        "`{name}` is `{other}` again: `regions` reads one variable and writes one or two others"
                    ),
                );
            }
            written.push((lv.var, name.clone()));
            Ok(lv)
        };
        let size = out(size)?;
        let label = match label {
            Some(l) => Some(out(l)?),
            None => None,
        };
        Ok(Stmt::Regions(Box::new(crate::expr::Regions {
            key: k,
            size,
            label,
            rows,
            cols,
        })))
    }

    /// A variable over a grid, at the grid's first cell, with its set and the grid's shape.
    fn grid_var(
        &self,
        (name, pos): &(String, usize),
        ctx: Ctx,
    ) -> Result<(LValue, u16, (u16, u16)), ParseError> {
        let at = |index| Ast::Name {
            owner: None,
            name: name.clone(),
            index,
            pos: *pos,
        };
        let v = self.syms.vars.get(name);
        let Some(set) = v.and_then(|v| v.set) else {
            if v.is_none() {
                // Undefined: `var_ref` says so, with a suggestion.
                self.var_ref(&at(None), ctx)?;
            }
            return err(
                *pos,
                format!(
                    "`{name}` is not a variable over a grid: `regions` reads and writes variables declared with `over = GRID`"
                ),
            );
        };
        let s = self.set_by_id(set);
        let Some(shape) = s.grid else {
            return err(
                *pos,
                format!(
                    "`{name}` is over a set that is not a grid: declare its set with `grid = [ROWS, COLS]`"
                ),
            );
        };
        let (lv, _) = self.var_ref(&at(Some((s.elements[0].clone(), *pos))), ctx)?;
        Ok((lv, set, shape))
    }
}
