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

/// The arguments this process was started with, after the program's name (lossily as text,
/// so that a file name that is not UTF-8 is no panic), for [`TallyFile::command`].
pub fn arguments() -> Vec<String> {
    std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

/// The command that runs shard `index` of the run that wrote `command` (the arguments of one
/// of its shards, whose index was `own`), quoted for a POSIX shell: `--shard` names the new
/// index, and in `--out` the last number equal to `own` (`shards/3`, `shard-03`) becomes the
/// new index, or the folder is shown as `DIR` when it holds no such number. `None` when
/// `command` holds no `--shard`.
pub fn rerun_command(command: &[String], own: u64, index: u64) -> Option<String> {
    let mut args: Vec<String> = command.to_vec();
    let mut has_shard = false;
    let mut i = 0;
    while i < args.len() {
        let (flag, inline) = match args[i].split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (args[i].clone(), None),
        };
        let value_at = if inline.is_some() { i } else { i + 1 };
        let value = inline.or_else(|| args.get(i + 1).cloned());
        let new = match (flag.as_str(), value) {
            ("--shard", Some(v)) => {
                has_shard = true;
                let count = v.split_once('/').map_or("N", |(_, n)| n).to_string();
                Some(format!("{index}/{count}"))
            }
            ("--out", Some(v)) => Some(renumber(&v, own, index).unwrap_or_else(|| "DIR".into())),
            _ => None,
        };
        if let Some(new) = new {
            args[value_at] = if value_at == i {
                format!("{flag}={new}")
            } else {
                new
            };
            i = value_at;
        }
        i += 1;
    }
    has_shard.then(|| {
        std::iter::once("vpsim".to_string())
            .chain(args.iter().map(|a| crate::error::shell_word(a)))
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// `path` with its last run of digits that reads as `own` (leading zeros kept as wide as
/// they were) replaced by `index`; `None` when no run of digits reads as `own`.
fn renumber(path: &str, own: u64, index: u64) -> Option<String> {
    let bytes = path.as_bytes();
    let mut end = bytes.len();
    while end > 0 {
        if !bytes[end - 1].is_ascii_digit() {
            end -= 1;
            continue;
        }
        let mut start = end;
        while start > 0 && bytes[start - 1].is_ascii_digit() {
            start -= 1;
        }
        let digits = &path[start..end];
        if digits.parse::<u64>().ok() == Some(own) {
            let width = if digits.starts_with('0') {
                digits.len()
            } else {
                0
            };
            return Some(format!("{}{index:0width$}{}", &path[..start], &path[end..]));
        }
        end = start;
    }
    None
}

/// The first field (a path such as `factions[1].name`) whose value differs between two
/// runs' infos, or `None` when they are the same.
pub fn first_difference(a: &super::RunInfo, b: &super::RunInfo) -> Option<String> {
    fn walk(a: &serde_json::Value, b: &serde_json::Value, path: &str) -> Option<String> {
        use serde_json::Value;
        let join = |key: &str| {
            if path.is_empty() {
                key.to_string()
            } else {
                format!("{path}.{key}")
            }
        };
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => x
                .iter()
                .find_map(|(k, v)| match y.get(k) {
                    Some(w) => walk(v, w, &join(k)),
                    None => Some(join(k)),
                })
                .or_else(|| y.keys().find(|k| !x.contains_key(*k)).map(|k| join(k))),
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, (v, w))| walk(v, w, &format!("{path}[{i}]"))),
            _ => (a != b).then(|| path.to_string()),
        }
    }
    let (a, b) = (serde_json::to_value(a).ok()?, serde_json::to_value(b).ok()?);
    walk(&a, &b, "")
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
    /// The arguments the run was started with, after `vpsim` (empty for a file written by
    /// a command other than `run`): merge shows with them how to run a missing shard again.
    #[serde(default)]
    pub command: Vec<String>,
}

/// The start of every `tally.json`: its digest comes first, so that what follows is the
/// file's contents exactly as they were digested.
const DIGEST_KEY: &str = "{\"digest\":\"";

/// After the digest, in a file written with a shard key: the keyed MAC of the same contents.
const MAC_KEY: &str = "\",\"mac\":\"";

/// The environment variable that holds the shard key: when set (the same on every shard's
/// machine and the merge's), `tally.json` carries a keyed MAC that only a holder of the key
/// can make, and merge refuses a file without it or with one that does not match.
pub const SHARD_KEY_VAR: &str = "VPSIM_SHARD_KEY";

