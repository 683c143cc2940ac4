//! The `vpsim` binary: parse arguments, run, map errors to exit codes.

use clap::Parser;

fn main() {
    let cli = vpsim::cli::Cli::parse();
    let result = vpsim::cli::dispatch(cli);
    vpsim::output::release_locks();
    if let Err(e) = result {
        let text = vpsim::diagnostic::render(&e);
        vpsim::diagnostic::say(text.trim_end_matches('\n'));
        std::process::exit(e.exit_code());
    }
}
