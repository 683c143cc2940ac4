//! The native engine against the interpreter on the seed scenarios: identical games, game by
//! game, the same worked-example reports and the same `vpsim run --json` results.
//!
//! Outcomes, faults (with their location), final states, points by source, traces and the
//! number of random words drawn must be identical. The comparison helpers here are shared by
//! the other `native_*` modules: [`native_generated`](crate::native_generated) (random
//! scenarios), [`native_lowering`](crate::native_lowering) (targeted machine-code cases) and
//! [`native_faults`](crate::native_faults) (faults).

use vpsim::engine::{Game, TextTrace};

use crate::util::{TURNS_AND_HANDS, scenario_files, vpsim, without_performance};

/// Parses `text` (named `file` in messages) twice and compiles the second copy to machine
/// code: the interpreter's model and the native one, or `None` if the scenario does not parse.
pub(crate) fn both(text: &str, file: &str) -> Option<(vpsim::Model, vpsim::Model)> {
    let interp = vpsim::scenario::parse(text, file).ok()?;
    let mut native = vpsim::scenario::parse(text, file).ok()?;
    let report = vpsim::native::compile(&mut native).expect("the host is supported");
    assert!(report.functions > 0 || native.slots == 0);
    Some((interp, native))
}

/// Plays games `0..games` of `seed` on both models and asserts they are the same games.
pub(crate) fn same_games(
    interp: &vpsim::Model,
    native: &vpsim::Model,
    seed: u64,
    games: u64,
    traced: u64,
) {
    let (mut a, mut b) = (Game::new(interp), Game::new(native));
    for i in 0..games {
        let (x, y) = (a.play(seed, i), b.play(seed, i));
        assert_eq!(x, y, "{}: game {i} of seed {seed}", interp.name);
        assert_eq!(
            a.stream_position(),
            b.stream_position(),
            "game {i}: random words"
        );
        assert_eq!(a.state().vals, b.state().vals, "game {i}: final state");
        assert_eq!(a.points(), b.points(), "game {i}: points by source");
        assert_eq!(a.leaders(), b.leaders(), "game {i}: leaders");
    }
    for i in 0..traced {
        let mut a = Game::with_tracer(interp, TextTrace::default());
        let mut b = Game::with_tracer(native, TextTrace::default());
        assert_eq!(a.play(seed, i), b.play(seed, i));
        assert_eq!(a.tracer.text, b.tracer.text, "game {i}: trace");
    }
}

/// A real formula whose value is infinity: a product past the largest real (no literal is
/// that large).
pub(crate) fn inf() -> String {
    ["1000000000000000000.0"; 18].join(" * ")
}

/// A real formula whose value is NaN: infinity minus infinity.
pub(crate) fn nan() -> String {
    let inf = inf();
    format!("({inf}) - ({inf})")
}

#[test]
fn every_seed_scenario_plays_the_same_games_on_both_engines() {
    for path in scenario_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (interp, native) = both(&text, &path.display().to_string()).unwrap();
        same_games(&interp, &native, 7, 2_000, 20);
    }
}

/// Runs every worked example on both models: each passes, with the same report.
fn same_examples(interp: &vpsim::Model, native: &vpsim::Model) {
    let (mut a, mut b) = (Game::new(interp), Game::new(native));
    for i in 0..interp.examples.len() {
        let (x, y) = (a.run_example(i), b.run_example(i));
        assert!(x.passed(), "{}: example {i}: {x:?}", interp.name);
        assert_eq!(format!("{x:?}"), format!("{y:?}"), "example {i}");
    }
}

#[test]
fn every_worked_example_passes_on_both_engines() {
    for path in scenario_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (interp, native) = both(&text, &path.display().to_string()).unwrap();
        same_examples(&interp, &native);
    }
}

/// `vpsim run --json` at 100,000 games gives the same results on both engines, apart from
/// the timings.
#[test]
fn every_seed_scenario_gives_the_same_json_on_both_engines() {
    let json = |path: &std::path::Path, engine: &str| {
        let out = vpsim()
            .args([
                "run", "--games", "100000", "--seed", "11", "--json", "--quiet",
            ])
            .args(["--engine", engine])
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        without_performance(&out.stdout)
    };
    for path in scenario_files() {
        assert_eq!(
            json(&path, "native"),
            json(&path, "interp"),
            "{}",
            path.display()
        );
    }
}

#[test]
fn leaving_mid_turn_completed_cards_and_nested_hands_match() {
    let (interp, native) = both(TURNS_AND_HANDS, "turns_and_hands.toml").unwrap();
    same_examples(&interp, &native);
    same_games(&interp, &native, 3, 200, 5);
}

/// `VPSIM_PERF_MAP` and `VPSIM_CODE_DIR` name the machine code for a profiler: the run's
/// `/tmp/perf-PID.map` lists the round and an agent's turn (start, size, name) and the folder
/// holds each function's disassembly and bytes, sized as the map says; the results are
/// those of a run without them.
#[test]
fn the_machine_code_is_named_for_a_profiler() {
    let dir = crate::util::fresh_temp_path("code-dir");
    let args = [
        "run",
        "scenarios/twilight_imperium_4.toml",
        "--games",
        "200",
        "--json",
        "--quiet",
    ];
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args(args)
        .env("VPSIM_PERF_MAP", "1")
        .env("VPSIM_CODE_DIR", &dir)
        .output()
        .unwrap();
    assert!(child.status.success());
    let plain = vpsim().args(args).output().unwrap();
    assert_eq!(
        without_performance(&child.stdout),
        without_performance(&plain.stdout)
    );
    // The map is named after the process, which the output does not say: find the one whose
    // code files are in `dir` (every entry of it has its `.bin` there).
    let maps = std::fs::read_dir("/tmp").unwrap().flatten();
    let map = maps
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().starts_with("/tmp/perf-"))
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .find(|(_, t)| {
            t.lines().next().is_some_and(|l| {
                let (at, name) = (l.split(' ').next().unwrap(), l.rsplit(':').next().unwrap());
                dir.join(format!("{at}-{name}.bin")).exists()
            })
        });
    let (path, text) = map.expect("a perf map for the run");
    for what in [
        "a_round",
        "an_agent_s_turn",
        "an_effect_list",
        "end_conditions",
    ] {
        assert!(
            text.contains(&format!("vpsim:{what}\n")),
            "{what} in {text}"
        );
    }
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let name = f[2].trim_start_matches("vpsim:");
        let size = u64::from_str_radix(f[1], 16).unwrap();
        let bin = dir.join(format!("{}-{name}.bin", f[0]));
        assert_eq!(std::fs::metadata(&bin).unwrap().len(), size, "{line}");
        assert!(bin.with_extension("s").exists(), "{line}");
    }
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_dir_all(dir);
}
