//! Sharded runs through the binary: shards played apart and merged give exactly the single
//! run (the README's local recipe, and scores spread over 2^40), and `merge` refuses shards
//! that are mismatched, missing, duplicated or tampered with.

use crate::util::{TI4, fresh_temp_dir, vpsim, without_performance};

/// Plays shard `k` of `n` of `scenario` (with `args`, such as `--games`) into `out`.
fn run_shard(
    scenario: impl AsRef<std::ffi::OsStr>,
    args: &[&str],
    k: u32,
    n: u32,
    out: &std::path::Path,
) {
    vpsim()
        .arg("run")
        .arg(scenario)
        .args(args)
        .args(["--shard", &format!("{k}/{n}"), "--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn the_local_shard_recipe_merges_to_exactly_one_run() {
    let dir = fresh_temp_dir("shards");
    // The README's xargs recipe, with this build's binary.
    let recipe = format!(
        "seq 1 4 | xargs -P 4 -I{{}} {bin} run {TI4} --games 6000 --seed 7 --shard {{}}/4 --out {d}/{{}} --quiet > /dev/null && \
         {bin} merge {d}/1 {d}/2 {d}/3 {d}/4 --json",
        bin = env!("CARGO_BIN_EXE_vpsim"),
        d = dir.display()
    );
    let merged = std::process::Command::new("bash")
        .arg("-c")
        .arg(&recipe)
        .output()
        .unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let single = vpsim()
        // A report folder counts usage, so the single run asks for it too.
        .args([
            "run", TI4, "--games", "6000", "--seed", "7", "--usage", "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        without_performance(&merged.stdout),
        without_performance(&single.stdout)
    );
}

#[test]
fn merge_refuses_mismatched_missing_and_duplicated_shards() {
    let dir = fresh_temp_dir("badshards");
    for (k, seed) in [(1, "7"), (2, "7"), (3, "8")] {
        run_shard(
            TI4,
            &["--games", "900", "--seed", seed],
            k,
            3,
            &dir.join(k.to_string()),
        );
    }
    let d = |k: u32| dir.join(k.to_string());
    let out = vpsim()
        .arg("merge")
        .arg(d(1))
        .arg(d(2))
        .arg(d(3))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("seeds differ"));
    let out = vpsim()
        .arg("merge")
        .arg(d(1))
        .arg(d(2))
        .arg(d(2))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing 3/3") && err.contains("duplicated 2/3"),
        "{err}"
    );
}

#[test]
fn merge_refuses_tampered_shard_files() {
    let dir = fresh_temp_dir("tampered");
    for k in 1..=2 {
        run_shard(TI4, &["--games", "400"], k, 2, &dir.join(k.to_string()));
    }
    let file = dir.join("2").join("tally.json");
    let good = std::fs::read_to_string(&file).unwrap();
    let edits: [(&str, &str, &str); 13] = [
        // Counts that must agree with each other: a win more than the games had results,
        // and draws that no faction drew.
        ("\"wins\":", "\"wins\":1", "`tally"),
        ("\"draws\":0,\"nobody\"", "\"draws\":6,\"nobody\"", "`tally"),
        ("\"by_round\":[", "\"by_round\":[[],", "`tally.by_round`"),
        (
            "\"shard\":{\"index\":2,",
            "\"shard\":{\"index\":0,",
            "`shard`",
        ),
        (
            "\"shard\":{\"index\":2,",
            "\"shard\":{\"index\":9,",
            "`shard`",
        ),
        ("\"count\":2}", "\"count\":0}", "`shard`"),
        ("\"games\":200,", "\"games\":20000,", "`tally.games`"),
        ("\"wins\":", "\"wins\":1000000", "`tally.factions[0]`"),
        (
            "\"vpsim_version\":\"",
            "\"vpsim_version\":\"9",
            "`vpsim_version`",
        ),
        // A key vpsim never writes: an edited or foreign file, not a tally to trust.
        (
            "\"vpsim_version\":\"",
            "\"note\":1,\"vpsim_version\":\"",
            "`note`",
        ),
        ("\"wins\":", "\"winz\":0,\"wins\":", "`winz`"),
        ("\"label\":", "\"labelz\":0,\"label\":", "`labelz`"),
        // Another version's file is named as such, whatever keys it has.
        (
            "\"vpsim_version\":\"",
            "\"note\":1,\"vpsim_version\":\"9",
            "merge with the version that ran the shards",
        ),
    ];
    for (from, to, field) in edits {
        assert!(good.contains(from), "{from} not in {good}");
        std::fs::write(&file, good.replacen(from, to, 1)).unwrap();
        let out = vpsim()
            .arg("merge")
            .arg(dir.join("1"))
            .arg(dir.join("2"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{to}: {err}");
        assert!(
            err.contains(field) && err.contains("tally.json"),
            "{to}: {err}"
        );
    }
    // A shard whose run info differs from the first shard's, field by field.
    for (from, to, field) in [
        (
            "\"name\":\"Arborec\"",
            "\"name\":\"Letnev\"",
            "`info.factions[0].name`",
        ),
        (
            "\"result\":\"rank\"",
            "\"result\":\"draw\"",
            "`info.reasons[0].result`",
        ),
        (
            "\"player\":true",
            "\"player\":false",
            "`info.factions[0].player`",
        ),
    ] {
        assert!(good.contains(from), "{from} not in {good}");
        let edited = good.replacen(from, to, 1);
        // As an edit, the digest refuses it; as a whole file of another run (its digest
        // made anew), the comparison with the first shard's info names the field.
        for (text, says) in [(edited.clone(), "`digest`"), (redigest(&edited), field)] {
            std::fs::write(&file, text).unwrap();
            let out = vpsim()
                .arg("merge")
                .arg(dir.join("1"))
                .arg(dir.join("2"))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{to}: {err}");
            assert!(err.contains(says), "{to}: {err}");
        }
    }
    std::fs::write(&file, good).unwrap();
    vpsim()
        .arg("merge")
        .arg(dir.join("1"))
        .arg(dir.join("2"))
        .assert()
        .success();
}

#[test]
fn shards_of_scores_spread_over_2_to_the_40_merge_to_the_single_run() {
    let dir = fresh_temp_dir("wide");
    let scenario = dir.join("wide.toml");
    std::fs::write(
        &scenario,
        r#"
[scenario]
name = "wide"
rounds = 1
[[faction]]
name = "First"
[[faction]]
name = "Second"
[[var]]
name = "vp"
[[phase]]
name = "score"
each = "faction"
effects = ["vp = uniform(0, 1099511627776)"]
[ranking]
score = "vp"
"#,
    )
    .unwrap();
    let mut merge = vpsim();
    merge.arg("merge");
    for k in 1..=3 {
        let out = dir.join(k.to_string());
        run_shard(&scenario, &["--games", "3000"], k, 3, &out);
        merge.arg(out);
    }
    let merged = merge.arg("--json").output().unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    let single = vpsim()
        .arg("run")
        .arg(&scenario)
        .args(["--games", "3000", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        without_performance(&merged.stdout),
        without_performance(&single.stdout)
    );
}

/// The JSON values of `text` (not its keys), as byte ranges: strings with their quotes,
/// numbers, `true`, `false` and `null`.
fn json_values(text: &str) -> Vec<std::ops::Range<usize>> {
    let b = text.as_bytes();
    let (mut out, mut i) = (Vec::new(), 0);
    while i < b.len() {
        let start = i;
        match b[i] {
            b'"' => {
                i += 1;
                while b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                // A string followed by `:` is a key.
                if b.get(i) != Some(&b':') {
                    out.push(start..i);
                }
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                while i < b.len() && !matches!(b[i], b',' | b']' | b'}') {
                    i += 1;
                }
                out.push(start..i);
            }
            _ => i += 1,
        }
    }
    out
}

/// The value `v` changed: a number plus one (or one more digit), a string with one more
/// character, a truth value flipped, `null` made `0`.
fn edited(v: &str) -> String {
    match v {
        "true" => "false".into(),
        "false" => "true".into(),
        "null" => "0".into(),
        _ if v.starts_with('"') => format!("{}x\"", &v[..v.len() - 1]),
        _ => match v.parse::<i128>() {
            Ok(n) => (n + 1).to_string(),
            Err(_) => format!("{v}1"),
        },
    }
}

/// Any single-value edit of a shard's tally.json, over every value of every seed scenario's
/// shard files, is refused by merge or merges to the unedited result: merge cannot be made
/// to report a different run.
#[test]
fn no_single_edit_of_a_shard_merges_into_another_result() {
    let root = fresh_temp_dir("every-edit");
    let read = |d: &std::path::Path| vpsim::report::read_tally(d, |_, _| Ok(()));
    let mut edits = 0;
    for (s, scenario) in crate::util::scenario_files().iter().enumerate() {
        let dirs: Vec<_> = (1..=2).map(|k| root.join(format!("{s}-{k}"))).collect();
        for (k, d) in dirs.iter().enumerate() {
            run_shard(
                scenario,
                &["--games", "60", "--seed", "3"],
                k as u32 + 1,
                2,
                d,
            );
        }
        let files: Vec<_> = dirs.iter().map(|d| (d.clone(), read(d).unwrap())).collect();
        let good = vpsim::cli::merge::merge(&files).unwrap();
        let file = dirs[1].join("tally.json");
        let text = std::fs::read_to_string(&file).unwrap();
        for r in json_values(&text) {
            let changed = format!(
                "{}{}{}",
                &text[..r.start],
                edited(&text[r.clone()]),
                &text[r.end..]
            );
            std::fs::write(&file, &changed).unwrap();
            let merged = read(&dirs[1])
                .and_then(|f| vpsim::cli::merge::merge(&[files[0].clone(), (dirs[1].clone(), f)]));
            if let Ok(m) = merged {
                assert_eq!(
                    m,
                    good,
                    "{}: {} -> {}",
                    scenario.display(),
                    &text[r.clone()],
                    edited(&text[r])
                );
            }
            edits += 1;
        }
        std::fs::write(&file, &text).unwrap();
    }
    assert!(edits > 1000, "{edits} edits");
    let _ = std::fs::remove_dir_all(&root);
}

/// A tally file's text with its digest made anew for its contents, as a run that really
/// wrote those contents would have it.
fn redigest(text: &str) -> String {
    let rest = &text["{\"digest\":\"0123456789abcdef\",".len()..];
    let body = format!("{{{rest}");
    let digest = vpsim::scenario::compile::fnv1a(body.as_bytes());
    format!("{{\"digest\":\"{digest}\",{rest}")
}
