//! Searching agents you can trust, through the binary: hidden information stays hidden
//! (a face-down variable, a card in an opponent's hand, matching pennies in seat order),
//! each against its exact honest value computed here, and the clairvoyant value back when
//! the scenario declares everything visible; the tree search escaping a planning trap that
//! flat Monte Carlo falls into (exact values by dynamic programming); results that do not
//! depend on the order actions are declared in; the work of a search, linear in the game's
//! length with a horizon; identical results across threads, shards and engines for both
//! searches; and what `validate` says a faction cannot see.

use crate::util::{
    SAFE_OR_RISKY, json_of, near, rate_of, same_everywhere, temp_scenario, vpsim_output,
};

/// A face-down die: A guesses low (1-2) or high (3-6) without seeing it.
const FACE_DOWN: &str = r#"
[scenario]
name = "face_down"
rounds = 1

[[faction]]
name = "A"
[[faction]]
name = "B"

[[var]]
name = "face"
scope = "global"
init = "d6"
visible = "none"
prior = "d6"

[[var]]
name = "vp"

[[action]]
name = "guess_low"
factions = ["A"]
effects = ["if face <= 2: vp += 1 else: B.vp += 1"]

[[action]]
name = "guess_high"
factions = ["A"]
effects = ["if face >= 3: vp += 1 else: B.vp += 1"]

[[phase]]
name = "guess"
each = "faction"
actions = 1

[ranking]
score = "vp"
"#;

/// B takes a card into its hand (4 high, 1 low); A then guesses which kind it is.
pub(crate) const HELD_CARD: &str = r#"
[scenario]
name = "held_card"
rounds = 1

[[faction]]
name = "A"
[[faction]]
name = "B"

[[var]]
name = "vp"
[[var]]
name = "g"

[[deck]]
name = "hand"
cards = [{ name = "high", count = 4, attrs = { hi = 1 } }, { name = "low", count = 1, attrs = { hi = 0 } }]

[[phase]]
name = "deal"
each = "faction"
effects = ["if seat == 2: take hand"]

[[action]]
name = "guess_low"
factions = ["A"]
effects = ["g = 0"]

[[action]]
name = "guess_high"
factions = ["A"]
effects = ["g = 1"]

[[phase]]
name = "guess"
each = "faction"
actions = 1

[[phase]]
name = "reveal"
each = "faction"
effects = ["for held hand: if card.hi == A.g: A.vp += 1 else: vp += 1"]

[ranking]
score = "vp"
"#;

/// Matching pennies in seat order: A picks first and keeps its pick to itself; A wins on a
/// match, B on a mismatch.
const PENNIES: &str = r#"
[scenario]
name = "pennies"
rounds = 1

[[faction]]
name = "A"
[[faction]]
name = "B"

[[var]]
name = "vp"
[[var]]
name = "pick"
visible = "owner"
prior = "uniform(0, 1)"

[[action]]
name = "heads"
effects = ["pick = 1"]

[[action]]
name = "tails"
effects = ["pick = 0"]

[[phase]]
name = "pick"
each = "faction"
actions = 1

[[phase]]
name = "score"
effects = ["if A.pick == B.pick: A.vp += 1 else: B.vp += 1"]

[ranking]
score = "vp"
"#;