/// A shard key: 32 bytes derived from the text of [`SHARD_KEY_VAR`].
#[derive(Clone, Copy)]
pub struct ShardKey([u8; 32]);

impl ShardKey {
    /// The key from the environment, `None` when [`SHARD_KEY_VAR`] is unset. Set but empty
    /// is an error, not "no key": a CI secret that is missing (a fork's pull request, a
    /// misspelt name) expands to an empty value, and treating that as no key would write and
    /// accept unkeyed shards where keyed ones were meant.
    pub fn from_env() -> Result<Option<ShardKey>> {
        let Some(text) = std::env::var_os(SHARD_KEY_VAR) else {
            return Ok(None);
        };
        if text.is_empty() {
            return Err(Error::Usage(format!(
                "{SHARD_KEY_VAR} is set but empty: set it to the shard key on every shard and \
                 the merge (in CI, check that the secret exists and is passed to this job), or \
                 unset it to write and merge shards without a key"
            )));
        }
        Ok(Some(ShardKey::new(text.as_encoded_bytes())))
    }

    /// The key derived from any secret text (BLAKE3's key derivation, with vpsim's context).
    pub fn new(secret: &[u8]) -> ShardKey {
        ShardKey(blake3::derive_key("vpsim tally.json MAC v1", secret))
    }

    /// The MAC of `body` (BLAKE3 in keyed mode), as 64 hex digits.
    fn mac(&self, body: &[u8]) -> blake3::Hash {
        blake3::keyed_hash(&self.0, body)
    }
}

impl TallyFile {
    /// The file's text: its JSON, led by a `digest` key, the FNV-1a hash of the rest: a check
    /// against damage and mix-ups, not a signature (anyone can compute it again). With a
    /// `key`, a `mac` key follows it: BLAKE3 keyed with the shard key over the same
    /// contents, which no one without the key can make.
    pub fn to_json(&self, key: Option<ShardKey>) -> serde_json::Result<String> {
        let body = serde_json::to_string(self)?;
        let digest = crate::scenario::compile::fnv1a(body.as_bytes());
        let mac = key.map_or(String::new(), |k| {
            format!("{MAC_KEY}{}", k.mac(body.as_bytes()).to_hex())
        });
        Ok(format!("{DIGEST_KEY}{digest}{mac}\",{}", &body[1..]))
    }
}

/// A tally file's text split: its digest, its MAC when it has one, and the JSON they cover;
/// `None` when it does not start as vpsim writes one.
struct Sealed<'a> {
    digest: &'a [u8],
    mac: Option<&'a [u8]>,
    body: Vec<u8>,
}

fn split_digest(bytes: &[u8]) -> Option<Sealed<'_>> {
    let rest = bytes.strip_prefix(DIGEST_KEY.as_bytes())?;
    let (digest, mut rest) = rest.split_at_checked(16)?;
    let mut mac = None;
    if let Some(after) = rest.strip_prefix(MAC_KEY.as_bytes()) {
        let (m, after) = after.split_at_checked(64)?;
        (mac, rest) = (Some(m), after);
    }
    let rest = rest.strip_prefix(b"\",")?;
    Some(Sealed {
        digest,
        mac,
        body: [b"{", rest].concat(),
    })
}

/// Reads `DIR/tally.json` with the shard key of the environment ([`ShardKey::from_env`]):
/// see [`read_tally_keyed`].
pub fn read_tally(
    dir: &Path,
    check: impl Fn(&Path, &TallyFile) -> Result<()>,
) -> Result<TallyFile> {
    read_tally_keyed(dir, ShardKey::from_env()?, check)
}

/// Reads `DIR/tally.json`: its version, then its keys and values, then `check` (which names
/// a value that cannot be), then its digest, so that an edit no check can see is refused too,
/// and, with a `key`, its MAC (a file without one, or one written with a key when there is
/// none now, is refused).
pub fn read_tally_keyed(
    dir: &Path,
    key: Option<ShardKey>,
    check: impl Fn(&Path, &TallyFile) -> Result<()>,
) -> Result<TallyFile> {
    // A tally's histograms are bounded (see `stats::Histogram`): real files are a few MB.
    const MAX_TALLY_BYTES: u64 = 256 * 1024 * 1024;
    let path = dir.join("tally.json");
    let bytes = read_limited(&path, MAX_TALLY_BYTES).map_err(|r| match r {
        Refused::Io(source) => Error::Usage(format!("cannot read {}: {source}", path.display())),
        _ => Error::Usage(format!(
            "{}: not a vpsim tally (not a regular file, or over {MAX_TALLY_BYTES} bytes)",
            path.display()
        )),
    })?;
    parse_tally(dir, &bytes, key, check)
}

