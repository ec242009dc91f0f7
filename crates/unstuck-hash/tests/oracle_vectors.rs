//! Vectors computed by the real Go code (k8s.io/api of each release + go-spew + encoding/json), written
//! by tools/hash-oracle/run.sh; `scripts/test.sh` re-runs the oracle and fails if they drift. The Rust
//! engine must reproduce every input byte for byte.

use std::path::Path;

use unstuck_hash::{hash_container, HashOptions};

#[derive(serde::Deserialize)]
struct Vector {
    name: String,
    hash: u32,
    input: String,
}

#[test]
fn every_oracle_vector_matches() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors");
    let corpus: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("corpus.json")).unwrap()).unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = file.strip_suffix(".json").filter(|v| v.starts_with("1.")) else { continue };
        let (ver, opts) = match stem.strip_suffix("-without-resources") {
            Some(v) => (v, HashOptions { without_resources: true }),
            None => (stem, HashOptions::default()),
        };
        let vectors: Vec<Vector> = serde_json::from_str(&std::fs::read_to_string(entry.path()).unwrap()).unwrap();
        assert_eq!(vectors.len(), corpus.len(), "{file}");
        for (c, want) in corpus.iter().zip(&vectors) {
            let got = hash_container(&ver.parse().unwrap(), c, opts)
                .unwrap_or_else(|e| panic!("kubelet {ver}, container {}: {e}", want.name));
            checked += 1;
            if got.hash != want.hash || got.input != want.input.as_bytes() {
                failures.push(format!(
                    "kubelet {ver}, container {}: got {} want {}\n  got:  {}\n  want: {}",
                    want.name,
                    got.hash,
                    want.hash,
                    String::from_utf8_lossy(&got.input),
                    want.input
                ));
            }
        }
    }
    assert!(checked >= 100, "only {checked} vectors checked");
    assert!(failures.is_empty(), "{} of {checked} vectors differ:\n{}", failures.len(), failures.join("\n"));
}
