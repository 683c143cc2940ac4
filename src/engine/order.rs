//! Turn order and `order` statements: factions sorted by keys, ties by seat.

use super::{Bind, Game, Step, Tracer};
use crate::expr::compile::MAX_ORDER_KEYS;
use crate::expr::tree::Ty;
use crate::expr::{AssignOp, Expr, LValue, Num, Op, RandFn};
use crate::state::MAX_FACTIONS;
use rand::RngExt;

impl<T: Tracer> Game<'_, T> {
    /// Fills `order` with faction indices sorted ascending by `keys` (ties by seat).
    #[inline(never)]
    pub(super) fn sorted_order(&mut self, keys: &[Expr], order: &mut [u8]) -> Step {
        let n = order.len();
        for (i, o) in order.iter_mut().enumerate() {
            *o = i as u8;
        }
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
                sort_by_keys(&mut k[..n], order);
                return Ok(());
            }
            if key.ty() == Ty::Real {
                // Any real (a key may be negative): compared as reals.
                let mut k = [0.0f64; MAX_FACTIONS];
                for (f, x) in k.iter_mut().enumerate().take(n) {
                    *x = self.eval(key, Bind::faction(f as u8))?;
                }
                sort_by_keys(&mut k[..n], order);
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
                    *x = match self.num(key, Bind::faction(f as u8))? {
                        Num::Int(i) => i,
                        Num::Real(r) => r as i64,
                    };
                }
            }
            sort_by_keys(&mut k[..n], order);
            return Ok(());
        }
        let mut k = [[Num::Int(0); MAX_ORDER_KEYS]; MAX_FACTIONS];
        let nk = keys.len().min(MAX_ORDER_KEYS);
        for (f, row) in k.iter_mut().enumerate().take(n) {
            for (j, e) in keys.iter().take(nk).enumerate() {
                row[j] = self.num(e, Bind::faction(f as u8))?;
            }
        }
        sort_rows(&k, nk, order);
        Ok(())
    }

    /// `order VAR by KEYS`: each faction's place (1 first) in ascending key order.
    pub(super) fn order_stmt(&mut self, lv: &LValue, keys: &[Expr], b: Bind) -> Step {
        let n = self.m.nfactions();
        let mut order = [0u8; MAX_FACTIONS];
        self.sorted_order(keys, &mut order[..n])?;
        for (pos, &f) in order[..n].iter().enumerate() {
            let fb = Bind { bound: f, ..b };
            let slot = self.slot(lv, fb);
            let old = self.env.st.vals[slot];
            self.env.st.vals[slot] =
                self.store(lv.var, AssignOp::Set, old, Num::Int(pos as i64 + 1), 0)?;
        }
        if T::ON {
            let list: Vec<String> = order[..n]
                .iter()
                .map(|&f| self.m.factions[f as usize].name.clone())
                .collect();
            self.tracer.line(format_args!(
                "    order {}: {}",
                self.m.vars[lv.var as usize].name,
                list.join(", ")
            ));
        }
        self.after_change(lv.var)
    }
}

/// Sorts `keys` ascending, moving `order` (faction indices, seat order on entry) along
/// with them: an insertion sort that shifts rather than swaps, with the keys beside the
/// factions rather than behind an index, n <= 16. A key moves only past a strictly greater
/// one, so ties stay in seat order.
#[inline(always)]
pub(crate) fn sort_by_keys<K: PartialOrd + Copy>(keys: &mut [K], order: &mut [u8]) {
    sort_by(keys, order, |a, b| a < b);
}

/// [`sort_by_keys`] with `less` comparing two keys (keys kept as bits, say).
#[inline(always)]
pub(crate) fn sort_by<K: Copy>(keys: &mut [K], order: &mut [u8], less: impl Fn(K, K) -> bool) {
    for i in 1..keys.len().min(order.len()) {
        let (x, o) = (keys[i], order[i]);
        let mut j = i;
        while j > 0 && less(x, keys[j - 1]) {
            keys[j] = keys[j - 1];
            order[j] = order[j - 1];
            j -= 1;
        }
        keys[j] = x;
        order[j] = o;
    }
}

/// Sorts `order` (seat order on entry) ascending by each faction's row of `nk` keys in `k`,
/// compared in turn (a key neither below nor above another, a NaN say, leaves the decision
/// to the next): an insertion sort that swaps, stable (ties by seat), no allocation,
/// n <= 16. Both engines sort by more than one key with it.
pub(crate) fn sort_rows(k: &[[Num; MAX_ORDER_KEYS]], nk: usize, order: &mut [u8]) {
    sort_rows_by(k, order, |a, b| less(&a[..nk], &b[..nk]));
}

/// The insertion sort of [`sort_rows`], with `less` comparing two factions' rows.
#[inline(always)]
fn sort_rows_by<R>(k: &[R], order: &mut [u8], less: impl Fn(&R, &R) -> bool) {
    for i in 1..order.len() {
        let mut j = i;
        while j > 0 && less(&k[order[j] as usize], &k[order[j - 1] as usize]) {
            order.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// Sorts the first `n` factions of `env.race` by their rows of `nk` keys (`real` has bit
/// `j` set when key `j` holds a real's bits, else an integer's), as [`sort_rows`]: the
/// order, from seat order, is left in `env.race.order`.
pub(crate) fn sort_race_rows(env: &mut crate::expr::Env<'_>, n: usize, nk: usize, real: u32) {
    let (n, nk) = (n.min(MAX_FACTIONS), nk.min(MAX_ORDER_KEYS));
    let c = &mut env.race;
    let order = &mut c.order[..n];
    for (i, o) in order.iter_mut().enumerate() {
        *o = i as u8;
    }
    // `less` of the keys as `Num`s, read from their bits: integers exactly, reals as reals.
    sort_rows_by(&c.rows, order, |a, b| {
        for j in 0..nk {
            let (x, y) = (a[j], b[j]);
            let (lt, gt) = if real >> j & 1 != 0 {
                let (x, y) = (f64::from_bits(x), f64::from_bits(y));
                (x < y, x > y)
            } else {
                ((x as i64) < (y as i64), (x as i64) > (y as i64))
            };
            if lt {
                return true;
            }
            if gt {
                return false;
            }
        }
        false
    });
}

pub(crate) fn less<K: PartialOrd>(a: &[K], b: &[K]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x < y {
            return true;
        }
        if x > y {
            return false;
        }
    }
    false
}
