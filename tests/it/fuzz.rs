//! A deterministic fuzz harness: seeded mutations of the committed scenarios, of command
//! lines and of shard files, each run through the `vpsim` binary, and the attacks of
//! [`crate::fuzz_attacks`]: report folders that hold the user's files, hostile report text,
//! and scenario sizes.
//!
//! Every case must end with exit code 0, 1 or 2 (never a panic, an abort or a signal), and
//! every failing case must say where: a `file:line:column`, a flag, or the file it read. An
//! attack adds checks of its own (see its module).
//! `cargo test` runs a few hundred cases; `VPSIM_FUZZ_CASES=100000` runs as many as asked,
//! `VPSIM_FUZZ_FIRST=N` starts at case N, and `VPSIM_BIN=path` tests another build of the
//! binary (for example the release one). Case `i` depends only on `i`, so a failure is
//! reproduced by running that case alone. The outcome table is printed at the end
//! (`cargo test --test it fuzz:: -- --nocapture`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use crate::fuzz_attacks;
use crate::util::{scenario_files, temp_path};

/// Values that sit on the edges of what the engine accepts.
const EDGES: [&str; 22] = [
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "100000",
    "100001",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "0.5",
    "-0.5",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "true",
];

/// Fragments spliced into formulas.
const FORMULA_BITS: [&str; 24] = [
    " + ",
    " * ",
    " / 0",
    " // 0",
    " % 0",
    "(",
    ")",
    "max_all(",
    "sum_all(",
    "uniform(0, 1000000000)",
    "dice(1000000, 6)",
    "9223372036854775807",
    " * 9223372036854775807",
    "-",
    " if ",
    " else ",
    "==",
    "=",
    ";",
    "random()",
    "normal(0, 1)",
    "bernoulli(2)",
    "floor(1e300)",
    "abs(-9223372036854775807 - 1)",
];

/// Flags and the values they take.
const FLAGS: [&str; 20] = [
    "--games",
    "--seed",
    "--threads",
    "--set",
    "--out",
    "--force",
    "--json",
    "--quiet",
    "--shard",
    "--precision",
    "--games-table",
    "--assert",
    "--judge",
    "--alpha",
    "--delta",
    "--param",
    "--b-set",
    "--until-decided",
    "--game",
    "--junit",
];

const FLAG_VALUES: [&str; 24] = [
    "0",
    "1",
    "-1",
    "3",
    "1e6",
    "18446744073709551616",
    "1/2",
    "0/2",
    "3/2",
    "settings.p=0.5",
    "settings.p=2",
    "settings.nope=1",
    "faction.First.init.chance=-1",
    "settings.p",
    "settings.p=0,0.5,1",
    "settings.p=",
    "win_rate(First) > 0",
    "games / 0 > 1",
    "seat_advantage",
    "interval",
    "-",
    "",
    "nan",
    "/dev/null",
];

const COMMANDS: [&str; 9] = [
    "run",
    "validate",
    "trace",
    "test",
    "merge",
    "check",
    "compare",
    "sweep",
    "sensitivity",
];

pub(crate) fn bin() -> PathBuf {
    std::env::var_os("VPSIM_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_vpsim")))
}

/// Every seed scenario's and every round-three rule file's name and text (these use final
/// turns, game-end phases and automatic actions), sorted by path.
fn scenarios() -> Vec<(String, String)> {
    let mut files = scenario_files();
    let three = std::fs::read_dir("tests/data/round_three").unwrap();
    let mut more: Vec<PathBuf> = three.map(|e| e.unwrap().path()).collect();
    more.sort();
    files.extend(more);
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

pub(crate) fn pick<'a, T>(rng: &mut ChaCha8Rng, xs: &'a [T]) -> &'a T {
    &xs[rng.random_range(0..xs.len())]
}

