//! The usage chart of a run: a heat map of each faction's actions, colored by the win-rate
//! difference (games with the action against games without) where it is beyond noise, with
//! a color bar; each cell notes the share of the faction's decisions and the difference,
//! where they fit (column labels are cut to their cell, never overprinted).

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::sweep::diverging;
use super::*;

/// The number of leading characters every name shares, when at least 3 and every name
/// keeps at least one after it (0 otherwise).
fn common_prefix(names: &[String]) -> usize {
    let Some(first) = names.first() else {
        return 0;
    };
    let first: Vec<char> = first.chars().collect();
    let k = (names.iter().skip(1)).fold(first.len(), |k, n| {
        n.chars()
            .zip(&first)
            .take(k)
            .take_while(|(a, b)| a == *b)
            .count()
    });
    let keeps = names.iter().all(|n| n.chars().count() > k);
    if names.len() > 1 && k >= 3 && keeps {
        k
    } else {
        0
    }
}

/// One cell of a usage or cards map: its note (a share), its win-rate difference, and
/// whether that rests on fewer than 1% of the games on one side (such a cell does not set
/// the color scale: it saturates instead).
struct Cell {
    note: String,
    difference: Option<crate::stats::Diff>,
    rare: bool,
}

/// Fewer than 1% of `n` games on one side of `with`.
fn rare(with: u64, n: u64) -> bool {
    with.min(n.saturating_sub(with)).saturating_mul(100) < n
}

/// What a map shows: its title, its columns, per faction (in seat order) a cell per column,
/// and its captions from longest to shortest.
struct Map<'a> {
    title: &'a str,
    columns: Vec<String>,
    cells: Vec<Vec<Cell>>,
    captions: [&'a str; 3],
}

impl Map<'_> {
    /// How far the color scale reaches either way: the largest difference beyond noise of
    /// a cell that is not rare (at least 1 pp, so noise around 0 is not painted).
    fn reach(&self) -> f64 {
        (self.cells.iter().flatten().filter(|c| !c.rare))
            .filter_map(beyond)
            .map(|d| d.est.abs())
            .fold(0.01, f64::max)
    }
}

/// A cell's difference, when it is beyond noise (what colors the cell).
fn beyond(c: &Cell) -> Option<crate::stats::Diff> {
    c.difference.filter(|d| d.beyond_noise())
}

fn usage_map<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let columns: Vec<String> = (s.factions.first().map(|f| &f.usage))
        .into_iter()
        .flatten()
        .map(|u| u.action.clone())
        .collect();
    let cells = (s.factions.iter())
        .map(|f| {
            (f.usage.iter())
                .map(|u| Cell {
                    note: match u.never_chosen {
                        true => "never".to_string(),
                        false => format!("{:.1}%", 100.0 * u.share),
                    },
                    difference: u.difference,
                    rare: rare(u.games, s.games),
                })
                .collect()
        })
        .collect();
    let map = Map {
        title: "Action usage by faction",
        columns,
        cells,
        captions: [
            "each cell: the share of the faction's decisions; color and ±N pp: its win rate with the action minus without, where beyond noise",
            "share of decisions; color, ±N pp: win rate with minus without",
            "share; color: with minus without",
        ],
    };
    heat_map(root, s, &map)
}

/// The cards some faction ended some game with (the others carry nothing to draw: a deck
/// only ever drawn face up, for one), by position in the card rows.
fn held_cards(s: &Summary) -> Vec<usize> {
    let n = s.factions.first().map_or(0, |f| f.cards.len());
    (0..n)
        .filter(|&k| {
            s.factions
                .iter()
                .any(|f| f.cards.get(k).is_some_and(|c| c.games > 0))
        })
        .collect()
}

