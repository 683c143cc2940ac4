//! Named formulas as written: `[[derived]]` values and `[[metric]]` records.

use schemars::JsonSchema;
use serde::Deserialize;
use toml::Spanned;

use super::{Formula, Src};

/// `[[derived]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawDerived {
    /// Identifier, used in formulas as a variable is (`total_vp`, `A.total_vp`).
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// `faction` (default: a value per faction) or `global`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub scope: Option<Spanned<String>>,
    /// The formula, over variables, settings and earlier derived values.
    #[schemars(with = "Src")]
    pub formula: Formula,
}

/// `[[metric]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawMetric {
    /// Identifier: names the metric's columns (`final_gold_A` in `games.parquet`).
    #[schemars(with = "String")]
    pub name: Spanned<String>,
    /// The formula, over variables, settings and derived values; it may not draw a random
    /// number. A real value is recorded rounded down.
    #[schemars(with = "Src")]
    pub formula: Formula,
    /// `end` (default: once, when the game ends) or `round` (after every round).
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub at: Option<Spanned<String>>,
    /// `faction` (default: a value per faction) or `global`.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub scope: Option<Spanned<String>>,
}
