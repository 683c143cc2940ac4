//! The whole-run charts of one run: win rates, scores, ranks, length, end reasons and points
//! by source, drawn in the shared frame of [`super`]. The per-round charts (score race,
//! leader by round) are in `rounds`.

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::*;

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

/// One faction's final scores: the width of its bins (1 while its histogram is exact) and
/// the count of every bin a game ended in, by the bin's lowest score, in order.
struct Dist {
    width: i64,
    counts: Vec<(i64, u64)>,
}

/// The most bars the score chart draws in groups (scores from the lowest to the highest,
/// times factions); past that, each faction's distribution is a step outline.
const MAX_BARS: i128 = 96;

/// A histogram's outline as a path: each bin a flat step at its share of `games`, from half a
/// point below its lowest score to half a point above its highest, joined by vertical edges
/// and down to zero where no game ended. Every segment is level or upright: none runs between
/// two scores as though a score between them could happen.
fn steps(counts: &[(i64, u64)], width: i64, games: f64) -> Vec<(f64, f64)> {
    let mut path = Vec::with_capacity(4 * counts.len() + 2);
    let mut end: Option<f64> = None;
    for &(v, k) in counts {
        let (a, b) = (v as f64 - 0.5, v as f64 + width as f64 - 0.5);
        match end {
            // The next bin: straight up or down at their common edge.
            Some(x) if (a - x).abs() < 1e-9 => {}
            // A gap: down to zero, along the axis, up again.
            Some(x) => path.extend([(x, 0.0), (a, 0.0)]),
            None => path.push((a, 0.0)),
        }
        let y = k as f64 / games;
        path.extend([(a, y), (b, y)]);
        end = Some(b);
    }
    if let Some(x) = end {
        path.push((x, 0.0));
    }
    path
}

/// The final score distribution of every faction. Scores are whole numbers, so no line joins
/// two of them: with few distinct scores, a group of bars per score (a bar per faction, in
/// its color); with many, each faction's histogram as a step outline.
fn scores<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary, dist: &[Dist]) -> Draw {
    let names = labels(s);
    let lo = (dist.iter())
        .filter_map(|d| d.counts.first().map(|x| x.0))
        .min()
        .unwrap_or(0);
    let hi = (dist.iter())
        .filter_map(|d| d.counts.last().map(|x| x.0.saturating_add(d.width - 1)))
        .max()
        .unwrap_or(lo)
        .max(lo);
    let values = hi as i128 - lo as i128 + 1;
    let bars = dist.iter().all(|d| d.width == 1) && values * dist.len().max(1) as i128 <= MAX_BARS;
    let keys: Vec<(String, Key)> = (names.iter().enumerate())
        .map(|(i, n)| {
            let key = if bars {
                Key::Swatch(color(i).to_rgba())
            } else {
                Key::Line(color(i))
            };
            (n.clone(), key)
        })
        .collect();
    let plot = frame(
        root,
        "Final score distribution by faction",
        &subtitle(s),
        &keys,
    )?;
    let games = s.games.max(1) as f64;
    let top = share_top(
        dist.iter()
            .flat_map(|d| d.counts.iter().map(|x| x.1 as f64 / games))
            .fold(0.0, f64::max),
    );
    let share = pct_for(top);
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d((lo as f64 - 0.5)..(hi as f64 + 0.5), 0f64..top)
        .map_err(e)?;
    let mut mesh = chart.configure_mesh();
    mesh.bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_desc("final score")
        .y_desc("share of games")
        .y_label_formatter(&share)
        .x_labels(whole_ticks(lo as f64, hi as f64))
        .x_label_formatter(&whole)
        .label_style(("sans-serif", 16));
    if bars {
        // Grid lines would run through the middle of each group.
        mesh.disable_x_mesh();
    }
    mesh.draw().map_err(e)?;
    if bars {
        // Each score's group fills 80% of its slot, a bar per faction in seat order.
        let bw = 0.8 / dist.len().max(1) as f64;
        for (i, d) in dist.iter().enumerate() {
            let c = color(i);
            chart
                .draw_series(d.counts.iter().filter(|x| x.1 > 0).map(|&(v, k)| {
                    let left = v as f64 - 0.4 + bw * i as f64;
                    Rectangle::new([(left, 0.0), (left + bw, k as f64 / games)], c.filled())
                }))
                .map_err(e)?;
        }
    } else {
        for (i, d) in dist.iter().enumerate().filter(|d| !d.1.counts.is_empty()) {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    steps(&d.counts, d.width, games),
                    color(i).stroke_width(2),
                )))
                .map_err(e)?;
        }
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

