//! The tree of an information-set Monte Carlo tree search (Cowling, Powley and Whitehouse,
//! 2012), walked by one faction's decisions inside playouts, on either backend.
//!
//! Owns [`SearchTree`]: nodes keyed by the option (action and target) taken from their parent,
//! each with its visits, the times it was available and its total reward; the step of one
//! decision (expand an option not yet in the tree, else UCT over the options available in
//! this determinization, using availability counts); backing a playout's reward up its
//! path; keeping the subtree of the option taken for the faction's next decision (tree
//! reuse); and the move statistics its rollouts past the tree are biased by (MAST). The
//! tree covers the searching faction's own decisions with two or more options: every other
//! faction's moves are sampled from its policy by the playout itself. Written by hand:
//! the search runs inside machine-code turns through the environment, one flat `Vec` of
//! nodes reused from decision to decision, which no tree-search crate offers.
//!
//! Why these two additions (measured on planning games with exact optima, see the
//! README): a faction's successive decisions search the same later moves again, so the
//! subtree of the option it took is kept (a later decision starts with the visits the
//! earlier one spent there); and past the tree, a uniform-ish rollout policy makes an
//! investment look worse than it is (a rollout wastes it), so the searching faction's own
//! rollout moves are weighted by `exp(mean / MAST_TEMPERATURE)` of their mean reward in
//! this game's playouts so far (Move-Average Sampling, Finnsson and Bjornsson, 2008),
//! times its rollout policy's weight.

use rand::RngExt;

use super::abi::Opt;

/// No node (an index into [`SearchTree`]'s nodes).
const NONE: u32 = u32::MAX;

/// The temperature of the rollout bias (on rewards scaled to 0..1): a move whose mean is
/// 0.1 higher is about 2.7 times as likely, times its rollout policy's weight.
const MAST_TEMPERATURE: f64 = 0.1;

/// A move's statistics for the rollout bias: its key, the sum of the scaled rewards of the
/// playouts it was played in past the tree and how many, the weight they give it, and the
/// next move of the same action (another target).
#[derive(Debug, Clone, Copy)]
struct Move {
    key: u32,
    total: f64,
    n: u32,
    bias: f64,
    next: u32,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    /// The option that leads here from the parent ([`key`]).
    key: u32,
    /// The first child, then each child's next sibling.
    child: u32,
    sibling: u32,
    /// Playouts through this node.
    visits: u32,
    /// Times this node's option was available when its parent was walked.
    avail: u32,
    /// Sum of the rewards of the playouts through it.
    total: f64,
}

impl Node {
    fn new(key: u32) -> Node {
        Node {
            key,
            child: NONE,
            sibling: NONE,
            visits: 0,
            avail: 0,
            total: 0.0,
        }
    }
}

/// An option's key: its action and target.
fn key(o: &Opt) -> u32 {
    u32::from(o.action.0) << 8 | u32::from(o.target.0)
}

/// A search tree (see the module's doc).
#[derive(Debug, Clone, Default)]
pub struct SearchTree {
    nodes: Vec<Node>,
    /// The nodes the current playout walked, from the root.
    path: Vec<u32>,
    /// The faction whose decisions walk the tree while the playout is in it (none once it
    /// has expanded a node, and outside tree searches).
    pub walker: Option<u8>,
    /// The exploration constant of UCT.
    c: f64,
    /// The reward range the means are scaled from, to [0, 1] for UCT.
    lo: f64,
    hi: f64,
    /// Whether the range is known in advance (else it is the rewards seen so far).
    fixed: bool,
    /// In a playout: the faction whose search it is, from the root until the reward is
    /// backed up (its moves past the tree are biased by [`SearchTree::rollout`]).
    pub owner: Option<u8>,
    /// The searching faction's moves' statistics past the tree, this game so far, and
    /// each action's first move (`NONE`: never played).
    moves: Vec<Move>,
    heads: Vec<u32>,
    /// The moves the current playout played past the tree (indices into `moves`).
    played: Vec<u32>,
    /// Scratch for keeping a subtree, for a step's children and for a rollout's weights or a
    /// step's UCB values.
    spare: Vec<Node>,
    kids: Vec<u32>,
    weights: Vec<f64>,
}

