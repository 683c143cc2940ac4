//! Lowering the end conditions of one timing, and the pending immediate ones, as functions
//! that say which condition held, exactly as the engine's `checks` and `pending_checks`
//! evaluate them.

use super::*;

impl Lower<'_, '_> {
    /// Lowers the end conditions `checks` of one timing, in declaration order, as one
    /// function `(env, vals) -> i64` and finishes, exactly as the engine's `checks` evaluates
    /// them with the binding it finds in `env`: a `win` or `lose` condition marks each
    /// faction still in the game it holds for (only the bound faction at the start of its
    /// turn, unless `all`); a game-ending condition is skipped once one held. Returns the
    /// reason of the first game-ending condition that held plus one, 0 when none did, or
    /// [`FAULTED`].
    pub(crate) fn finish_checks(mut self, checks: &[&Check]) {
        let given = [Off::ME, Off::BOUND, Off::TARGET].map(|o| self.env_load(types::I8, o));
        let known = given.map(|g| {
            let w = self.b.ins().uextend(I64, g);
            Some(Known::Val(self.proven(w)))
        });
        let r = self.held(checks, given, known, None);
        self.b.ins().return_(&[r]);
        self.end();
    }

    /// Lowers the immediate end conditions `checks` (all of the model's, in declaration
    /// order) as one function `(env, vals) -> i64` and finishes, as the engine's
    /// `pending_checks` runs them at the end of a statement list: those pending in the
    /// environment (bit `i` for `checks[i]`) are evaluated with nothing bound, as
    /// [`Lower::finish_checks`] does, and none is left pending. Returns what it returns.
    pub(crate) fn finish_pending(mut self, checks: &[&Check]) {
        let words = checks.len().div_ceil(64);
        let zero = self.int(0);
        let pending: Vec<Value> = (0..words)
            .map(|w| {
                let at = Off::PENDING + 8 * w as i32;
                let v = self.env_load(I64, at);
                self.env_store(zero, at);
                v
            })
            .collect();
        let guards: Vec<Value> = (0..checks.len())
            .map(|i| self.b.ins().band_imm_s(pending[i / 64], 1i64 << (i % 64)))
            .collect();
        let none = self.b.ins().iconst(types::I8, 0);
        let known = [Some(Known::Const(0)); 3];
        let r = self.held(checks, [none; 3], known, Some(&guards));
        self.b.ins().return_(&[r]);
        self.end();
    }

    /// The end conditions `checks` as [`Lower::finish_checks`] says, with `given` (the
    /// `i8` values of `[me, bound, target]`, of which `known` says what the code knows)
    /// bound for the game-ending ones: the reason of the first that held plus one, or 0.
    /// Each condition's binding is pending (stored only where a helper or a read of the
    /// binding needs it), so the environment's binding is left as it was or as a condition
    /// stored it: [`Lower::flushed`] says which may have been stored over.
    /// With `guards`, condition `i` is evaluated only when `guards[i]` is not 0.
    pub(super) fn held(
        &mut self,
        checks: &[&Check],
        given: [Value; 3],
        known: [Option<Known>; 3],
        guards: Option<&[Value]>,
    ) -> Value {
        let n = self.t.nfactions;
        let pending = self.pending;
        let end = self.b.declare_var(I64);
        let zero = self.int(0);
        self.b.def_var(end, zero);
        for (i, c) in checks.iter().enumerate() {
            let next = self.b.create_block();
            if let Some(g) = guards {
                let go = self.b.create_block();
                self.b.ins().brif(g[i], go, &[], next, &[]);
                self.b.switch_to_block(go);
            }
            match c.kind {
                CheckKind::End => {
                    let go = self.b.create_block();
                    let found = self.b.use_var(end);
                    self.b.ins().brif(found, next, &[], go, &[]);
                    self.b.switch_to_block(go);
                    self.pending = given.map(Some);
                    self.known = known;
                    let v = self.value(&c.when);
                    let held = self.truth(v);
                    let reason = self.int(i64::from(c.reason.0) + 1);
                    let was = self.b.use_var(end);
                    let now = self.b.ins().select(held, reason, was);
                    self.b.def_var(end, now);
                    self.b.ins().jump(next, &[]);
                }
                CheckKind::Win | CheckKind::Lose => {
                    let kind = if c.kind == CheckKind::Win {
                        OutcomeKind::Win
                    } else {
                        OutcomeKind::Lose
                    };
                    let mark = Stmt::Outcome {
                        kind,
                        reason: c.reason,
                    };
                    let only_bound = c.timing == Timing::At(Moment::TurnStart) && !c.all;
                    let factions: Vec<Option<u8>> = if only_bound {
                        vec![None]
                    } else {
                        (0..n).map(Some).collect()
                    };
                    for f in factions {
                        let skip = self.b.create_block();
                        let fv = match f {
                            Some(f) => self.b.ins().iconst(types::I8, f as i64),
                            None => given[ME],
                        };
                        let out = self.env_load(I32, Off::OUT);
                        let out = self.b.ins().uextend(I64, out);
                        let wide = self.b.ins().uextend(I64, fv);
                        let wide = self.proven(wide);
                        let bit = self.b.ins().ushr(out, wide);
                        let bit = self.b.ins().band_imm_s(bit, 1);
                        let go = self.b.create_block();
                        self.b.ins().brif(bit, skip, &[], go, &[]);
                        self.b.switch_to_block(go);
                        self.pending = [Some(fv); 3];
                        self.known = match f {
                            Some(f) => [Some(Known::Const(f)); 3],
                            None => [Some(Known::Val(wide)); 3],
                        };
                        let v = self.value(&c.when);
                        let held = self.truth(v);
                        let yes = self.b.create_block();
                        self.b.ins().brif(held, yes, &[], skip, &[]);
                        self.b.switch_to_block(yes);
                        self.stmt(&mark, skip);
                        self.b.switch_to_block(skip);
                    }
                    self.b.ins().jump(next, &[]);
                }
            }
            self.b.switch_to_block(next);
        }
        self.pending = pending;
        self.b.use_var(end)
    }
}
