//! `vpsim compare` end to end: paired games, what is beyond noise, its margin and level,
//! the games whose winner changed.

use serde_json::Value;

use crate::util::{TI4, json_of, vpsim, vpsim_output};

fn compare_json(args: &[&str]) -> Value {
    json_of(&[&["compare"], args, &["--json"]].concat())
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
fn compare_names_its_equivalence_margin_and_one_level() {
    let out = vpsim_output(&[
        "compare",
        "scenarios/race_to_three.toml",
        "--games",
        "4000",
        "--quiet",
        "--delta",
        "0.02",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("no difference beyond ±2 pp"), "{text}");
    assert!(text.contains("beyond noise with 95% confidence"), "{text}");
}

#[test]
fn compare_counts_the_games_whose_winner_changed_when_the_moves_cancel() {
    // Two symmetric factions; reversing the tie-break hands tied games to the other side:
    // the win rates stay level while the winner of many games changes.
    let text = "[scenario]\nname = \"symmetric\"\nrounds = 3\n\
        [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n\
        [[var]]\nname = \"vp\"\n[[var]]\nname = \"rows\"\ninit = \"uniform(0, 3)\"\n\
        [[phase]]\nname = \"score\"\neach = \"faction\"\neffects = [\"vp += bernoulli(0.5)\"]\n\
        [ranking]\nscore = \"vp\"\ntiebreak = [\"rows\", \"die\"]\n";
    let p = crate::util::temp_scenario("compare-changed", text);
    let p = p.to_str().unwrap();
    let v = crate::util::json_of(&[
        "compare",
        p,
        "--b-set",
        "ranking.tiebreak=[\"-rows\", \"die\"]",
        "--games",
        "40000",
        "--json",
        "--quiet",
    ]);
    let changed = &v["winner_changed"];
    assert!(changed["low"].as_f64().unwrap() > 0.1, "{changed}");
    let s = v["sentence"].as_str().unwrap();
    assert!(s.contains("No win-rate difference is beyond noise"), "{s}");
    assert!(s.contains("Yet the winner changed in"), "{s}");
    // A file against itself: the same winner in every game.
    let v = crate::util::json_of(&["compare", p, "--games", "2000", "--json", "--quiet"]);
    assert_eq!(v["winner_changed"]["count"], 0, "{v}");
    assert!(
        v["sentence"]
            .as_str()
            .unwrap()
            .contains("The winner is the same in every game")
    );
}
