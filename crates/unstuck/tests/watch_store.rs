//! The watch store `unstuck serve` keeps: filled from list pages and watch lines (the shapes
//! kube-apiserver sends), it must give the rules exactly what a bundle read gives them.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};
use unstuck_ingest::store::{parse_page, Store, WatchStep, STORE_KINDS};
use unstuck_ingest::Options;
use unstuck_model::Time;
use unstuck_rules::Config;

const BUNDLE: &str = "../../examples/mixed-cluster";

fn opts() -> Options {
    let now: Time = "2024-06-03T12:00:00Z".parse().unwrap();
    Options { now: Some(now), logs: false, slim: true, ..Options::default() }
}

fn findings(snap: &unstuck_model::Snapshot) -> BTreeSet<(String, String)> {
    unstuck_rules::diagnose(snap, &Config::default())
        .findings
        .into_iter()
        .map(|f| (f.rule, f.subject.display()))
        .collect()
}

/// Every `<stem>.json` of the bundle, merged into one list per kind (as a cluster-wide LIST returns).
fn lists(root: &Path) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    for stem in STORE_KINDS {
        let mut items = Vec::new();
        let mut found = false;
        for dir in std::iter::once(root.to_path_buf())
            .chain(std::fs::read_dir(root).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()))
        {
            if let Ok(b) = std::fs::read(dir.join(format!("{stem}.json"))) {
                let v: Value = serde_json::from_slice(&b).unwrap();
                items.extend(v["items"].as_array().cloned().unwrap_or_default());
                found = true;
            }
        }
        if found {
            out.push((*stem, json!({"kind": list_kind(stem), "apiVersion": "v1", "metadata": {"resourceVersion": "1000"}, "items": items})));
        }
    }
    out
}

fn list_kind(stem: &str) -> &'static str {
    match stem {
        "nodes" => "NodeList",
        "pods" => "PodList",
        "events" => "EventList",
        "deployments" => "DeploymentList",
        "replicasets" => "ReplicaSetList",
        "statefulsets" => "StatefulSetList",
        "daemonsets" => "DaemonSetList",
        "jobs" => "JobList",
        "persistentvolumeclaims" => "PersistentVolumeClaimList",
        _ => "LeaseList",
    }
}

fn filled_store() -> (Store, Vec<(&'static str, Value)>) {
    filled(Store::new())
}

fn filled(mut store: Store) -> (Store, Vec<(&'static str, Value)>) {
    let lists = lists(Path::new(BUNDLE));
    for (stem, list) in &lists {
        let objs = parse_page(stem, "test", &serde_json::to_vec(list).unwrap()).unwrap();
        store.replace(stem, objs, "1000".into()).unwrap();
    }
    (store, lists)
}

fn line(ty: &str, object: &Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"type": ty, "object": object})).unwrap()
}

fn pod<'a>(lists: &'a [(&str, Value)], name_prefix: &str) -> &'a Value {
    let pods = &lists.iter().find(|(s, _)| *s == "pods").unwrap().1;
    pods["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["metadata"]["name"].as_str().unwrap().starts_with(name_prefix))
        .unwrap()
}

#[test]
fn a_listed_store_diagnoses_like_the_bundle() {
    let bundle = unstuck_ingest::load(&[BUNDLE.into()], &opts()).unwrap();
    let want = findings(&bundle);
    assert!(want.len() >= 6, "{want:?}");
    // As serve keeps it (settled pods slimmed as stored) and whole.
    for store in [Store::slimming(), Store::new()] {
        let (store, _) = filled(store);
        let snap = store.snapshot(&opts(), "https://lab:6443").unwrap();
        assert_eq!(snap.pods.len(), bundle.pods.len());
        assert_eq!(snap.events.len(), bundle.events.len());
        assert_eq!(findings(&snap), want);
        assert_eq!(snap.source.kind, "live");
        let settled = snap.pods.iter().filter(|p| p.is_settled()).count();
        assert!(settled > 0);
        assert_eq!(
            snap.pods.iter().filter(|p| p.is_settled() && p.status.conditions.is_empty()).count(),
            settled,
            "settled pods are slimmed either way"
        );
    }
}

