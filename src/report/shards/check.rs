//! Whether one shard's `tally.json` is whole and consistent: its shard index and count, its
//! part of the games, counts that add up to its games, and the relations between its tables
//! and with what the scenario allows ([`crate::stats::Tally::broken_relation`]).
//!
//! Each check names the first value that cannot be (a [`Broken`]); [`check_shard`] runs them
//! in order and words the first one found as "damaged or edited: run the shard again".

use std::path::Path;

use crate::error::{Error, Result};
use crate::report::TallyFile;
use crate::stats::{Histogram, Tally};

/// A value a shard file cannot hold: its field (`tally.reasons`) and why.
struct Broken {
    field: String,
    why: String,
}

/// A check's answer: the first value it finds that cannot be.
type Check = std::result::Result<(), Broken>;

fn broken(field: &str, why: impl Into<String>) -> Broken {
    Broken {
        field: field.to_string(),
        why: why.into(),
    }
}

/// "`DIR` is not a shard", for a tally written by a run without `--shard`.
pub(super) fn not_a_shard(p: &Path, hint: bool) -> Error {
    let hint = if hint { " (run with --shard K/N)" } else { "" };
    Error::Usage(format!("{}: this output is not a shard{hint}", p.display()))
}

/// Checks that the shard file read from `p` is whole and consistent; `bounds` are what its
/// scenario allows, when its file is there unchanged.
pub fn check_shard(p: &Path, f: &TallyFile, bounds: Option<&crate::model::Bounds>) -> Result<()> {
    let damaged = |b: Broken| {
        Error::Usage(format!(
            "{}: `{}` {}; the file is damaged or was edited: run the shard again",
            p.join("tally.json").display(),
            b.field,
            b.why
        ))
    };
    // Its version is checked as it is read (`report::read_tally`), before its keys are.
    run_times(f).map_err(damaged)?;
    if f.shard.is_none() {
        return Err(not_a_shard(p, true));
    }
    part(f)
        .and_then(|()| table_sizes(f))
        .and_then(|()| counts(f))
        .and_then(|()| score_race(&f.tally, f.info.factions.len()))
        .and_then(|()| usage(f))
        .and_then(|()| seats(f))
        .and_then(|()| metrics(f))
        .and_then(|()| results(f))
        .and_then(|()| relations(&f.tally, bounds))
        .map_err(damaged)
}

/// The threads and the time the shard took.
fn run_times(f: &TallyFile) -> Check {
    if f.threads == 0 {
        return Err(broken("threads", "is 0: a run uses at least one"));
    }
    if !(f.elapsed_s.is_finite() && (0.0..1e12).contains(&f.elapsed_s)) {
        let why = format!("is {}, not a time in seconds", f.elapsed_s);
        return Err(broken("elapsed_s", why));
    }
    Ok(())
}

/// The shard's index and count, and the games that are its part of the run.
fn part(f: &TallyFile) -> Check {
    let Some(shard) = f.shard else {
        return Ok(());
    };
    if shard.count == 0 || shard.index == 0 || shard.index > shard.count {
        let why = format!(
            "is {}/{}: K must be between 1 and N",
            shard.index, shard.count
        );
        return Err(broken("shard", why));
    }
    let (first, games) = shard.range(f.total_games);
    if f.first_game != first || f.tally.games != games {
        let why = format!(
            "is {} games from game {}, but shard {}/{} of {} games is {games} from game {first}",
            f.tally.games, f.first_game, shard.index, shard.count, f.total_games
        );
        return Err(broken("tally.games", why));
    }
    Ok(())
}

/// Tables sized for the run's factions, reasons, links and point sources.
fn table_sizes(f: &TallyFile) -> Check {
    let t = &f.tally;
    let (nf, nr) = (f.info.factions.len(), f.info.reasons.len());
    if t.factions.len() != nf
        || t.reasons.len() != nr
        || t.decided.len() != f.info.links.len() + 3
        || t.points.len() != nf * f.info.sources.len()
        || t.leader_games.len() != t.leader_won.len()
    {
        return Err(broken(
            "tally",
            "has tables of the wrong size for its scenario",
        ));
    }
    Ok(())
}

/// The sum of `v`, `None` past `u64`.
fn sum(v: &[u64]) -> Option<u64> {
    v.iter().try_fold(0u64, |a, &b| a.checked_add(b))
}

