//! Files a run leaves behind: written atomically, read back for merging.
//!
//! Owns the on-disk formats of `--out DIR` (`summary.json`, `tally.json`) and the rule that
//! no output file is ever left half-written: each is written to a temporary file in the same
//! folder and renamed into place.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::report::RunInfo;
use crate::stats::Tally;

/// Which part of a sharded run a tally holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based index.
    pub index: u64,
    /// Number of shards.
    pub count: u64,
}

impl Shard {
    /// Parses `K/N` (1 <= K <= N), the value of `--shard`.
    pub fn parse(s: &str) -> std::result::Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}` is not K/N (for example 2/8)"))?;
        let k: u64 = k
            .trim()
            .parse()
            .map_err(|_| format!("`{k}` is not a shard number"))?;
        let n: u64 = n
            .trim()
            .parse()
            .map_err(|_| format!("`{n}` is not a shard count"))?;
        if n == 0 || k == 0 || k > n {
            return Err(format!("shard {k}/{n}: K must be between 1 and N"));
        }
        Ok(Shard { index: k, count: n })
    }

    /// The game indices `[first, first + games)` of this shard of `total` games: the shards'
    /// ranges are disjoint and their union is `0..total`.
    pub fn range(&self, total: u64) -> (u64, u64) {
        let lo = ((self.index - 1) as u128 * total as u128 / self.count as u128) as u64;
        let hi = (self.index as u128 * total as u128 / self.count as u128) as u64;
        (lo, hi - lo)
    }
}

/// `tally.json`: everything needed to merge shards into the single run's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TallyFile {
    /// vpsim version that wrote it.
    pub vpsim_version: String,
    /// Scenario, seed, overrides and names.
    pub info: RunInfo,
    /// The shard, if the run was one.
    pub shard: Option<Shard>,
    /// Games of the whole run (all shards).
    pub total_games: u64,
    /// First game index of this part.
    pub first_game: u64,
    /// Seconds spent playing.
    pub elapsed_s: f64,
    /// Threads used.
    pub threads: usize,
    /// The counts.
    pub tally: Tally,
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let what = || path.display().to_string();
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        what: dir.display().to_string(),
        source,
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp: PathBuf = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if let Err(source) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::Write {
            what: what(),
            source,
        });
    }
    Ok(())
}

/// Reads `DIR/tally.json`.
pub fn read_tally(dir: &Path) -> Result<TallyFile> {
    let path = dir.join("tally.json");
    let text = std::fs::read_to_string(&path).map_err(|source| Error::Read {
        path: path.clone(),
        source,
    })?;
    serde_json::from_str(&text)
        .map_err(|e| Error::Usage(format!("{}: not a vpsim tally ({e})", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_range_exactly() {
        for total in [0u64, 1, 7, 100, 1_000_003] {
            for n in 1..=9 {
                let mut next = 0;
                for k in 1..=n {
                    let (lo, len) = Shard { index: k, count: n }.range(total);
                    assert_eq!(lo, next);
                    next = lo + len;
                }
                assert_eq!(next, total);
            }
        }
        assert!(Shard::parse("0/4").is_err());
        assert!(Shard::parse("5/4").is_err());
        assert_eq!(Shard::parse("2/4").unwrap(), Shard { index: 2, count: 4 });
    }
}
