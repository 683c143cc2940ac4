//! `vpsim watch` end to end: a run per save, the changes beyond noise against the previous
//! version, a located error that keeps the watch going, Ctrl-C ending it with exit 0 and
//! SIGTERM with 143, and a watched folder removed and made again.

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::util::fresh_temp_dir;

/// A running `vpsim watch` whose stdout and stderr are collected as they come.
struct Watching {
    child: Child,
    out: Arc<Mutex<String>>,
    err: Arc<Mutex<String>>,
}

fn collect(mut r: impl Read + Send + 'static) -> Arc<Mutex<String>> {
    let buf = Arc::new(Mutex::new(String::new()));
    let b = buf.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 4096];
        while let Ok(n) = r.read(&mut chunk) {
            if n == 0 {
                break;
            }
            b.lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&chunk[..n]));
        }
    });
    buf
}

impl Watching {
    fn start(dir: &Path, args: &[&str]) -> Watching {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vpsim"))
            .arg("watch")
            .args(args)
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = collect(child.stdout.take().unwrap());
        let err = collect(child.stderr.take().unwrap());
        Watching { child, out, err }
    }

    /// Waits until stdout (or stderr) holds `text` `times` times; fails after a minute.
    fn wait_for(&self, stderr: bool, text: &str, times: usize) -> String {
        let start = Instant::now();
        loop {
            let s = if stderr { &self.err } else { &self.out }
                .lock()
                .unwrap()
                .clone();
            if s.matches(text).count() >= times {
                return s;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no {text:?} after 60 s\nstdout:\n{}\nstderr:\n{}",
                self.out.lock().unwrap(),
                self.err.lock().unwrap()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// Sends `signal` (`-INT`, `-TERM`) to `child` and waits for it to end (at most 30 s).
fn signal_and_wait(child: &mut Child, signal: &str) -> std::process::ExitStatus {
    let pid = child.id().to_string();
    assert!(
        Command::new("kill")
            .args([signal, &pid])
            .status()
            .unwrap()
            .success()
    );
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no exit after {signal}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Writes a file the way an editor's save does.
fn save(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn watch_reports_each_save_against_the_previous_one() {
    let dir = fresh_temp_dir("watch");
    let original = std::fs::read_to_string("scenarios/race_to_three.toml").unwrap();
    let file = dir.join("race.toml");
    save(&file, &original);
    let w = Watching::start(&dir, &["race.toml", "--games", "4000", "--threads", "1"]);
    let out = w.wait_for(false, "length", 1);
    assert!(out.contains("watching race.toml: 4,000 games a version, seed 1"));
    assert!(out.contains("version 1: 4,000 games"), "{out}");
    assert!(out.contains("win rate  First "), "{out}");

    // A big edit: a better chance for First and a round limit, which adds an end reason.
    std::thread::sleep(Duration::from_millis(300));
    let edited = original
        .replace("p = 0.3", "p = 0.6")
        .replace("rounds = 10000", "rounds = 4");
    assert_ne!(edited, original);
    save(&file, &edited);
    let out = w.wait_for(false, "everything else within noise", 1);
    let block = out.split("version 2 against version 1").nth(1).unwrap();
    let first = block
        .lines()
        .find(|l| l.contains("win rate First"))
        .unwrap();
    assert!(
        first.contains("p < 0.001") && first.contains(" +"),
        "{block}"
    );
    assert!(block.contains("end \"three\""), "{block}");
    assert!(block.contains("length"), "{block}");

    // A syntax error: located, and the watch goes on.
    std::thread::sleep(Duration::from_millis(300));
    save(&file, &format!("{edited}\nbad = =\n"));
    let err = w.wait_for(true, "still watching", 1);
    assert!(err.contains("race.toml:"), "{err}");
    assert!(err.contains("version 2 stays the baseline"), "{err}");

    // A save that only adds a comment: the same games, so nothing changes at all.
    std::thread::sleep(Duration::from_millis(300));
    save(&file, &format!("{edited}\n# a note\n"));
    let out = w.wait_for(false, "no change beyond noise", 1);
    assert!(out.contains("version 3 against version 2"), "{out}");

    // Ctrl-C: a clean stop.
    let mut child = w.child;
    let status = signal_and_wait(&mut child, "-INT");
    assert_eq!(status.code(), Some(0));
    std::thread::sleep(Duration::from_millis(100));
    assert!(w.out.lock().unwrap().contains("stopped watching race.toml"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_refuses_a_missing_file_at_once() {
    let out = Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args(["watch", "no/such/scenario.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no/such/scenario.toml"), "{err}");
}

#[test]
fn watch_follows_its_folder_made_again_and_ends_with_143_on_sigterm() {
    let root = fresh_temp_dir("watch-folder");
    let dir = root.join("game");
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string("scenarios/race_to_three.toml").unwrap();
    save(&dir.join("race.toml"), &text);
    let mut w = Watching::start(&root, &["game/race.toml", "--games", "2000"]);
    w.wait_for(false, "version 1: ", 1);
    std::fs::remove_dir_all(&dir).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::create_dir_all(&dir).unwrap();
    save(&dir.join("race.toml"), &text.replace("p = 0.3", "p = 0.5"));
    w.wait_for(false, "version 2 against version 1", 1);
    let status = signal_and_wait(&mut w.child, "-TERM");
    assert_eq!(status.code(), Some(143));
    let _ = std::fs::remove_dir_all(&root);
}

/// A `--set` the file cannot take stops a watch at once (exit 2, naming the flag) instead of
/// waiting for an edit that the flag, not the file, needs.
#[test]
fn watch_stops_at_once_on_a_set_the_file_cannot_take() {
    let out = Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args(["watch", "scenarios/race_to_three.toml", "--games", "10"])
        .args(["--set", "settings.nosuch=3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--set settings.nosuch=3"));
}
