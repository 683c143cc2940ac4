//! `vpsim merge`: combine shard outputs into exactly the single run's result.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::report::Summary;
use crate::report::{TallyFile, read_tally};

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

/// What the shards' scenario allows their counts to be ([`crate::Model::bounds`]: its
/// score's bounds, the cards never held), when the file they name is there unchanged (its
/// hash); read with their `--set` overrides.
fn bounds(info: &crate::report::RunInfo) -> Option<crate::model::Bounds> {
    let sets: Vec<crate::overrides::Override> = (info.overrides.iter())
        .filter(|o| !o.starts_with("--agent "))
        .map(|o| crate::overrides::parse_override(o))
        .collect::<std::result::Result<_, _>>()
        .ok()?;
    let m = crate::scenario::load_with(std::path::Path::new(&info.scenario.file), &sets).ok()?;
    (m.hash == info.scenario.hash).then(|| m.bounds())
}

/// Checks that one shard file is whole and consistent: its shard index and count, its part
/// of the games, counts that add up to its games, and the relations between its tables and
/// with what the scenario allows, `bounds` ([`crate::stats::Tally::broken_relation`]).
fn validate(
    p: &std::path::Path,
    f: &TallyFile,
    bounds: Option<&crate::model::Bounds>,
) -> Result<()> {
    let bad = |field: &str, why: String| {
        Error::Usage(format!(
            "{}: `{field}` {why}; the file is damaged or was edited: run the shard again",
            p.join("tally.json").display()
        ))
    };
    // Its version is checked as it is read (`report::read_tally`), before its keys are.
    if f.threads == 0 {
        return Err(bad("threads", "is 0: a run uses at least one".into()));
    }
    if !(f.elapsed_s.is_finite() && (0.0..1e12).contains(&f.elapsed_s)) {
        return Err(bad(
            "elapsed_s",
            format!("is {}, not a time in seconds", f.elapsed_s),
        ));
    }
    let Some(shard) = f.shard else {
        return Err(Error::Usage(format!(
            "{}: this output is not a shard (run with --shard K/N)",
            p.display()
        )));
    };
    if shard.count == 0 || shard.index == 0 || shard.index > shard.count {
        return Err(bad(
            "shard",
            format!(
                "is {}/{}: K must be between 1 and N",
                shard.index, shard.count
            ),
        ));
    }
    let (first, games) = shard.range(f.total_games);
    if f.first_game != first || f.tally.games != games {
        return Err(bad(
            "tally.games",
            format!(
                "is {} games from game {}, but shard {}/{} of {} games is {games} from game {first}",
                f.tally.games, f.first_game, shard.index, shard.count, f.total_games
            ),
        ));
    }
    let t = &f.tally;
    let (nf, nr) = (f.info.factions.len(), f.info.reasons.len());
    let nl = f.info.links.len();
    if t.factions.len() != nf
        || t.reasons.len() != nr
        || t.decided.len() != nl + 3
        || t.points.len() != nf * f.info.sources.len()
        || t.leader_games.len() != t.leader_won.len()
    {
        return Err(bad(
            "tally",
            "has tables of the wrong size for its scenario".into(),
        ));
    }
    let sum = |v: &[u64]| v.iter().try_fold(0u64, |a, &b| a.checked_add(b));
    let adds_up = |v: &[u64]| sum(v) == Some(t.games);
    let hist_ok = |h: &crate::stats::Histogram| {
        adds_up(&h.counts) && h.well_formed(crate::stats::MAX_BINS as usize)
    };
    if !adds_up(&t.reasons) {
        return Err(bad(
            "tally.reasons",
            format!("do not add up to the {} games", t.games),
        ));
    }
    // A game lasts 1 to 100,000 rounds.
    if !hist_ok(&t.lengths)
        || t.lengths.offset < 0
        || t.lengths.offset as i128 + t.lengths.counts.len() as i128 > 100_001
    {
        return Err(bad(
            "tally.lengths",
            format!("do not add up to the {} games", t.games),
        ));
    }
    for (i, ft) in t.factions.iter().enumerate() {
        let won = [ft.wins, ft.shared_wins, ft.draws]
            .iter()
            .try_fold(0u64, |a, &b| a.checked_add(b));
        if ft.ranks.len() != nf
            || !adds_up(&ft.ranks)
            || !hist_ok(&ft.scores)
            || won.is_none_or(|w| w > t.games)
        {
            return Err(bad(
                &format!("tally.factions[{i}]"),
                format!("counts do not add up to the {} games", t.games),
            ));
        }
    }
    // The score race: a row of factions per round played, each round's histograms bounded.
    let round_ok = |h: &crate::stats::Histogram| {
        h.well_formed(crate::stats::ROUND_BINS as usize)
            && sum(&h.counts).is_some_and(|c| c <= t.games)
    };
    if t.by_round.len() != t.margins.len()
        || t.by_round.len() > crate::stats::BY_ROUND
        || t.by_round
            .iter()
            .any(|r| r.len() != nf || !r.iter().all(round_ok))
        || !t.margins.iter().all(round_ok)
    {
        return Err(bad(
            "tally.by_round",
            "is not a score race of its factions".into(),
        ));
    }
    // The score race counts, after round r + 1, every game that lasted that long (when the
    // lengths are exact: a histogram of at most 65,536 lengths always is).
    if t.lengths.width <= 1 {
        let lasted = |r: usize| -> u64 {
            t.lengths
                .iter()
                .filter(|&(len, _)| len > r as i64)
                .map(|(_, c)| c)
                .sum()
        };
        if let Some(r) =
            (0..t.by_round.len()).find(|&r| t.by_round[r].iter().any(|h| h.total() != lasted(r)))
        {
            return Err(bad(
                &format!("tally.by_round[{r}]"),
                format!(
                    "does not count the {} games that lasted {} rounds or more",
                    lasted(r),
                    r + 1
                ),
            ));
        }
    }
    // The feedback test counts, in round r + 2, every game the score race counts there.
    // Its gains are in the cells and, split by score, beside them (`feedback_own`).
    let counted = |r: usize, f: usize| t.by_round.get(r + 1).map(|row| row[f].total());
    let own = |r: usize, f: usize| t.feedback_own.get(r).and_then(|row| row.get(f));
    if t.feedback.len() != t.by_round.len().saturating_sub(1)
        || t.feedback_own.len() != if t.split { t.feedback.len() } else { 0 }
        || t.feedback.iter().enumerate().any(|(r, row)| {
            row.len() != nf
                || row.iter().enumerate().any(|(f, c)| {
                    let none = crate::stats::feedback::Own::default();
                    let Some(o) = own(r, f).or((!t.split).then_some(&none)) else {
                        return true;
                    };
                    if !o.consistent() || !c.plausible() {
                        return true;
                    }
                    let c = o.total(c);
                    c.lead.n.checked_add(c.rest.n) != counted(r, f)
                })
        })
    {
        return Err(bad(
            "tally.feedback",
            "does not count the games of the score race".into(),
        ));
    }
    // Usage counts: as many actions and cards as the run names, no count past the games,
    // and wins with and without an action or card within the faction's own.
    if let Some(u) = &t.usage {
        let wins: Vec<u64> = t.factions.iter().map(|f| f.wins).collect();
        if u.actions as usize != f.info.actions.len()
            || u.cards as usize != f.info.cards.len()
            || !u.consistent(t.games, &wins)
        {
            return Err(bad(
                "tally.usage",
                "is not a count of its factions' actions and cards over its games".into(),
            ));
        }
    }
    // Seat counts: present exactly when the run rotated seats, and adding up to the games
    // and each faction's wins.
    let wins: Vec<u64> = t.factions.iter().map(|f| f.wins).collect();
    match (&t.seats, f.info.rotate_seats) {
        (None, false) => {}
        (Some(s), true) => {
            if let Some(why) = s.inconsistent(t.games, &wins) {
                return Err(bad("tally.seats", why));
            }
        }
        _ => {
            return Err(bad(
                "tally.seats",
                "does not match whether the run rotated seats (info.rotate_seats)".into(),
            ));
        }
    }
    // Metric histograms: shaped as the run's metrics, each counting every game once (a
    // faction's split by its wins) and each round the games the score race counts there.
    let shape = |at: &str| -> Vec<(usize, bool)> {
        (f.info.metrics.iter().filter(|mi| mi.at == at))
            .map(|mi| match mi.scope == "faction" {
                true => (nf, true),
                false => (1, false),
            })
            .collect()
    };
    match &t.metrics {
        None if f.info.metrics.is_empty() => {}
        Some(mt) => {
            let end: Vec<(usize, bool)> = (mt.end_owners.iter().copied())
                .zip(mt.end_faction.iter().copied())
                .collect();
            let rounds: Vec<usize> = shape("round").iter().map(|x| x.0).collect();
            if end != shape("end") || mt.round_owners != rounds {
                return Err(bad(
                    "tally.metrics",
                    "does not have the shape of the run's metrics (info.metrics)".into(),
                ));
            }
            let lasted = |r: usize| {
                t.by_round
                    .get(r)
                    .and_then(|row| row.first())
                    .map_or(0, |h| h.total())
            };
            if let Some(why) = mt.inconsistent(t.games, &wins, &lasted) {
                return Err(bad("tally.metrics", why));
            }
        }
        None => {
            return Err(bad(
                "tally.metrics",
                "is missing, though the run has metrics (info.metrics)".into(),
            ));
        }
    }
    // Every game has one result: a sole winner, a shared win, a draw or nobody; a draw is
    // every faction's, a shared win at least two factions', and a win or a shared win was
    // decided by one thing.
    // In 128 bits: an edited count near 2^64 must not wrap into agreement.
    let wide = |v: &mut dyn Iterator<Item = u64>| v.map(u128::from).sum::<u128>();
    let results = wide(
        &mut t
            .factions
            .iter()
            .map(|f| f.wins)
            .chain([t.shared, t.draws, t.nobody]),
    );
    if results != t.games as u128 {
        return Err(bad(
            "tally",
            format!(
                "wins, shared wins, draws and games nobody won do not add up to the {} games",
                t.games
            ),
        ));
    }
    // A game ended by a reason whose result is a draw (or nobody) is a draw (or nobody's).
    for (result, most) in [("draw", t.draws), ("nobody", t.nobody)] {
        let ended = (f.info.reasons.iter().zip(&t.reasons))
            .filter(|(r, _)| r.result == result)
            .map(|(_, &c)| c as u128)
            .sum::<u128>();
        if ended > most as u128 {
            return Err(bad(
                "tally.reasons",
                format!("count {ended} games ended with result {result}, more than its {most}"),
            ));
        }
    }
    if let Some(i) = t.factions.iter().position(|f| f.draws != t.draws) {
        return Err(bad(
            &format!("tally.factions[{i}].draws"),
            format!("is not the run's {} draws", t.draws),
        ));
    }
    let shared_wins = wide(&mut t.factions.iter().map(|f| f.shared_wins));
    if t.factions.iter().any(|f| f.shared_wins > t.shared)
        || shared_wins < 2 * t.shared as u128
        || shared_wins > nf as u128 * t.shared as u128
    {
        return Err(bad(
            "tally.shared",
            "does not match the factions' shared wins".into(),
        ));
    }
    let wins = wide(&mut t.factions.iter().map(|f| f.wins));
    if wide(&mut t.decided.iter().copied()) != wins + t.shared as u128 {
        return Err(bad(
            "tally.decided",
            "does not count each win and shared win once".into(),
        ));
    }
    let others = [t.draws, t.nobody, t.shared];
    if others.iter().any(|&c| c > t.games)
        || sum(&t.decided).is_none_or(|d| d > t.games)
        || t.leader_won
            .iter()
            .zip(&t.leader_games)
            .any(|(w, g)| w > g || *g > t.games)
    {
        return Err(bad(
            "tally",
            format!("counts more than its {} games", t.games),
        ));
    }
    match t.broken_relation(bounds) {
        Some((field, why)) => Err(bad(&field, why)),
        None => Ok(()),
    }
}

