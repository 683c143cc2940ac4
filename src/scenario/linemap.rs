//! Where each line of a scenario edited by `--set` and `--agent` came from.
//!
//! Owns the map from the edited text's lines to the file's: an override's edit keeps the
//! rest of the file as it was (toml_edit), so each edit is a run of lines replaced between a
//! common head and tail. Applying the overrides one at a time and matching head and tail
//! each time maps every line either to its line in the file or to the override that wrote
//! it, so that errors, faults and traces name the user's own line, or the flag.

use crate::error::Result;
use crate::overrides::Override;

/// Where a line of the edited text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// This line (1-based) of the file, unchanged.
    File(usize),
    /// Written by override `k` (an index into the overrides), at or near this line of the
    /// file.
    Flag(usize, usize),
}

/// The origin of every line of a scenario's text after its overrides.
#[derive(Debug, Clone, Default)]
pub struct LineMap {
    /// The origin of each line of the edited text (index = line - 1).
    lines: Vec<Origin>,
    /// Each override as its flag (`--set PATH=VALUE`, `--agent ...`).
    flags: Vec<String>,
}

impl LineMap {
    /// `text` after `overrides` (as [`crate::overrides::apply`] gives it), and the map of
    /// its lines, the overrides applied one at a time.
    pub fn new(text: &str, overrides: &[Override]) -> Result<(String, LineMap)> {
        let mut before = text.to_string();
        let mut lines: Vec<Origin> = (1..=text.split('\n').count()).map(Origin::File).collect();
        for k in 0..overrides.len() {
            let after = crate::overrides::apply(text, &overrides[..=k])?;
            lines = step(&before, &after, &lines, k);
            before = after;
        }
        let map = LineMap {
            lines,
            flags: overrides.iter().map(Override::flag).collect(),
        };
        Ok((before, map))
    }

    /// Where line `line` (1-based) of the edited text came from: the file's line, and the
    /// flag that wrote it when an override did.
    pub fn origin(&self, line: usize) -> (usize, Option<&str>) {
        match self.lines.get(line.wrapping_sub(1)) {
            Some(Origin::File(l)) => (*l, None),
            Some(Origin::Flag(k, near)) => (*near, self.flags.get(*k).map(String::as_str)),
            None => (line, None),
        }
    }
}

/// The origins of `after`'s lines, one edit on from `before` (whose lines' origins are
/// `was`): lines of the common head and tail keep theirs, the others are override `k`'s.
fn step(before: &str, after: &str, was: &[Origin], k: usize) -> Vec<Origin> {
    let b: Vec<&str> = before.split('\n').collect();
    let a: Vec<&str> = after.split('\n').collect();
    let head = b.iter().zip(&a).take_while(|(x, y)| x == y).count();
    let most = b.len().min(a.len()) - head;
    let tail = (b.iter().rev().zip(a.iter().rev()))
        .take(most)
        .take_while(|(x, y)| x == y)
        .count();
    // The file line the edit sits at: the first replaced line's, else the line before.
    let near = match was
        .get(head)
        .or_else(|| head.checked_sub(1).and_then(|i| was.get(i)))
    {
        Some(Origin::File(l)) | Some(Origin::Flag(_, l)) => *l,
        None => 1,
    };
    (0..a.len())
        .map(|i| {
            if i < head {
                was[i]
            } else if i >= a.len() - tail {
                was[i + b.len() - a.len()]
            } else {
                Origin::Flag(k, near)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(path: &str, value: &str) -> Override {
        Override {
            path: path.into(),
            value: value.into(),
        }
    }

    #[test]
    fn lines_keep_their_file_line_and_edited_ones_name_the_flag() {
        let text = "[scenario]\nname = \"x\"\nrounds = 3\n\n[settings]\ngoal = 10\nedge = 1\n";
        let (_, m) = LineMap::new(text, &[set("settings.goal", "12")]).unwrap();
        assert_eq!(m.origin(5), (5, None));
        assert_eq!(m.origin(6), (6, Some("--set settings.goal=12")));
        assert_eq!(m.origin(7), (7, None));
    }
}
