//! The charts of agent skill: each faction's win rate under its configured agents beside its
//! best response's (how far a faction can be exploited), and the skill ladder (each faction's
//! win rate at each skill level, every faction on that level), drawn in the shared frame of
//! [`super`].

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::*;
use crate::stats::Rate;

/// The bars of the configured agents: a neutral grey, so that the best response stands out.
const BASE: RGBColor = RGBColor(165, 165, 165);

/// The gap between a faction's pair of bars and the edges of its slot (which spans 1).
const EDGE: f64 = 0.1;
/// Each bar's width: the two bars of a pair are 0.02 apart in the middle of the slot.
const BAR: f64 = 0.39;

/// Padding of the ladder's x axis beyond the first and last level (1 is one level's step).
const PAD: f64 = 0.4;

fn exploit<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    rows: &[(String, Rate, Rate)],
    fair: f64,
) -> Draw {
    let keys = [
        ("configured agents".to_string(), Key::Swatch(BASE.to_rgba())),
        ("best response".to_string(), Key::Swatch(color(0).to_rgba())),
        (
            format!("fair share {:.1}%", 100.0 * fair),
            Key::Dashed(BLACK),
        ),
    ];
    let plot = frame(root, title, sub, &keys)?;
    let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
    // The axis reaches a little past the highest whisker and the fair share, not 100%.
    let y_top = share_top(
        (rows.iter())
            .flat_map(|r| [r.1.high, r.2.high])
            .fold(fair, f64::max),
    );
    let chart = faction_chart(
        &plot,
        &names,
        0f64..y_top,
        &|y| pct(*y),
        "win rate (95% intervals)",
    )?;
    // The same plot area in plain numbers, slot i spanning i..i+1 (one faction gets a second,
    // empty slot, as in `segments`), so that two bars can share a slot.
    let slots = names.len().max(2) as f64;
    let area = chart.plotting_area().strip_coord_spec();
    let mut over = ChartBuilder::on(&area)
        .build_cartesian_2d(0f64..slots, 0f64..y_top)
        .map_err(e)?;
    let top = area.get_pixel_range().1.start;
    // A value label never sits on the fair-share line.
    let (_, fair_y) = over.backend_coord(&(0.0, fair));
    let clear = |from: i32, to: i32| fair_y < from - 1 || fair_y > to + 1;
    let font = ("sans-serif", 13).into_font();
    let probe = TextStyle::from(font.clone());
    for (i, (_, base, best)) in rows.iter().enumerate() {
        let i = i as f64;
        let pair = [
            (base, i + EDGE, BASE, BLACK),
            (best, i + 1.0 - EDGE - BAR, color(0), WHITE),
        ];
        for (r, x0, fill, ink) in pair {
            let x1 = x0 + BAR;
            let x = (x0 + x1) / 2.0;
            over.draw_series(std::iter::once(Rectangle::new(
                [(x0, 0.0), (x1, r.rate)],
                fill.filled(),
            )))
            .map_err(e)?;
            whisker!(over, (x, r.low), (x, r.high), [(-5, 0), (5, 0)]);
            // The value above the whisker, or inside the bar below it when the whisker
            // reaches the top; left out when neither has room or the bar is too narrow.
            let text = format!("{:.1}%", 100.0 * r.rate);
            let (tw, th) = plot.estimate_text_size(&text, &probe).map_err(e)?;
            let (tw, th) = (tw as i32, th as i32);
            let (left, zero) = over.backend_coord(&(x0, 0.0));
            let (right, _) = over.backend_coord(&(x1, 0.0));
            if tw + 4 > right - left {
                continue;
            }
            let (hi, lo) = (r.high.max(r.rate), r.low.min(r.rate));
            let (_, up) = over.backend_coord(&(x, hi));
            let (_, down) = over.backend_coord(&(x, lo));
            let label = if up - 4 - th >= top && clear(up - 4 - th, up - 4) {
                let style = font.color(&BLACK).pos(Pos::new(HPos::Center, VPos::Bottom));
                Some(EmptyElement::at((x, hi)) + Text::new(text, (0, -4), style))
            } else if zero - down >= th + 8 && clear(down + 4, down + 4 + th) {
                let style = font.color(&ink).pos(Pos::new(HPos::Center, VPos::Top));
                Some(EmptyElement::at((x, lo)) + Text::new(text, (0, 4), style))
            } else {
                None
            };
            over.draw_series(label).map_err(e)?;
        }
    }
    over.draw_series(DashedLineSeries::new(
        vec![(0.0, fair), (slots, fair)],
        8,
        6,
        BLACK.stroke_width(1),
    ))
    .map_err(e)?;
    root.present().map_err(e)
}

