//! Exact integers, end to end: values beyond 2^53 are stored exactly, overflow and division
//! by zero stop the run with a located fault, and a real constant floored into a variable
//! is warned about.

use crate::util::{temp_scenario, vpsim_output};

/// Writes a one-faction scenario with `effects` in its phase and `extra` in its faction to
/// a scratch file named after `name`, and returns its path.
fn scenario(name: &str, effects: &str, extra: &str) -> std::path::PathBuf {
    let text = format!(
        r#"
[scenario]
name = "ints"
rounds = 2

[settings]
p0 = 0.30

[[faction]]
name = "A"
{extra}

[[var]]
name = "x"
scope = "global"
[[var]]
name = "chance"

[[phase]]
name = "p"
effects = [{effects}]

[ranking]
score = "chance"
"#
    );
    temp_scenario(&format!("ints-{name}"), &text)
}

#[test]
fn integers_beyond_2_pow_53_are_stored_exactly() {
    let p = scenario("exact", r#""x = 9007199254740993""#, "");
    let out = vpsim_output(&["trace", p.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("x = 9007199254740993 -> 9007199254740993"),
        "{text}"
    );
}

#[test]
fn overflow_and_division_by_zero_are_located_faults() {
    for (name, effect, needle) in [
        (
            "overflow",
            r#""x = 9223372036854775807 + round""#,
            "integer overflow: 9223372036854775807 + 1 is outside the 64-bit range",
        ),
        (
            "addto",
            r#""x = 9223372036854775807", "x += 1""#,
            "integer overflow",
        ),
        (
            "div",
            r#""x = 7 // (round - 1)""#,
            "division by zero (7 divided by 0)",
        ),
        ("mod", r#""x = 7 % (round - 1)""#, "division by zero"),
        ("real", r#""x = 1 / (round - 1)""#, "division by zero"),
    ] {
        let p = scenario(name, effect, "");
        let ps = p.to_str().unwrap();
        let out = vpsim_output(&["run", ps, "--games", "20", "--seed", "5"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        assert!(err.contains(needle), "{name}: {err}");
        assert!(err.contains(&format!("{ps}:")), "{name}: {err}");
        assert!(err.contains("in game 0 of seed 5"), "{name}: {err}");
        assert!(
            err.contains(&format!("vpsim trace {ps} --seed 5 --game 0")),
            "{name}: {err}"
        );
    }
}

#[test]
fn a_real_constant_floored_into_a_variable_is_a_warning() {
    let p = scenario("floor", r#""x = 1""#, r#"init = { chance = "p0" }"#);
    let ps = p.to_str().unwrap();
    for cmd in ["validate", "run"] {
        let out = vpsim_output(&[cmd, ps, "--games", "10"][..if cmd == "run" { 4 } else { 2 }]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(
            err.contains("warning: ") && err.contains("the real 0.3 is stored in `chance` as 0"),
            "{cmd}: {err}"
        );
        assert!(err.contains(&format!("{ps}:")), "{err}");
    }
    // 0.3 * 100 is a hair above 30: it stores 30, as meant, with no warning.
    let p = scenario("whole", r#""x = 1""#, r#"init = { chance = "p0 * 100" }"#);
    let out = vpsim_output(&["validate", p.to_str().unwrap()]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
    // 0.29 * 100 is a hair below 29: it would store 28, which is worth a word.
    let p = scenario("below", r#""x = 1""#, r#"init = { chance = "0.29 * 100" }"#);
    let out = vpsim_output(&["validate", p.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("as 28, not 29") && err.contains("round("),
        "{err}"
    );
}
