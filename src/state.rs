//! Per-game mutable state and the static tables that expressions read.
//!
//! Owns the memory layout of a game: every variable is a slot in one flat `i64` vector
//! (global scalars, then per-faction and per-element blocks), decks are ranges of one flat
//! card pool. A [`State`] is allocated once per worker and reset for every game, so playing a
//! game allocates nothing. What the values mean belongs to the scenario, not to this module.

/// The most factions a scenario may declare; fixed so that per-faction scratch space lives on
/// the stack.
pub const MAX_FACTIONS: usize = 16;

/// The most actions a scenario declares: an action is a 16-bit index in menus and options.
pub const MAX_ACTIONS: usize = u16::MAX as usize - 1;

/// The most variables a scenario declares (each is at least one slot of every game's
/// state, copied per game): far beyond any rules, small enough to refuse a generated
/// 64 MiB file of `[[var]]` tables before it is parsed.
pub const MAX_VARS: usize = 65_536;

/// The most slots a game's state holds (all variables, each of its set's width times the
/// factions for a faction variable): 8 MiB a state, so that every worker's state and every
/// searcher's copy stay small whatever a file declares. One faction variable over the
/// largest grid (255x257) with the most factions (16) fits.
pub const MAX_SLOTS: u64 = 1 << 20;

/// The most cards one deck may hold (a take's eligible cards are one bit each in a
/// fixed-size buffer of the environment).
pub const MAX_DECK_CARDS: usize = 1024;

/// The most dice one `roll(n, sides)` or `NdS` may throw (bounded work per formula).
pub const MAX_DICE: i64 = 1_000_000;

/// The most keys one `order` or race ranking sorts by (a race's key rows are fixed-size).
pub const MAX_ORDER_KEYS: usize = 4;

/// Static, per-model tables that expressions consult while a game runs.
#[derive(Debug, Clone, Default)]
pub struct Tables {
    /// Number of factions.
    pub nfactions: u8,
    /// Side id (1-based) of each faction, 0 when it has none.
    pub side: Vec<i64>,
    /// 1 for a player faction, 0 for a non-player faction.
    pub player: Vec<i64>,
    /// Card attributes, `card * n_attrs + attr`.
    pub card_attrs: Vec<i64>,
    /// Number of distinct card attributes.
    pub n_attrs: usize,
    /// Lower bound of each variable (by variable id).
    pub var_min: Vec<i64>,
    /// Upper bound of each variable (by variable id).
    pub var_max: Vec<i64>,
    /// First card of each deck in the pool template.
    pub deck_start: Vec<u32>,
    /// Number of cards of each deck.
    pub deck_len: Vec<u32>,
    /// The pool template: card ids of all decks, deck after deck.
    pub pool: Vec<u16>,
    /// The card attribute named `id`, if any card has one.
    pub id_attr: Option<u16>,
    /// Every card as `(deck, id, card)`, sorted, when there is an `id` attribute
    /// ([`Tables::index_ids`]): the cards of a deck with a given id are one run of it.
    pub by_id: Vec<(u16, i64, u32)>,
    /// For each deck, its least id and where in [`Tables::by_id`] the run of each id from
    /// there up to its greatest starts (one more entry ends the last run); no starts when
    /// the ids spread too wide for a table (a search of `by_id` finds them then).
    pub id_runs: Vec<(i64, Vec<u32>)>,
    /// Games rotate the factions through the seats (`--rotate-seats`, see
    /// [`crate::runtime::seats`]): turn order and ties by seat follow each game's seating.
    /// Set by the command before the native backend compiles.
    pub rotate_seats: bool,
    /// Whether some statement passes hands on (`pass`): only then does a state keep who
    /// knows where each card is ([`State::known`]).
    pub passes: bool,
}

impl Tables {
    /// The card ids of a deck (every copy, wherever it is now).
    pub fn deck_cards(&self, deck: u16) -> std::ops::Range<usize> {
        // Cards are numbered deck after deck, so a deck's ids are its pool range.
        let start = self.deck_start[deck as usize] as usize;
        start..start + self.deck_len[deck as usize] as usize
    }

