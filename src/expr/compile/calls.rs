//! Function calls and aggregates: `min(...)`, `uniform(...)`, `held(deck)`, `sum_all(...)`,
//! `count_in(set, ...)` and the rest, with their argument counts and contexts checked.

use super::*;

impl Compiler<'_> {
    pub(super) fn call(
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
            "row" | "col" | "cell" => self.grid_call(name, args, pos, ctx, out)?,
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
                let mut hint = suggest(name, FUNCTIONS.iter());
                if hint.is_empty() {
                    hint = suggest_parts(name);
                }
                return err(pos, format!("unknown function `{name}`{hint}"));
            }
        }
        Ok(())
    }

    pub(super) fn aggregate(
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
}

/// A hint for a function name made of known words in an unknown combination
/// (`max_all_others`): the known functions all of whose `_`-separated words it has, nearest
/// first, at most three; empty when there is none.
fn suggest_parts(name: &str) -> String {
    let words: Vec<&str> = name.split('_').collect();
    let mut near: Vec<(usize, &str)> = FUNCTIONS
        .iter()
        .filter(|f| f.contains('_') && f.split('_').all(|w| words.contains(&w)))
        .map(|f| (super::names::edit_distance(name, f), *f))
        .collect();
    near.sort();
    let names: Vec<String> = near.iter().take(3).map(|(_, f)| format!("`{f}`")).collect();
    match names.len() {
        0 => String::new(),
        _ => format!(" (did you mean {}?)", names.join(" or ")),
    }
}
