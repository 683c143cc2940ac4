//! Command-line interface: argument types (clap derive) and one module per subcommand.
//!
//! Owns the flags, their help text and their validation; each subcommand turns its
//! arguments into library calls and prints the result. Nothing here knows a game.

pub mod check;
pub mod compare;
pub mod exploit;
pub mod ladder;
pub mod merge;
mod page;
pub mod run;
pub mod schema;
pub mod sensitivity;
pub mod sweep;
pub mod test;
pub mod trace;
pub mod tune;
pub mod validate;
pub mod watch;

pub use page::{report_header, text_then_list, write_report};

use clap::{Parser, Subcommand};

use crate::error::Result;

/// Monte Carlo balance simulator for board-game scoring rules.
///
/// Write a game's scoring and victory rules as a scenario file (TOML), then play millions of
/// seeded games with randomized agents and read who wins how often, with 95% intervals.
#[derive(Debug, Parser)]
#[command(name = "vpsim", version, about, long_about = None)]
#[command(
    after_help = "Examples:\n  vpsim run scenarios/race_to_three.toml --games 100000 --seed 1\n  vpsim validate scenarios/race_to_three.toml\n  vpsim trace scenarios/race_to_three.toml --seed 1 --game 7\n\nExit codes: 0 success, 1 failure (a failed example or check included), 2 bad input or usage, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM)."
)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Play many seeded games and report win rates, ranks, scores, lengths and end reasons.
    Run(run::Args),
    /// Check a scenario file and print a summary of the compiled model.
    Validate(validate::Args),
    /// Tell one game step by step (identical to game I of `run` with the same seed).
    Trace(trace::Args),
    /// Run the worked examples of scenario files.
    Test(test::Args),
    /// Merge the outputs of `run --shard K/N --out DIR` into the single run's result.
    Merge(merge::Args),
    /// Evaluate balance assertions on a run; exit 1 when one fails (for CI).
    Check(check::Args),
    /// Compare two variants on the same seeds: which differences are beyond noise.
    ///
    /// Each part of a game (a variable's setup, an event, a phase, a turn, a decision's pick
    /// and the action it took) draws from a stream of its own, so the variants throw the same
    /// dice wherever their rules agree; the output says what that pairing was worth. With
    /// --rotate-seats it also gives each seat's paired change.
    Compare(compare::Args),
    /// Run at each value of one or two parameters: win rates against the parameter.
    ///
    /// Every point plays the same seeds; points are played two by two on the same games (1
    /// with 2, 3 with 4, ...), and the output says what that pairing was worth.
    Sweep(sweep::SweepArgs),
    /// Move each parameter one step down and up: the effect on every win rate.
    Sensitivity(sensitivity::Args),
    /// Find parameter values that meet a balance goal, with a confirmation run's interval.
    Tune(tune::Args),
    /// Print the JSON Schema of the scenario format, for editor completion and checking.
    Schema(schema::Args),
    /// Re-run a scenario on every save and print what changed beyond noise.
    Watch(watch::Args),
    /// Search each faction's best response: can a player who plays to win break the rules?
    Exploit(exploit::Args),
    /// Play every faction at each skill level and read how balance moves with skill.
    Ladder(ladder::Args),
}

/// Moves the `--agent` choices `agent` to the front of the overrides `set`: they apply
/// first, so a `--set agent.rollouts=64` refines a `--agent lookahead`.
fn agents_first(
    set: &mut Vec<crate::overrides::Override>,
    agent: &mut Vec<crate::overrides::Override>,
) {
    set.splice(0..0, agent.drain(..));
}