/// One to three edits of a scenario's text: lines dropped, doubled or swapped, a value
/// replaced by an edge value, formula fragments spliced into a string, deep nesting, a
/// truncation, or stray bytes.
fn mutate_scenario(rng: &mut ChaCha8Rng, text: &str) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for _ in 0..rng.random_range(1..=3) {
        if lines.is_empty() {
            break;
        }
        let i = rng.random_range(0..lines.len());
        match rng.random_range(0..9) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                let j = rng.random_range(0..lines.len());
                lines.swap(i, j);
            }
            3 | 4 => {
                // Replace the value of a `key = value` line.
                if let Some((k, _)) = lines[i].split_once('=') {
                    lines[i] = format!("{k}= {}", pick(rng, &EDGES));
                }
            }
            5 | 6 => {
                // Splice a fragment inside a quoted formula.
                if let Some(q) = lines[i].find('"') {
                    let rest = &lines[i][q + 1..];
                    let at = q + 1 + rng.random_range(0..=rest.len());
                    if lines[i].is_char_boundary(at) {
                        let bit: &&str = pick(rng, &FORMULA_BITS);
                        lines[i].insert_str(at, bit);
                    }
                }
            }
            7 => {
                if let Some(q) = lines[i].find('"') {
                    let depth = *pick(rng, &[70usize, 1000, 20000]);
                    let deep = format!("{}1{}", "(".repeat(depth), ")".repeat(depth));
                    lines[i].insert_str(q + 1, &format!("{deep} + "));
                }
            }
            _ => {
                let cut = rng.random_range(0..=lines[i].len());
                if lines[i].is_char_boundary(cut) {
                    lines[i].truncate(cut);
                }
            }
        }
    }
    let mut bytes = lines.join("\n").into_bytes();
    if rng.random_range(0..20) == 0 {
        let at = rng.random_range(0..=bytes.len());
        bytes.insert(at, 0xff);
    }
    bytes
}

/// A tally.json with one field changed, removed or given a wrong type.
fn mutate_json(rng: &mut ChaCha8Rng, v: &mut serde_json::Value) {
    // Walk to a random leaf or container, noting the way as a JSON pointer.
    let mut ptr = String::new();
    let mut cur: &serde_json::Value = v;
    for _ in 0..rng.random_range(1..6) {
        let next = match cur {
            serde_json::Value::Object(m) if !m.is_empty() => {
                let k = m.keys().nth(rng.random_range(0..m.len())).unwrap();
                ptr.push('/');
                ptr.push_str(&k.replace('~', "~0").replace('/', "~1"));
                &m[k]
            }
            serde_json::Value::Array(a) if !a.is_empty() => {
                let i = rng.random_range(0..a.len());
                ptr.push_str(&format!("/{i}"));
                &a[i]
            }
            _ => break,
        };
        cur = next;
    }
    let Some(cur) = v.pointer_mut(&ptr) else {
        return;
    };
    *cur = match rng.random_range(0..8) {
        0 => serde_json::json!(0),
        1 => serde_json::json!(-1),
        2 => serde_json::json!(u64::MAX),
        3 => serde_json::json!(i64::MIN),
        4 => serde_json::json!("x"),
        5 => serde_json::json!(null),
        6 => serde_json::json!([]),
        _ => serde_json::json!(1e300),
    };
}

/// What one case ran and how it ended.
pub(crate) struct Case {
    pub(crate) kind: &'static str,
    pub(crate) args: Vec<String>,
    pub(crate) run: Run,
    /// What the case's own checks found wrong (an attack's), judged before its folder was
    /// removed.
    pub(crate) extra: Option<String>,
}

/// How one run of the binary ended.
pub(crate) struct Run {
    pub(crate) code: Option<i32>,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
    pub(crate) timed_out: bool,
}

/// Reads `r` to its end on a thread of its own, so that a full pipe never stalls the child.
fn drain<R: std::io::Read + Send + 'static>(mut r: R) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = std::io::Read::read_to_end(&mut r, &mut bytes);
        bytes
    })
}

/// Runs the binary with `args` in `dir`, killing it after 60 s.
pub(crate) fn exec(args: &[String], dir: &Path) -> Run {
    exec_keyed(args, dir, None)
}

/// [`exec`] with `key` as the shard key (`VPSIM_SHARD_KEY`), or none.
pub(crate) fn exec_keyed(args: &[String], dir: &Path, key: Option<&str>) -> Run {
    let mut cmd = Command::new(bin());
    cmd.env_remove(vpsim::report::SHARD_KEY_VAR);
    if let Some(key) = key {
        cmd.env(vpsim::report::SHARD_KEY_VAR, key);
    }
    let mut child = cmd
        .args(args)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "0")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the vpsim binary runs");
    let out = drain(child.stdout.take().unwrap());
    let err = drain(child.stderr.take().unwrap());
    let limit = std::time::Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if std::time::Instant::now() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    let stdout = out.join().unwrap_or_default();
    let stderr = String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned();
    Run {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        timed_out: status.is_none(),
    }
}

/// The shard key of the forged-shard cases.
const KEY: &str = "fuzz shard key";