fn cards_map<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary) -> Draw {
    let kept = held_cards(s);
    let cards: Vec<_> = (s.factions.first().map_or(&[][..], |f| &f.cards[..]).iter())
        .enumerate()
        .filter(|(k, _)| kept.contains(k))
        .map(|(_, c)| c)
        .collect();
    // A card's name, or `deck/card` when two decks hold cards of one name.
    let unique = (cards.iter().map(|c| &c.card))
        .collect::<std::collections::HashSet<_>>()
        .len()
        == cards.len();
    let columns: Vec<String> = (cards.iter())
        .map(|c| match unique {
            true => c.card.clone(),
            false => format!("{}/{}", c.deck, c.card),
        })
        .collect();
    let cells = (s.factions.iter())
        .map(|f| {
            (kept.iter().map(|&k| &f.cards[k]))
                .map(|c| Cell {
                    note: format!("{:.1}%", 100.0 * c.games as f64 / s.games.max(1) as f64),
                    difference: c.difference,
                    rare: rare(c.games, s.games),
                })
                .collect()
        })
        .collect();
    let map = Map {
        title: "Cards held or completed at the end, by faction",
        columns,
        cells,
        captions: [
            "each cell: the share of games the faction ended with the card; color and ±N pp: its win rate with it minus without, where beyond noise",
            "share of games ended with it; color, ±N pp: win rate with minus without",
            "share; color: with minus without",
        ],
    };
    heat_map(root, s, &map)
}

/// A grid of columns: the base name, rows, columns, and each column's cell.
type Grid = (String, u16, u16, Vec<(u16, u16)>);

/// When every column is `BASE_rRcC` and together they fill a grid (a `for_each` over a
/// grid set names its copies so): the base, the grid's rows and columns, and each column's
/// 0-based cell `(row, col)`.
fn grid_of(columns: &[String]) -> Option<Grid> {
    let mut base = None;
    let mut cells = Vec::with_capacity(columns.len());
    for c in columns {
        let (b, rc) = c.rsplit_once("_r")?;
        let (r, col) = rc.split_once('c')?;
        let (r, col): (u16, u16) = (r.parse().ok()?, col.parse().ok()?);
        if *base.get_or_insert(b) != b || r == 0 || col == 0 {
            return None;
        }
        cells.push((r - 1, col - 1));
    }
    let rows = cells.iter().map(|c| c.0 + 1).max()?;
    let cols = cells.iter().map(|c| c.1 + 1).max()?;
    let distinct: std::collections::HashSet<_> = cells.iter().collect();
    let full = distinct.len() == cells.len() && cells.len() == rows as usize * cols as usize;
    let base = base?.to_string();
    (full && cells.len() > 1).then_some((base, rows, cols, cells))
}

