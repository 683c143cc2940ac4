//! `vpsim sensitivity`: each parameter moved one step down and one step up from its value,
//! the change in every faction's win rate (a swing) with its interval, and which parameters
//! move a win rate beyond noise.
//!
//! Owns the command's flags, its plan (every step compiled before the first game) and its
//! outputs: the table, the JSON, the tornado chart and report.md. The paired games and the
//! paired interval are [`crate::compare`]'s; a step's value and its loading are `sweep`'s.
//!
//! Which interval, and why: every step plays the baseline's games (the same seed and game
//! indices, common random numbers), so a swing is a difference of two paired rates, and
//! the data to pair them is at hand: each step is played beside the baseline with
//! [`crate::compare::run_pair`], which counts the games won in only one of the two. The
//! swing's interval is the paired one `vpsim compare` gives ([`crate::compare::rate_shift`]).
//! Newcombe's hybrid score interval from two independent Wilson intervals (what `ladder`
//! uses, its levels being independent runs) would ignore the pairing: it is much wider here
//! (about three times on the seed race), so it would call real effects noise, and a
//! parameter that changes no game would still get an interval of a few points instead of
//! exactly [0, 0]. The price is one more play of the baseline's games beside each step.
//! The paired interval is a normal approximation on the games won by one side only; it is
//! too eager only when very few games differ (it excludes 0 from about z² games that all
//! differ one way: 4 at a lone 95%, 7 to 9 at the simultaneous levels below), which a
//! parameter that matters never comes near.
//!
//! The intervals are simultaneous at 95% over every swing shown (Bonferroni over
//! 2 x parameters x factions), so the chance that any parameter is named beyond noise
//! without an effect is at most about 5%.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;

use super::RunOpts;
use super::sweep::{fmt_num, load_point};
use crate::compare::{PairTally, rate_shift, run_pair};
use crate::error::{Error, Result};
use crate::overrides::Override;
use crate::stats::{Rate, Tally, Val, z_for};

mod pairing;
mod seats;
use pairing::pairing_line;

/// Move each parameter one step down and up and measure the effect on every win rate.
#[derive(Debug, clap::Args)]
// Its results are one JSON file and a chart, not tables: no --csv offered.
#[command(mut_arg("csv", |a| a.hide(true)))]
#[command(after_help = "Examples:
  vpsim sensitivity scenarios/race_to_three.toml --param settings.p \\
    --param settings.q=0.05 --games 20000

A step defaults to 10% of the parameter's value (1 for whole numbers). Every step plays the
baseline's games, so each change in a win rate has a paired 95% interval, simultaneous over
all of them; a parameter is named beyond noise when one of its intervals excludes 0.")]
pub struct Args {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// A numeric value to move: PATH or PATH=STEP (repeatable).
    #[arg(long, required = true)]
    pub param: Vec<String>,
    /// The smallest change in win rate that matters, in percentage points: a change beyond
    /// noise whose interval is inside it is "under the margin", and one whose interval
    /// reaches past it (but not beyond noise and at least the margin) is "undecided", with
    /// the games that would decide it.
    #[arg(long, value_name = "PP", default_value_t = 2.0, value_parser = super::parse_margin)]
    pub margin: f64,
    /// Run options.
    #[command(flatten)]
    pub opts: RunOpts,
}

/// The change in one faction's win rate from the baseline to one step (a swing), with its
/// interval (see [`Sensitivity::interval`]).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Swing {
    /// The step's win rate minus the baseline's.
    pub change: f64,
    /// Lower end of its interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Whether the interval excludes 0.
    pub beyond_noise: bool,
}

impl Swing {
    /// The swing of faction `f` from the baseline (variant A of `t`) to the step (B), with
    /// its paired interval at normal quantile `z`.
    fn of(t: &PairTally, f: usize, z: f64) -> Swing {
        Swing::paired(&t.factions[f], t.games, z)
    }

    /// The swing of seat `s` (with rotated seats: the faction that sat there won alone).
    fn of_seat(t: &PairTally, s: usize, z: f64) -> Swing {
        Swing::paired(&t.seats[s], t.games, z)
    }

