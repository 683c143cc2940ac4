//! Sorting factions by keys: turn order, race completers and `order` statements.
//!
//! Owns the one ranking both backends use: stable by seat, branch-free for up to 8 keys,
//! with the insertion sort as the reference when a key is unordered (a real's NaN).

use super::{Completers, Env};
use crate::ir::Num;
use crate::state::{MAX_FACTIONS, MAX_ORDER_KEYS};

/// Sorts the first `k` completers of `env.race` by ascending key (`real` keys compared as
/// reals, else as integers), ties by seat: the order both engines reward a race in (and
/// sort turn order in). The keys are sorted in place along with the factions.
pub(crate) fn sort_completers(env: &mut Env<'_>, k: usize, real: bool) {
    if env.t.rotate_seats {
        // Entry order is faction order: seat order first, so that ties go by seat.
        let k = k.min(MAX_FACTIONS);
        let c = &mut env.race;
        super::seats::into_seat_order(&mut c.keys[..k], &mut c.order[..k], &env.seating.of);
    }
    sort_keyed(&mut env.race, k, real);
}

/// [`sort_completers`] on the completers themselves.
pub(crate) fn sort_keyed(c: &mut Completers, k: usize, real: bool) {
    let k = k.min(MAX_FACTIONS);
    let (keys, order) = (&mut c.keys[..k], &mut c.order[..k]);
    if real {
        let real = f64::from_bits;
        sort_by(keys, order, |a, b| real(a) < real(b), |x| real(x).is_nan());
    } else {
        sort_by(keys, order, |a, b| (a as i64) < (b as i64), |_| false);
    }
}

/// Sorts `keys` ascending, moving `order` (faction indices, seat order on entry) along
/// with them, ties in entry order (so by seat), n <= 16. Keys that are not all ordered
/// (a NaN among reals) take the insertion sort, whose result with them is the reference.
#[inline(always)]
pub(crate) fn sort_by_keys<K: PartialOrd + Copy>(keys: &mut [K], order: &mut [u8]) {
    // `k != k` only for an unordered key (a real's NaN); for integers it folds away.
    #[allow(clippy::eq_op, reason = "`k != k` is the NaN test, not a mistake")]
    sort_by(keys, order, |a, b| a < b, |k| k != k);
}

/// [`sort_by_keys`] with `less` comparing two keys (keys kept as bits, say); `unordered`
/// names the keys `less` does not order (a real's NaN), with any of which the insertion sort
/// ([`insertion_sort_by`]) runs, since only for a strict weak order is the ranking below
/// the same sort.
///
/// Up to 8 keys are ranked with no data-dependent branch: the key to sort is random more
/// often than not (turn order by `random()`, or by a place just drawn), and the insertion
/// sort's compares mispredicted about half the time (10% of a six-faction seed game's time in `perf`).
/// Each pair `j < i` is compared once and adds one to the rank of whichever goes later (`i`
/// unless its key is below `j`'s, so ties keep entry order), the ranks kept as bytes of one
/// word; each key then moves to its rank. For a strict weak order this is exactly the
/// stable sort. Hand-written because the standard library's sorts branch on each compare.
#[inline(always)]
pub(crate) fn sort_by<K: Copy>(
    keys: &mut [K],
    order: &mut [u8],
    less: impl Fn(K, K) -> bool,
    unordered: impl Fn(K) -> bool,
) {
    let n = keys.len().min(order.len());
    if keys[..n].iter().any(|&k| unordered(k)) {
        insertion_sort_by(keys, order, less);
        return;
    }
    match n {
        0 | 1 => {}
        2 => rank_sort::<K, 2>(keys, order, &less),
        3 => rank_sort::<K, 3>(keys, order, &less),
        4 => rank_sort::<K, 4>(keys, order, &less),
        5 => rank_sort::<K, 5>(keys, order, &less),
        6 => rank_sort::<K, 6>(keys, order, &less),
        7 => rank_sort::<K, 7>(keys, order, &less),
        8 => rank_sort::<K, 8>(keys, order, &less),
        _ => insertion_sort_by(keys, order, less),
    }
}

/// The branch-free ranking of [`sort_by`] for exactly `N <= 8` keys (see there).
#[inline(always)]
fn rank_sort<K: Copy, const N: usize>(
    keys: &mut [K],
    order: &mut [u8],
    less: &impl Fn(K, K) -> bool,
) {
    let (Some(keys), Some(order)) = (keys.first_chunk_mut::<N>(), order.first_chunk_mut::<N>())
    else {
        return;
    };
    let (k, o) = (*keys, *order);
    // Byte `i` of `ranks` counts the keys that go before key `i`: at most N - 1 <= 7.
    let mut ranks = 0u64;
    for i in 1..N {
        for j in 0..i {
            let (before, after) = (1u64 << (8 * j), 1u64 << (8 * i));
            ranks += std::hint::select_unpredictable(less(k[i], k[j]), before, after);
        }
    }
    for i in 0..N {
        let r = usize::from((ranks >> (8 * i)) as u8).min(N - 1);
        keys[r] = k[i];
        order[r] = o[i];
    }
}

