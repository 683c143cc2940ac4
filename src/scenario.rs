//! Scenario files: reading TOML, reporting its errors with locations, compiling to a [`Model`].
//!
//! Owns the path from a file on disk to a validated model. The schema is in [`raw`], the
//! rules of validity and the compilation in [`compile`].

pub mod compile;
pub mod linemap;
pub mod raw;

use std::path::Path;

use crate::error::{Error, Result};
use crate::model::Model;
use compile::Source;

/// The largest scenario file vpsim reads: far beyond any game's rules (the largest seed
/// scenario is under 40 KB), small enough that reading it cannot exhaust memory.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Reads a scenario file's text: a regular file of at most [`MAX_FILE_BYTES`] in UTF-8.
/// Anything else (a folder, a device such as `/dev/zero`, a FIFO, a huge file, invalid
/// UTF-8) is refused with a message that says why, and where for bad UTF-8.
pub fn read_text(path: &Path) -> Result<String> {
    use crate::output::Refused;
    let refuse = |why: String| Error::Usage(format!("{}: {why}", path.display()));
    let bytes = crate::output::read_limited(path, MAX_FILE_BYTES).map_err(|r| match r {
        Refused::Io(source) => Error::Read {
            path: path.to_path_buf(),
            source,
        },
        Refused::Folder => refuse("this is a folder: name a scenario file (.toml)".into()),
        Refused::NotRegular => {
            refuse("not a regular file (a device or a pipe): name a scenario file (.toml)".into())
        }
        Refused::TooLarge(n) => refuse(format!(
            "the file is {n} bytes, over the limit of {MAX_FILE_BYTES} bytes for a scenario"
        )),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let valid = String::from_utf8_lossy(&e.as_bytes()[..at]).into_owned();
        let file = path.display().to_string();
        let src = Source::new(&file, &valid);
        Error::Scenario {
            loc: src.at(at),
            msg: "the file is not valid UTF-8 here: save it as UTF-8 text".into(),
        }
    })
}

/// Reads and compiles a scenario file.
pub fn load(path: &Path) -> Result<Model> {
    let text = read_text(path)?;
    parse(&text, &path.display().to_string())
}

/// Reads a scenario file, applies `--set` overrides and compiles it. The file must be valid
/// on its own; an override that breaks it is named in the error (exit code 2).
pub fn load_with(path: &Path, overrides: &[crate::overrides::Override]) -> Result<Model> {
    if overrides.is_empty() {
        return load(path);
    }
    parse_with(&read_text(path)?, &path.display().to_string(), overrides)
}

/// Applies `--set` overrides to scenario text and compiles it, as [`load_with`] does for a
/// file (for callers that already hold the text).
pub fn parse_with(
    text: &str,
    file: &str,
    overrides: &[crate::overrides::Override],
) -> Result<Model> {
    let first = parse(text, file)?;
    if overrides.is_empty() {
        return Ok(first);
    }
    let (edited, map) = linemap::LineMap::new(text, overrides)?;
    match parse_source(&Source::edited(file, &edited, &map)) {
        Ok(mut m) => {
            m.overrides = overrides.iter().map(|o| o.to_string()).collect();
            // The file's own hash: the overrides are listed beside it, not folded into it.
            m.hash = first.hash;
            Ok(m)
        }
        Err(e) => {
            for k in 1..=overrides.len() {
                let t = crate::overrides::apply(text, &overrides[..k])?;
                let Err(Error::Scenario { msg, .. }) = parse(&t, file) else {
                    continue;
                };
                let flag = overrides[k - 1].flag();
                // An agent's flag whose error is at a line of the user's own file (a hidden
                // variable the flag's searcher must guess) points there and names the flag.
                // (`--agent` itself, or a `--set` of an `agent` table.)
                let agent = overrides[k - 1].path.contains("agent");
                return Err(match e {
                    Error::Scenario { loc, msg } if agent && loc.from.is_none() => {
                        Error::Scenario {
                            loc,
                            msg: format!("{msg} (since {flag})"),
                        }
                    }
                    _ => Error::Usage(format!("{flag}: {msg}")),
                });
            }
            Err(e)
        }
    }
}

/// Compiles scenario text; `file` names it in error messages.
pub fn parse(text: &str, file: &str) -> Result<Model> {
    parse_source(&Source::new(file, text))
}

/// Compiles the text of `src`, its locations mapped to the file's lines.
fn parse_source(src: &Source) -> Result<Model> {
    let text = src.text;
    too_many_tables(text, src)?;
    let raw: raw::RawScenario = toml::from_str(text).map_err(|e| {
        let at = e.span().map_or(0, |s| s.start);
        Error::Scenario {
            loc: src.at(at),
            msg: toml_message(e.message()),
        }
    })?;
    compile::compile(&raw, src)
}