/// Runs the parsed command line.
pub fn dispatch(mut cli: Cli) -> Result<()> {
    crate::signal::install();
    // `--agent` choices are overrides of their own, applied before `--set`.
    let quiet = match &mut cli.command {
        Command::Run(run::Args { opts, .. })
        | Command::Check(check::Args { opts, .. })
        | Command::Compare(compare::Args { opts, .. })
        | Command::Sweep(sweep::SweepArgs { opts, .. })
        | Command::Sensitivity(sensitivity::Args { opts, .. })
        | Command::Tune(tune::Args { opts, .. })
        | Command::Exploit(exploit::Args { opts, .. })
        | Command::Ladder(ladder::Args { opts, .. }) => {
            opts.agents_first();
            opts.quiet || opts.json
        }
        Command::Trace(a) => {
            agents_first(&mut a.set, &mut a.agent);
            false
        }
        Command::Watch(a) => {
            agents_first(&mut a.set, &mut a.agent);
            false
        }
        _ => false,
    };
    // A report folder's new report is put in place only when the command has written all
    // of it; an error or a signal leaves the folder as it was.
    let done = run_command(cli.command).and_then(|()| crate::output::finish_reports());
    if done.is_err() {
        crate::output::abandon_reports();
    }
    // Every command that wrote a report folder says where (unless --quiet or --json).
    let written = REPORT.lock().unwrap_or_else(|e| e.into_inner()).take();
    if done.is_ok()
        && !quiet
        && let Some(dir) = written
    {
        crate::diagnostic::say(&format!(
            "report written to {}",
            crate::error::one_line(&dir.display().to_string())
        ));
    }
    done
}

/// The report folder this command wrote (its top folder: compare's, not its variants').
static REPORT: std::sync::Mutex<Option<std::path::PathBuf>> = std::sync::Mutex::new(None);

/// Notes that the command wrote a report into `dir` (the last one noted is the command's
/// own: compare writes its variants' reports first).
fn report_at(dir: &std::path::Path) {
    *REPORT.lock().unwrap_or_else(|e| e.into_inner()) = Some(dir.to_path_buf());
}

/// Runs the parsed command.
fn run_command(command: Command) -> Result<()> {
    match command {
        Command::Run(a) => run::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Trace(a) => trace::run(a),
        Command::Test(a) => test::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Check(a) => check::run(a),
        Command::Compare(a) => compare::run(a),
        Command::Sweep(a) => sweep::sweep(a),
        Command::Sensitivity(a) => sensitivity::run(a),
        Command::Tune(a) => tune::run(a),
        Command::Schema(a) => schema::run(a),
        Command::Watch(a) => watch::run(a),
        Command::Exploit(a) => exploit::run(a),
        Command::Ladder(a) => ladder::run(a),
    }
}

/// How a compiled scenario is made ready to play: the engine, and what every game also
/// does. Applied before the native backend compiles, which builds only what is asked for.
#[derive(Debug, Clone, Copy)]
pub struct Prep {
    /// The engine.
    pub engine: crate::native::Engine,
    /// Count each faction's decisions by action and the cards it ends with (see
    /// [`crate::model::Model::count_uses`]).
    pub uses: bool,
    /// Rotate the factions through the seats (see [`crate::runtime::seats`]).
    pub rotate: bool,
    /// Count the feedback test's split (see [`crate::model::Model::split_feedback`]).
    pub split: bool,
    /// Record each round's leader and scores (see [`crate::model::Model::record_rounds`]).
    pub rounds: bool,
}

impl Prep {
    /// Plain games on `engine`.
    pub fn plain(engine: crate::native::Engine) -> Prep {
        Prep {
            engine,
            uses: false,
            rotate: false,
            split: false,
            rounds: true,
        }
    }

    /// Prepares `m`.
    pub fn apply(self, m: &mut crate::Model) {
        m.count_uses = self.uses;
        m.split_feedback = self.split;
        m.record_rounds = self.rounds;
        m.tables.rotate_seats = self.rotate;
        m.seatings = match self.rotate {
            true => crate::runtime::seats::plan(m.nfactions()),
            false => Vec::new(),
        };
        m.seats_unmoved = self.rotate && m.seat_uses().is_empty();
        crate::native::prepare(m, self.engine);
    }
}

/// Loads a scenario with overrides and prepares it as `prep` says.
pub fn load(
    path: &std::path::Path,
    sets: &[crate::overrides::Override],
    prep: Prep,
) -> Result<crate::Model> {
    let mut m = crate::scenario::load_with(path, sets)?;
    prep.apply(&mut m);
    // Ctrl-C or SIGTERM while loading or compiling: stop before any game.
    if crate::signal::stopped() {
        return Err(crate::error::Error::Interrupted);
    }
    Ok(m)
}

/// A margin in percentage points (`--margin 2`): above 0 and below 100, returned as a
/// proportion.
pub fn parse_margin(s: &str) -> std::result::Result<f64, String> {
    let x: f64 = (s.trim().trim_end_matches("pp").trim())
        .parse()
        .map_err(|_| format!("`{s}` is not a number of percentage points (e.g. 2)"))?;
    if x > 0.0 && x < 100.0 {
        Ok(x / 100.0)
    } else {
        Err(format!(
            "{x} is not a margin between 0 and 100 percentage points"
        ))
    }
}

