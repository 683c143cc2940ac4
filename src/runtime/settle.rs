//! Settling `win` and `lose` marks: who leaves the game, which result is forced, and
//! whether the marks end the game (last one standing, all lost, last team).
//!
//! Owns [`Env::settle`], which both backends call when an effect list ends, so that one
//! definition decides every ending by rule.

use super::{Env, Result};

impl Env<'_> {
    /// Settles the pending `win`/`lose` marks (see [`Game::resolve`]): losers leave the game
    /// (`State::out`), a forced result is recorded in `forced`, and the reason the game ends
    /// with is returned when the marks end it. Machine code settles marks through this too.
    pub(crate) fn settle(&mut self) -> Option<u16> {
        let n = self.t.nfactions as usize;
        let all = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        let marks = std::mem::take(&mut self.progress.marks);
        let lose = marks.lose & !self.st.out;
        let win = marks.win & !lose & !self.st.out;
        self.st.out |= lose;
        let winners = |mask: u32| {
            if mask.count_ones() == 1 {
                Result::Win(mask.trailing_zeros() as u8)
            } else {
                Result::Shared(mask)
            }
        };
        if win != 0 {
            self.progress.forced = Some(winners(win));
            return Some(marks.reason);
        }
        if lose == 0 {
            return None;
        }
        let remaining = all & !self.st.out;
        let [last_standing, all_lost, last_team] = self.rules.reasons;
        if remaining == 0 {
            self.progress.forced = Some(Result::Draw);
            return all_lost.or(Some(marks.reason));
        }
        if self.rules.teams {
            let t = self.t;
            let first = remaining.trailing_zeros() as usize;
            let side = t.side[first];
            if side != 0 && (0..n).all(|f| remaining & (1 << f) == 0 || t.side[f] == side) {
                // Every member of the last team wins, even those who had left the game.
                let team = (0..n)
                    .filter(|&f| t.side[f] == side)
                    .fold(0u32, |m, f| m | 1 << f);
                self.progress.forced = Some(winners(team));
                return last_team.or(Some(marks.reason));
            }
        } else if remaining.count_ones() == 1 && n > 1 {
            self.progress.forced = Some(winners(remaining));
            return last_standing.or(Some(marks.reason));
        }
        None
    }
}
