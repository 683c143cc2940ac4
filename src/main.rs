//! The `vpsim` binary: parse arguments, run, map errors to exit codes.

use clap::Parser;

fn main() {
    let cli = match vpsim::cli::Cli::try_parse() {
        Ok(cli) => cli,
        // Help and version are vpsim's own text, printed as clap prints them.
        Err(e) if !e.use_stderr() => e.exit(),
        // An argument error quotes what was typed: terminal-safe, like every other message.
        Err(e) => {
            let mut text = e.render().to_string();
            // An argument with a line break would forge lines: it is quoted escaped.
            for arg in std::env::args()
                .skip(1)
                .filter(|a| a.contains(['\n', '\r']))
            {
                text = text.replace(&arg, &arg.escape_debug().to_string());
            }
            vpsim::diagnostic::say(text.trim_end_matches('\n'));
            std::process::exit(e.exit_code());
        }
    };
    let result = vpsim::cli::dispatch(cli);
    vpsim::output::release_locks();
    if let Err(e) = result {
        let text = vpsim::diagnostic::render(&e);
        vpsim::diagnostic::say(text.trim_end_matches('\n'));
        std::process::exit(e.exit_code());
    }
}
