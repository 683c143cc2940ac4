//! Decks and card attributes: `[[deck]]` tables compiled into the card pool.
//!
//! Owns the bounds on card counts and deck sizes, the layout of the pool (each deck's start
//! and length, one entry per copy of a card) and the table of card attributes.

use super::Source;
use super::declare::Decls;
use crate::error::Result;
use crate::expr::compile::Symbols;
use crate::scenario::raw::RawScenario;
use crate::state::Tables;

/// A card copy in the pool: its name and its attributes as written.
type Card = (String, Vec<(String, i64)>);

/// Decks and card attributes: fills the card pool and the attribute table of `d.tables`.
pub(super) fn decks(raw: &RawScenario, src: &Source, d: &mut Decls) -> Result<()> {
    let mut cards: Vec<Card> = Vec::new();
    for (i, deck) in raw.decks.iter().enumerate() {
        let deck = deck.get_ref();
        d.names.claim(&deck.name, "deck")?;
        d.syms.decks.insert(deck.name.get_ref().clone(), i as u16);
        d.tables.deck_start.push(d.tables.pool.len() as u32);
        let mut card_names = Vec::new();
        for c in &deck.cards {
            let n = *c.count.get_ref();
            if !(0..=10_000).contains(&n) {
                return Err(src.fail(
                    c.count.span().start,
                    format!("card count {n} must be between 0 and 10000"),
                ));
            }
            // Bounds checked before the copies are made: a deck of 10^6 cards is refused at
            // its card, not after a million copies.
            let max = crate::state::MAX_DECK_CARDS;
            // A count left at its default has no place in the file: the deck's name has.
            let at = match c.count.span().start {
                0 => deck.name.span().start,
                at => at,
            };
            if card_names.len() + n as usize > max {
                return Err(src.fail(
                    at,
                    format!(
                        "deck `{}` would hold {} cards with these; a deck holds at most {max}",
                        deck.name.get_ref(),
                        card_names.len() + n as usize
                    ),
                ));
            }
            if cards.len() + n as usize > u16::MAX as usize {
                return Err(src.fail(at, "too many cards: all decks together hold at most 65535"));
            }
            for a in c.attrs.keys() {
                let next = d.syms.attrs.len() as u16;
                d.syms.attrs.entry(a.clone()).or_insert(next);
            }
            for _ in 0..n {
                d.tables.pool.push(cards.len() as u16);
                card_names.push(c.name.0.clone());
                cards.push((
                    c.name.0.clone(),
                    c.attrs.iter().map(|(k, v)| (k.clone(), *v)).collect(),
                ));
            }
        }
        d.tables.deck_len.push(card_names.len() as u32);
        d.decks.push((deck.name.get_ref().clone(), card_names));
    }
    card_attrs(&mut d.tables, &d.syms, &cards);
    Ok(())
}

/// Fills the card attribute table (one row per card copy, one column per attribute) and
/// indexes the cards by their `id` attribute.
fn card_attrs(tables: &mut Tables, syms: &Symbols, cards: &[Card]) {
    tables.n_attrs = syms.attrs.len();
    tables.id_attr = syms.attrs.get("id").copied();
    tables.card_attrs = vec![0; cards.len() * tables.n_attrs];
    for (i, (_, attrs)) in cards.iter().enumerate() {
        for (k, v) in attrs {
            tables.card_attrs[i * tables.n_attrs + syms.attrs[k] as usize] = *v;
        }
    }
    tables.index_ids();
}
