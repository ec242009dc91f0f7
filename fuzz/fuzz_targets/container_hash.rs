#![no_main]
//! Container specs for the hash engine, every era.
use libfuzzer_sys::fuzz_target;
use unstuck_hash::{hash_container, HashOptions};

fuzz_target!(|data: &[u8]| {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(data) {
        for ver in ["1.7.16", "1.9.11", "1.15.0", "1.20.0", "1.30.0", "1.31.0"] {
            let _ = hash_container(&ver.parse().unwrap(), &v, HashOptions::default());
        }
    }
});
