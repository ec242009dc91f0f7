//! Time one signature catalog over a directory of node logs (the log engine alone, as `scan-logs`):
//! `cargo run --release -p unstuck-logs --example scan_catalog -- CATALOG.yaml|builtin DIR [RUNS]`.
//! Used to compare catalogs in the same run (BENCHMARKS.md).

use std::time::Instant;

use unstuck_logs::{scan_slice, Catalog, RawHit};

fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let cat = if args[1] == "builtin" {
        Catalog::builtin()
    } else {
        let text = std::fs::read_to_string(&args[1]).unwrap();
        Catalog::new(Catalog::parse_file(&args[1], &text).unwrap()).unwrap()
    };
    let mut all = Vec::new();
    files(std::path::Path::new(&args[2]), &mut all);
    let bufs: Vec<Vec<u8>> = all.iter().map(|p| std::fs::read(p).unwrap()).collect();
    let bytes: usize = bufs.iter().map(Vec::len).sum();
    let runs: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut best = f64::MAX;
    let mut hits = 0usize;
    for _ in 0..runs {
        let t = Instant::now();
        hits = 0;
        for b in &bufs {
            scan_slice(&cat, b, 1, &mut |_: RawHit<'_>| hits += 1);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{} signatures: {} MB in {:.3} s (best of {runs}) = {:.0} MB/s, {hits} hits",
        cat.signatures().len(),
        bytes / 1_000_000,
        best,
        bytes as f64 / 1e6 / best
    );
}
