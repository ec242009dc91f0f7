#![no_main]
//! User signature files (YAML).
use libfuzzer_sys::fuzz_target;
use unstuck_logs::Catalog;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(sigs) = Catalog::parse_file("fuzz.yaml", text) {
            let _ = Catalog::with_extra(sigs);
        }
    }
});
