//! The fuzz harness's `size` attack: generated scenarios at and beyond the sizes vpsim
//! accepts (actions, statements, variables, operators in one formula, decks, factions,
//! rounds, chains of derived values, nested aggregates, sets and grids read at computed
//! positions), each run for 5 games on either engine. Within the README's limits a scenario
//! runs (exit 0); beyond them it is refused (exit 2); where the README states no limit,
//! either is right. The harness's own verdict bounds the time.

use std::fmt::Write as _;
use std::path::Path;

use rand::RngExt;
use rand_chacha::ChaCha8Rng;

use crate::fuzz::{Case, exec, pick};

/// The start of a generated scenario: `factions` factions, `rounds` rounds, a score `vp`.
fn head(factions: usize, rounds: u64) -> String {
    let mut s = format!("[scenario]\nname = \"size\"\nrounds = {rounds}\n");
    for k in 0..factions {
        let _ = writeln!(s, "\n[[faction]]\nname = \"F{k}\"");
    }
    s.push_str("\n[[var]]\nname = \"vp\"\nmin = 0\n");
    s
}

/// The end of a generated scenario: a goal of 20 and the ranking by `score`.
fn tail(score: &str) -> String {
    format!(
        "\n[[end]]\nname = \"goal\"\nwhen = \"max_all(vp) >= 20\"\ntiming = \"round_end\"\n\n\
         [ranking]\nscore = \"{score}\"\n"
    )
}

