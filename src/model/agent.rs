//! A faction's agent: its policy and, for a searching agent, how it searches (flat
//! lookahead or a tree search), how far and for what; and the label results name it by.

use super::Policy;
use crate::expr::Expr;

/// A faction's agent.
#[derive(Debug, Clone)]
pub struct Agent {
    /// How it picks among its scored options when it does not search: every decision of a
    /// non-searching agent, and a searching agent's decisions inside playouts past its
    /// tree (its rollout policy; [`Agent::look`] says how it searches).
    pub policy: Policy,
    /// Greedy noise (standard deviation), evaluated per decision.
    pub noise: Expr,
    /// Priority rank of each action (lower is preferred), `u16::MAX` when not listed.
    pub priority: Vec<u16>,
    /// A fixed weight per action for this faction in place of the actions' weight formulas
    /// (a state-blind mix, as `vpsim exploit` searches), under the weighted policy.
    pub mix: Option<Vec<f64>>,
    /// Decides by a search (lookahead or mcts), with `policy` as its rollout policy.
    pub look: Option<Lookahead>,
    /// Its decisions are counted by action ([`crate::engine::Game::choices`]), so they are
    /// made by the engine, never by a machine-code turn (set by `vpsim exploit`, not by a
    /// scenario).
    pub counted: bool,
}

/// A searching agent's settings (`policy = "lookahead"` or `"mcts"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lookahead {
    /// How it searches.
    pub search: Search,
    /// Rounds a playout plays, the decision's own included (`None`: to the game's end).
    pub horizon: Option<u32>,
    /// What a playout's result is worth to the deciding faction.
    pub objective: Objective,
}

/// How a searching agent searches a decision.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Search {
    /// Flat Monte Carlo (`policy = "lookahead"`): each option's mean over this many
    /// playouts.
    Flat {
        /// Playouts per option.
        rollouts: u32,
    },
    /// Information-set MCTS (`policy = "mcts"`): this many walks of the tree a decision,
    /// each ending in one playout, choosing by UCT with exploration constant `c`.
    Tree {
        /// Iterations (walks, each with its playout) per decision.
        iterations: u32,
        /// The UCT exploration constant.
        c: f64,
    },
}

/// What a lookahead agent maximises, per playout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Objective {
    /// 1 for a sole win, 1/k for a k-way shared win, 0 otherwise.
    Win,
    /// The negated final rank.
    Rank,
    /// Its own score minus the best other score.
    Margin,
}

impl Objective {
    /// The keyword of the scenario file.
    pub fn name(self) -> &'static str {
        match self {
            Objective::Win => "win",
            Objective::Rank => "rank",
            Objective::Margin => "margin",
        }
    }
}

impl Agent {
    /// A state-blind mix: the weighted policy with a fixed weight per action (`mix`, one per
    /// action of the model), its decisions counted when `counted`.
    pub fn fixed_mix(mix: Vec<f64>, counted: bool) -> Agent {
        Agent {
            policy: Policy::Weighted,
            noise: Expr::constant(0.0),
            priority: vec![u16::MAX; mix.len()],
            mix: Some(mix),
            look: None,
            counted,
        }
    }

    /// How results name this agent: `weighted`, `greedy`, `priority`, `mix`,
    /// `lookahead(R)` or `mcts(N)` (with its exploration constant, horizon and objective
    /// when they are not the defaults).
    pub fn label(&self) -> String {
        let base = match (self.policy, &self.mix) {
            (Policy::Weighted, Some(_)) => "mix",
            (Policy::Weighted, None) => "weighted",
            (Policy::Greedy, _) => "greedy",
            (Policy::Priority, _) => "priority",
        };
        match self.look {
            None => base.to_string(),
            Some(l) => {
                let mut s = match l.search {
                    Search::Flat { rollouts } => format!("lookahead({rollouts}"),
                    Search::Tree { iterations, c } => {
                        let mut s = format!("mcts({iterations}");
                        if c != std::f64::consts::SQRT_2 {
                            s.push_str(&format!(", c {c}"));
                        }
                        s
                    }
                };
                if let Some(h) = l.horizon {
                    s.push_str(&format!(", horizon {h}"));
                }
                if l.objective != Objective::Win {
                    s.push_str(&format!(", {}", l.objective.name()));
                }
                if base != "weighted" {
                    s.push_str(&format!(", rollouts {base}"));
                }
                s.push(')');
                s
            }
        }
    }
}
