//! The terminal table: what `vpsim run` prints when it does not print JSON.
//!
//! Owns the plain-text layout of a [`Summary`]: column widths, percentages with their
//! intervals, and which lines appear (end reasons and deciders only when they occurred, the
//! speed only when the run was not merged from shards).

use std::fmt::Write as _;

use super::{Summary, thousands};
use crate::stats::{Rate, Spread};

/// A share as a percentage with one decimal: `41.7%`.
fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

/// A rate and its interval in fixed-width columns: ` 41.7% [ 38.2%,  45.3%]`.
fn ci(r: &Rate) -> String {
    format!("{:>6} [{:>6}, {:>6}]", pct(r.rate), pct(r.low), pct(r.high))
}

impl Summary {
    /// The terminal table.
    pub fn table(&self) -> String {
        let mut s = String::new();
        self.write_heading(&mut s);
        self.write_why(&mut s);
        let w = self.label_width();
        self.write_factions(&mut s, w);
        self.write_ranks(&mut s, w);
        self.write_length(&mut s);
        self.write_endings(&mut s);
        self.write_points(&mut s, w);
        self.write_deciders(&mut s);
        self.write_usage(&mut s, w);
        self.write_seats(&mut s, w);
        let labels: Vec<String> = self.factions.iter().map(|f| f.label.clone()).collect();
        s.push_str(&super::metrics::text(&self.metrics, &labels, w));
        self.write_speed(&mut s);
        s
    }

    /// The width of the first column: the longest faction label, at least 7.
    fn label_width(&self) -> usize {
        self.factions
            .iter()
            .map(|f| f.label.chars().count())
            .max()
            .unwrap_or(7)
            .max(7)
    }

    /// The title, games and seed, then the scenario file and the kind of interval.
    fn write_heading(&self, s: &mut String) {
        let _ = writeln!(
            s,
            "{}{} — {} games, seed {}",
            self.scenario.title,
            self.with_overrides(),
            thousands(self.games),
            self.seed
        );
        let _ = writeln!(
            s,
            "scenario {} ({}), intervals are {:.0}% Wilson",
            self.scenario.file,
            self.scenario.hash,
            100.0 * self.confidence
        );
        let _ = writeln!(s, "{}", self.agents());
        let _ = writeln!(s);
    }

    /// The "why" summary (see [`super::why`]).
    fn write_why(&self, s: &mut String) {
        let plain = |x: &str| x.to_string();
        let words = super::why::Words {
            code: &plain,
            label: &plain,
        };
        let _ = writeln!(s, "why: {}", super::why::HEADING);
        for line in super::why::lines(self, &words) {
            let _ = writeln!(s, "  - {line}");
        }
        let _ = writeln!(s);
    }

    /// One row per faction: win rate with interval, shared wins, draws, mean rank and the
    /// final score's mean and quartiles.
    fn write_factions(&self, s: &mut String, w: usize) {
        let _ = writeln!(
            s,
            "{:<w$}  {:^24}  {:>7}  {:>6}  {:>9}  {:>6}  {:>5} {:>4} {:>4} {:>4} {:>5}",
            "faction",
            "win [95% CI]",
            "shared",
            "draw",
            "mean rank",
            "score",
            "min",
            "q1",
            "med",
            "q3",
            "max"
        );
        for f in &self.factions {
            let sc = f.score.unwrap_or(Spread {
                mean: 0.0,
                sd: 0.0,
                min: 0,
                q1: 0,
                median: 0,
                q3: 0,
                max: 0,
            });
            let _ = writeln!(
                s,
                "{:<w$}  {:>24}  {:>7}  {:>6}  {:>9.2}  {:>6.2}  {:>5} {:>4} {:>4} {:>4} {:>5}",
                f.label,
                ci(&f.win),
                pct(f.shared_win.rate),
                pct(f.draw.rate),
                f.mean_rank,
                sc.mean,
                sc.min,
                sc.q1,
                sc.median,
                sc.q3,
                sc.max
            );
        }
    }

