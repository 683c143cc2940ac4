//! Clear failures through the binary: exit codes, located messages, faults that name their
//! formula and game with the command that replays them, warnings for likely typos, and no
//! control character or unwritable stream that changes what the user sees or the exit code.

use crate::util::{TI4, temp_path, vpsim};

fn fails_with(args: &[&str], code: i32, needle: &str) {
    let out = vpsim().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "expected `{needle}` in: {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_input_exits_2_with_a_location() {
    let dir = temp_path("cli");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string("scenarios/race_to_three.toml").unwrap();
    let cases = [
        ("p = 0.3", "p = 0.3\npp = [1", "expected"),
        (
            "timing = \"round_end\"",
            "timing = \"round_end\"\ntimming = 1",
            "unknown key `timming`",
        ),
        (
            "bernoulli(chance)",
            "bernoulli(1.7)",
            "probability 1.7 is outside 0..1",
        ),
        (
            "max_all(vp) >= 3",
            "max_all(vpp) >= 3",
            "`vpp` is not defined (did you mean `vp`?)",
        ),
        (
            "tiebreak = [\"-table_seat\"]",
            "tiebreak = [\"Third.vp\"]",
            "`Third` is not a faction",
        ),
        ("rounds = 10000", "rounds = [10]", "invalid type"),
        // rounds may be a constant formula: a word in it is located inside the string.
        (
            "rounds = 10000",
            "rounds = \"many\"",
            "`many` is not defined",
        ),
    ];
    for (i, (from, to, needle)) in cases.iter().enumerate() {
        assert!(base.contains(from));
        let path = dir.join(format!("bad{i}.toml"));
        std::fs::write(&path, base.replace(from, to)).unwrap();
        let p = path.to_str().unwrap();
        fails_with(&["validate", p], 2, needle);
        fails_with(&["run", p, "--games", "10"], 2, &format!("{p}:"));
    }
    fails_with(
        &["run", "no/such/file.toml"],
        2,
        "cannot read scenario no/such/file.toml",
    );
}

#[test]
fn bad_flags_exit_2() {
    fails_with(&["run", TI4, "--games", "0"], 2, "--games");
    fails_with(&["run", TI4, "--games", "ten"], 2, "--games");
    fails_with(&["run", TI4, "--threads", "0"], 2, "--threads");
    fails_with(&["run", TI4, "--frobnicate"], 2, "--frobnicate");
}

#[test]
fn a_runtime_fault_names_the_formula_and_the_game() {
    let dir = temp_path("fault");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string("scenarios/race_to_three.toml").unwrap();
    // A probability that only goes wrong at run time: each faction's chance is its own (the
    // worked example, which sets both to 1, would make it a constant refused at compile time).
    let rules = base.split("[[example]]").next().unwrap();
    let path = dir.join("fault.toml");
    std::fs::write(
        &path,
        rules.replace("bernoulli(chance)", "bernoulli(chance + 1)"),
    )
    .unwrap();
    let p = path.to_str().unwrap();
    fails_with(
        &["run", p, "--games", "100"],
        1,
        "in game 0 of seed 1: probability 1.3 is outside 0..1",
    );
    fails_with(
        &["run", p, "--games", "100"],
        1,
        &format!("vpsim trace {p} --seed 1 --game 0"),
    );
}