    fn paired(pf: &crate::compare::PairFaction, games: u64, z: f64) -> Swing {
        let d = rate_shift(pf.only_a, pf.only_b, games, z);
        Swing {
            change: d.estimate,
            low: d.low,
            high: d.high,
            beyond_noise: d.low > 0.0 || d.high < 0.0,
        }
    }

    /// The swing as a difference with its interval, for judging at a margin.
    fn diff(&self) -> crate::stats::Diff {
        crate::stats::Diff {
            est: self.change,
            low: self.low,
            high: self.high,
        }
    }

    fn val(&self) -> Val {
        Val {
            est: self.change,
            lo: self.low,
            hi: self.high,
        }
    }

    /// `+2.3 [+1.5, +3.1]`, in points of win rate.
    fn cell(&self) -> String {
        self.diff().signed("")
    }
}

/// One parameter's effect.
#[derive(Debug, Serialize)]
pub struct Effect {
    /// Parameter path.
    pub param: String,
    /// Its value in the file.
    pub base: f64,
    /// The step.
    pub step: f64,
    /// Win rates one step down.
    pub down: Vec<Rate>,
    /// Win rates one step up.
    pub up: Vec<Rate>,
    /// Per faction, the change in win rate one step down, with its interval.
    pub down_swing: Vec<Swing>,
    /// Per faction, the change in win rate one step up, with its interval.
    pub up_swing: Vec<Swing>,
    /// With `--rotate-seats`, per seat, the change in its win rate one step down (empty
    /// without rotation): a rule about a seat shows here.
    pub down_seats: Vec<Swing>,
    /// Per seat, one step up.
    pub up_seats: Vec<Swing>,
    /// Whether any of its swings is beyond noise (its interval excludes 0).
    pub beyond_noise: bool,
    /// What pairing with the baseline's games was worth to its swings: the variance of two
    /// independent runs' difference over the paired one, averaged over the factions and
    /// both steps (`null` when no faction's wins changed).
    pub variance_reduction: Option<f64>,
    /// Its swings judged at the margin: `moves` (one beyond noise and at least the margin),
    /// `undecided` (none of those, one interval reaching past the margin), `under the margin`
    /// (one beyond noise, every interval inside the margin) or `within the margin` (none
    /// beyond noise, every interval inside it).
    pub judgement: String,
}

impl Effect {
    /// Its swings judged at margin `m` (see [`Effect::judgement`]), and for an undecided
    /// one the widest swing's interval as a difference.
    fn judge(&self, m: f64) -> (&'static str, Option<crate::stats::Diff>) {
        use crate::stats::margin::{Judgement, judge};
        let diffs: Vec<crate::stats::Diff> = (self.down_swing.iter().chain(&self.up_swing))
            .map(Swing::diff)
            .collect();
        let js: Vec<Judgement> = diffs.iter().map(|d| judge(d, m)).collect();
        let any = |j: Judgement| js.contains(&j);
        // "Under the margin" only when no interval reaches past it.
        if any(Judgement::Up) || any(Judgement::Down) {
            ("moves", None)
        } else if any(Judgement::Undecided) || any(Judgement::Unsettled) {
            let widest = diffs
                .into_iter()
                .max_by(|a, b| (a.high - a.low).total_cmp(&(b.high - b.low)));
            ("undecided", widest)
        } else if any(Judgement::Small) {
            ("under the margin", None)
        } else {
            ("within the margin", None)
        }
    }

    /// Whether faction `f`'s win rate moves beyond noise by at least margin `m`, either way.
    fn moves(&self, f: usize, m: f64) -> bool {
        use crate::stats::margin::{Judgement, judge};
        [&self.down_swing[f], &self.up_swing[f]]
            .iter()
            .any(|w| matches!(judge(&w.diff(), m), Judgement::Up | Judgement::Down))
    }
}

