//! `vpsim compare`: two variants on the same games, and whether they differ beyond noise.

mod report;
mod table;

use std::path::PathBuf;

use super::RunOpts;
use crate::compare::{Comparison, Plan, Variant};
use crate::error::{Error, Result};
use crate::overrides::{Override, parse_override};
use crate::stats::Tally;

/// Compare two scenario variants on the same seeds (common random numbers).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  vpsim compare scenarios/race_to_three.toml --a-set settings.p=0.3 --b-set settings.p=0.33
  vpsim compare scenarios/race_to_three.toml --b-set settings.q=0.35 --rotate-seats
  vpsim compare scenarios/race_to_three.toml --b-set settings.p=0.35 --games 1000000 \\
    --json
  vpsim compare scenarios/race_to_three.toml --b-set settings.q=0.41 --until-decided \\
    --games 4000000")]
pub struct Args {
    /// Variant A (TOML).
    pub a: PathBuf,
    /// Variant B (default: the same file, changed with --b-set).
    pub b: Option<PathBuf>,
    /// Run options (--set applies to both variants).
    #[command(flatten)]
    pub opts: RunOpts,
    /// Override a value in variant A only (repeatable).
    #[arg(long = "a-set", value_name = "PATH=VALUE", value_parser = parse_override)]
    pub a_set: Vec<Override>,
    /// Override a value in variant B only (repeatable).
    #[arg(long = "b-set", value_name = "PATH=VALUE", value_parser = parse_override)]
    pub b_set: Vec<Override>,
    /// Choose variant A's agents (as --agent, A only; repeatable).
    #[arg(long = "a-agent", value_name = "[FACTION=]POLICY", value_parser = crate::overrides::parse_agent)]
    pub a_agent: Vec<Override>,
    /// Choose variant B's agents (as --agent, B only; repeatable).
    #[arg(long = "b-agent", value_name = "[FACTION=]POLICY", value_parser = crate::overrides::parse_agent)]
    pub b_agent: Vec<Override>,
    /// Stop as soon as every faction's difference is decided (different, or within ±delta),
    /// or at --games.
    #[arg(long)]
    pub until_decided: bool,
    /// Family-wise error rate of the comparison.
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.05, value_parser = parse_unit)]
    pub alpha: f64,
    /// The smallest win-rate difference that matters (for "no difference" verdicts).
    #[arg(long, allow_negative_numbers = true, default_value_t = 0.01, value_parser = parse_unit)]
    pub delta: f64,
}

pub(crate) fn parse_unit(s: &str) -> std::result::Result<f64, String> {
    let x: f64 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if x > 0.0 && x < 1.0 {
        Ok(x)
    } else {
        Err(format!("{x} must be between 0 and 1"))
    }
}

/// The chart's subtitle: the games played (fewer than `--games` when `--until-decided`
/// stopped early), the overrides both variants share and each one's own.
fn subtitle(a: &Args, games: u64) -> String {
    let name =
        a.a.file_stem()
            .map_or("scenario".to_string(), |s| s.to_string_lossy().to_string());
    let own = |tag: &str, sets: &[&Override]| -> Option<String> {
        let list: Vec<String> = sets.iter().map(|o| o.to_string()).collect();
        (!list.is_empty()).then(|| format!("{tag}: {}", list.join(" ")))
    };
    let a_only: Vec<&Override> = a.a_agent.iter().chain(&a.a_set).collect();
    let b_only: Vec<&Override> = a.b_agent.iter().chain(&a.b_set).collect();
    let overrides: Vec<String> = (a.opts.overrides().into_iter())
        .chain(own("A", &a_only))
        .chain(own("B", &b_only))
        .collect();
    crate::report::charts::subtitle_of(
        &name,
        a.opts.seed,
        games,
        " per variant",
        &overrides,
        "no overrides",
    )
}

