//! Searched decisions, shared by both backends: which decisions a search makes, where in
//! the round a decision sits, and the tree a tree search walks in its playouts.
//!
//! Owns [`SearchState`], the part of [`Env`] a searching agent needs, and `decide`, the one place
//! an agent's choice is made (machine-code turns call it too, through their `pick`
//! helper). A searched decision hands the game's environment to the [`Searcher`] (the
//! engine's playouts), which copies it at the decision ([`Pos`] says where in the round
//! that is), redraws what the deciding faction cannot see, and plays the rest of the game
//! from the copy on a stream of its own: the game's own stream never moves for a search.
//! In a playout of a tree search, the searching faction's decisions walk the [`SearchTree`]
//! until it leaves it; every other decision is made by the faction's own policy.

use super::abi::Opt;
use super::search_tree::SearchTree;
use super::{Env, Fault};
use crate::ir::Policy;
use crate::state::MAX_FACTIONS;

/// Where a decision sits in its round: the faction phase, the turn order the phase sorted,
/// the seat whose turn it is, and which of the turn's decisions it is. A playout resumes
/// the round here.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pos {
    /// The phase's index in the model.
    pub phase: u16,
    /// The seat's index in `order`.
    pub seat: u8,
    /// The decision's index in the turn (0 for the first).
    pub k: u32,
    /// Decisions in this turn.
    pub count: u32,
    /// The phase's turn order (the first `nfactions` entries).
    pub order: [u8; MAX_FACTIONS],
}

impl Pos {
    /// The faction whose turn it is.
    pub fn faction(&self) -> u8 {
        self.order[self.seat as usize]
    }
}

/// What searches a decision: the engine's searcher, which plays the playouts on a game
/// player of its own.
pub trait Searcher {
    /// Searches decision number `d` of the game `env` is playing, made by faction `f` among
    /// `opts` at `env.search.pos`; writes what it found into `findings` and returns the index of
    /// the option to take. A playout's fault is the game's fault.
    fn search(
        &mut self,
        env: &Env<'_>,
        d: u64,
        f: u8,
        opts: &[Opt],
        findings: &mut Findings,
    ) -> std::result::Result<usize, Fault>;

    /// A new game starts: nothing kept from the last one (a tree search keeps the subtree
    /// of each decision's option for the faction's next decision of the same game).
    fn new_game(&mut self);
}

/// What the last searched decision found, for the trace: each option's mean objective,
/// and for a tree search each option's visits (empty for flat playouts).
#[derive(Debug, Clone, Default)]
pub struct Findings {
    /// Each option's mean objective, in option order (empty: the decision was not searched).
    pub scores: Vec<f64>,
    /// Each option's visits at the root of a tree search.
    pub visits: Vec<u32>,
    /// Playouts played for the decision.
    pub playouts: u64,
    /// Rounds those playouts played, each counting the decision's own round: the search's
    /// work, which `trace` prints.
    pub rounds: u64,
    /// Playouts that kept the true hidden values because no redraw listed the options the
    /// faction was shown.
    pub kept_true: u64,
}

impl Findings {
    /// Forgets the last decision.
    pub fn clear(&mut self) {
        self.scores.clear();
        self.visits.clear();
        self.playouts = 0;
        self.rounds = 0;
        self.kept_true = 0;
    }

    /// Counts a playout from a decision in round `from` that ended after round `to`.
    pub fn count(&mut self, from: i64, to: u32) {
        self.playouts += 1;
        self.rounds += u64::from(to).saturating_sub(from.max(0) as u64) + 1;
    }
}

/// A game's search state (see the module's doc).
pub struct SearchState<'a> {
    /// Bit `f` set when faction `f` decides by a search.
    pub searchers: u32,
    /// The next searched decision's number in this game.
    pub at: u64,
    /// Where the decision being made sits (set by the engine before each decision of a
    /// game with searching factions).
    pub pos: Pos,
    /// The last round a playout with a horizon plays (`u32::MAX`: no limit).
    pub stop: u32,
    /// The game's seed and index (the playouts' streams derive from them).
    pub seed: u64,
    /// See `seed`.
    pub game: u64,
    /// The searcher, in a game that searches (none in a playout: a playout's searching
    /// factions play their rollout policy).
    pub searcher: Option<Box<dyn Searcher + Send + 'a>>,
    /// What the last searched decision found, for the trace.
    pub findings: Findings,
    /// In a playout of a tree search: the tree, walked by its faction's decisions.
    pub tree: SearchTree,
}

impl Default for SearchState<'_> {
    /// No searching faction, no limit on the rounds.
    fn default() -> Self {
        SearchState {
            searchers: 0,
            at: 0,
            pos: Pos::default(),
            stop: u32::MAX,
            seed: 0,
            game: 0,
            searcher: None,
            findings: Findings::default(),
            tree: SearchTree::default(),
        }
    }
}

impl SearchState<'_> {
    /// Starts game `game` of seed `seed`: no decision searched yet, no limit.
    pub fn start(&mut self, seed: u64, game: u64) {
        self.at = 0;
        self.stop = u32::MAX;
        self.seed = seed;
        self.game = game;
        self.findings.clear();
        // The game's own tree is never walked (playouts walk the searcher's): only the
        // searcher has something of the last game to forget.
        self.tree.walker = None;
        if let Some(searcher) = &mut self.searcher {
            searcher.new_game();
        }
    }
}

/// The index of the option faction `f` chooses among `opts` (`None` when there is none).
/// A searching faction has its decision searched; in a tree search's playout its
/// decisions walk the tree while they are in it; anywhere else (a playout past the tree)
/// it picks by `policy`, its rollout policy, as every other faction picks by its own
/// ([`super::choice::pick`]). A search that faults records the fault in `env` and returns
/// the first option.
pub(crate) fn decide(env: &mut Env<'_>, policy: Policy, f: u8, opts: &[Opt]) -> Option<usize> {
    if env.search.searchers >> f & 1 == 0 || opts.is_empty() {
        return super::choice::pick(policy, &mut env.rng, opts);
    }
    if env.search.tree.owner == Some(f) {
        // A tree search's playout, at its faction's decision: a forced move is not a node
        // (so the tree's levels are the decisions a search is made at), the tree is walked
        // while the walk is in it, and past it the rollout policy's moves are biased by
        // their mean reward so far (a weighted rollout policy; any other plays as it is).
        let tree = &mut env.search.tree;
        return if opts.len() == 1 {
            Some(0)
        } else if tree.walker == Some(f) {
            Some(tree.step(&mut env.rng, opts))
        } else if policy == Policy::Weighted {
            Some(tree.rollout(&mut env.rng, opts))
        } else {
            super::choice::pick(policy, &mut env.rng, opts)
        };
    }
    let Some(mut searcher) = env.search.searcher.take() else {
        return super::choice::pick(policy, &mut env.rng, opts);
    };
    let d = env.search.at;
    env.search.at += 1;
    let mut findings = std::mem::take(&mut env.search.findings);
    findings.clear();
    let i = if opts.len() == 1 {
        Ok(0)
    } else {
        searcher.search(env, d, f, opts, &mut findings)
    };
    env.search.findings = findings;
    env.search.searcher = Some(searcher);
    match i {
        Ok(i) => Some(i.min(opts.len() - 1)),
        Err(fault) => {
            env.cx.raise(fault);
            Some(0)
        }
    }
}