/// The most games one run may play: far more than any machine plays in a year, and small
/// enough that every count and game index stays exact.
pub const MAX_GAMES: u64 = 1_000_000_000_000_000;

/// A whole number in `lo..=hi` (digits, `_` separators or an exact `1e6`), or a message
/// that says what to give.
pub fn whole(s: &str, lo: u64, hi: u64) -> std::result::Result<u64, String> {
    let t = s.trim().replace('_', "");
    match t.parse::<u64>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        // `1e6` is a whole number too, when it is one exactly.
        _ if t.parse::<f64>().is_ok_and(|x| {
            x.fract() == 0.0 && x.abs() < 9.0e15 && (lo as f64..=hi as f64).contains(&x)
        }) =>
        {
            Ok(t.parse::<f64>().map_or(lo, |x| x as u64))
        }
        _ => Err(format!("`{s}`: give a whole number from {lo} to {hi}")),
    }
}

fn parse_games(s: &str) -> std::result::Result<u64, String> {
    whole(s, 1, MAX_GAMES)
}

fn parse_seed(s: &str) -> std::result::Result<u64, String> {
    whole(s, 0, u64::MAX)
}

fn parse_threads(s: &str) -> std::result::Result<u64, String> {
    whole(s, 1, 1024)
}

/// Options every command that plays games takes.
#[derive(Debug, Clone, clap::Args)]
pub struct RunOpts {
    /// Number of games to play (per variant or point), 1 to 10^15.
    #[arg(long, allow_negative_numbers = true, short = 'n', default_value_t = 100_000, value_parser = parse_games)]
    pub games: u64,
    /// Master seed: the same seed gives the same results on any machine and thread count.
    #[arg(long, allow_negative_numbers = true, short = 's', default_value_t = 1, value_parser = parse_seed)]
    pub seed: u64,
    /// Worker threads (default: one per core).
    #[arg(long, allow_negative_numbers = true, short = 't', value_parser = parse_threads)]
    pub threads: Option<u64>,
    /// The engine: `native` compiles the scenario's formulas to machine code when it is
    /// loaded (the default); `interp` runs the reference interpreter. Results are identical.
    #[arg(long, value_enum, default_value_t = crate::native::Engine::Native)]
    pub engine: crate::native::Engine,
    /// Print the results as one JSON object on stdout (schema in the README).
    #[arg(long)]
    pub json: bool,
    /// No progress bar, and no "report written to DIR" line on stderr (the results and any
    /// warning are still printed).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Override a scenario value, e.g. --set settings.goal=14 (repeatable; see the README).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = crate::overrides::parse_override)]
    pub set: Vec<crate::overrides::Override>,
    /// Choose the agents: `--agent POLICY` for every faction, `--agent FACTION=POLICY` for
    /// one (repeatable, applied in order before --set). POLICY is weighted, greedy, priority,
    /// lookahead, lookahead:N (flat Monte Carlo, N playouts an option), mcts or mcts:N (a tree
    /// search, N iterations a decision), e.g. --agent Red=lookahead:64 --agent Blue=mcts:500.
    #[arg(long = "agent", value_name = "[FACTION=]POLICY", value_parser = crate::overrides::parse_agent)]
    pub agent: Vec<crate::overrides::Override>,
    /// Write this command's report folder into DIR (its files are listed in the README under
    /// the command). Without DIR: `reports/<scenario-name>/` (with a suffix for compare,
    /// sweep, sensitivity and tune).
    #[arg(long, value_name = "DIR")]
    pub out: Option<Option<std::path::PathBuf>>,
    /// With --out: the size of the charts in pixels, WIDTHxHEIGHT.
    #[arg(long, value_name = "WxH", default_value = "960x600", value_parser = crate::report::charts::parse_size)]
    pub chart_size: (u32, u32),
    /// With --out: pixels per unit of drawing in the PNG charts (1 to 4): text and lines
    /// grow with it, so `--chart-size 1600x900 --chart-scale 2` reads like an 800x450 chart
    /// placed at that size, at twice the resolution.
    #[arg(long, value_name = "K", default_value_t = 1.0, value_parser = parse_chart_scale)]
    pub chart_scale: f32,
    /// With --out: also write every table as CSV in DIR/csv/, for spreadsheets.
    #[arg(long)]
    pub csv: bool,
    /// With --out: replace an earlier vpsim report in DIR, whole: the files its manifest
    /// (.vpsim-manifest.json) lists. Files vpsim did not write are never removed: a folder
    /// holding any, or with no manifest, is refused.
    #[arg(long)]
    pub force: bool,
    /// Rotate the factions through the seats: game g seats them by row g of a balanced
    /// Latin square, so each faction sits in each seat (turn order, ties by seat) equally
    /// often; reports win rates by seat beside those by faction.
    #[arg(long)]
    pub rotate_seats: bool,
}

