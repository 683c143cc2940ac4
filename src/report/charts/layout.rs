//! Fitting text to a chart: the longest head of a text that fits a width, and a text
//! broken into lines of a width, ending in an ellipsis only when even its last line does
//! not fit. Widths are the bundled font's, as plotters measures them.

use plotters::coord::Shift;
use plotters::prelude::*;

/// The largest `k` in `0..=n` with `ok(k)`, for an `ok` that holds up to some `k` and not
/// after (`ok(0)` is taken to hold).
pub(super) fn longest(n: usize, ok: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if ok(mid) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

/// `text` in at most `lines` lines of at most `width` pixels in `font`: broken after a
/// separator (` · `) or at a space, the last line ending in an ellipsis when the rest does
/// not fit. Widths are the bundled font's, as plotters measures them.
pub(super) fn fit_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    font: &FontDesc,
    width: u32,
    lines: usize,
) -> Vec<String> {
    let style = TextStyle::from(font.clone());
    let fits = |t: &str| {
        area.estimate_text_size(t, &style)
            .map_or(true, |(tw, _)| tw <= width)
    };
    let mut out: Vec<String> = Vec::new();
    let mut rest = text.trim().to_string();
    while !rest.is_empty() {
        if fits(&rest) {
            out.push(std::mem::take(&mut rest));
            break;
        }
        if out.len() + 1 == lines.max(1) {
            // The last line: as many characters as fit, then an ellipsis.
            // A head's width grows with its length: the longest that fits is found by
            // bisection, so a long text costs O(n log n), not a measure per character.
            let ends: Vec<usize> = (rest.char_indices().map(|(i, _)| i))
                .chain([rest.len()])
                .collect();
            let head = |k: usize| format!("{}…", rest[..ends[k]].trim_end());
            let n = longest(ends.len() - 1, |k| fits(&head(k)));
            out.push(head(n));
            break;
        }
        // The longest head that fits, broken at a space (a ` · ` break keeps its dot).
        let spaces: Vec<usize> = rest.match_indices(' ').map(|(i, _)| i).collect();
        let fitting = longest(spaces.len(), |k| {
            k == 0 || fits(rest[..spaces[k - 1]].trim_end())
        });
        let cut = (fitting > 0).then(|| spaces[fitting - 1]);
        match cut {
            Some(i) if i > 0 => {
                out.push(rest[..i].trim_end().to_string());
                rest = rest[i..].trim_start().to_string();
            }
            _ => {
                // No space early enough: the ellipsis on this line.
                let ends: Vec<usize> = (rest.char_indices().map(|(i, _)| i))
                    .chain([rest.len()])
                    .collect();
                let head = |k: usize| format!("{}…", &rest[..ends[k]]);
                let n = longest(ends.len() - 1, |k| fits(&head(k)));
                out.push(head(n));
                break;
            }
        }
    }
    out
}

/// `text` cut to the longest head that fits `width` pixels in `style`, ending in an
/// ellipsis when cut; empty when not even one character and the ellipsis fit.
pub(super) fn abbreviate<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle<'_>,
    width: u32,
) -> String {
    let fits = |t: &str| {
        area.estimate_text_size(t, style)
            .is_ok_and(|(w, _)| w <= width)
    };
    if fits(text) {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    let head = |k: usize| format!("{}…", chars[..k].iter().collect::<String>());
    let k = longest(chars.len(), |k| k == 0 || fits(&head(k)));
    if k == 0 { String::new() } else { head(k) }
}
