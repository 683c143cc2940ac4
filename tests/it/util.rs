//! Helpers shared by the test modules: the `vpsim` binary, scratch paths, the seed
//! scenarios, and the checks that more than one module makes.
//!
//! Every test runs in this one process, so every scratch path is made here, named
//! `vpsim-<name>-<process id>` in the system's temporary folder: the process id no longer
//! tells the modules apart, and two tests that asked for the same name would share a folder.
//! Give each test a name of its own (a module's name as a prefix keeps them apart).

use std::path::PathBuf;

use assert_cmd::Command;
use vpsim::engine::Game;

/// The Twilight Imperium 4 seed scenario, relative to the package root (the tests' working
/// folder).
pub const TI4: &str = "scenarios/twilight_imperium_4.toml";

/// Leaving the game in the middle of a turn, `discard` of a completed card, a `for held`
/// inside another and real settings far from 1, as the README states them.
pub const TURNS_AND_HANDS: &str = include_str!("../data/turns_and_hands.toml");
/// Immediate end conditions checked at the end of each statement list, with examples.
pub const ONE_MOMENT: &str = include_str!("../data/one_moment.toml");

/// Two factions; each round A then B takes `safe` (+1) or `risky` (+4 with chance 1/4); the
/// higher score wins, a tie goes to the first seat (the skilled-play tests' small game).
pub const SAFE_OR_RISKY: &str = include_str!("../data/safe_or_risky.toml");

/// Runs vpsim with `args` (a command ending in `--json`), expecting success; its JSON.
pub fn json_of(args: &[&str]) -> serde_json::Value {
    let out = vpsim_output(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `vpsim run` with `args` (which name the scenario and games, without `--json`) played as
/// `shards` shards into folders under a scratch path named `name`, then merged: the merged
/// `--json` report without its `performance` part.
pub fn merged_shards(name: &str, args: &[&str], shards: u32) -> serde_json::Value {
    let dir = fresh_temp_dir(name);
    for k in 1..=shards {
        vpsim()
            .arg("run")
            .args(args)
            .args(["--quiet", "--shard"])
            .arg(format!("{k}/{shards}"))
            .arg("--out")
            .arg(dir.join(k.to_string()))
            .assert()
            .success();
    }
    let merged = vpsim()
        .arg("merge")
        .args((1..=shards).map(|k| dir.join(k.to_string())))
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    without_performance(&merged.stdout)
}

/// Reproducibility, whole: `vpsim run` with `args` (the scenario and its options, without
/// `--json`, threads, engine or shard) gives one `--json` report, apart from its
/// `performance` part, on one thread and on two, on the interpreter, and as `shards` shards
/// merged (their folders under a scratch path named `name`). Every run counts usage, as a
/// shard's report folder does. Returns that report.
pub fn same_everywhere(name: &str, args: &[&str], shards: u32) -> serde_json::Value {
    let run = |extra: &[&str]| {
        let all = [&["run"], args, &["--usage", "--json", "--quiet"], extra].concat();
        let out = vpsim_output(&all);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        without_performance(&out.stdout)
    };
    let one = run(&["--threads", "1"]);
    for other in [
        &["--threads", "2"][..],
        &["--threads", "2", "--engine", "interp"],
    ] {
        assert_eq!(run(other), one, "{args:?} with {other:?}");
    }
    let merged = merged_shards(name, args, shards);
    assert_eq!(merged, one, "{args:?} as {shards} shards");
    one
}

/// Faction `f`'s win rate and the number of games of a `run --json` report.
pub fn win_rate(v: &serde_json::Value, f: usize) -> (f64, u64) {
    let w = &v["factions"][f]["win"];
    (w["rate"].as_f64().unwrap(), w["n"].as_u64().unwrap())
}

/// The `vpsim` binary under test, as an `assert_cmd` command with no arguments yet.
pub fn vpsim() -> Command {
    Command::cargo_bin("vpsim").unwrap()
}

/// Runs the `vpsim` binary with `args` and returns how it ended: status, stdout and stderr.
pub fn vpsim_output(args: &[&str]) -> std::process::Output {
    vpsim().args(args).output().unwrap()
}

/// A JSON report (`--json` output) without its `performance` part, the only part that may
/// differ between identical runs.
pub fn without_performance(bytes: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(bytes).unwrap();
    v.as_object_mut().unwrap().remove("performance");
    v
}

/// The scratch path `vpsim-<name>-<process id>` in the system's temporary folder, as it is:
/// neither created nor emptied.
pub fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("vpsim-{name}-{}", std::process::id()))
}

