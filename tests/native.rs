//! The native engine against the interpreter: identical games, game by game.
//!
//! Every seed scenario and random scenarios from a small grammar are played on both engines;
//! outcomes, faults (with their location), final states, points by source, traces and the
//! number of random words drawn must be identical.

use proptest::prelude::*;
use vpsim::engine::{Game, TextTrace};

fn both(text: &str, file: &str) -> Option<(vpsim::Model, vpsim::Model)> {
    let interp = vpsim::scenario::parse(text, file).ok()?;
    let mut native = vpsim::scenario::parse(text, file).ok()?;
    let report = vpsim::native::compile(&mut native).expect("the host is supported");
    assert!(report.functions > 0 || native.slots == 0);
    Some((interp, native))
}

/// Plays games `0..games` of `seed` on both models and asserts they are the same games.
fn same_games(interp: &vpsim::Model, native: &vpsim::Model, seed: u64, games: u64, traced: u64) {
    let (mut a, mut b) = (Game::new(interp), Game::new(native));
    for i in 0..games {
        let (x, y) = (a.play(seed, i), b.play(seed, i));
        assert_eq!(x, y, "{}: game {i} of seed {seed}", interp.name);
        assert_eq!(a.words_used(), b.words_used(), "game {i}: random words");
        assert_eq!(a.state().vals, b.state().vals, "game {i}: final state");
        assert_eq!(a.points(), b.points(), "game {i}: points by source");
        assert_eq!(a.leaders(), b.leaders(), "game {i}: leaders");
    }
    for i in 0..traced {
        let mut a = Game::with_tracer(interp, TextTrace::default());
        let mut b = Game::with_tracer(native, TextTrace::default());
        assert_eq!(a.play(seed, i), b.play(seed, i));
        assert_eq!(a.tracer.text, b.tracer.text, "game {i}: trace");
    }
}

/// A real formula whose value is infinity: a product past the largest real (no literal is
/// that large).
fn inf() -> String {
    ["1000000000000000000.0"; 18].join(" * ")
}

/// A real formula whose value is NaN: infinity minus infinity.
fn nan() -> String {
    let inf = inf();
    format!("({inf}) - ({inf})")
}

#[test]
fn every_seed_scenario_plays_the_same_games_on_both_engines() {
    for entry in std::fs::read_dir("scenarios").unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let (interp, native) = both(&text, &path.display().to_string()).unwrap();
        same_games(&interp, &native, 7, 2_000, 20);
    }
}

/// Runs every worked example on both models: each passes, with the same report.
fn same_examples(interp: &vpsim::Model, native: &vpsim::Model) {
    let (mut a, mut b) = (Game::new(interp), Game::new(native));
    for i in 0..interp.examples.len() {
        let (x, y) = (a.run_example(i), b.run_example(i));
        assert!(x.passed(), "{}: example {i}: {x:?}", interp.name);
        assert_eq!(format!("{x:?}"), format!("{y:?}"), "example {i}");
    }
}

#[test]
fn every_worked_example_passes_on_both_engines() {
    for entry in std::fs::read_dir("scenarios").unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let (interp, native) = both(&text, &path.display().to_string()).unwrap();
        same_examples(&interp, &native);
    }
}

/// Formulas over the generated scenario's variables: integers and reals, random draws,
/// aggregates, and operations that can fault.
fn formula() -> impl Strategy<Value = String> + Clone {
    let faction = ["x", "y", "seat", "held(d)"].map(|s| Just(s.to_string()));
    let leaf = prop_oneof![global_leaf(), proptest::strategy::Union::new(faction)];
    leaf.prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("sum_others(x * {a})")),
            compound(inner),
        ]
    })
}

/// Formulas with nothing bound (a global phase's condition, an event's chance).
fn global_formula() -> impl Strategy<Value = String> + Clone {
    global_leaf().prop_recursive(2, 8, 2, compound)
}

