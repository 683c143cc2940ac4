//! Merging the shards of one run: which shards some folders hold ([`coverage`]), the refusal
//! of a set that does not cover the run exactly once (naming the command that runs a missing
//! shard again), and the merged tally, exactly the single run's ([`merge`]).
//!
//! Each shard file is checked on its own first ([`check_shard`]).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::report::TallyFile;

mod check;
pub use check::check_shard;

/// What the shards' scenario allows their counts to be ([`crate::Model::bounds`]: its
/// score's bounds, the cards never held), when the file they name is there unchanged (its
/// hash); read with their `--set` overrides.
fn bounds(info: &crate::report::RunInfo) -> Option<crate::model::Bounds> {
    let sets: Vec<crate::overrides::Override> = (info.overrides.iter())
        .filter(|o| !o.starts_with("--agent "))
        .map(|o| crate::overrides::parse_override(o))
        .collect::<std::result::Result<_, _>>()
        .ok()?;
    let m = crate::scenario::load_with(Path::new(&info.scenario.file), &sets).ok()?;
    (m.hash == info.scenario.hash).then(|| m.bounds())
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

    /// Each index held by more than one folder, as `K/N (folders)`.
    fn duplicated(&self) -> Vec<String> {
        (0..self.count as usize)
            .filter(|&i| self.seen[i].len() > 1)
            .map(|i| format!("{}/{} ({})", i + 1, self.count, self.seen[i].join(", ")))
            .collect()
    }
}

/// Checks that the shards are whole and belong together, and says which indices they hold.
pub fn coverage(files: &[(PathBuf, TallyFile)]) -> Result<Coverage> {
    let bounds = files.first().and_then(|(_, f)| bounds(&f.info));
    for (p, f) in files {
        check_shard(p, f, bounds.as_ref())?;
    }
    let (p0, f0) = &files[0];
    let Some(count) = f0.shard.map(|s| s.count) else {
        return Err(check::not_a_shard(p0, true));
    };
    let mut seen: Vec<Vec<String>> = vec![Vec::new(); count as usize];
    for (p, f) in files {
        let differs = |what: &str| {
            Error::Usage(format!(
                "{} and {} come from different runs: {what} differ",
                p0.display(),
                p.display()
            ))
        };
        same_run(f0, f).map_err(|what| differs(&what))?;
        match f.shard {
            Some(s) if s.count == count => seen[s.index as usize - 1].push(p.display().to_string()),
            Some(s) => {
                return Err(differs(&format!(
                    "the shard counts ({} and {})",
                    count, s.count
                )));
            }
            None => return Err(check::not_a_shard(p, false)),
        }
    }
    Ok(Coverage { count, seen })
}

/// Whether shard `f` comes from the run `f0` does: `Err` names what differs.
fn same_run(f0: &TallyFile, f: &TallyFile) -> std::result::Result<(), String> {
    let checks = [
        (
            f.info.scenario.hash != f0.info.scenario.hash,
            "the scenarios",
        ),
        (f.info.seed != f0.info.seed, "the seeds"),
        (f.info.overrides != f0.info.overrides, "the --set overrides"),
        (f.total_games != f0.total_games, "the --games totals"),
    ];
    if let Some((_, what)) = checks.iter().find(|(differs, _)| *differs) {
        return Err(what.to_string());
    }
    match crate::report::first_difference(&f0.info, &f.info) {
        Some(field) => Err(format!("their `info.{field}` values")),
        None => Ok(()),
    }
}

/// Refuses shards that do not cover the run exactly once, naming each missing index with the
/// command that runs it again (from a present shard's recorded arguments) and each
/// duplicated one with its folders; `unfinished` are the folders that hold no tally.json.
pub fn exactly_once(
    c: &Coverage,
    files: &[(PathBuf, TallyFile)],
    unfinished: &[PathBuf],
) -> Result<()> {
    let count = c.count;
    let (missing, duplicated) = (c.missing(), c.duplicated());
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
        let why = match d.exists() {
            true => "holds no tally.json",
            false => "does not exist",
        };
        msg.push_str(&format!(
            "\n{} {why}: its shard did not run or did not finish (it counts as missing)",
            d.display()
        ));
    }
    msg.push_str(&run_again(&missing, files));
    Err(Error::Usage(msg))
}

/// The lines that say how to run the `missing` shards again: the recorded arguments of a
/// present shard, with the missing index put in.
fn run_again(missing: &[u64], files: &[(PathBuf, TallyFile)]) -> String {
    let mut msg = String::new();
    let (p0, f0) = &files[0];
    let own = f0.shard.map_or(0, |s| s.index);
    let again: Vec<String> = (missing.iter())
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
    msg
}

/// Checks that the shards belong together and cover the run exactly once, and merges them.
pub fn merge(files: &[(PathBuf, TallyFile)]) -> Result<TallyFile> {
    exactly_once(&coverage(files)?, files, &[])?;
    Ok(merge_counts(files))
}

/// The merged tally of shards that cover the run exactly once.
pub fn merge_counts(files: &[(PathBuf, TallyFile)]) -> TallyFile {
    let f0 = &files[0].1;
    // Shards' histograms merge whatever their ranges: the merged one coarsens its bins as
    // the single run's does, each file's bins being bounded (checked above).
    let mut merged = f0.clone();
    merged.tally = (files.iter()).fold(crate::stats::Tally::default(), |acc, (_, f)| {
        acc.merge(f.tally.clone())
    });
    merged.shard = None;
    merged.first_game = 0;
    merged.elapsed_s = files.iter().map(|(_, f)| f.elapsed_s).sum();
    merged.threads = files.iter().map(|(_, f)| f.threads).max().unwrap_or(1);
    merged.command = Vec::new();
    merged
}

/// Shard folders as read: the shards' files, and the folders that hold none.
pub struct Folders {
    /// Each folder that holds a tally.json, with the file.
    pub files: Vec<(PathBuf, TallyFile)>,
    /// The folders that hold no tally.json, or do not exist.
    pub unfinished: Vec<PathBuf>,
}

/// Reads the shards in `dirs`: the files that are there, and the folders that hold no
/// tally.json (a shard that did not run or was stopped, preempted, out of time, its node
/// lost, before it wrote one: missing, not damaged; an interrupted run removes the folder it
/// made). Each file is checked as it is read.
pub fn read_shards(dirs: &[PathBuf]) -> Result<Folders> {
    let absent = |p: &Path| {
        std::fs::symlink_metadata(p).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
    };
    let (mut files, mut unfinished) = (Vec::new(), Vec::new());
    for d in dirs {
        if absent(d) || (d.is_dir() && absent(&d.join("tally.json"))) {
            unfinished.push(d.clone());
        } else {
            let f = crate::report::read_tally(d, |p, f| check_shard(p, f, None))?;
            files.push((d.clone(), f));
        }
    }
    if files.is_empty() {
        let names: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
        return Err(Error::Usage(format!(
            "no folder holds a tally.json ({}): no shard finished; run them (`vpsim run ... \
             --shard K/N --out DIR`), then merge their folders",
            names.join(", ")
        )));
    }
    Ok(Folders { files, unfinished })
}
