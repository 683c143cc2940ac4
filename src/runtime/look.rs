//! Lookahead decisions, shared by both backends: which decisions are searched, which are
//! replayed, and where a playout leaves the game's own random stream.
//!
//! Owns [`Look`], the part of [`Env`] a lookahead agent needs, and `decide`, the one
//! place an agent's choice is made (machine-code turns call it too, through their `pick`
//! helper). A playout starts from the middle of a game by *replaying its prefix*: the game
//! is played again from its first round on its own stream, every earlier lookahead decision
//! forced from the tape, the option under test forced at the decision being searched; right
//! after that decision the stream switches to the playout's own, derived from (seed, game,
//! decision, playout). Replay needs no snapshot of a round in flight (a round may be one
//! machine-code function) and keeps both engines on one definition; a playout costs about
//! one whole game (the prefix replays what the playout would otherwise copy).

use super::abi::Opt;
use super::{Env, Fault};
use crate::ir::Policy;

/// What searches a lookahead decision: the engine's searcher, which plays the playouts on
/// a game player of its own.
pub trait Scout {
    /// Scores each of the `n` options of the lookahead decision numbered `tape.len()` of
    /// game `game` of seed `seed`, made by faction `f`, the earlier ones being `tape`:
    /// writes each option's mean objective into `scores`, in option order. A playout's
    /// fault is the game's fault.
    fn search(
        &mut self,
        seed: u64,
        game: u64,
        tape: &[u16],
        f: u8,
        n: usize,
        scores: &mut Vec<f64>,
    ) -> std::result::Result<(), Fault>;
}

/// A playout's branch: where it leaves the game's stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Branch {
    /// The playout's number among the decision's playouts (common to every option).
    pub playout: u32,
    /// Rounds the playout plays, the decision's own included (`None`: to the end).
    pub horizon: Option<u32>,
}

/// A game's lookahead state (see the module's doc).
pub struct Look<'a> {
    /// Bit `f` set when faction `f` decides by lookahead.
    pub lookers: u32,
    /// The option each lookahead decision of this game chose so far, in order (forced when
    /// the game is replayed).
    pub tape: Vec<u16>,
    /// The next lookahead decision's number in this game.
    pub at: usize,
    /// In a playout: where it leaves the game's stream (after the tape's last decision).
    pub branch: Option<Branch>,
    /// The last round a playout with a horizon plays (`u32::MAX`: no limit).
    pub stop: u32,
    /// The game's seed and index (the playouts' streams derive from them).
    pub seed: u64,
    /// See `seed`.
    pub game: u64,
    /// The searcher, in a game that searches (none in a playout: a playout's lookahead
    /// factions play their rollout policy once the tape is spent).
    pub scout: Option<Box<dyn Scout + Send + 'a>>,
    /// The option scores of the last searched decision (empty when the last decision was
    /// not searched), for the trace.
    pub scores: Vec<f64>,
}

impl Default for Look<'_> {
    /// No lookahead faction, nothing on the tape, no limit on the rounds.
    fn default() -> Self {
        Look {
            lookers: 0,
            tape: Vec::new(),
            at: 0,
            branch: None,
            stop: u32::MAX,
            seed: 0,
            game: 0,
            scout: None,
            scores: Vec::new(),
        }
    }
}

impl Look<'_> {
    /// Starts game `game` of seed `seed`: an empty tape, no branch, no limit.
    pub fn start(&mut self, seed: u64, game: u64) {
        self.tape.clear();
        self.at = 0;
        self.branch = None;
        self.stop = u32::MAX;
        self.seed = seed;
        self.game = game;
        self.scores.clear();
    }
}

/// The index of the option faction `f` chooses among `opts` (`None` when there is none).
/// A faction that decides by lookahead replays its decision from the tape, or has it
/// searched, or (in a playout, past the tape) picks by `policy`, its rollout policy; any
/// other faction picks by `policy` ([`super::choice::pick`]). A search that faults records
/// the fault in `env` and returns the first option.
pub(crate) fn decide(env: &mut Env<'_>, policy: Policy, f: u8, opts: &[Opt]) -> Option<usize> {
    if env.look.lookers >> f & 1 == 0 || opts.is_empty() {
        return super::choice::pick(policy, &mut env.rng, opts);
    }
    let look = &mut env.look;
    let d = look.at;
    look.at += 1;
    look.scores.clear();
    if let Some(&i) = look.tape.get(d) {
        if d + 1 == look.tape.len()
            && let Some(b) = look.branch
        {
            // The decision under test: from here on the playout's own stream.
            let key = crate::rng::playout_seed(look.seed, look.game, d as u64);
            env.rng.select(key, b.playout as u64);
            if let Some(h) = b.horizon {
                look.stop = (env.st.round.max(0) as u32).saturating_add(h.max(1) - 1);
            }
        }
        return Some((i as usize).min(opts.len() - 1));
    }
    let Some(scout) = look.scout.as_mut() else {
        return super::choice::pick(policy, &mut env.rng, opts);
    };
    let i = if opts.len() == 1 {
        0
    } else {
        let mut scores = std::mem::take(&mut look.scores);
        let searched = scout.search(look.seed, look.game, &look.tape, f, opts.len(), &mut scores);
        look.scores = scores;
        if let Err(fault) = searched {
            env.cx.raise(fault);
            look.tape.push(0);
            return Some(0);
        }
        best(&look.scores)
    };
    look.tape.push(i as u16);
    Some(i)
}

/// The first option with the best score.
fn best(scores: &[f64]) -> usize {
    let mut b = 0;
    for (i, &s) in scores.iter().enumerate() {
        if s > scores[b] {
            b = i;
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_go_to_the_option_listed_first() {
        assert_eq!(best(&[0.5, 0.7, 0.7, 0.1]), 1);
        assert_eq!(best(&[0.2, 0.2]), 0);
    }
}
