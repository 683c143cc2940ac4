//! Derived values: `[[derived]]` tables, named formulas read like variables.
//!
//! Owns declaring them: each name is claimed in the one namespace, each formula is checked
//! where it is declared (so a mistake in it is reported at its own line, in the context of
//! its scope: a faction's value sees that faction's variables) and kept as a tree that the
//! expression compiler expands wherever the name is read. A formula may read earlier
//! derived values only, so no two can read each other.

use super::Cx;
use super::declare::Decls;
use crate::error::Result;
use crate::expr::compile::{Compiler, Ctx, Derived};
use crate::scenario::raw::RawScenario;

/// Declares the derived values of `raw` into `d.syms`, in file order; `reasons` are the
/// end reasons' names (for the compiler that checks each formula).
pub(super) fn declare(
    raw: &RawScenario,
    cx: &mut Cx,
    d: &mut Decls,
    reasons: &[String],
) -> Result<()> {
    for rd in &raw.derived {
        d.names.claim(&rd.name, "derived value")?;
        let faction =
            cx.keyword(&rd.scope, &["faction", "global"], "faction", "scope")? == "faction";
        let ctx = if faction {
            Ctx::faction()
        } else {
            Ctx::global()
        };
        // Checked here, with its errors at its own place in the file.
        {
            let comp = Compiler::new(&d.syms, reasons.to_vec());
            cx.expr(&comp, &rd.formula, ctx)?;
        }
        let ast = crate::expr::parse::parse_expr(&rd.formula.get_ref().0)
            .map_err(|e| cx.src.fail(rd.formula.span().start, e.msg))?;
        d.syms
            .derived
            .insert(rd.name.get_ref().clone(), Derived { ast, faction });
    }
    Ok(())
}
