//! Incremental evaluation (`unstuck serve`) gives what a full evaluation gives.
//!
//! A generated cluster (every rule's incident on some nodes) is put into a watch store the way the watches
//! fill it (list pages, then watch lines); random changes are applied one batch at a time, and after each
//! batch the findings kept current by [`Incremental`] from a snapshot of just the changed part are compared
//! with a full evaluation of the whole store.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Value};
use unstuck_ingest::store::{parse_page, Store};
use unstuck_ingest::Options;
use unstuck_rules::{diagnose, Config, Diagnosis, Incremental};

const NOW: &str = "2024-06-03T12:00:00Z";

/// Objects by (stem, namespace, name), as raw JSON: what the test changes and sends as watch lines.
type Raw = BTreeMap<(String, String, String), Value>;

fn load(dir: &Path) -> (Store, Raw) {
    let mut store = Store::slimming();
    let mut raw = Raw::new();
    let mut by_stem: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut files = vec![dir.join("nodes.json")];
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        if e.path().is_dir() && e.file_name() != "_nodes" {
            for f in std::fs::read_dir(e.path()).unwrap().flatten() {
                files.push(f.path());
            }
        }
    }
    for f in files {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        if !unstuck_ingest::store::STORE_KINDS.contains(&stem.as_str()) {
            continue;
        }
        let v: Value = serde_json::from_slice(&std::fs::read(&f).unwrap()).unwrap();
        for item in v["items"].as_array().unwrap() {
            let m = &item["metadata"];
            let key = (
                stem.clone(),
                m["namespace"].as_str().unwrap_or("").to_string(),
                m["name"].as_str().unwrap().to_string(),
            );
            raw.insert(key, item.clone());
            by_stem.entry(stem.clone()).or_default().push(item.clone());
        }
    }
    for stem in unstuck_ingest::store::STORE_KINDS {
        let items = by_stem.remove(*stem).unwrap_or_default();
        let page = json!({"kind": "List", "metadata": {"resourceVersion": "1"}, "items": items}).to_string();
        let objs = parse_page(stem, "test", page.as_bytes()).unwrap();
        store.replace(stem, objs, "1".into()).unwrap();
    }
    (store, raw)
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[(self.next() % v.len() as u64) as usize]
    }
}

fn send(store: &mut Store, raw: &mut Raw, stem: &str, ty: &str, obj: Value) {
    let m = &obj["metadata"];
    let key =
        (stem.to_string(), m["namespace"].as_str().unwrap_or("").to_string(), m["name"].as_str().unwrap().to_string());
    let line = json!({"type": ty, "object": obj}).to_string();
    store.apply_watch_line(stem, "test watch", line.as_bytes()).unwrap();
    if ty == "DELETED" {
        raw.remove(&key);
    } else {
        raw.insert(key, obj);
    }
}

/// Set a node's Ready condition.
fn set_ready(node: &mut Value, status: &str, reason: &str, since: Option<&str>) {
    for c in node["status"]["conditions"].as_array_mut().unwrap() {
        if c["type"] == "Ready" {
            c["status"] = json!(status);
            c["reason"] = json!(reason);
            if let Some(t) = since {
                c["lastTransitionTime"] = json!(t);
            }
        }
    }
}

