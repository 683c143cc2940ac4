//! Faults in machine code are the interpreter's faults: the same kind at the same place,
//! with the state they left: an overflow, the step budget running out, a fault in setup's
//! evaluated initial values and `bernoulli` of a bad probability.

use vpsim::engine::Game;

use crate::native::{both, nan, same_games};

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

/// A fault part-way through a formula leaves the random stream where the interpreter leaves
/// it: machine code returns at once only where no draw of the formula can follow, so a
/// draw after the fault is still made (the stream positions are compared game by game).
#[test]
fn a_fault_mid_formula_leaves_the_stream_where_the_interpreter_does() {
    let effects = [
        // A bad probability (above 1 from round 5), then a draw.
        r#""x += bernoulli(0.25 * round) + bernoulli(0.5)""#,
        // A draw, then a bad probability.
        r#""x += bernoulli(0.5) + bernoulli(0.25 * round)""#,
        // An overflow (from round 4), then dice.
        r#""x += y * 1073741824 * 1073741824 * round + roll(2, 6)""#,
        // An overflow with no draw in the formula, then a draw in the next statement.
        r#""x += y * 1073741824 * 1073741824 * round", "x += roll(1, 6)""#,
        // An overflow in an aggregation that draws for every faction.
        r#""x += sum_all(bernoulli(0.5) + y * 1073741824 * 1073741824 * round)""#,
    ];
    for e in effects {
        let text = format!(
            r#"
[scenario]
name = "mid_formula"
rounds = 6
[[faction]]
name = "A"
[[faction]]
name = "B"
[[var]]
name = "x"
[[var]]
name = "y"
init = 2
[[phase]]
name = "p"
each = "faction"
effects = [{e}]
[ranking]
score = "x"
"#
        );
        let (interp, native) = both(&text, "mid_formula.toml").unwrap();
        same_games(&interp, &native, 5, 20, 3);
        assert!(Game::new(&native).play(5, 0).is_err(), "{e} faults");
    }
}
