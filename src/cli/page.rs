//! The pages of a report folder: `report.md` (its header of what reproduces it, a command's
//! terminal text as a text block and a list) and `report.html` beside it.

use crate::error::Result;

use super::command_line;

/// The reproducibility header of a report that is not one run's (compare, sweep,
/// sensitivity, tune, exploit, ladder): vpsim version, scenario file and hash, seed, games
/// (`per` says per what: "per variant or point", "a level"), and the command.
pub fn report_header(title: &str, m: &crate::Model, seed: u64, games: u64, per: &str) -> String {
    format!(
        "# {}\n\nvpsim {} · scenario {} (FNV-1a `{}`) · seed {seed} · {} games {per}\n\nCommand: {}\n\n",
        crate::report::markdown::md_text(title),
        env!("CARGO_PKG_VERSION"),
        crate::report::markdown::code(&m.file),
        m.hash,
        crate::report::thousands(games),
        crate::report::markdown::code(&command_line())
    )
}

/// A command's terminal text for report.md: the part before the line that starts with
/// `list` as a text block, then that line as a paragraph and its indented lines as a bullet
/// list, so long sentences (verdicts, readings) wrap instead of scrolling.
pub fn text_then_list(text: &str, list: &str) -> String {
    use crate::report::markdown::{code_block, md_inline};
    let Some(at) = text.find(&format!("\n{list}")) else {
        return code_block(text);
    };
    let (block, rest) = text.split_at(at + 1);
    let mut md = code_block(block);
    md.push('\n');
    // The list's lines hold labels and names from the scenario: escaped, bar the code
    // spans vpsim writes around names.
    for line in rest.lines() {
        match line.strip_prefix("  ") {
            Some(item) => {
                md.push_str("- ");
                md.push_str(&md_inline(item));
                md.push('\n');
            }
            None if !line.trim().is_empty() => {
                md.push('\n');
                md.push_str(&md_inline(line));
                md.push_str("\n\n");
            }
            None => {}
        }
    }
    md
}

/// Writes `report.md` and `report.html` into a report folder. Both are terminal-safe
/// ([`crate::diagnostic::terminal_safe`]): a title's ESC or OSC 52 must not drive the
/// terminal of whoever runs `cat report.md`.
pub fn write_report(dir: &std::path::Path, md: &str, title: &str) -> Result<()> {
    let md = crate::diagnostic::terminal_safe(md);
    let title = crate::diagnostic::terminal_safe(title);
    crate::output::write_atomic(&dir.join("report.md"), md.as_bytes())?;
    crate::report::html::write(dir, &md, &title)?;
    super::report_at(dir);
    Ok(())
}
