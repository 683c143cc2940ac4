//! Rule timing and the statements added with it: win, lose and draw conditions that hold at
//! one moment are settled together at every timing; `finish` and `round_end` in worked
//! examples run what a round's end runs; `else`; what `trace` prints for a change.

use vpsim::engine::{Game, Result as GameResult, TextTrace};

use crate::util::assert_examples_pass;

const DUEL: &str = r#"
[scenario]
name = "duel"
rounds = 5

[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"

[[var]]
name = "gold"
[[var]]
name = "hp"
init = 5
[[var]]
name = "rung"      # set by the round-end event
scope = "global"
[[var]]
name = "vp"
max = 10

[[phase]]
name = "play"
each = "faction"
actions = 1
effects = ["if gold >= 3: vp += 1 else: vp -= 1"]

[[action]]
name = "wait"
effects = []

[[event]]
name = "bell"
at = "round_end"
probability = 1
effects = ["rung = 1"]

[[end]]
name = "rich"
when = "gold >= 10"
timing = "round_end"
result = "win"

[[end]]
name = "broken"
when = "hp <= 0"
timing = "round_end"
result = "lose"

[[end]]
name = "bell_rang"
when = "rung == 1"
timing = "round_end"

[ranking]
score = "vp"

[[example]]
name = "at round end a win and a loss of one faction is a loss; the others play on"
given = ["A.gold = 10", "A.hp = 0", "B.vp = 1"]
round_end = true
# The bell rings in the round-end events, so the game ends by `bell_rang` once the marks are
# settled, and the ranking decides.
result = "win B"
reason = "bell_rang"
expect = ["A.eliminated == 1", "B.eliminated == 0"]

[[example]]
name = "a round-end win settles before a game-ending condition of the same moment"
given = ["B.gold = 12"]
finish = true
result = "win B"
reason = "rich"

[[example]]
name = "everyone remaining losing at round end is a draw"
given = ["A.hp = 0", "B.hp = -1", "C.hp = 0"]
finish = true
result = "draw"
reason = "all_lost"

[[example]]
name = "else runs when the condition fails, for each faction at once"
given = ["A.gold = 3", "B.vp = -4"]
effects = ["each: if gold >= 3: vp += 2 else: vp = vp + 10"]
expect = ["A.vp == 2", "B.vp == 6", "C.vp == 10"]
"#;

#[test]
fn conditions_of_one_moment_are_settled_together() {
    let m = vpsim::scenario::parse(DUEL, "duel.toml").unwrap();
    assert_examples_pass(&m);
}

#[test]
fn finish_runs_the_round_end_step_before_the_last_round_ends_the_game() {
    // Without the round-end step, `finish` would end the game by `last_round`.
    let m = vpsim::scenario::parse(DUEL, "duel.toml").unwrap();
    let i = m
        .examples
        .iter()
        .position(|e| e.name.starts_with("a round-end win"))
        .unwrap();
    let r = Game::new(&m).run_example(i);
    assert!(r.passed(), "{:?}", r.failures);
}

#[test]
fn a_game_plays_through_with_every_timing() {
    let m = vpsim::scenario::parse(DUEL, "duel.toml").unwrap();
    let mut g = Game::new(&m);
    for game in 0..50 {
        let o = g.play(7, game).unwrap();
        // The bell rings at the end of round 1 and ends the game then.
        assert_eq!(o.rounds, 1);
        assert_eq!(m.reasons[o.reason].name, "bell_rang");
        // Every score is tied at -1; the default chain's die picks one winner.
        assert!(matches!(o.result, GameResult::Win(_)));
        assert_eq!(o.scores[..3], [-1, -1, -1]);
    }
}

#[test]
fn lose_needs_a_when_and_who_needs_turn_start() {
    let no_when = DUEL.replace("when = \"hp <= 0\"\n", "");
    let e = vpsim::scenario::parse(&no_when, "duel.toml").unwrap_err();
    assert!(e.to_string().contains("needs `when`"), "{e}");
    let who = DUEL.replace("result = \"lose\"", "result = \"lose\"\nwho = \"all\"");
    let e = vpsim::scenario::parse(&who, "duel.toml").unwrap_err();
    assert!(e.to_string().contains("turn_start"), "{e}");
}

const TRACED: &str = r#"
[scenario]
name = "traced"
rounds = 1

[[faction]]
name = "A"

[[var]]
name = "vp"
init = 2
max = 8
[[var]]
name = "x"
init = 5
[[var]]
name = "coins"
init = 1
min = 0

[[phase]]
name = "go"
each = "faction"
effects = ["vp += x", "vp += x", "coins -= 3"]

[ranking]
score = "vp"
"#;

#[test]
fn trace_prints_the_operand_and_the_real_change() {
    let m = vpsim::scenario::parse(TRACED, "traced.toml").unwrap();
    let mut g = Game::with_tracer(&m, TextTrace::default());
    g.play(1, 0).unwrap();
    let text = &g.tracer.text;
    assert!(text.contains("A.vp += 5 -> 7 (was 2)"), "{text}");
    assert!(
        text.contains("A.vp += 5 -> 8 (was 7, capped at 8)"),
        "{text}"
    );
    assert!(
        text.contains("A.coins -= 3 -> 0 (was 1, held at its minimum 0)"),
        "{text}"
    );
}
