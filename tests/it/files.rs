//! Files and small truths: what the report folder's files say about themselves. The scenario
//! hash is named for what it is (FNV-1a), report.html is valid where it was not (no chart in a
//! paragraph, no empty sortable header), the command to reproduce a report starts with
//! `vpsim`, `--csv --games-table` writes games.csv, `--json` has each faction's score
//! histogram, and the Parquet tables' run metadata is in the Arrow schema pyarrow reads.

use std::fs::File;
use std::path::Path;

use polars::prelude::*;
use serde_json::Value;

use crate::util::{fresh_temp_dir, fresh_temp_path, vpsim};

/// The fast seed scenario every test here plays.
const RACE: &str = "scenarios/race_to_three.toml";

/// Runs the binary with `args` and then `--out dir`, asserts that it succeeded, and returns
/// its stdout.
fn run_into(args: &[&str], dir: &Path) -> Vec<u8> {
    let out = vpsim().args(args).arg("--out").arg(dir).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn read_text(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The text of every header cell (`<th ...>...</th>`) of an HTML page, tags removed.
fn header_cells(html: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<th") {
        rest = &rest[i + 3..];
        // `<thead>` is not a cell.
        if !rest.starts_with('>') && !rest.starts_with(' ') {
            continue;
        }
        let open = rest.find('>').unwrap();
        let close = rest.find("</th>").unwrap();
        let inner = &rest[open + 1..close];
        let mut text = String::new();
        let mut in_tag = false;
        for c in inner.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        cells.push(text.trim().to_string());
        rest = &rest[close..];
    }
    cells
}

/// Asserts that no `<figure>` of `html` is inside a `<p>`: the last `<p>` before each
/// figure is closed before it.
#[track_caller]
fn assert_no_figure_in_a_paragraph(html: &str, what: &str) {
    let mut figures = 0;
    for (i, _) in html.match_indices("<figure") {
        figures += 1;
        let before = &html[..i];
        if let Some(p) = before.rfind("<p>") {
            assert!(
                before[p..].contains("</p>"),
                "{what}: a figure in a paragraph: {}",
                &before[p..]
            );
        }
    }
    assert!(figures > 0, "{what}: no chart at all");
}

/// The scenario hash's label in every report that is not one run's (compare, sweep, and
/// through the same header sensitivity and tune): FNV-1a, as it is, never `sha256`. The
/// command shown starts with `vpsim`, not the path the binary was started by.
#[test]
fn reports_name_the_hash_fnv1a_and_their_command_starts_with_vpsim() {
    let cases: [(&str, &[&str]); 2] = [
        (
            "compare",
            &[
                "compare",
                RACE,
                "--b-set",
                "settings.p=0.35",
                "--games",
                "300",
                "-q",
            ],
        ),
        (
            "sweep",
            &[
                "sweep",
                RACE,
                "--param",
                "settings.p=0.2,0.3",
                "--games",
                "200",
                "-q",
            ],
        ),
    ];
    for (command, args) in cases {
        let dir = fresh_temp_path(&format!("files-hash-{command}"));
        run_into(args, &dir);
        let md = read_text(&dir, "report.md");
        let html = read_text(&dir, "report.html");
        for (name, text) in [("report.md", &md), ("report.html", &html)] {
            assert!(
                !text.to_ascii_lowercase().contains("sha256"),
                "{command} {name}: {text}"
            );
        }
        let at = md
            .find("(FNV-1a `")
            .unwrap_or_else(|| panic!("{command}: {md}"));
        let hash: String = md[at + "(FNV-1a `".len()..]
            .chars()
            .take_while(|c| *c != '`')
            .collect();
        assert_eq!(hash.len(), 16, "{command}: {hash}");
        assert!(hash.chars().all(|c| c.is_ascii_hexdigit()), "{hash}");
        // The command, as a line or (compare, laid out like run) a block to reproduce it.
        assert!(
            md.contains(&format!("Command: `vpsim {command} "))
                || md.contains(&format!("```sh\nvpsim {command} ")),
            "{command}: {md}"
        );
        assert!(!md.contains(env!("CARGO_BIN_EXE_vpsim")), "{md}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// report.html of a run: every chart outside paragraphs, every header cell with text (the
/// metadata table's names are row headers, not empty sortable column headers), and the
/// command to reproduce it starting with `vpsim ` in report.md and report.html alike.
#[test]
fn run_report_html_is_valid_and_its_command_starts_with_vpsim() {
    let dir = fresh_temp_path("files-html");
    run_into(&["run", RACE, "--games", "300", "--seed", "2", "-q"], &dir);
    let html = read_text(&dir, "report.html");
    assert!(!html.contains("<p><figure"), "{html}");
    assert_no_figure_in_a_paragraph(&html, "report.html");
    let cells = header_cells(&html);
    assert!(cells.iter().any(|c| c == "seed"), "{cells:?}");
    assert!(cells.iter().all(|c| !c.is_empty()), "{cells:?}");
    assert!(!html.contains("<th></th>"));
    // The metadata's names are row headers, which the sort script does not bind.
    assert!(html.contains("<th scope=\"row\">seed</th>"), "{html}");
    assert!(html.contains("querySelectorAll('thead th')"));

    let md = read_text(&dir, "report.md");
    let command = md
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_else(|| panic!("no command in {md}"));
    assert!(command.starts_with("vpsim run "), "{command}");
    assert!(
        command.contains(RACE) && command.contains("--seed 2"),
        "{command}"
    );
    assert!(!md.contains(env!("CARGO_BIN_EXE_vpsim")), "{md}");
    assert!(
        html.contains("<code class=\"language-sh\">vpsim run "),
        "{html}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// No file of vpsim's (a `.vpsim-PID-N.tmp`) is left in `dir`.
#[track_caller]
fn assert_no_temporary_file(dir: &Path) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        assert!(!name.ends_with(".tmp"), "{}: {name}", dir.display());
    }
}

/// `--csv --games-table` writes csv/games.csv beside games.parquet: the same columns and
/// rows, one line per game in game order, listed in the manifest; a `--force` run replaces
/// both.
#[test]
fn csv_with_the_games_table_writes_games_csv() {
    let dir = fresh_temp_path("files-games-csv");
    let args = [
        "run",
        RACE,
        "--games",
        "300",
        "--seed",
        "3",
        "-q",
        "--json",
        "--games-table",
        "--csv",
    ];
    let json: Value = serde_json::from_slice(&run_into(&args, &dir)).unwrap();
    let names: Vec<&str> = json["factions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    let mut header: Vec<String> = ["game", "reason", "rounds", "winner"]
        .map(String::from)
        .to_vec();
    header.extend(names.iter().map(|n| format!("score_{n}")));
    header.extend(names.iter().map(|n| format!("rank_{n}")));

    let check = |dir: &Path| {
        let csv = read_text(dir, "csv/games.csv");
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], header.join(","));
        assert_eq!(lines.len(), 301, "a header and one line per game");
        for (i, line) in lines[1..].iter().enumerate() {
            assert!(line.starts_with(&format!("{i},")), "game {i}: {line}");
        }
        // The same scores as games.parquet, game by game.
        let df = ParquetReader::new(File::open(dir.join("games.parquet")).unwrap())
            .finish()
            .unwrap();
        assert_eq!(df.height(), 300);
        for name in &names {
            let col = format!("score_{name}");
            let at = header.iter().position(|h| *h == col).unwrap();
            let from_csv: Vec<i64> = lines[1..]
                .iter()
                .map(|l| l.split(',').nth(at).unwrap().parse().unwrap())
                .collect();
            let from_parquet: Vec<i64> = df
                .column(&col)
                .unwrap()
                .i64()
                .unwrap()
                .into_no_null_iter()
                .collect();
            assert_eq!(from_csv, from_parquet, "{col}");
        }
        let manifest = read_text(dir, ".vpsim-manifest.json");
        assert!(manifest.contains("\"csv/games.csv\""), "{manifest}");
        assert!(manifest.contains("\"games.parquet\""), "{manifest}");
        assert_no_temporary_file(dir);
        assert_no_temporary_file(&dir.join("csv"));
    };
    check(dir.as_path());
    // Again over the same report, with --force: the earlier files are replaced.
    let mut again = args.to_vec();
    again.push("--force");
    run_into(&again, &dir);
    check(dir.as_path());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--json` gives each faction's final score histogram, exact: `[score, games]` pairs,
/// ascending, that count every game, agree with the score's min and max, and are the
/// `scores` table of the same run.
#[test]
fn json_has_each_factions_score_histogram() {
    let dir = fresh_temp_path("files-histogram");
    let json: Value = serde_json::from_slice(&run_into(
        &["run", RACE, "--games", "400", "--seed", "5", "-q", "--json"],
        &dir,
    ))
    .unwrap();
    let games = json["games"].as_u64().unwrap();
    assert_eq!(games, 400);
    let scores = ParquetReader::new(File::open(dir.join("scores.parquet")).unwrap())
        .finish()
        .unwrap();
    let table: Vec<(String, i64, i64)> = {
        let f = scores.column("faction").unwrap().str().unwrap();
        let s = scores.column("score").unwrap().i64().unwrap();
        let c = scores.column("count").unwrap().i64().unwrap();
        (0..scores.height())
            .map(|i| {
                (
                    f.get(i).unwrap().to_string(),
                    s.get(i).unwrap(),
                    c.get(i).unwrap(),
                )
            })
            .collect()
    };
    for f in json["factions"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        assert_eq!(f["histogram_bin_width"].as_u64(), Some(1), "{name}");
        let pairs: Vec<(i64, u64)> = f["histogram"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no histogram in {f}"))
            .iter()
            .map(|p| (p[0].as_i64().unwrap(), p[1].as_u64().unwrap()))
            .collect();
        assert!(!pairs.is_empty(), "{name}");
        assert_eq!(pairs.iter().map(|p| p.1).sum::<u64>(), games, "{name}");
        assert!(pairs.windows(2).all(|w| w[0].0 < w[1].0), "{pairs:?}");
        assert!(pairs.iter().all(|p| p.1 > 0), "{pairs:?}");
        assert_eq!(Some(pairs[0].0), f["score"]["min"].as_i64(), "{name}");
        assert_eq!(
            Some(pairs[pairs.len() - 1].0),
            f["score"]["max"].as_i64(),
            "{name}"
        );
        let rows: Vec<(i64, u64)> = table
            .iter()
            .filter(|r| r.0 == name)
            .map(|r| (r.1, r.2 as u64))
            .collect();
        assert_eq!(pairs, rows, "{name}: the scores table");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Standard base64 (with `=` padding), decoded.
fn base64(text: &str) -> Vec<u8> {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ABC
            .iter()
            .position(|&a| a == c)
            .expect("a base64 character") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// The metadata of the Arrow schema stored in a Parquet file's `ARROW:schema` entry: what
/// pyarrow (and pandas through it) shows as `schema.metadata`.
fn arrow_schema_metadata(path: &Path) -> std::collections::BTreeMap<String, String> {
    let bytes = std::fs::read(path).unwrap();
    assert!(
        bytes.windows(12).any(|w| w == b"ARROW:schema"),
        "{}: no ARROW:schema in the footer",
        path.display()
    );
    let mut reader = ParquetReader::new(File::open(path).unwrap());
    let file_meta = reader.get_metadata().unwrap().clone();
    let kv = file_meta.key_value_metadata().clone().unwrap();
    let encoded = kv
        .iter()
        .find(|k| k.key == "ARROW:schema")
        .and_then(|k| k.value.clone())
        .unwrap();
    let ipc = base64(&encoded);
    // The legacy IPC framing: a continuation marker and a length before the message.
    let message = if ipc.starts_with(&[255; 4]) {
        &ipc[8..]
    } else {
        &ipc[..]
    };
    let (_, _, meta) = polars_arrow::io::ipc::read::deserialize_schema(message).unwrap();
    meta.unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The run's metadata (seed, scenario, overrides...) is in the Arrow schema of every table,
/// where pyarrow's `pq.read_table(f).schema.metadata` finds it, and still in the Parquet
/// key-value metadata. Checked in the file's own bytes always, and through pyarrow too when
/// python3 has it.
#[test]
fn parquet_tables_carry_the_run_in_their_arrow_schema_metadata() {
    let dir = fresh_temp_path("files-parquet-meta");
    run_into(
        &[
            "run",
            RACE,
            "--games",
            "200",
            "--seed",
            "11",
            "--set",
            "settings.p=0.35",
            "-q",
            "--games-table",
        ],
        &dir,
    );
    let tables = ["summary", "scores", "games"];
    let want = [
        ("seed", "11"),
        ("games", "200"),
        ("scenario_name", "race_to_three"),
        ("scenario_file", RACE),
        ("overrides", "[\"settings.p=0.35\"]"),
        ("vpsim_version", env!("CARGO_PKG_VERSION")),
    ];
    for t in tables {
        let path = dir.join(format!("{t}.parquet"));
        let meta = arrow_schema_metadata(&path);
        for (k, v) in want {
            assert_eq!(
                meta.get(k).map(String::as_str),
                Some(v),
                "{t}: {k} in {meta:?}"
            );
        }
        let hash = &meta["scenario_hash"];
        assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()));
    }

    let pyarrow = std::process::Command::new("python3")
        .args(["-c", "import pyarrow"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !pyarrow {
        eprintln!(
            "files: python3 with pyarrow is not available: the Arrow schema metadata was \
             checked in the files' bytes only"
        );
        let _ = std::fs::remove_dir_all(&dir);
        return;
    }
    let script = r#"
import json, sys
import pyarrow.parquet as pq
out = {}
for p in sys.argv[1:]:
    md = pq.read_table(p).schema.metadata or {}
    out[p] = {k.decode(): v.decode() for k, v in md.items()}
print(json.dumps(out))
"#;
    let paths: Vec<String> = tables
        .iter()
        .map(|t| dir.join(format!("{t}.parquet")).display().to_string())
        .collect();
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(&paths)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pyarrow: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).unwrap();
    for p in &paths {
        for (k, v) in want {
            assert_eq!(seen[p][k].as_str(), Some(v), "pyarrow, {p}: {k} in {seen}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A label or title with Markdown in it renders as itself: report.md escapes it (no raw
/// HTML, link, emphasis or extra table cell), so report.html shows the text.
#[test]
fn markdown_in_labels_and_titles_is_escaped_in_reports() {
    let text = std::fs::read_to_string(RACE)
        .unwrap()
        .replacen(
            "[scenario]\n",
            "[scenario]\ntitle = \"Race [link](https://x.example) *now*\"\n",
            1,
        )
        .replacen(
            "name = \"First\"\n",
            "name = \"First\"\nlabel = \"A|<img src=x onerror=alert(1)>_b_\"\n",
            1,
        );
    assert!(text.contains("onerror"), "the label went in");
    let file = crate::util::temp_scenario("files-md-escape", &text);
    let dir = fresh_temp_path("files-md-escape");
    run_into(
        &["run", file.to_str().unwrap(), "--games", "200", "-q"],
        &dir,
    );
    let md = read_text(&dir, "report.md");
    assert!(
        md.contains(r"A\|\<img src=x onerror=alert(1)\>\_b\_"),
        "{md}"
    );
    assert!(
        md.contains(r"# Race \[link\](https://x.example) \*now\*"),
        "{md}"
    );
    let html = read_text(&dir, "report.html");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("href=\"https://x.example\"") && !html.contains("<em>"));
    assert!(
        html.contains("A|&lt;img src=x onerror=alert(1)&gt;_b_"),
        "{html}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Exploit's and ladder's report.md escape the title and labels in their verdicts and
/// readings, as every other report does, and a scenario file name with a backtick and a
/// line break stays one line of text: in report.md's code spans, report.html, the chart
/// subtitles and the terminal. No HTML, link or heading of the input's comes alive.
#[test]
fn exploit_and_ladder_reports_escape_labels_and_file_names() {
    let text = std::fs::read_to_string(RACE)
        .unwrap()
        .replacen(
            "[scenario]\n",
            "[scenario]\ntitle = \"T <svg onload=alert(1)> [a](javascript:alert(1))\"\n",
            1,
        )
        .replacen(
            "name = \"First\"\n",
            "name = \"First\"\nlabel = \"```<img src=x onerror=alert(1)> [y](javascript:alert(2)) `x\"\n",
            1,
        );
    let folder = fresh_temp_dir("files-k8");
    let file = folder.join("ra`ce\n# Injected [z](javascript:alert(3)).toml");
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    for (cmd, extra) in [
        (
            "exploit",
            &["--games", "300", "--confirm", "300", "--iterations", "1"][..],
        ),
        ("ladder", &["--games", "200"][..]),
        ("run", &["--games", "200"][..]),
    ] {
        let dir = folder.join(cmd);
        let out = vpsim()
            .args([cmd, f])
            .args(extra)
            .arg("--out")
            .arg(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{cmd}: {out:?}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        for (what, t) in [("stdout", &stdout), ("stderr", &stderr)] {
            assert!(
                !t.lines().any(|l| l.starts_with("# Injected")),
                "{cmd} {what}: {t}"
            );
        }
        let md = read_text(&dir, "report.md");
        let html = read_text(&dir, "report.html");
        assert!(
            !md.lines().any(|l| l.starts_with("# Injected")),
            "{cmd}: {md}"
        );
        assert!(
            md.contains(r"ra`ce\n# Injected"),
            "{cmd}: the name shown escaped: {md}"
        );
        for bad in ["<img", "<svg onload", "href=\"javascript", "\n# Injected"] {
            assert!(!html.contains(bad), "{cmd}: {bad} in report.html");
        }
        assert!(!html.contains("<h1>Injected"), "{cmd}");
    }
    let _ = std::fs::remove_dir_all(&folder);
}
