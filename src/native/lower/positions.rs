//! Lowering positions in a set: a computed subscript's checked read (`wall[it + 1]`) and
//! write (`pile[k] += 1`), a grid's `row`, `col` and `cell`, each as the reference in
//! `expr::tree` computes it, and `regions` over a grid.

use super::*;

impl Lower<'_, '_> {
    /// A computed subscript's read: the position `i` is checked against `1..=n`; outside,
    /// a helper on a cold path records the fault and yields 0. The slot's address is
    /// computed at run time and checked like a bound element's ([`Lower::slot_addr`]).
    pub(super) fn load_at(&mut self, base: u32, fs: u32, who: Who, n: u16, i: &Node) -> Value {
        let i = self.node(i).v;
        if self.slots == 0 {
            return self.int(0);
        }
        let k = self.b.ins().iadd_imm_s(i, -1);
        let bad = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, k, n as i64);
        let zero = self.int(0);
        let k = self.b.ins().select(bad, zero, k);
        let w = self.who(who);
        let row = self.b.ins().imul_imm_s(w, fs as i64);
        let idx = self.b.ins().iadd(row, k);
        let idx = self.b.ins().iadd_imm_s(idx, base as i64);
        let addr = self.slot_addr(idx);
        let v = self.b.ins().load(I64, MemFlagsData::trusted(), addr, 0);
        self.unless_fault(bad, v, I64, |l| {
            let (env, n, loc) = (l.env, l.i32c(n as u32), l.i32c(l.loc));
            l.call(
                h::subscript as *const () as usize,
                &[l.ptr, I64, I32, I32],
                Some(I64),
                &[env, i, n, loc],
            )
        })
    }

    /// `row`, `col` or `cell` of a grid, as [`crate::expr::tree::grid`] computes it (the
    /// grid's size is the last two arguments, constants): 0 off the grid, by selects.
    pub(super) fn grid(&mut self, f: Func, a: &[Value]) -> Value {
        let zero = self.int(0);
        let inside = |l: &mut Self, x: Value, hi: Value| {
            let lo = l.b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, x, 1);
            let hi = l.b.ins().icmp(IntCC::SignedLessThanOrEqual, x, hi);
            l.b.ins().band(lo, hi)
        };
        if f == Func::Cell {
            let (r, c, rows, cols) = (a[0], a[1], a[2], a[3]);
            let ok = inside(self, r, rows);
            let ok_c = inside(self, c, cols);
            let ok = self.b.ins().band(ok, ok_c);
            let r0 = self.b.ins().iadd_imm_s(r, -1);
            let at = self.b.ins().imul(r0, cols);
            let at = self.b.ins().iadd(at, c);
            return self.b.ins().select(ok, at, zero);
        }
        let (i, rows, cols) = (a[0], a[1], a[2]);
        let size = self.b.ins().imul(rows, cols);
        let ok = inside(self, i, size);
        // A column count of 0 never reaches here (a grid has one); 1 stands in off the grid.
        let i0 = self.b.ins().iadd_imm_s(i, -1);
        let i0 = self.b.ins().select(ok, i0, zero);
        let v = if f == Func::Row {
            self.b.ins().sdiv(i0, cols)
        } else {
            self.b.ins().srem(i0, cols)
        };
        let v = self.b.ins().iadd_imm_s(v, 1);
        self.b.ins().select(ok, v, zero)
    }

    /// `var[at] op value` at a position computed while playing, as the engine runs it: the
    /// position first (outside the set, the computed subscript's fault), then the value,
    /// stored and credited as [`Lower::assign`] does.
    pub(super) fn assign_at(&mut self, a: &crate::expr::AssignAt, next: Block) {
        let at = self.value(&a.at).v;
        let k = self.b.ins().iadd_imm_s(at, -1);
        let bad = self
            .b
            .ins()
            .icmp_imm_s(IntCC::UnsignedGreaterThanOrEqual, k, a.n as i64);
        let (cold, go) = (self.b.create_block(), self.b.create_block());
        self.b.set_cold_block(cold);
        self.b.ins().brif(bad, cold, &[], go, &[]);
        self.b.switch_to_block(cold);
        let (env, n, loc) = (self.env, self.i32c(a.n as u32), self.i32c(a.at.loc));
        self.rarely(|l| {
            l.call(
                h::subscript as *const () as usize,
                &[l.ptr, I64, I32, I32],
                Some(I64),
                &[env, at, n, loc],
            )
        });
        self.faulty = false;
        let ret = self.fault_block();
        self.b.ins().jump(ret, &[]);
        self.b.switch_to_block(go);
        let x = self.value(&a.value);
        let lv = &a.lv;
        let x = self.storable(lv, x);
        let w = self.who(lv.who);
        let row = self.b.ins().imul_imm_s(w, lv.fstride as i64);
        let idx = self.b.ins().iadd(row, k);
        let idx = self.b.ins().iadd_imm_s(idx, lv.base as i64);
        let addr = self.slot_addr(idx);
        let (v, old) = self.store_in(lv, (addr, 0), a.op, x);
        self.credit(lv, a.source, v, old);
        if self.hooked(lv.var) {
            let changed = self.b.ins().icmp(IntCC::NotEqual, v, old);
            self.after_change(changed, lv.var, next);
        } else {
            self.b.ins().jump(next, &[]);
        }
    }

    /// `regions KEY into SIZE [label LABEL]` through the engine's own labelling (a helper:
    /// a union-find over the grid's slots), then SIZE's and LABEL's immediate end
    /// conditions noted when either changed.
    pub(super) fn regions(&mut self, r: &crate::expr::Regions, next: Block) {
        let first = |l: &mut Self, lv: &LValue| {
            let w = l.who(lv.who);
            let row = l.b.ins().imul_imm_s(w, lv.fstride as i64);
            l.b.ins().iadd_imm_s(row, lv.base as i64)
        };
        let (key, size) = (first(self, &r.key), first(self, &r.size));
        let label = match &r.label {
            Some(l) => first(self, l),
            None => self.int(-1),
        };
        let shape = self.int((r.rows as i64) << 16 | r.cols as i64);
        let label_var = r.label.map_or(r.size.var, |l| l.var);
        let watch = self.hooked(r.size.var) || self.hooked(label_var);
        let vars = self.int((watch as i64) << 32 | (label_var as i64) << 16 | r.size.var as i64);
        let (env, faulty) = (self.env, self.faulty);
        let changed = self.call(
            h::regions as *const () as usize,
            &[self.ptr, I64, I64, I64, I64, I64],
            Some(I64),
            &[env, key, size, label, shape, vars],
        );
        // The labelling never faults.
        self.faulty = faulty;
        let changed = self.b.ins().icmp_imm_s(IntCC::NotEqual, changed, 0);
        match r.label {
            Some(l) if self.hooked(l.var) => {
                let mid = self.b.create_block();
                self.after_change(changed, r.size.var, mid);
                self.b.switch_to_block(mid);
                self.after_change(changed, l.var, next);
            }
            _ => self.after_change(changed, r.size.var, next),
        }
    }
}