    /// Builds [`Tables::by_id`] from the card attributes.
    pub fn index_ids(&mut self) {
        self.by_id.clear();
        self.id_runs.clear();
        let Some(at) = self.id_attr else { return };
        for d in 0..self.deck_start.len() as u16 {
            for c in self.deck_cards(d) {
                let id = self.card_attrs[c * self.n_attrs + at as usize];
                self.by_id.push((d, id, c as u32));
            }
        }
        self.by_id.sort_unstable();
        for d in 0..self.deck_start.len() as u16 {
            let from = self.by_id.partition_point(|&(e, _, _)| e < d);
            let to = self.by_id.partition_point(|&(e, _, _)| e <= d);
            let ids = &self.by_id[from..to];
            let (Some(lo), Some(hi)) = (ids.first(), ids.last()) else {
                self.id_runs.push((0, vec![]));
                continue;
            };
            let (lo, span) = (lo.1, (hi.1 as i128 - lo.1 as i128) as u128);
            // A table at most 4 entries a card (and 64 more) long; a search beyond.
            if span > 4 * ids.len() as u128 + 64 {
                self.id_runs.push((lo, vec![]));
                continue;
            }
            let mut starts = Vec::with_capacity(span as usize + 2);
            let mut at = 0;
            for k in 0..=span as i64 + 1 {
                while at < ids.len() && ids[at].1 < lo + k {
                    at += 1;
                }
                starts.push((from + at) as u32);
            }
            self.id_runs.push((lo, starts));
        }
    }

    /// The cards of `deck` whose `id` attribute is `id`, in card order.
    #[inline]
    pub fn cards_with_id(&self, deck: u16, id: i64) -> impl Iterator<Item = usize> + '_ {
        let run = match self.id_runs.get(deck as usize) {
            Some((lo, starts)) if !starts.is_empty() => {
                // `id - lo` as unsigned is below the table's length exactly when `id` is in
                // it: an id below `lo` wraps high, and so does a difference that overflows
                // (it is 2^63 or more away).
                let k = id.wrapping_sub(*lo) as u64;
                if k < (starts.len() - 1) as u64 {
                    starts[k as usize] as usize..starts[k as usize + 1] as usize
                } else {
                    0..0
                }
            }
            _ => {
                let start = self.by_id.partition_point(|&(d, i, _)| (d, i) < (deck, id));
                let len = self.by_id[start..]
                    .iter()
                    .take_while(|&&(d, i, _)| (d, i) == (deck, id))
                    .count();
                start..start + len
            }
        };
        self.by_id[run].iter().map(|&(_, _, c)| c as usize)
    }

    /// The deck card `c` belongs to.
    pub fn deck_of(&self, c: usize) -> usize {
        (0..self.deck_start.len())
            .rev()
            .find(|&d| self.deck_start[d] as usize <= c)
            .unwrap_or(0)
    }
}

/// Owner code of a card in its deck's pool.
pub const IN_POOL: u8 = 0;
/// [`State::card`] when there is no current card.
pub const NO_CARD: u32 = u32::MAX;

/// Owner code of a card drawn face up (`draw`), out of the pool.
pub const REVEALED: u8 = 255;

/// Owner code of a card held in faction `f`'s hand.
#[inline]
pub fn held_by(f: u8) -> u8 {
    1 + f
}

/// Owner code of a card completed by faction `f`.
#[inline]
pub fn completed_by(f: u8) -> u8 {
    101 + f
}

/// Whether owner code `code` is a completed card's ([`completed_by`] of some faction).
#[inline]
pub fn is_completed(code: u8) -> bool {
    (101..=100 + MAX_FACTIONS).contains(&(code as usize))
}

