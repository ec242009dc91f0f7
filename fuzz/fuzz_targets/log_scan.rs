#![no_main]
//! The signature scanner: slice and chunked reader agree on what they find (chunk boundaries aside);
//! the log sniff takes any bytes.
use libfuzzer_sys::fuzz_target;
use unstuck_logs::scan::{scan_reader, scan_slice, ChunkLimits, RawHit};
use unstuck_logs::Catalog;

static CAT: std::sync::OnceLock<Catalog> = std::sync::OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let cat = CAT.get_or_init(Catalog::builtin);
    let mut a = Vec::new();
    scan_slice(cat, data, 1, &mut |h: RawHit<'_>| a.push((h.sig, h.line_no)));
    let mut b = Vec::new();
    scan_reader(cat, data, ChunkLimits { chunk: 1 << 20, max_bytes: u64::MAX }, &mut |h: RawHit<'_>| b.push((h.sig, h.line_no))).unwrap();
    if data.len() < (1 << 20) {
        assert_eq!(a, b);
    }
    // Is it a log at all: any bytes, no panic.
    let _ = unstuck_logs::sniff(data);
});
