//! `vpsim watch`: re-run a scenario each time its file is saved and say what changed.
//!
//! Owns the watch loop: the file watcher (the `notify` crate, on the file's folder so that
//! editors that save by replacing the file are seen too), the settling of a burst of events
//! into one save, and what is printed. The statistics are [`crate::watch`]'s.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

use crate::compare::run_pair;
use crate::error::{Error, Result};
use crate::model::Model;
use crate::overrides::Override;
use crate::report::{RunInfo, Summary, thousands};
use crate::watch::{change_lines, changes, overview, same_factions};

/// Re-run a scenario on every save and print what changed beyond noise.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Each saved version plays the same games (common random numbers) as the \
version before it, so what is printed is what the edit changed: win rates, end reasons and game \
length, only beyond noise. A file that does not load shows its located error and the watch goes \
on. Ctrl-C stops watching (exit 0).

Examples:
  vpsim watch scenarios/race_to_three.toml
  vpsim watch scenarios/race_to_three.toml --games 50000 --set settings.p=0.3"
)]
pub struct Args {
    /// The scenario file (TOML) to watch.
    pub scenario: PathBuf,
    /// Games each version plays (the same games for every version).
    #[arg(long, short = 'n', allow_negative_numbers = true, default_value_t = 20_000, value_parser = super::parse_games)]
    pub games: u64,
    /// Master seed.
    #[arg(long, short = 's', allow_negative_numbers = true, default_value_t = 1, value_parser = super::parse_seed)]
    pub seed: u64,
    /// Worker threads (default: one per core).
    #[arg(long, short = 't', allow_negative_numbers = true, value_parser = super::parse_threads)]
    pub threads: Option<u64>,
    /// The engine (`native` or `interp`; results are identical).
    #[arg(long, value_enum, default_value_t = crate::native::Engine::Native)]
    pub engine: crate::native::Engine,
    /// Override a scenario value in every version, e.g. --set settings.goal=14 (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = crate::overrides::parse_override)]
    pub set: Vec<Override>,
    /// Choose the agents: `--agent POLICY` for every faction, `--agent FACTION=POLICY` for
    /// one (repeatable, applied before --set); POLICY is weighted, greedy, priority,
    /// lookahead, lookahead:N, mcts or mcts:N.
    #[arg(long = "agent", value_name = "[FACTION=]POLICY", value_parser = crate::overrides::parse_agent)]
    pub agent: Vec<crate::overrides::Override>,
    /// Family-wise error rate: the chance that any printed change is noise.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.05, value_parser = super::compare::parse_unit)]
    pub alpha: f64,
}

/// How long the file must stay quiet before a burst of events counts as one save.
const SETTLE: Duration = Duration::from_millis(150);
/// How often the loop looks at Ctrl-C while nothing happens.
const TICK: Duration = Duration::from_millis(50);

/// The last version that loaded, the baseline of the next comparison.
struct Baseline {
    model: Model,
    version: u32,
}

/// Runs `vpsim watch` until Ctrl-C.
pub fn run(a: Args) -> Result<()> {
    let path = a.scenario.clone();
    // The file must be there to start; later it may come and go while an editor saves.
    crate::scenario::read_text(&path)?;
    let mut saves = Saves::new(&path)?;
    say(&format!(
        "watching {}: {} games a version, seed {}; Ctrl-C stops\n",
        path.display(),
        thousands(a.games),
        a.seed
    ))?;
    let mut w = Watch {
        args: &a,
        baseline: None,
        last_text: None,
        versions: 0,
    };
    while !crate::signal::stopped() && !CLOSED.load(Ordering::Relaxed) {
        if !saves.settled()? {
            continue;
        }
        match w.saved(&path) {
            Ok(()) => {}
            Err(Error::Interrupted) => break,
            // Before any version loaded, an error the flags alone cause (the file loads
            // without its `--set` and `--agent`) is no edit's to fix: stop, as any command
            // stops on a bad flag.
            Err(e) if w.baseline.is_none() && flags_at_fault(&path) => return Err(e),
            Err(e) => still_watching(&e, w.baseline.as_ref()),
        }
    }
    say(&format!("stopped watching {}\n", path.display()))?;
    // Ctrl-C is how a watch ends (exit 0); SIGTERM ends it as it ends any command (143).
    if crate::signal::stopped() && crate::signal::exit_code() == 143 {
        return Err(Error::Interrupted);
    }
    Ok(())
}

/// Shows why a saved version did not load or play, and that the watch goes on.
fn still_watching(e: &Error, baseline: Option<&Baseline>) {
    let text = crate::diagnostic::render(e);
    crate::diagnostic::say(text.trim_end_matches('\n'));
    let kept = match baseline {
        Some(b) => format!("version {} stays the baseline", b.version),
        None => "no version has loaded yet".into(),
    };
    crate::diagnostic::say(&format!(
        "still watching ({kept}): fix the file and save it again"
    ));
}

/// The saves of one file, seen through a watch on its folder (so that an editor that saves
/// by replacing the file is seen too), a burst of events settled into one save.
struct Saves {
    folder: PathBuf,
    name: Option<std::ffi::OsString>,
    watcher: notify::RecommendedWatcher,
    rx: std::sync::mpsc::Receiver<notify::Result<notify::Event>>,
    /// The folder watched (device and inode): a folder made again is another one.
    watched: Option<(u64, u64)>,
    /// When the last event of the file came, until it settles into a save; the first look
    /// counts as a save, so that the file is played at once.
    pending: Option<Instant>,
}