/// What `vpsim sensitivity --json` prints.
#[derive(Debug, Serialize)]
pub struct Sensitivity {
    /// Scenario file.
    pub scenario: String,
    /// Factions.
    pub factions: Vec<String>,
    /// Win rates at the file's values.
    pub base: Vec<Rate>,
    /// Games per run.
    pub games: u64,
    /// Seed (every run plays the same seeds).
    pub seed: u64,
    /// Per parameter, largest swing first.
    pub effects: Vec<Effect>,
    /// How every swing's interval is made, in words.
    pub interval: String,
    /// The parameters with a swing beyond noise, largest swing first.
    pub beyond_noise: Vec<String>,
    /// The others: no swing's interval excludes 0 (which does not show that they have no
    /// effect, only that these games cannot tell it from noise).
    pub within_noise: Vec<String>,
    /// The smallest change in win rate that matters (a proportion; `--margin`).
    pub margin: f64,
    /// With `--rotate-seats` on a scenario whose games never read the seating: the
    /// rotation changed no game, and there is no seat table.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub seats_unmoved: bool,
}

/// One parameter to move: its path, value, step and the two compiled steps (down, up).
struct Step {
    path: String,
    value: f64,
    step: f64,
    ends: [crate::Model; 2],
}

/// Each faction's sole-win rate in `t`, with its 95% Wilson interval (as `run` gives it).
fn win_rates(t: &Tally) -> Vec<Rate> {
    let z = z_for(crate::report::CONFIDENCE);
    t.factions
        .iter()
        .map(|f| Rate::wilson(f.wins, t.games, z))
        .collect()
}

/// Compiles both steps of every `--param`, before any game is played.
fn plan_steps(a: &Args) -> Result<Vec<Step>> {
    let o = &a.opts;
    // The values each parameter moves from are the scenario's with `--set` applied: the
    // baseline's.
    let text = crate::overrides::apply(&crate::scenario::read_text(&a.scenario)?, &o.set)?;
    let mut plan = Vec::new();
    for p in &a.param {
        let (path, step) = match p.split_once('=') {
            Some((path, s)) => (
                path.trim().to_string(),
                Some(
                    s.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite() && *x > 0.0)
                        .ok_or_else(|| {
                            Error::Usage(format!(
                                "--param {p}: `{s}` is not a step: give a positive number, e.g. {path}=0.05"
                            ))
                        })?,
                ),
            ),
            None => (p.trim().to_string(), None),
        };
        let value = match crate::overrides::current_value(&text, &path)? {
            crate::overrides::Current::Number(x) => x,
            crate::overrides::Current::Formula(f) => {
                return Err(Error::Usage(format!(
                    "--param {p}: the file writes a formula there (`{f}`), so there is no number to \
                     step from: give one with --set {path}=VALUE (it replaces the formula), or try \
                     values with vpsim sweep --param {path}=V1,V2,..."
                )));
            }
        };
        // A whole number (0 included) moves by 1; any other value by a tenth of itself.
        let step = step.unwrap_or(if value.fract() == 0.0 {
            1.0
        } else {
            value.abs() * 0.1
        });
        let load_at = |v: f64| {
            let at = Override {
                path: path.clone(),
                value: fmt_num(v),
            };
            load_point(&a.scenario, o, std::slice::from_ref(&at)).map_err(|e| {
                Error::Usage(format!(
                    "--param {p}: one step from {} is {}, which the scenario does not take: {e}\n  give the step yourself: --param {path}=STEP",
                    fmt_num(value),
                    fmt_num(v),
                ))
            })
        };
        let ends = [load_at(value - step)?, load_at(value + step)?];
        plan.push(Step {
            path,
            value,
            step,
            ends,
        });
    }
    Ok(plan)
}

/// Refuses a step whose scenario has other factions than the baseline's: its swings are read
/// faction by faction against the baseline.
fn same_factions(plan: &[Step], base: &crate::Model) -> Result<()> {
    for s in plan {
        for (m, v) in s.ends.iter().zip([s.value - s.step, s.value + s.step]) {
            if m.nfactions() != base.nfactions() {
                return Err(Error::Usage(format!(
                    "--param {}: at {} the scenario has {} factions, not {}: a sensitivity run compares the same factions",
                    s.path,
                    fmt_num(v),
                    m.nfactions(),
                    base.nfactions()
                )));
            }
        }
    }
    Ok(())
}

