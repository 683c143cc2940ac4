//! Report folders (`--out DIR`): what a run may replace, and what it must never touch.
//!
//! Owns the folder's manifest ([`MANIFEST`]): the files vpsim wrote there for its report,
//! relative to the folder. A report is staged: [`begin_report`] makes a fresh folder inside
//! the report folder, every file of the report is written there ([`staged`]), and
//! [`finish_reports`] puts the whole report in place once the command has succeeded (an
//! error or a signal drops it: [`abandon_reports`]). `--force` removes exactly the files
//! the manifest listed before the games, and only then; a folder with files and no
//! manifest, or with files its manifest does not list, is someone else's, and the run is
//! refused before a game is played. Temporary files and staging folders are vpsim's only
//! when their name is of the form only vpsim makes ([`super::temp_path`]), a staging folder
//! only with its mark; a run removes a dead run's only once it goes on to write its report.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::{alive, probe, temp_pid, write_bytes};
use crate::error::{Error, Result};

/// The manifest's file name, in the report folder.
pub const MANIFEST: &str = ".vpsim-manifest.json";

/// The manifest: the files of the folder's report, as `/`-separated paths relative to it.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Manifest {
    /// The vpsim version that wrote the report.
    vpsim_version: String,
    /// The report's files.
    files: Vec<String>,
}

/// A report being written: the report folder, the fresh folder inside it that holds the
/// report until it is complete ([`stage_of`]), and the files written so far (relative to
/// the report folder).
struct Open {
    dir: PathBuf,
    stage: PathBuf,
    files: Vec<String>,
}

/// The reports this process is writing (a process writes one report at a time; the list
/// allows a report folder inside another's).
static OPEN: Mutex<Vec<Open>> = Mutex::new(Vec::new());

/// The earlier report of each folder [`prepare_dir`] checked, as its manifest listed it
/// then (before any game): the only files [`finish_reports`] removes. A manifest rewritten
/// while the games run changes nothing.
static VERIFIED: Mutex<Vec<(PathBuf, Vec<String>)>> = Mutex::new(Vec::new());