/// The share of games of each length. The axis runs from the shortest game seen to the
/// longest, no further: a round no game reached would only be an empty slot. A single length
/// (a game of fixed length) keeps an empty round on each side, so that its one bar stays a
/// bar, and says in words what it means.
fn length<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let plot = frame(root, "Game length", &subtitle(s), &[])?;
    let h: Vec<_> = s.length.histogram.iter().filter(|x| x.count > 0).collect();
    let first = h.iter().map(|x| x.rounds).min().unwrap_or(0);
    let last = h.iter().map(|x| x.rounds).max().unwrap_or(first);
    let (lo, hi) = if first == last {
        (first as f64 - 1.5, last as f64 + 1.5)
    } else {
        (first as f64 - 0.5, last as f64 + 0.5)
    };
    let games = s.games.max(1) as f64;
    let top = share_top(h.iter().map(|x| x.count as f64 / games).fold(0.0, f64::max));
    let mut chart = ChartBuilder::on(&plot)
        .margin(16)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(lo..hi, 0f64..top)
        .map_err(e)?;
    // One tick a round while they fit; whole rounds only.
    let slots = (hi - lo).round() as usize;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_labels(slots.clamp(2, 25))
        .x_label_formatter(&whole)
        .x_desc("rounds played")
        .y_desc("share of games")
        .y_label_formatter(&pct_for(top))
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    chart
        .draw_series(h.iter().map(|x| {
            let r = x.rounds as f64;
            Rectangle::new(
                [(r - 0.42, 0.0), (r + 0.42, x.count as f64 / games)],
                color(0).filled(),
            )
        }))
        .map_err(e)?;
    // A game of fixed length is one bar: the chart says what it means.
    if let [only] = h.as_slice()
        && only.count == s.games
    {
        let rounds = match only.rounds {
            1 => "1 round".to_string(),
            n => format!("{n} rounds"),
        };
        let (bx, by) = plot.get_base_pixel();
        let (x, y) = chart.backend_coord(&(only.rounds as f64, top / 2.0));
        bar_note(
            &plot,
            &format!("every game lasts {rounds}"),
            (x - bx, y - by),
        )?;
    }
    root.present().map_err(e)
}

/// A share with its interval, with as many decimals as the interval's width needs (1 to 3):
/// `12.3% [11.8%, 12.9%]`, `0.015% [0.005%, 0.044%]`.
fn share_with_interval(rate: f64, low: f64, high: f64) -> String {
    let width = 100.0 * (high - low);
    let digits = if width >= 0.5 {
        1
    } else if width >= 0.05 {
        2
    } else {
        3
    };
    let p = |x: f64| format!("{:.*}%", digits, 100.0 * x);
    format!("{} [{}, {}]", p(rate), p(low), p(high))
}