    /// Each faction's share of games at each rank and its score's standard deviation, with a
    /// note when scores were kept in coarse bins.
    fn write_ranks(&self, s: &mut String, w: usize) {
        let _ = writeln!(s);
        let _ = write!(s, "{:<w$}  ", "rank");
        let nranks = self.factions.first().map_or(0, |f| f.ranks.len());
        for r in 1..=nranks {
            let _ = write!(s, "{:>7}", format!("#{r}"));
        }
        let _ = writeln!(s, "   score sd");
        for f in &self.factions {
            let _ = write!(s, "{:<w$}  ", f.label);
            for r in &f.ranks {
                let _ = write!(s, "{:>7}", pct(r.rate.rate));
            }
            let _ = writeln!(s, "   {:>8.2}", f.score.map_or(0.0, |x| x.sd));
        }
        if self.score_bin_width > 1 {
            let _ = writeln!(
                s,
                "scores spanned more than 65,536 values: quartiles are to bins of {} values (mean, min and max exact)",
                self.score_bin_width
            );
        }
    }

    /// The game length's summary and the share of games of each length.
    fn write_length(&self, s: &mut String) {
        let _ = writeln!(s);
        if let Some(l) = self.length.spread {
            let _ = writeln!(
                s,
                "length (rounds): mean {:.2}, sd {:.2}, min {}, q1 {}, median {}, q3 {}, max {}",
                l.mean, l.sd, l.min, l.q1, l.median, l.q3, l.max
            );
        }
        let hist: Vec<String> = self
            .length
            .histogram
            .iter()
            .map(|h| {
                format!(
                    "{}: {}",
                    h.rounds,
                    pct(h.count as f64 / self.games.max(1) as f64)
                )
            })
            .collect();
        let _ = writeln!(s, "  {}", hist.join("  "));
    }

    /// The end reasons that occurred, then the shares of draws, shared wins and games nobody
    /// won.
    fn write_endings(&self, s: &mut String) {
        let _ = writeln!(s, "end reasons:");
        for r in self.end_reasons.iter().filter(|r| r.rate.count > 0) {
            let _ = writeln!(
                s,
                "  {:<28} {}  {}{}",
                r.name,
                ci(&r.rate),
                r.mechanism,
                if r.result == "rank" {
                    String::new()
                } else {
                    format!(" ({})", r.result)
                }
            );
        }
        let _ = writeln!(
            s,
            "draws {}   shared wins {}   nobody wins {}",
            ci(&self.draws),
            ci(&self.shared_wins),
            ci(&self.nobody_wins)
        );
    }

    /// Points by source, when the scenario tags any.
    fn write_points(&self, s: &mut String, w: usize) {
        if !self.points_by_source.is_empty() {
            let _ = writeln!(
                s,
                "points by source (mean per game, share of the faction's tagged points):"
            );
            for p in &self.points_by_source {
                let _ = writeln!(
                    s,
                    "  {:<w$}  {:<20} {:>8.2}  {:>6}",
                    p.faction,
                    p.source,
                    p.mean_per_game,
                    pct(p.share)
                );
            }
        }
    }

    /// What decided the winner, among games with one (only what occurred).
    fn write_deciders(&self, s: &mut String) {
        let _ = writeln!(s, "winner decided by (games with a winner):");
        for d in self.decided_by.iter().filter(|d| d.rate.count > 0) {
            let _ = writeln!(s, "  {:<28} {}", d.by, ci(&d.rate));
        }
    }

