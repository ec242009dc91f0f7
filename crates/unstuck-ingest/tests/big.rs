//! Hostile input at full size: a 2 GB events file and a 1 GB single-line node log. Ignored by default
//! (minutes of I/O); `scripts/test.sh` runs them in release mode as the "big inputs" stage.
//! Memory is checked as the process's anonymous resident memory (file pages mapped for reading are
//! the page cache, not allocations); run them one at a time (`--test-threads=1`) so they measure alone.

use std::io::Write;
use std::path::PathBuf;

use unstuck_ingest::{load, Options};

fn rss_anon_mib() -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let kb: u64 = s
        .lines()
        .find_map(|l| l.strip_prefix("RssAnon:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    kb / 1024
}

#[test]
#[ignore = "writes a 2 GB file; scripts/test.sh runs it (stage: big inputs)"]
fn a_2_gb_events_file_is_read_with_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir(d.path().join("default")).unwrap();
    let path = d.path().join("default/events.json");
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
    write!(f, "{{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"EventList\",\n    \"items\": [").unwrap();
    let mut i = 0u64;
    let mut written = 0u64;
    while written < 2 << 30 {
        let e = format!(
            "{}\n        {{\n            \"metadata\": {{\n                \"name\": \"web-{i}.17a{i:x}\",\n                \"namespace\": \"default\",\n                \"creationTimestamp\": \"2024-06-02T12:00:00Z\"\n            }},\n            \"involvedObject\": {{\n                \"kind\": \"Pod\",\n                \"namespace\": \"default\",\n                \"name\": \"web-{i}\",\n                \"uid\": \"0000-{i}\"\n            }},\n            \"reason\": \"BackOff\",\n            \"message\": \"Back-off restarting failed container app in pod web-{i}_default(0000-{i})\",\n            \"type\": \"Warning\",\n            \"count\": 12,\n            \"firstTimestamp\": \"2024-06-02T11:00:00Z\",\n            \"lastTimestamp\": \"2024-06-02T12:00:00Z\",\n            \"source\": {{\"component\": \"kubelet\", \"host\": \"node-1\"}}\n        }}",
            if i == 0 { "" } else { "," }
        );
        f.write_all(e.as_bytes()).unwrap();
        written += e.len() as u64;
        i += 1;
    }
    write!(f, "\n    ]\n}}\n").unwrap();
    f.flush().unwrap();
    drop(f);
    let before = rss_anon_mib();
    let s = load(&[PathBuf::from(d.path())], &Options::default()).unwrap();
    let after = rss_anon_mib();
    let limit = Options::default().limits.max_events_per_file;
    assert_eq!(s.events.len(), limit, "{i} events written");
    assert!(s.source.warnings.iter().any(|w| w.contains("older events beyond the newest")), "{:?}", s.source.warnings);
    let grown = after.saturating_sub(before);
    println!("2 GB events file: {i} events, {} kept, anonymous memory grew by {grown} MiB", s.events.len());
    assert!(grown < 1024, "memory grew by {grown} MiB for a 2 GB events file");
}

#[test]
#[ignore = "writes a 1 GB file; scripts/test.sh runs it (stage: big inputs)"]
fn a_1_gb_single_line_log_is_scanned_with_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("pods.json"),
        r#"{"kind":"PodList","items":[{"metadata":{"name":"p","namespace":"default","uid":"u1"},"spec":{"nodeName":"n1"},"status":{"phase":"Running"}}]}"#,
    )
    .unwrap();
    let logs = d.path().join("_nodes/n1");
    std::fs::create_dir_all(&logs).unwrap();
    let mut f = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(logs.join("messages")).unwrap());
    let filler = vec![b'a'; 1 << 20];
    f.write_all(b"Jun  2 12:00:00 n1 kernel: ").unwrap();
    for _ in 0..512 {
        f.write_all(&filler).unwrap();
    }
    f.write_all(b" nfs: server 10.0.0.5 not responding, still trying ").unwrap();
    for _ in 0..512 {
        f.write_all(&filler).unwrap();
    }
    f.write_all(b"\nJun  2 12:00:01 n1 kernel: nfs: server 10.0.0.5 not responding, still trying\n").unwrap();
    f.flush().unwrap();
    drop(f);
    let before = rss_anon_mib();
    let s = load(&[PathBuf::from(d.path())], &Options::default()).unwrap();
    let after = rss_anon_mib();
    let hits: Vec<_> = s.log_hits.iter().filter(|h| h.signature == "nfs-not-responding").collect();
    assert!(hits.iter().any(|h| h.line == 1), "the signature inside the 1 GB line is found");
    assert!(hits.iter().any(|h| h.line == 2), "the line after the 1 GB line is found");
    for h in &hits {
        assert!(h.text.len() <= 1100, "evidence is capped, not 1 GB: {} bytes", h.text.len());
    }
    let grown = after.saturating_sub(before);
    println!("1 GB single-line log: {} hits, anonymous memory grew by {grown} MiB", hits.len());
    assert!(grown < 256, "memory grew by {grown} MiB for a 1 GB line");
}
