//! Lowering the random draws of the formula language exactly as the reference makes them
//! from the game's stream: the next 64-bit draw read inline from the stream's buffer,
//! `random()`, `bernoulli(p)`, a few dice, and the other distributions by helpers.

use super::*;

impl Lower<'_, '_> {
    /// `bernoulli(p)`, exactly as the reference draws it (`rand`'s `Bernoulli`): for `p` in
    /// [0, 1), one 64-bit word below `p * 2^64` (truncated) is a success. That common case
    /// runs inline, reading the word from the stream's buffer; `p` of 1 is a success with no
    /// draw, inline too; only the faulting cases call the reference helper, on a rare path.
    pub(super) fn bernoulli(&mut self, p: Value, loc: Value) -> Value {
        // 2^64, the scale `rand` uses.
        let scale = 2.0 * (1u64 << 63) as f64;
        if let Some(c) = self.const_real(p).filter(|c| (0.0..1.0).contains(c)) {
            // A constant probability: its bound is known here (`as` saturates as
            // `fcvt_to_uint_sat` does), so the draw is one compare.
            let bound = self.int((c * scale) as u64 as i64);
            let hit = self.draw_below(bound);
            return self.bool_int(hit);
        }
        let env = self.env;
        let (draw, other, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        // The outcome is merged as an `i8` truth, so that an `if` on it branches on it
        // directly (`Lower::bool_int`).
        self.b.append_block_param(done, types::I8);
        let (zero, one) = (self.real(0.0), self.real(1.0));
        let lo = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, p, zero);
        let hi = self.b.ins().fcmp(FloatCC::LessThan, p, one);
        let inside = self.b.ins().band(lo, hi);
        self.b.ins().brif(inside, draw, &[], other, &[]);
        self.b.set_cold_block(other);
        self.b.switch_to_block(other);
        // 1 exactly is a success with no draw (as `rand`'s `Bernoulli` has it); anything
        // else outside 0 to 1 is the helper's fault, on a rare path.
        let (certain, fault) = (self.b.create_block(), self.b.create_block());
        let sure = self.b.ins().fcmp(FloatCC::Equal, p, one);
        self.b.ins().brif(sure, certain, &[], fault, &[]);
        self.b.switch_to_block(certain);
        let yes = self.b.ins().iconst(types::I8, 1);
        self.b.ins().jump(done, &[BlockArg::Value(yes)]);
        self.b.set_cold_block(fault);
        self.b.switch_to_block(fault);
        let faulty = self.faulty;
        let v = self.rarely(|l| {
            l.call(
                h::bernoulli as *const () as usize,
                &[l.ptr, F64, I32],
                Some(I64),
                &[env, p, loc],
            )
        });
        // Every `p` that reaches the helper is a fault it records (and no draw).
        let v = self.b.ins().ireduce(types::I8, v);
        self.fault_or_join(faulty, 1, done, v);
        self.b.switch_to_block(draw);
        let scale = self.real(scale);
        let scaled = self.b.ins().fmul(p, scale);
        let bound = self.b.ins().fcvt_to_uint_sat(I64, scaled);
        let v = self.draw_below(bound);
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(done);
        let hit = self.b.block_params(done)[0];
        self.bool_int(hit)
    }

    /// Whether the next 64-bit draw is below `bound` (an `i8` truth): a `bernoulli` success.
    fn draw_below(&mut self, bound: Value) -> Value {
        let word = self.word();
        self.b.ins().icmp(IntCC::UnsignedLessThan, word, bound)
    }

    /// `NdS` for at most [`INLINE_DICE`] dice, inline, exactly as the reference throws them (`rand`'s
    /// `random_range(1..=S)` on `u64`): each die is [`Lower::below`] `S`, plus one.
    pub(super) fn dice(&mut self, n: u32, s: u32) -> Value {
        let sv = self.int(s as i64);
        let mut total = self.int(n as i64);
        for _ in 0..n {
            let (die, _) = self.below(sv);
            total = self.b.ins().iadd(total, die);
        }
        total
    }

