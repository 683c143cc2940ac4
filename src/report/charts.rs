//! Charts (plotters), as PNG and SVG: the style and layout every chart shares, and writing
//! them. The figures themselves are in `run` (one run's charts), `rounds` (its per-round
//! charts), `sweep` (sweep and sensitivity charts), `skill` and `tune`.
//!
//! Every chart follows the same rules, so that it can be pasted into a design note as is:
//! a title and a subtitle naming the scenario, seed, games and overrides; the legend, when
//! the chart needs one, in its own column to the right of the plot area (never over the
//! data; small multiples name and color each panel in its title instead); a light grid;
//! whole-number ticks on whole-number axes; thousands separators; one color per faction for
//! up to 16 factions (Okabe-Ito, then Paul Tol's muted scheme: both made for readers with
//! color blindness); text in the bundled DejaVu Sans (the SVGs name it first); and a size set
//! by `--chart-size`. Charts are rendered in memory and written atomically.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::Summary;
use crate::error::{Error, Result};
use layout::{abbreviate, fit_lines};
pub(crate) use raster::rasterize;

const FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
/// The chart size in pixels when `--chart-size` is not given.
pub const DEFAULT_SIZE: (u32, u32) = (960, 600);

/// A chart's canvas: its size in pixels, and how many pixels one unit of the drawing takes
/// (`--chart-scale`): at scale 2 a 1600x900 chart is drawn as an 800x450 one, every text and
/// line twice as large, so the picture reads the same placed at half its width.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Canvas {
    /// Width and height in pixels (the PNG's).
    pub px: (u32, u32),
    /// Pixels per unit of drawing (the SVG's units), at least 1.
    pub scale: f32,
}

/// The smallest drawing, in units, that every chart's layout fits (titles, legends, axis
/// labels and cell notes): a canvas whose pixels over its scale are smaller is enlarged.
pub const MIN_UNITS: (u32, u32) = (640, 400);

impl Canvas {
    /// This canvas enlarged, where needed, so that its drawing is at least [`MIN_UNITS`],
    /// with a note saying so when it was (the scale keeps its meaning).
    pub fn at_least_min(self) -> (Canvas, Option<String>) {
        let k = self.scale.max(1.0);
        let grown = self.at_least(MIN_UNITS);
        let px = grown.px;
        if px == self.px {
            return (self, None);
        }
        let (uw, uh) = self.units();
        let note = format!(
            "--chart-size {}x{} at --chart-scale {k} leaves {uw}x{uh} units for a chart, less \
             than the {}x{} its layout needs: the charts are drawn at {}x{} pixels instead. For \
             the same chart, sharper, multiply the size by the scale (--chart-size {}x{} \
             --chart-scale {k})",
            self.px.0,
            self.px.1,
            MIN_UNITS.0,
            MIN_UNITS.1,
            px.0,
            px.1,
            (DEFAULT_SIZE.0 as f32 * k) as u32,
            (DEFAULT_SIZE.1 as f32 * k) as u32,
        );
        (Canvas { px, ..self }, Some(note))
    }

    /// This canvas enlarged, where needed, to at least `units` of drawing (at its scale).
    pub fn at_least(self, units: (u32, u32)) -> Canvas {
        let k = self.scale.max(1.0);
        let need = |u: u32, px: u32| px.max((u as f32 * k).ceil() as u32);
        Canvas {
            px: (need(units.0, self.px.0), need(units.1, self.px.1)),
            ..self
        }
    }

    /// The drawing's size in its own units (the SVG's size): the pixels over the scale.
    pub fn units(&self) -> (u32, u32) {
        let k = self.scale.max(1.0);
        let u = |x: u32| ((x as f32 / k).round() as u32).max(1);
        (u(self.px.0), u(self.px.1))
    }
}

