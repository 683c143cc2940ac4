//! `vpsim schema`: the JSON Schema of the scenario format, for editors.
//!
//! The schema is generated (schemars) from the same serde types that read scenario files, so
//! it cannot drift from what `vpsim` accepts; the copy shipped as `scenario.schema.json` is
//! checked against it by a test.

use crate::error::{Error, Result};

/// Print the JSON Schema of the scenario format (for TOML editors: Taplo, Even Better TOML).
#[derive(Debug, clap::Args)]
#[command(after_help = "Example:\n  vpsim schema > scenario.schema.json")]
pub struct Args {}

/// The schema as pretty-printed JSON, ending with a newline.
pub fn text() -> Result<String> {
    let mut schema = schemars::schema_for!(crate::scenario::raw::RawScenario);
    schema.insert("title".into(), "vpsim scenario".into());
    let mut text = serde_json::to_string_pretty(&schema)
        .map_err(|e| Error::Usage(format!("cannot encode the schema: {e}")))?;
    text.push('\n');
    Ok(text)
}

/// Runs `vpsim schema`.
pub fn run(_: Args) -> Result<()> {
    super::out(&text()?)
}