/// Mutable state of one game.
#[derive(Debug, Clone)]
pub struct State {
    /// Variable slots.
    pub vals: Vec<i64>,
    /// Current round, 1-based (0 during setup).
    pub round: i64,
    /// Current age, 1-based.
    pub age: i64,
    /// Round within the current age, 1-based.
    pub age_round: i64,
    /// Bit mask of factions that have lost and left the game.
    pub out: u32,
    /// The current card (the one most recently drawn or taken, or the one a `for held` walk
    /// or a take's test is at), [`NO_CARD`] when there is none: a plain integer, so that
    /// machine code reads it. Read and set through [`State::card`] and [`State::set_card`].
    pub(crate) card: u32,
    /// Cards left in each deck.
    pub deck_left: Vec<u32>,
    /// Working copy of the pool (drawn cards are swapped to the back of their deck's range).
    pub pool: Vec<u16>,
    /// Where each card is: [`IN_POOL`], [`REVEALED`], held or completed by a faction.
    /// Changed only through [`State::set_owner`], which keeps `owned` in step.
    pub owner: Vec<u8>,
    /// How many cards of each deck each faction holds and has completed (see
    /// [`owned_slot`]): `held(d)` and `completed(d)` read it instead of walking the deck.
    pub owned: Vec<u32>,
    /// Each faction's hand as bits: bit `c % 64` of word `f * hand_words(pool) + c / 64` is
    /// set while faction `f` holds card `c`. Kept in step by [`State::set_owner`]; machine
    /// code's `for held` walks it a word at a time instead of reading every card's owner.
    pub hands: Vec<u64>,
    /// For each card in a hand, the factions besides its holder that know where it is (bit
    /// `f`): those that passed it on since it left the pool, and those it passed through.
    /// Set by [`State::pass_card`], cleared when the card goes back to the pool (a card
    /// leaves the pool only when no one knows it); what a searching faction does not know
    /// is redrawn in its playouts.
    pub known: Vec<u16>,
}

/// Words of [`State::hands`] a faction's hand takes, for a pool of `cards` cards.
#[inline]
pub fn hand_words(cards: usize) -> usize {
    cards.div_ceil(64)
}

/// Where [`State::owned`] counts the cards of deck `deck` with owner code `code`: a hand or a
/// faction's completed cards (`None` for the pool and face-up cards).
#[inline]
pub fn owned_slot(deck: usize, code: u8) -> Option<usize> {
    let (code, f) = (code as usize, MAX_FACTIONS);
    let i = match code {
        c if (1..=f).contains(&c) => c - 1,
        c if is_completed(c as u8) => f + c - 101,
        _ => return None,
    };
    Some(deck * 2 * f + i)
}

impl State {
    /// A state with `slots` variables and the decks of `t`.
    pub fn new(slots: usize, t: &Tables) -> State {
        State {
            vals: vec![0; slots],
            round: 0,
            age: 1,
            age_round: 0,
            out: 0,
            card: NO_CARD,
            deck_left: t.deck_len.clone(),
            pool: t.pool.clone(),
            owner: vec![IN_POOL; t.pool.len()],
            owned: vec![0; t.deck_start.len() * 2 * MAX_FACTIONS],
            hands: vec![0; MAX_FACTIONS * hand_words(t.pool.len())],
            known: vec![0; if t.passes { t.pool.len() } else { 0 }],
        }
    }

    /// A state with no variables and no decks (for formulas that read neither).
    pub fn empty() -> State {
        State {
            vals: Vec::new(),
            round: 0,
            age: 1,
            age_round: 1,
            out: 0,
            card: NO_CARD,
            deck_left: Vec::new(),
            pool: Vec::new(),
            owner: Vec::new(),
            owned: Vec::new(),
            hands: Vec::new(),
            known: Vec::new(),
        }
    }

