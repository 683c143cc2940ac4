//! The evaluation environment: everything a formula or a statement sees while a game runs.
//!
//! Owns [`Env`] (the game's state and random stream, the bindings and first fault of
//! [`Ctx`], and the buffers both engines share with machine code: `win`/`lose` marks,
//! points by source, a take's eligible cards, a race's completers) and how a variable
//! reference resolves to a slot.

use super::abi::Opt;
use super::{Fault, FaultKind};
use crate::ids::ReasonId;
use crate::ir::{Elem, OutcomeKind, STACK, Who};
use crate::rng::Rng;
use crate::state::{State, Tables};

/// The mutable evaluation context that persists across evaluations: who is bound and the
/// first fault. One lives in each game's [`Env`].
#[derive(Debug, Clone, Default)]
pub struct Ctx {
    /// The acting faction.
    pub me: u8,
    /// The faction bound by the innermost context.
    pub bound: u8,
    /// The action's target.
    pub target: u8,
    /// The element bound by the innermost set aggregation.
    pub elem: u16,
    /// The first fault raised, if any (set by [`Ctx::raise`]).
    pub(crate) fault: Option<Fault>,
    /// Whether `fault` is set (1) or not (0): the flag machine code tests after a helper
    /// call, since an `Option`'s layout is not stable. Only `Ctx`'s methods change either.
    pub(crate) faulted: u8,
}

impl Ctx {
    /// Records fault `f` unless one is already recorded (the first one wins).
    #[inline]
    pub(crate) fn raise(&mut self, f: Fault) {
        if self.fault.is_none() {
            self.fault = Some(f);
            self.faulted = 1;
        }
    }

    /// Takes the recorded fault, leaving none.
    pub(crate) fn take_fault(&mut self) -> Option<Fault> {
        self.faulted = 0;
        self.fault.take()
    }
}

/// Everything an expression can see while it runs: the game's state, random stream and
/// bindings, owned here so that an evaluation passes one pointer; the static tables are
/// borrowed from the model.
pub struct Env<'a> {
    /// The game's state.
    pub st: State,
    /// The model's static tables.
    pub t: &'a Tables,
    /// The game's random stream.
    pub rng: Rng,
    /// Bindings, fault and stack.
    pub cx: Ctx,
    /// The arguments of a random draw that machine code passes to its helper.
    pub(crate) args: [u64; STACK],
    /// The value of a helper that machine code calls on a cold path, which the helper's
    /// trampoline leaves here (see the native backend's `lower::trampoline`).
    pub(crate) ret: u64,
    /// The options an agent's turn in machine code writes and chooses among (as long as
    /// the longest scan; empty when no turn is compiled).
    pub(crate) opts: Vec<Opt>,
    /// The game's progress: what is reset for a new game and copied to a playout.
    pub(crate) progress: Progress,
    /// Points each faction gained from each source this game, `faction * sources + source`
    /// (wide: one game's changes can exceed the 64-bit range of the values); kept here so
    /// that machine code credits them as the engine does.
    pub(crate) points: Vec<i128>,
    /// Set while a worked example is set up: changes do not trigger immediate checks (kept
    /// here so that machine code, which notes them, skips them as the engine does).
    pub(crate) quiet: bool,
    /// A take's eligible cards, bit `j` for the `j`-th card of the deck's pool (one bit a
    /// card, written by either engine's eligibility test).
    pub(crate) eligible: [u64; crate::state::MAX_DECK_CARDS / 64],
    /// A race's completers of this moment and their keys, for either engine to sort and
    /// reward.
    pub(crate) race: Completers,
    /// What settling marks needs to know of the model.
    pub(crate) rules: Rules,
    /// Searched decisions: where the next one sits, a playout's horizon, the searcher, the
    /// tree a playout walks.
    pub search: super::search::SearchState<'a>,
    /// This game's decisions by faction and action, `faction * actions + action`, when the
    /// model counts them ([`crate::model::Model::count_uses`]; empty otherwise, and in a
    /// searcher's playouts). Either engine adds to it as a choice is made.
    pub(crate) uses: Vec<u32>,
    /// This game's seating: the identity unless the model rotates seats
    /// ([`crate::state::Tables::rotate_seats`]), set as each game begins.
    pub seating: super::seats::Seating,
}