/// A usage map whose columns fill a grid, drawn as that grid: one panel per faction, each
/// cell colored by its win-rate difference where beyond noise, the difference noted where
/// it fits.
fn grid_maps<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    s: &Summary,
    map: &Map<'_>,
    (base, rows, cols, at): Grid,
) -> Draw {
    let title = format!("{} ({base}, by its grid's cells)", map.title);
    let plot = frame(root, &title, &subtitle(s), &[])?;
    let (pw, ph) = plot.dim_in_pixel();
    let (maps, scale) = plot.split_horizontally(pw.saturating_sub(120));
    let (grid_area, caption_area) = maps.split_vertically(ph.saturating_sub(30));
    let n = map.cells.len().max(1);
    let per_row = n.min(4);
    let panels = grid_area.split_evenly((n.div_ceil(per_row), per_row));
    let dev = map.reach();
    let note = TextStyle::from(("sans-serif", 12).into_font());
    let head = TextStyle::from(("sans-serif", 14).into_font());
    for ((panel, row), label) in panels.iter().zip(&map.cells).zip(labels(s)) {
        let (w, h) = panel.dim_in_pixel();
        let side = (w.saturating_sub(44) / cols as u32).min(h.saturating_sub(56) / rows as u32);
        let (x0, y0) = (34i32, 44i32);
        let name = abbreviate(panel, &label, &head, w.saturating_sub(24));
        panel
            .draw(&Text::new(name, (20, 4), head.clone()))
            .map_err(e)?;
        // The grid's rows and columns, named as its elements are (r1c1 is the top left).
        let index = ("sans-serif", 11).into_font().color(&GREY);
        let centered = index.pos(Pos::new(HPos::Center, VPos::Center));
        for r in 0..rows {
            let y = y0 + (r as u32 * side + side / 2) as i32;
            let at = (x0 - 12, y);
            panel
                .draw(&Text::new(format!("r{}", r + 1), at, centered.clone()))
                .map_err(e)?;
        }
        for c in 0..cols {
            let x = x0 + (c as u32 * side + side / 2) as i32;
            let at = (x, y0 - 8);
            panel
                .draw(&Text::new(format!("c{}", c + 1), at, centered.clone()))
                .map_err(e)?;
        }
        for (cell, &(r, c)) in row.iter().zip(&at) {
            let d = beyond(cell);
            let t = d.map_or(0.0, |d| d.est / dev);
            let fill = d.map_or(RGBColor(228, 228, 228), |_| diverging(t));
            let (x, y) = (x0 + (c as u32 * side) as i32, y0 + (r as u32 * side) as i32);
            let rect = [(x, y), (x + side as i32 - 1, y + side as i32 - 1)];
            panel
                .draw(&Rectangle::new(rect, fill.filled()))
                .map_err(e)?;
            let text = d.map(|d| crate::stats::signed_tenths(100.0 * d.est));
            if let Some(text) = text
                && panel
                    .estimate_text_size(&text, &note)
                    .is_ok_and(|(tw, th)| tw + 4 <= side && th + 2 <= side)
            {
                let ink = if t.abs() > 0.6 { WHITE } else { BLACK };
                let style = note
                    .clone()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                let mid = (x + side as i32 / 2, y + side as i32 / 2);
                panel.draw(&Text::new(text, mid, style)).map_err(e)?;
            }
        }
    }
    let caption = "each panel: a faction's grid; color, ±N: win rate with the cell's action minus without (pp)";
    let style = TextStyle::from(("sans-serif", 13).into_font());
    let cap = abbreviate(
        &caption_area,
        caption,
        &style,
        caption_area.dim_in_pixel().0.saturating_sub(24),
    );
    caption_area
        .draw(&Text::new(cap, (20, 6), style))
        .map_err(e)?;
    bar(&scale, ph, dev)
}

/// The color bar of a usage or cards map: no difference (white) in the middle, the largest
/// either way at the ends, in percentage points.
fn bar<DB: DrawingBackend>(scale: &DrawingArea<DB, Shift>, ph: u32, dev: f64) -> Draw {
    let (top, bottom) = (30i32, ph as i32 - 60);
    let mid = (top + bottom) / 2;
    let pp = |v: f64| format!("{} pp", crate::stats::signed_tenths(100.0 * v));
    let ticks = [(pp(dev), top), ("0".to_string(), mid), (pp(-dev), bottom)];
    color_bar(scale, (top, bottom), |t| diverging(2.0 * t - 1.0), &ticks)?;
    scale
        .draw(&Text::new(
            "with − without",
            (4, top - 24),
            ("sans-serif", 13).into_font(),
        ))
        .map_err(e)?;
    scale
        .draw(&Text::new(
            "grey: within noise",
            (4, bottom + 16),
            ("sans-serif", 12).into_font(),
        ))
        .map_err(e)?;
    Ok(())
}

