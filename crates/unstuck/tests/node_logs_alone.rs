//! Node logs read without any API object (a node's `/var/log`, logs a colleague attached to a ticket): the
//! node rules still judge each node from its lines, the capture time comes from the logs, and the report
//! says what it could not know.

mod common;

use common::{copy_dir, example, report, t, triples};
use unstuck_model::NowSource;

/// The kubelet's PLEG line as a bare klog line at `hh:mm:ss` on 22 March (no year, no host).
fn pleg(hms: &str) -> String {
    format!(
        "E0322 {hms}.000000    2290 kubelet.go:2013] \"Skipping pod synchronization\" err=\"PLEG is not healthy: pleg was last seen active 3m0.611803621s ago; threshold is 3m0s\"\n"
    )
}

#[test]
fn node_log_directories_alone_are_judged_per_node_and_dated_by_their_newest_line() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&example("seed-001-node-problems").join("_nodes"), dir.path());
    let r = report(dir.path());
    assert_eq!(
        triples(&r),
        [
            t("pid-exhaustion", "Node", "v-docker-k6"),
            t("runtime-unresponsive", "Node", "v-docker-k8"),
            t("volume-unmount-hang", "Node", "v-docker-k7"),
        ]
    );
    // dockerd's `time="2023-03-22T23:23:22+08:00"` lines carry the year; the newest line of all is
    // the kubelet's syslog line at 15:37 (year-less, placed by them).
    assert_eq!(r.captured_at_source, NowSource::NewestLogLine);
    assert_eq!(r.captured_at.to_string(), "2023-03-22T15:37:00Z");
    assert!(!r.warnings.iter().any(|w| w.contains("clock")), "{:?}", r.warnings);
    let f = r.findings.iter().find(|f| f.rule == "pid-exhaustion").unwrap();
    assert_eq!(f.state, "Unknown (no Node object in the input)");
    assert!(f.summary.ends_with("(pods not in the input)"), "{}", f.summary);
    assert!(f.stuck_for_seconds.is_some_and(|s| s < 3600), "{:?}", f.stuck_for);
}

#[test]
fn a_loose_klog_file_is_read_as_a_node_log_in_the_clocks_year() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kubelet-node-a.txt");
    std::fs::write(
        &p,
        "I0322 15:10:00.000000    2290 kubelet.go:2290] \"SyncLoop (PLEG): event for pod\" pod=\"default/web-0\"\n".to_string()
            + &pleg("15:12:00")
            + "I0322 15:14:00.000000    2290 kubelet_node_status.go:70] \"Attempting to register node\" node=\"node-a\"\n",
    )
    .unwrap();
    // As a user runs it: a finding, so exit code 1.
    let (code, out, err) = common::run(&["diagnose", p.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("\"runtime-unresponsive\""), "{out}");
    let r = report(&p);
    assert_eq!(r.input.format.as_deref(), Some("node log files"));
    // Its lines name no host, and nothing else does.
    assert_eq!(triples(&r), [t("runtime-unresponsive", "Node", "(collector host)")]);
    // No line has a year: the newest line's month, day and time, in the clock's year (or the one before,
    // so that it is not in the future), with a warning.
    assert_eq!(r.captured_at_source, NowSource::NewestLogLine);
    let now = jiff::Timestamp::now();
    let year = r.captured_at.to_zoned(jiff::tz::TimeZone::UTC).year();
    assert!(r.captured_at <= now && now.to_zoned(jiff::tz::TimeZone::UTC).year() - year <= 1);
    assert!(r.captured_at.to_string().ends_with("-03-22T15:14:00Z"), "{}", r.captured_at);
    assert!(r.warnings.iter().any(|w| w.contains("clock's year")), "{:?}", r.warnings);
}

#[test]
fn a_loose_syslog_file_names_its_nodes_by_the_host_column() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("messages");
    std::fs::copy(example("seed-001-node-problems").join("_nodes/v-docker-k6/messages"), &p).unwrap();
    let r = report(&p);
    assert_eq!(triples(&r), [t("pid-exhaustion", "Node", "v-docker-k6")]);
}