/// How many immediate end conditions a model may have: one bit each in [`Pending`].
pub const MAX_IMMEDIATE: usize = 64 * PENDING_WORDS;

/// The words of [`Pending`].
pub const PENDING_WORDS: usize = 4;

/// A set of immediate end conditions, one bit each, in the order they are declared: those
/// a change triggered in the statement list being run. Either engine sets bits; the end of
/// the list takes them (see the engine's `settle`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Pending(pub [u64; PENDING_WORDS]);

impl Pending {
    /// Adds condition `bit`.
    #[inline(always)]
    pub fn set(&mut self, bit: u16) {
        self.0[bit as usize / 64] |= 1 << (bit % 64);
    }

    /// Whether any condition is pending.
    #[inline(always)]
    pub fn any(&self) -> bool {
        self.0.iter().any(|&w| w != 0)
    }

    /// The pending conditions in declaration order, leaving none (one step a condition).
    pub fn take(&mut self) -> impl Iterator<Item = u16> + use<> {
        let words = std::mem::take(&mut self.0);
        words.into_iter().enumerate().flat_map(|(w, mut bits)| {
            std::iter::from_fn(move || {
                let b = (bits != 0).then(|| bits.trailing_zeros() as u16)?;
                bits &= bits - 1;
                Some(w as u16 * 64 + b)
            })
        })
    }
}

/// What settling `win` and `lose` marks needs to know of the model (see
/// [`Env::settle`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Rules {
    /// Reason ids of the rule-based endings: last one standing, all lost, last team.
    pub reasons: [Option<u16>; 3],
    /// Whether factions play in teams.
    pub teams: bool,
}

/// The factions that complete a race at one moment, in seat order until sorted, and their
/// keys (an integer's or a real's bits).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Completers {
    /// Each completer's key.
    pub keys: [u64; crate::state::MAX_FACTIONS],
    /// The completers.
    pub order: [u8; crate::state::MAX_FACTIONS],
    /// Each faction's keys (bits, as `keys`) when factions are sorted by more than one key.
    pub rows: [[u64; crate::state::MAX_ORDER_KEYS]; crate::state::MAX_FACTIONS],
}

/// Factions that won or lost by rule, waiting for the end of the statement list being run
/// (one effect is one moment); kept here so that machine code marks them as the engine does.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Marks {
    /// Bit `f` set when faction `f` won.
    pub win: u32,
    /// Bit `f` set when faction `f` lost.
    pub lose: u32,
    /// The reason of the first win, or of the first loss when nobody won.
    pub reason: u16,
}

impl Marks {
    /// `win` or `lose` for faction `f` with `reason`.
    #[inline]
    pub(crate) fn mark(&mut self, kind: OutcomeKind, reason: u16, f: u8) {
        match kind {
            OutcomeKind::Win => {
                if self.win == 0 {
                    self.reason = reason;
                }
                self.win |= 1 << f;
            }
            OutcomeKind::Lose => {
                if self.win == 0 && self.lose == 0 {
                    self.reason = reason;
                }
                self.lose |= 1 << f;
            }
        }
    }
}

/// Where a game stands beyond its state: what a new game resets
/// ([`Progress::default`]) and a playout copies from the game it searches, as one value,
/// so that a field cannot be reset and not copied, or the other way round.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Progress {
    /// The `win` and `lose` marks of the statement list being run.
    pub(crate) marks: Marks,
    /// The immediate end conditions a change has triggered in the statement list being
    /// run, checked together at its end (bit `i` for the `i`-th immediate condition).
    pub(crate) pending: Pending,
    /// Agent decisions made so far in this game (bounded by the model's `max_steps`).
    pub(crate) steps: u64,
    /// A result forced by rule (settled `win` and `lose` marks), if any.
    pub(crate) forced: Option<super::Result>,
    /// Final turns under way (`timing = "final_turns"`): the reason the game will end with,
    /// and the turns left, the triggering faction's own last.
    pub(crate) final_turns: Option<(ReasonId, u32)>,
    /// The final round under way (`timing = "final_round"`): the reason the game ends with
    /// when the round is finished.
    pub(crate) final_round: Option<ReasonId>,
}

