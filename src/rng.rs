//! The one random number generator of the simulator and how each game's stream is derived.
//!
//! Every game draws from its own ChaCha8 stream, keyed by the master seed and selected by the
//! game index, so a game's randomness does not depend on which thread plays it, on how the
//! games are split into chunks or shards, or on the games played before it.

use rand::SeedableRng;

/// The generator used everywhere in simulation code. ChaCha8 is portable and documented to
/// give the same stream on every platform and in every release of `rand_chacha`.
///
/// The first output is pinned so that a silent change of algorithm fails the tests:
///
/// ```
/// use rand::Rng as _;
/// let mut rng = vpsim::rng::game_rng(42, 0);
/// assert_eq!(rng.next_u64(), 0xae90_bfb5_395d_5ba1);
/// // Another game index is another stream.
/// assert_eq!(vpsim::rng::game_rng(42, 1).next_u64(), 0xb77f_a861_8dc9_e890);
/// ```
pub type Rng = rand_chacha::ChaCha8Rng;

/// The random stream of game `game` under master seed `seed`.
#[inline]
pub fn game_rng(seed: u64, game: u64) -> Rng {
    let mut rng = Rng::seed_from_u64(seed);
    rng.set_stream(game);
    rng
}

/// How many 32-bit words a generator has produced since its stream was selected; the
/// benches use it to size the random-draw floor.
#[inline]
pub fn words_used(rng: &Rng) -> u128 {
    rng.get_word_pos()
}
