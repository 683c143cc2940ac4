//! A hand-written Rust program of the TI4 model: the native reference of the benches.
//!
//! The same rules, agents, weights and probabilities as `scenarios/twilight_imperium_4.toml`
//! at its default settings, making the same random draws in the same order from the same
//! per-game streams, so that its games equal vpsim's game for game (`tests/it/reference.rs`
//! checks the first 10,000 games of a seed). It uses rand and rand_xoshiro only: what a
//! programmer would write for this one game, with no scenario language.
//!
//! Each part of a game draws from its own SplitMix64 stream, as vpsim's do (see
//! `src/rng.rs`): the part `id = round << 44 | place << 32 | who << 24 | step << 4 | part`
//! starts at state `key + id * SEG_MUL`, where `key` mixes the seed and the game index.

use rand::{Rng as _, RngExt, SeedableRng};
use rand_xoshiro::SplitMix64;

type Rng = SplitMix64;

const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
const SEG_MUL: u64 = 0xd1b5_4a32_d192_ed03_u64.wrapping_mul(GAMMA);
/// `who` of a phase's own part.
const GLOBAL: u64 = 0xff;
/// The parts of a decision: the pick, then the action taken; the end of a turn.
const PICK: u64 = 2;
const ACT: u64 = 3;
const END: u64 = 4;
/// The place of setup.
const SETUP: u64 = 0xf00;

/// SplitMix64's output function, as the generator's own first draw from `x - GAMMA`.
fn mix64(x: u64) -> u64 {
    SplitMix64::seed_from_u64(x.wrapping_sub(GAMMA)).next_u64()
}

/// The stream of one part of the game keyed by `key`.
fn part(key: u64, round: u64, place: u64, who: u64, step: u64, part: u64) -> Rng {
    let id = round << 44 | place << 32 | who << 24 | step << 4 | part;
    SplitMix64::seed_from_u64(key.wrapping_add(id.wrapping_mul(SEG_MUL)))
}

const N: usize = 6;
const GOAL: i64 = 10;

/// How a reference game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// A player reached the goal.
    ReachedGoal,
    /// The speaker could not reveal an objective.
    SpeakerCannotReveal,
    /// The round limit.
    RoundLimit,
}

/// What a reference game produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Game {
    /// The winning faction.
    pub winner: usize,
    /// Why it ended.
    pub end: End,
    /// The round it ended in.
    pub rounds: u32,
    /// Final victory points.
    pub vp: [i64; N],
    /// 64-bit random draws made.
    pub draws: u64,
}

#[derive(Default)]
struct S {
    vp: [i64; N],
    skill: [i64; N],
    initiative: [i64; N],
    priority: [i64; N],
    planets: [i64; N],
    fleet: [i64; N],
    s1: [i64; N],
    s2: [i64; N],
    secrets: [i64; N],
    speaker: i64,
    mecatol: i64,
    rev1: i64,
    rev2: i64,
    stage1_left: usize,
    stage2_left: usize,
    ended: Option<End>,
}

impl S {
    /// `vp += d`, capped at the goal; the goal check runs when it changed.
    fn add_vp(&mut self, f: usize, d: i64) {
        let new = (self.vp[f] + d).clamp(0, GOAL);
        if new != self.vp[f] {
            self.vp[f] = new;
            self.check();
        }
    }

    fn check(&mut self) {
        if self.ended.is_none() && self.vp.iter().any(|&v| v >= GOAL) {
            self.ended = Some(End::ReachedGoal);
        }
    }

    /// Factions in ascending initiative.
    fn by_initiative(&self) -> [usize; N] {
        let mut order = [0, 1, 2, 3, 4, 5];
        order.sort_by_key(|&f| self.initiative[f]);
        order
    }
}

fn bernoulli(rng: &mut Rng, p: f64) -> bool {
    rng.random_bool(p)
}

fn battle(rng: &mut Rng, base: f64, mine: i64, theirs: i64) -> bool {
    bernoulli(rng, (base + 0.08 * (mine - theirs) as f64).clamp(0.1, 0.9))
}