/// A tally file's text as [`read_tally_keyed`] reads it (`dir` names it in messages and is
/// handed to `check`).
pub fn parse_tally(
    dir: &Path,
    bytes: &[u8],
    key: Option<ShardKey>,
    check: impl Fn(&Path, &TallyFile) -> Result<()>,
) -> Result<TallyFile> {
    let path = dir.join("tally.json");
    // The version first: another version's file may have other keys, and the message to give
    // then is which version to merge with.
    #[derive(Deserialize)]
    struct Written {
        vpsim_version: String,
    }
    let ours = env!("CARGO_PKG_VERSION");
    if let Ok(w) = serde_json::from_slice::<Written>(bytes)
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
    let Some(Sealed { digest, mac, body }) = split_digest(bytes) else {
        return Err(not_ours(
            "it does not start with the `digest` vpsim writes first".into(),
        ));
    };
    let refuse = |why: &str| Error::Usage(format!("{}: {why}", path.display()));
    // The key first: without the right one, nothing else in the file is worth reading.
    match (key, mac) {
        (None, None) => {}
        (None, Some(_)) => {
            return Err(refuse(&format!(
                "it was written with a shard key ({SHARD_KEY_VAR}): set the same key to read it"
            )));
        }
        (Some(_), None) => {
            return Err(refuse(&format!(
                "it has no `mac`, but {SHARD_KEY_VAR} is set: it was written without the key; \
                 run the shard again with it"
            )));
        }
        (Some(k), Some(m)) => {
            // `blake3::Hash` compares in constant time.
            let ok = blake3::Hash::from_hex(m).is_ok_and(|m| m == k.mac(&body));
            if !ok {
                return Err(refuse(&format!(
                    "`mac` does not match the file's contents: it was edited, or written with \
                     another {SHARD_KEY_VAR}"
                )));
            }
        }
    }
    let file: TallyFile = serde_json::from_slice(&body)
        .map_err(|e| not_ours(crate::scenario::plain_types(&e.to_string())))?;
    check(dir, &file)?;
    if digest != crate::scenario::compile::fnv1a(&body).as_bytes() {
        return Err(refuse(
            "`digest` does not match the file's contents; the file is damaged or was edited: \
             run the shard again",
        ));
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

    fn args(s: &str) -> Vec<String> {
        s.split(' ').map(String::from).collect()
    }

    #[test]
    fn a_missing_shard_is_run_with_its_own_index_and_folder() {
        let cmd = args("run s.toml --games 1000 --shard 2/4 --out shards/2 -q");
        assert_eq!(
            rerun_command(&cmd, 2, 3).unwrap(),
            "vpsim run s.toml --games 1000 --shard 3/4 --out shards/3 -q"
        );
        let cmd = args("run s.toml --shard=2/16 --out=out/shard-02/x");
        assert_eq!(
            rerun_command(&cmd, 2, 11).unwrap(),
            "vpsim run s.toml --shard=11/16 --out=out/shard-11/x"
        );
        // A folder without the shard's number is shown as DIR, not guessed.
        let cmd = args("run s.toml --shard 1/2 --out results");
        assert_eq!(
            rerun_command(&cmd, 1, 2).unwrap(),
            "vpsim run s.toml --shard 2/2 --out DIR"
        );
        assert_eq!(rerun_command(&args("run s.toml"), 1, 2), None);
    }

    #[test]
    fn renumbering_takes_the_last_number_that_is_the_shard() {
        assert_eq!(renumber("r7/shard-3", 3, 4).as_deref(), Some("r7/shard-4"));
        assert_eq!(renumber("r3/shard-3", 3, 4).as_deref(), Some("r3/shard-4"));
        assert_eq!(renumber("s/003", 3, 12).as_deref(), Some("s/012"));
        assert_eq!(renumber("s/x", 3, 4), None);
    }
}
