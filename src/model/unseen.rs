//! What a formula reads that a faction may not see: the static analysis behind two of a
//! search's honesty rules.
//!
//! Owns [`unseen_read`]. A `prior` may read nothing a faction may not see (the compiler
//! refuses one that does, at the name it reads), and a searching faction's menu that reads
//! a hidden value makes its playouts keep only determinizations that list the same options
//! ([`crate::model::Model::menu_reads_unseen`]).

use super::{Var, Visible};
use crate::ir::Op;

/// Something a formula reads that some faction may not see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unseen {
    /// A variable declared `visible = "none"` or `"owner"` (its index).
    Var(u16),
    /// The current card (`card.ATTR`), which may lie in another faction's hand.
    Card,
}

/// The first thing `code` reads that some faction may not see (derived values are expanded
/// where they are read, so a derived value's reads are in the code too), or `None`.
pub fn unseen_read(code: &[Op], vars: &[Var]) -> Option<Unseen> {
    let hidden = |base: u32| {
        vars.iter()
            .position(|v| v.visible != Visible::All && v.width > 0 && v.base == base)
            .map(|i| Unseen::Var(i as u16))
    };
    code.iter().find_map(|op| match op {
        Op::Load { base, .. } | Op::LoadAt { base, .. } => hidden(*base),
        Op::CardAttr(_) => Some(Unseen::Card),
        _ => None,
    })
}