/// `--chart-scale K`: a number from 1 to 4.
fn parse_chart_scale(s: &str) -> std::result::Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(k) if (1.0..=4.0).contains(&k) => Ok(k),
        _ => Err(format!(
            "`{s}` is not a chart scale: give a number from 1 to 4 (2 doubles text and lines)"
        )),
    }
}

impl RunOpts {
    /// The charts' canvas: `--chart-size` pixels at `--chart-scale`.
    pub fn canvas(&self) -> crate::report::charts::Canvas {
        let asked = crate::report::charts::Canvas {
            px: self.chart_size,
            scale: self.chart_scale,
        };
        asked.at_least_min().0
    }

    /// Moves the `--agent` choices to the front of the overrides (they apply first, so a
    /// `--set agent.rollouts=64` refines a `--agent lookahead`).
    pub fn agents_first(&mut self) {
        agents_first(&mut self.set, &mut self.agent);
    }

    /// The report folder, if one was asked for: `--out DIR`, or `reports/<name>/` for a bare
    /// `--out`.
    pub fn out_dir(&self, scenario_name: &str) -> Option<std::path::PathBuf> {
        self.out.as_ref().map(|d| match d {
            Some(d) => d.clone(),
            None => std::path::Path::new("reports").join(scenario_name),
        })
    }

    /// Refuses flags that need another one (`--csv` without `--out`).
    pub fn check(&self) -> Result<()> {
        if self.csv && self.out.is_none() {
            return Err(crate::Error::Usage(
                "--csv writes into the report folder: add --out [DIR]".into(),
            ));
        }
        let asked = crate::report::charts::Canvas {
            px: self.chart_size,
            scale: self.chart_scale,
        };
        if let (Some(note), true) = (asked.at_least_min().1, self.out.is_some()) {
            crate::diagnostic::say(&format!("note: {note}"));
        }
        Ok(())
    }

    /// Refuses `--csv` for a command whose results are one JSON file (`file`) and a chart.
    pub fn refuse_csv(&self, file: &str) -> Result<()> {
        if self.csv {
            return Err(crate::Error::Usage(format!(
                "--csv: this command writes no tables (its results are in {file} of --out)"
            )));
        }
        Ok(())
    }

    /// Refuses a `--param` path given twice, or also given a value by `--set`: one of them
    /// would silently be dropped.
    pub fn check_params(&self, paths: &[&str]) -> Result<()> {
        for (i, path) in paths.iter().enumerate() {
            if paths[..i].contains(path) {
                return Err(crate::Error::Usage(format!(
                    "--param {path}: given twice; give each parameter once"
                )));
            }
            if let Some(o) = self.set.iter().find(|o| o.path == *path) {
                return Err(crate::Error::Usage(format!(
                    "--set {o}: `{path}` is also a --param, which gives its values: drop the --set"
                )));
            }
        }
        Ok(())
    }

    /// How this command's models are prepared (no usage counts).
    pub fn prep(&self) -> Prep {
        Prep {
            engine: self.engine,
            uses: false,
            rotate: self.rotate_seats,
            split: false,
            rounds: true,
        }
    }

    /// The overrides as written.
    pub fn overrides(&self) -> Vec<String> {
        self.set.iter().map(|o| o.to_string()).collect()
    }
}

/// What the next progress bars are part of, shown before them (`level 2 of 4: lookahead:8`),
/// for a command that plays several runs in turn; `None` for a single run.
static STAGE: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Names the stage the next progress bars belong to (shown before each bar).
pub fn set_stage(stage: Option<String>) {
    if let Ok(mut s) = STAGE.lock() {
        *s = stage;
    }
}

