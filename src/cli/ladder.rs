//! `vpsim ladder`: every faction's win rate at each skill level.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::RunOpts;
use crate::error::{Error, Result};
use crate::overrides::Override;
use crate::report::{RunInfo, Summary};

/// Play the scenario with every faction on each skill level and read how balance moves
/// with skill.
#[derive(Debug, clap::Args)]
#[command(mut_arg("csv", |a| a.hide(true)))]
#[command(mut_arg("games", |a| a
    .default_value("2000")
    .help("Games played at each level")))]
#[command(after_help = "Examples:
  vpsim ladder scenarios/race_to_three.toml --levels weighted,lookahead:8,lookahead:32
  vpsim ladder scenarios/race_to_three.toml --levels weighted,lookahead:4 --games 100 --out

Each level is a policy as --agent takes it (weighted, greedy, priority, lookahead,
lookahead:N, mcts, mcts:N) and is given to every faction; --agent and --set apply after it, so
--agent FACTION=weighted keeps one faction at random play on every level. Every level plays the
same games 0..N of the seed. The reading compares each faction's win rate at the last level
with the first (Newcombe interval, simultaneous at 95% over the factions): it rises, falls, or
changes by less than --margin (default 2 pp), or is undecided (with the games per level that
would decide it), and what a change does to its edge over the fair share. Factions are listed in seat order, so seat effects read the same way.")]
pub struct Args {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// The skill levels, lowest first, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "weighted,lookahead:8,lookahead:32", value_parser = level)]
    pub levels: Vec<Override>,
    /// The smallest change in win rate that matters, in percentage points: a smaller
    /// change beyond noise is read as within the margin, and a wider interval as undecided.
    #[arg(long, value_name = "PP", default_value_t = 2.0, value_parser = super::parse_margin)]
    pub margin: f64,
    /// Run options.
    #[command(flatten)]
    pub opts: RunOpts,
}

/// A level: a policy for every faction, as `--agent POLICY` takes it.
fn level(s: &str) -> std::result::Result<Override, String> {
    if s.contains('=') {
        return Err(format!(
            "`{s}`: a level is a policy for every faction (weighted, lookahead:8, ...); use --agent FACTION=POLICY to pin one faction"
        ));
    }
    crate::overrides::parse_agent(s)
}

/// One level's run.
struct Rung {
    name: String,
    summary: Summary,
}

/// Runs `vpsim ladder`.
pub fn run(a: Args) -> Result<()> {
    let o = &a.opts;
    o.refuse_csv("ladder.json")?;
    o.check()?;
    if a.levels.len() < 2 {
        return Err(Error::Usage(
            "--levels: give at least two levels, lowest first (e.g. weighted,lookahead:8)".into(),
        ));
    }
    // Every level compiles before any game is played.
    let mut models = Vec::new();
    for l in &a.levels {
        let sets: Vec<Override> = std::iter::once(l.clone())
            .chain(o.set.iter().cloned())
            .collect();
        models.push(super::load(&a.scenario, &sets, o.engine)?);
    }
    let out = super::command_out_dir(&models[0].name, o, "ladder");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let mut rungs = Vec::new();
    for (l, m) in a.levels.iter().zip(&models) {
        let p = super::run::play(m, o, 0, o.games, None)?;
        let info = RunInfo::of(m, o.seed);
        rungs.push(Rung {
            name: l.value.clone(),
            summary: Summary::of(&info, 0, &p.tally, p.elapsed, p.threads),
        });
    }
    let m = &models[0];
    let doc = to_json(m, o, &rungs, a.margin);
    let text = table(m, o, &rungs, a.margin);
    if let Some(dir) = &out {
        crate::output::clear_report(dir)?;
        let json = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::Usage(format!("cannot encode JSON: {e}")))?;
        crate::output::write_atomic(&dir.join("ladder.json"), json.as_bytes())?;
        let levels: Vec<String> = rungs.iter().map(|r| r.name.clone()).collect();
        let series: Vec<(String, Vec<crate::stats::Rate>)> = (0..m.nfactions())
            .map(|f| {
                let rates = rungs.iter().map(|r| r.summary.factions[f].win).collect();
                (m.factions[f].label.clone(), rates)
            })
            .collect();
        let sub = super::chart_subtitle(&a.scenario, o, "a level");
        crate::report::charts::write_ladder(
            dir,
            "ladder",
            (
                "Win rate at each skill level (every faction on it; 95% intervals)",
                &sub,
            ),
            &levels,
            &series,
            1.0 / m.nfactions() as f64,
            o.chart_size,
        )?;
        let title = format!("Ladder: {}", m.title);
        let mut md = super::report_header(&title, m, o.seed, o.games, "a level");
        let _ = write!(
            md,
            "![Win rate at each skill level](ladder.svg)\n\n{}\n\
             Each level gives every faction the same agent. The agents are a model of play, not \
             people: a lookahead agent scores each option by playouts of the rest of the game, so its \
             strength grows with its playouts but it never plans beyond them; an mcts agent also \
             plans its own later moves. Both see only what their faction can see.\n",
            super::text_then_list(&text, "readings")
        );
        super::write_report(dir, &md, &title)?;
    }
    if o.json {
        return super::out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    }
    super::out(&text)
}

