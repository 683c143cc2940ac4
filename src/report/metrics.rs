//! Custom metrics in reports: what each `[[metric]]` is, and its values by faction, for
//! winners against the others, and round by round.
//!
//! Owns [`MetricInfo`] (in the run information, so that a merged run names its metrics),
//! [`MetricSummary`] (JSON `metrics[]`) and the metric reading. A difference between
//! winners and others is an association under the agents' play, not an effect: the report
//! says so wherever it shows one.

use serde::{Deserialize, Serialize};

use super::RunInfo;
use crate::model::Model;
use crate::stats::metrics::{MetricTally, won_against_lost};
use crate::stats::{Diff, Spread, Tally};

/// A metric as the scenario declares it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricInfo {
    /// Identifier.
    pub name: String,
    /// `end` (once a game) or `round` (after every round).
    pub at: String,
    /// `faction` (a value per faction) or `global` (one per game).
    pub scope: String,
}

/// The metrics of model `m`, in file order.
pub fn infos(m: &Model) -> Vec<MetricInfo> {
    (m.metrics.iter())
        .map(|mt| MetricInfo {
            name: mt.name.clone(),
            at: if mt.per_round { "round" } else { "end" }.into(),
            scope: if mt.faction { "faction" } else { "global" }.into(),
        })
        .collect()
}

/// One owner's values of a metric taken at the end.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnerValues {
    /// The faction (empty for a global metric).
    pub faction: String,
    /// Over every game.
    pub all: Option<Spread>,
    /// Over the games the faction won alone.
    pub won: Option<Spread>,
    /// Over the other games.
    pub others: Option<Spread>,
    /// Winners' mean minus the others', with its interval (Welch's).
    pub won_minus_others: Option<Diff>,
}

/// One round's values of a metric taken after every round: each owner's, over the games
/// that played the round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoundValues {
    /// Round (1 = first).
    pub round: u32,
    /// Games that played the round.
    pub games: u64,
    /// Each owner's values (the factions in seat order, or the game).
    pub values: Vec<Option<Spread>>,
}

/// A metric's results (JSON `metrics[]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricSummary {
    /// Identifier.
    pub name: String,
    /// `end` or `round`.
    pub at: String,
    /// `faction` or `global`.
    pub scope: String,
    /// Taken at the end: each owner's values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<OwnerValues>,
    /// Taken after every round: each round's values.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<RoundValues>,
}

/// The metrics of a run, from its tally (none when it counted none).
pub fn summaries(info: &RunInfo, t: &Tally, z: f64) -> Vec<MetricSummary> {
    let Some(mt) = &t.metrics else {
        return Vec::new();
    };
    let (mut end, mut round) = (0, 0);
    let mut out = Vec::new();
    for mi in &info.metrics {
        let mut s = MetricSummary {
            name: mi.name.clone(),
            at: mi.at.clone(),
            scope: mi.scope.clone(),
            owners: Vec::new(),
            rounds: Vec::new(),
        };
        if mi.at == "round" {
            s.rounds = round_values(mt, round);
            round += 1;
        } else if let Some(cells) = mt.end.get(end) {
            let faction = mi.scope == "faction";
            s.owners = (cells.iter().enumerate())
                .map(|(f, c)| OwnerValues {
                    faction: match faction {
                        true => info.factions.get(f).map(|x| x.name.clone()),
                        false => None,
                    }
                    .unwrap_or_default(),
                    all: Spread::of(&c.all),
                    won: faction.then(|| Spread::of(&c.won)).flatten(),
                    others: faction.then(|| Spread::of(&c.lost)).flatten(),
                    won_minus_others: faction.then(|| won_against_lost(c, z)).flatten(),
                })
                .collect();
            end += 1;
        }
        out.push(s);
    }
    out
}

/// Round-by-round values of the `k`-th metric taken after every round.
fn round_values(mt: &MetricTally, k: usize) -> Vec<RoundValues> {
    (mt.rounds.iter().enumerate())
        .filter_map(|(r, row)| {
            let hs = row.get(k)?;
            let values: Vec<Option<Spread>> = hs.iter().map(Spread::of).collect();
            values.iter().any(Option::is_some).then(|| RoundValues {
                round: r as u32 + 1,
                games: hs.first().map_or(0, |h| h.total()),
                values,
            })
        })
        .collect()
}

