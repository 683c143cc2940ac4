//! Hands and decks: drawing, taking, discarding and completing cards.
//!
//! Owns the pool of each deck (cards not drawn, held or completed), how a card is picked
//! (uniformly among the eligible ones, one random number per pick), and where a card goes
//! when it is discarded or completed.

use super::{Bind, Game, Step, Tracer};
use crate::expr::{Expr, Stmt};
use crate::runtime::hands::{mark_eligible, take_any, take_eligible};
use crate::state::held_by;

/// The most cards a deck holds (the scenario compiler rejects larger decks).
const POOL_CAP: usize = crate::state::MAX_DECK_CARDS;

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
        if !self.env.st.returnable(c) {
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
        let m = self.m;
        let t = &m.tables;
        let left = (self.env.st.deck_left[d as usize] as usize).min(POOL_CAP);
        let (picked, eligible) = match cond {
            Some(cond) => {
                // Test every card of the pool, then draw among the eligible ones: one random
                // number per take.
                let saved = self.env.st.card();
                let mut eligible = 0usize;
                for j in 0..left {
                    self.env.st.look_at_pool(t, d as usize, j);
                    let yes = self.test(cond, b)?;
                    mark_eligible(&mut self.env.eligible, j, yes);
                    eligible += yes as usize;
                }
                self.env.st.set_card(saved);
                (
                    take_eligible(&mut self.env, d as usize, left, eligible, owner),
                    eligible,
                )
            }
            None => (take_any(&mut self.env, d as usize, owner), left),
        };
        if T::ON {
            match picked {
                None => self.tracer.line(format_args!(
                    "    {}: no eligible card",
                    self.m.decks[d as usize].0
                )),
                Some(card) => {
                    let who = if owner == crate::state::REVEALED {
                        "draw:".to_string()
                    } else {
                        format!("{} takes", self.m.factions[b.bound].name)
                    };
                    self.tracer.line(format_args!(
                        "    {who} {} ({eligible} eligible, {} left)",
                        self.card_name(card),
                        left - 1
                    ));
                }
            }
        }
        for &bit in &m.immediate_on_draw {
            self.env.progress.pending.set(bit);
        }
        Ok(())
    }

    /// `for held DECK: body`: the body runs once for each card of the deck the bound faction
    /// holds, each card looked at once, even if the body discards or completes it.
    pub(super) fn for_held(&mut self, deck: u16, body: &Stmt, b: Bind) -> Step {
        let code = held_by(b.bound.0);
        let mut from = 0;
        // `card` is the loop's own: after it (in an outer loop's body, say), `card` is
        // again what it was before.
        let outer = self.env.st.card;
        while self.ended.is_none()
            && let Some(c) = self.env.st.next_owned(&self.m.tables, deck, from, code)
        {
            self.exec(body, b)?;
            from = c + 1;
        }
        self.env.st.card = outer;
        Ok(())
    }

    /// `pass DECK left|right`: every hand of the deck moves one faction along the table.
    pub(super) fn pass(&mut self, deck: u16, dir: i8) {
        crate::runtime::hands::pass_hands(&mut self.env, deck, dir);
        if T::ON {
            self.tracer.line(format_args!(
                "    every hand of {} passes {}",
                self.m.decks[deck as usize].0,
                if dir > 0 { "left" } else { "right" }
            ));
        }
        self.cards_moved();
    }

    /// `discard`: the current card goes back to its deck.
    pub(super) fn discard(&mut self) {
        if let Some(c) = self.env.st.card() {
            self.return_card(c as usize);
        }
        self.cards_moved();
    }

    /// Marks the immediate end conditions that read the decks (cards left, hands, completed
    /// piles, the current card) to be checked at the end of the statement list.
    fn cards_moved(&mut self) {
        for &bit in &self.m.immediate_on_draw {
            self.env.progress.pending.set(bit);
        }
    }

    /// `complete`: the bound faction completes the current card (it leaves the pool for good).
    pub(super) fn complete(&mut self, b: Bind) {
        if let Some(c) = self.env.st.card() {
            self.env
                .st
                .complete_card(&self.m.tables, c as usize, b.bound.0);
            if T::ON {
                self.tracer.line(format_args!(
                    "    {} completes {}",
                    self.m.factions[b.bound].name,
                    self.card_name(c)
                ));
            }
        }
        self.cards_moved();
    }
}
