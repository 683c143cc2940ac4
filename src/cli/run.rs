//! `vpsim run`: play many games and report.

use std::io::IsTerminal;
use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};

use crate::error::{Error, Result};
use crate::report::Summary;
use crate::runner::{RunSpec, run as run_games};

/// Play many seeded games and report.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  vpsim run scenarios/race_to_three.toml --games 1000000 --seed 7 --json > ti4.json"
)]
pub struct Args {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Number of games to play.
    #[arg(long, short = 'n', default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub games: u64,
    /// Master seed: the same seed gives the same results on any machine and thread count.
    #[arg(long, short = 's', default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: one per core).
    #[arg(long, short = 't', value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Print the results as one JSON object on stdout (schema in the README).
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Runs `vpsim run`.
pub fn run(a: Args) -> Result<()> {
    let model = crate::scenario::load(&a.scenario)?;
    let spec = RunSpec {
        seed: a.seed,
        first: 0,
        games: a.games,
        threads: a.threads.map(|t| t as usize),
    };
    let bar = progress_bar(a.games, a.quiet);
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    };
    let result = run_games(&model, &spec, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let result = result?;
    let summary = Summary::new(&model, &spec, &result);
    if a.json {
        let mut text = serde_json::to_string_pretty(&summary)
            .map_err(|e| Error::Usage(format!("cannot encode JSON: {e}")))?;
        text.push('\n');
        super::out(&text)
    } else {
        super::out(&summary.table())
    }
}

/// A progress bar on stderr, only when both stdout and stderr are terminals and not --quiet.
fn progress_bar(total: u64, quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() || !std::io::stdout().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(total);
    let style = ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  eta {eta}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    Some(bar)
}
