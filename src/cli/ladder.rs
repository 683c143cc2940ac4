//! `vpsim ladder`: every faction's win rate at each skill level.

use crate::ids::FactionId;
use std::fmt::Write as _;
use std::path::PathBuf;

use serde_json::{Value, json};

use super::RunOpts;
use crate::error::{Error, Result};
use crate::overrides::Override;
use crate::report::{RunInfo, Summary};

mod page;

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
would decide it), and what a change does to its edge over the fair share. Factions are listed in seat order, so seat effects read the same way.

--matchups also plays each pair of levels head to head: one faction on level X, every other
on Y, each faction taking the X place in turn (--games split among them, seats rotated), and
reads X's win rate against the fair share: how often the stronger player wins, skill against
luck. For example:
  vpsim ladder scenarios/race_to_three.toml --levels weighted,lookahead:2 --matchups --games 60")]
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
    /// Also play each pair of levels head to head (one faction on X, the others on Y).
    #[arg(long)]
    pub matchups: bool,
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
    let models = (a.levels.iter())
        .map(|l| {
            let sets: Vec<Override> = std::iter::once(l.clone())
                .chain(o.set.iter().cloned())
                .collect();
            super::load(&a.scenario, &sets, o.prep())
        })
        .collect::<Result<Vec<_>>>()?;
    let out = super::command_out_dir(&models[0].name, o, "ladder");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let rungs = climb(&a, &models)?;
    let m = &models[0];
    let matchups = match a.matchups {
        true => play_matchups(&a, m)?,
        false => Vec::new(),
    };
    let mut doc = to_json(m, o, &rungs, a.margin);
    let mut text = table(m, o, &rungs, a.margin);
    if o.rotate_seats && m.seats_unmoved {
        let _ = writeln!(text, "\nseats: {}", crate::report::seats::unmoved_words());
    }
    // report.md shows the matchups as a table of its own, not inside the readings' list.
    let page_text = text.clone();
    if !matchups.is_empty() {
        doc["matchups"] = json!(matchups);
        doc["matchup_readings"] = json!(matchup_readings(&matchups, a.margin));
        text.push_str(&matchup_table(m, o, &a.levels, &matchups, a.margin));
    }
    if let Some(dir) = &out {
        page::write_page(&a, m, dir, (&rungs, &matchups), &doc, &page_text)?;
    }
    if o.json {
        return super::out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    }
    super::out(&text)
}

/// Plays every level in turn, every faction on it, on games `0..--games`.
fn climb(a: &Args, models: &[crate::Model]) -> Result<Vec<Rung>> {
    let o = &a.opts;
    let n = a.levels.len();
    let mut rungs = Vec::new();
    for (k, (l, m)) in a.levels.iter().zip(models).enumerate() {
        super::set_stage(Some(format!("level {} of {n}: {}", k + 1, l.value)));
        let p = super::run::play(m, o, 0, o.games, None);
        super::set_stage(None);
        let p = p?;
        let info = RunInfo::of(m, o.seed);
        rungs.push(Rung {
            name: l.value.clone(),
            summary: Summary::of(&info, 0, &p.tally, p.elapsed, p.threads),
        });
    }
    Ok(rungs)
}

