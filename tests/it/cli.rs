//! End-to-end tests through the `vpsim` binary.

use crate::util::{TI4, temp_path, vpsim, without_performance};

fn run_json(args: &[&str]) -> serde_json::Value {
    let out = vpsim().args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Without the only part of the output that may differ between identical runs.
    without_performance(&out.stdout)
}

#[test]
fn same_seed_gives_identical_json_for_one_and_two_threads() {
    let one = run_json(&[
        "run",
        TI4,
        "--games",
        "5000",
        "--seed",
        "7",
        "--threads",
        "1",
    ]);
    let two = run_json(&[
        "run",
        TI4,
        "--games",
        "5000",
        "--seed",
        "7",
        "--threads",
        "2",
    ]);
    assert_eq!(one, two);
    assert_eq!(one["games"], 5000);
}

#[test]
fn different_seeds_differ() {
    let a = run_json(&["run", TI4, "--games", "3000", "--seed", "1"]);
    let b = run_json(&["run", TI4, "--games", "3000", "--seed", "2"]);
    assert_ne!(a["factions"], b["factions"]);
}

#[test]
fn json_has_the_documented_shape() {
    let v = run_json(&["run", TI4, "--games", "2000", "--seed", "3", "--quiet"]);
    let f = &v["factions"][0];
    for key in [
        "name",
        "win",
        "shared_win",
        "draw",
        "loss",
        "ranks",
        "mean_rank",
        "score",
    ] {
        assert!(f.get(key).is_some(), "faction has no `{key}`");
    }
    let win = &f["win"];
    assert!(win["low"].as_f64().unwrap() <= win["rate"].as_f64().unwrap());
    assert!(win["rate"].as_f64().unwrap() <= win["high"].as_f64().unwrap());
    let total: u64 = v["factions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["win"]["count"].as_u64().unwrap())
        .sum();
    let shared = v["shared_wins"]["count"].as_u64().unwrap();
    let draws = v["draws"]["count"].as_u64().unwrap();
    assert_eq!(
        total + shared + draws,
        2000,
        "every game has a winner, a shared win or a draw"
    );
    let reasons: u64 = v["end_reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["count"].as_u64().unwrap())
        .sum();
    assert_eq!(reasons, 2000);
    let lengths: u64 = v["length"]["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["count"].as_u64().unwrap())
        .sum();
    assert_eq!(lengths, 2000);
    assert!(
        v["decided_by"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["by"] == "-priority")
    );
}

#[test]
fn table_output_names_every_faction() {
    let out = vpsim()
        .args(["run", TI4, "--games", "1000", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for f in ["Arborec", "Letnev", "Saar", "Muaat", "Hacan", "Sol"] {
        assert!(text.contains(f), "{text}");
    }
    assert!(text.contains("end reasons:"));
    assert!(text.contains("games/s"));
    // No progress bar when stdout is not a terminal.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn validate_summarises_the_model() {
    let out = vpsim().args(["validate", TI4]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("OK"));
    assert!(text.contains("factions (6)"));
    assert!(text.contains("reached_goal"));
}

#[test]
fn trace_tells_the_game_and_is_repeatable() {
    let a = vpsim()
        .args(["trace", TI4, "--seed", "5", "--game", "11"])
        .output()
        .unwrap();
    assert!(a.status.success());
    let b = vpsim()
        .args(["trace", TI4, "--seed", "5", "--game", "11"])
        .output()
        .unwrap();
    assert_eq!(a.stdout, b.stdout);
    let text = String::from_utf8(a.stdout).unwrap();
    assert!(text.starts_with("game 11 of seed 5"));
    assert!(text.contains("round 1"));
    assert!(text.contains("final ranking:"));
    assert!(text.contains("winner: "));
}

/// The shipped `scenario.schema.json` is what `vpsim schema` prints (regenerate it with
/// `vpsim schema > scenario.schema.json` after changing the scenario types).
#[test]
fn the_shipped_schema_is_current() {
    let out = vpsim().arg("schema").output().unwrap();
    assert!(out.status.success());
    let shipped = std::fs::read_to_string("scenario.schema.json").unwrap();
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        shipped,
        "scenario.schema.json is stale: run `vpsim schema > scenario.schema.json`"
    );
    let v: serde_json::Value = serde_json::from_str(&shipped).unwrap();
    assert_eq!(v["additionalProperties"], serde_json::json!(false));
    assert!(v["$defs"]["RawFaction"]["properties"]["name"].is_object());
}

#[test]
fn validate_checks_the_balance_assertions_names() {
    let dir = temp_path("asserts");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string("scenarios/race_to_three.toml").unwrap();
    assert!(base.contains("win_rate(First) - win_rate(Second) < 0.15"));
    let path = dir.join("asserts.toml");
    std::fs::write(&path, base.replace("win_rate(First) -", "win_rat(First) -")).unwrap();
    let out = vpsim().arg("validate").arg(&path).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("win_rat") && err.contains("asserts.toml:"),
        "{err}"
    );
    // Means are fine before any game is played.
    std::fs::write(
        &path,
        base.replace(
            "win_rate(First) - win_rate(Second) < 0.15",
            "mean_length > 1",
        ),
    )
    .unwrap();
    vpsim().arg("validate").arg(&path).assert().success();
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--csv` is offered where a command writes tables (run, compare, check) and nowhere else:
/// sweep, sensitivity and tune write one JSON file and a chart.
#[test]
fn csv_is_offered_only_where_tables_are_written() {
    for (cmd, offered) in [
        ("run", true),
        ("compare", true),
        ("check", true),
        ("sweep", false),
        ("sensitivity", false),
        ("tune", false),
    ] {
        let out = vpsim().args([cmd, "--help"]).output().unwrap();
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("--force"), "{cmd}: {help}");
        assert_eq!(help.contains("--csv"), offered, "{cmd}: {help}");
    }
}

/// A bare `--out` names the folder after the scenario (its `name`), not the file:
/// `reports/<scenario-name>-sweep/` for a sweep (sensitivity and tune share the code).
#[test]
fn a_bare_out_is_named_after_the_scenario() {
    let dir = temp_path("bare-out");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy("scenarios/race_to_three.toml", dir.join("my_copy.toml")).unwrap();
    vpsim()
        .current_dir(&dir)
        .args(["sweep", "my_copy.toml", "--param", "settings.p=0.2,0.3"])
        .args(["--games", "50", "--quiet", "--out"])
        .assert()
        .success();
    assert!(dir.join("reports/race_to_three-sweep/sweep.json").is_file());
    assert!(!dir.join("reports/my_copy-sweep").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sweep writes nothing on a redirected stderr but errors, and `validate` lists a
/// faction's starting value written as a number in a formula string (a path `--set`,
/// `sweep`, `sensitivity` and `tune` all take).
#[test]
fn sweep_is_quiet_off_a_terminal_and_validate_lists_faction_inits() {
    let out = crate::util::vpsim_output(&[
        "sweep",
        "scenarios/race_to_three.toml",
        "--param",
        "settings.p=0.3,0.4",
        "--games",
        "100",
    ]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let text = "[scenario]\nname = \"inits\"\nrounds = 3\n[[faction]]\nname = \"A\"\n\
        init = { chance = \"50\" }\n[[faction]]\nname = \"B\"\n[[var]]\nname = \"chance\"\n\
        [ranking]\nscore = \"chance\"\n";
    let path = crate::util::temp_scenario("inits", text);
    let out = crate::util::vpsim_output(&["validate", path.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("faction.A.init.chance=50"));
    let out = crate::util::vpsim_output(&[
        "sensitivity",
        path.to_str().unwrap(),
        "--param",
        "faction.A.init.chance",
        "--games",
        "100",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