/// Whether progress goes to the terminal: both stdout and stderr are terminals and not
/// --quiet.
fn shows_progress(quiet: bool) -> bool {
    use crate::diagnostic::{stderr_is_terminal, stdout_is_terminal};
    !quiet && stderr_is_terminal() && stdout_is_terminal()
}

/// A bar over `total` steps of a command's own (`factions searched`), only where progress
/// shows (both stdout and stderr terminals, not --quiet); its message names the current step.
pub fn steps_bar(total: u64, quiet: bool, what: &str) -> Option<indicatif::ProgressBar> {
    if !shows_progress(quiet) {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    let template = format!("{{wide_bar}} {{pos}}/{{len}} {what}  {{msg}}  {{elapsed}}");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    Some(bar)
}

/// A progress bar on stderr, only when both stdout and stderr are terminals and not --quiet;
/// it names the stage it belongs to ([`set_stage`]).
pub fn progress_bar(total: u64, quiet: bool) -> Option<indicatif::ProgressBar> {
    if !shows_progress(quiet) {
        return None;
    }
    let bar = indicatif::ProgressBar::new(total);
    let stage = STAGE.lock().ok().and_then(|s| s.clone());
    if let Some(stage) = stage {
        bar.set_prefix(format!("{stage}  "));
    }
    // The bar takes what is left of the terminal's width; counts and rate are whole numbers.
    let style = indicatif::ProgressStyle::with_template(
        "{prefix}{wide_bar} {human_pos}/{human_len} games  {rate}  eta {eta}",
    )
    .map(|st| {
        st.with_key(
            "rate",
            |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(
                    w,
                    "{}/s",
                    crate::report::thousands(state.per_sec().round() as u64)
                );
            },
        )
    })
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    Some(bar)
}

/// `v` as pretty JSON, the form every command prints and writes.
pub(crate) fn pretty_json<T: serde::Serialize + ?Sized>(v: &T) -> Result<String> {
    serde_json::to_string_pretty(v)
        .map_err(|e| crate::Error::Usage(format!("cannot encode JSON: {e}")))
}

/// Starts a command's report folder `dir` (see [`crate::output::begin_report`]) with its
/// JSON document, `NAME.json`.
pub(crate) fn begin_report_with(dir: &std::path::Path, name: &str, json: &str) -> Result<()> {
    crate::output::begin_report(dir)?;
    crate::output::write_atomic(&dir.join(format!("{name}.json")), json.as_bytes())
}

/// Prints a summary as JSON or as the table.
pub fn print_summary(summary: &crate::report::Summary, json: bool) -> Result<()> {
    if json {
        let mut text = pretty_json(summary)?;
        text.push('\n');
        out(&text)
    } else {
        out(&summary.table())
    }
}

/// Checks a report folder before any game is played (see [`crate::output::prepare_dir`]),
/// and the shard key its `tally.json` will be signed with, so that a bad key is refused now,
/// not after the games.
pub fn prepare_out(dir: &std::path::Path, force: bool) -> Result<()> {
    crate::report::ShardKey::from_env()?;
    crate::output::prepare_dir(dir, force)
}

/// The command line as typed, quoted where needed (for report.md), led by `vpsim` whatever
/// path the binary was started by (`target/release/vpsim`, `./vpsim`): a report says how to
/// reproduce it wherever vpsim is installed.
pub fn command_line() -> String {
    // `args_os`: a file name that is not UTF-8 is shown lossily, not a panic.
    let args = std::env::args_os().skip(1);
    std::iter::once("vpsim".to_string())
        .chain(args.map(|a| crate::error::shell_word(&a.to_string_lossy())))
        .collect::<Vec<_>>()
        .join(" ")
}

/// [`command_line`] as a command that runs again: with `--force` added when it wrote a
/// report folder (`--out`) without it, since the folder then holds this report.
pub fn reproduce_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args.iter().any(|a| a == "--out" || a.starts_with("--out="));
    let force = args.iter().any(|a| a == "--force");
    let line = command_line();
    if out && !force {
        format!("{line} --force")
    } else {
        line
    }
}