fn ladder<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    levels: &[String],
    series: &[(String, Vec<Rate>)],
    fair: f64,
) -> Draw {
    let mut keys: Vec<(String, Key)> = series
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), Key::Line(color(i))))
        .collect();
    keys.push((
        format!("fair share {:.1}%", 100.0 * fair),
        Key::Dashed(BLACK),
    ));
    let plot = frame(root, title, sub, &keys)?;
    let n = levels.len().max(1);
    let (lo, hi) = (-PAD, (n - 1) as f64 + PAD);
    let top = share_top(
        series
            .iter()
            .flat_map(|s| s.1.iter().map(|r| r.high))
            .fold(fair, f64::max),
    );
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(72)
        .y_label_area_size(70)
        .build_cartesian_2d(lo..hi, 0f64..top)
        .map_err(e)?;
    // No numeric x ticks: the levels are drawn below as categories.
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_labels(0)
        .x_desc("skill level (every faction on it)")
        .y_desc("win rate (95% intervals)")
        .y_label_formatter(&pct_for(top))
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    let (xr, yr) = chart.plotting_area().get_pixel_range();
    let unit = f64::from((xr.end - xr.start).max(1)) / (hi - lo);
    let tol = 12.0 * top / f64::from((yr.end - yr.start).max(1));
    // Factions are set a little apart (the same at every level) only when two of them would
    // have overlapping whiskers or dots (within 12 pixels) at some level.
    let close = |p: &Rate, q: &Rate| p.low - tol <= q.high && q.low - tol <= p.high;
    let crowded = (0..levels.len()).any(|j| {
        series.iter().enumerate().any(|(a, (_, ra))| {
            series[a + 1..]
                .iter()
                .any(|(_, rb)| matches!((ra.get(j), rb.get(j)), (Some(p), Some(q)) if close(p, q)))
        })
    });
    let m = series.len();
    let step = if crowded && m > 1 {
        (14.0 / unit).min(0.4 / (m - 1) as f64)
    } else {
        0.0
    };
    chart
        .draw_series(DashedLineSeries::new(
            vec![(lo, fair), (hi, fair)],
            8,
            6,
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
    for (k, (_, rates)) in series.iter().enumerate() {
        let c = color(k);
        let dx = (k as f64 - m.saturating_sub(1) as f64 / 2.0) * step;
        let points = rates
            .iter()
            .take(levels.len())
            .enumerate()
            .map(|(j, r)| (j as f64 + dx, r));
        chart
            .draw_series(LineSeries::new(
                points.clone().map(|(x, r)| (x, r.rate)),
                c.stroke_width(3),
            ))
            .map_err(e)?;
        // The whisker with 10-pixel caps, in the faction's color, and a dot at the estimate.
        chart
            .draw_series(points.map(|(x, r)| {
                ErrorBar::new_vertical(x, r.low, r.rate, r.high, c.filled().stroke_width(2), 10)
            }))
            .map_err(e)?;
    }
    // The level names under their positions: smaller when they would run into each other,
    // and on two alternating rows when even the smallest size does not fit.
    let room = (unit - 8.0).max(1.0);
    let probe = TextStyle::from(("sans-serif", 16).into_font());
    let mut widest = 1u32;
    for level in levels {
        widest = widest.max(plot.estimate_text_size(level, &probe).map_err(e)?.0);
    }
    let widest = f64::from(widest);
    let size = (16.0 * room / widest).clamp(11.0, 16.0).floor();
    let stagger = widest * size / 16.0 > room;
    let font =
        TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    let (bx, by) = plot.get_base_pixel();
    for (j, level) in levels.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(j as f64, 0.0));
        let (x, y) = (x - bx, y - by);
        let row = if stagger && j % 2 == 1 { 19 } else { 0 };
        plot.draw(&PathElement::new(
            vec![(x, y), (x, y + 5 + row)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
        plot.draw(&Text::new(level.clone(), (x, y + 8 + row), font.clone()))
            .map_err(e)?;
    }
    root.present().map_err(e)
}

/// Each faction's win rate under its configured agents (baseline) beside its best response's,
/// with 95% whiskers, on the fresh games that confirmed it; a dashed line at the fair share
/// (`name.png` / `.svg`). `rows` holds (faction label, baseline, best response), at most 8.
pub fn write_exploit(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    rows: &[(String, Rate, Rate)],
    fair: f64,
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(dir, name, size, written, exploit(title, sub, rows, fair));
    Ok(written)
}

/// Each faction's win rate at each skill level (every faction on that level), a line per
/// faction with 95% whiskers, the levels as categories on the x axis, a dashed line at the
/// fair share (`name.png` / `.svg`). `series` holds, per faction label, one rate per level
/// in the order of `levels`.
pub fn write_ladder(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    levels: &[String],
    series: &[(String, Vec<Rate>)],
    fair: f64,
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(
        dir,
        name,
        size,
        written,
        ladder(title, sub, levels, series, fair)
    );
    Ok(written)
}

/// The matchups' heat map: rows the one faction's level, columns the others' level, each
/// cell its win rate and edge over the fair share (darker: a smaller edge).
fn matchups<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    (title, sub): (&str, &str),
    levels: &[String],
    cells: &[(usize, usize, Rate)],
    fair: f64,
) -> Draw {
    let plot = frame(root, title, sub, &[])?;
    let n = levels.len();
    // The first level on top.
    let rows: Vec<String> = levels.iter().rev().cloned().collect();
    let longest = levels.iter().map(|l| l.chars().count()).max().unwrap_or(0) as u32;
    let label_w = (16 + 8 * longest).min(plot.dim_in_pixel().0 / 3);
    let mut chart = ChartBuilder::on(&plot)
        .margin(12)
        .x_label_area_size(60)
        .y_label_area_size(label_w)
        .build_cartesian_2d(segments(n).into_segmented(), segments(n).into_segmented())
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(n)
        .y_labels(n)
        .x_label_formatter(&label_at(levels))
        .y_label_formatter(&label_at(&rows))
        .x_desc(format!(
            "the other factions' level; cells: the one faction's win rate and its edge over the fair share ({:.1}%)",
            100.0 * fair
        ))
        .y_desc("the one faction's level")
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(e)?;
    let top = cells
        .iter()
        .map(|c| (c.2.rate - fair).abs())
        .fold(0.0, f64::max)
        .max(1e-9);
    for &(a, b, r) in cells {
        let (x, y) = (b as i32, (n - 1 - a) as i32);
        let t = 0.5 + 0.5 * (r.rate - fair) / top;
        let cell = [
            (SegmentValue::Exact(x), SegmentValue::Exact(y)),
            (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
        ];
        chart
            .draw_series(std::iter::once(Rectangle::new(cell, viridis(t).filled())))
            .map_err(e)?;
        let ink = if t > 0.6 { BLACK } else { WHITE };
        chart
            .draw_series(std::iter::once(Text::new(
                format!(
                    "{:.1}% ({} pp)",
                    100.0 * r.rate,
                    crate::stats::signed_tenths(100.0 * (r.rate - fair))
                ),
                (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                ("sans-serif", 14)
                    .into_font()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            )))
            .map_err(e)?;
    }
    root.present().map_err(e)
}

/// Writes `matchups.png` and `matchups.svg`: `cells` are (row level, column level, the row
/// level's win rate) by index into `levels`.
pub fn write_matchups(
    dir: &Path,
    titles: (&str, &str),
    levels: &[String],
    cells: &[(usize, usize, Rate)],
    fair: f64,
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(
        dir,
        "matchups",
        size,
        written,
        matchups(titles, levels, cells, fair)
    );
    Ok(written)
}

/// One faction's difference in win rate: its label, the difference with its interval (as
/// fractions), and whether it is beyond noise (drawn solid; otherwise pale).
pub type LiftRow = (String, crate::stats::Val, bool);

/// The words of a difference chart: the x axis, and the legend of solid and pale bars.
#[derive(Debug, Clone, Copy)]
pub struct DiffWords<'a> {
    /// The x axis: what is subtracted from what.
    pub axis: &'a str,
    /// A solid bar.
    pub beyond: &'a str,
    /// A pale bar.
    pub within: &'a str,
}

/// Each faction's difference in win rate (exploit's lift from its configured agent to its
/// best response, compare's B − A), a bar with its interval, on an axis of change in win
/// rate with a line at 0 and dashed lines at the practical margin either side (`name.png` /
/// `.svg`).
pub fn write_lift(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    words: DiffWords<'_>,
    rows: &[LiftRow],
    margin: f64,
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(
        dir,
        name,
        size,
        written,
        lift(title, sub, words, rows, margin)
    );
    Ok(written)
}

fn lift<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    words: DiffWords<'_>,
    rows: &[LiftRow],
    margin: f64,
) -> Draw {
    let keys = [
        (words.beyond.to_string(), Key::Swatch(color(0).to_rgba())),
        (words.within.to_string(), Key::Swatch(color(0).mix(0.3))),
        (
            format!("margin ±{} pp", crate::stats::margin::pp(margin)),
            Key::Dashed(BLACK),
        ),
    ];
    let plot = frame(root, title, sub, &keys)?;
    let (w, _) = plot.dim_in_pixel();
    let n = rows.len().max(1);
    let longest = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(4) as u32;
    let name_w = (16 + 8 * longest).clamp(60, (w / 3).max(60));
    let (names, body) = plot.split_horizontally(name_w);
    let span = (rows.iter())
        .flat_map(|r| [r.1.est.abs(), r.1.lo.abs(), r.1.hi.abs()])
        .fold(margin, f64::max)
        * 1.1;
    let (bw, _) = body.dim_in_pixel();
    let (ticks, step, reach) = super::sweep::change_ticks(span, bw.saturating_sub(2 * 30 + 20));
    let mut chart = ChartBuilder::on(&body)
        .margin(10)
        .margin_left(30)
        .margin_right(30)
        .x_label_area_size(40)
        .build_cartesian_2d(-reach..reach, 0f64..n as f64)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .y_labels(0)
        .x_labels(0)
        .x_desc(words.axis)
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(e)?;
    super::sweep::change_axis(&body, &mut chart, (&ticks, step), n as f64)?;
    for m in [-margin, margin] {
        chart
            .draw_series(DashedLineSeries::new(
                vec![(m, 0.0), (m, n as f64)],
                6,
                5,
                BLACK.stroke_width(1),
            ))
            .map_err(e)?;
    }
    let font =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    let (_, names_y) = names.get_base_pixel();
    for (k, (label, v, beyond)) in rows.iter().enumerate() {
        // The first faction on top.
        let y0 = (n - 1 - k) as f64 + 0.25;
        let beyond = *beyond;
        let fill = if beyond {
            color(0).filled()
        } else {
            color(0).mix(0.3).filled()
        };
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(0.0, y0), (v.est, y0 + 0.5)],
                fill,
            )))
            .map_err(e)?;
        let mid = y0 + 0.25;
        whisker!(chart, (v.lo, mid), (v.hi, mid), [(0, -5), (0, 5)]);
        let (_, py) = chart.backend_coord(&(0.0, mid));
        // A label too long for its column wraps onto a second line, then ends in "…".
        let lines = fit_lines(
            &names,
            label,
            &("sans-serif", 14).into_font(),
            name_w - 16,
            2,
        );
        let top = py - names_y - 8 * (lines.len() as i32 - 1);
        for (j, line) in lines.into_iter().enumerate() {
            names
                .draw(&Text::new(
                    line,
                    (name_w as i32 - 8, top + 16 * j as i32),
                    font.clone(),
                ))
                .map_err(e)?;
        }
    }
    root.present().map_err(e)
}
