//! The fast JSON reader alone over a dump's pods files, in memory, one thread (best of 3).
//!     cargo run --release -p unstuck-ingest --example json_speed -- DUMP_DIR
use serde::Deserialize;
use unstuck_model::Pod;

#[derive(Deserialize)]
#[allow(clippy::vec_box)] // boxed, as the bundle reader keeps pods
struct List {
    items: Vec<Box<Pod>>,
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: json_speed DUMP_DIR");
    let mut files = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path().join("pods.json");
        if p.exists() && files.len() < 200 {
            files.push(std::fs::read(p).unwrap());
        }
    }
    let bytes: usize = files.iter().map(Vec::len).sum();
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let mut n = 0;
        for f in &files {
            n += unstuck_ingest::json::from_slice::<List>(f).expect("fast reader").items.len();
        }
        best = best.min(t.elapsed().as_secs_f64());
        assert!(n > 0);
    }
    println!("{} files, {} MB: {:.3} s, {:.2} GB/s", files.len(), bytes / 1_000_000, best, bytes as f64 / best / 1e9);
}