/// A fault that only an override causes is reproduced by the command the error gives, which
/// repeats the override: from run, from a sweep point and from compare's second variant.
#[test]
fn a_faults_reproduce_command_repeats_the_overrides() {
    let race = "scenarios/race_to_three.toml";
    let fault = "probability -1 is outside 0..1";
    for args in [
        &[
            "run",
            race,
            "--set",
            "settings.q=0.4",
            "--set",
            "settings.p=-1",
        ][..],
        &[
            "sweep",
            race,
            "--set",
            "settings.q=0.4",
            "--param",
            "settings.p=0.2,-1",
        ],
        &[
            "compare",
            race,
            "--set",
            "settings.q=0.4",
            "--b-set",
            "settings.p=-1",
        ],
    ] {
        let out = vpsim()
            .args(args)
            .args(["--games", "50", "--quiet"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        let cmd = err
            .lines()
            .find_map(|l| l.trim().strip_prefix("reproduce it with: vpsim "))
            .unwrap_or_else(|| panic!("{args:?}: {err}"));
        assert_eq!(
            cmd,
            format!("trace {race} --set settings.q=0.4 --set settings.p=-1 --seed 1 --game 0"),
            "{args:?}"
        );
        let words: Vec<&str> = cmd.split_whitespace().collect();
        fails_with(&words, 1, fault);
    }
}

/// Names that compile but are likely typos get a located warning: an `end` reason named once
/// and declared nowhere, a card attribute read where no statement ever binds a card, and a
/// name in the wrong case gets a "did you mean".
#[test]
fn likely_typos_get_warnings_and_suggestions() {
    let dir = temp_path("typos");
    std::fs::create_dir_all(&dir).unwrap();
    let base = std::fs::read_to_string("scenarios/race_to_three.toml").unwrap();
    let typo = base.replace(
        "effects = [\"vp += bernoulli(chance)\"]",
        "effects = [\"vp += bernoulli(chance)\", \"if vp > 5: end tenpoints\"]",
    );
    let path = dir.join("typo.toml");
    std::fs::write(&path, typo).unwrap();
    let err = validated(&path);
    assert!(
        err.contains("warning:") && err.contains("`end tenpoints`"),
        "{err}"
    );
    assert!(err.contains("typo.toml:"), "{err}");

    let cards = base.replace(
        "[[phase]]",
        "[[deck]]\nname = \"bonus\"\ncards = [{ name = \"b\", count = 2, attrs = { stage = 1 } }]\n\n[[phase]]",
    );
    let cards = cards.replace(
        "\"vp += bernoulli(chance)\"",
        "\"vp += bernoulli(chance) + card.stage\"",
    );
    let path = dir.join("cards.toml");
    std::fs::write(&path, cards).unwrap();
    let err = validated(&path);
    assert!(
        err.contains("warning:") && err.contains("card.ATTR"),
        "{err}"
    );

    let case = base.replace("max_all(vp) >= 3", "max_all(Vp) >= 3");
    let path = dir.join("case.toml");
    std::fs::write(&path, case).unwrap();
    fails_with(
        &["validate", path.to_str().unwrap()],
        2,
        "(did you mean `vp`?)",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `vpsim validate` of the scenario at `path`, which must pass: what it wrote to stderr.
fn validated(path: &std::path::Path) -> String {
    let out = vpsim()
        .args(["validate", path.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{err}");
    err
}

/// A sweep point's value that the scenario refuses is named by `--param`, the flag that gave
/// it; a `--set` value by `--set`.
#[test]
fn a_refused_sweep_value_names_param() {
    let race = "scenarios/race_to_three.toml";
    fails_with(
        &[
            "sweep",
            race,
            "--param",
            "settings.p=0.2,zz",
            "--games",
            "10",
        ],
        2,
        "--param settings.p=zz: `zz` is not defined",
    );
    fails_with(
        &[
            "sweep",
            race,
            "--set",
            "settings.q=zz",
            "--param",
            "settings.p=0.2",
        ],
        2,
        "--set settings.q=zz: `zz` is not defined",
    );
    // A parameter moved twice, or also given by --set, would silently lose one of them.
    let p = ["--param", "settings.p=0.2,0.3"];
    fails_with(
        &["sweep", race, p[0], p[1], "--param", "settings.p=0.4"],
        2,
        "--param settings.p: given twice",
    );
    for cmd in ["sweep", "tune"] {
        let param = if cmd == "tune" {
            "settings.p=0.1:0.5"
        } else {
            p[1]
        };
        let mut args = vec![cmd, race, "--set", "settings.p=0.9", "--param", param];
        if cmd == "tune" {
            args.extend(["--goal", "win_rate(First) = 0.5"]);
        }
        fails_with(&args, 2, "`settings.p` is also a --param");
    }
    // --csv is refused for what it is, with or without --out.
    fails_with(&["sweep", race, p[0], p[1], "--csv"], 2, "writes no tables");
}

/// Text from a scenario or a flag that would drive a terminal (ESC and OSC 52, which writes
/// the clipboard; BEL; BS; CR; the right-to-left override) is printed escaped by run,
/// validate, trace and an error, never raw.
#[test]
fn control_characters_from_a_file_never_reach_the_terminal() {
    let raw = "\u{1b}]52;c;aGk=\u{7}\u{8}\r\u{202e}";
    let base = std::fs::read_to_string("scenarios/race_to_three.toml").unwrap();
    let shown = |args: &[&str]| {
        let out = vpsim().args(args).output().unwrap();
        let all = [out.stdout, out.stderr].concat();
        (out.status.code(), String::from_utf8(all).unwrap())
    };
    let clean = |args: &[&str], text: &str| {
        assert!(!text.contains(raw), "{args:?} printed the raw characters");
        let bad = text
            .chars()
            .find(|&c| c.is_control() && c != '\n' && c != '\t');
        assert_eq!(bad, None, "{args:?}: {text}");
    };
    // In a file, a one-line text holding them (a title, a label) is refused where it is
    // written, and the source line shown is escaped.
    for (from, to) in [
        (
            "name = \"race_to_three\"",
            "name = \"race_to_three\"\ntitle = \"Race \\u001b]52;c;aGk=\\u0007\\u0008\\r\\u202e\"",
        ),
        (
            "name = \"First\"",
            "name = \"First\"\nlabel = \"First \\u001b]52;c;aGk=\\u0007\\u0008\\r\\u202e\"",
        ),
    ] {
        let file = crate::util::temp_scenario("control-chars", &base.replace(from, to));
        let file = file.to_str().unwrap();
        for args in [
            &["run", file, "--games", "200", "--quiet"][..],
            &["validate", file],
            &["trace", file, "--seed", "1", "--game", "0"],
        ] {
            let (code, text) = shown(args);
            clean(args, &text);
            assert_eq!(code, Some(2), "{args:?}: {text}");
            assert!(text.contains("shown on one line"), "{args:?}: {text}");
        }
        let _ = std::fs::remove_file(file);
    }
    // On the command line: a --set and a file name holding them are refused, escaped.
    let set = format!("faction.First{raw}.init=1");
    let path = format!("/tmp/vpsim-no-such{raw}.toml");
    for args in [
        &["run", "scenarios/race_to_three.toml", "--set", &set][..],
        &["run", &path],
    ] {
        let (code, text) = shown(args);
        clean(args, &text);
        assert_eq!(code, Some(2), "{args:?}: {text}");
        assert!(
            text.contains("]52;c;aGk="),
            "{args:?} names what it refused: {text}"
        );
    }
}

/// An error written to a stderr that cannot take it (here `/dev/full`; a closed pipe fails
/// the same way) exits with the error's own code, not a panic's 101; so does a warning or a
/// notice on a run that succeeds.
#[test]
fn an_unwritable_stderr_keeps_the_exit_code() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let code = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_vpsim"))
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(full())
            .status()
            .unwrap()
            .code()
    };
    assert_eq!(code(&["validate", "no-such-file.toml"]), Some(2));
    let dir = temp_path("cli-full-stderr");
    let out = dir.to_str().unwrap();
    let run = [
        "run",
        "scenarios/race_to_three.toml",
        "--games",
        "100",
        "--out",
        out,
    ];
    assert_eq!(code(&run), Some(0));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A `--junit` FIFO nobody reads yet waits where SIGTERM can end the command (143), not in
/// open(2); with a reader, the XML goes through.
#[test]
fn a_junit_fifo_without_a_reader_yields_to_sigterm() {
    let dir = crate::util::fresh_temp_dir("junit-fifo");
    let fifo = dir.join("junit.xml");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_vpsim"))
        .args([
            "check",
            "scenarios/race_to_three.toml",
            "--games",
            "500",
            "--quiet",
            "--junit",
        ])
        .arg(&fifo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(
        child.try_wait().unwrap().is_none(),
        "it should wait for a reader"
    );
    let pid = child.id().to_string();
    assert!(
        std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success()
    );
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            start.elapsed().as_secs() < 10,
            "SIGTERM did not end the wait"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(143));
    let _ = std::fs::remove_dir_all(&dir);
}
