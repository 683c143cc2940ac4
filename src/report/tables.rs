//! Parquet tables of a run, written with polars.
//!
//! Owns the table layouts (column names, types and units are documented in the README) and
//! the run metadata every table carries in its Parquet key-value metadata and its Arrow
//! schema's metadata. Each file is built in memory and renamed into place, so none is ever
//! left half-written; the per-game table (and its CSV copy) streams batches to a temporary
//! file as the run goes.

use std::path::{Path, PathBuf};

use polars::prelude::*;

use super::{RunInfo, Summary};
use crate::error::{Error, Result};
use crate::output::write_atomic;
use crate::stats::Tally;

fn polars_err(what: &str) -> impl Fn(PolarsError) -> Error + '_ {
    move |e| Error::Write {
        what: what.to_string(),
        source: std::io::Error::other(e.to_string()),
    }
}

/// The run metadata stored in every table.
pub fn metadata(info: &RunInfo, games: u64) -> Vec<(String, String)> {
    vec![
        ("vpsim_version".into(), env!("CARGO_PKG_VERSION").into()),
        ("scenario_name".into(), info.scenario.name.clone()),
        ("scenario_file".into(), info.scenario.file.clone()),
        ("scenario_hash".into(), info.scenario.hash.clone()),
        ("seed".into(), info.seed.to_string()),
        ("games".into(), games.to_string()),
        (
            "overrides".into(),
            serde_json::to_string(&info.overrides).unwrap_or_default(),
        ),
    ]
}

/// Types every common Parquet reader opens (pyarrow 14 with pandas, polars, DuckDB, Spark):
/// unsigned integers become Int64 (Spark has no unsigned types; no count comes near 2^63).
fn portable(df: DataFrame) -> PolarsResult<DataFrame> {
    let cols = df
        .columns()
        .iter()
        .map(|c| {
            if c.dtype().is_unsigned_integer() {
                c.cast(&DataType::Int64)
            } else {
                Ok(c.clone())
            }
        })
        .collect::<PolarsResult<Vec<Column>>>()?;
    DataFrame::new(df.height(), cols)
}

/// The file's key-value metadata: the run's, and the Arrow schema readers use for types.
///
/// polars stores strings as Arrow `string_view`, which pyarrow before 15 cannot read
/// ("Unrecognized type: 24"). The `ARROW:schema` entry written here names them plain
/// `string` (`utf8`) instead; the Parquet data is the same UTF-8 byte arrays either way.
///
/// The run's metadata is in both places: as the file's own key-value pairs (what polars and
/// arrow-rs show) and as the Arrow schema's metadata inside `ARROW:schema`, which is what
/// pyarrow and pandas show as `schema.metadata` when the file has that entry.
fn file_metadata(schema: &Schema, meta: &[(String, String)]) -> KeyValueMetadata {
    use polars_arrow::datatypes::ArrowDataType as A;
    let mut arrow = schema.to_arrow(CompatLevel::oldest());
    for f in arrow.iter_values_mut() {
        f.dtype = match &f.dtype {
            A::Utf8View | A::LargeUtf8 => A::Utf8,
            A::BinaryView | A::LargeBinary => A::Binary,
            d => d.clone(),
        };
    }
    for (k, v) in meta {
        arrow
            .metadata_mut()
            .insert(PlSmallStr::from(k.as_str()), PlSmallStr::from(v.as_str()));
    }
    let key = polars_parquet::arrow::write::schema_to_metadata_key(&arrow);
    let mut all = vec![(key.key, key.value.unwrap_or_default())];
    all.extend(meta.iter().cloned());
    KeyValueMetadata::from_static(all)
}

fn write_df(path: &Path, df: DataFrame, meta: &[(String, String)]) -> Result<()> {
    let what = path.display().to_string();
    let mut df = portable(df).map_err(polars_err(&what))?;
    let mut bytes = Vec::new();
    ParquetWriter::new(&mut bytes)
        .with_key_value_metadata(Some(file_metadata(df.schema(), meta)))
        .finish(&mut df)
        .map_err(polars_err(&what))?;
    write_atomic(path, &bytes)
}

