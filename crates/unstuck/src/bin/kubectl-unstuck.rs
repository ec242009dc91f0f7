//! `kubectl unstuck …`: the same program under kubectl's plugin name.
fn main() -> std::process::ExitCode {
    unstuck_cli::main_with_args(std::env::args_os())
}
