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

mod architecture;
mod charts;
mod cli;
mod engine;
mod examples;
mod exploit_verdicts;
mod files;
mod fuzz;
mod fuzz_attacks;
mod integers;
mod language;
mod limits;
mod mechanisms;
mod messages;
mod metrics;
mod native;
mod native_faults;
mod native_generated;
mod native_lowering;
mod out_folder;
mod pairing;
mod peeking;
mod readings;
mod readme;
mod recipes;
mod recovery;
mod reference;
mod reports;
mod round_four;
mod search;
mod seats;
mod sensitivity;
mod shards;
mod skill;
mod staging;
mod statistics;
mod timing;
mod tune;
mod twice;
mod usage;
mod util;
mod watch;
mod why;
mod workflows;