/// Writes a table as CSV (comma-separated, a header row, UTF-8, `.` decimals), atomically.
fn write_csv(path: &Path, df: &DataFrame) -> Result<()> {
    let what = path.display().to_string();
    let mut df = portable(df.clone()).map_err(polars_err(&what))?;
    let mut bytes = Vec::new();
    CsvWriter::new(&mut bytes)
        .include_header(true)
        .finish(&mut df)
        .map_err(polars_err(&what))?;
    write_atomic(path, &bytes)
}

/// Writes the summary tables into `dir` (and as CSV into `dir/csv/` when `csv`); returns the
/// files written.
pub fn write_tables(
    dir: &Path,
    s: &Summary,
    info: &RunInfo,
    t: &Tally,
    csv: bool,
) -> Result<Vec<PathBuf>> {
    let meta = metadata(info, s.games);
    let mut written = Vec::new();
    let mut put = |name: &str, df: PolarsResult<DataFrame>| -> Result<()> {
        let path = dir.join(format!("{name}.parquet"));
        let df = df.map_err(polars_err(name))?;
        if csv {
            let path = dir.join("csv").join(format!("{name}.csv"));
            write_csv(&path, &df)?;
            written.push(path);
        }
        write_df(&path, df, &meta)?;
        written.push(path);
        Ok(())
    };
    let f = &s.factions;
    let opt = |g: fn(&crate::stats::Spread) -> f64| {
        f.iter()
            .map(|x| x.score.map(|s| g(&s)))
            .collect::<Vec<Option<f64>>>()
    };
    let opti = |g: fn(&crate::stats::Spread) -> i64| {
        f.iter()
            .map(|x| x.score.map(|s| g(&s)))
            .collect::<Vec<Option<i64>>>()
    };
    put(
        "summary",
        df!(
            "faction" => f.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
            "games" => f.iter().map(|_| s.games).collect::<Vec<u64>>(),
            "wins" => f.iter().map(|x| x.win.count).collect::<Vec<u64>>(),
            "shared_wins" => f.iter().map(|x| x.shared_win.count).collect::<Vec<u64>>(),
            "win_rate" => f.iter().map(|x| x.win.rate).collect::<Vec<f64>>(),
            "win_low" => f.iter().map(|x| x.win.low).collect::<Vec<f64>>(),
            "win_high" => f.iter().map(|x| x.win.high).collect::<Vec<f64>>(),
            "draws" => f.iter().map(|x| x.draw.count).collect::<Vec<u64>>(),
            "mean_rank" => f.iter().map(|x| x.mean_rank).collect::<Vec<f64>>(),
            "score_mean" => opt(|s| s.mean),
            "score_sd" => opt(|s| s.sd),
            "score_min" => opti(|s| s.min),
            "score_q1" => opti(|s| s.q1),
            "score_median" => opti(|s| s.median),
            "score_q3" => opti(|s| s.q3),
            "score_max" => opti(|s| s.max),
        ),
    )?;
    let (mut fac, mut score, mut count) = (Vec::new(), Vec::new(), Vec::new());
    for (i, ft) in t.factions.iter().enumerate() {
        for (v, c) in ft.scores.iter() {
            fac.push(f[i].name.clone());
            score.push(v);
            count.push(c);
        }
    }
    put(
        "scores",
        df!("faction" => fac, "score" => score, "count" => count),
    )?;
    let (mut fac, mut rank, mut count) = (Vec::new(), Vec::new(), Vec::new());
    for x in f {
        for r in &x.ranks {
            fac.push(x.name.clone());
            rank.push(r.rank);
            count.push(r.rate.count);
        }
    }
    put(
        "ranks",
        df!("faction" => fac, "rank" => rank, "count" => count),
    )?;
    put(
        "lengths",
        df!(
            "rounds" => s.length.histogram.iter().map(|h| h.rounds).collect::<Vec<i64>>(),
            "count" => s.length.histogram.iter().map(|h| h.count).collect::<Vec<u64>>(),
        ),
    )?;
    let r = &s.end_reasons;
    put(
        "end_reasons",
        df!(
            "reason" => r.iter().map(|x| x.name.clone()).collect::<Vec<_>>(),
            "mechanism" => r.iter().map(|x| x.mechanism.clone()).collect::<Vec<_>>(),
            "result" => r.iter().map(|x| x.result.clone()).collect::<Vec<_>>(),
            "count" => r.iter().map(|x| x.rate.count).collect::<Vec<u64>>(),
            "rate" => r.iter().map(|x| x.rate.rate).collect::<Vec<f64>>(),
            "low" => r.iter().map(|x| x.rate.low).collect::<Vec<f64>>(),
            "high" => r.iter().map(|x| x.rate.high).collect::<Vec<f64>>(),
        ),
    )?;
    let d = &s.decided_by;
    put(
        "tie_breaks",
        df!(
            "decided_by" => d.iter().map(|x| x.by.clone()).collect::<Vec<_>>(),
            "count" => d.iter().map(|x| x.rate.count).collect::<Vec<u64>>(),
            "rate" => d.iter().map(|x| x.rate.rate).collect::<Vec<f64>>(),
            "low" => d.iter().map(|x| x.rate.low).collect::<Vec<f64>>(),
            "high" => d.iter().map(|x| x.rate.high).collect::<Vec<f64>>(),
        ),
    )?;
    let p = &s.points_by_source;
    put(
        "points_by_source",
        df!(
            "faction" => p.iter().map(|x| x.faction.clone()).collect::<Vec<_>>(),
            "source" => p.iter().map(|x| x.source.clone()).collect::<Vec<_>>(),
            // Parquet readers have no 128-bit integer; a real is exact to 2^53 and never
            // wraps (the JSON summary has the exact total).
            "total" => p.iter().map(|x| x.total as f64).collect::<Vec<f64>>(),
            "mean_per_game" => p.iter().map(|x| x.mean_per_game).collect::<Vec<f64>>(),
            "share" => p.iter().map(|x| x.share).collect::<Vec<f64>>(),
        ),
    )?;
    if s.factions.iter().any(|f| !f.usage.is_empty()) {
        put("usage", usage_table(s))?;
        put("cards", cards_table(s))?;
    }
    let l = &s.leader_by_round;
    put(
        "leader_by_round",
        df!(
            "round" => l.iter().map(|x| x.round).collect::<Vec<u32>>(),
            "games_with_leader" => l.iter().map(|x| x.won.n).collect::<Vec<u64>>(),
            "leader_won" => l.iter().map(|x| x.won.count).collect::<Vec<u64>>(),
            "rate" => l.iter().map(|x| x.won.rate).collect::<Vec<f64>>(),
            "low" => l.iter().map(|x| x.won.low).collect::<Vec<f64>>(),
            "high" => l.iter().map(|x| x.won.high).collect::<Vec<f64>>(),
        ),
    )?;
    // One row per round and faction; the margin columns repeat within a round.
    let rows: Vec<(&crate::report::RoundScores, usize)> = s
        .by_round
        .iter()
        .flat_map(|r| (0..r.scores.len()).map(move |f| (r, f)))
        .collect();
    let spread = |r: &crate::report::RoundScores, f: usize| r.scores[f];
    put(
        "by_round",
        df!(
            "round" => rows.iter().map(|(r, _)| r.round).collect::<Vec<u32>>(),
            "faction" => rows.iter().map(|(_, f)| s.factions[*f].name.clone()).collect::<Vec<_>>(),
            "games" => rows.iter().map(|(r, _)| r.games).collect::<Vec<u64>>(),
            "mean" => rows.iter().map(|(r, f)| spread(r, *f).map(|x| x.mean)).collect::<Vec<Option<f64>>>(),
            "q1" => rows.iter().map(|(r, f)| spread(r, *f).map(|x| x.q1)).collect::<Vec<Option<i64>>>(),
            "median" => rows.iter().map(|(r, f)| spread(r, *f).map(|x| x.median)).collect::<Vec<Option<i64>>>(),
            "q3" => rows.iter().map(|(r, f)| spread(r, *f).map(|x| x.q3)).collect::<Vec<Option<i64>>>(),
            "margin_mean" => rows.iter().map(|(r, _)| r.margin.map(|m| m.mean)).collect::<Vec<Option<f64>>>(),
            "margin_low" => rows.iter().map(|(r, _)| r.margin.map(|m| m.low)).collect::<Vec<Option<f64>>>(),
            "margin_high" => rows.iter().map(|(r, _)| r.margin.map(|m| m.high)).collect::<Vec<Option<f64>>>(),
        )
        .and_then(|mut df| {
            for c in round_metric_columns(s, &rows) {
                df.with_column(c)?;
            }
            Ok(df)
        }),
    )?;
    Ok(written)
}