/// Ends, lengths, ranks and scores, each adding up to the games.
fn counts(f: &TallyFile) -> Check {
    let t = &f.tally;
    let nf = f.info.factions.len();
    let adds_up = |v: &[u64]| sum(v) == Some(t.games);
    let hist_ok =
        |h: &Histogram| adds_up(&h.counts) && h.well_formed(crate::stats::MAX_BINS as usize);
    let short = format!("do not add up to the {} games", t.games);
    if !adds_up(&t.reasons) {
        return Err(broken("tally.reasons", short));
    }
    // A game lasts 1 to 100,000 rounds.
    if !hist_ok(&t.lengths)
        || t.lengths.offset < 0
        || t.lengths.offset as i128 + t.lengths.counts.len() as i128 > 100_001
    {
        return Err(broken("tally.lengths", short));
    }
    for (i, ft) in t.factions.iter().enumerate() {
        let won = sum(&[ft.wins, ft.shared_wins, ft.draws]);
        if ft.ranks.len() != nf
            || !adds_up(&ft.ranks)
            || !hist_ok(&ft.scores)
            || won.is_none_or(|w| w > t.games)
        {
            let why = format!("counts do not add up to the {} games", t.games);
            return Err(broken(&format!("tally.factions[{i}]"), why));
        }
    }
    Ok(())
}

/// The score race (a row of factions per round played, each counting the games that lasted
/// that long) and the feedback test's cells beside it.
fn score_race(t: &Tally, nf: usize) -> Check {
    let round_ok = |h: &Histogram| {
        h.well_formed(crate::stats::ROUND_BINS as usize)
            && sum(&h.counts).is_some_and(|c| c <= t.games)
    };
    if t.by_round.len() != t.margins.len()
        || t.by_round.len() > crate::stats::BY_ROUND
        || (t.by_round.iter()).any(|r| r.len() != nf || !r.iter().all(round_ok))
        || !t.margins.iter().all(round_ok)
    {
        return Err(broken(
            "tally.by_round",
            "is not a score race of its factions",
        ));
    }
    lasted_rounds(t)?;
    feedback(t, nf)
}

/// The score race counts, after round r + 1, every game that lasted that long (when the
/// lengths are exact: a histogram of at most 65,536 lengths always is).
fn lasted_rounds(t: &Tally) -> Check {
    if t.lengths.width > 1 {
        return Ok(());
    }
    let lasted = |r: usize| -> u64 {
        (t.lengths.iter())
            .filter(|&(len, _)| len > r as i64)
            .map(|(_, c)| c)
            .sum()
    };
    let short = |r: usize| t.by_round[r].iter().any(|h| h.total() != lasted(r));
    match (0..t.by_round.len()).find(|&r| short(r)) {
        Some(r) => Err(broken(
            &format!("tally.by_round[{r}]"),
            format!(
                "does not count the {} games that lasted {} rounds or more",
                lasted(r),
                r + 1
            ),
        )),
        None => Ok(()),
    }
}

/// The feedback test counts, in round r + 2, every game the score race counts there. Its
/// gains are in the cells and, split by score, beside them (`feedback_own`).
fn feedback(t: &Tally, nf: usize) -> Check {
    let counted = |r: usize, f: usize| t.by_round.get(r + 1).map(|row| row[f].total());
    let own = |r: usize, f: usize| t.feedback_own.get(r).and_then(|row| row.get(f));
    let none = crate::stats::feedback::Own::default();
    let cell_wrong = |r: usize, f: usize, c: &crate::stats::feedback::Cell| {
        let Some(o) = own(r, f).or((!t.split).then_some(&none)) else {
            return true;
        };
        if !o.consistent() || !c.plausible() {
            return true;
        }
        let c = o.total(c);
        c.lead.n.checked_add(c.rest.n) != counted(r, f)
    };
    if t.feedback.len() != t.by_round.len().saturating_sub(1)
        || t.feedback_own.len() != if t.split { t.feedback.len() } else { 0 }
        || t.feedback.iter().enumerate().any(|(r, row)| {
            row.len() != nf || row.iter().enumerate().any(|(f, c)| cell_wrong(r, f, c))
        })
    {
        return Err(broken(
            "tally.feedback",
            "does not count the games of the score race",
        ));
    }
    Ok(())
}

/// Every faction's wins, in faction order.
fn wins(t: &Tally) -> Vec<u64> {
    t.factions.iter().map(|f| f.wins).collect()
}

/// Usage counts: as many actions and cards as the run names, no count past the games, and
/// wins with and without an action or card within the faction's own.
fn usage(f: &TallyFile) -> Check {
    let t = &f.tally;
    let Some(u) = &t.usage else {
        return Ok(());
    };
    if u.actions as usize != f.info.actions.len()
        || u.cards as usize != f.info.cards.len()
        || !u.consistent(t.games, &wins(t))
    {
        return Err(broken(
            "tally.usage",
            "is not a count of its factions' actions and cards over its games",
        ));
    }
    Ok(())
}