/// Plays each step beside the baseline on the same games and reads its swings at normal
/// quantile `z`: the baseline's win rates and one effect per step, in the plan's order.
fn play(
    base: &crate::Model,
    plan: Vec<Step>,
    o: &RunOpts,
    z: f64,
    tick: &(dyn Fn(u64) + Sync),
) -> Result<(Vec<Rate>, Vec<Effect>)> {
    let threads = o.threads.map(|t| t as usize);
    let nf = base.nfactions();
    let mut base_rates = Vec::new();
    let mut effects = Vec::new();
    for s in plan {
        if crate::signal::stopped() {
            return Err(Error::Interrupted);
        }
        let [down_model, up_model] = &s.ends;
        let down = run_pair(base, down_model, o.seed, 0, o.games, threads, tick)?;
        let up = run_pair(base, up_model, o.seed, 0, o.games, threads, tick)?;
        // Every pair plays the same baseline games: its rates are the same in each.
        base_rates = win_rates(&down.a);
        let down_swing: Vec<Swing> = (0..nf).map(|f| Swing::of(&down, f, z)).collect();
        let up_swing: Vec<Swing> = (0..nf).map(|f| Swing::of(&up, f, z)).collect();
        let seats = |t: &PairTally| -> Vec<Swing> {
            (0..t.seats.len())
                .map(|s| Swing::of_seat(t, s, z))
                .collect()
        };
        let (down_seats, up_seats) = (seats(&down), seats(&up));
        let beyond_noise = down_swing.iter().chain(&up_swing).any(|w| w.beyond_noise);
        effects.push(Effect {
            param: s.path,
            base: s.value,
            step: s.step,
            down: win_rates(&down.b),
            up: win_rates(&up.b),
            down_swing,
            up_swing,
            down_seats,
            up_seats,
            beyond_noise,
            variance_reduction: crate::compare::mean_reduction([&down, &up]),
            judgement: String::new(),
        });
    }
    Ok((base_rates, effects))
}

