//! End reasons: why a game ended, declared by `[[end]]` tables and interned by the rules.
//!
//! Owns the declared reasons (unique names, known results, what `who` and a win or lose
//! condition need), the last-round reason, and the final [`Reason`] list with each reason's
//! result and the mechanism that uses it.

use super::{Cx, Source, check_ident};
use crate::error::Result;
use crate::expr::compile::{ALL_LOST, Compiler, LAST_STANDING, LAST_TEAM};
use crate::ids::ReasonId;
use crate::model::{Check, CheckKind, Reason, ReasonResult};
use crate::scenario::raw::RawScenario;

/// The end reasons the scenario declares, known before any rule is compiled.
pub(super) struct Declared {
    /// Each reason's name, result (`rank`, `draw`, `nobody`, `win` or `lose`) and
    /// description: the `[[end]]` tables in file order, then the last-round reason unless
    /// one of them is it.
    pub(super) meta: Vec<(String, &'static str, String)>,
    /// The id of the reason a game ends with when its last round has been played.
    pub(super) last_round: ReasonId,
}

impl Declared {
    /// The declared reasons' names, in id order: the reasons a compiler starts with.
    pub(super) fn names(&self) -> Vec<String> {
        self.meta.iter().map(|r| r.0.clone()).collect()
    }
}

/// End reasons: declared ones first, then the last-round reason (any `end NAME` is interned
/// later, by the compiler).
pub(super) fn declare(raw: &RawScenario, src: &Source, cx: &Cx) -> Result<Declared> {
    let mut meta: Vec<(String, &'static str, String)> = Vec::new();
    for e in &raw.ends {
        let e = e.get_ref();
        check_ident(src, e.name.get_ref(), e.name.span().start)?;
        if meta.iter().any(|r| &r.0 == e.name.get_ref()) {
            return Err(src.fail(
                e.name.span().start,
                format!("end reason `{}` is declared twice", e.name.get_ref()),
            ));
        }
        let result = cx.keyword(
            &e.result,
            &["rank", "draw", "nobody", "win", "lose"],
            "rank",
            "result",
        )?;
        let turn_start = e
            .timing
            .as_ref()
            .is_some_and(|t| t.get_ref() == "turn_start");
        if let Some(w) = &e.who {
            if !turn_start || !matches!(result, "win" | "lose") {
                return Err(src.fail(
                    w.span().start,
                    "`who` chooses whose win or lose condition is checked at turn start: \
                     it needs timing = \"turn_start\" and result = \"win\" or \"lose\"",
                ));
            }
            cx.keyword(&e.who, &["turn", "all"], "turn", "who")?;
        }
        if matches!(result, "win" | "lose") && e.when.is_none() {
            let at = e.result.as_ref().map_or(0, |r| r.span().start);
            return Err(src.fail(
                at,
                format!(
                    "a {result} condition needs `when`: the formula that makes a faction {result}"
                ),
            ));
        }
        meta.push((
            e.name.get_ref().clone(),
            result,
            e.description
                .as_ref()
                .map(|d| d.0.clone())
                .unwrap_or_default(),
        ));
    }
    let last = raw
        .scenario
        .last_round_reason
        .as_ref()
        .map_or("last_round".to_string(), |s| s.get_ref().clone());
    let last_round = match meta.iter().position(|r| r.0 == last) {
        Some(i) => i,
        None => {
            meta.push((last.clone(), "rank", "the last round was played".into()));
            meta.len() - 1
        }
    };
    let last_round = ReasonId::from_index(last_round);
    Ok(Declared { meta, last_round })
}

/// The names of the `[[end]]` tables, in file order.
pub(super) fn declared_names(raw: &RawScenario) -> Vec<String> {
    raw.ends
        .iter()
        .map(|e| e.get_ref().name.get_ref().clone())
        .collect()
}

/// Every reason the compiled rules can end a game with (the compiler's interned reasons),
/// with its result, the mechanism that uses it and its description.
pub(super) fn finish(declared: &Declared, comp: &Compiler, checks: &[Check]) -> Vec<Reason> {
    comp.reasons
        .iter()
        .zip(&comp.mechanisms)
        .enumerate()
        .map(|(i, (n, mech))| {
            let (result, description) = match declared.meta.iter().find(|r| &r.0 == n) {
                Some((_, res, d)) => (*res, d.clone()),
                None if n == ALL_LOST => (
                    "draw",
                    "every faction still in the game lost at once".into(),
                ),
                None if n == LAST_STANDING => ("rank", "every opponent left the game".into()),
                None if n == LAST_TEAM => ("rank", "every other team left the game".into()),
                None => ("rank", String::new()),
            };
            Reason {
                name: n.clone(),
                result: match result {
                    "draw" => ReasonResult::Draw,
                    "nobody" => ReasonResult::Nobody,
                    _ => ReasonResult::Rank,
                },
                mechanism: mechanism(i, mech, declared.last_round, checks),
                description,
            }
        })
        .collect()
}

/// Which mechanism uses reason `i`, first interned by `mech`: the last round, a condition
/// of `checks`, or `end NAME` statements.
fn mechanism(i: usize, mech: &str, last_round: ReasonId, checks: &[Check]) -> String {
    if i == last_round.index() {
        "last round".into()
    } else if let Some(c) = checks.iter().find(|c| c.reason.index() == i) {
        match c.kind {
            CheckKind::Win => "win condition".into(),
            CheckKind::Lose => "lose condition".into(),
            CheckKind::End => "condition".into(),
        }
    } else if mech == "condition" {
        // Declared in [[end]] without `when`: only `end NAME` statements use it.
        "end statement".into()
    } else {
        mech.to_string()
    }
}
