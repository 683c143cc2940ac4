//! The scenario file as written: serde types mirroring the TOML, with spans on every formula.
//!
//! Owns the file format's shape (table and key names, defaults, which keys are allowed) and
//! nothing of its meaning; [`super::compile`] validates and resolves it. Every table denies
//! unknown keys so a typo is an error at its line and column, not a silent default.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use toml::Spanned;

mod line;
mod named;
pub use line::{Line, MAX_LINE_CHARS};
pub use named::{RawDerived, RawMetric};

/// A formula as written: a TOML string, or a bare number or boolean (kept as its text).
#[derive(Debug, Clone, PartialEq)]
pub struct Src(pub String);

impl<'de> Deserialize<'de> for Src {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Src;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number, a boolean or an expression string")
            }
            fn visit_i64<E>(self, v: i64) -> Result<Src, E> {
                Ok(Src(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Src, E> {
                Ok(Src(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Src, E> {
                real_src(v).map(Src).map_err(E::custom)
            }
            fn visit_bool<E>(self, v: bool) -> Result<Src, E> {
                Ok(Src(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Src, E> {
                Ok(Src(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// A bare real as formula text the formula language reads back to the same value: plain
/// decimals (the language has no exponents: `0.00001`, not `1e-5`), with a point so that it
/// stays a real (`2.0`, not `2`).
fn real_src(v: f64) -> Result<String, String> {
    if !v.is_finite() {
        return Err(format!(
            "{v} is not a number a formula can hold: give a finite number"
        ));
    }
    // `Display` for `f64` writes the shortest decimal that reads back exactly, never with
    // an exponent.
    let s = v.to_string();
    Ok(if s.contains('.') { s } else { format!("{s}.0") })
}

/// In the JSON Schema (`vpsim schema`), a formula is a string, a number or a boolean.
impl JsonSchema for Src {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Formula".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A formula: an expression string such as \"vp + 1\", or a bare number or boolean.",
            "type": ["string", "number", "boolean"]
        })
    }
}

/// A formula with its place in the file.
pub type Formula = Spanned<Src>;

/// The whole file.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// Name, clock and description.
    pub scenario: RawMeta,
    /// Named constants.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Src>")]
    pub settings: BTreeMap<String, Formula>,
    /// Named sets (areas, territories...).
    #[serde(default, rename = "set")]
    pub sets: Vec<RawSet>,
    /// Factions in seat order.
    #[serde(rename = "faction")]
    #[schemars(with = "Vec<RawFaction>")]
    pub factions: Vec<Spanned<RawFaction>>,
    /// Variables.
    #[serde(default, rename = "var")]
    #[schemars(with = "Vec<RawVar>")]
    pub vars: Vec<Spanned<RawVar>>,
    /// Derived values: named formulas, computed where they are read, never stored.
    #[serde(default, rename = "derived")]
    pub derived: Vec<RawDerived>,
    /// Custom metrics: formulas recorded per game (or per round) next to the outcome.
    #[serde(default, rename = "metric")]
    pub metrics: Vec<RawMetric>,
    /// Decks of cards.
    #[serde(default, rename = "deck")]
    #[schemars(with = "Vec<RawDeck>")]
    pub decks: Vec<Spanned<RawDeck>>,
    /// Default agent for every faction.
    #[serde(default)]
    pub agent: Option<RawAgent>,
    /// Phases of a round, in order.
    #[serde(default, rename = "phase")]
    #[schemars(with = "Vec<RawPhase>")]
    pub phases: Vec<Spanned<RawPhase>>,
    /// Actions agents can take.
    #[serde(default, rename = "action")]
    #[schemars(with = "Vec<RawAction>")]
    pub actions: Vec<Spanned<RawAction>>,
    /// Random events.
    #[serde(default, rename = "event")]
    #[schemars(with = "Vec<RawEvent>")]
    pub events: Vec<Spanned<RawEvent>>,
    /// End conditions.
    #[serde(default, rename = "end")]
    #[schemars(with = "Vec<RawEnd>")]
    pub ends: Vec<Spanned<RawEnd>>,
    /// Final ranking.
    pub ranking: RawRanking,
    /// Worked examples.
    #[serde(default, rename = "example")]
    #[schemars(with = "Vec<RawExample>")]
    pub examples: Vec<Spanned<RawExample>>,
    /// Balance assertions for `vpsim check`.
    #[serde(default, rename = "assert")]
    pub asserts: Vec<RawAssert>,
}

/// `[[assert]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAssert {
    /// A name for reports (default: the formula).
    #[serde(default)]
    pub name: Option<Line>,
    /// The assertion over run metrics, e.g. `max(win_rate) - min(win_rate) < 0.1`.
    #[schemars(with = "Src")]
    pub expr: Formula,
}

/// `[[example]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawExample {
    /// Name (cite the rulebook section).
    pub name: Line,
    /// Seed of the setup (default 0).
    #[serde(default)]
    pub seed: u64,
    /// The round (default 1).
    #[serde(default)]
    #[schemars(with = "Option<i64>")]
    pub round: Option<Spanned<i64>>,
    /// The factions in seat order, first seat first (every faction once): the example's
    /// seating, as `--rotate-seats` gives a game (default: the factions' own order).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub seats: Vec<Spanned<String>>,
    /// Settings this example changes (the scenario is compiled again with them).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Src>")]
    pub settings: BTreeMap<String, Formula>,
    /// Statements that set the state.
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub given: Vec<Formula>,
    /// The phase to run once.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub phase: Option<Spanned<String>>,
    /// Statements to run instead of a phase.
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub effects: Vec<Formula>,
    /// The faction that runs `effects` or takes `action`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub actor: Option<Spanned<String>>,
    /// An action for `actor` to take.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub action: Option<Spanned<String>>,
    /// The action's target.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub target: Option<Spanned<String>>,
    /// Run the round-end step afterwards (round-end events, then round-end checks).
    #[serde(default)]
    pub round_end: bool,
    /// Finish the game afterwards as its last round does: the round-end step, then the
    /// last-round end if the game has not ended.
    #[serde(default)]
    pub finish: bool,
    /// Formulas that must hold afterwards.
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub expect: Vec<Formula>,
    /// `win NAME`, `shared NAME NAME ...`, `draw`, `nobody` or `running`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub result: Option<Spanned<String>>,
    /// Expected end reason.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub reason: Option<Spanned<String>>,
    /// Expected final order, first place first (a prefix is enough); factions that share a
    /// place are written `"A = B"`.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub order: Vec<Spanned<String>>,
    /// With `action`: whether it is available to `actor` (default true). `false` asserts
    /// that it is not (its `when` is false, a cost cannot be paid, or no target is eligible).
    #[serde(default)]
    #[schemars(with = "Option<bool>")]
    pub available: Option<Spanned<bool>>,
}

/// `[scenario]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMeta {
    /// Short identifier.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// Human title.
    #[serde(default)]
    pub title: Option<Line>,
    /// Free text.
    #[serde(default)]
    pub description: Option<Line>,
    /// The last round: a whole number, or a constant formula of settings and `nfactions`
    /// (`"if(nfactions == 2, 10, 8)"`).
    #[schemars(with = "Src")]
    pub rounds: Formula,
    /// The most agent decisions one game may make before it is stopped with a fault.
    #[serde(default)]
    #[schemars(with = "Option<i64>")]
    pub max_steps: Option<Spanned<i64>>,
    /// Rounds per age: whole numbers, or constant formulas of settings and `nfactions`.
    #[serde(default)]
    #[schemars(with = "Option<Vec<Src>>")]
    pub ages: Option<Spanned<Vec<Src>>>,
    /// Name of the end reason when the last round finishes.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub last_round_reason: Option<Spanned<String>>,
    /// Sides are teams (a team wins when every other team has left the game): a constant
    /// formula, so a setting can switch the variant.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub teams: Option<Formula>,
    /// How many of the factions play (the first ones in seat order; the rest sit out): a
    /// constant formula, so a setting can make one file play 2 to N players.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub players: Option<Formula>,
}

/// `[[set]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawSet {
    /// Set name.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// Element names.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub elements: Vec<Spanned<String>>,
    /// `[ROWS, COLS]`: a grid of ROWS x COLS elements named `r1c1`, `r1c2`, ... row by row
    /// (instead of `elements`), for `row(i)`, `col(i)` and `cell(r, c)`.
    #[serde(default)]
    #[schemars(with = "Option<[u16; 2]>")]
    pub grid: Option<Spanned<Vec<i64>>>,
}

/// `[[faction]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFaction {
    /// Identifier used in formulas.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// Display name.
    #[serde(default)]
    pub label: Option<Line>,
    /// Side or team.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub side: Option<Spanned<String>>,
    /// Player faction (default) or non-player.
    #[serde(default = "yes")]
    pub player: bool,
    /// Initial values overriding the variables' `init` for this faction.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Src>")]
    pub init: BTreeMap<String, Formula>,
    /// This faction's own settings (constants, real or whole, or formulas of settings): a
    /// formula reads the value of the faction in scope; factions that give none take the
    /// `[settings]` value.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Src>")]
    pub settings: BTreeMap<String, Formula>,
    /// Agent overriding the default `[agent]`.
    #[serde(default)]
    pub agent: Option<RawAgent>,
}

fn yes() -> bool {
    true
}

/// `[[var]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawVar {
    /// Identifier.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// `faction` (default) or `global`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub scope: Option<Spanned<String>>,
    /// Set the variable is indexed by.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub over: Option<Spanned<String>>,
    /// Initial value, evaluated at setup (may be random).
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub init: Option<Formula>,
    /// Floor (constant).
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub min: Option<Formula>,
    /// Cap (constant).
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub max: Option<Formula>,
    /// A flag: min 0, max 1.
    #[serde(default)]
    pub flag: bool,
    /// Display-only flip of a track (constant): the value keeps counting.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub flip: Option<Formula>,
    /// A points source (as `as SOURCE` names one) credited with each faction's starting
    /// value, so that points by source add up to the score.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub init_as: Option<Spanned<String>>,
    /// Who sees its value: `all` (default), `owner` (each faction its own value of a faction
    /// variable) or `none` (a face-down card, a hidden draw). Searching agents (lookahead,
    /// mcts) redraw what they cannot see from `prior` in each playout.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub visible: Option<Spanned<String>>,
    /// What a faction that cannot see the value assumes it is (a formula, drawn afresh
    /// for each playout, e.g. `d6` or `uniform(1, 2)`); required when a searching faction
    /// cannot see it.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub prior: Option<Formula>,
}

/// `[[deck]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDeck {
    /// Deck name.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// Card kinds.
    pub cards: Vec<RawCard>,
    /// Cards held from this deck are seen by every faction (default: only by the holder).
    /// No faction sees the order of the undrawn cards either way.
    #[serde(default)]
    pub public: bool,
}

/// A card kind in a deck.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawCard {
    /// Card name.
    pub name: Line,
    /// Copies.
    #[serde(default = "one")]
    #[schemars(with = "i64")]
    pub count: Spanned<i64>,
    /// Integer attributes (`card.NAME` in formulas).
    #[serde(default)]
    pub attrs: BTreeMap<String, i64>,
}

