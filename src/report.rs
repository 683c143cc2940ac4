//! Reports of a run: the [`Summary`] (the JSON schema of `vpsim run --json`) and the terminal
//! table.
//!
//! Owns what a run says and how it is laid out. Every number is computed from the merged
//! [`Tally`]; nothing is reported that the run did not count. Field names and meanings are the
//! documented JSON schema (README, "JSON output"): change them only with the docs.

use serde::{Deserialize, Serialize};

pub mod charts;
pub mod html;
pub mod markdown;
pub mod metrics;
pub mod seats;
pub mod shards;
pub mod tables;
mod tally;
mod terminal;
pub mod usage;
pub mod why;
pub use tally::{
    SHARD_KEY_VAR, Shard, ShardKey, TallyFile, arguments, first_difference, parse_tally,
    read_tally, read_tally_keyed, rerun_command,
};

use crate::model::Model;
use crate::runner::{RunResult, RunSpec};
use crate::stats::{Rate, Spread, Tally, z_for};

/// Confidence level of every interval.
pub const CONFIDENCE: f64 = 0.95;

/// Which scenario was run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioInfo {
    /// Identifier.
    pub name: String,
    /// Title.
    pub title: String,
    /// File as given.
    pub file: String,
    /// FNV-1a 64 of the file's bytes.
    pub hash: String,
}

/// A faction as reports name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FactionInfo {
    /// Identifier.
    pub name: String,
    /// Display name.
    pub label: String,
    /// Side or team.
    pub side: Option<String>,
    /// Player faction.
    pub player: bool,
    /// The agent model of play (`weighted`, `lookahead(32)`, ...; see
    /// [`crate::model::Agent::label`]).
    #[serde(default)]
    pub agent: String,
}

/// An end reason as reports name it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReasonInfo {
    /// Name.
    pub name: String,
    /// `rank`, `draw` or `nobody`.
    pub result: String,
    /// The mechanism that uses it.
    pub mechanism: String,
}

/// What a report needs to know about the run besides its counts: which scenario, which
/// seed and overrides, and the names behind the tally's indices. Stored with every shard so
/// that `vpsim merge` needs no scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunInfo {
    /// The scenario.
    pub scenario: ScenarioInfo,
    /// `--set` overrides, as given.
    pub overrides: Vec<String>,
    /// Master seed.
    pub seed: u64,
    /// Factions in seat order.
    pub factions: Vec<FactionInfo>,
    /// End reasons.
    pub reasons: Vec<ReasonInfo>,
    /// Tie-break links as written.
    pub links: Vec<String>,
    /// Points-by-source tags.
    pub sources: Vec<String>,
    /// Actions, in model order (the columns of the usage counts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// Distinct cards as `(deck, card)` (the columns of the usage counts' cards).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<(String, String)>,
    /// Whether games rotated the factions through the seats (`--rotate-seats`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rotate_seats: bool,
    /// Whether the seating could change no game of the run (see
    /// [`crate::model::Model::seat_uses`]): a rotated run then has no seat table.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seats_unmoved: bool,
    /// The scenario's custom metrics.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<metrics::MetricInfo>,
}

impl RunInfo {
    /// The run information of model `m` under `seed` (with the overrides it was loaded with).
    pub fn of(m: &Model, seed: u64) -> RunInfo {
        RunInfo {
            scenario: ScenarioInfo {
                name: m.name.clone(),
                title: m.title.clone(),
                file: m.file.clone(),
                hash: m.hash.clone(),
            },
            overrides: m.overrides.clone(),
            seed,
            factions: m
                .factions
                .iter()
                .zip(&m.agents)
                .map(|(f, a)| FactionInfo {
                    name: f.name.clone(),
                    label: f.label.clone(),
                    side: f.side.clone(),
                    player: f.player,
                    agent: a.label(),
                })
                .collect(),
            reasons: m
                .reasons
                .iter()
                .map(|r| ReasonInfo {
                    name: r.name.clone(),
                    result: match r.result {
                        crate::model::ReasonResult::Rank => "rank",
                        crate::model::ReasonResult::Draw => "draw",
                        crate::model::ReasonResult::Nobody => "nobody",
                    }
                    .into(),
                    mechanism: r.mechanism.clone(),
                })
                .collect(),
            links: (0..m.ranking.tiebreak.len())
                .map(|k| m.ranking.link_name(k))
                .collect(),
            sources: m.sources.clone(),
            actions: match m.count_uses {
                true => m.actions.iter().map(|a| a.name.clone()).collect(),
                false => Vec::new(),
            },
            cards: match m.count_uses {
                true => m.cards.clone(),
                false => Vec::new(),
            },
            rotate_seats: m.tables.rotate_seats,
            seats_unmoved: m.seats_unmoved,
            metrics: metrics::infos(m),
        }
    }
}

