//! The chart of `tune`: the goal metric against each tuned parameter, every tried point with
//! its 95% interval, the goal as a dashed line, the chosen value with its confirmation
//! interval, and (one parameter) the interval for the value that meets the goal as a band.

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
    /// The chosen value with the goal metric of the confirmation run.
    pub best: (f64, Val),
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
    let mut keys = vec![
        ("tried (search games)".to_string(), Key::Line(color(0))),
        ("chosen (confirmation)".to_string(), Key::Line(color(5))),
    ];
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
            .chain([p.best.0])
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
            .chain([p.best.1])
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
        for (pts, c, size) in [(p.tried.clone(), color(0), 5), (vec![p.best], color(5), 7)] {
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
