//! `vpsim validate`: check a scenario and summarise the compiled model.

use crate::ids::VarId;
use std::fmt::Write as _;
use std::path::PathBuf;

use crate::error::Result;
use crate::expr::Stmt;
use crate::model::{Model, Moment, Policy, Schedule, Timing};

/// Check a scenario file and print a summary of the compiled model.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Examples:\n  vpsim validate scenarios/race_to_three.toml\n  \
    vpsim validate scenarios/race_to_three.toml --agent First=mcts:200"
)]
pub struct Args {
    /// The scenario file (TOML).
    pub scenario: PathBuf,
    /// Override a scenario value, e.g. --set settings.goal=14 (repeatable).
    #[arg(long = "set", value_name = "PATH=VALUE", value_parser = crate::overrides::parse_override)]
    pub set: Vec<crate::overrides::Override>,
    /// Check the scenario with these agents, as `run --agent` would play it (repeatable,
    /// applied before --set): a searching agent (lookahead, mcts) is refused here, as it
    /// would be by `run`, where a value hidden from it has no prior.
    #[arg(long = "agent", value_name = "[FACTION=]POLICY", value_parser = crate::overrides::parse_agent)]
    pub agent: Vec<crate::overrides::Override>,
}

/// Runs `vpsim validate`.
pub fn run(a: Args) -> Result<()> {
    let sets: Vec<crate::overrides::Override> = a.agent.iter().chain(&a.set).cloned().collect();
    let mut model = crate::scenario::load_with(&a.scenario, &sets)?;
    super::warn(&model);
    // The balance assertions `vpsim check` would judge: their syntax and names.
    let asserts: Vec<(String, String, String)> = model
        .asserts
        .iter()
        .map(|(n, e, loc)| (n.clone(), e.clone(), loc.to_string()))
        .collect();
    let info = crate::report::RunInfo::of(&model, 1);
    super::check::check_names(&model, &info, &asserts)?;
    let mut text = describe(&model);
    // What the native engine makes of it (and how long that takes).
    let compiled = crate::native::compile_model(&mut model);
    if crate::signal::stopped() {
        return Err(crate::error::Error::Interrupted);
    }
    match compiled {
        Ok(r) => {
            let _ = writeln!(
                text,
                "native engine: {} functions (formulas, statement runs, option scans, end checks, rounds) \
                 compiled to machine code in {:.1} ms",
                r.functions,
                r.elapsed.as_secs_f64() * 1e3
            );
            match (&model.round_in_engine, model.round_fn.is_some()) {
                (Some(why), _) => {
                    let _ = writeln!(
                        text,
                        "  rounds are played by the engine: {why}; their statement runs are still machine code"
                    );
                }
                (None, true) => {
                    let _ = writeln!(text, "  rounds are played as machine code");
                }
                (None, false) => {}
            }
            let left = crate::native::runs_left_to_the_engine(&model);
            if left > 0 {
                let _ = writeln!(
                    text,
                    "  {left} statement runs past the compile budget run in the engine (the same results, more slowly)"
                );
            }
        }
        Err(why) => {
            let _ = writeln!(text, "native engine: not available here ({why})");
        }
    }
    let source = crate::scenario::read_text(&a.scenario)?;
    let edited = crate::overrides::apply(&source, &sets)?;
    let knobs = crate::overrides::tweakables(&edited);
    if !knobs.is_empty() {
        let _ = writeln!(
            text,
            "tweakable with --set PATH=VALUE ({} values, current values shown):",
            knobs.len()
        );
        for k in knobs {
            let note = if k.formula {
                "   (a formula: a number given with --set replaces it)"
            } else {
                ""
            };
            let _ = writeln!(text, "  {}={}{note}", k.path, k.value);
        }
    }
    super::out(&text)
}

