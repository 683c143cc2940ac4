//! The per-round charts of one run: the score race (one panel per faction) and the leader's
//! chance to win by round, drawn in the shared frame of [`super`]. Both stop at the last
//! round that 5% of the games reached, and say so in their subtitle. The whole-run charts
//! are in `run`.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::*;
use crate::stats::Spread;

/// The other factions' medians, drawn thin in each panel of the score race for comparison:
/// light enough to stay behind the panel's own faction.
const OTHERS: RGBColor = RGBColor(170, 170, 170);

/// The last round that at least 5% of the games reached (per-round charts stop there: a
/// round few games reach has an interval of a handful of games and a median that jumps).
fn live_rounds(s: &Summary) -> u32 {
    let mut reached = 0u64;
    let mut last = 1;
    let mut hist: Vec<(i64, u64)> = (s.length.histogram.iter())
        .map(|h| (h.rounds, h.count))
        .collect();
    hist.sort_unstable();
    // Games that reached round k: those whose length is k or more.
    for &(rounds, count) in hist.iter().rev() {
        reached += count;
        if reached * 20 >= s.games {
            last = rounds.max(1) as u32;
            break;
        }
    }
    last
}

/// The subtitle of a per-round chart cut at round `cut` of `longest`.
fn cut_subtitle(s: &Summary, cut: u32, longest: u32) -> String {
    if cut >= longest {
        subtitle(s)
    } else {
        format!("{} · to round {cut}, which 5% of games reach", subtitle(s))
    }
}

