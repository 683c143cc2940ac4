//! The charts of `sweep` and `sensitivity`: win rates against one parameter, heat maps over
//! two, and the tornado of one-step effects, drawn in the shared frame of [`super`].

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::*;

fn sweep_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    xlabel: &str,
    xs: &[f64],
    series: &[(String, Vec<crate::stats::Rate>)],
) -> Draw {
    let keys: Vec<(String, Key)> = series
        .iter()
        .enumerate()
        .map(|(i, (n, _))| (n.clone(), Key::Line(color(i))))
        .collect();
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
        .y_desc("win rate (95% band)")
        .y_label_formatter(&|y| pct(*y))
        .label_style(("sans-serif", 16));
    // A whole-number parameter is ticked at whole numbers only.
    if integers {
        mesh.x_labels(whole_ticks(lo, hi)).x_label_formatter(&whole);
    }
    mesh.draw().map_err(e)?;
    for (i, (_, rates)) in series.iter().enumerate() {
        let c = color(i);
        let band: Vec<(f64, f64)> = xs
            .iter()
            .zip(rates)
            .map(|(x, r)| (*x, r.high))
            .chain(xs.iter().zip(rates).rev().map(|(x, r)| (*x, r.low)))
            .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(band, c.mix(0.2).filled())))
            .map_err(e)?;
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

fn heat_maps<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    labels: (&str, &str),
    xs: &[String],
    ys: &[String],
    maps: &[(String, Vec<Vec<f64>>)],
) -> Draw {
    let plot = frame(root, title, sub, &[])?;
    let (w, h) = plot.dim_in_pixel();
    let (grid_area, scale) = plot.split_horizontally(w.saturating_sub(110));
    let cols = maps.len().clamp(1, 4);
    let rows = maps.len().div_ceil(cols);
    let panels = grid_area.split_evenly((rows, cols));
    let max = maps
        .iter()
        .flat_map(|m| m.1.iter().flatten())
        .copied()
        .fold(0.0, f64::max)
        .max(1e-9);
    for (panel, (name, grid)) in panels.iter().zip(maps) {
        let mut chart = ChartBuilder::on(panel)
            .caption(name, ("sans-serif", 18))
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
            .x_label_formatter(&label_at(xs))
            .y_label_formatter(&label_at(ys))
            .x_desc(labels.0)
            .y_desc(labels.1)
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(e)?;
        for (i, row) in grid.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                let (x, y) = (i as i32, j as i32);
                let t = v / max;
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [
                            (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                            (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                        ],
                        viridis(t).filled(),
                    )))
                    .map_err(e)?;
                // Dark text on the light end of the scale, white on the dark end.
                let ink = if t > 0.6 { BLACK } else { WHITE };
                chart
                    .draw_series(std::iter::once(Text::new(
                        pct(v),
                        (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                        ("sans-serif", 14).into_font().color(&ink),
                    )))
                    .map_err(e)?;
            }
        }
    }
    // The color scale: 0 at the bottom, the largest win rate on top.
    let (top, bottom) = (30i32, h as i32 - 50);
    let steps = 64;
    for k in 0..steps {
        let y0 = bottom - (bottom - top) * k / steps;
        let y1 = bottom - (bottom - top) * (k + 1) / steps;
        scale
            .draw(&Rectangle::new(
                [(20, y1), (44, y0)],
                viridis(k as f64 / (steps - 1) as f64).filled(),
            ))
            .map_err(e)?;
    }
    scale
        .draw(&Rectangle::new(
            [(20, top), (44, bottom)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
    for (v, y) in [(max, top), (max / 2.0, (top + bottom) / 2), (0.0, bottom)] {
        scale
            .draw(&Text::new(
                pct(v),
                (50, y - 8),
                ("sans-serif", 14).into_font(),
            ))
            .map_err(e)?;
    }
    scale
        .draw(&Text::new(
            "win rate",
            (8, top - 24),
            ("sans-serif", 14).into_font().color(&GREY),
        ))
        .map_err(e)?;
    root.present().map_err(e)
}

fn tornado<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    params: &[String],
    effects: &[(String, Vec<(f64, f64)>)],
) -> Draw {
    let plot = frame(
        root,
        title,
        sub,
        &[
            ("one step down".into(), Key::Swatch(color(0).to_rgba())),
            ("one step up".into(), Key::Swatch(color(1).to_rgba())),
        ],
    )?;
    let cols = effects.len().clamp(1, 3);
    let rows = effects.len().div_ceil(cols);
    let panels = plot.split_evenly((rows, cols));
    let span = effects
        .iter()
        .flat_map(|f| f.1.iter().flat_map(|(d, u)| [d.abs(), u.abs()]))
        .fold(0.005, f64::max)
        * 1.15;
    // Parameters come largest swing first; the first is drawn on top.
    let n = params.len();
    let shown: Vec<String> = params.iter().rev().cloned().collect();
    for (panel, (name, eff)) in panels.iter().zip(effects) {
        let mut chart = ChartBuilder::on(panel)
            .caption(name, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(150)
            .build_cartesian_2d(-span..span, segments(n).into_segmented())
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .y_labels(n)
            .y_label_formatter(&label_at(&shown))
            .x_labels(5)
            .x_label_formatter(&|x| format!("{:+.1}", 100.0 * x))
            .x_desc("change in win rate (points)")
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(e)?;
        for (k, &(d, u)) in eff.iter().enumerate() {
            // Each row: one step down in its lower half, one step up in its upper half.
            let k = (n - 1 - k) as i32;
            let halves = [
                (
                    d,
                    color(0),
                    SegmentValue::Exact(k),
                    SegmentValue::CenterOf(k),
                ),
                (
                    u,
                    color(1),
                    SegmentValue::CenterOf(k),
                    SegmentValue::Exact(k + 1),
                ),
            ];
            for (v, c, y0, y1) in halves {
                let mut bar = Rectangle::new([(0.0, y0), (v, y1)], c.filled());
                bar.set_margin(3, 3, 0, 0);
                chart.draw_series(std::iter::once(bar)).map_err(e)?;
            }
        }
    }
    root.present().map_err(e)
}

/// Line chart of win rates against one swept parameter (`name.png` / `.svg`).
pub fn write_sweep_lines(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    xlabel: &str,
    xs: &[f64],
    series: &[(String, Vec<crate::stats::Rate>)],
    size: (u32, u32),
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

/// Heat maps of each faction's win rate over a two-parameter grid, with a color scale.
pub fn write_heat_maps(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    ((x_label, xs), (y_label, ys)): (Axis, Axis),
    maps: &[(String, Vec<Vec<f64>>)],
    size: (u32, u32),
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

/// Tornado chart: per faction, each parameter's effect one step down (blue) and up
/// (orange), the largest swing on top.
pub fn write_tornado(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    params: &[String],
    effects: &[(String, Vec<(f64, f64)>)],
    size: (u32, u32),
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(
        dir,
        name,
        size,
        written,
        tornado(title, sub, params, effects)
    );
    Ok(written)
}