impl<'a> Env<'a> {
    /// An environment over the given state, tables and stream, with nothing bound.
    pub fn new(st: State, t: &'a Tables, rng: Rng) -> Env<'a> {
        Env {
            st,
            t,
            rng,
            cx: Ctx::default(),
            args: [0; STACK],
            ret: 0,
            opts: Vec::new(),
            progress: Progress::default(),
            points: Vec::new(),
            quiet: false,
            eligible: [0; crate::state::MAX_DECK_CARDS / 64],
            race: Completers::default(),
            rules: Rules::default(),
            search: super::search::SearchState::default(),
            uses: Vec::new(),
            seating: super::seats::Seating::identity(),
        }
    }

    /// Counts a decision for `faction * actions + action` when this game counts them.
    #[inline(always)]
    pub(crate) fn used(&mut self, i: usize) {
        if let Some(u) = self.uses.get_mut(i) {
            *u += 1;
        }
    }

    /// Credits the change of a store into faction `f`'s variable, from `old` to `new`, to
    /// its points from source `src`.
    #[inline]
    pub(crate) fn credit(&mut self, f: usize, src: u8, old: i64, new: i64) {
        // A credit needs a source, so `points` has a row per faction.
        let sources = self.points.len() / self.t.nfactions as usize;
        self.points[f * sources + src as usize] += new as i128 - old as i128;
    }

    #[inline]
    pub(crate) fn who(&self, w: Who) -> usize {
        match w {
            Who::None => 0,
            Who::Bound => self.cx.bound as usize,
            Who::Me => self.cx.me as usize,
            Who::Target => self.cx.target as usize,
            Who::Fixed(f) => f as usize,
        }
    }

    #[inline]
    pub(crate) fn load(&self, base: u32, fstride: u32, who: Who, elem: Elem) -> i64 {
        let e = match elem {
            Elem::None => 0,
            Elem::Bound => self.cx.elem as usize,
            Elem::Fixed(i) => i as usize,
        };
        self.st.vals[slot(self.who(who), base, fstride, e)]
    }

    /// A computed subscript's read: element `i` (1-based) of a set of `n` elements; a
    /// position outside `1..=n` is a fault.
    #[inline]
    pub(crate) fn load_at(
        &self,
        base: u32,
        fstride: u32,
        who: Who,
        n: u16,
        i: i64,
    ) -> Result<i64, FaultKind> {
        if (1..=n as i64).contains(&i) {
            Ok(self.load(base, fstride, who, Elem::Fixed((i - 1) as u16)))
        } else {
            Err(FaultKind::Subscript(i, n))
        }
    }

    #[inline]
    pub(crate) fn count_owned(&self, deck: u16, code: u8) -> usize {
        let walk = || {
            self.t
                .deck_cards(deck)
                .filter(|&c| self.st.owner[c] == code)
                .count()
        };
        match crate::state::owned_slot(deck as usize, code).and_then(|i| self.st.owned.get(i)) {
            Some(&n) => {
                debug_assert_eq!(n as usize, walk(), "the count of deck {deck}, owner {code}");
                n as usize
            }
            None => walk(),
        }
    }

    /// Records a fault at source location `loc` (the first one wins).
    #[cold]
    pub fn fault_at(&mut self, kind: FaultKind, loc: u32) {
        self.cx.raise(Fault { loc, kind });
    }
}

/// The slot an `Op::Load` / `LValue` refers to.
#[inline]
pub fn slot(env_who: usize, base: u32, fstride: u32, elem: usize) -> usize {
    base as usize + env_who * fstride as usize + elem
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_takes_each_condition_once_in_declaration_order() {
        let mut p = Pending::default();
        assert!(!p.any());
        for b in [200, 3, 64, 3, 63, 255, 0] {
            p.set(b);
        }
        assert!(p.any());
        assert_eq!(p.take().collect::<Vec<_>>(), vec![0, 3, 63, 64, 200, 255]);
        assert!(!p.any());
        assert_eq!(p.take().count(), 0);
    }
}
