//! Which YAML files under a directory the fast path accepts, and how fast (whole, and pruned as the typed
//! readers convert it):
//! `cargo run --release -p unstuck-ingest --example yaml_fast_check -- DIR`
fn main() {
    let root = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: yaml_fast_check DIR"));
    let mut stack = vec![root];
    let (mut ok, mut refused, mut bytes, mut secs, mut pruned) = (0usize, Vec::new(), 0usize, 0f64, 0f64);
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "yaml") {
                let b = std::fs::read(&p).unwrap();
                let t = std::time::Instant::now();
                let r = unstuck_ingest::yaml_fast::to_json_docs(&b);
                secs += t.elapsed().as_secs_f64();
                let t = std::time::Instant::now();
                let _ = unstuck_ingest::yaml_fast::to_json_pruned(&b, unstuck_ingest::yaml_fast::UNREAD_KEYS);
                pruned += t.elapsed().as_secs_f64();
                bytes += b.len();
                match r {
                    Ok(_) => ok += 1,
                    Err(_) => refused.push(p.display().to_string()),
                }
            }
        }
    }
    println!(
        "accepted {ok}, refused {} ({:.0} MB in {secs:.2} s; without the keys no model object reads: {pruned:.2} s)",
        refused.len(),
        bytes as f64 / 1e6
    );
    for r in refused.iter().take(5) {
        println!("refused: {r}");
    }
}
