//! Slimming (`Options::slim`, on for `diagnose` and `fix`) drops the conditions and volumes of settled
//! pods and a bundle's events about them. It must never change a diagnosis: every example bundle and a
//! generated bundle carrying every rule's incident give the same report with and without it, while the
//! slimmed model really is smaller.

mod common;
use std::path::{Path, PathBuf};

use common::*;
use unstuck_ingest::Options;
use unstuck_report::Report;
use unstuck_rules::Config;

fn diagnosis(p: &Path, slim: bool) -> (serde_json::Value, unstuck_model::Snapshot) {
    let snap = unstuck_ingest::load(&[p.to_path_buf()], &Options { slim, ..Options::default() })
        .unwrap_or_else(|e| panic!("{e}"));
    let d = unstuck_rules::diagnose(&snap, &Config::default());
    (serde_json::to_value(Report::new(&snap, d)).unwrap(), snap)
}

/// A generated bundle (every rule's incident on a fixed share of nodes) in a temporary directory.
fn generated(
    nodes: usize,
    pods_per_node: usize,
    log_bytes_per_node: usize,
    namespaces: usize,
) -> (tempfile::TempDir, PathBuf) {
    generated_with(nodes, pods_per_node, log_bytes_per_node, namespaces, unstuck_gen::scale::LogProfile::Production)
}

fn generated_with(
    nodes: usize,
    pods_per_node: usize,
    log_bytes_per_node: usize,
    namespaces: usize,
    log_profile: unstuck_gen::scale::LogProfile,
) -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("b");
    let p = unstuck_gen::scale::Params {
        nodes,
        pods_per_node,
        log_bytes_per_node,
        namespaces,
        log_profile,
        out: out.clone(),
    };
    unstuck_gen::scale::write(&p).unwrap();
    (tmp, out)
}

/// The production log mix (nearly every line names a pod) changes the cost of reading logs, never the
/// findings: the generated truth is the same as with the classic mix.
#[test]
fn log_profiles_give_the_same_findings() {
    use unstuck_gen::scale::LogProfile;
    let (_a, prod) = generated_with(150, 8, 60_000, 5, LogProfile::Production);
    let (_b, classic) = generated_with(150, 8, 60_000, 5, LogProfile::Classic);
    let (rp, rc) = (common::report(&prod), common::report(&classic));
    assert!(!rp.findings.is_empty());
    assert_eq!(common::triples(&rp), common::triples(&rc));
    // The production mix really names the node's pods: most of its lines mention a pod UID.
    let log = std::fs::read_to_string(prod.join("_nodes/node-00001/messages")).unwrap();
    let lines = log.lines().count();
    // By name, by UID, or by container/sandbox ID.
    let id = regex::Regex::new(r"web-6d4cf56db6-|[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-|[0-9a-f]{64}").unwrap();
    let naming = log.lines().filter(|l| id.is_match(l)).count();
    assert!(naming * 10 >= lines * 9, "{naming} of {lines} lines name a pod");
    let mean = log.len() / lines.max(1);
    assert!((220..420).contains(&mean), "mean line length {mean}");
}

/// Same report; returns (settled pods slimmed, events not kept).
fn same_report(p: &Path) -> (usize, usize) {
    let (full, a) = diagnosis(p, false);
    let (slim, b) = diagnosis(p, true);
    assert_eq!(full, slim, "{}: slimming changed the diagnosis", p.display());
    assert_eq!(a.pods.len(), b.pods.len(), "pods are slimmed, never dropped");
    let slimmed = a.pods.iter().zip(&b.pods).filter(|(x, y)| x != y).count();
    for (x, y) in a.pods.iter().zip(&b.pods).filter(|(x, y)| x != y) {
        assert!(x.is_settled(), "{} changed but is not settled", x.key());
        assert!(y.status.conditions.is_empty() && y.spec.volumes.is_empty());
        assert_eq!((&x.metadata, &x.status.container_statuses), (&y.metadata, &y.status.container_statuses));
    }
    (slimmed, a.events.len() - b.events.len())
}

#[test]
fn examples_give_the_same_report_slimmed() {
    let mut slimmed = 0;
    for e in std::fs::read_dir(root().join("examples")).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            slimmed += same_report(&p).0;
        }
    }
    assert!(slimmed > 0, "the examples have settled pods with conditions, so something must be slimmed");
}

