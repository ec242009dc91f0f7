#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    no_transparent_huge_pages();
    unstuck_cli::main_with_args(std::env::args_os())
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
