#![no_main]
//! Bundle JSON/YAML (kubectl output of any kinds): parse errors are values, never panics; whatever
//! parses can be diagnosed.
use libfuzzer_sys::fuzz_target;

static OPTS: std::sync::OnceLock<unstuck_ingest::Options> = std::sync::OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let opts = OPTS.get_or_init(unstuck_ingest::Options::default);
    if let Ok(snap) = unstuck_ingest::load_kubectl_bytes("fuzz.json", data, opts) {
        let _ = unstuck_rules::diagnose(&snap, &unstuck_rules::Config::default());
    }
});
