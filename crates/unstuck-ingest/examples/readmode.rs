//! Scratch: read every file under DIR in parallel with read() into a reused buffer or mmap(+populate).
use rayon::prelude::*;
use std::io::Read;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dir = &a[1];
    let mode = a[2].clone();
    let mut files = Vec::new();
    for e in walk(std::path::Path::new(dir)) {
        files.push(e);
    }
    for _ in 0..3 {
        let t = std::time::Instant::now();
        let n: usize = files
            .par_iter()
            .map_init(Vec::new, |buf: &mut Vec<u8>, p| {
                let mut f = std::fs::File::open(p).unwrap();
                match mode.as_str() {
                    "read" => {
                        buf.clear();
                        f.read_to_end(buf).unwrap();
                        memchr::memchr_iter(b'\n', buf).count()
                    }
                    "mmap" => {
                        let m = unsafe { memmap2::Mmap::map(&f) }.unwrap();
                        memchr::memchr_iter(b'\n', &m).count()
                    }
                    "populate" => {
                        let m = unsafe { memmap2::MmapOptions::new().populate().map(&f) }.unwrap();
                        memchr::memchr_iter(b'\n', &m).count()
                    }
                    _ => {
                        buf.clear();
                        f.read_to_end(buf).unwrap();
                        buf.len()
                    }
                }
            })
            .sum();
        eprintln!("{mode}: {n} in {:?}", t.elapsed());
    }
}
fn walk(p: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(p).unwrap() {
        let e = e.unwrap();
        let t = e.file_type().unwrap();
        if t.is_dir() {
            v.extend(walk(&e.path()))
        } else if t.is_file() {
            v.push(e.path())
        }
    }
    v
}
