//! Report readings that must not over-claim: the feedback test tells a snowball and a
//! catch-up from independent rounds, where the leader's margin grows by itself; a sweep whose
//! values change nothing says so.

use crate::util::{temp_scenario, vpsim_output};

/// The tutorial's race with `bonus` added to every faction's round: independent flips
/// unless the bonus depends on the lead.
fn race(name: &str, bonus: &str) -> std::path::PathBuf {
    let text = format!(
        "[scenario]\nname = \"{name}\"\nrounds = 30\n[[faction]]\nname = \"Alice\"\n\
         [[faction]]\nname = \"Bob\"\n[[faction]]\nname = \"Carol\"\n[[var]]\nname = \"vp\"\n\
         [[phase]]\nname = \"flip\"\neach = \"faction\"\n\
         effects = [\"vp += bernoulli(0.5) + {bonus}\"]\n[[end]]\nname = \"goal\"\n\
         when = \"max_all(vp) >= 8\"\ntiming = \"round_end\"\n[ranking]\nscore = \"vp\"\n"
    );
    temp_scenario(name, &text)
}

/// The feedback estimate's interval of a run's `--json`.
fn feedback(path: &std::path::Path) -> (f64, f64) {
    let f = feedback_json(path);
    (f["low"].as_f64().unwrap(), f["high"].as_f64().unwrap())
}

/// The interval of one part of the feedback split (`interaction` or `own`).
fn part(f: &serde_json::Value, which: &str) -> (f64, f64) {
    let p = &f[which];
    (p["low"].as_f64().unwrap(), p["high"].as_f64().unwrap())
}

/// The feedback object of a run's `--json`.
fn feedback_json(path: &std::path::Path) -> serde_json::Value {
    let out = vpsim_output(&[
        "run",
        path.to_str().unwrap(),
        "--games",
        "20000",
        "--seed",
        "1",
        "--json",
        "--quiet",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["feedback"].clone()
}

#[test]
fn independent_rounds_read_as_no_feedback() {
    let (low, high) = feedback(&race("flips", "0"));
    assert!(low < 0.0 && high > 0.0, "[{low}, {high}]");
}

#[test]
fn a_planted_snowball_reads_as_one_and_a_catch_up_as_one() {
    // The leader (alone or tied) flips a second coin: the gain grows with the lead.
    let f = feedback_json(&race(
        "snowball",
        "if(vp == max_all(vp), bernoulli(0.3), 0)",
    ));
    assert!(f["low"].as_f64().unwrap() > 0.05, "{f}");
    // It acts between factions: the interaction part is beyond noise.
    assert!(part(&f, "interaction").0 > 0.0, "{f}");
    // Whoever trails flips the second coin instead.
    let f = feedback_json(&race("catch_up", "if(vp < max_all(vp), bernoulli(0.3), 0)"));
    assert!(f["high"].as_f64().unwrap() < -0.05, "{f}");
    assert!(part(&f, "interaction").1 < 0.0, "{f}");
}

/// Factions that cannot affect each other, each saving tokens and cashing them in, gain
/// less after leading: the reading says so without naming a catch-up mechanism, and says
/// that its own rhythm reads alike.
#[test]
fn independent_savers_are_not_called_a_catch_up_mechanism() {
    let text = "[scenario]\nname = \"savers\"\nrounds = 12\n[[faction]]\nname = \"A\"\n\
        [[faction]]\nname = \"B\"\n[[faction]]\nname = \"C\"\n\
        [[var]]\nname = \"vp\"\n[[var]]\nname = \"tokens\"\ninit = \"uniform(0, 2)\"\n\
        [[phase]]\nname = \"save\"\neach = \"faction\"\n\
        effects = [\"tokens += 1\", \"if tokens >= 3: { vp += 3 + bernoulli(0.5); tokens = 0 }\"]\n\
        [ranking]\nscore = \"vp\"\n";
    let path = temp_scenario("savers", text);
    let f = feedback_json(&path);
    assert!(
        f["high"].as_f64().unwrap() < 0.0,
        "saving up reads as lower gains after leading: {f}"
    );
    // None of it is interaction (they cannot affect each other): all their own rhythm.
    let (low, high) = part(&f, "interaction");
    assert!(low < 0.0 && high > 0.0, "{f}");
    assert!(part(&f, "own").1 < 0.0, "{f}");
    let dir = crate::util::fresh_temp_path("savers_md");
    crate::util::vpsim()
        .args([
            "run",
            path.to_str().unwrap(),
            "--games",
            "20000",
            "--quiet",
            "--out",
        ])
        .arg(&dir)
        .assert()
        .success();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("gains after leading are lower"), "{md}");
    assert!(
        md.contains("no catch-up between factions is measured"),
        "{md}"
    );
    assert!(!md.contains("catch-up mechanism"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// report.md names the pattern in words, and no "runaway" for independent flips.
#[test]
fn the_report_names_the_feedback_it_found() {
    for (name, bonus, words) in [
        ("flips_md", "0", "no feedback beyond noise"),
        (
            "snowball_md",
            "if(vp == max_all(vp), bernoulli(0.3), 0)",
            "a lead snowballs, beyond noise: the factions' interaction makes",
        ),
    ] {
        let dir = crate::util::fresh_temp_path(name);
        let path = race(name, bonus);
        crate::util::vpsim()
            .args([
                "run",
                path.to_str().unwrap(),
                "--games",
                "20000",
                "--seed",
                "1",
            ])
            .args(["--quiet", "--out"])
            .arg(&dir)
            .assert()
            .success();
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(md.contains(words), "{name}: {md}");
        assert!(!md.contains("runaway"), "{name}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// A swept real floored inside a formula (`vp += bernoulli(0.5) * (1 + bonus)`: 1.5 stores
/// 1), which no compile-time warning can see: the points whose values play identical games
/// are named, and the sweep is drawn as points; a sweep whose every point differs is not.
#[test]
fn a_sweep_whose_neighbouring_values_play_identical_games_says_so() {
    let text = "[scenario]\nname = \"step\"\nrounds = 5\n[settings]\nbonus = 0\n\
        [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n[[var]]\nname = \"vp\"\n\
        [[phase]]\nname = \"score\"\neach = \"faction\"\n\
        effects = [\"if seat == 1: vp += bernoulli(0.5) * (1 + bonus)\", \"if seat == 2: vp += bernoulli(0.5)\"]\n\
        [ranking]\nscore = \"vp\"\n";
    let p = temp_scenario("sweep-step", text);
    let sweep = |values: &str| {
        vpsim_output(&[
            "sweep",
            p.to_str().unwrap(),
            "--param",
            values,
            "--games",
            "2000",
            "--json",
        ])
    };
    let out = sweep("settings.bonus=0:1:0.5");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("settings.bonus = 0 and 0.5 played identical games"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["floored"], true);
    let out = sweep("settings.bonus=0,1,2");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["floored"], false);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("identical games"));
}
