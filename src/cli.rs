//! Command-line interface: argument types (clap derive) and one module per subcommand.
//!
//! Owns the flags, their help text and their validation; each subcommand turns its
//! arguments into library calls and prints the result. Nothing here knows a game.

pub mod run;
pub mod test;
pub mod trace;
pub mod validate;

use clap::{Parser, Subcommand};

use crate::error::Result;

/// Monte Carlo balance simulator for board-game scoring rules.
///
/// Write a game's scoring and victory rules as a scenario file (TOML), then play millions of
/// seeded games with randomized agents and read who wins how often, with 95% intervals.
#[derive(Debug, Parser)]
#[command(name = "vpsim", version, about, long_about = None)]
#[command(
    after_help = "Examples:\n  vpsim run scenarios/race_to_three.toml --games 100000 --seed 1\n  vpsim validate scenarios/race_to_three.toml\n  vpsim trace scenarios/race_to_three.toml --seed 1 --game 7\n\nExit codes: 0 success, 1 failure, 2 bad input or usage."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play many seeded games and report win rates, ranks, scores, lengths and end reasons.
    Run(run::Args),
    /// Check a scenario file and print a summary of the compiled model.
    Validate(validate::Args),
    /// Tell one game step by step (identical to game I of `run` with the same seed).
    Trace(trace::Args),
    /// Run the worked examples of scenario files.
    Test(test::Args),
}

/// Runs the parsed command line.
pub fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(a) => run::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Trace(a) => trace::run(a),
        Command::Test(a) => test::run(a),
    }
}

/// Writes to stdout; a closed pipe (`vpsim ... | head`) ends quietly.
pub fn out(text: &str) -> Result<()> {
    use std::io::Write;
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(source) => Err(crate::Error::Write {
            what: "standard output".into(),
            source,
        }),
        Ok(()) => Ok(()),
    }
}
