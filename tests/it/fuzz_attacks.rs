//! The fuzz harness's attacks, run by [`crate::fuzz`], each with checks of its own, judged
//! before the case's folder is removed:
//!
//! - `folder`: a report folder that already holds the user's files, links out of it, an
//!   earlier report or a forged manifest. The user's files and everything outside the folder
//!   are left as they were, a refused folder too, and no report is written beside them.
//! - `text`: titles, descriptions, labels and `--set` values with links to `javascript:`, raw
//!   HTML and control characters. The terminal text holds no control character but newlines
//!   and tabs, and report.html no script, event handler or dangerous link of the input's.
//! - `size` ([`sizes`]): generated scenarios at and beyond vpsim's limits, on either engine:
//!   within the README's limits they run, beyond them they are refused.
//! - `hardening` ([`hardening`]): long labels, huge grids, links planted during a run, file
//!   names with line breaks, empty shard keys and a full disk, each with its own check.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::fuzz::{Case, Run, exec, pick, verdict};

mod hardening;
mod sizes;

pub(crate) use hardening::hardening;
pub(crate) use sizes::size;

/// The seed scenario the attacks run, relative to the package root.
const RACE: &str = "scenarios/race_to_three.toml";

/// The commands that write a report folder, as the `folder` attack runs them.
const REPORTERS: [&str; 3] = ["run", "compare", "sweep"];

/// Files a user may keep in a report folder, by path inside it. `.vpsim-4000000000-0.tmp`
/// has the form of vpsim's own temporary files (of a process that cannot be running), which
/// a run may remove; every other one it must leave alone.
const USER_FILES: &str = "vacation.png budget.csv data.parquet notes.svg .thesis.99999.tmp \
    .chapter.88888.tmp.docx .tally.json.4000000000.tmp .vpsim-4000000000-0.tmp csv/x.csv a/b.png \
    report.md tally.json .vpsim-4000000000-2.tmp/keep.txt";

/// Links a user may keep in a report folder, each to a file in the case's `outside` folder
/// (or, for an empty name, to that folder itself). A `report.md` link replaces an earlier
/// report's file.
const USER_LINKS: [(&str, &str); 6] = [
    ("link.png", "outside.txt"),
    (".vpsim-4000000000-1.tmp", "victim.txt"),
    ("linkdir", ""),
    ("report.md", "outside.txt"),
    (".vpsim-lock", "victim.txt"),
    (".vpsim-manifest.json", "victim.txt"),
];

/// Names of vpsim's own at which a user's hard link to the case's `victim.txt` may sit: a run
/// must neither write through one nor take it for its own.
const HARD_LINKS: [&str; 3] = [
    ".vpsim-lock",
    ".vpsim-manifest.json",
    ".vpsim-4000000000-3.tmp",
];

/// Manifest entries that lead out of the folder, or to a file of the user's by a path that
/// is not its own (`{out}` and `{outside}` stand for the case's absolute folders).
const FORGED: &str = "../outside/outside.txt {outside}/outside.txt {out}/vacation.png \
    linkdir/victim.txt a/../vacation.png ./budget.csv csv/../../outside/victim.txt /";

/// Text that would run, link or move the cursor if a report or a terminal took it as it is.
const HOSTILE: [&str; 28] = [
    "[x](javascript:alert(1))",
    "<javascript:alert(1)>",
    "[x](JaVaScRiPt:alert(1))",
    "[x](data:text/html,<script>alert(1)</script>)",
    "[x](vbscript:msgbox(1))",
    "[x](java\tscript:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "![x](javascript:alert(1))",
    "x\n\n[x][r]\n\n[r]: javascript:alert(1)\n",
    "<script>alert(1)</script>",
    "x\n\n<script>alert(1)</script>\n",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "<a href=\"javascript:alert(1)\">a</a>",
    "` <script>alert(1)</script> `",
    "``` <img src=x onerror=alert(1)> ```",
    "</code></pre><script>alert(1)</script>",
    "| a |\n|---|\n| <script>alert(1)</script> |",
    "\u{1b}[31mred\u{1b}[0m",
    "\u{1b}]52;c;aGVsbG8=\u{7}",
    "\u{7}",
    "\u{8}\u{8}\u{8}",
    "\u{202e}evil",
    "\u{9b}31m",
    "a\rb\u{7f}",
    "\u{2066}isolated\u{2069}",
    "nul\u{0}",
    "\\u001b \"quoted\" 'q'",
];

