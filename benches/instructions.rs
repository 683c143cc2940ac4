//! Instructions a game, the stable speed measure on a noisy machine: callgrind counts the
//! instructions of `vpsim run S --games 10001 --threads 1 --quiet` and of the same run with
//! `--games 1`, and the difference over 10,000 is what one game costs (compiling, loading
//! and the report cancel out). It does so for TI4 (with the terminal table and with
//! `--json`, which records every round), Azul, Pax Romana and Terrus on the native engine,
//! and for the hand-written program of the TI4 model (`ti4_reference.rs`, the same games),
//! then prints TI4's ratio to it.
//!
//! Run: `cargo bench --bench instructions` (release build; needs valgrind: `apt-get install
//! valgrind`; about five minutes). `cargo test --benches` only checks that the commands run.
//! Timed benches are `cargo bench --bench games`.
#![allow(clippy::print_stderr, reason = "a bench prints what it measured")]

#[allow(unreachable_pub, reason = "pub where the file is its own bench target")]
mod ti4_reference;

use std::process::Command;

/// Games of the long run; the short run plays one, so the difference is this less one.
const GAMES: u64 = 10_001;
/// The seed of every run (vpsim's default, and the reference's).
const SEED: u64 = 2026;

/// The scenarios measured, with the extra arguments of each run.
const RUNS: [(&str, &[&str]); 5] = [
    ("twilight_imperium_4", &[]),
    ("twilight_imperium_4", &["--json"]),
    ("azul", &[]),
    ("pax_romana", &[]),
    ("terrus", &[]),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    // The hand-written program's games, as callgrind runs this binary for them.
    if let [_, what, n] = &args[..]
        && what == "reference"
    {
        let n: u64 = n.parse().expect("a number of games");
        let mut vp = 0;
        for i in 0..n {
            vp += std::hint::black_box(ti4_reference::play(SEED, i)).vp[0];
        }
        std::hint::black_box(vp);
        return;
    }
    let vpsim = env!("CARGO_BIN_EXE_vpsim");
    let scenario = |name: &str| format!("{}/scenarios/{name}.toml", env!("CARGO_MANIFEST_DIR"));
    // `cargo test --benches` runs this without `--bench`: each command runs once, uncounted.
    if !args.iter().any(|a| a == "--bench") {
        for (name, extra) in RUNS {
            let out = vpsim_run(vpsim, &scenario(name), 3, extra).output();
            let out = out.expect("vpsim starts");
            assert!(out.status.success(), "{name}: {out:?}");
        }
        ti4_reference::play(SEED, 0);
        return;
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!(
            "instructions: valgrind is not installed (apt-get install valgrind); nothing measured"
        );
        return;
    }
    eprintln!("instructions a game ({GAMES} games minus 1, one thread, seed {SEED}):");
    let mut ti4 = 0.0;
    for (name, extra) in RUNS {
        let path = scenario(name);
        let per_game = per_game(|n| vpsim_run(vpsim, &path, n, extra));
        if name == "twilight_imperium_4" && extra.is_empty() {
            ti4 = per_game;
        }
        eprintln!(
            "  {:<32} {per_game:>10.0}",
            format!("{name} {}", extra.join(" "))
        );
    }
    let me = std::env::current_exe().expect("the bench's own path");
    let reference = per_game(|n| {
        let mut c = Command::new(&me);
        c.args(["reference", &n.to_string()]);
        c
    });
    eprintln!("  {:<32} {reference:>10.0}", "TI4, hand-written");
    eprintln!("TI4: vpsim / hand-written = {:.2}", ti4 / reference);
}

/// `vpsim run PATH --games N --threads 1 --quiet EXTRA...`.
fn vpsim_run(vpsim: &str, path: &str, games: u64, extra: &[&str]) -> Command {
    let mut c = Command::new(vpsim);
    c.args(["run", path, "--games", &games.to_string(), "--threads", "1"]);
    c.args(["--seed", &SEED.to_string(), "--quiet"]).args(extra);
    c
}

/// Instructions one game costs: callgrind's count of the command `of(GAMES)` less that of
/// `of(1)`, over `GAMES - 1`.
fn per_game(of: impl Fn(u64) -> Command) -> f64 {
    let long = instructions(of(GAMES));
    let short = instructions(of(1));
    long.saturating_sub(short) as f64 / (GAMES - 1) as f64
}

/// The instructions callgrind counts for `cmd` (its "Collected" line), its output
/// discarded.
fn instructions(cmd: Command) -> u64 {
    let mut v = Command::new("valgrind");
    v.args(["--tool=callgrind", "--callgrind-out-file=/dev/null"]);
    v.arg(cmd.get_program()).args(cmd.get_args());
    let out = v.output().expect("valgrind starts");
    assert!(out.status.success(), "{:?}: {out:?}", cmd);
    let err = String::from_utf8_lossy(&out.stderr);
    err.lines()
        .find_map(|l| l.split("Collected : ").nth(1))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no instruction count in callgrind's output: {err}"))
}