fn heat_map<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, s: &Summary, map: &Map<'_>) -> Draw {
    if let Some(grid) = grid_of(&map.columns) {
        return grid_maps(root, s, map, grid);
    }
    let actions = &map.columns;
    // The first seat on top.
    let factions: Vec<String> = labels(s).into_iter().rev().collect();
    let nf = factions.len() as i32;
    let plot = frame(root, map.title, &subtitle(s), &[])?;
    let (pw, ph) = plot.dim_in_pixel();
    let (maps, scale) = plot.split_horizontally(pw.saturating_sub(120));
    // The color: a cell's win-rate difference where it is beyond noise (grey elsewhere),
    // on a scale reaching the largest such difference either way (at least 1 pp).
    let dev = map.reach();
    // Room for the longest faction name (about 8 pixels a character at size 13), at most a
    // third of the width.
    let longest_name = factions
        .iter()
        .map(|f| f.chars().count())
        .max()
        .unwrap_or(0) as u32;
    let label_w = (16 + 8 * longest_name).min(maps.dim_in_pixel().0 / 3);
    let caption = TextStyle::from(("sans-serif", 13).into_font());
    let width = maps.dim_in_pixel().0.saturating_sub(label_w + 24);
    let desc = (map.captions.iter())
        .find(|t| {
            maps.estimate_text_size(t, &caption)
                .is_ok_and(|(w, _)| w <= width)
        })
        .unwrap_or(&map.captions[2]);
    let cell_w = width / actions.len().max(1) as u32;
    let one = actions.len() == 1;
    // A single column's label is drawn under the middle of the map, not at its first slot.
    let blank = vec![String::new()];
    // Column labels across when they fit their cells, else turned upright (about 14 units
    // a label), cut to the room below the map; never running into the next one.
    let across = (actions.iter()).all(|a| {
        maps.estimate_text_size(a, &caption)
            .is_ok_and(|(w, _)| w + 4 <= cell_w)
    });
    // Upright, a prefix every name shares is left out ("…r1c1" for "place_r1c1").
    let shared = common_prefix(actions);
    let upright: Vec<String> = (actions.iter())
        .map(|a| match shared {
            0 => a.clone(),
            k => format!("…{}", a.chars().skip(k).collect::<String>()),
        })
        .collect();
    let longest_upright = (upright.iter())
        .filter_map(|a| maps.estimate_text_size(a, &caption).ok())
        .map(|(w, _)| w)
        .max()
        .unwrap_or(0);
    let upright_room = (longest_upright + 44).clamp(60, (ph / 3).max(60));
    // Wide cells keep their labels across, cut to the cell, rather than upright.
    let across = across || cell_w >= 56;
    let shown: Vec<String> = match (across, cell_w >= 14) {
        (true, _) => (actions.iter())
            .map(|a| abbreviate(&maps, a, &caption, cell_w.saturating_sub(4)))
            .collect(),
        (false, true) => (upright.iter())
            .map(|a| abbreviate(&maps, a, &caption, upright_room.saturating_sub(44)))
            .collect(),
        (false, false) => vec![String::new(); actions.len()],
    };
    let label_h = if across { 60 } else { upright_room };
    let cell_h = ph.saturating_sub(24 + label_h) / factions.len().max(1) as u32;
    let mut chart = ChartBuilder::on(&maps)
        .margin(12)
        .x_label_area_size(label_h)
        .y_label_area_size(label_w)
        .build_cartesian_2d(
            segments(actions.len()).into_segmented(),
            segments(factions.len()).into_segmented(),
        )
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(actions.len())
        .y_labels(factions.len())
        .x_label_formatter(&label_at(if one { &blank } else { &shown }))
        .y_label_formatter(&label_at(&factions))
        .x_desc(*desc)
        .label_style(("sans-serif", 13))
        .x_label_style(match across {
            true => caption.clone(),
            false => caption
                .clone()
                .transform(FontTransform::Rotate90)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        })
        .axis_desc_style(caption.clone())
        .draw()
        .map_err(e)?;
    let note = TextStyle::from(("sans-serif", 14).into_font());
    let fits = |t: &str| {
        maps.estimate_text_size(t, &note)
            .is_ok_and(|(w, _)| w + 6 <= cell_w)
    };
    for (fi, row) in map.cells.iter().enumerate() {
        for (ai, u) in row.iter().enumerate() {
            let (x, y) = (ai as i32, nf - 1 - fi as i32);
            // A single column spans both of the axis's slots (see `segments`).
            let right = if one { 2 } else { x + 1 };
            let cell = [
                (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                (SegmentValue::Exact(right), SegmentValue::Exact(y + 1)),
            ];
            let mid = if one {
                SegmentValue::Exact(1)
            } else {
                SegmentValue::CenterOf(x)
            };
            let d = beyond(u);
            let t = d.map_or(0.0, |d| d.est / dev);
            let fill = match d {
                Some(_) => diverging(t),
                None => RGBColor(228, 228, 228),
            };
            chart
                .draw_series(std::iter::once(Rectangle::new(cell, fill.filled())))
                .map_err(e)?;
            // White text on the strong ends of the scale, dark elsewhere.
            let ink = if t.abs() > 0.6 { WHITE } else { BLACK };
            let share = u.note.clone();
            let pp = d.map(|d| format!("{} pp", crate::stats::signed_tenths(100.0 * d.est)));
            // The share and the difference on one line, on two when the cell is narrow,
            // the difference alone when only it fits, nothing when nothing does.
            let lines: Vec<(String, i32)> = match pp {
                Some(pp) if fits(&format!("{share} {pp}")) => vec![(format!("{share} {pp}"), 0)],
                Some(pp) if cell_h >= 36 && fits(&share) && fits(&pp) => {
                    vec![(share, -8), (pp, 8)]
                }
                Some(pp) if fits(&pp) => vec![(pp, 0)],
                Some(_) => Vec::new(),
                None if fits(&share) && cell_h >= 18 => vec![(share, 0)],
                None => Vec::new(),
            };
            for (text, dy) in lines {
                let style = note
                    .clone()
                    .color(&ink)
                    .pos(Pos::new(HPos::Center, VPos::Center));
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((mid.clone(), SegmentValue::CenterOf(y)))
                            + Text::new(text, (0, dy), style),
                    ))
                    .map_err(e)?;
            }
        }
    }
    if one {
        let style = caption.clone().pos(Pos::new(HPos::Center, VPos::Top));
        chart
            .draw_series(std::iter::once(
                EmptyElement::at((SegmentValue::Exact(1), SegmentValue::Exact(0)))
                    + Text::new(shown[0].clone(), (0, 10), style),
            ))
            .map_err(e)?;
    }
    bar(&scale, ph, dev)
}