/// Games at one rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RankCount {
    /// Rank (1 = first).
    pub rank: u32,
    /// Share of games, with interval.
    #[serde(flatten)]
    pub rate: Rate,
}

/// One faction's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FactionSummary {
    /// Identifier.
    pub name: String,
    /// Display name.
    pub label: String,
    /// Side or team.
    pub side: Option<String>,
    /// Player faction.
    pub player: bool,
    /// The agent model of play (see [`FactionInfo::agent`]).
    #[serde(default)]
    pub agent: String,
    /// Sole wins.
    pub win: Rate,
    /// Shared first places.
    pub shared_win: Rate,
    /// Draws.
    pub draw: Rate,
    /// Games that were neither a win, a shared win, nor a draw.
    pub loss: Rate,
    /// Rank distribution.
    pub ranks: Vec<RankCount>,
    /// Mean rank.
    pub mean_rank: f64,
    /// Final score distribution.
    pub score: Option<Spread>,
    /// The whole final score distribution: `[score, games]` pairs, ascending, one for every
    /// score some game ended on (JSON: `[[3, 120], [4, 87], ...]`). Exact unless
    /// `histogram_bin_width` is above 1, when each score is the lowest of its bin.
    #[serde(default)]
    pub histogram: Vec<(i64, u64)>,
    /// Scores per bin of `histogram`: 1 (exact) unless the faction's scores spanned more
    /// than 65,536 values.
    #[serde(default = "one")]
    pub histogram_bin_width: u64,
    /// When the run counted usage: each action's share of the faction's decisions, uses
    /// per game, and win rates in games with and without it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub usage: Vec<usage::ActionRow>,
    /// When the run counted usage: each card's games held or completed at the end, and win
    /// rates then and otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<usage::CardRow>,
}

/// Games of one length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LengthCount {
    /// Rounds played.
    pub rounds: i64,
    /// Games.
    pub count: u64,
}

/// Game length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LengthSummary {
    /// Distribution summary.
    #[serde(flatten)]
    pub spread: Option<Spread>,
    /// Full histogram.
    pub histogram: Vec<LengthCount>,
}

/// An end reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReasonSummary {
    /// Reason name.
    pub name: String,
    /// `rank`, `draw` or `nobody`.
    pub result: String,
    /// The mechanism that ended the game: `condition`, `end statement`, `win`, `lose`,
    /// `draw` or `last round`.
    pub mechanism: String,
    /// Share of games.
    #[serde(flatten)]
    pub rate: Rate,
}

/// What decided the winner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeciderSummary {
    /// `score`, a tie-break link as written, or `shared`.
    pub by: String,
    /// Share of games with a winner.
    #[serde(flatten)]
    pub rate: Rate,
}

/// Points one faction gained from one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceSummary {
    /// Faction.
    pub faction: String,
    /// Source tag.
    pub source: String,
    /// Net points over all games, exact (a sum over many games can exceed 64 bits).
    pub total: i128,
    /// Net points per game.
    pub mean_per_game: f64,
    /// Share of the faction's tagged points (0 when it has none).
    pub share: f64,
}

/// How often the faction leading alone after a round went on to win.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeaderRound {
    /// Round.
    pub round: u32,
    /// Share of games with a sole leader after this round that the leader won, with interval
    /// (`n` is the number of such games).
    #[serde(flatten)]
    pub won: Rate,
}

