//! Charts of a run (plotters), as PNG and SVG.
//!
//! Owns the figures a designer pastes into design notes: win rates with intervals and the fair
//! share, score distributions, rank distributions, game length, end reasons, points by
//! source, and the leader's chance to win by round. Text uses the bundled DejaVu Sans (no
//! system font look-ups); colors are the Okabe-Ito palette, distinct for up to 8 series and
//! for readers with color blindness. Files are rendered to temporary names and renamed.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::Summary;
use crate::error::{Error, Result};

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
const SIZE: (u32, u32) = (960, 600);

/// Okabe-Ito: distinct for 8 series, safe for the common forms of color blindness.
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(0, 0, 0),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The only font: registered once, used for every text of every chart.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

type Draw = std::result::Result<(), String>;

/// The legend box every chart uses.
fn legend<'a, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    at: SeriesLabelPosition,
) -> Draw {
    chart
        .configure_series_labels()
        .position(at)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 16))
        .draw()
        .map_err(e)
}

fn e<E: std::fmt::Display>(x: E) -> String {
    x.to_string()
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

/// Percent labels with as many decimals as a small axis needs.
fn pct_for(top: f64) -> impl Fn(&f64) -> String {
    let digits = if top < 0.05 {
        2
    } else if top < 0.2 {
        1
    } else {
        0
    };
    move |x| format!("{:.*}%", digits, 100.0 * x)
}

fn segments(n: usize) -> std::ops::Range<i32> {
    // `into_segmented` includes the end: n segments are 0..n-1. A single segment (0..0)
    // degenerates, so one category gets a second, empty slot.
    if n <= 1 { 0..1 } else { 0..(n as i32 - 1) }
}

fn label_at(names: &[String]) -> impl Fn(&SegmentValue<i32>) -> String + '_ {
    move |v| match v {
        SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => {
            names.get(*i as usize).cloned().unwrap_or_default()
        }
        SegmentValue::Last => String::new(),
    }
}

/// A chart with one bar slot per faction on the x axis.
type FactionChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<
        plotters::coord::ranged1d::SegmentedCoord<plotters::coord::types::RangedCoordi32>,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// The frame the per-faction bar charts share: caption, one slot per faction, y range,
/// y formatter and y description.
fn faction_chart<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    caption: &str,
    names: &[String],
    y: std::ops::Range<f64>,
    y_fmt: &dyn Fn(&f64) -> String,
    y_desc: &str,
) -> std::result::Result<FactionChart<'a, DB>, String> {
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(segments(names.len()).into_segmented(), y)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(names.len())
        .x_label_formatter(&label_at(names))
        .y_label_formatter(y_fmt)
        .y_desc(y_desc)
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    Ok(chart)
}

fn win_rates<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let names: Vec<String> = s.factions.iter().map(|f| f.name.clone()).collect();
    let n = names.len();
    let fair = 1.0 / n.max(1) as f64;
    let top = s.factions.iter().map(|f| f.win.high).fold(fair, f64::max) * 1.2;
    let mut chart = faction_chart(
        root,
        &format!("Win rate by faction, {} games (95% intervals)", s.games),
        &names,
        0f64..top,
        &|y| pct(*y),
        "sole wins",
    )?;
    chart
        .draw_series(s.factions.iter().enumerate().map(|(i, f)| {
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i as i32), 0.0),
                    (SegmentValue::Exact(i as i32 + 1), f.win.rate),
                ],
                color(i).filled(),
            );
            bar.set_margin(0, 0, 12, 12);
            bar
        }))
        .map_err(e)?;
    chart
        .draw_series(s.factions.iter().enumerate().map(|(i, f)| {
            ErrorBar::new_vertical(
                SegmentValue::CenterOf(i as i32),
                f.win.low,
                f.win.rate,
                f.win.high,
                BLACK.stroke_width(2),
                14,
            )
        }))
        .map_err(e)?;
    chart
        .draw_series(DashedLineSeries::new(
            vec![(SegmentValue::Exact(0), fair), (SegmentValue::Last, fair)],
            8,
            6,
            BLACK.stroke_width(1),
        ))
        .map_err(e)?
        .label(format!("fair share 1/{n} = {:.1}%", 100.0 * fair))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], BLACK));
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    root.present().map_err(e)
}