/// The absolute path of [`RACE`] (cases run in folders of their own).
fn race() -> String {
    let here = std::env::current_dir().unwrap();
    here.join(RACE).to_string_lossy().to_string()
}

/// One entry of a folder: a file's bytes, a link's target, or a folder.
#[derive(Debug, PartialEq)]
pub(crate) enum Entry {
    File(Vec<u8>),
    Link(PathBuf),
    Folder,
}

/// Everything under `dir` (links not followed), by `/`-separated path relative to it,
/// without vpsim's lock file (a run makes it and removes it again).
pub(crate) fn snapshot(dir: &Path) -> BTreeMap<String, Entry> {
    let mut all = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let (path, name) = (e.path(), e.file_name());
            let Ok(kind) = e.file_type() else {
                continue;
            };
            if name.to_str() == Some(".vpsim-lock") {
                continue;
            }
            let rel = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .to_string();
            let entry = if kind.is_symlink() {
                Entry::Link(std::fs::read_link(&path).unwrap_or_default())
            } else if kind.is_dir() {
                todo.push(path.clone());
                Entry::Folder
            } else {
                Entry::File(std::fs::read(&path).unwrap_or_default())
            };
            all.insert(rel, entry);
        }
    }
    all
}

/// The paths whose entries differ between two snapshots (the first five).
fn changed(a: &BTreeMap<String, Entry>, b: &BTreeMap<String, Entry>) -> String {
    let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let differ: Vec<&str> = keys
        .into_iter()
        .filter(|k| a.get(k.as_str()) != b.get(k.as_str()))
        .map(String::as_str)
        .take(5)
        .collect();
    differ.join(", ")
}

/// Whether the last part of `path` has the form of vpsim's temporary files,
/// `.vpsim-PID-N.tmp`, which a run may remove once their process is gone.
fn vpsim_temp(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    name.strip_prefix(".vpsim-")
        .and_then(|r| r.strip_suffix(".tmp"))
        .and_then(|r| r.split_once('-'))
        .is_some_and(|(pid, n)| digits(pid) && digits(n))
}

/// Makes a symbolic link at `at` to `target`; false where links cannot be made.
#[cfg(unix)]
fn make_link(target: &Path, at: &Path) -> bool {
    std::os::unix::fs::symlink(target, at).is_ok()
}

/// Makes a symbolic link at `at` to `target`; false where links cannot be made.
#[cfg(not(unix))]
fn make_link(_target: &Path, _at: &Path) -> bool {
    false
}

/// The command line of `cmd` (one of [`REPORTERS`]) on the race, writing its report to `out`.
fn report_args(rng: &mut ChaCha8Rng, cmd: &str, out: &str) -> Vec<String> {
    let mut args = vec![cmd.to_string(), race()];
    match cmd {
        "compare" => args.extend(["--b-set".into(), "settings.p=0.4".into()]),
        "sweep" => args.extend(["--param".into(), "settings.p=0.2,0.4".into()]),
        _ => {
            if rng.random_range(0..2) == 0 {
                args.push("--csv".into());
            }
        }
    }
    args.extend(["--games", "20", "-q", "--out", out].map(String::from));
    args
}