/// Every faction's ranking score after one round, over the games that played that round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundScores {
    /// Round.
    pub round: u32,
    /// Games that played this round (games that ended earlier are not counted).
    pub games: u64,
    /// Per faction in seat order: mean, sd, min, quartiles and max of its score (exact from
    /// the integer counts while a round's scores span at most 1,024 values).
    pub scores: Vec<Option<Spread>>,
    /// The leader's mean margin over the rest (its score minus the mean of the others'),
    /// with its 95% interval; `None` with one faction.
    pub margin: Option<Margin>,
}

/// A mean with its 95% interval (normal approximation).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Margin {
    /// Mean.
    pub mean: f64,
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// Speed of the run (the only part that differs between identical runs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Performance {
    /// Seconds spent playing.
    pub elapsed_s: f64,
    /// Games per second.
    pub games_per_s: f64,
    /// Worker threads.
    pub threads: usize,
    /// Set when the summary merges this many shards: their times were not measured together,
    /// so `games_per_s` is not a speed and is not shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<u64>,
}

pub use crate::stats::thousands;

/// Everything `vpsim run` reports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// vpsim version.
    pub vpsim_version: String,
    /// The scenario.
    pub scenario: ScenarioInfo,
    /// `--set` overrides, as given.
    pub overrides: Vec<String>,
    /// Master seed.
    pub seed: u64,
    /// Index of the first game.
    pub first_game: u64,
    /// Games played.
    pub games: u64,
    /// Confidence level of every interval.
    pub confidence: f64,
    /// Per faction, in seat order.
    pub factions: Vec<FactionSummary>,
    /// Games with no winner: draws.
    pub draws: Rate,
    /// Games nobody won and every faction lost.
    pub nobody_wins: Rate,
    /// Where points came from (sources tagged `as SOURCE` in the scenario).
    pub points_by_source: Vec<SourceSummary>,
    /// After each round, how often the sole leader went on to win (runaway leaders show here).
    pub leader_by_round: Vec<LeaderRound>,
    /// Score races: every faction's score after each of the first 100 rounds.
    #[serde(default)]
    pub by_round: Vec<RoundScores>,
    /// The feedback test: a faction's mean score gain in a round when it led after the round
    /// before, minus when it did not, pooled over factions and rounds (`None` for games of
    /// one round, or where no faction both led and trailed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<crate::stats::feedback::Estimate>,
    /// Games whose first place was shared.
    pub shared_wins: Rate,
    /// Game length in rounds.
    pub length: LengthSummary,
    /// Why games ended.
    pub end_reasons: Vec<ReasonSummary>,
    /// What decided the winner, among games with a winner.
    pub decided_by: Vec<DeciderSummary>,
    /// Speed.
    pub performance: Performance,
    /// With `--precision`: the target and whether it was reached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<PrecisionReport>,
    /// The widest bin of any faction's score distribution: 1 (exact) unless scores spanned
    /// more than 65,536 values, when quantiles and the score table are to the bin (counts,
    /// mean, min and max stay exact).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub score_bin_width: u64,
    /// With `--rotate-seats`: each seat's win rate over the factions that sat there, its
    /// edge over the fair share and each faction's rate from it (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seats: Vec<seats::SeatRow>,
    /// With `--rotate-seats` on a scenario whose games never read the seating: the
    /// rotation changed no game, and `seats` is empty.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seats_unmoved: bool,
    /// The scenario's custom metrics: by faction, for winners against the others, and by
    /// round (empty when it declares none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<metrics::MetricSummary>,
}

fn one() -> u64 {
    1
}

fn is_one(w: &u64) -> bool {
    *w == 1
}

/// The outcome of `vpsim run --precision`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrecisionReport {
    /// Target half-width.
    pub target: f64,
    /// Whether every win rate's half-width got below it.
    pub reached: bool,
    /// The widest half-width at the end.
    pub max_half_width: f64,
}

