//! The final ranking and its tie-break chain.
//!
//! Owns who finished where: factions that won by rule first (sharing first place), then the
//! tier, then the score (higher first), then each link of the tie-break chain in turn for the
//! groups still tied; ties that survive the chain are shared places. Also the round leader.

use super::{Bind, Decider, Game, NO_LEADER, Outcome, Result, Step, Tracer};
use crate::expr::Num;
use crate::expr::{Fault, FaultKind};
use crate::ids::{FactionId, ReasonId};
use crate::model::TieBreak;
use crate::state::MAX_FACTIONS;
use rand::RngExt;

impl<T: Tracer> Game<'_, T> {
    /// Faction `f`'s ranking score. A score that is the faction's own variable (the common
    /// case) is read from the state, as the formula would read it.
    #[inline]
    fn score(&mut self, f: usize) -> Step<Num> {
        let score = &self.m.ranking.score;
        if let Some((base, fstride)) = score.own_var() {
            return Ok(Num::Int(
                self.env.st.vals[crate::expr::slot(f, base, fstride, 0)],
            ));
        }
        self.num(score, Bind::faction(FactionId(f as u8)))
    }

    /// The faction with the strictly highest ranking score now, if any. Records every
    /// faction's score for the by-round tally.
    pub(super) fn leader(&mut self) -> Step<u8> {
        let m = self.m;
        if let Some((base, fstride)) = m.ranking.score.own_var() {
            // The common case: integer scores read straight from the state.
            let (mut best, mut who, mut tied) = (i64::MIN, NO_LEADER, false);
            for f in 0..m.nfactions() {
                let s = self.env.st.vals[crate::expr::slot(f, base, fstride, 0)];
                self.round_scores.push(s);
                if f > 0 && s == best {
                    tied = true;
                } else if f == 0 || s > best {
                    (best, who, tied) = (s, f as u8, false);
                }
            }
            return Ok(if tied { NO_LEADER } else { who });
        }
        let (mut best, mut who, mut tied) = (None, NO_LEADER, false);
        for f in 0..m.nfactions() {
            let s = self.score(f)?;
            self.round_scores.push(match s {
                Num::Int(k) => k,
                // Saturating; NaN reads as 0 (the final ranking refuses such a score).
                Num::Real(r) => r.floor() as i64,
            });
            match best {
                Some(b) if s == b => tied = true,
                Some(b) if s < b => {}
                _ if s.real().is_nan() => {}
                _ => (best, who, tied) = (Some(s), f as u8, false),
            }
        }
        Ok(if tied { NO_LEADER } else { who })
    }

    /// Final ranking: factions that won by rule first (sharing first place), then score
    /// (higher first), then the tie-break chain.
    pub(super) fn rank(&mut self, reason: ReasonId) -> Step<Outcome> {
        use crate::model::ReasonResult;
        let m = self.m;
        self.seek(crate::rng::part::RANK, crate::rng::part::GLOBAL, 0, 0);
        let n = m.nfactions();
        let mut scores = [0i64; MAX_FACTIONS];
        if let Some((base, fstride)) = m.ranking.score.own_var() {
            // The common case, as `score` reads it, decided once for every faction.
            for (f, s) in scores.iter_mut().enumerate().take(n) {
                *s = self.env.st.vals[crate::expr::slot(f, base, fstride, 0)];
            }
        } else {
            for (f, s) in scores.iter_mut().enumerate().take(n) {
                let x = self.score(f)?;
                *s = self.whole(x, m.ranking.score.loc)?;
            }
        }
        let mut tiers = [0i64; MAX_FACTIONS];
        if let Some(tier) = &m.ranking.tier {
            for (f, t) in tiers.iter_mut().enumerate().take(n) {
                let x = self.num(tier, Bind::faction(FactionId(f as u8)))?;
                *t = self.whole(x, tier.loc)?;
            }
        }
        let winmask = match self.env.progress.forced {
            Some(Result::Win(f)) => 1u32 << f,
            Some(Result::Shared(mask)) => mask,
            _ => 0,
        };
        // Sort key: rule winners first (all equal), then tier, then score (computed where
        // compared: a table of keys would be written for every possible faction).
        let key = |f: usize| {
            if winmask & (1 << f) != 0 {
                (true, 0, 0)
            } else {
                (false, tiers[f], scores[f])
            }
        };
        let mut order = [0u8; MAX_FACTIONS];
        for (i, o) in order.iter_mut().enumerate().take(n) {
            *o = i as u8;
        }
        for i in 1..n {
            let mut j = i;
            while j > 0 && key(order[j] as usize) > key(order[j - 1] as usize) {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        // `tied[i]`: position i stays tied with position i - 1 after the chain.
        let mut tied = [false; MAX_FACTIONS];
        let mut decided_by = Decider::Score;
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && key(order[end] as usize) == key(order[start] as usize) {
                end += 1;
            }
            if key(order[start] as usize).0 {
                // Factions that won by rule share first place; no chain separates them.
                for t in tied.iter_mut().take(end).skip(start + 1) {
                    *t = true;
                }
            } else if end - start > 1 {
                self.break_ties(&mut order[..n], start, end, 0, &mut tied, &mut decided_by)?;
            }
            start = end;
        }
        let mut ranks = [0u8; MAX_FACTIONS];
        for i in 0..n {
            ranks[order[i] as usize] = if i > 0 && tied[i] {
                ranks[order[i - 1] as usize]
            } else {
                i as u8 + 1
            };
        }
        let result = match (self.env.progress.forced, m.reasons[reason].result) {
            (Some(r), _) => {
                decided_by = if matches!(r, Result::Win(_) | Result::Shared(_)) {
                    Decider::Rule
                } else {
                    Decider::Score
                };
                r
            }
            (None, ReasonResult::Draw) => Result::Draw,
            (None, ReasonResult::Nobody) => Result::Nobody,
            (None, ReasonResult::Rank) if n > 1 && tied[1] => {
                decided_by = Decider::Shared;
                Result::Shared(
                    ranks[..n]
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| **r == 1)
                        .fold(0u32, |m, (f, _)| m | 1 << f),
                )
            }
            (None, ReasonResult::Rank) => Result::Win(order[0]),
        };
        if matches!(result, Result::Draw | Result::Nobody) {
            decided_by = Decider::Score;
        }
        if T::ON {
            let list: Vec<String> = order[..n]
                .iter()
                .map(|&f| {
                    format!(
                        "{}. {} ({})",
                        ranks[f as usize],
                        m.factions[FactionId(f)].name,
                        scores[f as usize]
                    )
                })
                .collect();
            self.tracer
                .line(format_args!("final ranking: {}", list.join(", ")));
            match decided_by {
                Decider::Link(k) => self.tracer.line(format_args!(
                    "tie at the top broken by `{}`",
                    m.ranking.link_name(k as usize)
                )),
                Decider::Shared => self.tracer.line(format_args!(
                    "tie at the top is not broken: first place is shared"
                )),
                Decider::Rule => self.tracer.line(format_args!("decided by a win/lose rule")),
                Decider::Score => {}
            }
            match result {
                Result::Win(f) => self
                    .tracer
                    .line(format_args!("winner: {}", m.factions[FactionId(f)].name)),
                Result::Shared(mask) => {
                    let names = m.names_in(mask);
                    self.tracer
                        .line(format_args!("shared win: {}", names.join(", ")))
                }
                Result::Draw => self.tracer.line(format_args!("draw: nobody wins")),
                Result::Nobody => self
                    .tracer
                    .line(format_args!("nobody wins: every faction loses")),
            }
        }
        Ok(Outcome {
            reason,
            rounds: 0,
            scores,
            ranks,
            result,
            decided_by,
        })
    }

    /// Orders `order[start..end]` (tied so far) by chain link `k` and recurses into groups
    /// still tied.
    pub(super) fn break_ties(
        &mut self,
        order: &mut [u8],
        start: usize,
        end: usize,
        k: usize,
        tied: &mut [bool; MAX_FACTIONS],
        decided: &mut Decider,
    ) -> Step {
        let m = self.m;
        if k >= m.ranking.tiebreak.len() {
            for t in tied.iter_mut().take(end).skip(start + 1) {
                *t = true;
            }
            return Ok(());
        }
        let mut key = [Num::Int(0); MAX_FACTIONS];
        for &f in &order[start..end] {
            key[f as usize] = match &m.ranking.tiebreak[k] {
                TieBreak::Expr(e, _) => self.num(e, Bind::faction(FactionId(f)))?,
                TieBreak::Die => Num::Real(self.env.rng.random::<u64>() as f64),
            };
        }
        for i in start + 1..end {
            let mut j = i;
            while j > start && key[order[j] as usize] > key[order[j - 1] as usize] {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        let mut s = start;
        while s < end {
            let mut e = s + 1;
            while e < end && key[order[e] as usize] == key[order[s] as usize] {
                e += 1;
            }
            if s == 0 && e == 1 && start == 0 {
                *decided = Decider::Link(k as u8);
            }
            if e - s > 1 {
                self.break_ties(order, s, e, k + 1, tied, decided)?;
            }
            s = e;
        }
        Ok(())
    }

    /// A score or tier as the whole number it ranks by: a real is floored, and must be a
    /// finite number in the 64-bit range.
    pub(super) fn whole(&mut self, x: Num, loc: u32) -> Step<i64> {
        match x {
            Num::Int(i) => Ok(i),
            Num::Real(r) => match crate::expr::tree::to_int(r.floor()) {
                Ok(i) => Ok(i),
                Err(_) => Err(self.halt(Fault {
                    loc,
                    kind: FaultKind::BadScore(r),
                })),
            },
        }
    }
}
