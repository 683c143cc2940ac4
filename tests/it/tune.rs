//! `vpsim tune` through the binary: a known answer computed exactly, several parameters, the
//! report folder, and bad input.

use serde_json::Value;

use crate::util::{first_seat_wins, fresh_temp_dir, vpsim};

/// Two factions race to 3 points with chances p and q each round; a same-round finish goes to
/// the first seat.
const RACE: &str = r#"
[scenario]
name = "race_pq"
rounds = 10000

[settings]
p = 0.3
q = 0.4

[[faction]]
name = "First"

[[faction]]
name = "Second"

[[var]]
name = "vp"
min = 0
max = 3

[[phase]]
name = "score"
each = "faction"
effects = ["vp += bernoulli(if(seat == 1, p, q))"]

[[end]]
name = "three"
when = "max_all(vp) >= 3"
timing = "round_end"

[ranking]
score = "vp"
tiebreak = ["-seat"]
"#;

/// Writes [`RACE`] to `race.toml` in a fresh scratch folder named after `name`.
fn race_file(name: &str) -> std::path::PathBuf {
    let path = fresh_temp_dir(&format!("tune-{name}")).join("race.toml");
    std::fs::write(&path, RACE).unwrap();
    path
}

/// The q that makes the race fair for p, exactly (bisection on the exact odds, which fall
/// as q grows).
fn fair_q(p: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..80 {
        let m = (lo + hi) / 2.0;
        if first_seat_wins(p, m) > 0.5 {
            lo = m
        } else {
            hi = m
        }
    }
    lo
}

fn tune(file: &std::path::Path, extra: &[&str]) -> std::process::Output {
    vpsim().arg("tune").arg(file).args(extra).output().unwrap()
}

#[test]
fn tune_lands_the_fair_chance_within_its_own_interval() {
    let file = race_file("fair");
    let args = [
        "--param",
        "settings.q=0.1:0.6",
        "--goal",
        "win_rate(First) - win_rate(Second) = 0",
        "--games",
        "20000",
        "--seed",
        "11",
        "--json",
    ];
    let out = tune(&file, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let exact = fair_q(0.3);
    assert!((first_seat_wins(0.3, exact) - 0.5).abs() < 1e-12);
    let best = v["best"]["settings.q"].as_f64().unwrap();
    let iv = v["interval"]["settings.q"].as_array().unwrap();
    let (lo, hi) = (iv[0].as_f64().unwrap(), iv[1].as_f64().unwrap());
    assert!(
        lo <= exact && exact <= hi,
        "exact {exact} outside [{lo}, {hi}] (best {best})"
    );
    assert!(lo < hi && hi - lo < 0.02, "[{lo}, {hi}]");
    assert_eq!(v["method"], "bisection");
    assert!(v["trials"].as_array().unwrap().len() <= 16);
    assert_eq!(v["confirmation"]["first_game"], 100_000);
    // The same seed gives the same tune.
    let again = tune(&file, &args);
    assert_eq!(out.stdout, again.stdout);
}

#[test]
fn several_parameters_are_searched_and_reported() {
    let file = race_file("two");
    let dir = file.parent().unwrap().join("report");
    let out = tune(
        &file,
        &[
            "--param",
            "settings.p=0.2:0.5",
            "--param",
            "settings.q=0.2:0.5",
            "--goal",
            "minimize abs(win_rate(First) - win_rate(Second))",
            "--games",
            "4000",
            "--evals",
            "12",
            "--quiet",
            "--out",
            dir.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("compass search") && text.contains("best: settings.p = "),
        "{text}"
    );
    for f in ["tune.json", "tune.png", "tune.svg", "report.md"] {
        assert!(dir.join(f).is_file(), "{f} missing");
    }
    let v: Value = serde_json::from_slice(&std::fs::read(dir.join("tune.json")).unwrap()).unwrap();
    assert_eq!(v["method"], "compass");
    assert_eq!(v["trials"].as_array().unwrap().len(), 12);
    let loss = |t: &Value| t["estimate"].as_f64().unwrap().abs();
    let first = loss(&v["trials"][0]["metric"]);
    let best_trial = v["trials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["values"] == v["best"])
        .expect("the best point is a tried point");
    assert!(loss(&best_trial["metric"]) <= first);
    assert!(v["interval"].is_null());
}

#[test]
fn bad_goals_and_parameters_are_usage_errors() {
    let file = race_file("bad");
    let cases: [(&[&str], &str); 5] = [
        (
            &[
                "--param",
                "settings.q=0.1:0.6",
                "--goal",
                "win_rate(First) < 0.5",
            ],
            "not a goal",
        ),
        (
            &[
                "--param",
                "settings.q=0.1:0.6",
                "--goal",
                "win_rat(First) = 0.5",
            ],
            "column 1",
        ),
        (
            &[
                "--param",
                "settings.zz=0.1:0.6",
                "--goal",
                "win_rate(First) = 0.5",
            ],
            "settings.zz",
        ),
        (
            &[
                "--param",
                "settings.q=0.6:0.1",
                "--goal",
                "win_rate(First) = 0.5",
            ],
            "LO must be below HI",
        ),
        (
            &[
                "--param",
                "settings.q=0.1:0.6",
                "--goal",
                "games / 0 = 1",
                "--games",
                "50",
            ],
            "not a finite number",
        ),
    ];
    for (args, says) in cases {
        let out = tune(&file, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}
