//! What a game is at run time, shared by both backends (the interpreter in
//! [`crate::engine`] and the machine code of [`crate::native`]).
//!
//! Owns the evaluation environment ([`Env`]: state, random stream, bindings, the buffers
//! machine code shares, and settling `win`/`lose` marks), run-time faults, a game's
//! [`Outcome`], the machine-code ABI ([`abi`]: function-pointer types, return codes and the
//! handles that keep compiled code alive), and the mechanisms both backends call so that a
//! rule has one definition: drawing cards ([`hands`]), sorting factions ([`order`]), who holds a title ([`titles`]) and the
//! agents' choice ([`choice`], and [`search`] and [`search_tree`] for the decisions a searching agent
//! makes). It knows nothing of how a scenario is written or compiled:
//! it imports only the base layer (`state`, `rng`, `ir`).

pub mod abi;
pub mod choice;
mod env;
mod fault;
pub mod hands;
pub mod order;
mod outcome;
pub mod regions;
pub mod search;
pub mod search_tree;
pub mod seats;
mod settle;
pub mod titles;

pub(crate) use env::{Completers, Marks, Rules};
pub use env::{Ctx, Env, MAX_IMMEDIATE, PENDING_WORDS, Pending, slot};
pub use fault::{Fault, FaultKind};
pub use outcome::{Decider, LEADER_ROUNDS, NO_LEADER, Outcome, Result};
