//! The charts of one run: win rates, scores, ranks, length, end reasons, points by source
//! and the leader's chance to win by round, drawn in the shared frame of [`super`].

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;

use super::*;

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

/// The last round that at least 5% of the games reached (per-round charts stop there: a
/// round few games reach has an interval of a handful of games and a median that jumps).
fn live_rounds(s: &Summary) -> u32 {
    let mut reached = 0u64;
    let mut last = 1;
    let mut hist: Vec<(i64, u64)> = (s.length.histogram.iter())
        .map(|h| (h.rounds, h.count))
        .collect();
    hist.sort_unstable();
    // Games that reached round k: those whose length is k or more.
    for &(rounds, count) in hist.iter().rev() {
        reached += count;
        if reached * 20 >= s.games {
            last = rounds.max(1) as u32;
            break;
        }
    }
    last
}

/// The subtitle of a per-round chart cut at round `cut` of `longest`.
fn cut_subtitle(s: &Summary, cut: u32, longest: u32) -> String {
    if cut >= longest {
        subtitle(s)
    } else {
        format!("{} · to round {cut}, which 5% of games reach", subtitle(s))
    }
}

fn leader<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let cut = live_rounds(s);
    let longest = s.leader_by_round.last().map_or(1, |x| x.round);
    let l: Vec<_> = (s.leader_by_round.iter())
        .filter(|x| x.round <= cut)
        .cloned()
        .collect();
    let last = l.last().map_or(1, |x| x.round).max(2) as f64;
    let fair = 1.0 / s.factions.len().max(1) as f64;
    let plot = frame(
        root,
        "How often the sole leader after a round goes on to win",
        &cut_subtitle(s, cut, longest),
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

/// The score race: every faction's median score after each round with a band between its
/// quartiles (top panel), and the leader's mean margin over the rest with its interval
/// (bottom panel).
fn race<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let cut = live_rounds(s);
    let longest = s.by_round.last().map_or(1, |x| x.round);
    let rounds: Vec<_> = (s.by_round.iter())
        .filter(|r| r.round <= cut)
        .cloned()
        .collect();
    let last = rounds.last().map_or(1, |x| x.round).max(2) as f64;
    let mut keys: Vec<(String, Key)> = s
        .factions
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.clone(), Key::Line(color(i))))
        .collect();
    keys.push((
        "quartiles (25-75%)".into(),
        Key::Swatch(BLACK.mix(0.15).to_rgba()),
    ));
    keys.push(("leader's margin".into(), Key::Line(BLACK)));
    keys.push((
        "its 95% interval".into(),
        Key::Swatch(BLACK.mix(0.15).to_rgba()),
    ));
    // Medians are whole numbers, so factions running level would hide each other: each
    // faction's line is drawn a little to the side of the round (at most 0.15 of a round).
    let nf = s.factions.len().max(1);
    let dodge = |f: usize| (f as f64 - (nf - 1) as f64 / 2.0) * (0.3 / nf as f64);
    let plot = frame(
        root,
        "Score race: median score after each round",
        &cut_subtitle(s, cut, longest),
        &keys,
    )?;
    let (top, bottom) = plot.split_vertically(plot.dim_in_pixel().1 * 62 / 100);
    let hi = rounds
        .iter()
        .flat_map(|r| r.scores.iter().flatten().map(|x| x.q3))
        .max()
        .unwrap_or(1);
    let lo = rounds
        .iter()
        .flat_map(|r| r.scores.iter().flatten().map(|x| x.q1))
        .min()
        .unwrap_or(0)
        .min(0);
    let (ylo, yhi) = (lo as f64, (hi as f64).max(lo as f64 + 1.0) * 1.05);
    let (x0, x1) = (1.0 - 0.2, last + 0.2);
    let mut chart = ChartBuilder::on(&top)
        .margin(16)
        .x_label_area_size(30)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, ylo..yhi)
        .map_err(e)?;
    chart
        .configure_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .y_desc("score (median)")
        .y_labels(whole_ticks(ylo, yhi))
        .y_label_formatter(&whole)
        .x_labels(whole_ticks(1.0, last))
        .x_label_formatter(&whole)
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    for f in 0..s.factions.len() {
        let pts: Vec<(f64, crate::stats::Spread)> = rounds
            .iter()
            .filter_map(|r| {
                r.scores
                    .get(f)
                    .copied()
                    .flatten()
                    .map(|x| (r.round as f64, x))
            })
            .collect();
        let band: Vec<(f64, f64)> = pts
            .iter()
            .map(|(x, v)| (*x, v.q3 as f64))
            .chain(pts.iter().rev().map(|(x, v)| (*x, v.q1 as f64)))
            .collect();
        chart
            .draw_series(std::iter::once(Polygon::new(
                band,
                color(f).mix(0.12).filled(),
            )))
            .map_err(e)?;
    }
    for f in 0..s.factions.len() {
        chart
            .draw_series(LineSeries::new(
                rounds.iter().filter_map(|r| {
                    r.scores
                        .get(f)
                        .copied()
                        .flatten()
                        .map(|x| (r.round as f64 + dodge(f), x.median as f64))
                }),
                color(f).stroke_width(3),
            ))
            .map_err(e)?;
    }
    let m: Vec<(f64, crate::report::Margin)> = rounds
        .iter()
        .filter_map(|r| r.margin.map(|m| (r.round as f64, m)))
        .collect();
    let mhi = m.iter().map(|x| x.1.high).fold(0.5, f64::max) * 1.1;
    let mlo = m.iter().map(|x| x.1.low).fold(0.0, f64::min);
    let mut chart = ChartBuilder::on(&bottom)
        .margin(16)
        .x_label_area_size(45)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, mlo..mhi)
        .map_err(e)?;
    chart
        .configure_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_desc("after round")
        .y_desc("leader's margin")
        .y_label_formatter(&|y| format!("{y:.1}"))
        .x_labels(whole_ticks(1.0, last))
        .x_label_formatter(&whole)
        .label_style(("sans-serif", 16))
        .draw()
        .map_err(e)?;
    let band: Vec<(f64, f64)> = m
        .iter()
        .map(|(x, v)| (*x, v.high))
        .chain(m.iter().rev().map(|(x, v)| (*x, v.low)))
        .collect();
    chart
        .draw_series(std::iter::once(Polygon::new(
            band,
            BLACK.mix(0.15).filled(),
        )))
        .map_err(e)?;
    chart
        .draw_series(LineSeries::new(
            m.iter().map(|(x, v)| (*x, v.mean)),
            BLACK.stroke_width(2),
        ))
        .map_err(e)?;
    root.present().map_err(e)
}

/// The charts of a run, each as PNG and SVG; returns the files written.
pub fn write_charts(
    dir: &Path,
    s: &Summary,
    t: &crate::stats::Tally,
    size: (u32, u32),
) -> Result<Vec<PathBuf>> {
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
    render!(dir, "win_rates", size, written, win_rates(s));
    render!(dir, "scores", size, written, scores(s, &dist));
    render!(dir, "ranks", size, written, ranks(s));
    render!(dir, "length", size, written, length(s));
    render!(dir, "end_reasons", size, written, end_reasons(s));
    if !sources.is_empty() {
        render!(dir, "points_by_source", size, written, points(s, &sources));
    }
    if !s.leader_by_round.is_empty() {
        render!(dir, "leader_by_round", size, written, leader(s));
    }
    if !s.by_round.is_empty() {
        render!(dir, "score_race", size, written, race(s));
    }
    Ok(written)
}