/// One random change of the kinds a cluster in trouble sees.
fn change(rng: &mut Rng, store: &mut Store, raw: &mut Raw, n: usize) {
    let of = |stem: &str| -> Vec<(String, String, String)> { raw.keys().filter(|k| k.0 == stem).cloned().collect() };
    let pods = of("pods");
    let nodes = of("nodes");
    match rng.next() % 11 {
        0 | 1 => {
            // A pod is deleted and hangs in Terminating.
            let k = rng.pick(&pods);
            let mut p = raw[k].clone();
            p["metadata"]["deletionTimestamp"] = json!("2024-06-03T10:00:00Z");
            p["metadata"]["deletionGracePeriodSeconds"] = json!(30);
            send(store, raw, "pods", "MODIFIED", p);
        }
        2 => {
            let k = rng.pick(&pods).clone();
            let p = raw[&k].clone();
            send(store, raw, "pods", "DELETED", p);
        }
        3 => {
            // A new pod of an existing one's owner, on another node, stuck creating.
            let k = rng.pick(&pods);
            let mut p = raw[k].clone();
            let node = rng.pick(&nodes).2.clone();
            p["metadata"]["name"] = json!(format!("{}-new{n}", k.2));
            p["metadata"]["uid"] = json!(format!("00000000-0000-4000-8000-{n:012}"));
            p["metadata"].as_object_mut().unwrap().remove("deletionTimestamp");
            p["spec"]["nodeName"] = json!(node);
            p["status"] = json!({"phase": "Pending", "containerStatuses": [{"name": "app", "ready": false, "restartCount": 0,
                "state": {"waiting": {"reason": "ContainerCreating"}}}],
                "conditions": [{"type": "PodScheduled", "status": "True", "lastTransitionTime": "2024-06-03T11:00:00Z"}]});
            send(store, raw, "pods", "ADDED", p);
        }
        4 => {
            // A node stops reporting.
            let k = rng.pick(&nodes);
            let mut node = raw[k].clone();
            set_ready(&mut node, "Unknown", "NodeStatusUnknown", Some("2024-06-03T10:30:00Z"));
            send(store, raw, "nodes", "MODIFIED", node);
        }
        5 => {
            // A node comes back.
            let k = rng.pick(&nodes);
            let mut node = raw[k].clone();
            set_ready(&mut node, "True", "KubeletReady", None);
            node["spec"].as_object_mut().map(|s| s.remove("taints"));
            send(store, raw, "nodes", "MODIFIED", node);
        }
        6 | 7 => {
            // An event about a pod.
            let k = rng.pick(&pods);
            let p = &raw[k];
            let (reason, message) = *rng.pick(&[
                ("FailedMount", "MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32"),
                ("FailedKillPod", "error killing pod: failed to \"KillContainer\" for \"app\" with KillContainerError: \"rpc error: code = DeadlineExceeded desc = context deadline exceeded\""),
                ("FailedCreatePodSandBox", "Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox: plugin type=\"calico\" failed (add): connection refused"),
                ("Scheduled", "Successfully assigned the pod"),
            ]);
            let ev = json!({
                "apiVersion": "v1", "kind": "Event",
                "metadata": {"name": format!("{}.t{n}", k.2), "namespace": k.1},
                "involvedObject": {"kind": "Pod", "namespace": k.1, "name": k.2, "uid": p["metadata"]["uid"]},
                "reason": reason, "message": message, "type": if reason == "Scheduled" { "Normal" } else { "Warning" },
                "source": {"component": "kubelet", "host": p["spec"]["nodeName"]},
                "firstTimestamp": "2024-06-03T11:50:00Z", "lastTimestamp": "2024-06-03T11:59:00Z", "count": 12
            });
            send(store, raw, "events", "ADDED", ev);
        }
        8 => {
            // A Deployment switches to Recreate and rolls out, or goes away.
            let ds = of("deployments");
            if ds.is_empty() {
                return;
            }
            let k = rng.pick(&ds);
            let mut d = raw[k].clone();
            if rng.next().is_multiple_of(3) {
                send(store, raw, "deployments", "DELETED", d);
            } else {
                d["spec"]["strategy"] = json!({"type": "Recreate"});
                d["metadata"]["generation"] = json!(d["metadata"]["generation"].as_i64().unwrap_or(1) + 1);
                send(store, raw, "deployments", "MODIFIED", d);
            }
        }
        9 => {
            let ss = of("statefulsets");
            if ss.is_empty() {
                return;
            }
            let k = rng.pick(&ss);
            let s = raw[k].clone();
            send(store, raw, "statefulsets", "DELETED", s);
        }
        _ => {
            // A pod that was stuck recovers (its deletion completes by a new pod of the same name).
            let k = rng.pick(&pods);
            let mut p = raw[k].clone();
            if let Some(m) = p["metadata"].as_object_mut() {
                m.remove("deletionTimestamp");
                m.insert("uid".into(), json!(format!("10000000-0000-4000-8000-{n:012}")));
            }
            send(store, raw, "pods", "MODIFIED", p);
        }
    }
}

fn opts() -> Options {
    Options { now: Some(NOW.parse().unwrap()), slim: true, logs: false, ..Options::default() }
}

fn full(store: &Store, cfg: &Config) -> Diagnosis {
    diagnose(&store.snapshot(&opts(), "https://test").unwrap(), cfg)
}

fn same(a: &Diagnosis, b: &Diagnosis, what: &str) {
    let ja = serde_json::to_value(&a.findings).unwrap();
    let jb = serde_json::to_value(&b.findings).unwrap();
    if ja != jb {
        let fa: Vec<String> = a.findings.iter().map(|f| format!("{} {}", f.rule, f.subject.display())).collect();
        let fb: Vec<String> = b.findings.iter().map(|f| format!("{} {}", f.rule, f.subject.display())).collect();
        let first = ja.as_array().unwrap().iter().zip(jb.as_array().unwrap()).find(|(x, y)| x != y);
        panic!("{what}: incremental {fa:?}\nfull {fb:?}\nfirst difference: {first:#?}");
    }
    assert_eq!(a.pods_stuck, b.pods_stuck, "{what}: stuck pods");
}

/// A generated cluster (every rule's incident on some nodes, no node logs) in a temporary directory.
fn generated(nodes: usize, pods_per_node: usize, namespaces: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("bundle");
    unstuck_gen::scale::write(&unstuck_gen::scale::Params {
        nodes,
        pods_per_node,
        log_bytes_per_node: 0,
        namespaces,
        log_profile: unstuck_gen::scale::LogProfile::Classic,
        out: dir.clone(),
    })
    .unwrap();
    (d, dir)
}