/// A generated scenario of one shape and size: its name, its text, and whether it must run
/// (`Some(true)`: within the README's limits), must be refused (`Some(false)`: beyond them)
/// or may do either (`None`: limits the README does not state).
fn sized(rng: &mut ChaCha8Rng) -> (String, String, Option<bool>) {
    let turn = "\n[[phase]]\nname = \"play\"\neach = \"faction\"\n";
    match rng.random_range(0..10) {
        0 => {
            let n = *pick(rng, &[500usize, 2000, 5000]);
            let mut s = head(2, 30);
            let _ = writeln!(s, "{turn}actions = \"1\"");
            for k in 0..n {
                let _ = writeln!(
                    s,
                    "\n[[action]]\nname = \"a{k}\"\nweight = {}\nwhen = \"round >= {}\"\n\
                     effects = [\"vp += {}\"]",
                    1 + k % 5,
                    k % 7,
                    k % 3
                );
            }
            (format!("actions{n}"), s + &tail("vp"), Some(true))
        }
        1 => {
            let n = *pick(rng, &[1000usize, 5000]);
            let effects: Vec<String> = (0..n)
                .map(|k| match k % 2 {
                    0 => format!("\"vp += bernoulli(0.{})\"", k % 9 + 1),
                    _ => format!("\"if vp > {}: vp -= 1\"", k % 20),
                })
                .collect();
            let s = head(2, 30) + &format!("{turn}effects = [{}]\n", effects.join(", "));
            (format!("effects{n}"), s + &tail("vp"), Some(true))
        }
        2 => {
            // 2000 variables, and a score with 999 to 1001 operators (the limit is 1000).
            let ops = *pick(rng, &[999usize, 1000, 1001]);
            let mut s = head(2, 30);
            for k in 0..2000 {
                let _ = writeln!(s, "\n[[var]]\nname = \"v{k}\"\ninit = \"{}\"", k % 5);
            }
            let mut effects = vec!["\"vp += bernoulli(0.5)\"".to_string()];
            effects.extend((0..2000).step_by(10).map(|k| format!("\"v{k} += 1\"")));
            let _ = writeln!(s, "{turn}effects = [{}]", effects.join(", "));
            let terms: Vec<String> = std::iter::once("vp".to_string())
                .chain((0..ops).map(|k| format!("v{k}")))
                .collect();
            (
                format!("vars2000-ops{ops}"),
                s + &tail(&terms.join(" + ")),
                Some(ops <= 1000),
            )
        }
        3 => {
            // Decks of 1024 to 100,000 cards in all: (decks, kinds of card, copies of each).
            let (decks, kinds, copies) = *pick(
                rng,
                &[
                    (1usize, 1usize, 100_000usize),
                    (1, 10, 10_000),
                    (100, 1000, 1),
                    (1, 1024, 1),
                    (1, 1025, 1),
                    (63, 1, 1024),
                    (64, 1, 1024),
                ],
            );
            let mut s = head(2, 30);
            for d in 0..decks {
                let cards: Vec<String> = (0..kinds)
                    .map(|k| {
                        format!(
                            "{{ name = \"c{k}\", count = {copies}, attrs = {{ v = {} }} }}",
                            k % 6
                        )
                    })
                    .collect();
                let _ = writeln!(
                    s,
                    "\n[[deck]]\nname = \"deck{d}\"\ncards = [{}]",
                    cards.join(", ")
                );
            }
            let last = decks - 1;
            let _ = writeln!(
                s,
                "{turn}effects = [\"take deck0\", \"take deck{last}\", \
                 \"for held deck0: if card.v >= 3: vp += 1\", \
                 \"for held deck{last}: if card.v < 2: complete\"]"
            );
            (
                format!("decks{decks}x{kinds}x{copies}"),
                s + &tail("vp"),
                None,
            )
        }
        4 => {
            // 16 factions (the most) with 300 targeted actions: 4,500 options a decision.
            let (factions, n) = *pick(rng, &[(16usize, 300usize), (17, 10)]);
            let mut s = head(factions, 20);
            let _ = writeln!(s, "{turn}actions = \"1\"");
            for k in 0..n {
                let _ = writeln!(
                    s,
                    "\n[[action]]\nname = \"a{k}\"\ntarget = \"other\"\n\
                     effects = [\"target.vp += {}\"]",
                    k % 3
                );
            }
            (
                format!("factions{factions}"),
                s + &tail("vp"),
                Some(factions <= 16),
            )
        }
        6 => {
            // Derived values doubling at each step: 2^steps operations once substituted.
            let steps = *pick(rng, &[8usize, 12, 18]);
            let mut s = head(2, 30) + &format!("{turn}effects = [\"vp += bernoulli(0.5)\"]\n");
            let _ = writeln!(s, "\n[[derived]]\nname = \"t0\"\nformula = \"vp\"");
            for k in 1..=steps {
                let _ = writeln!(
                    s,
                    "\n[[derived]]\nname = \"t{k}\"\nformula = \"t{0} + t{0}\"",
                    k - 1
                );
            }
            let must = match steps {
                8 => Some(true),
                18 => Some(false),
                _ => None,
            };
            (
                format!("derived{steps}"),
                s + &tail(&format!("t{steps}")),
                must,
            )
        }
        7 => {
            // Aggregates over 2 factions nested 14 deep (16,384 visits) or 20 (over 10^6).
            let depth = *pick(rng, &[14usize, 20]);
            let s = head(2, 30) + &format!("{turn}effects = [\"vp += bernoulli(0.5)\"]\n");
            let score = (0..depth).fold("vp".to_string(), |e, _| format!("max_all({e})"));
            (
                format!("nested{depth}"),
                s + &tail(&score),
                Some(depth == 14),
            )
        }
        8 => {
            // A set of 70,000 or 100,000 elements, read at computed positions.
            let n = *pick(rng, &[70_000usize, 100_000]);
            let mut s = head(2, 30);
            let els: Vec<String> = (0..n).map(|k| format!("\"e{k}\"")).collect();
            let _ = writeln!(
                s,
                "\n[[set]]\nname = \"big\"\nelements = [{}]",
                els.join(", ")
            );
            let _ = writeln!(s, "\n[[var]]\nname = \"x\"\nover = \"big\"");
            let _ = writeln!(
                s,
                "{turn}effects = [\"vp += bernoulli(0.5)\", \"x[e3] += 1\"]"
            );
            (
                format!("set{n}"),
                s + &tail(&format!("vp + x[vp + 1] + x[{n}]")),
                None,
            )
        }
        9 => {
            // A grid of 65,535 elements (255 x 257) or 65,536 (256 x 256).
            let (rows, cols) = *pick(rng, &[(255usize, 257usize), (256, 256)]);
            let mut s = head(2, 30);
            let _ = writeln!(s, "\n[[set]]\nname = \"g\"\ngrid = [{rows}, {cols}]");
            let _ = writeln!(s, "\n[[var]]\nname = \"x\"\nover = \"g\"");
            let _ = writeln!(
                s,
                "{turn}effects = [\"vp += bernoulli(0.5)\", \"x[r1c2] += 1\"]"
            );
            let score = format!("vp + x[cell(1, vp + 1)] + x[cell({rows}, {cols})]");
            (format!("grid{rows}x{cols}"), s + &tail(&score), None)
        }
        _ => {
            let rounds = *pick(rng, &[100_000u64, 100_001]);
            let s = head(2, rounds)
                + &format!(
                    "{turn}effects = [\"vp += bernoulli(0.5)\"]\n\n[ranking]\nscore = \"vp\"\n"
                );
            (format!("rounds{rounds}"), s, Some(rounds <= 100_000))
        }
    }
}

/// A generated scenario of a size at or beyond vpsim's limits, run for 5 games: see the
/// module's doc.
pub(crate) fn size(rng: &mut ChaCha8Rng, dir: &Path) -> Case {
    let (name, toml, runs) = sized(rng);
    let file = dir.join(format!("{name}.toml"));
    std::fs::write(&file, toml).unwrap();
    let engine = *pick(rng, &["native", "interp"]);
    let f = file.to_string_lossy().to_string();
    let args: Vec<String> = [
        "run",
        f.as_str(),
        "--games",
        "5",
        "-q",
        "--threads",
        "1",
        "--engine",
        engine,
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let run = exec(&args, dir);
    let extra = match (runs, run.code) {
        (Some(true), Some(code)) if code != 0 => Some(format!(
            "a scenario within the README's limits ended with exit code {code}"
        )),
        (Some(false), Some(code)) if code != 2 => Some(format!(
            "a scenario beyond the README's limits ended with exit code {code}, not 2"
        )),
        _ => None,
    };
    Case {
        kind: "size",
        args,
        run,
        extra,
    }
}
