//! Custom metrics: `[[metric]]` tables, formulas recorded next to each game's outcome.
//!
//! Owns what a well-formed metric is: a plain name whose columns collide with no other
//! column of the games table, `at` (`end` or `round`), `scope` (`faction` or `global`) and a
//! formula checked in its scope that never draws a random number (recording a metric must
//! not change the games it measures).

use std::collections::HashMap;

use super::{Cx, Source, check_ident};
use crate::error::Result;
use crate::expr::compile::{Compiler, Ctx};
use crate::model::{Faction, Metric};
use crate::scenario::raw::RawScenario;

/// Compiles the metrics of `raw`, in file order.
pub(super) fn compile(
    raw: &RawScenario,
    src: &Source,
    cx: &mut Cx,
    comp: &Compiler,
    factions: &[Faction],
) -> Result<Vec<Metric>> {
    // The games table's own columns, and each metric's as it is declared.
    let mut columns: HashMap<String, String> = ["game", "reason", "rounds", "winner"]
        .iter()
        .map(|c| (c.to_string(), "a column of the games table".to_string()))
        .collect();
    for f in factions {
        for c in [format!("score_{}", f.name), format!("rank_{}", f.name)] {
            columns.insert(c, "a column of the games table".into());
        }
    }
    let mut out = Vec::new();
    for rm in &raw.metrics {
        let name = rm.name.get_ref();
        let pos = rm.name.span().start;
        check_ident(src, name, pos)?;
        if out.iter().any(|m: &Metric| &m.name == name) {
            return Err(src.fail(
                pos,
                format!("the metric `{name}` is declared twice; give each metric its own name"),
            ));
        }
        let per_round = cx.keyword(&rm.at, &["end", "round"], "end", "timing")? == "round";
        let faction =
            cx.keyword(&rm.scope, &["faction", "global"], "faction", "scope")? == "faction";
        let ctx = if faction {
            Ctx::faction()
        } else {
            Ctx::global()
        };
        let formula = cx.expr(comp, &rm.formula, ctx)?;
        if formula.is_random() {
            return Err(src.fail(
                src.inner_start(&rm.formula.span()),
                format!(
                    "the metric `{name}` draws a random number: a metric only reads the game (recording it must not change the games); store the draw in a variable and read that"
                ),
            ));
        }
        if per_round && name == "margin" {
            return Err(src.fail(
                pos,
                "the metric `margin` taken after every round would name the `margin_mean` column of the by_round table, which the leader's margin has; rename the metric".to_string(),
            ));
        }
        if !per_round {
            let own: Vec<String> = if faction {
                factions
                    .iter()
                    .map(|f| format!("{name}_{}", f.name))
                    .collect()
            } else {
                vec![name.clone()]
            };
            for c in own {
                if let Some(what) = columns.insert(c.clone(), format!("the metric `{name}`")) {
                    return Err(src.fail(
                        pos,
                        format!(
                            "the metric `{name}` would name the column `{c}` of the games table, which is already {what}; rename the metric"
                        ),
                    ));
                }
            }
        }
        out.push(Metric {
            name: name.clone(),
            formula,
            per_round,
            faction,
        });
    }
    Ok(out)
}