impl SearchTree {
    /// A fresh tree (its root only) with exploration constant `c`, for rewards in
    /// `range` when it is known, else scaled by the rewards seen.
    pub fn reset(&mut self, c: f64, range: Option<(f64, f64)>) {
        self.nodes.clear();
        self.nodes.push(Node::new(NONE));
        self.moves.clear();
        self.heads.fill(NONE);
        self.abandon();
        self.c = c;
        (self.lo, self.hi) = range.unwrap_or((f64::INFINITY, f64::NEG_INFINITY));
        self.fixed = range.is_some();
    }

    /// Starts a playout at the root, walked by faction `f`.
    pub fn enter(&mut self, f: u8) {
        self.path.clear();
        self.path.push(0);
        self.played.clear();
        self.walker = Some(f);
        self.owner = Some(f);
    }

    /// Keeps the subtree of option `o` taken at the root, for the same faction's next
    /// decision of this game (its root then); `false` when the option was never tried
    /// (nothing to keep). The subtree is copied to the front of the node list (its root
    /// the tree's root, node 0), so the tree never holds more than one decision's nodes
    /// beyond the kept ones.
    pub fn keep(&mut self, o: &Opt) -> bool {
        let Some(top) = self.child(0, key(o)) else {
            return false;
        };
        self.spare.clear();
        self.spare.push(self.nodes[top as usize]);
        // Breadth first: each copied node's children are appended and relinked.
        let mut at = 0;
        while at < self.spare.len() {
            let mut c = self.spare[at].child;
            let mut prev = NONE;
            while c != NONE {
                let new = self.spare.len() as u32;
                let node = self.nodes[c as usize];
                self.spare.push(node);
                if prev == NONE {
                    self.spare[at].child = new;
                } else {
                    self.spare[prev as usize].sibling = new;
                }
                prev = new;
                c = node.sibling;
            }
            if prev != NONE {
                self.spare[prev as usize].sibling = NONE;
            }
            at += 1;
        }
        self.spare[0].sibling = NONE;
        std::mem::swap(&mut self.nodes, &mut self.spare);
        self.abandon();
        true
    }

    /// Forgets every node: the next search starts a fresh tree ([`SearchTree::is_empty`]).
    pub fn forget(&mut self) {
        self.nodes.clear();
    }

    /// Whether the tree holds no node (never reset, or forgotten).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The searching faction's move past the tree among `opts` (weighted by its rollout
    /// policy's `score`s, at least one positive): each option's weight times
    /// `exp((mean - 1) / MAST_TEMPERATURE)` of its move's mean scaled reward so far (a move
    /// never played counts as the best, 1); one draw from `rng`. The move is remembered for
    /// the playout's reward.
    pub fn rollout(&mut self, rng: &mut crate::rng::Rng, opts: &[Opt]) -> usize {
        let mut weights = std::mem::take(&mut self.weights);
        weights.clear();
        weights.extend(opts.iter().map(|o| {
            let bias = self.find(o).map_or(1.0, |m| self.moves[m as usize].bias);
            o.score.max(0.0) * bias
        }));
        let total: f64 = weights.iter().sum();
        let mut x = rng.random::<f64>() * total;
        let mut i = opts.len() - 1;
        for (j, &w) in weights.iter().enumerate() {
            if x < w {
                i = j;
                break;
            }
            x -= w;
        }
        self.weights = weights;
        let m = match self.find(&opts[i]) {
            Some(m) => m,
            None => self.add_move(&opts[i]),
        };
        self.played.push(m);
        i
    }

    /// The move statistics of option `o`, if it was played past the tree.
    fn find(&self, o: &Opt) -> Option<u32> {
        let mut m = *self.heads.get(o.action.index())?;
        while m != NONE {
            let x = &self.moves[m as usize];
            if x.key == key(o) {
                return Some(m);
            }
            m = x.next;
        }
        None
    }

