//! A failed shard recovered through the binary: merge names the missing index and the command
//! that runs it again, `merge --list-missing` lists the indices for a retry script, a shard
//! run again from that command merges to exactly the single run, `check --from` judges the
//! merged folder, and an empty shard key stops every command that would use it.

use std::path::Path;

use crate::util::{TI4, fresh_temp_dir, vpsim, without_performance};

/// Plays shard `k` of 4 of 8,000 TI4 games, seed 5, into `dir/shard-k`.
fn shard(dir: &Path, k: u32) {
    let scenario = std::fs::canonicalize(TI4).unwrap();
    vpsim()
        .current_dir(dir)
        .arg("run")
        .arg(&scenario)
        .args(["--games", "8000", "--seed", "5", "--quiet", "--shard"])
        .arg(format!("{k}/4"))
        .args(["--out", &format!("shard-{k}")])
        .assert()
        .success();
}

#[test]
fn a_missing_shard_is_named_with_its_command_and_recovers_the_run_exactly() {
    let dir = fresh_temp_dir("recovery");
    for k in [1, 2, 4] {
        shard(&dir, k);
    }
    // shard-3 did not run; its folder is named all the same (a glob of a scheduler's folders
    // would not name it; a list in a script does).
    let out = vpsim()
        .current_dir(&dir)
        .args(["merge", "shard-1", "shard-2", "shard-3", "shard-4"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("missing 3/4"), "{err}");
    assert!(err.contains("shard-3 does not exist"), "{err}");
    let line = err
        .lines()
        .find(|l| l.trim_start().starts_with("vpsim run"))
        .unwrap_or_else(|| panic!("no command in {err}"))
        .trim();
    assert!(
        line.ends_with("--games 8000 --seed 5 --quiet --shard 3/4 --out shard-3"),
        "{line}"
    );
    // What merge --list-missing prints for the four folders.
    let list_missing = || {
        vpsim()
            .current_dir(&dir)
            .args([
                "merge",
                "--list-missing",
                "shard-1",
                "shard-2",
                "shard-3",
                "shard-4",
            ])
            .output()
            .unwrap()
    };
    // A folder without a tally.json (a shard stopped by SIGKILL) counts as missing too.
    std::fs::create_dir(dir.join("shard-3")).unwrap();
    let listed = list_missing();
    assert!(listed.status.success());
    assert_eq!(String::from_utf8_lossy(&listed.stdout), "3\n");
    std::fs::remove_dir(dir.join("shard-3")).unwrap();
    // The command, run as merge printed it (with this build's binary), completes the run.
    let ran = std::process::Command::new("bash")
        .arg("-c")
        .arg(line.replacen("vpsim", env!("CARGO_BIN_EXE_vpsim"), 1))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let listed = list_missing();
    assert_eq!(String::from_utf8_lossy(&listed.stdout), "");
    let merged = vpsim()
        .current_dir(&dir)
        .args([
            "merge", "shard-1", "shard-2", "shard-3", "shard-4", "--json",
        ])
        .args(["--out", "merged"])
        .output()
        .unwrap();
    assert!(merged.status.success());
    let scenario = std::fs::canonicalize(TI4).unwrap();
    let single = vpsim()
        .arg("run")
        .arg(&scenario)
        .args(["--games", "8000", "--seed", "5", "--usage", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        without_performance(&merged.stdout),
        without_performance(&single.stdout)
    );

    // check --from judges the merged folder as check judges the run it plays.
    let judged = |from: bool| {
        let mut c = vpsim();
        c.current_dir(&dir)
            .arg("check")
            .arg(&scenario)
            .args(["--games", "8000", "--seed", "5", "--json"])
            .args([
                "--assert",
                "win_rate(Sol) < 0.2",
                "--assert",
                "win_rate(Sol) > 0.17",
            ]);
        if from {
            c.args(["--from", "merged"]);
        }
        let out = c.output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), v["checks"].clone())
    };
    let (code, checks) = judged(true);
    assert_eq!(
        code,
        Some(1),
        "win_rate(Sol) > 0.17 fails on seed 5: {checks}"
    );
    assert_eq!((code, checks), judged(false));
    // Not a shard, and not a run with other options.
    for (args, says) in [
        (vec!["--from", "shard-1"], "this is shard 1/4"),
        (
            vec!["--from", "merged", "--set", "settings.goal=9"],
            "`info.overrides` differs",
        ),
        (
            vec!["--from", "merged", "--rotate-seats"],
            "`info.rotate_seats` differs",
        ),
    ] {
        let out = vpsim()
            .current_dir(&dir)
            .arg("check")
            .arg(&scenario)
            .args(&args)
            .args(["--assert", "games > 0"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

#[test]
fn an_empty_shard_key_is_refused_before_any_game() {
    let dir = fresh_temp_dir("emptykey");
    let out = vpsim()
        .env("VPSIM_SHARD_KEY", "")
        .args([
            "run",
            TI4,
            "--games",
            "1000000000",
            "--shard",
            "1/2",
            "--out",
        ])
        .arg(dir.join("s1"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("VPSIM_SHARD_KEY is set but empty"), "{err}");
    assert!(!dir.join("s1").exists(), "no folder is made");
    vpsim()
        .args([
            "run", TI4, "--games", "100", "--shard", "1/2", "--quiet", "--out",
        ])
        .arg(dir.join("s1"))
        .assert()
        .success();
    let out = vpsim()
        .env("VPSIM_SHARD_KEY", "")
        .arg("merge")
        .arg(dir.join("s1"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("VPSIM_SHARD_KEY is set but empty"), "{err}");
}
