//! Scoring mechanisms: properties of rank awards and races, the teams rule, `vpsim test`.

use proptest::prelude::*;
use vpsim::engine::{Game, Result as GameResult, rank_awards};
use vpsim::expr::TiePolicy;

use crate::util::{
    TURNS_AND_HANDS, assert_examples_pass, load_scenario, scenario_files, temp_scenario, vpsim,
};

fn policy() -> impl Strategy<Value = TiePolicy> {
    prop_oneof![
        Just(TiePolicy::Split),
        Just(TiePolicy::High),
        Just(TiePolicy::Low),
        Just(TiePolicy::Zero)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Split never hands a tied group more than the awards of the places it occupies (and with
    /// a non-negative scale, never less than that total minus the rounding).
    #[test]
    fn tie_split_never_hands_out_more_than_the_tied_places(
        metric in prop::collection::vec(0i64..4, 1..8),
        scale in prop::collection::vec(0i64..10, 0..8),
    ) {
        let metric: Vec<f64> = metric.into_iter().map(|m| m as f64).collect();
        let mut out = vec![0; metric.len()];
        rank_awards(&metric, &scale, TiePolicy::Split, &mut out);
        let at = |p: usize| scale.get(p).copied().unwrap_or(0);
        for value in metric.iter() {
            let members: Vec<usize> = (0..metric.len()).filter(|&f| metric[f] == *value).collect();
            let above = metric.iter().filter(|&&m| m > *value).count();
            let places: i64 = (above..above + members.len()).map(at).sum();
            let given: i64 = members.iter().map(|&f| out[f]).sum();
            prop_assert!(given <= places, "group {members:?} got {given} of {places}");
            prop_assert!(places - given < members.len() as i64, "rounding down loses less than one per member");
            // Every member of a tie gets the same.
            prop_assert!(members.iter().all(|&f| out[f] == out[members[0]]));
        }
    }

    /// Whatever the policy, untied factions get exactly their place's award and tied ones
    /// share one value between the best and worst of their places' awards (or 0 for `zero`).
    #[test]
    fn tie_policies_stay_within_the_places_awards(
        metric in prop::collection::vec(0i64..4, 1..8),
        scale in prop::collection::vec(-3i64..10, 0..8),
        ties in policy(),
    ) {
        let metric: Vec<f64> = metric.into_iter().map(|m| m as f64).collect();
        let mut out = vec![0; metric.len()];
        rank_awards(&metric, &scale, ties, &mut out);
        let at = |p: usize| scale.get(p).copied().unwrap_or(0);
        for f in 0..metric.len() {
            let above = metric.iter().filter(|&&m| m > metric[f]).count();
            let tied = metric.iter().filter(|&&m| m == metric[f]).count();
            let lo = (above..above + tied).map(at).min().unwrap();
            let hi = (above..above + tied).map(at).max().unwrap();
            if tied == 1 {
                prop_assert_eq!(out[f], at(above));
            } else if ties == TiePolicy::Zero {
                prop_assert_eq!(out[f], 0);
            } else {
                prop_assert!(lo <= out[f] && out[f] <= hi);
            }
        }
    }

    /// A threshold race without shared wins has exactly one winner, ranks form a permutation
    /// with ties (competition ranking) and the winner holds rank 1 alone.
    #[test]
    fn a_threshold_race_has_one_winner(seed in any::<u64>(), game in 0u64..100_000) {
        let m = load_scenario("scenarios/race_to_three.toml");
        let o = Game::new(&m).play(seed, game).unwrap();
        let GameResult::Win(w) = o.result else { return Err(TestCaseError::fail("no single winner")) };
        prop_assert_eq!(o.ranks[w as usize], 1);
        let mut ranks: Vec<u8> = o.ranks[..2].to_vec();
        ranks.sort();
        prop_assert_eq!(ranks, vec![1, 2]);
        prop_assert!(o.scores[w as usize] == 3);
    }
}

const TEAMS: &str = r#"
[scenario]
name = "teams"
rounds = 5
teams = 1

[[faction]]
name = "A1"
side = "Red"
[[faction]]
name = "A2"
side = "Red"
[[faction]]
name = "B1"
side = "Blue"
[[faction]]
name = "B2"
side = "Blue"

[[var]]
name = "hp"
init = 3

[[phase]]
name = "fight"
effects = ["each: if hp <= 0: lose"]

[ranking]
score = "hp"

[[example]]
name = "the last team standing wins with every member, even one who had left"
given = ["each: if seat == A2: lose", "B1.hp = 0", "B2.hp = -1"]
phase = "fight"
result = "shared A1 A2"
reason = "last_team"

[[example]]
name = "one team member falling does not end the game"
given = ["B1.hp = 0"]
phase = "fight"
result = "running"
expect = ["B1.eliminated == 1", "B2.eliminated == 0"]
"#;

#[test]
fn the_last_team_standing_wins_together() {
    let m = vpsim::scenario::parse(TEAMS, "teams.toml").unwrap();
    assert_examples_pass(&m);
}

#[test]
fn without_teams_the_last_faction_standing_wins() {
    let text = TEAMS.replace("teams = 1", "teams = 0").replace(
        "result = \"shared A1 A2\"\nreason = \"last_team\"",
        "result = \"win A1\"\nreason = \"last_standing\"",
    );
    assert!(text.contains("last_standing"));
    let m = vpsim::scenario::parse(&text, "ffa.toml").unwrap();
    let r = Game::new(&m).run_example(0);
    assert!(r.passed(), "{:?}", r.failures);
}

#[test]
fn vpsim_test_passes_every_seed_scenario() {
    let files: Vec<String> = scenario_files()
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    assert!(files.len() >= 6);
    let out = vpsim().arg("test").args(&files).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(" passed, 0 failed"), "{text}");
}

#[test]
fn vpsim_test_fails_with_a_readable_diff() {
    let text = std::fs::read_to_string("scenarios/pax_romana.toml").unwrap();
    let bad = text.replace(
        "\"Greece.gop_vp == 5\", \"East.gop_vp == 5\"",
        "\"Greece.gop_vp == 6\", \"East.gop_vp == 5\"",
    );
    assert_ne!(text, bad);
    let path = temp_scenario("bad-example", &bad);
    let out = vpsim().arg("test").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAILED"), "{text}");
    assert!(
        text.contains("expected `Greece.gop_vp == 6`, which is false"),
        "{text}"
    );
    assert!(text.contains("Greece.gop_vp = 5"), "{text}");
}

const CHAIN_AND_BLOCKS: &str = r#"
[scenario]
name = "chain"
rounds = 3

[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
[[faction]]
name = "D"

[[var]]
name = "score"
[[var]]
name = "tb"
[[var]]
name = "pts"
[[var]]
name = "done"

[[deck]]
name = "goals"
cards = [{ name = "goal", count = 4, attrs = { reward = 2 } }]

[[phase]]
name = "awards"
effects = ["award pts by score scale 7, 4, 2, 0 ties by tb"]

[[phase]]
name = "goals"
each = "faction"
effects = [
  "take goals",
  # One roll decides both the reward and the completion.
  "for held goals: if bernoulli(1): { pts += card.reward as goals; done += 1; complete }",
]

[ranking]
score = "pts"

[[example]]
name = "a tie-break chain splits only the ties it leaves"
given = ["A.score = 5", "B.score = 5", "C.score = 5", "D.score = 1", "A.tb = 2", "B.tb = 1", "C.tb = 2", "D.tb = 0"]
phase = "awards"
# A and C stay tied (score 5, tb 2): (7 + 4) // 2 = 5 each; B is third (2), D fourth (0).
expect = ["A.pts == 5", "C.pts == 5", "B.pts == 2", "D.pts == 0"]

[[example]]
name = "a block runs every statement under one roll"
phase = "goals"
expect = ["count_all(pts == 2 and done == 1) == 4", "count_all(completed(goals) == 1 and held(goals) == 0) == 4"]
"#;

#[test]
fn award_chains_and_statement_blocks() {
    let m = vpsim::scenario::parse(CHAIN_AND_BLOCKS, "chain.toml").unwrap();
    assert_examples_pass(&m);
}

/// The worked examples of [`TURNS_AND_HANDS`] pass: leaving the game in the middle of a turn,
/// `discard` of a completed card, a `for held` inside another and real settings far from 1.
#[test]
fn leaving_mid_turn_completed_cards_and_nested_hands() {
    let m = vpsim::scenario::parse(TURNS_AND_HANDS, "turns.toml").unwrap();
    assert_eq!(m.examples.len(), 2);
    assert_examples_pass(&m);
}
