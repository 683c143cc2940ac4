#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
// An item is `pub` only where the crate's users (its binary, tests and benches) can reach
// it. The lints that hold the other invariants (nothing printed raw, every `allow` with its
// reason, every block of unchecked code with its SAFETY comment) are in Cargo.toml's `[lints]`.
#![warn(unreachable_pub)]

pub mod check;
pub mod cli;
pub mod compare;
pub mod diagnostic;
pub mod engine;
pub mod error;
pub mod exploit;
pub mod expr;
pub mod ids;
pub mod ir;
pub mod ladder;
pub mod model;
pub mod native;
pub mod output;
pub mod overrides;
pub mod report;
pub mod rng;
pub mod runner;
pub mod runtime;
pub mod scenario;
pub mod signal;
pub mod state;
pub mod stats;
pub mod sweep;
pub mod tune;
pub mod watch;

pub use error::{Error, Result};
pub use model::Model;
