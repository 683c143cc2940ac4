//! A sweep's report page: the chart (a line per faction against one parameter, or a heat
//! map per faction over two) and report.md with every point's rates.

use std::fmt::Write as _;
use std::path::Path;

use super::{SweepArgs, rate_cell};
use crate::error::Result;
use crate::stats::Rate;
use crate::sweep::Sweep;

/// Writes the chart and report.md (with the `pairing` note under the table) into `dir`.
pub(super) fn write_page(
    a: &SweepArgs,
    model: &crate::Model,
    dir: &Path,
    sweep: &Sweep,
    pairing: Option<&str>,
) -> Result<()> {
    chart(a, dir, sweep)?;
    let o = &a.opts;
    let title = format!("Sweep: {}", model.title);
    let seats = sweep.points.first().map_or(0, |p| p.seats.len());
    let seat_cols: Vec<String> = (1..=seats).map(|i| format!("seat {i}")).collect();
    let mut md =
        super::super::report_header(&title, model, o.seed, o.games, "per variant or point");
    let columns: Vec<String> = (sweep.factions.iter().chain(&seat_cols)).cloned().collect();
    let _ = write!(
        md,
        "![Win rate against {}](sweep.svg)\n\nWin rate of each faction{} with its 95% interval at each point; every point plays the same seeds.\n\n| {} | {} |\n|{}\n",
        sweep.params.join(" and "),
        if seat_cols.is_empty() {
            ""
        } else {
            " and each seat (the factions rotated through the seats)"
        },
        sweep.params.join(" | "),
        columns.join(" | "),
        "---|".repeat(sweep.params.len() + sweep.factions.len() + seat_cols.len())
    );
    for p in &sweep.points {
        let cells: Vec<String> = p.win.iter().chain(&p.seats).map(rate_cell).collect();
        let _ = writeln!(md, "| {} | {} |", p.values.join(" | "), cells.join(" | "));
    }
    if let Some(p) = pairing {
        let _ = writeln!(md, "\n{p}");
    }
    super::super::write_report(dir, &md, &title)
}

/// The chart: each faction's win rate against one parameter (when its values are numbers),
/// or a heat map per faction over two.
fn chart(a: &SweepArgs, dir: &Path, sweep: &Sweep) -> Result<()> {
    let o = &a.opts;
    let title = format!("Win rate against {}", sweep.params.join(" and "));
    let sub = super::super::chart_subtitle(&a.scenario, o, "per point");
    match a.param.as_slice() {
        [p] => {
            let xs: Option<Vec<f64>> = p.values.iter().map(|v| v.parse().ok()).collect();
            let Some(xs) = xs else {
                return Ok(());
            };
            let series: Vec<(String, Vec<Rate>)> = (sweep.factions.iter().enumerate())
                .map(|(i, f)| (f.clone(), sweep.points.iter().map(|pt| pt.win[i]).collect()))
                .collect();
            crate::report::charts::write_sweep_lines(
                dir,
                "sweep",
                (&title, &sub),
                &p.path,
                (&xs, sweep.floored),
                &series,
                o.canvas(),
            )?;
        }
        [p, q] => {
            let n = q.values.len();
            let map = |i: usize| -> Vec<Vec<Rate>> {
                (0..p.values.len())
                    .map(|x| (0..n).map(|y| sweep.points[x * n + y].win[i]).collect())
                    .collect()
            };
            let maps: Vec<(String, Vec<Vec<Rate>>)> = (sweep.factions.iter().enumerate())
                .map(|(i, f)| (f.clone(), map(i)))
                .collect();
            crate::report::charts::write_heat_maps(
                dir,
                "sweep",
                (&title, &sub),
                (
                    (p.path.as_str(), p.values.as_slice()),
                    (q.path.as_str(), q.values.as_slice()),
                ),
                &maps,
                o.canvas(),
            )?;
        }
        _ => {}
    }
    Ok(())
}
