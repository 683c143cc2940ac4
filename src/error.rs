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
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
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
        "{loc}: in game {game} of seed {seed}: {msg}\n  reproduce it with: vpsim trace {file} --seed {seed} --game {game}"
    )]
    Fault {
        /// The formula at fault.
        loc: Location,
        /// The scenario file.
        file: String,
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
