//! Every shell example in README.md and in `vpsim <command> --help` runs as shown.
//!
//! The README's ```sh blocks run in order, with bash, in one scratch folder that sees the
//! repository's `scenarios/` (so the tutorial's later steps find the files its earlier steps
//! wrote). `vpsim` on the PATH is the binary under test behind a wrapper that caps `--games`
//! at 2,000, so the examples run in seconds; nothing else about them changes. `cargo`
//! commands (build, install, test, bench) and profiler lines are left to the reader.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::fresh_temp_path;

/// Writes the `vpsim` wrapper into `dir`.
fn wrapper(dir: &Path) {
    let script = format!(
        r#"#!/usr/bin/env bash
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --games|-n)
      if [[ "$2" =~ ^[0-9]+$ ]] && [ "$2" -gt 2000 ]; then args+=("$1" 2000); else args+=("$1" "$2"); fi
      shift 2;;
    *) args+=("$1"); shift;;
  esac
done
exec "{}" "${{args[@]}}"
"#,
        env!("CARGO_BIN_EXE_vpsim")
    );
    let path = dir.join("vpsim");
    std::fs::write(&path, script).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// The ```sh blocks of a Markdown file, with the line each starts on.
fn sh_blocks(markdown: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        match (&mut current, line.trim_start().starts_with("```")) {
            (None, true) if line.trim() == "```sh" => current = Some((i + 1, String::new())),
            (Some(_), true) => blocks.push(current.take().unwrap()),
            (Some((_, text)), false) => {
                text.push_str(line);
                text.push('\n');
            }
            _ => {}
        }
    }
    blocks
}

/// A block as it is run: `cargo run --release --` is the binary; other cargo commands and
/// profiler runs are skipped.
fn runnable(block: &str) -> String {
    block
        .lines()
        .map(|l| l.replace("cargo run --release -- ", "vpsim "))
        .map(|l| watch_briefly(&l))
        .filter(|l| {
            let t = l.trim_start();
            !(t.starts_with("cargo ") || t.starts_with("valgrind "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `vpsim watch` runs until Ctrl-C: the test presses it (SIGINT) after 20 seconds (a loaded
/// machine running the debug build needed more than 8), and the
/// example must then have run its first version and stopped with exit 0.
fn watch_briefly(line: &str) -> String {
    match line.trim_start().strip_prefix("vpsim watch ") {
        Some(rest) => format!(
            "timeout --foreground --preserve-status -s INT 20 vpsim watch {rest} | grep '^version 1: ' > /dev/null"
        ),
        None => line.to_string(),
    }
}

fn scratch(name: &str) -> (PathBuf, PathBuf) {
    let root = fresh_temp_path(name);
    let bin = root.join("bin");
    let work = root.join("work");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    wrapper(&bin);
    let here = std::env::current_dir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(here.join("scenarios"), work.join("scenarios")).unwrap();
    (bin, work)
}

fn run_bash(script: &str, bin: &Path, work: &Path) -> std::process::Output {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(work)
        .env("PATH", path)
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap()
}

#[test]
fn every_readme_shell_example_runs() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let blocks = sh_blocks(&readme);
    assert!(blocks.len() >= 8, "only {} sh blocks", blocks.len());
    let (bin, work) = scratch("readme");
    for (line, block) in &blocks {
        let script = runnable(block);
        let out = run_bash(&script, &bin, &work);
        assert!(
            out.status.success(),
            "README.md:{line}: this example failed ({:?}):\n{script}\nstderr:\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(work.parent().unwrap());
}

#[test]
fn every_help_example_runs() {
    let (bin, work) = scratch("help");
    let commands = [
        "run",
        "validate",
        "trace",
        "test",
        "merge",
        "check",
        "compare",
        "sweep",
        "sensitivity",
        "schema",
        "watch",
        "exploit",
        "ladder",
    ];
    let mut ran = 0;
    for cmd in commands {
        let help = Command::new(env!("CARGO_BIN_EXE_vpsim"))
            .args([cmd, "--help"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&help.stdout).to_string();
        let examples: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("Example"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .collect();
        assert!(
            !examples.is_empty(),
            "`vpsim {cmd} --help` shows no example"
        );
        // Each line as written; a trailing comment is the reader's, not the shell's.
        let script = examples
            .iter()
            .map(|l| watch_briefly(l.split("  #").next().unwrap_or(l).trim()))
            .collect::<Vec<_>>()
            .join("\n");
        let out = run_bash(&script, &bin, &work);
        assert!(
            out.status.success(),
            "`vpsim {cmd} --help` example failed:\n{script}\nstderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran += examples.len();
        let _ = std::fs::remove_dir_all(work.join("reports"));
        let _ = std::fs::remove_dir_all(work.join("shards"));
    }
    assert!(ran >= 12, "{ran} examples");
    let _ = std::fs::remove_dir_all(work.parent().unwrap());
}
