//! The playouts of lookahead decisions.
//!
//! Owns the searcher a game that searches keeps (`Searcher`, the
//! [`crate::runtime::look::Scout`] of its environment): for each option of a decision, its
//! playouts, each a replay of the game's prefix on a game player of its own with the option
//! forced, then the rest of the game (or `horizon` rounds) on the playout's own stream,
//! every faction playing its own policy and the lookahead factions their rollout policy;
//! and what a playout's result is worth to the deciding faction ([`worth`]).

use super::{Game, NoTrace, Outcome};
use crate::model::{Model, Objective};
use crate::runtime::look::{Branch, Scout};
use crate::runtime::{Fault, Result as GameResult};

/// Plays the playouts of a searching game's lookahead decisions.
pub(super) struct Searcher<'m> {
    game: Game<'m, NoTrace>,
}

impl<'m> Searcher<'m> {
    /// A searcher over model `m`: a game player that does not search itself.
    pub(super) fn new(m: &'m Model) -> Self {
        Searcher {
            game: Game::build(m, NoTrace, false),
        }
    }
}

impl Scout for Searcher<'_> {
    fn search(
        &mut self,
        seed: u64,
        game: u64,
        tape: &[u16],
        f: u8,
        n: usize,
        scores: &mut Vec<f64>,
    ) -> std::result::Result<(), Fault> {
        let look = self.game.m.agents[f as usize]
            .look
            .expect("only a lookahead faction is searched");
        scores.clear();
        for i in 0..n {
            let mut sum = 0.0;
            for j in 0..look.rollouts {
                let branch = Branch {
                    playout: j,
                    horizon: look.horizon,
                };
                let out = self.game.playout(seed, game, tape, i as u16, branch)?;
                sum += worth(&out, f, self.game.m.nfactions(), look.objective);
            }
            scores.push(sum / look.rollouts as f64);
        }
        Ok(())
    }
}

impl Game<'_, NoTrace> {
    /// One playout of game `game` of seed `seed`: its lookahead decisions replayed from
    /// `tape`, then `option` at the next one, then on `branch`'s stream.
    fn playout(
        &mut self,
        seed: u64,
        game: u64,
        tape: &[u16],
        option: u16,
        branch: Branch,
    ) -> std::result::Result<Outcome, Fault> {
        self.reset(seed, game);
        let look = &mut self.env.look;
        look.tape.extend_from_slice(tape);
        look.tape.push(option);
        look.branch = Some(branch);
        let out = self.play_steps_from_reset();
        out.map_err(|super::Halt| self.take_fault())
    }
}

/// What outcome `out` is worth to faction `f` under `objective`: a sole win 1, a k-way
/// shared win 1/k, else 0; or the negated rank; or its score minus the best other score.
/// (`n` factions).
pub fn worth(out: &Outcome, f: u8, n: usize, objective: Objective) -> f64 {
    let f = f as usize;
    match objective {
        Objective::Win => match out.result {
            GameResult::Win(w) if w as usize == f => 1.0,
            GameResult::Shared(mask) if mask >> f & 1 == 1 => 1.0 / mask.count_ones() as f64,
            _ => 0.0,
        },
        Objective::Rank => -(out.ranks[f] as f64),
        Objective::Margin => {
            let best_other = (0..n)
                .filter(|&g| g != f)
                .map(|g| out.scores[g])
                .max()
                .unwrap_or(out.scores[f]);
            out.scores[f] as f64 - best_other as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Decider;

    fn outcome(result: GameResult, scores: [i64; 3], ranks: [u8; 3]) -> Outcome {
        let mut o = Outcome {
            reason: 0,
            rounds: 1,
            scores: [0; crate::state::MAX_FACTIONS],
            ranks: [0; crate::state::MAX_FACTIONS],
            result,
            decided_by: Decider::Score,
        };
        o.scores[..3].copy_from_slice(&scores);
        o.ranks[..3].copy_from_slice(&ranks);
        o
    }

    #[test]
    fn a_shared_win_is_worth_its_share() {
        let o = outcome(GameResult::Shared(0b011), [5, 5, 2], [1, 1, 3]);
        assert_eq!(worth(&o, 0, 3, Objective::Win), 0.5);
        assert_eq!(worth(&o, 2, 3, Objective::Win), 0.0);
        assert_eq!(worth(&o, 2, 3, Objective::Rank), -3.0);
        assert_eq!(worth(&o, 2, 3, Objective::Margin), -3.0);
        assert_eq!(worth(&o, 0, 3, Objective::Margin), 0.0);
        let o = outcome(GameResult::Win(1), [1, 9, 4], [3, 1, 2]);
        assert_eq!(worth(&o, 1, 3, Objective::Win), 1.0);
        assert_eq!(worth(&o, 1, 3, Objective::Margin), 5.0);
    }
}
