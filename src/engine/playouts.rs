//! The playouts of searched decisions.
//!
//! Owns the searcher a game that searches keeps (`Playouts`, the
//! [`crate::runtime::search::Searcher`] of its environment) and what a playout is:
//! - the game is copied at the decision onto the searcher's own game player (no replay:
//!   the state, marks, points and step count, and where the decision sits in its round);
//! - the copy is *determinized* for the deciding faction: every variable it cannot see is
//!   redrawn from its `prior`, and the cards it cannot see (each deck's undrawn cards and,
//!   unless the deck is public, the cards other factions hold) are reshuffled into the
//!   same places and counts;
//! - the option under test is taken and the rest of the game is played (or `horizon`
//!   rounds) on the playout's own stream, every faction by its own policy, searching ones
//!   by their rollout policy.
//!
//! Playout `j` of a decision is stream `j` of the decision's key, the same for every
//! option (common random numbers: the same determinization, the same dice). Flat
//! lookahead scores each option by its mean over `rollouts` playouts; the tree search
//! (`mcts`) spends `iterations` playouts, each from a fresh determinization, walking
//! [`crate::runtime::search_tree::SearchTree`] with the faction's later decisions. Ties between
//! options are broken by a draw from the decision's own stream, never by their order.

use crate::ids::{FactionId, VarId};
use rand::RngExt;

use super::{Bind, Game, Halt, NoTrace, Outcome, Step};
use crate::expr::AssignOp;
use crate::model::{Lookahead, Model, Objective, Search, Visible};
use crate::rng::Rng;
use crate::runtime::abi::Opt;
use crate::runtime::choice::best;
use crate::runtime::search::{Findings, Searcher};
use crate::runtime::search_tree::SearchTree;
use crate::runtime::{Env, Fault, Result as GameResult};
use crate::state::{IN_POOL, MAX_FACTIONS, held_by, owned_slot};

/// The stream of a decision's key its ties are broken on (playouts use streams from 0).
const TIE_STREAM: u64 = u64::MAX;

/// Determinizations drawn for one playout before it keeps the true hidden values, where a
/// menu reads a hidden value and the draws keep listing other options than the faction
/// saw (a redraw agrees with the menu at least once in 64 unless the prior gives what the
/// menu shows a chance under about 5%).
const MENU_REDRAWS: u32 = 64;

/// A decision being searched: the game at it, its key, the deciding faction, its options.
struct Decision<'e, 'a> {
    env: &'e Env<'a>,
    key: u64,
    f: u8,
    opts: &'e [Opt],
}

/// Plays the playouts of a searching game's decisions.
pub(super) struct Playouts<'m> {
    game: Game<'m, NoTrace>,
    /// The decision's own stream, for its ties.
    tie: Rng,
    /// Scratch for reshuffling a deck: the unseen cards, and the hands holding them.
    cards: Vec<u16>,
    holders: Vec<u8>,
    /// Each faction's search tree between its decisions (swapped into the playout game's
    /// environment while it searches): the subtree of its last decision of this game, or
    /// empty.
    trees: Vec<SearchTree>,
    /// Scratch: the options the deciding faction would see on a determinization.
    menu: Vec<Opt>,
}

impl<'m> Playouts<'m> {
    /// A searcher over model `m`: a game player that does not search itself.
    pub(super) fn new(m: &'m Model) -> Self {
        Playouts {
            game: Game::build(m, NoTrace, false),
            tie: crate::rng::game_rng(0, 0),
            cards: Vec::new(),
            holders: Vec::new(),
            trees: vec![SearchTree::default(); m.nfactions()],
            menu: Vec::new(),
        }
    }

    /// Flat Monte Carlo: each option's mean over `rollouts` playouts.
    fn flat(
        &mut self,
        d: &Decision<'_, '_>,
        look: Lookahead,
        rollouts: u32,
        findings: &mut Findings,
    ) -> Result<usize, Fault> {
        let Decision { env, key, f, opts } = *d;
        let n = self.game.m.nfactions();
        for &o in opts {
            let mut sum = 0.0;
            for j in 0..rollouts {
                self.start(d, j as u64, look.horizon, findings)?;
                let out = self.game.resume_with(env, o)?;
                findings.count(env.st.round, out.rounds);
                sum += worth(&out, f, n, look.objective);
            }
            findings.scores.push(sum / rollouts as f64);
        }
        self.tie.select(key, TIE_STREAM);
        Ok(best(&mut self.tie, opts.len(), |i| findings.scores[i]))
    }

