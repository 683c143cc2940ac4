//! Simulated win rates against exact values computed by dynamic programming.

use vpsim::runner::{RunSpec, run};

use crate::util::{first_seat_wins, load_scenario};

#[test]
fn race_to_three_matches_the_exact_odds_within_4_standard_errors() {
    let model = load_scenario("scenarios/race_to_three.toml");
    let n = 1_000_000u64;
    let spec = RunSpec {
        seed: 2024,
        first: 0,
        games: n,
        threads: None,
    };
    let r = run(&model, &spec, &|_| {}).unwrap();
    let t = &r.tally;
    assert_eq!(t.games, n);
    assert_eq!(t.draws, 0);
    let p_first = first_seat_wins(0.3, 0.4);
    let se = (p_first * (1.0 - p_first) / n as f64).sqrt();
    let sim = t.factions[0].wins as f64 / n as f64;
    assert!(
        (sim - p_first).abs() < 4.0 * se,
        "simulated {sim}, exact {p_first}, se {se}"
    );
    let sim2 = t.factions[1].wins as f64 / n as f64;
    assert!(
        (sim2 - (1.0 - p_first)).abs() < 4.0 * se,
        "simulated {sim2}, exact {}",
        1.0 - p_first
    );
    assert_eq!(t.factions[0].wins + t.factions[1].wins, n);
}

#[test]
fn exact_solution_is_sane() {
    // Equal odds still favour the first seat, which wins same-round finishes.
    assert!(first_seat_wins(0.5, 0.5) > 0.5);
    assert!((first_seat_wins(1.0, 1.0) - 1.0).abs() < 1e-12);
    assert!(first_seat_wins(0.3, 0.4) < 0.5);
}
