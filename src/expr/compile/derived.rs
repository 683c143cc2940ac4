//! Derived values read in formulas: a `[[derived]]` name expanded where it is read.
//!
//! Owns [`Compiler::derived`] (checks the reading: an owner, a faction in scope) and the
//! rewriting of a faction's formula for a named faction ([`with_owner`]).

use super::*;

/// The most operations one formula may expand to once its derived values are substituted:
/// far beyond any rule's formula (a 1,000-operator text is about 2,000), and bounded, so a
/// chain of derived values that doubles at each step is refused at once instead of filling
/// memory.
pub(super) const MAX_EXPANDED: usize = 100_000;

impl Compiler<'_> {
    /// A derived value read at `ast` (`total_vp`, `A.total_vp`): its formula compiled here.
    /// A faction's value read without an owner is the bound faction's (the acting one, or
    /// the one an aggregate visits); with an owner, that faction's variables stand for the
    /// formula's own.
    pub(super) fn derived(&self, ast: &Ast, ctx: Ctx, out: &mut Vec<Op>) -> Result<(), ParseError> {
        let (_, name, _, pos) = name_parts(ast);
        let depth = self.expanding.get();
        if depth >= crate::expr::parse::MAX_DEPTH {
            return err(
                pos,
                format!(
                    "derived values read inside one another more than {} deep (at `{name}`): store one of them in a variable",
                    crate::expr::parse::MAX_DEPTH
                ),
            );
        }
        self.expanding.set(depth + 1);
        let done = self.expand(ast, ctx, out);
        self.expanding.set(depth);
        done?;
        if out.len() > MAX_EXPANDED {
            return err(
                pos,
                format!(
                    "with its derived values substituted this formula is more than {MAX_EXPANDED} operations (at `{name}`): store a derived value in a variable, or read it fewer times"
                ),
            );
        }
        Ok(())
    }

    /// [`Compiler::derived`]'s expansion: the derived value's formula emitted for its
    /// reader.
    fn expand(&self, ast: &Ast, ctx: Ctx, out: &mut Vec<Op>) -> Result<(), ParseError> {
        let (owner, name, index, pos) = name_parts(ast);
        let d = &self.syms.derived[name];
        if index.is_some() {
            return err(
                pos,
                format!("`{name}` is a derived value: it takes no `[ ]`"),
            );
        }
        match (d.faction, owner) {
            (false, Some(_)) => err(
                pos,
                format!("`{name}` is a global derived value: it has no owner"),
            ),
            (false, None) => self.emit(&d.ast, ctx, out),
            (true, None) if !ctx.bound => err(
                pos,
                format!(
                    "`{name}` is a faction's value and no faction is in scope here: name one (`Faction.{name}`) or use an aggregate such as max_all({name})"
                ),
            ),
            (true, None) => self.emit(&d.ast, ctx, out),
            (true, Some(_)) if reads_others(&d.ast, self.syms) => err(
                pos,
                format!(
                    "`{name}` reads an `_others` aggregate, which leaves out the faction in scope: read it for that faction (`{name}`), not for a named one"
                ),
            ),
            (true, Some(o)) => self.emit(&with_owner(&d.ast, o, self.syms), ctx, out),
        }
    }
}

/// Whether `ast` (or a derived value it reads) has an `_others` aggregate, which leaves out
/// the faction in scope and cannot be moved to a named one.
fn reads_others(ast: &Ast, syms: &Symbols) -> bool {
    match ast {
        Ast::Name { name, .. } => syms
            .derived
            .get(name)
            .is_some_and(|d| reads_others(&d.ast, syms)),
        Ast::Neg(e, _) | Ast::Not(e, _) => reads_others(e, syms),
        Ast::Bin(_, l, r, _) | Ast::Index(l, r, _) => {
            reads_others(l, syms) || reads_others(r, syms)
        }
        Ast::Call(f, args, _) => {
            agg_name(f).is_some_and(|(_, s)| s == "others")
                || args.iter().any(|a| reads_others(a, syms))
        }
        _ => false,
    }
}

/// The functions that count the cards of the faction in scope, and take no owner.
const FACTION_CALLS: [&str; 3] = ["held", "completed", "has_completed"];

/// `ast` with `owner` for the faction it reads: its unqualified faction variables, faction
/// derived values and faction builtins (`seat`, `table_seat`, `side`, `player`,
/// `eliminated`), and `me.`, are `owner`'s; `held(d)`, `completed(d)` and
/// `has_completed(d, id)`, which read the faction in scope, become a sum over the factions
/// that counts `owner`'s alone (`sum_all(if(seat == owner.seat, held(d), 0))`), so they need
/// no faction in scope. An aggregate over factions keeps its own binding.
fn with_owner(ast: &Ast, owner: &(String, usize), syms: &Symbols) -> Ast {
    let faction_name = |n: &str| {
        syms.vars.get(n).is_some_and(|v| v.faction)
            || syms.derived.get(n).is_some_and(|d| d.faction)
            || (super::names::is_faction_builtin(n)
                && !syms.vars.contains_key(n)
                && !syms.derived.contains_key(n))
    };
    match ast {
        Ast::Name {
            owner: o,
            name,
            index,
            pos,
        } => {
            let mine = match o {
                None => faction_name(name),
                Some((w, _)) => w == "me",
            };
            Ast::Name {
                owner: if mine { Some(owner.clone()) } else { o.clone() },
                name: name.clone(),
                index: index.clone(),
                pos: *pos,
            }
        }
        Ast::Neg(e, p) => Ast::Neg(Box::new(with_owner(e, owner, syms)), *p),
        Ast::Not(e, p) => Ast::Not(Box::new(with_owner(e, owner, syms)), *p),
        Ast::Bin(op, l, r, p) => Ast::Bin(
            *op,
            Box::new(with_owner(l, owner, syms)),
            Box::new(with_owner(r, owner, syms)),
            *p,
        ),
        Ast::Index(v, at, p) => Ast::Index(
            Box::new(with_owner(v, owner, syms)),
            Box::new(with_owner(at, owner, syms)),
            *p,
        ),
        Ast::Call(f, args, p) if agg_name(f).is_some_and(|(_, s)| s != "in") => {
            Ast::Call(f.clone(), args.clone(), *p)
        }
        Ast::Call(f, args, p) if FACTION_CALLS.contains(&f.as_str()) => {
            let call = Ast::Call(
                f.clone(),
                args.iter().map(|a| with_owner(a, owner, syms)).collect(),
                *p,
            );
            let seat = |o: Option<(String, usize)>| Ast::Name {
                owner: o,
                name: "seat".into(),
                index: None,
                pos: *p,
            };
            let is_owner = Ast::Bin(
                BinOp::Eq,
                Box::new(seat(None)),
                Box::new(seat(Some(owner.clone()))),
                *p,
            );
            let only = Ast::Call("if".into(), vec![is_owner, call, Ast::Int(0, *p)], *p);
            Ast::Call("sum_all".into(), vec![only], *p)
        }
        Ast::Call(f, args, p) => Ast::Call(
            f.clone(),
            args.iter().map(|a| with_owner(a, owner, syms)).collect(),
            *p,
        ),
        other => other.clone(),
    }
}
