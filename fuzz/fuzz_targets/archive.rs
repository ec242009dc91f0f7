#![no_main]
//! tar.gz bundles: truncated, corrupt or hostile archives never panic or escape.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut opts = unstuck_ingest::Options::default();
    opts.limits.max_archive_bytes = 64 << 20;
    let _ = unstuck_ingest::load_archive_reader("fuzz.tar.gz", data, &opts);
});
