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

/// `pass DECK left` (`dir` 1) or `right` (-1): every hand of the deck moves at once to the
/// faction `dir` seats along the table, among the factions still in the game (one out of
/// it neither passes nor receives); its holder knew it and still knows where it is. Both
/// engines pass hands here.
pub fn pass_hands(env: &mut Env<'_>, deck: u16, dir: i8) {
    use crate::state::MAX_FACTIONS;
    let n = (env.t.nfactions as usize).min(MAX_FACTIONS);
    let (mut order, mut k) = ([0u8; MAX_FACTIONS], 0);
    for seat in 0..n {
        let f = env.seating.at[seat];
        if (env.st.out >> f) & 1 == 0 {
            order[k] = f;
            k += 1;
        }
    }
    if k < 2 {
        return;
    }
    let mut to = [0u8; MAX_FACTIONS];
    for i in 0..k {
        let j = (i as isize + dir as isize).rem_euclid(k as isize) as usize;
        to[order[i] as usize] = order[j];
    }
    for c in env.t.deck_cards(deck) {
        let o = env.st.owner[c];
        if (1..=n as u8).contains(&o) && (env.st.out >> (o - 1)) & 1 == 0 {
            env.st
                .pass_card(deck as usize, c, o - 1, to[o as usize - 1]);
        }
    }
}
