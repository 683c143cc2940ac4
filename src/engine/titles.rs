//! Titles: a largest army, a longest road, custodians.
//!
//! Owns `Game::title`, the one rule for who holds a title: a minimum, a holder that
//! changes only when strictly exceeded, and the points its variable holds while held.

use super::{Bind, Game, Step, Tracer};
use crate::expr::AssignOp;
use crate::expr::Num;
use crate::ids::FactionId;
use crate::state::MAX_FACTIONS;

impl<T: Tracer> Game<'_, T> {
    /// A title: held by one faction at most, whose variable `t.lv` holds `t.points` (every
    /// other faction's 0), each change credited to the title's source. Who holds it is
    /// [`crate::runtime::titles::next_holder`]'s rule, which the machine code calls too.
    #[inline(never)]
    pub(super) fn title(&mut self, t: &crate::expr::Title, b: Bind) -> Step {
        let n = self.m.nfactions();
        let at = |f: usize| Bind {
            bound: FactionId(f as u8),
            ..b
        };
        let mut key = [Num::Int(0); MAX_FACTIONS];
        for (f, k) in key.iter_mut().enumerate().take(n) {
            *k = self.num(&t.metric, at(f))?;
        }
        let min = self.num(&t.min, b)?;
        let points = self.num(&t.points, b)?;
        let holder = (0..n).find(|&f| {
            let slot = self.slot(&t.lv, at(f));
            self.env.st.vals[slot] != 0
        });
        let next = crate::runtime::titles::next_holder(
            &key[..n],
            min,
            holder,
            self.env.st.out,
            t.tied_nobody,
        );
        if next == holder {
            return Ok(());
        }
        let mut changed = false;
        for (f, v) in [(holder, Num::Int(0)), (next, points)] {
            if let Some(f) = f {
                changed |=
                    self.assign_from(&t.lv, AssignOp::Set, v, at(f), t.metric.loc, t.source)?;
            }
        }
        if changed {
            self.after_change(t.lv.var)?;
        }
        Ok(())
    }
}
