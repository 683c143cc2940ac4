//! The relations between a tally's tables that hold for every run: what `merge` checks a
//! shard against beyond its counts adding up, so that a value edited by hand (its digest made
//! anew, as anyone can without a shard key) is refused whenever a relation can tell.
//!
//! Owns the relations between the score race (`by_round`), the split of the feedback test
//! (`feedback_own`) and the margins, and the scores' bounds when the scenario gives them.

use super::{Histogram, Tally};

/// The exact `(value, count)` pairs of `h`, or `None` when its bins are coarse.
fn exact(h: &Histogram) -> Option<impl Iterator<Item = (i64, u64)> + '_> {
    (h.width <= 1).then(|| h.iter())
}

/// The count of `h` at `value` (exact bins).
fn count_at(h: &Histogram, value: i64) -> u64 {
    let i = value as i128 - h.offset as i128;
    usize::try_from(i)
        .ok()
        .and_then(|i| h.counts.get(i))
        .copied()
        .unwrap_or(0)
}

impl Tally {
    /// The first relation this tally breaks, as `(field, why)`; `bounds` are what the
    /// scenario allows, when it is known: the lowest and highest score (its score's
    /// variable's bounds) and the cards no game can end with a faction holding.
    pub fn broken_relation(
        &self,
        bounds: Option<&crate::model::Bounds>,
    ) -> Option<(String, String)> {
        if let Some(u) = &self.usage
            && let Some(b) = bounds
            && u.held.len() == self.factions.len() * b.never_held.len()
        {
            let held = |i: usize| u.held[i] > 0 && b.never_held[i % b.never_held.len()];
            if let Some(i) = (0..u.held.len()).find(|&i| held(i)) {
                return Some((
                    format!("tally.usage.held[{i}]"),
                    "counts games ending with a card held that no statement of the scenario \
                     can put in a hand or a completed pile"
                        .into(),
                ));
            }
        }
        if let Some((lo, hi)) = bounds.and_then(|b| b.score) {
            let outside =
                |h: &Histogram| h.min().is_some_and(|v| v < lo) || h.max().is_some_and(|v| v > hi);
            let why = format!("counts a score outside the scenario's bounds {lo} to {hi}");
            for (i, f) in self.factions.iter().enumerate() {
                if outside(&f.scores) {
                    return Some((format!("tally.factions[{i}].scores"), why));
                }
            }
            for (r, row) in self.by_round.iter().enumerate() {
                if let Some(i) = row.iter().position(outside) {
                    return Some((format!("tally.by_round[{r}][{i}]"), why));
                }
            }
            // A margin is `nfactions * max - sum` of a round's scores.
            let others = self.factions.len().saturating_sub(1) as i128;
            let widest = others * (hi as i128 - lo as i128);
            for (r, m) in self.margins.iter().enumerate() {
                if m.min().is_some_and(|v| v < 0) || m.max().is_some_and(|v| v as i128 > widest) {
                    return Some((
                        format!("tally.margins[{r}]"),
                        format!("counts a margin outside 0 to {widest}"),
                    ));
                }
            }
        }
        // (A final score is no score of the race: scoring at the game's end may follow its
        // last round.)
        self.broken_margins().or_else(|| self.broken_split())
    }

    /// The margins and sole leaders against the score race: after round r + 1 a margin
    /// (`nfactions * max - sum` of the scores) for every game the race counts, between 0 and
    /// `nfactions - 1` times the race's spread, and adding, over the games, to a multiple of
    /// `nfactions` with the race's scores (exact bins); a sole leader only in a game whose
    /// margin is not 0.
    fn broken_margins(&self) -> Option<(String, String)> {
        let nf = self.factions.len() as i128;
        for (r, (race, m)) in self.by_round.iter().zip(&self.margins).enumerate() {
            let field = || format!("tally.margins[{r}]");
            let games = race.first().map_or(0, Histogram::total);
            if m.total() != games {
                return Some((
                    field(),
                    format!(
                        "counts {} games, where the score race counts {games}",
                        m.total()
                    ),
                ));
            }
            let low = race.iter().filter_map(Histogram::min).min();
            let high = race.iter().filter_map(Histogram::max).max();
            if let (Some(low), Some(high)) = (low, high) {
                let widest = (nf - 1) * (high as i128 - low as i128);
                let outside =
                    m.min().is_some_and(|v| v < 0) || m.max().is_some_and(|v| v as i128 > widest);
                if outside {
                    return Some((field(), format!("counts a margin outside 0 to {widest}")));
                }
            }
            let sum = |h: &Histogram| -> Option<i128> {
                exact(h).map(|it| it.map(|(v, c)| v as i128 * c as i128).sum())
            };
            let race_sum: Option<i128> = race.iter().map(sum).sum();
            if let (Some(a), Some(b)) = (sum(m), race_sum)
                && nf > 0
                && (a + b) % nf != 0
            {
                return Some((
                    field(),
                    "does not add up with the score race (a margin plus the scores is a multiple of the factions)".into(),
                ));
            }
            let level = if m.width <= 1 { count_at(m, 0) } else { 0 };
            if let Some(&sole) = self.leader_games.get(r)
                && sole > games - level.min(games)
            {
                return Some((
                    format!("tally.leader_games[{r}]"),
                    format!(
                        "counts {sole} games with a sole leader after round {}, of {} not level",
                        r + 1,
                        games - level.min(games)
                    ),
                ));
            }
        }
        None
    }

    /// The split of the feedback test against the score race: a faction's gains in round
    /// r + 2 by its own score after round r + 1 are counted at scores the race counts for it
    /// then, at most as often; the best other score of a game lies between the highest of
    /// the other factions' lowest scores and the highest of their highest.
    fn broken_split(&self) -> Option<(String, String)> {
        for (r, row) in self.feedback_own.iter().enumerate() {
            let Some(race) = self.by_round.get(r) else {
                continue;
            };
            for (f, own) in row.iter().enumerate() {
                let field = || format!("tally.feedback_own[{r}][{f}]");
                let Some(mine) = race.get(f) else {
                    continue;
                };
                if exact(mine).is_some() {
                    for (k, g) in own.gains.iter().enumerate() {
                        let n = g[0].n as u128 + g[1].n as u128;
                        let score = own.offset as i128 + k as i128;
                        let seen = i64::try_from(score).map_or(0, |s| count_at(mine, s));
                        if n > seen as u128 {
                            return Some((
                                field(),
                                format!(
                                    "counts {n} gains at own score {score}, where the score race counts {seen} after round {}",
                                    r + 1
                                ),
                            ));
                        }
                    }
                }
                let others = || race.iter().enumerate().filter(move |(g, _)| *g != f);
                let low = others().filter_map(|(_, h)| h.min()).max();
                let high = others().filter_map(|(_, h)| h.max()).max();
                let (Some(low), Some(high)) = (low, high) else {
                    continue;
                };
                let counted = (own.others.iter().enumerate()).filter(|(_, c)| **c > 0);
                for (k, _) in counted {
                    let best = own.others_offset as i128 + k as i128;
                    if best < low as i128 || best > high as i128 {
                        return Some((
                            field(),
                            format!(
                                "counts a best other score of {best}, outside {low} to {high}, the other factions' scores after round {}",
                                r + 1
                            ),
                        ));
                    }
                }
            }
        }
        None
    }
}