fn readings(m: &crate::Model, rungs: &[Rung], margin: f64) -> Vec<String> {
    let (first, last) = (&rungs[0], &rungs[rungs.len() - 1]);
    (0..m.nfactions())
        .map(|f| {
            crate::ladder::reading(
                &m.factions[f].label,
                (
                    &first.summary.factions[f].win,
                    &last.summary.factions[f].win,
                ),
                (&first.name, &last.name),
                1.0 / m.nfactions() as f64,
                (crate::ladder::z_joint(m.nfactions()), margin),
            )
        })
        .collect()
}

/// The results as JSON: what `--json` prints and `--out` writes as `ladder.json`.
fn to_json(m: &crate::Model, o: &RunOpts, rungs: &[Rung], margin: f64) -> Value {
    let levels: Vec<Value> = rungs
        .iter()
        .map(|r| {
            json!({
                "level": r.name,
                "agents": r.summary.agents(),
                "games": r.summary.games,
                "seconds": r.summary.performance.elapsed_s,
                "factions": r.summary.factions.iter().map(|f| json!({
                    "name": f.name,
                    "agent": f.agent,
                    "win": {"rate": f.win.rate, "low": f.win.low, "high": f.win.high},
                    "mean_rank": f.mean_rank,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let (first, last) = (&rungs[0], &rungs[rungs.len() - 1]);
    let changes: Vec<Value> = (0..m.nfactions())
        .map(|f| {
            let c = crate::ladder::change(
                &first.summary.factions[f].win,
                &last.summary.factions[f].win,
                crate::ladder::z_joint(m.nfactions()),
            );
            json!({"name": m.factions[f].name, "est": c.est, "low": c.low, "high": c.high})
        })
        .collect();
    json!({
        "vpsim_version": env!("CARGO_PKG_VERSION"),
        "scenario": {"name": m.name, "title": m.title, "file": m.file, "hash": m.hash},
        "overrides": o.overrides(),
        "seed": o.seed,
        "games_per_level": o.games,
        "confidence": 0.95,
        "levels": levels,
        "change_first_to_last": changes,
        "change_confidence": "simultaneous 95% over the factions (Bonferroni)",
        "margin": margin,
        "readings": readings(m, rungs, margin),
    })
}

/// The terminal table and readings (also the body of report.md).
fn table(m: &crate::Model, o: &RunOpts, rungs: &[Rung], margin: f64) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} — skill ladder, seed {}, {} games a level (every faction on the level)\n",
        m.title,
        o.seed,
        crate::report::thousands(o.games)
    );
    let w = m
        .factions
        .iter()
        .map(|f| f.label.chars().count())
        .max()
        .unwrap_or(7)
        .max(7);
    let cols: Vec<usize> = rungs.iter().map(|r| r.name.len().max(22)).collect();
    let mut head = format!("{:<w$}", "faction");
    for (r, c) in rungs.iter().zip(&cols) {
        let _ = write!(head, "  {:^c$}", r.name);
    }
    let _ = writeln!(s, "{head}");
    for f in 0..m.nfactions() {
        let mut line = format!("{:<w$}", m.factions[f].label);
        for (r, c) in rungs.iter().zip(&cols) {
            let x = r.summary.factions[f].win;
            let cell = format!(
                "{:5.1}% [{:5.1}, {:5.1}]",
                100.0 * x.rate,
                100.0 * x.low,
                100.0 * x.high
            );
            let _ = write!(line, "  {cell:^c$}");
        }
        let _ = writeln!(s, "{line}");
    }
    let mut speed = String::new();
    for r in rungs {
        let _ = write!(
            speed,
            "{}{}: {:.1} s",
            if speed.is_empty() { "" } else { ", " },
            r.name,
            r.summary.performance.elapsed_s
        );
    }
    let _ = writeln!(s, "\ntime a level: {speed}");
    let _ = writeln!(
        s,
        "\nreadings (last level against the first; intervals simultaneous at 95% over the {} factions; margin {} pp):",
        m.nfactions(),
        crate::stats::margin::pp(margin)
    );
    for line in readings(m, rungs, margin) {
        let _ = writeln!(s, "  {line}");
    }
    s
}
