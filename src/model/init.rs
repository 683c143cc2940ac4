//! How setup fills a game's state: which initial values are constants (copied from a
//! template) and which are evaluated each game.
//!
//! Owns [`InitPlan`], which the engine's setup follows and the native backend compiles.

use super::Model;
use crate::ir::{Num, Op};

/// How setup fills the state: a template of the constant initial values, and the (variable,
/// owner) pairs whose initial value must be evaluated each game, in declaration order.
#[derive(Debug, Default)]
pub(crate) struct InitPlan {
    /// Every slot, constant values in place; `None` when an evaluated initial value reads a
    /// variable declared at or after its own (which must then still read 0), so setup
    /// evaluates everything in order.
    pub(crate) template: Option<Vec<i64>>,
    /// The (variable, owner) pairs evaluated each game, in declaration order.
    pub(crate) dynamic: Vec<(u16, u8)>,
}

impl InitPlan {
    pub(crate) fn new(m: &Model) -> InitPlan {
        let mut template = vec![0i64; m.slots];
        let mut dynamic = Vec::new();
        let mut ordered = true;
        for (vi, v) in m.vars.iter().enumerate() {
            let owners = if v.faction { m.nfactions() } else { 1 };
            for f in 0..owners {
                let init = v.init_of(f);
                let (lo, hi) = (m.tables.var_min[vi], m.tables.var_max[vi]);
                let k = match init.as_const_num() {
                    Some(Num::Int(k)) => Some(k),
                    Some(Num::Real(r)) => crate::expr::tree::to_int(r.floor()).ok(),
                    None => None,
                };
                match k {
                    Some(k) => {
                        for e in 0..v.width {
                            template[(v.base + f as u32 * v.fstride + e) as usize] =
                                k.clamp(lo, hi);
                        }
                    }
                    None => {
                        dynamic.push((vi as u16, f as u8));
                        ordered &= init.code().iter().all(|op| match op {
                            Op::Load { base, .. } | Op::LoadAt { base, .. } => *base < v.base,
                            _ => true,
                        });
                    }
                }
            }
        }
        InitPlan {
            template: ordered.then_some(template),
            dynamic,
        }
    }

    /// The (variable, owner) pairs setup evaluates after it copies the template, in order;
    /// none when there is no template (setup then evaluates every initial value).
    pub(crate) fn evaluated(&self) -> Option<&[(u16, u8)]> {
        self.template.as_ref().map(|_| &self.dynamic[..])
    }
}