/// A path relative to a report folder as the manifest writes it, or `None` when `rel`
/// could lead out of the folder (an absolute path, `..`).
fn manifest_path(rel: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for c in rel.components() {
        match c {
            Component::Normal(p) => parts.push(p.to_str()?.to_string()),
            _ => return None,
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The manifest of `dir`, when it has one vpsim can read.
fn read_manifest(dir: &Path) -> Option<Manifest> {
    let bytes = super::read_limited(&dir.join(MANIFEST), 16 * 1024 * 1024).ok()?;
    let m: Manifest = serde_json::from_slice(&bytes).ok()?;
    // Every entry must stay inside the folder; a manifest that says otherwise is not ours.
    m.files
        .iter()
        .all(|f| manifest_path(Path::new(f)).as_deref() == Some(f.as_str()))
        .then_some(m)
}

/// The open report folder that contains `path` (the innermost, when one holds another).
fn innermost(open: &[Open], path: &Path) -> Option<usize> {
    (0..open.len())
        .filter(|&i| path.starts_with(&open[i].dir))
        .max_by_key(|&i| open[i].dir.components().count())
}

/// Where a file or folder of a report being written is made while it is written: `path`
/// inside the report's staging folder when `path` is in a report folder this process is
/// writing (and not already staged), else `path` itself. Every writer of a report goes
/// through this (atomic writes, streamed tables, chart folders), so a report is built
/// whole in a folder only this run made and nothing planted in the report folder while the
/// games run can redirect a write.
pub fn staged(path: &Path) -> PathBuf {
    let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    match innermost(&open, path) {
        Some(i) if !path.starts_with(&open[i].stage) => {
            let rel = path.strip_prefix(&open[i].dir).unwrap_or(Path::new(""));
            open[i].stage.join(rel)
        }
        _ => path.to_path_buf(),
    }
}

/// Records that the report being written has `path` complete (every atomic write calls
/// it; a file streamed to a [`super::temp_path`] and renamed by its writer calls it too):
/// the report's manifest will list it. `path` is where the file will be once the report is
/// put in place, not its staged path.
pub fn record(path: &Path) -> Result<()> {
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    let Some(i) = innermost(&open, path) else {
        return Ok(());
    };
    let o = &mut open[i];
    let Some(rel) = path.strip_prefix(&o.dir).ok().and_then(manifest_path) else {
        return Ok(());
    };
    if rel != MANIFEST && !o.files.contains(&rel) {
        o.files.push(rel);
    }
    Ok(())
}

/// Writes the manifest of `dir` listing `files` (straight into `dir`, never staged).
fn write_manifest(dir: &Path, files: &[String]) -> Result<()> {
    let manifest = Manifest {
        vpsim_version: env!("CARGO_PKG_VERSION").to_string(),
        files: files.to_vec(),
    };
    let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
    write_bytes(&dir.join(MANIFEST), &json)
}

/// The files the report being written has completed in `dir` (or a folder below it) so
/// far, relative to `dir`, in order.
pub fn written(dir: &Path) -> Vec<String> {
    let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    let Some(i) = innermost(&open, dir) else {
        return Vec::new();
    };
    let o = &open[i];
    (o.files.iter())
        .filter_map(|f| o.dir.join(f).strip_prefix(dir).ok().and_then(manifest_path))
        .collect()
}

/// Removes the temporary files and staging folders that a dead run (killed, or stopped by a
/// power loss) left in `dir`: named as only vpsim names them, whose process is not running.
fn remove_leftovers(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let kind = e.file_type().ok();
        if temp_pid(&name).is_some_and(|pid| !alive(pid)) {
            // Never through a link: only a file, or a dead run's staging folder (removed
            // without following a link inside it).
            if kind.is_some_and(|k| k.is_file()) {
                let _ = std::fs::remove_file(e.path());
            } else if is_stage(&e.path(), kind) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
}

/// The file that marks a staging folder as vpsim's: a folder of the user's that merely
/// has the name form of vpsim's temporary files is never taken for one.
const STAGE_MARK: &str = ".vpsim-stage";

/// Whether `path` (of file type `kind`) is a staging folder vpsim made: a real folder
/// holding [`STAGE_MARK`].
fn is_stage(path: &Path, kind: Option<std::fs::FileType>) -> bool {
    kind.is_some_and(|k| k.is_dir())
        && std::fs::symlink_metadata(path.join(STAGE_MARK)).is_ok_and(|m| m.file_type().is_file())
}

/// The folders of `files` (`a`, `a/csv` for `a/csv/wins.csv`), deepest first.
fn folders_of(files: &[String]) -> Vec<String> {
    let mut dirs = BTreeSet::new();
    for f in files {
        let mut parts: Vec<&str> = f.split('/').collect();
        parts.pop();
        while !parts.is_empty() {
            dirs.insert(parts.join("/"));
            parts.pop();
        }
    }
    let mut dirs: Vec<String> = dirs.into_iter().collect();
    dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
    dirs
}

/// What `dir` holds that its report's manifest does not list (paths relative to `dir`):
/// files, links and folders of the user's. vpsim's own temporary files are not counted.
fn foreign(dir: &Path, prefix: &str, listed: &BTreeSet<&str>, found: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let rel = format!("{prefix}{name}");
        let kind = e.file_type().ok();
        let listed_dir = |d: &str| listed.iter().any(|f| f.starts_with(&format!("{d}/")));
        let ours = temp_pid(&name).is_some()
            && (kind.is_some_and(|k| k.is_file()) || is_stage(&e.path(), kind));
        if ours {
            continue;
        }
        if kind.is_some_and(|k| k.is_dir()) && listed_dir(&rel) {
            foreign(&e.path(), &format!("{rel}/"), listed, found);
        } else if kind.is_some_and(|k| k.is_file())
            && (listed.contains(rel.as_str())
                || (prefix.is_empty() && name == MANIFEST)
                || name == super::lock::LOCK)
        {
            continue;
        } else {
            found.push(rel);
        }
    }
}

/// Checks a report folder before any game is played, so that a run never ends in an error
/// about its output: `dir` is a folder (or can be made one), vpsim can write into it, and it
/// is empty, or `force` is given and it holds only the report its manifest lists (which
/// [`finish_reports`] removes once the new report is complete). Nothing is removed here.
pub fn prepare_dir(dir: &Path, force: bool) -> Result<()> {
    let shown = dir.display();
    if let Ok(meta) = std::fs::metadata(dir)
        && !meta.is_dir()
    {
        return Err(Error::Usage(format!(
            "--out {shown}: this is a file, not a folder: name a folder for the report"
        )));
    }
    // The folder is made (if need be) and locked before it is looked at: a run writing it
    // now holds it, and a second run stops here, before playing. The folders made here are
    // removed again as the lock is released if the run wrote nothing into them (an error, a
    // fault, Ctrl-C).
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
    // A folder vpsim cannot write (a read-only file system, no permission) is a problem of
    // the flag, as a folder it cannot make is: exit 2, before any game.
    let unwritable = |e: Error| match e {
        Error::Write { source, .. } => Error::Usage(format!(
            "--out {shown}: cannot write into this folder ({source}): name a folder vpsim can write"
        )),
        e => e,
    };
    super::lock::lock(dir, made).map_err(unwritable)?;
    // The lock file is no file of the user's (a run that died may have left it).
    // Nor are a dead run's temporary files and staging folder (removed as the report is
    // begun).
    let busy = std::fs::read_dir(dir).is_ok_and(|d| {
        d.flatten().any(|e| {
            let name = e.file_name();
            let kind = e.file_type().ok();
            let temporary = temp_pid(&name.to_string_lossy()).is_some()
                && (kind.is_some_and(|k| k.is_file()) || is_stage(&e.path(), kind));
            name != super::lock::LOCK && !temporary
        })
    });
    if busy && !force {
        return Err(Error::Usage(format!(
            "--out {shown}: the folder already holds files: add --force to replace the report in it, or name another folder"
        )));
    }
    if busy {
        let Some(manifest) = read_manifest(dir) else {
            return Err(Error::Usage(format!(
                "--out {shown}: --force replaces only a report vpsim wrote there, and this folder has no vpsim manifest ({MANIFEST}, which lists a report's files): name another folder, or empty this one"
            )));
        };
        let listed: BTreeSet<&str> = manifest.files.iter().map(String::as_str).collect();
        let mut found = Vec::new();
        foreign(dir, "", &listed, &mut found);
        if found.is_empty() {
            let mut verified = VERIFIED.lock().unwrap_or_else(|e| e.into_inner());
            verified.retain(|(d, _)| d != dir);
            verified.push((dir.to_path_buf(), manifest.files.clone()));
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
                "--out {shown}: --force replaces only the files of the earlier vpsim report, and the folder also holds {}{more}: name another folder or move those files",
                found.join(", ")
            )));
        }
    }
    probe(dir, || format!("into the folder {shown}")).map_err(unwritable)
}