/// The `by_round` table's columns of the metrics taken after every round, for its rows
/// (round, faction): `NAME_mean`, `NAME_q1`, `NAME_median`, `NAME_q3` of the faction's value
/// (a global metric's repeat within a round).
fn round_metric_columns(s: &Summary, rows: &[(&crate::report::RoundScores, usize)]) -> Vec<Column> {
    let mut cols = Vec::new();
    for mt in s.metrics.iter().filter(|mt| mt.at == "round") {
        let spread = |round: u32, f: usize| {
            let r = mt.rounds.iter().find(|x| x.round == round)?;
            let v = if mt.scope == "faction" {
                r.values.get(f)
            } else {
                r.values.first()
            };
            *v?
        };
        let real = |g: fn(&crate::stats::Spread) -> f64| {
            (rows.iter())
                .map(|(r, f)| spread(r.round, *f).map(|x| g(&x)))
                .collect::<Vec<Option<f64>>>()
        };
        let whole = |g: fn(&crate::stats::Spread) -> i64| {
            (rows.iter())
                .map(|(r, f)| spread(r.round, *f).map(|x| g(&x)))
                .collect::<Vec<Option<i64>>>()
        };
        let name = |part: &str| format!("{}_{part}", mt.name).into();
        cols.push(Column::new(name("mean"), real(|x| x.mean)));
        cols.push(Column::new(name("q1"), whole(|x| x.q1)));
        cols.push(Column::new(name("median"), whole(|x| x.median)));
        cols.push(Column::new(name("q3"), whole(|x| x.q3)));
    }
    cols
}

