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
use crate::model::Model;
use crate::runtime::Fault;
use crate::stats::Tally;

/// One game's row of the `games` table: its index and outcome, as the runner streams them.
#[derive(Debug, Clone)]
pub struct GameRow {
    /// Game index.
    pub game: u64,
    /// The outcome.
    pub outcome: crate::runtime::Outcome,
}

/// Games per chunk: large enough to amortise scheduling, small enough to balance two cores
/// and update a progress bar often.
pub const CHUNK: u64 = 2048;

/// Games per chunk for model `m`: [`CHUNK`], or 4 when a faction decides by lookahead (a
/// game then costs thousands of playouts, and a chunk must still balance two cores and
/// answer Ctrl-C promptly). How games are chunked never changes a result.
pub fn chunk_games(m: &Model) -> u64 {
    if m.agents.iter().any(|a| a.look.is_some()) {
        4
    } else {
        CHUNK
    }
}

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
    let mut t = Tally::new(
        m.nfactions(),
        m.reasons.len(),
        m.ranking.tiebreak.len(),
        m.sources.len(),
    );
    if m.count_uses {
        t.usage = Some(crate::stats::usage::Usage::new(
            m.nfactions(),
            m.actions.len(),
            m.cards.len(),
        ));
    }
    t.split = m.split_feedback;
    if m.tables.rotate_seats {
        t.seats = Some(crate::stats::seats::SeatTally::new(m.nfactions()));
    }
    if !m.metrics.is_empty() {
        let owners = |mt: &crate::model::Metric| if mt.faction { m.nfactions() } else { 1 };
        let end: Vec<(usize, bool)> = (m.metrics.iter().filter(|mt| !mt.per_round))
            .map(|mt| (owners(mt), mt.faction))
            .collect();
        let rounds = (m.metrics.iter().filter(|mt| mt.per_round))
            .map(owners)
            .collect();
        t.metrics = Some(crate::stats::metrics::MetricTally::new(&end, rounds));
    }
    t
}

/// Why a chunk stopped early.
enum Stop {
    Fault(u64, Fault),
    Interrupted,
}

pub(crate) fn pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        builder = builder.num_threads(t);
    }
    builder
        .build()
        .map_err(|e| Error::Usage(format!("--threads: cannot start the thread pool: {e}")))
}

/// Plays chunk `c` of `spec` into a tally, handing each outcome to `row` too.
fn chunk(
    m: &Model,
    spec: &RunSpec,
    game: &mut Game,
    c: u64,
    mut row: impl FnMut(u64, &crate::runtime::Outcome, &[i64]),
) -> std::result::Result<Tally, Stop> {
    if crate::signal::stopped() {
        return Err(Stop::Interrupted);
    }
    let size = chunk_games(m);
    let lo = spec.first + c * size;
    let hi = (lo + size).min(spec.first + spec.games);
    let mut t = empty_tally(m);
    let mut rounds = recorder(m, &t);
    // Scratch space for the usage counts.
    let mut seen = Vec::new();
    for i in lo..hi {
        match game.play(spec.seed, i) {
            Ok(o) => {
                t.add_game(&o, game.points(), game.leaders());
                rounds.add(&mut t, game.round_scores());
                if let Some(u) = &mut t.usage {
                    u.add(
                        &o,
                        game.uses(),
                        (&game.state().owner, &m.card_of),
                        &mut seen,
                    );
                }
                if let Some(s) = &mut t.seats {
                    s.add(&o, game.seating());
                }
                if let Some(mt) = &mut t.metrics {
                    mt.add(&o, game.metric_end(), game.metric_rounds());
                }
                row(i, &o, game.metric_end());
            }
            Err(f) => return Err(Stop::Fault(i, f)),
        }
    }
    rounds.finish(&mut t);
    Ok(t)
}

/// How a chunk of `m`'s games counts their rounds into `t`: through flat tables while the
/// ranking's score keeps to its variable's bounds and the chunk has games enough to pay for
/// folding them (not a searching run's chunks of 4), else straight into `t`.
pub fn recorder(m: &Model, t: &Tally) -> crate::stats::rounds::Recorder {
    if m.record_rounds && chunk_games(m) == CHUNK {
        crate::stats::rounds::Recorder::new(t, m.score_bounds(), m.rounds)
    } else {
        crate::stats::rounds::Recorder::default()
    }
}

