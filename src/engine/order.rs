//! Turn order and `order` statements: factions sorted by keys, ties by seat.

use super::{Bind, Game, Step, Tracer};
use crate::expr::tree::Ty;
use crate::expr::{AssignOp, Expr, LValue, Num, Op, RandFn};
use crate::ids::{FactionId, VarId};
use crate::runtime::order::{sort_by_keys, sort_rows};
use crate::state::MAX_FACTIONS;
use crate::state::MAX_ORDER_KEYS;
use rand::RngExt;

impl<T: Tracer> Game<'_, T> {
    /// Fills `order` with faction indices sorted ascending by `keys` (ties by seat).
    #[inline(never)]
    pub(super) fn sorted_order(&mut self, keys: &[Expr], order: &mut [u8]) -> Step {
        let n = order.len();
        // Seat order: with keys, the order ties keep.
        order.copy_from_slice(&self.env.seating.at[..n]);
        if keys.is_empty() {
            return Ok(());
        }
        // One key (the common case): a row of keys of its static type (every value has it,
        // see `Expr::eval_num`), compared directly.
        if let [key] = keys {
            if let [Op::Rand(RandFn::Random, 0)] = key.code() {
                // `random()`: the formula's one draw, made here.
                let mut k = [0.0f64; MAX_FACTIONS];
                for x in k.iter_mut().take(n) {
                    *x = self.env.rng.random::<f64>();
                }
                self.sort_seated(&mut k[..n], order);
                return Ok(());
            }
            if key.ty() == Ty::Real {
                // Any real (a key may be negative): compared as reals.
                let mut k = [0.0f64; MAX_FACTIONS];
                for (f, x) in k.iter_mut().enumerate().take(n) {
                    *x = self.eval(key, Bind::faction(FactionId(f as u8)))?;
                }
                self.sort_seated(&mut k[..n], order);
                return Ok(());
            }
            let mut k = [0i64; MAX_FACTIONS];
            if let Some((base, fstride)) = key.own_var() {
                // A faction's own variable: read from the state, as the formula would.
                for (f, x) in k.iter_mut().enumerate().take(n) {
                    *x = self.env.st.vals[crate::expr::slot(f, base, fstride, 0)];
                }
            } else {
                for (f, x) in k.iter_mut().enumerate().take(n) {
                    *x = match self.num(key, Bind::faction(FactionId(f as u8)))? {
                        Num::Int(i) => i,
                        Num::Real(r) => r as i64,
                    };
                }
            }
            self.sort_seated(&mut k[..n], order);
            return Ok(());
        }
        let mut k = [[Num::Int(0); MAX_ORDER_KEYS]; MAX_FACTIONS];
        let nk = keys.len().min(MAX_ORDER_KEYS);
        for (f, row) in k.iter_mut().enumerate().take(n) {
            for (j, e) in keys.iter().take(nk).enumerate() {
                row[j] = self.num(e, Bind::faction(FactionId(f as u8)))?;
            }
        }
        sort_rows(&k, nk, order);
        Ok(())
    }

    /// Sorts `order` (seat order) by `keys`, each faction's key at its own index: the keys
    /// move into seat order first (only when the seats rotate; else they are in it).
    #[inline(always)]
    fn sort_seated<K: PartialOrd + Copy>(&self, keys: &mut [K], order: &mut [u8]) {
        if self.m.tables.rotate_seats {
            let mut by_faction = [0u8; MAX_FACTIONS];
            for (i, x) in by_faction.iter_mut().enumerate().take(order.len()) {
                *x = i as u8;
            }
            let n = order.len();
            crate::runtime::seats::into_seat_order(
                keys,
                &mut by_faction[..n],
                &self.env.seating.of,
            );
            order.copy_from_slice(&by_faction[..n]);
        }
        sort_by_keys(keys, order);
    }

    /// `order VAR by KEYS`: each faction's place (1 first) in ascending key order.
    pub(super) fn order_stmt(&mut self, lv: &LValue, keys: &[Expr], b: Bind) -> Step {
        let n = self.m.nfactions();
        let mut order = [0u8; MAX_FACTIONS];
        self.sorted_order(keys, &mut order[..n])?;
        for (pos, &f) in order[..n].iter().enumerate() {
            let fb = Bind {
                bound: FactionId(f),
                ..b
            };
            let slot = self.slot(lv, fb);
            let old = self.env.st.vals[slot];
            self.env.st.vals[slot] =
                self.store(lv.var, AssignOp::Set, old, Num::Int(pos as i64 + 1), 0)?;
        }
        if T::ON {
            let list: Vec<String> = order[..n]
                .iter()
                .map(|&f| self.m.factions[FactionId(f)].name.clone())
                .collect();
            self.tracer.line(format_args!(
                "    order {}: {}",
                self.m.vars[VarId(lv.var)].name,
                list.join(", ")
            ));
        }
        self.after_change(lv.var)
    }
}