/// What a metric taken at the end says about winners, in one sentence: the factions whose
/// winners' mean differs from the others' beyond noise, and which way. `None` for a global
/// metric or one taken after every round.
pub fn reading(s: &MetricSummary, labels: &[String]) -> Option<String> {
    if s.scope != "faction" || s.at != "end" {
        return None;
    }
    let mut higher = Vec::new();
    let mut lower = Vec::new();
    for (o, label) in s.owners.iter().zip(labels) {
        let Some(d) = o.won_minus_others else {
            continue;
        };
        let item = format!(
            "{label} {} [{}, {}]",
            signed(d.est),
            signed(d.low),
            signed(d.high)
        );
        match (d.low > 0.0, d.high < 0.0) {
            (true, _) => higher.push(item),
            (_, true) => lower.push(item),
            _ => {}
        }
    }
    let name = &s.name;
    Some(match (higher.is_empty(), lower.is_empty()) {
        (true, true) => {
            format!("`{name}`: winners and the others differ by no more than noise for any faction")
        }
        _ => {
            let mut parts = Vec::new();
            if !higher.is_empty() {
                parts.push(format!("higher when winning for {}", higher.join("; ")));
            }
            if !lower.is_empty() {
                parts.push(format!("lower when winning for {}", lower.join("; ")));
            }
            format!(
                "`{name}` is {}, beyond noise (winners' mean minus the others'; an association under the agents' play, not an effect)",
                parts.join(", and ")
            )
        }
    })
}

/// A mean to two decimals, or `-` for no games.
fn mean(x: &Option<Spread>) -> String {
    x.map_or("-".into(), |x| format!("{:.2}", x.mean))
}

/// `q1/median/q3`, or `-` for no games.
fn quartiles(x: &Option<Spread>) -> String {
    x.map_or("-".into(), |x| format!("{}/{}/{}", x.q1, x.median, x.q3))
}

/// A difference with its interval: `+4.90 [+4.50, +5.30]`, or `-`.
fn diff(d: &Option<Diff>) -> String {
    d.map_or("-".into(), |d| {
        format!("{} [{}, {}]", signed(d.est), signed(d.low), signed(d.high))
    })
}

/// Up to five rounds spread over those a metric taken after every round has, among those
/// at least a twentieth of the games played: the first, the last, and evenly between.
fn sampled_rounds(rounds: &[RoundValues]) -> Vec<&RoundValues> {
    let most = rounds.first().map_or(0, |r| r.games);
    let n = rounds
        .iter()
        .take_while(|r| r.games * 20 >= most)
        .count()
        .max(1)
        .min(rounds.len());
    let rounds = &rounds[..n];
    if n <= 5 {
        return rounds.iter().collect();
    }
    let mut picks: Vec<usize> = (0..5).map(|k| k * (n - 1) / 4).collect();
    picks.dedup();
    picks.into_iter().map(|i| &rounds[i]).collect()
}

/// The owners' labels of a metric: the factions' labels, or `game` for a global one.
fn owner_labels(s: &MetricSummary, labels: &[String]) -> Vec<String> {
    match s.scope == "faction" {
        true => labels.to_vec(),
        false => vec!["game".into()],
    }
}

/// The metrics section of the terminal table (empty without metrics); `labels` are the
/// factions' labels and `w` the width of the first column.
pub fn text(metrics: &[MetricSummary], labels: &[String], w: usize) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    for mt in metrics {
        let owners = owner_labels(mt, labels);
        if mt.at == "end" {
            let _ = writeln!(
                s,
                "
metric {} ({}, at the end; mean and q1/median/q3):",
                mt.name, mt.scope
            );
            let faction = mt.scope == "faction";
            let _ = write!(s, "  {:<w$}  {:>10}  {:>14}", "", "mean", "quartiles");
            if faction {
                let _ = write!(
                    s,
                    "  {:>10}  {:>10}  {:>28}",
                    "won", "others", "won - others [95% CI]"
                );
            }
            let _ = writeln!(s);
            for (o, label) in mt.owners.iter().zip(&owners) {
                let _ = write!(
                    s,
                    "  {:<w$}  {:>10}  {:>14}",
                    label,
                    mean(&o.all),
                    quartiles(&o.all)
                );
                if faction {
                    let _ = write!(
                        s,
                        "  {:>10}  {:>10}  {:>28}",
                        mean(&o.won),
                        mean(&o.others),
                        diff(&o.won_minus_others)
                    );
                }
                let _ = writeln!(s);
            }
            if let Some(r) = reading(mt, labels) {
                let _ = writeln!(s, "{r}");
            }
        } else if !mt.rounds.is_empty() {
            let picks = sampled_rounds(&mt.rounds);
            let _ = writeln!(
                s,
                "
metric {} ({}, after every round; mean over the games that played the round):",
                mt.name, mt.scope
            );
            let _ = write!(s, "  {:<w$}", "");
            for r in &picks {
                let _ = write!(s, "  {:>10}", format!("round {}", r.round));
            }
            let _ = writeln!(s);
            for (k, label) in owners.iter().enumerate() {
                let _ = write!(s, "  {:<w$}", label);
                for r in &picks {
                    let _ = write!(s, "  {:>10}", mean(r.values.get(k).unwrap_or(&None)));
                }
                let _ = writeln!(s);
            }
        }
    }
    s
}

