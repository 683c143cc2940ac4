//! Bounded work: a runaway game, a huge throw of dice or deeply nested aggregates end with a
//! located message instead of running forever; `--games` has a ceiling.

use crate::util::{fresh_temp_path, temp_scenario, vpsim, vpsim_output};

/// Writes a two-faction scenario with `body` right after its `[scenario]` table's `rounds`
/// (more keys of that table, then any tables) to a scratch file named after `name`, and
/// returns its path.
fn scenario(name: &str, body: &str) -> std::path::PathBuf {
    let text = format!(
        r#"
[scenario]
name = "limits"
rounds = 3
{body}

[[faction]]
name = "A"
[[faction]]
name = "B"

[[var]]
name = "vp"

[[action]]
name = "score"
effects = ["vp += 1"]

[ranking]
score = "vp"
"#
    );
    temp_scenario(&format!("limits-{name}"), &text)
}

#[test]
fn a_runaway_game_is_stopped_by_the_step_budget() {
    let p = scenario(
        "steps",
        "max_steps = 1000\n\n[[phase]]\nname = \"turns\"\neach = \"faction\"\nactions = 9223372036854775807",
    );
    let ps = p.to_str().unwrap();
    let out = vpsim_output(&["run", ps, "--games", "5", "--seed", "3"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("more than 1000 agent decisions"), "{err}");
    assert!(
        err.contains("in game 0 of seed 3") && err.contains(ps),
        "{err}"
    );
}

#[test]
fn dice_and_nested_aggregates_are_bounded() {
    let p = scenario(
        "roll",
        "\n[[phase]]\nname = \"p\"\neach = \"faction\"\neffects = [\"vp += roll(10000000, 6)\"]",
    );
    let out = vpsim_output(&["run", p.to_str().unwrap(), "--games", "5"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("need 0 to 1000000 dice"), "{err}");

    let nested = format!("{}vp{}", "sum_all(".repeat(30), ")".repeat(30));
    let p = scenario(
        "nested",
        &format!("\n[[phase]]\nname = \"p\"\neffects = [\"A.vp = {nested}\"]"),
    );
    let out = vpsim_output(&["validate", p.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("combinations") && err.contains(":"), "{err}");
}

#[test]
fn games_has_a_ceiling() {
    let out = vpsim_output(&[
        "run",
        "scenarios/race_to_three.toml",
        "--games",
        "9223372036854775807",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("from 1 to 1000000000000000"));
}

#[test]
fn extreme_scores_keep_memory_bounded_and_say_so() {
    let p = scenario(
        "wide",
        "\n[[phase]]\nname = \"p\"\neach = \"faction\"\neffects = [\"vp = if(bernoulli(0.5), 9223372036854775807, -9223372036854775807 - 1) + 0 * uniform(0, 1000000000)\"]",
    );
    let dir = fresh_temp_path("limits-wide-out");
    let out = vpsim()
        .args([
            "run",
            p.to_str().unwrap(),
            "--games",
            "300",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("scores spanned more than 65,536 values"),
        "{text}"
    );
    assert!(
        text.contains("9223372036854775807") && text.contains("-9223372036854775808"),
        "{text}"
    );
    let report = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(report.contains("kept in bins of"), "{report}");
    // The tally stays small: bounded bins, not one per value.
    let tally = std::fs::metadata(dir.join("tally.json")).unwrap().len();
    assert!(tally < 2_000_000, "tally.json is {tally} bytes");
}

/// Found by the fuzz harness: a tampered `elapsed_s` panicked in `merge`.
#[test]
fn merge_refuses_an_impossible_elapsed_time() {
    let dir = fresh_temp_path("limits-elapsed");
    for k in 1..=2 {
        let out = vpsim_output(&[
            "run",
            "scenarios/race_to_three.toml",
            "--games",
            "100",
            "-q",
            "--shard",
            &format!("{k}/2"),
            "--out",
            dir.join(k.to_string()).to_str().unwrap(),
        ]);
        assert!(out.status.success());
    }
    let tally = dir.join("1").join("tally.json");
    // The value edited in place: the file keeps the form vpsim writes, digest first.
    let text = std::fs::read_to_string(&tally).unwrap();
    let at = text.find("\"elapsed_s\":").unwrap() + "\"elapsed_s\":".len();
    let end = at + text[at..].find(',').unwrap();
    std::fs::write(&tally, format!("{}-1.0e300{}", &text[..at], &text[end..])).unwrap();
    let out = vpsim_output(&[
        "merge",
        dir.join("1").to_str().unwrap(),
        dir.join("2").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("elapsed_s") && err.contains("tally.json"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Scenario size is bounded where it is cheap to refuse: a file of more `[[var]]` or
/// `[[action]]` tables than a scenario may hold is refused at the first one too many, before
/// it is parsed, and a deck of a million cards at the card that overfills it.
#[test]
fn oversized_scenarios_are_refused_at_the_table_too_many() {
    let head = "[scenario]\nname = \"big\"\nrounds = 2\n[[faction]]\nname = \"A\"\n\
        [[faction]]\nname = \"B\"\n[ranking]\nscore = \"0\"\n";
    for (table, n, says) in [
        ("[[var]]\nname = \"v{i}\"\n", 65_537, "too many variables"),
        ("[[action]]\nname = \"a{i}\"\n", 65_535, "too many actions"),
    ] {
        let mut text = head.to_string();
        for i in 0..n {
            text.push_str(&table.replace("{i}", &i.to_string()));
        }
        let path = crate::util::temp_scenario("oversized", &text);
        let out = vpsim_output(&["validate", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        // Line of the first table too many: 9 lines of head, 2 lines a table.
        let line = 9 + 2 * (n - 1) + 1;
        assert!(
            err.contains(says) && err.contains(&format!(":{line}:")),
            "{err}"
        );
    }
    let mut deck = format!("{head}[[deck]]\nname = \"d\"\n");
    for i in 0..2000 {
        deck.push_str(&format!("[[deck.cards]]\nname = \"c{i}\"\n"));
    }
    let path = crate::util::temp_scenario("big-deck", &deck);
    let out = vpsim_output(&["validate", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("a deck holds at most 1024") && err.contains("big-deck"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_loading_and_compiling() {
    // 65,534 actions: seconds of compiling, which a signal must cut short.
    let mut text = String::from(
        "[scenario]\nname = \"many\"\nrounds = 2\n[[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n[[var]]\nname = \"vp\"\n",
    );
    for i in 0..65_534 {
        text.push_str(&format!(
            "[[action]]\nname = \"a{i}\"\neffects = [\"vp += {}\"]\n",
            i % 7
        ));
    }
    text.push_str(
        "[[phase]]\nname = \"t\"\neach = \"faction\"\nactions = 1\n[ranking]\nscore = \"vp\"\n",
    );
    let path = temp_scenario("limits-ctrl-c", &text);
    for (command, signal, code) in [("validate", "-INT", 130), ("run", "-TERM", 143)] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vpsim"))
            .args([command, path.to_str().unwrap()])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(700));
        std::process::Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert_eq!(child.wait().unwrap().code(), Some(code), "{command}");
    }
}

/// Derived values are expanded where they are read, within bounds: a chain that doubles
/// at each step, and a chain deeper than a formula may nest, are located errors at once.
#[test]
fn derived_chains_expand_within_bounds() {
    let chain = |n: usize, double: bool| {
        let mut t = String::from(
            "[scenario]\nname = \"chain\"\nrounds = 1\n[[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n[[var]]\nname = \"vp\"\n[[derived]]\nname = \"v0\"\nformula = \"vp + 1\"\n",
        );
        for k in 1..=n {
            let f = if double {
                format!("v{0} + v{0}", k - 1)
            } else {
                format!("v{} + 1", k - 1)
            };
            t.push_str(&format!(
                "[[derived]]\nname = \"v{k}\"\nformula = \"{f}\"\n"
            ));
        }
        t.push_str(&format!(
            "[[phase]]\nname = \"p\"\neach = \"faction\"\neffects = [\"vp = v{n}\"]\n[ranking]\nscore = \"vp\"\n"
        ));
        t
    };
    for (name, text, says) in [
        (
            "derived-double",
            chain(18, true),
            "more than 100000 operations",
        ),
        ("derived-deep", chain(1000, false), "more than 64 deep"),
    ] {
        let path = temp_scenario(name, &text);
        let out = vpsim_output(&["validate", path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(says) && err.contains(".toml:"),
            "{name}: {err}"
        );
    }
    let path = temp_scenario("derived-fine", &chain(10, true));
    assert!(
        vpsim_output(&["validate", path.to_str().unwrap()])
            .status
            .success()
    );
}

/// Aggregates nested 14 deep over 2 factions (16,384 combinations, within the limit) run
/// in machine code in bounded memory: only the innermost is unrolled. Same results as the
/// interpreter.
#[test]
fn nested_aggregates_compile_in_bounded_memory() {
    // Bare nesting: every level's body is small, so each was unrolled into the next
    // (12 s and 2.7 GB before; 0.02 s and 18 MB now, debug build).
    let mut f = String::from("vp");
    for _ in 0..14 {
        f = format!("max_all({f})");
    }
    let text = format!(
        "[scenario]\nname = \"nested\"\nrounds = 2\n[[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n[[var]]\nname = \"vp\"\n[[phase]]\nname = \"p\"\neach = \"faction\"\neffects = [\"vp = {f}\"]\n[ranking]\nscore = \"vp\"\n"
    );
    let path = temp_scenario("limits-nested-aggs", &text);
    let json = |engine: &str| {
        let out = vpsim_output(&[
            "run",
            path.to_str().unwrap(),
            "--games",
            "50",
            "--engine",
            engine,
            "--json",
            "--quiet",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        crate::util::without_performance(&out.stdout)
    };
    assert_eq!(json("native"), json("interp"));
}

/// Seventeen factions, one more than the limit, are refused at the seventeenth.
#[test]
fn a_faction_past_the_limit_is_located_at_its_table() {
    let mut text = String::from("[scenario]\nname = \"x\"\nrounds = 1\n[[var]]\nname = \"vp\"\n");
    for i in 1..=17 {
        text.push_str(&format!("[[faction]]\nname = \"F{i}\"\n"));
    }
    text.push_str("[ranking]\nscore = \"vp\"\n");
    let file = temp_scenario("limits-17-factions", &text);
    let out = vpsim_output(&["validate", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    // Lines 1-5 are the header; the k-th faction's table is on line 4 + 2k.
    assert!(
        err.contains(":38:1: a scenario needs 1 to 16 [[faction]] tables, found 17"),
        "{err}"
    );
}

/// A scenario whose texts and names are short, with `key` set to 70,000 characters.
fn with_long(key: &str) -> String {
    let long = "q".repeat(70_000);
    let pick = |k: &str, short: &str| {
        if k == key {
            long.clone()
        } else {
            short.to_string()
        }
    };
    format!(
        "[scenario]\nname = \"{}\"\ntitle = \"{}\"\nrounds = 2\n\
         [[set]]\nname = \"S\"\nelements = [\"{}\", \"b\"]\n\
         [[faction]]\nname = \"A\"\nlabel = \"{}\"\n[[faction]]\nname = \"{}\"\n\
         [[var]]\nname = \"vp\"\n[[var]]\nname = \"{}\"\nover = \"S\"\n\
         [[deck]]\nname = \"d\"\ncards = [{{ name = \"{}\", count = 2 }}]\n\
         [[action]]\nname = \"{}\"\neffects = [\"vp += 1\"]\n\
         [[phase]]\nname = \"t\"\neach = \"faction\"\nactions = 1\n\
         [[end]]\nname = \"{}\"\nwhen = \"max_all(vp) > 100\"\n\
         [[metric]]\nname = \"{}\"\nformula = \"max_all(vp)\"\n\
         [ranking]\nscore = \"vp\"\n",
        pick("scenario", "longtexts"),
        pick("title", "T"),
        pick("element", "a"),
        pick("label", "The A"),
        pick("faction", "B"),
        pick("var", "owned"),
        pick("card", "c"),
        pick("action", "score"),
        pick("end", "long_game"),
        pick("metric", "top"),
    )
}

/// Every text a report shows on one line (a title, a label, a card's name) and every name
/// is at most 200 characters, refused at its line: a 65,536-character label made every
/// terminal table panic (a format width out of range), and charts lay a long one out in
/// time quadratic in its length.
#[test]
fn long_texts_and_names_are_refused_at_their_line() {
    let short = temp_scenario("longtexts-none", &with_long("none"));
    vpsim()
        .args(["run", short.to_str().unwrap(), "--games", "50", "--quiet"])
        .assert()
        .success();
    for (key, line, says) in [
        (
            "title",
            3,
            "this text is shown on one line and is 70000 characters long",
        ),
        ("element", 7, "this name is 70000 characters long"),
        (
            "label",
            10,
            "this text is shown on one line and is 70000 characters long",
        ),
        ("faction", 12, "this name is 70000 characters long"),
        ("var", 16, "this name is 70000 characters long"),
        (
            "card",
            20,
            "this text is shown on one line and is 70000 characters long",
        ),
        ("action", 22, "this name is 70000 characters long"),
        ("end", 29, "this name is 70000 characters long"),
        ("metric", 32, "this name is 70000 characters long"),
    ] {
        let path = temp_scenario(&format!("longtexts-{key}"), &with_long(key));
        let out = vpsim_output(&["run", path.to_str().unwrap(), "--games", "50"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{key}: {}",
            &err[..err.len().min(300)]
        );
        let head = err.lines().next().unwrap_or_default();
        assert!(
            head.contains(&format!(":{line}:"))
                && head.contains(says)
                && head.contains("at most 200"),
            "{key}: {head}"
        );
    }
}

/// A scenario of 16 factions and many faction variables over a 255x257 grid: the state's
/// size is bounded (8 MiB a state), and the variable that crosses the limit is named at its
/// line with the sizes, on `validate` and `run`, in bounded memory and time; 4,097 such
/// variables (which used to wrap a 32-bit slot counter and panic) are refused the same way.
#[test]
fn the_states_size_is_bounded_and_the_variable_past_it_named() {
    for count in [300, 4097] {
        let mut s = String::from("[scenario]\nname = \"k1\"\nrounds = 2\n\n");
        for f in 0..16 {
            s.push_str(&format!("[[faction]]\nname = \"F{f}\"\n"));
        }
        s.push_str("\n[[set]]\nname = \"g\"\ngrid = [255, 257]\n");
        for v in 0..count {
            s.push_str(&format!("\n[[var]]\nname = \"v{v}\"\nover = \"g\"\n"));
        }
        s.push_str("\n[[var]]\nname = \"vp\"\n\n[ranking]\nscore = \"vp\"\n");
        let path = temp_scenario(&format!("limits-k1-{count}"), &s);
        for cmd in ["validate", "run"] {
            let out = vpsim_output(
                &[cmd, path.to_str().unwrap(), "--games", "1"][..if cmd == "run" { 4 } else { 2 }],
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{cmd} {count}: {err}");
            assert!(
                err.contains("`v1`"),
                "{cmd} {count}: the second variable crosses: {err}"
            );
            assert!(err.contains("1048576"), "{cmd} {count}: {err}");
            assert!(err.contains(".toml:"), "located: {err}");
        }
    }
}

/// A grid scenario: `A` and `B`, a faction variable `t` over a `rows` x `cols` grid with
/// random initial values, a template over the whole grid each turn, and `extra` tables.
fn grid_scenario(name: &str, rows: u32, cols: u32, extra: &str) -> std::path::PathBuf {
    temp_scenario(
        name,
        &format!(
            r#"[scenario]
name = "grid"
rounds = 2

[[faction]]
name = "A"
[[faction]]
name = "B"

[[set]]
name = "g"
grid = [{rows}, {cols}]

[[var]]
name = "t"
over = "g"
init = "d2"

[[var]]
name = "vp"

[[phase]]
name = "p"
each = "faction"
effects = ["for e in g: t[e] += 1", "vp += t[r1c2] + t[r{rows}c{cols}]"]

[ranking]
score = "vp"
{extra}"#
        ),
    )
}

/// Random initial values over a 128x128 grid and a template over all of it compile in
/// bounded time and memory on the native engine (they were unrolled into one function per
/// element and owner: about 110 s and 480 MB), with results identical to the
/// interpreter's; a template action over a 255x256 grid (65,280 actions) leaves the runs
/// past the compile budget to the engine and `validate` says so; one over 255x257 (65,535
/// actions, one more than a scenario may declare) is refused at its `for_each` before any
/// copy compiles.
#[test]
fn huge_grids_compile_in_bounded_time_and_the_same_on_both_engines() {
    let grid = grid_scenario("limits-k2-grid", 128, 128, "");
    crate::util::same_on_both(&grid, &[]);
    let action = "\n[[action]]\nname = \"mark\"\nfor_each = \"g\"\neffects = [\"t[it] += 1\"]\n";
    let many = grid_scenario("limits-k2-many", 255, 256, action);
    let out = vpsim_output(&["validate", many.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    assert!(
        text.contains("statement runs past the compile budget run in the engine"),
        "{text}"
    );
    let over = grid_scenario("limits-k2-over", 255, 257, action);
    let out = vpsim_output(&["validate", over.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("for_each = \"g\"` makes 65535"), "{err}");
    assert!(err.contains(".toml:32:12"), "at the for_each line: {err}");
}
