//! Scenario files: reading TOML, reporting its errors with locations, compiling to a [`Model`].
//!
//! Owns the path from a file on disk to a validated model. The schema is in [`raw`], the
//! rules of validity and the compilation in [`compile`].

pub mod compile;
pub mod raw;

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::Model;
use compile::Source;

/// Reads and compiles a scenario file.
pub fn load(path: &Path) -> Result<Model> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, &path.display().to_string())
}

/// Reads a scenario file, applies `--set` overrides and compiles it. The file must be valid
/// on its own; an override that breaks it is named in the error (exit code 2).
pub fn load_with(path: &Path, overrides: &[crate::overrides::Override]) -> Result<Model> {
    if overrides.is_empty() {
        return load(path);
    }
    let text = std::fs::read_to_string(path).map_err(|source| Error::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let file = path.display().to_string();
    parse(&text, &file)?;
    let edited = crate::overrides::apply(&text, overrides)?;
    match parse(&edited, &file) {
        Ok(m) => Ok(m),
        Err(e) => {
            for k in 1..=overrides.len() {
                let t = crate::overrides::apply(&text, &overrides[..k])?;
                if let Err(Error::Scenario { msg, .. }) = parse(&t, &file) {
                    return Err(Error::Usage(format!("--set {}: {msg}", overrides[k - 1])));
                }
            }
            Err(e)
        }
    }
}

/// Compiles scenario text; `file` names it in error messages.
pub fn parse(text: &str, file: &str) -> Result<Model> {
    let src = Source::new(file, text);
    let raw: raw::RawScenario = toml::from_str(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        Error::Scenario {
            loc: src.at(at),
            msg: toml_message(e.message()),
        }
    })?;
    compile::compile(&raw, &src)
}

/// TOML and serde messages name Rust-side concepts; say it in the author's terms.
fn toml_message(m: &str) -> String {
    let m = m.trim();
    let m = m
        .replace("unknown field", "unknown key")
        .replace("missing field", "missing key");
    if m.contains("unknown key") {
        format!("{m}; check the spelling against the scenario reference in the README")
    } else {
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_line_and_character_column() {
        let src = compile::Source::new("f.toml", "ab\ncd\nxé y");
        let at = |b: usize| {
            let l = src.at(b);
            (l.line, l.col)
        };
        assert_eq!(at(0), (1, 1));
        assert_eq!(at(2), (1, 3));
        assert_eq!(at(3), (2, 1));
        assert_eq!(at(4), (2, 2));
        assert_eq!(at(6), (3, 1));
        // `é` is two bytes and one column.
        assert_eq!(at(9), (3, 3));
        assert_eq!(at(100), (3, 5));
    }

    const MINI: &str = r#"
[scenario]
name = "mini"
rounds = 5

[[faction]]
name = "A"

[[faction]]
name = "B"

[[var]]
name = "vp"
max = 3

[[phase]]
name = "score"
each = "faction"
effects = ["vp += bernoulli(0.5)"]

[[end]]
name = "three"
when = "max_all(vp) >= 3"

[ranking]
score = "vp"
tiebreak = ["-seat"]
"#;

    #[test]
    fn compiles_a_small_scenario() {
        let m = parse(MINI, "mini.toml").unwrap();
        assert_eq!(m.nfactions(), 2);
        assert_eq!(m.slots, 2);
        assert_eq!(m.reasons.len(), 2);
        assert_eq!(m.immediate_by_var[0], vec![0]);
    }

    fn error_of(text: &str) -> String {
        parse(text, "x.toml").unwrap_err().to_string()
    }

    #[test]
    fn unknown_key_names_line_and_column() {
        let bad = MINI.replace("max = 3", "max = 3\ncapp = 4");
        let e = error_of(&bad);
        assert!(e.starts_with("x.toml:15:1:"), "{e}");
        assert!(e.contains("unknown key"), "{e}");
    }

    #[test]
    fn expression_errors_point_inside_the_string() {
        let bad = MINI.replace("vp += bernoulli(0.5)", "vp += bernoulli(1.7)");
        let e = error_of(&bad);
        assert!(e.starts_with("x.toml:19:29:"), "{e}");
        assert!(e.contains("outside 0..1"), "{e}");
        let bad = MINI.replace("max_all(vp) >= 3", "max_all(vq) >= 3");
        let e = error_of(&bad);
        assert!(
            e.contains("`vq` is not defined (did you mean `vp`?)"),
            "{e}"
        );
    }

    #[test]
    fn wrong_types_and_missing_factions() {
        let e = error_of(&MINI.replace("rounds = 5", "rounds = \"five\""));
        assert!(e.starts_with("x.toml:4:10:"), "{e}");
        let e = error_of(&MINI.replace("tiebreak = [\"-seat\"]", "tiebreak = [\"C.vp\"]"));
        assert!(e.contains("`C` is not a faction"), "{e}");
    }
}