/// Runs `vpsim compare`.
pub fn run(a: Args) -> Result<()> {
    let o = &a.opts;
    o.check()?;
    let (ma, mb) = load_variants(&a)?;
    let out = o.out_dir(&format!("{}-compare", ma.name));
    if let Some(dir) = &out {
        super::prepare_out(dir, o.force)?;
    }
    let bar = super::progress_bar(o.games, o.quiet);
    let tick = |n: u64| {
        if let Some(b) = &bar {
            b.inc(n)
        }
    };
    let plan = Plan {
        seed: o.seed,
        games: o.games,
        alpha: a.alpha,
        delta: a.delta,
        until_decided: a.until_decided,
        threads: o.threads.map(|t| t as usize),
        confidence: crate::report::CONFIDENCE,
    };
    let played = crate::compare::play(&ma, &mb, &plan, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let played = played?;
    let variants = (
        Variant::of(&ma, super::agents_line(&ma)),
        Variant::of(&mb, super::agents_line(&mb)),
    );
    let cmp = Comparison::new(&ma, variants, &plan, &played);
    let json = super::pretty_json(&cmp)?;
    let labels: Vec<String> = ma.factions.iter().map(|f| f.label.clone()).collect();
    let seats_unmoved = ma.seats_unmoved && mb.seats_unmoved;
    let notes = table::notes(&cmp, &labels, seats_unmoved);
    let text = table::table(&cmp, &labels, &notes);
    if let Some(dir) = &out {
        super::begin_report_with(dir, "compare", &json)?;
        // Each variant's own report beside the comparison.
        for (sub, m, t) in [("a", &ma, &played.tally.a), ("b", &mb, &played.tally.b)] {
            write_variant(&dir.join(sub), m, t, o)?;
        }
        let level = table::level_words(&cmp);
        let page = report::Page {
            title: &ma.title,
            labels: &labels,
            asked: o.games,
            level: &level,
            notes: &notes,
            sub: &subtitle(&a, cmp.games),
            canvas: o.canvas(),
        };
        report::write(dir, &cmp, &page)?;
    }
    if o.json {
        return super::out(&format!("{json}\n"));
    }
    super::out(&text)
}

/// Variants A and B, refused unless they have the same factions: `--set` applies to both,
/// `--a-set`/`--a-agent` to A, `--b-set`/`--b-agent` to B (A's file unless B names one).
fn load_variants(a: &Args) -> Result<(crate::Model, crate::Model)> {
    let o = &a.opts;
    let b_path = a.b.clone().unwrap_or_else(|| a.a.clone());
    let sets_a: Vec<Override> = (o.set.iter().chain(&a.a_agent).chain(&a.a_set))
        .cloned()
        .collect();
    let sets_b: Vec<Override> = (o.set.iter().chain(&a.b_agent).chain(&a.b_set))
        .cloned()
        .collect();
    let ma = super::load(&a.a, &sets_a, o.prep())?;
    let mb = super::load(&b_path, &sets_b, o.prep())?;
    let names: Vec<String> = ma.factions.iter().map(|f| f.name.clone()).collect();
    let names_b: Vec<String> = mb.factions.iter().map(|f| f.name.clone()).collect();
    if names != names_b {
        return Err(Error::Usage(format!(
            "the variants have different factions ({} vs {}): compare variants of one game",
            names.join(", "),
            names_b.join(", ")
        )));
    }
    Ok((ma, mb))
}

/// One variant's own report folder, from its side of the paired tally.
fn write_variant(dir: &std::path::Path, m: &crate::Model, t: &Tally, o: &RunOpts) -> Result<()> {
    let info = crate::report::RunInfo::of(m, o.seed);
    let summary = crate::report::Summary::of(&info, 0, t, std::time::Duration::ZERO, 1);
    let file = crate::report::TallyFile {
        vpsim_version: env!("CARGO_PKG_VERSION").into(),
        info,
        shard: None,
        total_games: t.games,
        first_game: 0,
        elapsed_s: 0.0,
        threads: 1,
        tally: t.clone(),
        command: Vec::new(),
    };
    super::write_outputs(dir, &summary, &file, o.csv, o.canvas())
}