    /// Makes this state a copy of `o`, a state of the same model (a playout's start),
    /// allocating nothing: the same as `o.clone()`. `o` is taken apart field by field with
    /// no `..`, so a field added to [`State`] does not compile until it is copied here.
    pub fn copy_from(&mut self, o: &State) {
        let State {
            vals,
            round,
            age,
            age_round,
            out,
            card,
            deck_left,
            pool,
            owner,
            owned,
            hands,
            known,
        } = o;
        self.vals.copy_from_slice(vals);
        (self.round, self.age, self.age_round) = (*round, *age, *age_round);
        (self.out, self.card) = (*out, *card);
        self.deck_left.copy_from_slice(deck_left);
        self.pool.copy_from_slice(pool);
        self.owner.copy_from_slice(owner);
        self.owned.copy_from_slice(owned);
        self.hands.copy_from_slice(hands);
        self.known.copy_from_slice(known);
    }

    /// Puts every deck back to its full template order and clears the clock. Variables are
    /// set by the engine's setup, which evaluates their initial values.
    pub fn reset(&mut self, t: &Tables) {
        self.round = 0;
        self.age = 1;
        self.age_round = 0;
        self.out = 0;
        self.card = NO_CARD;
        self.deck_left.copy_from_slice(&t.deck_len);
        self.pool.copy_from_slice(&t.pool);
        self.owner.fill(IN_POOL);
        self.owned.fill(0);
        self.hands.fill(0);
        self.known.fill(0);
    }

    /// `discard`: card `c` goes back to its deck's pool (nothing happens if it is there, or
    /// if it was completed: that is for good).
    pub fn return_card(&mut self, t: &Tables, c: usize) {
        if !self.returnable(c) {
            return;
        }
        let d = t.deck_of(c);
        let start = t.deck_start[d] as usize;
        let len = t.deck_len[d] as usize;
        let left = self.deck_left[d] as usize;
        if let Some(j) = (start + left..start + len).find(|&j| self.pool[j] as usize == c) {
            self.pool.swap(j, start + left);
            self.deck_left[d] += 1;
        }
        self.set_owner(d, c, IN_POOL);
        if let Some(k) = self.known.get_mut(c) {
            *k = 0;
        }
    }

    /// Whether `discard` moves card `c`: it is held or drawn face up, not in the pool and
    /// not completed.
    #[inline]
    pub fn returnable(&self, c: usize) -> bool {
        let o = self.owner[c];
        o != IN_POOL && !is_completed(o)
    }

    /// `complete` by faction `f`: card `c` leaves its deck's pool (if it is there) for good,
    /// completed by `f`.
    pub fn complete_card(&mut self, t: &Tables, c: usize, f: u8) {
        let d = t.deck_of(c);
        if self.owner[c] == IN_POOL {
            let start = t.deck_start[d] as usize;
            let left = self.deck_left[d] as usize;
            if let Some(j) = (start..start + left).find(|&j| self.pool[j] as usize == c) {
                self.pool.swap(j, start + left - 1);
                self.deck_left[d] -= 1;
            }
        }
        self.set_owner(d, c, completed_by(f));
    }

    /// The current card, if there is one.
    #[inline]
    pub fn card(&self) -> Option<u16> {
        u16::try_from(self.card).ok()
    }

    /// Sets the current card.
    #[inline]
    pub fn set_card(&mut self, c: Option<u16>) {
        self.card = c.map_or(NO_CARD, u32::from);
    }

    /// The `j`-th card of deck `d`'s pool becomes the current card, for a take's condition
    /// to read.
    #[inline]
    pub fn look_at_pool(&mut self, t: &Tables, d: usize, j: usize) {
        self.card = self.pool[t.deck_start[d] as usize + j] as u32;
    }

    /// The `j`-th card of deck `d`'s pool leaves it for `owner` (the last card of the pool
    /// takes its place) and becomes the current card.
    pub fn take_at(&mut self, t: &Tables, d: usize, j: usize, owner: u8) -> u16 {
        let start = t.deck_start[d] as usize;
        let left = self.deck_left[d] as usize;
        let card = self.pool[start + j];
        self.pool.swap(start + j, start + left - 1);
        self.deck_left[d] -= 1;
        self.set_owner(d, card as usize, owner);
        self.card = card as u32;
        card
    }

