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
