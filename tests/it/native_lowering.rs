//! Targeted cases for what machine code lowers: checked stores in a compiled run, `win` and
//! `lose` marks, awards and orders with ties and NaNs, helpers inside aggregations and hand
//! walks, `has_completed` and setup's initial values, one-key orders, certain draws and real
//! bounds. Each scenario plays the same games on the native engine and the interpreter.

use vpsim::engine::Game;

use crate::native::{both, inf, nan, same_games};

/// A compiled run of statements runs the immediate checks of a variable a store changes and
/// goes on after that store: a store that is the run's last statement happens once.
#[test]
fn a_checked_store_at_the_end_of_a_run_happens_once() {
    let text = r#"
[scenario]
name = "resume"
rounds = 5
[[faction]]
name = "A"
[[faction]]
name = "B"
[[var]]
name = "vp"
max = 1000
[[var]]
name = "n"
[[phase]]
name = "p"
each = "faction"
effects = ["n += 1", "vp += n"]
[[end]]
name = "goal"
when = "max_all(vp) >= 900"
timing = "immediate"
[ranking]
score = "vp"
"#;
    let (interp, native) = both(text, "resume.toml").unwrap();
    same_games(&interp, &native, 3, 4, 1);
    let mut g = Game::new(&native);
    let o = g.play(3, 0).unwrap();
    // 1 + 2 + 3 + 4 + 5 for each faction.
    assert_eq!(&o.scores[..2], &[15, 15]);
}

