//! An action as the engine runs it: who may take it, when, at what cost, how agents weigh
//! it, its target and its effects, and whether the rules take it automatically.

use crate::expr::{Expr, LValue, Stmt};

/// An action.
#[derive(Debug, Clone)]
pub struct Action {
    /// Name.
    pub name: String,
    /// Bit mask of factions allowed to take it.
    pub allowed: u32,
    /// Availability.
    pub when: Option<Expr>,
    /// Costs: variable and amount.
    pub cost: Vec<(LValue, Expr)>,
    /// Weight (weighted policy).
    pub weight: Expr,
    /// Value (greedy policy).
    pub value: Expr,
    /// Takes a target faction.
    pub targeted: bool,
    /// Target eligibility.
    pub target_when: Option<Expr>,
    /// Statements.
    pub effects: Vec<Stmt>,
    /// `auto = true`: the action's group (its `[[action]]` table's index; a template's
    /// copies share it). At the end of each of a faction's turns in a phase with actions,
    /// when any option of the group is available, the faction takes exactly one, chosen by
    /// its agent, outside the turn's decisions. Never on a menu of ordinary actions.
    pub auto: Option<u16>,
}