pub use crate::runner::GameRow;

/// A new temporary file in `dir` (made if need be) for a table streamed as the run goes.
fn create_temp(dir: &Path) -> Result<(std::fs::File, PathBuf)> {
    let dir = &crate::output::staged(dir);
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        what: dir.display().to_string(),
        source,
    })?;
    crate::output::create_temp(dir).map_err(|source| Error::Write {
        what: dir.display().to_string(),
        source,
    })
}

/// Moves a finished streamed table from `tmp` into place at `path` and lists it in the
/// report folder's manifest.
fn put_in_place(tmp: &Path, path: &Path) -> Result<()> {
    std::fs::rename(tmp, crate::output::staged(path)).map_err(|source| Error::Write {
        what: path.display().to_string(),
        source,
    })?;
    crate::output::record(path)
}

/// The games table's columns of the metrics taken at the end, in the order of a game's
/// values: `NAME_FACTION` for each faction of a faction's metric, `NAME` for a global one.
pub fn metric_columns(info: &RunInfo) -> Vec<String> {
    let mut out = Vec::new();
    for mi in info.metrics.iter().filter(|mi| mi.at == "end") {
        if mi.scope == "faction" {
            out.extend(
                info.factions
                    .iter()
                    .map(|f| format!("{}_{}", mi.name, f.name)),
            );
        } else {
            out.push(mi.name.clone());
        }
    }
    out
}

/// `csv/games.csv` as it is streamed: the same rows as `games.parquet`, batch by batch.
struct GamesCsv {
    writer: polars::io::csv::write::BatchedWriter<std::fs::File>,
    tmp: PathBuf,
    path: PathBuf,
}

