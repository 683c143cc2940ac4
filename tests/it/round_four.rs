//! Scenario language, round four: a faction's derived value read for a named faction reads
//! every builtin in it for that faction, a split tie rounds down or toward zero, and
//! `validate` states a ranking without tie-breaks plainly; each on both engines where it
//! plays.

use crate::util::{examples_pass_on_both, same_on_both, temp_scenario, vpsim_output};

/// A faction's derived value read for a named faction reads every faction builtin in it
/// (`seat`, `table_seat`, `side`, `player`, `eliminated`, `held`, `completed`,
/// `has_completed`) for that faction, from another faction's turn and where no faction is in
/// scope (a global phase, an example's `expect`), on both engines. Before, `B.s` with
/// `s = seat * 100 + vp` read A's seat from A's turn and did not compile in `expect`.
#[test]
fn a_derived_value_read_for_a_named_faction_reads_its_builtins() {
    let path = "tests/data/derived_owner.toml";
    examples_pass_on_both(path);
    let v = same_on_both(std::path::Path::new(path), &[]);
    // Every game plays both actions, so the peek's reading is in every score.
    assert!(v["factions"][1]["score"]["mean"].as_f64().unwrap() > 100.0);
}

/// `ties split` rounds a share that is not whole down (-6 among four is -2 each);
/// `ties split toward_zero` rounds it toward zero, the remainder ignored (-1 each), as a
/// rule that says "ignore the remainder" needs; on both engines.
#[test]
fn a_split_tie_rounds_down_or_toward_zero() {
    let text = "[scenario]\nname = \"split_round\"\nrounds = 1\n\
        [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n\
        [[faction]]\nname = \"C\"\n[[faction]]\nname = \"D\"\n\
        [[var]]\nname = \"m\"\n[[var]]\nname = \"vp\"\nmin = -100\n[[var]]\nname = \"vz\"\nmin = -100\n\
        [[phase]]\nname = \"score\"\neffects = [\
          \"award vp by m scale 5, 0, 0, -6 ties split\", \
          \"award vz by m scale 5, 0, 0, -6 ties split toward_zero\"]\n\
        [ranking]\nscore = \"vp + vz\"\n\
        [[example]]\nname = \"four tied share -1: -2 each down, -1 toward zero\"\n\
        phase = \"score\"\nexpect = [\"A.vp == -1\", \"A.vz == 0\"]\n\
        [[example]]\nname = \"three tied share -6: -2 each either way\"\n\
        given = [\"A.m = 1\"]\nphase = \"score\"\n\
        expect = [\"A.vp == 5\", \"B.vp == -2\", \"D.vp == -2\", \"A.vz == 5\", \"B.vz == -2\"]\n\
        [[example]]\nname = \"two tied share -6: -3 each either way\"\n\
        given = [\"A.m = 2\", \"B.m = 1\"]\nphase = \"score\"\n\
        expect = [\"C.vp == -3\", \"C.vz == -3\"]\n\
        [[example]]\nname = \"explicit down is the default\"\n\
        effects = [\"award vp by m scale 0, 0, 0, -6 ties split down\"]\n\
        expect = [\"A.vp == -2\"]\n";
    let path = temp_scenario("split_round", text);
    examples_pass_on_both(&path);
    same_on_both(&path, &[]);
}