    /// Information-set MCTS: `iterations` of them, each one walk of the tree from the
    /// root on a fresh determinization; the most visited option (then the best mean). The
    /// root's option is chosen first (on the decision's own stream: every option is
    /// available there whatever is hidden), and the `k`-th playout through an option is
    /// playout `k` of the decision (its determinization and its dice), so options are
    /// compared on common random numbers as flat lookahead compares them. The faction's
    /// tree of its previous decision in this game is kept below the option it took, so a
    /// decision starts with what the last one learnt of it.
    fn tree(
        &mut self,
        d: &Decision<'_, '_>,
        look: Lookahead,
        (iterations, c): (u32, f64),
        findings: &mut Findings,
    ) -> Result<usize, Fault> {
        let Decision { f, opts, .. } = *d;
        let n = self.game.m.nfactions();
        let range = match look.objective {
            Objective::Win => Some((0.0, 1.0)),
            Objective::Rank => Some((-(n as f64), -1.0)),
            Objective::Margin => None,
        };
        // The faction's own tree (kept from its last decision of this game, or fresh).
        std::mem::swap(&mut self.game.env.search.tree, &mut self.trees[f as usize]);
        if self.game.env.search.tree.is_empty() {
            self.game.env.search.tree.reset(c, range);
        }
        let found = self.iterate(d, look, iterations, findings);
        let tree = &mut self.game.env.search.tree;
        if !matches!(found, Ok(i) if tree.keep(&opts[i])) {
            tree.forget();
        }
        std::mem::swap(&mut self.game.env.search.tree, &mut self.trees[f as usize]);
        found
    }

    /// The iterations of a tree search (see [`Playouts::tree`]) and its choice.
    fn iterate(
        &mut self,
        d: &Decision<'_, '_>,
        look: Lookahead,
        iterations: u32,
        findings: &mut Findings,
    ) -> Result<usize, Fault> {
        let Decision { env, key, f, opts } = *d;
        let n = self.game.m.nfactions();
        self.tie.select(key, TIE_STREAM);
        for _ in 0..iterations {
            let tree = &mut self.game.env.search.tree;
            tree.enter(f);
            let i = tree.step(&mut self.tie, opts);
            let k = tree.visits_here();
            if let Err(fault) = self.start(d, u64::from(k), look.horizon, findings) {
                self.game.env.search.tree.abandon();
                return Err(fault);
            }
            let out = self.game.resume_with(env, opts[i]);
            let tree = &mut self.game.env.search.tree;
            let out = match out {
                Ok(out) => out,
                Err(fault) => {
                    tree.abandon();
                    return Err(fault);
                }
            };
            findings.count(env.st.round, out.rounds);
            tree.back_up(worth(&out, f, n, look.objective));
        }
        let tree = &self.game.env.search.tree;
        tree.root(opts, &mut findings.visits, &mut findings.scores);
        let top = findings.visits.iter().copied().max().unwrap_or(0);
        let (visits, means) = (&findings.visits, &findings.scores);
        Ok(best(&mut self.tie, opts.len(), |i| {
            if visits[i] == top {
                means[i]
            } else {
                f64::NEG_INFINITY
            }
        }))
    }

    /// Prepares a playout of decision `d`: the game at the decision copied, on stream
    /// `stream` of the decision's key, determinized for the deciding faction, stopping after
    /// `horizon` rounds. Where the model's menus read a hidden value, the determinization
    /// must list the options the faction was shown (what a player knows from its own menu): one that does not is
    /// drawn again, up to [`MENU_REDRAWS`] times; if none does, the playout keeps the true
    /// hidden values (the menu has all but shown them) and `findings` counts it.
    fn start(
        &mut self,
        d: &Decision<'_, '_>,
        stream: u64,
        horizon: Option<u32>,
        findings: &mut Findings,
    ) -> Result<(), Fault> {
        let Decision { env, key, f, opts } = *d;
        self.game.env.rng.select(key, stream);
        let tries = if self.game.m.menu_reads_unseen {
            MENU_REDRAWS
        } else {
            1
        };
        for _ in 0..tries {
            self.copy(env, horizon);
            if self.game.determinize_vars(f).is_err() {
                return Err(self.game.take_fault());
            }
            for d in 0..self.game.m.tables.deck_start.len() {
                self.shuffle_unseen(d, f);
            }
            if tries == 1 || self.menu_agrees(f, opts)? {
                return Ok(());
            }
        }
        self.copy(env, horizon);
        findings.kept_true += 1;
        Ok(())
    }

    /// The game at the decision copied from `env`, stopping after `horizon` rounds.
    fn copy(&mut self, env: &Env<'_>, horizon: Option<u32>) {
        self.game.load(env);
        if let Some(h) = horizon {
            let round = env.st.round.max(0) as u32;
            self.game.env.search.stop = round.saturating_add(h.max(1) - 1);
        }
    }

    /// Whether faction `f`'s menu on the determinized copy lists the options `opts` (the
    /// same actions and targets, in order).
    fn menu_agrees(&mut self, f: u8, opts: &[Opt]) -> Result<bool, Fault> {
        let mut menu = std::mem::take(&mut self.menu);
        menu.clear();
        let listed = self.game.options(FactionId(f), 0.0, &mut menu);
        let same = menu.len() == opts.len()
            && (menu.iter().zip(opts)).all(|(a, b)| a.action == b.action && a.target == b.target);
        self.menu = menu;
        match listed {
            Ok(()) => Ok(same),
            Err(Halt) => Err(self.game.take_fault()),
        }
    }

