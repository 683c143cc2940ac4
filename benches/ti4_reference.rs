//! A hand-written Rust program of the TI4 model: the native reference of the benches.
//!
//! The same rules, agents, weights and probabilities as `scenarios/twilight_imperium_4.toml`
//! at its default settings, making the same random draws in the same order from the same
//! per-game ChaCha8 stream, so that its games equal vpsim's game for game (`tests/it/reference.rs`
//! checks the first 10,000 games of a seed). It uses rand and rand_chacha only: what a
//! programmer would write for this one game, with no scenario language.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
    /// 32-bit random words drawn.
    pub words: u128,
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

fn bernoulli(rng: &mut ChaCha8Rng, p: f64) -> bool {
    rng.random_bool(p)
}

fn battle(rng: &mut ChaCha8Rng, base: f64, mine: i64, theirs: i64) -> bool {
    bernoulli(rng, (base + 0.08 * (mine - theirs) as f64).clamp(0.1, 0.9))
}

/// One agent decision of faction `f`: every option with its weight, a weighted pick, and its
/// effects.
fn decide(s: &mut S, rng: &mut ChaCha8Rng, f: usize) {
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
}

fn status(s: &mut S, rng: &mut ChaCha8Rng, f: usize) {
    let mut gain = 0;
    if s.s1[f] < s.rev1
        && bernoulli(
            rng,
            (0.45 + 0.04 * s.skill[f] as f64 + 0.02 * s.planets[f] as f64).clamp(0.0, 0.95),
        )
    {
        gain = 1;
    }
    if s.s2[f] < s.rev2
        && s.planets[f] >= 5
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
        bernoulli(rng, 0.30) as i64
    } else {
        0
    };
    s.secrets[f] = (s.secrets[f] + secret).min(3);
    s.add_vp(f, secret);
    if s.initiative[f] == N as i64 && s.mecatol == f as i64 + 1 {
        s.add_vp(f, 1);
    }
}

/// Plays game `game` of master seed `seed`.
pub fn play(seed: u64, game: u64) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(game);
    let mut s = S {
        planets: [3; N],
        fleet: [2; N],
        rev1: 2,
        stage1_left: 3,
        stage2_left: 5,
        ..S::default()
    };
    for f in 0..N {
        s.skill[f] = rng.random_range(1..=5i64);
    }
    s.speaker = rng.random_range(1..=N as i64);
    let mut round = 0;
    while round < 12 && s.ended.is_none() {
        round += 1;
        // Strategy: initiative is a random permutation (stable sort: ties by seat).
        let keys: [f64; N] = std::array::from_fn(|_| rng.random::<f64>());
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
            for _ in 0..2 {
                if s.ended.is_some() {
                    break 'action;
                }
                decide(&mut s, &mut rng, f);
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
            status(&mut s, &mut rng, f);
        }
        if s.ended.is_some() {
            break;
        }
        // Reveal: stage I first, then stage II; none left ends the game.
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
            if bernoulli(&mut rng, 0.15) {
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
        words: rng.get_word_pos(),
    }
}
