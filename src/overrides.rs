//! `--set PATH=VALUE`: changing any scenario value from the command line.
//!
//! Owns the path language and the edit. A path walks the scenario's tables; in an array of
//! tables (`faction`, `var`, `action`, `phase`, `event`, `end`, `deck`, `set`) the next
//! segment picks the entry by its `name`: `settings.goal`, `faction.NAME.init.skill`,
//! `action.expand.weight`, `var.vp.max`, `ranking.tiebreak`. The value is TOML (`14`, `0.5`,
//! `true`, `[7, 4, 2]`, `"text"`); anything that is not valid TOML is taken as a string, so
//! formulas need no quotes: `--set ranking.score=vp*2`. The edit keeps the file's layout
//! (toml_edit), and the edited text then goes through the same validation as the file.

use std::fmt;

use toml_edit::{DocumentMut, Item, Table, Value};

use crate::error::{Error, Result};
use crate::expr::compile::edit_distance;

/// One `--set PATH=VALUE`, or one `--agent [FACTION=]POLICY` (path [`AGENT`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Override {
    /// Dotted path ([`AGENT`] for an `--agent`).
    pub path: String,
    /// The value as written.
    pub value: String,
}

/// The path of an `--agent` choice among the overrides: they are applied in the order
/// given, so `--agent lookahead --set agent.rollouts=64` sets the count after the policy.
pub const AGENT: &str = "--agent";

impl Override {
    /// The override as the flag that gave it: `--agent A=mcts:10` or `--set PATH=VALUE`.
    pub fn flag(&self) -> String {
        if self.path == AGENT {
            self.to_string()
        } else {
            format!("--set {self}")
        }
    }
}

impl fmt::Display for Override {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path == AGENT {
            return write!(f, "{AGENT} {}", self.value);
        }
        write!(f, "{}={}", self.path, self.value)
    }
}

/// The policies `--agent` takes.
const POLICIES: [&str; 5] = ["weighted", "greedy", "priority", "lookahead", "mcts"];

/// Parses `--agent [FACTION=]POLICY` (the clap value parser): POLICY is `weighted`,
/// `greedy`, `priority`, `lookahead`, `lookahead:N` (N playouts an option), `mcts` or
/// `mcts:N` (N iterations a decision).
pub fn parse_agent(s: &str) -> std::result::Result<Override, String> {
    let s = s.trim();
    agent_parts(s)?;
    Ok(Override {
        path: AGENT.to_string(),
        value: s.to_string(),
    })
}

/// An agent choice's faction (none: every faction), policy and playout count.
type AgentParts<'a> = (Option<&'a str>, (&'a str, Option<u32>));

fn agent_parts(s: &str) -> std::result::Result<AgentParts<'_>, String> {
    let (faction, policy) = match s.split_once('=') {
        Some((f, p)) => (Some(f.trim()), p.trim()),
        None => (None, s),
    };
    if faction.is_some_and(str::is_empty) {
        return Err(format!("`{s}`: give FACTION=POLICY or POLICY"));
    }
    let (name, count) = match policy.split_once(':') {
        Some((p, n)) => (p.trim(), Some(n.trim())),
        None => (policy, None),
    };
    if !POLICIES.contains(&name) {
        return Err(format!(
            "`{policy}` is not a policy: give one of {}, or lookahead:N or mcts:N",
            POLICIES.join(", ")
        ));
    }
    let rollouts = match count {
        None => None,
        Some(_) if name != "lookahead" && name != "mcts" => {
            return Err(format!(
                "`{policy}`: only lookahead and mcts take a count (lookahead:N playouts an option, mcts:N iterations a decision)"
            ));
        }
        Some(n) => {
            let max = if name == "mcts" { 1_000_000 } else { 100_000 };
            // Digits, in groups joined by single underscores (`1_000`); no sign.
            let digits = !n.is_empty()
                && n.split('_')
                    .all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()));
            match n.replace('_', "").parse::<u32>() {
                Ok(k) if digits && (1..=max).contains(&k) => Some(k),
                _ => {
                    return Err(format!(
                        "`{policy}`: the count must be a whole number from 1 to {max}"
                    ));
                }
            }
        }
    };
    Ok((faction, (name, rollouts)))
}