fn one() -> Spanned<i64> {
    Spanned::new(0..0, 1)
}

/// `[agent]` / `[faction.agent]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAgent {
    /// `weighted` (the default), `greedy`, `priority`, `lookahead` or `mcts`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub policy: Option<Spanned<String>>,
    /// Lookahead: playouts per option (default 32).
    #[serde(default)]
    #[schemars(with = "Option<i64>")]
    pub rollouts: Option<Spanned<i64>>,
    /// Mcts: playouts per decision, each from a fresh determinization (default 1000).
    #[serde(default)]
    #[schemars(with = "Option<i64>")]
    pub iterations: Option<Spanned<i64>>,
    /// Mcts: the UCT exploration constant (default sqrt(2), for rewards scaled to 0..1).
    #[serde(default)]
    #[schemars(with = "Option<f64>")]
    pub c: Option<Spanned<f64>>,
    /// Lookahead and mcts: the policy the deciding faction plays in its playouts outside
    /// the search (`weighted`, `greedy` or `priority`; default `weighted`).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub rollout_policy: Option<Spanned<String>>,
    /// Lookahead and mcts: rounds a playout plays, the decision's own included (default:
    /// to the end).
    #[serde(default)]
    #[schemars(with = "Option<i64>")]
    pub horizon: Option<Spanned<i64>>,
    /// Lookahead and mcts: `win` (default), `rank` or `margin`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub objective: Option<Spanned<String>>,
    /// Weighted: a fixed weight per action name for this faction, in place of the actions'
    /// `weight` formulas (actions left out weigh 0): a state-blind mix.
    #[serde(default)]
    #[schemars(with = "Option<BTreeMap<String, f64>>")]
    pub mix: Option<Spanned<BTreeMap<String, f64>>>,
    /// Greedy: standard deviation of the normal noise added to each action's value.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub noise: Option<Formula>,
    /// Priority: action names, most preferred first.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub priority: Vec<Spanned<String>>,
}

