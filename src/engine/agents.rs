//! Agents: how a faction picks its action.
//!
//! Owns an agent decision: the options (every action the faction may take, with each
//! eligible target, that it can afford), each scored by the faction's policy (weight, noisy
//! value or priority), and the choice among them: weighted random, the best value, or a random
//! pick among the top priority, or a search ([`crate::runtime::search`], the playouts
//! played by [`super::playouts`]). Then the chosen action's costs are paid and its
//! effects run.

use super::{Bind, Game, Halt, Step, Tracer};
use crate::expr::{AssignOp, Num};
use crate::ids::{ActionId, FactionId};
use crate::model::{Policy, Search};
use crate::runtime::abi::Opt;
use crate::runtime::search::decide;
use rand_distr::{Distribution, StandardNormal};

/// What a scan does with an option its weighted agent weighs at 0 or less.
#[derive(Clone, Copy)]
enum Unweighted {
    /// Leave it out: an agent never picks what it weighs at nothing.
    Left,
    /// Keep it, scored 0: the rules take an option whatever the weights.
    Kept,
}

impl<T: Tracer> Game<'_, T> {
    /// One agent decision for faction `f`.
    #[inline(never)]
    pub(super) fn decide(&mut self, f: FactionId) -> Step {
        let m = self.m;
        if !T::ON
            && let Some(Some(turn)) = m.menus.get(f.index())
        {
            return self.turn(turn, f);
        }
        let agent = &m.agents[f];
        let noise = if agent.policy == Policy::Greedy {
            self.eval(&agent.noise, Bind::faction(f))?
        } else {
            0.0
        };
        let mut opts = std::mem::take(&mut self.opts);
        opts.clear();
        let result = self.options(f, noise, &mut opts);
        let chosen = match result {
            Ok(()) => self.choose(agent.policy, f, &opts),
            Err(e) => {
                self.opts = opts;
                return Err(e);
            }
        };
        self.opts = opts;
        let Some((ai, t)) = chosen else {
            if T::ON {
                let who = self.seated(f);
                self.tracer
                    .line(format_args!("  {who}: no action available, passes"));
            }
            return Ok(());
        };
        // The action taken draws from a part of its own, so that what the choice drew
        // does not shift its dice.
        self.env.rng.seek_part(crate::rng::part::ACT);
        self.take(f, ai, t)
    }

    /// Faction `f` takes action `ai` against `t`, chosen by its agent: counted, traced with
    /// what a search found, its costs paid and its effects run.
    pub(super) fn take(&mut self, f: FactionId, ai: ActionId, t: FactionId) -> Step {
        self.count(f, ai);
        if T::ON {
            self.trace_take(f, ai, t, "");
            self.trace_search(f);
        }
        self.act(ai, Bind::acting(f, t))
    }

    /// Faction `f` takes action `ai` against `t` because the rules made it claim one (an
    /// automatic action): counted, traced as automatic, its costs paid and its effects run.
    pub(super) fn claim(&mut self, f: FactionId, ai: ActionId, t: FactionId) -> Step {
        self.count(f, ai);
        if T::ON {
            self.trace_take(f, ai, t, " (automatic)");
        }
        self.act(ai, Bind::acting(f, t))
    }

    /// Counts faction `f`'s taking of action `ai` (for the usage tables).
    fn count(&mut self, f: FactionId, ai: ActionId) {
        self.choices[(f, ai)] += 1;
        self.env.used(self.choices.cell(f, ai));
    }

    /// The trace's line of faction `f` taking action `ai` against `t`, `how` after it.
    fn trace_take(&mut self, f: FactionId, ai: ActionId, t: FactionId, how: &str) {
        let m = self.m;
        let a = &m.actions[ai];
        let tgt = match a.targeted {
            true => format!(" targeting {}", m.factions[t].name),
            false => String::new(),
        };
        let who = self.seated(f);
        self.tracer
            .line(format_args!("  {who}: {}{tgt}{how}", a.name));
    }

    /// Faction `f`'s turn in machine code (no trace): the scan, the choice and, when they
    /// are lowered, the chosen action's effects; the engine takes over where the code
    /// returns.
    fn turn(&mut self, turn: &crate::runtime::abi::Menu, f: FactionId) -> Step {
        use crate::runtime::abi::Turn;
        match turn.call(&mut self.env) {
            Turn::Pass => Ok(()),
            // The chosen action ran in machine code: the end of its moment.
            Turn::Done => self.moment_end(),
            Turn::Faulted => Err(Halt),
            Turn::Chose { action, target } => self.act(action, Bind::acting(f, target)),
            // The chosen action's effects ended the game (`end`).
            Turn::Held(r) => {
                self.end(r);
                self.moment_end()
            }
        }
    }

    /// Lists faction `f`'s options (action, target, score) in menu order, each with its
    /// weight, noisy value or priority. The acting faction is bound once for the whole list
    /// and only the target changes, so each formula runs without rebinding.
    #[inline]
    pub(super) fn options(&mut self, f: FactionId, noise: f64, opts: &mut Vec<Opt>) -> Step {
        let (lo, hi) = (
            self.menu_at[f.index()] as usize,
            self.menu_at[f.index() + 1] as usize,
        );
        self.scan(f, noise, (lo, hi), Unweighted::Left, opts)
    }

    /// The options of the automatic actions `menu[lo..hi]` that faction `f` must claim one
    /// of, scored by its policy: the rules take one whatever the weights, so an option its
    /// weighted agent weighs at 0 or less is kept, scored 0.
    pub(super) fn claimable(
        &mut self,
        f: FactionId,
        noise: f64,
        range: (usize, usize),
        opts: &mut Vec<Opt>,
    ) -> Step {
        self.scan(f, noise, range, Unweighted::Kept, opts)
    }

    /// The options of the actions `menu[lo..hi]` for faction `f`, scored by its policy; an
    /// option a weighted agent weighs at 0 or less is left out or kept as `unweighted` says.
    fn scan(
        &mut self,
        f: FactionId,
        noise: f64,
        (lo, hi): (usize, usize),
        unweighted: Unweighted,
        opts: &mut Vec<Opt>,
    ) -> Step {
        let m = self.m;
        let agent = &m.agents[f];
        let n = m.nfactions() as u8;
        self.bind(Bind::faction(f));
        for i in lo..hi {
            let ai = self.menu[i];
            let a = &m.actions[ai];
            // `when` cannot name the target, so it is evaluated once per action.
            if let Some(w) = &a.when
                && !self.test_bound(w)?
            {
                continue;
            }
            let targets = if a.targeted { 0..n } else { f.0..f.0 + 1 };
            for t in targets.map(FactionId) {
                if a.targeted {
                    if t == f {
                        continue;
                    }
                    self.env.cx.target = t.0;
                    if let Some(w) = &a.target_when
                        && !self.test_bound(w)?
                    {
                        continue;
                    }
                }
                if !a.cost.is_empty() && !self.affordable(ai, f, t)? {
                    continue;
                }
                let score = match agent.policy {
                    Policy::Weighted => {
                        let w = match &agent.mix {
                            Some(mix) => mix[ai.index()],
                            None => self.eval_bound(&a.weight)?,
                        };
                        match (w > 0.0, unweighted) {
                            (true, _) => w,
                            (false, Unweighted::Kept) => 0.0,
                            (false, Unweighted::Left) => continue,
                        }
                    }
                    Policy::Greedy => {
                        let v = self.eval_bound(&a.value)?;
                        if noise > 0.0 {
                            let z: f64 = StandardNormal.sample(&mut self.env.rng);
                            v + noise * z
                        } else {
                            v
                        }
                    }
                    Policy::Priority => -(agent.priority[ai.index()] as f64),
                };
                opts.push(Opt {
                    score,
                    action: ai,
                    target: t,
                });
            }
            self.env.cx.target = f.0;
        }
        Ok(())
    }

    /// Whether `f` can pay every cost of action `ai` against `t`.
    #[inline(never)]
    pub(super) fn affordable(&mut self, ai: ActionId, f: FactionId, t: FactionId) -> Step<bool> {
        let a = &self.m.actions[ai];
        let b = Bind::acting(f, t);
        for (lv, amount) in &a.cost {
            let need = self.num(amount, b)?;
            let slot = self.slot(lv, b);
            if Num::Int(self.env.st.vals[slot]) < need {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Takes action `ai` as `b.me` against `b.target`: pays its cost, runs its effects.
    pub(super) fn act(&mut self, ai: ActionId, b: Bind) -> Step {
        let a = &self.m.actions[ai];
        for (lv, amount) in &a.cost {
            let x = self.num(amount, b)?;
            if self.assign(lv, AssignOp::Sub, x, b, amount.loc)? {
                self.after_change(lv.var)?;
            }
        }
        self.run(&a.effects, b)
    }

    /// Faction `f`'s choice among `opts` ([`decide`]: by its policy, or searched, or in a
    /// tree search's playout walked down the tree).
    pub(super) fn choose(
        &mut self,
        policy: Policy,
        f: FactionId,
        opts: &[Opt],
    ) -> Option<(ActionId, FactionId)> {
        let i = decide(&mut self.env, policy, f.0, opts)?;
        Some((opts[i].action, opts[i].target))
    }

    /// Traces what the search of a decision just made found, best first: each option's
    /// mean objective, and for a tree search its visits at the root.
    fn trace_search(&mut self, f: FactionId) {
        let findings = &self.env.search.findings;
        if findings.scores.is_empty() || self.env.search.searchers >> f.0 & 1 == 0 {
            return;
        }
        let m = self.m;
        let visits = |i: usize| findings.visits.get(i).copied().unwrap_or(0);
        let mut rows: Vec<usize> = (0..findings.scores.len()).collect();
        rows.sort_by(|&a, &b| {
            (visits(b).cmp(&visits(a)))
                .then(findings.scores[b].total_cmp(&findings.scores[a]))
                .then(a.cmp(&b))
        });
        let look = m.agents[f].look.expect("a searching faction");
        let text: Vec<String> = rows
            .iter()
            .map(|&i| {
                let o = self.opts[i];
                let a = &m.actions[o.action];
                let tgt = if a.targeted {
                    format!(" {}", m.factions[o.target].name)
                } else {
                    String::new()
                };
                let v = findings.scores[i];
                match look.search {
                    Search::Flat { .. } => format!("{}{tgt} {v:.3}", a.name),
                    Search::Tree { .. } => {
                        format!("{}{tgt} {} visits {v:.3}", a.name, visits(i))
                    }
                }
            })
            .collect();
        let how = match look.search {
            Search::Flat { rollouts } => format!("lookahead ({rollouts} playouts an option"),
            Search::Tree { iterations, .. } => format!("mcts ({iterations} iterations"),
        };
        let kept = match findings.kept_true {
            0 => String::new(),
            k => format!(", {k} kept the true hidden values: no redraw listed the options shown"),
        };
        self.tracer.line(format_args!(
            "    {how}, {}): {} [{} playouts, {} rounds played{kept}]",
            look.objective.name(),
            text.join(", "),
            findings.playouts,
            findings.rounds
        ));
    }

    /// A faction's name for the trace, with its seat when the seats rotate.
    pub(super) fn seated(&self, f: FactionId) -> String {
        let name = &self.m.factions[f].name;
        if self.m.tables.rotate_seats {
            format!("{name} (seat {})", self.env.seating.of[f.index()] + 1)
        } else {
            name.clone()
        }
    }
}
