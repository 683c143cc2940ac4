//! The report folder: Parquet tables read back against the JSON summary of the same run,
//! charts, report.md, the per-game table, and safety rules.

use std::fs::File;

use polars::prelude::*;
use serde_json::Value;

use crate::util::{TI4, fresh_temp_dir, fresh_temp_path, vpsim};

fn read(dir: &std::path::Path, table: &str) -> DataFrame {
    ParquetReader::new(File::open(dir.join(format!("{table}.parquet"))).unwrap())
        .finish()
        .unwrap()
}

fn u64s(df: &DataFrame, col: &str) -> Vec<u64> {
    df.column(col)
        .unwrap()
        .cast(&DataType::UInt64)
        .unwrap()
        .u64()
        .unwrap()
        .into_no_null_iter()
        .collect()
}

fn strs(df: &DataFrame, col: &str) -> Vec<String> {
    df.column(col)
        .unwrap()
        .str()
        .unwrap()
        .iter()
        .map(|s| s.unwrap().to_string())
        .collect()
}

#[test]
fn tables_match_the_json_summary_of_the_same_run() {
    let dir = fresh_temp_path("report-tables");
    let out = vpsim()
        .args([
            "run",
            "scenarios/pax_romana.toml",
            "--games",
            "3000",
            "--seed",
            "4",
            "--json",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let factions = json["factions"].as_array().unwrap();

    let summary = read(&dir, "summary");
    assert_eq!(
        strs(&summary, "faction"),
        factions
            .iter()
            .map(|f| f["name"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        u64s(&summary, "wins"),
        factions
            .iter()
            .map(|f| f["win"]["count"].as_u64().unwrap())
            .collect::<Vec<_>>()
    );
    let rates: Vec<f64> = summary
        .column("win_rate")
        .unwrap()
        .f64()
        .unwrap()
        .into_no_null_iter()
        .collect();
    for (r, f) in rates.iter().zip(factions) {
        assert_eq!(*r, f["win"]["rate"].as_f64().unwrap());
    }

    // The whole score distribution: counts per faction add up to the games.
    let scores = read(&dir, "scores");
    let fac = strs(&scores, "faction");
    let counts = u64s(&scores, "count");
    for f in factions {
        let name = f["name"].as_str().unwrap();
        let total: u64 = fac
            .iter()
            .zip(&counts)
            .filter(|(x, _)| *x == name)
            .map(|(_, c)| c)
            .sum();
        assert_eq!(total, 3000);
        let vals: Vec<i64> = scores
            .column("score")
            .unwrap()
            .i64()
            .unwrap()
            .into_no_null_iter()
            .collect();
        let mean = fac
            .iter()
            .zip(&counts)
            .zip(&vals)
            .filter(|((x, _), _)| *x == name)
            .map(|((_, c), v)| *c as f64 * *v as f64)
            .sum::<f64>()
            / 3000.0;
        assert!((mean - f["score"]["mean"].as_f64().unwrap()).abs() < 1e-9);
    }
    let ranks = read(&dir, "ranks");
    assert_eq!(u64s(&ranks, "count").iter().sum::<u64>(), 3000 * 4);
    let lengths = read(&dir, "lengths");
    assert_eq!(u64s(&lengths, "count").iter().sum::<u64>(), 3000);
    let reasons = read(&dir, "end_reasons");
    assert_eq!(u64s(&reasons, "count").iter().sum::<u64>(), 3000);
    let sources = read(&dir, "points_by_source");
    assert_eq!(
        sources.height(),
        json["points_by_source"].as_array().unwrap().len()
    );
    let leader = read(&dir, "leader_by_round");
    assert_eq!(
        leader.height(),
        json["leader_by_round"].as_array().unwrap().len()
    );
    assert!(leader.height() > 0);
    let _ = read(&dir, "tie_breaks");

    // Score races: one row per round and faction, the same numbers as the JSON.
    let races = json["by_round"].as_array().unwrap();
    let nf = json["factions"].as_array().unwrap().len();
    let by_round = read(&dir, "by_round");
    assert_eq!(by_round.height(), races.len() * nf);
    assert_eq!(races[0]["games"], 3000, "every game plays round 1");
    let games = u64s(&by_round, "games");
    let medians = u64s(&by_round, "median");
    for (r, race) in races.iter().enumerate() {
        assert_eq!(race["round"], r + 1);
        assert!(r == 0 || race["games"].as_u64() <= races[r - 1]["games"].as_u64());
        let m = &race["margin"];
        assert!(
            m["low"].as_f64() <= m["mean"].as_f64() && m["mean"].as_f64() <= m["high"].as_f64()
        );
        assert!(
            m["mean"].as_f64().unwrap() >= 0.0,
            "the leader is never behind the rest"
        );
        for f in 0..nf {
            let s = &race["scores"][f];
            assert!(
                s["q1"].as_i64() <= s["median"].as_i64()
                    && s["median"].as_i64() <= s["q3"].as_i64()
            );
            assert_eq!(games[r * nf + f], race["games"].as_u64().unwrap());
            assert_eq!(medians[r * nf + f], s["median"].as_u64().unwrap());
        }
    }

    // Every table carries the run's metadata.
    let mut reader = ParquetReader::new(File::open(dir.join("summary.parquet")).unwrap());
    let file_meta = reader.get_metadata().unwrap().clone();
    let meta = file_meta.key_value_metadata().clone().unwrap();
    let get = |k: &str| {
        meta.iter()
            .find(|kv| kv.key == k)
            .and_then(|kv| kv.value.clone())
            .unwrap()
    };
    assert_eq!(get("seed"), "4");
    assert_eq!(get("games"), "3000");
    assert_eq!(
        get("scenario_hash"),
        json["scenario"]["hash"].as_str().unwrap()
    );
    assert_eq!(get("vpsim_version"), env!("CARGO_PKG_VERSION"));

    // Charts and report.md.
    for chart in [
        "win_rates",
        "scores",
        "ranks",
        "length",
        "end_reasons",
        "points_by_source",
        "leader_by_round",
        "score_race",
    ] {
        for ext in ["png", "svg"] {
            let p = dir.join(format!("{chart}.{ext}"));
            assert!(
                std::fs::metadata(&p)
                    .map(|m| m.len() > 1000)
                    .unwrap_or(false),
                "{}",
                p.display()
            );
        }
    }
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("![Win rates](win_rates.png)"));
    assert!(md.contains("![Score race](score_race.png)"));
    assert!(md.contains("Feedback: a faction gains"), "{md}");
    assert!(md.contains("--games 3000 --seed 4"), "{md}");
    assert!(md.contains(json["scenario"]["hash"].as_str().unwrap()));
    assert!(
        std::fs::read_dir(&dir).unwrap().all(|e| !e
            .unwrap()
            .file_name()
            .to_string_lossy()
            .ends_with(".tmp"))
    );
}

#[test]
fn the_games_table_has_one_row_per_game() {
    let dir = fresh_temp_path("report-games");
    let out = vpsim()
        .args([
            "run",
            TI4,
            "--games",
            "5000",
            "--json",
            "--games-table",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let games = read(&dir, "games");
    assert_eq!(games.height(), 5000);
    assert_eq!(u64s(&games, "game"), (0..5000).collect::<Vec<u64>>());
    let winners: Vec<Option<String>> = games
        .column("winner")
        .unwrap()
        .str()
        .unwrap()
        .iter()
        .map(|w| w.map(|x| x.to_string()))
        .collect();
    for f in json["factions"].as_array().unwrap() {
        let name = f["name"].as_str().unwrap();
        assert_eq!(
            winners
                .iter()
                .filter(|w| w.as_deref() == Some(name))
                .count() as u64,
            f["win"]["count"].as_u64().unwrap()
        );
    }
    assert!(games.column("score_Sol").is_ok() && games.column("rank_Sol").is_ok());
}

#[test]
fn ctrl_c_leaves_no_half_written_file() {
    let dir = fresh_temp_path("report-interrupt");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args([
            "run",
            TI4,
            "--games",
            "200000000",
            "--games-table",
            "--force",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the games table has been started, then interrupt.
    let start = std::time::Instant::now();
    while !std::fs::read_dir(&dir)
        .map(|d| d.count() > 0)
        .unwrap_or(false)
        && start.elapsed().as_secs() < 20
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no output file was written"));
    let left: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    assert!(left.is_empty(), "files left behind: {left:?}");
}

/// Every table opens in a reader that is not polars (arrow-rs's `parquet`), with types
/// every common reader knows: plain `utf8` strings (no `string_view`), signed integers.
#[test]
fn every_table_opens_in_another_reader_with_portable_types() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let dir = fresh_temp_path("report-portable");
    vpsim()
        .args([
            "run",
            TI4,
            "--games",
            "3000",
            "--seed",
            "5",
            "-q",
            "--games-table",
            "--csv",
        ])
        .arg("--out")
        .arg(&dir)
        .assert()
        .success();
    let mut tables = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "parquet") {
            continue;
        }
        tables += 1;
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let builder = ParquetRecordBatchReaderBuilder::try_new(File::open(&path).unwrap())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for f in builder.schema().fields() {
            let t = f.data_type().to_string();
            assert!(
                !t.contains("View") && !t.starts_with("UInt") && !t.starts_with("Large"),
                "{name}.{}: {t}",
                f.name()
            );
        }
        let rows: usize = builder
            .build()
            .unwrap()
            .map(|b| b.unwrap().num_rows())
            .sum();
        let polars_rows = read(&dir, &name).height();
        assert_eq!(rows, polars_rows, "{name}");
        if name == "games" {
            assert_eq!(rows, 3000);
        }
        // The same table as CSV: a header and one line per row.
        let csv = std::fs::read_to_string(dir.join("csv").join(format!("{name}.csv")));
        assert_eq!(csv.unwrap().lines().count(), rows + 1, "{name}.csv");
    }
    assert!(tables >= 8, "{tables} tables");
    let _ = std::fs::remove_dir_all(&dir);
}

/// SIGTERM stops `compare` (which plays two variants) with exit 143 and no file left.
#[test]
fn sigterm_stops_compare_with_143() {
    let dir = fresh_temp_path("report-sigterm");
    let dir_arg = dir.to_str().unwrap();
    let (out, took) = crate::util::interrupted(
        &[
            "compare",
            TI4,
            "--b-set",
            "settings.goal=12",
            "--games",
            "1000000000",
            "--quiet",
            "--out",
            dir_arg,
        ],
        "TERM",
    );
    assert!(took.as_secs() < 5, "took {took:?}");
    assert_eq!(out.status.code(), Some(143));
    let left = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "files left behind");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ctrl-C stops a run inside one long game (100,000 rounds of heavy dice, minutes of play),
/// within a second, with exit 130, on `run` and on `trace`.
#[test]
fn ctrl_c_stops_inside_a_long_game() {
    let scenario = crate::util::temp_scenario(
        "long-game",
        "[scenario]\nname = \"long\"\nrounds = 100000\n[[faction]]\nname = \"A\"\n\
         [[faction]]\nname = \"B\"\n[[var]]\nname = \"x\"\n[[phase]]\nname = \"p\"\n\
         each = \"faction\"\neffects = [\"x = roll(200000, 6) % 7\"]\n[ranking]\nscore = \"x\"\n",
    );
    let file = scenario.to_str().unwrap();
    for args in [
        &["run", file, "--games", "2", "--threads", "1", "--quiet"][..],
        &["trace", file, "--seed", "1", "--game", "0"],
    ] {
        let (out, took) = crate::util::interrupted(args, "INT");
        assert!(took.as_millis() < 1000, "{args:?} took {took:?}");
        assert_eq!(out.status.code(), Some(130), "{args:?}");
    }
    let _ = std::fs::remove_file(scenario);
}

#[test]
fn the_narrowest_charts_draw() {
    let dir = fresh_temp_path("report-narrow");
    vpsim()
        .args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "300",
            "--quiet",
        ])
        .args(["--chart-size", "320x320", "--out"])
        .arg(&dir)
        .assert()
        .success();
    assert!(dir.join("report.md").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_run_that_stops_on_a_fault_leaves_no_report_folder() {
    let dir = fresh_temp_dir("report-fault");
    let scenario = dir.join("fault.toml");
    std::fs::write(
        &scenario,
        "[scenario]\nname = \"fault\"\nrounds = 3\n[[faction]]\nname = \"A\"\n[[var]]\nname = \"x\"\n\
         [[phase]]\nname = \"p\"\neffects = [\"A.x = 1 // (round - round)\"]\n[ranking]\nscore = \"x\"\n",
    )
    .unwrap();
    let out = dir.join("new").join("report");
    let run = vpsim()
        .arg("run")
        .arg(&scenario)
        .args(["--games", "10", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        !dir.join("new").exists(),
        "an empty report folder was left behind"
    );
    // A path under a file cannot be a folder: a usage error naming the flag.
    let under_file = vpsim()
        .args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "10",
            "--quiet",
            "--out",
        ])
        .arg(scenario.join("sub"))
        .output()
        .unwrap();
    assert_eq!(under_file.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&under_file.stderr).contains("--out"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Per-round charts stop at the last round that 5% of the games reached, and say so: a round
/// one game in a thousand reaches has an interval of a handful of games.
#[test]
fn per_round_charts_stop_where_few_games_are_still_running() {
    let text = "[scenario]\nname = \"coin_race\"\nrounds = 40\n[[faction]]\nname = \"Alice\"\n\
           [[faction]]\nname = \"Bob\"\n[[var]]\nname = \"vp\"\n[[phase]]\nname = \"flip\"\n\
           each = \"faction\"\neffects = [\"vp += bernoulli(0.5)\"]\n[[end]]\nname = \"goal\"\n\
           when = \"max_all(vp) >= 6\"\ntiming = \"round_end\"\n[ranking]\nscore = \"vp\"\n";
    let path = crate::util::temp_scenario("coin-race-cut", text);
    let dir = fresh_temp_path("coin-race-cut");
    vpsim()
        .arg("run")
        .arg(&path)
        .args(["--games", "20000", "--quiet", "--out"])
        .arg(&dir)
        .assert()
        .success();
    // Games run 6 to about 24 rounds; 8.9% reach round 14 and 4.7% round 15.
    for chart in ["score_race.svg", "leader_by_round.svg"] {
        let svg = std::fs::read_to_string(dir.join(chart)).unwrap();
        assert!(
            svg.contains("to round 14, which 5% of games reach"),
            "{chart}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every report names the scenario file by the file's own hash, whatever overrides or
/// agents a run applies (they are listed beside it).
#[test]
fn the_scenario_hash_is_the_files_own() {
    let s = "scenarios/race_to_three.toml";
    let hash = |args: &[&str]| -> String {
        let out = crate::util::vpsim_output(args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["scenario"]["hash"].as_str().unwrap().to_string()
    };
    let plain = hash(&["run", s, "--games", "50", "--json", "--quiet"]);
    let set = hash(&[
        "run",
        s,
        "--games",
        "50",
        "--set",
        "settings.p=0.6",
        "--json",
        "--quiet",
    ]);
    let agent = hash(&[
        "run", s, "--games", "50", "--agent", "greedy", "--json", "--quiet",
    ]);
    let ladder = hash(&[
        "ladder",
        s,
        "--levels",
        "weighted,greedy",
        "--games",
        "50",
        "--json",
        "--quiet",
    ]);
    assert_eq!(set, plain);
    assert_eq!(agent, plain);
    assert_eq!(ladder, plain);
}

#[test]
fn a_single_end_reason_reads_every_game_not_most() {
    // Every game of the race ends by `three`: the report says so, with no interval.
    let dir = crate::util::fresh_temp_path("reports-every-game");
    let out = crate::util::vpsim_output(&[
        "run",
        "scenarios/race_to_three.toml",
        "--games",
        "500",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.contains("Every game ends by `three` (condition)."),
        "{md}"
    );
    assert!(!md.contains("Most games end by"), "{md}");
}

/// compare's report is laid out like run's: a block to reproduce it, a table of the two
/// variants, the verdict, the paired-difference chart over a table with a row per faction,
/// and the games whose winner changed; the chart names the games played and B's override.
#[test]
fn compare_report_has_the_paired_chart_and_a_table_per_faction() {
    let dir = fresh_temp_path("compare-report");
    let out = vpsim()
        .args([
            "compare",
            "scenarios/race_to_three.toml",
            "--b-set",
            "settings.q=0.45",
        ])
        .args(["--games", "3000", "-q", "--out", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    for part in [
        "Reproduce with:\n\n```sh\nvpsim compare ",
        "| B | `scenarios/race_to_three.toml` (FNV-1a `",
        "`settings.q=0.45`",
        "## Verdict\n\nB differs from A beyond noise",
        "![Win rates, B − A](compare.png)",
        "| First | ",
        "| Second | ",
        "## Games whose winner changed",
        "[A](a/report.html)",
    ] {
        assert!(md.contains(part), "missing {part:?} in {md}");
    }
    let svg = std::fs::read_to_string(dir.join("compare.svg")).unwrap();
    assert!(svg.contains("race_to_three · seed 1 · 3,000 games per variant · B: settings.q=0.45"));
    assert!(svg.contains("change in win rate, B minus A"), "{svg}");
    assert!(dir.join("compare.png").is_file());
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("<figure") && html.contains("B minus A"));
    let _ = std::fs::remove_dir_all(&dir);
}