    /// `uniform(a, b)` of integers inline, exactly as the reference draws it (`rand`'s
    /// `random_range(a..=b)` on `i64`): `a` plus [`Lower::below`] the range's size, or the
    /// first word itself when the range is every integer (its size wraps to 0). An empty
    /// range (`a > b`) is the helper's fault, with no draw, on a rare path.
    pub(super) fn uniform(&mut self, a: Value, b: Value, loc: Value) -> Value {
        let (cold, go, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.append_block_param(done, I64);
        let empty = self.b.ins().icmp(IntCC::SignedGreaterThan, a, b);
        self.b.set_cold_block(cold);
        self.b.ins().brif(empty, cold, &[], go, &[]);
        self.b.switch_to_block(cold);
        let (env, faulty) = (self.env, self.faulty);
        let v = self.rarely(|l| {
            l.call(
                h::uniform as *const () as usize,
                &[l.ptr, I64, I64, I32],
                Some(I64),
                &[env, a, b, loc],
            )
        });
        // The helper records the fault (and draws nothing).
        self.fault_or_join(faulty, 1, done, v);
        self.b.switch_to_block(go);
        let size = self.b.ins().isub(b, a);
        let size = self.b.ins().iadd_imm_s(size, 1);
        let (k, word) = self.below(size);
        let v = self.b.ins().iadd(a, k);
        let every = self.b.ins().icmp_imm_s(IntCC::Equal, size, 0);
        let v = self.b.ins().select(every, word, v);
        self.b.ins().jump(done, &[BlockArg::Value(v)]);
        self.b.switch_to_block(done);
        self.b.block_params(done)[0]
    }

    /// A draw below `size` (taken as unsigned) as `rand`'s `random_range` on `u64` makes it,
    /// the widening-multiply method: the high word of a 64-bit draw times `size`; when the
    /// low word falls in the biased zone (above `2^64 - size`), a second draw's high word
    /// decides whether it carries. Returns it and the first word drawn.
    fn below(&mut self, size: Value) -> (Value, Value) {
        let zone = self.b.ins().ineg(size);
        let w = self.word();
        let hi = self.b.ins().umulhi(w, size);
        let lo = self.b.ins().imul(w, size);
        let (again, done) = (self.b.create_block(), self.b.create_block());
        self.b.append_block_param(done, I64);
        let biased = self.b.ins().icmp(IntCC::UnsignedGreaterThan, lo, zone);
        self.b.set_cold_block(again);
        self.b
            .ins()
            .brif(biased, again, &[], done, &[BlockArg::Value(hi)]);
        self.b.switch_to_block(again);
        let w2 = self.word();
        let hi2 = self.b.ins().umulhi(w2, size);
        let sum = self.b.ins().iadd(lo, hi2);
        let carry = self.b.ins().icmp(IntCC::UnsignedLessThan, sum, lo);
        let carry = self.b.ins().uextend(I64, carry);
        let up = self.b.ins().iadd(hi, carry);
        self.b.ins().jump(done, &[BlockArg::Value(up)]);
        self.b.switch_to_block(done);
        (self.b.block_params(done)[0], w)
    }

    /// The instruction that makes `v`, unless `v` is a block's parameter.
    fn made_by(&self, v: Value) -> Option<InstructionData> {
        let dfg = &self.b.func.dfg;
        Some(dfg.insts[dfg.value_def(v).inst()?])
    }

    /// The value of `v` when the code makes it an integer constant (an `i64` `iconst`).
    pub(super) fn const_int(&self, v: Value) -> Option<i64> {
        match self.made_by(v)? {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } if self.b.func.dfg.value_type(v) == I64 => Some(imm.bits()),
            _ => None,
        }
    }

    /// The value of `v` when the code makes it a real constant (an `f64const`).
    pub(super) fn const_real(&self, v: Value) -> Option<f64> {
        match self.made_by(v)? {
            InstructionData::UnaryIeee64 {
                opcode: Opcode::F64const,
                imm,
            } => Some(f64::from_bits(imm.bits())),
            _ => None,
        }
    }

    /// The stream's next 64-bit draw, as [`crate::rng::Rng`] makes it: SplitMix64's step
    /// and output function, inline (about ten instructions, no branch).
    pub(super) fn word(&mut self) -> Value {
        let s = self.env_load(I64, Off::RNG_STATE);
        let s = self.b.ins().iadd_imm_s(s, crate::rng::GAMMA as i64);
        self.env_store(s, Off::RNG_STATE);
        self.mix64(s)
    }

    /// [`crate::rng::mix64`] of `z`.
    fn mix64(&mut self, z: Value) -> Value {
        let t = self.b.ins().ushr_imm_u(z, 30);
        let z = self.b.ins().bxor(z, t);
        let z = self.b.ins().imul_imm_s(z, 0xbf58_476d_1ce4_e5b9_u64 as i64);
        let t = self.b.ins().ushr_imm_u(z, 27);
        let z = self.b.ins().bxor(z, t);
        let z = self.b.ins().imul_imm_s(z, 0x94d0_49bb_1331_11eb_u64 as i64);
        let t = self.b.ins().ushr_imm_u(z, 31);
        self.b.ins().bxor(z, t)
    }

    /// Begins part `id` (an `i64`) of the game's stream, as [`crate::rng::Rng::seek`].
    pub(super) fn seek(&mut self, id: Value) {
        self.env_store(id, Off::RNG_SEG);
        let key = self.env_load(I64, Off::RNG_KEY);
        let off = self.b.ins().imul_imm_s(id, crate::rng::SEG_MUL as i64);
        let s = self.b.ins().iadd(key, off);
        self.env_store(s, Off::RNG_STATE);
    }

