//! Skilled play through the binary: the lookahead agent against exact values computed by
//! dynamic programming, its determinism across threads, shards and engines, `exploit`
//! finding a planted dominant action and never claiming more than the exact optimum, and
//! `ladder`.

use crate::util::{SAFE_OR_RISKY, json_of, same_everywhere, temp_scenario, vpsim_output, win_rate};

/// Rounds of the safe-or-risky race.
const ROUNDS: usize = 3;

/// A's score after an option: (probability, gain).
fn gains(safe: bool) -> [(f64, usize); 2] {
    if safe {
        [(1.0, 1), (0.0, 0)]
    } else {
        [(0.25, 4), (0.75, 0)]
    }
}

/// The chance A wins when, at scores (a, b) before a round, A takes `safe` (or
/// `risky`), B then plays at random, and `next` gives the chance from the scores after.
fn after(a: usize, b: usize, safe: bool, next: &dyn Fn(usize, usize) -> f64) -> f64 {
    gains(safe)
        .iter()
        .map(|&(pa, ga)| {
            pa * [true, false]
                .iter()
                .map(|&bs| {
                    0.5 * gains(bs)
                        .iter()
                        .map(|&(pb, gb)| pb * next(a + ga, b + gb))
                        .sum::<f64>()
                })
                .sum::<f64>()
        })
        .sum()
}

/// The chance A wins from the start of round `r + 1` at scores (a, b) when A plays `policy`
/// (the chance it takes `safe` at round, a, b) and B plays at random.
fn value(r: usize, a: usize, b: usize, policy: &dyn Fn(usize, usize, usize) -> f64) -> f64 {
    if r == ROUNDS {
        return (a >= b) as u8 as f64;
    }
    let p = policy(r, a, b);
    let next = |a, b| value(r + 1, a, b, policy);
    p * after(a, b, true, &next) + (1.0 - p) * after(a, b, false, &next)
}

/// The value of option `safe` at (r, a, b) when both play at random afterwards.
fn rollout_value(r: usize, a: usize, b: usize, safe: bool) -> f64 {
    let forced = move |rr: usize, _: usize, _: usize| {
        if rr == r { safe as u8 as f64 } else { 0.5 }
    };
    value(r, a, b, &forced)
}

/// The best the state-dependent optimum can do (A's best response).
fn optimum(r: usize, a: usize, b: usize) -> f64 {
    if r == ROUNDS {
        return (a >= b) as u8 as f64;
    }
    let next = |a, b| optimum(r + 1, a, b);
    after(a, b, true, &next).max(after(a, b, false, &next))
}

#[test]
fn lookahead_wins_as_often_as_exact_flat_monte_carlo_predicts() {
    let path = temp_scenario("safe-or-risky", SAFE_OR_RISKY);
    // Flat Monte Carlo with many playouts takes the option of the better rollout value
    // (either at random on a tie) at each decision.
    let flat = |r: usize, a: usize, b: usize| {
        let (safe, risky) = (rollout_value(r, a, b, true), rollout_value(r, a, b, false));
        if safe == risky {
            0.5
        } else {
            (safe > risky) as u8 as f64
        }
    };
    let exact = value(0, 0, 0, &flat);
    let random = value(0, 0, 0, &|_, _, _| 0.5);
    let best = optimum(0, 0, 0);
    assert!(
        exact > random + 0.05 && best >= exact - 1e-12,
        "{random} {exact} {best}"
    );
    let p = path.to_str().unwrap();
    let v = json_of(&[
        "run",
        p,
        "--agent",
        "A=lookahead:256",
        "--games",
        "3000",
        "--json",
        "--quiet",
    ]);
    assert_eq!(v["factions"][0]["agent"], "lookahead(256)");
    let (rate, n) = win_rate(&v, 0);
    let se = (exact * (1.0 - exact) / n as f64).sqrt();
    assert!(
        (rate - exact).abs() < 4.0 * se,
        "lookahead won {rate}, exact flat Monte Carlo {exact} (se {se})"
    );
    // And random play agrees with its exact value.
    let v = json_of(&["run", p, "--games", "20000", "--json", "--quiet"]);
    let (rate, n) = win_rate(&v, 0);
    let se = (random * (1.0 - random) / n as f64).sqrt();
    assert!((rate - random).abs() < 4.0 * se, "{rate} against {random}");
}

