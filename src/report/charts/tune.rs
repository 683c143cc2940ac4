//! The chart of `tune`: the goal metric against each tuned parameter, every tried point with
//! its 95% interval, the goal as a dashed line, the chosen value with its confirmation
//! interval, and (one parameter) the interval for the value that meets the goal as a band.
//! With two parameters it is a map instead: every trial at its two values, colored by how far
//! it is from the goal, the chosen pair ringed.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::*;
use crate::stats::Val;

/// One panel of the tune chart: one parameter.
#[derive(Debug, Clone)]
pub struct TunePanel {
    /// The parameter's path (the x axis).
    pub label: String,
    /// The parameter's bounds: the x axis spans them.
    pub range: (f64, f64),
    /// Every tried value with the goal metric there (search games).
    pub tried: Vec<(f64, Val)>,
    /// The values the answer names, each with the goal metric of the confirmation run: the
    /// chosen value, or for a whole-number parameter the whole values that meet the goal
    /// (those beside the crossing when none does).
    pub chosen: Vec<(f64, Val)>,
    /// The legend's words for `chosen`.
    pub chosen_key: String,
    /// The interval for the value that meets the goal, when there is one.
    pub band: Option<(f64, f64)>,
}

fn tune<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    target: Option<f64>,
    panels: &[TunePanel],
) -> Draw {
    let mut keys = vec![("tried (search games)".to_string(), Key::Line(color(0)))];
    if let Some(p) = panels.first() {
        keys.push((p.chosen_key.clone(), Key::Line(color(5))));
    }
    if target.is_some() {
        keys.push(("goal".into(), Key::Dashed(BLACK)));
    }
    if panels.iter().any(|p| p.band.is_some()) {
        keys.push((
            "value meeting the goal (95%)".into(),
            Key::Swatch(color(2).mix(0.25)),
        ));
    }
    let plot = frame(root, title, sub, &keys)?;
    let areas = plot.split_evenly((panels.len().max(1), 1));
    for (area, p) in areas.iter().zip(panels) {
        let xs = [p.range.0, p.range.1]
            .into_iter()
            .chain(p.tried.iter().map(|t| t.0))
            .chain(p.chosen.iter().map(|c| c.0))
            .chain(p.band.iter().flat_map(|b| [b.0, b.1]));
        let (mut lo, mut hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
        if lo >= hi {
            (lo, hi) = (lo - 0.5, hi + 0.5);
        }
        let pad = (hi - lo) * 0.05;
        let vals = p
            .tried
            .iter()
            .map(|t| t.1)
            .chain(p.chosen.iter().map(|c| c.1))
            .flat_map(|v| [v.lo, v.hi])
            .chain(target)
            .filter(|v| v.is_finite());
        let (mut ylo, mut yhi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        if ylo >= yhi || !ylo.is_finite() {
            (ylo, yhi) = (ylo.min(0.0) - 0.5, yhi.max(0.0) + 0.5);
        }
        let ypad = (yhi - ylo) * 0.08;
        let mut chart = ChartBuilder::on(area)
            .margin(16)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d((lo - pad)..(hi + pad), (ylo - ypad)..(yhi + ypad))
            .map_err(e)?;
        let integers = p.tried.iter().all(|t| t.0.fract() == 0.0);
        let mut mesh = chart.configure_mesh();
        mesh.bold_line_style(GRID)
            .light_line_style(TRANSPARENT)
            .x_desc(p.label.as_str())
            .y_desc("goal metric (95% CI)")
            .y_label_formatter(&|y| {
                let s = format!("{y:.3}");
                // A label at zero reads 0.000, never -0.000.
                if s == "-0.000" { s[1..].to_string() } else { s }
            })
            .label_style(("sans-serif", 16));
        if integers {
            mesh.x_labels(whole_ticks(lo, hi)).x_label_formatter(&whole);
        }
        mesh.draw().map_err(e)?;
        let (y0, y1) = (ylo - ypad, yhi + ypad);
        if let Some((a, b)) = p.band {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(a, y0), (b, y1)],
                    color(2).mix(0.25).filled(),
                )))
                .map_err(e)?;
        }
        if let Some(t) = target {
            // Dashed: short segments across the plot.
            let n = 40;
            let step = (hi - lo + 2.0 * pad) / n as f64;
            for k in (0..n).step_by(2) {
                let x = lo - pad + k as f64 * step;
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, t), (x + step, t)],
                        BLACK.stroke_width(2),
                    )))
                    .map_err(e)?;
            }
        }
        // The confirmation's points sit a little right of their value (by 1.5% of the
        // axis), so that a search trial at the same value stays visible beside them.
        let dx = (hi - lo + 2.0 * pad) * 0.015;
        let chosen: Vec<(f64, Val)> = p.chosen.iter().map(|(x, v)| (x + dx, *v)).collect();
        for (pts, c, size) in [(p.tried.clone(), color(0), 5), (chosen, color(5), 7)] {
            for (x, v) in &pts {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(*x, v.lo), (*x, v.hi)],
                        c.stroke_width(2),
                    )))
                    .map_err(e)?;
            }
            chart
                .draw_series(
                    pts.iter()
                        .map(|(x, v)| Circle::new((*x, v.est), size, c.filled())),
                )
                .map_err(e)?;
        }
    }
    root.present().map_err(e)
}

