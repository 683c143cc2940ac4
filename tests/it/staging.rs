//! A report is put in place whole or not at all: it is written into a staging folder that
//! only this run made inside the report folder, and swapped in once complete. A failure
//! part way (a full disk, a place taken), a signal while the report is written, or a link
//! planted in the report folder while the games run leaves the folder as it was before the
//! run, and nothing is ever written through a planted link.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::fuzz_attacks::snapshot;
use crate::util::{TI4, fresh_temp_dir, fresh_temp_path, mount_tmpfs, vpsim};

/// The names in `dir` of the staging folders and temporary files a run makes.
fn staged_names(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.starts_with(".vpsim-") && n.ends_with(".tmp"))
                .collect()
        })
        .unwrap_or_default()
}

/// Starts `vpsim ARGS` with its error output captured.
fn start(args: &[&str], out: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits (at most a minute) until `dir` holds a staging folder with `file` in it, and
/// returns the staging folder.
fn wait_for_staged(dir: &Path, file: &str) -> PathBuf {
    let t = Instant::now();
    loop {
        for n in staged_names(dir) {
            let stage = dir.join(&n);
            if stage.join(file).exists() {
                return stage;
            }
        }
        assert!(t.elapsed() < Duration::from_secs(60), "no staged {file}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// An earlier report in a fresh folder: TI4, 200 games.
fn earlier_report(name: &str) -> PathBuf {
    let dir = fresh_temp_path(name);
    vpsim()
        .args(["run", TI4, "--games", "200", "-q", "--out"])
        .arg(&dir)
        .assert()
        .success();
    dir
}

const LONG: [&str; 7] = ["run", TI4, "--games", "3000000", "--threads", "1", "-q"];

/// A link planted in the locked report folder while the games run, where the report will
/// put its `csv/` folder, is never written through: the report is refused (exit 1, naming
/// the link), the link's target stays empty, and the earlier report stays whole.
#[test]
fn a_link_planted_during_the_run_is_never_written_through() {
    let dir = earlier_report("staging-link");
    let target = fresh_temp_dir("staging-link-target");
    let before = snapshot(&dir);
    let mut args = LONG.to_vec();
    args.extend(["--csv", "--force"]);
    let child = start(&args, &dir);
    wait_for_staged(&dir, "");
    std::os::unix::fs::symlink(&target, dir.join("csv")).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("csv") && err.contains("appeared"), "{err}");
    assert!(
        snapshot(&target).is_empty(),
        "nothing written through the link"
    );
    std::fs::remove_file(dir.join("csv")).unwrap();
    assert_eq!(snapshot(&dir), before, "the earlier report is whole");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&target);
}

/// The same for compare's variant folders: a link planted at `a` during the run is never
/// written through.
#[test]
fn a_link_planted_at_a_variant_folder_is_never_written_through() {
    let dir = fresh_temp_dir("staging-compare");
    let target = fresh_temp_dir("staging-compare-target");
    let child = start(
        &[
            "compare",
            TI4,
            "--b-set",
            "settings.goal=9",
            "--games",
            "2000000",
            "--threads",
            "1",
            "-q",
        ],
        &dir,
    );
    // While the games play (compare stages its report once they are played).
    std::thread::sleep(Duration::from_millis(500));
    std::os::unix::fs::symlink(&target, dir.join("a")).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        snapshot(&target).is_empty(),
        "nothing written through the link"
    );
    assert_eq!(
        snapshot(&dir).len(),
        1,
        "only the link: {:?}",
        snapshot(&dir)
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&target);
}

/// A report that fails part way (here a chart's place in the staging folder is taken)
/// leaves the earlier report whole and no staging folder behind, and says so.
#[test]
fn a_report_that_fails_part_way_leaves_the_earlier_report_whole() {
    let dir = earlier_report("staging-fail");
    let before = snapshot(&dir);
    let mut args = LONG.to_vec();
    args.push("--force");
    let child = start(&args, &dir);
    let stage = wait_for_staged(&dir, "");
    std::fs::create_dir(stage.join("score_race.svg")).unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("score_race.svg"), "{err}");
    assert!(err.contains("holds what it held before the run"), "{err}");
    assert_eq!(snapshot(&dir), before, "the earlier report is whole");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A SIGTERM or SIGINT that arrives while the report is written (its charts drawn at
/// 4096x4096) ends the run with 143 or 130 within a second or two, and the folder holds
/// the earlier report, whole.
#[test]
fn a_signal_while_the_report_is_written_leaves_the_earlier_report() {
    for (signal, code) in [("TERM", 143), ("INT", 130)] {
        let dir = earlier_report(&format!("staging-signal-{signal}"));
        let before = snapshot(&dir);
        let child = start(
            &[
                "run",
                TI4,
                "--games",
                "20000",
                "-q",
                "--force",
                "--chart-size",
                "4096x4096",
            ],
            &dir,
        );
        wait_for_staged(&dir, "win_rates.png");
        let sent = Instant::now();
        Command::new("kill")
            .args([format!("-{signal}"), child.id().to_string()])
            .status()
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let took = sent.elapsed();
        assert_eq!(out.status.code(), Some(code), "{signal}");
        assert!(took < Duration::from_secs(5), "{signal}: {took:?}");
        assert_eq!(
            snapshot(&dir),
            before,
            "{signal}: the earlier report is whole"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A disk that fills while the report is written (a 3 MB file system, where this machine
/// can mount one) leaves the earlier report whole: `--force` removes it only once the new
/// one is complete.
#[test]
fn a_full_disk_leaves_the_earlier_report_whole() {
    let mount = fresh_temp_dir("staging-full-disk");
    if !mount_tmpfs(&mount, "size=3m") {
        // Only root mounts a file system; elsewhere the failure part way above stands in.
        eprintln!("no tmpfs could be mounted here: the full-disk case is not run");
        let _ = std::fs::remove_dir_all(&mount);
        return;
    }
    let dir = mount.join("report");
    vpsim()
        .args(["run", TI4, "--games", "200", "-q", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let before = snapshot(&dir);
    // The games table of 100,000 games does not fit beside the earlier report.
    let out = vpsim()
        .args([
            "run",
            TI4,
            "--games",
            "100000",
            "-q",
            "--force",
            "--games-table",
        ])
        .args(["--csv", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    let after = snapshot(&dir);
    let _ = Command::new("umount").arg(&mount).status();
    let _ = std::fs::remove_dir_all(&mount);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left"), "{err}");
    assert_eq!(after, before, "the earlier report is whole");
}

/// On a read-only file system (where this machine can mount one), an existing `--out`
/// folder and a new one are refused alike: exit 2, naming `--out`, before any game.
#[test]
fn a_read_only_out_is_refused_alike_whether_it_exists_or_not() {
    let mount = fresh_temp_dir("staging-read-only");
    if !mount_tmpfs(&mount, "") {
        eprintln!("no tmpfs could be mounted here: the read-only case is not run");
        let _ = std::fs::remove_dir_all(&mount);
        return;
    }
    std::fs::create_dir(mount.join("exists")).unwrap();
    let ro = mount_tmpfs(&mount, "remount,ro");
    let mut outcomes = Vec::new();
    for sub in ["exists", "new"] {
        let out = vpsim()
            .args(["run", TI4, "--games", "10", "-q", "--out"])
            .arg(mount.join(sub))
            .output()
            .unwrap();
        outcomes.push((
            sub,
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        ));
    }
    let _ = Command::new("umount").arg(&mount).status();
    let _ = std::fs::remove_dir_all(&mount);
    assert!(ro, "remount read-only");
    for (sub, code, err) in outcomes {
        assert_eq!(code, Some(2), "{sub}: {err}");
        assert!(
            err.contains("--out") && err.contains("Read-only"),
            "{sub}: {err}"
        );
    }
}