/// `validate` says how the ranking breaks ties: "by score; ties shared" when no tie-break
/// follows the score (it printed "by score, then ; remaining ties shared").
#[test]
fn validate_states_a_ranking_without_tie_breaks_plainly() {
    let text = "[scenario]\nname = \"plain_rank\"\nrounds = 1\n\
        [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n\
        [[var]]\nname = \"vp\"\n[ranking]\nscore = \"vp\"\ntiebreak = []\nshared = true\n";
    let out = vpsim_output(&[
        "validate",
        temp_scenario("plain_rank", text).to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("ranking:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(line, "ranking: by score; ties shared");
    let out = vpsim_output(&["validate", "scenarios/twilight_imperium_4.toml"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.starts_with("ranking:")).unwrap();
    assert!(
        line.starts_with("ranking: by score, then ") && !line.contains("then ;"),
        "{line}"
    );
}

/// An element's name read as a value is its 1-based position in its set (`it == wasabi`),
/// on both engines (L24); two sets holding it at different positions make it ambiguous,
/// refused at its place.
#[test]
fn an_element_name_is_its_position() {
    let text = "[scenario]\nname = \"dishes\"\nrounds = 2\n\
        [[set]]\nname = \"dishes\"\nelements = [\"maki\", \"wasabi\", \"tempura\"]\n\
        [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n\
        [[var]]\nname = \"n\"\nover = \"dishes\"\n\
        [[action]]\nname = \"eat\"\nfor_each = \"dishes\"\n\
        effects = [\"n[it] += if(it == wasabi, 10, 1)\"]\n\
        [[phase]]\nname = \"p\"\neach = \"faction\"\nactions = 1\n\
        [ranking]\nscore = \"n[wasabi] + tempura\"\n\
        [[example]]\nname = \"wasabi is 2, tempura 3\"\nactor = \"A\"\naction = \"eat_wasabi\"\n\
        expect = [\"A.n[wasabi] == 10\", \"wasabi == 2\", \"tempura == 3\"]\n";
    let path = temp_scenario("element-values", text);
    examples_pass_on_both(&path);
    let v = same_on_both(&path, &[]);
    // Two rounds of 1 or 10 on wasabi, plus tempura's 3.
    let min = v["factions"][0]["score"]["min"].as_i64().unwrap();
    assert_eq!(min, 3);
    let twice = text.replacen(
        "[[faction]]",
        "[[set]]\nname = \"other\"\nelements = [\"wasabi\"]\n[[faction]]",
        1,
    );
    let path = temp_scenario("element-values-twice", &twice);
    let out = vpsim_output(&["validate", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`wasabi` is an element at different positions (2 in `dishes`, 1 in `other`)"),
        "{err}"
    );
}

/// An `immediate` end condition on hands or completed piles is checked after the
/// statement lists that take, draw, discard or complete a card (it was never re-checked),
/// on both engines; one that reads no variable and no deck (`round >= 3`) can never be
/// checked, and `validate` says so at its line (L22).
#[test]
fn immediate_conditions_on_cards_are_checked_and_unreachable_ones_are_named() {
    let text = "[scenario]\nname = \"card_ends\"\nrounds = 6\n\
        [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n\
        [[var]]\nname = \"vp\"\n\
        [[deck]]\nname = \"d\"\ncards = [{ name = \"c\", count = 20 }]\n\
        [[action]]\nname = \"grab\"\neffects = [\"take d\", \"vp += 1\"]\n\
        [[action]]\nname = \"done\"\neffects = [\"draw d\", \"complete\"]\n\
        [[phase]]\nname = \"p\"\neach = \"faction\"\nactions = 1\n\
        [[end]]\nname = \"third\"\nwhen = \"round >= 3\"\ntiming = \"immediate\"\n\
        [[end]]\nname = \"two_done\"\nwhen = \"max_all(completed(d)) >= 2\"\ntiming = \"immediate\"\n\
        [ranking]\nscore = \"vp\"\n\
        [[example]]\nname = \"a second completed card ends the game at once\"\n\
        actor = \"A\"\neffects = [\"draw d\", \"complete\", \"draw d\", \"complete\"]\n\
        reason = \"two_done\"\n";
    let path = temp_scenario("card-ends", text);
    examples_pass_on_both(&path);
    let v = same_on_both(&path, &[]);
    let reasons = v["end_reasons"].as_array().unwrap();
    let two_done = reasons.iter().find(|r| r["name"] == "two_done").unwrap();
    assert!(two_done["rate"].as_f64().unwrap() > 0.9, "{reasons:?}");
    let out = vpsim_output(&["validate", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("the immediate end condition `third` reads no variable and no deck"),
        "{err}"
    );
    assert!(!err.contains("`two_done` reads no"), "{err}");
}

/// `rounds` and `ages` may be constant formulas of settings and `nfactions`, the factions
/// playing (Sushi Go's 10/9/8 cards a hand for 2/3/4 players): three ages of 12 - nfactions
/// rounds (L15); a setting cannot read a `rounds` that is a formula.
#[test]
fn rounds_and_ages_are_constant_formulas_of_the_players() {
    let text = "[scenario]\nname = \"hands\"\nrounds = \"3 * (12 - nfactions)\"\n\
        ages = [\"12 - nfactions\", \"12 - nfactions\", \"12 - nfactions\"]\nplayers = \"players\"\n\
        [settings]\nplayers = 4\n\
        [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n\
        [[faction]]\nname = \"C\"\n[[faction]]\nname = \"D\"\n\
        [[var]]\nname = \"vp\"\n\
        [[phase]]\nname = \"p\"\neach = \"faction\"\neffects = [\"vp += age\"]\n\
        [ranking]\nscore = \"vp\"\n";
    let path = temp_scenario("rounds-formula", text);
    for (players, rounds) in [(2, 30), (3, 27), (4, 24)] {
        let v = same_on_both(&path, &["--set", &format!("settings.players={players}")]);
        assert_eq!(
            v["length"]["max"].as_i64(),
            Some(rounds),
            "{players} players"
        );
    }
    let bad = text.replace("players = 4\n", "players = 4\nlast = \"rounds\"\n");
    let out = vpsim_output(&[
        "validate",
        temp_scenario("rounds-formula-read", &bad).to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`rounds` is a formula of settings here"),
        "{err}"
    );
}
