//! How an error reaches the terminal: its message, and for a place in a scenario file the
//! source line with a caret under the offending text (rendered by `ariadne`).
//!
//! The first line stays `error: FILE:LINE:COLUMN: message`, the form editors and CI logs
//! link to; the snippet follows. Nothing here changes what went wrong, only how it is shown.
//! Owns too [`terminal_safe`], which every text vpsim prints goes through, so that a name or
//! title from a file cannot drive the terminal.

use crate::error::{Error, Location};

/// The first character of `text` that has no place in one line of text: a line break
/// (including the Unicode line and paragraph separators) or another control character. A
/// scenario's one-line texts and `--set` values are refused when they hold one.
pub fn not_one_line(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}'))
}

/// `text` with every character that would drive a terminal written as a visible `\uXXXX`
/// escape: C0 controls but newline and tab (ESC starts colour, title and clipboard
/// sequences such as OSC 52; BEL, BS and CR rewrite what is shown), DEL, C1 controls, and
/// the bidirectional overrides, embeddings, isolates and marks that reorder a line. JSON
/// output stays valid JSON (serde escapes C0 controls itself, and the escape is JSON's own
/// form for the others); vpsim writes no escape sequence of its own.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let drives_terminal = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    if !text.chars().any(drives_terminal) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if drives_terminal(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Writes `text` and a newline to stderr, terminal-safe ([`terminal_safe`]). A stderr that
/// cannot be written (a closed pipe, a full disk) loses the text, never the exit code: the
/// standard `eprintln!` panics there.
#[expect(
    clippy::disallowed_methods,
    reason = "the one writer of stderr's text, made terminal-safe here"
)]
pub fn say(text: &str) {
    use std::io::Write;
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{}", terminal_safe(text));
}

/// Whether stderr is a terminal, where a person may be watching (progress, notes).
#[expect(clippy::disallowed_methods, reason = "asks, writes nothing")]
pub fn stderr_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stderr())
}

/// Whether stdout is a terminal (and so not a file or a pipe a program reads).
#[expect(clippy::disallowed_methods, reason = "asks, writes nothing")]
pub fn stdout_is_terminal() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdout())
}

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

/// Characters of a source line shown before the offending token, and at most in all: a
/// longer line (generated, or minified) is cut to a window around it, marked with `...`.
const BEFORE: usize = 60;
const WIDTH: usize = 160;

/// The source line of `loc` with a caret under the token that starts there.
fn snippet(loc: &Location) -> Option<String> {
    use ariadne::{Config, Label, Report, ReportKind, Source};
    let meta = std::fs::metadata(&loc.file).ok()?;
    // A value an override wrote is not in the file: no line of it to show.
    if !meta.is_file() || meta.len() > MAX_SNIPPET_FILE || loc.line == 0 || loc.from.is_some() {
        return None;
    }
    let text = std::fs::read_to_string(&loc.file).ok()?;
    let line: Vec<char> = text.split('\n').nth(loc.line - 1)?.chars().collect();
    // ariadne counts characters: the column's character index in the line.
    let col = loc.col.saturating_sub(1).min(line.len());
    let rest = &line[col..];
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
    // The window of the line shown, the token inside it.
    let lo = if line.len() > WIDTH {
        col.saturating_sub(BEFORE)
    } else {
        0
    };
    let hi = line.len().min(lo + WIDTH);
    let mut shown: String = if lo > 0 { "...".into() } else { String::new() };
    let at = shown.chars().count() + col - lo;
    shown.extend(&line[lo..hi]);
    if hi < line.len() {
        shown.push_str("...");
    }
    let word = word.max(1).min(hi.saturating_sub(col).max(1));
    // Only the line is given to ariadne, after as many empty lines as come before it, so that
    // it numbers it as the file does; its newline lets a caret sit just past its end (an
    // unclosed `[table` or string).
    let source = format!("{}{shown}\n", "\n".repeat(loc.line - 1));
    let (start, end) = (loc.line - 1 + at, loc.line - 1 + at + word);
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
        .write((id, Source::from(source.as_str())), &mut buf)
        .ok()?;
    let shown = String::from_utf8_lossy(&buf).into_owned();
    // ariadne's own header line repeats the message: keep only the snippet, whose first line
    // names the place by the window's column: name the file's.
    let (ours, real) = (
        format!("{id}:{}:{}", loc.line, at + 1),
        format!("{id}:{}:{}", loc.line, loc.col),
    );
    let body: Vec<String> = shown
        .lines()
        .skip(1)
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.replacen(&ours, &real, 1)
            } else {
                l.to_string()
            }
        })
        .collect();
    Some(format!("{}\n", body.join("\n")))
}

