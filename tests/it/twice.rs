//! Rules of games no seed models, each written twice (`tests/data/round_three/`): with the
//! language's round-three features and without them. Both versions pass their worked
//! examples on both engines and play the same games; the rules are shorter with the
//! features.

use crate::util::{examples_pass_on_both, rule_lines, same_everywhere, same_on_both, vpsim_output};

/// Each pair: both pass their examples on both engines, give the same results on both
/// engines, play the same games as each other, and the file with the features is shorter.
#[test]
fn rules_written_with_the_features_are_shorter_and_play_the_same_games() {
    for name in [
        "wingspan_goals",
        "longest_path",
        "final_turns",
        "splendor_nobles",
    ] {
        let after = format!("tests/data/round_three/{name}.toml");
        let before = format!("tests/data/round_three/{name}_before.toml");
        for path in [&after, &before] {
            examples_pass_on_both(path);
        }
        // Each file the same on both engines; both files the same games (the points'
        // sources may differ: a file without the features may credit none).
        let runs: Vec<serde_json::Value> = [&after, &before]
            .iter()
            .map(|p| same_on_both(std::path::Path::new(p), &[]))
            .collect();
        if name == "splendor_nobles" {
            // The noble is an automatic action at the turn's end in one file and a second
            // decision in the other: each draws from the part of the game it is made in
            // (the turn's end, the second decision), so the games differ draw by draw and
            // agree in distribution.
            same_in_distribution(&runs[0], &runs[1], name);
            continue;
        }
        assert_eq!(runs[0]["factions"], runs[1]["factions"], "{name}");
        assert_eq!(runs[0]["end_reasons"], runs[1]["end_reasons"], "{name}");
        assert!(
            rule_lines(&after) < rule_lines(&before),
            "{name}: {} rule lines with the features, {} without",
            rule_lines(&after),
            rule_lines(&before)
        );
    }
}

