//! The charts of a run, read back from their SVGs: legend keys (or panel titles) in the colors
//! of their series, the score race's panels on the same rounds, whole-number scores never
//! joined by a line, and the charts of a single end reason or a fixed game length saying so
//! in words, with no claim of an interval they do not draw.
//!
//! Each test runs `vpsim run --out` on a small scenario of its own (2 and 6 factions) and
//! checks the structure of the SVG that plotters wrote: tags and their attributes, not pixels.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::util::{fresh_temp_path, temp_scenario, vpsim};

/// Two factions flip a coin a round, first to 4 wins: scores 0 to 4 (few, so bars), games of
/// 4 to about 13 rounds, and one end reason that ends every game.
const TWO: &str = "[scenario]\nname = \"charts_two\"\nrounds = 30\n\
    [[faction]]\nname = \"Alice\"\n[[faction]]\nname = \"Bob\"\n\
    [[var]]\nname = \"vp\"\n\
    [[phase]]\nname = \"flip\"\neach = \"faction\"\neffects = [\"vp += bernoulli(0.5)\"]\n\
    [[end]]\nname = \"goal\"\nwhen = \"max_all(vp) >= 4\"\ntiming = \"round_end\"\n\
    [ranking]\nscore = \"vp\"\n";

/// Six factions add a die of 0 to 6 a round for exactly 8 rounds: scores over some forty values
/// (many, so steps), one length and one end reason (the last round).
const SIX: &str = "[scenario]\nname = \"charts_six\"\nrounds = 8\n\
    [[faction]]\nname = \"A\"\n[[faction]]\nname = \"B\"\n[[faction]]\nname = \"C\"\n\
    [[faction]]\nname = \"D\"\n[[faction]]\nname = \"E\"\n[[faction]]\nname = \"F\"\n\
    [[var]]\nname = \"vp\"\n\
    [[phase]]\nname = \"roll\"\neach = \"faction\"\neffects = [\"vp += uniform(0, 6)\"]\n\
    [ranking]\nscore = \"vp\"\n";

/// Runs `vpsim run` on the scenario `text` for `games` games and returns its report folder.
fn run(name: &str, text: &str, games: &str) -> PathBuf {
    let path = temp_scenario(name, text);
    let dir = fresh_temp_path(name);
    vpsim()
        .arg("run")
        .arg(&path)
        .args(["--games", games, "--quiet", "--out"])
        .arg(&dir)
        .assert()
        .success();
    let _ = std::fs::remove_file(&path);
    dir
}

fn svg(dir: &Path, chart: &str) -> String {
    std::fs::read_to_string(dir.join(format!("{chart}.svg"))).unwrap()
}

/// Every opening tag `<tag ...>` of `svg`, with its attributes.
fn tags<'a>(svg: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag} ");
    svg.match_indices(open.as_str())
        .map(|(i, _)| {
            let rest = &svg[i..];
            &rest[..rest.find('>').map_or(rest.len(), |j| j + 1)]
        })
        .collect()
}

/// The value of the attribute `name` of a tag ("" when it has none).
fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    tag.find(key.as_str()).map_or("", |i| {
        let v = &tag[i + key.len()..];
        &v[..v.find('"').unwrap_or(v.len())]
    })
}

/// The points of a `polyline` or `polygon`, in pixels.
fn points(tag: &str) -> Vec<(i32, i32)> {
    attr(tag, "points")
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

/// Every text of `svg`: its tag and what it says.
fn texts(svg: &str) -> Vec<(String, String)> {
    svg.split("<text ")
        .skip(1)
        .filter_map(|chunk| {
            let (attrs, rest) = chunk.split_once('>')?;
            let (said, _) = rest.split_once("</text>")?;
            Some((format!(" {attrs}"), said.trim().to_string()))
        })
        .collect()
}

/// Whether `#RRGGBB` is a grey (black and white included).
fn grey(c: &str) -> bool {
    c.len() == 7 && c[1..3] == c[3..5] && c[3..5] == c[5..7]
}

/// The polylines of `svg` drawn `width` pixels wide with more than two points (series; the
/// legend's keys are two-point lines), as (stroke color, points).
fn series<'a>(svg: &'a str, width: &str) -> Vec<(&'a str, Vec<(i32, i32)>)> {
    tags(svg, "polyline")
        .into_iter()
        .filter(|t| attr(t, "stroke-width") == width)
        .map(|t| (attr(t, "stroke"), points(t)))
        .filter(|(_, p)| p.len() > 2)
        .collect()
}

