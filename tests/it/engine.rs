//! Engine properties: traced games equal untraced ones, bounds hold, ranks are consistent.

use proptest::prelude::*;
use vpsim::engine::{Game, Result as GameResult, TextTrace};

use crate::util::{TI4, load_scenario};

#[test]
fn a_traced_game_is_the_same_game() {
    let m = load_scenario(TI4);
    let mut plain = Game::new(&m);
    for i in 0..200 {
        let mut traced = Game::with_tracer(&m, TextTrace::default());
        let a = plain.play(9, i).unwrap();
        let b = traced.play(9, i).unwrap();
        assert_eq!(a, b, "game {i}");
        assert_eq!(
            plain.stream_position(),
            traced.stream_position(),
            "game {i} drew different randomness"
        );
        let winner = match a.result {
            GameResult::Win(f) => m.factions[vpsim::ids::FactionId(f)].name.clone(),
            _ => unreachable!("TI4 has one winner"),
        };
        assert!(traced.tracer.text.contains(&format!("winner: {winner}")));
    }
}

#[test]
fn a_game_does_not_depend_on_the_games_before_it() {
    let m = load_scenario(TI4);
    let mut reused = Game::new(&m);
    let later: Vec<_> = (0..50).map(|i| reused.play(3, i).unwrap()).collect();
    for (i, o) in later.iter().enumerate().rev() {
        assert_eq!(*o, Game::new(&m).play(3, i as u64).unwrap());
    }
}

const CAPPED: &str = r#"
[scenario]
name = "capped"
rounds = 30

[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"

[[var]]
name = "x"
min = -3
max = 7

[[phase]]
name = "swing"
each = "faction"
effects = ["x += uniform(-4, 4)", "if bernoulli(0.1): x = uniform(-20, 20)"]

[ranking]
score = "x"
shared = true
"#;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn caps_and_floors_always_hold_and_ranks_are_consistent(seed in any::<u64>(), game in 0u64..1_000_000) {
        let m = vpsim::scenario::parse(CAPPED, "capped.toml").unwrap();
        let mut g = Game::new(&m);
        let o = g.play(seed, game).unwrap();
        for f in 0..3 {
            prop_assert!((-3..=7).contains(&o.scores[f]));
        }
        // Ranks are competition ranks: a faction's rank is 1 + the number scoring strictly more.
        for f in 0..3 {
            let above = (0..3).filter(|&h| o.scores[h] > o.scores[f]).count();
            prop_assert_eq!(o.ranks[f] as usize, above + 1);
        }
        let top = (0..3).filter(|&f| o.ranks[f] == 1).count();
        match o.result {
            GameResult::Win(f) => { prop_assert_eq!(top, 1); prop_assert_eq!(o.ranks[f as usize], 1); }
            GameResult::Shared(mask) => { prop_assert!(top > 1); prop_assert_eq!(mask.count_ones() as usize, top); }
            GameResult::Draw | GameResult::Nobody => prop_assert!(false, "no draw reason in this scenario"),
        }
    }
}