/// Applies one `--agent` choice: every faction (the default `[agent]` and each faction's
/// own), or one faction (its own agent, started from a copy of the default when it has
/// none). The policy is set, `rollouts` with `lookahead:N` and `iterations` with `mcts:N`;
/// the other search's settings are dropped (mcts takes no `rollouts`, lookahead no
/// `iterations` or `c`).
fn set_agent(doc: &mut DocumentMut, o: &Override) -> Result<()> {
    let (faction, (policy, count)) = agent_parts(&o.value).map_err(Error::Usage)?;
    let choose = |t: &mut dyn toml_edit::TableLike| {
        t.insert("policy", Item::Value(Value::from(policy)));
        let dropped: &[&str] = match policy {
            "mcts" => &["rollouts"],
            "lookahead" => &["iterations", "c"],
            _ => &[],
        };
        for k in dropped {
            t.remove(k);
        }
        if let Some(n) = count {
            let key = if policy == "mcts" {
                "iterations"
            } else {
                "rollouts"
            };
            t.insert(key, Item::Value(Value::from(n as i64)));
        }
    };
    let default = doc.get("agent").and_then(Item::as_table_like).map(|t| {
        let mut copy = toml_edit::InlineTable::new();
        for (k, v) in t.iter() {
            if let Some(v) = v.as_value() {
                copy.insert(k, v.clone());
            }
        }
        copy
    });
    let names: Vec<String> = match doc.get("faction") {
        Some(Item::ArrayOfTables(a)) => a
            .iter()
            .filter_map(|t| t.get("name").and_then(|n| n.as_str()).map(str::to_string))
            .collect(),
        _ => Vec::new(),
    };
    if let Some(name) = faction
        && !names.iter().any(|n| n == name)
    {
        return Err(Error::Usage(format!(
            "{o}: there is no faction `{name}`{}; the factions are {}",
            crate::expr::compile::suggest(name, names.iter().map(String::as_str)),
            names.join(", ")
        )));
    }
    if faction.is_none() {
        if doc.get("agent").is_none() {
            doc.insert("agent", Item::Table(Table::new()));
        }
        match doc.get_mut("agent").and_then(Item::as_table_like_mut) {
            Some(t) => choose(t),
            None => return Err(Error::Usage(format!("{o}: `agent` is not a table"))),
        }
    }
    if let Some(Item::ArrayOfTables(a)) = doc.get_mut("faction") {
        for t in a.iter_mut() {
            let this = t.get("name").and_then(|n| n.as_str()).map(str::to_string);
            let picked = match faction {
                Some(name) => this.as_deref() == Some(name),
                None => t.contains_key("agent"),
            };
            if !picked {
                continue;
            }
            if !t.contains_key("agent") {
                let start = default.clone().unwrap_or_default();
                t.insert("agent", Item::Value(Value::InlineTable(start)));
            }
            match t.get_mut("agent").and_then(Item::as_table_like_mut) {
                Some(agent) => choose(agent),
                None => {
                    return Err(Error::Usage(format!(
                        "{o}: the faction's `agent` is not a table"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Parses `PATH=VALUE` (the clap value parser of `--set`).
pub fn parse_override(s: &str) -> std::result::Result<Override, String> {
    // One line of plain text: a line break or control character would add lines to every
    // report and message that repeats the override.
    if crate::diagnostic::not_one_line(s.trim()).is_some() {
        return Err(format!(
            "{}: a --set is one line of text: remove the line break or control character",
            s.escape_debug()
        ));
    }
    let (path, value) = s
        .split_once('=')
        .ok_or_else(|| format!("`{s}` is not PATH=VALUE (for example settings.goal=14)"))?;
    let path = path.trim();
    if path.is_empty() || path.split('.').any(|p| p.trim().is_empty()) {
        return Err(format!(
            "`{path}` is not a path: use dotted names such as settings.goal"
        ));
    }
    Ok(Override {
        path: path.to_string(),
        value: value.trim().to_string(),
    })
}

fn toml_value(text: &str) -> Value {
    match format!("v = {text}").parse::<DocumentMut>() {
        Ok(doc) => match doc.get("v").and_then(|i| i.as_value()) {
            Some(v) => {
                let mut v = v.clone();
                v.decor_mut().clear();
                v
            }
            None => Value::from(text),
        },
        Err(_) => Value::from(text),
    }
}

/// Walks a scenario document, calling `f` with the `--set` path of every value: tables by
/// key, arrays of tables by each entry's `name`, inline tables by key and as a whole.
fn walk(table: &Table, prefix: &str, f: &mut dyn FnMut(&str, Option<&Value>)) {
    for (k, item) in table.iter() {
        let p = if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        };
        match item {
            Item::Table(t) => walk(t, &p, f),
            Item::ArrayOfTables(a) => {
                for t in a.iter() {
                    if let Some(name) = t.get("name").and_then(|n| n.as_str()) {
                        walk(t, &format!("{p}.{name}"), f);
                    }
                }
            }
            Item::Value(v @ Value::InlineTable(t)) => {
                for (k2, v2) in t.iter() {
                    f(&format!("{p}.{k2}"), Some(v2));
                }
                f(&p, Some(v));
            }
            Item::Value(v) => f(&p, Some(v)),
            _ => f(&p, None),
        }
    }
}

/// Every path that names an existing value, for "did you mean" hints.
fn leaf_paths(table: &Table, out: &mut Vec<String>) {
    walk(table, "", &mut |p, _| out.push(p.to_string()));
}

/// Whether a path names a quantity (a number the rules compute with) rather than a
/// condition or a statement: only those are listed when the file writes a formula there.
fn quantity_path(p: &str) -> bool {
    const PARENTS: [&str; 4] = [".init.", ".settings.", ".cost.", ".mix."];
    const KEYS: [&str; 12] = [
        "weight",
        "value",
        "probability",
        "actions",
        "noise",
        "rollouts",
        "iterations",
        "horizon",
        "min",
        "max",
        "init",
        "rounds",
    ];
    let last = p.rsplit('.').next().unwrap_or(p);
    p.starts_with("settings.") || PARENTS.iter().any(|q| p.contains(q)) || KEYS.contains(&last)
}

/// One value a designer can tweak with `--set` (and so sweep, tune and perturb).
#[derive(Debug, Clone, PartialEq)]
pub struct Tweakable {
    /// The path `--set` takes.
    pub path: String,
    /// The value as written (a formula without its quotes).
    pub value: String,
    /// Whether the file writes a formula there, which a number given with `--set` replaces.
    pub formula: bool,
}

/// Every value a designer can tweak with `--set`, with its current value as written:
/// numbers and true/false anywhere in the rules (settings, faction parameters, action
/// weights, variable bounds, rounds), and formulas where a number goes (`init = { chance =
/// "50 + edge" }`), in file order. Worked examples and assertions are tests of the rules,
/// not rules, and are left out.
pub fn tweakables(text: &str) -> Vec<Tweakable> {
    let mut out = Vec::new();
    if let Ok(doc) = text.parse::<DocumentMut>() {
        walk(doc.as_table(), "", &mut |p, v| {
            let test = p.starts_with("example.") || p.starts_with("assert.");
            let number = |s: &str| s.trim().parse::<f64>().is_ok_and(f64::is_finite);
            let mut push = |value: String, formula: bool| {
                out.push(Tweakable {
                    path: p.to_string(),
                    value,
                    formula,
                })
            };
            match v {
                Some(v @ (Value::Integer(_) | Value::Float(_) | Value::Boolean(_))) if !test => {
                    push(v.clone().decorated("", "").to_string(), false);
                }
                Some(Value::String(s)) if !test && number(s.value()) => {
                    push(s.value().trim().to_string(), false);
                }
                Some(Value::String(s)) if !test && quantity_path(p) => {
                    push(s.value().trim().to_string(), true);
                }
                _ => {}
            }
        });
        // A lookahead agent's playouts are tweakable even when the file leaves the default.
        let mut agents: Vec<(String, &dyn toml_edit::TableLike)> = Vec::new();
        if let Some(t) = doc.get("agent").and_then(Item::as_table_like) {
            agents.push(("agent".into(), t));
        }
        if let Some(Item::ArrayOfTables(a)) = doc.get("faction") {
            for f in a.iter() {
                let name = f.get("name").and_then(|n| n.as_str()).unwrap_or("?");
                if let Some(t) = f.get("agent").and_then(Item::as_table_like) {
                    agents.push((format!("faction.{name}.agent"), t));
                }
            }
        }
        for (path, t) in agents {
            let policy = t.get("policy").and_then(|p| p.as_str());
            if policy == Some("lookahead") && !t.contains_key("rollouts") {
                out.push(Tweakable {
                    path: format!("{path}.rollouts"),
                    value: "32".into(),
                    formula: false,
                });
            }
            if policy == Some("mcts") && !t.contains_key("iterations") {
                out.push(Tweakable {
                    path: format!("{path}.iterations"),
                    value: "1000".into(),
                    formula: false,
                });
            }
        }
    }
    out
}

fn unknown(doc: &DocumentMut, o: &Override) -> Error {
    let mut paths = Vec::new();
    leaf_paths(doc.as_table(), &mut paths);
    paths.sort_by_key(|p| (edit_distance(&o.path, p), p.clone()));
    let near: Vec<&str> = paths.iter().take(3).map(|s| s.as_str()).collect();
    Error::Usage(format!(
        "--set {o}: `{}` is not a value in this scenario; nearest valid paths: {}",
        o.path,
        near.join(", ")
    ))
}

fn set_one(doc: &mut DocumentMut, o: &Override) -> Result<()> {
    if o.path == AGENT {
        return set_agent(doc, o);
    }
    let parts: Vec<&str> = o.path.split('.').map(str::trim).collect();
    let (last, walk) = parts.split_last().expect("paths are non-empty");
    let mut table: &mut Table = doc.as_table_mut();
    let mut i = 0;
    while i < walk.len() {
        let key = walk[i];
        let is_array = matches!(table.get(key), Some(Item::ArrayOfTables(_)));
        if is_array {
            let name = *walk.get(i + 1).unwrap_or(last);
            if i + 1 >= walk.len() {
                return Err(Error::Usage(format!(
                    "--set {o}: `{key}` entries are picked by name: {key}.NAME.KEY"
                )));
            }
            let Some(Item::ArrayOfTables(arr)) = table.get_mut(key) else {
                unreachable!("checked above")
            };
            let found = arr
                .iter_mut()
                .find(|t| t.get("name").and_then(|n| n.as_str()) == Some(name));
            match found {
                Some(t) => table = t,
                None => return Err(unknown_entry(o, key, name)),
            }
            i += 2;
            continue;
        }
        if table.get(key).is_none() && CREATABLE.contains(&key) {
            // A faction's `init`, `settings` or `agent`, an action's `cost`: created on first
            // use (a missing `[settings]` is refused below, as any new setting is).
            table.insert(
                key,
                Item::Value(Value::InlineTable(toml_edit::InlineTable::new())),
            );
        }
        match table.get_mut(key) {
            Some(Item::Table(t)) => table = t,
            Some(Item::Value(Value::InlineTable(t))) if i + 1 == walk.len() => {
                // `[settings]` takes no new key; a faction's own `settings` may.
                if FREE_MAPS.contains(&key) && i == 0 && !t.contains_key(last) {
                    return Err(unknown_key(o));
                }
                // An inline table such as `init = { skill = 3 }`: set or add its key.
                let mut v = toml_value(&o.value);
                if let Some(old) = t.get(last) {
                    *v.decor_mut() = old.decor().clone();
                }
                t.insert(*last, v);
                return Ok(());
            }
            _ => {
                return Err(Error::Usage(format!(
                    "--set {o}: `{}` is not a table of this scenario",
                    walk[..=i].join(".")
                )));
            }
        }
        i += 1;
    }
    if table.get(last).is_none()
        && walk.last().is_some_and(|k| FREE_MAPS.contains(k))
        && walk.len() == 1
    {
        // `settings` is a free map: a key it does not have is a typo, not a new setting.
        return Err(unknown_key(o));
    }
    let mut v = toml_value(&o.value);
    if let Some(old) = table.get(last).and_then(|i| i.as_value()) {
        *v.decor_mut() = old.decor().clone();
    }
    table.insert(last, Item::Value(v));
    Ok(())
}

/// Tables that may be created by `--set` when the scenario leaves them out.
const CREATABLE: [&str; 4] = ["init", "cost", "agent", "settings"];
/// Top-level tables whose keys are the author's names, not a schema.
const FREE_MAPS: [&str; 1] = ["settings"];

fn unknown_key(o: &Override) -> Error {
    Error::Usage(format!(
        "--set {o}: `{}` is not a value in this scenario",
        o.path
    ))
}

fn unknown_entry(o: &Override, key: &str, name: &str) -> Error {
    Error::Usage(format!("--set {o}: there is no [[{key}]] named `{name}`"))
}

/// Applies overrides to scenario text, checking each path exists (or its table does, for a
/// key the file leaves at its default).
pub fn apply(text: &str, overrides: &[Override]) -> Result<String> {
    if overrides.is_empty() {
        return Ok(text.to_string());
    }
    let Ok(mut doc) = text.parse::<DocumentMut>() else {
        // Malformed TOML: the scenario parser reports it with its location.
        return Ok(text.to_string());
    };
    let original = doc.clone();
    for o in overrides {
        set_one(&mut doc, o).map_err(|e| match e {
            Error::Usage(m)
                if m.contains("is not a table")
                    || m.contains("no [[")
                    || m.contains("is not a value") =>
            {
                let hint = unknown(&original, o).to_string();
                Error::Usage(format!("{m}; {}", hint.split("; ").nth(1).unwrap_or("")))
            }
            other => other,
        })?;
    }
    Ok(doc.to_string())
}

/// The value a path holds in the file: a number, or a formula (which `--set` replaces with
/// a number, so it can be swept and tuned, but has no number to start from or perturb).
#[derive(Debug, Clone, PartialEq)]
pub enum Current {
    /// A number (or a formula that is one, `"50"`).
    Number(f64),
    /// A formula, as written.
    Formula(String),
}

/// The current value at a path (for `vpsim sensitivity` and `vpsim tune`).
pub fn current_value(text: &str, path: &str) -> Result<Current> {
    let doc = text
        .parse::<DocumentMut>()
        .map_err(|e| Error::Usage(format!("cannot read the scenario as TOML: {e}")))?;
    let parts: Vec<&str> = path.split('.').map(str::trim).collect();
    let mut item: &Item = doc.as_item();
    let mut i = 0;
    while i < parts.len() {
        let key = parts[i];
        item = match item {
            Item::Table(t) => match t.get(key) {
                Some(Item::ArrayOfTables(arr)) => {
                    let name = parts.get(i + 1).copied().unwrap_or("");
                    i += 1;
                    match arr
                        .iter()
                        .find(|t| t.get("name").and_then(|n| n.as_str()) == Some(name))
                    {
                        Some(t) => {
                            i += 1;
                            let rest = &parts[i..];
                            return number_in(t, rest, path);
                        }
                        None => {
                            return Err(Error::Usage(format!(
                                "--param {path}: there is no [[{key}]] named `{name}`"
                            )));
                        }
                    }
                }
                Some(it) => it,
                None => {
                    return Err(Error::Usage(format!(
                        "--param {path}: `{path}` is not a value in this scenario"
                    )));
                }
            },
            _ => {
                return Err(Error::Usage(format!(
                    "--param {path}: `{path}` is not a value in this scenario"
                )));
            }
        };
        i += 1;
    }
    as_number(item, path)
}

fn number_in(t: &Table, rest: &[&str], path: &str) -> Result<Current> {
    let mut item: Option<&Item> = None;
    let mut table = t;
    for (j, key) in rest.iter().enumerate() {
        match table.get(key) {
            Some(Item::Table(sub)) if j + 1 < rest.len() => table = sub,
            Some(Item::Value(Value::InlineTable(it))) if j + 1 < rest.len() => {
                let v = it.get(rest[j + 1]).ok_or_else(|| {
                    Error::Usage(format!(
                        "--param {path}: `{path}` is not a value in this scenario"
                    ))
                })?;
                return as_number(&Item::Value(v.clone()), path);
            }
            Some(it) => item = Some(it),
            None => {
                return Err(Error::Usage(format!(
                    "--param {path}: `{path}` is not a value in this scenario"
                )));
            }
        }
    }
    as_number(
        item.ok_or_else(|| Error::Usage(format!("--param {path}: `{path}` is not a value")))?,
        path,
    )
}

fn as_number(item: &Item, path: &str) -> Result<Current> {
    match item.as_value() {
        Some(Value::Integer(i)) => Ok(Current::Number(*i.value() as f64)),
        Some(Value::Float(f)) => Ok(Current::Number(*f.value())),
        Some(Value::String(s)) => Ok(match s.value().trim().parse() {
            Ok(x) => Current::Number(x),
            Err(_) => Current::Formula(s.value().trim().to_string()),
        }),
        _ => Err(Error::Usage(format!("--param {path}: not a number"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_counts_are_plain_whole_numbers() {
        for ok in ["lookahead:3", "mcts:1_000", "A=mcts:2000", "lookahead"] {
            assert!(parse_agent(ok).is_ok(), "{ok}");
        }
        for bad in [
            "lookahead:+3",
            "lookahead:___1",
            "lookahead:1__0",
            "mcts:_5",
            "mcts:0",
        ] {
            assert!(parse_agent(bad).is_err(), "{bad}");
        }
        assert!(parse_override("faction.A.label=Al\nice").is_err());
        assert!(parse_override("settings.goal=14\n").is_ok());
        let o = parse_agent("B=mcts:9").unwrap();
        assert_eq!(o.flag(), "--agent B=mcts:9");
    }

    #[test]
    fn tweakables_list_numbers_with_paths_ready_for_set() {
        let t = tweakables(
            "[scenario]\nname = \"x\"\nrounds = 5\n[settings]\ngoal = 10\np = 0.5\n[[faction]]\nname = \"A\"\ninit = { skill = 3, edge = \"50 + p\" }\n[[action]]\nname = \"go\"\nweight = 2\nwhen = \"round > 1\"\n[[example]]\nname = \"e\"\nseed = 1\n",
        );
        let got: Vec<String> = t
            .iter()
            .map(|t| format!("{}={}", t.path, t.value))
            .collect();
        assert_eq!(
            got,
            [
                "scenario.rounds=5",
                "settings.goal=10",
                "settings.p=0.5",
                "faction.A.init.skill=3",
                "faction.A.init.edge=50 + p",
                "action.go.weight=2"
            ]
        );
        assert!(t[4].formula && !t[3].formula);
    }

    const TEXT: &str = "[settings]\ngoal = 10 # the target\n\n[[faction]]\nname = \"A\"\ninit = { skill = 2 }\n\n[[action]]\nname = \"go\"\nweight = 1\n";

    fn set(path: &str, value: &str) -> Result<String> {
        apply(TEXT, &[parse_override(&format!("{path}={value}")).unwrap()])
    }

    #[test]
    fn sets_values_by_path_and_keeps_the_layout() {
        let out = set("settings.goal", "14").unwrap();
        assert!(out.contains("goal = 14 # the target"), "{out}");
        let out = set("faction.A.init.skill", "uniform(1, 3)").unwrap();
        assert!(out.contains("skill = \"uniform(1, 3)\""), "{out}");
        let out = set("action.go.when", "round > 2").unwrap();
        assert!(out.contains("when = \"round > 2\""), "{out}");
        let out = set("action.go.weight", "0.5").unwrap();
        assert!(out.contains("weight = 0.5"), "{out}");
    }

    #[test]
    fn unknown_paths_name_the_nearest() {
        let e = set("settings.gaol.x", "1").unwrap_err().to_string();
        assert!(e.contains("settings.goal"), "{e}");
        let e = set("settings.gaol", "1").unwrap_err().to_string();
        assert!(e.contains("nearest valid paths: settings.goal"), "{e}");
        assert!(
            set("action.go.cost.gold", "2")
                .unwrap()
                .contains("cost = { gold = 2 }")
        );
        let e = set("faction.Z.init.skill", "1").unwrap_err().to_string();
        assert!(e.contains("no [[faction]] named `Z`"), "{e}");
        assert!(parse_override("settings.goal").is_err());
    }
}
