//! Worked examples: a rulebook's example as an executable check.
//!
//! Owns running one `[[example]]` of a scenario: a deterministic setup, the `given`
//! statements (which set the state without triggering end checks), one phase or a list of
//! effects, then the expectations: formulas that must hold, and optionally the result, the
//! end reason and the final order. A failure explains itself with the values involved.

use super::{Bind, Game, Result as GameResult, Tracer};
use crate::ids::{ActionId, FactionId};
use crate::model::{ExpectedResult, Model, PhaseRef};

/// The outcome of one example.
#[derive(Debug, Clone, PartialEq)]
pub struct ExampleReport {
    /// The example's name.
    pub name: String,
    /// What did not match, one readable paragraph each; empty when it passed.
    pub failures: Vec<String>,
}

impl ExampleReport {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

fn describe(m: &Model, r: &GameResult) -> String {
    let names = |mask: u32| -> String { m.names_in(mask).join(" ") };
    match r {
        GameResult::Win(f) => format!("win {}", m.factions[FactionId(*f)].name),
        GameResult::Shared(mask) => format!("shared {}", names(*mask)),
        GameResult::Draw => "draw".into(),
        GameResult::Nobody => "nobody".into(),
    }
}

impl<T: Tracer> Game<'_, T> {
    /// Runs example `i` of the model.
    pub fn run_example(&mut self, i: usize) -> ExampleReport {
        let m = self.m;
        let ex = &m.examples[i];
        if let Some(variant) = &ex.variant {
            return Game::new(variant).run_example(i);
        }
        let mut failures = Vec::new();
        if let Some(why) = &ex.skipped {
            failures.push(why.clone());
            return ExampleReport {
                name: ex.name.clone(),
                failures,
            };
        }
        let mut unavailable = None;
        let outcome = self
            .example_steps(i, &mut unavailable)
            .map_err(|_| self.take_fault());
        let vars: Vec<String> = m.vars.iter().map(|v| v.name.clone()).collect();
        let outcome = match outcome {
            Ok(o) => o,
            Err(f) => {
                let at = m
                    .locs
                    .get(f.loc as usize)
                    .map(|l| l.to_string())
                    .unwrap_or_default();
                failures.push(format!(
                    "the example faulted at {at}: {}",
                    f.kind.describe(&vars)
                ));
                return ExampleReport {
                    name: ex.name.clone(),
                    failures,
                };
            }
        };
        if let Some(a) = ex.action {
            let name = &m.actions[a].name;
            match (&unavailable, ex.available) {
                (Some(why), true) => {
                    failures.push(format!("the action `{name}` is not available: {why}"))
                }
                (None, false) => failures.push(format!(
                    "expected the action `{name}` to be unavailable, but it is available"
                )),
                _ => {}
            }
        }
        for (k, (e, src)) in ex.expect.iter().enumerate() {
            let v = self.test(e, Bind::global());
            match v {
                Ok(true) => {}
                Ok(false) => {
                    let mut msg = format!("expected `{src}`, which is false");
                    for (name, probe) in &ex.probes[k] {
                        match self.num(probe, Bind::global()) {
                            Ok(x) => msg.push_str(&format!("\n      {name} = {x}")),
                            Err(_) => drop(self.take_fault()),
                        }
                    }
                    failures.push(msg);
                }
                Err(_) => {
                    let f = self.take_fault();
                    failures.push(format!("`{src}` faulted: {}", f.kind.describe(&vars)))
                }
            }
        }
        match (&ex.result, &outcome) {
            (None, _) => {}
            (Some(ExpectedResult::Running), None) => {}
            (Some(ExpectedResult::Running), Some(o)) => failures.push(format!(
                "expected the game to go on, but it ended ({}: {})",
                m.reasons[o.reason].name,
                describe(m, &o.result)
            )),
            (Some(want), None) => failures.push(format!(
                "expected `{}`, but the game did not end",
                want.describe(m)
            )),
            (Some(want), Some(o)) => {
                let got = describe(m, &o.result);
                if want.describe(m) != got {
                    failures.push(format!(
                        "expected result `{}`, got `{got}`",
                        want.describe(m)
                    ));
                }
            }
        }
        if let Some(r) = ex.reason {
            let got = outcome
                .as_ref()
                .map(|o| m.reasons[o.reason].name.as_str())
                .unwrap_or("(the game did not end)");
            if got != m.reasons[r].name {
                failures.push(format!(
                    "expected end reason `{}`, got `{got}`",
                    m.reasons[r].name
                ));
            }
        }
        if !ex.order.is_empty() {
            match &outcome {
                None => failures.push("expected a final order, but the game did not end".into()),
                Some(o) => {
                    if let Some(msg) = order_failure(m, &ex.order, &o.ranks) {
                        failures.push(msg);
                    }
                }
            }
        }
        ExampleReport {
            name: ex.name.clone(),
            failures,
        }
    }