/// [`temp_path`] with whatever an earlier use left there removed, and not created (for an
/// `--out` that vpsim creates itself).
pub fn fresh_temp_path(name: &str) -> PathBuf {
    let d = temp_path(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// [`fresh_temp_path`], created as an empty folder.
pub fn fresh_temp_dir(name: &str) -> PathBuf {
    let d = fresh_temp_path(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `text` to `vpsim-<name>-<process id>.toml` in the system's temporary folder and
/// returns its path.
pub fn temp_scenario(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("vpsim-{name}-{}.toml", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

/// The seed scenarios: every `.toml` file in `scenarios/`, sorted by path.
pub fn scenario_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir("scenarios")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    files
}

/// Loads the scenario file at `path` (relative to the package root), which must be valid.
pub fn load_scenario(path: &str) -> vpsim::Model {
    vpsim::scenario::load(std::path::Path::new(path)).unwrap()
}

/// Runs every worked example (`[[example]]`) of `m` in one game, in order, and asserts that
/// each passes, naming the first that fails and why.
#[track_caller]
pub fn assert_examples_pass(m: &vpsim::Model) {
    let mut g = Game::new(m);
    for i in 0..m.examples.len() {
        let r = g.run_example(i);
        assert!(r.passed(), "{}: {:?}", r.name, r.failures);
    }
}

/// P(the first seat wins) a race to 3 points in which, each round, the first seat scores a
/// point with probability `p` and the second with `q`, a same-round finish going to the
/// first: exact, by dynamic programming over (first's points, second's points).
pub fn first_seat_wins(p: f64, q: f64) -> f64 {
    let mut w = [[0.0f64; 4]; 4];
    for a in (0..=3).rev() {
        for b in (0..=3).rev() {
            w[a][b] = if a == 3 {
                1.0
            } else if b == 3 {
                0.0
            } else {
                let stay = (1.0 - p) * (1.0 - q);
                (p * q * w[a + 1][b + 1]
                    + p * (1.0 - q) * w[a + 1][b]
                    + (1.0 - p) * q * w[a][b + 1])
                    / (1.0 - stay)
            };
        }
    }
    w[0][0]
}

/// Starts the binary with `args`, sends it `signal` (`"INT"`, `"TERM"`) 1.5 s later, and
/// returns its output and how long it took to end after the signal.
pub fn interrupted<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    signal: &str,
) -> (std::process::Output, std::time::Duration) {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let sent = std::time::Instant::now();
    std::process::Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (out, sent.elapsed())
}

/// `vpsim test` passes every worked example of `path` on both engines.
pub fn examples_pass_on_both(path: impl AsRef<std::path::Path>) {
    for engine in ["native", "interp"] {
        let out = vpsim()
            .arg("test")
            .arg(path.as_ref())
            .args(["--engine", engine])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{} on {engine}: {}{}",
            path.as_ref().display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The lines of rules of a scenario file: not blank, not comments, before its examples.
pub fn rule_lines(path: &str) -> usize {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .take_while(|l| l.trim() != "[[example]]")
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .count()
}

/// `run --json` of `path` on `engine`, as JSON, with the run's speed removed.
pub fn engine_json(path: &std::path::Path, engine: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "run",
        path.to_str().unwrap(),
        "--games",
        "2000",
        "--json",
        "-q",
    ];
    args.extend(["--engine", engine]);
    args.extend(extra);
    let out = vpsim_output(&args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["performance"] = serde_json::Value::Null;
    v
}

/// Both engines give the same JSON for `path`, which is returned.
pub fn same_on_both(path: &std::path::Path, extra: &[&str]) -> serde_json::Value {
    let native = engine_json(path, "native", extra);
    assert_eq!(
        native,
        engine_json(path, "interp", extra),
        "{}",
        path.display()
    );
    native
}

/// Faction `f`'s win rate over `games` games of `text` with `agents`.
pub fn rate_of(name: &str, text: &str, agents: &[&str], games: &str, f: usize) -> (f64, u64) {
    let path = temp_scenario(name, text);
    let mut args = vec!["run", path.to_str().unwrap(), "--games", games];
    for a in agents {
        args.extend(["--agent", a]);
    }
    args.extend(["--json", "--quiet"]);
    win_rate(&json_of(&args), f)
}

/// Asserts that a rate over `n` games is within 4 standard errors of `exact`.
pub fn near(what: &str, (rate, n): (f64, u64), exact: f64) {
    let se = (exact * (1.0 - exact) / n as f64)
        .sqrt()
        .max(0.5 / n as f64);
    assert!(
        (rate - exact).abs() < 4.0 * se,
        "{what}: {rate} over {n} games against an exact {exact} (se {se})"
    );
}

/// Mounts a tmpfs at `dir` with `options` (`size=3m`, `remount,ro`, or none), or says it
/// could not: only root mounts a file system, so a test that needs one says where it cannot.
pub fn mount_tmpfs(dir: &std::path::Path, options: &str) -> bool {
    let mut cmd = std::process::Command::new("mount");
    if !options.starts_with("remount") {
        cmd.args(["-t", "tmpfs"]);
    }
    if !options.is_empty() {
        cmd.args(["-o", options]);
    }
    if !options.starts_with("remount") {
        cmd.arg("tmpfs");
    }
    cmd.arg(dir)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
