//! The `unstuck` command line: parses arguments and wires the library crates together.

mod cli;
mod docs;
mod fix;
mod live;
mod subject;
mod upgrade;

use std::ffi::OsString;
use std::process::ExitCode;

pub use cli::Cli;
pub use docs::{rule_markdown, write_rule_docs};

/// Exit codes: 0 nothing stuck, 1 findings, 2 operational error.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    use clap::Parser;
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("UNSTUCK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
    match cli::run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("error: {}", unstuck_report::clean(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}