/// The problems found, as a case's `extra`.
fn joined(problems: Vec<String>) -> Option<String> {
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// A report folder that holds the user's files before the run: see the module's doc.
pub(crate) fn folder(rng: &mut ChaCha8Rng, dir: &Path) -> Case {
    let out = dir.join("out");
    let outside = dir.join("outside");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("outside.txt"),
        "the user's, beside the folder\n",
    )
    .unwrap();
    std::fs::write(outside.join("victim.txt"), "another of the user's\n").unwrap();
    let out_s = out.to_string_lossy().to_string();
    let mut problems = Vec::new();
    let earlier = rng.random_range(0..2) == 0;
    if earlier {
        let cmd = *pick(rng, &REPORTERS);
        let args = report_args(rng, cmd, &out_s);
        let r = exec(&args, dir);
        if r.code != Some(0) {
            problems.push(format!(
                "the earlier report failed (vpsim {}): {}",
                args.join(" "),
                r.stderr.trim()
            ));
        }
    }
    // The user's files and links, each with what it holds; never one over a file that is
    // there already (an earlier report's: its manifest may list it).
    let mut mine: Vec<(String, Entry)> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    let files: Vec<&str> = USER_FILES.split_whitespace().collect();
    for _ in 0..*pick(rng, &[0usize, 0, 1, 1, 2, 3]) {
        names.push(*pick(rng, &files));
    }
    if rng.random_range(0..4) == 0 {
        names.push(".vpsim-4000000000-0.tmp");
    }
    for name in names {
        let path = out.join(name);
        if std::fs::symlink_metadata(&path).is_ok() {
            continue;
        }
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bytes = format!("the user's {name}\n").into_bytes();
        std::fs::write(&path, &bytes).unwrap();
        mine.push((name.to_string(), Entry::File(bytes)));
    }
    if rng.random_range(0..3) == 0 {
        for _ in 0..rng.random_range(1..=2) {
            let (name, to) = *pick(rng, &USER_LINKS);
            let path = out.join(name);
            let target = if to.is_empty() {
                outside.clone()
            } else {
                outside.join(to)
            };
            let ours = mine.iter().any(|(n, _)| n == name);
            if name == "report.md"
                && !ours
                && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            {
                std::fs::remove_file(&path).unwrap();
            }
            if std::fs::symlink_metadata(&path).is_err() && make_link(&target, &path) {
                mine.push((name.to_string(), Entry::Link(target)));
            }
        }
    }
    if rng.random_range(0..6) == 0 {
        let name = *pick(rng, &HARD_LINKS);
        let path = out.join(name);
        if std::fs::symlink_metadata(&path).is_err()
            && std::fs::hard_link(outside.join("victim.txt"), &path).is_ok()
        {
            mine.push((
                name.to_string(),
                Entry::File(b"another of the user's\n".to_vec()),
            ));
        }
    }
    // A forged manifest, unless the user's link is where it goes.
    if rng.random_range(0..10) < 3 && !mine.iter().any(|(n, _)| n == ".vpsim-manifest.json") {
        let manifest = out.join(".vpsim-manifest.json");
        let mut m: serde_json::Value = std::fs::read(&manifest)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_else(
                || serde_json::json!({ "vpsim_version": env!("CARGO_PKG_VERSION"), "files": [] }),
            );
        let outside_s = outside.to_string_lossy().to_string();
        let forged: Vec<&str> = FORGED.split_whitespace().collect();
        for _ in 0..rng.random_range(1..=2) {
            let entry = pick(rng, &forged)
                .replace("{out}", &out_s)
                .replace("{outside}", &outside_s);
            if let Some(files) = m["files"].as_array_mut() {
                files.push(serde_json::Value::String(entry));
            }
        }
        std::fs::write(&manifest, serde_json::to_vec(&m).unwrap()).unwrap();
    }
    let cmd = *pick(rng, &REPORTERS);
    let mut args = report_args(rng, cmd, &out_s);
    if rng.random_range(0..3) > 0 {
        args.push("--force".into());
    }
    let before = snapshot(&out);
    let beside = snapshot(&outside);
    let run = exec(&args, dir);
    let after = snapshot(&out);
    let lost: Vec<&str> = mine
        .iter()
        // The lock is not in a snapshot: what matters of one is that nothing outside changed.
        .filter(|(name, was)| {
            !vpsim_temp(name) && name != ".vpsim-lock" && after.get(name.as_str()) != Some(was)
        })
        .map(|(name, _)| name.as_str())
        .collect();
    if !lost.is_empty() {
        problems.push(format!(
            "the user's files changed or went: {}",
            lost.join(", ")
        ));
    }
    let now = snapshot(&outside);
    if now != beside {
        problems.push(format!(
            "files outside the folder changed: {}",
            changed(&beside, &now)
        ));
    }
    let users = mine.iter().any(|(n, _)| !vpsim_temp(n));
    match run.code {
        Some(0) if users => {
            problems.push("wrote its report into a folder that holds the user's files".into())
        }
        Some(2) if after != before => problems.push(format!(
            "refused the folder but changed it: {}",
            changed(&before, &after)
        )),
        Some(0 | 2) | None => {}
        Some(code) => problems.push(format!("exit code {code} where 0 or 2 was due")),
    }
    Case {
        kind: "folder",
        args,
        run,
        extra: joined(problems),
    }
}

