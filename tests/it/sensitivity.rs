//! `vpsim sensitivity` end to end: every swing has an interval, in the JSON, the table and
//! report.md, and the parameters are named beyond noise or within noise; and the sweep's
//! heat map, colored from the fair share, marks the cells whose interval excludes it.

use serde_json::Value;

use crate::util::{fresh_temp_path, temp_scenario, vpsim};

/// The seed race with a setting that no formula reads: moving it changes no game.
fn race_with_an_unused_setting(name: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string("scenarios/race_to_three.toml").unwrap();
    let text = text.replacen("q = 0.4\n", "q = 0.4\nunused = 5\n", 1);
    assert!(
        text.contains("unused = 5"),
        "the seed race's settings moved"
    );
    temp_scenario(name, &text)
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[test]
fn sensitivity_gives_every_swing_an_interval_and_names_what_is_beyond_noise() {
    let path = race_with_an_unused_setting("sensitivity-json");
    let out = vpsim()
        .arg("sensitivity")
        .arg(&path)
        .args(["--param", "settings.unused", "--param", "settings.p"])
        .args(["--games", "3000", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let effects = v["effects"].as_array().unwrap();
    // Largest swing first, whatever the order given.
    assert_eq!(effects[0]["param"], "settings.p");
    assert_eq!(effects[1]["param"], "settings.unused");
    assert_eq!(v["beyond_noise"], serde_json::json!(["settings.p"]));
    assert_eq!(v["within_noise"], serde_json::json!(["settings.unused"]));
    let interval = v["interval"].as_str().unwrap();
    assert!(
        interval.contains("95% simultaneous over all 8 swings"),
        "{interval}"
    );

    // settings.p (0.3 ± 0.03): the first seat's win rate falls one step down and rises one
    // step up, the second's the other way, each beyond noise.
    let p = &effects[0];
    assert_eq!(p["beyond_noise"], true);
    // The fields from before the intervals are still there.
    assert_eq!(p["base"], 0.3);
    assert!(num(&p["step"]) > 0.0);
    for (side, rates, sign) in [("down_swing", "down", -1.0), ("up_swing", "up", 1.0)] {
        for (f, sign) in [(0usize, sign), (1, -sign)] {
            let w = &p[side][f];
            let (change, low, high) = (num(&w["change"]), num(&w["low"]), num(&w["high"]));
            assert!(low <= change && change <= high, "{side} {f}: {w}");
            // The swing is the step's rate minus the baseline's.
            let moved = num(&p[rates][f]["rate"]) - num(&v["base"][f]["rate"]);
            assert!((change - moved).abs() < 1e-12, "{side} {f}: {w} vs {moved}");
            // The interval lies wholly on the side the effect goes.
            assert!(sign * low > 0.0 && sign * high > 0.0, "{side} {f}: {w}");
            assert_eq!(w["beyond_noise"], true, "{side} {f}: {w}");
        }
    }

    // settings.unused changes no game: every swing is exactly 0, with the interval [0, 0].
    let u = &effects[1];
    assert_eq!(u["beyond_noise"], false);
    for side in ["down_swing", "up_swing"] {
        for w in u[side].as_array().unwrap() {
            assert_eq!(num(&w["change"]), 0.0, "{w}");
            assert_eq!((num(&w["low"]), num(&w["high"])), (0.0, 0.0), "{w}");
            assert_eq!(w["beyond_noise"], false, "{w}");
        }
    }
    let _ = std::fs::remove_file(&path);
}

#[test]
fn sensitivity_table_report_and_tornado_show_the_intervals() {
    let path = race_with_an_unused_setting("sensitivity-text");
    let dir = fresh_temp_path("sensitivity-report");
    let out = vpsim()
        .arg("sensitivity")
        .arg(&path)
        .args(["--param", "settings.p", "--param", "settings.unused"])
        .args(["--games", "3000", "--quiet", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let named = "Moves win rates by 2 pp or more, beyond noise: settings.p (First, Second); within the 2 pp margin (every interval inside ±2 pp): settings.unused.";
    assert!(text.contains(named), "{text}");
    assert!(!text.contains("no effect"), "{text}");
    // A row a step, each faction's change with its interval; the unused setting's is 0.
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("down to ") || l.contains("up to "))
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    for row in &rows {
        assert_eq!(row.matches('[').count(), 2, "{row}");
    }
    // settings.p's rows, first, are marked beyond noise; the unused setting's are not.
    assert_eq!(rows[0].matches("]*").count(), 2, "{text}");
    // (Zero is `0.0`, unsigned.)
    assert_eq!(rows[3].matches("0.0 [0.0, 0.0]").count(), 2, "{text}");
    assert!(!rows[3].contains('*'), "{text}");

    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains(named), "{md}");
    let unused = "| settings.unused | 5 | 1 | down to 4 | 0.0 [0.0, 0.0] | 0.0 [0.0, 0.0] |";
    assert!(md.contains(unused), "{md}");
    // Beyond-noise changes are bold.
    assert!(md.contains("| **+"), "{md}");
    assert!(md.contains("| **-"), "{md}");

    // The tornado: a few tick labels in points (not a run of numbers into each other), and
    // a legend that says what pale bars and whiskers are.
    let svg = std::fs::read_to_string(dir.join("tornado.svg")).unwrap();
    // (plotters writes a text's content, then a newline, then its closing tag.)
    let ticks = svg.matches(" pp\n</text>").count();
    assert!((2..=16).contains(&ticks), "{ticks} tick labels");
    assert!(svg.contains("within noise"), "no legend for pale bars");
    assert!(svg.contains("95% interval"), "no legend for the whiskers");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn heat_map_diverges_from_the_fair_share_and_marks_what_is_beyond_noise() {
    let dir = fresh_temp_path("sensitivity-heat");
    vpsim()
        .args([
            "sweep",
            "scenarios/race_to_three.toml",
            "--param",
            "settings.p=0.2,0.4",
            "--param",
            "settings.q=0.3,0.5",
            "--games",
            "2000",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let svg = std::fs::read_to_string(dir.join("sweep.svg")).unwrap();
    // The subtitle says what the mark means, and the color bar is centred on 50%.
    assert!(
        svg.contains("*: 95% interval excludes the fair share"),
        "no mark in the subtitle"
    );
    assert!(svg.contains("50.0% fair"), "no fair share on the color bar");
    // At p = 0.2 against q = 0.5 the first seat is far from a fair 50%: its cell is marked.
    assert!(svg.contains("%*\n</text>"), "no cell marked");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_small_step_on_few_games_is_undecided_with_the_games_that_would_decide_it() {
    let out = vpsim()
        .args(["sensitivity", "scenarios/race_to_three.toml"])
        .args(["--param", "settings.p=0.01", "--games", "100", "--quiet"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Undecided: settings.p (±"), "{text}");
    assert!(
        text.contains("games a point would narrow it to ±2 pp"),
        "{text}"
    );
    assert!(
        !text.contains("no change") && !text.contains("no effect"),
        "{text}"
    );
    let json = vpsim()
        .args(["sensitivity", "scenarios/race_to_three.toml"])
        .args([
            "--param",
            "settings.p=0.01",
            "--games",
            "100",
            "--json",
            "--quiet",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["effects"][0]["judgement"], "undecided", "{v}");
    assert_eq!(v["margin"], 0.02, "{v}");
}

/// The reading lists, for a parameter that moves win rates, only the factions it moves by
/// the margin or more beyond noise: moving Rome's provinces moves Carthage by -1.4 pp
/// [-1.8, -1.0] one step up, beyond noise but inside the 2 pp margin, so Carthage is not
/// named beside Rome, Greece and East.
#[test]
fn the_moves_reading_names_only_factions_past_the_margin() {
    let out = crate::util::vpsim_output(&[
        "sensitivity",
        "scenarios/pax_romana.toml",
        "--param",
        "faction.Rome.init.provinces=2",
        "--games",
        "20000",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("Moves win rates by 2 pp or more"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("faction.Rome.init.provinces (Rome, Greece, East)"),
        "{line}"
    );
}
