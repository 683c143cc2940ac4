//! `vpsim test`: run a scenario's worked examples.

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::engine::Game;
use crate::error::{Error, Result};

/// Run the worked examples (`[[example]]`) of scenario files.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example:\n  vpsim test scenarios/race_to_three.toml\n\nExit codes: 0 all examples pass, 1 one fails, 2 bad input."
)]
pub struct Args {
    /// Scenario files (TOML).
    #[arg(required = true)]
    pub scenarios: Vec<PathBuf>,
    /// The engine: `native` compiles the scenario's formulas to machine code when it is
    /// loaded (the default); `interp` runs the reference interpreter. Results are identical.
    #[arg(long, value_enum, default_value_t = crate::native::Engine::Native)]
    pub engine: crate::native::Engine,
}

/// Runs `vpsim test`.
pub fn run(a: Args) -> Result<()> {
    let mut text = String::new();
    let (mut passed, mut failed) = (0, 0);
    let mut failing: Vec<String> = Vec::new();
    for path in &a.scenarios {
        let mut model = super::load(path, &[], super::Prep::plain(a.engine))?;
        crate::native::prepare_examples(&mut model, a.engine);
        let mut game = Game::new(&model);
        let _ = writeln!(text, "{} ({} examples)", model.file, model.examples.len());
        for i in 0..model.examples.len() {
            let r = game.run_example(i);
            if r.passed() {
                passed += 1;
                let _ = writeln!(text, "  ok      {}", r.name);
            } else {
                failed += 1;
                if !failing.contains(&model.file) {
                    failing.push(model.file.clone());
                }
                let _ = writeln!(text, "  FAILED  {}", r.name);
                for f in &r.failures {
                    let _ = writeln!(text, "    - {f}");
                }
            }
        }
    }
    let _ = writeln!(text, "{passed} passed, {failed} failed");
    super::out(&text)?;
    if failed > 0 {
        return Err(Error::Failed(format!(
            "{failed} example{} failed in {} (details above)",
            if failed == 1 { "" } else { "s" },
            failing.join(", ")
        )));
    }
    Ok(())
}