/// `s` as the inside of a TOML basic string: quotes, backslashes, control characters and
/// bidirectional formatting characters escaped (`\uXXXX`).
fn toml_escape(s: &str) -> String {
    let mut t = String::new();
    for c in s.chars() {
        match c {
            '"' => t.push_str("\\\""),
            '\\' => t.push_str("\\\\"),
            c if c.is_control() || bidi(c) => {
                let _ = write!(t, "\\u{:04X}", c as u32);
            }
            c => t.push(c),
        }
    }
    t
}

/// Whether `c` reorders the text around it on a terminal (an embedding, override or
/// isolate).
fn bidi(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The first character of `text` that a terminal would act on: a control character other
/// than a newline or a tab, or a bidirectional override.
fn raw_control(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| (c.is_control() && c != '\n' && c != '\t') || bidi(c))
}

/// An HTML tag: its name and its attributes (name, value), lowercased.
type Tag = (String, Vec<(String, String)>);

/// The first index from `j` where `b` ends or holds a byte that `stop` accepts.
fn until(b: &[u8], j: usize, stop: impl Fn(u8) -> bool) -> usize {
    j + b[j..].iter().position(|&x| stop(x)).unwrap_or(b.len() - j)
}

/// The tags of an HTML page. The text of `<script>` and `<style>` elements holds no tags and
/// is skipped.
fn tags(html: &str) -> Vec<Tag> {
    let s = html.to_ascii_lowercase();
    let b = s.as_bytes();
    let (mut found, mut i) = (Vec::new(), 0);
    while let Some(at) = s[i..].find('<') {
        i += at + 1;
        if !b.get(i).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let mut j = until(b, i, |x| x.is_ascii_whitespace() || x == b'>' || x == b'/');
        let name = s[i..j].to_string();
        let mut attrs = Vec::new();
        loop {
            j = until(b, j, |x| !x.is_ascii_whitespace() && x != b'/');
            if j >= b.len() || b[j] == b'>' {
                break;
            }
            let k = j;
            j = until(b, j, |x| x.is_ascii_whitespace() || b"=>/".contains(&x));
            let attr = s[k..j].to_string();
            j = until(b, j, |x| !x.is_ascii_whitespace());
            let mut value = "";
            if b.get(j) == Some(&b'=') {
                j = until(b, j + 1, |x| !x.is_ascii_whitespace());
                let quote = b.get(j).copied().filter(|&q| q == b'"' || q == b'\'');
                let v = j + usize::from(quote.is_some());
                j = match quote {
                    Some(q) => until(b, v, |x| x == q),
                    None => until(b, v, |x| x.is_ascii_whitespace() || x == b'>'),
                };
                value = &s[v..j];
                j = (j + usize::from(quote.is_some())).min(b.len());
            }
            attrs.push((attr, value.to_string()));
        }
        i = j;
        if name == "script" || name == "style" {
            i = s[j..]
                .find(&format!("</{name}"))
                .map_or(s.len(), |p| j + p + 1);
        }
        found.push((name, attrs));
    }
    found
}

