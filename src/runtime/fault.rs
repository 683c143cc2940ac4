//! Run-time faults: what a game may run into that the scenario asked for and that has no
//! meaning (a probability of 1.7, a division by zero).
//!
//! Owns [`Fault`] and [`FaultKind`] and their wording; both backends record them in the
//! environment ([`super::Env`]) and the runner reports them.

use crate::ir::{BinOp, Num};

/// A run-time fault: something the scenario asked for that has no meaning (a probability of
/// 1.7, a division by zero). The game stops and the run reports where. Plain data (no
/// strings) so that results on the hot path stay small; [`FaultKind::describe`] words it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fault {
    /// Index of the source location in the model.
    pub loc: u32,
    /// What happened.
    pub kind: FaultKind,
}

/// What went wrong at run time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FaultKind {
    /// A probability outside 0..1.
    Probability(f64),
    /// A division (or `//`, `%`) by zero of this value.
    DivisionByZero(Num),
    /// An integer operation whose result does not fit in 64 bits: `a op b`.
    Overflow(BinOp, i64, i64),
    /// A real made an integer (`floor`, `ceil`, `round`) that is not finite or is outside
    /// the 64-bit integer range.
    OutOfRange(f64),
    /// `uniform(a, b)` with `a > b`.
    EmptyRange(i64, i64),
    /// `binomial(n, p)` with a negative `n`.
    NegativeCount(f64),
    /// `poisson(l)` with a negative or non-finite rate.
    PoissonRate(f64),
    /// `normal(mean, sd)` with a negative or non-finite deviation.
    NormalParameters(f64, f64),
    /// `roll(n, sides)` with `n < 0` or `sides < 1`.
    BadDice(i64, i64),
    /// `weighted(...)` with a negative weight or all weights zero.
    BadWeights,
    /// A game that made more agent decisions than the scenario's `max_steps`.
    StepBudget(u64),
    /// Ctrl-C or SIGTERM arrived while the game was being played (checked every round): the
    /// game is abandoned and the command stops as interrupted, not as a fault.
    Interrupted,
    /// A value that is not a finite number assigned to a variable (by id).
    NotStorable(f64, u16),
    /// A score that is not a finite number.
    BadScore(f64),
    /// A computed subscript outside its set: the position and the set's size.
    Subscript(i64, u16),
}

impl FaultKind {
    /// The fault in words; variable names come from `vars`.
    pub fn describe(&self, vars: &[String]) -> String {
        match *self {
            FaultKind::Probability(p) => format!("probability {p} is outside 0..1"),
            FaultKind::DivisionByZero(a) => format!("division by zero ({a} divided by 0)"),
            FaultKind::Overflow(op, a, b) => format!(
                "integer overflow: {a} {} {b} is outside the 64-bit range (-2^63 to 2^63 - 1)",
                op.symbol()
            ),
            FaultKind::OutOfRange(x) => {
                format!("the real {x} has no 64-bit integer value")
            }
            FaultKind::EmptyRange(a, b) => {
                format!("uniform({a}, {b}): the low end is above the high end")
            }
            FaultKind::NegativeCount(n) => format!("binomial: negative count {n}"),
            FaultKind::PoissonRate(l) => {
                format!("poisson({l}): the rate must be a finite number of 0 or more")
            }
            FaultKind::NormalParameters(m, sd) => {
                format!("normal({m}, {sd}): the deviation must be a finite number of 0 or more")
            }
            FaultKind::BadDice(n, s) => {
                format!(
                    "roll({n}, {s}): need 0 to {} dice with at least 1 side",
                    crate::state::MAX_DICE
                )
            }
            FaultKind::BadWeights => {
                "weighted(...): weights must be non-negative and not all zero".into()
            }
            FaultKind::NotStorable(x, v) => {
                format!(
                    "the real {x} cannot be stored in `{}`: a variable holds a 64-bit integer",
                    vars.get(v as usize).map_or("?", |s| s.as_str())
                )
            }
            FaultKind::BadScore(x) => format!("score {x} is not a number"),
            FaultKind::Subscript(i, n) => format!(
                "subscript {i} is outside the set: positions run from 1 to {n} (guard the read \
                 with `if(...)`, which reads only the branch it takes, or the write with `if`)"
            ),
            FaultKind::Interrupted => "interrupted".into(),
            FaultKind::StepBudget(n) => format!(
                "the game made more than {n} agent decisions and was stopped; if the rules \
                 really need more, raise `max_steps` in [scenario]"
            ),
        }
    }
}
