//! Report-folder locks: one vpsim run writes a folder at a time.
//!
//! Owns [`LOCK`], the lock file a run holds an advisory lock on (`flock`, through the
//! standard library's `File::try_lock`) from the moment it knows it will write a folder
//! until it exits. A second run into the same folder finds the lock taken and stops at once,
//! naming the run that holds it (its process id and command, which the holder writes into
//! the file). The holder removes the file as it finishes; a run that dies leaves the file,
//! unlocked, and the next run takes it over. Because the file can be removed between a
//! run's open and its lock, a run keeps a lock only on the file its path still names.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// The lock file's name, in the report folder.
pub const LOCK: &str = ".vpsim-lock";

/// A lock this process holds: the lock file, open and locked, and the folders made for it
/// (innermost first), removed at release if they are empty.
struct Held {
    path: PathBuf,
    file: File,
    made: Vec<PathBuf>,
}

/// The locks this process holds.
static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// Locks the report folder `dir` (which exists) for this process, or refuses with exit 2
/// when another run holds it; `made` are the folders this run made for it, removed at
/// release if the run wrote nothing there. Locking a folder this process already holds is
/// a no-op.
pub(super) fn lock(dir: &Path, made: Vec<PathBuf>) -> Result<()> {
    let path = dir.join(LOCK);
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    if held.iter().any(|h| h.path == path) {
        return Ok(());
    }
    let cannot = |source: std::io::Error| Error::Write {
        what: path.display().to_string(),
        source,
    };
    loop {
        let mut options = OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        // Never through a link: a planted `.vpsim-lock` symbolic link (dangling or not) is
        // refused by the open itself, a hard link by its link count below.
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW);
        }
        let mut file = options.open(&path).map_err(|e| not_a_lock(&path, e))?;
        if !plain_file(&file) {
            return Err(not_a_lock(&path, std::io::ErrorKind::InvalidInput.into()));
        }
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = (&file).take(4096).read_to_string(&mut holder);
                let holder = holder.trim();
                let holder = if holder.is_empty() {
                    "another vpsim run".to_string()
                } else {
                    format!("another vpsim run, {holder}")
                };
                return Err(Error::Usage(format!(
                    "--out {}: {holder}, is writing this folder: wait for it to finish, or name another folder",
                    dir.display()
                )));
            }
            Err(TryLockError::Error(e)) => return Err(cannot(e)),
        }
        // The holder before us may have removed the file between our open and our lock:
        // then the lock is on a file no other run will open, and we start again.
        if !same_file(&path, &file) {
            continue;
        }
        let who = format!("process {} ({})", std::process::id(), command());
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(who.as_bytes()))
            .map_err(cannot)?;
        held.push(Held { path, file, made });
        return Ok(());
    }
}

/// The error for a lock file vpsim will not write: a link, or not a plain file.
fn not_a_lock(path: &Path, e: std::io::Error) -> Error {
    #[cfg(unix)]
    let link = e.raw_os_error() == Some(libc::ELOOP);
    #[cfg(not(unix))]
    let link = false;
    if link || e.kind() == std::io::ErrorKind::InvalidInput {
        return Error::Usage(format!(
            "{} is a link or not a plain file, so vpsim will not write it: remove it (vpsim makes its own lock file there), or name another folder",
            path.display()
        ));
    }
    Error::Write {
        what: path.display().to_string(),
        source: e,
    }
}

/// Whether `file` is a plain file with one name (not a hard link to a file elsewhere).
#[cfg(unix)]
fn plain_file(file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    file.metadata().is_ok_and(|m| m.is_file() && m.nlink() == 1)
}

/// Whether `file` is a plain file.
#[cfg(not(unix))]
fn plain_file(file: &File) -> bool {
    file.metadata().is_ok_and(|m| m.is_file())
}

/// This run's command line, shown to a run that finds the folder locked (its first 200
/// characters: enough to tell runs apart).
fn command() -> String {
    let words = std::env::args_os()
        .skip(1)
        .map(|a| crate::error::shell_word(&a.to_string_lossy()));
    let line = std::iter::once("vpsim".to_string())
        .chain(words)
        .collect::<Vec<_>>()
        .join(" ");
    match line.char_indices().nth(200) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line,
    }
}

/// Whether `path` still names the open `file`.
#[cfg(unix)]
fn same_file(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(path), file.metadata()) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether `path` still names the open `file` (elsewhere, where an open file cannot be
/// removed, it always does).
#[cfg(not(unix))]
fn same_file(path: &Path, _file: &File) -> bool {
    path.exists()
}

/// Releases every folder this process locked, removing the lock files while still holding
/// them (a run that opened one meanwhile sees it gone and opens the new one), then the
/// folders made for them that stayed empty.
pub(super) fn release_all() {
    let mut held = HELD.lock().unwrap_or_else(|e| e.into_inner());
    for h in held.drain(..) {
        let _ = std::fs::remove_file(&h.path);
        drop(h.file);
        for d in &h.made {
            let _ = std::fs::remove_dir(d);
        }
    }
}