#[test]
fn exploit_never_claims_more_than_the_exact_optimum() {
    let path = temp_scenario("safe-or-risky-exploit", SAFE_OR_RISKY);
    // The best state-blind mix: A takes `safe` with one fixed chance.
    let mix_best = (0..=200)
        .map(|k| {
            let p = k as f64 / 200.0;
            value(0, 0, 0, &move |_, _, _| p)
        })
        .fold(0.0, f64::max);
    let best = optimum(0, 0, 0);
    assert!(best >= mix_best);
    let v = json_of(&[
        "exploit",
        path.to_str().unwrap(),
        "--faction",
        "A",
        "--games",
        "1000",
        "--confirm",
        "6000",
        "--iterations",
        "2",
        "--json",
        "--quiet",
    ]);
    let f = &v["factions"][0];
    assert_eq!(f["name"], "A");
    let low = f["best_response"]["low"].as_f64().unwrap();
    assert!(
        low <= mix_best,
        "claimed at least {low}, the best mix wins {mix_best}"
    );
    let policy = f["policy"].as_object().unwrap();
    let total: f64 = policy.values().map(|x| x.as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-9, "{policy:?}");
    // The confirmed rate is within noise of the exact value of the mix it found.
    let p_safe = policy["safe"].as_f64().unwrap();
    let exact = value(0, 0, 0, &move |_, _, _| p_safe);
    let rate = f["best_response"]["rate"].as_f64().unwrap();
    let se = (exact * (1.0 - exact) / 6000.0).sqrt();
    assert!((rate - exact).abs() < 4.0 * se, "{rate} against {exact}");
    // With a lookahead candidate, which beats every fixed mix here: never beyond the
    // state-dependent optimum.
    let v = json_of(&[
        "exploit",
        path.to_str().unwrap(),
        "--faction",
        "A",
        "--games",
        "1000",
        "--confirm",
        "3000",
        "--iterations",
        "1",
        "--lookahead",
        "64",
        "--json",
        "--quiet",
    ]);
    let f = &v["factions"][0];
    assert_eq!(f["best_response_agent"], "lookahead(64)", "{f}");
    let low = f["best_response"]["low"].as_f64().unwrap();
    assert!(
        low <= best,
        "claimed at least {low}, the optimum wins {best}"
    );
    assert!(
        low > mix_best,
        "lookahead {low} should beat the best mix {mix_best}"
    );
}

/// Three symmetric factions; `build` (+1 income, paid every turn) dominates `score` (+2 VP).
const BUILD_OR_SCORE: &str = r#"
[scenario]
name = "build_or_score"
rounds = 8

[[faction]]
name = "A"

[[faction]]
name = "B"

[[faction]]
name = "C"

[[var]]
name = "vp"

[[var]]
name = "income"

[[action]]
name = "build"
effects = ["income += 1"]

[[action]]
name = "score"
effects = ["vp += 2"]

[[phase]]
name = "turn"
each = "faction"
actions = "1"
effects = ["vp += income"]

[ranking]
score = "vp"
tiebreak = ["-seat"]
"#;

#[test]
fn exploit_finds_a_planted_dominant_action_that_random_play_hides() {
    let path = temp_scenario("build-or-score", BUILD_OR_SCORE);
    let p = path.to_str().unwrap();
    // Random play reads as balanced: every faction near a third.
    let v = json_of(&["run", p, "--games", "6000", "--json", "--quiet"]);
    for f in 0..3 {
        let (rate, _) = win_rate(&v, f);
        assert!((rate - 1.0 / 3.0).abs() < 0.05, "faction {f}: {rate}");
    }
    let v = json_of(&[
        "exploit",
        p,
        "--faction",
        "C",
        "--games",
        "400",
        "--iterations",
        "2",
        "--json",
        "--quiet",
    ]);
    let f = &v["factions"][0];
    assert_eq!(f["beyond_noise"], true, "{f}");
    assert!(f["policy"]["build"].as_f64().unwrap() > 0.8, "{f}");
    assert!(f["shares_after"]["build"].as_f64().unwrap() > 0.8, "{f}");
    assert!(f["best_response"]["rate"].as_f64().unwrap() > 0.9, "{f}");
    // The verdict names the action whose share rose, and says that the field plays at
    // random.
    let verdict = f["verdict"].as_str().unwrap();
    assert!(verdict.contains("shift toward `build`"), "{f}");
    let rose =
        |a: &str| f["shares_after"][a].as_f64().unwrap() - f["shares_before"][a].as_f64().unwrap();
    assert!(rose("build") > 0.0, "{f}");
    assert!(
        verdict.contains("the lift measures how weak random play is"),
        "{f}"
    );
    assert!(
        f["mix_weights"].as_str().unwrap().starts_with("build "),
        "{f}"
    );
    // The lookahead agent finds it too, game by game.
    let v = json_of(&[
        "run",
        p,
        "--agent",
        "C=lookahead:8",
        "--games",
        "300",
        "--json",
        "--quiet",
    ]);
    assert!(win_rate(&v, 2).0 > 0.9, "{v}");
}

