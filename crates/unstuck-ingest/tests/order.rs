//! A dump directory's pods come out in canonical order (namespace, name, UID) whatever order its files
//! list them in: each file's pods are sorted as it is read, and the whole is sorted again when the files'
//! boundaries are out of order.

use std::path::Path;

use unstuck_ingest::{load, Options};

fn pod(ns: &str, name: &str, uid: &str) -> serde_json::Value {
    serde_json::json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns, "uid": uid, "creationTimestamp": "2024-01-01T00:00:00Z"}, "spec": {"nodeName": "n1"}, "status": {"phase": "Running"}})
}

fn write_pods(dir: &Path, ns_dir: &str, pods: &[serde_json::Value]) {
    let d = dir.join(ns_dir);
    std::fs::create_dir_all(&d).unwrap();
    let list = serde_json::json!({"apiVersion": "v1", "kind": "PodList", "items": pods});
    std::fs::write(d.join("pods.json"), serde_json::to_vec_pretty(&list).unwrap()).unwrap();
}

fn order(paths: &[&Path]) -> Vec<(String, String, String)> {
    let snap = load(&paths.iter().map(|p| p.to_path_buf()).collect::<Vec<_>>(), &Options::default()).unwrap();
    snap.pods
        .iter()
        .map(|p| (p.metadata.namespace.to_string(), p.metadata.name.to_string(), p.metadata.uid.to_string()))
        .collect()
}

fn sorted(mut v: Vec<(String, String, String)>) -> Vec<(String, String, String)> {
    v.sort();
    v
}

#[test]
fn pods_are_in_canonical_order_whatever_the_files_say() {
    let t = tempfile::tempdir().unwrap();
    let dump = t.path().join("dump");
    std::fs::create_dir_all(&dump).unwrap();
    std::fs::write(dump.join("nodes.json"), r#"{"kind": "NodeList", "items": []}"#).unwrap();
    // Names listed backwards, and one name twice (UIDs tell them apart).
    write_pods(&dump, "b", &[pod("b", "web-2", "u3"), pod("b", "web-1", "u2"), pod("b", "web-1", "u1")]);
    // A directory whose pods name a namespace after the next directory's: the boundary is out of order.
    write_pods(&dump, "a", &[pod("c", "api-0", "u4")]);
    write_pods(&dump, "d", &[pod("d", "db-0", "u5")]);
    let got = order(&[&dump]);
    assert_eq!(got.len(), 5);
    assert_eq!(got, sorted(got.clone()));
    assert_eq!(got[0], ("b".into(), "web-1".into(), "u1".into()));

    // A second input read after the dump (a loose pods file) is merged into the same order.
    let loose = t.path().join("extra.json");
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": [pod("a", "zz", "u6")]});
    std::fs::write(&loose, serde_json::to_vec_pretty(&list).unwrap()).unwrap();
    let got = order(&[&dump, &loose]);
    assert_eq!(got.len(), 6);
    assert_eq!(got, sorted(got.clone()));
    assert_eq!(got[0], ("a".into(), "zz".into(), "u6".into()));
}