/// The parameters by their judgement at the margin: `Moves win rates by 2 pp or more:
/// settings.p (First, Second); beyond noise but under the 2 pp margin: ...; within the
/// margin: ...; undecided: settings.q (±3.1 pp: about 45,000 games a point would narrow it
/// to ±2 pp).` Classes without a parameter are left out.
fn noise_line(s: &Sensitivity) -> String {
    let m = crate::stats::margin::pp(s.margin);
    let mut parts = Vec::new();
    let class = |name: &str| -> Vec<&Effect> {
        (s.effects.iter()).filter(|e| e.judgement == name).collect()
    };
    let moves: Vec<String> = (class("moves").iter())
        .map(|e| {
            let who: Vec<&str> = (0..s.factions.len())
                .filter(|&f| e.moves(f, s.margin))
                .map(|f| s.factions[f].as_str())
                .collect();
            format!("{} ({})", e.param, who.join(", "))
        })
        .collect();
    if !moves.is_empty() {
        parts.push(format!(
            "Moves win rates by {m} pp or more, beyond noise: {}",
            moves.join(", ")
        ));
    }
    let names = |v: Vec<&Effect>| {
        v.iter()
            .map(|e| e.param.clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let small = class("under the margin");
    if !small.is_empty() {
        parts.push(format!(
            "beyond noise but under the {m} pp margin: {}",
            names(small)
        ));
    }
    let within = class("within the margin");
    if !within.is_empty() {
        parts.push(format!(
            "within the {m} pp margin (every interval inside ±{m} pp): {}",
            names(within)
        ));
    }
    let open: Vec<String> = (class("undecided").iter())
        .map(|e| match e.judge(s.margin).1 {
            Some(d) => format!(
                "{} ({})",
                e.param,
                crate::stats::margin::undecided(&d, s.games, s.margin, " a point")
                    .trim_start_matches("undecided (")
                    .replacen("):", ":", 1)
            ),
            None => e.param.clone(),
        })
        .collect();
    if !open.is_empty() {
        parts.push(format!("undecided: {}", open.join(", ")));
    }
    let mut line = parts.join("; ");
    if let Some(c) = line.get(..1) {
        line = c.to_uppercase() + &line[1..];
    }
    format!("{line}.")
}

/// What "within noise" means, for the reader of the table.
const WITHIN: &str = "Undecided: an interval of the parameter reaches past the margin while \
    none is both beyond noise and as large as the margin, so an effect that matters is neither \
    shown nor ruled out by these games.";

/// [`WITHIN`] on a line of its own when a parameter is undecided, else nothing.
fn within(s: &Sensitivity) -> String {
    if !s.effects.iter().any(|e| e.judgement == "undecided") {
        String::new()
    } else {
        format!("\n{WITHIN}")
    }
}

/// Runs `vpsim sensitivity`.
pub fn run(a: Args) -> Result<()> {
    let o = &a.opts;
    o.refuse_csv("sensitivity.json")?;
    o.check()?;
    // Every step compiles and the output folder is checked before the first game.
    let plan = plan_steps(&a)?;
    let out = super::command_out_dir(&plan[0].ends[0].name, o, "sensitivity");
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let base_model = load_point(&a.scenario, o, &[])?;
    same_factions(&plan, &base_model)?;
    let nf = base_model.nfactions();
    // With rotated seats each step also moves every seat: those swings count too.
    let rotated = if base_model.tables.rotate_seats && !base_model.seats_unmoved {
        2
    } else {
        1
    };
    let swings = 2 * plan.len() * nf * rotated;
    let z = crate::ladder::z_joint(swings);
    let bar = super::progress_bar(o.games.saturating_mul(2 * plan.len() as u64), o.quiet);
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    };
    let played = play(&base_model, plan, o, z, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let (base, mut effects) = played?;
    let swing = |e: &Effect| {
        e.down
            .iter()
            .zip(&e.up)
            .map(|(d, u)| (u.rate - d.rate).abs())
            .fold(0.0, f64::max)
    };
    effects.sort_by(|x, y| swing(y).total_cmp(&swing(x)));
    for e in &mut effects {
        e.judgement = e.judge(a.margin).0.into();
    }
    let names = |beyond: bool| -> Vec<String> {
        effects
            .iter()
            .filter(|e| e.beyond_noise == beyond)
            .map(|e| e.param.clone())
            .collect()
    };
    let (beyond_noise, within_noise) = (names(true), names(false));
    let s = Sensitivity {
        scenario: a.scenario.display().to_string(),
        factions: base_model.factions.iter().map(|f| f.name.clone()).collect(),
        base,
        games: o.games,
        seed: o.seed,
        effects,
        interval: format!(
            "95% simultaneous over all {swings} swings (Bonferroni), paired: every step plays the baseline's games"
        ),
        beyond_noise,
        within_noise,
        margin: a.margin,
        seats_unmoved: base_model.seats_unmoved,
    };
    let json = super::pretty_json(&s)?;
    if let Some(dir) = &out {
        super::begin_report_with(dir, "sensitivity", &json)?;
        write_report(dir, &a, &s, &base_model)?;
    }
    if o.json {
        return super::out(&format!("{json}\n"));
    }
    super::out(&table(&s))
}

/// The step's value one way: `down to 0.27`.
fn move_label(e: &Effect, up: bool) -> String {
    if up {
        format!("up to {}", fmt_num(e.base + e.step))
    } else {
        format!("down to {}", fmt_num(e.base - e.step))
    }
}

/// The terminal table: per parameter a row one step down and a row one step up, each
/// faction's swing with its interval (`*` beyond noise), then the parameters beyond noise.
fn table(s: &Sensitivity) -> String {
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{}: change in win rate (pp: percentage points) from the baseline one step down and up [interval], {} games per run, seed {}\nIntervals: {}. * beyond noise (the interval excludes 0).\n",
        s.scenario,
        crate::report::thousands(s.games),
        s.seed,
        s.interval
    );
    let labels: Vec<String> = s
        .effects
        .iter()
        .map(|e| format!("{} ({} ± {})", e.param, fmt_num(e.base), fmt_num(e.step)))
        .collect();
    let lw = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .max(24)
        + 2;
    let mw = s
        .effects
        .iter()
        .flat_map(|e| [move_label(e, false), move_label(e, true)])
        .map(|m| m.chars().count())
        .max()
        .unwrap_or(0)
        .max(4)
        + 2;
    let fw = s
        .factions
        .iter()
        .map(|f| f.chars().count() + 2)
        .max()
        .unwrap_or(0)
        .max(22);
    let _ = write!(t, "{:<lw$}{:<mw$}", "parameter (value ± step)", "move");
    for f in &s.factions {
        // Right-aligned over the cells, which end in a mark column.
        let _ = write!(t, "{f:>w$} ", w = fw - 1);
    }
    let _ = writeln!(t);
    for (e, label) in s.effects.iter().zip(&labels) {
        for (up, swings) in [(false, &e.down_swing), (true, &e.up_swing)] {
            let first = if up { "" } else { label.as_str() };
            let _ = write!(t, "{first:<lw$}{:<mw$}", move_label(e, up));
            for w in swings {
                let mark = if w.beyond_noise { "*" } else { " " };
                let _ = write!(t, "{:>x$}{mark}", w.cell(), x = fw - 1);
            }
            let _ = writeln!(t);
        }
    }
    let _ = writeln!(t, "\n{}{}", noise_line(s), within(s));
    if let Some(p) = pairing_line(s) {
        let _ = writeln!(t, "{p}");
    }
    t.push_str(&seats::table(s, lw, mw));
    t
}

/// Writes the tornado chart and report.md (with report.html) into the report folder.
fn write_report(
    dir: &std::path::Path,
    a: &Args,
    s: &Sensitivity,
    base_model: &crate::Model,
) -> Result<()> {
    let o = &a.opts;
    let params: Vec<String> = s.effects.iter().map(|e| e.param.clone()).collect();
    let effects: Vec<(String, Vec<(Val, Val)>)> = s
        .factions
        .iter()
        .enumerate()
        .map(|(i, f)| {
            (
                f.clone(),
                s.effects
                    .iter()
                    .map(|e| (e.down_swing[i].val(), e.up_swing[i].val()))
                    .collect(),
            )
        })
        .collect();
    crate::report::charts::write_tornado(
        dir,
        "tornado",
        (
            "Effect of one step of each parameter on win rates",
            &super::chart_subtitle(&a.scenario, o, "per run"),
        ),
        &params,
        &effects,
        o.canvas(),
    )?;
    let title = format!("Sensitivity: {}", base_model.title);
    let mut md = super::report_header(&title, base_model, o.seed, o.games, "per variant or point");
    let _ = write!(
        md,
        "![Effect of one step of each parameter on win rates](tornado.svg)\n\nChange in each faction's win rate, in points, from the baseline to one step down and to one step up, with its interval: {}. **Bold**: beyond noise (the interval excludes 0). Pale bars in the chart are within noise.\n\n| parameter | value | step | move | {} |\n|---|---|---|---|{}\n",
        s.interval,
        s.factions.join(" | "),
        "---|".repeat(s.factions.len())
    );
    for e in &s.effects {
        for (up, swings) in [(false, &e.down_swing), (true, &e.up_swing)] {
            let cells: Vec<String> = swings
                .iter()
                .map(|w| {
                    if w.beyond_noise {
                        format!("**{}**", w.cell())
                    } else {
                        w.cell()
                    }
                })
                .collect();
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} |",
                e.param,
                fmt_num(e.base),
                fmt_num(e.step),
                move_label(e, up),
                cells.join(" | ")
            );
        }
    }
    let _ = writeln!(md, "\n{}\n{}", noise_line(s), within(s));
    if let Some(p) = pairing_line(s) {
        let _ = writeln!(md, "\n{p}");
    }
    md.push_str(&seats::markdown(s));
    super::write_report(dir, &md, &title)
}
