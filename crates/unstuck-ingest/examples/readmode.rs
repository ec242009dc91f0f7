//! How fast can node logs be brought into memory at all: every file under DIR, on every core, read into a
//! reused buffer (what the scan does), mapped, or mapped with MAP_POPULATE, each followed by one cheap pass
//! (counting newlines). BENCHMARKS.md (session 17) records the figures.
//!     cargo run --release -p unstuck-ingest --example readmode -- DIR read|mmap|populate|copy-only
use rayon::prelude::*;
use std::io::Read;
use std::path::{Path, PathBuf};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(dir), Some(mode)) = (args.next(), args.next()) else {
        eprintln!("usage: readmode DIR read|mmap|populate|copy-only");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    walk(Path::new(&dir), &mut files).unwrap_or_else(|e| panic!("{dir}: {e}"));
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let n: usize = files
            .par_iter()
            .map_init(Vec::new, |buf: &mut Vec<u8>, p| {
                let mut f = std::fs::File::open(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                // SAFETY (maps): read-only maps of files nobody writes while this runs.
                match mode.as_str() {
                    "read" | "copy-only" => {
                        buf.clear();
                        f.read_to_end(buf).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
                        if mode == "read" {
                            memchr::memchr_iter(b'\n', buf).count()
                        } else {
                            buf.len()
                        }
                    }
                    "mmap" => memchr::memchr_iter(b'\n', &unsafe { memmap2::Mmap::map(&f) }.unwrap()).count(),
                    "populate" => {
                        memchr::memchr_iter(b'\n', &unsafe { memmap2::MmapOptions::new().populate().map(&f) }.unwrap())
                            .count()
                    }
                    m => panic!("unknown mode {m}"),
                }
            })
            .sum();
        eprintln!("{mode}: {n} ({} files) in {:?}", files.len(), t.elapsed());
    }
}

fn walk(p: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(p)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            walk(&e.path(), out)?;
        } else if t.is_file() {
            out.push(e.path());
        }
    }
    Ok(())
}
