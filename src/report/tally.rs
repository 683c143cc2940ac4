//! `tally.json`: the mergeable counts of a run or a shard, and reading them back.
//!
//! Owns [`TallyFile`] and [`Shard`] (which part of a sharded run a tally holds), and
//! [`read_tally`], which refuses a file another vpsim version wrote or that holds a key
//! vpsim never writes. Writing goes through [`crate::output`]'s atomic files.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::RunInfo;
use crate::error::{Error, Result};
use crate::output::{Refused, read_limited};
use crate::stats::Tally;

/// Which part of a sharded run a tally holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
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

/// The start of every `tally.json`: its digest comes first, so that what follows is the
/// file's contents exactly as they were digested.
const DIGEST_KEY: &str = "{\"digest\":\"";

impl TallyFile {
    /// The file's text: its JSON, led by a `digest` key, the FNV-1a hash of the rest, so that
    /// any edit of a value shows (a check against damage and hand edits, not a signature).
    pub fn to_json(&self) -> serde_json::Result<String> {
        let body = serde_json::to_string(self)?;
        let digest = crate::scenario::compile::fnv1a(body.as_bytes());
        Ok(format!("{DIGEST_KEY}{digest}\",{}", &body[1..]))
    }
}

/// Splits a tally file's text into its digest and the JSON it digests, `None` when it does
/// not start as vpsim writes one.
fn split_digest(bytes: &[u8]) -> Option<(&[u8], Vec<u8>)> {
    let rest = bytes.strip_prefix(DIGEST_KEY.as_bytes())?;
    let (digest, rest) = rest.split_at_checked(16)?;
    let rest = rest.strip_prefix(b"\",")?;
    Some((digest, [b"{", rest].concat()))
}

/// Reads `DIR/tally.json`: its version, then its keys and values, then `check` (which names
/// a value that cannot be), then its digest, so that an edit no check can see is refused too.
pub fn read_tally(
    dir: &Path,
    check: impl Fn(&Path, &TallyFile) -> Result<()>,
) -> Result<TallyFile> {
    // A tally's histograms are bounded (see `stats::Histogram`): real files are a few MB.
    const MAX_TALLY_BYTES: u64 = 256 * 1024 * 1024;
    let path = dir.join("tally.json");
    let bytes = read_limited(&path, MAX_TALLY_BYTES).map_err(|r| match r {
        Refused::Io(source) => Error::Read {
            path: path.clone(),
            source,
        },
        _ => Error::Usage(format!(
            "{}: not a vpsim tally (not a regular file, or over {MAX_TALLY_BYTES} bytes)",
            path.display()
        )),
    })?;
    // The version first: another version's file may have other keys, and the message to give
    // then is which version to merge with.
    #[derive(Deserialize)]
    struct Written {
        vpsim_version: String,
    }
    let ours = env!("CARGO_PKG_VERSION");
    if let Ok(w) = serde_json::from_slice::<Written>(&bytes)
        && w.vpsim_version != ours
    {
        return Err(Error::Usage(format!(
            "{}: `vpsim_version` is {}, but this is vpsim {ours}: merge with the version that \
             ran the shards",
            path.display(),
            w.vpsim_version
        )));
    }
    let not_ours =
        |why: String| Error::Usage(format!("{}: not a vpsim tally ({why})", path.display()));
    let Some((digest, body)) = split_digest(&bytes) else {
        return Err(not_ours(
            "it does not start with the `digest` vpsim writes first".into(),
        ));
    };
    let file: TallyFile = serde_json::from_slice(&body)
        .map_err(|e| not_ours(crate::scenario::plain_types(&e.to_string())))?;
    check(dir, &file)?;
    if digest != crate::scenario::compile::fnv1a(&body).as_bytes() {
        return Err(Error::Usage(format!(
            "{}: `digest` does not match the file's contents; the file is damaged or was edited: run the shard again",
            path.display()
        )));
    }
    Ok(file)
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
