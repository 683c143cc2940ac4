//! Parallel, seeded runs: games in fixed-size chunks on rayon, tallies merged exactly.
//!
//! Owns how many games run where. Game `i` always draws from the stream (seed, i), chunks
//! are fixed ranges of game indices, and tallies are integer-only, so the merged result is
//! the same bit for bit for any thread count. Each worker reuses one [`Game`], so memory does
//! not grow with the number of games.

use std::time::{Duration, Instant};

use rayon::prelude::*;

use crate::engine::Game;
use crate::error::{Error, Result};
use crate::expr::Fault;
use crate::model::Model;
use crate::stats::Tally;

/// Games per chunk: large enough to amortise scheduling, small enough to balance two cores
/// and update a progress bar often.
pub const CHUNK: u64 = 2048;

/// What to run.
#[derive(Debug, Clone, Copy)]
pub struct RunSpec {
    /// Master seed.
    pub seed: u64,
    /// Index of the first game.
    pub first: u64,
    /// Number of games.
    pub games: u64,
    /// Worker threads (None: all cores).
    pub threads: Option<usize>,
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The merged tally.
    pub tally: Tally,
    /// Wall-clock time of the games.
    pub elapsed: Duration,
    /// Threads used.
    pub threads: usize,
}

/// An empty tally shaped for `m`.
pub fn empty_tally(m: &Model) -> Tally {
    Tally::new(
        m.nfactions(),
        m.reasons.len(),
        m.ranking.tiebreak.len(),
        m.sources.len(),
    )
}

/// Plays `spec.games` games of `m`; `progress` is called with the number of games finished
/// after each chunk (from any thread).
pub fn run(m: &Model, spec: &RunSpec, progress: &(dyn Fn(u64) + Sync)) -> Result<RunResult> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = spec.threads {
        builder = builder.num_threads(t);
    }
    let pool = builder
        .build()
        .map_err(|e| Error::Usage(format!("--threads: cannot start the thread pool: {e}")))?;
    let threads = pool.current_num_threads();
    let start = Instant::now();
    let chunks = spec.games.div_ceil(CHUNK);
    let merged = pool.install(|| {
        (0..chunks)
            .into_par_iter()
            .map_init(
                || Game::new(m),
                |game, c| {
                    let lo = spec.first + c * CHUNK;
                    let hi = (lo + CHUNK).min(spec.first + spec.games);
                    let mut t = empty_tally(m);
                    for i in lo..hi {
                        match game.play(spec.seed, i) {
                            Ok(o) => t.add(&o, game.points()),
                            Err(f) => return Err((i, f)),
                        }
                    }
                    progress(hi - lo);
                    Ok(t)
                },
            )
            .reduce(
                || Ok(empty_tally(m)),
                |a, b| match (a, b) {
                    (Ok(a), Ok(b)) => Ok(a.merge(b)),
                    // Report the fault of the lowest game index, whichever thread met it first.
                    (Err(a), Err(b)) => Err(if a.0 <= b.0 { a } else { b }),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                },
            )
    });
    let elapsed = start.elapsed();
    match merged {
        Ok(tally) => Ok(RunResult {
            tally,
            elapsed,
            threads,
        }),
        Err((game, f)) => Err(fault_error(m, spec.seed, game, f)),
    }
}

/// Turns a game's fault into an error that names the formula and how to reproduce it.
pub fn fault_error(m: &Model, seed: u64, game: u64, f: Fault) -> Error {
    let loc = m
        .locs
        .get(f.loc as usize)
        .cloned()
        .unwrap_or(crate::error::Location {
            file: m.file.clone(),
            line: 0,
            col: 0,
        });
    let vars: Vec<String> = m.vars.iter().map(|v| v.name.clone()).collect();
    Error::Fault {
        loc,
        file: m.file.clone(),
        seed,
        game,
        msg: f.kind.describe(&vars),
    }
}
