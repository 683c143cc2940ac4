//! Command-line interface: argument types (clap derive) and one module per subcommand.
//!
//! Owns the flags, their help text and their validation; each subcommand turns its
//! arguments into library calls and prints the result. Nothing here knows a game.

pub mod check;
pub mod compare;
pub mod merge;
pub mod run;
pub mod sweep;
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
    /// Merge the outputs of `run --shard K/N --out DIR` into the single run's result.
    Merge(merge::Args),
    /// Evaluate balance assertions on a run; exit 1 when one fails (for CI).
    Check(check::Args),
    /// Compare two variants on the same seeds: which differences are beyond noise.
    Compare(compare::Args),
    /// Run at each value of one or two parameters: win rates against the parameter.
    Sweep(sweep::SweepArgs),
    /// Move each parameter one step down and up: the effect on every win rate.
    Sensitivity(sweep::SensitivityArgs),
}

/// Runs the parsed command line.
pub fn dispatch(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Run(a) => run::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Trace(a) => trace::run(a),
        Command::Test(a) => test::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Check(a) => check::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Sweep(a) => sweep::sweep(a),
        Command::Sensitivity(a) => sweep::sensitivity(a),
    }
}

/// Options every command that plays games takes.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOpts {
    /// Number of games to play (with --precision: at most this many).
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
    /// Override a scenario value, e.g. --set settings.goal=14 (repeatable; see the README).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = crate::overrides::parse_override)]
    pub set: Vec<crate::overrides::Override>,
    /// Write summary.json and tally.json (the input of `vpsim merge`) into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
}

impl RunOpts {
    /// The overrides as written.
    pub fn overrides(&self) -> Vec<String> {
        self.set.iter().map(|o| o.to_string()).collect()
    }
}

/// A progress bar on stderr, only when both stdout and stderr are terminals and not --quiet.
pub fn progress_bar(total: u64, quiet: bool) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if quiet || !std::io::stderr().is_terminal() || !std::io::stdout().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    let style =
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games  {per_sec}  eta {eta}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    Some(bar)
}

/// Prints a summary as JSON or as the table.
pub fn print_summary(summary: &crate::report::Summary, json: bool) -> Result<()> {
    if json {
        let mut text = serde_json::to_string_pretty(summary)
            .map_err(|e| crate::Error::Usage(format!("cannot encode JSON: {e}")))?;
        text.push('\n');
        out(&text)
    } else {
        out(&summary.table())
    }
}

/// Writes `summary.json` and `tally.json` into `dir`, each atomically.
pub fn write_outputs(
    dir: &std::path::Path,
    summary: &crate::report::Summary,
    tally: &crate::output::TallyFile,
) -> Result<()> {
    let enc = |v: serde_json::Result<String>| {
        v.map_err(|e| crate::Error::Usage(format!("cannot encode JSON: {e}")))
    };
    crate::output::write_atomic(
        &dir.join("tally.json"),
        enc(serde_json::to_string(tally))?.as_bytes(),
    )?;
    crate::output::write_atomic(
        &dir.join("summary.json"),
        enc(serde_json::to_string_pretty(summary))?.as_bytes(),
    )?;
    Ok(())
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
