//! Completion races: the first, second, ... faction to meet a condition scores by place.
//!
//! Owns the order in which completers of the same moment are rewarded (ascending key, ties by
//! seat) and the per-place scale.

use super::{Bind, Game, Step, Tracer};
use crate::expr::{AssignOp, Expr, LValue, Num};
use crate::state::MAX_FACTIONS;

impl<T: Tracer> Game<'_, T> {
    /// Completion-order races: every faction's completion is read first (the same moment),
    /// then completers are rewarded in ascending `key` order (ties by seat).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(super) fn race(
        &mut self,
        done: &LValue,
        count: &LValue,
        cond: &Expr,
        key: &Expr,
        lv: &LValue,
        scale: &[i64],
        source: Option<u8>,
        b: Bind,
    ) -> Step {
        let n = self.m.nfactions();
        let mut order = [0u8; MAX_FACTIONS];
        let mut keys = [Num::Int(0); MAX_FACTIONS];
        let mut k = 0;
        for f in 0..n as u8 {
            let fb = Bind { bound: f, ..b };
            let slot = self.slot(done, fb);
            if self.env.st.vals[slot] != 0 || (self.env.st.out >> f) & 1 != 0 {
                continue;
            }
            if self.test(cond, fb)? {
                keys[f as usize] = self.num(key, fb)?;
                order[k] = f;
                k += 1;
            }
        }
        for i in 1..k {
            let mut j = i;
            while j > 0 && keys[order[j] as usize] < keys[order[j - 1] as usize] {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        for &f in &order[..k] {
            let fb = Bind { bound: f, ..b };
            let cslot = self.slot(count, fb);
            let place = self.env.st.vals[cslot];
            let reward = usize::try_from(place)
                .ok()
                .and_then(|p| scale.get(p))
                .copied()
                .unwrap_or(0);
            self.assign(done, AssignOp::Set, Num::Int(1), fb, cond.loc)?;
            self.assign_from(lv, AssignOp::Add, Num::Int(reward), fb, cond.loc, source)?;
            self.assign(count, AssignOp::Add, Num::Int(1), fb, cond.loc)?;
        }
        if k > 0 {
            self.after_change(done.var)?;
            self.after_change(lv.var)?;
            self.after_change(count.var)?;
        }
        Ok(())
    }
}