/// A round in machine code settles `win` and `lose` marks after each decision, as the
/// engine does: a faction that wins with its first action takes no second one.
#[test]
fn marks_are_settled_after_each_decision() {
    let text = r#"
[scenario]
name = "marks"
rounds = 9
[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
[[var]]
name = "x"
[[phase]]
name = "p"
each = "faction"
actions = 3
[[action]]
name = "a"
weight = 1
effects = ["x += 1", "if x == 4: win goal", "if x == 5 and seat == 2: lose goal"]
[[action]]
name = "b"
weight = 1
effects = ["x += 2"]
[[end]]
name = "goal"
[ranking]
score = "x"
"#;
    let (interp, native) = both(text, "marks.toml").unwrap();
    assert!(native.round_fn.is_some());
    same_games(&interp, &native, 2, 200, 2);
}

/// Awards of every tie policy, with ties at the top and bottom of three factions and a scale
/// whose tied sums can be negative and odd (split rounds down, not toward zero), awards with
/// `min K` and titles (with NaNs), and orders by several keys (with NaNs), statements and
/// turn order, run inside machine-code rounds and give what the interpreter gives.
#[test]
fn awards_share_ties_as_the_interpreter_does() {
    let nan = nan();
    let text = format!(
        r#"
[scenario]
name = "awards"
rounds = 12
[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
[[var]]
name = "m"
init = "uniform(0, 2)"
[[var]]
name = "s"
[[var]]
name = "h"
[[var]]
name = "l"
[[var]]
name = "z"
min = -3
[[var]]
name = "r"
[[var]]
name = "t"
[[var]]
name = "ti"
[[var]]
name = "tn"
[[phase]]
name = "p"
effects = [
  "award s by m scale 4, -1, -2 ties split",
  "award h by m scale 4, -1, -2 ties high as top",
  "award l by m scale 4, -1, -2 ties low",
  "award z by -m scale 4, -1, -2 ties zero as top",
  # A real metric, NaN (inf - inf) when m is 0: a NaN ties with nothing, not even itself.
  "award r by if(m == 0, {nan}, 0.5 * m) scale 4, -1, -2 ties split",
  "award r by if(m == 0, {nan}, 0.5 * m) scale 4, -1, -2 ties low",
  "award r by if(m == 0, {nan}, 0.5 * m) scale 4, -1, -2 ties zero",
  # `min K`: the factions below K (and a NaN) take no place; the others rank among themselves.
  "award s by m min 1 scale 4, -1, -2 ties split",
  "award r by if(m == 0, {nan}, 0.5 * m) min 0.5 scale 4, -1, -2 ties low",
  # Titles: a holder kept against a tie, lost below K, or to nobody on a tie above it.
  "title ti by m + s % 2 min 1 points 3 as top",
  "title tn by if(m == 2, {nan}, 0.5 * m + h) min 0.5 points 0.5 * max_all(m) + 1 ties nobody",
  # Sorting by several keys: a NaN is neither below nor above, so the next key decides.
  "order t by if(m == 1, {nan}, 0.5 * m), -s, random()",
  "each: m = uniform(0, 2)",
]
[[phase]]
name = "turns"
each = "faction"
order = ["t", "if(m == 2, {nan}, 0.25 * m)", "-h"]
effects = ["s += if(t == 1, 1, 0)"]
[[end]]
name = "over"
when = "max_all(s) >= 20"
timing = "immediate"
[ranking]
score = "s + h + l + z + r + ti + tn"
"#
    );
    let (interp, native) = both(&text, "awards.toml").unwrap();
    assert!(native.round_fn.is_some());
    same_games(&interp, &native, 3, 400, 2);
}

/// A helper that reads the bound faction (`held`) inside aggregations over the factions,
/// in statements and in an immediate end condition (whose members machine code binds
/// only where something reads the binding), and `for held` walks of decks that span two
/// words of a hand's bits or share one, give what the interpreter gives.
#[test]
fn helpers_inside_aggregations_and_hand_walks_match() {
    let text = r#"
[scenario]
name = "bindings"
rounds = 12
[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
[[faction]]
name = "D"
[[var]]
name = "x"
[[var]]
name = "s"
# Deck d's cards are 60 to 69, across two words of a hand's bits, sharing the second
# with deck e's.
[[deck]]
name = "a"
cards = [{ name = "b", count = 60, attrs = { v = 2 } }]
[[deck]]
name = "d"
cards = [{ name = "c", count = 10, attrs = { v = 1 } }]
[[deck]]
name = "e"
cards = [{ name = "f", count = 10, attrs = { v = 3 } }]
[[phase]]
name = "p"
each = "faction"
effects = [
  "take a", "take a",
  "if bernoulli(0.6): take d",
  "if bernoulli(0.7): take e",
  "x = sum_others(held(d) * (seat + 1)) + 10 * count_all(held(d) >= 1)",
  "s += sum_all(held(d) * seat) % 7",
  "each: if held(d) == max_all(held(d)): x += 1",
  "for held d: if bernoulli(0.3): discard",
  "for held d: x += card.v",
  "for held a: if bernoulli(0.4): discard",
  "for held e: if bernoulli(0.2): complete",
  "for held a: s += card.v // 2",
]
[[end]]
name = "spread"
when = "max_all(s) >= 25 and count_all(held(d) >= 2) >= 2"
timing = "immediate"
[ranking]
score = "s + x"
"#;
    let (interp, native) = both(text, "bindings.toml").unwrap();
    assert!(native.round_fn.is_some());
    same_games(&interp, &native, 11, 400, 2);
}

/// `has_completed` over a deck whose ids name one card each (read from a table in machine
/// code), with gaps in its ids, ids out of range and real ids, and over decks whose ids
/// repeat or spread too wide for a table; `held` and `completed` (kept counts read in
/// machine code); a conditional take from a deck of more than 64 cards; and setup's evaluated initial values (in machine
/// code after the template): draws, a set variable, a faction's own value, clamps and a
/// floored real. Both engines play the same games.
#[test]
fn has_completed_and_evaluated_initial_values_match() {
    let text = r#"
[scenario]
name = "missions"
rounds = 10
[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
[[set]]
name = "areas"
elements = ["n", "s"]
[[var]]
name = "x"
init = "d6 + seat"
[[var]]
name = "cap"
init = "d20"
max = 12
[[var]]
name = "t"
over = "areas"
init = "d3 - 2"
min = 0
[[var]]
name = "r"
init = "random() * 5 - 1"
[[var]]
name = "g"
scope = "global"
init = "d4"
[[deck]]
name = "m"
cards = [
  { name = "m1", attrs = { id = 1 } }, { name = "m2", attrs = { id = 2 } },
  { name = "m4", attrs = { id = 4 } }, { name = "m5", attrs = { id = 5 } },
  { name = "m7", attrs = { id = 7 } }, { name = "m8", attrs = { id = 8 } },
]
[[deck]]
name = "dup"
cards = [{ name = "d", count = 3, attrs = { id = 2 } }, { name = "e", count = 2, attrs = { id = 3 } }]
[[deck]]
name = "far"
cards = [{ name = "f1", attrs = { id = -5 } }, { name = "f2", attrs = { id = 1000 } }]
# More cards than one word of an eligible set holds.
[[deck]]
name = "big"
cards = [{ name = "b1", count = 50, attrs = { id = 0 } }, { name = "b2", count = 30, attrs = { id = 9 } }]
[[phase]]
name = "p"
each = "faction"
effects = [
  "if bernoulli(0.5): take m",
  "if bernoulli(0.4): take dup",
  "if bernoulli(0.3): take far",
  "for held m: if bernoulli(0.5): complete",
  "for held dup: if bernoulli(0.5): complete",
  "for held far: if bernoulli(0.5): complete",
  "x += has_completed(m, d10 - 2) + 2 * has_completed(m, random() * 9)",
  "x += 4 * has_completed(dup, d4) + 8 * has_completed(far, if(bernoulli(0.5), -5, 1000))",
  "cap += has_completed(m, 9223372036854775807) + has_completed(m, -9223372036854775807)",
  "g += t[n] + t[s] + r",
  "if bernoulli(0.6): take big if card.id == 9 or held(big) >= 3",
  "for held big: if bernoulli(0.3): complete",
  "cap += completed(m) + 2 * completed(big) - held(big) + held(m) * completed(dup)",
]
[ranking]
score = "x + cap + g"
"#;
    let (interp, native) = both(text, "missions.toml").unwrap();
    assert!(native.setup_fn.is_some());
    same_games(&interp, &native, 13, 600, 3);
}

/// Orders by one key, which machine code ranks inline for up to 8 factions: integer keys
/// with ties and negatives, real keys with and without NaNs (the NaNs take the reference's
/// insertion sort), `random()` and turn order by one key, for 3, 7, 8 and 9 factions (9:
/// the helper's sort); `bernoulli` of exactly 1 (a success with no draw) beside other
/// probabilities. Both engines play the same games.
#[test]
fn one_key_orders_and_certain_draws_match() {
    let nan = nan();
    for n in [3, 7, 8, 9] {
        let factions: String = (0..n)
            .map(|i| format!("[[faction]]\nname = \"F{i}\"\n"))
            .collect();
        let text = format!(
            r#"
[scenario]
name = "orders"
rounds = 10
{factions}
[[var]]
name = "k"
init = "uniform(-2, 2)"
[[var]]
name = "a"
[[var]]
name = "b"
[[var]]
name = "c"
[[var]]
name = "d"
[[var]]
name = "s"
[[phase]]
name = "p"
effects = [
  "order a by k",
  "order b by if(k == 0, {nan}, 0.5 * k)",
  "order c by -0.25 * k",
  "order d by random()",
  "each: s += bernoulli(if(k >= 1, 1, 0.5)) * a + b - c + d",
  "each: k = uniform(-2, 2)",
]
[[phase]]
name = "turns"
each = "faction"
order = ["k"]
effects = ["s += if(bernoulli(if(k == 2, 1, 0.25)), seat, 0)"]
[[phase]]
name = "reals"
each = "faction"
order = ["if(k == -1, {nan}, k / 3)"]
effects = ["s += seat * k"]
[ranking]
score = "s"
"#
        );
        let (interp, native) = both(&text, "orders.toml").unwrap();
        same_games(&interp, &native, 11, 300, 2);
    }
}

/// Real `min`, `max` and `clamp` against constant bounds (one compare in machine code) give
/// what the reference gives, NaNs and infinities included (each result bounded, so no game
/// faults): a NaN argument gives way to the bound, a bound given as an integer counts as the
/// same real.
#[test]
fn real_bounds_that_are_constants_match() {
    let (nan, inf) = (nan(), inf());
    let x = format!("if(k == 0, {nan}, if(k == 3, {inf}, if(k == -3, -({inf}), 0.37 * k)))");
    let text = format!(
        r#"
[scenario]
name = "bounds"
rounds = 12
[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
[[var]]
name = "k"
init = "uniform(-3, 3)"
[[var]]
name = "s"
[[phase]]
name = "p"
each = "faction"
effects = [
  "s += floor(100 * clamp({x}, 0, 1)) + floor(100 * clamp({x}, -0.5, 0.75))",
  "s += floor(100 * min(max({x}, 0.2), 5)) - floor(100 * max(min({x}, -0.1, 0.4), -5))",
  "s += floor(10 * min(max(0.3, {x}, -1), 2)) + floor(10 * max(min({x}, 1), -2))",
  "s += if(clamp({x}, -1, 1) == -1, 1, 0) + bernoulli(clamp({x} / 3, 0.1, 0.9))",
  "k = uniform(-3, 3)",
]
[ranking]
score = "s"
"#
    );
    let (interp, native) = both(&text, "bounds.toml").unwrap();
    let mut game = Game::new(&interp);
    assert!((0..300).all(|g| game.play(5, g).is_ok()), "no game faults");
    same_games(&interp, &native, 5, 300, 2);
}

/// `validate` says whether rounds are played as machine code, and when not, why: every seed
/// scenario's round is machine code (titles and awards with `min K` included); an automatic
/// action still leaves a round to the engine.
#[test]
fn validate_says_why_a_round_is_left_to_the_engine() {
    let said = |path: &str| {
        let out = crate::util::vpsim_output(&["validate", path]);
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    for path in crate::util::scenario_files() {
        let text = said(path.to_str().unwrap());
        assert!(
            text.contains("\n  rounds are played as machine code\n"),
            "{}: {text}",
            path.display()
        );
    }
    let nobles = said("tests/data/round_three/splendor_nobles.toml");
    assert!(
        nobles.contains("rounds are played by the engine: the automatic action"),
        "{nobles}"
    );
}

/// Final turns and a final round, in rounds of machine code: the conditions are tested at
/// the end of each turn of a phase with actions (a final-round one only until it holds, a
/// condition that draws from the turn's end), a final turn is counted for each faction
/// still in (one may lose meanwhile), and a final round ends the game once finished. Both
/// play the interpreter's games.
#[test]
fn final_turns_and_final_rounds_play_as_the_interpreter_does() {
    let text = r#"
[scenario]
name = "finals"
rounds = 60
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
[[var]]
name = "trains"
init = 30
[[phase]]
name = "turn"
each = "faction"
actions = "1 + bernoulli(0.2)"
effects = ["if vp > 40 and bernoulli(0.1): lose broke"]
[[phase]]
name = "tally"
effects = ["each: vp += 1"]
[[action]]
name = "claim"
effects = ["{ trains -= uniform(1, 4); vp += uniform(1, 5) }"]
[[action]]
name = "rest"
weight = 0.5
effects = ["vp += 1"]
[[end]]
name = "last_round"
when = "trains <= 8 and bernoulli(0.5)"
timing = "final_round"
[[end]]
name = "last_turns"
when = "trains <= 2"
timing = "final_turns"
[ranking]
score = "vp"
"#;
    let round = "[[end]]\nname = \"last_round\"\nwhen = \"trains <= 8 and bernoulli(0.5)\"\ntiming = \"final_round\"\n";
    let turns =
        "[[end]]\nname = \"last_turns\"\nwhen = \"trains <= 2\"\ntiming = \"final_turns\"\n";
    assert!(text.contains(round) && text.contains(turns));
    // Both, then final turns alone, then a final round alone.
    for text in [
        text.to_string(),
        text.replace(round, ""),
        text.replace(turns, ""),
    ] {
        let (interp, native) = both(&text, "finals.toml").unwrap();
        assert!(native.round_fn.is_some(), "{:?}", native.round_in_engine);
        same_games(&interp, &native, 4, 400, 2);
    }
}

/// `uniform(a, b)` in machine code draws what the reference draws: ranges of one value,
/// small and wide ones (where a draw can fall in the biased zone and take a second word),
/// the range of every integer (one word, as it is), and an empty range (the reference's
/// fault, with no draw) part-way through the game.
#[test]
fn uniform_draws_as_the_reference_does() {
    for (a, b) in [
        ("3", "3"),
        ("-2", "seat + 2"),
        ("1", "6148914691236517205"),
        ("-4611686018427387904", "6917529027641081856"),
        ("-9223372036854775807 - 1", "9223372036854775807"),
        ("round", "4"),
    ] {
        let text = format!(
            r#"
[scenario]
name = "uniform"
rounds = 6
[[faction]]
name = "A"
[[faction]]
name = "B"
[[var]]
name = "x"
init = "uniform({a}, {b})"
[[var]]
name = "y"
[[phase]]
name = "p"
each = "faction"
effects = ["y = uniform({a}, {b})", "x = if(y % 2 == 0, 1, 0) + y % 1000"]
[ranking]
score = "x"
"#
        );
        let (interp, native) = both(&text, "uniform.toml").unwrap();
        same_games(&interp, &native, 13, 300, 2);
    }
}