fn first_stop(a: Stop, b: Stop) -> Stop {
    match (a, b) {
        // Report the fault of the lowest game index, whichever thread met it first.
        (Stop::Fault(i, f), Stop::Fault(j, g)) => {
            if i <= j {
                Stop::Fault(i, f)
            } else {
                Stop::Fault(j, g)
            }
        }
        (f @ Stop::Fault(..), _) | (_, f @ Stop::Fault(..)) => f,
        _ => Stop::Interrupted,
    }
}

fn stop_error(m: &Model, seed: u64, s: Stop) -> Error {
    match s {
        Stop::Fault(game, f) => fault_error(m, seed, game, f),
        Stop::Interrupted => Error::Interrupted,
    }
}

/// Plays chunks `0..chunks` on `pool` and merges their results in chunk order.
///
/// Chunks run in blocks of 256 per thread, one block after another: a stop (Ctrl-C,
/// SIGTERM) or an error ends the run after the current block instead of visiting every
/// remaining chunk, so the time to stop does not grow with `--games`; and an error of an
/// earlier block always wins over a later one, so the reported fault does not depend on the
/// thread count. `tally` is the empty result and how two merge; `worst` picks between two
/// errors of one block (the lowest game index).
pub fn par_chunks<S, T, E>(
    pool: &rayon::ThreadPool,
    chunks: u64,
    init: impl Fn() -> S + Sync + Send,
    play: impl Fn(&mut S, u64) -> std::result::Result<T, E> + Sync + Send,
    (empty, merge): (
        impl Fn() -> T + Sync + Send,
        impl Fn(T, T) -> T + Sync + Send,
    ),
    worst: impl Fn(E, E) -> E + Sync + Send,
    stop: impl Fn() -> E,
) -> std::result::Result<T, E>
where
    T: Send,
    E: Send,
{
    let per_block = (pool.current_num_threads() as u64 * 256).max(1);
    let mut total = empty();
    let mut c0 = 0;
    while c0 < chunks {
        if crate::signal::stopped() {
            return Err(stop());
        }
        let c1 = (c0 + per_block).min(chunks);
        let block = pool.install(|| {
            (c0..c1).into_par_iter().map_init(&init, &play).reduce(
                || Ok(empty()),
                |a, b| match (a, b) {
                    (Ok(a), Ok(b)) => Ok(merge(a, b)),
                    (Err(a), Err(b)) => Err(worst(a, b)),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                },
            )
        })?;
        total = merge(total, block);
        c0 = c1;
    }
    Ok(total)
}

/// Plays `spec.games` games of `m`; `progress` is called with the number of games finished
/// after each chunk (from any thread).
pub fn run(m: &Model, spec: &RunSpec, progress: &(dyn Fn(u64) + Sync)) -> Result<RunResult> {
    let pool = pool(spec.threads)?;
    let threads = pool.current_num_threads();
    let start = Instant::now();
    let merged = par_chunks(
        &pool,
        spec.games.div_ceil(chunk_games(m)),
        || Game::new(m),
        |game, c| {
            let t = chunk(m, spec, game, c, |_, _, _| {})?;
            progress(t.games);
            Ok(t)
        },
        (|| empty_tally(m), Tally::merge),
        first_stop,
        || Stop::Interrupted,
    );
    let elapsed = start.elapsed();
    match merged {
        // A stop asked for while the last games were played still stops the command.
        Ok(_) if crate::signal::stopped() => Err(Error::Interrupted),
        Ok(tally) => Ok(RunResult {
            tally,
            elapsed,
            threads,
        }),
        Err(s) => Err(stop_error(m, spec.seed, s)),
    }
}

/// A sink for per-game rows, in game order: the rows, and their metrics taken at the end
/// ([`Model::metric_values`] per row, one row after another).
pub type RowSink<'a> = &'a mut dyn FnMut(&[GameRow], &[i64]) -> Result<()>;

