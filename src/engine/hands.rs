//! Hands and decks: drawing, taking, discarding and completing cards.
//!
//! Owns the pool of each deck (cards not drawn, held or completed), how a card is picked
//! (uniformly among the eligible ones, one random number per pick), and where a card goes
//! when it is discarded or completed.

use super::{Bind, Game, Step, Tracer};
use crate::expr::{Expr, Stmt};
use crate::state::held_by;
use rand::RngExt;

/// The most cards a deck holds (the scenario compiler rejects larger decks).
const POOL_CAP: usize = crate::scenario::MAX_DECK_CARDS;

impl<T: Tracer> Game<'_, T> {
    pub(super) fn card_name(&self, c: u16) -> String {
        let d = self.m.tables.deck_of(c as usize);
        let deck = &self.m.decks[d];
        format!(
            "{} ({})",
            deck.1[c as usize - self.m.tables.deck_start[d] as usize],
            deck.0
        )
    }

    /// Puts card `c` back into its deck's pool.
    pub(super) fn return_card(&mut self, c: usize) {
        if self.env.st.owner[c] == crate::state::IN_POOL {
            return;
        }
        self.env.st.return_card(&self.m.tables, c);
        if T::ON {
            self.tracer.line(format_args!(
                "    {} goes back to its deck",
                self.card_name(c as u16)
            ));
        }
    }

    /// `take` and `draw`: a uniformly random card among the deck's eligible cards leaves the
    /// pool for `owner` (a hand, or face up). Drawing an ineligible card, putting it back and
    /// drawing again until an eligible one comes gives exactly this distribution.
    #[inline(never)]
    pub(super) fn pick(&mut self, d: u16, cond: Option<&Expr>, b: Bind, owner: u8) -> Step {
        let start = self.m.tables.deck_start[d as usize] as usize;
        let left = self.env.st.deck_left[d as usize] as usize;
        let mut eligible = 0usize;
        let mut pick = None;
        if let Some(cond) = cond {
            // Count the eligible cards, then draw the k-th: one random number per take.
            let saved = self.env.st.card;
            // One bit per card of the pool (a bit set, not a `[bool; N]`: clearing it is a
            // per-take cost).
            let mut ok = [0u64; POOL_CAP / 64];
            let left = left.min(POOL_CAP);
            for j in 0..left {
                self.env.st.card = Some(self.env.st.pool[start + j]);
                let yes = self.test(cond, b)?;
                ok[j / 64] |= (yes as u64) << (j % 64);
                eligible += yes as usize;
            }
            self.env.st.card = saved;
            if eligible > 0 {
                let mut k = self.env.rng.random_range(0..eligible);
                pick = (0..left).find(|&j| {
                    let o = ok[j / 64] >> (j % 64) & 1 == 1;
                    if o {
                        if k == 0 {
                            return true;
                        }
                        k -= 1;
                    }
                    false
                });
            }
        } else if left > 0 {
            eligible = left;
            pick = Some(self.env.rng.random_range(0..left));
        }
        match pick {
            None => {
                self.env.st.card = None;
                if T::ON {
                    self.tracer.line(format_args!(
                        "    {}: no eligible card",
                        self.m.decks[d as usize].0
                    ));
                }
            }
            Some(j) => {
                let card = self.env.st.pool[start + j];
                self.env.st.pool.swap(start + j, start + left - 1);
                self.env.st.deck_left[d as usize] -= 1;
                self.env.st.set_owner(d as usize, card as usize, owner);
                self.env.st.card = Some(card);
                if T::ON {
                    let who = if owner == crate::state::REVEALED {
                        "draw:".to_string()
                    } else {
                        format!("{} takes", self.m.factions[b.bound as usize].name)
                    };
                    self.tracer.line(format_args!(
                        "    {who} {} ({eligible} eligible, {} left)",
                        self.card_name(card),
                        left - 1
                    ));
                }
            }
        }
        let m = self.m;
        for &c in &m.immediate_on_draw {
            self.check(c)?;
        }
        Ok(())
    }

    /// `for held DECK: body`: the body runs once for each card of the deck the bound faction
    /// holds, each card looked at once, even if the body discards or completes it.
    pub(super) fn for_held(&mut self, deck: u16, body: &Stmt, b: Bind) -> Step {
        let code = held_by(b.bound);
        let mut from = 0;
        while self.ended.is_none()
            && let Some(c) = self.env.st.next_owned(&self.m.tables, deck, from, code)
        {
            self.exec(body, b)?;
            from = c + 1;
        }
        Ok(())
    }

    /// `discard`: the current card goes back to its deck.
    pub(super) fn discard(&mut self) {
        if let Some(c) = self.env.st.card {
            self.return_card(c as usize);
        }
    }

    /// `complete`: the bound faction completes the current card (it leaves the pool for good).
    pub(super) fn complete(&mut self, b: Bind) {
        if let Some(c) = self.env.st.card {
            self.env
                .st
                .complete_card(&self.m.tables, c as usize, b.bound);
            if T::ON {
                self.tracer.line(format_args!(
                    "    {} completes {}",
                    self.m.factions[b.bound as usize].name,
                    self.card_name(c)
                ));
            }
        }
    }
}