/// Seat counts: present exactly when the run rotated seats, and adding up to the games and
/// each faction's wins.
fn seats(f: &TallyFile) -> Check {
    let t = &f.tally;
    match (&t.seats, f.info.rotate_seats) {
        (None, false) => Ok(()),
        (Some(s), true) => match s.inconsistent(t.games, &wins(t)) {
            Some(why) => Err(broken("tally.seats", why)),
            None => Ok(()),
        },
        _ => Err(broken(
            "tally.seats",
            "does not match whether the run rotated seats (info.rotate_seats)",
        )),
    }
}

/// Metric histograms: shaped as the run's metrics, each counting every game once (a
/// faction's split by its wins) and each round the games the score race counts there.
fn metrics(f: &TallyFile) -> Check {
    let t = &f.tally;
    let nf = f.info.factions.len();
    let shape = |at: &str| -> Vec<(usize, bool)> {
        (f.info.metrics.iter().filter(|mi| mi.at == at))
            .map(|mi| match mi.scope == "faction" {
                true => (nf, true),
                false => (1, false),
            })
            .collect()
    };
    let Some(mt) = &t.metrics else {
        return match f.info.metrics.is_empty() {
            true => Ok(()),
            false => Err(broken(
                "tally.metrics",
                "is missing, though the run has metrics (info.metrics)",
            )),
        };
    };
    let end: Vec<(usize, bool)> = (mt.end_owners.iter().copied())
        .zip(mt.end_faction.iter().copied())
        .collect();
    let rounds: Vec<usize> = shape("round").iter().map(|x| x.0).collect();
    if end != shape("end") || mt.round_owners != rounds {
        return Err(broken(
            "tally.metrics",
            "does not have the shape of the run's metrics (info.metrics)",
        ));
    }
    let lasted = |r: usize| {
        (t.by_round.get(r))
            .and_then(|row| row.first())
            .map_or(0, |h| h.total())
    };
    match mt.inconsistent(t.games, &wins(t), &lasted) {
        Some(why) => Err(broken("tally.metrics", why)),
        None => Ok(()),
    }
}

/// The sum of `v` in 128 bits: an edited count near 2^64 must not wrap into agreement.
fn wide(v: impl Iterator<Item = u64>) -> u128 {
    v.map(u128::from).sum()
}

/// Every game has one result: a sole winner, a shared win, a draw or nobody; a draw is every
/// faction's, a shared win at least two factions', and a win or a shared win was decided by
/// one thing.
fn results(f: &TallyFile) -> Check {
    let t = &f.tally;
    let nf = f.info.factions.len();
    let wins = wide(t.factions.iter().map(|f| f.wins));
    if wins + wide([t.shared, t.draws, t.nobody].into_iter()) != t.games as u128 {
        let why = format!(
            "wins, shared wins, draws and games nobody won do not add up to the {} games",
            t.games
        );
        return Err(broken("tally", why));
    }
    // A game ended by a reason whose result is a draw (or nobody) is a draw (or nobody's).
    for (result, most) in [("draw", t.draws), ("nobody", t.nobody)] {
        let ended = wide(
            (f.info.reasons.iter().zip(&t.reasons))
                .filter(|(r, _)| r.result == result)
                .map(|(_, &c)| c),
        );
        if ended > most as u128 {
            let why =
                format!("count {ended} games ended with result {result}, more than its {most}");
            return Err(broken("tally.reasons", why));
        }
    }
    if let Some(i) = t.factions.iter().position(|f| f.draws != t.draws) {
        let why = format!("is not the run's {} draws", t.draws);
        return Err(broken(&format!("tally.factions[{i}].draws"), why));
    }
    let shared_wins = wide(t.factions.iter().map(|f| f.shared_wins));
    if t.factions.iter().any(|f| f.shared_wins > t.shared)
        || shared_wins < 2 * t.shared as u128
        || shared_wins > nf as u128 * t.shared as u128
    {
        return Err(broken(
            "tally.shared",
            "does not match the factions' shared wins",
        ));
    }
    if wide(t.decided.iter().copied()) != wins + t.shared as u128 {
        return Err(broken(
            "tally.decided",
            "does not count each win and shared win once",
        ));
    }
    let others = [t.draws, t.nobody, t.shared];
    if others.iter().any(|&c| c > t.games)
        || sum(&t.decided).is_none_or(|d| d > t.games)
        || (t.leader_won.iter().zip(&t.leader_games)).any(|(w, g)| w > g || *g > t.games)
    {
        let why = format!("counts more than its {} games", t.games);
        return Err(broken("tally", why));
    }
    Ok(())
}

/// The relations between the tally's tables, and with what the scenario allows.
fn relations(t: &Tally, bounds: Option<&crate::model::Bounds>) -> Check {
    match t.broken_relation(bounds) {
        Some((field, why)) => Err(Broken { field, why }),
        None => Ok(()),
    }
}