impl From<(u32, u32)> for Canvas {
    fn from(px: (u32, u32)) -> Canvas {
        Canvas { px, scale: 1.0 }
    }
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
/// The opacity of a band (a spread around a line) in its line's color.
const BAND: f64 = 0.2;

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The factions' labels, in seat order.
fn labels(s: &Summary) -> Vec<String> {
    s.factions.iter().map(|f| f.label.clone()).collect()
}

#[cfg(test)]
mod tests {
    /// The bisection behind a title's fit finds the longest head that fits, at every edge.
    #[test]
    fn the_longest_fitting_head_is_found_by_bisection() {
        for n in 0..40 {
            for limit in 0..=n {
                assert_eq!(
                    super::layout::longest(n, |k| k <= limit),
                    limit,
                    "{n} {limit}"
                );
            }
        }
    }

    #[test]
    fn long_names_wrap_to_their_slot() {
        assert_eq!(
            super::wrap("The Barony of Lorvek", 100),
            ["The Barony", "of Lorvek"]
        );
        assert_eq!(
            super::wrap("The Barony of Lorvek", 120),
            ["The Barony of", "Lorvek"]
        );
        assert_eq!(
            super::wrap("The Barony of Lorvek", 200),
            ["The Barony of Lorvek"]
        );
        assert_eq!(super::wrap("Ash", 40), ["Ash"]);
    }

    #[test]
    fn percent_ticks_drop_trailing_zeros() {
        let small = super::pct_for(0.03);
        assert_eq!(small(&0.025), "2.5%");
        assert_eq!(small(&0.02), "2%");
        assert_eq!(small(&0.0), "0%");
        assert_eq!(small(&0.0125), "1.25%");
        let wide = super::pct_for(0.5);
        assert_eq!(wide(&0.2), "20%");
        assert_eq!(wide(&0.1), "10%");
    }

