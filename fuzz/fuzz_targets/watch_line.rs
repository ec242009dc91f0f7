#![no_main]
//! Watch stream lines (`unstuck serve`): any bytes, split into lines and applied to a store of one
//! kind. Never a panic; a refused line leaves the store as it was; every state snapshots.
use libfuzzer_sys::fuzz_target;
use unstuck_ingest::store::{Store, STORE_KINDS};
use unstuck_ingest::Options;

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else { return };
    let stem = STORE_KINDS[k as usize % STORE_KINDS.len()];
    let mut store = Store::new();
    store.replace(stem, Vec::new(), "1".into()).unwrap();
    static OPTS: std::sync::OnceLock<Options> = std::sync::OnceLock::new();
    let opts = OPTS.get_or_init(|| Options { now: Some("2024-06-03T12:00:00Z".parse().unwrap()), ..Options::default() });
    for line in rest.split(|&b| b == b'\n') {
        let before = store.counts();
        let rv = store.resource_version(stem).to_string();
        if store.apply_watch_line(stem, "fuzz", line).is_err() {
            assert_eq!(store.counts(), before, "a refused line changed the store");
            assert_eq!(store.resource_version(stem), rv, "a refused line moved the resourceVersion");
        }
    }
    // Empty stores are an error (nothing to diagnose); anything else must build a model.
    if store.counts().iter().any(|(_, n)| *n > 0) {
        store.snapshot(opts, "fuzz").expect("a store snapshots");
    }
});
