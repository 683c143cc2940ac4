//! Files: written atomically, read with a size limit.
//!
//! Owns the rule that no output file is ever left half-written (each is written to a
//! temporary file in the same folder and renamed into place), the preparation of an `--out`
//! folder (what may be replaced, what is refused), and reading an input file without
//! exhausting memory. What the files hold belongs to the layers that write them (the
//! report's formats live in [`crate::report`]).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Writes `bytes` to `path` atomically: a temporary file beside it, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let what = || path.display().to_string();
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        what: dir.display().to_string(),
        source,
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let tmp: PathBuf = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = std::fs::write(&tmp, bytes).and_then(|_| std::fs::rename(&tmp, path));
    if let Err(source) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::Write {
            what: what(),
            source,
        });
    }
    Ok(())
}

/// The process id in the name of a temporary file vpsim writes (`.NAME.PID.tmp`,
/// `.NAME.PID.tmp.png`), if `name` is one.
fn temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix('.')?;
    let parts: Vec<&str> = rest.split('.').collect();
    (1..parts.len())
        .find(|&k| parts[k] == "tmp")
        .and_then(|k| parts[k - 1].parse().ok())
}

/// Whether process `pid` is running. Where that cannot be told (no `/proc`), only this
/// process counts as running, so another run's leftovers are removed.
fn alive(pid: u32) -> bool {
    pid == std::process::id()
        || (Path::new("/proc/self").exists() && Path::new("/proc").join(pid.to_string()).exists())
}

/// Files vpsim writes into a report folder, by name: the only files `--force` replaces.
fn is_report_file(name: &str) -> bool {
    const NAMES: [&str; 8] = [
        "summary.json",
        "tune.json",
        "tally.json",
        "compare.json",
        "sweep.json",
        "sensitivity.json",
        "report.md",
        "report.html",
    ];
    const EXTS: [&str; 4] = ["parquet", "png", "svg", "csv"];
    NAMES.contains(&name)
        || Path::new(name)
            .extension()
            .is_some_and(|e| EXTS.iter().any(|x| e == *x))
}

/// Subfolders vpsim writes into a report folder (`compare`'s variants, the CSV tables).
const REPORT_DIRS: [&str; 3] = ["a", "b", "csv"];

/// Removes temporary files that a killed run (SIGKILL, power loss) left in `dir`.
fn remove_leftovers(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        if temp_pid(&name).is_some_and(|pid| !alive(pid)) {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// What `dir` holds that vpsim did not write (paths relative to `dir`).
fn foreign(dir: &Path, prefix: &str, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let kind = e.file_type().ok();
        let is_dir = kind.is_some_and(|k| k.is_dir());
        // vpsim's folders: `a`, `b` and `csv` at the top, and a compare's `a/csv`, `b/csv`.
        let ours = if prefix.is_empty() {
            REPORT_DIRS.contains(&name.as_str())
        } else {
            matches!(prefix, "a/" | "b/") && name == "csv"
        };
        if is_dir && ours {
            foreign(&e.path(), &format!("{prefix}{name}/"), found);
        } else if is_dir || kind.is_some_and(|k| k.is_symlink()) || !is_report_file(&name) {
            found.push(format!("{prefix}{name}"));
        }
    }
}

/// Checks a report folder before any game is played, so that a run never ends in an error
/// about its output: `dir` is a folder (or can be made one), vpsim can write into it, and it
/// is empty, or `force` is given and it holds only an earlier vpsim report (which
/// [`clear_report`] removes once the new results are in). Temporary files of a killed run
/// are removed first.
pub fn prepare_dir(dir: &Path, force: bool) -> Result<()> {
    let shown = dir.display();
    if let Ok(meta) = std::fs::metadata(dir)
        && !meta.is_dir()
    {
        return Err(Error::Usage(format!(
            "--out {shown}: this is a file, not a folder: name a folder for the report"
        )));
    }
    remove_leftovers(dir);
    for sub in REPORT_DIRS {
        remove_leftovers(&dir.join(sub));
    }
    let mut found = Vec::new();
    foreign(dir, "", &mut found);
    let busy = std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some());
    if busy && !force {
        return Err(Error::Usage(format!(
            "--out {shown}: the folder already holds files: add --force to replace the report in it, or name another folder"
        )));
    }
    if !found.is_empty() {
        found.sort();
        let more = if found.len() > 5 {
            format!(" and {} more", found.len() - 5)
        } else {
            String::new()
        };
        found.truncate(5);
        return Err(Error::Usage(format!(
            "--out {shown}: --force replaces only an earlier vpsim report, and the folder also holds {}{more}: name another folder or move those files",
            found.join(", ")
        )));
    }
    // The folders this check makes are removed again once it has written into them: the
    // report makes them when it is written, so a run that stops before then (an error, a
    // fault, Ctrl-C) leaves no empty folder behind.
    let made: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .map(Path::to_path_buf)
        .collect();
    std::fs::create_dir_all(dir).map_err(|source| {
        Error::Usage(format!(
            "--out {shown}: cannot make this folder ({source}): name a folder vpsim can create"
        ))
    })?;
    let probed = probe(dir, || format!("into the folder {shown}"));
    for d in &made {
        let _ = std::fs::remove_dir(d);
    }
    probed
}

/// Checks that files can be created in `dir` by writing and removing an empty temporary
/// file; `what` names the target in the error.
fn probe(dir: &Path, what: impl Fn() -> String) -> Result<()> {
    let file = dir.join(format!(".vpsim-probe.{}.tmp", std::process::id()));
    std::fs::write(&file, b"").map_err(|source| Error::Write {
        what: what(),
        source,
    })?;
    let _ = std::fs::remove_file(&file);
    Ok(())
}

/// Removes the files of an earlier report from `dir` (only names vpsim writes; see
/// [`prepare_dir`]), so that the new report replaces it whole.
pub fn clear_report(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let kind = e.file_type().ok();
        let result = if kind.is_some_and(|k| k.is_dir()) && REPORT_DIRS.contains(&name.as_str()) {
            clear_report(&e.path()).and_then(|_| std::fs::remove_dir(e.path()).or(Ok(())))
        } else if kind.is_some_and(|k| k.is_file()) && is_report_file(&name) {
            std::fs::remove_file(e.path()).map_err(|source| Error::Write {
                what: e.path().display().to_string(),
                source,
            })
        } else {
            Ok(())
        };
        result?;
    }
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
        Target::Through(p) => std::fs::OpenOptions::new()
            .write(true)
            .open(&p)
            .and_then(|mut f| f.write_all(bytes))
            .map_err(fail),
        Target::Replace(p) => write_atomic(&p, bytes),
    }
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
    fn temporary_names_carry_their_process() {
        assert_eq!(temp_pid(".tally.json.123.tmp"), Some(123));
        assert_eq!(temp_pid(".wins.45.tmp.png"), Some(45));
        assert_eq!(temp_pid("tally.json"), None);
        assert_eq!(temp_pid(".notes.tmp"), None);
        assert!(is_report_file("wins.png") && is_report_file("report.md"));
        assert!(!is_report_file("notes.txt"));
    }
}