impl Saves {
    /// Watches the folder of the file at `path`.
    fn new(path: &Path) -> Result<Saves> {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let (tx, rx) = channel();
        let watcher = notify::recommended_watcher(tx).map_err(|e| cannot_watch(&folder, e))?;
        let mut saves = Saves {
            name: path.file_name().map(|n| n.to_os_string()),
            watched: folder_id(&folder),
            folder,
            watcher,
            rx,
            pending: Some(Instant::now() - SETTLE),
        };
        saves.watch()?;
        Ok(saves)
    }

    /// Starts watching the folder.
    fn watch(&mut self) -> Result<()> {
        (self.watcher)
            .watch(&self.folder, RecursiveMode::NonRecursive)
            .map_err(|e| cannot_watch(&self.folder, e))
    }

    /// Waits up to a tick for an event; whether a save has settled since the last one.
    fn settled(&mut self) -> Result<bool> {
        // A folder removed and made again is another folder: watch the new one (the old
        // watch went with the old folder), and look at the file in it.
        let now = folder_id(&self.folder);
        if now != self.watched {
            if now.is_some() {
                let _ = self.watcher.unwatch(&self.folder);
                self.watch()?;
                self.pending = Some(Instant::now());
            }
            self.watched = now;
        }
        match self.rx.recv_timeout(TICK) {
            Ok(Ok(event)) => {
                let ours = (event.paths.iter()).any(|p| p.file_name() == self.name.as_deref());
                if ours && !matches!(event.kind, EventKind::Access(_)) {
                    self.pending = Some(Instant::now());
                }
            }
            Ok(Err(e)) => {
                crate::diagnostic::say(&format!("warning: the file watcher reported: {e}"))
            }
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::Usage(format!(
                    "the file watcher on {} stopped",
                    self.folder.display()
                )));
            }
        }
        let settled = self.pending.is_some_and(|t| t.elapsed() >= SETTLE);
        if settled {
            self.pending = None;
        }
        Ok(settled)
    }
}

/// The watcher could not watch `folder`.
fn cannot_watch(folder: &Path, e: notify::Error) -> Error {
    Error::Usage(format!(
        "cannot watch {}: {e} (on Linux, raise fs.inotify.max_user_watches if it is full)",
        folder.display()
    ))
}

/// Whether the file at `path` loads without the command's overrides: then an error loading
/// it with them is theirs.
fn flags_at_fault(path: &Path) -> bool {
    crate::scenario::read_text(path)
        .and_then(|text| crate::scenario::parse_with(&text, &path.display().to_string(), &[]))
        .is_ok()
}

/// The identity of a folder (device and inode), or `None` while it does not exist.
fn folder_id(folder: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(folder).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Some((0, 0))
    }
}

/// The watch's state between saves.
struct Watch<'a> {
    args: &'a Args,
    baseline: Option<Baseline>,
    /// The text last looked at: a save that changes nothing is not re-run.
    last_text: Option<String>,
    /// Versions that loaded so far.
    versions: u32,
}

impl Watch<'_> {
    /// Loads the file as saved, plays it, and prints what it shows.
    fn saved(&mut self, path: &Path) -> Result<()> {
        let text = match crate::scenario::read_text(path) {
            // Between an editor's remove and its write, the file is briefly missing.
            Err(Error::Read { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(());
            }
            r => r?,
        };
        if self.last_text.as_deref() == Some(text.as_str()) {
            return Ok(());
        }
        self.last_text = Some(text.clone());
        let a = self.args;
        // The text just compared is the text compiled: a save landing in between waits for
        // its own event.
        let mut model = crate::scenario::parse_with(&text, &path.display().to_string(), &a.set)?;
        crate::native::prepare(&mut model, a.engine);
        super::warn(&model);
        let threads = a.threads.map(|t| t as usize);
        let version = self.versions + 1;
        let start = Instant::now();
        let Some(base) = &self.baseline else {
            let spec = crate::runner::RunSpec {
                seed: a.seed,
                first: 0,
                games: a.games,
                threads,
            };
            let r = crate::runner::run(&model, &spec, &|_| {})?;
            say(&format!(
                "\nversion {version}: {} games in {:.2} s\n",
                thousands(a.games),
                r.elapsed.as_secs_f64()
            ))?;
            print_lines(&overview(&self.summary(&model, &r.tally)))?;
            return self.accept(model);
        };
        let t = run_pair(&base.model, &model, a.seed, 0, a.games, threads, &|_| {})?;
        say(&format!(
            "\nversion {version} against version {}: {} games each on the same seeds, {:.2} s\n",
            base.version,
            thousands(a.games),
            start.elapsed().as_secs_f64()
        ))?;
        if !same_factions(&base.model, &model) {
            say("  the factions changed, so win rates are this version's own:\n")?;
            print_lines(&overview(&self.summary(&model, &t.b))[..1])?;
        }
        print_lines(&change_lines(
            &changes(&base.model, &model, &t, a.alpha),
            a.alpha,
        ))?;
        self.accept(model)
    }

    fn summary(&self, m: &Model, t: &crate::stats::Tally) -> Summary {
        let info = RunInfo::of(m, self.args.seed);
        Summary::of(&info, 0, t, Duration::ZERO, 1)
    }

    fn accept(&mut self, model: Model) -> Result<()> {
        self.versions += 1;
        self.baseline = Some(Baseline {
            model,
            version: self.versions,
        });
        Ok(())
    }
}

fn print_lines(lines: &[String]) -> Result<()> {
    for l in lines {
        say(&format!("{l}\n"))?;
    }
    Ok(())
}

/// Set once standard output is a closed pipe (`vpsim watch ... | head`): the watch stops.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Writes `text` to stdout at once; a closed pipe stops the watch quietly.
fn say(text: &str) -> Result<()> {
    if !super::out_open(text)? {
        CLOSED.store(true, Ordering::Relaxed);
    }
    Ok(())
}