fn points_by_source(m: &RunInfo, t: &Tally) -> Vec<SourceSummary> {
    let ns = m.sources.len();
    let mut out = Vec::new();
    for (f, fac) in m.factions.iter().enumerate() {
        let row = &t.points[f * ns..(f + 1) * ns];
        let all: i128 = row.iter().map(|p| p.abs()).sum();
        for (s, &p) in row.iter().enumerate() {
            out.push(SourceSummary {
                faction: fac.name.clone(),
                source: m.sources[s].clone(),
                total: p,
                mean_per_game: if t.games == 0 {
                    0.0
                } else {
                    p as f64 / t.games as f64
                },
                share: if all == 0 { 0.0 } else { p as f64 / all as f64 },
            });
        }
    }
    out
}

/// The by-round score summaries of a tally.
fn by_round(t: &Tally, z: f64) -> Vec<RoundScores> {
    let nf = t.factions.len();
    t.by_round
        .iter()
        .zip(&t.margins)
        .enumerate()
        .map(|(r, (hs, margin))| {
            let games = hs.first().map_or(0, |h| h.total());
            let margin = Spread::of(margin).filter(|_| nf > 1).map(|s| {
                // The histogram holds (nf - 1) x the margin, so that it is a whole number.
                let k = (nf - 1) as f64;
                let half = z * s.sd / (games.max(1) as f64).sqrt();
                Margin {
                    mean: s.mean / k,
                    low: (s.mean - half) / k,
                    high: (s.mean + half) / k,
                }
            });
            RoundScores {
                round: r as u32 + 1,
                games,
                scores: hs.iter().map(Spread::of).collect(),
                margin,
            }
        })
        .collect()
}

/// The agent model of each faction in one line: `agents: every faction weighted`, or the
/// factions whose agent differs from the most common one and `others ...`:
/// `agents: A lookahead(64), others weighted`.
pub fn agents_text<'a>(factions: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let pairs: Vec<(&str, &str)> = factions.collect();
    let mut common = ("", 0);
    for &(_, a) in &pairs {
        let k = pairs.iter().filter(|p| p.1 == a).count();
        if k > common.1 {
            common = (a, k);
        }
    }
    if common.1 == pairs.len() {
        return format!("agents: every faction {}", common.0);
    }
    let mut parts: Vec<String> = if common.1 >= 2 {
        let mut odd: Vec<String> = (pairs.iter().filter(|p| p.1 != common.0))
            .map(|(f, a)| format!("{f} {a}"))
            .collect();
        odd.push(format!("others {}", common.0));
        odd
    } else {
        pairs.iter().map(|(f, a)| format!("{f} {a}")).collect()
    };
    parts.dedup();
    format!("agents: {}", parts.join(", "))
}

impl Summary {
    /// The agent model of each faction (see [`agents_text`]).
    pub fn agents(&self) -> String {
        agents_text(
            self.factions
                .iter()
                .map(|f| (f.name.as_str(), f.agent.as_str())),
        )
    }

    /// Computes the summary of a finished run of model `m`.
    pub fn new(m: &Model, spec: &RunSpec, r: &RunResult) -> Summary {
        Summary::of(
            &RunInfo::of(m, spec.seed),
            spec.first,
            &r.tally,
            r.elapsed,
            r.threads,
        )
    }

