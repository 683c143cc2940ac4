//! Games per second on the TI4 scenario, side by side, one thread: the random-draw floor (a
//! loop that derives the same per-game streams and draws the same number of 32-bit words with
//! no game logic), the hand-written Rust program of the same model (`ti4_reference.rs`, which
//! plays the same games), the interpreter, and the native engine.
//!
//! Run: `cargo bench --bench games`. One thread; multiply by cores for `vpsim run`.

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

/// 32-bit words each game of the batch consumes.
fn words_per_game(m: &vpsim::Model) -> Vec<u32> {
    let mut g = Game::new(m);
    (0..GAMES)
        .map(|i| {
            g.play(SEED, i).expect("no faults");
            g.words_used() as u32
        })
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
    let m = ti4();
    let words = words_per_game(&m);
    let total: u64 = words.iter().map(|&w| w as u64).sum();
    eprintln!("(floor: {:.1} words per game)", total as f64 / GAMES as f64);
    bencher.counter(ItemsCount::new(GAMES)).bench_local(|| {
        let mut acc = 0u32;
        for (i, &w) in words.iter().enumerate() {
            let mut rng = game_rng(SEED, i as u64);
            for _ in 0..w {
                acc ^= rng.next_u32();
            }
        }
        black_box(acc)
    });
}
