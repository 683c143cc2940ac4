#![doc = include_str!("../README.md")]
#![warn(missing_docs)]
// Nothing reaches the terminal raw: text goes through `output` (stdout) and `diagnostic`
// (stderr), which write through locked handles; every `allow` says why.
#![warn(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::allow_attributes_without_reason
)]

pub mod check;
pub mod cli;
pub mod compare;
pub mod diagnostic;
pub mod engine;
pub mod error;
pub mod exploit;
pub mod expr;
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
