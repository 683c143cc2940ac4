//! The machine-code ABI: how a game calls code that a backend compiled, without naming the
//! backend.
//!
//! Owns the function-pointer types of generated code ([`NativeFn`], [`MenuFn`]), the return
//! codes it uses, the option record an agent's scan writes ([`Opt`]), and the handles the
//! program and the game hold: [`Formula`], [`Run`], [`Checks`] (and [`CheckFns`]), [`Menu`]
//! and [`Round`]. A handle pairs a function pointer with the owner of the code it points
//! into ([`Keep`], type-erased), so the code lives as long as any handle to it; the native
//! backend (`crate::native`) is the only producer of handles, and the program and the engine
//! only call them. Calling a handle is safe Rust: the soundness conditions of the generated
//! code are the native backend's (see `native/jit.rs`).

use std::any::Any;
use std::sync::Arc;

use super::Env;
use crate::ids::{ActionId, FactionId, ReasonId};

/// The owner of a handle's machine code, kept alive with it. Type-erased so that this layer
/// never names the backend that made the code.
pub type Keep = Arc<dyn Any + Send + Sync>;

/// The type of every generated formula, statement list, set of end conditions and round:
/// the evaluation environment and the game's variable slots in, the value's bits (an `i64`,
/// or an `f64`'s bits for a real formula) or a return code out.
pub type NativeFn = for<'a, 'b> extern "C" fn(&'a mut Env<'b>, *mut i64) -> u64;

/// The type of a generated option scan: the environment, the variable slots, the option
/// buffer and the acting faction in, a return code out.
pub type MenuFn = for<'a, 'b> extern "C" fn(&'a mut Env<'b>, *mut i64, *mut Opt, u64) -> u64;

/// What a statement-list function returns when every statement ran.
pub const DONE: u64 = 0;
/// ... when a fault was recorded (the statement that faulted stored nothing).
pub const FAULTED: u64 = u64::MAX;
/// ... `HELD | reason` when an `end` with that reason ran: the game ends there (an agent's
/// turn returns it too).
pub const HELD: u64 = 1 << 59;
/// What an agent's turn returns when the faction had no option (it passes). A turn also
/// returns [`DONE`] (the chosen action ran to its end) and [`FAULTED`].
pub const PASS: u64 = 1 << 62;
/// ... `CHOSE | action << 8 | target` when the chosen action is not lowered: the engine
/// takes it.
pub const CHOSE: u64 = 1 << 61;

/// One formula's machine code.
#[derive(Clone)]
pub struct Formula {
    f: NativeFn,
    _keep: Keep,
}

impl Formula {
    /// A handle on `f`, whose code `keep` owns.
    pub fn new(f: NativeFn, keep: Keep) -> Formula {
        Formula { f, _keep: keep }
    }

    /// Runs the formula in `env`; the result is the value's bits (an `f64`'s for a real).
    #[inline(always)]
    pub fn call(&self, env: &mut Env<'_>) -> u64 {
        let vals = env.st.vals.as_mut_ptr();
        (self.f)(env, vals)
    }
}

impl std::fmt::Debug for Formula {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Formula")
    }
}

/// How a statement-list function returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ran {
    /// Every statement ran.
    Done,
    /// A fault was recorded in the environment.
    Faulted,
    /// An `end` with this reason ran: the game ends.
    Held(ReasonId),
}

impl Ran {
    /// The meaning of a statement list's or a round's return code.
    #[inline(always)]
    fn of(r: u64) -> Ran {
        match r {
            DONE => Ran::Done,
            FAULTED => Ran::Faulted,
            r => Ran::Held(ReasonId(r as u16)),
        }
    }
}

/// A run of statements of one effect list in machine code.
#[derive(Clone)]
pub struct Run {
    f: NativeFn,
    keep: Keep,
}

impl Run {
    /// A handle on `f`, whose code `keep` owns.
    pub fn new(f: NativeFn, keep: Keep) -> Run {
        Run { f, keep }
    }

    /// Runs the statements.
    #[inline(always)]
    pub fn call(&self, env: &mut Env<'_>) -> Ran {
        let vals = env.st.vals.as_mut_ptr();
        Ran::of((self.f)(env, vals))
    }

    /// The function's address and the owner of its code, for code that calls it directly.
    pub fn parts(&self) -> (usize, Keep) {
        (self.f as usize, self.keep.clone())
    }
}

impl std::fmt::Debug for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Run")
    }
}

/// One option of an agent decision: an action, its target and its score (weight, noisy
/// value or `-priority`). Laid out for the machine code that writes options.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Opt {
    /// The weight, value or negated priority.
    pub score: f64,
    /// The action.
    pub action: ActionId,
    /// The target faction (the acting faction for an untargeted action).
    pub target: FactionId,
}

/// One faction's turn in machine code: binds the faction, then tests, costs and scores
/// every action and target of its menu as the engine's scan does, picks one as the engine
/// does, and takes the chosen action when its effects are nothing or one statement run.
#[derive(Clone)]
pub struct Menu {
    f: MenuFn,
    faction: u64,
    cap: usize,
    size: u32,
    keep: Keep,
}