impl GamesCsv {
    /// Starts `dir/csv/games.csv` with the columns of `schema`.
    fn create(dir: &Path, schema: &Schema) -> Result<GamesCsv> {
        let folder = dir.join("csv");
        let (file, tmp) = create_temp(&folder)?;
        let writer = CsvWriter::new(file)
            .include_header(true)
            .batched(schema)
            .map_err(polars_err("games.csv"));
        match writer {
            Ok(writer) => Ok(GamesCsv {
                writer,
                tmp,
                path: folder.join("games.csv"),
            }),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }

    /// Drops the unfinished file (the staging folder that holds it goes with the report).
    fn abandon(self) {
        drop(self.writer);
        let _ = std::fs::remove_file(&self.tmp);
    }
}

/// Streams the `games` table: one row group per batch of games, to a temporary file that is
/// renamed into place by [`GamesWriter::finish`] (and removed if the run does not finish);
/// with `--csv`, the same rows to `csv/games.csv` the same way. Neither file is ever held
/// in memory whole.
pub struct GamesWriter {
    writer: polars::io::parquet::write::BatchedWriter<std::fs::File>,
    tmp: PathBuf,
    path: PathBuf,
    csv: Option<GamesCsv>,
    factions: Vec<String>,
    reasons: Vec<String>,
    /// Games not yet written: a row group is [`ROW_GROUP`] games.
    pending: Vec<GameRow>,
    /// Their metrics taken at the end, `stride` per game.
    pending_metrics: Vec<i64>,
    /// The columns of the metrics taken at the end, in the order of a game's values.
    metric_columns: Vec<String>,
}

/// Games per row group of the games table. Every row group leaves its metadata (column
/// chunk statistics and offsets) in the writer until the file's footer is written: a row
/// group per 2,048-game chunk grew memory by 15 bytes a game, 1.5 GB at 10^8 games. At
/// 65,536 games it is under 1 byte a game, and the buffered rows are about 11 MB.
const ROW_GROUP: usize = 1 << 16;

impl GamesWriter {
    /// Starts `dir/games.parquet`, and `dir/csv/games.csv` when `csv`.
    pub fn create(dir: &Path, info: &RunInfo, games: u64, csv: bool) -> Result<GamesWriter> {
        let path = dir.join("games.parquet");
        let (file, tmp) = create_temp(dir)?;
        let mut schema = Schema::default();
        schema.insert("game".into(), DataType::Int64);
        schema.insert("reason".into(), DataType::String);
        schema.insert("rounds".into(), DataType::Int32);
        schema.insert("winner".into(), DataType::String);
        for f in &info.factions {
            schema.insert(format!("score_{}", f.name).into(), DataType::Int64);
        }
        for f in &info.factions {
            schema.insert(format!("rank_{}", f.name).into(), DataType::Int32);
        }
        let metric_columns = metric_columns(info);
        for c in &metric_columns {
            schema.insert(c.as_str().into(), DataType::Int64);
        }
        let writer = ParquetWriter::new(file)
            .with_key_value_metadata(Some(file_metadata(&schema, &metadata(info, games))))
            .batched(&schema)
            .map_err(polars_err("games.parquet"));
        let csv = if csv && writer.is_ok() {
            GamesCsv::create(dir, &schema).map(Some)
        } else {
            Ok(None)
        };
        let (writer, csv) = match (writer, csv) {
            (Ok(w), Ok(c)) => (w, c),
            (Err(e), _) | (_, Err(e)) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e);
            }
        };
        Ok(GamesWriter {
            writer,
            tmp,
            path,
            csv,
            factions: info.factions.iter().map(|f| f.name.clone()).collect(),
            reasons: info.reasons.iter().map(|r| r.name.clone()).collect(),
            pending: Vec::with_capacity(ROW_GROUP),
            pending_metrics: Vec::with_capacity(ROW_GROUP * metric_columns.len()),
            metric_columns,
        })
    }

    /// Appends a batch of games, in game order, with their metrics taken at the end (one
    /// game's after another); every `ROW_GROUP` games are written as one row group.
    pub fn write(&mut self, rows: &[GameRow], metrics: &[i64]) -> Result<()> {
        self.pending.extend_from_slice(rows);
        self.pending_metrics.extend_from_slice(metrics);
        if self.pending.len() < ROW_GROUP {
            return Ok(());
        }
        self.flush()
    }

    /// Writes the pending games as one row group.
    fn flush(&mut self) -> Result<()> {
        let rows = std::mem::take(&mut self.pending);
        let metrics = std::mem::take(&mut self.pending_metrics);
        let written = self.write_group(&rows, &metrics);
        (self.pending, self.pending_metrics) = (rows, metrics);
        self.pending.clear();
        self.pending_metrics.clear();
        written
    }

    /// Writes `rows` and their metrics as one row group (and to the CSV file).
    fn write_group(&mut self, rows: &[GameRow], metrics: &[i64]) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let winner = |o: &crate::runtime::Outcome| match o.result {
            crate::runtime::Result::Win(f) => Some(self.factions[f as usize].clone()),
            _ => None,
        };
        let mut cols: Vec<Column> = vec![
            Column::new(
                "game".into(),
                rows.iter().map(|r| r.game as i64).collect::<Vec<i64>>(),
            ),
            Column::new(
                "reason".into(),
                rows.iter()
                    .map(|r| self.reasons[r.outcome.reason.index()].clone())
                    .collect::<Vec<String>>(),
            ),
            Column::new(
                "rounds".into(),
                rows.iter()
                    .map(|r| r.outcome.rounds as i32)
                    .collect::<Vec<i32>>(),
            ),
            Column::new(
                "winner".into(),
                rows.iter()
                    .map(|r| winner(&r.outcome))
                    .collect::<Vec<Option<String>>>(),
            ),
        ];
        for (i, f) in self.factions.iter().enumerate() {
            cols.push(Column::new(
                format!("score_{f}").into(),
                rows.iter()
                    .map(|r| r.outcome.scores[i])
                    .collect::<Vec<i64>>(),
            ));
        }
        for (i, f) in self.factions.iter().enumerate() {
            cols.push(Column::new(
                format!("rank_{f}").into(),
                rows.iter()
                    .map(|r| r.outcome.ranks[i] as i32)
                    .collect::<Vec<i32>>(),
            ));
        }
        let stride = self.metric_columns.len();
        for (k, c) in self.metric_columns.iter().enumerate() {
            cols.push(Column::new(
                c.as_str().into(),
                (metrics.iter().skip(k).step_by(stride))
                    .copied()
                    .collect::<Vec<i64>>(),
            ));
        }
        let df = DataFrame::new(rows.len(), cols).map_err(polars_err("games.parquet"))?;
        if let Some(c) = &mut self.csv {
            c.writer.write_batch(&df).map_err(polars_err("games.csv"))?;
        }
        self.writer
            .write_batch(&df)
            .map_err(polars_err("games.parquet"))
    }

    /// Finishes the files and moves them into place: `games.parquet`, and `csv/games.csv`
    /// when it was asked for. Returns the files written.
    pub fn finish(mut self) -> Result<Vec<PathBuf>> {
        if let Err(e) = self.flush() {
            self.abandon();
            return Err(e);
        }
        let GamesWriter {
            writer,
            tmp,
            path,
            csv,
            ..
        } = self;
        let mut written = Vec::new();
        let parquet = writer.finish().map_err(polars_err("games.parquet"));
        drop(writer);
        if let Err(e) = parquet {
            let _ = std::fs::remove_file(&tmp);
            if let Some(c) = csv {
                c.abandon();
            }
            return Err(e);
        }
        if let Some(mut c) = csv {
            if let Err(e) = c.writer.finish().map_err(polars_err("games.csv")) {
                let _ = std::fs::remove_file(&tmp);
                c.abandon();
                return Err(e);
            }
            drop(c.writer);
            put_in_place(&c.tmp, &c.path)?;
            written.push(c.path);
        }
        put_in_place(&tmp, &path)?;
        written.push(path);
        Ok(written)
    }

    /// Drops the unfinished files.
    pub fn abandon(self) {
        let _ = std::fs::remove_file(&self.tmp);
        if let Some(c) = self.csv {
            c.abandon();
        }
    }
}

