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