/// How an agent's turn in machine code returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Turn {
    /// The chosen action was taken: its effects ran to their end.
    Done,
    /// The faction had no option: it passes.
    Pass,
    /// A fault was recorded in the environment.
    Faulted,
    /// The faction chose `action` against `target`; the engine takes it (pays its costs and
    /// runs its effects).
    Chose {
        /// The action.
        action: ActionId,
        /// The target (the acting faction for an untargeted action).
        target: FactionId,
    },
    /// The chosen action's effects ended the game: an `end` with this reason ran.
    Held(ReasonId),
}

impl Menu {
    /// A handle on the scan `f` for `faction`, which writes at most `cap` options, whose
    /// code (`size` bytes) `keep` owns.
    pub fn new(f: MenuFn, faction: u8, cap: usize, size: u32, keep: Keep) -> Menu {
        Menu {
            f,
            faction: faction as u64,
            cap,
            size,
            keep,
        }
    }

    /// The size in bytes of the function's machine code.
    pub fn code_size(&self) -> u32 {
        self.size
    }

    /// The most options one scan can write.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The function's address and the owner of its code, for code that calls it directly.
    pub fn parts(&self) -> (usize, Keep) {
        (self.f as usize, self.keep.clone())
    }

    /// Plays the turn, with `env.opts` as the option buffer.
    #[inline]
    pub fn call(&self, env: &mut Env<'_>) -> Turn {
        // The code writes at most `cap` options: the buffer must hold them.
        assert!(env.opts.len() >= self.cap, "option buffer too short");
        let vals = env.st.vals.as_mut_ptr();
        let out = env.opts.as_mut_ptr();
        let r = (self.f)(env, vals, out, self.faction);
        match r {
            DONE => Turn::Done,
            FAULTED => Turn::Faulted,
            _ if r & PASS != 0 => Turn::Pass,
            _ if r & CHOSE != 0 => Turn::Chose {
                action: ActionId((r >> 8) as u16),
                target: FactionId(r as u8),
            },
            _ => Turn::Held(ReasonId(r as u16)),
        }
    }
}

impl std::fmt::Debug for Menu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Menu({} options at most)", self.cap)
    }
}

/// End conditions compiled together: those of one timing, or the pending immediate ones.
#[derive(Clone)]
pub struct Checks {
    f: NativeFn,
    keep: Keep,
}

/// How compiled end conditions came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Held {
    /// A fault was recorded in the environment.
    Faulted,
    /// No game-ending condition held (`win` and `lose` marks may have been made).
    Nothing,
    /// The first game-ending condition that held has this reason.
    End(ReasonId),
}

impl Checks {
    /// A handle on `f`, whose code `keep` owns.
    pub fn new(f: NativeFn, keep: Keep) -> Checks {
        Checks { f, keep }
    }

    /// The function's address and the owner of its code, for code that calls it directly.
    pub fn parts(&self) -> (usize, Keep) {
        (self.f as usize, self.keep.clone())
    }

    /// Evaluates the conditions with the binding in `env`.
    #[inline]
    pub fn call(&self, env: &mut Env<'_>) -> Held {
        let vals = env.st.vals.as_mut_ptr();
        match (self.f)(env, vals) {
            FAULTED => Held::Faulted,
            0 => Held::Nothing,
            r => Held::End(ReasonId((r - 1) as u16)),
        }
    }
}

impl std::fmt::Debug for Checks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Checks")
    }
}

/// A model's end conditions in machine code.
#[derive(Debug, Clone, Default)]
pub struct CheckFns {
    /// The conditions of each moment of the round, by `Moment as usize`: those of
    /// [`crate::model::Moment::ROUND`] (the immediate ones are [`CheckFns::pending`]; their
    /// one check of the whole list, after setup, runs in the engine).
    pub timing: [Option<Checks>; 4],
    /// The immediate conditions, each evaluated when pending (see
    /// [`crate::runtime::Pending`]): the end of a statement list.
    pub pending: Option<Checks>,
}

/// A whole round in machine code: the round loop of the engine, calling the machine code of
/// the model's statement runs, agents' turns and end conditions at their addresses.
#[derive(Clone)]
pub struct Round {
    f: NativeFn,
    /// The largest option scan of the turns it calls.
    cap: usize,
    /// The round's own code, then the code of every function it calls (kept alive with it).
    _keep: Vec<Keep>,
}

impl Round {
    /// A handle on the round `f`, whose turns write at most `cap` options, with the owners
    /// of its own code and of every function it calls.
    pub fn new(f: NativeFn, cap: usize, keep: Vec<Keep>) -> Round {
        Round {
            f,
            cap,
            _keep: keep,
        }
    }

    /// Plays one round; `Held` says the game ended in it, with that reason.
    #[inline]
    pub fn call(&self, env: &mut Env<'_>) -> Ran {
        // The turns write at most `cap` options: the buffer must hold them.
        assert!(env.opts.len() >= self.cap, "option buffer too short");
        let vals = env.st.vals.as_mut_ptr();
        Ran::of((self.f)(env, vals))
    }
}

impl std::fmt::Debug for Round {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Round")
    }
}
