//! Statements: running an effect list, and storing values into variables.
//!
//! Owns what one statement does to the state: assignments (with their bounds and the
//! points-by-source credit), `if`, blocks, `each` (simultaneous: every faction's value is read
//! before any is stored), `end`, and the dispatch of the statements whose mechanism has a file
//! of its own (awards, races, hands, turn order, win and lose).

use super::{Bind, Game, Halt, Step, Tracer};
use crate::expr::tree::to_int;
use crate::expr::{AssignOp, BinOp, Fault, FaultKind, LValue, Num, Stmt, simple_assign};
use crate::ids::FactionId;
use crate::ids::VarId;
use crate::state::MAX_FACTIONS;

impl<T: Tracer> Game<'_, T> {
    /// Runs an effect list, one moment: the immediate end conditions its changes trigger
    /// and its `win` and `lose` marks are settled together at its end.
    pub(super) fn run(&mut self, stmts: &[Stmt], b: Bind) -> Step {
        for s in stmts {
            if self.ended.is_some() {
                break;
            }
            // A statement run goes straight to its machine code, as `exec` would send it.
            match s {
                Stmt::Native(n) => self.native(n, b)?,
                s => self.exec(s, b)?,
            }
        }
        self.moment_end()
    }

    pub(super) fn slot(&self, lv: &LValue, b: Bind) -> usize {
        let f = match lv.who {
            crate::expr::Who::None => 0,
            crate::expr::Who::Bound => b.bound.index(),
            crate::expr::Who::Me => b.me.index(),
            crate::expr::Who::Target => b.target.index(),
            crate::expr::Who::Fixed(f) => f as usize,
        };
        let e = match lv.elem {
            crate::expr::Elem::Fixed(e) => e as usize,
            _ => 0,
        };
        crate::expr::slot(f, lv.base, lv.fstride, e)
    }

    /// The value `old op x` stores in variable `var`: a real is floored first (and must have
    /// a 64-bit integer value), `+=` and `-=` are checked, and the result is clamped to the
    /// variable's bounds.
    #[inline(always)]
    pub(super) fn store(
        &mut self,
        var: u16,
        op: AssignOp,
        old: i64,
        x: Num,
        loc: u32,
    ) -> Step<i64> {
        let k = match x {
            Num::Int(k) => k,
            Num::Real(r) => self.floored(r, var, loc)?,
        };
        let (v, bin) = match op {
            AssignOp::Set => (Some(k), BinOp::Add),
            AssignOp::Add => (old.checked_add(k), BinOp::Add),
            AssignOp::Sub => (old.checked_sub(k), BinOp::Sub),
        };
        let Some(v) = v else {
            return Err(self.fault(FaultKind::Overflow(bin, old, k), loc));
        };
        let t = &self.m.tables;
        Ok(v.clamp(t.var_min[var as usize], t.var_max[var as usize]))
    }

    /// A real to store, floored: it must have a 64-bit integer value.
    #[inline(never)]
    fn floored(&mut self, r: f64, var: u16, loc: u32) -> Step<i64> {
        match to_int(r.floor()) {
            Ok(k) => Ok(k),
            Err(_) => Err(self.fault(FaultKind::NotStorable(r, var), loc)),
        }
    }

    #[cold]
    #[inline(never)]
    pub(super) fn fault(&mut self, kind: FaultKind, loc: u32) -> Halt {
        self.halt(Fault { loc, kind })
    }

    /// Stores an assignment; returns whether the value changed.
    pub(super) fn assign(
        &mut self,
        lv: &LValue,
        op: AssignOp,
        x: Num,
        b: Bind,
        loc: u32,
    ) -> Step<bool> {
        self.assign_from(lv, op, x, b, loc, None)
    }

    /// Stores an assignment, crediting the change to `source`; returns whether it changed.
    /// Always inline: it is the body of the hottest statement, and without a source or a
    /// trace it is four lines.
    #[inline(always)]
    pub(super) fn assign_from(
        &mut self,
        lv: &LValue,
        op: AssignOp,
        x: Num,
        b: Bind,
        loc: u32,
        source: Option<u8>,
    ) -> Step<bool> {
        let slot = self.slot(lv, b);
        let old = self.env.st.vals[slot];
        let new = self.store(lv.var, op, old, x, loc)?;
        self.env.st.vals[slot] = new;
        if source.is_some() || T::ON {
            self.record(lv, op, x, b, (slot, old, new), (source, loc));
        }
        Ok(new != old)
    }

    /// Credits a stored change (`slot`, `old`, `new`) to its source and traces it, with the
    /// line of the statement that made it (`loc`) and its source.
    #[inline(never)]
    pub(super) fn record(
        &mut self,
        lv: &LValue,
        op: AssignOp,
        x: Num,
        b: Bind,
        (slot, old, new): (usize, i64, i64),
        (source, loc): (Option<u8>, u32),
    ) {
        if let Some(src) = source
            && lv.fstride != 0
        {
            let f = (slot - lv.base as usize) / lv.fstride as usize;
            self.env.credit(f, src, old, new);
        }
        if T::ON {
            let who = match lv.who {
                crate::expr::Who::None => None,
                crate::expr::Who::Bound => Some(b.bound.index()),
                crate::expr::Who::Me => Some(b.me.index()),
                crate::expr::Who::Target => Some(b.target.index()),
                crate::expr::Who::Fixed(f) => Some(f as usize),
            };
            let elem = match lv.elem {
                crate::expr::Elem::Fixed(e) => Some(e as usize),
                _ => None,
            };
            let name = self.m.slot_name(lv.var, who, elem);
            let sym = match op {
                AssignOp::Set => "=",
                AssignOp::Add => "+=",
                AssignOp::Sub => "-=",
            };
            // The operand as the store reads it (`+=` and `-=` floor it first), and the value
            // it would give before the variable's bounds.
            let k = match x {
                Num::Int(k) => k as i128,
                Num::Real(r) => r.floor() as i128,
            };
            let (shown, unbounded) = match op {
                AssignOp::Set => (x.to_string(), k),
                AssignOp::Add => (k.to_string(), old as i128 + k),
                AssignOp::Sub => (k.to_string(), old as i128 - k),
            };
            let t = &self.m.tables;
            let capped = if unbounded != new as i128 && new == t.var_max[lv.var as usize] {
                format!(", capped at {new}")
            } else if unbounded != new as i128 && new == t.var_min[lv.var as usize] {
                format!(", held at its minimum {new}")
            } else {
                String::new()
            };
            let flip = match self.m.vars[VarId(lv.var)].flip {
                Some(f) if f > 0 && new >= f => format!(", shown as {} on the +{f} side", new % f),
                _ => String::new(),
            };
            // Which statement: its line in the file, and the source it credits.
            let mut by = match self.m.locs.get(loc as usize) {
                Some(l) if l.from.is_some() => {
                    format!(" [from {}", l.from.as_deref().unwrap_or(""))
                }
                Some(l) if l.line > 0 => format!(" [line {}", l.line),
                _ => String::new(),
            };
            if let Some(src) = source {
                let tag = format!("as {}", self.m.sources[src as usize]);
                by = if by.is_empty() {
                    format!(" [{tag}]")
                } else {
                    format!("{by}, {tag}]")
                };
            } else if !by.is_empty() {
                by.push(']');
            }
            self.tracer.line(format_args!(
                "    {name} {sym} {shown} -> {new} (was {old}{capped}{flip}){by}"
            ));
        }
    }

    /// Runs one statement. Assignments, conditions and compiled runs (nearly every statement
    /// a game runs) are handled here; the rest in a separate function, so that this one stays
    /// small.
    #[inline]
    pub(super) fn exec(&mut self, s: &Stmt, b: Bind) -> Step {
        match s {
            // The common case, inline: no points-by-source tag and no trace to write.
            Stmt::Assign {
                lv,
                op,
                value,
                source: None,
            } if !T::ON => {
                let x = self.num(value, b)?;
                if self.assign_from(lv, *op, x, b, value.loc, None)? {
                    self.after_change(lv.var)?;
                }
                Ok(())
            }
            Stmt::If { cond, then, els } => {
                if self.test(cond, b)? {
                    self.exec(then, b)?;
                } else if let Some(els) = els {
                    self.exec(els, b)?;
                }
                Ok(())
            }
            // On the native engine, most statements are in one of these.
            Stmt::Native(n) => self.native(n, b),
            _ => self.exec_more(s, b),
        }
    }

    #[inline(never)]
    pub(super) fn exec_more(&mut self, s: &Stmt, b: Bind) -> Step {
        match s {
            Stmt::Assign {
                lv,
                op,
                value,
                source,
            } => {
                let x = self.num(value, b)?;
                if self.assign_from(lv, *op, x, b, value.loc, *source)? {
                    self.after_change(lv.var)?;
                }
            }
            Stmt::AssignAt(a) => {
                let k = match self.num(&a.at, b)? {
                    Num::Int(k) => k,
                    Num::Real(r) => r as i64,
                };
                let Some(lv) = a.at(k) else {
                    return Err(self.fault(FaultKind::Subscript(k, a.n), a.at.loc));
                };
                let x = self.num(&a.value, b)?;
                if self.assign_from(&lv, a.op, x, b, a.value.loc, a.source)? {
                    self.after_change(lv.var)?;
                }
            }
            Stmt::Award(a) => self.award(a, b)?,
            Stmt::Block(body) => {
                for s in body.iter() {
                    if self.ended.is_some() {
                        break;
                    }
                    self.exec(s, b)?;
                }
            }
            Stmt::Race(r) => self.race(r, b)?,
            Stmt::Title(t) => self.title(t, b)?,
            Stmt::Outcome { kind, reason } => self.mark(*kind, *reason, b),
            Stmt::If { cond, then, els } => {
                if self.test(cond, b)? {
                    self.exec(then, b)?;
                } else if let Some(els) = els {
                    self.exec(els, b)?;
                }
            }
            Stmt::Each { others, body } => self.each(*others, body, b)?,
            Stmt::End(r) => self.end(*r),
            Stmt::Draw(d, cond) => self.pick(*d, cond.as_ref(), b, crate::state::REVEALED)?,
            Stmt::Take { deck, cond } => {
                self.pick(*deck, cond.as_ref(), b, crate::state::held_by(b.bound.0))?
            }
            Stmt::ForHeld { deck, body } => self.for_held(*deck, body, b)?,
            Stmt::Discard => self.discard(),
            Stmt::Complete => self.complete(b),
            Stmt::Order { lv, keys } => self.order_stmt(lv, keys, b)?,
            Stmt::Regions(r) => self.regions(r, b)?,
            Stmt::Pass { deck, dir } => self.pass(*deck, *dir),
            Stmt::Native(n) => self.native(n, b)?,
        }
        Ok(())
    }

    /// Runs statements compiled to one machine-code function, which runs the immediate
    /// checks of what it changes itself and returns when one of them ends the game. A trace
    /// runs the statements one by one, as the interpreter does, so that it tells every
    /// store.
    #[inline(never)]
    pub(super) fn native(&mut self, n: &crate::expr::NativeRun, b: Bind) -> Step {
        use crate::runtime::abi::Ran;
        if T::ON || !n.compiled() {
            for s in n.stmts.iter() {
                if self.ended.is_some() {
                    break;
                }
                self.exec(s, b)?;
            }
            return Ok(());
        }
        self.bind(b);
        match n.call(&mut self.env) {
            Ran::Done => Ok(()),
            Ran::Faulted => Err(Halt),
            Ran::Held(r) => {
                self.end(r);
                Ok(())
            }
        }
    }

    /// `each`: every faction's condition and value are evaluated against the state before any
    /// assignment is made, so "all tied leaders gain 1" is simultaneous.
    #[inline(never)]
    pub(super) fn each(&mut self, others: bool, body: &Stmt, b: Bind) -> Step {
        let n = self.m.nfactions();
        let outer = b.bound.0;
        let Some((lv, op, value, source)) = simple_assign(body) else {
            for f in 0..n as u8 {
                if (others && f == outer) || self.ended.is_some() {
                    continue;
                }
                self.exec(
                    body,
                    Bind {
                        bound: FactionId(f),
                        ..b
                    },
                )?;
            }
            return Ok(());
        };
        let mut planned = [None::<Num>; MAX_FACTIONS];
        for f in 0..n as u8 {
            if others && f == outer {
                continue;
            }
            planned[f as usize] = self.plan(
                body,
                Bind {
                    bound: FactionId(f),
                    ..b
                },
            )?;
        }
        let mut changed = false;
        for f in 0..n as u8 {
            if let Some(x) = planned[f as usize] {
                changed |= self.assign_from(
                    lv,
                    op,
                    x,
                    Bind {
                        bound: FactionId(f),
                        ..b
                    },
                    value.loc,
                    source,
                )?;
            }
        }
        if changed {
            self.after_change(lv.var)?;
        }
        Ok(())
    }

    pub(super) fn plan(&mut self, s: &Stmt, b: Bind) -> Step<Option<Num>> {
        match s {
            Stmt::If { cond, then, els } => {
                if self.test(cond, b)? {
                    self.plan(then, b)
                } else if let Some(els) = els {
                    self.plan(els, b)
                } else {
                    Ok(None)
                }
            }
            Stmt::Assign { value, .. } => Ok(Some(self.num(value, b)?)),
            _ => Ok(None),
        }
    }

    /// `regions KEY into SIZE [label LABEL]` for the faction in scope: the grid's regions
    /// measured in place; SIZE's and LABEL's immediate end conditions pending if either
    /// changed.
    fn regions(&mut self, r: &crate::expr::Regions, b: Bind) -> Step {
        let (size, label) = (r.size, r.label);
        let t = &self.m.tables;
        let bounds = |lv: Option<LValue>| {
            lv.map_or((0, 0), |l| {
                (t.var_min[l.var as usize], t.var_max[l.var as usize])
            })
        };
        let g = crate::runtime::regions::Grid {
            key: self.slot(&r.key, b),
            size: self.slot(&size, b),
            label: label.map(|l| self.slot(&l, b)),
            rows: r.rows as usize,
            cols: r.cols as usize,
            size_bounds: bounds(Some(size)),
            label_bounds: bounds(label),
            watch: [Some(size), label]
                .iter()
                .flatten()
                .any(|l| !self.m.immediate_by_var[l.var as usize].is_empty()),
        };
        if crate::runtime::regions::measure(&mut self.env.st.vals, &g) {
            self.after_change(size.var)?;
            if let Some(l) = label {
                self.after_change(l.var)?;
            }
        }
        if T::ON {
            let name = |lv: &LValue| self.m.vars[VarId(lv.var)].name.clone();
            self.tracer.line(format_args!(
                "    regions of {} measured into {}{}",
                name(&r.key),
                name(&size),
                label.map_or(String::new(), |l| format!(" and {}", name(&l)))
            ));
        }
        Ok(())
    }
}
