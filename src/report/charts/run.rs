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
    // A game of fixed length is one bar: the chart says what it means.
    if let [only] = h.as_slice()
        && only.count == s.games
    {
        let rounds = match only.rounds {
            1 => "1 round".to_string(),
            n => format!("{n} rounds"),
        };
        let (bx, by) = plot.get_base_pixel();
        let mid = (SegmentValue::CenterOf(only.rounds as i32), top / 2.0);
        let (x, y) = chart.backend_coord(&mid);
        bar_note(
            &plot,
            &format!("every game lasts {rounds}"),
            (x - bx, y - by),
        )?;
    }
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
    // A single reason ends every game: its bar fills the axis, and an interval hugging 100%
    // would only read as a stray mark at the edge, so the bar says it in words instead.
    let only = r.len() == 1 && r[0].rate.count == s.games;
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

/// Writes the whole-run charts of a run into `dir`, adding the files to `written`.
pub(super) fn write(
    dir: &Path,
    s: &Summary,
    t: &crate::stats::Tally,
    size: (u32, u32),
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