/// The metrics section of `report.md` (empty without metrics): a table per metric and the
/// reading; `labels` are the factions' labels, escaped for a table cell.
pub fn markdown(metrics: &[MetricSummary], labels: &[String]) -> String {
    use std::fmt::Write as _;
    if metrics.is_empty() {
        return String::new();
    }
    let mut m = String::from(
        "## Metrics\n\nThe scenario's own metrics (`[[metric]]`). Differences between winners and the others are associations under the agents' play, not effects.\n\n",
    );
    for mt in metrics {
        let owners = owner_labels(mt, labels);
        if mt.at == "end" {
            let faction = mt.scope == "faction";
            let _ = writeln!(m, "`{}` ({}, at the end):\n", mt.name, mt.scope);
            let _ = writeln!(
                m,
                "| | mean | q1 | median | q3 |{}",
                if faction {
                    " won | others | won − others [95% CI] |"
                } else {
                    ""
                }
            );
            let _ = writeln!(
                m,
                "|---|---|---|---|---|{}",
                if faction { "---|---|---|" } else { "" }
            );
            for (o, label) in mt.owners.iter().zip(&owners) {
                let q = |g: fn(&Spread) -> i64| o.all.map_or("-".into(), |x| g(&x).to_string());
                let _ = write!(
                    m,
                    "| {label} | {} | {} | {} | {} |",
                    mean(&o.all),
                    q(|x| x.q1),
                    q(|x| x.median),
                    q(|x| x.q3),
                );
                if faction {
                    let _ = write!(
                        m,
                        " {} | {} | {} |",
                        mean(&o.won),
                        mean(&o.others),
                        diff(&o.won_minus_others)
                    );
                }
                let _ = writeln!(m);
            }
            if let Some(r) = reading(mt, labels) {
                let _ = writeln!(
                    m,
                    "
{r}"
                );
            }
            let _ = writeln!(m);
        } else if !mt.rounds.is_empty() {
            let picks = sampled_rounds(&mt.rounds);
            let _ = writeln!(
                m,
                "`{}` ({}, after every round; mean over the games that played the round; every round is in the `by_round` table):\n",
                mt.name, mt.scope
            );
            let heads: Vec<String> = picks.iter().map(|r| format!("round {}", r.round)).collect();
            let _ = writeln!(m, "| | {} |", heads.join(" | "));
            let _ = writeln!(m, "|---|{}", "---|".repeat(picks.len()));
            for (k, label) in owners.iter().enumerate() {
                let cells: Vec<String> = (picks.iter())
                    .map(|r| mean(r.values.get(k).unwrap_or(&None)))
                    .collect();
                let _ = writeln!(m, "| {label} | {} |", cells.join(" | "));
            }
            let _ = writeln!(m);
        }
    }
    m
}

/// `+1.5` or `-0.25`: a difference with its sign, to about three significant digits.
pub fn signed(x: f64) -> String {
    let digits = if x.abs() >= 100.0 {
        0
    } else if x.abs() >= 10.0 {
        1
    } else {
        2
    };
    format!("{x:+.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(d: Option<Diff>) -> MetricSummary {
        MetricSummary {
            name: "gold".into(),
            at: "end".into(),
            scope: "faction".into(),
            owners: vec![OwnerValues {
                faction: "A".into(),
                all: None,
                won: None,
                others: None,
                won_minus_others: d,
            }],
            rounds: Vec::new(),
        }
    }

    #[test]
    fn the_reading_names_a_faction_only_beyond_noise() {
        let labels = ["Amber".to_string()];
        let within = summary(Some(Diff {
            est: 0.5,
            low: -0.1,
            high: 1.1,
        }));
        let r = reading(&within, &labels).unwrap_or_default();
        assert!(r.contains("no more than noise"), "{r}");
        let beyond = summary(Some(Diff {
            est: 2.0,
            low: 1.5,
            high: 2.5,
        }));
        let r = reading(&beyond, &labels).unwrap_or_default();
        assert!(
            r.contains("higher when winning for Amber +2.00 [+1.50, +2.50]"),
            "{r}"
        );
        assert!(r.contains("not an effect"), "{r}");
    }
}