/// The map of a two-parameter search: where each trial was, and how far from the goal.
#[derive(Debug, Clone)]
pub struct TuneMap {
    /// The two parameters: path and bounds (the x axis, then the y axis).
    pub axes: [(String, (f64, f64)); 2],
    /// Every trial: its two values and its loss (how far from the goal, lower is better).
    pub trials: Vec<(f64, f64, f64)>,
    /// The chosen pair.
    pub best: (f64, f64),
    /// What the loss is, in short lines over the color bar.
    pub loss: Vec<String>,
}

/// The loss's color: dark (purple) for the best, light (yellow) for the worst.
fn loss_color(t: f64) -> RGBColor {
    use plotters::style::colors::colormaps::{ColorMap, ViridisRGB};
    ViridisRGB.get_color(t.clamp(0.0, 1.0) as f32)
}

fn tune_map<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    map: &TuneMap,
) -> Draw {
    let sub = format!("{sub} · ringed: the chosen pair");
    let plot = frame(root, title, &sub, &[])?;
    let (w, h) = plot.dim_in_pixel();
    let (area, scale) = plot.split_horizontally(w.saturating_sub(150));
    let span = |(lo, hi): (f64, f64), pts: &mut dyn Iterator<Item = f64>| {
        let (lo, hi) = pts.fold((lo, hi), |(a, b), x| (a.min(x), b.max(x)));
        let pad = ((hi - lo) * 0.05).max(1e-9);
        (lo - pad, hi + pad)
    };
    let xr = span(map.axes[0].1, &mut map.trials.iter().map(|t| t.0));
    let yr = span(map.axes[1].1, &mut map.trials.iter().map(|t| t.1));
    let finite = map.trials.iter().map(|t| t.2).filter(|l| l.is_finite());
    let (lmin, lmax) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), l| {
        (a.min(l), b.max(l))
    });
    let (lmin, lmax) = if lmin.is_finite() {
        (lmin, lmax.max(lmin + 1e-12))
    } else {
        (0.0, 1.0)
    };
    let t_of = |l: f64| {
        if l.is_finite() {
            (l - lmin) / (lmax - lmin)
        } else {
            1.0
        }
    };
    let mut chart = ChartBuilder::on(&area)
        .margin(16)
        .x_label_area_size(45)
        .y_label_area_size(80)
        .build_cartesian_2d(xr.0..xr.1, yr.0..yr.1)
        .map_err(e)?;
    let mut mesh = chart.configure_mesh();
    mesh.bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_desc(map.axes[0].0.as_str())
        .y_desc(map.axes[1].0.as_str())
        .label_style(("sans-serif", 16));
    let whole_x = map.trials.iter().all(|t| t.0.fract() == 0.0);
    let whole_y = map.trials.iter().all(|t| t.1.fract() == 0.0);
    if whole_x {
        mesh.x_labels(whole_ticks(xr.0, xr.1))
            .x_label_formatter(&whole);
    }
    if whole_y {
        mesh.y_labels(whole_ticks(yr.0, yr.1))
            .y_label_formatter(&whole);
    }
    mesh.draw().map_err(e)?;
    // The worst first, so that the best trials are drawn on top where they overlap.
    let mut order: Vec<&(f64, f64, f64)> = map.trials.iter().collect();
    order.sort_by(|a, b| t_of(b.2).total_cmp(&t_of(a.2)));
    for &(x, y, l) in order {
        chart
            .draw_series([
                Circle::new((x, y), 7, loss_color(t_of(l)).filled()),
                Circle::new((x, y), 7, BLACK.mix(0.5).stroke_width(1)),
            ])
            .map_err(e)?;
    }
    chart
        .draw_series(std::iter::once(Circle::new(
            map.best,
            12,
            BLACK.stroke_width(3),
        )))
        .map_err(e)?;
    // The color bar: the best loss at the bottom, the worst on top.
    let (top, bottom) = (70i32, h as i32 - 60);
    let ticks = [(format!("{lmax:.3}"), top), (format!("{lmin:.3}"), bottom)];
    color_bar(&scale, (top, bottom), loss_color, &ticks)?;
    let caption = TextStyle::from(("sans-serif", 15).into_font());
    for (i, line) in map.loss.iter().enumerate() {
        scale
            .draw(&Text::new(
                line.to_string(),
                (8, 4 + 17 * i as i32),
                caption.clone(),
            ))
            .map_err(e)?;
    }
    root.present().map_err(e)
}

/// The tune chart of a two-parameter search (`name.png` / `.svg`): the map of its trials.
pub fn write_tune_map(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    map: &TuneMap,
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(dir, name, size, written, tune_map(title, sub, map));
    Ok(written)
}

/// The tune chart (`name.png` / `.svg`): one panel per parameter.
pub fn write_tune(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    target: Option<f64>,
    panels: &[TunePanel],
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(dir, name, size, written, tune(title, sub, target, panels));
    Ok(written)
}
