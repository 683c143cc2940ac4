//! `vpsim tune` through the binary: a known answer computed exactly, several parameters, the
//! report folder, the trials within noise of the best, a whole-number parameter that no whole
//! value fits, and bad input.

use serde_json::Value;

use crate::util::{first_seat_wins, fresh_temp_dir, temp_scenario, vpsim, vpsim_output};

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
    // Two parameters draw one map of the trials (x and y the parameters, colored by the
    // loss, the chosen pair ringed), not a panel per parameter.
    let svg = std::fs::read_to_string(dir.join("tune.svg")).unwrap();
    assert!(svg.contains("ringed: the chosen pair"), "{svg}");
    assert!(svg.contains("settings.p") && svg.contains("settings.q"));
    assert!(svg.contains("(lower is better)"));
    assert_eq!(svg.matches("<circle").count(), 2 * 12 + 1, "{svg}");
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

/// The first seat's score is the whole-number setting `k`, and nothing is random: its mean
/// score is exactly `k`, so `mean_score(First) = 2.5` lies between two whole values.
const STEPS: &str = r#"
[scenario]
name = "steps"
rounds = 1

[settings]
k = 1

[[faction]]
name = "First"
init = { vp = "k" }

[[faction]]
name = "Second"

[[var]]
name = "vp"

[[phase]]
name = "idle"
each = "faction"
effects = ["vp += 0"]

[ranking]
score = "vp"
tiebreak = ["-seat"]
"#;

