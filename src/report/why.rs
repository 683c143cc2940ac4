//! The "why" summary at the top of a run's report: the few contrasts that matter, read
//! across factions instead of faction by faction.
//!
//! Owns which contrasts a run's numbers support and how they are ranked and worded:
//! - an action or card associated with winning (or losing) for one faction only, for some,
//!   or for every faction that used it;
//! - a seat's edge over the fair share beside each faction's (told apart only when the
//!   seats rotated).
//!
//! Each names its interval and the games behind it, and is ranked by the end of its
//! interval nearest zero, so a large estimate from a few games does not outrank a smaller
//! one that is sure; a contrast resting on fewer than 1% of the games on one side is
//! flagged as rare and listed after the others. Everything is an association under the
//! agents' play, never an effect, and a part whose interval is wide is called undecided.

use super::FactionSummary;
use super::Summary;
use crate::stats::margin::{DEFAULT_MARGIN, Judgement, judge, pp};
use crate::stats::{Diff, thousands};

/// How many contrasts the summary shows at most.
pub const SHOWN: usize = 5;

/// One contrast of the summary.
#[derive(Debug, Clone, PartialEq)]
pub struct Contrast {
    /// The end of the interval (of the weakest difference it names) nearest zero, in
    /// proportions: what it is ranked by.
    pub near: f64,
    /// Resting on fewer than 1% of the games on one side of a difference it names.
    pub rare: bool,
    /// The sentence, its names written as [`Words`] says.
    pub text: String,
}

/// The end of `d`'s interval nearest zero (0 when it holds zero).
fn near(d: &Diff) -> f64 {
    if d.low > 0.0 {
        d.low
    } else if d.high < 0.0 {
        -d.high
    } else {
        0.0
    }
}

/// One faction's difference for one item: `(label, difference, games with, games)`.
type Part<'a> = (&'a str, Diff, u64, u64);

/// How names are written: `code` for actions, cards and decks, `label` for factions
/// (identity in the terminal, escaped in Markdown).
pub struct Words<'a> {
    /// An action, card or deck name.
    pub code: &'a dyn Fn(&str) -> String,
    /// A faction's label.
    pub label: &'a dyn Fn(&str) -> String,
}

/// Every contrast of summary `s`, ranked: common before rare, then by the near end.
pub fn contrasts(s: &Summary, w: &Words<'_>) -> Vec<Contrast> {
    let labels: Vec<String> = s.factions.iter().map(|f| (w.label)(&f.label)).collect();
    let mut out = Vec::new();
    let n = s.games;
    // Each faction's difference for one column of its usage or card rows (every faction has
    // the same columns, in the order of the first faction's).
    let parts = |cell: &dyn Fn(&FactionSummary) -> (Option<Diff>, u64)| -> Vec<Part<'_>> {
        (s.factions.iter().zip(&labels))
            .filter_map(|(f, l)| {
                let (d, games) = cell(f);
                d.map(|d| (l.as_str(), d, games, n))
            })
            .collect()
    };
    let all = s.factions.len();
    for (i, a) in s
        .factions
        .first()
        .map_or(&[][..], |f| &f.usage[..])
        .iter()
        .enumerate()
    {
        let found = parts(&|f| (f.usage[i].difference, f.usage[i].games));
        out.extend(item(&(w.code)(&a.action), "choosing it", &found, all));
    }
    for (k, c) in s
        .factions
        .first()
        .map_or(&[][..], |f| &f.cards[..])
        .iter()
        .enumerate()
    {
        let found = parts(&|f| (f.cards[k].difference, f.cards[k].games));
        let name = format!("card {} ({})", (w.code)(&c.card), (w.code)(&c.deck));
        out.extend(item(&name, "ending with it", &found, all));
    }
    out.extend(seats_and_factions(s, &labels));
    out.sort_by(|a, b| a.rare.cmp(&b.rare).then(b.near.total_cmp(&a.near)));
    out
}

