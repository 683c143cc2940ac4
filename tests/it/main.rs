//! vpsim's integration tests, all in one test binary: one module per area, each testing
//! through the library or through the `vpsim` binary, from the package root (the working
//! folder `cargo test` gives them).
//!
//! One binary rather than one per file links polars and Cranelift once instead of once per
//! area. Run one area by its module path, for example `cargo test --test it fuzz::` (add
//! `-- --nocapture` to see the fuzz table). The helpers the modules share are in [`util`].
//!
//! The tests share one process: a scratch path names its test (see [`util`]), and no test
//! may change the process's environment, working folder or signal handlers.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a test prints what it could not run and the fuzz table, for whoever reads its output"
)]

// The house: the architecture's invariants, and every documented example runs.
mod architecture;
mod readme;

// The engines: the interpreter's properties, machine code equal to it game for game, exact
// integers, bounded work.
mod engine;
mod integers;
mod limits;
mod native;
mod native_faults;
mod native_generated;
mod native_lowering;
mod reference;

// The scenario language: its constructs by round (`language` and `twice` rounds one to three,
// `round_four` the fourth), timing, mechanisms, located messages, worked examples, metrics.
mod examples;
mod language;
mod mechanisms;
mod messages;
mod metrics;
mod round_four;
mod timing;
mod twice;

// Statistics and readings: exact answers, readings that must not over-claim, the why summary,
// usage, seats, pairing, sensitivity and tune.
mod pairing;
mod readings;
mod seats;
mod sensitivity;
mod statistics;
mod tune;
mod usage;
mod why;

// Skilled play: lookahead and mcts against exact values, hidden information, exploit's
// verdicts.
mod exploit_verdicts;
mod peeking;
mod search;
mod skill;

// Commands and their report folders; `snapshots` holds whole rendered outputs (insta).
mod charts;
mod cli;
mod compare;
mod failures;
mod files;
mod out_folder;
mod reports;
mod snapshots;
mod staging;
mod watch;
mod workflows;

// Scale-out: shards, recovery and the scheduler recipes.
mod recipes;
mod recovery;
mod shards;

// Hardening: the fuzz harness and its attacks.
mod fuzz;
mod fuzz_attacks;

// Helpers every module shares.
mod util;
