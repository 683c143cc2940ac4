//! Every scenario's worked examples pass, and every seed scenario has some.

use vpsim::engine::Game;

#[test]
fn every_scenario_example_passes() {
    let mut failures = Vec::new();
    let mut count = 0;
    let mut files: Vec<_> = std::fs::read_dir("scenarios")
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
    {
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
