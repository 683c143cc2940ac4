//! The tree of an information-set Monte Carlo tree search (Cowling, Powley and Whitehouse,
//! 2012), walked by one faction's decisions inside playouts, on either backend.
//!
//! Owns [`Tree`]: nodes keyed by the option (action and target) taken from their parent,
//! each with its visits, the times it was available and its total reward; the step of one
//! decision (expand an option not yet in the tree, else UCT over the options available in
//! this determinization, using availability counts); and backing a playout's reward up
//! its path. The tree covers the searching faction's own decisions only: every other
//! faction's moves are sampled from its policy by the playout itself. Written by hand:
//! the search runs inside machine-code turns through the environment, one flat `Vec` of
//! nodes reused from decision to decision, which no tree-search crate offers.

use rand::RngExt;

use super::abi::Opt;

/// No node (an index into [`Tree`]'s nodes).
const NONE: u32 = u32::MAX;

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
    (o.action as u32) << 8 | o.target as u32
}

/// A search tree (see the module's doc).
#[derive(Debug, Clone, Default)]
pub struct Tree {
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
}

impl Tree {
    /// A fresh tree (its root only) with exploration constant `c`, for rewards in
    /// `range` when it is known, else scaled by the rewards seen.
    pub fn reset(&mut self, c: f64, range: Option<(f64, f64)>) {
        self.nodes.clear();
        self.nodes.push(Node::new(NONE));
        self.path.clear();
        self.walker = None;
        self.c = c;
        (self.lo, self.hi) = range.unwrap_or((f64::INFINITY, f64::NEG_INFINITY));
        self.fixed = range.is_some();
    }

    /// Starts a playout at the root, walked by faction `f`.
    pub fn enter(&mut self, f: u8) {
        self.path.clear();
        self.path.push(0);
        self.walker = Some(f);
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
    /// leaves the tree; else UCT picks among the available children (ties at random).
    pub fn step(&mut self, rng: &mut crate::rng::Rng, opts: &[Opt]) -> usize {
        let at = *self.path.last().unwrap_or(&0);
        let mut fresh = 0;
        for o in opts {
            match self.child(at, key(o)) {
                Some(c) => self.nodes[c as usize].avail += 1,
                None => fresh += 1,
            }
        }
        if fresh > 0 {
            let k = if fresh > 1 {
                rng.random_range(0..fresh)
            } else {
                0
            };
            let i = (0..opts.len())
                .filter(|&i| self.child(at, key(&opts[i])).is_none())
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
            return i;
        }
        let ucb = |i: usize| {
            let n = &self.nodes[self.child(at, key(&opts[i])).unwrap_or(0) as usize];
            let explore = (f64::from(n.avail.max(1)).ln() / f64::from(n.visits.max(1))).sqrt();
            self.scaled(n) + self.c * explore
        };
        let i = super::choice::best(rng, opts.len(), ucb);
        let c = self.child(at, key(&opts[i])).unwrap_or(0);
        self.path.push(c);
        i
    }

    /// The playouts that went through the node the walk is at, before this one.
    pub fn visits_here(&self) -> u32 {
        self.path
            .last()
            .map_or(0, |&n| self.nodes[n as usize].visits)
    }

    /// Backs a playout's `reward` up the nodes it walked; the walk ends.
    pub fn back_up(&mut self, reward: f64) {
        for &n in &self.path {
            let n = &mut self.nodes[n as usize];
            n.visits += 1;
            n.total += reward;
        }
        self.path.clear();
        self.walker = None;
        if !self.fixed {
            self.lo = self.lo.min(reward);
            self.hi = self.hi.max(reward);
        }
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

    fn opt(action: u16) -> Opt {
        Opt {
            score: 1.0,
            action,
            target: 0,
        }
    }

    #[test]
    fn every_option_is_tried_once_then_the_better_is_visited_most() {
        let mut t = Tree::default();
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
        let mut t = Tree::default();
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
