//! Finished machine code as callable functions: the one module of vpsim that uses `unsafe`.
//!
//! Owns the [`JITModule`] that holds a model's generated code, the conversion of a finished
//! function's address into a Rust function pointer, and the release of the code's memory.
//! Everything else about the native engine (what the code computes) lives in [`super::lower`]
//! and [`super::helpers`] and is safe Rust.
#![allow(
    unsafe_code,
    reason = "the one module that turns finished machine code into function pointers"
)]

use std::sync::Arc;

use cranelift_jit::JITModule;
use cranelift_module::FuncId;

use crate::runtime::abi::{MenuFn, NativeFn};

/// A model's machine code. It lives as long as any function made from it: every
/// handle of [`crate::runtime::abi`] holds an `Arc` of it.
pub(super) struct Code {
    module: Option<JITModule>,
}

// SAFETY: after `finish` the module is never used again except to free its memory in `drop`,
// which runs once, when the last `Arc` goes; the code itself is immutable, position-fixed
// machine code that any thread may run.
unsafe impl Send for Code {}
// SAFETY: as above; no method of `Code` mutates anything through `&self`.
unsafe impl Sync for Code {}

impl Code {
    /// Finalizes the module's definitions and returns the functions `ids` in order.
    ///
    /// The invariants that make calling the returned pointers sound are established by the
    /// lowering, which is the only producer of the module's functions:
    /// - every function was declared with the signature `(ptr, ptr) -> i64` in the host's
    ///   default calling convention, which is `extern "C"` on every target Cranelift supports
    ///   natively, and is called only through [`NativeFn`];
    /// - the first argument is only read or written at offsets of `Env` fields computed with
    ///   `offset_of!` in this build, with the fields' own types (`i64`, `u32`, `u16`, `u8`,
    ///   `u64`; an element of the array `Env::eligible` at an index the code clamps below
    ///   its length), and passed on to helper functions declared `extern "C"` with a
    ///   `&mut Env` first parameter;
    /// - the second argument is the game's `State::vals` buffer, of `slots` elements; every
    ///   load from it uses an index proven below `slots` at compile time or checked against
    ///   it in the generated code; a faction index in it is clamped below the number of
    ///   factions where it is read (`Lower::proven`), and the compile-time proof is that
    ///   the last faction's slot is below `slots`;
    /// - every store into `vals` (in a statement list) uses an index proven or checked below
    ///   `slots` like the loads;
    /// - a pointer to a `State` buffer that a helper returns (`pool`, `hands`) is
    ///   used only during the call that obtained it, at indices inside one deck's range of
    ///   that buffer (for `hands`: the word of such a card in a faction's row, with the
    ///   faction clamped below the number of factions), computed from the model's tables,
    ///   which sized the buffers; no helper resizes those buffers, which keep their length
    ///   for the whole game;
    /// - the random stream's buffer (`Rng::buf`, 64 `u32` words) is read as one 8-byte load
    ///   at word `at` only when `at` is below 63, so both words are inside it;
    /// - the card attribute table is the module's own read-only data, read at
    ///   `card * n_attrs + attr` for a current card below the number of cards it was built
    ///   for;
    /// - a helper called on a rare path is called through its trampoline, a function of the
    ///   same module in Cranelift's `preserve_all` convention that passes its own arguments
    ///   unchanged to the helper (same signature, the host's convention) and stores the
    ///   helper's result, with its own type, into `Env::ret` of the first argument;
    /// - the code allocates nothing, keeps no pointer after it returns and cannot unwind
    ///   (helpers record faults instead of panicking).
    pub(super) fn finish(
        module: JITModule,
        ids: &[FuncId],
    ) -> Result<(Arc<Code>, Vec<NativeFn>), String> {
        Code::finish_as(module, ids, |p| {
            // SAFETY: `p` is the entry of a finished formula, statement-list or end-condition
            // function with the signature and behaviour stated above; `Code` keeps its memory
            // alive as long as the pointer can be reached (see the handles of `runtime::abi`: `Formula`, `Run`, `Checks`).
            unsafe { std::mem::transmute::<*const u8, NativeFn>(p) }
        })
    }