    #[test]
    fn the_legend_panel_fits_every_allowed_width() {
        assert_eq!(super::side_width(4, 960), 120);
        assert_eq!(super::side_width(20, 960), 236);
        assert_eq!(super::side_width(60, 960), 320);
        // The narrowest charts (320 to 359 pixels) panicked here once: a third of the width
        // is under the 120-pixel floor.
        for w in 320..=4096 {
            for longest in [0, 4, 30, 200] {
                assert!(super::side_width(longest, w) <= w / 3);
            }
        }
    }
}

/// The legend panel's width for keys of up to `longest` characters in a chart `w` pixels
/// wide: room for the longest key, at least 120 pixels, never more than a third of the chart
/// (which wins on the narrowest charts, below 360 pixels).
fn side_width(longest: u32, w: u32) -> u32 {
    (56 + 9 * longest).max(120).min(w / 3)
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

/// The subtitle of a run's charts: scenario, seed, games, overrides and agents.
pub fn subtitle(s: &Summary) -> String {
    // The scenario's title names the game; a long one gives way to the short name.
    let name = if s.scenario.title.chars().count() <= 60 {
        &s.scenario.title
    } else {
        &s.scenario.name
    };
    let sub = subtitle_of(name, s.seed, s.games, "", &s.overrides, "no overrides");
    // Short, so that the subtitle fits the chart's width.
    format!("{sub} · {}", s.agents().replace("every faction ", "all "))
}

/// A chart subtitle from its parts: `name · seed S · N games[ per] · overrides` (or `none`
/// when there are no overrides).
pub fn subtitle_of(
    name: &str,
    seed: u64,
    games: u64,
    per: &str,
    overrides: &[String],
    none: &str,
) -> String {
    let over = if overrides.is_empty() {
        none.to_string()
    } else {
        overrides.join(", ")
    };
    format!(
        "{} · seed {seed} · {} games{per} · {over}",
        crate::error::one_line(name),
        super::thousands(games)
    )
}

/// A vertical color bar in `area` from pixel row `top` to `bottom`: `color(t)` for `t` from
/// 0 at the bottom to 1 on top, framed, with a tick and a label at each `(text, row)`.
fn color_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (top, bottom): (i32, i32),
    color: impl Fn(f64) -> RGBColor,
    ticks: &[(String, i32)],
) -> Draw {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let steps = 64;
    for k in 0..steps {
        let y0 = bottom - (bottom - top) * k / steps;
        let y1 = bottom - (bottom - top) * (k + 1) / steps;
        let t = (k as f64 + 0.5) / steps as f64;
        area.draw(&Rectangle::new([(20, y1), (44, y0)], color(t).filled()))
            .map_err(e)?;
    }
    area.draw(&Rectangle::new(
        [(20, top), (44, bottom)],
        BLACK.stroke_width(1),
    ))
    .map_err(e)?;
    let label =
        TextStyle::from(("sans-serif", 15).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (text, y) in ticks {
        area.draw(&PathElement::new(
            vec![(44, *y), (48, *y)],
            BLACK.stroke_width(1),
        ))
        .map_err(e)?;
        area.draw(&Text::new(text.clone(), (50, *y), label.clone()))
            .map_err(e)?;
    }
    Ok(())
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
    // The title on one line and the subtitle on up to two, each shortened with an
    // ellipsis rather than cut at the edge.
    let room = w.saturating_sub(40);
    let title_font = ("sans-serif", 24).into_font();
    let sub_font = ("sans-serif", 15).into_font();
    // A title wraps to a second line before it is shortened.
    let title = fit_lines(root, title, &title_font, room, 2);
    let sub = fit_lines(root, sub, &sub_font, room, 2);
    let below = 30 * title.len() as i32;
    let (head, body) = root.split_vertically((24 + below + 18 * sub.len() as i32) as u32);
    for (i, line) in title.iter().enumerate() {
        head.draw(&Text::new(
            line.clone(),
            (20, 12 + 30 * i as i32),
            title_font.clone(),
        ))
        .map_err(e)?;
    }
    for (i, line) in sub.iter().enumerate() {
        head.draw(&Text::new(
            line.clone(),
            (20, 14 + below + 18 * i as i32),
            sub_font.clone().color(&GREY),
        ))
        .map_err(e)?;
    }
    if keys.is_empty() {
        return Ok(body);
    }
    let longest = keys.iter().map(|k| k.0.chars().count()).max().unwrap_or(0) as u32;
    let side_w = side_width(longest, w);
    let (plot, side) = body.split_horizontally(w - side_w);
    // Each label wraps to a second line before it is shortened; never cut at the edge.
    let key_font = ("sans-serif", 15).into_font();
    let mut y = 30;
    for (label, key) in keys {
        let lines = fit_lines(&side, label, &key_font, side_w.saturating_sub(52), 2);
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
        for (j, line) in lines.iter().enumerate() {
            side.draw(&Text::new(
                line.clone(),
                (44, y - 8 + 18 * j as i32),
                key_font.clone(),
            ))
            .map_err(e)?;
        }
        y += 26 + 18 * (lines.len() as i32 - 1).max(0);
    }
    Ok(plot)
}

fn e<E: std::fmt::Display>(x: E) -> String {
    x.to_string()
}

/// Writes `text` centered on `(x, y)` of `area` (pixels from its corner) on a white label,
/// so that it reads over a bar of any color and past its end: the caption of a chart whose
/// one bar says everything ("every game lasts 8 rounds").
fn bar_note<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    (x, y): (i32, i32),
) -> Draw {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    // About 9 pixels a character at size 16, and a margin on each side.
    let half = 10 + 5 * text.chars().count() as i32;
    area.draw(&Rectangle::new(
        [(x - half, y - 15), (x + half, y + 15)],
        WHITE.filled(),
    ))
    .map_err(e)?;
    let style =
        TextStyle::from(("sans-serif", 16).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
    area.draw(&Text::new(text.to_string(), (x, y), style))
        .map_err(e)
}

fn pct(x: f64) -> String {
    format!("{:.0}%", 100.0 * x)
}

/// Percent labels with as many decimals as a small axis needs, and no trailing zeros:
/// `2.5%`, not `2.50%`; `2%`, not `2.00%`.
fn pct_for(top: f64) -> impl Fn(&f64) -> String {
    let digits = if top < 0.05 {
        2
    } else if top < 0.2 {
        1
    } else {
        0
    };
    move |x| {
        let s = format!("{:.*}", digits, 100.0 * x);
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.')
        } else {
            &s
        };
        // "-0" (a rounding of a tiny negative) reads as 0.
        let s = if s == "-0" { "0" } else { s };
        format!("{s}%")
    }
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
    // The labels' size shrinks (to 10 at the least) until the longest word fits its slot.
    let (w, _) = plot.dim_in_pixel();
    let slot = (w.saturating_sub(110) / names.len().max(1) as u32).max(40);
    let longest = (names.iter().flat_map(|n| n.split_whitespace()))
        .map(|word| word.chars().count() as u32)
        .max()
        .unwrap_or(1)
        .max(1);
    let size = (slot * 16 / (9 * longest)).clamp(10, 16);
    let wrapped: Vec<Vec<String>> = (names.iter()).map(|n| wrap(n, slot * 16 / size)).collect();
    let lines = wrapped.iter().map(Vec::len).max().unwrap_or(1).max(1) as u32;
    let line_h = 3 + size as i32;
    let mut chart = ChartBuilder::on(plot)
        .margin(16)
        .x_label_area_size(20 + line_h as u32 * lines)
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
        TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(HPos::Center, VPos::Top));
    for (i, lines) in wrapped.iter().enumerate() {
        let x = x0 - bx + (step * (i as f64 + 0.5)) as i32;
        for (k, line) in lines.iter().enumerate() {
            plot.draw(&Text::new(
                line.clone(),
                (x, y1 - by + 8 + line_h * k as i32),
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
    ((hi - lo).round().clamp(0.0, 100.0) as usize + 1).clamp(2, 12)
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

/// Renders one chart in memory as PNG and SVG, then writes `dir/name.png` and
/// `dir/name.svg` atomically (so a full disk is an ordinary write error naming the file).
macro_rules! render {
    ($dir:expr, $name:expr, $size:expr, $written:expr, $draw:ident($($arg:expr),*)) => {{
        let (dir, name, canvas): (&Path, &str, Canvas) = ($dir, $name, $size);
        let dim = canvas.units();
        let fail = |m: String| Error::Write { what: format!("chart {name}"), source: std::io::Error::other(m) };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, dim).into_drawing_area();
            $draw(&root, $($arg),*).map_err(&fail)?;
        }
        // The PNG is drawn with the bundled DejaVu Sans; the SVG names it first, then
        // Verdana (its metric twin) and the viewer's sans-serif. A label's control
        // characters are written as visible escapes (`cat` of a chart drives no terminal).
        let svg = crate::diagnostic::terminal_safe(&svg).replace(
            "font-family=\"sans-serif\"",
            "font-family=\"DejaVu Sans, Verdana, sans-serif\"",
        );
        let png = rasterize(&svg, canvas.px, canvas.scale).map_err(&fail)?;
        for (bytes, ext) in [(&png[..], "png"), (svg.as_bytes(), "svg")] {
            let path = dir.join(format!("{name}.{ext}"));
            crate::output::write_atomic(&path, bytes)?;
            $written.push(path);
        }
    }};
}

mod layout;
mod raster;
mod rounds;
mod run;
mod skill;
mod sweep;
mod tune;
mod usage;

/// The charts of a run, each as PNG and SVG: the whole-run charts, then the per-round ones
/// (when the run has rounds to show); returns the files written.
pub fn write_charts(
    dir: &Path,
    s: &Summary,
    t: &crate::stats::Tally,
    size: Canvas,
) -> Result<Vec<PathBuf>> {
    register_font();
    std::fs::create_dir_all(crate::output::staged(dir)).map_err(|source| Error::Write {
        what: dir.display().to_string(),
        source,
    })?;
    let mut written = Vec::new();
    run::write(dir, s, t, size, &mut written)?;
    rounds::write(dir, s, size, &mut written)?;
    usage::write(dir, s, size, &mut written)?;
    Ok(written)
}

pub use skill::{DiffWords, LiftRow, write_exploit, write_ladder, write_lift, write_matchups};
pub use sweep::{Axis, write_heat_maps, write_sweep_lines, write_tornado};
pub use tune::{TuneMap, TunePanel, write_tune, write_tune_map};
