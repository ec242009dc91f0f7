//! What one `unstuck serve` evaluation costs at scale: fill the watch store from a bundle's list
//! files (as the initial LISTs would), then snapshot it and run the rules a few times.
//!
//!   cargo run --release -p unstuck --example serve_eval -- bench-data/n5000-p30-l500
//!
//! Prints the store fill time, each evaluation's snapshot and diagnose time, and the peak RSS
//! (BENCHMARKS.md, section "serve").

use std::path::{Path, PathBuf};
use std::time::Instant;

use unstuck_ingest::store::{parse_page, Store, STORE_KINDS};
use unstuck_ingest::Options;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn files(root: &Path, stem: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let name = format!("{stem}.json");
    if root.join(&name).is_file() {
        out.push(root.join(&name));
    }
    for e in std::fs::read_dir(root).expect("bundle directory").flatten() {
        let p = e.path().join(&name);
        if e.path().is_dir() && p.is_file() {
            out.push(p);
        }
    }
    out
}

fn status_mib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
        / 1024
}

fn peak_rss_mib() -> u64 {
    status_mib("VmHWM:")
}

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).expect("usage: serve_eval BUNDLE_DIR"));
    let t = Instant::now();
    let mut store = Store::slimming();
    for stem in STORE_KINDS {
        let mut objs = Vec::new();
        for f in files(&root, stem) {
            let bytes = std::fs::read(&f).expect("read");
            objs.extend(parse_page(stem, &f.display().to_string(), &bytes).expect("parse"));
        }
        if !objs.is_empty() {
            store.replace(stem, objs, "1".into()).expect("replace");
        }
    }
    let counts: Vec<String> =
        store.counts().into_iter().filter(|(_, n)| *n > 0).map(|(k, n)| format!("{k} {n}")).collect();
    println!(
        "store filled in {:.2} s: {}; RSS {} MiB, peak {} MiB",
        t.elapsed().as_secs_f64(),
        counts.join(", "),
        status_mib("VmRSS:"),
        peak_rss_mib()
    );
    let opts = Options { logs: false, slim: true, ..Options::default() };
    let cfg = unstuck_rules::Config::default();
    for i in 1..=3 {
        let t0 = Instant::now();
        let snap = store.snapshot(&opts, "bench").expect("snapshot");
        let t1 = Instant::now();
        let d = unstuck_rules::diagnose(&snap, &cfg);
        let t2 = Instant::now();
        println!(
            "evaluation {i}: snapshot {:.3} s, diagnose {:.3} s, {} findings; peak RSS {} MiB",
            (t1 - t0).as_secs_f64(),
            (t2 - t1).as_secs_f64(),
            d.findings.len(),
            peak_rss_mib()
        );
    }
}