fn scores<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &Summary,
    dist: &[Vec<(i64, u64)>],
) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let lo = dist
        .iter()
        .flat_map(|d| d.first().map(|x| x.0))
        .min()
        .unwrap_or(0);
    let hi = dist
        .iter()
        .flat_map(|d| d.last().map(|x| x.0))
        .max()
        .unwrap_or(1)
        .max(lo + 1);
    let games = s.games.max(1) as f64;
    let top = dist
        .iter()
        .flat_map(|d| d.iter().map(|x| x.1 as f64 / games))
        .fold(0.01, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(root)
        .caption("Final score distribution by faction", ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(lo as f64..hi as f64, 0f64..top)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("final score")
        .y_desc("share of games")
        .y_label_formatter(&pct_for(top))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    for (i, f) in s.factions.iter().enumerate() {
        let c = color(i);
        chart
            .draw_series(LineSeries::new(
                dist[i].iter().map(|&(v, k)| (v as f64, k as f64 / games)),
                c.stroke_width(2),
            ))
            .map_err(e)?
            .label(f.name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(3)));
    }
    legend(&mut chart, SeriesLabelPosition::MiddleRight)?;
    root.present().map_err(e)
}

fn ranks<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let names: Vec<String> = s.factions.iter().map(|f| f.name.clone()).collect();
    let n = names.len();
    let mut chart = faction_chart(
        root,
        "Final rank distribution by faction",
        &names,
        0f64..1.0,
        &|y| pct(*y),
        "share of games",
    )?;
    for k in 0..n {
        let c = color(k);
        chart
            .draw_series(s.factions.iter().enumerate().map(move |(i, f)| {
                let below: f64 = f.ranks[..k].iter().map(|r| r.rate.rate).sum();
                let mut bar = Rectangle::new(
                    [
                        (SegmentValue::Exact(i as i32), below),
                        (
                            SegmentValue::Exact(i as i32 + 1),
                            below + f.ranks[k].rate.rate,
                        ),
                    ],
                    c.filled(),
                );
                bar.set_margin(0, 0, 12, 12);
                bar
            }))
            .map_err(e)?
            .label(format!("rank {}", k + 1))
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], c.filled()));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)?;
    root.present().map_err(e)
}

fn length<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let h = &s.length.histogram;
    // One empty round on each side, so that a single length still draws as a bar.
    let lo = h.first().map_or(0, |x| x.rounds) as i32 - 1;
    let hi = h.last().map_or(1, |x| x.rounds) as i32 + 1;
    let games = s.games.max(1) as f64;
    let top = h
        .iter()
        .map(|x| x.count as f64 / games)
        .fold(0.01, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(root)
        .caption("Game length", ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((lo..hi).into_segmented(), 0f64..top)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_desc("rounds played")
        .y_desc("share of games")
        .y_label_formatter(&pct_for(top))
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(h.iter().map(|x| {
            let r = x.rounds as i32;
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(r), 0.0),
                    (SegmentValue::Exact(r + 1), x.count as f64 / games),
                ],
                color(0).filled(),
            );
            bar.set_margin(0, 0, 4, 4);
            bar
        }))
        .map_err(e)?;
    root.present().map_err(e)
}

fn end_reasons<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let r: Vec<_> = s.end_reasons.iter().filter(|x| x.rate.count > 0).collect();
    let names: Vec<String> = r
        .iter()
        .map(|x| {
            if x.result == "rank" {
                x.name.clone()
            } else {
                format!("{} ({})", x.name, x.result)
            }
        })
        .collect();
    let n = names.len();
    let mut chart = ChartBuilder::on(root)
        .caption("Why games end (95% intervals)", ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(230)
        .build_cartesian_2d(0f64..1.0, segments(n).into_segmented())
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&label_at(&names))
        .x_label_formatter(&|x| pct(*x))
        .x_desc("share of games")
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(r.iter().enumerate().map(|(i, x)| {
            let mut bar = Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(i as i32)),
                    (x.rate.rate, SegmentValue::Exact(i as i32 + 1)),
                ],
                color(i).filled(),
            );
            bar.set_margin(10, 10, 0, 0);
            bar
        }))
        .map_err(e)?;
    chart
        .draw_series(r.iter().enumerate().map(|(i, x)| {
            ErrorBar::new_horizontal(
                SegmentValue::CenterOf(i as i32),
                x.rate.low,
                x.rate.rate,
                x.rate.high,
                BLACK.stroke_width(2),
                12,
            )
        }))
        .map_err(e)?;
    root.present().map_err(e)
}