    /// With rotated seats: each seat's win rate and edge, each faction's rate from each
    /// seat, and the reading; or, when the rotation changed no game, that it did not.
    fn write_seats(&self, s: &mut String, w: usize) {
        if self.seats_unmoved {
            let _ = writeln!(s, "\nseats: {}", super::seats::unmoved_words());
            return;
        }
        let Some(reading) = self.seat_reading() else {
            return;
        };
        let each = self.seats[0].by_faction.first().map_or(0, |r| r.n);
        let even = (self.seats.iter().flat_map(|r| &r.by_faction)).all(|r| r.n == each);
        let _ = writeln!(
            s,
            "\nseats (rotated: {}; sole wins, and each faction's from that seat):",
            if even {
                format!("each faction sat in each seat {} games", thousands(each))
            } else {
                "each faction sat in each seat within one game as often".into()
            }
        );
        let _ = write!(
            s,
            "  {:<4}  {:^24}  {:>22}",
            "seat", "win [95% CI]", "over fair share"
        );
        for f in &self.factions {
            let _ = write!(s, "  {:>w$}", f.label);
        }
        let _ = writeln!(s);
        for r in &self.seats {
            let _ = write!(
                s,
                "  {:<4}  {:>24}  {:>22}",
                r.seat,
                ci(&r.win),
                r.edge.signed(" pp")
            );
            for c in &r.by_faction {
                let _ = write!(s, "  {:>w$}", pct(c.rate));
            }
            let _ = writeln!(s);
        }
        let _ = writeln!(s, "{reading}");
    }

    /// Each faction's actions (share of its decisions, uses per game, win rate in games with
    /// and without) and the cards whose win-rate difference is beyond noise, when the run
    /// counted usage.
    fn write_usage(&self, s: &mut String, w: usize) {
        if self.factions.iter().all(|f| f.usage.is_empty()) {
            return;
        }
        let _ = writeln!(
            s,
            "usage (share of the faction's decisions, uses per game, its win rate in games with / without the action; * difference beyond noise, simultaneous over every comparison):"
        );
        let aw = (self.factions.iter().flat_map(|f| &f.usage))
            .map(|u| u.action.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let mark = |d: &Option<crate::stats::Diff>| match d {
            Some(d) if d.beyond_noise() => "*",
            _ => "",
        };
        for f in &self.factions {
            for u in &f.usage {
                let flag = if u.never_chosen {
                    "  never chosen"
                } else if u.every_game {
                    "  chosen in every game"
                } else {
                    ""
                };
                let without = match u.win_if_unused.n {
                    0 => "-".to_string(),
                    _ => pct(u.win_if_unused.rate),
                };
                let with = match u.win_if_used.n {
                    0 => "-".to_string(),
                    _ => pct(u.win_if_used.rate),
                };
                let _ = writeln!(
                    s,
                    "  {:<w$}  {:<aw$} {:>6} {:>8.2}/game  win {:>6} / {:<6}{}{flag}",
                    f.label,
                    u.action,
                    pct(u.share),
                    u.per_game,
                    with,
                    without,
                    mark(&u.difference),
                );
            }
        }
        let cards: Vec<_> = (self.factions.iter())
            .flat_map(|f| f.cards.iter().map(move |c| (f, c)))
            .collect();
        if !cards.is_empty() {
            let beyond: Vec<_> = (cards.iter())
                .filter(|(_, c)| c.difference.is_some_and(|d| d.beyond_noise()))
                .collect();
            let _ = writeln!(
                s,
                "cards held or completed at the end: {} of {} faction-card pairs differ in win rate beyond noise{}",
                beyond.len(),
                cards.len(),
                if beyond.is_empty() { "" } else { ":" }
            );
            for (f, c) in beyond {
                let _ = writeln!(
                    s,
                    "  {:<w$}  {}: {}  win {} held / {} not",
                    f.label,
                    c.deck,
                    c.card,
                    pct(c.win_if_held.rate),
                    pct(c.win_if_not.rate)
                );
            }
        }
        let _ = writeln!(s, "  {}", super::usage::CAVEAT);
    }

    /// The speed of the run, or why a merged summary has none.
    fn write_speed(&self, s: &mut String) {
        match self.performance.shards {
            Some(n) => {
                let _ = writeln!(
                    s,
                    "merged from {n} shard{}: no speed is reported (the shards ran apart)",
                    if n == 1 { "" } else { "s" }
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "{} games/s on {} thread{} ({:.2} s)",
                    thousands(self.performance.games_per_s.round() as u64),
                    self.performance.threads,
                    if self.performance.threads == 1 {
                        ""
                    } else {
                        "s"
                    },
                    self.performance.elapsed_s
                );
            }
        }
    }
}
