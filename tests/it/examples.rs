//! Every scenario's worked examples pass, and every seed scenario has some.

use vpsim::engine::Game;

use crate::util::scenario_files;

#[test]
fn every_scenario_example_passes() {
    let mut failures = Vec::new();
    let mut count = 0;
    for path in &scenario_files() {
        let model = vpsim::scenario::load(path).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            !model.examples.is_empty(),
            "{} has no [[example]]",
            path.display()
        );
        let mut game = Game::new(&model);
        for i in 0..model.examples.len() {
            count += 1;
            let r = game.run_example(i);
            if !r.passed() {
                failures.push(format!(
                    "{}: {}\n  {}",
                    path.display(),
                    r.name,
                    r.failures.join("\n  ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {count} examples failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(count > 0);
}

/// Liberty or Death's last round is always its final Winter Quarters (7.3), even when
/// `wq_every` does not divide `rounds`: the builtin `rounds` in the phase's `when`.
#[test]
fn the_last_round_of_liberty_or_death_is_a_winter_quarters() {
    let text = std::fs::read_to_string("scenarios/liberty_or_death.toml").unwrap();
    let text = text.replace("wq_every = 3 ", "wq_every = 5 ");
    let m = vpsim::scenario::parse(&text, "liberty_or_death.toml").unwrap();
    let mut checked = 0;
    for i in 0..200 {
        let mut g = Game::with_tracer(&m, vpsim::engine::TextTrace::default());
        let o = g.play(1, i).unwrap();
        if o.rounds == 12 {
            checked += 1;
            let last = g.tracer.text.split("round 12").nth(1).unwrap();
            assert!(last.contains("phase winter_quarters"), "game {i}:\n{last}");
        }
        // Winter Quarters in rounds 5 and 10 too, and in no other round.
        for r in [3, 6, 9] {
            let round = g.tracer.text.split(&format!("round {r} ")).nth(1);
            let round = round.map(|t| t.split("\nround ").next().unwrap());
            assert!(round.is_none_or(|t| !t.contains("phase winter_quarters")));
        }
    }
    assert!(checked > 0, "some games reach the last round");
}

#[test]
fn an_example_with_an_action_and_effects_is_refused_and_an_agent_needs_no_policy() {
    let base = crate::util::SAFE_OR_RISKY;
    // Both an action and effects: the effects would be dropped, so the file is refused.
    let both = format!(
        "{base}\n[[example]]\nname = \"both\"\nactor = \"A\"\naction = \"safe\"\neffects = [\"vp += 5\"]\n"
    );
    let p = crate::util::temp_scenario("examples-both", &both);
    let out = crate::util::vpsim_output(&["validate", p.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("one of them: to set the state before the action"),
        "{err}"
    );
    let line = both
        .lines()
        .position(|l| l.starts_with("effects = [\"vp += 5"))
        .unwrap()
        + 1;
    assert!(err.contains(&format!(":{line}:")), "at the effects: {err}");
    // An agent table without `policy` is weighted, as the README says.
    let mixed = base.replace(
        "[[faction]]\nname = \"A\"\n",
        "[[faction]]\nname = \"A\"\nagent = { mix = { safe = 1 } }\n",
    );
    assert_ne!(mixed, base);
    let p = crate::util::temp_scenario("examples-no-policy", &mixed);
    let out = crate::util::vpsim_output(&["run", p.to_str().unwrap(), "--games", "200", "-q"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("agents: A mix, B weighted"), "{text}");
}

/// An example's `settings` reach a faction's own setting as `Faction.setting`, and a key that
/// is no setting is refused with the caret under the key.
#[test]
fn an_example_sets_a_factions_own_setting() {
    let text = r#"
[scenario]
name = "own"
rounds = 3
[[faction]]
name = "A"
settings = { chance = 0.5 }
[[faction]]
name = "B"
settings = { chance = 0.5 }
[[var]]
name = "vp"
[[phase]]
name = "p"
each = "faction"
effects = ["vp += bernoulli(chance)"]
[ranking]
score = "vp"
[[example]]
name = "A always scores, B never"
settings = { "A.chance" = 1, "B.chance" = 0 }
phase = "p"
expect = ["A.vp == 1", "B.vp == 0"]
"#;
    let file = crate::util::temp_scenario("examples-own-setting", text);
    crate::util::examples_pass_on_both(&file);
    let bad = crate::util::temp_scenario(
        "examples-own-setting-bad",
        &text.replace("\"B.chance\" = 0", "\"B.chanse\" = 0"),
    );
    let out = crate::util::vpsim_output(&["validate", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(":21:30: `B.chanse` is not a setting"), "{err}");
}