/// `[[phase]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawPhase {
    /// Name.
    pub name: Line,
    /// `global` (default) or `faction`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub each: Option<Spanned<String>>,
    /// Run only when this holds.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub when: Option<Formula>,
    /// Faction phases: ascending sort keys for the turn order (default seat).
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub order: Vec<Formula>,
    /// Faction phases: agent decisions per turn.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub actions: Option<Formula>,
    /// Faction phases: statements run for each faction as its turn begins, before its
    /// decisions (after the turn-start end conditions): "roll, then build" in one turn.
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub before: Vec<Formula>,
    /// Statements, run once (global) or per faction after its actions.
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub effects: Vec<Formula>,
    /// When it runs: `"round"` (default: every round, in order) or `"game_end"` (once, when
    /// the game ends, whatever the reason, before the ranking).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub at: Option<Spanned<String>>,
}

/// `[[action]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAction {
    /// Name.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// A set: the action is declared once for each of its elements, named `NAME_ELEMENT`,
    /// with `it` standing for the element in its formulas (`done[it]`).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub for_each: Option<Spanned<String>>,
    /// Taken by the rules: at the end of each of the faction's turns (in a phase with
    /// actions), when any option of this action is available, the faction takes exactly one
    /// (its agent chooses), outside its `actions` count; never one of its ordinary choices.
    #[serde(default)]
    pub auto: bool,
    /// Only these factions may take it (default all).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub factions: Vec<Spanned<String>>,
    /// Available when this holds.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub when: Option<Formula>,
    /// Variables paid (must be affordable).
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, Src>")]
    pub cost: BTreeMap<String, Formula>,
    /// Weight under the weighted policy.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub weight: Option<Formula>,
    /// Value under the greedy policy.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub value: Option<Formula>,
    /// `none` (default) or `other`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub target: Option<Spanned<String>>,
    /// Which targets are eligible.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub target_when: Option<Formula>,
    /// Statements.
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub effects: Vec<Formula>,
}