    /// Starts the statistics of option `o`'s move (weight 1 until a reward is backed up).
    fn add_move(&mut self, o: &Opt) -> u32 {
        let a = o.action.index();
        if self.heads.len() <= a {
            self.heads.resize(a + 1, NONE);
        }
        let m = self.moves.len() as u32;
        self.moves.push(Move {
            key: key(o),
            total: 0.0,
            n: 0,
            bias: 1.0,
            next: self.heads[a],
        });
        self.heads[a] = m;
        m
    }

    /// The child of `at` reached by option key `k`.
    fn child(&self, at: u32, k: u32) -> Option<u32> {
        let mut c = self.nodes[at as usize].child;
        while c != NONE {
            if self.nodes[c as usize].key == k {
                return Some(c);
            }
            c = self.nodes[c as usize].sibling;
        }
        None
    }

    /// A node's mean reward scaled to [0, 1].
    fn scaled(&self, n: &Node) -> f64 {
        let mean = n.total / n.visits.max(1) as f64;
        if self.hi > self.lo {
            (mean - self.lo) / (self.hi - self.lo)
        } else {
            0.5
        }
    }

    /// One decision of the walker among `opts` (at least one) at the node the walk is at:
    /// the options already in the tree count as available; if some option is not in the
    /// tree yet, one of those (uniformly, from `rng`) is added and taken, and the walk
    /// leaves the tree (`expand`); else UCT picks among the available children
    /// (`select`). The reward is backed up after the playout ([`SearchTree::back_up`]).
    pub fn step(&mut self, rng: &mut crate::rng::Rng, opts: &[Opt]) -> usize {
        let at = *self.path.last().unwrap_or(&0);
        let mut kids = std::mem::take(&mut self.kids);
        let fresh = self.children(at, opts, &mut kids);
        let i = match fresh {
            0 => self.select(rng, opts, &kids),
            _ => self.expand(rng, at, opts, &kids, fresh),
        };
        self.kids = kids;
        i
    }

    /// Each option's child of node `at` into `kids` (`NONE` for an option not in the tree
    /// yet), found once, a walk through the siblings per option; each child found counts
    /// one more availability. Returns how many options are not in the tree.
    fn children(&mut self, at: u32, opts: &[Opt], kids: &mut Vec<u32>) -> usize {
        kids.clear();
        let mut fresh = 0;
        for o in opts {
            let c = self.child(at, key(o));
            match c {
                Some(c) => self.nodes[c as usize].avail += 1,
                None => fresh += 1,
            }
            kids.push(c.unwrap_or(NONE));
        }
        fresh
    }

    /// Expansion: one of the `fresh` options not in the tree (uniformly, from `rng`) becomes
    /// a child of node `at` and is taken; the walk leaves the tree.
    fn expand(
        &mut self,
        rng: &mut crate::rng::Rng,
        at: u32,
        opts: &[Opt],
        kids: &[u32],
        fresh: usize,
    ) -> usize {
        let k = if fresh > 1 {
            rng.random_range(0..fresh)
        } else {
            0
        };
        let i = (0..opts.len())
            .filter(|&i| kids[i] == NONE)
            .nth(k)
            .unwrap_or(0);
        let new = self.nodes.len() as u32;
        let mut node = Node::new(key(&opts[i]));
        node.avail = 1;
        node.sibling = self.nodes[at as usize].child;
        self.nodes.push(node);
        self.nodes[at as usize].child = new;
        self.path.push(new);
        self.walker = None;
        i
    }

    /// Selection: UCT among the children `kids` of every option (each in the tree), ties at
    /// random; the walk goes on from the chosen child.
    fn select(&mut self, rng: &mut crate::rng::Rng, opts: &[Opt], kids: &[u32]) -> usize {
        // Each option's UCB value, computed once (the pick reads each up to three times), in
        // the rollout's scratch vector.
        let mut ucbs = std::mem::take(&mut self.weights);
        ucbs.clear();
        ucbs.extend(kids.iter().map(|&k| {
            let n = &self.nodes[k as usize];
            let explore = (f64::from(n.avail.max(1)).ln() / f64::from(n.visits.max(1))).sqrt();
            self.scaled(n) + self.c * explore
        }));
        let i = super::choice::best(rng, opts.len(), |i| ucbs[i]);
        self.weights = ucbs;
        self.path.push(kids[i]);
        i
    }