/// `usage.parquet`: one row per faction and action (see [`crate::report::usage::ActionRow`]).
fn usage_table(s: &Summary) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = (s.factions.iter())
        .flat_map(|f| f.usage.iter().map(move |u| (f, u)))
        .collect();
    let diff = |g: fn(&crate::stats::Diff) -> f64| {
        (rows.iter().map(|(_, u)| u.difference.as_ref().map(g))).collect::<Vec<Option<f64>>>()
    };
    df!(
        "faction" => rows.iter().map(|(f, _)| f.name.clone()).collect::<Vec<_>>(),
        "action" => rows.iter().map(|(_, u)| u.action.clone()).collect::<Vec<_>>(),
        "decisions" => rows.iter().map(|(_, u)| u.decisions).collect::<Vec<u64>>(),
        "share" => rows.iter().map(|(_, u)| u.share).collect::<Vec<f64>>(),
        "per_game" => rows.iter().map(|(_, u)| u.per_game).collect::<Vec<f64>>(),
        "games_used" => rows.iter().map(|(_, u)| u.games).collect::<Vec<u64>>(),
        "win_if_used" => rows.iter().map(|(_, u)| u.win_if_used.rate).collect::<Vec<f64>>(),
        "win_if_used_low" => rows.iter().map(|(_, u)| u.win_if_used.low).collect::<Vec<f64>>(),
        "win_if_used_high" => rows.iter().map(|(_, u)| u.win_if_used.high).collect::<Vec<f64>>(),
        "win_if_unused" => rows.iter().map(|(_, u)| u.win_if_unused.rate).collect::<Vec<f64>>(),
        "win_if_unused_low" => rows.iter().map(|(_, u)| u.win_if_unused.low).collect::<Vec<f64>>(),
        "win_if_unused_high" => rows.iter().map(|(_, u)| u.win_if_unused.high).collect::<Vec<f64>>(),
        "difference" => diff(|d| d.est),
        "difference_low" => diff(|d| d.low),
        "difference_high" => diff(|d| d.high),
    )
}