#[test]
fn incremental_findings_equal_a_full_evaluation() {
    let (_d, dir) = generated(80, 8, 6);
    let cfg = Config::default();
    for seed in [0x9e37_79b9_7f4a_7c15u64, 0x2545_f491_4f6c_dd1d] {
        let (mut store, mut raw) = load(&dir);
        store.take_dirty();
        let first = full(&store, &cfg);
        assert!(first.findings.len() > 10, "the generated cluster has incidents: {}", first.findings.len());
        let mut inc = Incremental::new(first, &cfg);
        let mut rng = Rng(seed);
        let mut scoped = 0;
        let mut covered = 0usize;
        for step in 0..120 {
            for i in 0..(1 + rng.next() % 3) {
                change(&mut rng, &mut store, &mut raw, step * 10 + i as usize);
            }
            let dirty = store.take_dirty();
            assert!(!dirty.all, "watch changes of tracked kinds are scoped");
            let (snap, scope) = store.scoped_snapshot(&dirty, &opts(), "https://test").unwrap();
            scoped += 1;
            covered += scope.nodes.len();
            inc.apply(diagnose(&snap, &cfg), &scope);
            let got = inc.diagnosis();
            same(&got, &full(&store, &cfg), &format!("seed {seed:x} step {step}"));
        }
        // The scope is a part of the cluster, not all of it.
        assert!(covered / scoped < 40, "scopes average {} of 80 nodes", covered / scoped);
    }
}

/// Leads (added to a finding after a full evaluation, as `serve` does) outlive a partial evaluation that
/// finds the same again, and go with the finding.
#[test]
fn leads_outlive_a_partial_evaluation_that_finds_the_same() {
    use unstuck_rules::{Evidence, EvidenceSource, LEAD_SIGNATURE};
    let (_d, dir) = generated(20, 4, 2);
    let cfg = Config::default();
    let (mut store, mut raw) = load(&dir);
    store.take_dirty();
    let mut first = full(&store, &cfg);
    let i = first.findings.iter().position(|f| f.subject.kind == "Pod").expect("a pod finding");
    let (uid, ns, name) = {
        let s = &first.findings[i].subject;
        (s.uid.clone(), s.namespace.clone(), s.name.clone())
    };
    const SUFFIX: &str = "; 1 node log line(s) name the pod and report a problem no signature knows";
    let lead = Evidence {
        source: EvidenceSource::Log,
        text: format!("E0603 11:00:00.000000 2231 kubelet.go:1] \"something new\" pod=\"{ns}/{name}\""),
        file: Some("_nodes/n/kubelet.log".into()),
        line: Some(7),
        time: None,
        count: None,
        last_time: None,
        last_line: None,
        signature: Some(LEAD_SIGNATURE.into()),
    };
    first.findings[i].summary.push_str(SUFFIX);
    first.findings[i].evidence.push(lead.clone());
    let rule = first.findings[i].rule.clone();
    let mut inc = Incremental::new(first, &cfg);
    let evaluate = |store: &mut Store, inc: &mut Incremental| {
        let dirty = store.take_dirty();
        let (snap, scope) = store.scoped_snapshot(&dirty, &opts(), "https://test").unwrap();
        assert!(scope.pods.contains(&uid), "the changed pod is evaluated again");
        inc.apply(diagnose(&snap, &cfg), &scope);
    };
    // A change that does not change the finding (a label): evaluated again, the lead stays.
    let key = ("pods".to_string(), ns.clone(), name.clone());
    let mut p = raw[&key].clone();
    p["metadata"]["labels"]["touched"] = json!("yes");
    send(&mut store, &mut raw, "pods", "MODIFIED", p.clone());
    evaluate(&mut store, &mut inc);
    let f = inc.findings().find(|f| f.subject.uid == uid).expect("the finding is still there");
    assert_eq!(f.rule, rule);
    assert!(f.summary.ends_with(SUFFIX), "{}", f.summary);
    assert_eq!(f.evidence.iter().filter(|e| **e == lead).count(), 1, "{:#?}", f.evidence);
    // Twice over: not added again.
    p["metadata"]["labels"]["touched"] = json!("again");
    send(&mut store, &mut raw, "pods", "MODIFIED", p.clone());
    evaluate(&mut store, &mut inc);
    let f = inc.findings().find(|f| f.subject.uid == uid).unwrap();
    assert_eq!(f.evidence.iter().filter(|e| **e == lead).count(), 1, "{:#?}", f.evidence);
    // The pod gone: its finding and its lead go.
    send(&mut store, &mut raw, "pods", "DELETED", p);
    evaluate(&mut store, &mut inc);
    assert!(inc.findings().all(|f| f.subject.uid != uid && !f.evidence.contains(&lead)));
}
