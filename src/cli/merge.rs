//! `vpsim merge`: combine shard outputs into exactly the single run's result.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::Result;
use crate::report::{Summary, shards};

/// Merge the --out folders of `vpsim run --shard K/N` into the result of one run.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  for k in 1 2 3 4; do
    vpsim run scenarios/race_to_three.toml --games 1000000 --shard $k/4 --out shards/$k -q
  done
  vpsim merge shards/* --json > merged.json
  vpsim merge --list-missing shards/*   # the indices to run again, one per line")]
pub struct Args {
    /// Shard output folders (each holds a tally.json).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Print the results as one JSON object (the same as `vpsim run --json`).
    #[arg(long)]
    pub json: bool,
    /// Write the merged run's report folder into DIR (as `vpsim run --out` does: tables,
    /// charts, report.md, summary.json and tally.json). DIR must be empty or new, unless
    /// --force.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// With --out: also write every table as CSV in DIR/csv/.
    #[arg(long, requires = "out")]
    pub csv: bool,
    /// With --out: replace an earlier vpsim report in DIR, whole (files vpsim did not write
    /// are never removed: a folder holding any is refused).
    #[arg(long, requires = "out")]
    pub force: bool,
    /// Print the indices (K of K/N) of the shards missing from the folders, one per line, and
    /// merge nothing: for a retry script (`| paste -sd,` makes a Slurm `--array` list). A
    /// folder without a tally.json (its shard did not finish) counts as missing. Exit 0 with
    /// or without missing shards; 2 when the folders are not shards of one run.
    #[arg(long, conflicts_with_all = ["json", "out"])]
    pub list_missing: bool,
}

/// Runs `vpsim merge`.
pub fn run(a: Args) -> Result<()> {
    crate::report::ShardKey::from_env()?;
    let shards::Folders { files, unfinished } = shards::read_shards(&a.dirs)?;
    let cover = shards::coverage(&files)?;
    if a.list_missing {
        let lines: String = cover.missing().iter().map(|k| format!("{k}\n")).collect();
        return super::out(&lines);
    }
    shards::exactly_once(&cover, &files, &unfinished)?;
    let merged = shards::merge_counts(&files);
    let mut summary = Summary::of(
        &merged.info,
        0,
        &merged.tally,
        Duration::try_from_secs_f64(merged.elapsed_s).unwrap_or(Duration::ZERO),
        merged.threads,
    );
    summary.performance.shards = Some(files.len() as u64);
    if let Some(dir) = &a.out {
        super::prepare_out(dir, a.force)?;
        crate::output::begin_report(dir)?;
        super::write_outputs(
            dir,
            &summary,
            &merged,
            a.csv,
            crate::report::charts::DEFAULT_SIZE.into(),
        )?;
    }
    super::print_summary(&summary, a.json)
}