fn points<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &Summary,
    sources: &[String],
) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let names: Vec<String> = s.factions.iter().map(|f| f.name.clone()).collect();
    let n = names.len();
    let value = |f: usize, k: usize| {
        s.points_by_source
            .iter()
            .find(|p| p.faction == names[f] && p.source == sources[k])
            .map_or(0.0, |p| p.mean_per_game)
    };
    let up = (0..n)
        .map(|f| {
            (0..sources.len())
                .map(|k| value(f, k).max(0.0))
                .sum::<f64>()
        })
        .fold(0.1, f64::max)
        * 1.15;
    let down = (0..n)
        .map(|f| {
            (0..sources.len())
                .map(|k| value(f, k).min(0.0))
                .sum::<f64>()
        })
        .fold(0.0, f64::min)
        * 1.15;
    let mut chart = faction_chart(
        root,
        "Where points come from (mean per game)",
        &names,
        down..up,
        &|y| format!("{y:.1}"),
        "points per game",
    )?;
    for (k, src) in sources.iter().enumerate() {
        let c = color(k);
        chart
            .draw_series((0..n).map(move |f| {
                let v = value(f, k);
                // Gains stack up from 0, losses down from 0.
                let base: f64 = (0..k)
                    .map(|j| value(f, j))
                    .filter(|x| (*x >= 0.0) == (v >= 0.0))
                    .sum();
                let mut bar = Rectangle::new(
                    [
                        (SegmentValue::Exact(f as i32), base),
                        (SegmentValue::Exact(f as i32 + 1), base + v),
                    ],
                    c.filled(),
                );
                bar.set_margin(0, 0, 12, 12);
                bar
            }))
            .map_err(e)?
            .label(src.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], c.filled()));
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
    root.present().map_err(e)
}

fn leader<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let l = &s.leader_by_round;
    let last = l.last().map_or(1, |x| x.round).max(2) as f64;
    let fair = 1.0 / s.factions.len().max(1) as f64;
    let mut chart = ChartBuilder::on(root)
        .caption(
            "How often the sole leader after a round goes on to win",
            ("sans-serif", 24),
        )
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(1f64..last, 0f64..1.0)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("after round")
        .y_desc("leader wins")
        .y_label_formatter(&|y| pct(*y))
        .x_label_formatter(&|x| format!("{x:.0}"))
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
        .map_err(e)?
        .label("95% interval")
        .legend(|(x, y)| {
            Rectangle::new([(x, y - 6), (x + 16, y + 6)], color(0).mix(0.25).filled())
        });
    chart
        .draw_series(LineSeries::new(
            l.iter().map(|x| (x.round as f64, x.won.rate)),
            color(0).stroke_width(3),
        ))
        .map_err(e)?
        .label("leader wins")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], color(0).stroke_width(3)));
    chart
        .draw_series(DashedLineSeries::new(
            vec![(1.0, fair), (last, fair)],
            8,
            6,
            BLACK.stroke_width(1),
        ))
        .map_err(e)?
        .label(format!("fair share {:.0}%", 100.0 * fair))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], BLACK));
    legend(&mut chart, SeriesLabelPosition::LowerRight)?;
    root.present().map_err(e)
}

/// Renders one chart as `dir/name.png` and `dir/name.svg`, each through a temporary file.
macro_rules! render {
    ($dir:expr, $name:expr, $written:expr, $draw:ident($($arg:expr),*)) => {{
        let (dir, name): (&Path, &str) = ($dir, $name);
        let pid = std::process::id();
        let png_tmp = dir.join(format!(".{name}.{pid}.tmp.png"));
        let svg_tmp = dir.join(format!(".{name}.{pid}.tmp.svg"));
        let fail = |m: String| {
            let _ = std::fs::remove_file(&png_tmp);
            let _ = std::fs::remove_file(&svg_tmp);
            Error::Write { what: format!("chart {name}"), source: std::io::Error::other(m) }
        };
        {
            let root = BitMapBackend::new(&png_tmp, SIZE).into_drawing_area();
            $draw(&root, $($arg),*).map_err(&fail)?;
        }
        {
            let root = SVGBackend::new(&svg_tmp, SIZE).into_drawing_area();
            $draw(&root, $($arg),*).map_err(&fail)?;
        }
        for (tmp, ext) in [(&png_tmp, "png"), (&svg_tmp, "svg")] {
            let path = dir.join(format!("{name}.{ext}"));
            std::fs::rename(tmp, &path).map_err(|source| Error::Write { what: path.display().to_string(), source })?;
            $written.push(path);
        }
    }};
}

/// The charts of a run, each as PNG and SVG; returns the files written.
pub fn write_charts(dir: &Path, s: &Summary, t: &crate::stats::Tally) -> Result<Vec<PathBuf>> {
    register_font();
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        what: dir.display().to_string(),
        source,
    })?;
    let mut written = Vec::new();
    let dist: Vec<Vec<(i64, u64)>> = t
        .factions
        .iter()
        .map(|f| f.scores.iter().collect())
        .collect();
    let sources: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for p in &s.points_by_source {
            if !v.contains(&p.source) {
                v.push(p.source.clone());
            }
        }
        v
    };
    render!(dir, "win_rates", written, win_rates(s));
    render!(dir, "scores", written, scores(s, &dist));
    render!(dir, "ranks", written, ranks(s));
    render!(dir, "length", written, length(s));
    render!(dir, "end_reasons", written, end_reasons(s));
    if !sources.is_empty() {
        render!(dir, "points_by_source", written, points(s, &sources));
    }
    if !s.leader_by_round.is_empty() {
        render!(dir, "leader_by_round", written, leader(s));
    }
    Ok(written)
}