/// `[[event]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawEvent {
    /// Name.
    pub name: Line,
    /// `round_start` (default) or `round_end`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub at: Option<Spanned<String>>,
    /// Eligible when this holds.
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub when: Option<Formula>,
    /// Chance per round.
    #[schemars(with = "Src")]
    pub probability: Formula,
    /// Statements.
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub effects: Vec<Formula>,
}

/// `[[end]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawEnd {
    /// Reason name.
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// Condition (optional: a reason may only be used by `end NAME` statements).
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub when: Option<Formula>,
    /// `immediate` (default), `turn_start`, `round_start` or `round_end`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub timing: Option<Spanned<String>>,
    /// `rank` (default), `draw`, `nobody`, `win` or `lose`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub result: Option<Spanned<String>>,
    /// For a win or lose condition checked at turn start: `turn` (default, the faction whose
    /// turn starts) or `all` (every faction still in the game).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub who: Option<Spanned<String>>,
    /// Free text.
    #[serde(default)]
    pub description: Option<Line>,
}

/// `[ranking]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRanking {
    /// Ranked before the score (higher first): places by side, a faction forced last...
    #[serde(default)]
    #[schemars(with = "Option<Src>")]
    pub tier: Option<Formula>,
    /// Score per faction.
    #[schemars(with = "Src")]
    pub score: Formula,
    /// Tie-break chain: expressions (higher wins) or `die`.
    #[serde(default)]
    #[schemars(with = "Vec<Src>")]
    pub tiebreak: Vec<Formula>,
    /// Leave ties that survive the chain as shared places.
    #[serde(default)]
    pub shared: bool,
}

#[cfg(test)]
mod tests {
    use super::real_src;

    #[test]
    fn bare_reals_are_written_as_decimals_that_stay_reals() {
        assert_eq!(real_src(0.00001).unwrap(), "0.00001");
        assert_eq!(real_src(-0.00001).unwrap(), "-0.00001");
        assert_eq!(real_src(1e20).unwrap(), "100000000000000000000.0");
        assert_eq!(real_src(2.0).unwrap(), "2.0");
        assert_eq!(real_src(0.1).unwrap(), "0.1");
        assert_eq!(real_src(-0.0).unwrap(), "-0.0");
        for v in [5e-324, 1.7976931348623157e308, 0.1 + 0.2] {
            assert_eq!(real_src(v).unwrap().parse::<f64>().unwrap(), v);
        }
        assert!(real_src(f64::INFINITY).is_err());
        assert!(real_src(f64::NAN).is_err());
    }
}
