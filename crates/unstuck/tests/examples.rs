//! Every seed incident is found from its example bundle, with the right rule and subject; healthy and
//! borderline pods are never reported.

mod common;
use common::*;

#[test]
fn seed_000_poststart_hostpid_docker() {
    let r = report(&example("seed-000-poststart-hostpid"));
    assert_eq!(
        triples(&r),
        vec![
            t("poststart-exec-hang", "Pod", "kube-system/khaos-guardian-bmzsk"),
            t("poststart-exec-hang", "Pod", "kube-system/khaos-guardian-x7k2p"),
        ]
    );
    let f = &r.findings[0];
    // Fix order: the workload first, then the host containers, then the force delete.
    let cmds: Vec<&str> = f.remediation.iter().filter_map(|s| s.command.as_deref()).collect();
    assert!(cmds[0].starts_with("kubectl edit daemonset -n kube-system khaos-guardian"), "{cmds:?}");
    assert!(cmds[1].contains("docker rm -f"), "{cmds:?}");
    assert!(cmds[2].contains("--grace-period=0 --force"), "{cmds:?}");
    assert_eq!(f.blast_radius.as_deref(), Some("pod"));
}

#[test]
fn seed_001_node_problems() {
    let r = report(&example("seed-001-node-problems"));
    assert_eq!(
        triples(&r),
        vec![
            t("finalizer-blocked", "Pod", "finance/batch-reconcile-28012345-7xkq2"),
            t("pid-exhaustion", "Node", "v-docker-k6"),
            t("pid-exhaustion", "Pod", "finance/report-worker-7b9f8c6d5-kx2lp"),
            t("pid-exhaustion", "Pod", "finance/report-worker-7b9f8c6d5-m4n8q"),
            t("pid-exhaustion", "Pod", "finance/report-worker-7b9f8c6d5-z7v1c"),
            t("rollout-blocked-by-terminating", "StatefulSet", "finance/ledger-export"),
            t("runtime-unresponsive", "Node", "v-docker-k8"),
            t("runtime-unresponsive", "Pod", "finance/billing-api-5f7d9b8c4-h2j6k"),
            t("runtime-unresponsive", "Pod", "finance/billing-api-5f7d9b8c4-p8r3t"),
            t("volume-unmount-hang", "Node", "v-docker-k7"),
            t("volume-unmount-hang", "Pod", "finance/ledger-export-0"),
        ]
    );
    // One pod vs the whole node (seed 001, step 7).
    let radius = |name: &str| r.findings.iter().find(|f| f.subject.name == name).unwrap().blast_radius.clone();
    assert_eq!(radius("report-worker-7b9f8c6d5-kx2lp").as_deref(), Some("node"));
    assert_eq!(radius("batch-reconcile-28012345-7xkq2").as_deref(), Some("pod"));
    // Log evidence cites file and line.
    let nfs = r.findings.iter().find(|f| f.subject.name == "ledger-export-0").unwrap();
    let log = nfs
        .evidence
        .iter()
        .find(|e| e.signature.as_deref().is_some_and(|s| s.split(", ").any(|s| s == "unmount-teardown-failed")))
        .expect("teardown line attributed by UID");
    assert_eq!(log.file.as_deref(), Some("_nodes/v-docker-k7/messages"));
    assert!(log.line.unwrap() >= 5 && log.count == Some(4), "{log:?}");
    let pid = r.findings.iter().find(|f| f.subject.kind == "Node" && f.subject.name == "v-docker-k6").unwrap();
    assert!(pid.evidence.iter().any(|e| e.text.contains("fork/exec /usr/bin/runc: resource temporarily unavailable")));
    // The node plan follows seed 001: cordon, delete node, clean + reboot, rejoin, relabel.
    let steps: Vec<&str> = pid.remediation.iter().filter_map(|s| s.command.as_deref()).collect();
    let pos =
        |needle: &str| steps.iter().position(|c| c.contains(needle)).unwrap_or_else(|| panic!("{needle} in {steps:?}"));
    assert!(pos("kubectl cordon") < pos("kubectl delete node"));
    assert!(pos("kubectl delete node") < pos("systemctl reboot"));
    assert!(pos("systemctl reboot") < pos("kubectl label node"));
}

#[test]
fn seed_002_node_lost_blocks_recreate_and_statefulset() {
    let r = report(&example("seed-002-node-lost-recreate"));
    assert_eq!(
        triples(&r),
        vec![
            t("node-lost", "Node", "node-10-9-3-21"),
            t("node-lost", "Pod", "ops/go-abtestservice-smzdm-com-7697bd68c9-5xq2w"),
            t("node-lost", "Pod", "ops/nginx-gateway-6b7f9c5d8-r4t2n"),
            t("node-lost", "Pod", "ops/redis-1"),
            t("rollout-blocked-by-terminating", "Deployment", "ops/go-abtestservice-smzdm-com"),
            t("rollout-blocked-by-terminating", "StatefulSet", "ops/redis"),
        ]
    );
    let pod = r.findings.iter().find(|f| f.subject.name == "go-abtestservice-smzdm-com-7697bd68c9-5xq2w").unwrap();
    assert_eq!(pod.blocks.len(), 1);
    assert_eq!(pod.blocks[0].name, "go-abtestservice-smzdm-com");
    // The RollingUpdate Deployment is not blocked (its replacement already runs).
    assert!(!r.findings.iter().any(|f| f.subject.name == "nginx-gateway"));
    let redis = r.findings.iter().find(|f| f.subject.name == "redis-1").unwrap();
    assert!(redis.remediation.iter().any(|s| s.risk.as_deref().is_some_and(|x| x.contains("StatefulSet"))));
}