/// The contrast of one action or card over the factions that have games on both sides of
/// it (`parts`), out of `all` factions; `None` when no difference is beyond noise.
fn item(name: &str, doing: &str, parts: &[Part<'_>], all: usize) -> Option<Contrast> {
    let beyond: Vec<&Part<'_>> = parts.iter().filter(|p| p.1.beyond_noise()).collect();
    let first = beyond.first()?;
    let rare = beyond.iter().any(|p| p.2.min(p.3 - p.2) * 100 < p.3);
    let key = beyond
        .iter()
        .map(|p| near(&p.1))
        .fold(f64::INFINITY, f64::min);
    let up = first.1.low > 0.0;
    let same_sign = beyond.iter().all(|p| (p.1.low > 0.0) == up);
    let dir = |d: &Diff| if d.low > 0.0 { "higher" } else { "lower" };
    let each = |ps: &[&Part<'_>]| -> String {
        (ps.iter())
            .map(|p| format!("{} {} ({})", p.0, p.1.signed(" pp"), games(p.2)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    let of = format!(", of {} games", thousands(first.3));
    let others: Vec<&Part<'_>> = parts.iter().filter(|p| !p.1.beyond_noise()).collect();
    let rest = rest_words(&others, all - parts.len());
    let text = if beyond.len() == parts.len() && parts.len() == all && all > 1 && same_sign {
        format!(
            "{name}: every faction wins {} in games {doing}: {}{of}.",
            if up { "more" } else { "less" },
            each(&beyond)
        )
    } else if beyond.len() == 1 {
        format!(
            "{name}: {} wins {} in games {doing}, {} ({}{of}){rest}.",
            first.0,
            if up { "more" } else { "less" },
            first.1.signed(" pp"),
            games(first.2)
        )
    } else {
        let words: Vec<String> = (beyond.iter())
            .map(|p| {
                format!(
                    "{} {} ({}, {})",
                    p.0,
                    dir(&p.1),
                    p.1.signed(" pp"),
                    games(p.2)
                )
            })
            .collect();
        format!(
            "{name}: win rates in games {doing} are {}{of}{rest}.",
            words.join("; ")
        )
    };
    Some(Contrast {
        near: key,
        rare,
        text: if rare {
            format!("{text} Rare: fewer than 1% of the games on one side.")
        } else {
            text
        },
    })
}

/// `43,210 with it`.
fn games(with: u64) -> String {
    format!("{} with it", thousands(with))
}

/// What the factions not beyond noise show: within the margin, or undecided; and those
/// with no game on one side.
fn rest_words(others: &[&Part<'_>], untested: usize) -> String {
    let mut words = String::new();
    if !others.is_empty() {
        let undecided: Vec<&&Part<'_>> = (others.iter())
            .filter(|p| judge(&p.1, DEFAULT_MARGIN) != Judgement::Within)
            .collect();
        if undecided.is_empty() {
            words = format!(
                "; within ±{} pp for {}",
                pp(DEFAULT_MARGIN),
                names(others.iter().map(|p| p.0))
            );
        } else {
            words = format!(
                "; undecided for {} (reaching past ±{} pp)",
                names(undecided.iter().map(|p| p.0)),
                pp(DEFAULT_MARGIN)
            );
            let within: Vec<&str> = (others.iter())
                .filter(|p| judge(&p.1, DEFAULT_MARGIN) == Judgement::Within)
                .map(|p| p.0)
                .collect();
            if !within.is_empty() {
                words.push_str(&format!(
                    ", within ±{} pp for {}",
                    pp(DEFAULT_MARGIN),
                    names(within.into_iter())
                ));
            }
        }
    }
    if untested > 0 {
        words.push_str(&format!(
            "; {untested} faction{} always or never did",
            if untested == 1 { "" } else { "s" }
        ));
    }
    words
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.collect::<Vec<_>>().join(", ")
}

/// Seats' edges over the fair share beyond noise (rotated runs), and factions': told
/// apart when the seats rotated, one and the same otherwise. One contrast for the seats
/// and one for the factions, each ranked by its surest edge.
fn seats_and_factions(s: &Summary, labels: &[String]) -> Vec<Contrast> {
    let mut out = Vec::new();
    let n = s.games;
    let edges = |it: &mut dyn Iterator<Item = (String, Diff)>| -> Option<(f64, String)> {
        let mut v: Vec<(String, Diff)> = it.filter(|(_, d)| d.beyond_noise()).collect();
        v.sort_by(|a, b| near(&b.1).total_cmp(&near(&a.1)));
        let key = near(&v.first()?.1);
        let words: Vec<String> = (v.iter())
            .map(|(who, d)| format!("{who} {}", d.signed(" pp")))
            .collect();
        Some((key, words.join("; ")))
    };
    let fair = s.seats.first().map_or(0.0, |r| r.fair);
    let mut seat_edges = s.seats.iter().map(|r| (format!("seat {}", r.seat), r.edge));
    if let Some((key, words)) = edges(&mut seat_edges) {
        out.push(Contrast {
            near: key,
            rare: false,
            text: format!(
                "Seats, whoever sits there (each faction sat in each equally often), over the fair share ({:.1}%): {words}; {} games.",
                100.0 * fair,
                thousands(n)
            ),
        });
    }
    let nf = s.factions.len().max(1);
    let won: u64 = s.factions.iter().map(|f| f.win.count).sum();
    let fair = won as f64 / n.max(1) as f64 / nf as f64;
    let mut faction_edges = (s.factions.iter().zip(labels))
        .filter(|_| nf > 1)
        .map(|(f, l)| (l.clone(), crate::stats::seats::edge(&f.win, fair)));
    if let Some((key, words)) = edges(&mut faction_edges) {
        let whose = if !s.seats.is_empty() {
            "averaged over every seat"
        } else if s.seats_unmoved {
            "in any seat (no game reads the seating)"
        } else {
            "each from its own seat (a seat's edge and a faction's are not told apart: run with --rotate-seats)"
        };
        out.push(Contrast {
            near: key,
            rare: false,
            text: format!(
                "Factions {whose}, over the fair share ({:.1}%): {words}; {} games.",
                100.0 * fair,
                thousands(n)
            ),
        });
    }
    out
}

/// The summary's heading: what its lines are and are not.
pub const HEADING: &str = "The contrasts beyond noise, surest first (ranked by the end of each interval nearest zero). Associations under the agents' play, not effects; 95% intervals, those of actions and cards simultaneous over every comparison.";

/// The summary's lines (at most [`SHOWN`], and a count of the rest).
pub fn lines(s: &Summary, w: &Words<'_>) -> Vec<String> {
    let all = contrasts(s, w);
    let mut out: Vec<String> = all.iter().take(SHOWN).map(|c| c.text.clone()).collect();
    if all.len() > SHOWN {
        let tables = match (
            s.factions.iter().any(|f| !f.usage.is_empty()),
            s.seats.is_empty(),
        ) {
            (true, false) => "the usage and seat tables",
            (true, true) => "the usage table",
            (false, _) => "the seat table",
        };
        out.push(format!(
            "{} more beyond noise: see {tables}.",
            all.len() - SHOWN
        ));
    }
    if out.is_empty() {
        out.push(nothing(s));
    }
    out
}

/// What a run with no contrast beyond noise says.
fn nothing(s: &Summary) -> String {
    let counted = s.factions.iter().any(|f| !f.usage.is_empty());
    let widest = (s.factions.iter())
        .flat_map(|f| {
            (f.usage.iter().filter_map(|u| u.difference))
                .chain(f.cards.iter().filter_map(|c| c.difference))
        })
        .map(|d| (d.high - d.low) / 2.0)
        .fold(0.0, f64::max);
    let usage = match (counted, widest > DEFAULT_MARGIN) {
        (false, _) => " (actions and cards were not counted: run with --usage)".to_string(),
        (true, true) => format!(
            "; some actions' or cards' differences are undecided (intervals up to ±{:.1} pp)",
            100.0 * widest
        ),
        (true, false) => String::new(),
    };
    format!("No faction, seat, action or card differs beyond noise{usage}.")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff(est: f64, half: f64) -> Diff {
        Diff {
            est,
            low: est - half,
            high: est + half,
        }
    }

    #[test]
    fn one_faction_only_names_the_others_within_the_margin_or_undecided() {
        let parts = [
            ("Merchants", diff(0.08, 0.02), 40_000, 100_000),
            ("Monks", diff(0.001, 0.005), 40_000, 100_000),
            ("Knights", diff(0.01, 0.03), 40_000, 100_000),
        ];
        let c = item("trade", "choosing it", &parts, 3).unwrap();
        assert!(
            c.text.starts_with("trade: Merchants wins more"),
            "{}",
            c.text
        );
        assert!(c.text.contains("undecided for Knights"), "{}", c.text);
        assert!(c.text.contains("within ±2 pp for Monks"), "{}", c.text);
        assert!((c.near - 0.06).abs() < 1e-12);
        assert!(!c.rare);
    }

    #[test]
    fn a_rare_difference_is_flagged_and_ranked_after_a_sure_one() {
        let rare = item(
            "produce",
            "choosing it",
            &[("Monks", diff(-0.237, 0.118), 99_829, 100_000)],
            1,
        )
        .unwrap();
        assert!(rare.rare && rare.text.contains("Rare"), "{}", rare.text);
        let every = item(
            "card charter (d)",
            "ending with it",
            &[
                ("A", diff(-0.05, 0.01), 25_000, 100_000),
                ("B", diff(-0.04, 0.01), 25_000, 100_000),
            ],
            2,
        )
        .unwrap();
        assert!(
            every.text.contains("every faction wins less"),
            "{}",
            every.text
        );
    }
}
