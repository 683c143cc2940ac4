//! A search that never peeks, through the binary, each against its exact honest value: the
//! current card after another faction's private take is redrawn with the hand it lies in;
//! a prior that reads a hidden value is refused where it reads it; a menu that shows a
//! hidden value is respected by the determinizations (the searcher reads its menu as a
//! player does, and never plays worse than random because of it); and a missing prior is
//! located at the variable whichever flag made the faction search.

use crate::search::HELD_CARD;
use crate::util::{near, rate_of, temp_scenario, vpsim_output};

/// The held-card guess of `search.rs` (B takes a card into its hand, 4 high and 1 low; A
/// guesses which kind) whose reveal phase reads the current card, which is B's.
fn current_card() -> String {
    let reveal = "each = \"faction\"\neffects = [\"for held hand: if card.hi == A.g: A.vp += 1 else: vp += 1\"]";
    assert!(HELD_CARD.contains(reveal));
    HELD_CARD.replace(
        reveal,
        "effects = [\"if card.hi == A.g: A.vp += 1 else: B.vp += 1\"]",
    )
}

#[test]
fn the_current_card_is_redrawn_with_the_hand_it_lies_in() {
    // The best guess over B's unseen card: high, right 4 times in 5.
    let honest = 4.0 / 5.0;
    for agent in ["lookahead:32", "mcts:64"] {
        let a = format!("A={agent}");
        near(
            &format!("current card, {agent}"),
            rate_of("peek-card", &current_card(), &[&a], "2000", 0),
            honest,
        );
    }
    // With the deck public the card is seen, and the same search always wins.
    let seen = current_card().replace("name = \"hand\"\n", "name = \"hand\"\npublic = true\n");
    let all = rate_of("peek-card-public", &seen, &["A=mcts:64"], "300", 0);
    assert_eq!(all.0, 1.0, "{all:?}");
}

/// A die rolled face down; A guesses low or high.
const FACE: &str = r#"
[scenario]
name = "face_prior"
rounds = 1

[[faction]]
name = "A"
agent = { policy = "mcts", iterations = 16 }
[[faction]]
name = "B"

[[var]]
name = "face"
scope = "global"
init = "d6"
visible = "none"
prior = "PRIOR"

[[var]]
name = "vp"

[[action]]
name = "guess_low"
factions = ["A"]
effects = ["if face <= 3: vp += 1 else: B.vp += 1"]

[[action]]
name = "guess_high"
factions = ["A"]
effects = ["if face >= 4: vp += 1 else: B.vp += 1"]

[[phase]]
name = "guess"
each = "faction"
actions = 1

[ranking]
score = "vp"
"#;

/// The error `vpsim validate` gives for `text`: its exit code and its stderr.
fn refused(name: &str, text: &str) -> (Option<i32>, String) {
    let path = temp_scenario(name, text);
    let out = vpsim_output(&["validate", path.to_str().unwrap()]);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// `line:col` of the first `needle` after the line holding `after` in `text`.
fn where_in(text: &str, after: &str, needle: &str) -> String {
    let start = text.find(after).unwrap();
    let at = start + text[start..].find(needle).unwrap();
    let line = text[..at].matches('\n').count() + 1;
    let col = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + 1;
    format!(":{line}:{col}:")
}

#[test]
fn a_prior_may_read_only_what_every_faction_sees() {
    // The hidden value itself, or a formula of it: refused at the name, whatever searches.
    for prior in ["face", "7 - face", "min(face, 3)"] {
        let text = FACE.replace("PRIOR", prior);
        let (code, err) = refused("peek-prior-self", &text);
        assert_eq!(code, Some(2), "{prior}: {err}");
        let at = where_in(&text, "prior = ", "face");
        assert!(err.contains(&at), "{prior}: not at {at}: {err}");
        assert!(
            err.contains("the prior of `face` reads `face` itself")
                && err.contains("visible = \"all\""),
            "{prior}: {err}"
        );
        // Without a searching faction too: a prior is never allowed to peek.
        let text = text.replace("agent = { policy = \"mcts\", iterations = 16 }\n", "");
        assert_eq!(refused("peek-prior-plain", &text).0, Some(2));
    }
    // Another hidden value, declared after it (no declaration order may matter).
    let text = FACE.replace("PRIOR", "d6 + bias - bias").replace(
        "[[var]]\nname = \"vp\"",
        "[[var]]\nname = \"bias\"\nscope = \"global\"\ninit = \"d2\"\nvisible = \"none\"\nprior = \"d2\"\n\n[[var]]\nname = \"vp\"",
    );
    let (code, err) = refused("peek-prior-other", &text);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains(&where_in(&text, "prior = \"d6", "bias")),
        "{err}"
    );
    assert!(err.contains("reads `bias`, which is hidden"), "{err}");
    // The current card, which may lie in a hand.
    let text = FACE.replace("PRIOR", "card.hi").replacen(
        "[[action]]",
        "[[deck]]\nname = \"pile\"\ncards = [{ name = \"x\", count = 2, attrs = { hi = 1 } }]\n\n[[action]]",
        1,
    );
    let (code, err) = refused("peek-prior-card", &text);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("reads the current card"), "{err}");
    // What every faction sees is allowed: a die, settings, round, a visible variable.
    let text = FACE.replace("PRIOR", "if(round > 0, d6, 1) + A.vp * 0");
    let (code, err) = refused("peek-prior-fine", &text);
    assert_eq!(code, Some(0), "{err}");
}