fn leader<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let cut = live_rounds(s);
    let longest = s.leader_by_round.last().map_or(1, |x| x.round);
    let l: Vec<_> = (s.leader_by_round.iter())
        .filter(|x| x.round <= cut)
        .cloned()
        .collect();
    let last = l.last().map_or(1, |x| x.round).max(2) as f64;
    let fair = 1.0 / s.factions.len().max(1) as f64;
    let plot = frame(
        root,
        "How often the sole leader after a round goes on to win",
        &cut_subtitle(s, cut, longest),
        &[
            ("leader wins".into(), Key::Line(color(0))),
            (
                "95% interval".into(),
                Key::Swatch(color(0).mix(0.25).to_rgba()),
            ),
            (
                format!("fair share {:.1}%", 100.0 * fair),
                Key::Dashed(BLACK),
            ),
        ],
    )?;
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(1f64..last, 0f64..1.0)
        .map_err(e)?;
    chart
        .configure_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_desc("after round")
        .y_desc("leader wins")
        .y_label_formatter(&|y| pct(*y))
        .x_labels(whole_ticks(1.0, last))
        .x_label_formatter(&whole)
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    let band: Vec<(f64, f64)> = l
        .iter()
        .map(|x| (x.round as f64, x.won.high))
        .chain(l.iter().rev().map(|x| (x.round as f64, x.won.low)))
        .collect();
    chart
        .draw_series(std::iter::once(Polygon::new(
            band,
            color(0).mix(0.25).filled(),
        )))
        .map_err(e)?;
    chart
        .draw_series(LineSeries::new(
            l.iter().map(|x| (x.round as f64, x.won.rate)),
            color(0).stroke_width(3),
        ))
        .map_err(e)?;
    chart
        .draw_series(DashedLineSeries::new(
            vec![(1.0, fair), (last, fair)],
            8,
            6,
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
    root.present().map_err(e)
}

/// `text` cut to about `px` pixels (9 a character, as `wrap` counts), with an ellipsis.
fn fit(text: &str, px: u32) -> String {
    let max = (px / 9).max(4) as usize;
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// The score race as small multiples: one panel per faction, all on the same axes, each with
/// the faction's median score after every round (a line in its color) and its quartiles (a
/// band in the same color), over the other factions' medians as thin grey lines to compare
/// against. Each panel's title names its faction in its color, so there is no legend column:
/// a note under the title says what the band and the grey lines are.
///
/// Medians are whole numbers, so factions running level share a line: in one plot they would
/// hide each other, and moving them sideways or up made equal medians look different. In a
/// panel of its own every faction stays visible at its true round and score, and the grey
/// lines show at a glance whether it runs ahead of, level with or behind the field. One band
/// a panel keeps the bands from piling up into one colorless mass.
///
/// A round's medians and quartiles are over the games still playing after it: a game that
/// reaches the goal ends and drops out, so a median can stall just short of the goal. The y
/// axis says so.
fn race<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let cut = live_rounds(s);
    let longest = s.by_round.last().map_or(1, |x| x.round);
    let last = (s.by_round.iter())
        .filter(|r| r.round <= cut)
        .map(|r| r.round)
        .max()
        .unwrap_or(1)
        .max(2) as f64;
    let names = labels(s);
    let nf = names.len();
    // Each faction's spread after every kept round it has a score for.
    let series: Vec<Vec<(f64, Spread)>> = (0..nf)
        .map(|f| {
            (s.by_round.iter())
                .filter(|r| r.round <= cut)
                .filter_map(|r| (r.scores.get(f).copied().flatten()).map(|x| (r.round as f64, x)))
                .collect()
        })
        .collect();
    let plot = frame(
        root,
        "Score race: median and quartiles after each round",
        &cut_subtitle(s, cut, longest),
        &[],
    )?;
    // One y range for every panel, from the lowest first quartile (or 0) to the highest third
    // quartile, with headroom above it so that no band runs along the top edge.
    let spreads: Vec<Spread> = series.iter().flatten().map(|p| p.1).collect();
    let lo = spreads.iter().map(|x| x.q1).min().unwrap_or(0).min(0);
    let hi = spreads.iter().map(|x| x.q3).max().unwrap_or(1).max(lo + 1);
    let pad = ((hi as f64 - lo as f64) * 0.08).max(0.4);
    let ylo = if lo < 0 { lo as f64 - pad } else { lo as f64 };
    let yhi = hi as f64 + pad;

    // What the band and the grey lines are, once for all panels, under the title.
    let others = match nf {
        0 | 1 => "",
        2 => " · grey: the other faction's median",
        _ => " · grey: the other factions' medians",
    };
    let (note, plot) = plot.split_vertically(22);
    note.draw(&Text::new(
        format!("band: quartiles{others}"),
        (20, 2),
        ("sans-serif", 14).into_font().color(&GREY),
    ))
    .map_err(e)?;

    // The axes' names once for all panels: the score left of the grid, "after round" below.
    let (_, h) = plot.dim_in_pixel();
    let foot_h = 30;
    let grid_h = h.saturating_sub(foot_h);
    let (side, rest) = plot.split_horizontally(28);
    let (grid, foot) = rest.split_vertically(grid_h);
    let axis = ("sans-serif", 16).into_font();
    let upright = axis
        .transform(FontTransform::Rotate270)
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    // The longest name of the score axis that fits beside the grid.
    let mut y_name = "score";
    for candidate in [
        "score, among games still playing",
        "score (games still playing)",
    ] {
        let (len, _) = side
            .estimate_text_size(candidate, &axis.color(&BLACK))
            .map_err(e)?;
        if len + 20 <= grid_h {
            y_name = candidate;
            break;
        }
    }
    side.draw(&Text::new(y_name, (4, (grid_h / 2) as i32), upright))
        .map_err(e)?;
    let (foot_w, _) = foot.dim_in_pixel();
    foot.draw(&Text::new(
        "after round",
        ((foot_w / 2) as i32, 4),
        axis.color(&BLACK).pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(e)?;

    // A near-square grid: 2 factions side by side, 4 in 2 x 2, 6 in 3 x 2, 16 in 4 x 4.
    let cols = (nf.max(1) as f64).sqrt().ceil() as usize;
    let rows = nf.max(1).div_ceil(cols);
    let panels = grid.split_evenly((rows, cols));
    let (pw, ph) = panels.first().map_or((0, 0), |p| p.dim_in_pixel());
    let widest = [lo, hi]
        .iter()
        .map(|v| whole(&(*v as f64)).chars().count())
        .max()
        .unwrap_or(1) as u32;
    let y_area = (14 + 8 * widest).clamp(30, 90);
    let x_ticks = whole_ticks(1.0, last).min((pw / 45).max(2) as usize);
    let y_ticks = whole_ticks(ylo, yhi).min((ph / 30).max(2) as usize);
    for (f, area) in panels.iter().enumerate().take(nf) {
        let c = color(f);
        let mut chart = ChartBuilder::on(area)
            .caption(fit(&names[f], pw), ("sans-serif", 16).into_font().color(&c))
            .margin(6)
            // Room for half the last x label past the plot's edge.
            .margin_right(14)
            .x_label_area_size(24)
            .y_label_area_size(y_area)
            .build_cartesian_2d(1f64..last, ylo..yhi)
            .map_err(e)?;
        chart
            .configure_mesh()
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .x_labels(x_ticks)
            .y_labels(y_ticks)
            .x_label_formatter(&whole)
            .y_label_formatter(&whole)
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(e)?;
        let own = &series[f];
        if !own.is_empty() {
            let band: Vec<(f64, f64)> = (own.iter())
                .map(|(x, v)| (*x, v.q3 as f64))
                .chain(own.iter().rev().map(|(x, v)| (*x, v.q1 as f64)))
                .collect();
            chart
                .draw_series(std::iter::once(Polygon::new(band, c.mix(BAND).filled())))
                .map_err(e)?;
        }
        for (g, other) in series.iter().enumerate() {
            if g != f && !other.is_empty() {
                chart
                    .draw_series(LineSeries::new(
                        other.iter().map(|(x, v)| (*x, v.median as f64)),
                        OTHERS.stroke_width(2),
                    ))
                    .map_err(e)?;
            }
        }
        chart
            .draw_series(LineSeries::new(
                own.iter().map(|(x, v)| (*x, v.median as f64)),
                c.stroke_width(3),
            ))
            .map_err(e)?;
    }
    root.present().map_err(e)
}

/// Writes the per-round charts of a run into `dir` (each only when the run has its rounds),
/// adding the files to `written`.
pub(super) fn write(
    dir: &Path,
    s: &Summary,
    size: Canvas,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    if !s.leader_by_round.is_empty() {
        render!(dir, "leader_by_round", size, written, leader(s));
    }
    if !s.by_round.is_empty() {
        render!(dir, "score_race", size, written, race(s));
    }
    Ok(())
}