/// Writes the report folder (emptied of an earlier report by the caller): `summary.json`, `tally.json`, the Parquet tables, the charts
/// and `report.md`, each atomically. Stops at the first file an interruption or error
/// prevents, and says which files it kept.
pub fn write_outputs(
    dir: &std::path::Path,
    summary: &crate::report::Summary,
    tally: &crate::report::TallyFile,
    csv: bool,
    chart_size: crate::report::charts::Canvas,
) -> Result<()> {
    let enc = |v: serde_json::Result<String>| {
        v.map_err(|e| crate::Error::Usage(format!("cannot encode JSON: {e}")))
    };
    let result = (|| -> Result<()> {
        let interrupted = crate::signal::stopped;
        crate::output::write_atomic(
            &dir.join("tally.json"),
            enc(tally.to_json(crate::report::ShardKey::from_env()?))?.as_bytes(),
        )?;
        crate::output::write_atomic(
            &dir.join("summary.json"),
            enc(serde_json::to_string_pretty(summary))?.as_bytes(),
        )?;
        if interrupted() {
            return Err(crate::Error::Interrupted);
        }
        crate::report::tables::write_tables(dir, summary, &tally.info, &tally.tally, csv)?;
        if interrupted() {
            return Err(crate::Error::Interrupted);
        }
        let charts = crate::report::charts::write_charts(dir, summary, &tally.tally, chart_size)?;
        let mut names: Vec<String> = charts
            .iter()
            .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().to_string()))
            .collect();
        names.dedup();
        let md = crate::report::markdown::report(summary, &reproduce_line(), &names);
        write_report(dir, &md, &summary.scenario.title)
    })();
    result.map_err(|e| {
        // What the report had written is dropped with it, said once: in a write error's
        // message, else on a line of its own before the error.
        let names = crate::output::written(dir);
        let kept = format!(
            "the report was not put in place ({} complete file(s) dropped), and {} holds what it held before the run",
            names.len(),
            dir.display(),
        );
        match e {
            crate::Error::Write { what, source } => crate::Error::Write {
                what,
                source: std::io::Error::new(source.kind(), format!("{source}; {kept}")),
            },
            other => {
                crate::diagnostic::say(&kept);
                other
            }
        }
    })
}

/// The report folder of `--out`: DIR, or `reports/<scenario-name>-<command>/` for a bare `--out`.
pub fn command_out_dir(name: &str, o: &RunOpts, command: &str) -> Option<std::path::PathBuf> {
    o.out_dir(&format!("{name}-{command}"))
}

/// The subtitle of a sweep's, sensitivity run's or tune's chart: scenario, seed, games, overrides.
pub fn chart_subtitle(path: &std::path::Path, o: &RunOpts, per: &str) -> String {
    let name = path
        .file_stem()
        .map_or("scenario".to_string(), |s| s.to_string_lossy().to_string());
    crate::report::charts::subtitle_of(
        &name,
        o.seed,
        o.games,
        &format!(" {per}"),
        &o.overrides(),
        "no other overrides",
    )
}

/// `agents: ...` for the configured agents of `m` (see [`crate::report::agents_text`]).
pub fn agents_line(m: &crate::Model) -> String {
    let labels: Vec<String> = m.agents.iter().map(crate::model::Agent::label).collect();
    crate::report::agents_text(
        (m.factions.iter().zip(&labels)).map(|(f, a)| (f.name.as_str(), a.as_str())),
    )
}

/// Writes to stdout, terminal-safe ([`crate::diagnostic::terminal_safe`]); a closed pipe (`vpsim ... | head`) ends quietly.
pub fn out(text: &str) -> Result<()> {
    out_open(text).map(|_| ())
}

/// Writes to stdout and says whether it is still open: false once it is a closed pipe.
#[expect(
    clippy::disallowed_methods,
    reason = "the one writer of stdout's text, made terminal-safe here"
)]
pub fn out_open(text: &str) -> Result<bool> {
    use std::io::Write;
    let text = crate::diagnostic::terminal_safe(text);
    let mut o = std::io::stdout().lock();
    match o.write_all(text.as_bytes()).and_then(|_| o.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(source) => Err(crate::Error::Write {
            what: "standard output".into(),
            source,
        }),
        Ok(()) => Ok(true),
    }
}

/// Prints the model's compile warnings on stderr, one per line.
pub fn warn(m: &crate::Model) {
    for w in &m.warnings {
        crate::diagnostic::say(&format!("warning: {w}"));
    }
}
