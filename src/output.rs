//! Files: written atomically, read with a size limit.
//!
//! Owns the rule that no output file is ever left half-written (each is written to a
//! temporary file in the same folder, named as only vpsim names files, and renamed into
//! place), report folders and their manifests (`folder`: what `--force` may replace, what
//! is refused), and reading an input file without exhausting memory. What the files hold belongs to the layers that write them (the
//! report's formats live in [`crate::report`]).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

mod folder;
mod lock;

pub use folder::{
    MANIFEST, abandon_reports, begin_report, finish_reports, prepare_dir, record, staged, written,
};
pub use lock::LOCK;

/// Ends this process's writing of report folders: drops any report begun and not finished
/// ([`abandon_reports`]), then releases the folders' locks.
pub fn release_locks() {
    abandon_reports();
    lock::release_all();
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename. When
/// `path` is inside the report folder being written, the folder's manifest lists it.
/// A report's file is written into the report's staging folder ([`staged`]); a signal that
/// arrived meanwhile stops the report here.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    if crate::signal::stopped() {
        return Err(Error::Interrupted);
    }
    // An error names the file where the report puts it, not its staged path.
    write_bytes(&staged(path), bytes).map_err(|e| match e {
        Error::Write { source, .. } => Error::Write {
            what: path.display().to_string(),
            source,
        },
        e => e,
    })?;
    record(path)
}

/// [`write_atomic`] without recording the file in a manifest.
fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    let what = || path.display().to_string();
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        what: dir.display().to_string(),
        source,
    })?;
    let (result, tmp) = match create_temp(dir) {
        Ok((mut file, tmp)) => {
            use std::io::Write;
            let written = file.write_all(bytes);
            drop(file);
            (
                written.and_then(|()| std::fs::rename(&tmp, path)),
                Some(tmp),
            )
        }
        Err(e) => (Err(e), None),
    };
    if let Err(source) = result {
        if let Some(tmp) = tmp {
            let _ = std::fs::remove_file(&tmp);
        }
        return Err(Error::Write {
            what: what(),
            source,
        });
    }
    Ok(())
}

/// A new temporary file's path in `dir`, named as only vpsim names files:
/// `.vpsim-PID-N.tmp`, with this process's id and a number new in this process. Only such
/// files are ever cleaned up, and only when their process is gone.
pub fn temp_path(dir: &Path) -> PathBuf {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".vpsim-{}-{n}.tmp", std::process::id()))
}

/// Creates a new temporary file in `dir` ([`temp_path`]) with exclusive create: a name that
/// is taken (by a file, a link or a hard link someone planted) is never opened, the next
/// name is tried instead. Returns the open file and its path.
pub fn create_temp(dir: &Path) -> std::io::Result<(std::fs::File, PathBuf)> {
    let mut tries = 0;
    loop {
        let tmp = temp_path(dir);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => return Ok((f, tmp)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 10_000 => {
                tries += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// The process id in the name of a temporary file vpsim wrote (`.vpsim-PID-N.tmp`), if
/// `name` is exactly one.
fn temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(".vpsim-")?.strip_suffix(".tmp")?;
    let (pid, n) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n))
        .then(|| pid.parse().ok())
        .flatten()
}

/// Whether process `pid` is running. Where that cannot be told (no `/proc`), only this
/// process counts as running, so another run's leftovers are removed.
fn alive(pid: u32) -> bool {
    pid == std::process::id()
        || (Path::new("/proc/self").exists() && Path::new("/proc").join(pid.to_string()).exists())
}

/// Checks that files can be created in `dir` by writing and removing an empty temporary
/// file; `what` names the target in the error.
fn probe(dir: &Path, what: impl Fn() -> String) -> Result<()> {
    let (_, file) = create_temp(dir).map_err(|source| Error::Write {
        what: what(),
        source,
    })?;
    let _ = std::fs::remove_file(&file);
    Ok(())
}

/// Where a single output file goes (`--junit PATH`).
enum Target {
    /// Standard output (`-`).
    Stdout,
    /// An existing file that is not a regular file (a device, a FIFO): written through.
    Through(PathBuf),
    /// A regular file (or a new one), replaced atomically; symlinks resolved to their target.
    Replace(PathBuf),
}

fn target(path: &Path, flag: &str) -> Result<Target> {
    if path.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    let shown = path.display();
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(Error::Usage(format!(
            "{flag} {shown}: this is a folder: name a file"
        ))),
        Ok(m) if !m.is_file() => Ok(Target::Through(path.to_path_buf())),
        Ok(_) if link => std::fs::canonicalize(path)
            .map(Target::Replace)
            .map_err(|source| Error::Write {
                what: shown.to_string(),
                source,
            }),
        Err(_) if link => Err(Error::Usage(format!(
            "{flag} {shown}: this is a symbolic link to a file that does not exist: name the file itself"
        ))),
        _ => Ok(Target::Replace(path.to_path_buf())),
    }
}

