//! Settings a faction gives its own value, read in formulas.
//!
//! Owns [`Compiler::faction_setting`]: `chance` (the bound faction's), `me.chance`,
//! `target.chance` and `Alice.chance`. A named faction's value is a constant; the others
//! are a choice by seat among the factions' constants, made when the formula runs, so
//! neither engine needs an operation of its own.

use super::*;

impl Compiler<'_> {
    /// A setting some faction gives its own value, read at `ast`.
    pub(super) fn faction_setting(
        &self,
        ast: &Ast,
        ctx: Ctx,
        out: &mut Vec<Op>,
    ) -> Result<(), ParseError> {
        let (owner, name, index, pos) = name_parts(ast);
        let values = &self.syms.faction_settings[name];
        if index.is_some() {
            return err(pos, format!("`{name}` is a setting: it takes no `[ ]`"));
        }
        let constant = |v: Num| match v {
            Num::Int(i) => Op::Int(i),
            Num::Real(r) => Op::Const(r),
        };
        if let Some((o, _)) = owner
            && let Some(&f) = self.syms.factions.get(o)
        {
            out.push(constant(values[f as usize]));
            return Ok(());
        }
        if values.iter().all(|&v| v == values[0]) {
            out.push(constant(values[0]));
            return Ok(());
        }
        if owner.is_none() && !ctx.bound {
            return err(
                pos,
                format!(
                    "`{name}` is a setting with a value per faction and no faction is in scope \
                     here: name one (`Faction.{name}`)"
                ),
            );
        }
        self.emit(&by_seat(owner, values, pos), ctx, out)
    }
}

/// `if(seat == 1, v1, if(seat == 2, v2, ... vN))`, the seat `owner`'s (the bound faction's
/// when none).
fn by_seat(owner: &Option<(String, usize)>, values: &[Num], pos: usize) -> Ast {
    let lit = |v: Num| match v {
        Num::Int(i) => Ast::Int(i, pos),
        Num::Real(r) => Ast::Num(r, pos),
    };
    let (last, rest) = values.split_last().expect("a scenario has a faction");
    rest.iter()
        .enumerate()
        .rev()
        .fold(lit(*last), |els, (f, &v)| {
            let seat = Ast::Name {
                owner: owner.clone(),
                name: "seat".into(),
                index: None,
                pos,
            };
            let is = Ast::Bin(
                BinOp::Eq,
                Box::new(seat),
                Box::new(Ast::Int(f as i64 + 1, pos)),
                pos,
            );
            Ast::Call("if".into(), vec![is, lit(v), els], pos)
        })
}