#[cfg(test)]
mod tests {
    /// Terminal-driving characters are shown escaped; text, newlines and tabs are kept.
    #[test]
    fn control_characters_are_escaped() {
        let text = "a\u{1b}]52;c;aGk=\u{7}b\u{8}\r\u{202e}c\u{9b}d\u{7f}\n\te é";
        assert_eq!(
            super::terminal_safe(text),
            "a\\u001b]52;c;aGk=\\u0007b\\u0008\\u000d\\u202ec\\u009bd\\u007f\n\te é"
        );
        assert!(matches!(
            super::terminal_safe("plain\n"),
            std::borrow::Cow::Borrowed(_)
        ));
        let json = serde_json::to_string(&"x\u{202e}\u{85}y").unwrap();
        let safe = super::terminal_safe(&json);
        assert_eq!(
            serde_json::from_str::<String>(&safe).unwrap(),
            "x\u{202e}\u{85}y"
        );
    }

    use super::*;

    /// What `render` prints for a scenario error `msg` at `line`:`col` of a file holding
    /// `text` (written to a temporary file named after `tag`).
    fn rendered(tag: &str, text: &str, line: usize, col: usize, msg: &str) -> String {
        let path =
            std::env::temp_dir().join(format!("vpsim-diag-{tag}-{}.toml", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let e = Error::Scenario {
            loc: Location {
                file: path.display().to_string(),
                line,
                col,
                from: None,
            },
            msg: msg.into(),
        };
        let shown = render(&e);
        let _ = std::fs::remove_file(&path);
        shown
    }

    #[test]
    fn a_scenario_error_shows_its_line_with_a_caret() {
        let text = rendered(
            "short",
            "[scenario]\nname = \"x\"\nrounds = many\n",
            3,
            10,
            "invalid value",
        );
        assert!(text.starts_with("error: "), "{text}");
        assert!(text.contains("rounds = many"), "{text}");
        assert!(text.contains("^^") && text.contains("here"), "{text}");
    }

    /// A very long line is shown as a window around the token, cut with `...`, the caret
    /// still under it and the line still numbered as in the file.
    #[test]
    fn a_long_line_is_cut_to_a_window_around_the_token() {
        let long = format!("x = \"{}oops{}\"", "a + ".repeat(5000), " + b".repeat(5000));
        let col = long.find("oops").unwrap() + 1;
        let text = rendered(
            "long",
            &format!("[scenario]\n{long}\n"),
            2,
            col,
            "`oops` is not defined",
        );
        assert!(text.len() < 1000, "{} bytes: {text}", text.len());
        assert!(text.contains(&format!(":2:{col} ]")), "{text}");
        let shown = text
            .lines()
            .find(|l| l.contains(" | ") && l.contains("oops"))
            .expect("the line");
        assert!(shown.trim_start().starts_with("2 |"), "{text}");
        assert!(
            shown.contains("...a + ") && shown.ends_with("+ b..."),
            "{text}"
        );
        let caret = text.lines().find(|l| l.contains('^')).expect("a caret");
        assert_eq!(caret.find('^'), shown.find("oops"), "{text}");
        // Under the four letters of the token (ariadne draws its label's stem among them).
        assert_eq!(
            caret.rfind('^').unwrap() - caret.find('^').unwrap(),
            3,
            "{text}"
        );
    }

    /// An error just past the end of a line (an unclosed table header) still shows the line,
    /// numbered, with the caret after its last character.
    #[test]
    fn an_error_at_the_end_of_a_line_shows_it() {
        let text = rendered("eol", "[scenario\nname = \"x\"", 1, 10, "unclosed table");
        let shown = text.lines().find(|l| l.contains("[scenario")).expect(&text);
        assert!(shown.trim_start().starts_with("1 |"), "{text}");
        // The line under it marks one character (ariadne draws a one-character label as its
        // stem, `|`), just past `[scenario`.
        let lines: Vec<&str> = text.lines().collect();
        let at = lines.iter().position(|l| l.contains("[scenario")).unwrap();
        let mark = lines[at + 1].rfind(['^', '|']);
        assert_eq!(mark, Some(shown.find("[scenario").unwrap() + 9), "{text}");
    }
}