/// Decision `k` of faction `f` in round `round`: every option with its weight, a weighted
/// pick (in its own part), and its effects (in another).
fn decide(s: &mut S, key: u64, round: u64, k: u64, f: usize) -> u64 {
    let mut rng = part(key, round, 1, f as u64, k, PICK);
    // (action, target, weight), in the scenario's action order.
    let mut opts = [(0u8, 0usize, 0f64); 2 + 2 * N + 1];
    let mut n = 0;
    let mut push = |a: u8, t: usize, w: f64| {
        opts[n] = (a, t, w);
        n += 1;
    };
    push(0, f, 3.0 + s.skill[f] as f64 / 2.0);
    push(1, f, 2.0);
    for t in 0..N {
        if t != f && s.planets[t] > 1 {
            push(2, t, 0.4);
        }
    }
    if s.mecatol == 0 && s.fleet[f] >= 3 {
        push(3, f, (2 + s.skill[f]) as f64);
    }
    if s.fleet[f] >= 3 {
        for t in 0..N {
            if t != f && s.mecatol == t as i64 + 1 {
                push(4, t, 1.5);
            }
        }
    }
    let opts = &opts[..n];
    let total: f64 = opts.iter().map(|o| o.2).sum();
    let mut x = rng.random::<f64>() * total;
    let mut chosen = opts[n - 1];
    for o in opts {
        if x < o.2 {
            chosen = *o;
            break;
        }
        x -= o.2;
    }
    let (a, t, _) = chosen;
    let rng = &mut part(key, round, 1, f as u64, k, ACT);
    let draws = 1 + (a != 1) as u64;
    match a {
        0 => s.planets[f] += bernoulli(rng, 0.8) as i64,
        1 => s.fleet[f] += 1,
        2 => {
            if battle(rng, 0.5, s.fleet[f], s.fleet[t]) {
                s.planets[t] = (s.planets[t] - 1).max(0);
                s.planets[f] += 1;
                s.fleet[t] = (s.fleet[t] - 1).max(0);
            } else {
                s.fleet[f] = (s.fleet[f] - 1).max(0);
            }
        }
        3 => {
            if bernoulli(rng, 0.6) {
                s.mecatol = f as i64 + 1;
                s.add_vp(f, 1);
            }
        }
        _ => {
            if battle(rng, 0.4, s.fleet[f], s.fleet[t]) {
                s.mecatol = f as i64 + 1;
            } else {
                s.fleet[f] = (s.fleet[f] - 1).max(0);
            }
        }
    }
    draws
}

/// Faction `f`'s status phase (its turn's end part); returns the draws it made.
fn status(s: &mut S, key: u64, round: u64, f: usize) -> u64 {
    let rng = &mut part(key, round, 2, f as u64, 0, END);
    let mut draws = 0;
    let mut gain = 0;
    if s.s1[f] < s.rev1
        && {
            draws += 1;
            true
        }
        && bernoulli(
            rng,
            (0.45 + 0.04 * s.skill[f] as f64 + 0.02 * s.planets[f] as f64).clamp(0.0, 0.95),
        )
    {
        gain = 1;
    }
    if s.s2[f] < s.rev2
        && s.planets[f] >= 5
        && {
            draws += 1;
            true
        }
        && bernoulli(rng, (0.25 + 0.04 * s.skill[f] as f64).clamp(0.0, 0.95))
    {
        gain = 2;
    }
    if gain == 1 {
        s.s1[f] += 1;
    }
    if gain == 2 {
        s.s2[f] += 1;
    }
    // The goal is checked when the faction's status effects end (one moment): its secret
    // objective is still rolled, though the VP track is capped at the goal.
    s.add_vp(f, gain);
    let secret = if s.secrets[f] < 3 {
        draws += 1;
        bernoulli(rng, 0.30) as i64
    } else {
        0
    };
    s.secrets[f] = (s.secrets[f] + secret).min(3);
    s.add_vp(f, secret);
    if s.initiative[f] == N as i64 && s.mecatol == f as i64 + 1 {
        s.add_vp(f, 1);
    }
    draws
}