/// Why games end: a bar per end reason with its 95% interval, the most common on top, each
/// with its value and interval written at its end (so that a reason too rare for its bar to
/// show still reads). A single reason that ends every game is one full bar saying so in
/// words, with no interval and no claim of one in the title.
fn end_reasons<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let mut r: Vec<_> = s.end_reasons.iter().filter(|x| x.rate.count > 0).collect();
    r.sort_by_key(|x| std::cmp::Reverse(x.rate.count));
    // A single reason ends every game: its bar fills the axis, and an interval hugging 100%
    // would only read as a stray mark at the edge, so the bar says it in words instead.
    let only = r.len() == 1 && r[0].rate.count == s.games;
    let title = if only {
        "Why games end"
    } else {
        "Why games end (95% intervals)"
    };
    let plot = frame(root, title, &subtitle(s), &[])?;
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
        // Room for half the last tick label, "100%", right of the axis's end.
        .margin_right(40)
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
    if !only {
        for (i, x) in r.iter().enumerate() {
            let y = row(i) + 0.5;
            whisker!(chart, (x.rate.low, y), (x.rate.high, y), [(0, -5), (0, 5)]);
        }
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
    if only {
        let (x, y) = chart.backend_coord(&(0.5, row(0) + 0.5));
        bar_note(
            &plot,
            &format!("every game ends by {}", names[0]),
            (x - bx, y - by),
        )?;
    } else {
        value_labels(&plot, &chart, &r, &row)?;
    }
    root.present().map_err(e)
}

/// A chart over two real axes.
type RealChart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// Writes each end reason's value and interval at its bar: right of the bar and its whisker
/// when the text fits in the chart, else inside the bar in white, left of its end and of its
/// whisker; on a chart too narrow for either, on a white label at the chart's right edge.
fn value_labels<DB: DrawingBackend>(
    plot: &DrawingArea<DB, Shift>,
    chart: &RealChart<'_, DB>,
    reasons: &[&crate::report::ReasonSummary],
    row: &dyn Fn(usize) -> f64,
) -> Draw {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let (bx, by) = plot.get_base_pixel();
    let (pw, _) = plot.dim_in_pixel();
    let right_edge = bx + pw as i32 - 6;
    let style = TextStyle::from(("sans-serif", 15).into_font());
    for (i, x) in reasons.iter().enumerate() {
        let (rate, low, high) = (x.rate.rate, x.rate.low, x.rate.high);
        let text = share_with_interval(rate, low, high);
        let tw = plot.estimate_text_size(&text, &style).map_err(e)?.0 as i32;
        let y = row(i) + 0.5;
        let (zero, py) = chart.backend_coord(&(0.0, y));
        let (end, _) = chart.backend_coord(&(rate.max(high), y));
        let (inner, _) = chart.backend_coord(&(rate.min(low), y));
        let (outside, inside) = (end + 8, inner - 8);
        let py = py - by;
        if outside + tw <= right_edge {
            let left = style.pos(Pos::new(HPos::Left, VPos::Center));
            plot.draw(&Text::new(text, (outside - bx, py), left))
                .map_err(e)?;
        } else if inside - tw >= zero + 4 {
            let white = style.color(&WHITE).pos(Pos::new(HPos::Right, VPos::Center));
            plot.draw(&Text::new(text, (inside - bx, py), white))
                .map_err(e)?;
        } else {
            let left = (right_edge - tw).max(bx) - bx;
            plot.draw(&Rectangle::new(
                [(left - 4, py - 11), (left + tw + 4, py + 11)],
                WHITE.filled(),
            ))
            .map_err(e)?;
            let on_white = style.pos(Pos::new(HPos::Left, VPos::Center));
            plot.draw(&Text::new(text, (left, py), on_white))
                .map_err(e)?;
        }
    }
    Ok(())
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

/// Writes the whole-run charts of a run into `dir`, adding the files to `written`.
pub(super) fn write(
    dir: &Path,
    s: &Summary,
    t: &crate::stats::Tally,
    size: Canvas,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    let dist: Vec<Dist> = (t.factions.iter())
        .map(|f| Dist {
            width: i64::try_from(f.scores.width.max(1)).unwrap_or(i64::MAX),
            counts: f.scores.iter().collect(),
        })
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
    render!(dir, "win_rates", size, written, win_rates(s));
    render!(dir, "scores", size, written, scores(s, &dist));
    render!(dir, "ranks", size, written, ranks(s));
    render!(dir, "length", size, written, length(s));
    render!(dir, "end_reasons", size, written, end_reasons(s));
    if !sources.is_empty() {
        render!(dir, "points_by_source", size, written, points(s, &sources));
    }
    Ok(())
}