fn sweep_lines<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    xlabel: &str,
    xs: &[f64],
    series: &[(String, Vec<crate::stats::Rate>)],
) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let (lo, hi) = (
        xs.iter().copied().fold(f64::INFINITY, f64::min),
        xs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    );
    let (lo, hi) = if lo < hi {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    let top = series
        .iter()
        .flat_map(|s| s.1.iter().map(|r| r.high))
        .fold(0.05, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 24))
        .margin(20)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(lo..hi, 0f64..top.min(1.0))
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc(xlabel)
        .y_desc("win rate (95% band)")
        .y_label_formatter(&|y| pct(*y))
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    for (i, (name, rates)) in series.iter().enumerate() {
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
            .map_err(e)?
            .label(name.clone())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(3)));
    }
    legend(&mut chart, SeriesLabelPosition::MiddleRight)?;
    root.present().map_err(e)
}

/// Blue (low) to orange (high): a diverging scale readable with color blindness.
fn heat(v: f64) -> RGBColor {
    let (a, b) = ((0.0, 114.0, 178.0), (230.0, 159.0, 0.0));
    let t = v.clamp(0.0, 1.0);
    let mix = |x: f64, y: f64| (x + (y - x) * t) as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

fn heat_maps<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    labels: (&str, &str),
    xs: &[String],
    ys: &[String],
    maps: &[(String, Vec<Vec<f64>>)],
) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 24)).map_err(e)?;
    let cols = maps.len().clamp(1, 4);
    let rows = maps.len().div_ceil(cols);
    let panels = root.split_evenly((rows, cols));
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
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [
                            (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                            (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                        ],
                        heat(v / max).filled(),
                    )))
                    .map_err(e)?;
                chart
                    .draw_series(std::iter::once(Text::new(
                        pct(v),
                        (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                        ("sans-serif", 14).into_font().color(&WHITE),
                    )))
                    .map_err(e)?;
            }
        }
    }
    root.present().map_err(e)
}

fn tornado<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    params: &[String],
    effects: &[(String, Vec<(f64, f64)>)],
) -> Draw {
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 24)).map_err(e)?;
    let cols = effects.len().clamp(1, 3);
    let rows = effects.len().div_ceil(cols);
    let panels = root.split_evenly((rows, cols));
    let span = effects
        .iter()
        .flat_map(|f| f.1.iter().flat_map(|(d, u)| [d.abs(), u.abs()]))
        .fold(0.005, f64::max)
        * 1.15;
    for (panel, (name, eff)) in panels.iter().zip(effects) {
        let mut chart = ChartBuilder::on(panel)
            .caption(name, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(150)
            .build_cartesian_2d(-span..span, segments(params.len()).into_segmented())
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(params.len())
            .y_label_formatter(&label_at(params))
            .x_labels(5)
            .x_label_formatter(&|x| format!("{:+.1}", 100.0 * x))
            .x_desc("change in win rate (points)")
            .label_style(("sans-serif", 13))
            .draw()
            .map_err(e)?;
        for (k, &(d, u)) in eff.iter().enumerate() {
            // Each row: one step down in its lower half, one step up in its upper half.
            let k = k as i32;
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
    title: &str,
    xlabel: &str,
    xs: &[f64],
    series: &[(String, Vec<crate::stats::Rate>)],
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(dir, name, written, sweep_lines(title, xlabel, xs, series));
    Ok(written)
}

/// Heat maps of each faction's win rate over a two-parameter grid.
pub fn write_heat_maps(
    dir: &Path,
    name: &str,
    title: &str,
    labels: (&str, &str),
    xs: &[String],
    ys: &[String],
    maps: &[(String, Vec<Vec<f64>>)],
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(dir, name, written, heat_maps(title, labels, xs, ys, maps));
    Ok(written)
}

/// Tornado chart: per faction, each parameter's effect one step down (blue) and up (orange).
pub fn write_tornado(
    dir: &Path,
    name: &str,
    title: &str,
    params: &[String],
    effects: &[(String, Vec<(f64, f64)>)],
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(dir, name, written, tornado(title, params, effects));
    Ok(written)
}