    /// Like [`Code::finish`], for option scans: the same invariants hold, with the signature
    /// `(ptr, ptr, ptr, i64) -> i64` called only through [`MenuFn`]; the third argument is a
    /// buffer of [`crate::runtime::abi::Opt`] that [`crate::runtime::abi::Menu::call`] checks holds the scan's capacity,
    /// and the code writes at most that many options into it, at `Opt`'s own field offsets.
    pub(super) fn finish_menus(
        module: JITModule,
        ids: &[FuncId],
    ) -> Result<(Arc<Code>, Vec<MenuFn>), String> {
        Code::finish_as(module, ids, |p| {
            // SAFETY: `p` is the entry of a finished option-scan function with the signature
            // and behaviour stated above; `Code` keeps its memory alive as long as the
            // pointer can be reached (see `Menu`).
            unsafe { std::mem::transmute::<*const u8, MenuFn>(p) }
        })
    }

    /// Like [`Code::finish`], for a round: the same invariants hold, and besides its
    /// helpers the code calls other finished functions of the model (statement runs, end
    /// conditions, option scans) at their addresses, constants of the code, with the
    /// signatures they were declared with: the [`crate::runtime::abi::Round`] holds the `Code` of each of
    /// them, so they live as long as the round. The option buffer it passes to a scan is
    /// `Env::opts` (through a helper, once per call), which [`crate::runtime::abi::Round::call`] checks
    /// holds the largest of those scans' capacities and which no code resizes.
    pub(super) fn finish_round(
        module: JITModule,
        ids: &[FuncId],
    ) -> Result<(Arc<Code>, Vec<NativeFn>), String> {
        Code::finish_as(module, ids, |p| {
            // SAFETY: `p` is the entry of a finished round function with the signature and
            // behaviour stated above; `Code` keeps its memory alive (see `Round`).
            unsafe { std::mem::transmute::<*const u8, NativeFn>(p) }
        })
    }

    fn finish_as<F>(
        mut module: JITModule,
        ids: &[FuncId],
        as_fn: impl Fn(*const u8) -> F,
    ) -> Result<(Arc<Code>, Vec<F>), String> {
        module
            .finalize_definitions()
            .map_err(|e| format!("cannot finalize the machine code: {e}"))?;
        let fns = ids
            .iter()
            .map(|&id| as_fn(module.get_finalized_function(id)))
            .collect();
        Ok((
            Arc::new(Code {
                module: Some(module),
            }),
            fns,
        ))
    }
}

impl Code {
    /// Where function `id` of this code begins (for a profiler's map of the code).
    pub(super) fn address(&self, id: FuncId) -> usize {
        self.module
            .as_ref()
            .map_or(0, |m| m.get_finalized_function(id) as usize)
    }

    /// The machine code of function `id`, its first `size` bytes (the size its compile
    /// reported), for a disassembler.
    pub(super) fn bytes(&self, id: FuncId, size: u32) -> &[u8] {
        let Some(m) = &self.module else {
            return &[];
        };
        let at = m.get_finalized_function(id);
        // SAFETY: `at` is the entry of a finalized function of this module, whose code is
        // `size` bytes of readable, immutable memory (Cranelift reported that size when it
        // emitted it), kept alive by `self` for the returned slice's lifetime.
        unsafe { std::slice::from_raw_parts(at, size as usize) }
    }
}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(m) = self.module.take() {
            // SAFETY: the last `Arc<Code>` is going, and every function pointer made from
            // this module lives in a handle (`runtime::abi`) that holds one of those `Arc`s, so no pointer
            // into the memory can be called after this.
            unsafe { m.free_memory() }
        }
    }
}