/// Refuses a file with more tables of a kind than a scenario may hold, before it is parsed:
/// parsing 64 MiB of `[[var]]` tables would take gigabytes for a scenario refused anyway.
/// Counts the lines that are exactly a table header (a header inside a multi-line string
/// would count too; no scenario has 65,534 of those).
fn too_many_tables(text: &str, src: &Source) -> Result<()> {
    let limits = [
        ("[[var]]", crate::state::MAX_VARS, "variables"),
        ("[[action]]", crate::state::MAX_ACTIONS, "actions"),
        ("[[deck.cards]]", u16::MAX as usize, "card kinds"),
    ];
    let mut counts = [0usize; 3];
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let head = line.split('#').next().unwrap_or("").trim();
        if let Some(k) = limits.iter().position(|(h, _, _)| *h == head) {
            counts[k] += 1;
            let (h, max, what) = limits[k];
            if counts[k] > max {
                return Err(src.fail(
                    at + line.find('[').unwrap_or(0),
                    format!("too many {what}: a scenario holds at most {max} `{h}` tables (this is one more)"),
                ));
            }
        }
        at += line.len();
    }
    Ok(())
}

/// TOML and serde messages name Rust-side concepts; say it in the author's terms.
fn toml_message(m: &str) -> String {
    let m = plain_types(m.trim())
        .replace("unknown field", "unknown key")
        .replace("missing field", "missing key");
    if m.contains("unknown key") {
        format!("{m}; check the spelling against the scenario reference in the README")
    } else {
        m
    }
}

/// Replaces Rust type names in a serde message ("expected i64", "struct RawCard", "a
/// sequence") by the TOML words an author knows.
pub fn plain_types(m: &str) -> String {
    const WORDS: [(&str, &str); 17] = [
        ("i64", "a whole number"),
        ("i32", "a whole number"),
        ("i16", "a whole number"),
        ("i8", "a whole number"),
        ("u64", "a whole number, 0 or more"),
        ("u32", "a whole number, 0 or more"),
        ("u16", "a whole number, 0 or more"),
        ("u8", "a whole number, 0 or more"),
        ("usize", "a whole number, 0 or more"),
        ("f64", "a number"),
        ("f32", "a number"),
        ("bool", "true or false"),
        ("a boolean", "true or false"),
        ("sequence", "array"),
        ("a sequence", "an array"),
        ("a map", "a table"),
        ("map", "table"),
    ];
    let mut out = String::with_capacity(m.len());
    let mut rest = m;
    while !rest.is_empty() {
        let word_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if word_end == 0 {
            let c = rest.chars().next().unwrap_or(' ');
            // Quoted input (`map`, "i64") is the author's own text: copy it unchanged.
            if (c == '`' || c == '"')
                && let Some(close) = rest[1..].find(c)
            {
                out.push_str(&rest[..close + 2]);
                rest = &rest[close + 2..];
                continue;
            }
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let word = &rest[..word_end];
        let after = &rest[word_end..];
        // `struct RawCard`, `enum RawWho`: a table, or one of the listed words.
        if (word == "struct" || word == "enum") && after.starts_with(' ') {
            let name_end = after[1..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .map_or(after.len(), |i| i + 1);
            out.push_str(if word == "struct" {
                "a table"
            } else {
                "one of the allowed values"
            });
            rest = &after[name_end..];
            continue;
        }
        // Two-word phrases first ("a sequence"), then single words.
        if let Some(two) = WORDS.iter().find(|(w, _)| {
            w.contains(' ')
                && rest.starts_with(w)
                && !rest[w.len()..].starts_with(char::is_alphanumeric)
        }) {
            out.push_str(two.1);
            rest = &rest[two.0.len()..];
            continue;
        }
        match WORDS.iter().find(|(w, _)| *w == word) {
            Some((_, plain)) => out.push_str(plain),
            None => out.push_str(word),
        }
        rest = after;
    }
    out.replace("an a whole", "a whole").replace("a a ", "a ")
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
    fn serde_messages_lose_their_rust_type_names() {
        assert_eq!(
            plain_types("invalid type: string \"x\", expected i64"),
            "invalid type: string \"x\", expected a whole number"
        );
        assert_eq!(
            plain_types("invalid type: map, expected struct RawCard"),
            "invalid type: table, expected a table"
        );
        assert_eq!(
            plain_types("invalid type: integer `3`, expected a sequence"),
            "invalid type: integer `3`, expected an array"
        );
        assert_eq!(plain_types("unknown field `map`"), "unknown field `map`");
        assert_eq!(
            plain_types("invalid value: integer `-1`, expected u64"),
            "invalid value: integer `-1`, expected a whole number, 0 or more"
        );
    }

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
        let e = error_of(&MINI.replace("rounds = 5", "rounds = [5]"));
        assert!(e.starts_with("x.toml:4:10:"), "{e}");
        // A formula (rounds may be one) is located inside its string.
        let e = error_of(&MINI.replace("rounds = 5", "rounds = \"five\""));
        assert!(
            e.starts_with("x.toml:4:11:") && e.contains("`five` is not defined"),
            "{e}"
        );
        let e = error_of(&MINI.replace("tiebreak = [\"-seat\"]", "tiebreak = [\"C.vp\"]"));
        assert!(e.contains("`C` is not a faction"), "{e}");
    }
}
