//! Custom metrics (`[[metric]]`): values equal to the games table, the same on both engines,
//! any thread count and any shard split, games unchanged by recording them, and located
//! errors for a metric that would draw or collide.

use crate::util::{fresh_temp_path, json_of, same_everywhere, temp_scenario, vpsim_output};

const RACE: &str = include_str!("../../scenarios/race_to_three.toml");

/// The race to three with three metrics: each faction's final points, the game's last
/// round, and each faction's lead over the trailer after every round.
fn with_metrics() -> String {
    format!(
        r#"{RACE}
[[metric]]
name = "final_vp"
formula = "vp"

[[metric]]
name = "length"
formula = "round"
scope = "global"

[[metric]]
name = "lead"
formula = "vp - min_all(vp)"
at = "round"
"#
    )
}

fn run(path: &str, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["run", path, "--json", "--quiet", "--games", "4000"];
    args.extend_from_slice(extra);
    json_of(&args)
}

/// The values of a column of a CSV table.
fn column(csv: &str, name: &str) -> Vec<String> {
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().unwrap().split(',').collect();
    let k = head.iter().position(|h| *h == name).unwrap();
    lines
        .map(|l| l.split(',').nth(k).unwrap().to_string())
        .collect()
}

#[test]
fn metrics_equal_the_games_table() {
    let p = temp_scenario("metrics-table", &with_metrics());
    let p = p.to_str().unwrap();
    let dir = fresh_temp_path("metrics-table-out");
    let d = dir.to_str().unwrap();
    let out = vpsim_output(&[
        "run",
        p,
        "--games",
        "3000",
        "--quiet",
        "--out",
        d,
        "--games-table",
        "--csv",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(dir.join("csv/games.csv")).unwrap();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let m = &summary["metrics"];
    // Each faction's final points are its score; the game's metric is its length.
    for (f, name) in ["First", "Second"].iter().enumerate() {
        assert_eq!(
            column(&csv, &format!("final_vp_{name}")),
            column(&csv, &format!("score_{name}"))
        );
        let vals: Vec<f64> = column(&csv, &format!("final_vp_{name}"))
            .iter()
            .map(|v| v.parse().unwrap())
            .collect();
        let winner = column(&csv, "winner");
        let mean = |keep: &dyn Fn(usize) -> bool| {
            let v: Vec<f64> = (0..vals.len())
                .filter(|&i| keep(i))
                .map(|i| vals[i])
                .collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        let owner = &m[0]["owners"][f];
        let close = |a: f64, b: &serde_json::Value| (a - b.as_f64().unwrap()).abs() < 1e-9;
        assert!(close(mean(&|_| true), &owner["all"]["mean"]), "{owner}");
        assert!(
            close(mean(&|i| winner[i] == *name), &owner["won"]["mean"]),
            "{owner}"
        );
        assert!(
            close(mean(&|i| winner[i] != *name), &owner["others"]["mean"]),
            "{owner}"
        );
        let d = &owner["won_minus_others"];
        assert!(
            d["low"].as_f64().unwrap() > 0.0,
            "winners end with more points: {d}"
        );
    }
    assert_eq!(column(&csv, "length"), column(&csv, "rounds"));
    assert_eq!(m[1]["owners"][0]["faction"], "");
    // The lead after round 1 is in the by_round table, and equals the JSON's.
    let by_round = std::fs::read_to_string(dir.join("csv/by_round.csv")).unwrap();
    let lead = column(&by_round, "lead_mean");
    let json_lead = m[2]["rounds"][0]["values"][0]["mean"].as_f64().unwrap();
    assert!((lead[0].parse::<f64>().unwrap() - json_lead).abs() < 1e-9);
    assert_eq!(m[2]["rounds"][0]["games"], 3000);
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("## Metrics") && md.contains("not effects"),
        "{md}"
    );
}

#[test]
fn recording_metrics_changes_no_game() {
    let plain = temp_scenario("metrics-plain", RACE);
    let with = temp_scenario("metrics-with", &with_metrics());
    let mut a = run(plain.to_str().unwrap(), &[]);
    let mut b = run(with.to_str().unwrap(), &[]);
    for v in [&mut a, &mut b] {
        let o = v.as_object_mut().unwrap();
        for k in ["performance", "scenario", "metrics"] {
            o.remove(k);
        }
    }
    assert_eq!(a, b);
}

#[test]
fn metrics_are_the_same_on_both_engines_any_threads_and_any_shard_split() {
    let p = temp_scenario("metrics-same", &with_metrics());
    let p = p.to_str().unwrap();
    let one = same_everywhere("metrics-shards", &[p, "--games", "5000", "--seed", "4"], 3);
    assert!(one["metrics"].as_array().is_some_and(|m| m.len() == 3));
}

#[test]
fn a_metric_that_draws_or_collides_is_refused_at_its_line() {
    let cases = [
        (
            "formula = \"vp + bernoulli(0.5)\"",
            "draws a random number",
            4,
        ),
        (
            "formula = \"vp\"\nat = \"later\"",
            "expected one of end, round",
            5,
        ),
    ];
    for (body, says, at) in cases {
        let text = format!("{RACE}\n[[metric]]\nname = \"m\"\n{body}\n");
        let p = temp_scenario("metrics-bad", &text);
        let out = vpsim_output(&["validate", p.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{err}");
        let line = RACE.lines().count() + at;
        assert!(
            err.contains(&format!(":{line}:")),
            "located at line {line}: {err}"
        );
    }
    let text = format!("{RACE}\n[[metric]]\nname = \"score\"\nformula = \"vp\"\n");
    let p = temp_scenario("metrics-collide", &text);
    let out = vpsim_output(&["validate", p.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("`score_First`"), "{err}");
}

#[test]
fn trace_prints_each_metric_at_the_end() {
    let p = temp_scenario("metrics-trace", &with_metrics());
    let out = vpsim_output(&["trace", p.to_str().unwrap(), "--game", "0"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("metric First.final_vp = "), "{text}");
    assert!(text.contains("metric length = "), "{text}");
}
