//! Calls from generated code to the helpers of [`crate::native::helpers`], and the faults
//! they record.
//!
//! Owns how a helper is called: directly in the host's convention (with one imported
//! signature per shape), or, on a path that runs rarely if ever, through a trampoline that
//! preserves every register ([`trampoline`]); the exit after code that called a helper,
//! which returns [`FAULTED`](super::FAULTED) when one recorded a fault; and how a function
//! leaves with its code (a turn lowered inline jumps to its round's continuation).

use std::collections::HashMap;

use cranelift_codegen::ir::{
    AbiParam, Block, BlockArg, ExtFuncData, ExternalName, InstBuilder, MemFlagsData, Signature,
    Type, UserExternalName, Value, types,
};
use cranelift_codegen::isa::{CallConv, TargetFrontendConfig};
use cranelift_frontend::FunctionBuilder;
use cranelift_module::{FuncId, Module};

use super::{I64, Lower, Off};

/// A helper as a cold path calls it: its address, parameter types (the environment
/// first) and result type.
pub(in crate::native) type ColdKey = (usize, Vec<Type>, Option<Type>);

/// The trampolines of a module: one function for each helper a cold path calls, declared
/// with a calling convention that preserves every register (see [`trampoline`]).
#[derive(Default)]
pub(in crate::native) struct Trampolines {
    ids: HashMap<ColdKey, FuncId>,
    /// Declared by the function being lowered, to be defined after it.
    pub pending: Vec<(FuncId, ColdKey)>,
}

/// The module a function is lowered into and its trampolines.
pub(in crate::native) struct Cold<'a> {
    pub module: &'a mut cranelift_jit::JITModule,
    pub tramps: &'a mut Trampolines,
}

/// The signature of the trampoline of a helper with parameters `params`: the same
/// parameters, no result, and Cranelift's `preserve_all` convention, so that a call to it
/// clobbers no register.
pub(in crate::native) fn trampoline_sig(params: &[Type]) -> Signature {
    let mut s = Signature::new(CallConv::PreserveAll);
    s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
    s
}

/// Builds in `b` (a function with the signature [`trampoline_sig`] of `key`'s parameters)
/// the trampoline of helper `key`: it calls the helper in the host's convention `cc` with
/// its own arguments and stores the helper's result, if any, into `Env::ret` of its first
/// argument, the environment.
///
/// Why: a helper in the host's convention clobbers the caller-saved registers, so every
/// value the calling code keeps across the call must live in one of the few callee-saved
/// registers or on the stack, and the code around a cold path (a fault, a refill of the
/// random stream) paid for that on its hot path too: reloads of the environment pointer
/// and saves of callee-saved registers were an eighth of a six-faction seed game's machine code. The
/// trampoline saves and restores the registers itself, once, on the cold path.
pub(in crate::native) fn trampoline(
    mut b: FunctionBuilder<'_>,
    cfg: TargetFrontendConfig,
    key: &ColdKey,
) {
    let cc = cfg.default_call_conv;
    let (f, params, ret) = key;
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    b.seal_block(entry);
    let args = b.block_params(entry).to_vec();
    let mut s = Signature::new(cc);
    s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
    s.returns.extend(ret.map(AbiParam::new));
    let sig = b.import_signature(s);
    let ptr = params[0];
    let addr = b.ins().iconst(ptr, *f as i64);
    let call = b.ins().call_indirect(sig, addr, &args);
    if ret.is_some() {
        let v = b.inst_results(call)[0];
        b.ins().store(MemFlagsData::trusted(), v, args[0], Off::RET);
    }
    b.ins().return_(&[]);
    b.finalize(cfg);
}

impl Lower<'_, '_> {
    /// Calls helper `f` (an `extern "C"` function with these parameter and result types).
    pub(super) fn call(
        &mut self,
        f: usize,
        params: &[Type],
        ret: Option<Type>,
        args: &[Value],
    ) -> Value {
        self.flush_pending();
        self.faulty = true;
        if let Some(v) = self.call_cold(f, params, ret, args) {
            return v;
        }
        let key = (params.to_vec(), ret);
        let sig = match self.sigs.get(&key) {
            Some(s) => *s,
            None => {
                let mut s = Signature::new(self.cc);
                s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
                s.returns.extend(ret.map(AbiParam::new));
                let r = self.b.import_signature(s);
                self.sigs.insert(key, r);
                r
            }
        };
        let addr = self.b.ins().iconst(self.ptr, f as i64);
        let call = self.b.ins().call_indirect(sig, addr, args);
        match ret {
            Some(_) => self.b.inst_results(call)[0],
            None => addr,
        }
    }

