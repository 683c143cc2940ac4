//! Designer and CI workflows through the binary: overrides, shards and merge, precision.

use assert_cmd::Command;
use serde_json::Value;

const TI4: &str = "scenarios/twilight_imperium_4.toml";

fn vpsim() -> Command {
    Command::cargo_bin("vpsim").unwrap()
}

fn without_performance(bytes: &[u8]) -> Value {
    let mut v: Value = serde_json::from_slice(bytes).unwrap();
    v.as_object_mut().unwrap().remove("performance");
    v
}

fn temp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("vpsim-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Plays shard `k` of `n` of `scenario` (with `args`, such as `--games`) into `out`.
fn run_shard(
    scenario: impl AsRef<std::ffi::OsStr>,
    args: &[&str],
    k: u32,
    n: u32,
    out: &std::path::Path,
) {
    vpsim()
        .arg("run")
        .arg(scenario)
        .args(args)
        .args(["--shard", &format!("{k}/{n}"), "--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn the_local_shard_recipe_merges_to_exactly_one_run() {
    let dir = temp("shards");
    // The README's xargs recipe, with this build's binary.
    let recipe = format!(
        "seq 1 4 | xargs -P 4 -I{{}} {bin} run {TI4} --games 6000 --seed 7 --shard {{}}/4 --out {d}/{{}} --quiet > /dev/null && \
         {bin} merge {d}/1 {d}/2 {d}/3 {d}/4 --json",
        bin = env!("CARGO_BIN_EXE_vpsim"),
        d = dir.display()
    );
    let merged = std::process::Command::new("bash")
        .arg("-c")
        .arg(&recipe)
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let single = vpsim()
        .args(["run", TI4, "--games", "6000", "--seed", "7", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        without_performance(&merged.stdout),
        without_performance(&single.stdout)
    );
}

#[test]
fn merge_refuses_mismatched_missing_and_duplicated_shards() {
    let dir = temp("badshards");
    for (k, seed) in [(1, "7"), (2, "7"), (3, "8")] {
        run_shard(
            TI4,
            &["--games", "900", "--seed", seed],
            k,
            3,
            &dir.join(k.to_string()),
        );
    }
    let d = |k: u32| dir.join(k.to_string());
    let out = vpsim()
        .arg("merge")
        .arg(d(1))
        .arg(d(2))
        .arg(d(3))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("seeds differ"));
    let out = vpsim()
        .arg("merge")
        .arg(d(1))
        .arg(d(2))
        .arg(d(2))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing 3/3") && err.contains("duplicated 2/3"),
        "{err}"
    );
}

#[test]
fn merge_refuses_tampered_shard_files() {
    let dir = temp("tampered");
    for k in 1..=2 {
        run_shard(TI4, &["--games", "400"], k, 2, &dir.join(k.to_string()));
    }
    let file = dir.join("2").join("tally.json");
    let good = std::fs::read_to_string(&file).unwrap();
    let edits: [(&str, &str, &str); 11] = [
        ("\"by_round\":[", "\"by_round\":[[],", "`tally.by_round`"),
        (
            "\"shard\":{\"index\":2,",
            "\"shard\":{\"index\":0,",
            "`shard`",
        ),
        (
            "\"shard\":{\"index\":2,",
            "\"shard\":{\"index\":9,",
            "`shard`",
        ),
        ("\"count\":2}", "\"count\":0}", "`shard`"),
        ("\"games\":200,", "\"games\":20000,", "`tally.games`"),
        ("\"wins\":", "\"wins\":1000000", "`tally.factions[0]`"),
        (
            "\"vpsim_version\":\"",
            "\"vpsim_version\":\"9",
            "`vpsim_version`",
        ),
        // A key vpsim never writes: an edited or foreign file, not a tally to trust.
        (
            "\"vpsim_version\":\"",
            "\"note\":1,\"vpsim_version\":\"",
            "`note`",
        ),
        ("\"wins\":", "\"winz\":0,\"wins\":", "`winz`"),
        ("\"label\":", "\"labelz\":0,\"label\":", "`labelz`"),
        // Another version's file is named as such, whatever keys it has.
        (
            "\"vpsim_version\":\"",
            "\"note\":1,\"vpsim_version\":\"9",
            "merge with the version that ran the shards",
        ),
    ];
    for (from, to, field) in edits {
        assert!(good.contains(from), "{from} not in {good}");
        std::fs::write(&file, good.replacen(from, to, 1)).unwrap();
        let out = vpsim()
            .arg("merge")
            .arg(dir.join("1"))
            .arg(dir.join("2"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {err}");
        assert!(
            err.contains(field) && err.contains("tally.json"),
            "{to}: {err}"
        );
    }
    std::fs::write(&file, good).unwrap();
    vpsim()
        .arg("merge")
        .arg(dir.join("1"))
        .arg(dir.join("2"))
        .assert()
        .success();
}

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
    assert_ne!(t["scenario"]["hash"], b["scenario"]["hash"]);
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
    let dir = temp("out");
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
    let dir = temp("check");
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
            "win_rate(First) > 0.37",
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
            "win_rate(First) > 0.37",
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

fn compare_json(args: &[&str]) -> Value {
    let out = vpsim()
        .arg("compare")
        .args(args)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn compare_pairs_games_and_says_what_is_beyond_noise() {
    // A file compared with itself differs by exactly zero.
    let same = compare_json(&[TI4, "--games", "3000"]);
    for f in same["factions"].as_array().unwrap() {
        assert_eq!(f["win_diff"]["estimate"], 0.0);
        assert_eq!(f["win_diff"]["low"], 0.0);
        assert_eq!(f["p"], 1.0);
    }
    assert!(
        same["sentence"]
            .as_str()
            .unwrap()
            .starts_with("No win-rate difference is beyond noise")
    );
    // A real change is found, with the same seeds on both sides.
    let tweak = compare_json(&[
        TI4,
        "--games",
        "6000",
        "--b-set",
        "faction.Sol.init.skill=6",
    ]);
    let sol = &tweak["factions"][5];
    assert_eq!(sol["verdict"], "different");
    assert!(sol["win_diff"]["low"].as_f64().unwrap() > 0.0);
    assert!(tweak["sentence"].as_str().unwrap().contains("Sol (+"));
    // Sequential: stops as soon as every faction is decided.
    let seq = compare_json(&[
        "scenarios/race_to_three.toml",
        "--b-set",
        "settings.q=0.45",
        "--until-decided",
        "--games",
        "1000000",
    ]);
    assert_eq!(seq["sequential"]["decided"], true);
    assert!(seq["games"].as_u64().unwrap() < 1_000_000);
    // Variants of different games do not compare.
    let out = vpsim()
        .args([
            "compare",
            TI4,
            "scenarios/race_to_three.toml",
            "--games",
            "10",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
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
    let dir = temp("sweepcharts");
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
    let dir = temp("cmpout");
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
fn shards_of_scores_spread_over_2_to_the_40_merge_to_the_single_run() {
    let dir = temp("wide");
    let scenario = dir.join("wide.toml");
    std::fs::write(
        &scenario,
        r#"
[scenario]
name = "wide"
rounds = 1
[[faction]]
name = "First"
[[faction]]
name = "Second"
[[var]]
name = "vp"
[[phase]]
name = "score"
each = "faction"
effects = ["vp = uniform(0, 1099511627776)"]
[ranking]
score = "vp"
"#,
    )
    .unwrap();
    let mut merge = vpsim();
    merge.arg("merge");
    for k in 1..=3 {
        let out = dir.join(k.to_string());
        run_shard(&scenario, &["--games", "3000"], k, 3, &out);
        merge.arg(out);
    }
    let merged = merge.arg("--json").output().unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let single = vpsim()
        .arg("run")
        .arg(&scenario)
        .args(["--games", "3000", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        without_performance(&merged.stdout),
        without_performance(&single.stdout)
    );
}