/// Like [`run`], also handing every game's outcome to `rows`, in game order, in batches (for
/// the per-game table). Memory is bounded by two batches of chunks: while the pool plays one
/// batch, this thread hands the previous one to `rows`, so writing the table overlaps the
/// games instead of pausing them.
pub fn run_rows(
    m: &Model,
    spec: &RunSpec,
    progress: &(dyn Fn(u64) + Sync),
    rows: RowSink,
) -> Result<RunResult> {
    type Part = (Tally, Vec<GameRow>, Vec<i64>);
    let pool = pool(spec.threads)?;
    let threads = pool.current_num_threads();
    let start = Instant::now();
    let chunks = spec.games.div_ceil(chunk_games(m));
    let per_batch = (threads as u64 * 4).max(1);
    // One batch of chunks, played on the pool, each chunk's rows kept in game order.
    let play = |c0: u64, c1: u64| -> Vec<std::result::Result<Part, Stop>> {
        pool.install(|| {
            (c0..c1)
                .into_par_iter()
                .map_init(
                    || Game::new(m),
                    |game, c| {
                        let n = chunk_games(m) as usize;
                        let mut out = Vec::with_capacity(n);
                        let mut metrics = Vec::with_capacity(n * m.metric_values(false));
                        let t = chunk(m, spec, game, c, |i, o, vals| {
                            out.push(GameRow {
                                game: i,
                                outcome: *o,
                            });
                            metrics.extend_from_slice(vals);
                        })?;
                        progress(t.games);
                        Ok((t, out, metrics))
                    },
                )
                .collect()
        })
    };
    let mut tally = empty_tally(m);
    let mut stop: Option<Stop> = None;
    // The batch played and not yet handed over.
    let mut done: Vec<std::result::Result<Part, Stop>> = Vec::new();
    let mut c0 = 0;
    loop {
        let c1 = (c0 + per_batch).min(chunks);
        // Play the next batch (if any, and if nothing stopped) while this thread writes the
        // previous one's rows.
        let ahead = c0 < chunks && stop.is_none();
        let (next, written, kept) = std::thread::scope(|scope| {
            let next = ahead.then(|| scope.spawn(|| play(c0, c1)));
            // The rows of the leading chunks, up to a stop or a failed write.
            let (mut written, mut kept) = (Ok(()), 0);
            if stop.is_none() {
                for r in &done {
                    let Ok((_, out, metrics)) = r else { break };
                    written = rows(out, metrics);
                    kept += 1;
                    if written.is_err() {
                        break;
                    }
                }
            }
            let next = next.map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
            (next, written, kept)
        });
        // A write that fails ends the run: the batch played meanwhile is dropped.
        written?;
        // The tallies of the chunks whose rows were written, and the stops.
        for (i, r) in done.drain(..).enumerate() {
            match r {
                Ok((t, ..)) if i < kept => tally = tally.merge(t),
                Ok(_) => {}
                Err(s) => {
                    stop = Some(match stop.take() {
                        Some(p) => first_stop(p, s),
                        None => s,
                    })
                }
            }
        }
        match next {
            Some(batch) => done = batch,
            None => break,
        }
        c0 = c1;
    }
    if let Some(s) = stop {
        return Err(stop_error(m, spec.seed, s));
    }
    Ok(RunResult {
        tally,
        elapsed: start.elapsed(),
        threads,
    })
}

/// Turns a game's fault into an error that names the formula and how to reproduce it (an
/// interrupted game is [`Error::Interrupted`]).
pub fn fault_error(m: &Model, seed: u64, game: u64, f: Fault) -> Error {
    if f.kind == crate::runtime::FaultKind::Interrupted {
        return Error::Interrupted;
    }
    let loc = m
        .locs
        .get(f.loc as usize)
        .cloned()
        .unwrap_or(crate::error::Location {
            file: m.file.clone(),
            line: 0,
            col: 0,
            from: None,
        });
    let vars: Vec<String> = m.vars.iter().map(|v| v.name.clone()).collect();
    Error::Fault {
        loc,
        scenario: crate::error::trace_args(&m.file, &m.overrides),
        seed,
        game,
        msg: f.kind.describe(&vars),
    }
}