/// The score race of `n` factions: a panel each, titled in its faction's color, with its
/// quartile band and median line in the same color (distinct, none grey); no legend column,
/// but a note saying what the band and the grey lines are; the y axis saying that the medians
/// are over the games still playing; and the other factions' medians drawn in the panel on
/// exactly the rounds of its own (no sideways offset).
#[track_caller]
fn check_race(svg: &str, n: usize) {
    let titles: BTreeSet<String> = (texts(svg).into_iter())
        .map(|t| attr(&t.0, "fill").to_string())
        .filter(|c| !grey(c))
        .collect();
    let keys = (tags(svg, "rect").into_iter())
        .filter(|t| attr(t, "opacity") == "0.2")
        .count();
    let bands: Vec<&str> = (tags(svg, "polygon").into_iter())
        .filter(|t| attr(t, "opacity") == "0.2")
        .map(|t| attr(t, "fill"))
        .collect();
    let medians = series(svg, "3");
    assert_eq!(titles.len(), n, "panel titles' colors: {titles:?}");
    assert_eq!(keys, 0, "a legend column beside the panels");
    assert_eq!(bands.len(), n, "bands: {bands:?}");
    assert_eq!(medians.len(), n, "median lines");
    let titles: BTreeSet<&str> = titles.iter().map(String::as_str).collect();
    let band_colors: BTreeSet<&str> = bands.iter().copied().collect();
    let median_colors: BTreeSet<&str> = medians.iter().map(|m| m.0).collect();
    assert_eq!(titles, band_colors, "panel titles and bands");
    assert_eq!(titles, median_colors, "panel titles and median lines");
    let note = if n == 2 {
        "band: quartiles · grey: the other faction&apos;s median"
    } else {
        "band: quartiles · grey: the other factions&apos; medians"
    };
    assert!(svg.contains(note), "no note on the band and grey lines");
    assert!(
        svg.contains("among games still playing"),
        "the y axis does not say the medians are over the games still playing"
    );
    let others = series(svg, "2");
    assert_eq!(others.len(), n * (n - 1), "the other factions' medians");
    assert!(others.iter().all(|o| grey(o.0)), "other factions in grey");
    for (c, own) in &medians {
        let rounds: Vec<i32> = own.iter().map(|p| p.0).collect();
        let level = (others.iter())
            .filter(|o| o.1.iter().map(|p| p.0).eq(rounds.iter().copied()))
            .count();
        assert!(level >= n - 1, "{c}: other medians off its rounds");
    }
}

/// Scores are whole numbers: no series line runs between two of them (every path of the chart
/// is level or upright), and each faction's bars or steps are in its legend key's color.
#[track_caller]
fn check_scores(svg: &str, n: usize, bars: bool) {
    for t in tags(svg, "polyline") {
        let p = points(t);
        assert!(
            p.windows(2).all(|w| w[0].0 == w[1].0 || w[0].1 == w[1].1),
            "a slanted line: {t}"
        );
    }
    let fills: Vec<&str> = (tags(svg, "rect").into_iter())
        .map(|t| attr(t, "fill"))
        .filter(|c| !grey(c))
        .collect();
    let colors: BTreeSet<&str> = fills.iter().copied().collect();
    let lines = series(svg, "2");
    if bars {
        assert_eq!(colors.len(), n, "bar colors: {colors:?}");
        for c in &colors {
            // The legend's swatch and at least one bar.
            assert!(fills.iter().filter(|f| *f == c).count() >= 2, "{c}");
        }
        assert!(lines.is_empty(), "bars and lines");
    } else {
        assert!(colors.is_empty(), "steps and bars: {colors:?}");
        let steps: BTreeSet<&str> = lines.iter().map(|l| l.0).collect();
        assert_eq!(lines.len(), n);
        assert_eq!(steps.len(), n);
        assert!(steps.iter().all(|c| !grey(c)));
        let keys: BTreeSet<&str> = (tags(svg, "polyline").into_iter())
            .filter(|t| attr(t, "stroke-width") == "3" && points(t).len() == 2)
            .map(|t| attr(t, "stroke"))
            .collect();
        assert_eq!(keys, steps, "legend and steps");
    }
}

