//! `vpsim run`: play many games and report.

use std::path::PathBuf;
use std::time::Duration;

use super::RunOpts;
use crate::error::{Error, Result};
use crate::report::tables::GamesWriter;
use crate::report::{PrecisionReport, RunInfo, Summary};
use crate::report::{Shard, TallyFile};
use crate::runner::GameRow;
use crate::runner::{RunSpec, empty_tally, run as run_games, run_rows};
use crate::stats::{Rate, z_for};

/// Play many seeded games and report.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  vpsim run scenarios/race_to_three.toml --games 1000000 --seed 7 --json > run.json
  vpsim run scenarios/race_to_three.toml --out
  vpsim run scenarios/race_to_three.toml --set settings.p=0.35 --precision 0.005
  vpsim run scenarios/race_to_three.toml --set settings.q=0.3 --rotate-seats
  vpsim run scenarios/race_to_three.toml --games 1000000 --shard 2/4 --out shards/2")]
pub struct Args {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Run options.
    #[command(flatten)]
    pub opts: RunOpts,
    /// Play only the K-th of N disjoint parts of the games (by game index); merge the parts'
    /// --out folders with `vpsim merge`.
    #[arg(long, allow_negative_numbers = true, value_name = "K/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
    /// Also write games.parquet: one row per game (needs --out; above 10 million games it
    /// needs --force too), and csv/games.csv with --csv. Written in row groups as the run
    /// goes, so memory stays flat.
    #[arg(long)]
    pub games_table: bool,
    /// Keep playing until every win rate's 95% interval half-width is below this, up to
    /// --games games.
    #[arg(long, allow_negative_numbers = true, value_name = "HALF_WIDTH", value_parser = parse_precision)]
    pub precision: Option<f64>,
    /// Count each faction's decisions by action and the cards it ends the game holding or
    /// having completed, and report each one's share, uses per game and win rates in games
    /// with and without it (always on with --out).
    #[arg(long)]
    pub usage: bool,
}

fn parse_precision(s: &str) -> std::result::Result<f64, String> {
    let p: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if p > 0.0 && p < 0.5 {
        Ok(p)
    } else {
        Err(format!("{p} is not a half-width between 0 and 0.5"))
    }
}

/// The largest 95% half-width of the factions' win rates.
fn widest(t: &crate::stats::Tally) -> f64 {
    let z = z_for(crate::report::CONFIDENCE);
    t.factions
        .iter()
        .map(|f| Rate::wilson(f.wins, t.games, z))
        .map(|r| (r.high - r.low) / 2.0)
        .fold(0.0, f64::max)
}

/// What a batch of games produced.
pub struct Played {
    /// The counts.
    pub tally: crate::stats::Tally,
    /// Time spent playing.
    pub elapsed: Duration,
    /// Threads used.
    pub threads: usize,
    /// With a precision target: how it went.
    pub precision: Option<PrecisionReport>,
}

/// A sink for per-game rows and their metrics, in game order.
pub type Rows<'a> = crate::runner::RowSink<'a>;

/// Plays games `first..first + games` of `model` (or, with a precision target, as many of
/// them as it takes), with a progress bar unless --quiet.
pub fn play(
    model: &crate::Model,
    o: &RunOpts,
    first: u64,
    games: u64,
    target: Option<f64>,
) -> Result<Played> {
    play_rows(model, o, first, games, target, None)
}

/// [`play`], handing every game's outcome to `rows` in game order when given.
pub fn play_rows(
    model: &crate::Model,
    o: &RunOpts,
    first: u64,
    games: u64,
    target: Option<f64>,
    mut rows: Option<Rows>,
) -> Result<Played> {
    let threads = o.threads.map(|t| t as usize);
    let bar = super::progress_bar(games, o.quiet);
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    };
    let mut p = Played {
        tally: empty_tally(model),
        elapsed: Duration::ZERO,
        threads: 1,
        precision: None,
    };
    let batch_of = |spec: &RunSpec, rows: &mut Option<Rows>| -> Result<crate::runner::RunResult> {
        match rows.as_mut() {
            Some(r) => run_rows(model, spec, &tick, *r),
            None => run_games(model, spec, &tick),
        }
    };
    let outcome: Result<()> = (|| {
        match target {
            None => {
                let r = batch_of(
                    &RunSpec {
                        seed: o.seed,
                        first,
                        games,
                        threads,
                    },
                    &mut rows,
                )?;
                (p.tally, p.elapsed, p.threads) = (r.tally, r.elapsed, r.threads);
            }
            Some(target) => {
                // Batches over consecutive game indices: the stopping point depends only on
                // the counts, so it is as reproducible as the counts.
                let mut batch = games.min(10_000);
                loop {
                    let spec = RunSpec {
                        seed: o.seed,
                        first: first + p.tally.games,
                        games: batch,
                        threads,
                    };
                    let r = batch_of(&spec, &mut rows)?;
                    p.tally = std::mem::take(&mut p.tally).merge(r.tally);
                    p.elapsed += r.elapsed;
                    p.threads = r.threads;
                    let w = widest(&p.tally);
                    if w < target || p.tally.games >= games {
                        p.precision = Some(PrecisionReport {
                            target,
                            reached: w < target,
                            max_half_width: w,
                        });
                        break;
                    }
                    batch = (p.tally.games / 2).max(10_000).min(games - p.tally.games);
                }
            }
        }
        Ok(())
    })();
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    outcome.map(|_| p)
}