#[test]
fn a_searcher_cannot_see_what_the_scenario_hides() {
    // Exact honest values: the best guess's chance over what the guesser cannot see.
    let low = (1..=6).filter(|&x| x <= 2).count() as f64 / 6.0;
    let face = low.max(1.0 - low);
    let (high_cards, low_cards) = (4.0, 1.0);
    let held = f64::max(high_cards, low_cards) / (high_cards + low_cards);
    // B's pick against A's even random pick: each of B's options mismatches half the time.
    let pennies = [0.0, 1.0]
        .iter()
        .map(|&b: &f64| [0.0, 1.0].iter().filter(|&&a| a != b).count() as f64 / 2.0)
        .fold(0.0, f64::max);
    for agent in ["lookahead:32", "mcts:64"] {
        let a = format!("A={agent}");
        let b = format!("B={agent}");
        near(
            &format!("face down, {agent}"),
            rate_of("search-face", FACE_DOWN, &[&a], "3000", 0),
            face,
        );
        near(
            &format!("held card, {agent}"),
            rate_of("search-held", HELD_CARD, &[&a], "3000", 0),
            held,
        );
        near(
            &format!("pennies, {agent}"),
            rate_of("search-pennies", PENNIES, &[&b], "3000", 1),
            pennies,
        );
    }
    // Declared visible, the same searches see everything and always win.
    let seen = FACE_DOWN.replace("visible = \"none\"", "visible = \"all\"");
    let all = rate_of("search-face-all", &seen, &["A=lookahead:32"], "500", 0);
    assert_eq!(all.0, 1.0, "{all:?}");
    let seen = HELD_CARD.replace("name = \"hand\"\n", "name = \"hand\"\npublic = true\n");
    let all = rate_of("search-held-all", &seen, &["A=mcts:64"], "500", 0);
    assert_eq!(all.0, 1.0, "{all:?}");
    let seen = PENNIES.replace("visible = \"owner\"", "visible = \"all\"");
    let all = rate_of("search-pennies-all", &seen, &["B=lookahead:32"], "500", 1);
    assert_eq!(all.0, 1.0, "{all:?}");
}