/// Every faction's win rate and mean score of run `a` lies within noise of run `b`'s: the
/// two 95% intervals overlap, and the mean scores differ by less than four standard errors.
fn same_in_distribution(a: &serde_json::Value, b: &serde_json::Value, name: &str) {
    let fa = a["factions"].as_array().unwrap();
    let fb = b["factions"].as_array().unwrap();
    assert_eq!(fa.len(), fb.len(), "{name}");
    for (x, y) in fa.iter().zip(fb) {
        let (wx, wy) = (&x["win"], &y["win"]);
        let overlap =
            wx["low"].as_f64() <= wy["high"].as_f64() && wy["low"].as_f64() <= wx["high"].as_f64();
        assert!(overlap, "{name}: win {wx} against {wy}");
        let n = wx["n"].as_f64().unwrap();
        let (sx, sy) = (&x["score"], &y["score"]);
        let se =
            ((sx["sd"].as_f64().unwrap().powi(2) + sy["sd"].as_f64().unwrap().powi(2)) / n).sqrt();
        let d = (sx["mean"].as_f64().unwrap() - sy["mean"].as_f64().unwrap()).abs();
        assert!(d < 4.0 * se, "{name}: mean score {sx} against {sy}");
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
    let v = same_on_both(&file, &[]);
    assert_eq!(v["factions"][0]["score"]["mean"], 60.0);
    assert_eq!(v["factions"][1]["score"]["mean"], 0.0);
}

/// A game-end phase takes no decisions and cannot end the game again or mark a win: each is
/// refused where it is written.
#[test]
fn a_game_end_phase_refuses_decisions_and_endings() {
    let base = std::fs::read_to_string("tests/data/round_three/longest_path.toml").unwrap();
    let phase = "at = \"game_end\"\neffects = [";
    for (edit, line, says) in [
        (
            "at = \"game_end\"\neach = \"faction\"\nactions = 1\neffects = [",
            36,
            "a game-end phase takes no decisions",
        ),
        (
            "at = \"game_end\"\neffects = [\"if round > 3: end out_of_trains\", ",
            35,
            "`end`, `win` and `lose` have no place in it",
        ),
    ] {
        let text = base.replacen(phase, edit, 1);
        let file = crate::util::temp_scenario("twice-game-end", &text);
        let out = vpsim_output(&["validate", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(says) && err.contains(&format!(":{line}:")),
            "{err}"
        );
    }
}

/// A game-end phase written before the round's phases runs once, last, and leaves the
/// round's phases their parts of the random stream (each phase's is named by its place in
/// the file): every engine, thread count and shard split plays the same games, searching
/// factions included, and game 1 of seed 5 is the game it was when the game-end phases
/// shared the round's list.
#[test]
fn a_game_end_phase_written_first_runs_last_and_keeps_the_streams() {
    let path = "tests/data/end_phase_first.toml";
    examples_pass_on_both(path);
    same_everywhere(
        "end-phase-first",
        &[path, "--games", "400", "--seed", "5"],
        3,
    );
    let look = [
        path,
        "--games",
        "40",
        "--seed",
        "5",
        "--agent",
        "A=lookahead:3",
    ];
    same_everywhere("end-phase-first-look", &look, 2);
    let out = vpsim_output(&["trace", path, "--seed", "5", "--game", "1"]);
    let text = String::from_utf8_lossy(&out.stdout);
    let phases: Vec<&str> = text.lines().filter(|l| l.starts_with(" phase ")).collect();
    assert_eq!(
        phases.last(),
        Some(&" phase final_tally (at the game's end)")
    );
    assert_eq!(
        phases.iter().filter(|l| l.contains("final_tally")).count(),
        1
    );
    assert!(
        text.contains("final ranking: 1. B (12), 2. A (10), 3. C (8)"),
        "{text}"
    );
}

/// Final turns, traced: once the condition holds at the end of a faction's turn, every
/// faction takes exactly one more turn in turn order, the one that triggered it last, and the
/// game ends then, on both engines' games (the trace replays the interpreter's).
#[test]
fn final_turns_give_each_faction_one_more_turn_the_trigger_last() {
    let file = "tests/data/round_three/final_turns.toml";
    for game in 0..6 {
        let out = vpsim_output(&["trace", file, "--game", &game.to_string()]);
        let text = String::from_utf8_lossy(&out.stdout);
        let at = text
            .find("final turns: last_turns holds for ")
            .expect("triggered");
        let trigger = &text[at + "final turns: last_turns holds for ".len()..][..1];
        let after = &text[at..];
        let turns: Vec<&str> = after
            .lines()
            .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(": claim"))
            .collect();
        assert_eq!(turns.len(), 3, "game {game}: {after}");
        assert_eq!(turns[2], trigger, "game {game}: {after}");
        let mut each = turns.clone();
        each.sort();
        assert_eq!(each, ["A", "B", "C"], "game {game}");
        assert!(after.contains("game ends in round") && after.contains(": last_turns"));
    }
    // A final-turns condition ends the game with a ranking: `win` has none.
    let text = std::fs::read_to_string(file).unwrap().replace(
        "name = \"last_turns\"\n",
        "name = \"last_turns\"\nresult = \"win\"\n",
    );
    let bad = crate::util::temp_scenario("twice-final-win", &text);
    let out = vpsim_output(&["validate", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("a `win` or `lose` result has no final turns"),
        "{err}"
    );
}

/// A final round, traced: once the condition holds at the end of a faction's turn, the round
/// is finished (the later turns and phases run) and the game ends with it.
#[test]
fn a_final_round_finishes_the_round_then_ends_the_game() {
    let text = std::fs::read_to_string("tests/data/round_three/final_turns.toml")
        .unwrap()
        .replace("timing = \"final_turns\"", "timing = \"final_round\"")
        .replace(
            "[[action]]",
            "[[phase]]\nname = \"tally\"\neffects = [\"A.vp += 0\"]\n\n[[action]]",
        );
    let file = crate::util::temp_scenario("twice-final-round", &text);
    let f = file.to_str().unwrap();
    for game in 0..6 {
        let out = vpsim_output(&["trace", f, "--game", &game.to_string()]);
        let text = String::from_utf8_lossy(&out.stdout);
        let at = text
            .find("final round: last_turns holds for ")
            .expect("triggered");
        let trigger = &text[at + "final round: last_turns holds for ".len()..][..1];
        let after = &text[at..];
        // The factions after the trigger in seat order take their turns, then the tally.
        let turns: Vec<&str> = after
            .lines()
            .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(": claim"))
            .collect();
        let later: Vec<&str> = ["A", "B", "C"]
            .into_iter()
            .filter(|x| *x > trigger)
            .collect();
        assert_eq!(turns, later, "game {game}: {after}");
        let (tally, ends) = (
            after.find(" phase tally").unwrap(),
            after.find("\ngame ends in round").unwrap(),
        );
        assert!(
            tally < ends && !after[..ends].contains("\nround "),
            "{after}"
        );
    }
    let out = vpsim_output(&["run", f, "--games", "500", "--json", "-q"]);
    assert!(out.status.success());
}

/// A grid's neighbours through computed subscripts, on both engines: at the edges the guard
/// `if(...)` keeps the read inside the row (position 3's right-hand neighbour is not the next
/// row's first), and an unguarded read past the set is a located fault naming the position.
#[test]
fn a_grid_reads_its_neighbours_at_the_edges_and_faults_past_the_end() {
    let rules = r#"
[scenario]
name = "grid"
rounds = 3
[[faction]]
name = "A"
[[faction]]
name = "B"
[[set]]
name = "wall"
grid = [3, 3]
[[var]]
name = "tile"
over = "wall"
[[var]]
name = "vp"
[[phase]]
name = "turn"
each = "faction"
actions = 1
[[action]]
name = "place"
for_each = "wall"
when = "tile[it] == 0"
effects = ["{ tile[it] = 1; vp += 1 + RIGHT + if(col(it) > 1, tile[it - 1], 0) + if(cell(row(it) + 1, col(it)) > 0, tile[cell(row(it) + 1, col(it))], 0) }"]
[ranking]
score = "vp"
"#;
    let examples = r#"
[[example]]
name = "right neighbour"
given = ["A.tile[r1c2] = 1"]
actor = "A"
action = "place_r1c1"
expect = ["A.vp == 2"]
[[example]]
name = "below, through cell(r, c)"
given = ["A.tile[r3c3] = 1"]
actor = "A"
action = "place_r2c3"
expect = ["A.vp == 2"]
[[example]]
name = "the row's end: position 4 is the next row's first, not a neighbour"
given = ["A.tile[r2c1] = 1"]
actor = "A"
action = "place_r1c3"
expect = ["A.vp == 1", "row(6) == 2", "col(6) == 3", "cell(3, 4) == 0", "cell(2, 3) == 6"]
"#;
    let guarded = rules.replace("RIGHT", "if(col(it) < 3, tile[it + 1], 0)");
    let file = crate::util::temp_scenario("twice-grid", &format!("{guarded}{examples}"));
    examples_pass_on_both(&file);
    same_on_both(&file, &[]);
    // Unguarded, the last position reads position 10 of 9.
    let bad = crate::util::temp_scenario("twice-grid-bad", &rules.replace("RIGHT", "tile[it + 1]"));
    for engine in ["interp", "native"] {
        let out = vpsim_output(&[
            "run",
            bad.to_str().unwrap(),
            "--games",
            "200",
            "-q",
            "--engine",
            engine,
        ]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{engine}: {err}");
        assert!(
            err.contains("subscript 10 is outside the set: positions run from 1 to 9"),
            "{engine}: {err}"
        );
        assert!(
            err.contains(".toml:25:13:"),
            "{engine}: located at the effects line: {err}"
        );
    }
}

/// A computed subscript is refused where it cannot work, each with its location: a real
/// position, an award at a position known only when the game runs (an assignment takes
/// one), a grid function with no grid, and a set with both `elements` and `grid`.
#[test]
fn computed_subscripts_refuse_what_cannot_work() {
    let base = r#"
[scenario]
name = "refuse"
rounds = 1
[[faction]]
name = "A"
[[set]]
name = "s"
SET
[[var]]
name = "x"
over = "s"
[[var]]
name = "k"
[[phase]]
name = "p"
each = "faction"
effects = ["EFFECT"]
[ranking]
score = "k"
"#;
    for (set, effect, says) in [
        (
            "elements = [\"a\", \"b\"]",
            "k = x[k / 2]",
            "a whole number",
        ),
        (
            "elements = [\"a\", \"b\"]",
            "award x[k] by k scale 1",
            "for m in SET: if m == POSITION",
        ),
        ("elements = [\"a\", \"b\"]", "k = row(1)", "needs a grid"),
        (
            "elements = [\"a\"]\ngrid = [2, 2]",
            "k = 1",
            "either `elements` or `grid`",
        ),
        ("grid = [0, 3]", "k = 1", "at least 1 row"),
    ] {
        let text = base.replace("SET", set).replace("EFFECT", effect);
        let file = crate::util::temp_scenario("twice-refuse", &text);
        let out = vpsim_output(&["validate", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{effect}: {err}");
        assert!(err.contains(says), "{set} / {effect}: {err}");
        assert!(err.contains(".toml:"), "located: {err}");
    }
}

/// An automatic action is taken exactly once at the end of each turn when available, outside
/// the turn's decisions, and never as one of them: 5 rounds of 3 decisions give 15 buys and 5
/// claims per faction, whatever the agent and the action's weight, on both engines.
#[test]
fn an_automatic_action_is_claimed_once_a_turn_and_never_chosen() {
    let text = r#"
[scenario]
name = "claims"
rounds = 5
[[faction]]
name = "A"
[[faction]]
name = "B"
[[var]]
name = "buys"
[[var]]
name = "claims"
[[phase]]
name = "turn"
each = "faction"
actions = 3
[[action]]
name = "buy"
effects = ["buys += 1"]
[[action]]
name = "claim"
auto = true
for_each = "two"
weight = 100
effects = ["claims += 1"]
[[set]]
name = "two"
elements = ["x", "y"]
[ranking]
score = "100 * claims + buys"
"#;
    // A weight of 0 changes nothing: the rules take the claim whatever the weights.
    for weight in ["100", "0"] {
        let file = crate::util::temp_scenario(
            "twice-claims",
            &text.replace("weight = 100", &format!("weight = {weight}")),
        );
        for agent in ["weighted", "greedy", "lookahead:2"] {
            let v = same_on_both(&file, &["--agent", agent]);
            for f in 0..2 {
                assert_eq!(
                    v["factions"][f]["score"]["mean"], 515.0,
                    "{agent}, weight {weight}"
                );
            }
        }
    }
    let file = crate::util::temp_scenario("twice-claims", text);
    let out = vpsim_output(&["validate", file.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("claim_x (automatic)"), "{text}");
}

/// An error about a key points at the key, not at its value: a setting named with a reserved
/// word (in `[settings]` and in a faction's own), a faction's initial value of an unknown
/// variable, and a cost paid from something that is not a plain variable.
#[test]
fn an_error_about_a_key_points_at_the_key() {
    let base = r#"
[scenario]
name = "keys"
rounds = 2
[settings]
SETTING
[[faction]]
name = "A"
FACTION
[[var]]
name = "vp"
[[action]]
name = "buy"
COST
[ranking]
score = "vp"
"#;
    for (setting, faction, cost, line) in [
        ("complete = 0.6", "", "", "6:1"),
        ("goal = 1", "settings = { goal = 2, zero = 3 }", "", "9:24"),
        ("goal = 1", "init = { vq = 2 }", "", "9:10"),
        ("goal = 1", "", "cost = { goal = 1 }", "14:10"),
    ] {
        let text = base
            .replace("SETTING", setting)
            .replace("FACTION", faction)
            .replace("COST", cost);
        let file = crate::util::temp_scenario("twice-keys", &text);
        let out = vpsim_output(&["validate", file.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(".toml:{line}:")),
            "{setting} {faction} {cost}: {err}"
        );
    }
}
