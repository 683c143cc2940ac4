//! Seat rotation (`--rotate-seats`): every faction in every seat equally often, a seat's
//! edge told apart from a faction's, and the same results on both engines, any thread
//! count and any shard split.

use crate::util::{json_of, same_everywhere, temp_scenario, vpsim_output};

/// Three factions race to 3 points; `ending` says when the race is checked and `a` is the
/// first faction's chance a round (the others' is 0.3). Checked at once, the first to
/// reach 3 in turn order wins: a seat edge. Checked at the round's end, a tie is shared:
/// no seat edge.
fn race(a: f64, ending: &str) -> String {
    format!(
        r#"[scenario]
name = "seat_race"
rounds = 1000

[[faction]]
name = "A"
settings = {{ chance = {a} }}

[[faction]]
name = "B"
settings = {{ chance = 0.3 }}

[[faction]]
name = "C"
settings = {{ chance = 0.3 }}

[[var]]
name = "vp"
min = 0
max = 3

[[phase]]
name = "score"
each = "faction"
effects = ["vp += bernoulli(chance)"]

[[end]]
name = "three"
when = "max_all(vp) >= 3"
timing = "{ending}"

[ranking]
score = "vp"
"#
    )
}

fn run(path: &str, extra: &[&str]) -> serde_json::Value {
    let games = if extra.contains(&"--games") {
        [].as_slice()
    } else {
        ["--games", "30000"].as_slice()
    };
    let mut args = vec!["run", path, "--json", "--quiet"];
    args.extend_from_slice(games);
    args.extend_from_slice(extra);
    json_of(&args)
}

/// Each seat's edge over the fair share as (estimate, low, high).
fn edges(v: &serde_json::Value) -> Vec<(f64, f64, f64)> {
    (v["seats"].as_array().unwrap().iter())
        .map(|s| {
            let e = &s["edge"];
            let f = |k: &str| e[k].as_f64().unwrap();
            (f("est"), f("low"), f("high"))
        })
        .collect()
}

