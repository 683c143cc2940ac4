//! Naming the machine code for a profiler: with `VPSIM_PERF_MAP` set, every finished
//! function is listed in `/tmp/perf-PID.map` (the map `perf` reads for code made at run
//! time: start, size and name, in hexadecimal), and with `VPSIM_CODE_DIR=DIR` its
//! Cranelift disassembly and its bytes are written to `DIR/ADDRESS-NAME.s` and `.bin`
//! (`objdump -D -b binary -m i386:x86-64 --adjust-vma=0xADDRESS FILE.bin`).
//!
//! A developer's tool: callgrind and perf show generated code as bare addresses, and this
//! is how they are matched to the round, an agent's turn or an effect list (ARCHITECTURE.md,
//! "Profiling the machine code"). Nothing is written when neither variable is set.

use std::io::Write;
use std::sync::{Mutex, OnceLock};

use cranelift_module::FuncId;

use super::jit::Code;

/// What the profile writes: the perf map, the disassembly folder.
struct Settings {
    map: bool,
    dir: Option<std::path::PathBuf>,
}

fn settings() -> &'static Settings {
    static S: OnceLock<Settings> = OnceLock::new();
    S.get_or_init(|| Settings {
        map: std::env::var_os("VPSIM_PERF_MAP").is_some(),
        dir: std::env::var_os("VPSIM_CODE_DIR").map(Into::into),
    })
}

/// Whether functions are being named (the compile then keeps each one's disassembly).
pub(super) fn enabled() -> bool {
    let s = settings();
    s.map || s.dir.is_some()
}

/// One compiled function: its id, what it is, its size in bytes and disassembly.
pub(super) struct Named {
    pub id: FuncId,
    pub what: String,
    pub size: u32,
    pub text: String,
}

/// Lists the functions of `code`. A profile that cannot be written is a developer's
/// problem, not the run's: it is skipped (with a note on stderr), never an error.
pub(super) fn write(code: &Code, named: &[Named]) {
    static LOCK: Mutex<()> = Mutex::new(());
    let _held = LOCK.lock();
    let s = settings();
    let mut map = String::new();
    for n in named {
        let at = code.address(n.id);
        let name = n.what.replace(|c: char| !c.is_ascii_alphanumeric(), "_");
        map.push_str(&format!("{at:x} {:x} vpsim:{name}\n", n.size));
        if let Some(dir) = &s.dir {
            let path = dir.join(format!("{at:x}-{name}"));
            let written = std::fs::create_dir_all(dir)
                .and_then(|_| std::fs::write(path.with_extension("s"), &n.text))
                .and_then(|_| std::fs::write(path.with_extension("bin"), code.bytes(n.id, n.size)));
            if let Err(e) = written {
                crate::diagnostic::say(&format!(
                    "VPSIM_CODE_DIR: cannot write {}: {e}",
                    path.display()
                ));
            }
        }
    }
    if s.map {
        let path = format!("/tmp/perf-{}.map", std::process::id());
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path);
        if let Err(e) = file.and_then(|mut f| f.write_all(map.as_bytes())) {
            crate::diagnostic::say(&format!("VPSIM_PERF_MAP: cannot write {path}: {e}"));
        }
    }
}
