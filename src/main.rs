//! The `vpsim` binary: parse arguments, run, map errors to exit codes.

use clap::Parser;

fn main() {
    let cli = vpsim::cli::Cli::parse();
    if let Err(e) = vpsim::cli::dispatch(cli) {
        let text = vpsim::diagnostic::render(&e);
        vpsim::diagnostic::say(text.trim_end_matches('\n'));
        std::process::exit(e.exit_code());
    }
}
