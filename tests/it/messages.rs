//! Located messages for names misused: a `for NAME in SET` template whose name is already a
//! variable, builtin or faction (it shadowed the name on the right-hand side only), an
//! assignment to a derived value, and a huge `--set` value shown as written.

use crate::util::{temp_scenario, vpsim_output};

/// A scenario whose faction phase runs `effect`.
fn with_effect(effect: &str) -> String {
    format!(
        "[scenario]\nname = \"names\"\nrounds = 2\n\
         [[set]]\nname = \"awards\"\nelements = [\"a\", \"b\", \"c\"]\n\
         [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n\
         [[var]]\nname = \"heat\"\n[[var]]\nname = \"tiles\"\n\
         [[derived]]\nname = \"dv\"\nformula = \"tiles + 1\"\n\
         [[phase]]\nname = \"p\"\neach = \"faction\"\neffects = [\"{effect}\"]\n\
         [ranking]\nscore = \"heat\"\n"
    )
}

/// The first line of `validate`'s error on the scenario with `effect`, and its exit code.
fn refusal(name: &str, effect: &str) -> (Option<i32>, String) {
    let path = temp_scenario(name, &with_effect(effect));
    let out = vpsim_output(&["validate", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    (
        out.status.code(),
        err.lines().next().unwrap_or_default().to_string(),
    )
}

#[test]
fn a_template_name_that_is_already_a_name_is_refused_at_its_place() {
    for (word, kind) in [
        ("round", "a builtin"),
        ("heat", "a variable"),
        ("A", "a faction"),
        ("dv", "a derived value"),
        ("awards", "a set"),
    ] {
        let (code, line) = refusal(
            &format!("names-{word}"),
            &format!("for {word} in awards: tiles += 1"),
        );
        assert_eq!(code, Some(2), "{word}: {line}");
        assert!(
            line.contains(&format!("`{word}` is already {kind}")) && line.contains(":21:"),
            "{word}: {line}"
        );
    }
    let (code, line) = refusal("names-m", "for m in awards: heat += m");
    assert_eq!(code, Some(0), "{line}");
}

#[test]
fn assigning_a_derived_value_says_what_it_is() {
    let (code, line) = refusal("names-dv", "dv = 3");
    assert_eq!(code, Some(2));
    assert!(line.contains("`dv` is a derived value"), "{line}");
    assert!(!line.contains("not defined"), "{line}");
}

#[test]
fn a_huge_players_value_is_shown_as_written() {
    let out = vpsim_output(&[
        "run",
        "scenarios/terraforming_mars.toml",
        "--set",
        "settings.players=1e308",
        "--games",
        "10",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("players is 1e308:"), "{err}");
    assert!(err.len() < 400, "{err}");
}

/// A scenario whose faction phase runs `effect` on `t`, a variable over a 4-element set.
fn track_with(effect: &str) -> String {
    format!(
        "[scenario]\nname = \"track\"\nrounds = 2\n\
         [[set]]\nname = \"track\"\nelements = [\"a\", \"b\", \"c\", \"d\"]\n\
         [settings]\nm = 4\n\
         [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n\
         [[var]]\nname = \"t\"\nover = \"track\"\n\
         [[phase]]\nname = \"p\"\neach = \"faction\"\neffects = [\"{effect}\"]\n\
         [ranking]\nscore = \"t[4]\"\n"
    )
}

/// A write at a position known before the game runs but off the set says the position, the
/// set and, in a template, the element whose copy it is (issue 60, L20; issue 63, K11); an
/// `if(...)` that keeps every copy's position inside is accepted and plays alike on both
/// engines.
#[test]
fn a_write_off_the_set_names_the_position_and_the_element() {
    for (i, (effect, says)) in [
        ("t[13] = 5", "this position is 13, off the set `track`"),
        ("t[0] = 1", "this position is 0, off the set `track`"),
        ("t[m + 1] = 1", "this position is 5, off the set `track`"),
        (
            "for k in track: t[k + 1] = 1",
            "this position is 5 (in the copy for `d`, the template's element 4 of 4)",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let path = temp_scenario(&format!("offset-{i}"), &track_with(effect));
        let out = vpsim_output(&["validate", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{effect}: {err}");
        assert!(
            err.contains(says) && err.contains("1 to 4"),
            "{effect}: {err}"
        );
    }
    let path = temp_scenario(
        "offset-kept",
        &track_with("for k in track: t[if(k < 4, k + 1, k)] += k"),
    );
    let v = crate::util::same_on_both(&path, &[]);
    // Each turn adds 1, 2 and 3 to b, c and d (k = 1, 2, 3), and 4 to d again (k = 4, kept
    // on d): d gains 7 a round, 14 in two.
    assert_eq!(v["factions"][0]["score"]["mean"].as_f64(), Some(14.0));
}

/// `validate`'s wording: singular counts, "none" for an empty list (no trailing space), and
/// a deck's order named without a possessive ("the order of stage1").
#[test]
fn validate_words_counts_and_empty_lists() {
    let out = vpsim_output(&["validate", "scenarios/race_to_three.toml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for want in [
        "state: 1 variable in 2 slots",
        "actions: none",
        "events: none",
    ] {
        assert!(text.lines().any(|l| l == want), "{want}: {text}");
    }
    assert!(!text.lines().any(|l| l.ends_with(' ')), "{text}");
    let out = vpsim_output(&["validate", "scenarios/twilight_imperium_4.toml"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("the order of stage1"), "{text}");
    assert!(!text.contains("'s order"), "{text}");
}
