//! Designer and CI workflows through the binary: `--set` overrides, precision targets, `--out`
//! files, `check` gates and JUnit, `compare`, `sweep` and `sensitivity`. Shards and `merge`
//! are in [`shards`](crate::shards).

use serde_json::Value;

use crate::util::{TI4, fresh_temp_dir, vpsim, vpsim_output, without_performance};

#[test]
fn set_overrides_change_the_run_and_name_bad_paths() {
    let base = vpsim()
        .args(["run", TI4, "--games", "3000", "--json"])
        .output()
        .unwrap();
    let tweaked = vpsim()
        .args([
            "run",
            TI4,
            "--games",
            "3000",
            "--json",
            "--set",
            "faction.Sol.init.skill=9",
        ])
        .output()
        .unwrap();
    let (b, t) = (
        without_performance(&base.stdout),
        without_performance(&tweaked.stdout),
    );
    let sol = |v: &Value| v["factions"][5]["win"]["rate"].as_f64().unwrap();
    assert!(
        sol(&t) > sol(&b) + 0.05,
        "a skilled Sol should win more: {} vs {}",
        sol(&t),
        sol(&b)
    );
    assert_eq!(t["overrides"][0], "faction.Sol.init.skill=9");
    // The file's own hash either way; the override is listed beside it.
    assert_eq!(t["scenario"]["hash"], b["scenario"]["hash"]);
    for (set, needle) in [
        ("settings.gaol=3", "nearest valid paths: settings.goal"),
        ("settings.goal=abc", "--set settings.goal=abc"),
        ("var.vp.maxx=3", "unknown key `maxx`"),
        (
            "faction.Nobody.init.skill=3",
            "no [[faction]] named `Nobody`",
        ),
        ("oops", "PATH=VALUE"),
    ] {
        let out = vpsim()
            .args(["run", TI4, "--games", "10", "--set", set])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{set}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{set}: {err}");
    }
}

