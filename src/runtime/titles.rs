//! Who holds a title (a largest army, a longest road) after a change: the one rule both
//! backends call, so the interpreter's `title` and the machine code's agree by construction.

use crate::ir::Num;

/// The faction that holds a title once every faction's metric reads `key`, given the
/// `holder` before (a faction whose title variable is not 0), the title's `min`, the
/// factions out of the game (bit `f` of `out`) and `ties nobody` (`tied_nobody`).
///
/// With a holder, a faction takes the title only by a strictly higher metric (at least
/// `min`; the highest such if it is alone there; challengers tied there leave it with the
/// holder, or with `ties nobody` to nobody). A holder out of the game, or whose metric fell
/// below `min`, loses it to the faction alone at the highest metric of at least `min`, or
/// to nobody; with no holder, that same faction takes it. Factions out of the game neither
/// take nor keep it.
pub fn next_holder(
    key: &[Num],
    min: Num,
    holder: Option<usize>,
    out: u32,
    tied_nobody: bool,
) -> Option<usize> {
    let n = key.len();
    let inside = |f: usize| (out >> f) & 1 == 0;
    // The faction alone at the highest metric among those `from` picks (at least `min`),
    // if any: two passes over the factions, nothing allocated.
    let alone_best = |from: &dyn Fn(usize) -> bool| {
        let picked = |f: &usize| from(*f) && inside(*f) && key[*f] >= min;
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
    match holder {
        Some(h) if !inside(h) || key[h] < min => alone_best(&|_| true),
        Some(h) => {
            let above = |f: usize| f != h && inside(f) && key[f] > key[h];
            match alone_best(&above) {
                Some(f) => Some(f),
                // Challengers tied above the holder: `ties nobody` sets it aside.
                None if tied_nobody && (0..n).any(|f| above(f) && key[f] >= min) => None,
                None => Some(h),
            }
        }
        None => alone_best(&|_| true),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(k: &[i64]) -> Vec<Num> {
        k.iter().map(|&v| Num::Int(v)).collect()
    }

    #[test]
    fn a_holder_keeps_the_title_against_a_tie_and_loses_it_to_a_higher_metric() {
        let min = Num::Int(5);
        assert_eq!(
            next_holder(&ints(&[5, 5, 0]), min, Some(0), 0, false),
            Some(0)
        );
        assert_eq!(
            next_holder(&ints(&[5, 6, 0]), min, Some(0), 0, false),
            Some(1)
        );
        // Two challengers tied above the holder: it keeps it, or with `ties nobody` nobody
        // holds it.
        assert_eq!(
            next_holder(&ints(&[5, 6, 6]), min, Some(0), 0, false),
            Some(0)
        );
        assert_eq!(next_holder(&ints(&[5, 6, 6]), min, Some(0), 0, true), None);
    }

    #[test]
    fn without_a_holder_only_a_faction_alone_at_the_top_and_at_least_min_takes_it() {
        let min = Num::Int(3);
        assert_eq!(next_holder(&ints(&[2, 1, 0]), min, None, 0, false), None);
        assert_eq!(next_holder(&ints(&[4, 4, 0]), min, None, 0, false), None);
        assert_eq!(next_holder(&ints(&[4, 3, 0]), min, None, 0, false), Some(0));
        // A faction out of the game takes nothing and the holder out loses it.
        assert_eq!(next_holder(&ints(&[4, 3, 0]), min, None, 1, false), Some(1));
        assert_eq!(
            next_holder(&ints(&[4, 3, 0]), min, Some(0), 1, false),
            Some(1)
        );
    }

    #[test]
    fn a_nan_metric_neither_takes_nor_loses_the_title() {
        let key = [Num::Real(f64::NAN), Num::Real(9.0)];
        assert_eq!(next_holder(&key, Num::Int(1), None, 0, false), Some(1));
        assert_eq!(next_holder(&key, Num::Int(1), Some(0), 0, false), Some(0));
    }
}