    /// Builds with `f` a path that runs rarely if ever, a fault's or a refill's: the helpers
    /// it calls are called through their trampolines ([`trampoline`]). A path that may run
    /// often (settling marks, a `bernoulli` outside 0 to 1) calls them directly, since a
    /// trampoline saves and restores every register.
    pub(super) fn rarely<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let rare = std::mem::replace(&mut self.rare, true);
        let r = f(self);
        self.rare = rare;
        r
    }

    /// [`Lower::call`] on a rare path ([`Lower::rarely`]), through the helper's trampoline
    /// ([`trampoline`]), its result read back from `Env::ret`; `None` (nothing built) when
    /// the path is not rare, there are no trampolines, or the first argument is not the
    /// environment.
    fn call_cold(
        &mut self,
        f: usize,
        params: &[Type],
        ret: Option<Type>,
        args: &[Value],
    ) -> Option<Value> {
        if !self.rare || args.first() != Some(&self.env) {
            return None;
        }
        let cold = self.cold.as_mut()?;
        let key: ColdKey = (f, params.to_vec(), ret);
        let id = match cold.tramps.ids.get(&key) {
            Some(&id) => id,
            None => {
                let id = cold
                    .module
                    .declare_anonymous_function(&trampoline_sig(params))
                    .ok()?;
                cold.tramps.ids.insert(key.clone(), id);
                cold.tramps.pending.push((id, key));
                id
            }
        };
        // Not colocated: the code is in memory the module maps as it goes, so the call
        // takes the trampoline's absolute address rather than a 32-bit displacement.
        let signature = self.b.import_signature(trampoline_sig(params));
        let name = self
            .b
            .func
            .declare_imported_user_function(UserExternalName::new(0, id.as_u32()));
        let fref = self.b.import_function(ExtFuncData {
            name: ExternalName::user(name),
            signature,
            colocated: false,
            patchable: false,
        });
        self.b.ins().call(fref, args);
        Some(match ret {
            Some(ty) => self
                .b
                .ins()
                .load(ty, MemFlagsData::trusted(), self.env, Off::RET),
            None => self.env,
        })
    }

    /// Like [`Lower::call`] for a helper that returns an `i64` and can record no fault.
    pub(super) fn call_pure(&mut self, f: usize, params: &[Type], args: &[Value]) -> Value {
        let faulty = self.faulty;
        let v = self.call(f, params, Some(I64), args);
        self.faulty = faulty;
        v
    }

    /// Like [`Lower::call`] for a helper that returns a pointer and can record no fault.
    pub(super) fn call_ptr(&mut self, f: usize) -> Value {
        let faulty = self.faulty;
        let env = self.env;
        let v = self.call(f, &[self.ptr], Some(self.ptr), &[env]);
        self.faulty = faulty;
        v
    }

    /// Like [`Lower::call`] for a helper that returns nothing and can record no fault (a mark,
    /// a points credit, a card moved).
    pub(super) fn call_quiet(&mut self, f: usize, params: &[Type], args: &[Value]) {
        let faulty = self.faulty;
        self.call(f, params, None, args);
        self.faulty = faulty;
    }

    /// Returns [`FAULTED`](super::FAULTED) if code built since `faulty` was cleared
    /// recorded a fault.
    pub(super) fn fault_exit(&mut self) {
        if !self.faulty {
            return;
        }
        self.faulty = false;
        let f = self.env_load(types::I8, Off::FAULTED);
        let ret = self.fault_block();
        let go = self.b.create_block();
        self.b.ins().brif(f, ret, &[], go, &[]);
        self.b.switch_to_block(go);
    }

    /// Returns `code` from the function, or goes to [`Lower::exit`] with it when a turn is
    /// lowered inline.
    pub(super) fn leave(&mut self, code: Value) {
        match self.exit {
            Some(b) => {
                self.b.ins().jump(b, &[BlockArg::Value(code)]);
            }
            None => {
                self.b.ins().return_(&[code]);
            }
        }
    }

    /// Ends a cold path whose helper has surely recorded a fault, at a point that accounts
    /// for `own` of the formula's draw sites. Inside a statement's formula with no other
    /// draw site, it jumps to the block that returns [`FAULTED`](super::FAULTED), and
    /// `faulty` (what it was before the helper) is restored: no flag check is owed for it.
    /// Otherwise (a formula function, whose caller reads the fault, or a draw that may
    /// follow, which the engine would still make) it goes on to `join` with `v`.
    pub(super) fn fault_or_join(&mut self, faulty: bool, own: u32, join: Block, v: Value) {
        if self.fault_jumps.is_none_or(|d| d > own) {
            self.b.ins().jump(join, &[BlockArg::Value(v)]);
            return;
        }
        self.faulty = faulty;
        let ret = self.fault_block();
        self.b.ins().jump(ret, &[]);
    }

    /// The block that returns [`FAULTED`](super::FAULTED) (filled by [`Lower::finish_stmts`]).
    pub(super) fn fault_block(&mut self) -> Block {
        if let Some(b) = self.fault_ret {
            return b;
        }
        let b = self.b.create_block();
        self.b.set_cold_block(b);
        self.fault_ret = Some(b);
        b
    }
}
