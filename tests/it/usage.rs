//! Usage counts (`run --usage`): each faction's decisions by action and the cards it ends
//! with, against a hand count from `trace`, their win rates recombined, and the same counts
//! on both engines, any thread count and any shard split.

use crate::util::{SAFE_OR_RISKY, TI4, json_of, same_everywhere, temp_scenario, vpsim_output};

/// The `usage` rows of faction `f` of a `run --json` report, as (action, decisions).
fn decisions(v: &serde_json::Value, f: usize) -> Vec<(String, u64)> {
    (v["factions"][f]["usage"].as_array().unwrap().iter())
        .map(|u| {
            let name = u["action"].as_str().unwrap().to_string();
            (name, u["decisions"].as_u64().unwrap())
        })
        .collect()
}

#[test]
fn usage_counts_equal_a_count_of_the_traced_decisions() {
    let path = temp_scenario("usage-trace", SAFE_OR_RISKY);
    let p = path.to_str().unwrap();
    let games = 6;
    let mut counted = std::collections::BTreeMap::new();
    for g in 0..games {
        let out = vpsim_output(&["trace", p, "--seed", "3", "--game", &g.to_string()]);
        assert!(out.status.success());
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if let Some((who, what)) = line.trim().split_once(": ")
                && ["A", "B"].contains(&who)
                && ["safe", "risky"].contains(&what)
            {
                *counted
                    .entry((who.to_string(), what.to_string()))
                    .or_insert(0u64) += 1;
            }
        }
    }
    assert!(!counted.is_empty(), "the trace names each decision");
    for engine in ["native", "interp"] {
        let v = json_of(&[
            "run", p, "--games", "6", "--seed", "3", "--usage", "--json", "--quiet", "--engine",
            engine,
        ]);
        for (f, name) in ["A", "B"].iter().enumerate() {
            for (action, n) in decisions(&v, f) {
                let want = counted.get(&(name.to_string(), action.clone())).copied();
                assert_eq!(n, want.unwrap_or(0), "{engine}: {name} {action}");
            }
        }
    }
}

#[test]
fn win_rates_with_and_without_recombine_to_the_faction_s() {
    let v = json_of(&[
        "run", TI4, "--games", "3000", "--usage", "--json", "--quiet",
    ]);
    let games = v["games"].as_u64().unwrap();
    for f in v["factions"].as_array().unwrap() {
        let wins = f["win"]["count"].as_u64().unwrap();
        let rows = f["usage"].as_array().unwrap();
        assert!(!rows.is_empty());
        let share: f64 = rows.iter().map(|u| u["share"].as_f64().unwrap()).sum();
        assert!((share - 1.0).abs() < 1e-9, "shares sum to 1: {share}");
        for u in rows.iter().chain(f["cards"].as_array().unwrap()) {
            let (with, without) = match u.get("win_if_used") {
                Some(w) => (w, &u["win_if_unused"]),
                None => (&u["win_if_held"], &u["win_if_not"]),
            };
            let count = |r: &serde_json::Value, k: &str| r[k].as_u64().unwrap();
            assert_eq!(count(with, "count") + count(without, "count"), wins, "{u}");
            assert_eq!(count(with, "n") + count(without, "n"), games, "{u}");
            assert_eq!(count(with, "n"), u["games"].as_u64().unwrap());
        }
    }
}

#[test]
fn an_action_never_chosen_and_one_chosen_every_game_are_flagged() {
    let path = temp_scenario("usage-flags", SAFE_OR_RISKY);
    let p = path.to_str().unwrap();
    let v = json_of(&[
        "run",
        p,
        "--games",
        "500",
        "--set",
        "action.risky.weight=0",
        "--usage",
        "--json",
        "--quiet",
    ]);
    let rows = v["factions"][0]["usage"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|u| u["action"] == name).unwrap();
    assert_eq!(row("risky")["never_chosen"], true);
    assert_eq!(row("risky")["decisions"], 0);
    assert_eq!(row("safe")["every_game"], true);
    assert_eq!(row("safe")["per_game"], 3.0);
    let table = vpsim_output(&[
        "run",
        p,
        "--games",
        "500",
        "--set",
        "action.risky.weight=0",
        "--usage",
        "--quiet",
    ]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("never chosen") && text.contains("chosen in every game"),
        "{text}"
    );
    assert!(
        text.contains("associations under the agents' play, not effects"),
        "{text}"
    );
}

#[test]
fn usage_is_the_same_for_any_engine_thread_count_and_shard_split() {
    let one = same_everywhere("usage-shards", &[TI4, "--games", "5000", "--seed", "9"], 3);
    assert!(one["factions"][0]["usage"].is_array(), "{one}");
}

#[test]
fn a_report_folder_has_the_usage_tables_chart_and_section() {
    let dir = crate::util::fresh_temp_dir("usage-out");
    let out = vpsim_output(&[
        "run",
        TI4,
        "--games",
        "2000",
        "--quiet",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for f in ["usage.parquet", "cards.parquet", "usage.png", "usage.svg"] {
        assert!(dir.join(f).exists(), "{f}");
    }
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("## Action usage"), "{md}");
    assert!(md.contains("not effects"));
}