/// The listing [`prepare_dir`] verified for `dir`, or for a folder holding it (then the
/// entries below `dir`, relative to it); nothing when none was verified.
fn verified_listing(dir: &Path) -> Vec<String> {
    let verified = VERIFIED.lock().unwrap_or_else(|e| e.into_inner());
    let Some((root, files)) = (verified.iter())
        .filter(|(d, _)| dir.starts_with(d))
        .max_by_key(|(d, _)| d.components().count())
    else {
        return Vec::new();
    };
    files
        .iter()
        .filter_map(|f| root.join(f).strip_prefix(dir).ok().and_then(manifest_path))
        .collect()
}

/// Whether the folder `rel` (a manifest path) below `dir`, and every folder on the way,
/// is a real folder, not a link: vpsim removes only where the report put its files, never
/// through a link planted since.
fn real_folder(dir: &Path, rel: &str) -> bool {
    let mut at = dir.to_path_buf();
    rel.split('/').filter(|p| !p.is_empty()).all(|p| {
        at.push(p);
        std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_dir())
    })
}

/// Whether no folder on the way from `dir` to the file `rel` (a manifest path) is a link.
fn no_link_below(dir: &Path, rel: &str) -> bool {
    real_folder(dir, rel.rsplit_once('/').map_or("", |(d, _)| d))
}

