//! The fuzz harness's `hardening` attack: the inputs of the fourth hardening round, each with
//! a check of its own.
//!
//! - `label`: a faction label or title of 199 to 100,000 characters: up to 200 it runs, with
//!   a report, beyond it is refused (exit 2) at its line.
//! - `state`: faction variables over a 255x257 grid with 16 factions: one fits the state's
//!   limit and runs, two are refused (exit 2) naming the second.
//! - `setup`: random initial values over a 128x128 grid, and a template over all of it, on
//!   either engine: it runs.
//! - `link`: a link planted in the report folder while the games run, where the report
//!   puts `csv/`: nothing is written through it (its target stays empty).
//! - `name`: a scenario file whose name holds a line break and Markdown: no line of the
//!   terminal's or report.md's text starts with the injected heading.
//! - `key`: `VPSIM_SHARD_KEY` set but empty, on `run --shard` and `merge`: exit 2 naming it.
//! - `full`: a report written into a 2 MB file system (where this machine can mount one)
//!   over an earlier report: it fails (exit 1) or fits, and the earlier report is whole or
//!   replaced whole, with no staging folder left.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use super::{RACE, race, snapshot};
use crate::fuzz::{Case, Run, exec, exec_keyed, pick};

/// Strings of `args`.
fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

/// The race scenario with `[scenario]` and `[[faction]]`'s first table given `head` and
/// `faction` lines.
fn race_with(head: &str, faction: &str) -> String {
    std::fs::read_to_string(RACE)
        .unwrap()
        .replacen("[scenario]\n", &format!("[scenario]\n{head}"), 1)
        .replacen(
            "name = \"First\"\n",
            &format!("name = \"First\"\n{faction}"),
            1,
        )
}

/// A grid scenario of `factions` factions and `vars` faction variables over a `rows` x
/// `cols` grid, each with initial values `init`, and a template over the grid.
fn grid(factions: usize, vars: usize, (rows, cols): (usize, usize), init: &str) -> String {
    let mut s = String::from("[scenario]\nname = \"grid\"\nrounds = 2\n");
    for f in 0..factions {
        let _ = writeln!(s, "\n[[faction]]\nname = \"F{f}\"");
    }
    let _ = writeln!(s, "\n[[set]]\nname = \"g\"\ngrid = [{rows}, {cols}]");
    for v in 0..vars {
        let _ = writeln!(
            s,
            "\n[[var]]\nname = \"v{v}\"\nover = \"g\"\ninit = \"{init}\""
        );
    }
    let _ = writeln!(
        s,
        "\n[[var]]\nname = \"vp\"\n\n[[phase]]\nname = \"p\"\neach = \"faction\"\n\
         effects = [\"for e in g: v0[e] += 1\", \"vp += v0[r1c2]\"]\n\n[ranking]\nscore = \"vp\""
    );
    s
}

/// Runs `vpsim run FILE --games 5` on `engine`, for a generated scenario `text`.
fn run_text(dir: &Path, name: &str, text: &str, extra: &[&str]) -> (Vec<String>, Run) {
    let file = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let mut args = strings(&["run", &file.to_string_lossy(), "--games", "5", "-q"]);
    args.extend(strings(extra));
    let run = exec(&args, dir);
    (args, run)
}