/// A goal a whole value meets: the answer names it, and the chart marks it (not the
/// search's lowest loss) as meeting the goal.
#[test]
fn a_whole_value_that_meets_the_goal_is_the_answer_and_what_the_chart_marks() {
    let dir = fresh_temp_dir("tune-whole-met");
    let file = dir.join("steps.toml");
    std::fs::write(&file, STEPS).unwrap();
    let out_dir = dir.join("out");
    let args = [
        "--param",
        "settings.k=0:6",
        "--goal",
        "mean_score(First) = 3",
        "--games",
        "200",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let out = tune(&file, &args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let head: Vec<&str> = text.lines().take(3).collect();
    assert!(
        head.iter()
            .any(|l| l.starts_with("answer: settings.k = 3 meets the goal within noise")),
        "{text}"
    );
    let svg = std::fs::read_to_string(out_dir.join("tune.svg")).unwrap();
    assert!(
        svg.contains("meets the goal (confirmation)"),
        "the chart's key"
    );
    assert!(!svg.contains("chosen (confirmation)"), "the chart's key");
}

#[test]
fn a_whole_number_parameter_that_no_whole_value_fits_says_so() {
    let file = fresh_temp_dir("tune-whole").join("steps.toml");
    std::fs::write(&file, STEPS).unwrap();
    let args = [
        "--param",
        "settings.k=0:6",
        "--goal",
        "mean_score(First) = 2.5",
        "--games",
        "200",
    ];
    let out = tune(&file, &args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    for says in [
        "settings.k takes whole values: the goal metric crosses 2.5 near 2.5000",
        "  settings.k = 2: 2.0000 [2.0000, 2.0000], the goal is outside: not met beyond noise",
        "  settings.k = 3: 3.0000 [3.0000, 3.0000], the goal is outside: not met beyond noise",
        "no whole value of settings.k meets the goal: the metric passes 2.5 between 2 and 3",
        // 2 and 3 are equally far from 2.5: neither is better.
        "trials within noise of the best, trial 3 (settings.k = 3): trial 4 (settings.k = 2)",
        // The answer heads the table: what the whole values say, not the search's best.
        "answer: no whole value of settings.k meets the goal; it is passed between 2 and 3",
        "lowest loss in the search: settings.k = 3",
    ] {
        assert!(text.contains(says), "missing `{says}`:\n{text}");
    }
    assert!(!text.contains("\nbest: "), "{text}");
    // No real-valued interval for a value the parameter cannot take, and no advice that more
    // games could find one.
    assert!(!text.contains("95% interval ["), "{text}");
    assert!(!text.contains("more --games"), "{text}");
    let out = tune(&file, &[&args[..], &["--json"][..]].concat());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["interval"].is_null(), "{v}");
    let w = &v["whole_values"];
    assert_eq!(w["verdict"], "no_whole_value");
    let sides: Vec<(i64, bool)> = w["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["value"].as_i64().unwrap(),
                s["goal_met"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(sides, [(2, false), (3, false)]);
}

#[test]
fn trials_within_noise_of_the_best_are_named() {
    let file = race_file("noise");
    let dir = file.parent().unwrap().join("report");
    let out = tune(
        &file,
        &[
            "--param",
            "settings.q=0.1:0.6",
            "--goal",
            "win_rate(First) - win_rate(Second) = 0",
            "--games",
            "2000",
            "--evals",
            "8",
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
    let v: Value = serde_json::from_slice(&std::fs::read(dir.join("tune.json")).unwrap()).unwrap();
    let trials = v["trials"].as_array().unwrap();
    let best = v["best_trial"].as_u64().unwrap() as usize;
    let named: Vec<usize> = v["indistinguishable"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["trial"].as_u64().unwrap() as usize)
        .collect();
    assert!(!named.is_empty(), "{text}");
    // The criterion: the 95% intervals of |metric - 0| overlap the best trial's.
    let loss = |t: &Value| {
        let m = &t["metric"];
        let (lo, hi) = (m["low"].as_f64().unwrap(), m["high"].as_f64().unwrap());
        if lo <= 0.0 && 0.0 <= hi {
            (0.0, hi.max(-lo))
        } else {
            (lo.abs().min(hi.abs()), lo.abs().max(hi.abs()))
        }
    };
    let (blo, bhi) = loss(&trials[best - 1]);
    for (i, t) in trials.iter().enumerate().filter(|(i, _)| i + 1 != best) {
        let (lo, hi) = loss(t);
        assert_eq!(
            named.contains(&(i + 1)),
            lo <= bhi && blo <= hi,
            "trial {}: {text}",
            i + 1
        );
    }
    // The terminal names them, with the criterion; report.md marks them in its table.
    let line = text
        .lines()
        .find(|l| l.starts_with("trials within noise of the best, "))
        .unwrap_or_else(|| panic!("no within-noise line:\n{text}"));
    assert!(
        line.contains(&format!("trial {best} (settings.q = ")),
        "{line}"
    );
    for n in &named {
        assert!(
            line.contains(&format!("trial {n} (settings.q = ")),
            "{line}"
        );
    }
    assert!(
        text.contains("95% interval of |goal metric - 0| overlaps the best's"),
        "{text}"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert_eq!(md.matches("| within noise |").count(), named.len(), "{md}");
    assert_eq!(md.matches("| best |").count(), 1, "{md}");
}

#[test]
fn a_best_on_a_bound_of_several_parameters_is_flagged() {
    // First wins 60% only with p past 0.3: the best trial sits on p's upper bound.
    let out = vpsim_output(&[
        "tune",
        "scenarios/race_to_three.toml",
        "--param",
        "settings.p=0.1:0.3",
        "--param",
        "settings.q=0.3:0.5",
        "--goal",
        "win_rate(First) = 0.6",
        "--games",
        "1000",
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("settings.p is at a bound of its range (0.3): the best may lie past it"),
        "{text}"
    );
}

#[test]
fn no_best_is_announced_when_every_trial_is_within_noise() {
    // A setting nothing reads: every trial plays the same games, and none differs.
    let text = format!(
        "{}\n",
        include_str!("../../scenarios/race_to_three.toml")
            .replace("q = 0.4\n", "q = 0.4\nunused = 5\n")
    );
    let p = temp_scenario("tune-all-within", &text);
    let out = vpsim_output(&[
        "tune",
        p.to_str().unwrap(),
        "--param",
        "settings.unused=1:9",
        "--goal",
        "win_rate(First) = 0.5",
        "--games",
        "400",
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("no trial differs from the others beyond noise"),
        "{text}"
    );
    assert!(!text.contains("\nbest: "), "{text}");
    // Said once: not repeated as a list of every trial within noise of the best.
    assert!(!text.contains("trials within noise of the best"), "{text}");
}

/// A path the file writes as a formula (`settings = { q = "p + 0.1" }`) takes numbers everywhere `--set`
/// does: validate lists it, sweep and tune try numbers in its place, and sensitivity, which
/// has no number to step from, says what to give instead.
#[test]
fn a_formula_valued_path_is_listed_swept_and_tuned() {
    let text = RACE.replace(
        "name = \"Second\"",
        "name = \"Second\"\nsettings = { q = \"p + 0.1\" }",
    );
    let file = temp_scenario("tune-formula-path", &text);
    let f = file.to_str().unwrap();
    let out = vpsim_output(&["validate", f]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        listed.contains(
            "faction.Second.settings.q=p + 0.1   (a formula: a number given with --set replaces it)"
        ),
        "{listed}"
    );
    let sweep = vpsim_output(&[
        "sweep",
        f,
        "--param",
        "faction.Second.settings.q=0.3,0.5",
        "--games",
        "300",
    ]);
    assert!(sweep.status.success(), "{sweep:?}");
    let tune = vpsim_output(&[
        "tune",
        f,
        "--param",
        "faction.Second.settings.q=0.2:0.6",
        "--goal",
        "win_rate(First) - win_rate(Second) = 0",
        "--games",
        "300",
        "--evals",
        "6",
    ]);
    assert!(tune.status.success(), "{tune:?}");
    let sens = vpsim_output(&[
        "sensitivity",
        f,
        "--param",
        "faction.Second.settings.q",
        "--games",
        "300",
    ]);
    let err = String::from_utf8_lossy(&sens.stderr);
    assert!(!sens.status.success());
    assert!(
        err.contains("writes a formula there (`p + 0.1`)")
            && err.contains("--set faction.Second.settings.q=VALUE"),
        "{err}"
    );
}
