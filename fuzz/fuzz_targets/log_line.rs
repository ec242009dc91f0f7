#![no_main]
//! Every log format parser, on any bytes: never panics, message stays within the line.
use libfuzzer_sys::fuzz_target;
use unstuck_logs::format::{best_time, parse_line, TimeCtx};

fuzz_target!(|data: &[u8]| {
    let ctx = TimeCtx::utc("2024-01-01T00:10:00Z".parse().unwrap());
    let l = parse_line(&ctx, data);
    assert!(l.message.len() <= data.len() || l.format == unstuck_logs::Format::JournalJson);
    let _ = best_time(&ctx, &l);
});
