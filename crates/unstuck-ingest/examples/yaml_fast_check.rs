//! Which YAML files under a directory the fast path accepts, and how fast: converted to JSON text (what the
//! loose kubectl-output reader does), and read straight into the model (`pods.yaml`, `events.yaml` and node
//! files as the typed list readers read them; other files as `serde_json::Value`):
//! `cargo run --release -p unstuck-ingest --example yaml_fast_check -- DIR`
use serde::Deserialize;

#[derive(Deserialize)]
#[allow(dead_code)]
struct List<T> {
    items: Vec<T>,
}

fn typed(p: &std::path::Path, b: &[u8]) -> bool {
    use unstuck_ingest::yaml_fast::from_slice;
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    match name {
        "pods.yaml" => from_slice::<List<unstuck_model::Pod>>(b).is_ok(),
        "events.yaml" => from_slice::<List<unstuck_model::Event>>(b).is_ok(),
        n if n.starts_with("node") => from_slice::<unstuck_model::Node>(b).is_ok(),
        _ => from_slice::<serde_json::Value>(b).is_ok(),
    }
}

fn main() {
    let root = std::path::PathBuf::from(std::env::args().nth(1).expect("usage: yaml_fast_check DIR"));
    let mut stack = vec![root];
    let (mut ok, mut refused, mut bytes, mut secs) = (0usize, Vec::new(), 0usize, 0f64);
    let (mut typed_ok, mut typed_refused, mut typed_secs) = (0usize, Vec::new(), 0f64);
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
                let accepted = typed(&p, &b);
                typed_secs += t.elapsed().as_secs_f64();
                bytes += b.len();
                match r {
                    Ok(_) => ok += 1,
                    Err(_) => refused.push(p.display().to_string()),
                }
                match accepted {
                    true => typed_ok += 1,
                    false => typed_refused.push(p.display().to_string()),
                }
            }
        }
    }
    println!(
        "to JSON text: accepted {ok}, refused {} ({:.0} MB in {secs:.2} s); read into the model: accepted {typed_ok}, refused {} ({typed_secs:.2} s)",
        refused.len(),
        bytes as f64 / 1e6,
        typed_refused.len(),
    );
    for r in refused.iter().chain(&typed_refused).take(5) {
        println!("refused: {r}");
    }
}