/// The insertion sort every faster sort here must agree with: shifts rather than swaps,
/// with the keys beside the factions rather than behind an index. A key moves only past a
/// strictly greater one, so ties stay in entry order; with a NaN among real keys, a key
/// moves past none at or before it.
#[inline(always)]
fn insertion_sort_by<K: Copy>(keys: &mut [K], order: &mut [u8], less: impl Fn(K, K) -> bool) {
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
pub(crate) fn sort_race_rows(env: &mut Env<'_>, n: usize, nk: usize, real: u32) {
    let (n, nk) = (n.min(MAX_FACTIONS), nk.min(MAX_ORDER_KEYS));
    let c = &mut env.race;
    let order = &mut c.order[..n];
    // Seat order on entry (the factions' rows stay by faction).
    order.copy_from_slice(&env.seating.at[..n]);
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Sorts copies with [`sort_by_keys`] and with the reference insertion sort.
    fn both<K: PartialOrd + Copy + std::fmt::Debug>(keys: &[K]) -> (Vec<K>, Vec<u8>) {
        let n = keys.len();
        let seats: Vec<u8> = (0..n as u8).collect();
        let (mut k, mut o) = (keys.to_vec(), seats.clone());
        sort_by_keys(&mut k, &mut o);
        let (mut rk, mut ro) = (keys.to_vec(), seats);
        insertion_sort_by(&mut rk, &mut ro, |a, b| a < b);
        assert_eq!(o, ro, "order of {keys:?}");
        (k, o)
    }

    #[test]
    fn ties_keep_seat_order() {
        let (k, o) = both(&[3i64, 1, 3, 1, 2, 3]);
        assert_eq!(k, [1, 1, 2, 3, 3, 3]);
        assert_eq!(o, [1, 3, 4, 0, 2, 5]);
    }

    #[test]
    fn signed_zeros_tie_and_nans_take_the_reference() {
        let (_, o) = both(&[0.0f64, -0.0, -1.0]);
        assert_eq!(o, [2, 0, 1]);
        // With a NaN the insertion sort's result is the reference (checked inside `both`).
        let (_, o) = both(&[2.0, f64::NAN, 1.0, 0.5]);
        assert_eq!(o, [0, 1, 3, 2]);
    }

    proptest! {
        #[test]
        fn ranking_is_the_stable_sort_of_integers(
            keys in prop::collection::vec(prop_oneof![-3i64..3, any::<i64>()], 0..=16)
        ) {
            let (k, o) = both(&keys);
            let mut stable: Vec<(i64, u8)> = keys.iter().copied().zip(0u8..).collect();
            stable.sort_by_key(|&(x, _)| x);
            prop_assert_eq!(o, stable.iter().map(|p| p.1).collect::<Vec<_>>());
            prop_assert_eq!(k, stable.iter().map(|p| p.0).collect::<Vec<_>>());
        }

        #[test]
        fn ranking_agrees_with_insertion_on_reals(
            keys in prop::collection::vec(
                prop_oneof![Just(0.0f64), Just(-0.0), Just(f64::NAN), Just(f64::INFINITY),
                            -2.0f64..2.0, any::<f64>()],
                0..=16,
            )
        ) {
            both(&keys);
        }

        #[test]
        fn race_keys_as_bits_agree_with_insertion(
            keys in prop::collection::vec(prop_oneof![-2.0f64..2.0, Just(f64::NAN)], 0..=10),
            ints in prop::collection::vec(-2i64..2, 0..=10),
        ) {
            for (real, bits) in [
                (true, keys.iter().map(|x| x.to_bits()).collect::<Vec<u64>>()),
                (false, ints.iter().map(|&x| x as u64).collect()),
            ] {
                let n = bits.len();
                let mut c = Completers::default();
                c.keys[..n].copy_from_slice(&bits);
                for (i, o) in c.order[..n].iter_mut().enumerate() {
                    *o = i as u8;
                }
                let (mut rk, mut ro) = (c.keys[..n].to_vec(), c.order[..n].to_vec());
                sort_keyed(&mut c, n, real);
                if real {
                    insertion_sort_by(&mut rk, &mut ro, |a, b| f64::from_bits(a) < f64::from_bits(b));
                } else {
                    insertion_sort_by(&mut rk, &mut ro, |a, b| (a as i64) < (b as i64));
                }
                prop_assert_eq!(&c.order[..n], &ro[..]);
            }
        }
    }
}
