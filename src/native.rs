//! The native engine: a model's formulas compiled to machine code with Cranelift.
//!
//! Owns the choice of engine (`--engine native|interp`) and the compilation of a loaded
//! [`Model`]: every formula that is not a constant (conditions, weights, values, chances,
//! costs, initial values, ranking keys, the right-hand side of every assignment) is lowered
//! by the `lower` module to one machine-code function and installed in its [`Expr`], which then runs
//! it instead of the interpreter's closures. The interpreter stays the reference semantics:
//! the generated code calls the same operation definitions for everything that can fault or
//! draw a random number (the `helpers` module), so both engines give identical games, faults and
//! random streams, and the tests hold them to that.
//!
//! Where Cranelift cannot target the host, [`prepare`] says so once on stderr and the model
//! runs on the interpreter.

mod helpers;
mod jit;
mod lower;

use std::sync::Arc;
use std::time::{Duration, Instant};

use cranelift_codegen::ir::{AbiParam, types};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::Module;

use crate::expr::{Env, Expr};
use crate::model::Model;

/// Which engine plays the games.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Engine {
    /// Formulas compiled to machine code when the scenario is loaded (the default).
    #[default]
    Native,
    /// The interpreter: the reference semantics, identical results, slower.
    Interp,
}

/// One formula's machine code, and the code's owner (kept alive as long as the function).
#[derive(Clone)]
pub struct Compiled {
    f: jit::NativeFn,
    _code: Arc<jit::Code>,
}

impl Compiled {
    /// Runs the formula in `env`; the result is the value's bits (an `f64`'s for a real).
    #[inline(always)]
    pub(crate) fn call(&self, env: &mut Env<'_>) -> u64 {
        let vals = env.st.vals.as_mut_ptr();
        (self.f)(env, vals)
    }
}

impl std::fmt::Debug for Compiled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Compiled")
    }
}

/// What a compilation did.
#[derive(Debug, Clone, Copy, Default)]
pub struct Report {
    /// Machine-code functions made (one per formula that is not a constant), examples'
    /// setting variants included.
    pub functions: usize,
    /// Time spent lowering and compiling.
    pub elapsed: Duration,
}

/// Prepares `m` for `engine`: compiles it to machine code for the native engine. Returns the
/// engine the model will run on: the interpreter when the host cannot be targeted (said once
/// per process on stderr).
pub fn prepare(m: &mut Model, engine: Engine) -> Engine {
    if engine == Engine::Interp {
        return Engine::Interp;
    }
    match compile(m) {
        Ok(_) => Engine::Native,
        Err(why) => {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| {
                eprintln!(
                    "vpsim: the native engine is not available here ({why}); using the interpreter"
                )
            });
            Engine::Interp
        }
    }
}

/// Compiles every formula of `m` (and of its examples' setting variants) to machine code.
pub fn compile(m: &mut Model) -> Result<Report, String> {
    let start = Instant::now();
    let mut functions = compile_one(m)?;
    for ex in &mut m.examples {
        if let Some(v) = &mut ex.variant {
            functions += compile_one(v)?;
        }
    }
    Ok(Report {
        functions,
        elapsed: start.elapsed(),
    })
}

fn compile_one(m: &mut Model) -> Result<usize, String> {
    let tables = m.tables.clone();
    let slots = m.slots;
    compile_with(&tables, slots, &mut |f| m.exprs_mut(f))
}

/// A walk over formulas: it calls the function it is given on each one.
pub(crate) type Visit<'a> = dyn FnMut(&mut dyn FnMut(&mut Expr)) + 'a;

/// Compiles the formulas `visit` presents (twice, in the same order: once to compile, once
/// to install), over a state of `slots` variables and the static tables `t`. Returns how
/// many functions were made.
pub(crate) fn compile_with(
    t: &crate::state::Tables,
    slots: usize,
    visit: &mut Visit<'_>,
) -> Result<usize, String> {
    let mut flags = settings::builder();
    let set = |f: &mut settings::Builder, k: &str, v: &str| {
        f.set(k, v)
            .map_err(|e| format!("Cranelift setting {k}: {e}"))
    };
    set(&mut flags, "opt_level", "speed")?;
    set(&mut flags, "is_pic", "false")?;
    set(&mut flags, "use_colocated_libcalls", "false")?;
    // The lowering is tested against the interpreter; verifying every function again at
    // load time would cost more than compiling it.
    set(&mut flags, "enable_verifier", "false")?;
    let isa = cranelift_native::builder()
        .map_err(|e| format!("cannot target this machine: {e}"))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| format!("cannot target this machine: {e}"))?;
    let mut module = JITModule::new(JITBuilder::with_isa(
        isa,
        cranelift_module::default_libcall_names(),
    ));
    let ptr = module.target_config().pointer_type();
    let cc = module.isa().default_call_conv();
    let cfg = module.isa().frontend_config();
    let mut ctx = module.make_context();
    let mut fctx = FunctionBuilderContext::new();
    let mut ids = Vec::new();
    let mut failed = None;
    visit(&mut |e: &mut Expr| {
        if e.as_const_num().is_some() || failed.is_some() {
            return;
        }
        let sig = &mut ctx.func.signature;
        sig.call_conv = cc;
        sig.params.push(AbiParam::new(ptr));
        sig.params.push(AbiParam::new(ptr));
        sig.returns.push(AbiParam::new(types::I64));
        let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        lower::Lower::new(b, t, slots, e.loc, cfg).finish(&e.tree());
        let made = match module.declare_anonymous_function(&ctx.func.signature) {
            Ok(id) => module.define_function(id, &mut ctx).map(|()| id),
            Err(e) => Err(e),
        };
        match made {
            Ok(id) => ids.push(id),
            Err(err) => failed = Some(format!("cannot compile a formula: {err:?}")),
        }
        module.clear_context(&mut ctx);
    });
    if let Some(f) = failed {
        return Err(f);
    }
    let (code, fns) = jit::Code::finish(module, &ids)?;
    let n = fns.len();
    let mut fns = fns.into_iter();
    visit(&mut |e: &mut Expr| {
        if e.as_const_num().is_some() {
            return;
        }
        if let Some(f) = fns.next() {
            e.set_native(Compiled {
                f,
                _code: code.clone(),
            });
        }
    });
    Ok(n)
}
