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
            "\"mechanism\":\"condition\"",
            "\"mechanism\":\"end statement\"",
            "`info.reasons[0].mechanism`",
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
pub(crate) fn json_values(text: &str) -> Vec<std::ops::Range<usize>> {
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
pub(crate) fn edited(v: &str) -> String {
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

/// Plays shards 1 and 2 of 2 of `scenario` (60 games, seed 3) into `root/NAME-1` and
/// `root/NAME-2`, with `key` as the shard key when given; returns the two folders.
fn two_shards(
    root: &std::path::Path,
    name: &str,
    scenario: &std::path::Path,
    key: Option<&str>,
) -> Vec<std::path::PathBuf> {
    let dirs: Vec<_> = (1..=2).map(|k| root.join(format!("{name}-{k}"))).collect();
    for (k, d) in dirs.iter().enumerate() {
        let mut cmd = vpsim();
        cmd.env_remove(vpsim::report::SHARD_KEY_VAR);
        if let Some(key) = key {
            cmd.env(vpsim::report::SHARD_KEY_VAR, key);
        }
        cmd.arg("run")
            .arg(scenario)
            .args(["--games", "60", "--seed", "3"])
            .args(["--shard", &format!("{}/2", k + 1), "--quiet", "--out"])
            .arg(d)
            .assert()
            .success();
    }
    dirs
}

/// Every single-value edit of a shard's tally.json, over every value of every seed
/// scenario's shard files: as it is, the digest refuses it; with a shard key, the MAC refuses
/// every edit, the digest recomputed or not (the digest is a checksum anyone can compute
/// again: without a key, the relations between the counts refuse only some of those).
#[test]
fn no_single_edit_of_a_shard_merges_into_another_result() {
    let root = fresh_temp_dir("every-edit");
    let secret = "a key only the shard machines hold";
    let key = Some(vpsim::report::ShardKey::new(secret.as_bytes()));
    let read = |d: &std::path::Path, k| vpsim::report::read_tally_keyed(d, k, |_, _| Ok(()));
    // A file's text read as merge reads it, without writing it anywhere.
    let parse = |d: &std::path::Path, text: &str, k| {
        vpsim::report::parse_tally(d, text.as_bytes(), k, |_, _| Ok(()))
    };
    let merge = |files: &[(std::path::PathBuf, vpsim::report::TallyFile)]| {
        vpsim::report::shards::merge(files)
    };
    let mut edits = 0;
    for (s, scenario) in crate::util::scenario_files().iter().enumerate() {
        let plain = two_shards(&root, &format!("{s}"), scenario, None);
        let keyed = two_shards(&root, &format!("{s}-key"), scenario, Some(secret));
        let files: Vec<_> = plain
            .iter()
            .map(|d| (d.clone(), read(d, None).unwrap()))
            .collect();
        let good = merge(&files).unwrap();
        let first = (keyed[0].clone(), read(&keyed[0], key).unwrap());
        let keyed_good = merge(&[
            first.clone(),
            (keyed[1].clone(), read(&keyed[1], key).unwrap()),
        ])
        .unwrap();
        assert_eq!(keyed_good.tally, good.tally, "the key changes no count");
        let (file, kfile) = (plain[1].join("tally.json"), keyed[1].join("tally.json"));
        let (text, ktext) = (
            std::fs::read_to_string(&file).unwrap(),
            std::fs::read_to_string(&kfile).unwrap(),
        );
        for r in json_values(&text) {
            let changed = format!(
                "{}{}{}",
                &text[..r.start],
                edited(&text[r.clone()]),
                &text[r.end..]
            );
            edits += 1;
            assert!(
                parse(&plain[1], &changed, None).is_err(),
                "{}: the digest let an edit through",
                scenario.display()
            );
        }
        for r in json_values(&ktext) {
            let changed = format!(
                "{}{}{}",
                &ktext[..r.start],
                edited(&ktext[r.clone()]),
                &ktext[r.end..]
            );
            // The digest made anew, as anyone can: the MAC still refuses it (an edit of the
            // digest itself is undone by that).
            let forged = redigest_keyed(&changed);
            if forged != ktext {
                let e = parse(&keyed[1], &forged, key).unwrap_err().to_string();
                // An edit of the contents is refused by the MAC (the version, read first to
                // name the version to use, by its own check); one of the MAC itself may also
                // break the file's shape.
                let body = r.start > ktext.find("\"mac\"").unwrap() + 72;
                assert!(
                    !body || e.contains("`mac` does not match") || e.contains("`vpsim_version`"),
                    "{}: {} -> {e}",
                    scenario.display(),
                    &ktext[r.clone()]
                );
            }
        }
        // The keyed file is refused without its key, and with another.
        assert!(read(&keyed[1], None).is_err() && read(&plain[1], key).is_err());
        let other = Some(vpsim::report::ShardKey::new(b"another key"));
        assert!(read(&keyed[1], other).is_err());
    }
    assert!(edits > 1000, "{edits} edits");
    let _ = std::fs::remove_dir_all(&root);
}

/// A keyed tally file's text with its digest made anew for the contents it covers (what
/// follows the `mac`), the `mac` kept: what anyone without the key can do.
pub(crate) fn redigest_keyed(text: &str) -> String {
    let Some(head) = text.find("\"mac\":\"").map(|i| i + "\"mac\":\"".len()) else {
        return text.to_string();
    };
    let Some(end) = text.get(head..).and_then(|t| t.find('"')) else {
        return text.to_string();
    };
    let mac = &text[head..head + end];
    let rest = &text[head + end + 2..];
    let digest = vpsim::scenario::compile::fnv1a(format!("{{{rest}").as_bytes());
    format!("{{\"digest\":\"{digest}\",\"mac\":\"{mac}\",{rest}")
}

/// A tally file's text with its digest made anew for its contents, as a run that really
/// wrote those contents would have it.
pub(crate) fn redigest(text: &str) -> String {
    let rest = &text["{\"digest\":\"0123456789abcdef\",".len()..];
    let body = format!("{{{rest}");
    let digest = vpsim::scenario::compile::fnv1a(body.as_bytes());
    format!("{{\"digest\":\"{digest}\",{rest}")
}

/// With `VPSIM_SHARD_KEY`, shards merge under the same key into exactly the single run, and
/// merge refuses them without it or under another key, saying which.
#[test]
fn keyed_shards_merge_only_under_their_key() {
    let root = fresh_temp_dir("keyed-shards");
    let race = std::path::Path::new("scenarios/race_to_three.toml");
    let dirs = two_shards(&root, "race", race, Some("s3cret"));
    let merge = |key: Option<&str>| {
        let mut cmd = vpsim();
        cmd.env_remove(vpsim::report::SHARD_KEY_VAR);
        if let Some(k) = key {
            cmd.env(vpsim::report::SHARD_KEY_VAR, k);
        }
        cmd.arg("merge").args(&dirs).arg("--json").output().unwrap()
    };
    let ok = merge(Some("s3cret"));
    assert!(ok.status.success(), "{ok:?}");
    let single = vpsim()
        .args([
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "60",
            "--seed",
            "3",
            "--json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        without_performance(&ok.stdout),
        without_performance(&single.stdout)
    );
    for (key, says) in [
        (None, "written with a shard key (VPSIM_SHARD_KEY)"),
        (Some("guess"), "`mac` does not match"),
    ] {
        let out = merge(key);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(says), "{err}");
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// An end reason relabelled as a draw (or as nobody's win), in both shards with their
/// digests made anew, in a run with no such games: `merge` refuses it, naming the reasons.
#[test]
fn a_reason_relabelled_as_a_draw_is_refused() {
    let root = fresh_temp_dir("relabel");
    let scenario = std::path::Path::new("scenarios/race_to_three.toml");
    let dirs = two_shards(&root, "race", scenario, None);
    for result in ["draw", "nobody"] {
        let edited: Vec<std::path::PathBuf> = dirs
            .iter()
            .enumerate()
            .map(|(k, d)| {
                let text = std::fs::read_to_string(d.join("tally.json")).unwrap();
                assert!(text.contains("\"result\":\"rank\""), "{text}");
                let text = text.replacen(
                    "\"result\":\"rank\"",
                    &format!("\"result\":\"{result}\""),
                    1,
                );
                let out = root.join(format!("{result}-{k}"));
                std::fs::create_dir_all(&out).unwrap();
                std::fs::write(out.join("tally.json"), redigest(&text)).unwrap();
                out
            })
            .collect();
        let out = vpsim()
            .env_remove(vpsim::report::SHARD_KEY_VAR)
            .arg("merge")
            .args(&edited)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{result}: {err}");
        assert!(
            err.contains("tally.reasons") && err.contains(&format!("result {result}")),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&root);
}

/// Without a key, a single-value edit of a shard's tally.json with its digest made anew (what
/// anyone can do) that changes the merged result is refused wherever a relation the tally
/// must satisfy can tell: between its own tables, with the other shards, and with the
/// scenario file it names (its score's bounds). Prints how many still merge: counts no
/// relation binds (only a shard key protects those).
#[test]
fn unkeyed_single_edits_that_change_the_result_are_refused() {
    let root = fresh_temp_dir("unkeyed-edits");
    let parse = |d: &std::path::Path, text: &str| {
        vpsim::report::parse_tally(d, text.as_bytes(), None, |_, _| Ok(()))
    };
    let (mut edits, mut through) = (0, Vec::new());
    for (s, scenario) in crate::util::scenario_files().iter().enumerate() {
        let dirs = two_shards(&root, &format!("{s}"), scenario, None);
        let texts: Vec<String> = (dirs.iter())
            .map(|d| std::fs::read_to_string(d.join("tally.json")).unwrap())
            .collect();
        let files: Vec<_> = (dirs.iter().zip(&texts))
            .map(|(d, t)| (d.clone(), parse(d, t).unwrap()))
            .collect();
        let good = vpsim::report::shards::merge(&files).unwrap();
        let text = &texts[1];
        for r in json_values(text) {
            let changed = format!(
                "{}{}{}",
                &text[..r.start],
                edited(&text[r.clone()]),
                &text[r.end..]
            );
            let forged = redigest(&changed);
            if forged == *text {
                continue;
            }
            edits += 1;
            let Ok(f) = parse(&dirs[1], &forged) else {
                continue;
            };
            let pair = [files[0].clone(), (dirs[1].clone(), f)];
            let Ok(m) = vpsim::report::shards::merge(&pair) else {
                continue;
            };
            let same =
                m.tally == good.tally && m.info == good.info && m.total_games == good.total_games;
            if !same {
                let from = text[..r.start].len().saturating_sub(80);
                through.push(format!(
                    "{}: …{}[{}]",
                    scenario.display(),
                    &text[from..r.start],
                    &text[r.clone()]
                ));
            }
        }
    }
    eprintln!(
        "{} of {edits} unkeyed single-value edits merged into another result",
        through.len()
    );
    assert!(edits > 1000, "{edits} edits");
    // What still merges are counts no other table binds (usage, the leaders' counts, points
    // by source, metrics, shifts within every bound): at most 1 in 40 edits, and none of a
    // count that adds up elsewhere or of the feedback test's sums.
    assert!(through.len() * 40 < edits, "{}", through.join("\n"));
    let last_key = |t: &str| -> Option<String> {
        let end = t.rfind("\":")?;
        Some(t[t[..end].rfind('"')? + 1..end].to_string())
    };
    let bound_edit = |t: &&String| {
        last_key(t).is_some_and(|k| {
            ["sum", "squares", "counts", "reasons", "ranks", "n"].contains(&k.as_str())
        })
    };
    let caught: Vec<&String> = through.iter().filter(bound_edit).collect();
    assert!(caught.is_empty(), "{caught:#?}");
    let _ = std::fs::remove_dir_all(&root);
}