/// `cards.parquet`: one row per faction and distinct card (see
/// [`crate::report::usage::CardRow`]).
fn cards_table(s: &Summary) -> PolarsResult<DataFrame> {
    let rows: Vec<_> = (s.factions.iter())
        .flat_map(|f| f.cards.iter().map(move |c| (f, c)))
        .collect();
    let diff = |g: fn(&crate::stats::Diff) -> f64| {
        (rows.iter().map(|(_, c)| c.difference.as_ref().map(g))).collect::<Vec<Option<f64>>>()
    };
    df!(
        "faction" => rows.iter().map(|(f, _)| f.name.clone()).collect::<Vec<_>>(),
        "deck" => rows.iter().map(|(_, c)| c.deck.clone()).collect::<Vec<_>>(),
        "card" => rows.iter().map(|(_, c)| c.card.clone()).collect::<Vec<_>>(),
        "games_held" => rows.iter().map(|(_, c)| c.games).collect::<Vec<u64>>(),
        "win_if_held" => rows.iter().map(|(_, c)| c.win_if_held.rate).collect::<Vec<f64>>(),
        "win_if_held_low" => rows.iter().map(|(_, c)| c.win_if_held.low).collect::<Vec<f64>>(),
        "win_if_held_high" => rows.iter().map(|(_, c)| c.win_if_held.high).collect::<Vec<f64>>(),
        "win_if_not" => rows.iter().map(|(_, c)| c.win_if_not.rate).collect::<Vec<f64>>(),
        "win_if_not_low" => rows.iter().map(|(_, c)| c.win_if_not.low).collect::<Vec<f64>>(),
        "win_if_not_high" => rows.iter().map(|(_, c)| c.win_if_not.high).collect::<Vec<f64>>(),
        "difference" => diff(|d| d.est),
        "difference_low" => diff(|d| d.low),
        "difference_high" => diff(|d| d.high),
    )
}
