//! Automatic actions (`[[action]] auto = true`): what the rules make a faction take at the
//! end of its turn, such as a noble visiting a player who meets its requirements.
//!
//! Owns the groups a faction may claim from and the claim itself: at the end of each of the
//! faction's turns in a phase with actions, for each group in file order, when any option
//! is available the faction takes exactly one, outside its turn's decisions. Its agent
//! chooses among the options by its policy (a searching agent by its rollout policy: the
//! search covers ordinary decisions), the costs are paid and the effects run, as for a
//! decision.

use super::{Bind, Game, Step, Tracer};
use crate::ids::ActionId;
use crate::ids::FactionId;
use crate::model::Model;

/// Appends every faction's automatic groups to `menu` (after the ordinary menus) and
/// returns them as `(faction, lo, hi)` ranges, faction by faction, groups in file order.
pub(super) fn groups(m: &Model, menu: &mut Vec<ActionId>) -> Vec<(u8, u32, u32)> {
    let mut out = Vec::new();
    for f in 0..m.nfactions() {
        let mut last = None;
        for (ai, a) in m.actions.iter().enumerate() {
            let Some(g) = a.auto else { continue };
            if a.allowed & (1 << f) == 0 {
                continue;
            }
            if last != Some(g) {
                out.push((f as u8, menu.len() as u32, menu.len() as u32));
                last = Some(g);
            }
            menu.push(ActionId::from_index(ai));
            if let Some(r) = out.last_mut() {
                r.2 = menu.len() as u32;
            }
        }
    }
    out
}

impl<T: Tracer> Game<'_, T> {
    /// The automatic claims at the end of faction `f`'s turn: one option of each group
    /// that has an available one, chosen by `f`'s agent.
    pub(super) fn claims(&mut self, f: u8) -> Step {
        if self.claims.is_empty() {
            return Ok(());
        }
        let m = self.m;
        let agent = &m.agents[FactionId(f)];
        for gi in 0..self.claims.len() {
            let (g, lo, hi) = self.claims[gi];
            if g != f || self.ended.is_some() || (self.env.st.out >> f) & 1 != 0 {
                continue;
            }
            let noise = if agent.policy == crate::model::Policy::Greedy {
                self.eval(&agent.noise, Bind::faction(FactionId(f)))?
            } else {
                0.0
            };
            let mut opts = std::mem::take(&mut self.opts);
            opts.clear();
            let scanned =
                self.claimable(FactionId(f), noise, (lo as usize, hi as usize), &mut opts);
            // The rules take an option whatever the weights: all weighed 0, it is a uniform
            // pick among them.
            if opts.iter().all(|o| o.score == 0.0) {
                opts.iter_mut().for_each(|o| o.score = 1.0);
            }
            let chosen = scanned.map(|()| {
                crate::runtime::choice::pick(agent.policy, &mut self.env.rng, &opts)
                    .map(|i| opts[i])
            });
            self.opts = opts;
            let Some(o) = chosen? else { continue };
            self.claim(FactionId(f), o.action, o.target)?;
        }
        Ok(())
    }
}
