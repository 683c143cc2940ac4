//! Seat rotation: which faction sits in which seat of each game.
//!
//! Owns the seating plan of `--rotate-seats`: game `g` takes row `g mod R` of a balanced
//! Latin square (Williams' design), so over every `R` consecutive games each faction sits
//! in each seat equally often (once for an even number of factions, `R = N`; twice for an
//! odd number, `R = 2N`, the square and its mirror), and each faction follows each other
//! one in turn order equally often. A faction's seat is where it sits at the table: its
//! place in the default turn order and in every "ties by seat". Without rotation the
//! seating is the identity (faction `f` in seat `f`). Hand-written: a few lines, and no
//! crate builds this design.

use crate::state::MAX_FACTIONS;

/// A game's seating: the faction in each seat and the seat of each faction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seating {
    /// `at[s]`: the faction in seat `s` (0-based).
    pub at: [u8; MAX_FACTIONS],
    /// `of[f]`: the seat of faction `f` (0-based).
    pub of: [u8; MAX_FACTIONS],
}

impl Default for Seating {
    fn default() -> Self {
        Seating::identity()
    }
}

impl Seating {
    /// Every faction in its own seat (no rotation).
    pub fn identity() -> Seating {
        let mut at = [0u8; MAX_FACTIONS];
        for (s, x) in at.iter_mut().enumerate() {
            *x = s as u8;
        }
        Seating { at, of: at }
    }

    /// The seating of game `game` among `n` factions under rotation: row `game mod`
    /// [`cycle`]`(n)` of the balanced Latin square.
    pub fn rotated(n: usize, game: u64) -> Seating {
        let n = n.clamp(1, MAX_FACTIONS);
        let rows = cycle(n);
        let r = (game % rows) as usize;
        // Williams' first row: 0, 1, n-1, 2, n-2, ...; row r adds r to each entry; for an
        // odd n the second n rows are the first n reversed.
        let (shift, mirror) = (r % n, r >= n);
        let mut s = Seating::identity();
        for seat in 0..n {
            let col = if mirror { n - 1 - seat } else { seat };
            let first = if col == 0 {
                0
            } else if col % 2 == 1 {
                col.div_ceil(2)
            } else {
                n - col / 2
            };
            let f = (first + shift) % n;
            s.at[seat] = f as u8;
            s.of[f] = seat as u8;
        }
        s
    }
}

/// Every seating of the plan among `n` factions, game `g` taking entry `g mod len`: built
/// once, before any game.
pub fn plan(n: usize) -> Vec<Seating> {
    (0..cycle(n)).map(|g| Seating::rotated(n, g)).collect()
}

/// How many games one round of the seating plan takes among `n` factions: `n` for an even
/// number, `2n` for an odd one (1 for a single faction).
pub fn cycle(n: usize) -> u64 {
    let n = n.clamp(1, MAX_FACTIONS) as u64;
    if n == 1 {
        1
    } else if n.is_multiple_of(2) {
        n
    } else {
        2 * n
    }
}

/// Moves the entries of `keys` and `order` (factions, in any order) into seat order by
/// `of` (each faction's seat), stably: what a sort that keeps ties in entry order needs
/// first so that its ties go by seat. At most [`MAX_FACTIONS`] entries: an insertion sort.
#[inline]
pub fn into_seat_order<K: Copy>(keys: &mut [K], order: &mut [u8], of: &[u8; MAX_FACTIONS]) {
    let seat = |f: u8| of[f as usize % MAX_FACTIONS];
    for i in 1..keys.len().min(order.len()) {
        let (k, o) = (keys[i], order[i]);
        let mut j = i;
        while j > 0 && seat(o) < seat(order[j - 1]) {
            keys[j] = keys[j - 1];
            order[j] = order[j - 1];
            j -= 1;
        }
        keys[j] = k;
        order[j] = o;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_faction_sits_in_each_seat_equally_often_per_cycle() {
        for n in 1..=MAX_FACTIONS {
            let rows = cycle(n);
            let mut count = vec![vec![0u64; n]; n];
            let mut follows = vec![vec![0u64; n]; n];
            for g in 0..rows {
                let s = Seating::rotated(n, g);
                for seat in 0..n {
                    let f = s.at[seat] as usize;
                    assert_eq!(s.of[f] as usize, seat, "n {n} game {g}");
                    count[f][seat] += 1;
                    if seat + 1 < n {
                        follows[f][s.at[seat + 1] as usize] += 1;
                    }
                }
            }
            let each = rows / n as u64;
            assert!(
                count.iter().flatten().all(|&c| c == each),
                "n {n}: {count:?}"
            );
            // Balanced for carry-over: each ordered pair adjacent equally often.
            let pairs: Vec<u64> = (0..n)
                .flat_map(|a| (0..n).filter(move |&b| b != a).map(move |b| (a, b)))
                .map(|(a, b)| follows[a][b])
                .collect();
            assert!(pairs.windows(2).all(|w| w[0] == w[1]), "n {n}: {follows:?}");
        }
    }

    #[test]
    fn seat_order_is_stable() {
        let s = Seating::rotated(4, 1);
        let mut keys = [10, 11, 12, 13];
        let mut order = [0u8, 1, 2, 3];
        into_seat_order(&mut keys, &mut order, &s.of);
        assert_eq!(order[..], s.at[..4]);
        assert_eq!(keys.map(|k| k - 10), order.map(|o| o as i32));
    }
}
