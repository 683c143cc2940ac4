//! How an error reaches the terminal: its message, and for a place in a scenario file the
//! source line with a caret under the offending text (rendered by `ariadne`).
//!
//! The first line stays `error: FILE:LINE:COLUMN: message`, the form editors and CI logs
//! link to; the snippet follows. Nothing here changes what went wrong, only how it is shown.

use crate::error::{Error, Location};

/// The largest file re-read to show a snippet (scenario files are far smaller).
const MAX_SNIPPET_FILE: u64 = 64 * 1024 * 1024;

/// The text printed on stderr for `e`, ending with a newline.
pub fn render(e: &Error) -> String {
    let mut out = format!("error: {e}\n");
    let loc = match e {
        Error::Scenario { loc, .. } | Error::Fault { loc, .. } => loc,
        _ => return out,
    };
    if let Some(snippet) = snippet(loc) {
        out.push_str(&snippet);
    }
    out
}

/// The source line of `loc` with a caret under the token that starts there.
fn snippet(loc: &Location) -> Option<String> {
    use ariadne::{Config, Label, Report, ReportKind, Source};
    let meta = std::fs::metadata(&loc.file).ok()?;
    if !meta.is_file() || meta.len() > MAX_SNIPPET_FILE || loc.line == 0 {
        return None;
    }
    let text = std::fs::read_to_string(&loc.file).ok()?;
    // ariadne counts characters: find the character offset of line:column.
    let mut offset = 0usize;
    for (i, line) in text.split('\n').enumerate() {
        let chars = line.chars().count();
        if i + 1 == loc.line {
            let col = loc.col.saturating_sub(1).min(chars);
            let start = offset + col;
            let rest: Vec<char> = line.chars().skip(col).collect();
            // The token that starts there: a word, a quoted string, or one character.
            let word = if rest.first() == Some(&'"') {
                rest.iter()
                    .skip(1)
                    .position(|c| *c == '"')
                    .map_or(1, |i| i + 2)
            } else {
                rest.iter()
                    .take_while(|c| c.is_alphanumeric() || **c == '_' || **c == '.')
                    .count()
            };
            let end = start + word.max(1).min(rest.len().max(1));
            let id = loc.file.as_str();
            let mut buf = Vec::new();
            Report::build(ReportKind::Error, (id, start..end))
                .with_config(
                    Config::default()
                        .with_color(false)
                        .with_char_set(ariadne::CharSet::Ascii),
                )
                .with_label(Label::new((id, start..end)).with_message("here"))
                .finish()
                .write((id, Source::from(text.as_str())), &mut buf)
                .ok()?;
            let shown = String::from_utf8_lossy(&buf).into_owned();
            // ariadne's own header line repeats the message: keep only the snippet.
            let body: Vec<&str> = shown.lines().skip(1).collect();
            return Some(format!("{}\n", body.join("\n")));
        }
        offset += chars + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_error_shows_its_line_with_a_caret() {
        let path = std::env::temp_dir().join(format!("vpsim-diag-{}.toml", std::process::id()));
        std::fs::write(&path, "[scenario]\nname = \"x\"\nrounds = many\n").unwrap();
        let e = Error::Scenario {
            loc: Location {
                file: path.display().to_string(),
                line: 3,
                col: 10,
            },
            msg: "invalid value".into(),
        };
        let text = render(&e);
        assert!(text.starts_with("error: "), "{text}");
        assert!(text.contains("rounds = many"), "{text}");
        assert!(text.contains("^^") && text.contains("here"), "{text}");
        let _ = std::fs::remove_file(&path);
    }
}
