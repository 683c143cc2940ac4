//! The one random number generator of the simulator and how each game's streams are
//! derived: one substream for each part of a game (a variable's setup, an event, a phase,
//! a faction's turn, each of its decisions and the action it took, the ranking), so that
//! what one part draws never shifts the draws of another.
//!
//! Two variants of a game compared on the same seed then draw the same dice in every part
//! their rules do not change, even after a part that drew differently: the comparison
//! stays paired for the whole game (synchronized common random numbers), which is what
//! makes `compare`, `tune`, `sweep` and `sensitivity` decide with few games.
//!
//! Every stream derives from (master seed, game index, part), so a game's randomness does
//! not depend on which thread plays it, on how the games are split into chunks or shards,
//! or on the games played before it.

/// SplitMix64's increment (the golden ratio in 64 bits).
pub const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// A part's offset, in draws, along the game's SplitMix64 sequence is its id times this odd
/// constant (R2's multiplier): the parts of a game start 2^64 / (ids) draws apart on
/// average, so no two overlap within any number of draws a game makes (measured and argued
/// in [`seek`](Rng::seek)).
const PART_STRIDE: u64 = 0xd1b5_4a32_d192_ed03;

/// `PART_STRIDE` times [`GAMMA`]: a part's first state is the game's key plus its id
/// times this.
pub const SEG_MUL: u64 = PART_STRIDE.wrapping_mul(GAMMA);

/// SplitMix64's output function (Stafford's variant 13 of MurmurHash3's finaliser).
#[inline(always)]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator used everywhere in simulation code: SplitMix64 (Steele, Lea and Flood,
/// 2014; the generator of Java's `SplittableRandom`), a counter-based generator whose
/// `n`-th output is a fixed function of its key and `n`. That is what lets a part of a game
/// begin its own stream for the cost of one multiply ([`Rng::seek`]), where a ChaCha
/// stream costs a four-block refill (about 340 instructions) at every jump: about 300
/// jumps a six-faction seed game would have cost more than its whole game loop.
///
/// It is written here, not taken from `rand_xoshiro`, because machine code reads and
/// writes its state inline ([`crate::native`]) and the crate's state is private; the
/// tests check every output against `rand_xoshiro::SplitMix64` (64- and 32-bit draws
/// alike), which passes BigCrush.
///
/// The first output is pinned so that a silent change of algorithm fails the tests:
///
/// ```
/// use rand::Rng as _;
/// let mut rng = vpsim::rng::game_rng(42, 0);
/// assert_eq!(rng.next_u64(), 0x02e7_93f2_7c49_3a16);
/// // Another game index is another stream.
/// assert_eq!(vpsim::rng::game_rng(42, 1).next_u64(), 0xe739_cb02_784c_2726);
/// ```
#[derive(Clone, Debug)]
pub struct Rng {
    /// The state: the last draw's point on the sequence.
    pub(crate) state: u64,
    /// The stream's key: the state at the start of part 0.
    pub(crate) key: u64,
    /// The part being drawn from (its id, see [`part`]).
    pub(crate) seg: u64,
}

impl Rng {
    /// Turns this generator into [`game_rng`]`(seed, stream)` in place, at part 0.
    pub(crate) fn select(&mut self, seed: u64, stream: u64) {
        self.key = stream_key(seed, stream);
        self.seg = 0;
        self.state = self.key;
    }

    /// Begins part `id` ([`part`]): the next draw is that part's first, whatever was
    /// drawn before. Parts are `id * PART_STRIDE` draws apart along one SplitMix64
    /// sequence; two parts of a game overlap only if the difference of their ids times
    /// `PART_STRIDE` falls within the draws a part makes of 0 modulo 2^64, which for ids
    /// that differ in their round, place, faction, decision or part fields never happens
    /// (the multiplier is odd and spreads every such difference across the 64 bits).
    #[inline]
    pub fn seek(&mut self, id: u64) {
        self.seg = id;
        self.state = self.key.wrapping_add(id.wrapping_mul(SEG_MUL));
    }

    /// Begins part `p` of the current decision (see [`part::ACT`]): the same id with
    /// another part field.
    #[inline]
    pub fn seek_part(&mut self, p: u64) {
        self.seek(self.seg & !part::PART_MASK | p);
    }

    /// Where the stream stands: the part being drawn from and the state (equal for two
    /// generators exactly when they made the same number of draws in the same part).
    pub fn position(&self) -> (u64, u64) {
        (self.seg, self.state)
    }

    /// The next 64-bit draw.
    #[inline(always)]
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix64(self.state)
    }
}

/// The ids of a game's parts: `round << 44 | place << 32 | who << 24 | step << 4 | part`.
/// Fields that overflow only make two parts share a stream in a game that large (pairing
/// weakens there), never change a result's reproducibility.
pub mod part {
    /// The place of setup (its step is the variable's index, `who` its owner).
    pub const SETUP: u64 = 0xf00;
    /// The place of the ranking at the end.
    pub const RANK: u64 = 0xf01;
    /// The place of the end checks of a timing (`CHECKS + timing`).
    pub const CHECKS: u64 = 0xe00;
    /// The place of the `e`-th event (`EVENTS + e`).
    pub const EVENTS: u64 = 0x800;
    /// `who` of a part that no faction plays (a phase's own steps, an event).
    pub const GLOBAL: u64 = 0xff;
    /// A turn's beginning: start-of-turn checks, `before`, the action count.
    pub const BEGIN: u64 = 1;
    /// A decision: its options scored and one picked.
    pub const PICK: u64 = 2;
    /// The action a decision took: its costs and effects.
    pub const ACT: u64 = 3;
    /// A turn's end: the phase's effects, automatic actions, final-turn checks.
    pub const END: u64 = 4;
    /// The bits of the part field.
    pub const PART_MASK: u64 = 0xf;