#[test]
fn lookahead_results_are_identical_across_threads_shards_and_engines() {
    let path = temp_scenario("build-or-score-det", BUILD_OR_SCORE);
    let p = path.to_str().unwrap();
    let args = [p, "--agent", "lookahead:3", "--agent", "B=weighted"];
    let args = [&args[..], &["--games", "90", "--seed", "5"]].concat();
    let one = same_everywhere("lookahead-shards", &args, 3);
    assert_eq!(one["factions"][0]["agent"], "lookahead(3)");
    assert_eq!(one["factions"][1]["agent"], "weighted");
}

#[test]
fn trace_shows_each_lookahead_decisions_option_scores() {
    let path = temp_scenario("build-or-score-trace", BUILD_OR_SCORE);
    let out = vpsim_output(&[
        "trace",
        path.to_str().unwrap(),
        "--agent",
        "A=lookahead:4",
        "--game",
        "2",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("lookahead (4 playouts an option, win): "),
        "{text}"
    );
}

#[test]
fn agent_choices_are_checked_and_shown() {
    let path = temp_scenario("build-or-score-agent", BUILD_OR_SCORE);
    let p = path.to_str().unwrap();
    let out = vpsim_output(&["run", p, "--agent", "D=lookahead", "--games", "10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("there is no faction `D`"));
    let out = vpsim_output(&["run", p, "--agent", "weighted:3", "--games", "10"]);
    assert_eq!(out.status.code(), Some(2));
    let out = vpsim_output(&[
        "run",
        p,
        "--agent",
        "A=lookahead",
        "--set",
        "faction.A.agent.rollouts=5",
        "--games",
        "20",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("agents: A lookahead(5), others weighted"),
        "{text}"
    );
}

#[test]
fn ladder_reads_how_each_faction_fares_as_skill_rises() {
    let path = temp_scenario("build-or-score-ladder", BUILD_OR_SCORE);
    let v = json_of(&[
        "ladder",
        path.to_str().unwrap(),
        "--levels",
        "weighted,lookahead:2",
        "--games",
        "150",
        "--json",
        "--quiet",
    ]);
    let levels = v["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    assert_eq!(levels[1]["factions"][0]["agent"], "lookahead(2)");
    assert_eq!(v["readings"].as_array().unwrap().len(), 3);
}

#[test]
fn every_game_playing_command_takes_agent_choices() {
    let path = temp_scenario("build-or-score-every", BUILD_OR_SCORE);
    let p = path.to_str().unwrap();
    let cases: [&[&str]; 6] = [
        &[
            "check",
            p,
            "--agent",
            "A=lookahead:2",
            "--games",
            "40",
            "--assert",
            "games == 40",
        ],
        &[
            "compare",
            p,
            "--a-agent",
            "A=lookahead:2",
            "--b-agent",
            "A=greedy",
            "--games",
            "40",
        ],
        &[
            "sweep",
            p,
            "--agent",
            "lookahead:2",
            "--param",
            "scenario.rounds=2,3",
            "--games",
            "20",
        ],
        &[
            "sensitivity",
            p,
            "--agent",
            "B=priority",
            "--set",
            "faction.B.agent.priority=[\"build\"]",
            "--param",
            "scenario.rounds",
            "--games",
            "20",
        ],
        &[
            "tune",
            p,
            "--agent",
            "A=lookahead:2",
            "--param",
            "scenario.rounds=2:6",
            "--goal",
            "minimize mean_length",
            "--games",
            "20",
            "--evals",
            "3",
        ],
        &["validate", p, "--set", "agent.policy=lookahead"],
    ];
    for args in cases {
        let out = vpsim_output(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The compare shows B's agents differ from A's.
    let out = vpsim_output(&[
        "compare",
        p,
        "--b-agent",
        "C=lookahead:4",
        "--games",
        "200",
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--agent C=lookahead:4"), "{text}");
}

#[test]
fn a_worked_example_fixes_a_lookahead_decision() {
    let text = BUILD_OR_SCORE.replace(
        "name = \"A\"\n",
        "name = \"A\"\nagent = { policy = \"lookahead\", rollouts = 4 }\n",
    ) + r#"
[[example]]
name = "a build pays from the same turn"
actor = "A"
action = "build"
expect = ["A.income == 1"]
"#;
    let path = temp_scenario("build-or-score-example", &text);
    let out = vpsim_output(&["test", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Three factions pick `good` (+2) or `bad` (+0) each round; a greedy agent always takes
/// `good` (its value is higher), a weighted one picks at random: greedy is the stronger
/// level by construction.
const GOOD_OR_BAD: &str = r#"[scenario]
name = "good_or_bad"
rounds = 4

[[faction]]
name = "A"

[[faction]]
name = "B"

[[faction]]
name = "C"

[[var]]
name = "vp"

[[action]]
name = "good"
value = "2"
effects = ["vp += 2"]

[[action]]
name = "bad"
value = "0"
effects = ["vp += bernoulli(0.5)"]

[[phase]]
name = "turn"
each = "faction"
actions = "1"

[ranking]
score = "vp"
"#;

#[test]
fn matchups_find_a_planted_stronger_level() {
    let path = temp_scenario("good-or-bad-matchups", GOOD_OR_BAD);
    let v = json_of(&[
        "ladder",
        path.to_str().unwrap(),
        "--levels",
        "weighted,greedy",
        "--matchups",
        "--games",
        "900",
        "--json",
        "--quiet",
    ]);
    let ms = v["matchups"].as_array().unwrap();
    assert_eq!(ms.len(), 2, "{v}");
    let find = |a: &str| ms.iter().find(|m| m["a"] == a).unwrap();
    let (up, down) = (find("greedy"), find("weighted"));
    assert_eq!(up["b"], "weighted");
    assert!((up["fair"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12);
    // 300 games a faction in the one place, over three factions.
    assert_eq!(up["a_win"]["n"], 900);
    assert!(up["a_win"]["low"].as_f64().unwrap() > 1.0 / 3.0, "{up}");
    assert!(
        down["a_win"]["high"].as_f64().unwrap() < 1.0 / 3.0,
        "{down}"
    );
    let readings = v["matchup_readings"].as_array().unwrap();
    assert!(
        readings[0]
            .as_str()
            .unwrap()
            .starts_with("skill against luck (greedy among weighted): skill matters"),
        "{readings:?}"
    );
}

/// report.md shows the matchups as a table of their own (rows: the one faction's level),
/// not folded into the readings' bullet list.
#[test]
fn the_ladder_report_shows_the_matchups_as_a_table() {
    let path = temp_scenario("good-or-bad-matchups-md", GOOD_OR_BAD);
    let dir = crate::util::fresh_temp_path("ladder-matchups-md");
    let out = crate::util::vpsim_output(&[
        "ladder",
        path.to_str().unwrap(),
        "--levels",
        "weighted,greedy",
        "--matchups",
        "--games",
        "90",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{out:?}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let at = md.find("## Matchups").expect("a matchups section");
    let section = &md[at..];
    assert!(
        section.contains("| one faction \\ the others | `weighted` | `greedy` |"),
        "{section}"
    );
    assert!(section.contains("\n| `greedy` | "), "{section}");
    // The terminal's matrix is not in the readings' list above it.
    assert!(
        !md[..at].contains("matchups: one faction on the row's level"),
        "{md}"
    );
}
