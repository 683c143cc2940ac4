//! The benches' hand-written TI4 program plays the same games as vpsim, game for game.

// Relative to this file's folder, tests/it/.
#[path = "../../benches/ti4_reference.rs"]
mod ti4_reference;

use ti4_reference::End;
use vpsim::engine::{Game, Result as GameResult};

use crate::util::{TI4, load_scenario};

#[test]
fn the_hand_written_ti4_program_plays_vpsims_games() {
    let m = load_scenario(TI4);
    let mut g = Game::new(&m);
    for i in 0..10_000 {
        let o = g.play(2026, i).unwrap();
        let r = ti4_reference::play(2026, i);
        let reason = match r.end {
            End::ReachedGoal => "reached_goal",
            End::SpeakerCannotReveal => "speaker_cannot_reveal",
            End::RoundLimit => "round_limit",
        };
        assert_eq!(m.reasons[o.reason].name, reason, "game {i}");
        assert_eq!(o.rounds, r.rounds, "game {i}");
        assert_eq!(&o.scores[..6], &r.vp[..], "game {i}");
        assert_eq!(o.result, GameResult::Win(r.winner as u8), "game {i}");
    }
}
