//! The agents' choice among their options, shared by both backends.
//!
//! Owns `pick`: how a weighted, greedy or priority agent chooses one option of a scored
//! menu, drawing from the game's stream in the same order in either backend; and
//! [`best`], the best of scored options with ties broken at random, which greedy agents
//! and both searches use so that no choice depends on the order options are declared in.

use rand::RngExt;

use super::abi::Opt;
use crate::ir::Policy;

/// The index of the option an agent with `policy` picks among `opts` (`None` when there is
/// none): weighted picks draw one real and walk the weights in order; greedy takes the best
/// value, and priority the top priority, each drawing a uniform index among the tied ones
/// only when there is a tie ([`best`]). Machine-code turns call this same function
/// ([`crate::native`]), so both engines draw alike.
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
        Policy::Greedy | Policy::Priority => Some(best(rng, opts.len(), |i| opts[i].score)),
    }
}

/// The index among `0..n` (`n` at least 1) of the highest `score`; when several share it,
/// a uniform draw from `rng` among them (the only draw, so the stream moves only on a tie).
pub fn best(rng: &mut crate::rng::Rng, n: usize, score: impl Fn(usize) -> f64) -> usize {
    let top = (0..n).map(&score).fold(f64::NEG_INFINITY, f64::max);
    let tied = (0..n).filter(|&i| score(i) == top).count();
    let k = if tied > 1 {
        rng.random_range(0..tied)
    } else {
        0
    };
    (0..n).filter(|&i| score(i) == top).nth(k).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_are_broken_at_random_and_only_ties_draw() {
        let mut rng = crate::rng::game_rng(7, 0);
        let scores = [0.5, 0.7, 0.7, 0.1];
        let mut seen = [0u32; 4];
        for _ in 0..2000 {
            seen[best(&mut rng, 4, |i| scores[i])] += 1;
        }
        assert_eq!(seen[0] + seen[3], 0);
        assert!(seen[1] > 850 && seen[2] > 850, "{seen:?}");
        let before = rng.position();
        assert_eq!(best(&mut rng, 3, |i| [0.1, 0.9, 0.2][i]), 1);
        assert_eq!(rng.position(), before);
    }
}
