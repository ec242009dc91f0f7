//! Live heap of a loaded bundle by kind (memory budgeting at scale): `cargo run --release -p unstuck-ingest
//! --example memprobe -- DIR [--slim]`. Counts bytes through a wrapping global allocator; node logs are not read.
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
struct A;
static CUR: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static N: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for A {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let c = CUR.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(c, Relaxed);
        N.fetch_add(1, Relaxed);
        System.alloc(l)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        CUR.fetch_sub(l.size(), Relaxed);
        System.dealloc(p, l)
    }
}
#[global_allocator]
static G: A = A;
fn st(s: &str) {
    eprintln!(
        "{s}: live {} MB peak {} MB allocs {}",
        CUR.load(Relaxed) >> 20,
        PEAK.load(Relaxed) >> 20,
        N.load(Relaxed)
    );
}
fn main() {
    let p = std::env::args().nth(1).unwrap();
    let slim = std::env::args().nth(2).as_deref() == Some("--slim");
    let o = unstuck_ingest::Options { logs: false, slim, ..Default::default() };
    let mut s = unstuck_ingest::load(&[std::path::PathBuf::from(p)], &o).unwrap();
    st("loaded");
    s.events = Vec::new();
    st("no events");
    s.pods = Vec::new();
    st("no pods");
    s.nodes = Vec::new();
    s.leases = Vec::new();
    s.replica_sets = Vec::new();
    st("no nodes/leases/rs");
}
