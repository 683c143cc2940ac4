//! The "why" summary on a scenario with three planted causes (tests/data/planted.toml): a
//! strong action for one faction, a seat edge and a trap card. The summary names exactly
//! those (and the factions' edges they make), flags a rare difference, and names nothing
//! beyond noise when nothing is planted.

use crate::util::vpsim_output;

const PLANTED: &str = "tests/data/planted.toml";

/// The lines of the terminal's "why" section of a run with `extra` arguments.
fn why(extra: &[&str]) -> Vec<String> {
    let mut args = vec!["run", PLANTED, "--games", "40000", "--quiet", "--usage"];
    args.extend_from_slice(extra);
    let out = vpsim_output(&args);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let start = text.find("why: ").expect("a why section");
    (text[start..].lines().skip(1))
        .take_while(|l| !l.is_empty())
        .map(|l| l.trim_start_matches("  - ").to_string())
        .collect()
}

#[test]
fn the_summary_names_exactly_the_planted_causes() {
    let lines = why(&["--rotate-seats", "--out", "target/why-planted", "--force"]);
    let common: Vec<&String> = lines.iter().filter(|l| !l.contains("Rare:")).collect();
    let starts = |p: &str| common.iter().filter(|l| l.starts_with(p)).count();
    assert_eq!(starts("trade: Merchants wins more"), 1, "{lines:#?}");
    assert_eq!(
        starts("card royal_charter (charters): every faction wins less"),
        1,
        "{lines:#?}"
    );
    assert_eq!(starts("Seats, whoever sits there"), 1, "{lines:#?}");
    let seats = common.iter().find(|l| l.starts_with("Seats")).unwrap();
    assert!(
        seats.contains("): seat 2 +"),
        "the surest seat edge is seat 2's: {seats}"
    );
    // The Merchants' edge over the fair share, averaged over the seats, is the strong
    // action's; nothing else is named.
    let factions = common
        .iter()
        .find(|l| l.starts_with("Factions averaged over every seat"));
    assert!(
        factions.is_some_and(|l| l.contains("): Merchants +")),
        "{lines:#?}"
    );
    assert_eq!(common.len(), 4, "only the planted causes: {lines:#?}");
    // The Merchants almost always produce: a difference from the few games they never did
    // is flagged rare and ranked after the others.
    let rare = lines.iter().position(|l| l.contains("Rare:"));
    if let Some(i) = rare {
        assert!(i >= 4, "{lines:#?}");
        assert!(lines[i].starts_with("produce:"), "{lines:#?}");
    }
    // report.md carries the same summary, names as code.
    let md = std::fs::read_to_string("target/why-planted/report.md").unwrap();
    let head = &md[..md.find("## Win rates").unwrap()];
    assert!(head.contains("## Why"), "{head}");
    assert!(head.contains("- `trade`: Merchants wins more"), "{head}");
    assert!(
        head.contains("Associations under the agents' play, not effects"),
        "{head}"
    );
}

#[test]
fn without_rotation_the_seat_and_the_faction_are_not_told_apart() {
    let lines = why(&[]);
    let factions = lines
        .iter()
        .find(|l| l.starts_with("Factions each from its own seat"));
    assert!(
        factions.is_some_and(|l| l.contains("run with --rotate-seats")),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.starts_with("Seats")), "{lines:#?}");
}

#[test]
fn nothing_planted_names_nothing_beyond_noise() {
    let lines = why(&[
        "--rotate-seats",
        "--set",
        "faction.Merchants.settings.trade_gain=1",
        "--set",
        "settings.seat_bonus=0",
        "--set",
        "settings.trap=0",
    ]);
    let common: Vec<&String> = lines.iter().filter(|l| !l.contains("Rare:")).collect();
    assert_eq!(common.len(), 1, "{lines:#?}");
    assert!(
        common[0].starts_with("No faction, seat, action or card differs beyond noise"),
        "{lines:#?}"
    );
}
