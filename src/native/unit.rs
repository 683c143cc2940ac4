//! One module of machine code being built: the Cranelift module for the host, set up the
//! way every function of vpsim is compiled, with the model's card data imported once, and
//! the contexts its functions are built in one after the other.

use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::ir::{AbiParam, Function, Inst, InstructionData, Opcode, Value, types};
use cranelift_codegen::isa::CallConv;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{DataId, FuncId, Module};

use std::sync::Arc;

use super::jit::Code;
use super::lower::{self, Cold, IdTable, Lower, Trampolines};
use crate::state::Tables;

/// The reason a compile stopped at a signal (not a failure to report).
pub(crate) const INTERRUPTED: &str = "interrupted";

/// A module being filled with functions.
pub(super) struct Unit {
    pub module: JITModule,
    pub ctx: cranelift_codegen::Context,
    fctx: FunctionBuilderContext,
    /// The host's pointer type and calling convention.
    pub ptr: cranelift_codegen::ir::Type,
    pub cc: CallConv,
    cfg: cranelift_codegen::isa::TargetFrontendConfig,
    /// The model's card data ([`lower::card_data`]) as read-only data of the module, when
    /// the model has card attributes, and where each deck's id table is in it.
    data: Option<DataId>,
    ids: Vec<Option<IdTable>>,
    /// The trampolines of the helpers its cold paths call ([`lower::trampoline`]).
    tramps: Trampolines,
    /// The functions defined so far, when a profile names them ([`super::profile`]).
    named: Vec<super::profile::Named>,
    /// The size in bytes of the machine code of the function defined last.
    pub last_size: u32,
}

impl Unit {
    /// A module for the host with the card data of `t`. A host that cannot be targeted
    /// fails here.
    pub(super) fn new(t: &Tables) -> Result<Unit, String> {
        let mut module = new_module()?;
        let (data, ids) = card_data(&mut module, t)?;
        let ctx = module.make_context();
        Ok(Unit {
            ptr: module.target_config().pointer_type(),
            cc: module.isa().default_call_conv(),
            cfg: module.isa().frontend_config(),
            module,
            ctx,
            fctx: FunctionBuilderContext::new(),
            data,
            ids,
            tramps: Trampolines::default(),
            named: Vec::new(),
            last_size: 0,
        })
    }

    /// Makes the next function's signature that of a formula, statement run, set of end
    /// checks or round: `(env, vals) -> i64` (see [`super::jit::NativeFn`]).
    pub(super) fn env_vals(&mut self) {
        let sig = &mut self.ctx.func.signature;
        sig.call_conv = self.cc;
        sig.params.push(AbiParam::new(self.ptr));
        sig.params.push(AbiParam::new(self.ptr));
        sig.returns.push(AbiParam::new(types::I64));
    }

    /// The lowering of the next function (its signature already set), over a state of
    /// `slots` variables and the tables `t`, faults located at `loc`; it reads the card
    /// data inline.
    pub(super) fn lower<'a>(&'a mut self, t: &'a Tables, slots: usize, loc: u32) -> Lower<'a, 'a> {
        let gv = self
            .data
            .map(|d| self.module.declare_data_in_func(d, &mut self.ctx.func));
        let b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
        let cold = Cold {
            module: &mut self.module,
            tramps: &mut self.tramps,
        };
        Lower::new(b, t, slots, loc, self.cfg)
            .with_attrs(gv, &self.ids)
            .with_cold(cold)
    }

    /// Defines the function just lowered, and the trampolines it declared, and clears the
    /// context for the next one; `what` names it in the error.
    pub(super) fn define(&mut self, what: &str) -> Result<FuncId, String> {
        // Ctrl-C or SIGTERM stops a long compile between functions (the caller exits).
        if crate::signal::stopped() {
            return Err(INTERRUPTED.to_string());
        }
        drop_unused(&mut self.ctx.func);
        let id = self
            .module
            .declare_anonymous_function(&self.ctx.func.signature)
            .map_err(|e| format!("cannot compile {what}: {e}"))?;
        let profiled = super::profile::enabled();
        self.ctx.set_disasm(profiled);
        self.module
            .define_function(id, &mut self.ctx)
            .map_err(|e| format!("cannot compile {what}: {e:?}"))?;
        self.last_size = (self.ctx.compiled_code()).map_or(0, |c| c.code_info().total_size);
        if let Some(code) = self.ctx.compiled_code().filter(|_| profiled) {
            self.named.push(super::profile::Named {
                id,
                what: what.to_string(),
                size: code.code_info().total_size,
                text: code.vcode.clone().unwrap_or_default(),
            });
        }
        self.module.clear_context(&mut self.ctx);
        for (tid, key) in std::mem::take(&mut self.tramps.pending) {
            self.ctx.func.signature = lower::trampoline_sig(&key.1);
            let b = FunctionBuilder::new(&mut self.ctx.func, &mut self.fctx);
            lower::trampoline(b, self.cfg, &key);
            self.module
                .define_function(tid, &mut self.ctx)
                .map_err(|e| format!("cannot compile a helper's trampoline for {what}: {e:?}"))?;
            self.module.clear_context(&mut self.ctx);
        }
        Ok(id)
    }
}

impl Unit {
    /// Finalizes the module with `finish` (one of [`Code`]'s) and returns its functions
    /// `ids`, naming them for a profiler when asked to ([`super::profile`]).
    pub(super) fn finish<F>(
        self,
        ids: &[FuncId],
        finish: impl FnOnce(JITModule, &[FuncId]) -> Result<(Arc<Code>, Vec<F>), String>,
    ) -> Result<(Arc<Code>, Vec<F>), String> {
        let (code, fns) = finish(self.module, ids)?;
        if !self.named.is_empty() {
            super::profile::write(&code, &self.named);
        }
        Ok((code, fns))
    }
}

