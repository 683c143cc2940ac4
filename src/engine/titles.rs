//! Titles: a largest army, a longest road, custodians.
//!
//! Owns `Game::title`, the one rule for who holds a title: a minimum, a holder that
//! changes only when strictly exceeded, and the points its variable holds while held.

use super::{Bind, Game, Step, Tracer};
use crate::expr::AssignOp;
use crate::expr::Num;
use crate::state::MAX_FACTIONS;

impl<T: Tracer> Game<'_, T> {
    /// A title: held by one faction at most, whose variable `t.lv` holds `t.points` (every
    /// other faction's 0), each change credited to the title's source. With a holder, a
    /// faction takes it only by a strictly higher metric (at least `min`; the highest such
    /// if it is alone there; challengers tied there leave it with the holder, or with
    /// `ties nobody` to nobody). A holder whose metric falls below
    /// `min` loses it to the faction alone at the highest metric of at least `min`, or to
    /// nobody. With no holder, that same faction takes it. Factions out of the game neither
    /// take nor keep it.
    #[inline(never)]
    pub(super) fn title(&mut self, t: &crate::expr::Title, b: Bind) -> Step {
        let n = self.m.nfactions();
        let at = |f: usize| Bind {
            bound: f as u8,
            ..b
        };
        let mut key = [Num::Int(0); MAX_FACTIONS];
        for (f, k) in key.iter_mut().enumerate().take(n) {
            *k = self.num(&t.metric, at(f))?;
        }
        let min = self.num(&t.min, b)?;
        let points = self.num(&t.points, b)?;
        let inside = |g: &Self, f: usize| (g.env.st.out >> f) & 1 == 0;
        let holder = (0..n).find(|&f| {
            let slot = self.slot(&t.lv, at(f));
            self.env.st.vals[slot] != 0
        });
        // The faction alone at the highest metric among those `from` picks (at least `min`),
        // if any: two passes over the factions, nothing allocated.
        let alone_best = |g: &Self, from: &dyn Fn(usize) -> bool| {
            let picked = |f: &usize| from(*f) && inside(g, *f) && key[*f] >= min;
            let best =
                (0..n)
                    .filter(picked)
                    .map(|f| key[f])
                    .fold(None, |m: Option<Num>, k| match m {
                        Some(m) if m >= k => Some(m),
                        _ => Some(k),
                    })?;
            let mut top = (0..n).filter(picked).filter(|&f| key[f] == best);
            let first = top.next()?;
            top.next().is_none().then_some(first)
        };
        let next = match holder {
            Some(h) if !inside(self, h) || key[h] < min => alone_best(self, &|_| true),
            Some(h) => {
                let above = |f: usize| f != h && inside(self, f) && key[f] > key[h];
                match alone_best(self, &above) {
                    Some(f) => Some(f),
                    // Challengers tied above the holder: `ties nobody` sets it aside.
                    None if t.tied_nobody && (0..n).any(|f| above(f) && key[f] >= min) => None,
                    None => Some(h),
                }
            }
            None => alone_best(self, &|_| true),
        };
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