    /// Computes a summary from run information and a tally.
    pub fn of(
        m: &RunInfo,
        first: u64,
        t: &Tally,
        elapsed: std::time::Duration,
        threads: usize,
    ) -> Summary {
        let z = z_for(CONFIDENCE);
        let n = t.games;
        let mut usage = usage::rows(m, t, z).into_iter();
        let factions = m
            .factions
            .iter()
            .zip(&t.factions)
            .map(|(f, ft)| {
                let (usage, cards) = usage.next().unwrap_or_default();
                let ranks: Vec<RankCount> = ft
                    .ranks
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| RankCount {
                        rank: i as u32 + 1,
                        rate: Rate::wilson(c, n, z),
                    })
                    .collect();
                let mean_rank = if n == 0 {
                    0.0
                } else {
                    ft.ranks
                        .iter()
                        .enumerate()
                        .map(|(i, &c)| (i as f64 + 1.0) * c as f64)
                        .sum::<f64>()
                        / n as f64
                };
                FactionSummary {
                    name: f.name.clone(),
                    label: f.label.clone(),
                    side: f.side.clone(),
                    player: f.player,
                    agent: f.agent.clone(),
                    win: Rate::wilson(ft.wins, n, z),
                    shared_win: Rate::wilson(ft.shared_wins, n, z),
                    draw: Rate::wilson(ft.draws, n, z),
                    loss: Rate::wilson(n - ft.wins - ft.shared_wins - ft.draws, n, z),
                    ranks,
                    mean_rank,
                    score: Spread::of(&ft.scores),
                    histogram: ft.scores.iter().collect(),
                    histogram_bin_width: ft.scores.width.max(1),
                    usage,
                    cards,
                }
            })
            .collect();
        let with_winner = n - t.draws - t.nobody;
        let links = m.links.len();
        let decided_by = t
            .decided
            .iter()
            .enumerate()
            .map(|(i, &c)| DeciderSummary {
                by: if i == 0 {
                    "score".into()
                } else if i <= links {
                    m.links[i - 1].clone()
                } else if i == links + 1 {
                    "shared".into()
                } else {
                    "rule".into()
                },
                rate: Rate::wilson(c, with_winner, z),
            })
            .collect();
        Summary {
            score_bin_width: t
                .factions
                .iter()
                .map(|f| f.scores.width.max(1))
                .max()
                .unwrap_or(1),
            vpsim_version: env!("CARGO_PKG_VERSION").into(),
            scenario: m.scenario.clone(),
            overrides: m.overrides.clone(),
            seed: m.seed,
            first_game: first,
            games: n,
            confidence: CONFIDENCE,
            factions,
            draws: Rate::wilson(t.draws, n, z),
            nobody_wins: Rate::wilson(t.nobody, n, z),
            points_by_source: points_by_source(m, t),
            leader_by_round: t
                .leader_games
                .iter()
                .zip(&t.leader_won)
                .enumerate()
                .filter(|(_, (g, _))| **g > 0)
                .map(|(r, (&g, &w))| LeaderRound {
                    round: r as u32 + 1,
                    won: Rate::wilson(w, g, z),
                })
                .collect(),
            by_round: by_round(t, z),
            feedback: crate::stats::feedback::estimate(&t.feedback, &t.feedback_own, z),
            shared_wins: Rate::wilson(t.shared, n, z),
            length: LengthSummary {
                spread: Spread::of(&t.lengths),
                histogram: t
                    .lengths
                    .iter()
                    .map(|(rounds, count)| LengthCount { rounds, count })
                    .collect(),
            },
            end_reasons: m
                .reasons
                .iter()
                .zip(&t.reasons)
                .map(|(r, &c)| ReasonSummary {
                    name: r.name.clone(),
                    result: r.result.clone(),
                    mechanism: r.mechanism.clone(),
                    rate: Rate::wilson(c, n, z),
                })
                .collect(),
            decided_by,
            performance: Performance {
                elapsed_s: elapsed.as_secs_f64(),
                games_per_s: if elapsed.as_secs_f64() > 0.0 {
                    n as f64 / elapsed.as_secs_f64()
                } else {
                    0.0
                },
                threads,
                shards: None,
            },
            precision: None,
            seats: (t.seats.as_ref())
                .filter(|_| !m.seats_unmoved)
                .map(|st| seats::rows(st, n, z))
                .unwrap_or_default(),
            seats_unmoved: m.seats_unmoved,
            metrics: metrics::summaries(m, t, z),
        }
    }

    /// The seat reading of a run with rotated seats (see [`seats::reading`]).
    pub fn seat_reading(&self) -> Option<String> {
        if self.seats.is_empty() {
            return None;
        }
        let factions: Vec<(String, Rate)> = (self.factions.iter())
            .map(|f| (f.label.clone(), f.win))
            .collect();
        Some(seats::reading(
            &self.seats,
            &factions,
            crate::stats::margin::DEFAULT_MARGIN,
        ))
    }

    /// ` (with settings.goal=14)` when the run had overrides: shown beside the title, which
    /// the scenario wrote for its own values.
    pub fn with_overrides(&self) -> String {
        if self.overrides.is_empty() {
            String::new()
        } else {
            format!(" (with {})", self.overrides.join(", "))
        }
    }
}
