//! A whole comparison of two variants: its plan (seed, games, error rate, the smallest
//! difference that matters, and whether to stop once decided), playing it, and what
//! `vpsim compare --json` prints ([`Comparison`]).
//!
//! A sequential comparison looks at 10k, 20k, 40k, ... games, and splits the error rate
//! evenly over the looks planned up to the games asked for (Bonferroni), which keeps the
//! overall error rate at most alpha.

use serde::Serialize;

use super::{
    FactionDiff, PairTally, SeatDiff, changed_clause, diffs, independent_changed, pairing_worth,
    run_pair, seat_diffs, sentence,
};
use crate::error::Result;
use crate::model::Model;
use crate::stats::{Rate, z_for};

/// What a comparison plays and how it judges.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Master seed (both variants).
    pub seed: u64,
    /// Games each variant plays (at most, when `until_decided`).
    pub games: u64,
    /// Family-wise error rate.
    pub alpha: f64,
    /// Smallest win-rate difference that matters.
    pub delta: f64,
    /// Stop at the first look where every faction is decided.
    pub until_decided: bool,
    /// Worker threads (`None`: every core).
    pub threads: Option<usize>,
    /// The level of the intervals not tied to alpha (the share of changed winners, seats).
    pub confidence: f64,
}

impl Plan {
    /// The game counts at which a sequential comparison looks: 10k, 20k, 40k, ..., then
    /// the games asked for.
    fn looks(&self) -> Vec<u64> {
        let mut bounds = Vec::new();
        let mut n = self.games.min(10_000);
        while n < self.games {
            bounds.push(n);
            n *= 2;
        }
        bounds.push(self.games);
        bounds
    }
}

/// What a comparison played: the paired tally, each faction's difference, and how the
/// looks went when it was sequential.
pub struct Played {
    /// The paired counts.
    pub tally: PairTally,
    /// Per faction.
    pub factions: Vec<FactionDiff>,
    /// With `until_decided`.
    pub sequential: Option<Sequential>,
}

/// Plays `a` against `b` on the same games as `plan` says.
pub fn play(a: &Model, b: &Model, plan: &Plan, tick: &(dyn Fn(u64) + Sync)) -> Result<Played> {
    let names: Vec<String> = a.factions.iter().map(|f| f.name.clone()).collect();
    if !plan.until_decided {
        let tally = run_pair(a, b, plan.seed, 0, plan.games, plan.threads, tick)?;
        let factions = diffs(&names, &tally, plan.alpha, plan.delta);
        return Ok(Played {
            tally,
            factions,
            sequential: None,
        });
    }
    let bounds = plan.looks();
    let planned = bounds.len() as u32;
    let alpha_look = plan.alpha / planned as f64;
    let mut tally = PairTally::for_models(a, b);
    let (mut factions, mut sequential) = (Vec::new(), None);
    for (look, &upto) in bounds.iter().enumerate() {
        let (first, more) = (tally.games, upto - tally.games);
        let more = run_pair(a, b, plan.seed, first, more, plan.threads, tick)?;
        tally = tally.merge(more);
        factions = diffs(&names, &tally, alpha_look, plan.delta);
        let decided = factions.iter().all(|d| d.verdict != "undecided");
        if decided || upto == plan.games {
            sequential = Some(Sequential {
                looks: look as u32 + 1,
                planned_looks: planned,
                decided,
            });
            break;
        }
    }
    Ok(Played {
        tally,
        factions,
        sequential,
    })
}

/// What `vpsim compare --json` prints.
#[derive(Debug, Serialize)]
pub struct Comparison {
    /// Variant A: file, hash, overrides.
    pub a: Variant,
    /// Variant B.
    pub b: Variant,
    /// Master seed (both variants).
    pub seed: u64,
    /// Games played by each variant.
    pub games: u64,
    /// Family-wise error rate.
    pub alpha: f64,
    /// Smallest difference that matters.
    pub delta: f64,
    /// With --until-decided: looks taken and whether everything was decided.
    pub sequential: Option<Sequential>,
    /// Per faction.
    pub factions: Vec<FactionDiff>,
    /// Games whose result differs between A and B, played on the same streams, with a 95%
    /// Wilson interval: a change whose moves cancel in the win rates shows here.
    pub winner_changed: Rate,
    /// The share of games two independent games of A and B would give different winners
    /// (from the sole-win rates; a floor): a `winner_changed` not below it beyond noise
    /// says the variants' games diverged.
    pub winner_changed_independent: f64,
    /// The mean of the factions' variance reductions (`factions[].variance_reduction`):
    /// how many times fewer games the pairing needed than two independent runs.
    pub variance_reduction: Option<f64>,
    /// With `--rotate-seats`, each seat's win rate in A and B and the paired difference
    /// (empty without rotation).
    pub seats: Vec<SeatDiff>,
    /// The verdict in words.
    pub sentence: String,
}

/// One side of a comparison.
#[derive(Debug, Serialize)]
pub struct Variant {
    /// File.
    pub file: String,
    /// Scenario hash (after overrides).
    pub hash: String,
    /// Overrides.
    pub overrides: Vec<String>,
    /// The agent model of each faction (`agents: ...`).
    pub agents: String,
}

impl Variant {
    /// Variant `m`, whose agents are `agents` in words.
    pub fn of(m: &Model, agents: String) -> Variant {
        Variant {
            file: m.file.clone(),
            hash: m.hash.clone(),
            overrides: m.overrides.clone(),
            agents,
        }
    }
}

/// How a sequential comparison went.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Sequential {
    /// Looks at the data.
    pub looks: u32,
    /// Looks planned up to --games (the alpha is split over them).
    pub planned_looks: u32,
    /// Every faction decided before --games.
    pub decided: bool,
}

impl Comparison {
    /// The comparison of variants `a` and `b` of `model` (A's, for the factions' labels)
    /// that `played` as `plan` says.
    pub fn new(model: &Model, (a, b): (Variant, Variant), plan: &Plan, played: &Played) -> Self {
        let Played {
            tally,
            factions,
            sequential,
        } = played;
        let z = z_for(plan.confidence);
        let winner_changed = Rate::wilson(tally.changed, tally.games, z);
        let alpha_used = alpha_used(plan.alpha, sequential.as_ref());
        // The sentence is for people: it names factions by their labels.
        let labelled: Vec<FactionDiff> = (factions.iter().zip(&model.factions))
            .map(|(d, f)| FactionDiff {
                name: f.label.clone(),
                ..d.clone()
            })
            .collect();
        let sentence = sentence(&labelled, alpha_used)
            + &changed_clause(factions, &winner_changed, alpha_used);
        Comparison {
            a,
            b,
            seed: plan.seed,
            games: tally.games,
            alpha: plan.alpha,
            delta: plan.delta,
            sequential: *sequential,
            winner_changed,
            winner_changed_independent: independent_changed(factions),
            variance_reduction: pairing_worth(factions, tally.games).map(|p| p.0),
            seats: seat_diffs(tally, z),
            sentence,
            factions: factions.clone(),
        }
    }

    /// The error rate each look was judged at: alpha, split over the planned looks of a
    /// sequential comparison.
    pub fn alpha_used(&self) -> f64 {
        alpha_used(self.alpha, self.sequential.as_ref())
    }
}

/// `alpha`, split over the planned looks of a sequential comparison.
fn alpha_used(alpha: f64, sequential: Option<&Sequential>) -> f64 {
    match sequential {
        Some(s) => alpha / s.planned_looks as f64,
        None => alpha,
    }
}