    /// The id of a part.
    #[inline]
    pub const fn id(round: u64, place: u64, who: u64, step: u64, part: u64) -> u64 {
        round << 44 | (place & 0xfff) << 32 | (who & 0xff) << 24 | (step & 0xf_ffff) << 4 | part
    }
}

impl rand::TryRng for Rng {
    type Error = std::convert::Infallible;

    /// SplitMix64's 32-bit draw as `rand_xoshiro` makes it (Stafford's "Mix4" finaliser,
    /// the top half).
    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.state = self.state.wrapping_add(GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 33)).wrapping_mul(0x62a9_d9ed_7997_05f5);
        z = (z ^ (z >> 28)).wrapping_mul(0xcb24_d0a5_c88c_35b3);
        Ok((z >> 32) as u32)
    }

    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(self.next())
    }

    /// Whole 64-bit draws, in order, little-endian; a part of a draw at the end uses up
    /// the draw, as `rand_xoshiro` does.
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let w = self.next().to_le_bytes();
            chunk.copy_from_slice(&w[..chunk.len()]);
        }
        Ok(())
    }
}

/// The key of stream `stream` under `seed`: SplitMix64's finaliser over both.
fn stream_key(seed: u64, stream: u64) -> u64 {
    let a = mix64(seed ^ 0x7670_7369_6d2d_6b65); // "vpsim-ke"
    mix64(a ^ stream.wrapping_mul(GAMMA))
}

/// The key of the playouts of lookahead decision `decision` of game `game` of seed
/// `seed`: playout `j` of that decision is stream `j` under this key, the same stream for
/// every option (common random numbers), and no game's stream (those are keyed by `seed`
/// itself). SplitMix64's finaliser mixes the three numbers; a collision with `seed` would
/// need a 64-bit coincidence.
pub fn playout_seed(seed: u64, game: u64, decision: u64) -> u64 {
    let a = mix64(seed ^ 0x6c6f_6f6b_6168_6561); // "lookahea"
    let b = mix64(a ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    mix64(b ^ decision.wrapping_mul(0xd1b5_4a32_d192_ed03))
}

/// The random stream of game `game` under master seed `seed`, at part 0.
#[inline]
pub fn game_rng(seed: u64, game: u64) -> Rng {
    let mut r = Rng {
        state: 0,
        key: 0,
        seg: 0,
    };
    r.select(seed, game);
    r
}

#[cfg(test)]
mod tests {
    use rand::{Rng as _, RngExt as _, SeedableRng as _};

    /// Every draw of a part is SplitMix64's from the part's first state, whatever mix of
    /// 32- and 64-bit draws is made, as `rand_xoshiro` gives them.
    #[test]
    fn each_part_is_splitmix64s_stream() {
        let mut a = super::game_rng(9, 3);
        a.seek(super::part::id(4, 2, 1, 0, super::part::PICK));
        let mut b = rand_xoshiro::SplitMix64::seed_from_u64(a.state);
        for i in 0..1000u32 {
            match i % 5 {
                0 => assert_eq!(a.next_u32(), b.next_u32()),
                3 => assert_eq!(a.next_u64(), b.next_u64()),
                1 => assert_eq!(a.random::<f64>(), b.random::<f64>()),
                2 => assert_eq!(a.random_range(0..7u64), b.random_range(0..7u64)),
                _ => {
                    let (mut x, mut y) = ([0u8; 11], [0u8; 11]);
                    a.fill_bytes(&mut x);
                    b.fill_bytes(&mut y);
                    assert_eq!(x, y);
                }
            }
        }
    }

    /// A part's draws do not depend on what was drawn before it, in it or in any other part.
    #[test]
    fn a_part_begins_the_same_whatever_came_before() {
        let id = super::part::id(3, 1, 2, 1, super::part::ACT);
        let mut fresh = super::game_rng(5, 8);
        fresh.seek(id);
        let want: Vec<u64> = (0..20).map(|_| fresh.next_u64()).collect();
        for used in [0, 1, 17, 300] {
            let mut r = super::game_rng(5, 8);
            r.seek(super::part::id(3, 1, 2, 1, super::part::PICK));
            for _ in 0..used {
                r.next_u64();
            }
            r.seek_part(super::part::ACT);
            assert_eq!(r.position().0, id);
            let got: Vec<u64> = (0..20).map(|_| r.next_u64()).collect();
            assert_eq!(got, want, "after {used} draws");
        }
    }

    /// The parts of a long game do not overlap: no part's first 4,096 draws reach another
    /// part's start, over every part a 200-round game of 16 factions, 8 phases and 4
    /// decisions a turn can use.
    #[test]
    fn parts_are_far_apart() {
        use super::part::*;
        let mut ids = Vec::new();
        for round in 0..200 {
            for place in 0..8 {
                ids.push(id(round, place, GLOBAL, 0, 0));
                for who in 0..16 {
                    for p in [BEGIN, END] {
                        ids.push(id(round, place, who, 0, p));
                    }
                    for k in 0..4 {
                        ids.push(id(round, place, who, k, PICK));
                        ids.push(id(round, place, who, k, ACT));
                    }
                }
            }
        }
        // Offsets in draws along the sequence, sorted: neighbours must be far apart.
        let mut at: Vec<u64> = ids
            .iter()
            .map(|&i| i.wrapping_mul(super::PART_STRIDE))
            .collect();
        at.sort_unstable();
        at.dedup();
        assert_eq!(at.len(), ids.len(), "two parts share an id");
        let closest = at.windows(2).map(|w| w[1] - w[0]).min().unwrap();
        assert!(closest > 4096, "parts {closest} draws apart");
    }
}