/// The leaves of a formula that need nothing bound.
fn global_leaf() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        (-3i32..9).prop_map(|n| n.to_string()),
        Just("0.5".to_string()),
        Just("g".to_string()),
        Just("round".to_string()),
        Just("uniform(0, 4)".to_string()),
        Just("max_all(x)".to_string()),
        Just("4611686018427387904".to_string()),
    ]
}

/// A formula made of formulas from `inner`.
fn compound(inner: BoxedStrategy<String>) -> impl Strategy<Value = String> + Clone {
    {
        let op = prop_oneof![
            Just("+"),
            Just("-"),
            Just("*"),
            Just("/"),
            Just("//"),
            Just("%"),
            Just(">"),
            Just("=="),
            Just("and")
        ];
        prop_oneof![
            (inner.clone(), op, inner.clone()).prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("if({a}, {b}, {c})")),
            inner
                .clone()
                .prop_map(|a| format!("bernoulli(clamp({a} / 10, 0, 1))")),
            // Unclamped: a probability outside [0, 1] faults, at the same place on both.
            inner
                .clone()
                .prop_map(|a| format!("bernoulli((max_all(x) + {a}) / 4)")),
            inner.prop_map(|a| format!("floor({a} * 0.75)")),
        ]
    }
}

/// One effect statement using formulas from `f`.
fn statement(
    f: impl Strategy<Value = String> + Clone + 'static,
) -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        f.clone().prop_map(|a| format!("x += {a}")),
        f.clone().prop_map(|a| format!("y = {a}")),
        f.clone().prop_map(|a| format!("g -= {a}")),
        (f.clone(), f.clone()).prop_map(|(c, a)| format!("if {c}: x = {a} else: y += 1")),
        (f.clone(), f.clone()).prop_map(|(c, a)| format!("each: if {c}: x += {a}")),
        // Awards by every tie policy, tagged or not (a tie for the last two places of three
        // splits -3: rounding down is not truncating); with a tie-break chain the engine
        // ranks them.
        (
            f.clone(),
            prop_oneof![Just("split"), Just("high"), Just("low"), Just("zero")],
            prop_oneof![Just(""), Just(" as pts")],
        )
            .prop_map(|(a, t, s)| format!("award x by {a} scale 4, -1, -2 ties {t}{s}")),
        (f.clone(), f.clone()).prop_map(|(a, c)| format!("award y by {a} scale 2, 1 ties by {c}")),
        f.clone()
            .prop_map(|c| format!("race done cnt if {c} by seat award y 2, 1")),
        // A key of any type, which may fault; the completers are sorted by it.
        (f.clone(), f.clone())
            .prop_map(|(c, k)| format!("race done cnt if {c} by {k} award x 3, 2, 1 as pts")),
        // `and` and `or` evaluate their right operand only when the left one does not decide.
        (f.clone(), f.clone()).prop_map(|(c, a)| {
            format!("take d if {c} > {a} and (held(d) < 2 or card.v == 3 and y >= 1)")
        }),
        (f.clone(), f.clone()).prop_map(|(c, a)| format!("if x > {c} or {a} > 0: y += 1")),
        f.clone().prop_map(|c| format!("take d if card.v <= {c}")),
        f.clone().prop_map(|c| format!("each: if {c}: lose low")),
        f.clone()
            .prop_map(|c| format!("for held d: if card.v > {c}: x += card.v else: discard")),
        f.clone()
            .prop_map(|c| format!("each others: for held d: if card.v <= {c}: g += card.v")),
        f.clone()
            .prop_map(|c| format!("each: for held d: y += {c}")),
        // Points by source: a tagged store credits its change, on both engines alike.
        f.clone().prop_map(|a| format!("x += {a} as pts")),
        (f.clone(), f.clone()).prop_map(|(c, a)| format!("each: if {c}: x -= {a} as pts")),
        f.clone()
            .prop_map(|c| format!("for held d: if card.v < {c}: complete")),
        f.clone()
            .prop_map(|c| format!("each: for held d: if card.v >= {c}: y += card.v as bonus")),
        f.clone()
            .prop_map(|c| format!("each others: if {c}: win big")),
        (f.clone(), f.clone()).prop_map(|(c, d)| format!("if {c}: win big else: if {d}: lose low")),
        f.clone().prop_map(|c| format!("draw d if card.v > {c}")),
        // Each faction's place when sorted by a key of any type (which may fault).
        f.clone().prop_map(|k| format!("order y by {k}")),
        // Several keys, compared in turn; the last breaks ties at random.
        (f.clone(), f.clone()).prop_map(|(k, j)| format!("order y by {k}, {j}, random()")),
        Just("discard".to_string()),
        Just("take d".to_string()),
        Just("draw d".to_string()),
        // `end` ends the game at once: nothing after it runs.
        f.prop_map(|c| format!("if not drawn and {c} > 0: end dry")),
    ]
}

