//! Drawing from decks: the card a `draw` or `take` gets, chosen by one random number.
//!
//! Owns the last step of every draw and take, which both backends call so that a card is
//! picked from the same stream position in either: the eligible cards' bit set and the
//! choice among them.

use rand::RngExt;

use super::Env;

/// Sets bit `j` of a take's eligible cards to `yes` (the first card of a word clears it).
#[inline]
pub(crate) fn mark_eligible(bits: &mut [u64], j: usize, yes: bool) {
    let w = &mut bits[j / 64];
    if j.is_multiple_of(64) {
        *w = 0;
    }
    *w |= (yes as u64) << (j % 64);
}

/// The draw of a take with a condition, after the test: `eligible` of the first `left`
/// cards of deck `d`'s pool have their bit set in `env.eligible`, and one random number
/// picks one of them, which leaves the pool for `owner` and becomes the current card. With
/// none eligible, there is no current card. Both engines end a take here.
pub(crate) fn take_eligible(
    env: &mut Env<'_>,
    d: usize,
    left: usize,
    eligible: usize,
    owner: u8,
) -> Option<u16> {
    if eligible == 0 {
        env.st.set_card(None);
        return None;
    }
    let mut k = env.rng.random_range(0..eligible);
    let bits = &env.eligible;
    let j = (0..left).find(|&j| {
        let o = bits[j / 64] >> (j % 64) & 1 == 1;
        if o {
            if k == 0 {
                return true;
            }
            k -= 1;
        }
        false
    })?;
    Some(env.st.take_at(env.t, d, j, owner))
}

/// A `draw` or `take` with no condition: one random number picks a card of deck `d`'s pool,
/// which leaves it for `owner` and becomes the current card (none when the pool is empty).
pub(crate) fn take_any(env: &mut Env<'_>, d: usize, owner: u8) -> Option<u16> {
    let left = env.st.deck_left[d] as usize;
    if left == 0 {
        env.st.set_card(None);
        return None;
    }
    let j = env.rng.random_range(0..left);
    Some(env.st.take_at(env.t, d, j, owner))
}