/// An attribute's value as a browser reads a URL in it: character references decoded, and
/// without the blanks and control characters it skips.
fn url_of(value: &str) -> String {
    let mut url = String::new();
    let mut rest = value;
    while let Some(c) = rest.chars().next() {
        let reference = rest.strip_prefix('&').and_then(|r| r.split_once(';'));
        let decoded = reference.and_then(|(name, after)| {
            let code = match name.strip_prefix('#') {
                Some(n) => match n.strip_prefix('x') {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => n.parse().ok(),
                },
                None => [("colon", 58), ("tab", 9), ("newline", 10)]
                    .iter()
                    .find(|(e, _)| *e == name)
                    .map(|&(_, code)| code),
            };
            Some((char::from_u32(code?)?, after))
        });
        let (ch, after) = decoded.unwrap_or((c, &rest[c.len_utf8()..]));
        url.push(ch);
        rest = after;
    }
    url.retain(|c| !c.is_whitespace() && !c.is_control());
    url.to_ascii_lowercase()
}

/// What report.html does that its input could have asked for: more `<script>` elements
/// than vpsim's own `scripts`, an event handler, or a link that runs or loads something.
fn html_problems(html: &str, scripts: usize) -> Vec<String> {
    let mut problems = Vec::new();
    let tags = tags(html);
    let n = tags.iter().filter(|(name, _)| name == "script").count();
    if n != scripts {
        problems.push(format!(
            "report.html has {n} <script> elements, a clean one {scripts}"
        ));
    }
    for (name, attrs) in &tags {
        for (attr, value) in attrs {
            if attr.starts_with("on") {
                problems.push(format!(
                    "report.html has an event handler <{name} {attr}=…>"
                ));
            }
            let links = matches!(
                attr.as_str(),
                "href" | "src" | "xlink:href" | "action" | "formaction" | "poster" | "background"
            );
            let url = url_of(value);
            if links
                && ["javascript:", "data:", "vbscript:"]
                    .iter()
                    .any(|s| url.starts_with(s))
            {
                problems.push(format!("report.html has <{name} {attr}=\"{value}\">"));
            }
        }
    }
    problems
}