/// Writes `usage.png` and `usage.svg` when the run counted usage, and `cards.png` and
/// `cards.svg` when some faction ended a game with a card.
pub(super) fn write(
    dir: &Path,
    s: &Summary,
    size: Canvas,
    written: &mut Vec<PathBuf>,
) -> Result<()> {
    if s.factions.iter().all(|f| f.usage.is_empty()) {
        return Ok(());
    }
    render!(dir, "usage", size, written, usage_map(s));
    if !held_cards(s).is_empty() {
        render!(dir, "cards", size, written, cards_map(s));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{common_prefix, grid_of};

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn columns_that_fill_a_grid_are_drawn_as_it() {
        let mut cols = Vec::new();
        for r in 1..=2 {
            for c in 1..=3 {
                cols.push(format!("place_r{r}c{c}"));
            }
        }
        let (base, rows, n, at) = grid_of(&cols).unwrap();
        assert_eq!((base.as_str(), rows, n), ("place", 2, 3));
        assert_eq!(at[4], (1, 1));
        // A missing cell, a second base or a plain name: not a grid.
        assert!(grid_of(&cols[..5]).is_none());
        assert!(grid_of(&names(&["a_r1c1", "b_r1c2"])).is_none());
        assert!(grid_of(&names(&["expand", "build"])).is_none());
    }

    #[test]
    fn a_shared_prefix_is_left_out_only_when_every_name_keeps_a_tail() {
        assert_eq!(common_prefix(&names(&["place_r1c1", "place_r1c2"])), 9);
        assert_eq!(common_prefix(&names(&["expand", "build"])), 0);
        assert_eq!(common_prefix(&names(&["abc", "abcd"])), 0);
    }
}