#[test]
fn kubectl_output_given_as_a_file_is_not_taken_for_a_log() {
    let dir = tempfile::tempdir().unwrap();
    // A YAML manifest with a mistake stays a YAML error (exit 2 in the CLI), naming the file.
    let bad = dir.path().join("pod.yaml");
    std::fs::write(&bad, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels: {a: b\n").unwrap();
    let e = unstuck_ingest::load(std::slice::from_ref(&bad), &unstuck_ingest::Options::default()).unwrap_err();
    assert!(e.to_string().contains("pod.yaml"), "{e}");
    // A JSON list is read as objects.
    let pods = example("seed-001-node-problems").join("finance/pods.json");
    let snap = common::load(&pods);
    assert!(!snap.pods.is_empty());
    assert_eq!(snap.source.log_files, 0);
}

#[test]
fn with_the_node_list_a_log_directory_naming_no_node_is_no_node() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&example("seed-001-node-problems"), dir.path());
    // A host whose directory is named unlike any Node (an FQDN, another cluster's node).
    let other = dir.path().join("_nodes/other-host.example.com");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("kubelet.log"),
        "Mar 22 15:30:00 other-host kubelet[2290]: E0322 15:30:00.000000    2290 kubelet.go:2013] \"Skipping pod synchronization\" err=\"PLEG is not healthy: pleg was last seen active 3m0.6s ago; threshold is 3m0s\"\n",
    )
    .unwrap();
    let r = report(dir.path());
    assert!(triples(&r).iter().all(|(_, _, n)| !n.starts_with("other-host")), "{:?}", triples(&r));
    assert!(r.findings.iter().all(|f| f.state != "Unknown (no Node object in the input)"));
    assert_eq!(r.captured_at_source, NowSource::BundleManifest);
}

#[test]
fn a_sos_report_alone_is_judged_as_its_node() {
    let sos = common::root()
        .join("crates/unstuck-ingest/tests/data/formats/sos-report/sosreport-ip-10-0-1-23-2026-11-23-kqzwmxb");
    let r = report(&sos);
    assert_eq!(triples(&r), [t("volume-unmount-hang", "Node", "ip-10-0-1-23.ec2.internal")]);
    // Its own `date --utc` dates it, before any log line.
    assert_eq!(r.captured_at_source, NowSource::CollectionDate);
}

#[test]
fn a_bare_klog_file_given_with_a_single_node_is_that_nodes() {
    let dir = tempfile::tempdir().unwrap();
    let klog = dir.path().join("kubelet.log");
    std::fs::write(&klog, pleg("15:30:00")).unwrap();
    let nodes: serde_json::Value =
        serde_json::from_slice(&std::fs::read(example("seed-001-node-problems").join("nodes.json")).unwrap()).unwrap();
    let k8 = nodes["items"].as_array().unwrap().iter().find(|n| n["metadata"]["name"] == "v-docker-k8").unwrap();
    let one = dir.path().join("node.json");
    std::fs::write(&one, serde_json::to_vec(k8).unwrap()).unwrap();
    let r = common::report_of(&[one, klog]);
    assert_eq!(triples(&r), [t("runtime-unresponsive", "Node", "v-docker-k8")]);
    // The Node's own Ready=False message would draw the finding alone: the log line must be cited too.
    let f = &r.findings[0];
    assert!(
        f.evidence.iter().any(|e| e.file.as_deref().is_some_and(|p| p.ends_with("kubelet.log"))),
        "{:#?}",
        f.evidence
    );
}

/// The kubelet's structured line for a failed node status update, as journald shows it, at `hh:mm:ss` on
/// 22 March 2023.
fn status_failed(hms: &str) -> String {
    format!(
        "Mar 22 {hms} node-a kubelet[1272]: E0322 {hms}.941770    1272 kubelet_node_status.go:549] \"Error updating node status, will retry\" err=\"error getting node \\\"node-a\\\": Get \\\"https://10.0.0.1:6443/api/v1/nodes/node-a?resourceVersion=0&timeout=10s\\\": dial tcp 10.0.0.1:6443: i/o timeout\"\n"
    )
}

fn lease_failed(hms: &str) -> String {
    format!(
        "Mar 22 {hms} node-a kubelet[1272]: E0322 {hms}.112233    1272 controller.go:145] \"Failed to ensure lease exists, will retry\" err=\"Get \\\"https://10.0.0.1:6443/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-a?timeout=10s\\\": dial tcp 10.0.0.1:6443: i/o timeout\" interval=\"7s\"\n"
    )
}

fn kubelet_log_alone(lines: &[String]) -> unstuck_report::Report {
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("node-a");
    std::fs::create_dir_all(&node).unwrap();
    let mut text = "Mar 22 15:00:00 node-a kubelet[1272]: I0322 15:00:00.000000    1272 kubelet_node_status.go:75] \"Attempting to register node\" node=\"node-a\"\n".to_string();
    text.extend(lines.iter().cloned());
    std::fs::write(node.join("kubelet.log"), text).unwrap();
    report(dir.path())
}

