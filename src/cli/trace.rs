//! `vpsim trace`: one game, step by step.

use std::path::PathBuf;

use crate::engine::{Game, TextTrace};
use crate::error::Result;

/// Tell one game step by step.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  vpsim trace scenarios/race_to_three.toml --seed 1 --game 42")]
pub struct Args {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Override a scenario value, e.g. --set settings.goal=14 (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = crate::overrides::parse_override)]
    pub set: Vec<crate::overrides::Override>,
    /// Choose the agents: `--agent POLICY` for every faction, `--agent FACTION=POLICY` for
    /// one (repeatable, applied before --set); POLICY is weighted, greedy, priority,
    /// lookahead, lookahead:N, mcts or mcts:N.
    #[arg(long = "agent", value_name = "[FACTION=]POLICY", value_parser = crate::overrides::parse_agent)]
    pub agent: Vec<crate::overrides::Override>,
    /// Master seed (as given to `run`).
    #[arg(long, allow_negative_numbers = true, short = 's', default_value_t = 1, value_parser = |s: &str| super::whole(s, 0, u64::MAX))]
    pub seed: u64,
    /// Game index (0-based, as in `run`).
    #[arg(long, allow_negative_numbers = true, short = 'g', default_value_t = 0, value_parser = |s: &str| super::whole(s, 0, u64::MAX))]
    pub game: u64,
    /// The engine: `native` compiles the scenario's formulas to machine code when it is
    /// loaded (the default); `interp` runs the reference interpreter. Results are identical.
    #[arg(long, value_enum, default_value_t = crate::native::Engine::Native)]
    pub engine: crate::native::Engine,
    /// Seat the factions as game `--game` of a run with --rotate-seats does.
    #[arg(long)]
    pub rotate_seats: bool,
}

/// Runs `vpsim trace`.
pub fn run(a: Args) -> Result<()> {
    let model = super::load(
        &a.scenario,
        &a.set,
        super::Prep {
            rotate: a.rotate_seats,
            ..super::Prep::plain(a.engine)
        },
    )?;
    let mut game = Game::with_tracer(&model, TextTrace::default());
    let played = game.play(a.seed, a.game);
    // Print the story so far even when the game faulted: it shows what led there.
    super::out(&game.tracer.text)?;
    played
        .map(|_| ())
        .map_err(|f| crate::runner::fault_error(&model, a.seed, a.game, f))
}