    /// Sets up example `i` and runs what it runs. An `action` not available to its actor
    /// is not taken: why goes to `unavailable`.
    fn example_steps(
        &mut self,
        i: usize,
        unavailable: &mut Option<String>,
    ) -> super::Step<Option<super::Outcome>> {
        let m = self.m;
        let ex = &m.examples[i];
        self.reset(ex.seed, 0);
        let round = ex.round.min(m.rounds).max(1);
        self.env.st.round = round as i64;
        self.env.st.age = m.age_of_round[round as usize];
        self.env.st.age_round = m.age_round[round as usize];
        self.env.quiet = true;
        let set = self
            .setup()
            .and_then(|_| self.run(&ex.given, Bind::global()));
        self.env.quiet = false;
        set?;
        let actor = ex.actor.unwrap_or_default();
        let b = Bind::acting(actor, ex.target.unwrap_or(actor));
        match (ex.phase, ex.action) {
            (Some(PhaseRef::Round(pi)), _) => self.phase(pi)?,
            (Some(PhaseRef::End(i)), _) => self.end_phase(&self.m.end_phases[i])?,
            (None, Some(a)) => {
                *unavailable = self.unavailable(a, b)?;
                if unavailable.is_none() {
                    self.act(a, b)?;
                }
            }
            (None, None) if ex.actor.is_some() => self.run(&ex.effects, b)?,
            (None, None) => self.run(&ex.effects, Bind::global())?,
        }
        // What the end of a round runs, and for `finish` what the end of the last one runs.
        if ex.round_end && self.ended.is_none() {
            self.round_end()?;
        }
        if ex.finish && self.ended.is_none() {
            self.ended = Some(m.last_round_reason);
        }
        match self.ended {
            Some(reason) => {
                // An example that ends the game runs its game-end phases, as a game does.
                self.game_end()?;
                let mut o = self.rank(reason)?;
                o.rounds = round;
                Ok(Some(o))
            }
            None => Ok(None),
        }
    }
}

impl<T: Tracer> Game<'_, T> {
    /// Why action `ai` is not available to `b.me` against `b.target` (as an agent's menu
    /// would leave it out), or `None` when it is: its `when` is false, the target is the
    /// actor or fails `target_when`, or a cost cannot be paid. (An example of a targeted
    /// action names its target: the compiler requires it.)
    fn unavailable(&mut self, ai: ActionId, b: Bind) -> super::Step<Option<String>> {
        let m = self.m;
        let a = &m.actions[ai];
        if let Some(w) = &a.when
            && !self.test(w, Bind { target: b.me, ..b })?
        {
            return Ok(Some("its `when` is false".into()));
        }
        if a.targeted {
            let who = &m.factions[b.target].name;
            if b.target == b.me {
                return Ok(Some(format!("{who} cannot target itself")));
            }
            if let Some(w) = &a.target_when
                && !self.test(w, b)?
            {
                return Ok(Some(format!(
                    "{who} is not an eligible target (its `target_when` is false)"
                )));
            }
        }
        if !a.cost.is_empty() && !self.affordable(ai, b.me, b.target)? {
            return Ok(Some("its cost cannot be paid".into()));
        }
        Ok(None)
    }
}

/// What is wrong with the final `ranks` against the expected `order` (each place the
/// factions sharing it, a prefix of the whole order), or `None`. A place's factions must all
/// hold the rank its place gives (1 plus the factions placed before it) and no other
/// faction may hold it; a failure shows both orders with ties as ties.
fn order_failure(m: &Model, order: &[Vec<u8>], ranks: &[u8]) -> Option<String> {
    let nf = m.nfactions();
    let mut before = 0usize;
    let mut ok = true;
    for place in order {
        let rank = before + 1;
        let holders = (0..nf).filter(|&f| ranks[f] as usize == rank).count();
        ok &= holders == place.len() && place.iter().all(|&f| ranks[f as usize] as usize == rank);
        before += place.len();
    }
    if ok {
        return None;
    }
    let show = |places: &[Vec<u8>]| {
        places
            .iter()
            .map(|p| {
                p.iter()
                    .map(|&f| m.factions[FactionId(f)].name.as_str())
                    .collect::<Vec<_>>()
                    .join(" = ")
            })
            .collect::<Vec<_>>()
            .join(" > ")
    };
    let mut got: Vec<Vec<u8>> = Vec::new();
    for rank in 1..=nf {
        let place: Vec<u8> = (0..nf as u8)
            .filter(|&f| ranks[f as usize] as usize == rank)
            .collect();
        if !place.is_empty() {
            got.push(place);
        }
    }
    Some(format!(
        "expected order {}, got {}",
        show(order),
        show(&got)
    ))
}
