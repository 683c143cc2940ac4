//! Completion races: the first, second, ... faction to meet a condition scores by place.
//!
//! Owns the order in which completers of the same moment are rewarded (ascending key, ties by
//! seat) and the per-place scale.

use super::{Bind, Game, Step, Tracer};
use crate::expr::{AssignOp, Num, Race};
use crate::ids::FactionId;
use crate::runtime::order::sort_completers;

impl<T: Tracer> Game<'_, T> {
    /// Completion-order races: every faction's completion is read first (the same moment),
    /// then completers are rewarded in ascending `key` order (ties by seat).
    #[inline(never)]
    pub(super) fn race(&mut self, r: &Race, b: Bind) -> Step {
        let Race {
            done,
            count,
            cond,
            key,
            lv,
            scale,
            source,
        } = r;
        let source = *source;
        let n = self.m.nfactions();
        let mut k = 0;
        let mut real = false;
        for f in 0..n as u8 {
            let fb = Bind {
                bound: FactionId(f),
                ..b
            };
            let slot = self.slot(done, fb);
            if self.env.st.vals[slot] != 0 || (self.env.st.out >> f) & 1 != 0 {
                continue;
            }
            if self.test(cond, fb)? {
                // Every key has the formula's static type (see `Expr::eval_num`).
                let bits = match self.num(key, fb)? {
                    Num::Int(i) => i as u64,
                    Num::Real(r) => {
                        real = true;
                        r.to_bits()
                    }
                };
                self.env.race.keys[k] = bits;
                self.env.race.order[k] = f;
                k += 1;
            }
        }
        sort_completers(&mut self.env, k, real);
        for i in 0..k {
            let f = self.env.race.order[i];
            let fb = Bind {
                bound: FactionId(f),
                ..b
            };
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
