//! Charts of a run (plotters), as PNG and SVG.
//!
//! Owns the figures a designer pastes into design notes: win rates with intervals and the fair
//! share, score distributions, rank distributions, game length, end reasons, points by
//! source, and the leader's chance to win by round.
//!
//! Every chart follows the same rules, so that it can be pasted into a design note as is:
//! a title and a subtitle naming the scenario, seed, games and overrides; the legend in its
//! own column to the right of the plot area (never over the data); a light grid; whole-number
//! ticks on whole-number axes; thousands separators; one color per faction for up to 16
//! factions (Okabe-Ito, then Paul Tol's muted scheme: both made for readers with color
//! blindness); text in the bundled DejaVu Sans (the SVGs name it first); and a size set by
//! `--chart-size`. Charts are rendered in memory and written atomically.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::Summary;
use crate::error::{Error, Result};

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
/// The chart size in pixels, `--chart-size` (default 960x600), packed as `w << 32 | h`.
static CHART_SIZE: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(960 << 32 | 600);

/// Sets the size of every chart written afterwards (`--chart-size WxH`).
pub fn set_size(w: u32, h: u32) {
    CHART_SIZE.store(
        (w as u64) << 32 | h as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
}

fn size() -> (u32, u32) {
    let v = CHART_SIZE.load(std::sync::atomic::Ordering::Relaxed);
    ((v >> 32) as u32, v as u32)
}

/// Parses `--chart-size WxH` (each side 320 to 4096 pixels).
pub fn parse_size(s: &str) -> std::result::Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}` is not WIDTHxHEIGHT (for example 1200x800)"))?;
    let side = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|x| (320..=4096).contains(x))
            .ok_or_else(|| format!("`{v}`: each side is a whole number of pixels from 320 to 4096"))
    };
    Ok((side(w)?, side(h)?))
}

/// One color per faction or series, 16 in all: Okabe-Ito's 7 colors, then Paul Tol's muted
/// scheme; both were designed to stay distinct for the common forms of color blindness.
pub const PALETTE: [RGBColor; 16] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(240, 228, 66),
    RGBColor(51, 34, 136),
    RGBColor(204, 102, 119),
    RGBColor(17, 119, 51),
    RGBColor(136, 34, 85),
    RGBColor(68, 170, 153),
    RGBColor(153, 153, 51),
    RGBColor(170, 68, 153),
    RGBColor(136, 204, 238),
    RGBColor(221, 204, 119),
];

/// Grid lines: light enough to read values by, never to compete with the data.
const GRID: RGBColor = RGBColor(228, 228, 228);
/// Secondary text (subtitles, notes).
const GREY: RGBColor = RGBColor(90, 90, 90);

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_names_wrap_to_their_slot() {
        assert_eq!(
            super::wrap("The Barony of Letnev", 100),
            ["The Barony", "of Letnev"]
        );
        assert_eq!(
            super::wrap("The Barony of Letnev", 120),
            ["The Barony of", "Letnev"]
        );
        assert_eq!(
            super::wrap("The Barony of Letnev", 200),
            ["The Barony of Letnev"]
        );
        assert_eq!(super::wrap("Sol", 40), ["Sol"]);
    }
}

/// The top of a share axis: a little headroom above `max`, never past 100%.
fn share_top(max: f64) -> f64 {
    if max > 0.85 {
        1.0
    } else {
        (max * 1.15).max(0.01)
    }
}

fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The only font: registered once, used for every text of every chart.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

type Draw = std::result::Result<(), String>;

/// How a legend entry is drawn.
#[derive(Clone, Copy)]
enum Key {
    /// A solid line of this color.
    Line(RGBColor),
    /// A dashed line (reference lines such as the fair share).
    Dashed(RGBColor),
    /// A filled box (bars, bands).
    Swatch(RGBAColor),
}

/// Draws an interval from `$a` to `$b` on `$chart`: a line with a 10-pixel cap at each end,
/// across the line (`$cap` is the cap's pixel offsets). No marker: it would hide a narrow
/// interval.
macro_rules! whisker {
    ($chart:expr, $a:expr, $b:expr, $cap:expr) => {{
        let (a, b) = ($a, $b);
        let style = BLACK.stroke_width(2);
        $chart
            .draw_series(std::iter::once(PathElement::new(
                vec![a.clone(), b.clone()],
                style,
            )))
            .map_err(e)?;
        for end in [a, b] {
            $chart
                .draw_series(std::iter::once(
                    EmptyElement::at(end) + PathElement::new($cap.to_vec(), style),
                ))
                .map_err(e)?;
        }
    }};
}

/// The subtitle of a run's charts: scenario, seed, games and overrides.
pub fn subtitle(s: &Summary) -> String {
    let over = if s.overrides.is_empty() {
        "no overrides".to_string()
    } else {
        s.overrides.join(", ")
    };
    // The scenario's title names the game; a long one gives way to the short name.
    let name = if s.scenario.title.chars().count() <= 60 {
        &s.scenario.title
    } else {
        &s.scenario.name
    };
    format!(
        "{name} · seed {} · {} games · {over}",
        s.seed,
        super::thousands(s.games)
    )
}

/// Lays out a chart: the title and subtitle on top, and, when there are legend entries, a
/// legend column right of the plot area. Returns the plot area: nothing else is drawn in
/// it, so the legend can never cover data.
fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    sub: &str,
    keys: &[(String, Key)],
) -> std::result::Result<DrawingArea<DB, Shift>, String> {
    root.fill(&WHITE).map_err(e)?;
    let (w, _) = root.dim_in_pixel();
    let (head, body) = root.split_vertically(72);
    head.draw(&Text::new(title, (20, 12), ("sans-serif", 24).into_font()))
        .map_err(e)?;
    head.draw(&Text::new(
        sub,
        (20, 44),
        ("sans-serif", 15).into_font().color(&GREY),
    ))
    .map_err(e)?;
    if keys.is_empty() {
        return Ok(body);
    }
    let longest = keys.iter().map(|k| k.0.chars().count()).max().unwrap_or(0) as u32;
    let side_w = (56 + 9 * longest).clamp(120, w / 3);
    let (plot, side) = body.split_horizontally(w - side_w);
    for (i, (label, key)) in keys.iter().enumerate() {
        let y = 30 + 26 * i as i32;
        match *key {
            Key::Line(c) => side
                .draw(&PathElement::new(vec![(8, y), (36, y)], c.stroke_width(3)))
                .map_err(e)?,
            Key::Dashed(c) => {
                for x in [8, 20, 32] {
                    side.draw(&PathElement::new(
                        vec![(x, y), (x + 7, y)],
                        c.stroke_width(2),
                    ))
                    .map_err(e)?;
                }
            }
            Key::Swatch(c) => side
                .draw(&Rectangle::new([(12, y - 7), (32, y + 7)], c.filled()))
                .map_err(e)?,
        }
        side.draw(&Text::new(
            label.clone(),
            (44, y - 8),
            ("sans-serif", 15).into_font(),
        ))
        .map_err(e)?;
    }
    Ok(plot)
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

/// The plot the per-faction bar charts share: one slot per faction, y range, y formatter
/// and y description, on a light grid.
fn faction_chart<'a, DB: DrawingBackend>(
    plot: &'a DrawingArea<DB, Shift>,
    names: &[String],
    y: std::ops::Range<f64>,
    y_fmt: &dyn Fn(&f64) -> String,
    y_desc: &str,
) -> std::result::Result<FactionChart<'a, DB>, String> {
    // Names are wrapped at spaces to the width of their slot, so that long ones never run
    // into each other; the label area grows with the number of lines.
    let (w, _) = plot.dim_in_pixel();
    let slot = (w.saturating_sub(110) / names.len().max(1) as u32).max(40);
    let wrapped: Vec<Vec<String>> = names.iter().map(|n| wrap(n, slot)).collect();
    let lines = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1) as u32;
    let mut chart = ChartBuilder::on(plot)
        .margin(16)
        .x_label_area_size(20 + 19 * lines)
        .y_label_area_size(70)
        .build_cartesian_2d(segments(names.len()).into_segmented(), y)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_labels(names.len())
        .x_label_formatter(&|_| String::new())
        .y_label_formatter(y_fmt)
        .y_desc(y_desc)
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    let ((x0, x1), (_, y1)) = {
        let (xr, yr) = chart.plotting_area().get_pixel_range();
        ((xr.start, xr.end), (yr.start, yr.end))
    };
    let (bx, by) = plot.get_base_pixel();
    let step = (x1 - x0) as f64 / names.len().max(1) as f64;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let font =
        TextStyle::from(("sans-serif", 16).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, lines) in wrapped.iter().enumerate() {
        let x = x0 - bx + (step * (i as f64 + 0.5)) as i32;
        for (k, line) in lines.iter().enumerate() {
            plot.draw(&Text::new(
                line.clone(),
                (x, y1 - by + 8 + 19 * k as i32),
                font.clone(),
            ))
            .map_err(e)?;
        }
    }
    Ok(chart)
}

/// Splits `text` at spaces into lines of at most `px` pixels (about 9 per character).
fn wrap(text: &str, px: u32) -> Vec<String> {
    let max = (px / 9).max(4) as usize;
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(l) if l.chars().count() + 1 + word.chars().count() <= max => {
                l.push(' ');
                l.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
}

fn labels(s: &Summary) -> Vec<String> {
    s.factions.iter().map(|f| f.label.clone()).collect()
}

fn win_rates<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let names = labels(s);
    let n = names.len();
    let fair = 1.0 / n.max(1) as f64;
    let plot = frame(
        root,
        "Win rate by faction (95% intervals)",
        &subtitle(s),
        &[(
            format!("fair share 1/{n} = {:.1}%", 100.0 * fair),
            Key::Dashed(BLACK),
        )],
    )?;
    let top = share_top(s.factions.iter().map(|f| f.win.high).fold(fair, f64::max));
    let mut chart = faction_chart(&plot, &names, 0f64..top, &pct_for(top), "sole wins")?;
    chart
        .draw_series(s.factions.iter().enumerate().map(|(i, f)| {
            let mut bar = Rectangle::new(
                [
                    (SegmentValue::Exact(i as i32), 0.0),
                    (SegmentValue::Exact(i as i32 + 1), f.win.rate),
                ],
                color(i).mix(0.85).filled(),
            );
            bar.set_margin(0, 0, 12, 12);
            bar
        }))
        .map_err(e)?;
    // The interval as a whisker with short caps and no marker: the bar's top is the estimate,
    // and a marker would hide a narrow interval at large samples.
    for (i, f) in s.factions.iter().enumerate() {
        let x = SegmentValue::CenterOf(i as i32);
        whisker!(
            chart,
            (x.clone(), f.win.low),
            (x, f.win.high),
            [(-5, 0), (5, 0)]
        );
    }
    chart
        .draw_series(DashedLineSeries::new(
            vec![(SegmentValue::Exact(0), fair), (SegmentValue::Last, fair)],
            8,
            6,
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
    root.present().map_err(e)
}

/// Each faction's score distribution over every score from the lowest to the highest seen:
/// scores no game ended on are zeros (drawn as such), unless the range is too wide to list.
fn dense(dist: &[(i64, u64)], lo: i64, hi: i64) -> Vec<(i64, u64)> {
    if (hi as i128 - lo as i128) > 4096 {
        return dist.to_vec();
    }
    let mut out: Vec<(i64, u64)> = (lo..=hi).map(|v| (v, 0)).collect();
    for &(v, k) in dist {
        out[(v - lo) as usize].1 = k;
    }
    out
}

/// Tick labels for a whole-number axis: whole numbers only, with thousands separators.
fn whole(x: &f64) -> String {
    if (x - x.round()).abs() > 1e-9 {
        return String::new();
    }
    let v = x.round() as i64;
    let digits = super::thousands(v.unsigned_abs());
    if v < 0 { format!("-{digits}") } else { digits }
}

/// How many ticks a whole-number axis from `lo` to `hi` gets: one per value when few.
fn whole_ticks(lo: f64, hi: f64) -> usize {
    ((hi - lo).round() as usize + 1).clamp(2, 12)
}

fn scores<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &Summary,
    dist: &[Vec<(i64, u64)>],
) -> Draw {
    let names = labels(s);
    let keys: Vec<(String, Key)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), Key::Line(color(i))))
        .collect();
    let plot = frame(
        root,
        "Final score distribution by faction",
        &subtitle(s),
        &keys,
    )?;
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
    let top = share_top(
        dist.iter()
            .flat_map(|d| d.iter().map(|x| x.1 as f64 / games))
            .fold(0.0, f64::max),
    );
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(lo as f64..hi as f64, 0f64..top)
        .map_err(e)?;
    chart
        .configure_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_desc("final score")
        .y_desc("share of games")
        .y_label_formatter(&pct_for(top))
        .x_labels(whole_ticks(lo as f64, hi as f64))
        .x_label_formatter(&whole)
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    for (i, d) in dist.iter().enumerate() {
        chart
            .draw_series(LineSeries::new(
                dense(d, lo, hi)
                    .into_iter()
                    .map(|(v, k)| (v as f64, k as f64 / games)),
                color(i).stroke_width(2),
            ))
            .map_err(e)?;
    }
    root.present().map_err(e)
}

fn ranks<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let names = labels(s);
    let n = names.len();
    // Rank colors are not faction colors: a sequential scale from first (dark) to last,
    // without viridis' darkest fifth, which reads as black in print.
    let rank_color = |k: usize| {
        viridis(
            0.2 + 0.8
                * if n <= 1 {
                    0.0
                } else {
                    k as f64 / (n - 1) as f64
                },
        )
    };
    let keys: Vec<(String, Key)> = (0..n)
        .map(|k| {
            (
                format!("rank {}", k + 1),
                Key::Swatch(rank_color(k).to_rgba()),
            )
        })
        .collect();
    let plot = frame(
        root,
        "Final rank distribution by faction",
        &subtitle(s),
        &keys,
    )?;
    let mut chart = faction_chart(&plot, &names, 0f64..1.0, &|y| pct(*y), "share of games")?;
    for k in 0..n {
        let c = rank_color(k);
        chart
            .draw_series(s.factions.iter().enumerate().map(move |(i, f)| {
                let below: f64 = f.ranks[..k].iter().map(|r| r.rate.rate).sum();
                let mut bar = Rectangle::new(
                    [
                        (SegmentValue::Exact(i as i32), below),
                        (
                            SegmentValue::Exact(i as i32 + 1),
                            (below + f.ranks[k].rate.rate).min(1.0),
                        ),
                    ],
                    c.filled(),
                );
                bar.set_margin(0, 0, 12, 12);
                bar
            }))
            .map_err(e)?;
    }
    root.present().map_err(e)
}

fn length<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let plot = frame(root, "Game length", &subtitle(s), &[])?;
    let h = &s.length.histogram;
    // One empty round on each side, so that a single length still draws as a bar.
    let lo = h.first().map_or(0, |x| x.rounds) as i32 - 1;
    let hi = h.last().map_or(1, |x| x.rounds) as i32 + 1;
    let games = s.games.max(1) as f64;
    let top = share_top(h.iter().map(|x| x.count as f64 / games).fold(0.0, f64::max));
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((lo..hi).into_segmented(), 0f64..top)
        .map_err(e)?;
    let span = (hi - lo) as usize;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_labels(span.min(25))
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
    let plot = frame(root, "Why games end (95% intervals)", &subtitle(s), &[])?;
    let mut r: Vec<_> = s.end_reasons.iter().filter(|x| x.rate.count > 0).collect();
    r.sort_by_key(|x| std::cmp::Reverse(x.rate.count));
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
    let n = names.len().max(1);
    let longest = names.iter().map(|x| x.chars().count()).max().unwrap_or(8) as u32;
    // One row per reason, the most common on top; names are drawn beside their rows.
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .margin_right(36)
        .x_label_area_size(45)
        .y_label_area_size((24 + 9 * longest).clamp(80, 360))
        .build_cartesian_2d(0f64..1.0, 0f64..n as f64)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .y_labels(0)
        .x_label_formatter(&|x| pct(*x))
        .x_desc("share of games")
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    let row = |i: usize| (n - 1 - i) as f64;
    chart
        .draw_series(r.iter().enumerate().map(|(i, x)| {
            Rectangle::new(
                [(0.0, row(i) + 0.2), (x.rate.rate, row(i) + 0.8)],
                color(0).filled(),
            )
        }))
        .map_err(e)?;
    for (i, x) in r.iter().enumerate() {
        let y = row(i) + 0.5;
        whisker!(chart, (x.rate.low, y), (x.rate.high, y), [(0, -5), (0, 5)]);
    }
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let font =
        TextStyle::from(("sans-serif", 16).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    let (bx, by) = plot.get_base_pixel();
    for (i, name) in names.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(0.0, row(i) + 0.5));
        plot.draw(&Text::new(name.clone(), (x - bx - 8, y - by), font.clone()))
            .map_err(e)?;
    }
    root.present().map_err(e)
}

fn points<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &Summary,
    sources: &[String],
) -> Draw {
    let keys: Vec<(String, Key)> = sources
        .iter()
        .enumerate()
        .map(|(k, src)| (src.clone(), Key::Swatch(color(k).to_rgba())))
        .collect();
    let plot = frame(
        root,
        "Where points come from (mean per game)",
        &subtitle(s),
        &keys,
    )?;
    let ids: Vec<String> = s.factions.iter().map(|f| f.name.clone()).collect();
    let names = labels(s);
    let n = names.len();
    let value = |f: usize, k: usize| {
        s.points_by_source
            .iter()
            .find(|p| p.faction == ids[f] && p.source == sources[k])
            .map_or(0.0, |p| p.mean_per_game)
    };
    let up = (0..n)
        .map(|f| {
            (0..sources.len())
                .map(|k| value(f, k).max(0.0))
                .sum::<f64>()
        })
        .fold(0.1, f64::max)
        * 1.1;
    let down = (0..n)
        .map(|f| {
            (0..sources.len())
                .map(|k| value(f, k).min(0.0))
                .sum::<f64>()
        })
        .fold(0.0, f64::min)
        * 1.1;
    let mut chart = faction_chart(
        &plot,
        &names,
        down..up,
        &|y| {
            if (y - y.round()).abs() < 1e-9 {
                format!("{y:.0}")
            } else {
                format!("{y:.1}")
            }
        },
        "points per game",
    )?;
    for (k, _) in sources.iter().enumerate() {
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
            .map_err(e)?;
    }
    root.present().map_err(e)
}

fn leader<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let l = &s.leader_by_round;
    let last = l.last().map_or(1, |x| x.round).max(2) as f64;
    let fair = 1.0 / s.factions.len().max(1) as f64;
    let plot = frame(
        root,
        "How often the sole leader after a round goes on to win",
        &subtitle(s),
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

/// Encodes an RGB buffer as PNG.
pub(crate) fn png_bytes(rgb: &[u8], (w, h): (u32, u32)) -> std::result::Result<Vec<u8>, String> {
    use image::ImageEncoder;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(rgb, w, h, image::ColorType::Rgb8)
        .map_err(e)?;
    Ok(png)
}

/// Renders one chart in memory as PNG and SVG, then writes `dir/name.png` and
/// `dir/name.svg` atomically (so a full disk is an ordinary write error naming the file).
macro_rules! render {
    ($dir:expr, $name:expr, $written:expr, $draw:ident($($arg:expr),*)) => {{
        let (dir, name): (&Path, &str) = ($dir, $name);
        let fail = |m: String| Error::Write { what: format!("chart {name}"), source: std::io::Error::other(m) };
        let dim = size();
        let mut rgb = vec![0u8; dim.0 as usize * dim.1 as usize * 3];
        {
            let root = BitMapBackend::with_buffer(&mut rgb, dim).into_drawing_area();
            $draw(&root, $($arg),*).map_err(&fail)?;
        }
        let png = png_bytes(&rgb, dim).map_err(&fail)?;
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, dim).into_drawing_area();
            $draw(&root, $($arg),*).map_err(&fail)?;
        }
        // The PNG is drawn with the bundled DejaVu Sans; the SVG names it first, then
        // Verdana (its metric twin) and the viewer's sans-serif.
        let svg = svg.replace(
            "font-family=\"sans-serif\"",
            "font-family=\"DejaVu Sans, Verdana, sans-serif\"",
        );
        for (bytes, ext) in [(&png[..], "png"), (svg.as_bytes(), "svg")] {
            let path = dir.join(format!("{name}.{ext}"));
            crate::output::write_atomic(&path, bytes)?;
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

/// Viridis, a perceptually uniform scale that stays readable in grey and with color
/// blindness: `t` from 0 (dark purple) to 1 (yellow), interpolated between 9 of its stops.
fn viridis(t: f64) -> RGBColor {
    const STOPS: [(f64, f64, f64); 9] = [
        (68.0, 1.0, 84.0),
        (71.0, 44.0, 122.0),
        (59.0, 81.0, 139.0),
        (44.0, 113.0, 142.0),
        (33.0, 144.0, 141.0),
        (39.0, 173.0, 129.0),
        (92.0, 200.0, 99.0),
        (170.0, 220.0, 50.0),
        (253.0, 231.0, 37.0),
    ];
    let x = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
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
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(
        dir,
        name,
        written,
        sweep_lines(title, sub, xlabel, xs, series)
    );
    Ok(written)
}

/// Heat maps of each faction's win rate over a two-parameter grid, with a color scale.
pub fn write_heat_maps(
    dir: &Path,
    name: &str,
    (title, sub): (&str, &str),
    labels: (&str, &str),
    xs: &[String],
    ys: &[String],
    maps: &[(String, Vec<Vec<f64>>)],
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(
        dir,
        name,
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
) -> Result<Vec<PathBuf>> {
    register_font();
    let mut written = Vec::new();
    render!(dir, name, written, tornado(title, sub, params, effects));
    Ok(written)
}