#[test]
fn rotation_seats_each_faction_in_each_seat_exactly_equally_often() {
    let path = temp_scenario("seats-balance", &race(0.3, "immediate"));
    // 3 factions: a cycle of 6 games (the balanced square and its mirror).
    let v = run(
        path.to_str().unwrap(),
        &["--rotate-seats", "--games", "600"],
    );
    let seats = v["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 3);
    for s in seats {
        assert_eq!(s["win"]["n"], 600);
        for cell in s["by_faction"].as_array().unwrap() {
            assert_eq!(cell["n"], 200, "{s}");
        }
    }
    // Wins by seat add up to wins by faction.
    let by_seat: u64 = seats
        .iter()
        .map(|s| s["win"]["count"].as_u64().unwrap())
        .sum();
    let by_faction: u64 = (0..3)
        .map(|f| v["factions"][f]["win"]["count"].as_u64().unwrap())
        .sum();
    assert_eq!(by_seat, by_faction);
    // Without the flag there is no seat table.
    let plain = run(path.to_str().unwrap(), &["--games", "600"]);
    assert!(plain.get("seats").is_none());
}

#[test]
fn a_planted_seat_edge_reads_as_a_seat_and_not_as_a_faction() {
    let path = temp_scenario("seats-seat-edge", &race(0.3, "immediate"));
    let p = path.to_str().unwrap();
    // Unrotated, the first faction always sits first: its edge looks like a faction's.
    let fixed = run(p, &[]);
    let (a, c) = (
        fixed["factions"][0]["win"]["low"].as_f64().unwrap(),
        fixed["factions"][2]["win"]["high"].as_f64().unwrap(),
    );
    assert!(a > c, "unrotated, seat 1's edge is A's: {fixed}");
    let v = run(p, &["--rotate-seats"]);
    let e = edges(&v);
    assert!(
        e[0].1 > 0.0,
        "seat 1 above the fair share beyond noise: {e:?}"
    );
    assert!(e[2].2 < 0.0, "seat 3 below it: {e:?}");
    let out = vpsim_output(&["run", p, "--games", "30000", "--quiet", "--rotate-seats"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("seat 1 wins +"), "{text}");
    assert!(
        text.contains("factions within noise of each other"),
        "{text}"
    );
}

#[test]
fn a_planted_faction_edge_reads_as_a_faction_and_not_as_a_seat() {
    let path = temp_scenario("seats-faction-edge", &race(0.45, "round_end"));
    let p = path.to_str().unwrap();
    let v = run(p, &["--rotate-seats"]);
    // Every seat holds each faction equally often and a tie is shared: no seat's win rate
    // stands apart from another's.
    let rates: Vec<f64> = (v["seats"].as_array().unwrap().iter())
        .map(|s| s["win"]["rate"].as_f64().unwrap())
        .collect();
    let lows: Vec<f64> = (v["seats"].as_array().unwrap().iter())
        .map(|s| s["win"]["low"].as_f64().unwrap())
        .collect();
    let highs: Vec<f64> = (v["seats"].as_array().unwrap().iter())
        .map(|s| s["win"]["high"].as_f64().unwrap())
        .collect();
    for (i, low) in lows.iter().enumerate() {
        for (j, high) in highs.iter().enumerate() {
            assert!(low <= high, "seats {i} and {j} overlap: {rates:?}");
        }
    }
    let out = vpsim_output(&["run", p, "--games", "30000", "--quiet", "--rotate-seats"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("factions differ beyond noise, each averaged over every seat: A"),
        "{text}"
    );
}

#[test]
fn rotated_runs_are_the_same_on_both_engines_any_threads_and_any_shard_split() {
    let path = temp_scenario("seats-determinism", &race(0.4, "immediate"));
    let p = path.to_str().unwrap();
    let args = [p, "--games", "5000", "--seed", "9", "--rotate-seats"];
    let one = same_everywhere("seats-shards", &args, 3);
    assert!(
        one["seats"].as_array().is_some_and(|s| !s.is_empty()),
        "{one}"
    );
}

#[test]
fn trace_names_each_seat_and_the_seat_of_each_decision() {
    let path = temp_scenario("seats-trace", crate::util::SAFE_OR_RISKY);
    let p = path.to_str().unwrap();
    let out = vpsim_output(&["trace", p, "--game", "1", "--rotate-seats"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("seats: 1 B, 2 A"), "{text}");
    assert!(text.contains("B (seat 1): "), "{text}");
    let plain = vpsim_output(&["trace", p, "--game", "1"]);
    let text = String::from_utf8_lossy(&plain.stdout);
    assert!(text.contains("seats: 1 A, 2 B"), "{text}");
}

#[test]
fn check_reads_the_first_seat_when_seats_rotate() {
    let path = temp_scenario("seats-check", &race(0.3, "immediate"));
    let p = path.to_str().unwrap();
    // The first seat's edge is there whoever sits in it.
    let out = vpsim_output(&[
        "check",
        p,
        "--games",
        "30000",
        "--quiet",
        "--rotate-seats",
        "--assert",
        "seat_advantage > 0.02",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn an_example_seats_the_factions_as_it_says() {
    let race = include_str!("../../scenarios/race_to_three.toml");
    let p = temp_scenario("seats-example", race);
    let out = vpsim_output(&["test", p.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("ok      with Second in the first seat"),
        "{text}"
    );
    // The same example expecting the factions' own order fails: the seating is applied.
    let wrong = race.replace(
        "result = \"win Second\"\norder = [\"Second\", \"First\"]",
        "result = \"win First\"\norder = [\"First\", \"Second\"]",
    );
    assert_ne!(wrong, race);
    let p = temp_scenario("seats-example-wrong", &wrong);
    let out = vpsim_output(&["test", p.to_str().unwrap()]);
    assert!(!out.status.success());
    for (seats, says) in [
        ("[\"Second\", \"Second\"]", "`Second` is seated twice"),
        ("[\"Second\"]", "`seats` leaves out `First`"),
    ] {
        let bad = race.replace(
            "[\"Second\", \"First\"]\nsettings",
            &format!("{seats}\nsettings"),
        );
        assert_ne!(bad, race);
        let p = temp_scenario("seats-example-bad", &bad);
        let out = vpsim_output(&["validate", p.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && err.contains(says), "{err}");
    }
}

/// A scenario whose turn orders never read the seating (TI4 orders its turns by an
/// initiative dealt by `random()`): rotating the seats plays the same games, and the
/// report says so instead of showing a seat table.
#[test]
fn a_rotation_that_changes_no_game_says_so_instead_of_a_seat_table() {
    let ti4 = crate::util::TI4;
    let plain = run(ti4, &["--games", "3000"]);
    let rotated = run(ti4, &["--games", "3000", "--rotate-seats"]);
    let wins = |v: &serde_json::Value| -> Vec<u64> {
        (v["factions"].as_array().unwrap().iter())
            .map(|f| f["win"]["count"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(wins(&plain), wins(&rotated), "the same games");
    assert!(rotated.get("seats").is_none(), "{rotated}");
    assert_eq!(rotated["seats_unmoved"], true);
    let out = vpsim_output(&["run", ti4, "--games", "600", "--quiet", "--rotate-seats"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--rotate-seats changed no game"), "{text}");
    assert!(!text.contains("over fair share"), "{text}");
    // The other commands say so too, and show no seat table.
    for args in [
        &[
            "sensitivity",
            ti4,
            "--param",
            "settings.goal",
            "--games",
            "300",
            "--rotate-seats",
        ][..],
        &[
            "sweep",
            ti4,
            "--param",
            "settings.goal=9:10:1",
            "--games",
            "300",
            "--rotate-seats",
        ],
        &[
            "compare",
            ti4,
            "--b-set",
            "settings.goal=11",
            "--games",
            "300",
            "--rotate-seats",
        ],
    ] {
        let out = vpsim_output(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("--rotate-seats changed no game"),
            "{args:?}: {text}"
        );
        assert!(!text.contains("seats (rotated"), "{args:?}: {text}");
    }
    let v = vpsim_output(&["validate", ti4]);
    assert!(
        String::from_utf8_lossy(&v.stdout).contains("seats: rotating them changes no game"),
        "{v:?}"
    );
}

/// Every way a game reads the seating is named by `validate`, and a rotated run of such a
/// scenario keeps its seat table.
#[test]
fn each_use_of_the_seating_is_named() {
    let cases = [
        // The default turn order.
        (race(0.3, "immediate"), "phase score plays its turns in seat order"),
        // Turn-order keys that can tie.
        (
            race(0.3, "immediate").replace(
                "each = \"faction\"",
                "each = \"faction\"\norder = [\"vp\"]",
            ),
            "phase score's turn order keys may tie",
        ),
        // An order statement by keys that can tie, read as turn order.
        (
            race(0.3, "immediate")
                .replace("each = \"faction\"", "each = \"faction\"\norder = [\"turn\"]")
                .replace(
                    "[[end]]",
                    "[[var]]\nname = \"turn\"\ninit = \"seat\"\n\n[[phase]]\nname = \"deal\"\neffects = [\"order turn by vp\"]\n\n[[end]]",
                ),
            "`order turn by ...`'s keys may tie",
        ),
        (
            race(0.3, "immediate").replace("vp += bernoulli(chance)", "vp += bernoulli(chance) * (table_seat > 0)"),
            "a formula reads table_seat",
        ),
    ];
    for (i, (text, says)) in cases.iter().enumerate() {
        let path = temp_scenario(&format!("seat-uses-{i}"), text);
        let p = path.to_str().unwrap();
        let v = vpsim_output(&["validate", p]);
        let shown = String::from_utf8_lossy(&v.stdout);
        assert!(shown.contains(says), "{says}: {shown}");
        let rotated = run(p, &["--games", "600", "--rotate-seats"]);
        assert_eq!(rotated["seats"].as_array().unwrap().len(), 3, "{says}");
    }
}
