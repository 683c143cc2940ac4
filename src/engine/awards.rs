//! Rank awards: points by place on a metric, with the tie policies.
//!
//! Owns "where ties are split": `award` ranks every faction on a metric (with an optional
//! tie-break chain folded into the key; with `min K`, only the factions whose metric is at
//! least K) and pays each place from a scale read when the award runs; tied factions share by
//! the policy: split (sum the tied places, divide, round down), high, low, or zero.

use super::{Bind, Game, Step, Tracer};
use crate::expr::{AssignOp, Award, Num, TiePolicy};
use crate::ids::FactionId;
use crate::runtime::order::less;
use crate::state::MAX_FACTIONS;
use crate::state::MAX_ORDER_KEYS;

impl<T: Tracer> Game<'_, T> {
    /// Rank awards: every faction's metric is read first, then awards are added together.
    #[inline(never)]
    pub(super) fn award(&mut self, a: &Award, b: Bind) -> Step {
        let Award {
            lv,
            metric,
            min,
            scale,
            ties,
            chain,
            source,
        } = a;
        let (ties, source) = (*ties, *source);
        let n = self.m.nfactions();
        // The scale as it reads now (`3 + round, round, round - 1`), each a whole number.
        let mut pay = [0i64; MAX_FACTIONS];
        let places = scale.len().min(MAX_FACTIONS);
        for (p, e) in pay.iter_mut().zip(scale) {
            *p = match self.num(e, b)? {
                Num::Int(v) => v,
                Num::Real(r) => match crate::expr::tree::to_int(r.floor()) {
                    Ok(v) => v,
                    Err(kind) => return Err(self.fault(kind, e.loc)),
                },
            };
        }
        let pay = &pay[..places];
        let mut key = [Num::Int(0); MAX_FACTIONS];
        for (f, k) in key.iter_mut().enumerate().take(n) {
            *k = self.num(
                metric,
                Bind {
                    bound: FactionId(f as u8),
                    ..b
                },
            )?;
        }
        if !chain.is_empty() {
            // Fold the chain into one key: each faction's key becomes the number of factions
            // strictly behind it on (metric, chain...), so ties the chain breaks are no longer
            // ties and ties it leaves remain.
            let mut keys = [[Num::Int(0); MAX_ORDER_KEYS]; MAX_FACTIONS];
            for f in 0..n {
                keys[f][0] = key[f];
                for (j, e) in chain.iter().enumerate() {
                    keys[f][j + 1] = self.num(
                        e,
                        Bind {
                            bound: FactionId(f as u8),
                            ..b
                        },
                    )?;
                }
            }
            let nk = chain.len() + 1;
            for f in 0..n {
                let behind = (0..n)
                    .filter(|&g| less(&keys[g][..nk], &keys[f][..nk]))
                    .count();
                key[f] = Num::Int(behind as i64);
            }
        }
        // `min K`: the eligible factions, ranked among themselves; the others take no place.
        let mut who = [0usize; MAX_FACTIONS];
        let mut m = 0;
        let floor = match min {
            Some(k) => Some(self.num(k, b)?),
            None => None,
        };
        for (f, k) in key[..n].iter().enumerate() {
            if floor.is_none_or(|least| *k >= least) {
                who[m] = f;
                m += 1;
            }
        }
        let mut ranked = [Num::Int(0); MAX_FACTIONS];
        for (r, &f) in ranked.iter_mut().zip(&who[..m]) {
            *r = key[f];
        }
        let mut paid = [0i64; MAX_FACTIONS];
        // Integer keys (the common case) rank as `i64`s: the same order, fewer steps.
        let mut ints = [0i64; MAX_FACTIONS];
        let whole = ranked[..m].iter().zip(&mut ints).all(|(k, i)| match *k {
            Num::Int(v) => {
                *i = v;
                true
            }
            Num::Real(_) => false,
        });
        if whole {
            rank_awards(&ints[..m], pay, ties, &mut paid[..m]);
        } else {
            rank_awards(&ranked[..m], pay, ties, &mut paid[..m]);
        }
        let mut amounts = [0i64; MAX_FACTIONS];
        for (&f, &a) in who[..m].iter().zip(&paid) {
            amounts[f] = a;
        }
        let mut changed = false;
        for (f, &a) in amounts.iter().enumerate().take(n) {
            changed |= self.assign_from(
                lv,
                AssignOp::Add,
                Num::Int(a),
                Bind {
                    bound: FactionId(f as u8),
                    ..b
                },
                metric.loc,
                source,
            )?;
        }
        if changed {
            self.after_change(lv.var)?;
        }
        Ok(())
    }
}

/// Awards by rank: `metric` is ranked highest first; place `p` earns `scale[p]` (0 past the
/// end). Tied factions share according to `ties`: `Split` sums the tied places' awards and
/// divides evenly, rounding down; `High` gives each the best tied place's award; `Low` the
/// worst's; `Zero` gives tied factions nothing ("ties negate"). The machine-code engine
/// lowers the same rule inline (`Lower::award`).
pub fn rank_awards<K: PartialOrd>(metric: &[K], scale: &[i64], ties: TiePolicy, out: &mut [i64]) {
    let n = metric.len();
    let at = |p: usize| scale.get(p).copied().unwrap_or(0);
    for f in 0..n {
        let (mut above, mut tied) = (0, 0);
        for m in metric {
            above += (*m > metric[f]) as usize;
            tied += (*m == metric[f]) as usize;
        }
        out[f] = match ties {
            // Alone in its place (the common case): every policy pays the place.
            _ if tied == 1 => at(above),
            // The sum wraps rather than overflows (the machine code sums alike); only a NaN
            // metric, equal to nothing, makes an empty tie, which earns 0.
            TiePolicy::Split => (above..above + tied)
                .map(at)
                .fold(0i64, i64::wrapping_add)
                .div_euclid((tied as i64).max(1)),
            TiePolicy::SplitTowardZero => (above..above + tied)
                .map(at)
                .fold(0i64, i64::wrapping_add)
                .wrapping_div((tied as i64).max(1)),
            TiePolicy::High => at(above),
            TiePolicy::Low => (above + tied).checked_sub(1).map_or(0, at),
            TiePolicy::Zero if tied > 1 => 0,
            TiePolicy::Zero => at(above),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nan_metric_ties_with_nothing_and_earns_nothing_when_shared_or_low() {
        let metric = [2.0, f64::NAN, 1.0];
        let mut out = [9; 3];
        for (ties, nan) in [
            (TiePolicy::Split, 0),
            (TiePolicy::Low, 0),
            // Nothing is above a NaN and it is not tied with another: `high` and `zero`
            // pay it the first place.
            (TiePolicy::High, 5),
            (TiePolicy::Zero, 5),
        ] {
            rank_awards(&metric, &[5, 3, 1], ties, &mut out);
            assert_eq!(out, [5, nan, 3], "{ties:?}");
        }
    }

    #[test]
    fn a_split_sum_wraps_as_the_machine_code_sums() {
        let mut out = [0; 2];
        rank_awards(&[1i64, 1], &[i64::MAX, 3], TiePolicy::Split, &mut out);
        let sum = i64::MAX.wrapping_add(3);
        assert_eq!(out, [sum.div_euclid(2); 2]);
    }
}
