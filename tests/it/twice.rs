//! Rules of games no seed models, each written twice (`tests/data/round_three/`): with the
//! language's round-three features and without them. Both versions pass their worked
//! examples on both engines and play the same games; the rules are shorter with the
//! features.

use crate::util::{examples_pass_on_both, rule_lines, vpsim_output};

/// `run --json` of `path` on `engine` (2,000 games), without its performance numbers.
fn json(path: &str, engine: &str) -> serde_json::Value {
    let out = vpsim_output(&[
        "run", path, "--games", "2000", "--json", "-q", "--engine", engine,
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["performance"] = serde_json::Value::Null;
    v
}

/// Each pair: both pass their examples on both engines, give the same results on both
/// engines, play the same games as each other, and the file with the features is shorter.
#[test]
fn rules_written_with_the_features_are_shorter_and_play_the_same_games() {
    for name in ["wingspan_goals"] {
        let after = format!("tests/data/round_three/{name}.toml");
        let before = format!("tests/data/round_three/{name}_before.toml");
        for path in [&after, &before] {
            examples_pass_on_both(path);
        }
        let runs: Vec<serde_json::Value> = [&after, &before]
            .iter()
            .flat_map(|p| ["native", "interp"].map(|e| json(p, e)))
            .collect();
        for r in &runs[1..] {
            assert_eq!(r["factions"], runs[0]["factions"], "{name}");
            assert_eq!(r["points_by_source"], runs[0]["points_by_source"], "{name}");
        }
        assert!(
            rule_lines(&after) < rule_lines(&before),
            "{name}: {} rule lines with the features, {} without",
            rule_lines(&after),
            rule_lines(&before)
        );
    }
}

/// Eligibility and a scale of the moment in one award, on both engines: with `min 2`, a
/// faction below 2 takes no place, so the one above it is paid the first place's points of
/// the round (`10 * round`).
#[test]
fn an_award_skips_the_ineligible_and_reads_its_scale_when_it_runs() {
    let text = r#"
[scenario]
name = "eligible"
rounds = 3
[[faction]]
name = "A"
init = { items = 5 }
[[faction]]
name = "B"
init = { items = 1 }
[[var]]
name = "vp"
[[var]]
name = "items"
[[phase]]
name = "score"
effects = ["award vp by items min 2 scale 10 * round, 1"]
[ranking]
score = "vp"
[[example]]
name = "round 3: A alone is eligible, first place pays 30"
round = 3
phase = "score"
expect = ["A.vp == 30", "B.vp == 0"]
"#;
    let file = crate::util::temp_scenario("twice-eligible", text);
    let f = file.to_str().unwrap();
    examples_pass_on_both(f);
    // Over the three rounds A earns 10 + 20 + 30 and B, never eligible, nothing.
    let v = json(f, "native");
    assert_eq!(v["factions"][0]["score"]["mean"], 60.0);
    assert_eq!(v["factions"][1]["score"]["mean"], 0.0);
    assert_eq!(v["factions"], json(f, "interp")["factions"]);
}