#[test]
fn a_kubelet_that_could_not_report_for_longer_than_the_grace_period_is_a_lost_node_from_its_logs_alone() {
    // Three minutes of failed status updates and lease renewals, to the end of the log.
    let lines: Vec<String> = ["15:10:01", "15:10:11", "15:11:31", "15:12:41", "15:13:01"]
        .iter()
        .flat_map(|t| [status_failed(t), lease_failed(t)])
        .collect();
    let r = kubelet_log_alone(&lines);
    assert_eq!(triples(&r), [t("node-lost", "Node", "node-a")]);
    let f = &r.findings[0];
    assert_eq!(f.state, "Unknown (no Node object in the input)");
    assert!(f.summary.contains("could not report to the API server for 3m"), "{}", f.summary);
    // The span is read off the log lines: log evidence citing the first failure (line 2: after the
    // registration line), not an API field.
    let span = f.evidence.iter().find(|e| e.text.contains("up to the end of its log")).expect("the span");
    assert_eq!(span.source, unstuck_rules::EvidenceSource::Log, "{span:#?}");
    assert_eq!((span.file.as_deref(), span.line), (Some("node-a/kubelet.log"), Some(2)), "{span:#?}");
    assert!(span.time.is_some() && span.last_time > span.time, "{span:#?}");
    assert!(f.evidence.iter().any(|e| e.text.contains("Error updating node status")), "{:#?}", f.evidence);
    // Nothing here changes the cluster; the first step is the node's path to the API server.
    assert!(f.remediation.iter().all(|s| !s.mutating));
    assert!(matches!(f.remediation[0].target, unstuck_rules::Target::Host(ref n) if n == "node-a"));

    // The same outage, over before the log ends: reported with its end.
    let mut recovered = lines.clone();
    recovered.push("Mar 22 15:30:00 node-a kubelet[1272]: I0322 15:30:00.000000    1272 kubelet_node_status.go:75] \"Attempting to register node\" node=\"node-a\"\n".to_string());
    let r = kubelet_log_alone(&recovered);
    assert_eq!(triples(&r), [t("node-lost", "Node", "node-a")]);
    assert!(
        r.findings[0].evidence.iter().any(|e| e.text.contains("-03-22T15:13:01Z (its later lines say nothing of it)")),
        "{:#?}",
        r.findings[0].evidence
    );
}

#[test]
fn a_burst_of_retries_within_seconds_is_no_lost_node_from_logs_alone() {
    // The kubelet's five retries of one status update, and a lease renewal, within 2 s: a blip (an API
    // server restart) the node controller never notices.
    let mut lines: Vec<String> =
        ["15:10:01", "15:10:01", "15:10:02", "15:10:02", "15:10:03"].iter().map(|t| status_failed(t)).collect();
    lines.push(lease_failed("15:10:03"));
    let r = kubelet_log_alone(&lines);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    // 39 s apart: still within the grace period.
    let r = kubelet_log_alone(&[status_failed("15:10:01"), status_failed("15:10:40")]);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
}

const POD_UID: &str = "5f3c1b2e-9d4a-4c8e-b1a7-2e6f8d9c0a13";

/// The kubelet's retry line for a failed volume operation at `hh:mm:ss`, as journald shows it: `error` is
/// what failed (`UnmountVolume.TearDown failed …` or `MountVolume.SetUp failed …`).
fn volume_op_failed(hms: &str, error: &str) -> String {
    format!(
        "Mar 22 {hms} node-a kubelet[1272]: E0322 {hms}.919124    1272 nestedpendingoperations.go:348] Operation for \"{{volumeName:kubernetes.io/nfs/{POD_UID}-share podName:{POD_UID} nodeName:}}\" failed. No retries permitted until 2023-03-22 {hms}.919065 +0000 UTC m=+967942.401661721 (durationBeforeRetry 2m2s). Error: {error}\n"
    )
}