/// Removes from `func` the loads that cannot trap and the pure instructions whose results
/// nothing uses, until none is left.
///
/// Cranelift's optimizer drops an unused pure value but lowers every load that is not
/// read-only. The lowering reads the binding at a function's entry, whether or not a path
/// then uses it; marking those loads read-only
/// instead would let the optimizer merge them across the stores that rebind a faction.
/// A store's read of the old value, where nothing uses it, goes too. With the one-compare
/// bounds of `Lower::fminmax`, the six-faction seed game ran 2% fewer instructions a game (46.5k to 45.5k).
fn drop_unused(func: &mut Function) {
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
    let mut insts = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            insts.push(inst);
            for v in func.dfg.inst_values(inst) {
                uses[func.dfg.resolve_aliases(v)] += 1;
            }
        }
    }
    let removable = |func: &Function, uses: &SecondaryMap<Value, u32>, inst: Inst| {
        let data = &func.dfg.insts[inst];
        let op = data.opcode();
        let [r] = func.dfg.inst_results(inst) else {
            return false;
        };
        if uses[*r] != 0 {
            return false;
        }
        match *data {
            InstructionData::Load {
                opcode: Opcode::Load,
                flags,
                ..
            } => func.dfg.mem_flags[flags].notrap(),
            _ => {
                !(op.can_load()
                    || op.can_store()
                    || op.can_trap()
                    || op.is_call()
                    || op.is_branch()
                    || op.is_terminator()
                    || op.is_return()
                    || op.other_side_effects())
            }
        }
    };
    let mut gone = true;
    while gone {
        gone = false;
        // Backwards: a value's users come after it, so a chain goes in one pass.
        let mut kept = Vec::with_capacity(insts.len());
        for &inst in insts.iter().rev() {
            if !removable(func, &uses, inst) {
                kept.push(inst);
                continue;
            }
            let args: Vec<Value> = func.dfg.inst_values(inst).collect();
            for v in args {
                uses[func.dfg.resolve_aliases(v)] -= 1;
            }
            func.layout.remove_inst(inst);
            gone = true;
        }
        kept.reverse();
        insts = kept;
    }
}

/// The model's card data ([`lower::card_data`]: the attribute table, a row of zeros, the
/// decks' id tables) as read-only data of `module`, for `card.ATTR` and `has_completed` to
/// read inline, and where each deck's id table is; none when the model has no card
/// attributes.
fn card_data(
    module: &mut JITModule,
    t: &Tables,
) -> Result<(Option<DataId>, Vec<Option<IdTable>>), String> {
    if t.card_attrs.is_empty() {
        return Ok((None, Vec::new()));
    }
    let fail = |e| format!("cannot compile the card attributes: {e}");
    let id = module.declare_anonymous_data(false, false).map_err(fail)?;
    let mut d = cranelift_module::DataDescription::new();
    let (data, ids) = lower::card_data(t);
    d.define(data.iter().flat_map(|v| v.to_ne_bytes()).collect());
    d.set_align(8);
    module.define_data(id, &d).map_err(fail)?;
    Ok((Some(id), ids))
}

/// A module for the host, set up the way every function of vpsim is compiled.
fn new_module() -> Result<JITModule, String> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| format!("Cranelift setting {k}: {e}"))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    // The lowering is tested against the interpreter; verifying every function again at
    // load time would cost more than compiling it, so only debug builds (the tests) verify.
    let verify = if cfg!(debug_assertions) {
        "true"
    } else {
        "false"
    };
    set(&mut flags, "enable_verifier", verify)?;
    let isa = cranelift_native::builder()
        .map_err(|e| format!("cannot target this machine: {e}"))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| format!("cannot target this machine: {e}"))?;
    Ok(JITModule::new(JITBuilder::with_isa(
        isa,
        cranelift_module::default_libcall_names(),
    )))
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Signature, UserFuncName};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    use super::*;

    /// `(p) -> i64`: loads that cannot trap at `p`, `p + 8` (extended, then unused) and
    /// `p + 16`, one that can trap at `p + 24` (unused), and returns the first plus 1.
    fn sample() -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        let mut func = Function::with_name_signature(UserFuncName::default(), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let p = b.block_params(entry)[0];
        let ok = MemFlagsData::trusted();
        let used = b.ins().load(types::I64, ok, p, 0);
        let dead = b.ins().load(types::I8, ok, p, 8);
        b.ins().uextend(types::I64, dead);
        b.ins().load(types::I64, ok, p, 16);
        b.ins().load(types::I64, MemFlagsData::new(), p, 24);
        let r = b.ins().iadd_imm_s(used, 1);
        b.ins().return_(&[r]);
        b.seal_all_blocks();
        b.finalize(new_module().unwrap().isa().frontend_config());
        func
    }

    fn opcodes(func: &Function) -> Vec<String> {
        let block = func.layout.entry_block().unwrap();
        func.layout
            .block_insts(block)
            .map(|i| format!("{}", func.dfg.insts[i].opcode()))
            .collect()
    }

    #[test]
    fn unused_loads_that_cannot_trap_are_dropped_with_their_users() {
        let mut func = sample();
        let all = [
            "load", "load", "uextend", "load", "load", "iconst", "iadd", "return",
        ];
        assert_eq!(opcodes(&func), all);
        drop_unused(&mut func);
        // The used load, the one that can trap, and the sum returned.
        assert_eq!(opcodes(&func), ["load", "load", "iconst", "iadd", "return"]);
        // Nothing more to drop.
        drop_unused(&mut func);
        assert_eq!(opcodes(&func).len(), 5);
    }
}