/// Which shards of one run some folders hold: the shard count, and for each index the
/// folders that hold it (none when it is missing, several when it is duplicated).
pub struct Coverage {
    /// N of K/N.
    pub count: u64,
    /// For each index K - 1, the folders holding shard K.
    pub seen: Vec<Vec<String>>,
}

impl Coverage {
    /// The indices K of the shards no folder holds.
    pub fn missing(&self) -> Vec<u64> {
        (1..=self.count)
            .filter(|&k| self.seen[k as usize - 1].is_empty())
            .collect()
    }
}

/// Checks that the shards are whole and belong together, and says which indices they hold.
pub fn coverage(files: &[(PathBuf, TallyFile)]) -> Result<Coverage> {
    let bounds = files.first().and_then(|(_, f)| bounds(&f.info));
    for (p, f) in files {
        validate(p, f, bounds.as_ref())?;
    }
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
        if let Some(field) = crate::report::first_difference(&f0.info, &f.info) {
            return Err(differs(&format!("their `info.{field}` values")));
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
    Ok(Coverage { count, seen })
}

/// Refuses shards that do not cover the run exactly once, naming each missing index with the
/// command that runs it again (from a present shard's recorded arguments) and each
/// duplicated one with its folders; `unfinished` are the folders that hold no tally.json.
fn exactly_once(
    c: &Coverage,
    files: &[(PathBuf, TallyFile)],
    unfinished: &[PathBuf],
) -> Result<()> {
    let count = c.count;
    let missing = c.missing();
    let duplicated: Vec<String> = (0..count as usize)
        .filter(|&i| c.seen[i].len() > 1)
        .map(|i| format!("{}/{count} ({})", i + 1, c.seen[i].join(", ")))
        .collect();
    if missing.is_empty() && duplicated.is_empty() {
        return Ok(());
    }
    let mut msg = String::from("the shards do not cover the run exactly once:");
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|k| format!("{k}/{count}")).collect();
        msg.push_str(&format!(" missing {}", names.join(", ")));
    }
    if !duplicated.is_empty() {
        msg.push_str(&format!(" duplicated {}", duplicated.join("; ")));
    }
    for d in unfinished {
        msg.push_str(&format!(
            "\n{} {}: its shard did not run or did not finish (it counts as missing)",
            d.display(),
            if d.exists() {
                "holds no tally.json"
            } else {
                "does not exist"
            }
        ));
    }
    // The recorded arguments of a present shard, with the missing index put in.
    let (p0, f0) = &files[0];
    let own = f0.shard.map_or(0, |s| s.index);
    let again: Vec<String> = missing
        .iter()
        .filter_map(|&k| crate::report::rerun_command(&f0.command, own, k))
        .collect();
    if !again.is_empty() {
        msg.push_str(&format!(
            "\nrun the missing shard{} again (the command of {}, renumbered), then merge again:",
            if again.len() == 1 { "" } else { "s" },
            p0.display()
        ));
        for line in &again {
            msg.push_str(&format!("\n  {line}"));
        }
    }
    if !missing.is_empty() {
        msg.push_str(
            "\n(`vpsim merge --list-missing DIR...` prints the missing indices for a retry script)",
        );
    }
    Err(Error::Usage(msg))
}

