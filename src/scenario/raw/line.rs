//! One-line texts of a scenario (titles, labels, descriptions, card names): [`Line`], a
//! string refused where it is written when it holds a line break or a control character or
//! is longer than [`MAX_LINE_CHARS`].

use schemars::JsonSchema;
use serde::Deserialize;

/// A text shown on one line (a title, a label, a description, a name): a TOML string without
/// a line break or any other control character, refused where it is written otherwise, so
/// that no text of a scenario adds lines, headings or table rows to a report or the terminal.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "String")]
pub struct Line(pub String);

/// The most characters a one-line text ([`Line`]) or a name may have: far more than a
/// title or label needs, and small enough that every table, chart and report lays it out
/// quickly and no text width can overflow a format's.
pub const MAX_LINE_CHARS: usize = 200;

impl TryFrom<String> for Line {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        let n = s.chars().count();
        if n > MAX_LINE_CHARS {
            return Err(format!(
                "this text is shown on one line and is {n} characters long: shorten it to at \
                 most {MAX_LINE_CHARS}"
            ));
        }
        match crate::diagnostic::not_one_line(&s) {
            Some(c) => Err(format!(
                "this text is shown on one line: remove the {} in it",
                if matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}' | '\u{85}') {
                    "line break".to_string()
                } else {
                    format!("control character U+{:04X}", c as u32)
                }
            )),
            None => Ok(Line(s)),
        }
    }
}

impl serde::Serialize for Line {
    /// As the string it is (the schema's defaults are written with it).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl std::ops::Deref for Line {
    type Target = String;
    fn deref(&self) -> &String {
        &self.0
    }
}

impl std::fmt::Display for Line {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl JsonSchema for Line {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Line".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(g)
    }
    fn inline_schema() -> bool {
        true
    }
}
