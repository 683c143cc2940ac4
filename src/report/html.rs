//! `report.html`: the report of a command as one self-contained page.
//!
//! Owns turning a `report.md` into HTML (pulldown-cmark, with tables), with every chart it
//! shows inlined as SVG from the report folder, a small stylesheet, and a short inline
//! script that sorts a table by the column whose header is clicked. The page loads nothing:
//! no network, no external script, stylesheet or font.

use std::fmt::Write as _;
use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd, html};

use crate::error::Result;

/// The page's style: readable width, light table rules, charts scaled to the column.
const STYLE: &str = "body{font-family:'DejaVu Sans',Verdana,sans-serif;max-width:1000px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ddd}
table{border-collapse:collapse;margin:1em 0;font-size:.9em}th,td{border:1px solid #ddd;padding:.3em .6em;text-align:left}
th{background:#f4f4f4}thead th:not(:empty){cursor:pointer;user-select:none}
thead th:not(:empty):after{content:' \\2195';color:#999}
thead th[aria-sort=ascending]:after{content:' \\2191'}thead th[aria-sort=descending]:after{content:' \\2193'}
tr:nth-child(even) td{background:#fafafa}figure{margin:1em 0}figure svg{max-width:100%;height:auto}
code,pre{background:#f6f6f6;font-size:.9em}pre{padding:.8em;overflow-x:auto}";

/// Sorts a table by a clicked column header: numbers (the leading number of a cell such as
/// `48.1% [47.4, 48.8]`) numerically, anything else as text; a second click reverses. A
/// header cell with no text (none is written, see `key_value_table`) and a row's header are
/// not sortable.
const SCRIPT: &str = "document.querySelectorAll('table').forEach(function(t){
var hs=t.querySelectorAll('thead th');hs.forEach(function(h,i){if(!h.textContent.trim())return;h.addEventListener('click',function(){
var b=t.tBodies[0];if(!b)return;var asc=h.getAttribute('aria-sort')!=='ascending';
hs.forEach(function(x){x.removeAttribute('aria-sort')});h.setAttribute('aria-sort',asc?'ascending':'descending');
var key=function(r){var s=r.cells[i]?r.cells[i].textContent.trim():'';var n=parseFloat(s.replace(/,/g,''));return isNaN(n)?s:n};
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){var a=key(x),c=key(y);
var d=(typeof a==='number'&&typeof c==='number')?a-c:String(a).localeCompare(String(c));return asc?d:-d});
rows.forEach(function(r){b.appendChild(r)})})})});";

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The chart an image link names, as inline SVG from `dir` (`x.png` is drawn from `x.svg`),
/// or `None` when the folder has no such chart.
fn inline_svg(dir: &Path, src: &str) -> Option<String> {
    let name = Path::new(src).file_stem()?.to_str()?;
    if src.contains("..") || src.contains('/') {
        return None;
    }
    let svg =
        std::fs::read_to_string(crate::output::staged(&dir.join(format!("{name}.svg")))).ok()?;
    // The XML declaration has no place inside HTML.
    let body = match svg.find("<svg") {
        Some(i) => &svg[i..],
        None => return None,
    };
    Some(body.to_string())
}

/// Whether a link may keep its target in a shared page: `http:`, `https:` and `mailto:`
/// links and relative ones (no scheme: no `:` before the first `/`, `?` or `#`). Anything
/// else (`javascript:`, `data:`, `vbscript:`, a scheme hidden by case, blanks or control
/// characters) would run or load something on a click.
fn safe_link(url: &str) -> bool {
    let end = url.find(['/', '?', '#']).unwrap_or(url.len());
    match url[..end].find(':') {
        None => true,
        Some(i) => ["http", "https", "mailto"].contains(&url[..i].to_ascii_lowercase().as_str()),
    }
}

/// Whether `ev` is a chart inlined by [`page`] (the only raw HTML in its events: raw HTML
/// in the Markdown is turned into text).
fn is_figure(ev: &Event<'_>) -> bool {
    matches!(ev, Event::Html(h) if h.starts_with("<figure"))
}

/// `events` with every chart out of its paragraph (a `<figure>` may not sit in a `<p>`): a
/// paragraph that holds only the chart is dropped, one with text around it is closed before
/// the chart and opened again after it for the rest of its text.
fn lift_figures(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut out = Vec::with_capacity(events.len());
    // In a paragraph: whether it is open in `out` (false once a chart closed it).
    let mut para: Option<bool> = None;
    for ev in events {
        let figure = is_figure(&ev);
        let starts = matches!(ev, Event::Start(Tag::Paragraph));
        let ends = matches!(ev, Event::End(TagEnd::Paragraph));
        let line_break = matches!(ev, Event::SoftBreak | Event::HardBreak);
        match para {
            _ if starts => {
                para = Some(true);
                out.push(ev);
            }
            Some(open) if ends => {
                if open {
                    out.push(ev);
                }
                para = None;
            }
            Some(true) if figure => {
                if matches!(out.last(), Some(Event::Start(Tag::Paragraph))) {
                    out.pop();
                } else {
                    out.push(Event::End(TagEnd::Paragraph));
                }
                out.push(ev);
                para = Some(false);
            }
            // The line break between a chart and what follows it.
            Some(false) if line_break => {}
            Some(false) if !figure => {
                out.push(Event::Start(Tag::Paragraph));
                out.push(ev);
                para = Some(true);
            }
            _ => out.push(ev),
        }
    }
    out
}

/// The cells of a table's head: whether every one is empty (a Markdown table of names and
/// values, such as report.md's run metadata, has no column names to give).
fn head_is_empty(table: &[Event<'_>]) -> bool {
    let mut in_head = false;
    for ev in table {
        match ev {
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => return true,
            Event::Start(Tag::TableCell) | Event::End(TagEnd::TableCell) => {}
            _ if in_head => return false,
            _ => {}
        }
    }
    false
}

/// A table (its events, `Start(Table)` to `End(Table)`) whose head is empty as a table of
/// names and values: no head, and each row's first cell its header (`<th scope="row">`),
/// which the sort script leaves alone. Any other table is returned as it is.
fn key_value_table(table: Vec<Event<'_>>) -> Vec<Event<'_>> {
    if !head_is_empty(&table) {
        return table;
    }
    let html = |s: &str| Event::Html(s.to_string().into());
    let mut out = Vec::with_capacity(table.len());
    let (mut in_head, mut cell) = (false, 0);
    // The closing tag of the cell being written.
    let mut close = "</td>";
    for ev in table {
        match ev {
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            _ if in_head => {}
            Event::Start(Tag::Table(_)) => out.push(html("<table>\n<tbody>\n")),
            Event::End(TagEnd::Table) => out.push(html("</tbody></table>\n")),
            Event::Start(Tag::TableRow) => {
                cell = 0;
                out.push(html("<tr>"));
            }
            Event::End(TagEnd::TableRow) => out.push(html("</tr>\n")),
            Event::Start(Tag::TableCell) => {
                let open = if cell == 0 {
                    "<th scope=\"row\">"
                } else {
                    "<td>"
                };
                close = if cell == 0 { "</th>" } else { "</td>" };
                out.push(html(open));
                cell += 1;
            }
            Event::End(TagEnd::TableCell) => out.push(html(close)),
            other => out.push(other),
        }
    }
    out
}

/// `events` with every table whose head is empty written as a table of names and values
/// ([`key_value_table`]): no empty, sortable column header.
fn name_value_tables(events: Vec<Event<'_>>) -> Vec<Event<'_>> {
    let mut out = Vec::with_capacity(events.len());
    let mut it = events.into_iter();
    while let Some(ev) = it.next() {
        if matches!(ev, Event::Start(Tag::Table(_))) {
            let mut table = vec![ev];
            for e in it.by_ref() {
                let end = matches!(e, Event::End(TagEnd::Table));
                table.push(e);
                if end {
                    break;
                }
            }
            out.extend(key_value_table(table));
        } else {
            out.push(ev);
        }
    }
    out
}

/// `md` as a complete HTML page titled `title`, with its charts inlined from `dir`. A link
/// whose target is not safe (`safe_link`) keeps its text and loses its target. Charts stand
/// outside paragraphs, and a table with an empty head is a table of names and values.
pub fn page(md: &str, dir: &Path, title: &str) -> String {
    let mut events = Vec::new();
    let mut image: Option<(String, String)> = None;
    let mut dropped_link = false;
    for ev in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match ev {
            Event::Start(Tag::Link { ref dest_url, .. }) if !safe_link(dest_url) => {
                dropped_link = true;
            }
            Event::End(TagEnd::Link) if dropped_link => dropped_link = false,
            Event::Start(Tag::Image { dest_url, .. }) => {
                image = Some((dest_url.to_string(), String::new()));
            }
            Event::End(TagEnd::Image) => {
                if let Some((src, alt)) = image.take() {
                    let html = match inline_svg(dir, &src) {
                        Some(svg) => format!(
                            "<figure role=\"img\" aria-label=\"{}\">{svg}</figure>",
                            escape(&alt)
                        ),
                        None => format!("<em>(chart {} not in this folder)</em>", escape(&src)),
                    };
                    events.push(Event::Html(html.into()));
                }
            }
            Event::Text(t) if image.is_some() => {
                if let Some((_, alt)) = &mut image {
                    alt.push_str(&t);
                }
            }
            // The Markdown is vpsim's own; raw HTML in it can only come from a name in a
            // scenario, and is shown as text.
            Event::Html(h) | Event::InlineHtml(h) if image.is_none() => events.push(Event::Text(h)),
            other if image.is_none() => events.push(other),
            _ => {}
        }
    }
    let events = name_value_tables(lift_figures(events));
    let mut body = String::new();
    html::push_html(&mut body, events.into_iter());
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}<script>{SCRIPT}</script>\n</body>\n</html>\n",
        escape(title)
    );
    out
}

/// Writes `dir/report.html` from the report's Markdown.
pub fn write(dir: &Path, md: &str, title: &str) -> Result<std::path::PathBuf> {
    let path = dir.join("report.html");
    // The page inlines the charts' SVG: every text in it is terminal-safe, as report.md is.
    let page = page(md, dir, title);
    crate::output::write_atomic(&path, crate::diagnostic::terminal_safe(&page).as_bytes())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    /// Every link vector that could run script on a click loses its target; plain links
    /// keep theirs.
    #[test]
    fn only_web_mail_and_relative_links_keep_their_target() {
        let dir = std::env::temp_dir();
        let bad = [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](java&#x09;script:alert(1))",
            "[x](java%0ascript:alert(1))",
            "[x](<javascript:alert(1)>)",
            "<javascript:alert(1)>",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox)",
            "[x][r]\n\n[r]: javascript:alert(1)",
            "[x](file:///etc/passwd)",
        ];
        for md in bad {
            let html = super::page(md, &dir, "t").to_ascii_lowercase();
            assert!(!html.contains("href"), "{md}: {html}");
        }
        for (md, href) in [
            (
                "[x](https://example.org/a?b=1)",
                "https://example.org/a?b=1",
            ),
            ("[x](HTTP://example.org)", "HTTP://example.org"),
            ("[x](mailto:a@example.org)", "mailto:a@example.org"),
            ("[x](wins.png)", "wins.png"),
            ("[x](#length)", "#length"),
            ("[x](a/b:c)", "a/b:c"),
        ] {
            let html = super::page(md, &dir, "t");
            assert!(html.contains(&format!("href=\"{href}\"")), "{md}: {html}");
        }
    }

    #[test]
    fn charts_are_inlined_and_tables_kept() {
        let dir = std::env::temp_dir().join(format!("vpsim-html-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("wins.svg"),
            "<?xml version=\"1.0\"?>\n<svg width=\"10\" height=\"10\"><rect/></svg>",
        )
        .unwrap();
        let md = "# Title <x>\n\n![Win rates](wins.png)\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![Gone](gone.png)\n";
        let html = super::page(md, &dir, "T & U");
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>T &amp; U</title>"));
        assert!(html.contains("<h1>Title &lt;x&gt;</h1>"), "{html}");
        assert!(html.contains("<figure role=\"img\" aria-label=\"Win rates\"><svg width=\"10\""));
        assert!(!html.contains("<?xml"));
        assert!(!html.contains("<img"));
        assert!(html.contains("<th>a</th>") && html.contains("<td>2</td>"));
        assert!(html.contains("chart gone.png not in this folder"));
        assert!(!html.contains("src=\"http") && !html.contains("<link"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A chart never sits in a paragraph (a `<p>` holding only it is dropped; text around it
    /// stays in paragraphs of its own), and a table with an empty head becomes names and
    /// values: row headers, no empty column header for the sort script.
    #[test]
    fn charts_stand_outside_paragraphs_and_no_column_header_is_empty() {
        let dir = std::env::temp_dir().join(format!("vpsim-html-p-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("wins.svg"), "<svg width=\"1\"></svg>").unwrap();
        let md = "![Wins](wins.png)\n\nBefore ![Wins](wins.png)\nafter.\n\n| | |\n|---|---|\n| seed | `1` |\n| games | 300 |\n\n| a | b |\n|---|---|\n| 1 | 2 |\n";
        let html = super::page(md, &dir, "t");
        assert_eq!(html.matches("<figure").count(), 2, "{html}");
        assert!(!html.contains("<p><figure"), "{html}");
        assert!(html.contains("<p>Before </p>\n<figure"), "{html}");
        assert!(html.contains("</figure>\n<p>after.</p>"), "{html}");
        assert_eq!(html.matches("<p>").count(), html.matches("</p>").count());
        assert!(html.contains("<tr><th scope=\"row\">seed</th><td><code>1</code></td></tr>"));
        assert!(!html.contains("<th></th>"), "{html}");
        assert!(
            html.contains("<thead><tr><th>a</th><th>b</th></tr></thead>"),
            "{html}"
        );
        assert_eq!(html.matches("<thead>").count(), 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
