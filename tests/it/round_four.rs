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

/// A template inside a template (two passes over a grid, and one inside a `for_each`
/// action), writes at positions computed while playing (`pile[uniform(1, 3)] += 1`,
/// `pile[if(it < 3, it + 1, 1)]`) and the connected regions of a grid (`regions t into
/// size label label`), on both engines (L19, L21).
#[test]
fn nested_templates_computed_writes_and_regions_play_alike_on_both_engines() {
    let path = "tests/data/templates_and_regions.toml";
    examples_pass_on_both(path);
    let v = same_on_both(std::path::Path::new(path), &[]);
    // Six squares, each a region of 1 to 6 squares with 0 or 1 crown, and six piles.
    let max = v["factions"][0]["score"]["max"].as_i64().unwrap();
    assert!((7..=6 * 6 + 6 * 3).contains(&max), "{max}");
    let out = vpsim_output(&["validate", path]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "regions: t into size, label label (cells of one value joined side to side)\n"
        ) && stdout.contains(
            "writes at computed positions: 7 (each checked against its set when it runs)"
        ),
        "{stdout}"
    );
}

/// A write at a computed position outside the set faults where it is written, as a read
/// there does, with the same message on both engines.
#[test]
fn a_computed_write_outside_the_set_faults_on_both_engines() {
    let text = "[scenario]\nname = \"off\"\nrounds = 3\n[[faction]]\nname = \"A\"\n\
        [[set]]\nname = \"k\"\nelements = [\"a\", \"b\"]\n\
        [[var]]\nname = \"p\"\nover = \"k\"\n\
        [[phase]]\nname = \"go\"\neffects = [\"A.p[round] += 1\"]\n\
        [ranking]\nscore = \"p[a]\"\n";
    let path = temp_scenario("computed-write-off", text);
    let mut seen = Vec::new();
    for engine in ["native", "interp"] {
        let out = vpsim_output(&[
            "run",
            path.to_str().unwrap(),
            "--games",
            "10",
            "-q",
            "--engine",
            engine,
        ]);
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(1), "{err}");
        assert!(
            err.contains(":14:13: in game 0 of seed 1: subscript 3 is outside the set: positions run from 1 to 2"),
            "{err}"
        );
        seen.push(err);
    }
    assert_eq!(seen[0], seen[1]);
}

/// Templates nest three deep at most (a `for_each` action counts as one), an inner
/// template may not reuse an outer one's word, and one statement's copies are bounded;
/// each refused at its place. `regions` reads a grid variable and writes others over the
/// same grid.
#[test]
fn nesting_and_regions_are_refused_where_they_cannot_mean_anything() {
    let base = "[scenario]\nname = \"nest\"\nrounds = 1\n[[faction]]\nname = \"A\"\n\
        [[set]]\nname = \"g\"\ngrid = [2, 2]\n[[set]]\nname = \"h\"\ngrid = [3, 3]\n\
        [[set]]\nname = \"big\"\ngrid = [250, 250]\n\
        [[var]]\nname = \"x\"\nover = \"g\"\n[[var]]\nname = \"y\"\nover = \"h\"\n\
        [[var]]\nname = \"z\"\n[[var]]\nname = \"gz\"\nover = \"g\"\nscope = \"global\"\n\
        [ranking]\nscore = \"z\"\n[[phase]]\nname = \"p\"\neach = \"faction\"\neffects = [\"STMT\"]\n";
    for (stmt, col, message) in [
        (
            "for a in g: for b in g: for c in g: for d in g: z += 1",
            53,
            "templates nest at most 3 deep",
        ),
        (
            "for a in g: for a in g: z += 1",
            29,
            "`a` already stands for an element of a template around this one",
        ),
        (
            "for a in big: for b in g: for c in g: z += 1",
            48,
            "this template makes 1000000 copies of its statement",
        ),
        ("regions z into x", 21, "`z` is not a variable over a grid"),
        (
            "regions x into y",
            28,
            "`y` must be over the same grid as `x`, and like it a per-faction variable",
        ),
        (
            "regions x into gz",
            28,
            "`gz` must be over the same grid as `x`, and like it a per-faction variable",
        ),
        ("regions x into x", 28, "`x` is `x` again"),
    ] {
        let path = temp_scenario("nest-refused", &base.replace("STMT", stmt));
        let out = vpsim_output(&["validate", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stmt}: {err}");
        assert!(
            err.contains(&format!(":32:{col}: {message}")),
            "{stmt}: {err}"
        );
    }
}

/// Hands that change owner: Sushi Go's hands (a deck's hands) pass left every turn with
/// `pass sushi left`, on both engines alike, and its scoring's worked examples hold; a
/// direction other than `left` or `right` is refused at its place (L16).
#[test]
fn hands_pass_to_the_left_on_both_engines() {
    let path = "scenarios/sushi_go.toml";
    examples_pass_on_both(path);
    let v = same_on_both(std::path::Path::new(path), &[]);
    // 24 turns of 4 players: every hand is played out.
    assert_eq!(v["length"]["max"].as_i64(), Some(24));
    let out = vpsim_output(&["validate", path]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("hands passed: sushi left (each to the next faction still in)\n")
            && stdout.contains("the others' hands of it, bar the cards it passed on"),
        "{stdout}"
    );
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("pass sushi left", "pass sushi up");
    let out = vpsim_output(&[
        "validate",
        temp_scenario("pass-up", &text).to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("expected `left` or `right` after `pass sushi`"),
        "{err}"
    );
}

/// Every numeric builtin may be a position (one list of them): `track[table_seat]` and
/// `track[player]` are read and written as `track[seat]` is, on both engines.
#[test]
fn a_numeric_builtin_is_a_position() {
    let text = r#"
[scenario]
name = "builtin_positions"
rounds = 1

[[faction]]
name = "A"
[[faction]]
name = "B"
[[faction]]
name = "C"
player = false

[[set]]
name = "places"
elements = ["p1", "p2", "p3"]

[[var]]
name = "track"
scope = "global"
over = "places"

[[var]]
name = "mark"
scope = "global"
over = "places"

[[phase]]
name = "p"
each = "faction"
effects = ["track[table_seat] += table_seat", "mark[player + 1] += 1"]

[ranking]
score = "track[1]"

[[example]]
name = "each faction writes at its table seat, and at its player flag plus one"
phase = "p"
expect = ["track[1] == 1", "track[2] == 2", "track[3] == 3", "mark[1] == 1", "mark[2] == 2"]
"#;
    let path = temp_scenario("builtin-positions", text);
    examples_pass_on_both(&path);
}