/// Starts writing the report of `dir` (which [`prepare_dir`] checked): makes a new staging
/// folder inside it, named as only vpsim names temporary files, into which every file of
/// the report is written ([`staged`]) until [`finish_reports`] puts the whole report in
/// place. A dead run's temporary files and staging folders are removed. The earlier report
/// stays untouched until then. Beginning a report already begun does nothing.
pub fn begin_report(dir: &Path) -> Result<()> {
    let cannot = |source| Error::Write {
        what: dir.display().to_string(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(cannot)?;
    super::lock::lock(dir, Vec::new())?;
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    if open.iter().any(|o| o.dir == dir) {
        return Ok(());
    }
    remove_leftovers(dir);
    let stage = make_stage(dir).map_err(cannot)?;
    open.push(Open {
        dir: dir.to_path_buf(),
        stage,
        files: Vec::new(),
    });
    Ok(())
}

/// A new folder in `dir` named as only vpsim names temporary files, made with an exclusive
/// create (a name someone took, a folder or a link, is never used), and marked as a
/// staging folder ([`STAGE_MARK`]).
fn make_stage(dir: &Path) -> std::io::Result<PathBuf> {
    let mut tries = 0;
    loop {
        let stage = super::temp_path(dir);
        match std::fs::create_dir(&stage) {
            Ok(()) => {
                std::fs::write(stage.join(STAGE_MARK), b"")?;
                return Ok(stage);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && tries < 10_000 => {
                tries += 1;
            }
            Err(e) => return Err(e),
        }
    }
}

/// Puts every report begun by [`begin_report`] in place, once it is complete: the staged
/// files take the place of the earlier report's (which goes only now, so a report that
/// fails part way, on a full disk or a signal, leaves the earlier one whole). A signal that
/// arrived while the report was written stops it here (the folder as it was before the
/// run). Anything that appeared in the report folder while the run wrote it, where the
/// report puts a file or folder (a link, someone's folder), is never written through or
/// removed: the report is not put in place and the error names it.
pub fn finish_reports() -> Result<()> {
    let open: Vec<Open> = std::mem::take(&mut *OPEN.lock().unwrap_or_else(|e| e.into_inner()));
    let mut result = Ok(());
    for o in open {
        result = result.and_then(|()| finish(&o));
        let _ = std::fs::remove_dir_all(&o.stage);
    }
    result
}

/// Drops every report begun and not finished (an error, a signal): its staging folder is
/// removed and the report folder holds what it held before the run.
pub fn abandon_reports() {
    let open: Vec<Open> = std::mem::take(&mut *OPEN.lock().unwrap_or_else(|e| e.into_inner()));
    for o in open {
        let _ = std::fs::remove_dir_all(&o.stage);
    }
}

/// Puts one staged report in place (see [`finish_reports`]).
fn finish(o: &Open) -> Result<()> {
    if crate::signal::stopped() {
        return Err(Error::Interrupted);
    }
    let dir = &o.dir;
    let old = verified_listing(dir);
    let listed: BTreeSet<&str> = old.iter().map(String::as_str).collect();
    let old_dirs = folders_of(&old);
    let cannot = |what: &Path, source| Error::Write {
        what: what.display().to_string(),
        source,
    };
    let entries: Vec<std::ffi::OsString> = std::fs::read_dir(&o.stage)
        .map_err(|e| cannot(&o.stage, e))?
        .map(|e| e.map(|e| e.file_name()))
        .filter(|n| n.as_ref().map_or(true, |n| n != STAGE_MARK))
        .collect::<std::io::Result<_>>()
        .map_err(|e| cannot(&o.stage, e))?;
    // Each place the report takes is free, or held by the earlier report (a file it
    // listed, a real folder it made); anything else appeared during the run.
    for name in &entries {
        let dest = dir.join(name);
        let rel = name.to_string_lossy();
        let free = match std::fs::symlink_metadata(&dest) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(e) => return Err(cannot(&dest, e)),
            Ok(m) if m.file_type().is_file() => listed.contains(rel.as_ref()),
            Ok(m) if m.file_type().is_dir() => {
                let mut found = Vec::new();
                foreign(&dest, &format!("{rel}/"), &listed, &mut found);
                old_dirs.iter().any(|d| *d == rel) && found.is_empty()
            }
            Ok(_) => false,
        };
        if !free {
            return Err(cannot(
                &dest,
                std::io::Error::other(
                    "this appeared in the report folder while vpsim wrote the report, and is not vpsim's (a link, a folder or a file): vpsim writes neither into it nor through it, so the new report was not put in place and the folder holds what it held before the run; move it away and run again",
                ),
            ));
        }
    }
    // From here the manifest lists every file of both reports, until only the new one's
    // remain: a run stopped part way leaves a folder `--force` can still replace.
    let mut both = old.clone();
    both.extend(
        o.files
            .iter()
            .filter(|f| !listed.contains(f.as_str()))
            .cloned(),
    );
    write_manifest(dir, &both)?;
    remove_old(dir, &old)?;
    for name in &entries {
        let dest = dir.join(name);
        std::fs::rename(o.stage.join(name), &dest).map_err(|e| cannot(&dest, e))?;
    }
    write_manifest(dir, &o.files)
}

/// Removes the earlier report of `dir`, as its manifest listed it when [`prepare_dir`]
/// checked it before the games (regular files only, never through a link, whatever a
/// writer changed since), then the folders it made once they are empty.
fn remove_old(dir: &Path, old: &[String]) -> Result<()> {
    for f in old {
        let path = dir.join(f);
        let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        if regular && no_link_below(dir, f) {
            std::fs::remove_file(&path).map_err(|source| Error::Write {
                what: path.display().to_string(),
                source,
            })?;
        }
    }
    for d in folders_of(old) {
        if real_folder(dir, &d) {
            remove_leftovers(&dir.join(&d));
            let _ = std::fs::remove_dir(dir.join(d));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_paths_stay_inside_the_folder() {
        assert_eq!(
            manifest_path(Path::new("a/csv/wins.csv")).unwrap(),
            "a/csv/wins.csv"
        );
        assert_eq!(manifest_path(Path::new("../x")), None);
        assert_eq!(manifest_path(Path::new("/etc/passwd")), None);
        assert_eq!(manifest_path(Path::new("")), None);
    }

    #[test]
    fn folders_come_deepest_first() {
        let files = ["a/csv/x.csv".to_string(), "b/y.png".into(), "z.md".into()];
        assert_eq!(folders_of(&files), ["a/csv", "a", "b"]);
    }
}