/// Runs `vpsim run`.
pub fn run(a: Args) -> Result<()> {
    let o = &a.opts;
    o.check()?;
    let model = super::load(
        &a.scenario,
        &o.set,
        super::Prep {
            uses: a.usage || o.out.is_some(),
            split: o.json || o.out.is_some(),
            rounds: o.json || o.out.is_some(),
            ..o.prep()
        },
    )?;
    super::warn(&model);
    if a.shard.is_some() && a.precision.is_some() {
        return Err(Error::Usage(
            "--shard and --precision do not go together: a shard plays a fixed part of --games"
                .into(),
        ));
    }
    let (first, games) = match a.shard {
        Some(s) => s.range(o.games),
        None => (0, o.games),
    };
    let out = o.out_dir(&model.name);
    if let Some(d) = &out {
        super::prepare_out(d, o.force)?;
    }
    check_games_table(&a, out.is_some(), games)?;
    let info = RunInfo::of(&model, o.seed);
    // The report is staged from the start: the games table streams into it as the games
    // play, and nothing of it is in place until the whole report is.
    if let Some(d) = &out {
        crate::output::begin_report(d)?;
    }
    let writer = match (&out, a.games_table) {
        (Some(d), true) => Some(GamesWriter::create(d, &info, games, o.csv)?),
        _ => None,
    };
    let p = play_into(&model, &a, (first, games), writer)?;
    let mut summary = Summary::of(&info, first, &p.tally, p.elapsed, p.threads);
    summary.precision = p.precision;
    if let Some(pr) = &summary.precision
        && !o.json
    {
        say_precision(pr, summary.games);
    }
    if let Some(dir) = &out {
        let file = TallyFile {
            vpsim_version: env!("CARGO_PKG_VERSION").into(),
            info,
            shard: a.shard,
            total_games: o.games,
            first_game: first,
            elapsed_s: p.elapsed.as_secs_f64(),
            threads: p.threads,
            tally: p.tally,
            command: crate::report::arguments(),
        };
        super::write_outputs(dir, &summary, &file, o.csv, o.canvas())?;
    }
    super::print_summary(&summary, o.json)
}

/// Refuses `--games-table` without a report folder, or with more than 10 million rows
/// unless `--force`.
fn check_games_table(a: &Args, out: bool, games: u64) -> Result<()> {
    if a.games_table && !out {
        return Err(Error::Usage(
            "--games-table writes into the report folder: add --out [DIR]".into(),
        ));
    }
    if a.games_table && games > 10_000_000 && !a.opts.force {
        return Err(Error::Usage(format!(
            "--games-table with {games} games writes {games} rows: add --force to confirm"
        )));
    }
    Ok(())
}

/// Plays games `first..first + games` (or to `--precision`), streaming every game's row into
/// `writer` when there is one: finished when the games are, abandoned (no file left) when
/// they fail or are interrupted.
fn play_into(
    model: &crate::Model,
    a: &Args,
    (first, games): (u64, u64),
    mut writer: Option<GamesWriter>,
) -> Result<Played> {
    let played = {
        let mut sink = |rows: &[GameRow], metrics: &[i64]| -> Result<()> {
            match writer.as_mut() {
                Some(w) => w.write(rows, metrics),
                None => Ok(()),
            }
        };
        let rows: Option<Rows> = if a.games_table { Some(&mut sink) } else { None };
        play_rows(model, &a.opts, first, games, a.precision, rows)
    };
    match played {
        Ok(p) => {
            if let Some(w) = writer {
                w.finish()?;
            }
            Ok(p)
        }
        Err(e) => {
            if let Some(w) = writer {
                w.abandon();
            }
            if matches!(e, Error::Interrupted) {
                crate::diagnostic::say(
                    "interrupted before the run finished: no output file was written",
                );
            }
            Err(e)
        }
    }
}

/// Says whether `--precision` was reached, after how many `games`.
fn say_precision(pr: &PrecisionReport, games: u64) {
    let verdict = match pr.reached {
        true => "reached",
        false => "NOT reached (stopped at --games)",
    };
    crate::diagnostic::say(&format!(
        "precision {}: {verdict} after {} games (widest half-width {:.4})",
        pr.target,
        crate::report::thousands(games),
        pr.max_half_width
    ));
}
