//! The charts of `sweep` and `sensitivity`: win rates against one parameter, heat maps over
//! two (colored from the fair share), and the tornado of one-step effects with their
//! intervals, drawn in the shared frame of [`super`].

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::*;
use crate::stats::{Rate, Val};

fn sweep_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    xlabel: &str,
    (xs, floored): (&[f64], bool),
    series: &[(String, Vec<Rate>)],
) -> Draw {
    let fair = 1.0 / series.len().max(1) as f64;
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
    let (lo, hi) = (
        xs.iter().copied().fold(f64::INFINITY, f64::min),
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let (lo, hi) = if lo < hi {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    let top = share_top(
        series
            .iter()
            .flat_map(|s| s.1.iter().map(|r| r.high))
            .fold(0.05, f64::max),
    );
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(lo..hi, 0f64..top)
        .map_err(e)?;
    let integers = xs.iter().all(|x| x.fract() == 0.0);
    let mut mesh = chart.configure_mesh();
    mesh.bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_desc(xlabel)
        .y_desc(if floored {
            "win rate (95% intervals)"
        } else {
            "win rate (95% band)"
        })
        .y_label_formatter(&|y| pct(*y))
        .label_style(("sans-serif", 16));
    // A whole-number parameter is ticked at whole numbers only.
    if integers {
        mesh.x_labels(whole_ticks(lo, hi)).x_label_formatter(&whole);
    }
    mesh.draw().map_err(e)?;
    chart
        .draw_series(DashedLineSeries::new(
            vec![(lo, fair), (hi, fair)],
            8,
            6,
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
    // Every band first, then every line: a band painted over an earlier line would change
    // its color away from the legend's.
    if !floored {
        for (i, (_, rates)) in series.iter().enumerate() {
            let band: Vec<(f64, f64)> = (xs.iter().zip(rates))
                .map(|(x, r)| (*x, r.high))
                .chain(xs.iter().zip(rates).rev().map(|(x, r)| (*x, r.low)))
                .collect();
            chart
                .draw_series(std::iter::once(Polygon::new(
                    band,
                    color(i).mix(0.2).filled(),
                )))
                .map_err(e)?;
        }
    }
    for (i, (_, rates)) in series.iter().enumerate() {
        let c = color(i);
        if floored {
            // A floored value steps between whole stored values: each point with its
            // interval, nothing drawn between them.
            for (x, r) in xs.iter().zip(rates) {
                whisker!(chart, (*x, r.low), (*x, r.high), [(-4, 0), (4, 0)]);
            }
            chart
                .draw_series(
                    xs.iter()
                        .zip(rates)
                        .map(|(x, r)| Circle::new((*x, r.rate), 5, c.filled())),
                )
                .map_err(e)?;
            continue;
        }
        chart
            .draw_series(
                LineSeries::new(
                    xs.iter().zip(rates).map(|(x, r)| (*x, r.rate)),
                    c.stroke_width(3),
                )
                .point_size(4),
            )
            .map_err(e)?;
    }
    root.present().map_err(e)
}

/// A diverging scale (ColorBrewer's RdBu, readable with the common forms of color blindness
/// and in grey): `t` from -1 (blue) through 0 (near white) to 1 (red), interpolated between
/// 7 of its stops.
pub(super) fn diverging(t: f64) -> RGBColor {
    const STOPS: [(f64, f64, f64); 7] = [
        (33.0, 102.0, 172.0),
        (103.0, 169.0, 207.0),
        (209.0, 229.0, 240.0),
        (247.0, 247.0, 247.0),
        (253.0, 219.0, 199.0),
        (239.0, 138.0, 98.0),
        (178.0, 24.0, 43.0),
    ];
    let x = (t.clamp(-1.0, 1.0) + 1.0) / 2.0 * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    let mix = |p: f64, q: f64| (p + (q - p) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

fn heat_maps<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    labels: (&str, &str),
    xs: &[String],
    ys: &[String],
    maps: &[(String, Vec<Vec<Rate>>)],
) -> Draw {
    // The fair share: every faction's win rate in a balanced game, one map a faction.
    let fair = 1.0 / maps.len().max(1) as f64;
    // Short, so that the subtitle fits the chart's width; the fair share is on the color bar.
    let sub = format!("{sub} · *: 95% interval excludes the fair share");
    let plot = frame(root, title, &sub, &[])?;
    let (w, h) = plot.dim_in_pixel();
    let (grid_area, scale) = plot.split_horizontally(w.saturating_sub(140));
    // The panels' arrangement that gives the largest cells (a cell `xs` across a panel's
    // width less its labels, `ys` down its height less its caption and labels).
    let (gw, gh) = grid_area.dim_in_pixel();
    let cell = |cols: usize| {
        let rows = maps.len().div_ceil(cols) as u32;
        let across = (gw / cols as u32).saturating_sub(85) / xs.len().max(1) as u32;
        let down = (gh / rows.max(1)).saturating_sub(85) / ys.len().max(1) as u32;
        across.min(down)
    };
    let cols = (1..=maps.len().clamp(1, 4))
        .max_by_key(|&c| (cell(c), c))
        .unwrap_or(1);
    let rows = maps.len().div_ceil(cols);
    let panels = grid_area.split_evenly((rows, cols));
    // Colors diverge from the fair share, symmetric, as far as the largest deviation: at
    // least 1 point, so that noise around a fair game is not painted as an imbalance.
    let dev = maps
        .iter()
        .flat_map(|m| m.1.iter().flatten())
        .map(|r| (r.rate - fair).abs())
        .fold(0.01, f64::max);
    for (panel, (name, grid)) in panels.iter().zip(maps) {
        // The cells' text shrinks to fit "33.3%*" in a cell's width (about 0.6 em a glyph),
        // down to 8 units; in a smaller cell only the star is written.
        let (panel_w, panel_h) = panel.dim_in_pixel();
        let cell_w = (panel_w as f64 - 75.0) / xs.len().max(1) as f64;
        let cell_h = (panel_h as f64 - 80.0) / ys.len().max(1) as f64;
        let cell_font = ((cell_w - 4.0) / 3.6).min(14.0).min(cell_h * 0.7);
        let small = cell_font < 8.0;
        // Axis labels: every k-th when they do not all fit; descriptions cut to the panel.
        let label_style = TextStyle::from(("sans-serif", 13).into_font());
        let widest = (xs.iter())
            .filter_map(|x| panel.estimate_text_size(x, &label_style).ok())
            .map(|(w, _)| w as f64 + 6.0)
            .fold(1.0, f64::max);
        let every = (widest / cell_w.max(1.0)).ceil().max(1.0) as usize;
        let down = (16.0 / cell_h.max(1.0)).ceil().max(1.0) as usize;
        let xs_shown: Vec<String> = (xs.iter().enumerate())
            .map(|(i, x)| {
                if i % every == 0 {
                    x.clone()
                } else {
                    String::new()
                }
            })
            .collect();
        let ys_shown: Vec<String> = (ys.iter().enumerate())
            .map(|(i, y)| {
                if i % down == 0 {
                    y.clone()
                } else {
                    String::new()
                }
            })
            .collect();
        // A path too long for its axis drops its head (`settings.`), which the title names,
        // before it is cut.
        let desc = |path: &str, room: u32| {
            let fits = |t: &str| {
                panel
                    .estimate_text_size(t, &label_style)
                    .is_ok_and(|(w, _)| w <= room)
            };
            let tail = path.rsplit('.').next().unwrap_or(path);
            match (fits(path), fits(tail)) {
                (true, _) => path.to_string(),
                (false, true) => tail.to_string(),
                (false, false) => abbreviate(panel, tail, &label_style, room),
            }
        };
        let x_desc = desc(labels.0, panel_w.saturating_sub(70));
        let y_desc = desc(labels.1, panel_h.saturating_sub(70));
        let caption = abbreviate(
            panel,
            name,
            &TextStyle::from(("sans-serif", 18).into_font()),
            panel_w.saturating_sub(20),
        );
        let mut chart = ChartBuilder::on(panel)
            .caption(caption, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(55)
            .build_cartesian_2d(
                segments(xs.len()).into_segmented(),
                segments(ys.len()).into_segmented(),
            )
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(xs.len())
            .y_labels(ys.len())
            .x_label_formatter(&label_at(&xs_shown))
            .y_label_formatter(&label_at(&ys_shown))
            .x_desc(x_desc)
            .y_desc(y_desc)
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(e)?;
        for (i, row) in grid.iter().enumerate() {
            for (j, r) in row.iter().enumerate() {
                let (x, y) = (i as i32, j as i32);
                let cell = [
                    (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                    (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                ];
                let t = (r.rate - fair) / dev;
                chart
                    .draw_series(std::iter::once(Rectangle::new(cell, diverging(t).filled())))
                    .map_err(e)?;
                // A cell whose interval excludes the fair share is starred (only: boxes
                // round most cells would swamp the colors).
                let off = r.low > fair || r.high < fair;
                // Dark text on the pale middle of the scale, white on its strong ends.
                let ink = if t.abs() > 0.6 { WHITE } else { BLACK };
                // One decimal: a starred 33.6% beside an unstarred 33.1% must not both
                // read "33%".
                let star = if off { "*" } else { "" };
                let text = match small {
                    false => format!("{:.1}%{star}", 100.0 * r.rate),
                    true => star.to_string(),
                };
                let cell_font = cell_font.max(8.0);
                chart
                    .draw_series(std::iter::once(Text::new(
                        text,
                        (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                        ("sans-serif", cell_font)
                            .into_font()
                            .color(&ink)
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    )))
                    .map_err(e)?;
            }
        }
    }
    // The color bar: the fair share in the middle (white), `dev` above it on top (red) and
    // below it at the bottom (blue), labelled in win rate. A win rate cannot leave 0 to 100%:
    // when the scale reaches past either, that end is labelled where the limit falls.
    let (top, bottom) = (30i32, h as i32 - 50);
    let mid = (top + bottom) / 2;
    let at = |v: f64| mid - ((v - fair) / dev * (mid - top) as f64).round() as i32;
    let (high, low) = ((fair + dev).min(1.0), (fair - dev).max(0.0));
    let ticks = [
        (format!("{:.1}%", 100.0 * high), at(high)),
        (format!("{:.1}% fair", 100.0 * fair), mid),
        (format!("{:.1}%", 100.0 * low), at(low)),
    ];
    color_bar(&scale, (top, bottom), |t| diverging(2.0 * t - 1.0), &ticks)?;
    scale
        .draw(&Text::new(
            "win rate",
            (8, top - 26),
            ("sans-serif", 16).into_font(),
        ))
        .map_err(e)?;
    root.present().map_err(e)
}

/// The tick step and ticks of a tornado panel `px` pixels wide whose changes reach `span`
/// either way: the smallest step of 1, 2.5 or 5 x 10^n points whose labels fit (at least
/// 50 pixels apart and wider than the widest label), and the axis's reach, `span` rounded
/// up to a whole number of steps so that both ends carry a tick.
pub(super) fn change_ticks(span: f64, px: u32) -> (Vec<f64>, f64, f64) {
    // Steps of 0.1 to 500 points of win rate, as fractions.
    const STEPS: [f64; 12] = [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
    ];
    let span = span.max(1e-9);
    let reach = |s: f64| ((span / s).ceil()).max(1.0) * s;
    let step = STEPS
        .iter()
        .copied()
        .find(|&s| {
            let r = reach(s);
            // The widest label is the outermost one, about 8 pixels a character at 14 px.
            let chars = change_label(r, s).chars().count() as f64;
            s * px.max(1) as f64 / (2.0 * r) >= (8.0 * chars + 12.0).max(50.0)
        })
        // No step's labels fit: the smallest step that reaches the span in one, so the
        // axis still spans the data (never a 500-point axis for a few points of change).
        .or_else(|| STEPS.iter().copied().find(|&s| s >= span))
        .unwrap_or(5.0);
    let r = reach(step);
    let k = (r / step).round() as i64;
    let ticks: Vec<f64> = (-k..=k).map(|i| i as f64 * step).collect();
    (ticks, step, r)
}

/// A chart whose x axis is a change in win rate and whose y axis counts rows.
pub(super) type ChangeChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Draws a change-in-win-rate axis on `chart` (laid out on `area`, `rows` high): a grid line
/// at each tick but 0, the tick marks and their labels below the plot, and the 0 line. The
/// ticks are drawn here, not by plotters: its round values never fall on half steps (2.5
/// points).
pub(super) fn change_axis<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &mut ChangeChart<DB>,
    (ticks, step): (&[f64], f64),
    rows: f64,
) -> Draw {
    let (_, ys) = chart.plotting_area().get_pixel_range();
    chart
        .draw_series(
            (ticks.iter().filter(|t| t.abs() > 1e-12))
                .map(|&t| PathElement::new(vec![(t, 0.0), (t, rows)], GRID.stroke_width(1))),
        )
        .map_err(e)?;
    let font =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    let (bx, by) = area.get_base_pixel();
    for &t in ticks {
        let (x, _) = chart.backend_coord(&(t, 0.0));
        let (x, y) = (x - bx, ys.end - by);
        area.draw(&PathElement::new(
            vec![(x, y), (x, y + 5)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
        area.draw(&Text::new(change_label(t, step), (x, y + 8), font.clone()))
            .map_err(e)?;
    }
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(0.0, 0.0), (0.0, rows)],
            BLACK.mix(0.6).stroke_width(1),
        )))
        .map_err(e)?;
    Ok(())
}

/// A tornado panel's side margin, in pixels: half a wide tick label ("−2.5 pp").
const SIDE: u32 = 30;

/// A change in win rate as a tick label, in points with the step's decimals and a true
/// minus sign: `0`, `+5 pts`, `−2.5 pts`.
pub(super) fn change_label(x: f64, step: f64) -> String {
    let pts = 100.0 * x;
    if pts.abs() < 1e-9 {
        return "0".into();
    }
    let digits = (0..3)
        .find(|&d| {
            let m = 100.0 * step * 10f64.powi(d);
            (m - m.round()).abs() < 1e-6
        })
        .unwrap_or(3) as usize;
    format!("{pts:+.digits$} pp").replace('-', "\u{2212}")
}

/// Whether a change's interval excludes 0: beyond noise.
fn beyond_noise(v: &Val) -> bool {
    v.lo > 0.0 || v.hi < 0.0
}

fn tornado<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    params: &[String],
    effects: &[(String, Vec<(Val, Val)>)],
) -> Draw {
    // "Pale" is explained only when some change is within noise.
    let pale = (effects.iter())
        .flat_map(|f| f.1.iter().flat_map(|(d, u)| [d, u]))
        .any(|v| !beyond_noise(v));
    let mut keys: Vec<(String, Key)> = vec![
        ("one step down".into(), Key::Swatch(color(0).to_rgba())),
        ("one step up".into(), Key::Swatch(color(1).to_rgba())),
    ];
    if pale {
        keys.push(("pale: within noise".into(), Key::Swatch(GREY.mix(0.3))));
    }
    keys.push(("95% interval".into(), Key::Line(BLACK)));
    let plot = frame(root, title, sub, &keys)?;
    // Parameters come largest swing first; the first is drawn on top. Their names are
    // drawn once, in a column of their own left of the panels, which share the rows.
    let n = params.len().max(1);
    let (w, _) = plot.dim_in_pixel();
    let longest = params.iter().map(|p| p.chars().count()).max().unwrap_or(4) as u32;
    let name_w = (16 + 8 * longest).clamp(60, (w / 3).max(60));
    let fit = (name_w.saturating_sub(16) / 8).max(4) as usize;
    // A name too long for the column keeps its end, which tells parameters apart.
    let shown: Vec<String> = params
        .iter()
        .map(|p| {
            let c = p.chars().count();
            if c <= fit {
                p.clone()
            } else {
                let tail: String = p.chars().skip(c + 1 - fit).collect();
                format!("…{}", tail.trim_start_matches('.'))
            }
        })
        .collect();
    let (names, grid) = plot.split_horizontally(name_w);
    // At most 3 panels across, each at least 170 units wide (fewer across, more rows, on a
    // narrow chart).
    let across = (grid.dim_in_pixel().0 / 170).max(1) as usize;
    let cols = effects.len().clamp(1, 3).min(across);
    let rows = effects.len().div_ceil(cols).max(1);
    let panels = grid.split_evenly((rows, cols));
    let span = effects
        .iter()
        .flat_map(|f| f.1.iter().flat_map(|(d, u)| [d, u]))
        .flat_map(|v| [v.est.abs(), v.lo.abs(), v.hi.abs()])
        .fold(0.005, f64::max)
        * 1.1;
    let font =
        TextStyle::from(("sans-serif", 14).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    let (_, names_y) = names.get_base_pixel();
    let row = |k: usize| (n - 1 - k) as f64;
    for (p, (panel, (name, eff))) in panels.iter().zip(effects).enumerate() {
        // The plot's width is the panel's less its margins: the ticks, and the axis's reach
        // to the outermost one, follow from it.
        let (pw, _) = panel.dim_in_pixel();
        // Side margins of half the widest label keep the end labels off the next panel's.
        let (ticks, step, reach) = change_ticks(span, pw.saturating_sub(2 * SIDE));
        let mut chart = ChartBuilder::on(panel)
            .caption(name, ("sans-serif", 18))
            .margin(10)
            .margin_left(SIDE)
            .margin_right(SIDE)
            .x_label_area_size(40)
            .build_cartesian_2d(-reach..reach, 0f64..n as f64)
            .map_err(e)?;
        // The ticks, their grid lines and labels are drawn here, not by plotters: its round
        // values never fall on half steps (2.5 points).
        chart
            .configure_mesh()
            .disable_mesh()
            .y_labels(0)
            .x_labels(0)
            .x_desc("change in win rate")
            .label_style(("sans-serif", 14))
            .draw()
            .map_err(e)?;
        change_axis(panel, &mut chart, (&ticks, step), n as f64)?;
        for (k, (d, u)) in eff.iter().enumerate() {
            // Each row: one step down in its lower half, one step up in its upper half; a
            // change within noise (its interval holds 0) is pale.
            for (v, c, y0) in [(d, color(0), row(k) + 0.1), (u, color(1), row(k) + 0.5)] {
                let fill = if beyond_noise(v) {
                    c.filled()
                } else {
                    c.mix(0.3).filled()
                };
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(0.0, y0), (v.est, y0 + 0.4)],
                        fill,
                    )))
                    .map_err(e)?;
                let mid = y0 + 0.2;
                whisker!(chart, (v.lo, mid), (v.hi, mid), [(0, -4), (0, 4)]);
            }
        }
        // The names beside the first panel of each row of panels.
        if p % cols == 0 {
            for (k, label) in shown.iter().enumerate() {
                let (_, y) = chart.backend_coord(&(0.0, row(k) + 0.5));
                names
                    .draw(&Text::new(
                        label.clone(),
                        (name_w as i32 - 8, y - names_y),
                        font.clone(),
                    ))
                    .map_err(e)?;
            }
        }
    }
    root.present().map_err(e)
}

/// Line chart of win rates against one swept parameter, with the fair share dashed
/// (`name.png` / `.svg`); `xs.1`: the value is floored where it is stored, and the points
/// are drawn alone, with their intervals (no line or band between them).
pub fn write_sweep_lines(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    xlabel: &str,
    xs: (&[f64], bool),
    series: &[(String, Vec<Rate>)],
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(
        dir,
        name,
        size,
        written,
        sweep_lines(title, sub, xlabel, xs, series)
    );
    Ok(written)
}

/// One axis of a heat map: the parameter's path and its values.
pub type Axis<'a> = (&'a str, &'a [String]);

/// Heat maps of each faction's win rate over a two-parameter grid (one map a faction), in
/// colors diverging from the fair share (1 / the number of maps) with a color bar in win
/// rate; a cell whose 95% interval excludes the fair share is starred, as the subtitle says.
pub fn write_heat_maps(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    ((x_label, xs), (y_label, ys)): (Axis, Axis),
    maps: &[(String, Vec<Vec<Rate>>)],
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    let labels = (x_label, y_label);
    render!(
        dir,
        name,
        size,
        written,
        heat_maps(title, sub, labels, xs, ys, maps)
    );
    Ok(written)
}

/// Tornado chart: per faction, each parameter's change in win rate one step down (blue) and
/// up (orange), each with its interval as a whisker and pale when the interval holds 0, the
/// largest swing on top. `effects` is per faction, per parameter (in `params`' order), the
/// change down and the change up.
pub fn write_tornado(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    params: &[String],
    effects: &[(String, Vec<(Val, Val)>)],
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    // Room for every panel: names, legend, up to 3 panels across at least 170 units wide,
    // each about 30 units a parameter tall below its caption and axis.
    let n = effects.len().max(1);
    let across = n.min(3);
    let need = (
        520 + 170 * across as u32,
        140 + n.div_ceil(across) as u32 * (90 + 30 * params.len().max(1) as u32),
    );
    let grown = size.at_least(need);
    if grown != size {
        crate::diagnostic::say(&format!(
            "note: the {name} chart needs {}x{} units for {n} panels of {} rows: drawn at {}x{} \
             pixels",
            need.0,
            need.1,
            params.len(),
            grown.px.0,
            grown.px.1
        ));
    }
    render!(
        dir,
        name,
        grown,
        written,
        tornado(title, sub, params, effects)
    );
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::{change_label, change_ticks};

    /// A panel too narrow for any step's labels still gets an axis that spans its data,
    /// never the widest step's ±500 points.
    #[test]
    fn a_narrow_panel_keeps_an_axis_near_its_data() {
        let (_, step, reach) = change_ticks(0.07, 30);
        assert!(
            (step - 0.1).abs() < 1e-12 && (reach - 0.1).abs() < 1e-12,
            "{step} {reach}"
        );
    }

    #[test]
    fn change_ticks_take_half_steps_only_where_their_labels_fit() {
        // About 280 pixels for ±7.7 points: 0 and ±5, the axis reaching ±10.
        let (ticks, step, reach) = change_ticks(0.077, 280);
        assert!((step - 0.05).abs() < 1e-12, "{step}");
        assert!((reach - 0.1).abs() < 1e-12, "{reach}");
        assert_eq!(ticks.len(), 5);
        // 700 pixels: half steps of 2.5 points.
        let (ticks, step, _) = change_ticks(0.077, 700);
        assert!((step - 0.025).abs() < 1e-12, "{step}");
        assert_eq!(ticks.len(), 9);
        assert_eq!(change_label(ticks[5], step), "+2.5 pp");
        // However narrow the panel, both ends of the axis carry a tick.
        for px in [100, 160, 280, 500, 700, 2000] {
            let (ticks, step, reach) = change_ticks(0.077, px);
            assert!(ticks.len() >= 3, "{px} pixels: {ticks:?}");
            assert!(reach >= 0.077 && (ticks[ticks.len() - 1] - reach).abs() < 1e-12);
            let gap = step * px as f64 / (2.0 * reach);
            assert!(gap >= 50.0 || step == 5.0, "{px} pixels: ticks {gap} apart");
        }
    }
}