    /// Begins part `p` of the current decision, as [`crate::rng::Rng::seek_part`].
    pub(super) fn seek_part(&mut self, p: u64) {
        let seg = self.env_load(I64, Off::RNG_SEG);
        let id = self
            .b
            .ins()
            .band_imm_s(seg, !crate::rng::part::PART_MASK as i64);
        let id = self.b.ins().bor_imm_s(id, p as i64);
        self.seek(id);
    }

    /// The id of a part of this round ([`crate::rng::part::id`]): the round read from the
    /// state; `who` and `step` each a value (an `i64`) or a constant; `place` and `part`
    /// constants.
    pub(super) fn part_id(
        &mut self,
        place: u64,
        who: Result<Value, u64>,
        step: Result<Value, u64>,
        part: u64,
    ) -> Value {
        let round = self.env_load(I64, Off::ROUND);
        let r = self.b.ins().ishl_imm_u(round, 44);
        let fixed = crate::rng::part::id(
            0,
            place,
            who.err().unwrap_or(0),
            step.err().unwrap_or(0),
            part,
        );
        let mut id = self.b.ins().bor_imm_s(r, fixed as i64);
        if let Ok(f) = who {
            let w = self.b.ins().band_imm_s(f, 0xff);
            let w = self.b.ins().ishl_imm_u(w, 24);
            id = self.b.ins().bor(id, w);
        }
        if let Ok(k) = step {
            let k = self.b.ins().band_imm_s(k, 0xf_ffff);
            let k = self.b.ins().ishl_imm_u(k, 4);
            id = self.b.ins().bor(id, k);
        }
        id
    }

    /// Begins the part of this round [`Lower::part_id`] names.
    pub(super) fn seek_to(
        &mut self,
        place: u64,
        who: Result<Value, u64>,
        step: Result<Value, u64>,
        part: u64,
    ) {
        let id = self.part_id(place, who, step, part);
        self.seek(id);
    }

    /// `random()`: a uniform real in [0, 1) as `rand` makes it from one 64-bit draw (its
    /// top 53 bits times 2^-53).
    pub(super) fn unit(&mut self) -> Value {
        let w = self.word();
        let top = self.b.ins().ushr_imm_u(w, 11);
        // Below 2^53, so converted exactly as a signed integer (the unsigned conversion
        // would add a test for values of 2^63 and more).
        let x = self.b.ins().fcvt_from_sint(F64, top);
        let scale = self.real(1.0 / (1u64 << 53) as f64);
        self.b.ins().fmul(x, scale)
    }

    pub(super) fn rand(&mut self, f: RandFn, args: &[Node], ty: Ty) -> V {
        let vs: Vec<V> = args.iter().map(|a| self.node(a)).collect();
        let env = self.env;
        let l = self.i32c(self.loc);
        match f {
            RandFn::Bernoulli if vs.len() == 1 => {
                let p = self.as_real(vs[0]);
                return V {
                    v: self.bernoulli(p, l),
                    ty: Ty::Int,
                };
            }
            RandFn::Uniform if vs.len() == 2 && vs.iter().all(|v| v.ty == Ty::Int) => {
                let v = self.uniform(vs[0].v, vs[1].v, l);
                return V { v, ty: Ty::Int };
            }
            RandFn::Random => {
                let v = self.unit();
                return V { v, ty: Ty::Real };
            }
            _ => {}
        }
        let mut reals = 0u64;
        for (i, v) in vs.iter().enumerate() {
            if v.ty == Ty::Real {
                reals |= 1 << i;
            }
            self.b
                .ins()
                .store(MemFlagsData::trusted(), v.v, env, Off::ARGS + 8 * i as i32);
        }
        let fc = self.i32c(code_of(&RAND_FNS, f));
        let n = self.i32c(vs.len() as u32);
        let reals = self.int(reals as i64);
        let real = self.i32c((ty == Ty::Real) as u32);
        let bits = self.call(
            h::rand as *const () as usize,
            &[self.ptr, I32, I32, I64, I32, I32],
            Some(I64),
            &[env, fc, n, reals, real, l],
        );
        match ty {
            Ty::Int => V {
                v: bits,
                ty: Ty::Int,
            },
            Ty::Real => V {
                v: self.b.ins().bitcast(F64, MemFlagsData::new(), bits),
                ty: Ty::Real,
            },
        }
    }
}

/// Dice thrown inline by one `NdS` at most (more call the reference helper): a bound on the
/// code one formula makes.
pub(super) const INLINE_DICE: u32 = 4;