#[test]
fn teardown_failures_in_a_kubelet_log_alone_name_the_pods_they_hold_on_the_node_finding() {
    let teardown = format!(
        "UnmountVolume.TearDown failed for volume \"share\" (UniqueName: \"kubernetes.io/nfs/{POD_UID}-share\") pod \"{POD_UID}\" (UID: \"{POD_UID}\") : unmount failed: exit status 16: umount.nfs: /var/lib/kubelet/pods/{POD_UID}/volumes/kubernetes.io~nfs/share: device is busy"
    );
    let r = kubelet_log_alone(&[volume_op_failed("15:10:01", &teardown), volume_op_failed("15:12:03", &teardown)]);
    assert_eq!(triples(&r), [t("volume-unmount-hang", "Node", "node-a")]);
    // The retry deadline's full date gives the year-less lines their year (not the clock's).
    assert_eq!(r.captured_at.to_string(), "2023-03-22T15:12:03Z");
    assert_eq!(r.captured_at_source, NowSource::NewestLogLine);
    assert!(r.warnings.iter().all(|w| !w.contains("clock's year")), "{:#?}", r.warnings);
    let f = &r.findings[0];
    assert!(f.summary.contains(&format!("volumes of pod `{POD_UID}`")), "{}", f.summary);
    // The pod is named once, from the lines (no pod object): log evidence citing the first line.
    let named = f.evidence.iter().find(|e| e.text.contains("failures to tear down the volumes of 1 pod(s)")).unwrap();
    assert_eq!(named.source, unstuck_rules::EvidenceSource::Log, "{named:#?}");
    assert_eq!((named.file.as_deref(), named.line), (Some("node-a/kubelet.log"), Some(2)), "{named:#?}");
    assert!(f.evidence.iter().any(|e| e.text.contains("UnmountVolume.TearDown failed")), "{:#?}", f.evidence);
    // First the node (find what holds the mounts), then the pods by UID; nothing applied by unstuck.
    assert!(matches!(f.remediation[0].target, unstuck_rules::Target::Host(ref n) if n == "node-a"));
    assert!(f
        .remediation
        .iter()
        .any(|s| s.command.as_deref().is_some_and(|c| c.contains(POD_UID) && c.contains("kubectl get pods"))));
    assert!(f.remediation.iter().all(|s| !s.mutating));
    // The lazy unmount names the volume directory the line gives.
    let umount = format!("umount -l '/var/lib/kubelet/pods/{POD_UID}/volumes/kubernetes.io~nfs/share'");
    assert!(f.remediation.iter().any(|s| s.command.as_deref() == Some(umount.as_str())), "{:#?}", f.remediation);
}

#[test]
fn set_up_failures_and_unnamed_busy_lines_in_a_kubelet_log_alone_are_no_teardown_hang() {
    // A mount that fails (the pod cannot start) retries with the same words but is no teardown.
    let setup = format!(
        "MountVolume.SetUp failed for volume \"share\" (UniqueName: \"kubernetes.io/nfs/{POD_UID}-share\") pod \"web-0\" (UID: \"{POD_UID}\") : mount failed: exit status 32"
    );
    // `device or resource busy` naming no pod: any process's error.
    let busy = "Mar 22 15:10:05 node-a kubelet[1272]: E0322 15:10:05.000000    1272 kubelet_volumes.go:245] \"failed to remove directory\" err=\"remove /var/lib/kubelet/plugins/kubernetes.io/csi/pv/vol-1: device or resource busy\"\n";
    let r = kubelet_log_alone(&[volume_op_failed("15:10:01", &setup), busy.to_string()]);
    assert!(r.findings.iter().all(|f| f.rule != "volume-unmount-hang"), "{:#?}", r.findings);
}

#[test]
fn orphaned_pod_housekeeping_in_a_kubelet_log_alone_is_no_teardown_hang() {
    // The kubelet cleans up directories of pods the API no longer has: no pod waits on them.
    let orphan = format!(
        "Mar 22 15:10:01 node-a kubelet[1272]: E0322 15:10:01.449132    1272 kubelet_volumes.go:245] \"There were many similar errors. Turn up verbosity to see them.\" err=\"orphaned pod \\\"{POD_UID}\\\" found, but error not a directory occurred when trying to remove the volumes dir\" numErrs=1\n"
    );
    let r = kubelet_log_alone(&[orphan]);
    assert!(r.findings.iter().all(|f| f.rule != "volume-unmount-hang"), "{:#?}", r.findings);
}

#[test]
fn a_node_finding_from_one_moment_at_capture_says_when_it_was_seen_not_stuck_0s() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("kubelet-node-a.txt");
    // One line, which is also the newest: the capture time.
    std::fs::write(&p, pleg("15:12:00")).unwrap();
    let (code, out, err) = common::run(&["diagnose", p.to_str().unwrap(), "--now", "2023-03-22T15:12:00Z"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("(seen at 2023-03-22 15:12:00)"), "{out}");
    assert!(!out.contains("stuck 0s"), "{out}");
    // Later, the same line is a duration again.
    let (_, out, _) = common::run(&["diagnose", p.to_str().unwrap(), "--now", "2023-03-22T15:20:00Z"]);
    assert!(out.contains("(stuck 8m0s)"), "{out}");
}