/// A case of the `hardening` attack: see the module's doc.
pub(crate) fn hardening(rng: &mut ChaCha8Rng, dir: &Path) -> Case {
    let mut problem = None;
    let (args, run) = match rng.random_range(0..7) {
        0 => {
            let n = *pick(rng, &[199usize, 200, 201, 65_536, 100_000]);
            let long = "W".repeat(n);
            let text = match rng.random_range(0..2) {
                0 => race_with(&format!("title = \"{long}\"\n"), ""),
                _ => race_with("", &format!("label = \"{long}\"\n")),
            };
            let out = dir.join("out").to_string_lossy().to_string();
            let (args, run) = run_text(dir, "long.toml", &text, &["--out", &out]);
            let want = if n <= 200 { 0 } else { 2 };
            if run.code != Some(want) {
                problem = Some(format!(
                    "a text of {n} characters: exit {:?}, not {want}",
                    run.code
                ));
            }
            (args, run)
        }
        1 => {
            let vars = *pick(rng, &[1usize, 2]);
            let text = grid(16, vars, (255, 257), "0");
            let (args, run) = run_text(dir, "state.toml", &text, &[]);
            let want = if vars == 1 { 0 } else { 2 };
            if run.code != Some(want) || (want == 2 && !run.stderr.contains("`v1`")) {
                problem = Some(format!(
                    "{vars} variables over the largest grid: exit {:?}, not {want}",
                    run.code
                ));
            }
            (args, run)
        }
        2 => {
            let engine = *pick(rng, &["native", "interp"]);
            let text = grid(2, 1, (128, 128), "d2");
            let (args, run) = run_text(dir, "setup.toml", &text, &["--engine", engine]);
            if run.code != Some(0) {
                problem = Some(format!(
                    "a 128x128 grid with random values: exit {:?}",
                    run.code
                ));
            }
            (args, run)
        }
        3 => planted_link(rng, dir, &mut problem),
        4 => {
            let file = dir.join("ra`ce\n# Injected [x](javascript:alert(1)).toml");
            std::fs::copy(RACE, &file).unwrap();
            let out = dir.join("out");
            let args = strings(&[
                "run",
                &file.to_string_lossy(),
                "--games",
                "20",
                "--out",
                &out.to_string_lossy(),
            ]);
            let run = exec(&args, dir);
            let md = std::fs::read_to_string(out.join("report.md")).unwrap_or_default();
            let stdout = String::from_utf8_lossy(&run.stdout).to_string();
            let injected = |t: &str| t.lines().any(|l| l.starts_with("# Injected"));
            if run.code != Some(0) || injected(&md) || injected(&stdout) || injected(&run.stderr) {
                problem = Some(format!(
                    "a file name with a line break: exit {:?}, or a line of it set apart",
                    run.code
                ));
            }
            (args, run)
        }
        5 => {
            let shard = dir.join("s1").to_string_lossy().to_string();
            let args = match rng.random_range(0..2) {
                0 => strings(&[
                    "run",
                    &race(),
                    "--games",
                    "20",
                    "--shard",
                    "1/2",
                    "--out",
                    &shard,
                ]),
                _ => strings(&["merge", &shard]),
            };
            let run = exec_keyed(&args, dir, Some(""));
            if run.code != Some(2) || !run.stderr.contains("VPSIM_SHARD_KEY") {
                problem = Some(format!("an empty shard key: exit {:?}", run.code));
            }
            (args, run)
        }
        _ => full_disk(dir, &mut problem),
    };
    Case {
        kind: "hardening",
        args,
        run,
        extra: problem,
    }
}

/// `link`: plants `out/csv` as a link to an empty folder while `run --csv` plays.
fn planted_link(
    rng: &mut ChaCha8Rng,
    dir: &Path,
    problem: &mut Option<String>,
) -> (Vec<String>, Run) {
    let out = dir.join("out");
    let target = dir.join("target");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&target).unwrap();
    let games = *pick(rng, &["20000", "200000"]);
    let args = strings(&[
        "run",
        &race(),
        "--games",
        games,
        "--threads",
        "1",
        "-q",
        "--csv",
        "--out",
        &out.to_string_lossy(),
    ]);
    let child = Command::new(crate::fuzz::bin())
        .args(&args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(rng.random_range(0..150)));
    let _ = std::os::unix::fs::symlink(&target, out.join("csv"));
    let output = child.wait_with_output().unwrap();
    if !snapshot(&target).is_empty() {
        *problem = Some("a write went through a link planted during the run".into());
    }
    let run = Run {
        code: output.status.code(),
        stdout: Vec::new(),
        stderr: String::from_utf8_lossy(&output.stderr).to_string(),
        timed_out: false,
    };
    (args, run)
}

/// `full`: a report into a 2 MB file system over an earlier report.
fn full_disk(dir: &Path, problem: &mut Option<String>) -> (Vec<String>, Run) {
    let mount = dir.join("small");
    std::fs::create_dir_all(&mount).unwrap();
    let mounted = crate::util::mount_tmpfs(&mount, "size=2m");
    let out = mount.join("out").to_string_lossy().to_string();
    let first = exec(
        &strings(&["run", &race(), "--games", "20", "-q", "--out", &out]),
        dir,
    );
    let before = snapshot(Path::new(&out));
    let args = strings(&[
        "run",
        &race(),
        "--games",
        "30000",
        "-q",
        "--force",
        "--games-table",
        "--csv",
        "--out",
        &out,
    ]);
    let run = exec(&args, dir);
    let after = snapshot(Path::new(&out));
    let staged = after
        .keys()
        .any(|k| k.starts_with(".vpsim-") && k.contains(".tmp"));
    let whole = match run.code {
        Some(0) => after.contains_key("report.md") && after.contains_key("games.parquet"),
        _ => after == before,
    };
    if mounted {
        let _ = Command::new("umount").arg(&mount).status();
    }
    if first.code != Some(0) || staged || !whole || !matches!(run.code, Some(0 | 1)) {
        *problem = Some(format!(
            "a full disk (mounted: {mounted}): exit {:?}; staging left: {staged}; the earlier report whole or replaced whole: {whole}",
            run.code
        ));
    }
    (args, run)
}