fn readings(m: &crate::Model, rungs: &[Rung], margin: f64) -> Vec<String> {
    let (first, last) = (&rungs[0], &rungs[rungs.len() - 1]);
    (0..m.nfactions())
        .map(|f| {
            crate::ladder::reading(
                &m.factions[FactionId::from_index(f)].label,
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
                // With --rotate-seats: each seat's sole wins, whoever sat there.
                "seats": r.summary.seats.iter().map(|s| json!({
                    "seat": s.seat,
                    "win": {"rate": s.win.rate, "low": s.win.low, "high": s.win.high},
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
            json!({"name": m.factions[FactionId::from_index(f)].name, "est": c.est, "low": c.low, "high": c.high})
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
    // A row of win rates, one a level: each faction's, then with rotated seats each seat's
    // (whoever sat there).
    let mut row = |label: &str, win: &dyn Fn(&Rung) -> crate::stats::Rate| {
        let mut line = format!("{label:<w$}");
        for (r, c) in rungs.iter().zip(&cols) {
            let x = win(r);
            let cell = format!(
                "{:5.1}% [{:5.1}, {:5.1}]",
                100.0 * x.rate,
                100.0 * x.low,
                100.0 * x.high
            );
            let _ = write!(line, "  {cell:^c$}");
        }
        let _ = writeln!(s, "{line}");
    };
    for f in 0..m.nfactions() {
        row(&m.factions[FactionId::from_index(f)].label, &|r| {
            r.summary.factions[f].win
        });
    }
    for seat in 0..rungs[0].summary.seats.len() {
        row(&format!("seat {}", seat + 1), &|r| {
            r.summary.seats[seat].win
        });
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
        "\nreadings (last level against the first; intervals {}; margin {} pp):",
        match m.nfactions() {
            1 => "at 95% for the one faction".to_string(),
            n => format!("simultaneous at 95% over the {n} factions"),
        },
        crate::stats::margin::pp(margin)
    );
    for line in readings(m, rungs, margin) {
        let _ = writeln!(s, "  {line}");
    }
    s
}

/// Plays every ordered pair of distinct levels head to head: for each faction in turn, that
/// faction on the first level and every other on the second, seats rotated, `--games`
/// split among the factions; the first level's faction's wins pooled over them.
fn play_matchups(a: &Args, m: &crate::Model) -> Result<Vec<crate::ladder::Matchup>> {
    let o = &a.opts;
    let nf = m.nfactions();
    let each = o.games.div_ceil(nf as u64).max(1);
    let prep = super::Prep {
        rotate: true,
        ..o.prep()
    };
    let z = crate::stats::z_for(0.95);
    let mut out = Vec::new();
    for la in &a.levels {
        for lb in a.levels.iter().filter(|l| l.value != la.value) {
            let (mut wins, mut games) = (0u64, 0u64);
            for (f, faction) in m.factions.iter().enumerate() {
                let pin = Override {
                    path: crate::overrides::AGENT.into(),
                    value: format!("{}={}", faction.name, la.value),
                };
                let sets: Vec<Override> = [lb.clone(), pin]
                    .into_iter()
                    .chain(o.set.iter().cloned())
                    .collect();
                let model = super::load(&a.scenario, &sets, prep)?;
                super::set_stage(Some(format!(
                    "{} on {} against {}",
                    faction.label, la.value, lb.value
                )));
                let p = super::run::play(&model, o, 0, each, None);
                super::set_stage(None);
                let p = p?;
                wins += p.tally.factions[f].wins;
                games += p.tally.games;
            }
            out.push(crate::ladder::Matchup {
                a: la.value.clone(),
                b: lb.value.clone(),
                a_win: crate::stats::Rate::wilson(wins, games, z),
                fair: 1.0 / nf as f64,
            });
        }
    }
    Ok(out)
}

/// The matchups' readings: skill against luck (the last level among the first), then every
/// pair.
fn matchup_readings(ms: &[crate::ladder::Matchup], margin: f64) -> Vec<String> {
    let mut out = Vec::new();
    // The levels are listed lowest first: the last level among the first is the widest gap.
    if let (Some(lowest), Some(highest)) = (ms.first().map(|x| &x.a), ms.last().map(|x| &x.a))
        && let Some(top) = ms.iter().find(|x| &x.a == highest && &x.b == lowest)
    {
        out.push(crate::ladder::skill_against_luck(top, margin));
    }
    out.extend(ms.iter().map(|x| crate::ladder::matchup_reading(x, margin)));
    out
}

/// The matchups as a matrix (rows: the one faction's level; columns: the others') and their
/// readings.
fn matchup_table(
    m: &crate::Model,
    o: &RunOpts,
    levels: &[Override],
    ms: &[crate::ladder::Matchup],
    margin: f64,
) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nmatchups: one faction on the row's level, every other on the column's; its sole wins over {} games ({} a faction in its place, seats rotated); fair share {:.1}%",
        crate::report::thousands(ms.first().map_or(0, |x| x.a_win.n)),
        crate::report::thousands(o.games.div_ceil(m.nfactions() as u64).max(1)),
        100.0 / m.nfactions() as f64
    );
    let w = levels
        .iter()
        .map(|l| l.value.len())
        .max()
        .unwrap_or(8)
        .max(8);
    let mut head = format!("  {:<w$}", "");
    for l in levels {
        let _ = write!(head, "  {:>w$}", l.value);
    }
    let _ = writeln!(s, "{head}");
    for la in levels {
        let mut line = format!("  {:<w$}", la.value);
        for lb in levels {
            let cell = ms
                .iter()
                .find(|x| x.a == la.value && x.b == lb.value)
                .map_or("-".to_string(), |x| format!("{:.1}%", 100.0 * x.a_win.rate));
            let _ = write!(line, "  {cell:>w$}");
        }
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(
        s,
        "\nmatchup readings (95% Wilson; margin {} pp):",
        crate::stats::margin::pp(margin)
    );
    for r in matchup_readings(ms, margin) {
        let _ = writeln!(s, "  {r}");
    }
    s
}