#[test]
fn a_hidden_value_a_searcher_must_guess_needs_a_prior() {
    let text = FACE_DOWN.replace("prior = \"d6\"\n", "");
    let searching = text.replace(
        "name = \"A\"\n",
        "name = \"A\"\nagent = { policy = \"mcts\", iterations = 10 }\n",
    );
    let path = temp_scenario("search-no-prior", &searching);
    let out = vpsim_output(&["run", path.to_str().unwrap(), "--games", "10"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    // At the variable's `visible`, line 16 of the file.
    assert!(err.contains(":16:"), "{err}");
    assert!(
        err.contains("`face` is hidden") && err.contains("add `prior"),
        "{err}"
    );
    // The same with the searching agent chosen on the command line.
    let path = temp_scenario("search-no-prior-flag", &text);
    let p = path.to_str().unwrap();
    let out = vpsim_output(&["run", p, "--agent", "A=lookahead:4", "--games", "10"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("add `prior"));
    // Without a searching faction nobody guesses: the file runs.
    let out = vpsim_output(&["run", p, "--games", "10", "--quiet"]);
    assert!(out.status.success());
    // validate lists what each faction cannot see.
    let path = temp_scenario("search-validate", PENNIES);
    let out = vpsim_output(&["validate", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  A: B's pick (prior uniform(0, 1))"),
        "{text}"
    );
    assert!(
        text.contains("  B: A's pick (prior uniform(0, 1))"),
        "{text}"
    );
    let path = temp_scenario("search-validate-deck", HELD_CARD);
    let out = vpsim_output(&["validate", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  A: the order of hand and the others' hands of it"),
        "{text}"
    );
}

/// A planning trap: A builds income (+1), cashes it in (vp += income), or cashes out
/// (+3 now, and nothing more for the rest of the game); B's score, drawn at setup from 2 to
/// 12, is hidden from A. A wins with more points than B. Under random continuation play,
/// building looks worse than it is, so flat Monte Carlo never builds and cashes out late.
const TRAP: &str = r#"
[scenario]
name = "cash_out_trap"
rounds = 8

[[faction]]
name = "A"
[[faction]]
name = "B"
init = { vp = "uniform(2, 12)" }

[[var]]
name = "vp"
visible = "owner"
prior = "uniform(2, 12)"
[[var]]
name = "income"
init = 1
[[var]]
name = "out"
flag = true

[[action]]
name = "build"
factions = ["A"]
when = "out == 0"
effects = ["income += 1"]

[[action]]
name = "cash"
factions = ["A"]
when = "out == 0"
effects = ["vp += income"]

[[action]]
name = "cash_out"
factions = ["A"]
when = "out == 0"
effects = ["vp += 3", "out = 1"]

[[action]]
name = "idle"
factions = ["A"]
when = "out == 1"
effects = []

[[phase]]
name = "turn"
each = "faction"
actions = 1

[ranking]
score = "vp"
tiebreak = ["seat"]
"#;

/// A cash-out trap's rules: A's rounds, B's hidden score drawn from `lo..=hi`, and what
/// cashing out pays.
#[derive(Clone, Copy)]
struct Trap {
    rounds: u32,
    lo: i64,
    hi: i64,
    out: i64,
}

/// A fixed policy of the trap: each option's chance (build, cash, cash out) from a state.
type TrapPolicy<'a> = &'a dyn Fn(u32, i64, i64) -> [f64; 3];

impl Trap {
    /// The scenario text: [`TRAP`] with these rules.
    fn text(self) -> String {
        TRAP.replace("rounds = 8", &format!("rounds = {}", self.rounds))
            .replace(
                "uniform(2, 12)",
                &format!("uniform({}, {})", self.lo, self.hi),
            )
            .replace("vp += 3", &format!("vp += {}", self.out))
    }

    /// A's win chance with `vp` points at the end (B wins ties).
    fn win(self, vp: i64) -> f64 {
        (self.lo..=self.hi).filter(|&b| vp > b).count() as f64 / (self.hi - self.lo + 1) as f64
    }

    /// A's exact win chance from round `r` (0-based) with `income` and `vp`, not yet
    /// cashed out, playing `policy` from there.
    fn value(self, r: u32, income: i64, vp: i64, policy: TrapPolicy) -> f64 {
        if r == self.rounds {
            return self.win(vp);
        }
        let p = policy(r, income, vp);
        p[0] * self.value(r + 1, income + 1, vp, policy)
            + p[1] * self.value(r + 1, income, vp + income, policy)
            + p[2] * self.win(vp + self.out)
    }

    /// The exact optimum (A knows its own state; B's score stays hidden).
    fn optimum(self, r: u32, income: i64, vp: i64) -> f64 {
        if r == self.rounds {
            return self.win(vp);
        }
        let build = self.optimum(r + 1, income + 1, vp);
        let cash = self.optimum(r + 1, income, vp + income);
        build.max(cash).max(self.win(vp + self.out))
    }

    /// The best fixed (state-blind) mix, on a grid of the simplex.
    fn best_mix(self) -> f64 {
        let mut best = 0.0f64;
        for a in 0..=20 {
            for b in 0..=20 - a {
                let w = [a as f64 / 20.0, b as f64 / 20.0, (20 - a - b) as f64 / 20.0];
                best = best.max(self.value(0, 1, 0, &|_, _, _| w));
            }
        }
        best
    }

    /// Flat Monte Carlo with exact playouts: at each decision the best option under random
    /// play afterwards (ties split), played to the end.
    fn flat(self) -> f64 {
        let random = |_: u32, _: i64, _: i64| [1.0 / 3.0; 3];
        let memo = std::cell::RefCell::new(std::collections::HashMap::new());
        let after_random = |r: u32, i: i64, v: i64| -> f64 {
            if let Some(&x) = memo.borrow().get(&(r, i, v)) {
                return x;
            }
            let x = self.value(r, i, v, &random);
            memo.borrow_mut().insert((r, i, v), x);
            x
        };
        let flat = |r: u32, i: i64, v: i64| {
            let vals = [
                after_random(r + 1, i + 1, v),
                after_random(r + 1, i, v + i),
                self.win(v + self.out),
            ];
            let top = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let n = vals.iter().filter(|&&x| x == top).count() as f64;
            vals.map(|x| if x == top { 1.0 / n } else { 0.0 })
        };
        self.value(0, 1, 0, &flat)
    }
}

/// The README's trap (8 rounds, B from 2 to 12, cashing out pays 3).
const EIGHT: Trap = Trap {
    rounds: 8,
    lo: 2,
    hi: 12,
    out: 3,
};

/// A deeper trap: 10 rounds, B from 10 to 34, cashing out pays 6 (its optimum needs four
/// builds, six cashes and a cash-out last: 31 points).
const TEN: Trap = Trap {
    rounds: 10,
    lo: 10,
    hi: 34,
    out: 6,
};

#[test]
fn the_tree_search_escapes_a_planning_trap_that_flat_monte_carlo_falls_into() {
    let (optimum, best_mix, exact_flat) = (EIGHT.optimum(0, 1, 0), EIGHT.best_mix(), EIGHT.flat());
    assert!(
        exact_flat < best_mix - 0.1,
        "no trap: flat {exact_flat}, mix {best_mix}"
    );
    let text = EIGHT.text();
    // The default budget plays at least the best fixed mix; 2000 iterations within 3 points
    // of the optimum.
    let (mcts, n) = rate_of("search-trap", &text, &["A=mcts"], "300", 0);
    let se = (best_mix * (1.0 - best_mix) / n as f64).sqrt();
    assert!(
        mcts > best_mix - 2.0 * se,
        "mcts won {mcts}; the best fixed mix {best_mix} (se {se}); flat {exact_flat}"
    );
    let (mcts, _) = rate_of("search-trap-2000", &text, &["A=mcts:2000"], "200", 0);
    assert!(
        mcts >= optimum - 0.03,
        "mcts:2000 won {mcts}; optimum {optimum}"
    );
    // Flat Monte Carlo with many playouts stays in the trap, below the mix.
    let (flat_rate, n) = rate_of("search-trap-flat", &text, &["A=lookahead:1024"], "300", 0);
    let se = (best_mix * (1.0 - best_mix) / n as f64).sqrt();
    assert!(flat_rate < best_mix - 2.0 * se, "flat won {flat_rate}");
}

#[test]
fn the_default_tree_search_beats_flat_monte_carlo_and_every_fixed_mix_on_a_deeper_trap() {
    let (optimum, best_mix, exact_flat) = (TEN.optimum(0, 1, 0), TEN.best_mix(), TEN.flat());
    assert!((optimum - 0.84).abs() < 1e-9, "{optimum}");
    assert!(
        best_mix < 0.3 && exact_flat < 0.63,
        "{best_mix} {exact_flat}"
    );
    let (mcts, n) = rate_of("search-trap-ten", &TEN.text(), &["A=mcts"], "600", 0);
    let se = (optimum * (1.0 - optimum) / n as f64).sqrt();
    // Above the flat limit and every fixed mix beyond noise, never above the optimum.
    assert!(
        mcts > exact_flat.max(best_mix) + 4.0 * se,
        "mcts won {mcts}; flat {exact_flat}, mix {best_mix}"
    );
    assert!(
        mcts < optimum + 4.0 * se,
        "mcts won {mcts} above the optimum {optimum}"
    );
}

#[test]
fn results_do_not_depend_on_the_order_actions_are_declared_in() {
    let safe = "[[action]]\nname = \"safe\"\neffects = [\"vp += 1\"]\n";
    let risky = "[[action]]\nname = \"risky\"\neffects = [\"vp += 4 * bernoulli(0.25)\"]\n";
    assert!(SAFE_OR_RISKY.contains(&format!("{safe}\n{risky}")));
    let reversed = SAFE_OR_RISKY.replace(&format!("{safe}\n{risky}"), &format!("{risky}\n{safe}"));
    // Two playouts an option tie often: a tie must not go to the option declared first.
    for agent in ["A=lookahead:2", "A=mcts:3", "A=greedy"] {
        let one = rate_of("search-order", SAFE_OR_RISKY, &[agent], "6000", 0);
        let two = rate_of("search-order-rev", &reversed, &[agent], "6000", 0);
        let p = (one.0 + two.0) / 2.0;
        let se = (p * (1.0 - p) * (1.0 / one.1 as f64 + 1.0 / two.1 as f64)).sqrt();
        assert!(
            (one.0 - two.0).abs() < 4.0 * se,
            "{agent}: {} declared safe first, {} risky first (se {se})",
            one.0,
            two.0
        );
    }
}

/// A race of `ROUNDS` rounds with one decision a turn for each of two factions.
fn long_race(rounds: u32, horizon: Option<u32>) -> String {
    let agent = match horizon {
        Some(h) => format!("agent = {{ policy = \"lookahead\", rollouts = 4, horizon = {h} }}\n"),
        None => "agent = { policy = \"lookahead\", rollouts = 4 }\n".to_string(),
    };
    SAFE_OR_RISKY
        .replace("rounds = 3", &format!("rounds = {rounds}"))
        .replace("name = \"A\"\n", &format!("name = \"A\"\n{agent}"))
}

/// The rounds a game's searches played, from its trace.
fn rounds_played(name: &str, text: &str) -> u64 {
    let path = temp_scenario(name, text);
    let out = vpsim_output(&["trace", path.to_str().unwrap(), "--game", "0"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let (_, tail) = l.rsplit_once(" playouts, ")?;
            tail.strip_suffix(" rounds played]")?.parse::<u64>().ok()
        })
        .sum()
}

#[test]
fn a_search_starts_at_its_decision_and_a_horizon_makes_its_work_linear() {
    // Every playout starts at its decision: the decision in round r of R plays R - r + 1
    // rounds, 2 options x 4 playouts each, so a game's searches play exactly
    // 8 * (R + ... + 1) rounds; a replay from the start would play 8 * R * R.
    for rounds in [10u64, 40] {
        let played = rounds_played("search-work", &long_race(rounds as u32, None));
        assert_eq!(played, 8 * rounds * (rounds + 1) / 2, "{rounds} rounds");
    }
    // With a horizon of 5 rounds each playout plays at most 5: linear in the game's length.
    let short = rounds_played("search-work-h100", &long_race(100, Some(5)));
    let long = rounds_played("search-work-h1000", &long_race(1000, Some(5)));
    assert_eq!(short, 8 * (5 * 96 + 4 + 3 + 2 + 1));
    assert_eq!(long, 8 * (5 * 996 + 4 + 3 + 2 + 1));
    assert!(long < 15 * short, "{short} -> {long}");
}

#[test]
fn both_searches_give_identical_results_across_threads_shards_and_engines() {
    let path = temp_scenario("search-det", HELD_CARD);
    let p = path.to_str().unwrap();
    for agents in [["A=mcts:5", "B=lookahead:3"], ["A=lookahead:3", "B=mcts:4"]] {
        let args = [p, "--agent", agents[0], "--agent", agents[1]];
        let args = [&args[..], &["--games", "60", "--seed", "9"]].concat();
        same_everywhere("search-shards", &args, 2);
    }
}

#[test]
fn trace_shows_the_root_of_a_tree_search() {
    let path = temp_scenario("search-trace", SAFE_OR_RISKY);
    // The iterations set after the policy, as every command takes them.
    let out = vpsim_output(&[
        "trace",
        path.to_str().unwrap(),
        "--agent",
        "A=mcts",
        "--set",
        "faction.A.agent.iterations=50",
        "--game",
        "1",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("mcts (50 iterations, win): "))
        .unwrap_or_else(|| panic!("{text}"));
    // Both options with their visits, which add up to the iterations.
    let visits: u32 = line
        .split(" visits")
        .filter_map(|part| part.rsplit(' ').next()?.parse::<u32>().ok())
        .sum();
    assert_eq!(visits, 50, "{line}");
    assert!(line.contains("[50 playouts, "), "{line}");
}

#[test]
fn exploit_keeps_the_configured_agent_when_nothing_beats_it() {
    // A always builds, the best play there is (building pays from the same turn and every
    // turn after): no candidate can beat it.
    let text = SAFE_OR_RISKY
        .replace("name = \"safe\"", "name = \"build\"")
        .replace("vp += 1\"]", "income += 1\"]")
        .replace("name = \"risky\"", "name = \"score\"")
        .replace("vp += 4 * bernoulli(0.25)", "vp += 2")
        .replace(
            "actions = \"1\"",
            "actions = \"1\"\neffects = [\"vp += income\"]",
        )
        .replace(
            "[[action]]\nname = \"build\"",
            "[[var]]\nname = \"income\"\n\n[[action]]\nname = \"build\"",
        )
        .replace(
            "name = \"A\"\n",
            "name = \"A\"\nagent = { policy = \"priority\", priority = [\"build\", \"score\"] }\n",
        );
    assert!(
        text.contains("income += 1") && text.contains("vp += income"),
        "{text}"
    );
    let path = temp_scenario("search-exploit-keep", &text);
    let v = json_of(&[
        "exploit",
        path.to_str().unwrap(),
        "--faction",
        "A",
        "--games",
        "300",
        "--iterations",
        "1",
        "--json",
        "--quiet",
    ]);
    let f = &v["factions"][0];
    assert_eq!(f["no_better_response"], true, "{f}");
    assert_eq!(f["beyond_noise"], false, "{f}");
    assert_eq!(f["best_response"], f["baseline"], "{f}");
    assert_eq!(f["best_response_agent"], "priority", "{f}");
    assert!(
        f["verdict"]
            .as_str()
            .unwrap()
            .contains("no better response found"),
        "{f}"
    );
}

#[test]
fn exploit_iterate_settles_on_the_known_equilibrium_of_a_dominance_game() {
    // `strong` scores one point more than `weak` whatever the other side does: the one
    // equilibrium is both sides always strong, where the die splits the ties and the
    // symmetric game gives each side half the games.
    let text = SAFE_OR_RISKY
        .replace("name = \"safe\"", "name = \"strong\"")
        .replace("vp += 1\"]", "vp += 1 + bernoulli(0.5)\"]")
        .replace("name = \"risky\"", "name = \"weak\"")
        .replace("vp += 4 * bernoulli(0.25)", "vp += bernoulli(0.5)")
        .replace("tiebreak = [\"-seat\"]", "tiebreak = [\"die\"]");
    assert!(
        text.contains("1 + bernoulli") && text.contains("[\"die\"]"),
        "{text}"
    );
    let path = temp_scenario("search-exploit-iterate", &text);
    let v = json_of(&[
        "exploit",
        path.to_str().unwrap(),
        "--games",
        "600",
        "--iterations",
        "2",
        "--iterate",
        "4",
        "--json",
        "--quiet",
    ]);
    let it = v["iterations"].as_array().unwrap();
    assert!(it.len() <= 3, "{v}");
    // Against random play both sides gain by always playing strong, and adopt it.
    for f in it[0]["factions"].as_array().unwrap() {
        assert_eq!(f["beyond_noise"], true, "{f}");
        assert!(f["lift"]["low"].as_f64().unwrap() > 0.0, "{f}");
    }
    assert_eq!(v["settled"], true, "{v}");
    for f in it.last().unwrap()["factions"].as_array().unwrap() {
        assert_eq!(f["beyond_noise"], false, "{f}");
    }
    let profile = v["profile"].as_array().unwrap();
    for p in profile {
        assert_eq!(p["agent"], "mix: strong 1.00", "{p}");
        let win = p["win"]["rate"].as_f64().unwrap();
        assert!((0.45..0.55).contains(&win), "half the games each: {p}");
    }
    let e = &v["exploitability"];
    assert!(
        e["low"].as_f64().unwrap() <= 0.0,
        "nothing left to gain: {e}"
    );
}
