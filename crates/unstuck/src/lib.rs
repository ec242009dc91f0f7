//! The `unstuck` command line: parses arguments and wires the library crates together.

mod auth;
mod cli;
mod docs;
mod fix;
mod leads;
mod live;
mod serve;
mod subject;
mod tls;
mod upgrade;

use std::ffi::OsString;
use std::process::ExitCode;

pub use cli::Cli;
pub use docs::{rule_markdown, write_rule_docs};

/// Exit codes: 0 nothing stuck, 1 findings, 2 operational error.
pub fn main_with_args(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    no_transparent_huge_pages();
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

/// mimalloc asks for transparent huge pages. On a machine whose memory is fragmented, each 2 MiB fault
/// can stall in direct compaction, and each one zeroes 2 MiB however little of it is used: loading a
/// 150,000-pod bundle took 1.26 s to 1.94 s depending on the machine's memory state, against a steady
/// 1.45 s with ordinary pages (BENCHMARKS.md). A short-lived process gains nothing from huge pages.
fn no_transparent_huge_pages() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_THP_DISABLE takes integer arguments and touches no memory of ours.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}
