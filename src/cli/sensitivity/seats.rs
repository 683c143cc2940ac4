//! What `sensitivity` says of the seats when they rotate: each step's change in every
//! seat's win rate, in the terminal and in report.md.

use std::fmt::Write as _;

use super::{Sensitivity, move_label};

/// With rotated seats, each step's change in every seat's win rate (`*` beyond noise),
/// then the seat changes beyond noise; empty without rotation.
pub(super) fn table(s: &Sensitivity, lw: usize, mw: usize) -> String {
    let mut t = String::new();
    if s.seats_unmoved {
        let _ = writeln!(t, "\nseats: {}", crate::report::seats::unmoved_words());
    }
    let Some(n) = seats(s) else {
        return t;
    };
    let _ = write!(t, "\nseats (rotated):\n{:<lw$}{:<mw$}", "parameter", "move");
    for i in 1..=n {
        let _ = write!(t, "{:>23} ", format!("seat {i}"));
    }
    let _ = writeln!(t);
    let mut moved = Vec::new();
    for e in &s.effects {
        for (up, swings) in [(false, &e.down_seats), (true, &e.up_seats)] {
            let first = if up { "" } else { e.param.as_str() };
            let _ = write!(t, "{first:<lw$}{:<mw$}", move_label(e, up));
            let mut seats = Vec::new();
            for (i, w) in swings.iter().enumerate() {
                let mark = if w.beyond_noise { "*" } else { " " };
                let _ = write!(t, "{:>23}{mark}", w.cell());
                if w.beyond_noise {
                    seats.push(format!(
                        "seat {} {}",
                        i + 1,
                        crate::stats::signed_tenths(100.0 * w.change)
                    ));
                }
            }
            if !seats.is_empty() {
                let step = format!("{} {}", e.param, move_label(e, up));
                moved.push(format!("{step}: {} pp", seats.join(", ")));
            }
            let _ = writeln!(t);
        }
    }
    let _ = writeln!(
        t,
        "{}",
        match moved.is_empty() {
            true => "No step moves a seat's win rate beyond noise.".to_string(),
            false => format!("Seats move beyond noise: {}.", moved.join("; ")),
        }
    );
    t
}

/// The seats section of report.md with rotated seats (empty without rotation).
pub(super) fn markdown(s: &Sensitivity) -> String {
    let mut md = String::new();
    if s.seats_unmoved {
        let _ = writeln!(
            md,
            "\n## Seats\n\n{}",
            crate::report::seats::unmoved_words()
        );
    }
    if let Some(n) = seats(s) {
        let seats: Vec<String> = (1..=n).map(|i| format!("seat {i}")).collect();
        let _ = writeln!(
            md,
            "\n## Seats\n\nThe factions rotated through the seats: each step's change in each seat's win rate, in points (**bold** beyond noise).\n\n| parameter | move | {} |\n|---|---|{}",
            seats.join(" | "),
            "---|".repeat(n)
        );
        for e in &s.effects {
            for (up, swings) in [(false, &e.down_seats), (true, &e.up_seats)] {
                let cells: Vec<String> = (swings.iter())
                    .map(|w| match w.beyond_noise {
                        true => format!("**{}**", w.cell()),
                        false => w.cell(),
                    })
                    .collect();
                let _ = writeln!(
                    md,
                    "| {} | {} | {} |",
                    e.param,
                    move_label(e, up),
                    cells.join(" | ")
                );
            }
        }
    }
    md
}

/// The number of seats when they rotated (`None` without rotation).
fn seats(s: &Sensitivity) -> Option<usize> {
    (s.effects.first().map(|e| e.down_seats.len())).filter(|&n| n > 0)
}
