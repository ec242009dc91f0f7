//! Which finder literals fire on a log file, and how often (lines that reach the full automaton).
//!     cargo run --release -p unstuck-logs --example finder_hits -- FILE
fn main() {
    let path = std::env::args().nth(1).expect("usage: finder_hits FILE");
    let text = std::fs::read(&path).expect("read");
    let cat = unstuck_logs::Catalog::builtin();
    let lits = cat.finder_literals();
    let lines = text.split(|&b| b == b'\n').count();
    let mut counts: Vec<(usize, String)> = lits
        .iter()
        .map(|l| {
            (
                text.split(|&b| b == b'\n').filter(|line| memchr::memmem::find(line, l.as_bytes()).is_some()).count(),
                l.clone(),
            )
        })
        .filter(|(n, _)| *n > 0)
        .collect();
    counts.sort_by(|a, b| b.cmp(a));
    println!("{lines} lines, {} literals", lits.len());
    for (n, l) in counts.iter().take(20) {
        println!("{n:>8} {l:?}");
    }
}