#[test]
fn mixed_cluster_one_pod_per_cause_and_nothing_else() {
    let r = report(&example("mixed-cluster"));
    assert_eq!(
        triples(&r),
        vec![
            t("container-config-error", "Pod", "shop/settings-6c5b4a3f2-cfgme"),
            t("crash-loop", "Pod", "shop/checkout-7c6d5e4f3-fghij"),
            t("evicted", "Pod", "shop/thumbnailer-8e7d6c5b4-uvwxy"),
            t("image-pull-failure", "Pod", "shop/cart-5d8f7b9c6-abcde"),
            t("image-pull-failure", "Pod", "shop/ledger-2"),
            t("init-container-waiting", "Pod", "shop/orders-api-5f6e7d8c9-initw"),
            t("never-scheduled", "Pod", "shop/report-export-6c9f8d7b5-x7k2q"),
            t("oom-killed", "Pod", "shop/search-6b5a4c3d2-klmno"),
            t("sandbox-network-failure", "Node", "ip-10-1-1-13"),
            t("sandbox-network-failure", "Pod", "shop/payments-9a8b7c6d5-netwk"),
            t("stale-out-of-service-taint", "Node", "ip-10-1-1-14"),
            t("statefulset-ordinal-blocked", "StatefulSet", "shop/ledger"),
            t("stuck-unknown", "Pod", "shop/legacy-report-3c2b1a0f9-qqqqq"),
            t("unschedulable", "Pod", "shop/recommender-5f4e3d2c1-pqrst"),
            t("volume-mount-failure", "Pod", "shop/orders-db-migrate-4d3c2b1a0-zzzzz"),
        ]
    );
    let names: Vec<&str> = r.findings.iter().map(|f| f.subject.name.as_str()).collect();
    for never in
        ["nightly-28612345-done1", "frontend-5c4b3a2d1-grace", "frontend-5c4b3a2d1-young", "frontend-5c4b3a2d1-fresh"]
    {
        assert!(!names.contains(&never), "{never} must not be reported");
    }
    assert_eq!(r.summary.pods_stuck, 12);
}

#[test]
fn seed_004_kubelet_upgrade_restart_wave() {
    let r = report(&example("seed-004-kubelet-upgrade"));
    assert_eq!(triples(&r), vec![t("container-hash-change", "Node", "10-10-66-204")]);
    let f = &r.findings[0];
    // Every non-pause container on the node was recreated (the seed): each line names its pod by UID.
    let pods: Vec<&str> = f.pods.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        pods,
        ["kube-proxy-6d2qw", "prometheus-node-exporter-l7vzz"],
        "attributed by the UIDs in the kubelet lines"
    );
    assert!(f.evidence.iter().any(|e| e.text.contains("Container spec hash changed (1559107639 vs 1428860573)")));
}

#[test]
fn healthy_cluster_has_no_findings() {
    let r = report(&example("healthy-cluster"));
    assert!(r.findings.is_empty(), "{:?}", triples(&r));
}

#[test]
fn every_pod_rule_is_exercised_by_an_example() {
    let mut seen = std::collections::BTreeSet::new();
    for e in [
        "seed-000-poststart-hostpid",
        "seed-001-node-problems",
        "seed-002-node-lost-recreate",
        "seed-004-kubelet-upgrade",
        "mixed-cluster",
    ] {
        for f in report(&example(e)).findings {
            seen.insert(f.rule);
        }
    }
    for r in unstuck_rules::catalog() {
        assert!(seen.contains(r.id), "rule {} has no example that triggers it", r.id);
    }
}

#[test]
fn each_stuck_pod_appears_in_exactly_one_pod_finding() {
    for e in ["seed-000-poststart-hostpid", "seed-001-node-problems", "seed-002-node-lost-recreate", "mixed-cluster"] {
        let r = report(&example(e));
        let mut uids: Vec<&str> =
            r.findings.iter().filter(|f| f.subject.kind == "Pod").map(|f| f.subject.uid.as_str()).collect();
        let n = uids.len();
        uids.sort();
        uids.dedup();
        assert_eq!(n, uids.len(), "{e}");
        assert_eq!(n, r.summary.pods_stuck, "{e}");
    }
}

#[test]
fn examples_are_what_the_generator_writes() {
    // The shipped examples must not drift from their generator.
    let tmp = tempfile::tempdir().unwrap();
    for (name, b) in unstuck_gen::scenarios::all() {
        let dir = tmp.path().join(name);
        b.write(&dir).unwrap();
        for entry in walk(&dir) {
            let rel = entry.strip_prefix(&dir).unwrap();
            let shipped = example(name).join(rel);
            let a = std::fs::read(&entry).unwrap();
            let b = std::fs::read(&shipped).unwrap_or_else(|_| {
                panic!("{} missing; run: cargo run -p unstuck-gen -- examples examples", shipped.display())
            });
            assert!(
                a == b,
                "{} differs from the generator; run: cargo run -p unstuck-gen -- examples examples",
                shipped.display()
            );
        }
        // Nor hold a file the generator does not write (it would be lost on the next regeneration).
        for shipped in walk(&example(name)) {
            let rel = shipped.strip_prefix(example(name)).unwrap();
            assert!(
                dir.join(rel).exists(),
                "{} is not written by the generator (regenerating the examples deletes it)",
                shipped.display()
            );
        }
    }
}

fn walk(d: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(d).unwrap().flatten() {
        if e.file_type().unwrap().is_dir() {
            v.extend(walk(&e.path()));
        } else {
            v.push(e.path());
        }
    }
    v
}
