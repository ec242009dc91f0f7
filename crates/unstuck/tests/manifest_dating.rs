//! A manifest read alone (`kubectl get pod X -o yaml > pod.yaml`) is dated by its file when that is later
//! than every timestamp in it: a pod stuck Terminating for days often records nothing after its own
//! creation (kubernetes#109429: a Job pod held by `batch.kubernetes.io/job-tracking`), so its newest
//! timestamp would make the pod look just deleted.

mod common;

use common::{report, report_of, saved_text, t, triples};
use unstuck_model::NowSource;

/// A Job pod as `kubectl get pod -o yaml` prints it, deleted 100 s after its creation and held by the Job
/// controller's finalizer; its containers never started.
const POD: &str = r#"apiVersion: v1
kind: Pod
metadata:
  creationTimestamp: "2023-05-03T02:00:41Z"
  deletionGracePeriodSeconds: 0
  deletionTimestamp: "2023-05-03T02:02:21Z"
  finalizers:
  - batch.kubernetes.io/job-tracking
  generateName: ham-36937-20230502-1-
  labels:
    job-name: ham-36937-20230502-1
  name: ham-36937-20230502-1-h6tn7
  namespace: bigdata-qa
  ownerReferences:
  - apiVersion: batch/v1
    blockOwnerDeletion: true
    controller: true
    kind: Job
    name: ham-36937-20230502-1
    uid: 90d92a61-9241-4ae3-8485-c60ef3485068
  resourceVersion: "1290448656"
  uid: 9c9e649b-a769-475b-81b2-baea0a640a6e
spec:
  containers:
  - image: registry.example/ham:3646bb
    imagePullPolicy: IfNotPresent
    name: ham-36937-20230502-1
  restartPolicy: Never
  schedulerName: default-scheduler
  terminationGracePeriodSeconds: 30
status:
  phase: Pending
  qosClass: BestEffort
"#;

fn finding() -> Vec<(String, String, String)> {
    vec![t("finalizer-blocked", "Pod", "bigdata-qa/ham-36937-20230502-1-h6tn7")]
}

#[test]
fn a_manifest_saved_days_after_its_pods_deletion_shows_the_pod_stuck() {
    let (_d, p) = saved_text(POD, "pod.yaml", "2023-05-04T09:00:00Z");
    let r = report(&p);
    assert_eq!(r.captured_at.to_string(), "2023-05-04T09:00:00Z");
    assert_eq!(r.captured_at_source, NowSource::FileSaved);
    assert_eq!(triples(&r), finding());
    // Stuck since the deletion (02:02:21), counted to when the file was written.
    assert!(r.findings[0].stuck_for.as_deref().is_some_and(|s| s.starts_with("1d6h")), "{:?}", r.findings[0].stuck_for);
}

#[test]
fn a_manifest_written_before_its_newest_timestamp_is_dated_by_that_timestamp() {
    // A file time earlier than what it records (a clock behind, a copy that kept an older time): the newest
    // timestamp (the creation: the deletion lies ahead of it) stands, and the pod is not yet stuck.
    let (_d, p) = saved_text(POD, "pod.yaml", "2023-05-03T01:00:00Z");
    let r = report(&p);
    assert_eq!(r.captured_at_source, NowSource::NewestTimestamp);
    assert_eq!(r.captured_at.to_string(), "2023-05-03T02:00:41Z");
    assert!(triples(&r).is_empty(), "{:?}", triples(&r));
}

#[test]
fn now_overrides_the_files_time() {
    let (_d, p) = saved_text(POD, "pod.yaml", "2023-05-04T09:00:00Z");
    let (code, out, err) =
        common::run(&["diagnose", p.to_str().unwrap(), "--now", "2023-05-03T02:02:30Z", "-o", "json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["capturedAtSource"], "flag");
    assert!(v["findings"].as_array().unwrap().is_empty(), "{v:#}");
}

#[test]
fn a_manifest_beside_node_logs_keeps_the_newest_timestamp() {
    // With node logs beside it the logs and objects date the input; the manifest's file time (written out
    // again later, as here) is not used.
    let (_d, p) = saved_text(POD, "pod.yaml", "2024-01-01T00:00:00Z");
    let log = p.with_file_name("kubelet.log");
    std::fs::write(
        &log,
        "May 03 02:02:25 node-7 kubelet[1184]: I0503 02:02:25.101202    1184 kubelet.go:2430] \"SyncLoop DELETE\" source=\"api\" pods=[bigdata-qa/ham-36937-20230502-1-h6tn7]\n",
    )
    .unwrap();
    let r = report_of(&[p, log]);
    assert_ne!(r.captured_at_source, NowSource::FileSaved);
    assert!(r.captured_at.to_string().starts_with("2023-05-03"), "{}", r.captured_at);
}
