//! `-` as an input: what a user pipes in (`kubectl get pods -A -o wide | unstuck diagnose -`, `kubectl get
//! pods -o json | …`, `journalctl -u kubelet | …`, an archive) is read as the same bytes in a file are, named
//! `<stdin>` in messages, and dated as read now unless `--now` says otherwise.

mod common;

use std::io::Write;
use std::path::PathBuf;

use common::{example, json_triples, run, run_stdin};

fn table(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tables").join(name)
}

fn json(out: &str) -> serde_json::Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The report of `diagnose FILE` and of `diagnose -` with the file's bytes piped in, at the same `--now`.
fn both(file: &PathBuf, now: &str) -> (serde_json::Value, serde_json::Value) {
    let path = file.to_str().unwrap();
    let (code, out, err) = run(&["diagnose", path, "-o", "json", "--now", now]);
    assert_eq!(code, 1, "{err}");
    let (piped_code, piped, err) =
        run_stdin(&["diagnose", "-", "-o", "json", "--now", now], &std::fs::read(file).unwrap());
    assert_eq!(piped_code, 1, "{err}");
    (json(&out), json(&piped))
}

#[test]
fn a_get_pods_table_piped_in_reads_as_the_same_text_in_a_file() {
    let (file, piped) = both(&table("ticket-node-lost.txt"), "2024-06-03T10:00:00Z");
    assert!(!json_triples(&file).is_empty());
    assert_eq!(json_triples(&piped), json_triples(&file));
    assert_eq!(piped["findings"][0]["stuckFor"], file["findings"][0]["stuckFor"]);
    let warnings = piped["warnings"].to_string();
    assert!(warnings.contains("<stdin>: kubectl get tables"), "{warnings}");
}

#[test]
fn a_manifest_piped_in_reads_as_the_same_manifest_in_a_file() {
    let pods = example("seed-002-node-lost-recreate").join("ops/pods.json");
    let (file, piped) = both(&pods, "2024-04-16T08:00:00Z");
    assert!(!json_triples(&file).is_empty());
    assert_eq!(json_triples(&piped), json_triples(&file));
}

#[test]
fn an_archive_piped_in_reads_as_the_bundle_it_packs() {
    let dir = example("seed-002-node-lost-recreate");
    let mut b = tar::Builder::new(Vec::new());
    b.append_dir_all("dump", &dir).unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&b.into_inner().unwrap()).unwrap();
    let archive = gz.finish().unwrap();
    let (code, out, err) = run(&["diagnose", dir.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "{err}");
    let (piped_code, piped, err) = run_stdin(&["diagnose", "-", "-o", "json"], &archive);
    assert_eq!(piped_code, 1, "{err}");
    let (out, piped) = (json(&out), json(&piped));
    assert_eq!(json_triples(&piped), json_triples(&out));
    // Dated by the bundle's own manifest, not by when it was piped.
    assert_eq!(piped["capturedAt"], out["capturedAt"]);
}

#[test]
fn a_journal_piped_in_is_read_as_node_logs() {
    // A kubelet that could not reach the API server for three minutes, to the end of its journal.
    let mut text = String::from("Mar 22 15:00:00 node-a kubelet[1272]: I0322 15:00:00.000000    1272 kubelet_node_status.go:75] \"Attempting to register node\" node=\"node-a\"\n");
    for hms in ["15:10:01", "15:10:11", "15:11:31", "15:12:41", "15:13:01"] {
        text.push_str(&format!("Mar 22 {hms} node-a kubelet[1272]: E0322 {hms}.941770    1272 kubelet_node_status.go:549] \"Error updating node status, will retry\" err=\"error getting node \\\"node-a\\\": Get \\\"https://10.0.0.1:6443/api/v1/nodes/node-a?resourceVersion=0&timeout=10s\\\": dial tcp 10.0.0.1:6443: i/o timeout\"\n"));
        text.push_str(&format!("Mar 22 {hms} node-a kubelet[1272]: E0322 {hms}.112233    1272 controller.go:145] \"Failed to ensure lease exists, will retry\" err=\"Get \\\"https://10.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a?timeout=10s\\\": dial tcp 10.0.0.1:6443: i/o timeout\" interval=\"7s\"\n"));
    }
    let (code, out, err) = run_stdin(&["diagnose", "-", "-o", "json"], text.as_bytes());
    assert_eq!(code, 1, "{err}");
    let r = json(&out);
    assert_eq!(json_triples(&r), [common::t("node-lost", "Node", "node-a")]);
    // The log evidence names where it was read.
    assert!(r["findings"][0]["evidence"].to_string().contains("<stdin>"), "{}", r["findings"][0]["evidence"]);
}

#[test]
fn piped_text_without_now_is_dated_as_read() {
    let (code, out, err) = run_stdin(&["diagnose", "-", "-o", "json"], &std::fs::read(table("pods-1.txt")).unwrap());
    assert!(code <= 1, "{err}");
    let r = json(&out);
    assert_eq!(r["capturedAtSource"], "savedAt");
    let warnings = r["warnings"].to_string();
    assert!(warnings.contains("counted back from the moment standard input was read"), "{warnings}");
}

#[test]
fn nothing_or_bad_text_piped_in_is_an_error_naming_standard_input() {
    let (code, out, err) = run_stdin(&["diagnose", "-"], b"");
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("<stdin>: nothing was piped in"), "{err}");
    let (code, out, err) = run_stdin(&["diagnose", "-"], b"apiVersion: v1\nkind: Pod\nmetadata: {name: [\n");
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("<stdin>") && err.contains("line"), "{err}");
    let (code, _, err) = run_stdin(&["diagnose", "-", "-"], b"NAME READY STATUS RESTARTS AGE\n");
    assert_eq!(code, 2);
    assert!(err.contains("given more than once"), "{err}");
}

#[test]
fn timeline_reads_piped_input_twice_as_the_same_bytes() {
    // `timeline` reads its inputs for objects, then again for the subject's log lines: both passes see
    // what was piped in.
    let pods = example("seed-002-node-lost-recreate").join("ops/pods.json");
    let list = json(&std::fs::read_to_string(&pods).unwrap());
    let name = list["items"][0]["metadata"]["name"].as_str().unwrap().to_string();
    let subject = format!("ops/{name}");
    let (code, out, err) = run(&["timeline", &subject, pods.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (piped_code, piped, err) = run_stdin(&["timeline", &subject, "-"], &std::fs::read(&pods).unwrap());
    assert_eq!(piped_code, 0, "{err}");
    assert!(piped.contains("deletion requested"), "{piped}");
    assert_eq!(piped, out);
}

#[test]
fn piped_input_without_a_dash_is_not_read_and_the_error_says_how() {
    // No PATH means the live cluster; what is piped in is not read, and both messages say to give `-`.
    let env = [("KUBECONFIG", "/nonexistent/kubeconfig"), ("KUBERNETES_SERVICE_HOST", "")];
    let table = std::fs::read(table("pods-1.txt")).unwrap();
    let (code, out, err) = common::run_stdin_env(&["diagnose"], &table, &env);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("standard input is a pipe, and is read only when `-` is given"), "{err}");
    assert!(err.contains("to read what is piped in, give `-`"), "{err}");
}