fn quote(s: &[String]) -> String {
    s.iter()
        .map(|e| format!("{e:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A small scenario: phases of random effects, agents choosing among random weights, end
/// checks at every timing, win and lose conditions.
fn scenario() -> impl Strategy<Value = String> {
    let f = formula();
    let stmts = proptest::collection::vec(statement(f.clone()), 1..4);
    (
        2usize..4,
        stmts.clone(),
        stmts.clone(),
        stmts,
        proptest::collection::vec(f.clone(), 10),
        0usize..4,
        0usize..3,
        (global_formula(), global_formula()),
    )
        .prop_map(|(n, p1, p2, a1, fs, timing, policy, (pw, ep))| {
            let timings = ["immediate", "turn_start", "round_start", "round_end"];
            // The last faction's agent: weighted (the default), priority or greedy.
            let agent = [
                "",
                "[faction.agent]\npolicy = \"priority\"\npriority = [\"a3\", \"a2\", \"a1\"]\n",
                "[faction.agent]\npolicy = \"greedy\"\nnoise = 0.5\n",
            ][policy];
            let factions: String = (0..n)
                .map(|i| {
                    let agent = if i + 1 == n { agent } else { "" };
                    format!("[[faction]]\nname = \"F{i}\"\n{agent}")
                })
                .collect();
            format!(
                r#"[scenario]
name = "generated"
rounds = 6
max_steps = 24

{factions}
[[var]]
name = "x"
min = -1000
max = 1000
[[var]]
name = "y"
init = "uniform(0, 3)"
[[var]]
name = "done"
flag = true
[[var]]
name = "g"
scope = "global"
[[var]]
name = "cnt"
scope = "global"

[[deck]]
name = "d"
cards = [{{ name = "c", count = 3, attrs = {{ v = 1 }} }}, {{ name = "e", count = 2, attrs = {{ v = 3 }} }}]

[[phase]]
name = "p0"
when = "{pw}"
effects = ["g += 1", "order x by {ok}"]

[[phase]]
name = "p1"
each = "faction"
effects = [{p1}]

[[phase]]
name = "p2"
each = "faction"
order = ["{ok}"]
actions = "if(round == 2, {ac}, 1)"

[[event]]
name = "windfall"
when = "g > 0"
probability = "clamp({ep} / 8, 0, 1)"
effects = ["each: y += 1", "if g > 3: end dry"]

[[event]]
name = "late_event"
at = "round_end"
probability = "clamp(({ep} + 2) / 10, 0, 1)"
effects = ["g -= 1"]

[[phase]]
name = "p3"
each = "faction"
effects = [{p2}]

[[action]]
name = "a1"
weight = "clamp({w1}, 0, 5)"
effects = [{a1}]

[[action]]
name = "a2"
target = "other"
target_when = "target.x >= {tw}"
weight = "abs({w2}) % 4 + 0.5"
effects = ["target.x -= 1", "y += 1"]

[[action]]
name = "a3"
when = "{aw}"
cost = {{ y = "{c3}" }}
weight = 1
effects = ["x += 2"]

[[end]]
name = "big"
when = "x >= {e1}"
timing = "{t}"
result = "win"

[[end]]
name = "low"
when = "y < {e2} - 3"
timing = "{t}"
result = "lose"

[[end]]
name = "limit"
when = "g < -50"
timing = "round_end"

# Two game-ending conditions that hold together, after the win and lose conditions of the
# same timing: the first one declared gives the reason.
[[end]]
name = "stall"
when = "max_all(x - ({e3})) > 0"
timing = "{t}"

[[end]]
name = "stall_too"
when = "max_all(x - ({e3})) > 0 and round > 0"
timing = "{t}"

# Ended by the `end` statement only.
[[end]]
name = "dry"

# Immediate in every case, read after each draw and take.
[[end]]
name = "late_draw"
when = "drawn and card.v == 3 and max_all(x) > 2"
timing = "immediate"

# Immediate in every case: it becomes true as a round starts, and ends the game only at the
# next store that changes `y`.
[[end]]
name = "late"
when = "round >= 4 and max_all(y) > 2"
timing = "immediate"

[ranking]
score = "x"
tiebreak = ["y", "die"]
"#,
                p1 = quote(&p1),
                p2 = quote(&p2),
                a1 = quote(&a1),
                w1 = fs[0],
                w2 = fs[1],
                tw = fs[2],
                e1 = fs[3],
                e2 = fs[4],
                t = timings[timing],
                aw = fs[5],
                c3 = fs[6],
                e3 = fs[7],
                ok = fs[8],
                ac = fs[9],
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Random scenarios play the same games on both engines, faults included.
    #[test]
    fn random_scenarios_play_the_same_games(text in scenario(), seed in 0u64..1000) {
        // A generated scenario that does not compile (a constant probability out of range,
        // say) is not a case.
        if let Some((interp, native)) = both(&text, "generated.toml") {
            same_games(&interp, &native, seed, 30, 3);
        }
    }
}

#[test]
fn the_generator_makes_scenarios_that_compile() {
    use proptest::strategy::ValueTree;
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (mut compiled, mut rounds) = (0, 0);
    for _ in 0..40 {
        let text = scenario().new_tree(&mut runner).unwrap().current();
        match both(&text, "generated.toml") {
            None => eprintln!("{text}"),
            Some((_, native)) => {
                compiled += 1;
                rounds += native.round_fn.is_some() as usize;
            }
        }
    }
    assert!(
        compiled >= 30,
        "only {compiled} of 40 generated scenarios compile"
    );
    // Those whose agents are all weighted or priority play whole rounds in machine code.
    assert!(
        rounds >= 10,
        "only {rounds} of {compiled} lower their rounds"
    );
}

#[test]
fn a_fault_in_machine_code_is_the_interpreters_fault() {
    let text = r#"
[scenario]
name = "overflow"
rounds = 3
[[faction]]
name = "A"
[[faction]]
name = "B"
[[var]]
name = "x"
init = 4611686018427387904
[[phase]]
name = "p"
each = "faction"
effects = ["x = x * round + 1"]
[ranking]
score = "x"
"#;
    let (interp, native) = both(text, "overflow.toml").unwrap();
    let a = Game::new(&interp).play(1, 0).unwrap_err();
    let b = Game::new(&native).play(1, 0).unwrap_err();
    assert_eq!(a, b);
    assert!(matches!(a.kind, vpsim::expr::FaultKind::Overflow(..)));
}

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

/// `vpsim run --json` at 100,000 games gives the same results on both engines, apart from
/// the timings.
#[test]
fn every_seed_scenario_gives_the_same_json_on_both_engines() {
    let json = |path: &std::path::Path, engine: &str| {
        let out = assert_cmd::Command::cargo_bin("vpsim")
            .unwrap()
            .args([
                "run", "--games", "100000", "--seed", "11", "--json", "--quiet",
            ])
            .args(["--engine", engine])
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_object_mut().unwrap().remove("performance");
        v
    };
    for entry in std::fs::read_dir("scenarios").unwrap() {
        let path = entry.unwrap().path();
        assert_eq!(
            json(&path, "native"),
            json(&path, "interp"),
            "{}",
            path.display()
        );
    }
}

/// A round in machine code counts decisions against the step budget as the engine does: the
/// fault comes at the same decision, with the state it left.
#[test]
fn the_step_budget_runs_out_at_the_same_decision() {
    let text = r#"
[scenario]
name = "budget"
rounds = 9
max_steps = 11
[[faction]]
name = "A"
[[faction]]
name = "B"
[[var]]
name = "x"
[[phase]]
name = "p"
each = "faction"
order = ["-x"]
actions = "round"
[[action]]
name = "a"
weight = 1
effects = ["x += seat"]
[[action]]
name = "b"
weight = 1
effects = ["x += 10"]
[ranking]
score = "x"
"#;
    let (interp, native) = both(text, "budget.toml").unwrap();
    assert!(native.round_fn.is_some());
    same_games(&interp, &native, 5, 20, 1);
    let mut g = Game::new(&native);
    let e = g.play(5, 0).unwrap_err();
    assert!(matches!(e.kind, vpsim::expr::FaultKind::StepBudget(11)));
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
/// whose tied sums can be negative and odd (split rounds down, not toward zero), and orders
/// by several keys (with NaNs), statements and turn order, run inside machine-code rounds
/// and give what the interpreter gives.
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
score = "s + h + l + z + r"
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

/// A fault in setup's evaluated initial values, in machine code, is the interpreter's.
#[test]
fn a_fault_in_setup_is_the_interpreters_fault() {
    let text = r#"
[scenario]
name = "setup"
rounds = 3
[[faction]]
name = "A"
[[faction]]
name = "B"
[[var]]
name = "y"
init = "d2"
[[var]]
name = "x"
init = "9223372036854775806 + d2 * seat"
[[phase]]
name = "p"
each = "faction"
effects = ["y += 1"]
[ranking]
score = "x"
"#;
    let (interp, native) = both(text, "setup.toml").unwrap();
    assert!(native.setup_fn.is_some());
    for game in 0..20 {
        let a = Game::new(&interp).play(1, game);
        let b = Game::new(&native).play(1, game);
        assert_eq!(a, b, "game {game}");
    }
    let faults = (0..20).filter(|&g| Game::new(&native).play(1, g).is_err());
    assert!(faults.count() > 0);
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

/// `bernoulli` of a probability above 1 or NaN faults at the same place on both engines
/// (machine code calls the reference on a rare path).
#[test]
fn a_bad_probability_is_the_interpreters_fault() {
    let nan = format!("if(round == 3, {}, 0.5)", nan());
    // Above 1 from round 5 (exactly 1, a certain success, in round 4); below 0 from round 3.
    for p in ["0.25 * round", "1.25 - 0.5 * round", &nan] {
        let text = format!(
            r#"
[scenario]
name = "probability"
rounds = 6
[[faction]]
name = "A"
[[faction]]
name = "B"
[[var]]
name = "x"
[[phase]]
name = "p"
each = "faction"
effects = ["x += bernoulli(0.5)", "x += bernoulli({p})"]
[ranking]
score = "x"
"#
        );
        let (interp, native) = both(&text, "probability.toml").unwrap();
        for g in 0..20 {
            let a = Game::new(&interp).play(3, g);
            let b = Game::new(&native).play(3, g);
            // Compared as text: a fault's NaN is not equal to itself.
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "bernoulli({p}), game {g}"
            );
            assert!(
                matches!(a, Err(ref f) if matches!(f.kind, vpsim::expr::FaultKind::Probability(..))),
                "bernoulli({p}) faults"
            );
        }
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

#[test]
fn leaving_mid_turn_completed_cards_and_nested_hands_match() {
    let text = include_str!("data/turns_and_hands.toml");
    let (interp, native) = both(text, "turns_and_hands.toml").unwrap();
    same_examples(&interp, &native);
    same_games(&interp, &native, 3, 200, 5);
}
