//! Interrupts: Ctrl-C (SIGINT) and SIGTERM ask a command to stop, cleanly.
//!
//! Owns the process's stop flag. The handlers only store the signal's exit code (130 for
//! SIGINT, 143 for SIGTERM) in an atomic; runs poll [`stopped`] between chunks of games and
//! writers between files, so a stop never leaves a half-written or temporary file behind.
//! A second signal while the first is being honoured ends the process at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The exit code the received signal asks for; 0 while none has arrived.
static CODE: AtomicUsize = AtomicUsize::new(0);
/// Set by the first signal: a second one of the same kind terminates at once.
static SEEN: AtomicBool = AtomicBool::new(false);

/// Installs the handlers (once; later calls do nothing).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        use signal_hook::consts::{SIGINT, SIGTERM};
        for (sig, code) in [(SIGINT, 130), (SIGTERM, 143)] {
            // Order matters: the conditional shutdown runs first and sees the flag only when an
            // earlier signal set it. Registration fails only for forbidden signals, not these.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, code as i32, &SEEN);
            let _ = signal_hook::flag::register(sig, &SEEN);
            let _ = signal_hook::flag::register_usize(sig, &CODE, code);
        }
    });
}

/// Whether a stop was asked for.
pub fn stopped() -> bool {
    CODE.load(Ordering::Relaxed) != 0
}

/// The exit code of an interrupted command: 143 after SIGTERM, 130 after Ctrl-C.
pub fn exit_code() -> i32 {
    match CODE.load(Ordering::Relaxed) {
        0 => 130,
        c => c as i32,
    }
}