/// What each faction cannot see (what a searching agent's playouts redraw): hidden
/// variables with their priors, and the cards of each deck it cannot see.
fn hidden_lines(m: &Model, s: &mut String) {
    let _ = writeln!(
        s,
        "hidden from each faction (searching agents redraw it in their playouts):"
    );
    let prior = |v: &crate::model::Var| match &v.prior_text {
        Some(p) => format!("prior {p}"),
        None => "no prior".to_string(),
    };
    for (f, faction) in m.factions.iter().enumerate() {
        let mut parts: Vec<String> = Vec::new();
        for &vi in &m.hidden {
            let v = &m.vars[VarId(vi)];
            match v.visible {
                crate::model::Visible::None => {
                    parts.push(format!("{} ({})", v.name, prior(v)));
                }
                crate::model::Visible::Owner if m.nfactions() > 1 => {
                    let others: Vec<&str> = (m.factions.iter().enumerate())
                        .filter(|&(g, _)| g != f)
                        .map(|(_, x)| x.name.as_str())
                        .collect();
                    parts.push(format!("{}'s {} ({})", others.join("/"), v.name, prior(v)));
                }
                _ => {}
            }
        }
        for (d, (name, _)) in m.decks.iter().enumerate() {
            parts.push(if m.deck_public[d] {
                format!("the order of {name}")
            } else if m.tables.passes {
                format!(
                    "the order of {name} and the others' hands of it, bar the cards it passed on"
                )
            } else {
                format!("the order of {name} and the others' hands of it")
            });
        }
        if parts.is_empty() {
            parts.push("nothing".into());
        }
        let _ = writeln!(s, "  {}: {}", faction.name, parts.join(", "));
    }
    if m.menu_reads_unseen {
        let _ = writeln!(
            s,
            "  a menu reads a hidden value (an action's when, target_when, cost or weight): searches keep only the redraws that list the options the faction was shown"
        );
    }
}

/// A plain-text summary of a compiled model.
pub fn describe(m: &Model) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}: OK ({}, hash {})", m.file, m.title, m.hash);
    let _ = writeln!(
        s,
        "rounds: {} (ages: {})",
        m.rounds,
        m.age_of_round.iter().skip(1).max().copied().unwrap_or(1)
    );
    faction_lines(m, &mut s);
    state_lines(m, &mut s);
    hidden_lines(m, &mut s);
    let phases: Vec<String> = m
        .phases_in_file_order()
        .map(|p| {
            let at_end = m.end_phases.iter().any(|q| q.place == p.place);
            let kind = match (p.faction, at_end) {
                (true, true) => " (each faction, once at the game's end)",
                (false, true) => " (once at the game's end)",
                (true, false) => " (each faction)",
                (false, false) => "",
            };
            format!("{}{kind}", p.name)
        })
        .collect();
    let _ = writeln!(s, "phases: {}", phases.join(", "));
    let actions: Vec<String> = (m.actions.iter())
        .map(|a| match a.auto {
            Some(_) => format!("{} (automatic)", a.name),
            None => a.name.clone(),
        })
        .collect();
    let _ = writeln!(s, "actions{}", listed(&actions));
    statement_lines(m, &mut s);
    let events: Vec<String> = m.events.iter().map(|e| e.name.clone()).collect();
    let _ = writeln!(s, "events{}", listed(&events));
    reason_lines(m, &mut s);
    let chain: Vec<String> = (0..m.ranking.tiebreak.len())
        .map(|k| m.ranking.link_name(k))
        .collect();
    // "by score; ties shared" when no tie-break follows the score (not "then ;").
    let then: String = chain.iter().map(|c| format!(", then {c}")).collect();
    let shared = match (m.ranking.shared, chain.is_empty()) {
        (false, _) => "",
        (true, true) => "; ties shared",
        (true, false) => "; remaining ties shared",
    };
    let _ = writeln!(s, "ranking: by score{then}{shared}");
    let _ = writeln!(s, "seats: {}", seat_words(&m.seat_uses()));
    s
}

/// Each faction with its label, side, whether it plays, and its agent.
fn faction_lines(m: &Model, s: &mut String) {
    let _ = writeln!(s, "factions ({}):", m.nfactions());
    for (f, a) in m.factions.iter().zip(&m.agents) {
        let policy = match a.policy {
            Policy::Weighted => "weighted",
            Policy::Greedy => "greedy",
            Policy::Priority => "priority",
        };
        let side = (f.side.as_deref())
            .map(|x| format!(", side {x}"))
            .unwrap_or_default();
        let player = if f.player { "" } else { ", non-player" };
        // The label only when the file gives one that differs from the name.
        let label = match f.label == f.name {
            true => String::new(),
            false => format!("label {}", f.label),
        };
        let about = format!("{label}{side}{player}");
        let about = about.trim_start_matches(", ");
        let about = match about.is_empty() {
            true => String::new(),
            false => format!(" ({about})"),
        };
        let _ = writeln!(s, "  {}{about}, agent {policy}", f.name);
    }
}

