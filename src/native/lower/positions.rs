//! Lowering positions in a set: a computed subscript's checked read (`wall[it + 1]`) and a
//! grid's `row`, `col` and `cell`, each as the reference in `expr::tree` computes it.

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
        self.unless(bad, v, I64, |l| {
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
}
