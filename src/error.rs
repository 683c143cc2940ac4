//! The library's error type: what went wrong, where, and what to do about it.
//!
//! Owns the mapping from failures to exit codes (bad input or usage: 2, anything else: 1).
//! Messages name the file, line and column of a scenario problem, or the flag at fault, and
//! never show a Rust type name.

use std::fmt;
use std::path::PathBuf;

/// A place in a scenario file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file as given on the command line.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    /// The `--set` or `--agent` flag that wrote this text, when one did: `line` is then
    /// where in the file the flag's edit sits, and the file's text there is not this text.
    pub from: Option<Box<str>>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = one_line(&self.file);
        match &self.from {
            None => write!(f, "{file}:{}:{}", self.line, self.col),
            Some(flag) => write!(f, "{file}:{}, in the value from {flag}", self.line),
        }
    }
}

/// Everything that can go wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A scenario file could not be read.
    #[error("cannot read scenario {path}: {source}")]
    Read {
        /// The path.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A scenario file is malformed or inconsistent.
    #[error("{loc}: {msg}")]
    Scenario {
        /// Where.
        loc: Location,
        /// What is wrong, and what to do.
        msg: String,
    },
    /// A game asked for something meaningless at run time (a probability of 1.7).
    #[error(
        "{loc}: in game {game} of seed {seed}: {msg}\n  reproduce it with: vpsim trace {scenario} --seed {seed} --game {game}"
    )]
    Fault {
        /// The formula at fault.
        loc: Location,
        /// The scenario file and the `--set` overrides the game was played with, as
        /// shell-quoted `vpsim trace` arguments (see [`trace_args`]).
        scenario: String,
        /// Master seed.
        seed: u64,
        /// Game index.
        game: u64,
        /// What happened.
        msg: String,
    },
    /// A check the user asked for failed (a worked example, a balance assertion).
    #[error("{0}")]
    Failed(String),
    /// The command was interrupted (Ctrl-C or SIGTERM).
    #[error("interrupted")]
    Interrupted,
    /// A command-line value is invalid.
    #[error("{0}")]
    Usage(String),
    /// Writing output failed.
    #[error("cannot write {what}: {source}")]
    Write {
        /// What was being written.
        what: String,
        /// The cause.
        source: std::io::Error,
    },
}

impl Error {
    /// The process exit code for this error: 2 for bad input or usage, 130 or 143 when
    /// interrupted by Ctrl-C or SIGTERM, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Read { .. } | Error::Scenario { .. } | Error::Usage(_) => 2,
            Error::Fault { .. } | Error::Write { .. } | Error::Failed(_) => 1,
            Error::Interrupted => crate::signal::exit_code(),
        }
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The scenario file and its overrides as `vpsim trace` arguments, each word shell-quoted:
/// `file.toml --set settings.p=-1`.
pub fn trace_args(file: &str, overrides: &[String]) -> String {
    let mut args = shell_word(file);
    for o in overrides {
        // `--agent X` (see `overrides::AGENT`) or a `--set` value.
        match o.strip_prefix("--agent ") {
            Some(choice) => {
                args.push_str(" --agent ");
                args.push_str(&shell_word(choice));
            }
            None => {
                args.push_str(" --set ");
                args.push_str(&shell_word(o));
            }
        }
    }
    args
}

/// A file or folder name as one line of text: line breaks, tabs and other control
/// characters shown escaped (`\n`), so a name from a cloned repository or an unpacked
/// archive can never start a line of its own in the terminal, a table or a report.
pub fn one_line(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `a` as one word of a POSIX shell command: as is when it is plain, else in single quotes.
pub fn shell_word(a: &str) -> String {
    // A control character (a line break in a file name) in ANSI-C quotes, `$'...'`, which
    // bash, zsh and ksh read back exactly: the command stays on one line.
    if a.chars().any(char::is_control) {
        let mut out = String::from("$'");
        for c in a.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\'' => out.push_str("\\'"),
                '\n' => out.push_str("\\n"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                c if c.is_control() && (c as u32) < 0x80 => {
                    out.push_str(&format!("\\x{:02x}", c as u32))
                }
                c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('\'');
        return out;
    }
    if a.is_empty()
        || a.contains(|c: char| c.is_whitespace() || "'\"$*?&|;<>()`\\#~!{}[]".contains(c))
    {
        format!("'{}'", a.replace('\'', "'\\''"))
    } else {
        a.to_string()
    }
}

#[cfg(test)]
mod tests {
    /// Plain words stay as they are; anything a shell would read otherwise is single-quoted,
    /// a quote inside closed, escaped and reopened.
    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        use super::shell_word;
        assert_eq!(shell_word("settings.p=-1"), "settings.p=-1");
        assert_eq!(shell_word("a/b c.toml"), "'a/b c.toml'");
        assert_eq!(shell_word("ranking.score=vp*2"), "'ranking.score=vp*2'");
        assert_eq!(shell_word("win_rate(First)"), "'win_rate(First)'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
        assert_eq!(shell_word("a`b\n# c's\\"), r"$'a`b\n# c\'s\\'");
    }
}