#[test]
fn every_rule_incident_gives_the_same_report_slimmed() {
    let (_tmp, dir) = generated(100, 10, 4_000, 5);
    let (slimmed, events) = same_report(&dir);
    assert!(slimmed > 500, "most generated pods are settled: {slimmed}");
    assert!(events > 0, "events about settled pods are not kept");
    let (r, _) = diagnosis(&dir, true);
    let rules: std::collections::BTreeSet<&str> =
        r["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert!(rules.len() >= 12, "the generated bundle exercises many rules: {rules:?}");
}

#[test]
fn an_archived_bundle_is_slimmed_like_a_directory() {
    // Pods and events come in archive order there, so events about settled pods are dropped at the end.
    let (tmp, dir) = generated(40, 5, 2_000, 3);
    let tarball = tmp.path().join("b.tar.gz");
    let ok = std::process::Command::new("tar")
        .arg("czf")
        .arg(&tarball)
        .arg("-C")
        .arg(tmp.path())
        .arg("b")
        .status()
        .unwrap()
        .success();
    assert!(ok, "tar czf");
    let (slimmed, events) = same_report(&tarball);
    assert!(slimmed > 100 && events > 0, "slimmed {slimmed} pods, dropped {events} events");
    assert_eq!((slimmed, events), same_report(&dir), "the archive and the directory slim alike");
}

#[test]
fn timeline_of_a_settled_pod_keeps_its_conditions_and_events() {
    // `timeline` reads without slimming: a healthy pod's conditions and events are on its axis.
    let (_tmp, dir) = generated(60, 2, 0, 1);
    let (_, snap) = diagnosis(&dir, false);
    let ix = snap.index();
    let (settled, events) = snap
        .pods
        .iter()
        .filter(|p| p.is_settled() && !p.status.conditions.is_empty())
        .map(|p| (p, ix.pod_events(p)))
        .find(|(_, e)| !e.is_empty())
        .expect("a settled pod with conditions and events");
    let (code, out, err) = run(&["timeline", &settled.key(), dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    for c in &settled.status.conditions {
        let line = format!("condition {}={}", c.type_, c.status);
        assert!(out.contains(&line), "{line} shown: {out}");
    }
    for e in events {
        assert!(out.contains(e.reason.as_str()) && out.contains(e.message.as_str()), "event {e:?} shown: {out}");
    }
}

#[test]
fn settled_pods_are_never_stuck_at_any_time() {
    use jiff::SignedDuration;
    let (_tmp, dir) = generated(100, 5, 0, 2);
    let mut bundles = vec![dir];
    for e in std::fs::read_dir(root().join("examples")).unwrap() {
        bundles.push(e.unwrap().path());
    }
    let (mut settled, mut unsettled) = (0, 0);
    for b in bundles.iter().filter(|b| b.is_dir()) {
        let (_, snap) = diagnosis(b, false);
        let now = snap.source.captured_at.unwrap();
        for pod in &snap.pods {
            if !pod.is_settled() {
                unsettled += 1;
                continue;
            }
            settled += 1;
            for days in [-3650, -1, 0, 1, 3650] {
                for after in [0, 300, 86_400] {
                    let t = now + SignedDuration::from_hours(24 * days);
                    let c = unstuck_rules::classify(pod, t, SignedDuration::from_secs(after));
                    assert!(c.is_none(), "{} is settled but classified {:?} at {t}", pod.key(), c.map(|s| s.state));
                }
            }
        }
    }
    assert!(settled > 400 && unsettled > 20, "both kinds present: {settled} settled, {unsettled} not");
}

#[test]
fn capture_time_from_the_newest_timestamp_does_not_depend_on_slimming() {
    // A plain dump (no manifest, no leases): the newest timestamp is an event about a settled pod, the
    // next newest that pod's Ready transition; both are dropped by slimming, the capture time must stay.
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    std::fs::create_dir_all(d.join("default")).unwrap();
    let node = serde_json::json!({"kind": "NodeList", "items": [{"metadata": {"name": "n1", "uid": "11111111-1111-1111-1111-111111111111"},
        "status": {"conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-06-03T10:00:00Z", "lastTransitionTime": "2024-06-01T00:00:00Z"}]}}]});
    let uid = "22222222-2222-2222-2222-222222222222";
    let pods = serde_json::json!({"kind": "PodList", "items": [{"metadata": {"name": "web", "namespace": "default", "uid": uid, "creationTimestamp": "2024-06-01T00:00:00Z"},
        "spec": {"nodeName": "n1", "containers": [{"name": "c", "image": "i"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-06-03T11:00:00Z"}],
            "containerStatuses": [{"name": "c", "ready": true, "state": {"running": {"startedAt": "2024-06-01T00:00:05Z"}}}]}}]});
    let events = serde_json::json!({"kind": "EventList", "items": [{"metadata": {"name": "web.1", "namespace": "default"},
        "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web", "uid": uid},
        "reason": "Pulled", "type": "Normal", "lastTimestamp": "2024-06-03T11:30:00Z"}]});
    std::fs::write(d.join("nodes.json"), node.to_string()).unwrap();
    std::fs::write(d.join("default/pods.json"), pods.to_string()).unwrap();
    std::fs::write(d.join("default/events.json"), events.to_string()).unwrap();
    let (_, full) = diagnosis(d, false);
    let (_, slim) = diagnosis(d, true);
    assert!(slim.events.is_empty() && slim.pods[0].status.conditions.is_empty(), "slimmed");
    assert_eq!(full.source.captured_at, Some("2024-06-03T11:30:00Z".parse().unwrap()));
    assert_eq!(slim.source.captured_at, full.source.captured_at);
    // Without the event, the dropped Ready transition is the newest.
    std::fs::write(d.join("default/events.json"), r#"{"kind": "EventList", "items": []}"#).unwrap();
    let (_, slim) = diagnosis(d, true);
    assert_eq!(slim.source.captured_at, Some("2024-06-03T11:00:00Z".parse().unwrap()));
}

#[test]
fn events_at_the_dump_root_are_slimmed_like_per_namespace_ones() {
    // Each namespace's events are looked up among its own directory's settled pods; one events file at
    // the root (every namespace's events in it) among all of them: the same events are dropped.
    let (tmp, dir) = generated(40, 5, 2_000, 3);
    let per_namespace = same_report(&dir);
    let moved = tmp.path().join("moved");
    let ok = std::process::Command::new("cp").arg("-r").arg(&dir).arg(&moved).status().unwrap().success();
    assert!(ok, "cp -r");
    let mut items = Vec::new();
    for e in std::fs::read_dir(&moved).unwrap() {
        let f = e.unwrap().path().join("events.json");
        if f.is_file() {
            let list: serde_json::Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
            items.extend(list["items"].as_array().unwrap().iter().cloned());
            std::fs::remove_file(&f).unwrap();
        }
    }
    assert!(items.len() > 100, "{} events moved", items.len());
    let list = serde_json::json!({"apiVersion": "v1", "kind": "EventList", "items": items});
    std::fs::write(moved.join("events.json"), serde_json::to_vec_pretty(&list).unwrap()).unwrap();
    assert_eq!(same_report(&moved), per_namespace);
}
