//! Properties: the report does not depend on file order or object order; it is stable across runs; a
//! capture time before every timestamp finds nothing stuck.

mod common;
use std::path::Path;

use common::*;
use proptest::prelude::*;

fn copy_shuffled(from: &Path, to: &Path, seed: u64) {
    std::fs::create_dir_all(to).unwrap();
    let mut entries: Vec<_> = std::fs::read_dir(from).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_shuffled(&e.path(), &dst, seed.wrapping_mul(31).wrapping_add(7));
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".json") && name != "unstuck-bundle.json" {
            let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(e.path()).unwrap()).unwrap();
            if let Some(items) = v.get_mut("items").and_then(|i| i.as_array_mut()) {
                // Deterministic permutation from the seed.
                let n = items.len();
                let mut s = seed | 1;
                for i in (1..n).rev() {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    items.swap(i, (s % (i as u64 + 1)) as usize);
                }
            }
            std::fs::write(&dst, serde_json::to_vec(&v).unwrap()).unwrap();
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

fn report_json(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["diagnose", dir.to_str().unwrap(), "-o", "json"];
    args.extend_from_slice(extra);
    let (code, out, err) = run(&args);
    assert!(code == 0 || code == 1, "{err}");
    let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v["input"]["path"] = serde_json::Value::Null;
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, .. ProptestConfig::default() })]

    #[test]
    fn report_is_invariant_to_object_and_file_order(seed in any::<u64>(), which in 0usize..4) {
        let name = ["seed-000-poststart-hostpid", "seed-001-node-problems", "seed-002-node-lost-recreate", "mixed-cluster"][which];
        let tmp = tempfile::tempdir().unwrap();
        copy_shuffled(&example(name), tmp.path(), seed);
        let a = report_json(&example(name), &[]);
        let b = report_json(tmp.path(), &[]);
        prop_assert_eq!(a, b);
    }

    #[test]
    fn loose_files_in_any_order_give_the_same_findings(rev in any::<bool>()) {
        let ex = example("seed-002-node-lost-recreate");
        let mut files = vec![ex.join("nodes.json"), ex.join("ops/pods.json"), ex.join("ops/deployments.json"), ex.join("ops/replicasets.json"), ex.join("ops/statefulsets.json"), ex.join("ops/events.json")];
        if rev { files.reverse(); }
        let mut args: Vec<&str> = vec!["diagnose"];
        for f in &files { args.push(f.to_str().unwrap()); }
        args.extend(["-o", "json", "--now", "2020-05-18T10:30:00Z"]);
        let (_, out, _) = run(&args);
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let rules: Vec<String> = v["findings"].as_array().unwrap().iter().map(|f| format!("{} {}", f["rule"], f["subject"]["name"])).collect();
        prop_assert!(rules.iter().any(|r| r.contains("rollout-blocked-by-terminating") && r.contains("go-abtestservice")));
        prop_assert_eq!(v["summary"]["podsStuck"].as_u64(), Some(3));
    }

    #[test]
    fn now_before_every_timestamp_finds_nothing_stuck(which in 0usize..4) {
        let name = ["seed-000-poststart-hostpid", "seed-001-node-problems", "seed-002-node-lost-recreate", "mixed-cluster"][which];
        let v = report_json(&example(name), &["--now", "2000-01-01T00:00:00Z"]);
        prop_assert_eq!(v["summary"]["podsStuck"].as_u64(), Some(0));
    }
}

#[test]
fn findings_are_stable_across_runs() {
    for name in ["seed-001-node-problems", "mixed-cluster"] {
        let a = report_json(&example(name), &[]);
        let b = report_json(&example(name), &[]);
        assert_eq!(a, b);
    }
}