/// The text of both shards' tally.json of a short race, written under `key` when given.
fn shard_texts(root: &Path, key: Option<&str>) -> Vec<String> {
    let dir = root.join(if key.is_some() { "keyed" } else { "plain" });
    let _ = std::fs::remove_dir_all(&dir);
    (1..=2)
        .map(|k| {
            let out = dir.join(k.to_string());
            let mut cmd = Command::new(bin());
            cmd.env_remove(vpsim::report::SHARD_KEY_VAR);
            if let Some(key) = key {
                cmd.env(vpsim::report::SHARD_KEY_VAR, key);
            }
            let status = cmd
                .args([
                    "run",
                    "scenarios/race_to_three.toml",
                    "--games",
                    "300",
                    "-q",
                ])
                .args(["--shard", &format!("{k}/2"), "--out"])
                .arg(&out)
                .stdout(std::process::Stdio::null())
                .status()
                .unwrap();
            assert!(status.success());
            std::fs::read_to_string(out.join("tally.json")).unwrap()
        })
        .collect()
}

/// A forged shard: one value of the first shard's tally.json edited and its digest made
/// anew, as anyone can; with a key the merge must refuse it (the MAC), without one it may
/// merge (the digest is a check against damage, not a signature) but must not crash.
fn forged_shard(rng: &mut ChaCha8Rng, dir: &Path, texts: &[Vec<String>; 2]) -> Case {
    let keyed = rng.random_range(0..2) == 0;
    let pair = &texts[keyed as usize];
    let first = &pair[0];
    let values = crate::shards::json_values(first);
    let at = values[rng.random_range(0..values.len())].clone();
    let text = format!(
        "{}{}{}",
        &first[..at.start],
        crate::shards::edited(&first[at.clone()]),
        &first[at.end..]
    );
    let text = match keyed {
        true => crate::shards::redigest_keyed(&text),
        false => crate::shards::redigest(&text),
    };
    let mut args = vec!["merge".to_string()];
    for (k, t) in [&text, &pair[1]].into_iter().enumerate() {
        let d = dir.join(format!("s{k}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("tally.json"), t).unwrap();
        args.push(d.to_string_lossy().to_string());
    }
    let run = exec_keyed(&args, dir, keyed.then_some(KEY));
    // An edit of the digest itself is undone by making the digest anew: no forgery then.
    let extra = (keyed && text != *first && run.code != Some(2)).then(|| {
        format!(
            "a keyed shard edited at byte {} with its digest made anew merged (exit {:?})",
            at.start, run.code
        )
    });
    Case {
        kind: "forged",
        args,
        run,
        extra,
    }
}

/// Case `i`, in a folder of its own under `root`, removed again once judged: `scen` are the
/// seed scenarios, `shards` two shard tallies, `scripts` the number of `<script>` elements
/// in a clean report.html.
fn case(
    i: u64,
    root: &Path,
    scen: &[(String, String)],
    shards: &[serde_json::Value],
    forged: &[Vec<String>; 2],
    scripts: usize,
) -> Case {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_f022 ^ i);
    let dir = root.join(format!("case{i}"));
    std::fs::create_dir_all(&dir).unwrap();
    let here = std::env::current_dir().unwrap();
    let abs = |p: &str| here.join(p).to_string_lossy().to_string();
    let roll = rng.random_range(0..100);
    if roll >= 80 {
        let c = match roll {
            80..87 => fuzz_attacks::folder(&mut rng, &dir),
            87..93 => fuzz_attacks::text(&mut rng, &dir, scripts),
            93..96 => fuzz_attacks::size(&mut rng, &dir),
            _ => fuzz_attacks::hardening(&mut rng, &dir),
        };
        let _ = std::fs::remove_dir_all(&dir);
        return c;
    }
    let (kind, args): (&'static str, Vec<String>) = if roll < 45 {
        let (name, text) = pick(&mut rng, scen);
        let file = dir.join(name);
        std::fs::write(&file, mutate_scenario(&mut rng, text)).unwrap();
        let f = file.to_string_lossy().to_string();
        let args: Vec<String> = match rng.random_range(0..5) {
            0 => vec!["validate".into(), f],
            1 => vec!["test".into(), f],
            2 => vec!["trace".into(), f, "--game".into(), "1".into()],
            _ => vec![
                "run".into(),
                f,
                "--games".into(),
                "3".into(),
                "--threads".into(),
                "1".into(),
                "-q".into(),
            ],
        };
        ("scenario", args)
    } else if roll < 65 {
        let cmd = *pick(&mut rng, &COMMANDS);
        let mut args = vec![cmd.to_string()];
        if cmd != "merge" {
            args.push(abs("scenarios/race_to_three.toml"));
        }
        if rng.random_range(0..4) > 0 {
            args.extend(["--games".into(), "50".into()]);
        }
        for _ in 0..rng.random_range(0..4) {
            args.push(pick(&mut rng, &FLAGS).to_string());
            if rng.random_range(0..5) > 0 {
                args.push(pick(&mut rng, &FLAG_VALUES).to_string());
            }
        }
        if matches!(cmd, "sweep" | "sensitivity") && !args.iter().any(|a| a == "--param") {
            args.extend(["--param".into(), pick(&mut rng, &FLAG_VALUES).to_string()]);
        }
        ("flags", args)
    } else if roll < 72 {
        let c = forged_shard(&mut rng, &dir, forged);
        let _ = std::fs::remove_dir_all(&dir);
        return c;
    } else {
        let mut dirs = Vec::new();
        for (k, tally) in shards.iter().enumerate() {
            let mut t = tally.clone();
            if k == 0 || rng.random_range(0..2) == 0 {
                mutate_json(&mut rng, &mut t);
            }
            let d = dir.join(format!("s{k}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("tally.json"), serde_json::to_string(&t).unwrap()).unwrap();
            dirs.push(d.to_string_lossy().to_string());
        }
        let mut args = vec!["merge".to_string()];
        args.extend(dirs);
        ("shards", args)
    };
    let run = exec(&args, &dir);
    let _ = std::fs::remove_dir_all(&dir);
    Case {
        kind,
        args,
        run,
        extra: None,
    }
}

/// What is wrong with a case's ending, if anything.
pub(crate) fn verdict(c: &Case) -> Option<String> {
    if c.run.timed_out {
        return Some("did not finish within 60 s".into());
    }
    let code = match c.run.code {
        Some(code) => code,
        None => return Some("killed by a signal (an abort or a crash)".into()),
    };
    if !matches!(code, 0..=2) {
        return Some(format!("exit code {code}"));
    }
    let stderr = &c.run.stderr;
    if stderr.contains("panicked") || stderr.contains("RUST_BACKTRACE") {
        return Some("a panic reached the user".into());
    }
    if code != 0 {
        let located = stderr.split(|ch: char| ch.is_whitespace()).any(|w| {
            // file:line:column
            let parts: Vec<&str> = w.trim_end_matches(':').rsplitn(3, ':').collect();
            parts.len() == 3 && parts[0].parse::<u64>().is_ok() && parts[1].parse::<u64>().is_ok()
        });
        // A flag, or an environment variable (`VPSIM_SHARD_KEY`), by name.
        let flagged = stderr.contains("--") || stderr.contains("'-") || stderr.contains("VPSIM_");
        // A file or value named as typed (`cannot read scenario 3/2`), or a check by name.
        let names_file = stderr.contains('`')
            || c.args.iter().skip(1).any(|a| {
                let base = Path::new(a)
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string());
                stderr.contains(&format!(" {a}"))
                    || base.is_some_and(|b| !b.is_empty() && stderr.contains(&format!(" {b}")))
            });
        if !(located || flagged || names_file) {
            return Some("the error names no location, flag or file".into());
        }
    }
    c.extra.clone()
}

#[test]
fn no_input_crashes_vpsim() {
    let cases: u64 = std::env::var("VPSIM_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(240);
    let first: u64 = std::env::var("VPSIM_FUZZ_FIRST")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let root = temp_path("fuzz");
    std::fs::create_dir_all(&root).unwrap();
    let scen = scenarios();
    let plain = shard_texts(&root, None);
    let shards: Vec<serde_json::Value> = plain
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect();
    let forged = [plain, shard_texts(&root, Some(KEY))];
    let scripts = fuzz_attacks::clean_scripts(&root);
    let results: Vec<(String, Option<String>)> = (first..first + cases)
        .into_par_iter()
        .map(|i| {
            let c = case(i, &root, &scen, &shards, &forged, scripts);
            let code = match (c.run.timed_out, c.run.code) {
                (true, _) => "timeout".to_string(),
                (_, Some(code)) => code.to_string(),
                (_, None) => "signal".to_string(),
            };
            let problem = verdict(&c).map(|why| {
                format!(
                    "case {i} ({}): {why}\n  vpsim {}\n  {}",
                    c.kind,
                    c.args.join(" "),
                    c.run.stderr.trim().replace('\n', "\n  ")
                )
            });
            (format!("{} exit {code}", c.kind), problem)
        })
        .collect();
    let _ = std::fs::remove_dir_all(&root);
    let mut table: BTreeMap<&str, u64> = BTreeMap::new();
    for (k, _) in &results {
        *table.entry(k).or_default() += 1;
    }
    println!("fuzz: cases {first}..{}", first + cases);
    for (k, n) in &table {
        println!("  {k:<20} {n:>8}");
    }
    let problems: Vec<&String> = results.iter().filter_map(|(_, p)| p.as_ref()).collect();
    assert!(
        problems.is_empty(),
        "{} of {cases} cases failed:\n{}",
        problems.len(),
        problems
            .iter()
            .take(20)
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
}