/// The number of `<script>` elements in a clean `run` report's report.html (vpsim's own),
/// checking that the page passes [`html_problems`] with it.
pub(crate) fn clean_scripts(root: &Path) -> usize {
    let out = root.join("clean");
    let _ = std::fs::remove_dir_all(&out);
    let (race, out_s) = (race(), out.to_string_lossy().to_string());
    let args: Vec<String> = [
        "run",
        race.as_str(),
        "--games",
        "20",
        "-q",
        "--out",
        out_s.as_str(),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let run = exec(&args, root);
    assert_eq!(run.code, Some(0), "a clean report: {}", run.stderr);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    let n = tags(&html)
        .iter()
        .filter(|(name, _)| name == "script")
        .count();
    let problems = html_problems(&html, n);
    assert!(problems.is_empty(), "a clean report.html: {problems:?}");
    n
}

/// One to three hostile pieces, joined by spaces.
fn hostile(rng: &mut ChaCha8Rng) -> String {
    let pieces: Vec<&str> = (0..rng.random_range(1..=3))
        .map(|_| *pick(rng, &HOSTILE))
        .collect();
    pieces.join(" ")
}

/// What is wrong with the terminal text of a run of `args`.
fn terminal_problems(args: &[String], run: &Run) -> Vec<String> {
    let mut problems = Vec::new();
    let cmd = &args[0];
    match std::str::from_utf8(&run.stdout) {
        Err(_) => problems.push(format!("{cmd}: stdout is not UTF-8")),
        Ok(out) => {
            if let Some(c) = raw_control(out) {
                problems.push(format!("{cmd}: stdout holds a raw {c:?}"));
            }
        }
    }
    if let Some(c) = raw_control(&run.stderr) {
        problems.push(format!("{cmd}: stderr holds a raw {c:?}"));
    }
    problems
}

/// Hostile text in a scenario's title, description, a faction's label, an example's name
/// and `--set` values: see the module's doc.
pub(crate) fn text(rng: &mut ChaCha8Rng, dir: &Path, scripts: usize) -> Case {
    let mut toml = std::fs::read_to_string(RACE).unwrap();
    let mut sets: Vec<String> = Vec::new();
    let slots = rng.random_range(1..32u32);
    if slots & 1 != 0 {
        let (title, description) = (toml_escape(&hostile(rng)), toml_escape(&hostile(rng)));
        toml = toml.replacen(
            "name = \"race_to_three\"\n",
            &format!(
                "name = \"race_to_three\"\ntitle = \"{title}\"\ndescription = \"{description}\"\n"
            ),
            1,
        );
    }
    if slots & 2 != 0 {
        let label = toml_escape(&hostile(rng));
        toml = toml.replacen(
            "name = \"First\"\n",
            &format!("name = \"First\"\nlabel = \"{label}\"\n"),
            1,
        );
    }
    if slots & 4 != 0 {
        let name = toml_escape(&hostile(rng));
        toml = toml.replacen(
            "name = \"finishers",
            &format!("name = \"{name} finishers"),
            1,
        );
    }
    for (bit, path) in [(8, "scenario.description"), (16, "faction.First.label")] {
        if slots & bit != 0 {
            // An argument cannot hold a NUL.
            sets.extend([
                "--set".into(),
                format!("{path}={}", hostile(rng).replace('\0', "")),
            ]);
        }
    }
    let file = dir.join("hostile.toml");
    std::fs::write(&file, &toml).unwrap();
    let f = file.to_string_lossy().to_string();
    let out = dir.join("out").to_string_lossy().to_string();
    let mut args: Vec<String> = [
        "run",
        f.as_str(),
        "--games",
        "20",
        "-q",
        "--out",
        out.as_str(),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    args.extend(sets.iter().cloned());
    let run = exec(&args, dir);
    let mut problems = terminal_problems(&args, &run);
    if let Ok(html) = std::fs::read_to_string(dir.join("out").join("report.html")) {
        problems.extend(html_problems(&html, scripts));
        if let Some(c) = raw_control(&html) {
            problems.push(format!("report.html holds a raw {c:?}"));
        }
    }
    // `cat report.md` must not drive a terminal either.
    if let Ok(md) = std::fs::read_to_string(dir.join("out").join("report.md"))
        && let Some(c) = raw_control(&md)
    {
        problems.push(format!("report.md holds a raw {c:?}"));
    }
    // `test` takes no --set.
    let mut more: Vec<Vec<String>> = Vec::new();
    if rng.random_range(0..3) == 0 {
        more.push([vec!["validate".into(), f.clone()], sets.clone()].concat());
    }
    if rng.random_range(0..3) == 0 {
        let trace = vec!["trace".into(), f.clone(), "--game".into(), "1".into()];
        more.push([trace, sets.clone()].concat());
    }
    if rng.random_range(0..4) == 0 {
        more.push(vec!["test".into(), f.clone()]);
    }
    for other in more {
        let r = exec(&other, dir);
        problems.extend(terminal_problems(&other, &r));
        let shown = other.join(" ");
        let c = Case {
            kind: "text",
            args: other,
            run: r,
            extra: None,
        };
        if let Some(why) = verdict(&c) {
            problems.push(format!("vpsim {shown}: {why}"));
        }
    }
    Case {
        kind: "text",
        args,
        run,
        extra: joined(problems),
    }
}