#[test]
fn watch_lines_change_what_the_rules_see() {
    let (mut store, lists) = filled_store();
    let src = "https://lab:6443/api/v1/pods?watch=1";
    let cart = pod(&lists, "cart-").clone();
    let before = findings(&store.snapshot(&opts(), "s").unwrap());
    assert!(before.iter().any(|(r, s)| r == "image-pull-failure" && s.contains("cart-")), "{before:?}");

    // The stuck pod is deleted: its finding goes.
    let mut gone = cart.clone();
    gone["metadata"]["resourceVersion"] = json!("1001");
    assert_eq!(store.apply_watch_line("pods", src, &line("DELETED", &gone)).unwrap(), WatchStep::Changed("DELETED"));
    assert_eq!(store.resource_version("pods"), "1001");
    let after = findings(&store.snapshot(&opts(), "s").unwrap());
    assert!(!after.iter().any(|(_, s)| s.contains("cart-")), "{after:?}");
    assert_eq!(after.len(), before.len() - 1);

    // It comes back, now Terminating past its deadline with a finalizer: a new finding.
    let mut back = cart.clone();
    back["metadata"]["resourceVersion"] = json!("1002");
    back["metadata"]["deletionTimestamp"] = json!("2024-06-03T11:00:00Z");
    back["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    back["metadata"]["finalizers"] = json!(["example.com/protect"]);
    back["status"]["phase"] = json!("Failed");
    assert_eq!(store.apply_watch_line("pods", src, &line("ADDED", &back)).unwrap(), WatchStep::Changed("ADDED"));
    let now = findings(&store.snapshot(&opts(), "s").unwrap());
    assert!(now.iter().any(|(r, s)| r == "finalizer-blocked" && s.contains("cart-")), "{now:?}");

    // MODIFIED replaces by namespace/name: the finalizer removed, the pod is no longer held by one.
    back["metadata"]["finalizers"] = json!([]);
    back["metadata"]["resourceVersion"] = json!("1003");
    store.apply_watch_line("pods", src, &line("MODIFIED", &back)).unwrap();
    let s = store.snapshot(&opts(), "s").unwrap();
    assert_eq!(s.pods.iter().filter(|p| p.metadata.name.starts_with("cart-")).count(), 1);
    let last = findings(&s);
    assert!(!last.iter().any(|(r, s)| r == "finalizer-blocked" && s.contains("cart-")), "{last:?}");
}

#[test]
fn bookmarks_expiry_and_errors() {
    let (mut store, _) = filled_store();
    let src = "pods watch";
    let bm = br#"{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"12345","annotations":{"k8s.io/initial-events-end":"true"}}}}"#;
    assert_eq!(store.apply_watch_line("pods", src, bm).unwrap(), WatchStep::Bookmark);
    assert_eq!(store.resource_version("pods"), "12345");
    let gone = br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1000 (12000)","reason":"Expired","code":410}}"#;
    assert_eq!(store.apply_watch_line("pods", src, gone).unwrap(), WatchStep::Expired);
    let other = br#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"etcd is unhappy","reason":"InternalError","code":500}}"#;
    match store.apply_watch_line("pods", src, other).unwrap() {
        WatchStep::Failed(m) => assert!(m.contains("etcd is unhappy") && m.contains("500"), "{m}"),
        s => panic!("{s:?}"),
    }
    // Nothing about the pods changed through all that.
    assert_eq!(store.snapshot(&opts(), "s").unwrap().pods.len(), 27);

    // Bad lines are errors naming the stream, never a panic, and leave the store as it was.
    for bad in [
        &b"{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":7}}}"[..],
        b"\xff\xfe",
        b"{\"type\":\"RESYNC\"}",
        b"",
    ] {
        let e = store.apply_watch_line("pods", src, bad).unwrap_err().to_string();
        assert!(e.contains(src), "{e}");
    }
    assert_eq!(store.snapshot(&opts(), "s").unwrap().pods.len(), 27);
}

#[test]
fn unlisted_and_forbidden_kinds_are_warned_about() {
    let mut store = Store::new();
    let (_, lists) = filled_store();
    for (stem, list) in &lists {
        if *stem == "pods" || *stem == "nodes" {
            store
                .replace(stem, parse_page(stem, "t", &serde_json::to_vec(list).unwrap()).unwrap(), "1".into())
                .unwrap();
        }
    }
    store.fail("leases", "forbidden".into()).unwrap();
    let s = store.snapshot(&opts(), "s").unwrap();
    let w = s.source.warnings.join("\n");
    assert!(w.contains("could not list leases (forbidden)"), "{w}");
    assert!(w.contains("events not listed yet"), "{w}");
    assert!(w.contains("partial bundle: no events"), "{w}");
    assert_eq!(s.pods.len(), 27);
    assert!(store.synced("pods") && !store.synced("events"));
    assert!(parse_page("secrets", "t", b"{}").is_err());
}

/// serve --container-logs: the output fetched for a full evaluation stays cited when a watch change to the
/// crash-looping pod is evaluated on its own (the partial snapshot is built from the store, which holds no
/// container output).
#[test]
fn partial_evaluations_keep_the_container_output_of_the_last_full_one() {
    use unstuck_live::evaluate::{Evaluator, Step};
    use unstuck_live::watch::{lock, Shared};
    let shared = Shared::new(true);
    let lists = {
        let mut store = lock(&shared.store);
        let (filled, lists) = filled(Store::slimming());
        *store = filled;
        lists
    };
    let mut ev = Evaluator::new(Config::default(), opts(), "https://lab:6443".into());
    let mut snap = ev.full_snapshot(&shared).unwrap();
    let checkout = pod(&lists, "checkout-").clone();
    let name = checkout["metadata"]["name"].as_str().unwrap().to_string();
    snap.container_logs.push(unstuck_model::ContainerLog {
        namespace: "shop".into(),
        pod: name.clone(),
        container: "app".into(),
        file: format!("kubectl logs -n shop {name} -c app --previous"),
        tail: vec![(None, "FATAL: payments: dial tcp 10.96.4.7:443: connect: connection refused".into())],
    });
    let cites = |f: &unstuck_rules::Finding| {
        f.rule == "crash-loop"
            && f.subject.display().contains(&name)
            && f.evidence.iter().any(|e| e.text.contains("FATAL: payments"))
    };
    let d = ev.full(&snap);
    assert!(
        d.findings.iter().any(cites),
        "{:#?}",
        d.findings.iter().map(|f| (&f.rule, f.subject.display())).collect::<Vec<_>>()
    );
    // The pod changes (another restart): only its part of the cluster is evaluated again.
    let mut again = checkout.clone();
    again["metadata"]["resourceVersion"] = json!("1001");
    again["status"]["containerStatuses"][0]["restartCount"] = json!(9);
    lock(&shared.store)
        .apply_watch_line("pods", "https://lab:6443/api/v1/pods?watch=1", &line("MODIFIED", &again))
        .unwrap();
    match ev.changes(&shared).unwrap() {
        Step::Updated { .. } => {}
        other => panic!("a partial evaluation was expected: {other:?}"),
    }
    let kept: Vec<_> =
        ev.current().unwrap().findings().filter(|f| f.subject.display().contains(&name)).cloned().collect();
    assert!(kept.iter().any(|f| cites(f)), "{kept:#?}");
}
