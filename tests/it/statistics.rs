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

/// A run whose outputs show no round (the terminal table alone) records no round's leader or
/// scores, and plays the same games: its table is the one a run that records them prints
/// beside its report folder (bar the speed line).
#[test]
fn a_run_that_shows_no_round_records_none_and_plays_the_same_games() {
    let dir = crate::util::fresh_temp_dir("norounds");
    let table = |extra: &[&str]| {
        let mut args = vec![
            "run",
            "scenarios/twilight_imperium_4.toml",
            "--games",
            "20000",
            "--seed",
            "4",
            "--quiet",
            // A report folder counts usage: both runs do.
            "--usage",
        ];
        args.extend(extra);
        let out = crate::util::vpsim_output(&args);
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.contains("games/s") && !l.starts_with("report written"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let out = dir.join("report");
    assert_eq!(table(&[]), table(&["--out", out.to_str().unwrap()]));
}