/// One end reason ends every game: the bar says so, carries no whisker at the axis's end nor
/// a title claiming one, and the "100%" tick label is drawn whole inside the chart.
#[track_caller]
fn check_single_reason(svg: &str, reason: &str) {
    assert!(
        svg.contains(&format!("every game ends by {reason}")),
        "no caption"
    );
    assert!(!svg.contains("95% interval"), "a title claiming intervals");
    let whiskers = (tags(svg, "polyline").into_iter())
        .filter(|t| attr(t, "stroke") == "#000000" && attr(t, "stroke-width") == "2")
        .count();
    assert_eq!(whiskers, 0, "a whisker at 100%");
    let width: i32 = attr(tags(svg, "svg")[0], "width").parse().unwrap();
    let (tag, _) = (texts(svg).into_iter())
        .find(|t| t.1 == "100%")
        .expect("a 100% tick label");
    assert_eq!(attr(&tag, "text-anchor"), "middle");
    let x: i32 = attr(&tag, "x").parse().unwrap();
    // Half of "100%" at the tick labels' size is under 20 pixels.
    assert!(x + 20 <= width, "the 100% label at {x} runs off {width}");
}

#[test]
fn two_factions_charts_match_their_legends() {
    let dir = run("charts-two", TWO, "400");
    let race = svg(&dir, "score_race");
    check_race(&race, 2);
    assert!(race.contains("charts_two · seed 1 · 400 games"), "subtitle");
    check_scores(&svg(&dir, "scores"), 2, true);
    check_single_reason(&svg(&dir, "end_reasons"), "goal");
    // Lengths vary: no caption.
    assert!(!svg(&dir, "length").contains("every game lasts"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn six_factions_of_fixed_length_charts_read_true() {
    let dir = run("charts-six", SIX, "300");
    let race = svg(&dir, "score_race");
    check_race(&race, 6);
    assert!(race.contains("charts_six · seed 1 · 300 games"), "subtitle");
    check_scores(&svg(&dir, "scores"), 6, false);
    check_single_reason(&svg(&dir, "end_reasons"), "last_round");
    assert!(svg(&dir, "length").contains("every game lasts 8 rounds"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The width and height of a PNG, from its header.
fn png_size(path: &Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[1..4], b"PNG");
    let be = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
    (be(16), be(20))
}

#[test]
fn chart_scale_draws_the_same_picture_larger_and_subtitles_never_run_off() {
    let path = temp_scenario("charts-scale", TWO);
    let dir = fresh_temp_path("charts-scale");
    vpsim()
        .arg("run")
        .arg(&path)
        .args(["--games", "500", "--quiet", "--chart-size", "1600x900"])
        .args(["--chart-scale", "2", "--out"])
        .arg(&dir)
        .assert()
        .success();
    // The PNG has the pixels asked for; the drawing (the SVG) half of them each way.
    assert_eq!(png_size(&dir.join("win_rates.png")), (1600, 900));
    let s = svg(&dir, "win_rates");
    let root = tags(&s, "svg")[0];
    assert_eq!(
        (attr(root, "width"), attr(root, "height")),
        ("800", "450"),
        "{root}"
    );
    // A narrow chart with a long subtitle: it wraps or ends in an ellipsis, within the width.
    // (400x320 is below the layout's 640x400: drawn at that, with a note.)
    let long = "a_long_setting_name_for_a_long_subtitle_".repeat(3);
    let long = long.trim_end_matches('_');
    let text = TWO.replace("[ranking]", &format!("[settings]\n{long} = 1\n[ranking]"));
    let path = temp_scenario("charts-narrow", &text);
    let dir = fresh_temp_path("charts-narrow");
    let narrow = vpsim()
        .arg("run")
        .arg(&path)
        .args(["--games", "200", "--quiet", "--chart-size", "400x320"])
        .args(["--set", &format!("settings.{long}=2"), "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(narrow.status.success(), "{narrow:?}");
    let note = String::from_utf8_lossy(&narrow.stderr);
    assert!(note.contains("drawn at 640x400 pixels instead"), "{note}");
    assert_eq!(png_size(&dir.join("win_rates.png")), (640, 400));
    let s = svg(&dir, "win_rates");
    let subs: Vec<String> = texts(&s)
        .into_iter()
        .filter(|(a, _)| attr(a, "fill") == "#5A5A5A" && attr(a, "x") == "20")
        .map(|(_, t)| t)
        .collect();
    assert!(subs.len() == 2, "two subtitle lines: {subs:?}");
    assert!(subs[1].ends_with('…'), "{subs:?}");
    let out = vpsim()
        .args(["run", "scenarios/race_to_three.toml", "--chart-scale", "9"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("a number from 1 to 4"),
        "{err}"
    );
}
