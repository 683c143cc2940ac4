//! Text in Markdown that renders as itself: a scenario's names and labels, a command line,
//! vpsim's own lines that hold them, and code spans and blocks that nothing inside them can
//! close (a name from a file must never turn into Markdown, links or raw HTML).

/// The longest run of backticks in `s`.
pub(super) fn longest_backticks(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `s` as a Markdown code span that nothing in `s` can close (a file name with backticks
/// must not turn the rest of the line into Markdown): fenced by more backticks than its
/// longest run, and padded with a space on each side when it holds one, as CommonMark asks.
pub fn code(s: &str) -> String {
    // A line break would end a table row or start a heading: shown escaped.
    let s = &crate::error::one_line(s);
    match longest_backticks(s) {
        0 => format!("`{s}`"),
        n => {
            let fence = "`".repeat(n + 1);
            format!("{fence} {s} {fence}")
        }
    }
}

/// Text from a scenario or the command line (a label, a name, an override) as Markdown
/// text that renders as itself: on one line, with every character Markdown gives a meaning
/// (emphasis, links, raw HTML, table cells, headings) escaped.
pub fn md_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '#' | '!' | '&' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// `text` as a fenced text block that nothing in it can close: fenced by more backticks
/// than its longest run (at least three).
pub fn code_block(text: &str) -> String {
    let fence = "`".repeat(3.max(longest_backticks(text) + 1));
    let nl = if text.ends_with('\n') { "" } else { "\n" };
    format!("{fence}text\n{text}{nl}{fence}\n")
}

/// A line of vpsim's own text holding labels and names from a scenario (a verdict, a
/// reading) as Markdown that renders as itself: everything [`md_text`] escapes is escaped,
/// except the code spans vpsim writes around names (a single backtick, text without a
/// backtick, a single backtick), which are inert whatever they hold and are kept.
pub fn md_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut rest = s;
    while let Some(at) = rest.find('`') {
        out.push_str(&md_text(&rest[..at]));
        let after = &rest[at + 1..];
        let lone = !out.ends_with('`') && !after.starts_with('`');
        match after.find('`') {
            Some(end)
                if lone
                    && end > 0
                    && !after[end + 1..].starts_with('`')
                    && !after[..end].chars().any(char::is_control) =>
            {
                out.push('`');
                out.push_str(&after[..end]);
                out.push('`');
                rest = &after[end + 1..];
            }
            _ => {
                out.push_str("\\`");
                rest = after;
            }
        }
    }
    out.push_str(&md_text(rest));
    out
}

/// Code spans for a table cell (`|` escaped), joined by commas; `none` when there are none.
pub fn code_cell(items: &[String], none: &str) -> String {
    if items.is_empty() {
        return none.to_string();
    }
    (items.iter())
        .map(|o| code(&o.replace('|', "\\|")))
        .collect::<Vec<_>>()
        .join(", ")
}
