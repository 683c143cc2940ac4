//! What pairing is worth in `vpsim compare`, through the binary: each faction's variance
//! reduction and the one line that says it, and the games whose winner changed read
//! against what two independent games would give, so that a variant that plays the same
//! game in distribution but draws differently is never read as moving wins.

use crate::util::{json_of, temp_scenario, vpsim_output};

/// Four factions each gain 1 to 3 points a round.
const WORK: &str = r#"
[scenario]
name = "work"
rounds = 5

[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
[[faction]]
name = "D"

[[var]]
name = "vp"

[[phase]]
name = "work"
each = "faction"
effects = ["vp += uniform(1, 3)"]

[ranking]
score = "vp"
tiebreak = ["die"]
"#;

#[test]
fn a_same_distribution_variant_is_not_read_as_moving_wins() {
    let p = temp_scenario("pairing-mirror", WORK);
    let p = p.to_str().unwrap();
    // 4 - uniform(1, 3) is the same distribution, drawn the other way round.
    let mirror = "phase.work.effects=[\"vp += 4 - uniform(1, 3)\"]";
    let args = ["compare", p, "--b-set", mirror, "--games", "4000"];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    let changed = v["winner_changed"]["rate"].as_f64().unwrap();
    let apart = v["winner_changed_independent"].as_f64().unwrap();
    // Four even factions: independent games give different winners about 3 times in 4.
    assert!((apart - 0.75).abs() < 0.03, "{apart}");
    assert!(changed > 0.6, "{changed}");
    let s = v["sentence"].as_str().unwrap();
    assert!(
        s.contains("diverged") && !s.contains("moves wins"),
        "a same-distribution variant read as an effect: {s}"
    );
    // Nothing to gain from pairing drawn the other way round: a reduction near 1.
    let r = v["variance_reduction"].as_f64().unwrap();
    assert!(r < 1.5, "{r}");
}

#[test]
fn compare_says_what_pairing_was_worth() {
    let p = temp_scenario("pairing-worth", WORK);
    let p = p.to_str().unwrap();
    // One faction's extra point in the last round: the same dice, so most games agree.
    let tweak = "phase.work.effects=[\"vp += uniform(1, 3) + if(seat == 1 and round == 5, 1, 0)\"]";
    let args = ["compare", p, "--b-set", tweak, "--games", "4000"];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    for f in v["factions"].as_array().unwrap() {
        let r = f["variance_reduction"].as_f64().unwrap();
        assert!(r > 3.0, "{f}");
    }
    let mean = v["variance_reduction"].as_f64().unwrap();
    let out = vpsim_output(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    // Two significant figures: an equivalent count is no more precise.
    let x = 4000.0 * mean;
    let unit = 10f64.powi(x.log10().floor() as i32 - 1);
    let games = ((x / unit).round() * unit) as u64;
    let line = format!(
        "pairing made this comparison as precise as about {} independent games a variant",
        vpsim::stats::thousands(games)
    );
    assert!(text.contains(&line), "{line}\n{text}");
    let s = v["sentence"].as_str().unwrap();
    assert!(!s.contains("diverged"), "{s}");
}