/// Checks that the shards belong together and cover the run exactly once, and merges them.
pub fn merge(files: &[(PathBuf, TallyFile)]) -> Result<TallyFile> {
    exactly_once(&coverage(files)?, files, &[])?;
    merge_counts(files)
}

/// The merged tally of shards that cover the run exactly once.
fn merge_counts(files: &[(PathBuf, TallyFile)]) -> Result<TallyFile> {
    let f0 = &files[0].1;
    // Shards' histograms merge whatever their ranges: the merged one coarsens its bins as
    // the single run's does, each file's bins being bounded (checked above).
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
    merged.command = Vec::new();
    Ok(merged)
}

/// Runs `vpsim merge`.
pub fn run(a: Args) -> Result<()> {
    crate::report::ShardKey::from_env()?;
    let mut files = Vec::new();
    let mut unfinished = Vec::new();
    for d in &a.dirs {
        // A folder that does not exist or holds no tally.json is a shard that did not run or
        // was stopped (preempted, out of time, its node lost) before it wrote one: missing, not
        // damaged (an interrupted run removes the folder it made).
        let absent = |p: &std::path::Path| {
            std::fs::symlink_metadata(p).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        };
        if absent(d) || (d.is_dir() && absent(&d.join("tally.json"))) {
            unfinished.push(d.clone());
        } else {
            files.push((d.clone(), read_tally(d, |p, f| validate(p, f, None))?));
        }
    }
    if files.is_empty() {
        return Err(Error::Usage(format!(
            "no folder holds a tally.json ({}): no shard finished; run them (`vpsim run ... \
             --shard K/N --out DIR`), then merge their folders",
            a.dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let cover = coverage(&files)?;
    if a.list_missing {
        let lines: String = cover.missing().iter().map(|k| format!("{k}\n")).collect();
        return super::out(&lines);
    }
    exactly_once(&cover, &files, &unfinished)?;
    let merged = merge_counts(&files)?;
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