/// A face-down die; A may always guess low (right on 1 to 4), and may guess high only when
/// the die shows 5 or 6 (the menu shows it): a player who reads the menu always wins.
const MENU: &str = r#"
[scenario]
name = "menu_shows"
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
effects = ["if face <= 4: vp += 1 else: B.vp += 1"]

[[action]]
name = "guess_high"
factions = ["A"]
when = "face >= 5"
effects = ["if face >= 5: vp += 1 else: B.vp += 1"]

[[phase]]
name = "guess"
each = "faction"
actions = 1

[ranking]
score = "vp"
"#;

#[test]
fn a_searcher_reads_its_menu_as_a_player_does() {
    // Random play takes guess_high half the times it is offered (a third of the games).
    let random = 4.0 / 6.0 + 2.0 / 6.0 * 0.5;
    let (rate, n) = rate_of("peek-menu-random", MENU, &[], "3000", 0);
    near("random play", (rate, n), random);
    // validate says the menu shows a hidden value.
    let path = temp_scenario("peek-menu-validate", MENU);
    let out = vpsim_output(&["validate", path.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  a menu reads a hidden value"), "{text}");
    // Reading the menu, a player always wins; so does every search, at any budget.
    for agent in ["lookahead:8", "lookahead:32", "mcts:16", "mcts:64"] {
        let a = format!("A={agent}");
        let (rate, n) = rate_of("peek-menu", MENU, &[&a], "1500", 0);
        assert_eq!((rate, n), (1.0, 1500), "{agent}");
    }
    // A menu that shows only part of it: guess_high (right on 5 or 6) is offered on 3 to 6.
    // Offered, the die is 3 to 6 alike, so guess_high (2 in 4) beats guess_low (1 in 4);
    // not offered, guess_low is right. Honest: 2/6 + 2/6; one that knew the die: 5/6.
    let part = MENU
        .replace("face <= 4: vp", "face <= 3: vp")
        .replace("when = \"face >= 5\"", "when = \"face >= 3\"");
    let honest = 4.0 / 6.0;
    for engine in ["native", "interp"] {
        for agent in ["A=lookahead:32", "A=mcts:64"] {
            let path = temp_scenario("peek-menu-part", &part);
            let args = [
                "run",
                path.to_str().unwrap(),
                "--agent",
                agent,
                "--engine",
                engine,
                "--games",
                "3000",
                "--json",
                "--quiet",
            ];
            let rate = crate::util::win_rate(&crate::util::json_of(&args), 0);
            near(&format!("partial menu, {agent}, {engine}"), rate, honest);
        }
    }
}

#[test]
fn a_missing_prior_is_located_whichever_flag_made_the_faction_search() {
    let text = FACE
        .replace("rounds = 1\n", "rounds = 1\n\n[settings]\nk = 1\n")
        .replace("prior = \"PRIOR\"\n", "")
        .replace("agent = { policy = \"mcts\", iterations = 16 }\n", "")
        .replace(
            "[[var]]\nname = \"vp\"",
            "[[var]]\nname = \"bias\"\nscope = \"global\"\nvisible = \"none\"\n\n[[var]]\nname = \"vp\"",
        );
    let path = temp_scenario("peek-no-prior", &text);
    let p = path.to_str().unwrap();
    let visible = where_in(&text, "name = \"face\"", "\"none\"");
    let bias_line = where_in(&text, "name = \"bias\"", "\"none\"");
    let bias_line = bias_line.split(':').nth(1).unwrap();
    let tune = [
        "tune",
        p,
        "--param",
        "settings.k=0:2",
        "--goal",
        "maximize win_rate(A)",
        "--agent",
        "A=lookahead:2",
        "--games",
        "20",
    ];
    let flags: [&[&str]; 6] = [
        &["run", p, "--agent", "A=lookahead:4", "--games", "10"],
        // validate --agent learns it without playing.
        &["validate", p, "--agent", "A=lookahead:4"],
        &tune,
        &["trace", p, "--agent", "A=mcts:8"],
        &["exploit", p, "--lookahead", "4", "--games", "20"],
        &["compare", p, "--b-agent", "A=mcts:8", "--games", "20"],
    ];
    for args in flags {
        let out = vpsim_output(args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&visible), "{args:?}: not at {visible}: {err}");
        assert!(
            err.contains("add `prior")
                && err.contains(&format!("`bias` (line {bias_line}) also need"))
                && !err.contains("does not take"),
            "{args:?}: {err}"
        );
    }
    let out = vpsim_output(&["run", p, "--agent", "A=lookahead:4", "--games", "10"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(since --agent A=lookahead:4)"), "{err}");
    let out = vpsim_output(flags[4]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(since --lookahead 4"), "{err}");
}