#[test]
fn precision_keeps_playing_until_the_target() {
    let out = vpsim()
        .args([
            "run",
            "scenarios/race_to_three.toml",
            "--precision",
            "0.004",
            "--games",
            "5000000",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v = without_performance(&out.stdout);
    assert_eq!(v["precision"]["reached"], true);
    let games = v["games"].as_u64().unwrap();
    assert!(games > 10_000 && games < 5_000_000, "{games}");
    for f in v["factions"].as_array().unwrap() {
        let w = &f["win"];
        assert!((w["high"].as_f64().unwrap() - w["low"].as_f64().unwrap()) / 2.0 < 0.004);
    }
    // The stopping point is as reproducible as the counts.
    let again = vpsim()
        .args([
            "run",
            "scenarios/race_to_three.toml",
            "--precision",
            "0.004",
            "--games",
            "5000000",
            "--json",
            "--threads",
            "1",
        ])
        .output()
        .unwrap();
    assert_eq!(without_performance(&again.stdout), v);
}

#[test]
fn out_writes_complete_files_only() {
    let dir = fresh_temp_dir("out");
    vpsim()
        .args(["run", TI4, "--games", "500", "--quiet", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert!(
        names.contains(&"summary.json".to_string()) && names.contains(&"tally.json".to_string()),
        "{names:?}"
    );
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    let summary: Value =
        serde_json::from_slice(&std::fs::read(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["games"], 500);
}

#[test]
fn check_passes_fails_and_writes_junit() {
    let dir = fresh_temp_dir("check");
    let junit = dir.join("checks.xml");
    // The scenario's own [[assert]] gates pass.
    vpsim()
        .args(["check", TI4, "--games", "4000", "--quiet"])
        .assert()
        .success();
    // An assertion that fails: exit 1, value and interval printed, JUnit written.
    let out = vpsim()
        .args([
            "check",
            "scenarios/race_to_three.toml",
            "--games",
            "20000",
            "--quiet",
            "--assert",
            "win_rate(First) > 0.5",
            "--junit",
        ])
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("FAIL  win_rate(First) > 0.5  measured 0.37"),
        "{text}"
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains("<failure") && xml.contains("tests=\"2\"") && xml.contains("failures=\"1\""),
        "{xml}"
    );
    // A check that stops on an error leaves no JUnit file behind, not the last one's.
    let broken = vpsim()
        .args([
            "check",
            "scenarios/race_to_three.toml",
            "--assert",
            "win_rat(First) > 0",
        ])
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(broken.status.code(), Some(2));
    assert!(!junit.exists());
    // Means are metrics too: the names' check before the run does not read them as NaN.
    vpsim()
        .args([
            "check",
            "scenarios/race_to_three.toml",
            "--games",
            "2000",
            "-q",
        ])
        .args([
            "--assert",
            "mean_length > 1",
            "--assert",
            "mean_score(First) >= 0",
        ])
        .assert()
        .success();
    // Judged on the interval, a difference inside the noise does not pass.
    let est = vpsim()
        .args([
            "check",
            "scenarios/race_to_three.toml",
            "--games",
            "2000",
            "-q",
            "--assert",
            "win_rate(First) > 0.35",
        ])
        .output()
        .unwrap();
    let int = vpsim()
        .args([
            "check",
            "scenarios/race_to_three.toml",
            "--games",
            "2000",
            "-q",
            "--assert",
            "win_rate(First) > 0.35",
            "--judge",
            "interval",
        ])
        .output()
        .unwrap();
    assert_eq!(
        est.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&est.stdout)
    );
    assert_eq!(
        int.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&int.stdout)
    );
    // An unknown metric is a usage error, before any game is played.
    let bad = vpsim()
        .args(["check", TI4, "--assert", "win_rat(Sol) < 0.5"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("did you mean `win_rate`"));
    // A metric named without its arguments is told so, not taken for a typo of another.
    let bare = vpsim()
        .args(["check", TI4, "--assert", "abs(win_rate) < 1"])
        .output()
        .unwrap();
    assert_eq!(bare.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bare.stderr);
    assert!(err.contains("`win_rate` takes arguments"), "{err}");
    assert!(!err.contains("did you mean"), "{err}");
    // An assertion that compares nothing, or compares a value that is not a number, is a
    // usage error, not a pass.
    for (assertion, needle) in [
        ("seat_advantage", "compares nothing"),
        ("games / 0 > 1", "not a finite number"),
        ("games * 0 / 0 < 1", "not a finite number"),
    ] {
        let out = vpsim()
            .args([
                "check",
                "scenarios/race_to_three.toml",
                "--games",
                "200",
                "-q",
                "--assert",
                assertion,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{assertion}: {err}");
        assert!(err.contains(needle), "{assertion}: {err}");
    }
}

#[test]
fn sweep_and_sensitivity_move_win_rates_the_right_way() {
    let out = vpsim()
        .args([
            "sweep",
            "scenarios/race_to_three.toml",
            "--param",
            "settings.p=0.2:0.4:0.1",
            "--games",
            "6000",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let first: Vec<f64> = v["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["win"][0]["rate"].as_f64().unwrap())
        .collect();
    assert_eq!(first.len(), 3);
    assert!(first[0] < first[1] && first[1] < first[2], "{first:?}");
    let grid = vpsim()
        .args([
            "sweep",
            "scenarios/race_to_three.toml",
            "--param",
            "settings.p=0.3,0.4",
            "--param",
            "settings.q=0.3,0.4",
            "--games",
            "2000",
            "--json",
        ])
        .output()
        .unwrap();
    let g: Value = serde_json::from_slice(&grid.stdout).unwrap();
    assert_eq!(g["points"].as_array().unwrap().len(), 4);
    let sens = vpsim()
        .args([
            "sensitivity",
            "scenarios/race_to_three.toml",
            "--param",
            "settings.p",
            "--games",
            "6000",
            "--json",
        ])
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&sens.stdout).unwrap();
    let e = &s["effects"][0];
    assert_eq!(e["base"], 0.3);
    assert!(e["up"][0]["rate"].as_f64().unwrap() > e["down"][0]["rate"].as_f64().unwrap());
    // With --set on the parameter, it moves from the value set (0.5 +- 0.05), as the
    // baseline plays it, not from the file's 0.3.
    let set = vpsim()
        .args([
            "sensitivity",
            "scenarios/race_to_three.toml",
            "--set",
            "settings.p=0.5",
        ])
        .args(["--param", "settings.p", "--games", "2000", "--json"])
        .output()
        .unwrap();
    let s: Value = serde_json::from_slice(&set.stdout).unwrap();
    assert_eq!(s["effects"][0]["base"], 0.5);
    assert_eq!(s["effects"][0]["step"], 0.05);
    let bad = vpsim()
        .args([
            "sweep",
            "scenarios/race_to_three.toml",
            "--param",
            "settings.pp=1,2",
            "--games",
            "10",
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("nearest valid paths: settings.p"));
}

#[test]
fn sweep_and_sensitivity_draw_their_charts() {
    let dir = fresh_temp_dir("sweepcharts");
    vpsim()
        .args([
            "sweep",
            "scenarios/race_to_three.toml",
            "--param",
            "settings.p=0.2,0.3",
            "--games",
            "500",
            "--quiet",
            "--out",
        ])
        .arg(dir.join("line"))
        .assert()
        .success();
    vpsim()
        .args([
            "sensitivity",
            "scenarios/race_to_three.toml",
            "--param",
            "settings.p",
            "--games",
            "500",
            "--quiet",
            "--out",
        ])
        .arg(dir.join("tornado"))
        .assert()
        .success();
    for f in [
        "line/sweep.png",
        "line/sweep.svg",
        "line/sweep.json",
        "tornado/tornado.png",
        "tornado/sensitivity.json",
    ] {
        assert!(dir.join(f).exists(), "{f}");
    }
}

#[test]
fn compare_and_check_write_reports_like_run() {
    let dir = fresh_temp_dir("cmpout");
    vpsim()
        .args([
            "compare",
            "scenarios/race_to_three.toml",
            "--b-set",
            "settings.q=0.45",
            "--games",
            "2000",
            "--quiet",
            "--out",
        ])
        .arg(dir.join("cmp"))
        .assert()
        .success();
    for f in [
        "cmp/compare.json",
        "cmp/a/summary.parquet",
        "cmp/a/win_rates.png",
        "cmp/b/report.md",
        "cmp/b/tally.json",
    ] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let b: Value =
        serde_json::from_slice(&std::fs::read(dir.join("cmp/b/summary.json")).unwrap()).unwrap();
    assert_eq!(b["overrides"][0], "settings.q=0.45");
    assert_eq!(b["games"], 2000);
    vpsim()
        .args([
            "check",
            "scenarios/race_to_three.toml",
            "--games",
            "2000",
            "--quiet",
            "--out",
        ])
        .arg(dir.join("chk"))
        .assert()
        .success();
    assert!(dir.join("chk/report.md").exists());
}

#[test]
fn check_shows_every_metric_a_compound_assertion_read_and_its_overrides() {
    let out = vpsim_output(&[
        "check",
        "scenarios/race_to_three.toml",
        "--games",
        "2000",
        "--quiet",
        "--set",
        "settings.p=0.35",
        "--assert",
        "mean_length >= 3 and win_rate(First) <= 0.9",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("race_to_three (with settings.p=0.35) — "),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.contains("mean_length >= 3 and"))
        .unwrap();
    assert!(
        line.contains("measured mean_length ") && line.contains("; win_rate(First) "),
        "{line}"
    );
}

#[test]
fn faults_and_traces_under_overrides_name_the_users_own_line_or_the_flag() {
    // A division by zero on the file's line 18; --agent inserts lines above it.
    let text = crate::util::SAFE_OR_RISKY.replace("vp += 1\"]", "vp += 1 / (vp - vp)\"]");
    let line = text.lines().position(|l| l.contains("vp - vp")).unwrap() + 1;
    let p = crate::util::temp_scenario("cli-override-lines", &text);
    let p = p.to_str().unwrap();
    let out = crate::util::vpsim_output(&["run", p, "--agent", "A=greedy", "--games", "5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("{p}:{line}:13: in game 0")), "{err}");
    assert!(
        err.contains("vp += 1 / (vp - vp)"),
        "the user's line is shown: {err}"
    );
    // A cost that --set adds is traced as the flag's, not as a line of the file.
    let out = crate::util::vpsim_output(&["trace", p, "--set", "action.safe.cost.vp=0"]);
    let trace = String::from_utf8_lossy(&out.stdout);
    assert!(
        trace.contains("[from --set action.safe.cost.vp=0]"),
        "{trace}"
    );
    // A formula --set wrote faults as the flag's value, with no line of the file shown.
    let set = "action.safe.effects=[\"vp += 2 / (vp - vp)\"]";
    let out = crate::util::vpsim_output(&["run", p, "--set", set, "--games", "5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("{p}:{line}, in the value from --set {set}")),
        "{err}"
    );
    assert!(!err.contains("here"), "{err}");
}

#[test]
fn a_sweep_of_a_floored_setting_warns_and_draws_points_with_the_fair_share() {
    // A's head start is a setting stored in a whole-number variable: 0.5 stores 0.
    let text = "[scenario]\nname = \"floored\"\nrounds = 3\n[settings]\nhead = 0\n\
        [[faction]]\nname = \"A\"\ninit = { vp = \"head\" }\n[[faction]]\nname = \"B\"\n\
        [[var]]\nname = \"vp\"\n\
        [[phase]]\nname = \"score\"\neach = \"faction\"\neffects = [\"vp += bernoulli(0.5)\"]\n\
        [ranking]\nscore = \"vp\"\n";
    let p = crate::util::temp_scenario("sweep-floored", text);
    let dir = crate::util::fresh_temp_path("sweep-floored-out");
    let out = crate::util::vpsim_output(&[
        "sweep",
        p.to_str().unwrap(),
        "--param",
        "settings.head=0,0.5,1",
        "--games",
        "500",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("a swept value is floored where it is stored"),
        "{err}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(json["floored"], true);
    let svg = std::fs::read_to_string(dir.join("sweep.svg")).unwrap();
    assert!(svg.contains("fair share 50.0%"), "the fair share is drawn");
    assert!(
        svg.contains("win rate (95% intervals)"),
        "points, not a band"
    );
    // A whole-number sweep of the same setting is not floored.
    let out = crate::util::vpsim_output(&[
        "sweep",
        p.to_str().unwrap(),
        "--param",
        "settings.head=0,1",
        "--games",
        "200",
        "--json",
        "--quiet",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["floored"], false, "{v}");
}
