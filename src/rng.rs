//! The one random number generator of the simulator and how each game's stream is derived.
//!
//! Every game draws from its own ChaCha8 stream, keyed by the master seed and selected by the
//! game index, so a game's randomness does not depend on which thread plays it, on how the
//! games are split into chunks or shards, or on the games played before it.

use rand::SeedableRng;

/// Words a [`Rng`] buffers: one refill of ChaCha8's four-block output.
pub const BUF_WORDS: usize = 64;

/// The generator used everywhere in simulation code: ChaCha8, which is portable and
/// documented to give the same stream on every platform and in every release of
/// `rand_chacha`.
///
/// The stream's words are read through a buffer of this crate's own, filled 64 words at a
/// time from `rand_chacha`'s generator, so that machine code can read a word inline (see
/// [`crate::native`]); `rand_chacha`'s own buffer is private. The words come out in the
/// stream's order, and a 64-bit draw is two consecutive words (low first), exactly as
/// `rand_chacha` gives them, so every distribution draws what it would from
/// `rand_chacha::ChaCha8Rng` itself.
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
#[derive(Clone, Debug)]
pub struct Rng {
    /// The buffered words; `buf[at..]` are the next ones.
    pub(crate) buf: [u32; BUF_WORDS],
    /// The next word's index in `buf` ([`BUF_WORDS`] when every word is used).
    pub(crate) at: u64,
    core: rand_chacha::ChaCha8Rng,
    /// The master seed `core` was keyed by.
    seed: u64,
}

impl Rng {
    /// Refills the buffer with the stream's next 64 words. `core` is always at a four-block
    /// boundary here (it is only ever read 256 bytes at a time), so this is exactly one
    /// refill of its own.
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        rand::Rng::fill_bytes(&mut self.core, bytemuck::bytes_of_mut(&mut self.buf));
        // The stream's bytes are its words little-endian (nothing to do on such a machine).
        for w in &mut self.buf {
            *w = u32::from_le(*w);
        }
        self.at = 0;
    }

    /// The next word.
    #[inline]
    fn word(&mut self) -> u32 {
        if self.at >= BUF_WORDS as u64 {
            self.refill();
        }
        let w = self.buf[self.at as usize];
        self.at += 1;
        w
    }

    /// The next two words as one `u64`, the first one low.
    #[inline]
    pub(crate) fn next_pair(&mut self) -> u64 {
        let i = self.at as usize;
        if i + 1 < BUF_WORDS {
            self.at += 2;
            return u64::from(self.buf[i + 1]) << 32 | u64::from(self.buf[i]);
        }
        let lo = self.word();
        u64::from(self.word()) << 32 | u64::from(lo)
    }

    /// Turns this generator into [`game_rng`]`(seed, game)` in place: the key is kept when the
    /// seed is the same (every game of a run), so a new game only rewinds the block counter
    /// and selects its stream; nothing is zeroed or moved. A worker does this once a game.
    pub(crate) fn select(&mut self, seed: u64, game: u64) {
        if self.seed != seed {
            self.core = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            self.seed = seed;
        }
        // Block 0 with nothing buffered (no block is generated), then the stream: the state
        // `seed_from_u64(seed)` followed by `set_stream(game)` leaves.
        self.core.set_word_pos(0);
        self.core.set_stream(game);
        self.at = BUF_WORDS as u64;
    }

    /// Words used since the stream was selected.
    pub fn word_pos(&self) -> u128 {
        self.core.get_word_pos() - (BUF_WORDS as u128 - self.at as u128)
    }
}

impl rand::TryRng for Rng {
    type Error = std::convert::Infallible;

    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.word())
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.next_pair())
    }

    /// Whole words, in order, little-endian; a part of a word at the end uses up the word,
    /// as `rand_chacha` does.
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(4) {
            let w = self.word().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
        Ok(())
    }
}

/// The key of the playouts of lookahead decision `decision` of game `game` of seed
/// `seed`: playout `j` of that decision is stream `j` under this key, the same stream for
/// every option (common random numbers), and no game's stream (those are keyed by `seed`
/// itself). SplitMix64's finaliser mixes the three numbers; a collision with `seed` would
/// need a 64-bit coincidence.
pub fn playout_seed(seed: u64, game: u64, decision: u64) -> u64 {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let a = mix(seed ^ 0x6c6f_6f6b_6168_6561); // "lookahea"
    let b = mix(a ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    mix(b ^ decision.wrapping_mul(0xd1b5_4a32_d192_ed03))
}

/// The random stream of game `game` under master seed `seed`.
#[inline]
pub fn game_rng(seed: u64, game: u64) -> Rng {
    let mut core = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    core.set_stream(game);
    Rng {
        buf: [0; BUF_WORDS],
        at: BUF_WORDS as u64,
        core,
        seed,
    }
}

/// How many 32-bit words a generator has produced since its stream was selected; the
/// benches use it to size the random-draw floor.
#[inline]
pub fn words_used(rng: &Rng) -> u128 {
    rng.word_pos()
}

#[cfg(test)]
mod tests {
    use rand::{Rng as _, RngExt as _, SeedableRng as _};

    /// Every draw reads the same stream as `rand_chacha`'s own generator, across refills,
    /// whatever mix of 32- and 64-bit draws is made.
    #[test]
    fn the_buffered_stream_is_chacha8s() {
        let mut a = super::game_rng(9, 3);
        let mut b = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        b.set_stream(3);
        for i in 0..1000u32 {
            match i % 5 {
                0 | 3 => assert_eq!(a.next_u32(), b.next_u32()),
                1 => assert_eq!(a.random::<f64>(), b.random::<f64>()),
                2 => assert_eq!(a.random_range(0..7u64), b.random_range(0..7u64)),
                _ => {
                    let (mut x, mut y) = ([0u8; 7], [0u8; 7]);
                    a.fill_bytes(&mut x);
                    b.fill_bytes(&mut y);
                    assert_eq!(x, y);
                }
            }
            assert_eq!(super::words_used(&a), b.get_word_pos(), "draw {i}");
        }
    }

    /// A generator selected in place, after any use and under the same or another seed, gives
    /// exactly the stream a fresh one does.
    #[test]
    fn selecting_in_place_is_a_fresh_stream() {
        let mut a = super::game_rng(9, 3);
        for (seed, game, used) in [(9, 4, 5), (9, 4, 70), (9, 0, 0), (11, 4, 130), (9, 7, 1)] {
            for _ in 0..used {
                a.next_u32();
            }
            a.select(seed, game);
            let mut b = super::game_rng(seed, game);
            assert_eq!(super::words_used(&a), 0);
            for _ in 0..200 {
                assert_eq!(a.next_u64(), b.next_u64(), "seed {seed} game {game}");
            }
        }
    }
}
