//! `vpsim merge`: combine shard outputs into exactly the single run's result.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::output::{TallyFile, read_tally};
use crate::report::Summary;

/// Merge the --out folders of `vpsim run --shard K/N` into the result of one run.
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:
  for k in 1 2 3 4; do vpsim run s.toml --games 1000000 --shard $k/4 --out shards/$k --quiet; done
  vpsim merge shards/* --json > merged.json")]
pub struct Args {
    /// Shard output folders (each holds a tally.json).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// Print the results as one JSON object (the same as `vpsim run --json`).
    #[arg(long)]
    pub json: bool,
    /// Write the merged summary.json and tally.json into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Checks that the shards belong together and cover the run exactly once.
pub fn merge(files: &[(PathBuf, TallyFile)]) -> Result<TallyFile> {
    let (p0, f0) = &files[0];
    let mut seen: Vec<Vec<String>> = Vec::new();
    let count = match f0.shard {
        Some(s) => s.count,
        None => {
            return Err(Error::Usage(format!(
                "{}: this output is not a shard (run with --shard K/N)",
                p0.display()
            )));
        }
    };
    seen.resize(count as usize, Vec::new());
    for (p, f) in files {
        let differs = |what: &str| {
            Error::Usage(format!(
                "{} and {} come from different runs: {what} differ",
                p0.display(),
                p.display()
            ))
        };
        if f.info.scenario.hash != f0.info.scenario.hash {
            return Err(differs("the scenarios"));
        }
        if f.info.seed != f0.info.seed {
            return Err(differs("the seeds"));
        }
        if f.info.overrides != f0.info.overrides {
            return Err(differs("the --set overrides"));
        }
        if f.total_games != f0.total_games {
            return Err(differs("the --games totals"));
        }
        match f.shard {
            Some(s) if s.count == count => seen[s.index as usize - 1].push(p.display().to_string()),
            Some(s) => {
                return Err(differs(&format!(
                    "the shard counts ({} and {})",
                    count, s.count
                )));
            }
            None => {
                return Err(Error::Usage(format!(
                    "{}: this output is not a shard",
                    p.display()
                )));
            }
        }
    }
    let missing: Vec<String> = (0..count as usize)
        .filter(|&i| seen[i].is_empty())
        .map(|i| format!("{}/{count}", i + 1))
        .collect();
    let duplicated: Vec<String> = (0..count as usize)
        .filter(|&i| seen[i].len() > 1)
        .map(|i| format!("{}/{count} ({})", i + 1, seen[i].join(", ")))
        .collect();
    if !missing.is_empty() || !duplicated.is_empty() {
        let mut msg = String::from("the shards do not cover the run exactly once:");
        if !missing.is_empty() {
            msg.push_str(&format!(" missing {}", missing.join(", ")));
        }
        if !duplicated.is_empty() {
            msg.push_str(&format!(" duplicated {}", duplicated.join("; ")));
        }
        return Err(Error::Usage(msg));
    }
    let mut merged = f0.clone();
    merged.tally = files
        .iter()
        .fold(crate::stats::Tally::default(), |acc, (_, f)| {
            acc.merge(f.tally.clone())
        });
    merged.shard = None;
    merged.first_game = 0;
    merged.elapsed_s = files.iter().map(|(_, f)| f.elapsed_s).sum();
    merged.threads = files.iter().map(|(_, f)| f.threads).max().unwrap_or(1);
    Ok(merged)
}

/// Runs `vpsim merge`.
pub fn run(a: Args) -> Result<()> {
    let files = a
        .dirs
        .iter()
        .map(|d| Ok((d.clone(), read_tally(d)?)))
        .collect::<Result<Vec<_>>>()?;
    let merged = merge(&files)?;
    let summary = Summary::of(
        &merged.info,
        0,
        &merged.tally,
        Duration::from_secs_f64(merged.elapsed_s),
        merged.threads,
    );
    if let Some(dir) = &a.out {
        super::prepare_out(dir, false)?;
        super::write_outputs(dir, &summary, &merged)?;
    }
    super::print_summary(&summary, a.json)
}
