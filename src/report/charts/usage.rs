//! The usage chart of a run: a heat map of each faction's actions, colored by the win-rate
//! difference (games with the action against games without) where it is beyond noise, with
//! a color bar; each cell notes the share of the faction's decisions and the difference,
//! where they fit (column labels are cut to their cell, never overprinted).

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::sweep::diverging;
use super::*;

/// `text` cut to the longest head that fits `width` pixels in `style`, ending in an
/// ellipsis when cut; empty when not even one character and the ellipsis fit.
fn abbreviate<DB: DrawingBackend>(
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

/// The number of leading characters every name shares, when at least 3 and every name
/// keeps at least one after it (0 otherwise).
fn common_prefix(names: &[String]) -> usize {
    let Some(first) = names.first() else {
        return 0;
    };
    let first: Vec<char> = first.chars().collect();
    let k = (names.iter().skip(1)).fold(first.len(), |k, n| {
        n.chars()
            .zip(&first)
            .take(k)
            .take_while(|(a, b)| a == *b)
            .count()
    });
    let keeps = names.iter().all(|n| n.chars().count() > k);
    if names.len() > 1 && k >= 3 && keeps {
        k
    } else {
        0
    }
}

fn usage_map<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let actions: Vec<String> = (s.factions.first().map(|f| &f.usage))
        .into_iter()
        .flatten()
        .map(|u| u.action.clone())
        .collect();
    // The first seat on top.
    let factions: Vec<String> = labels(s).into_iter().rev().collect();
    let nf = factions.len() as i32;
    let plot = frame(root, "Action usage by faction", &subtitle(s), &[])?;
    let (pw, ph) = plot.dim_in_pixel();
    let (maps, scale) = plot.split_horizontally(pw.saturating_sub(120));
    // The color: a cell's win-rate difference where it is beyond noise (grey elsewhere),
    // on a scale reaching the largest such difference either way (at least 1 pp).
    let beyond = |u: &crate::report::usage::ActionRow| u.difference.filter(|d| d.beyond_noise());
    let dev = (s.factions.iter().flat_map(|f| &f.usage))
        .filter_map(beyond)
        .map(|d| d.est.abs())
        .fold(0.01, f64::max);
    // Room for the longest faction name (about 8 pixels a character at size 13), at most a
    // third of the width.
    let longest_name = factions
        .iter()
        .map(|f| f.chars().count())
        .max()
        .unwrap_or(0) as u32;
    let label_w = (16 + 8 * longest_name).min(maps.dim_in_pixel().0 / 3);
    let caption = TextStyle::from(("sans-serif", 13).into_font());
    let width = maps.dim_in_pixel().0.saturating_sub(label_w + 24);
    let desc = [
        "each cell: the share of the faction's decisions; color and ±N pp: its win rate with the action minus without, where beyond noise",
        "share of decisions; color, ±N pp: win rate with minus without",
    ]
    .into_iter()
    .find(|t| maps.estimate_text_size(t, &caption).is_ok_and(|(w, _)| w <= width))
    .unwrap_or("share; color: with minus without");
    let cell_w = width / actions.len().max(1) as u32;
    // Column labels across when they fit their cells, else turned upright (about 14 units
    // a label), cut to the room below the map; never running into the next one.
    let across = (actions.iter()).all(|a| {
        maps.estimate_text_size(a, &caption)
            .is_ok_and(|(w, _)| w + 4 <= cell_w)
    });
    // Upright, a prefix every name shares is left out ("…r1c1" for "place_r1c1").
    let shared = common_prefix(&actions);
    let upright: Vec<String> = (actions.iter())
        .map(|a| match shared {
            0 => a.clone(),
            k => format!("…{}", a.chars().skip(k).collect::<String>()),
        })
        .collect();
    let longest_upright = (upright.iter())
        .filter_map(|a| maps.estimate_text_size(a, &caption).ok())
        .map(|(w, _)| w)
        .max()
        .unwrap_or(0);
    let upright_room = (longest_upright + 44).clamp(60, (ph / 3).max(60));
    // Wide cells keep their labels across, cut to the cell, rather than upright.
    let across = across || cell_w >= 56;
    let shown: Vec<String> = match (across, cell_w >= 14) {
        (true, _) => (actions.iter())
            .map(|a| abbreviate(&maps, a, &caption, cell_w.saturating_sub(4)))
            .collect(),
        (false, true) => (upright.iter())
            .map(|a| abbreviate(&maps, a, &caption, upright_room.saturating_sub(44)))
            .collect(),
        (false, false) => vec![String::new(); actions.len()],
    };
    let label_h = if across { 60 } else { upright_room };
    let cell_h = ph.saturating_sub(24 + label_h) / factions.len().max(1) as u32;
    let mut chart = ChartBuilder::on(&maps)
        .margin(12)
        .x_label_area_size(label_h)
        .y_label_area_size(label_w)
        .build_cartesian_2d(
            segments(actions.len()).into_segmented(),
            segments(factions.len()).into_segmented(),
        )
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(actions.len())
        .y_labels(factions.len())
        .x_label_formatter(&label_at(&shown))
        .y_label_formatter(&label_at(&factions))
        .x_desc(desc)
        .label_style(("sans-serif", 13))
        .x_label_style(match across {
            true => caption.clone(),
            false => caption
                .clone()
                .transform(FontTransform::Rotate90)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        })
        .axis_desc_style(caption.clone())
        .draw()
        .map_err(e)?;
    let note = TextStyle::from(("sans-serif", 14).into_font());
    let fits = |t: &str| {
        maps.estimate_text_size(t, &note)
            .is_ok_and(|(w, _)| w + 6 <= cell_w)
    };
    for (fi, f) in s.factions.iter().enumerate() {
        for (ai, u) in f.usage.iter().enumerate() {
            let (x, y) = (ai as i32, nf - 1 - fi as i32);
            let cell = [
                (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
            ];
            let d = beyond(u);
            let t = d.map_or(0.0, |d| d.est / dev);
            let fill = match d {
                Some(_) => diverging(t),
                None => RGBColor(228, 228, 228),
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(cell, fill.filled())))
                .map_err(e)?;
            // White text on the strong ends of the scale, dark elsewhere.
            let ink = if t.abs() > 0.6 { WHITE } else { BLACK };
            let share = if u.never_chosen {
                "never".to_string()
            } else {
                format!("{:.1}%", 100.0 * u.share)
            };
            let pp = d.map(|d| format!("{} pp", crate::stats::signed_tenths(100.0 * d.est)));
            // The share and the difference on one line, on two when the cell is narrow,
            // the difference alone when only it fits, nothing when nothing does.
            let lines: Vec<(String, i32)> = match pp {
                Some(pp) if fits(&format!("{share} {pp}")) => vec![(format!("{share} {pp}"), 0)],
                Some(pp) if cell_h >= 36 && fits(&share) && fits(&pp) => {
                    vec![(share, -8), (pp, 8)]
                }
                Some(pp) if fits(&pp) => vec![(pp, 0)],
                Some(_) => Vec::new(),
                None if fits(&share) && cell_h >= 18 => vec![(share, 0)],
                None => Vec::new(),
            };
            for (text, dy) in lines {
                let style = note
                    .clone()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)))
                            + Text::new(text, (0, dy), style),
                    ))
                    .map_err(e)?;
            }
        }
    }
    // The color bar: no difference (white) in the middle, the largest either way at the
    // ends, in percentage points.
    let (top, bottom) = (30i32, ph as i32 - 60);
    let mid = (top + bottom) / 2;
    let pp = |v: f64| format!("{} pp", crate::stats::signed_tenths(100.0 * v));
    let ticks = [(pp(dev), top), ("0".to_string(), mid), (pp(-dev), bottom)];
    color_bar(&scale, (top, bottom), |t| diverging(2.0 * t - 1.0), &ticks)?;
    scale
        .draw(&Text::new(
            "with − without",
            (4, top - 24),
            ("sans-serif", 13).into_font(),
        ))
        .map_err(e)?;
    scale
        .draw(&Text::new(
            "grey: within noise",
            (4, bottom + 16),
            ("sans-serif", 12).into_font(),
        ))
        .map_err(e)?;
    Ok(())
}

/// Writes `usage.png` and `usage.svg` when the run counted usage.
pub(super) fn write(
    dir: &Path,
    s: &Summary,
    size: Canvas,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    if s.factions.iter().all(|f| f.usage.is_empty()) {
        return Ok(());
    }
    render!(dir, "usage", size, written, usage_map(s));
    Ok(())
}