/// Checks, before any game is played, that a single output file can be written: `-` and
/// existing devices or FIFOs always can; otherwise its folder must exist and take files.
pub fn check_file(path: &Path, flag: &str) -> Result<()> {
    if let Target::Replace(p) = target(path, flag)? {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !dir.is_dir() {
            return Err(Error::Usage(format!(
                "{flag} {}: the folder {} does not exist",
                path.display(),
                dir.display()
            )));
        }
        probe(dir, || path.display().to_string())?;
    }
    Ok(())
}

/// Writes a single output file named by the user: `-` is standard output, a device or FIFO
/// is written through (never replaced), a symlink is followed, and a regular file is
/// replaced atomically.
#[expect(
    clippy::disallowed_methods,
    reason = "`-` names stdout as the file: its bytes are a file format (JSON, XML), written as they are"
)]
pub fn write_file(path: &Path, flag: &str, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let fail = |source| Error::Write {
        what: path.display().to_string(),
        source,
    };
    match target(path, flag)? {
        Target::Stdout => {
            let mut o = std::io::stdout().lock();
            o.write_all(bytes).and_then(|_| o.flush()).map_err(fail)
        }
        Target::Through(p) => write_through(&p, bytes).map_err(|e| match e {
            Through::Stopped => Error::Interrupted,
            Through::Io(source) => fail(source),
        }),
        Target::Replace(p) => write_atomic(&p, bytes),
    }
}

/// Why [`write_through`] did not write.
enum Through {
    /// Ctrl-C or SIGTERM while it waited for a reader or for room.
    Stopped,
    /// The file could not be opened or written.
    Io(std::io::Error),
}

/// Writes `bytes` into a file that is written in place (a FIFO, a device). On Unix it is
/// opened without blocking, so a FIFO with no reader yet waits in a loop that Ctrl-C and
/// SIGTERM end, instead of in open(2), which the signal handlers cannot interrupt; a full
/// pipe waits the same way.
fn write_through(p: &Path, bytes: &[u8]) -> std::result::Result<(), Through> {
    use std::io::{ErrorKind, Write};
    let pause = || {
        if crate::signal::stopped() {
            return Err(Through::Stopped);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        Ok(())
    };
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut f = loop {
        match options.open(p) {
            Ok(f) => break f,
            // A FIFO nobody reads yet.
            #[cfg(unix)]
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) => pause()?,
            Err(e) => return Err(Through::Io(e)),
        }
    };
    let mut rest = bytes;
    while !rest.is_empty() {
        match f.write(rest) {
            Ok(0) => return Err(Through::Io(ErrorKind::WriteZero.into())),
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == ErrorKind::WouldBlock => pause()?,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(Through::Io(e)),
        }
    }
    Ok(())
}

/// Why [`read_limited`] did not read a file.
#[derive(Debug)]
pub enum Refused {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// It is a folder.
    Folder,
    /// It is a device, a FIFO or a socket.
    NotRegular,
    /// It is (or grew, while being read) larger than the limit; the size seen.
    TooLarge(u64),
}

/// Reads a regular file of at most `max` bytes: input files must never exhaust memory, and a
/// device such as `/dev/zero` is refused before it is read.
pub fn read_limited(path: &Path, max: u64) -> std::result::Result<Vec<u8>, Refused> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(Refused::Io)?;
    if meta.is_dir() {
        return Err(Refused::Folder);
    }
    if !meta.is_file() {
        return Err(Refused::NotRegular);
    }
    if meta.len() > max {
        return Err(Refused::TooLarge(meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
        .map_err(Refused::Io)?;
    if bytes.len() as u64 > max {
        return Err(Refused::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_temporary_name_already_taken_is_never_opened() {
        let dir = std::env::temp_dir().join(format!("vpsim-unit-temp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // The next name temp_path gives is taken by someone else's file: it must survive.
        let last = temp_path(&dir);
        let name = last.file_name().unwrap().to_str().unwrap();
        let n: u64 = name
            .rsplit('-')
            .next()
            .unwrap()
            .trim_end_matches(".tmp")
            .parse()
            .unwrap();
        let planted = dir.join(format!(".vpsim-{}-{}.tmp", std::process::id(), n + 1));
        std::fs::write(&planted, "theirs").unwrap();
        let (file, made) = create_temp(&dir).unwrap();
        drop(file);
        assert_ne!(made, planted);
        assert_eq!(std::fs::read_to_string(&planted).unwrap(), "theirs");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_vpsims_own_temporary_names_carry_a_process() {
        let tmp = temp_path(Path::new("d"));
        let name = tmp.file_name().unwrap().to_str().unwrap();
        assert_eq!(temp_pid(name), Some(std::process::id()));
        assert_ne!(temp_path(Path::new("d")), tmp, "each temporary file is new");
        assert_eq!(temp_pid(".vpsim-123-0.tmp"), Some(123));
        // Names a user may well have: never vpsim's.
        for name in [
            ".tally.json.123.tmp",
            ".thesis.99999.tmp",
            ".chapter.88888.tmp.docx",
            ".vpsim-123-0.tmp.png",
            ".vpsim-12a-0.tmp",
            ".vpsim--0.tmp",
            "vpsim-123-0.tmp",
            "tally.json",
        ] {
            assert_eq!(temp_pid(name), None, "{name}");
        }
    }
}
