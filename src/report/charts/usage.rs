//! The usage chart of a run: a heat map of each faction's share of its decisions by action,
//! with the win-rate difference (games with the action against games without) written in
//! the cells where it is beyond noise.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::*;

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
    // Room for the longest faction name (about 8 pixels a character at size 13), at most a
    // third of the width.
    let longest = factions
        .iter()
        .map(|f| f.chars().count())
        .max()
        .unwrap_or(0) as u32;
    let label_w = (16 + 8 * longest).min(plot.dim_in_pixel().0 / 3);
    let top = (s.factions.iter().flat_map(|f| &f.usage))
        .map(|u| u.share)
        .fold(0.0, f64::max)
        .max(1e-9);
    // The axis's caption, shortened when the chart is too narrow for it.
    let long = "share of the faction's decisions; ±N pp: its win rate with the action minus without, where beyond noise";
    let short = "share of decisions; ±N pp: win rate with minus without (beyond noise)";
    let style = TextStyle::from(("sans-serif", 13).into_font());
    let width = plot.dim_in_pixel().0.saturating_sub(label_w + 24);
    let fits = |t: &str| {
        plot.estimate_text_size(t, &style)
            .is_ok_and(|(w, _)| w <= width)
    };
    let desc = if fits(long) { long } else { short };
    let cell_w = width / actions.len().max(1) as u32;
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(60)
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
        .x_label_formatter(&label_at(&actions))
        .y_label_formatter(&label_at(&factions))
        .x_desc(desc)
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    for (fi, f) in s.factions.iter().enumerate() {
        for (ai, u) in f.usage.iter().enumerate() {
            let (x, y) = (ai as i32, nf - 1 - fi as i32);
            let t = u.share / top;
            let cell = [
                (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
            ];
            chart
                .draw_series(std::iter::once(Rectangle::new(cell, viridis(t).filled())))
                .map_err(e)?;
            // Dark text on the light (yellow) end of the scale, white on the dark end.
            let ink = if t > 0.6 { BLACK } else { WHITE };
            let share = if u.never_chosen {
                "never".to_string()
            } else {
                format!("{:.1}%", 100.0 * u.share)
            };
            // The share and the difference on one line, or on two when the cell is narrow.
            let pp = match u.difference {
                Some(d) if d.beyond_noise() => {
                    Some(format!("{} pp", crate::stats::signed_tenths(100.0 * d.est)))
                }
                _ => None,
            };
            let one = match &pp {
                Some(pp) => format!("{share} {pp}"),
                None => share.clone(),
            };
            let cell_fits = plot
                .estimate_text_size(&one, &TextStyle::from(("sans-serif", 14).into_font()))
                .is_ok_and(|(w, _)| w + 6 <= cell_w);
            let lines: Vec<(String, i32)> = match pp {
                Some(pp) if !cell_fits => vec![(share, -8), (pp, 8)],
                _ => vec![(one, 0)],
            };
            for (text, dy) in lines {
                let style = ("sans-serif", 14)
                    .into_font()
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