/// Plays game `game` of master seed `seed`.
pub fn play(seed: u64, game: u64) -> Game {
    let key = mix64(mix64(seed ^ 0x7670_7369_6d2d_6b65) ^ game.wrapping_mul(GAMMA));
    let mut draws = 0;
    let mut s = S {
        planets: [3; N],
        fleet: [2; N],
        rev1: 2,
        stage1_left: 3,
        stage2_left: 5,
        ..S::default()
    };
    // Setup: each variable's value for each owner in a part of its own (`skill` is the
    // second variable, `speaker` the twelfth).
    for f in 0..N {
        s.skill[f] = part(key, 0, SETUP, f as u64, 1, 0).random_range(1..=5i64);
    }
    s.speaker = part(key, 0, SETUP, 0, 11, 0).random_range(1..=N as i64);
    draws += N as u64 + 1;
    let mut round = 0;
    while round < 12 && s.ended.is_none() {
        round += 1;
        let r = round as u64;
        // Strategy: initiative is a random permutation (stable sort: ties by seat).
        let rng = &mut part(key, r, 0, GLOBAL, 0, 0);
        let keys: [f64; N] = std::array::from_fn(|_| rng.random::<f64>());
        draws += N as u64;
        let mut order = [0, 1, 2, 3, 4, 5];
        order.sort_by(|&a, &b| keys[a].partial_cmp(&keys[b]).unwrap());
        for (pos, &f) in order.iter().enumerate() {
            s.initiative[f] = pos as i64 + 1;
        }
        s.priority = s.initiative;
        if let Some(f) = (0..N).find(|&f| s.initiative[f] == 3) {
            s.speaker = f as i64 + 1;
        }
        // Action: two decisions each, in initiative order.
        'action: for f in s.by_initiative() {
            for k in 0..2 {
                if s.ended.is_some() {
                    break 'action;
                }
                draws += decide(&mut s, key, r, k, f);
            }
        }
        if s.ended.is_some() {
            break;
        }
        // Status, in initiative order.
        for f in s.by_initiative() {
            if s.ended.is_some() {
                break;
            }
            draws += status(&mut s, key, r, f);
        }
        if s.ended.is_some() {
            break;
        }
        // Reveal: stage I first, then stage II; none left ends the game.
        let rng = &mut part(key, r, 3, GLOBAL, 0, 0);
        draws += (s.stage1_left + s.stage2_left > 0) as u64;
        if s.stage1_left > 0 {
            rng.random_range(0..s.stage1_left);
            s.stage1_left -= 1;
            s.rev1 += 1;
        } else if s.stage2_left > 0 {
            rng.random_range(0..s.stage2_left);
            s.stage2_left -= 1;
            s.rev2 += 1;
        } else {
            s.ended = Some(End::SpeakerCannotReveal);
            break;
        }
        // Agenda, once the custodians token is taken.
        if s.mecatol > 0 {
            for f in 0..N {
                s.priority[f] = (f as i64 + 1 - s.speaker + N as i64) % N as i64;
            }
            draws += 1;
            if bernoulli(&mut part(key, r, 4, GLOBAL, 0, 0), 0.15) {
                let top = *s.vp.iter().max().unwrap();
                let mut changed = false;
                for f in 0..N {
                    if s.vp[f] == top && s.vp[f] < GOAL {
                        s.vp[f] += 1;
                        changed = true;
                    }
                }
                if changed {
                    s.check();
                }
            }
        }
    }
    // Most VP wins; ties go to the lowest priority.
    let winner = (0..N)
        .max_by_key(|&f| (s.vp[f], -s.priority[f]))
        .unwrap_or(0);
    Game {
        winner,
        end: s.ended.unwrap_or(End::RoundLimit),
        rounds: round,
        vp: s.vp,
        draws,
    }
}
