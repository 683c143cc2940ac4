//! Simulated win rates against exact values computed by dynamic programming.

use vpsim::runner::{RunSpec, run};

/// P(first seat wins) from (a, b) points, where each round the first gains a point with
/// probability p and the second with q, first to 3, a same-round finish going to the first.
fn exact(p: f64, q: f64) -> f64 {
    let mut w = [[0.0f64; 4]; 4];
    for a in (0..=3).rev() {
        for b in (0..=3).rev() {
            w[a][b] = if a == 3 {
                1.0
            } else if b == 3 {
                0.0
            } else {
                let stay = (1.0 - p) * (1.0 - q);
                (p * q * w[a + 1][b + 1]
                    + p * (1.0 - q) * w[a + 1][b]
                    + (1.0 - p) * q * w[a][b + 1])
                    / (1.0 - stay)
            };
        }
    }
    w[0][0]
}

#[test]
fn race_to_three_matches_the_exact_odds_within_4_standard_errors() {
    let model =
        vpsim::scenario::load(std::path::Path::new("scenarios/race_to_three.toml")).unwrap();
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
    let p_first = exact(0.3, 0.4);
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
    assert!(exact(0.5, 0.5) > 0.5);
    assert!((exact(1.0, 1.0) - 1.0).abs() < 1e-12);
    assert!(exact(0.3, 0.4) < 0.5);
}