    /// Reshuffles what faction `f` cannot see of deck `d` into the same places: its
    /// undrawn cards, and unless the deck is public the cards the other factions hold that
    /// `f` does not know the place of (each hand keeps its count; a hand `f` passed on is
    /// known to it).
    fn shuffle_unseen(&mut self, d: usize, f: u8) {
        let m = self.game.m;
        let t = &m.tables;
        let st = &mut self.game.env.st;
        let start = t.deck_start[d] as usize;
        let left = st.deck_left[d] as usize;
        self.cards.clear();
        self.holders.clear();
        self.cards.extend_from_slice(&st.pool[start..start + left]);
        // Others' hands are walked only when some other faction holds a card of the deck.
        let others_hold = (0..m.nfactions() as u8)
            .filter(|&g| g != f)
            .filter_map(|g| owned_slot(d, held_by(g)))
            .any(|i| st.owned[i] > 0);
        if !m.deck_public[d] && others_hold {
            for c in t.deck_cards(d as u16) {
                let o = st.owner[c];
                // A card `f` knows the place of (it passed it on) stays where it is.
                if (1..=MAX_FACTIONS as u8).contains(&o)
                    && o != held_by(f)
                    && st.known.get(c).is_none_or(|k| k >> f & 1 == 0)
                {
                    self.cards.push(c as u16);
                    self.holders.push(o);
                }
            }
        }
        // The current card's place among the unseen ones: after the shuffle, the card in
        // that place is the current card (one another faction took in private is redrawn
        // with the rest of its hand).
        let current = st
            .card()
            .and_then(|c| self.cards.iter().position(|&x| x == c));
        let rng = &mut self.game.env.rng;
        for i in (1..self.cards.len()).rev() {
            let j = rng.random_range(0..=i);
            self.cards.swap(i, j);
        }
        if let Some(p) = current {
            st.set_card(Some(self.cards[p]));
        }
        if self.holders.is_empty() {
            st.pool[start..start + left].copy_from_slice(&self.cards);
            return;
        }
        for &c in &self.cards {
            st.set_owner(d, c as usize, IN_POOL);
            if let Some(k) = st.known.get_mut(c as usize) {
                *k = 0;
            }
        }
        st.pool[start..start + left].copy_from_slice(&self.cards[..left]);
        for (&c, &o) in self.cards[left..].iter().zip(&self.holders) {
            st.set_owner(d, c as usize, o);
        }
    }
}

impl Searcher for Playouts<'_> {
    fn search(
        &mut self,
        env: &Env<'_>,
        d: u64,
        f: u8,
        opts: &[Opt],
        findings: &mut Findings,
    ) -> Result<usize, Fault> {
        let look = self.game.m.agents[FactionId(f)]
            .look
            .expect("only a searching faction is searched");
        let key = crate::rng::playout_seed(env.search.seed, env.search.game, d);
        let d = Decision { env, key, f, opts };
        match look.search {
            Search::Flat { rollouts } => self.flat(&d, look, rollouts, findings),
            Search::Tree { iterations, c } => self.tree(&d, look, (iterations, c), findings),
        }
    }

    fn new_game(&mut self) {
        self.trees.iter_mut().for_each(SearchTree::forget);
    }
}

impl Game<'_, NoTrace> {
    /// Copies the game `env` is playing, at a decision, into this player: the state, the
    /// marks and pending conditions, points and steps; nothing ended, no limit, no fault.
    fn load(&mut self, env: &Env<'_>) {
        self.env.cx.take_fault();
        self.env.st.copy_from(&env.st);
        self.env.progress = env.progress;
        self.env.points.copy_from_slice(&env.points);
        self.env.search.stop = u32::MAX;
        self.ended = None;
        self.leaders.clear();
        self.round_scores.clear();
    }

    /// Redraws every variable faction `f` cannot see from its prior (in declaration order,
    /// owner by owner, on the playout's stream). A variable without a prior keeps its
    /// value: the compiler refuses one a searching faction would have to guess.
    fn determinize_vars(&mut self, f: u8) -> Step {
        let m = self.m;
        for &vi in &m.hidden {
            let v = &m.vars[VarId(vi)];
            let Some(prior) = &v.prior else { continue };
            let owners = if v.faction { m.nfactions() } else { 1 };
            for g in 0..owners {
                if v.visible == Visible::Owner && g == f as usize {
                    continue;
                }
                for e in 0..v.width {
                    let x = self.num(prior, Bind::faction(FactionId(g as u8)))?;
                    let slot = (v.base + g as u32 * v.fstride + e) as usize;
                    self.env.st.vals[slot] = self.store(vi, AssignOp::Set, 0, x, prior.loc)?;
                }
            }
        }
        Ok(())
    }

    /// The rest of the game `env` is playing, from its decision with option `chosen` taken,
    /// on this player's copy.
    fn resume_with(&mut self, env: &Env<'_>, chosen: Opt) -> Result<Outcome, Fault> {
        let round = env.st.round.max(0) as u32;
        let out = self.finish_round(env.search.pos, chosen);
        let out = out.and_then(|()| self.rounds_after(round));
        out.map_err(|Halt| self.take_fault())
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
            reason: crate::ids::ReasonId(0),
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
