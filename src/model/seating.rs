//! Whether the seating can change a game: what `--rotate-seats` can move.
//!
//! Owns [`Model::seat_uses`], the places where a game reads the seating: the default turn
//! order of a faction phase, a tie among order keys (turn order, an `order` statement or a
//! race's completers, all broken by seat), `table_seat` in a formula, and hands passed
//! along the table. A model with none plays every game alike however the factions sit, so
//! a rotated run is the unrotated one and its seat table says nothing (`seat` is the
//! faction's number, which rotation does not move).
//!
//! Keys never tie when one of them is `random()` (two draws are equal with probability
//! 2^-53, treated as never), `seat`, or a faction variable that always holds a permutation
//! of the factions: one only ever written by `order` statements whose keys never tie, and
//! that starts as `seat` or is ordered, before any phase reads it as a key, by an `order`
//! at the top of an earlier phase that always runs.

use crate::ids::VarId;
use std::collections::BTreeSet;

use super::Model;
use crate::expr::{Expr, Op, RandFn, Stmt};

/// A place where the seating can change a game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeatUse {
    /// A faction phase with no `order` plays its turns in seat order.
    SeatOrder(String),
    /// A faction phase's order keys may tie (ties go by seat).
    PhaseKeys(String),
    /// An `order` statement's keys may tie (ties go by seat).
    OrderKeys(String),
    /// A race's key may tie among factions completing at one moment (ties go by seat).
    RaceKey(String),
    /// A formula reads `table_seat`.
    TableSeat,
    /// Hands of this deck are passed along the table.
    Pass(String),
}

impl std::fmt::Display for SeatUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SeatUse::SeatOrder(p) => write!(f, "phase {p} plays its turns in seat order"),
            SeatUse::PhaseKeys(p) => write!(f, "phase {p}'s turn order keys may tie"),
            SeatUse::OrderKeys(v) => write!(f, "`order {v} by ...`'s keys may tie"),
            SeatUse::RaceKey(v) => write!(f, "the race for {v} may complete factions tied"),
            SeatUse::TableSeat => write!(f, "a formula reads table_seat"),
            SeatUse::Pass(d) => write!(f, "hands of {d} are passed along the table"),
        }
    }
}

impl Model {
    /// Every place where the seating can change a game, in a fixed order (empty: rotating
    /// the seats changes no game). See the module's doc for what counts.
    pub fn seat_uses(&self) -> Vec<SeatUse> {
        let mut uses = Vec::new();
        for p in self.phases_in_file_order().filter(|p| p.faction) {
            if p.order.is_empty() {
                uses.push(SeatUse::SeatOrder(p.name.clone()));
            } else if !self.keys_never_tie(&p.order, Some(&p.name), &mut BTreeSet::new()) {
                uses.push(SeatUse::PhaseKeys(p.name.clone()));
            }
        }
        let mut seen = BTreeSet::new();
        for s in self.statements() {
            s.visit(&mut |s| match s {
                Stmt::Order { lv, keys }
                    if !self.keys_never_tie(keys, None, &mut BTreeSet::new()) =>
                {
                    let name = &self.vars[VarId(lv.var)].name;
                    if seen.insert(format!("order {name}")) {
                        uses.push(SeatUse::OrderKeys(name.clone()));
                    }
                }
                Stmt::Race(r)
                    if !self.keys_never_tie(
                        std::slice::from_ref(&r.key),
                        None,
                        &mut BTreeSet::new(),
                    ) =>
                {
                    let name = &self.vars[VarId(r.lv.var)].name;
                    if seen.insert(format!("race {name}")) {
                        uses.push(SeatUse::RaceKey(name.clone()));
                    }
                }
                Stmt::Pass { deck, .. } => {
                    let name = &self.decks[*deck as usize].0;
                    if seen.insert(format!("pass {name}")) {
                        uses.push(SeatUse::Pass(name.clone()));
                    }
                }
                _ => {}
            });
        }
        let mut table_seat = false;
        self.clone().exprs_mut(&mut |e: &mut Expr| {
            table_seat |= e.code().iter().any(|op| matches!(op, Op::TableSeat(_)));
        });
        if table_seat {
            uses.push(SeatUse::TableSeat);
        }
        uses
    }

    /// Whether two factions can never have equal `keys` (compared as a whole): one key
    /// never ties. `phase` names the faction phase whose turn order they are; `open` holds
    /// the variables being proved (a cycle proves nothing).
    fn keys_never_tie(&self, keys: &[Expr], phase: Option<&str>, open: &mut BTreeSet<u16>) -> bool {
        keys.iter().any(|k| match k.code() {
            [Op::Rand(RandFn::Random, 0)] | [Op::Seat(_)] => true,
            _ => k.own_var().is_some_and(|(base, _)| {
                let v = self.vars.iter().position(|v| v.faction && v.base == base);
                v.is_some_and(|v| self.permutation(v as u16, phase, open))
            }),
        })
    }

    /// Whether faction variable `v` holds a permutation of the factions wherever it is
    /// read as a key of `phase`'s turn order (`None`: anywhere).
    fn permutation(&self, v: u16, phase: Option<&str>, open: &mut BTreeSet<u16>) -> bool {
        if !open.insert(v) {
            return false;
        }
        let mut only_ordered = true;
        for s in self.statements() {
            s.visit(&mut |s| {
                let ok = match s {
                    Stmt::Order { lv, keys } if lv.var == v => {
                        self.keys_never_tie(keys, None, &mut open.clone())
                    }
                    _ => !writes(s, v),
                };
                only_ordered &= ok;
            });
        }
        let var = &self.vars[VarId(v)];
        let starts_as_seat =
            matches!(var.init.code(), [Op::Seat(_)]) && var.init_for.iter().all(Option::is_none);
        let ordered_before = phase.is_some_and(|name| self.ordered_before(v, name));
        open.remove(&v);
        only_ordered && (starts_as_seat || ordered_before)
    }

    /// Whether an `order V by ...` at the top of a round's phase that always runs (no `when`)
    /// comes before phase `name` in every round.
    fn ordered_before(&self, v: u16, name: &str) -> bool {
        let Some(at) = self.phases_in_file_order().find(|p| p.name == name) else {
            return false;
        };
        self.phases.iter().filter(|p| p.place < at.place).any(|p| {
            p.when.is_none()
                && (p.before.iter().chain(&p.effects))
                    .flat_map(|s| match s {
                        // A machine-code run keeps its statements, in order.
                        Stmt::Native(n) => n.stmts.iter().collect(),
                        s => vec![s],
                    })
                    .any(|s| matches!(s, Stmt::Order { lv, .. } if lv.var == v))
        })
    }
}

/// Whether statement `s` itself (not its nested statements) writes variable `v`.
fn writes(s: &Stmt, v: u16) -> bool {
    match s {
        Stmt::Assign { lv, .. } | Stmt::Order { lv, .. } => lv.var == v,
        Stmt::Award(a) => a.lv.var == v,
        Stmt::AssignAt(a) => a.lv.var == v,
        Stmt::Race(r) => [r.lv.var, r.done.var, r.count.var].contains(&v),
        Stmt::Title(t) => t.lv.var == v,
        Stmt::Regions(r) => r.size.var == v || r.label.is_some_and(|l| l.var == v),
        _ => false,
    }
}