    /// The playouts that went through the node the walk is at, before this one.
    pub fn visits_here(&self) -> u32 {
        self.path
            .last()
            .map_or(0, |&n| self.nodes[n as usize].visits)
    }

    /// Backs a playout's `reward` up the nodes it walked, and the moves it played past the
    /// tree; the walk ends.
    pub fn back_up(&mut self, reward: f64) {
        for &n in &self.path {
            let n = &mut self.nodes[n as usize];
            n.visits += 1;
            n.total += reward;
        }
        if !self.fixed {
            self.lo = self.lo.min(reward);
            self.hi = self.hi.max(reward);
        }
        let scaled = if self.hi > self.lo {
            (reward - self.lo) / (self.hi - self.lo)
        } else {
            0.5
        };
        for &m in &self.played {
            let m = &mut self.moves[m as usize];
            m.total += scaled;
            m.n += 1;
            m.bias = ((m.total / f64::from(m.n) - 1.0) / MAST_TEMPERATURE).exp();
        }
        self.abandon();
    }

    /// Ends a walk without backing anything up (a playout that faulted, a new game).
    pub fn abandon(&mut self) {
        self.path.clear();
        self.played.clear();
        self.walker = None;
        self.owner = None;
    }

    /// The root's visits and mean reward for each of `opts` (0 and NaN for an option never
    /// tried).
    pub fn root(&self, opts: &[Opt], visits: &mut Vec<u32>, means: &mut Vec<f64>) {
        visits.clear();
        means.clear();
        for o in opts {
            match self.child(0, key(o)) {
                Some(c) => {
                    let n = &self.nodes[c as usize];
                    visits.push(n.visits);
                    means.push(n.total / f64::from(n.visits.max(1)));
                }
                None => {
                    visits.push(0);
                    means.push(f64::NAN);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{ActionId, FactionId};

    fn opt(action: u16) -> Opt {
        Opt {
            score: 1.0,
            action: ActionId(action),
            target: FactionId(0),
        }
    }

    #[test]
    fn every_option_is_tried_once_then_the_better_is_visited_most() {
        let mut t = SearchTree::default();
        t.reset(std::f64::consts::SQRT_2, Some((0.0, 1.0)));
        let mut rng = crate::rng::game_rng(1, 0);
        let opts = [opt(0), opt(1), opt(2)];
        let mut first = Vec::new();
        for it in 0..600 {
            t.enter(0);
            let i = t.step(&mut rng, &opts);
            if it < 3 {
                first.push(i);
                assert_eq!(t.walker, None, "a new node ends the walk");
            }
            // Option 1 wins 80%, the others 30% (a fixed pattern, no randomness).
            let win = if i == 1 { it % 5 != 0 } else { it % 10 < 3 };
            t.back_up(win as u8 as f64);
        }
        first.sort();
        assert_eq!(first, [0, 1, 2]);
        let (mut visits, mut means) = (Vec::new(), Vec::new());
        t.root(&opts, &mut visits, &mut means);
        assert_eq!(visits.iter().sum::<u32>(), 600);
        assert!(visits[1] > visits[0] && visits[1] > visits[2], "{visits:?}");
        assert!(means[1] > 0.7, "{means:?}");
    }

    #[test]
    fn a_walk_descends_while_its_options_are_in_the_tree() {
        let mut t = SearchTree::default();
        t.reset(1.0, None);
        let mut rng = crate::rng::game_rng(2, 0);
        let opts = [opt(4)];
        t.enter(3);
        assert_eq!(t.step(&mut rng, &opts), 0);
        t.back_up(2.0);
        t.enter(3);
        assert_eq!(t.step(&mut rng, &opts), 0);
        assert_eq!(t.walker, Some(3), "still in the tree");
        assert_eq!(t.step(&mut rng, &opts), 0);
        assert_eq!(t.walker, None, "a second level was added");
        t.back_up(-1.0);
        assert_eq!((t.lo, t.hi), (-1.0, 2.0));
    }
}
