//! Report folders (`--out DIR`): what a run may replace, and what it must never touch.
//!
//! Owns the folder's manifest ([`MANIFEST`]): the files vpsim wrote there for its report,
//! relative to the folder, rewritten atomically after each file the report writes. `--force`
//! removes exactly the files the manifest lists and nothing else: a folder with files and no
//! manifest, or with files its manifest does not list, is someone else's, and the run is
//! refused before a game is played. Temporary files are vpsim's only when their name is of
//! the form only vpsim makes ([`super::temp_path`]); a run removes a dead run's temporary
//! files only once it goes on to write its report.

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

/// The report folders this process is writing, each with the files written so far (a
/// process writes one report at a time, but a folder may hold the reports of two
/// variants, so files are matched to the folder that contains them).
static OPEN: Mutex<Vec<(PathBuf, Vec<String>)>> = Mutex::new(Vec::new());

/// The earlier report of each folder [`prepare_dir`] checked, as its manifest listed it
/// then (before any game): the only files [`clear_report`] removes. A manifest rewritten
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
fn innermost(open: &[(PathBuf, Vec<String>)], path: &Path) -> Option<usize> {
    (0..open.len())
        .filter(|&i| path.starts_with(&open[i].0))
        .max_by_key(|&i| open[i].0.components().count())
}

/// Records that the report being written put `path` in place (every atomic write calls it;
/// a file streamed to a [`super::temp_path`] and renamed by its writer calls it too): the
/// manifest of the open report folder that contains it is rewritten to list it.
pub fn record(path: &Path) -> Result<()> {
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    let Some(i) = innermost(&open, path) else {
        return Ok(());
    };
    let (dir, files) = &mut open[i];
    let Some(rel) = path.strip_prefix(&*dir).ok().and_then(manifest_path) else {
        return Ok(());
    };
    if rel == MANIFEST {
        return Ok(());
    }
    if !files.contains(&rel) {
        files.push(rel);
    }
    let manifest = Manifest {
        vpsim_version: env!("CARGO_PKG_VERSION").to_string(),
        files: files.clone(),
    };
    let json = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
    write_bytes(&dir.join(MANIFEST), &json)
}

/// The files the report being written has put in `dir` (or a folder below it) so far,
/// relative to `dir`, in order: each one complete, since each was put in place whole.
pub fn written(dir: &Path) -> Vec<String> {
    let open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    let Some(i) = innermost(&open, dir) else {
        return Vec::new();
    };
    let (root, files) = &open[i];
    files
        .iter()
        .filter_map(|f| root.join(f).strip_prefix(dir).ok().and_then(manifest_path))
        .collect()
}

/// Removes the temporary files that a dead run (killed, or stopped by a power loss) left in
/// `dir`: regular files named as only vpsim names them, whose process is not running.
fn remove_leftovers(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let regular = e.file_type().is_ok_and(|k| k.is_file());
        if regular && temp_pid(&name).is_some_and(|pid| !alive(pid)) {
            let _ = std::fs::remove_file(e.path());
        }
    }
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
        if kind.is_some_and(|k| k.is_dir()) && listed_dir(&rel) {
            foreign(&e.path(), &format!("{rel}/"), listed, found);
        } else if kind.is_some_and(|k| k.is_file())
            && (listed.contains(rel.as_str())
                || (prefix.is_empty() && name == MANIFEST)
                || name == super::lock::LOCK
                || temp_pid(&name).is_some())
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
/// [`clear_report`] removes once the new results are in). Nothing is removed here.
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
    super::lock::lock(dir, made)?;
    // The lock file is no file of the user's (a run that died may have left it).
    let busy = std::fs::read_dir(dir)
        .is_ok_and(|d| d.flatten().any(|e| e.file_name() != super::lock::LOCK));
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
    probe(dir, || format!("into the folder {shown}"))
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

/// Starts writing the report of `dir`: removes the files of the earlier report that its
/// manifest listed when [`prepare_dir`] checked it, before the games (regular files only,
/// never through a link, whatever a writer changed since), a dead run's temporary files,
/// and the folders the earlier report made once they are empty; from here on, each file
/// written into `dir` is added to a new manifest.
pub fn clear_report(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Write {
        what: dir.display().to_string(),
        source,
    })?;
    super::lock::lock(dir, Vec::new())?;
    // The listing checked before the games (nothing when the folder was empty then).
    let old = Manifest {
        files: verified_listing(dir),
        ..Manifest::default()
    };
    remove_leftovers(dir);
    for d in folders_of(&old.files) {
        if real_folder(dir, &d) {
            remove_leftovers(&dir.join(&d));
        }
    }
    for f in &old.files {
        let path = dir.join(f);
        let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        if regular && no_link_below(dir, f) {
            std::fs::remove_file(&path).map_err(|source| Error::Write {
                what: path.display().to_string(),
                source,
            })?;
        }
    }
    for d in folders_of(&old.files) {
        if real_folder(dir, &d) {
            let _ = std::fs::remove_dir(dir.join(d));
        }
    }
    let _ = std::fs::remove_file(dir.join(MANIFEST));
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    open.retain(|(d, _)| d != dir);
    open.push((dir.to_path_buf(), Vec::new()));
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
