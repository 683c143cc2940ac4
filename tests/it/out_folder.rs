//! Report folders: what `--out` may replace and what it must never touch. A folder is a
//! vpsim report only by its manifest; `--force` replaces exactly the files it lists, and a
//! folder with anything else (a user's files, whatever their names) is refused untouched.

use crate::util::{TI4, fresh_temp_dir, fresh_temp_path, vpsim};

#[test]
fn an_existing_report_folder_needs_force() {
    let dir = fresh_temp_path("report-force");
    vpsim()
        .args(["run", TI4, "--games", "200", "--quiet", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let again = vpsim()
        .args(["run", TI4, "--games", "200", "--quiet", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    vpsim()
        .args(["run", TI4, "--games", "200", "--quiet", "--force", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let refused = vpsim()
        .args(["run", TI4, "--games", "20000000", "--games-table", "--out"])
        .arg(fresh_temp_path("report-big2"))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--force"));
}

/// `--force` replaces an earlier report whole (exactly the files its manifest lists, its
/// `csv/` folder included) and removes a dead run's temporary files; a folder that also
/// holds a file vpsim did not write is refused, and nothing in it is touched.
#[test]
fn force_replaces_a_report_whole_and_never_deletes_other_files() {
    // Not "report-force": an_existing_report_folder_needs_force runs at the same time.
    let dir = fresh_temp_dir("report-force-whole");
    let run = |extra: &[&str]| {
        vpsim()
            .args([
                "run",
                "scenarios/race_to_three.toml",
                "--games",
                "500",
                "-q",
            ])
            .args(extra)
            .arg("--out")
            .arg(&dir)
            .output()
            .unwrap()
    };
    assert!(run(&["--csv"]).status.success());
    assert!(dir.join("csv").is_dir() && dir.join(".vpsim-manifest.json").is_file());
    // A run killed with SIGKILL leaves its temporary file; its process (beyond any pid) is gone.
    let dead = dir.join(".vpsim-4000000000-0.tmp");
    std::fs::write(&dead, b"half").unwrap();
    assert_eq!(
        run(&[]).status.code(),
        Some(2),
        "a report folder needs --force"
    );
    assert!(dead.exists(), "a refused run removes nothing");
    assert!(run(&["--force"]).status.success());
    assert!(
        !dir.join("csv").exists(),
        "the earlier report's tables went with it"
    );
    assert!(!dead.exists());
    assert!(dir.join("report.md").exists());
    std::fs::write(dir.join("notes.txt"), b"mine").unwrap();
    let out = run(&["--force"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("notes.txt"));
    assert!(dir.join("notes.txt").exists() && dir.join("report.md").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--force` never deletes a user's files, whatever their names: pictures and tables in a
/// folder with no vpsim report, in the folders a report uses (`csv/`, `a/`, `b/`), or beside
/// an earlier report.
#[test]
fn force_never_deletes_a_users_files() {
    let dir = fresh_temp_dir("report-user-files");
    let mine = [
        "vacation.png",
        "budget.csv",
        "csv/sheet.csv",
        "a/photo.png",
        "b/t.parquet",
    ];
    for f in mine {
        let path = dir.join(f);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, b"mine").unwrap();
    }
    let run = |dir: &std::path::Path| {
        vpsim()
            .args([
                "run",
                "scenarios/race_to_three.toml",
                "--games",
                "300",
                "-q",
                "--force",
                "--out",
            ])
            .arg(dir)
            .output()
            .unwrap()
    };
    let out = run(&dir);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no vpsim manifest"));
    for f in mine {
        assert_eq!(std::fs::read(dir.join(f)).unwrap(), b"mine", "{f}");
    }
    let beside = fresh_temp_dir("report-family");
    assert!(run(&beside).status.success());
    std::fs::write(beside.join("family.png"), b"mine").unwrap();
    let out = run(&beside);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("family.png"));
    assert!(beside.join("family.png").exists() && beside.join("report.md").exists());
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&beside);
}

/// Files named like temporary files (`.NAME.PID.tmp`) are a user's unless vpsim alone could
/// have named them: a refused run and a forced one both leave them.
#[test]
fn a_users_temporary_looking_files_survive() {
    let dir = fresh_temp_dir("report-user-tmp");
    let mine = [
        ".thesis.99999.tmp",
        ".chapter.88888.tmp.docx",
        ".tally.json.4000000000.tmp",
    ];
    for f in mine {
        std::fs::write(dir.join(f), b"mine").unwrap();
    }
    for force in [false, true] {
        let mut c = vpsim();
        c.args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "300",
            "-q",
            "--out",
        ])
        .arg(&dir);
        if force {
            c.arg("--force");
        }
        assert_eq!(c.output().unwrap().status.code(), Some(2));
        for f in mine {
            assert!(dir.join(f).exists(), "{f} (--force: {force})");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn force_replaces_a_compare_report_with_its_csv_folders() {
    let dir = fresh_temp_path("report-compare-csv");
    let compare = |force: bool| {
        let mut c = vpsim();
        c.args([
            "compare",
            "scenarios/race_to_three.toml",
            "--b-set",
            "settings.p=0.4",
        ])
        .args(["--games", "300", "--quiet", "--csv", "--out"])
        .arg(&dir);
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    assert_eq!(compare(false).status.code(), Some(0));
    assert!(dir.join("a/csv").is_dir() && dir.join("b/csv").is_dir());
    let again = compare(true);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A folder one run is writing is locked: a second run into it stops at once with exit 2,
/// naming the run that holds it, before playing a game; the lock goes when the first run
/// ends, and the next run writes the folder.
#[test]
fn a_second_run_into_a_folder_being_written_stops_naming_the_first() {
    let dir = fresh_temp_path("locked");
    let mut first = std::process::Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args(["run", TI4, "--games", "1000000000", "--quiet", "--out"])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let lock = dir.join(".vpsim-lock");
    let holder = format!("process {}", first.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.contains(&holder)) {
        assert!(std::time::Instant::now() < deadline, "no lock file");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for force in [false, true] {
        let mut second = vpsim();
        second.args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "10",
            "--quiet",
        ]);
        if force {
            second.arg("--force");
        }
        let out = second.arg("--out").arg(&dir).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("is writing this folder") && err.contains(&holder),
            "{err}"
        );
    }
    std::process::Command::new("kill")
        .args(["-TERM", &first.id().to_string()])
        .status()
        .unwrap();
    assert_eq!(first.wait().unwrap().code(), Some(143));
    // The first run stopped before writing: its lock and the folder it made are gone.
    assert!(!dir.exists(), "{}", dir.display());
    vpsim()
        .args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "10",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    assert!(!lock.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_lock_file_planted_as_a_link_is_never_written_through() {
    let root = fresh_temp_dir("lock-links");
    let victim = root.join("victim.txt");
    std::fs::write(&victim, "keep me\n").unwrap();
    let run = |dir: &std::path::Path, force: bool| {
        let mut cmd = vpsim();
        cmd.args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "10",
            "--quiet",
        ]);
        if force {
            cmd.arg("--force");
        }
        cmd.arg("--out").arg(dir).output().unwrap()
    };
    // A symbolic link, to a file and dangling; then a hard link, with and without --force.
    let links = root.join("links");
    std::fs::create_dir_all(&links).unwrap();
    std::os::unix::fs::symlink(&victim, links.join(".vpsim-lock")).unwrap();
    let dangling = root.join("dangling");
    std::fs::create_dir_all(&dangling).unwrap();
    let target = root.join("made-by-the-lock");
    std::os::unix::fs::symlink(&target, dangling.join(".vpsim-lock")).unwrap();
    let hard = root.join("hard");
    std::fs::create_dir_all(&hard).unwrap();
    std::fs::hard_link(&victim, hard.join(".vpsim-lock")).unwrap();
    for (dir, force) in [
        (&links, false),
        (&dangling, false),
        (&hard, false),
        (&hard, true),
    ] {
        let out = run(dir, force);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("is a link or not a plain file"), "{err}");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me\n");
        assert!(!target.exists(), "a dangling link's target was created");
    }
}

/// `--force` removes the earlier report as its manifest listed it before the games: a
/// manifest rewritten during the run, naming a file behind a link planted meanwhile, removes
/// nothing of the user's.
#[cfg(unix)]
#[test]
fn force_removes_only_what_the_manifest_listed_before_the_games() {
    let root = fresh_temp_dir("force-late-manifest");
    let dir = root.join("report");
    let victim = root.join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    std::fs::write(victim.join("important.txt"), "keep me\n").unwrap();
    vpsim()
        .args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "100",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    // Games enough (seconds of them) that the manifest is rewritten while they run, even
    // on a machine loaded by the other tests.
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args([
            "run", TI4, "--games", "1500000", "--quiet", "--force", "--out",
        ])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let holder = format!("process {}", run.id());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !std::fs::read_to_string(dir.join(".vpsim-lock")).is_ok_and(|t| t.contains(&holder)) {
        assert!(std::time::Instant::now() < deadline, "no lock file");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // While the games run: the manifest lists x/important.txt, and x leads to the victim.
    let manifest = dir.join(".vpsim-manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
    m["files"]
        .as_array_mut()
        .unwrap()
        .push("x/important.txt".into());
    // Written whole (a rename from beside the folder), so the run never reads it
    // half-written and never finds a file of ours in the folder.
    let edited = root.join("manifest.edit");
    std::fs::write(&edited, m.to_string()).unwrap();
    std::fs::rename(&edited, &manifest).unwrap();
    std::os::unix::fs::symlink(&victim, dir.join("x")).unwrap();
    let out = run.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(victim.join("important.txt")).unwrap(),
        "keep me\n"
    );
}

/// Every command that writes a report folder says where it went, unless `--quiet`.
#[test]
fn every_report_command_says_where_its_report_went() {
    let s = "scenarios/race_to_three.toml";
    let commands: [&[&str]; 6] = [
        &["run", s, "--games", "100"],
        &["check", s, "--games", "100"],
        &["compare", s, "--b-set", "settings.p=0.6", "--games", "100"],
        &[
            "sweep",
            s,
            "--param",
            "settings.p=0.4,0.6",
            "--games",
            "100",
        ],
        &["exploit", s, "--games", "50", "--iterations", "1"],
        &["ladder", s, "--levels", "weighted,greedy", "--games", "50"],
    ];
    for (k, args) in commands.iter().enumerate() {
        for quiet in [false, true] {
            let dir = fresh_temp_path(&format!("says-where-{k}-{quiet}"));
            let mut cmd = vpsim();
            cmd.args(*args).arg("--out").arg(&dir);
            if quiet {
                cmd.arg("--quiet");
            }
            let out = cmd.output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{args:?}: {err}");
            let said = format!("report written to {}", dir.display());
            assert_eq!(err.contains(&said), !quiet, "{args:?} quiet {quiet}: {err}");
        }
    }
}

/// A report's "Reproduce with" runs again as written: a run that wrote the folder gets
/// `--force`, since the folder now holds its report.
#[test]
fn a_reports_reproduce_line_runs_again() {
    let dir = fresh_temp_path("reproduce-again");
    vpsim()
        .args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "100",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let line = md
        .lines()
        .skip_while(|l| !l.starts_with("Reproduce with"))
        .find(|l| l.starts_with("vpsim "))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(line.ends_with(" --force"), "{line}");
    let args: Vec<&str> = line.split_whitespace().skip(1).collect();
    let again = vpsim().args(&args).output().unwrap();
    assert!(
        again.status.success(),
        "{line}: {}",
        String::from_utf8_lossy(&again.stderr)
    );
}

/// compare's report header gives the games it played: `--until-decided` stopping early
/// says so instead of repeating `--games`.
#[test]
fn a_compare_that_stops_early_says_how_many_games_it_played() {
    let dir = fresh_temp_path("compare-played");
    vpsim()
        .args([
            "compare",
            "scenarios/race_to_three.toml",
            "--b-set",
            "settings.p=0.7",
        ])
        .args(["--until-decided", "--games", "2000000", "--quiet", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("| games | 10,000 per variant (stopped when decided; up to 2,000,000) |"),
        "{md}"
    );
}