    /// The first card of `deck` at or after index `from` that `code` owns; it becomes the
    /// current card (`card.ATTR`). `for held` walks a hand with it.
    #[inline]
    pub fn next_owned(&mut self, t: &Tables, deck: u16, from: usize, code: u8) -> Option<usize> {
        let r = t.deck_cards(deck);
        let c = (from.max(r.start)..r.end).find(|&c| self.owner[c] == code)?;
        self.card = c as u32;
        Some(c)
    }

    /// Card `c` of deck `deck`, held by faction `from`, passes to faction `to`'s hand: both
    /// know where it is, and so does every faction that passed it on before (when the
    /// state keeps who knows: [`Tables::passes`]).
    pub fn pass_card(&mut self, deck: usize, c: usize, from: u8, to: u8) {
        let known = self.known.get(c).map(|k| k | 1 << from | 1 << to);
        self.set_owner(deck, c, held_by(to));
        if let (Some(k), Some(slot)) = (known, self.known.get_mut(c)) {
            *slot = k;
        }
    }

    /// Moves card `c` of deck `deck` to owner `code`, keeping the per-owner counts and the
    /// hands' bits (who knows where it is stays: a card back in the pool forgets it, in
    /// [`State::return_card`]).
    #[inline]
    pub fn set_owner(&mut self, deck: usize, c: usize, code: u8) {
        if let Some(i) = owned_slot(deck, self.owner[c]) {
            self.owned[i] -= 1;
        }
        if let Some(i) = owned_slot(deck, code) {
            self.owned[i] += 1;
        }
        let (words, bit) = (hand_words(self.owner.len()), 1u64 << (c % 64));
        for (o, set) in [(self.owner[c], false), (code, true)] {
            if (1..=MAX_FACTIONS).contains(&(o as usize)) {
                let w = &mut self.hands[(o as usize - 1) * words + c / 64];
                *w = if set { *w | bit } else { *w & !bit };
            }
        }
        self.owner[c] = code;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One deck of 3 cards whose hands are passed on.
    fn passing_deck() -> Tables {
        Tables {
            deck_start: vec![0],
            deck_len: vec![3],
            pool: vec![0, 1, 2],
            passes: true,
            ..Tables::default()
        }
    }

    /// `copy_from` copies every field: a state with each field changed, copied into a fresh
    /// one, equals its clone. The destructuring names every field, so a field added to
    /// `State` fails to compile here until it is changed below (and copied).
    #[test]
    fn copy_from_equals_clone() {
        let t = passing_deck();
        let mut o = State::new(4, &t);
        let State {
            vals,
            round,
            age,
            age_round,
            out,
            card,
            deck_left: _,
            pool: _,
            owner: _,
            owned: _,
            hands: _,
            known: _,
        } = &mut o;
        vals.copy_from_slice(&[7, -3, 1 << 40, 5]);
        (*round, *age, *age_round, *out, *card) = (4, 2, 3, 0b10, 1);
        // Cards: taken (deck_left, pool, owner, owned, hands) and passed on (known).
        o.take_at(&t, 0, 0, held_by(2));
        o.pass_card(0, 0, 2, 0);
        let mut b = State::new(4, &t);
        b.copy_from(&o);
        assert_eq!(format!("{b:?}"), format!("{:?}", o.clone()));
    }

    /// A card passed on is known to the faction that passed it and to the one that holds it,
    /// and to every faction it passed through; back in the pool, to no one.
    #[test]
    fn who_knows_where_a_card_is_follows_its_hands() {
        let t = passing_deck();
        let mut st = State::new(0, &t);
        st.take_at(&t, 0, 0, held_by(2));
        assert_eq!(st.known[0], 0);
        st.pass_card(0, 0, 2, 0);
        assert_eq!((st.owner[0], st.known[0]), (held_by(0), 0b101));
        st.pass_card(0, 0, 0, 1);
        assert_eq!(st.known[0], 0b111);
        assert_eq!(st.hands[hand_words(3)] & 1, 1, "faction 1's hand holds it");
        st.return_card(&t, 0);
        assert_eq!(st.known[0], 0);
    }

    #[test]
    fn cards_are_found_by_deck_and_id() {
        // Two decks: cards 0-2 and 3-4; the id attribute is the second of two.
        let mut t = Tables {
            n_attrs: 2,
            id_attr: Some(1),
            card_attrs: vec![9, 7, 9, 5, 9, 7, 9, 7, 9, 5],
            deck_start: vec![0, 3],
            deck_len: vec![3, 2],
            ..Tables::default()
        };
        t.index_ids();
        let find = |d, id| t.cards_with_id(d, id).collect::<Vec<_>>();
        assert_eq!(find(0, 7), [0, 2]);
        assert_eq!(find(0, 5), [1]);
        assert_eq!(find(1, 7), [3]);
        assert_eq!(find(1, 5), [4]);
        assert_eq!(find(1, 6), [0usize; 0]);
        assert_eq!(find(1, 4), [0usize; 0]);
        assert_eq!(find(1, 8), [0usize; 0]);
        assert_eq!(find(2, 7), [0usize; 0]);
        assert_eq!(find(0, i64::MIN), [0usize; 0]);
        assert_eq!(find(0, i64::MAX), [0usize; 0]);
        // Ids at the bottom of the range: an id whose distance from them overflows is in
        // no run.
        let mut low = t.clone();
        (low.card_attrs[7], low.card_attrs[9]) = (i64::MIN + 1, i64::MIN);
        low.index_ids();
        assert!(!low.id_runs[1].1.is_empty());
        let find_low = |d, id| low.cards_with_id(d, id).collect::<Vec<_>>();
        assert_eq!(find_low(1, i64::MIN), [4]);
        assert_eq!(find_low(1, i64::MIN + 1), [3]);
        assert_eq!(find_low(1, i64::MAX), [0usize; 0]);
        assert_eq!(find_low(1, -1), [0usize; 0]);
        // Ids too far apart for a table are searched for.
        t.card_attrs[3] = 1_000_000;
        t.index_ids();
        assert!(t.id_runs[0].1.is_empty());
        let find = |d, id| t.cards_with_id(d, id).collect::<Vec<_>>();
        assert_eq!(find(0, 1_000_000), [1]);
        assert_eq!(find(0, 7), [0, 2]);
        assert_eq!(find(0, 5), [0usize; 0]);
        assert_eq!(find(1, 5), [4]);
    }

    use proptest::prelude::*;

    proptest! {
        /// Whatever moves cards between the pool, the table, hands and completed piles,
        /// the hand bits say exactly which cards each faction holds, and the counts agree.
        #[test]
        fn hand_bits_follow_every_move(
            moves in prop::collection::vec((0usize..150, 0u8..4), 0..300),
        ) {
            // Two decks across three words of bits: cards 0-69 and 70-149.
            let t = Tables {
                deck_start: vec![0, 70],
                deck_len: vec![70, 80],
                pool: (0..150).collect(),
                ..Tables::default()
            };
            let mut st = State::new(0, &t);
            for (c, kind) in moves {
                let f = (c % MAX_FACTIONS) as u8;
                let code = [IN_POOL, REVEALED, held_by(f), completed_by(f)][kind as usize];
                st.set_owner(usize::from(c >= 70), c, code);
            }
            let words = hand_words(150);
            for f in 0..MAX_FACTIONS {
                for c in 0..150 {
                    let bit = st.hands[f * words + c / 64] >> (c % 64) & 1 == 1;
                    prop_assert_eq!(bit, st.owner[c] == held_by(f as u8));
                }
                for d in 0..2 {
                    let held = t.deck_cards(d).filter(|&c| st.owner[c] == held_by(f as u8));
                    let slot = owned_slot(d as usize, held_by(f as u8)).unwrap();
                    prop_assert_eq!(st.owned[slot] as usize, held.count());
                }
            }
            st.reset(&t);
            prop_assert!(st.hands.iter().all(|&w| w == 0));
        }
    }
}
