//! Random scenarios from a small grammar play the same games on the native engine and the
//! interpreter, faults included; and the grammar makes scenarios that mostly compile, many
//! with whole rounds in machine code.
//!
//! The cases proptest has found failing are kept in
//! `tests/proptest-regressions/native_generated.txt` and re-run first.

use proptest::prelude::*;

use crate::native::{both, same_games};

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
        // `min K`: only the factions at least K take places, ranked among themselves.
        (
            f.clone(),
            f.clone(),
            prop_oneof![Just("split"), Just("low")]
        )
            .prop_map(|(a, m, t)| format!("award x by {a} min {m} scale 4, -1, -2 ties {t}")),
        // A title held by one faction at most, whose points any formula gives (a real
        // floored; one without an integer value faults, on both at the same store).
        (
            f.clone(),
            f.clone(),
            f.clone(),
            prop_oneof![Just(""), Just(" ties nobody")],
            prop_oneof![Just(""), Just(" as pts")],
        )
            .prop_map(|(a, m, p, t, s)| format!("title y by {a} min {m} points {p}{t}{s}")),
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
