//! Games per second on the TI4 scenario, side by side, one thread: the random-draw floor (a
//! loop that derives the same per-game streams and makes the same number of draws with no
//! game logic), the hand-written Rust program of the same model (`ti4_reference.rs`, which
//! plays the same games), the interpreter, and the native engine.
//!
//! Run: `cargo bench --bench games`. One thread; multiply by cores for `vpsim run`.
#![allow(clippy::print_stderr, reason = "a bench prints what it measured")]

#[allow(unreachable_pub, reason = "pub where the file is its own bench target")]
mod ti4_reference;

use divan::{Bencher, black_box, counter::ItemsCount};
use rand::Rng as _;
use vpsim::engine::Game;
use vpsim::rng::game_rng;

const GAMES: u64 = 2_000;
const SEED: u64 = 2026;

fn main() {
    divan::main();
}

fn ti4() -> vpsim::Model {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/twilight_imperium_4.toml"
    );
    vpsim::scenario::load(std::path::Path::new(path)).expect("the TI4 scenario compiles")
}

/// Random draws each game of the batch makes (the hand-written program counts them; it
/// plays vpsim's games draw for draw).
fn draws_per_game() -> Vec<u64> {
    (0..GAMES)
        .map(|i| ti4_reference::play(SEED, i).draws)
        .collect()
}

#[divan::bench(sample_count = 20)]
fn ti4_interp(bencher: Bencher) {
    let m = ti4();
    games(bencher, &m);
}

#[divan::bench(sample_count = 20)]
fn ti4_native(bencher: Bencher) {
    let mut m = ti4();
    let r = vpsim::native::compile_model(&mut m).expect("the host is supported");
    eprintln!(
        "(native: {} functions compiled in {:.1} ms)",
        r.functions,
        r.elapsed.as_secs_f64() * 1e3
    );
    games(bencher, &m);
}

#[divan::bench(sample_count = 20)]
fn ti4_hand_written(bencher: Bencher) {
    bencher.counter(ItemsCount::new(GAMES)).bench_local(|| {
        for i in 0..GAMES {
            black_box(ti4_reference::play(SEED, i));
        }
    });
}

fn games(bencher: Bencher, m: &vpsim::Model) {
    let mut g = Game::new(m);
    bencher.counter(ItemsCount::new(GAMES)).bench_local(|| {
        for i in 0..GAMES {
            black_box(g.play(SEED, i).expect("no faults"));
        }
    });
}

#[divan::bench(sample_count = 20)]
fn rng_floor(bencher: Bencher) {
    let draws = draws_per_game();
    let total: u64 = draws.iter().sum();
    eprintln!("(floor: {:.1} draws per game)", total as f64 / GAMES as f64);
    bencher.counter(ItemsCount::new(GAMES)).bench_local(|| {
        let mut acc = 0u64;
        for (i, &w) in draws.iter().enumerate() {
            let mut rng = game_rng(SEED, i as u64);
            for _ in 0..w {
                acc ^= rng.next_u64();
            }
        }
        black_box(acc)
    });
}
