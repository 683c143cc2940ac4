//! The clock: `[scenario] rounds`, `max_steps` and `ages`.
//!
//! Owns the bounds on the number of rounds and on agent decisions per game, and which age
//! (and which round of its age) each round belongs to.

use super::{Cx, DEFAULT_MAX_STEPS, Source};
use crate::error::Result;
use crate::expr::Num;
use crate::expr::compile::Compiler;
use crate::scenario::raw::RawScenario;

/// How long a game lasts and how its rounds group into ages.
pub(super) struct Clock {
    /// The last round, as the file gives it.
    pub(super) rounds: i64,
    /// Agent decisions one game may make.
    pub(super) max_steps: u64,
    /// The age (1-based) of each round, indexed by round (index 0 unused).
    pub(super) age_of_round: Vec<i64>,
    /// The round within its age (1-based) of each round, indexed by round (index 0 is 0).
    pub(super) age_round: Vec<i64>,
}

/// The last round and the rounds of each age, as numbers: each a whole number or a constant
/// formula of settings and `nfactions` (the factions playing), evaluated with `comp`, whose
/// settings and factions are declared.
pub(super) fn numbers(raw: &RawScenario, cx: &mut Cx, comp: &Compiler) -> Result<(i64, Vec<i64>)> {
    let whole = |cx: &mut Cx, f: &crate::scenario::raw::Formula, what: &str| -> Result<i64> {
        match cx.constant_num(comp, f, what)? {
            Num::Int(n) => Ok(n),
            Num::Real(r) => Err(cx.src.fail(
                f.span().start,
                format!("{what} is {r}: it must be a whole number"),
            )),
        }
    };
    let rounds = whole(cx, &raw.scenario.rounds, "rounds")?;
    let mut ages = Vec::new();
    if let Some(list) = &raw.scenario.ages {
        for a in list.get_ref() {
            let f = toml::Spanned::new(list.span(), a.clone());
            ages.push(whole(cx, &f, "each age's rounds")?);
        }
    }
    Ok((rounds, ages))
}

/// Clock: checks the rounds, the step limit and the ages, and numbers each round's age.
pub(super) fn compile(raw: &RawScenario, src: &Source, rounds: i64, ages: &[i64]) -> Result<Clock> {
    if !(1..=100_000).contains(&rounds) {
        return Err(src.fail(
            raw.scenario.rounds.span().start,
            format!("rounds must be between 1 and 100000, got {rounds}"),
        ));
    }
    let max_steps = match &raw.scenario.max_steps {
        None => DEFAULT_MAX_STEPS,
        Some(m) if *m.get_ref() >= 1 => *m.get_ref() as u64,
        Some(m) => {
            return Err(src.fail(
                m.span().start,
                format!("max_steps must be at least 1, got {}", m.get_ref()),
            ));
        }
    };
    let age_of_round = age_numbers(raw, src, rounds, ages)?;
    let age_round = rounds_within_ages(&age_of_round);
    Ok(Clock {
        rounds,
        max_steps,
        age_of_round,
        age_round,
    })
}

/// The age of each round (index 0 unused): all 1 without `ages`, else `ages` lists rounds
/// per age, which must add up to `rounds`.
fn age_numbers(raw: &RawScenario, src: &Source, rounds: i64, list: &[i64]) -> Result<Vec<i64>> {
    let mut age_of_round = vec![1i64; rounds as usize + 1];
    if let Some(ages) = &raw.scenario.ages {
        let total: i64 = list.iter().fold(0i64, |a, &b| a.saturating_add(b));
        if list.iter().any(|&a| a < 1) || total != rounds {
            return Err(src.fail(
                ages.span().start,
                format!("ages list rounds per age; each must be at least 1 and they must add up to rounds = {rounds} (they add up to {total})"),
            ));
        }
        let mut r = 1;
        for (a, &n) in list.iter().enumerate() {
            for _ in 0..n {
                age_of_round[r] = a as i64 + 1;
                r += 1;
            }
        }
    }
    Ok(age_of_round)
}

/// The round within its age (1-based) of each round, from each round's age.
fn rounds_within_ages(age_of_round: &[i64]) -> Vec<i64> {
    let mut age_round = vec![0i64; age_of_round.len()];
    for r in 1..age_of_round.len() {
        age_round[r] = if r > 1 && age_of_round[r] == age_of_round[r - 1] {
            age_round[r - 1] + 1
        } else {
            1
        };
    }
    age_round
}
