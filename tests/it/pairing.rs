//! What pairing is worth in `vpsim compare`, through the binary: each faction's variance
//! reduction and the one line that says it, and the games whose winner changed read
//! against what two independent games would give, so that a variant that plays the same
//! game in distribution but draws differently is never read as moving wins.

use crate::util::{json_of, temp_scenario, vpsim_output};

/// Four factions each gain 1 to 3 points a round.
const WORK: &str = r#"
[scenario]
name = "work"
rounds = 5

[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
[[faction]]
name = "D"

[[var]]
name = "vp"

[[phase]]
name = "work"
each = "faction"
effects = ["vp += uniform(1, 3)"]

[ranking]
score = "vp"
tiebreak = ["die"]
"#;

#[test]
fn a_same_distribution_variant_is_not_read_as_moving_wins() {
    let p = temp_scenario("pairing-mirror", WORK);
    let p = p.to_str().unwrap();
    // 4 - uniform(1, 3) is the same distribution, drawn the other way round.
    let mirror = "phase.work.effects=[\"vp += 4 - uniform(1, 3)\"]";
    let args = ["compare", p, "--b-set", mirror, "--games", "4000"];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    let changed = v["winner_changed"]["rate"].as_f64().unwrap();
    let apart = v["winner_changed_independent"].as_f64().unwrap();
    // Four even factions: independent games give different winners about 3 times in 4.
    assert!((apart - 0.75).abs() < 0.03, "{apart}");
    assert!(changed > 0.6, "{changed}");
    let s = v["sentence"].as_str().unwrap();
    assert!(
        s.contains("diverged") && !s.contains("moves wins"),
        "a same-distribution variant read as an effect: {s}"
    );
    // Nothing to gain from pairing drawn the other way round: a reduction near 1.
    let r = v["variance_reduction"].as_f64().unwrap();
    assert!(r < 1.5, "{r}");
}

#[test]
fn compare_says_what_pairing_was_worth() {
    let p = temp_scenario("pairing-worth", WORK);
    let p = p.to_str().unwrap();
    // One faction's extra point in the last round: the same dice, so most games agree.
    let tweak = "phase.work.effects=[\"vp += uniform(1, 3) + if(seat == 1 and round == 5, 1, 0)\"]";
    let args = ["compare", p, "--b-set", tweak, "--games", "4000"];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    for f in v["factions"].as_array().unwrap() {
        let r = f["variance_reduction"].as_f64().unwrap();
        assert!(r > 3.0, "{f}");
    }
    let mean = v["variance_reduction"].as_f64().unwrap();
    let out = vpsim_output(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    // Two significant figures: an equivalent count is no more precise.
    let x = 4000.0 * mean;
    let unit = 10f64.powi(x.log10().floor() as i32 - 1);
    let games = ((x / unit).round() * unit) as u64;
    let line = format!(
        "pairing made this comparison as precise as about {} independent games a variant",
        vpsim::stats::thousands(games)
    );
    assert!(text.contains(&line), "{line}\n{text}");
    let s = v["sentence"].as_str().unwrap();
    assert!(!s.contains("diverged"), "{s}");
}

/// Three factions take two decisions a turn among actions that throw dice, then a status
/// roll; eight rounds.
const DIG: &str = r#"
[scenario]
name = "dig"
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
name = "gold"

[[phase]]
name = "act"
each = "faction"
actions = 2

[[phase]]
name = "status"
each = "faction"
effects = ["gold += uniform(0, 2)"]

[[action]]
name = "dig"
weight = 2
effects = ["gold += uniform(1, 6)"]

[[action]]
name = "raid"
target = "other"
weight = 1
effects = ["vp += bernoulli(0.5)"]

[[action]]
name = "rest"
weight = 1

[ranking]
score = "vp + gold"
tiebreak = ["die"]
"#;

/// A trace's lines with their source locations (`[line 31]`, `[from --set ...]`) dropped:
/// what each step drew and did.
fn steps(args: &[&str]) -> Vec<String> {
    let out = vpsim_output(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split(" [").next().unwrap_or(l).to_string())
        .collect()
}

/// The `+=` steps of a trace as (round, step) pairs, values and all.
fn changes(trace: &[String]) -> Vec<(usize, String)> {
    let mut round = 0;
    let mut out = Vec::new();
    for l in trace {
        if l.starts_with("round ") {
            round += 1;
        }
        if let Some((lhs, rest)) = l.trim().split_once(" += ") {
            let by = rest.split(" -> ").next().unwrap_or(rest);
            out.push((round, format!("{lhs} += {by}")));
        }
    }
    out
}

#[test]
fn an_extra_draw_in_an_action_leaves_every_other_draw_alike() {
    let p = temp_scenario("pairing-dig", DIG);
    let p = p.to_str().unwrap();
    // `dig` throws a second die it does not use: every later pick, die and status roll
    // draws from its own part of the stream, so the game is the same game.
    let extra = "action.dig.effects=[\"gold += uniform(1, 6) + 0 * uniform(1, 6)\"]";
    for game in ["0", "1", "2", "7"] {
        let a = steps(&["trace", p, "--game", game]);
        let b = steps(&["trace", p, "--game", game, "--set", extra]);
        assert!(
            a.iter().filter(|l| l.contains(": dig")).count() > 2,
            "{a:?}"
        );
        assert_eq!(a, b, "game {game}");
    }
}

#[test]
fn a_rule_change_in_one_turn_leaves_every_other_turns_dice_alone() {
    let p = temp_scenario("pairing-turn", DIG);
    let p = p.to_str().unwrap();
    // B's status roll in round 3 throws two dice: only that turn's change differs.
    let status = "phase.status.effects=[\"gold += if(seat == 2 and round == 3, uniform(0, 2) + uniform(5, 9), uniform(0, 2))\"]";
    for game in ["0", "3", "5"] {
        let a = changes(&steps(&["trace", p, "--game", game]));
        let b = changes(&steps(&["trace", p, "--game", game, "--set", status]));
        assert_eq!(a.len(), b.len(), "game {game}");
        let differ: Vec<_> = a.iter().zip(&b).filter(|(x, y)| x != y).collect();
        assert_eq!(differ.len(), 1, "game {game}: {differ:?}");
        let ((round, step), _) = differ[0];
        assert_eq!(
            (*round, step.starts_with("B.gold += ")),
            (3, true),
            "{differ:?}"
        );
    }
}

#[test]
fn a_weight_tweak_stays_paired() {
    // Raising one action's weight changes only the decisions it wins or loses: the
    // pairing keeps most of its worth (two independent runs would need several times the
    // games).
    let p = temp_scenario("pairing-weight", DIG);
    let p = p.to_str().unwrap();
    let args = [
        "compare",
        p,
        "--b-set",
        "action.raid.weight=1.3",
        "--games",
        "4000",
    ];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    let r = v["variance_reduction"].as_f64().unwrap();
    assert!(r > 3.0, "variance reduction {r}");
}

#[test]
fn compare_with_rotated_seats_shows_a_seat_rule_as_a_seat_effect() {
    // A coin for whoever sits second, in the last round: no faction gains on average (each
    // sits second a third of the time), but seat 2 does.
    let p = temp_scenario("pairing-seat", WORK);
    let p = p.to_str().unwrap();
    let coin = "phase.work.effects=[\"vp += uniform(1, 3) + if(table_seat == 2 and round == 5, bernoulli(0.5), 0)\"]";
    let args = [
        "compare",
        p,
        "--b-set",
        coin,
        "--rotate-seats",
        "--games",
        "6000",
    ];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    let seats = v["seats"].as_array().unwrap();
    assert_eq!(seats.len(), 4, "{v}");
    let second = &seats[1];
    assert_eq!(second["seat"], 2);
    assert_eq!(second["beyond_noise"], true, "{second}");
    assert!(
        second["win_diff"]["low"].as_f64().unwrap() > 0.02,
        "{second}"
    );
    for f in v["factions"].as_array().unwrap() {
        assert!(
            f["win_diff"]["estimate"].as_f64().unwrap().abs() < 0.02,
            "{f}"
        );
    }
    let out = vpsim_output(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("B moves seats' win rates beyond noise (*): "),
        "{text}"
    );
    assert!(text.contains("seat 2 +"), "{text}");
    // Without rotation, no seat rows.
    let plain = json_of(&[
        "compare", p, "--b-set", coin, "--games", "500", "--json", "--quiet",
    ]);
    assert_eq!(plain["seats"].as_array().unwrap().len(), 0);
}

#[test]
fn sweep_says_what_pairing_neighbouring_points_was_worth() {
    let p = temp_scenario("pairing-sweep", DIG);
    let p = p.to_str().unwrap();
    let args = [
        "sweep",
        p,
        "--param",
        "action.raid.weight=1,1.3,1.6",
        "--games",
        "3000",
    ];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    let r = v["variance_reduction"].as_f64().unwrap();
    assert!(r > 2.0, "variance reduction {r}");
    let out = vpsim_output(&[&args[..], &["--quiet"]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Pairing: points are played two by two on the same games"),
        "{text}"
    );
    // The points' own results are those of a run of each.
    let alone = json_of(&[
        "run",
        p,
        "--set",
        "action.raid.weight=1.3",
        "--games",
        "3000",
        "--json",
        "--quiet",
    ]);
    for (f, w) in alone["factions"]
        .as_array()
        .unwrap()
        .iter()
        .zip(v["points"][1]["win"].as_array().unwrap())
    {
        assert_eq!(f["win"]["count"], w["count"], "{f}");
    }
}

/// `WORK` with a setting `coin` (0.5) and `bonus` more points for whoever sits second, in
/// the last round: no faction gains on average with rotated seats, but seat 2 does.
fn seat_bonus(bonus: &str) -> String {
    WORK.replace(
        "[[faction]]\nname = \"A\"",
        "[settings]\ncoin = 0.5\n\n[[faction]]\nname = \"A\"",
    )
    .replace(
        "effects = [\"vp += uniform(1, 3)\"]",
        &format!(
            "effects = [\"vp += uniform(1, 3) + if(table_seat == 2 and round == 5, {bonus}, 0)\"]"
        ),
    )
}

#[test]
fn sensitivity_with_rotated_seats_shows_a_seat_rule() {
    let text = seat_bonus("bernoulli(coin)");
    let p = temp_scenario("pairing-seat-sens", &text);
    let p = p.to_str().unwrap();
    let args = [
        "sensitivity",
        p,
        "--param",
        "settings.coin=0.5",
        "--rotate-seats",
        "--games",
        "6000",
    ];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    let up = &v["effects"][0]["up_seats"];
    assert_eq!(up.as_array().unwrap().len(), 4, "{v}");
    assert_eq!(up[1]["beyond_noise"], true, "{up}");
    assert!(up[1]["change"].as_f64().unwrap() > 0.02, "{up}");
    let out = vpsim_output(&[&args[..], &["--quiet"]].concat());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Seats move beyond noise: settings.coin"),
        "{text}"
    );
}

#[test]
fn ladder_with_rotated_seats_gives_each_seats_wins_at_each_level() {
    let text = seat_bonus("1");
    let p = temp_scenario("pairing-seat-ladder", &text);
    let p = p.to_str().unwrap();
    let args = [
        "ladder",
        p,
        "--levels",
        "weighted,greedy",
        "--rotate-seats",
        "--games",
        "4000",
    ];
    let v = json_of(&[&args[..], &["--json", "--quiet"]].concat());
    for level in v["levels"].as_array().unwrap() {
        let seats = level["seats"].as_array().unwrap();
        assert_eq!(seats.len(), 4, "{level}");
        let rate = |i: usize| seats[i]["win"]["rate"].as_f64().unwrap();
        assert!(
            rate(1) > rate(0) + 0.03 && rate(1) > rate(2) + 0.03,
            "{level}"
        );
    }
    let out = vpsim_output(&[&args[..], &["--quiet"]].concat());
    assert!(String::from_utf8_lossy(&out.stdout).contains("\nseat 2 "));
}

#[test]
fn sweep_and_tune_with_rotated_seats_give_each_seats_wins() {
    let text = seat_bonus("bernoulli(coin)");
    let p = temp_scenario("pairing-seat-sweep", &text);
    let p = p.to_str().unwrap();
    let sweep = [
        "sweep",
        p,
        "--param",
        "settings.coin=0,1",
        "--rotate-seats",
        "--games",
        "4000",
    ];
    let v = json_of(&[&sweep[..], &["--json", "--quiet"]].concat());
    let seat2 = |i: usize| v["points"][i]["seats"][1]["rate"].as_f64().unwrap();
    assert_eq!(v["points"][0]["seats"].as_array().unwrap().len(), 4, "{v}");
    assert!(seat2(1) > seat2(0) + 0.05, "{v}");
    let out = vpsim_output(&[&sweep[..], &["--quiet"]].concat());
    assert!(String::from_utf8_lossy(&out.stdout).contains("seat 2"));
    let tune = [
        "tune",
        p,
        "--param",
        "settings.coin=0:1",
        "--goal",
        "win_rate(A) = 0.25",
        "--games",
        "2000",
        "--rotate-seats",
        "--json",
        "--quiet",
    ];
    let t = json_of(&tune);
    assert_eq!(
        t["confirmation"]["seats"].as_array().unwrap().len(),
        4,
        "{t}"
    );
}

/// compare's undecided rows say, as ladder's do, how many games would settle them: the
/// interval's half-width and the games that would narrow it to the margin.
#[test]
fn an_undecided_comparison_says_the_games_that_would_settle_it() {
    let out = crate::util::vpsim_output(&[
        "compare",
        "scenarios/race_to_three.toml",
        "--b-set",
        "settings.p=0.305",
        "--games",
        "300",
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("undecided: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("First (±") && line.contains("games would narrow it to ±1 pp)"),
        "{line}"
    );
}
