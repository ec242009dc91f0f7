#![no_main]
//! tar.gz bundles: truncated, corrupt or hostile archives never panic or escape.
use libfuzzer_sys::fuzz_target;

static OPTS: std::sync::OnceLock<unstuck_ingest::Options> = std::sync::OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let opts = OPTS.get_or_init(|| {
        let mut o = unstuck_ingest::Options::default();
        o.limits.max_archive_bytes = 64 << 20;
        o
    });
    let _ = unstuck_ingest::load_archive_bytes("fuzz.tar.gz", data, opts);
});
