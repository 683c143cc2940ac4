//! The agents' choice among their options, shared by both backends.
//!
//! Owns `pick`: how a weighted, greedy or priority agent chooses one option of a scored
//! menu, drawing from the game's stream in the same order in either backend.

use rand::RngExt;

use super::abi::Opt;
use crate::ir::Policy;

/// The index of the option an agent with `policy` picks among `opts` (`None` when there is
/// none): weighted picks draw one real and walk the weights in order; greedy takes the first
/// best value; priority draws a uniform index among the top priority only when it is tied.
/// Machine-code turns call this same function ([`crate::native`]), so both engines draw alike.
pub(crate) fn pick(policy: Policy, rng: &mut crate::rng::Rng, opts: &[Opt]) -> Option<usize> {
    if opts.is_empty() {
        return None;
    }
    match policy {
        Policy::Weighted => {
            let total: f64 = opts.iter().map(|o| o.score).sum();
            let mut x = rng.random::<f64>() * total;
            for (i, o) in opts.iter().enumerate() {
                if x < o.score {
                    return Some(i);
                }
                x -= o.score;
            }
            Some(opts.len() - 1)
        }
        Policy::Greedy => {
            let mut best = 0;
            for (i, o) in opts.iter().enumerate() {
                if o.score > opts[best].score {
                    best = i;
                }
            }
            Some(best)
        }
        Policy::Priority => {
            let top = opts
                .iter()
                .map(|o| o.score)
                .fold(f64::NEG_INFINITY, f64::max);
            let count = opts.iter().filter(|o| o.score == top).count();
            let pick = if count > 1 {
                rng.random_range(0..count)
            } else {
                0
            };
            opts.iter()
                .enumerate()
                .filter(|(_, o)| o.score == top)
                .nth(pick)
                .map(|(i, _)| i)
        }
    }
}