/// The state: each variable with its scope, set and bounds, and each deck's cards.
fn state_lines(m: &Model, s: &mut String) {
    let _ = writeln!(
        s,
        "state: {} in {}",
        count(m.vars.len() as u64, "variable"),
        count(m.slots as u64, "slot")
    );
    for (vi, v) in m.vars.iter().enumerate() {
        let scope = if v.faction { "faction" } else { "global" };
        let over = (v.set)
            .map(|i| format!(" over {}", m.sets[i as usize].0))
            .unwrap_or_default();
        let (lo, hi) = (m.tables.var_min[vi], m.tables.var_max[vi]);
        let bounds = match (lo, hi) {
            (i64::MIN, i64::MAX) => String::new(),
            (i64::MIN, h) => format!(", max {h}"),
            (l, i64::MAX) => format!(", min {l}"),
            (l, h) => format!(", {l}..={h}"),
        };
        let _ = writeln!(s, "  {} ({scope}{over}{bounds})", v.name);
    }
    for (d, cards) in &m.decks {
        let _ = writeln!(s, "deck {d}: {} cards", cards.len());
    }
}

/// Each end reason: when it is checked (or what ends the game by it) and its result.
fn reason_lines(m: &Model, s: &mut String) {
    let _ = writeln!(s, "end reasons:");
    for (i, r) in m.reasons.iter().enumerate() {
        let when: Vec<&str> = (m.checks.iter())
            .filter(|c| c.reason.index() == i)
            .map(|c| timing_words(c.timing))
            .collect();
        let how = match when.is_empty() {
            // The last round, or `end NAME` statements: as run's end-reason table names it.
            true => r.mechanism.clone(),
            false => when.join(", "),
        };
        let result = match r.result {
            crate::model::ReasonResult::Rank => "",
            crate::model::ReasonResult::Draw => "; a draw",
            crate::model::ReasonResult::Nobody => "; nobody wins",
        };
        let _ = writeln!(s, "  {} ({how}{result})", r.name);
    }
}

/// When an end condition is checked, in words.
fn timing_words(t: Timing) -> &'static str {
    match t {
        Timing::At(Moment::Immediate) => "checked immediately",
        Timing::At(Moment::TurnStart) => "checked at turn start",
        Timing::At(Moment::RoundStart) => "checked at round start",
        Timing::At(Moment::RoundEnd) => "checked at round end",
        Timing::Then(Schedule::FinalTurns) => "checked at turn end, then one final turn each",
        Timing::Then(Schedule::FinalRound) => "checked at turn end, then the round is finished",
    }
}

/// What `--rotate-seats` can move: `rotating them changes no game (...)`, or where the
/// seating is read.
pub fn seat_words(uses: &[crate::model::SeatUse]) -> String {
    if uses.is_empty() {
        return format!(
            "rotating them changes no game ({})",
            crate::report::seats::UNMOVED
        );
    }
    let parts: Vec<String> = uses.iter().map(ToString::to_string).collect();
    format!("rotating them can change games: {}", parts.join("; "))
}

/// ` (N): a, b, c`, or `: none` for an empty list (not a trailing space).
fn listed(items: &[String]) -> String {
    if items.is_empty() {
        ": none".into()
    } else {
        format!(" ({}): {}", items.len(), items.join(", "))
    }
}

/// `1 variable`, `2 variables`.
fn count(n: u64, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The statements `validate` names: each deck whose hands are passed on, each `regions`
/// measured, and how many writes land at positions computed while playing (each checked
/// against its set when it runs).
fn statement_lines(m: &Model, s: &mut String) {
    let (mut regions, mut computed, mut passed) = (Vec::new(), 0usize, Vec::new());
    let name = |v: u16| m.vars[VarId(v)].name.as_str();
    for st in m.statements() {
        st.visit(&mut |st| match st {
            Stmt::Regions(r) => {
                let label = r
                    .label
                    .map_or(String::new(), |l| format!(", label {}", name(l.var)));
                let line = format!("{} into {}{label}", name(r.key.var), name(r.size.var));
                if !regions.contains(&line) {
                    regions.push(line);
                }
            }
            Stmt::AssignAt(_) => computed += 1,
            Stmt::Pass { deck, dir } => {
                let way = if *dir > 0 { "left" } else { "right" };
                let line = format!("{} {way}", m.decks[*deck as usize].0);
                if !passed.contains(&line) {
                    passed.push(line);
                }
            }
            _ => {}
        });
    }
    for p in passed {
        let _ = writeln!(s, "hands passed: {p} (each to the next faction still in)");
    }
    for r in regions {
        let _ = writeln!(s, "regions: {r} (cells of one value joined side to side)");
    }
    if computed > 0 {
        let _ = writeln!(
            s,
            "writes at computed positions: {computed} (each checked against its set when it runs)"
        );
    }
}
