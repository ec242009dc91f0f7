//! `kubectl get pods|nodes|events` tables as input: what a ticket often holds instead of a dump. The
//! fixtures are tables users pasted into public issues (`tests/fixtures/tables/SOURCES.tsv` names each),
//! plus one ticket composed in the same layouts for seed 002.

mod common;

use std::path::PathBuf;

use common::{report, run, t, triples};

/// The report on `text` saved as a ticket at `at`.
fn ticket(text: impl AsRef<[u8]>, at: &str) -> unstuck_report::Report {
    let (_d, p) = common::saved_text(text, "ticket.txt", at);
    report(&p)
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tables").join(name)
}

/// The fixture as a file saved at `at`.
fn saved_at(name: &str, at: &str) -> (tempfile::TempDir, PathBuf) {
    common::saved_copy(&fixture(name), at)
}

#[test]
fn a_ticket_with_nodes_pods_and_events_tables_shows_the_lost_node_and_what_waits_on_it() {
    let (_d, p) = saved_at("ticket-node-lost.txt", "2024-06-03T10:00:00Z");
    let r = report(&p);
    assert_eq!(
        triples(&r),
        [
            t("node-lost", "Node", "node-07"),
            t("node-lost", "Pod", "shop/db-0"),
            t("node-lost", "Pod", "shop/web-6d4cf56db6-7xk2p"),
            t("unschedulable", "Pod", "shop/web-6d4cf56db6-q9vzt"),
        ]
    );
    assert_eq!(r.captured_at.to_string(), "2024-06-03T10:00:00Z");
    let db = r.findings.iter().find(|f| f.subject.name == "db-0").unwrap();
    // Dated by the taint manager's event (53m before the file was saved), not by the pod's AGE (12d).
    assert_eq!(db.stuck_for.as_deref(), Some("53m0s"), "{:?}", db.stuck_for);
    assert_eq!(db.state, "Terminating");
    assert_eq!(db.subject.uid, "table:shop/db-0");
    assert_eq!(db.subject.node, "node-07");
    let ev: Vec<&str> = db.evidence.iter().map(|e| e.text.as_str()).collect();
    assert!(ev.iter().any(|e| e.contains("the table does not say which")), "{ev:#?}");
    assert!(ev.iter().any(|e| e.contains("NodeNotReady")), "{ev:#?}");
    // The first step is to confirm the node is down; nothing can be applied (the UID is made up).
    assert!(db.remediation[0].action.contains("Confirm node node-07 is really down"), "{:#?}", db.remediation);
    // The table shows no owner: the force-delete step's risk says what that means for a StatefulSet pod.
    let risk = db.remediation.iter().filter_map(|s| s.risk.as_deref()).collect::<Vec<_>>().join("\n");
    assert!(risk.contains("the table shows no owner: if this is a StatefulSet pod"), "{risk}");
    // The healthy pod on the healthy node is read and not reported.
    assert!(!r.findings.iter().any(|f| f.subject.name.starts_with("cache-")));
    assert!(
        r.warnings.iter().any(|w| w.contains("no capture time") && w.contains("modification time")),
        "{:?}",
        r.warnings
    );
    assert!(r.warnings.iter().any(|w| w.contains("no UID, owner")), "{:?}", r.warnings);
    assert!(!r.warnings.iter().any(|w| w.contains("no Killing or TaintManagerEviction")), "{:?}", r.warnings);
}

#[test]
fn pods_in_crash_loop_from_a_plain_get_pods() {
    // kubernetes#17460: `kubectl get po`, no namespace or node columns, kubectl 1.1's wider gaps.
    let (_d, p) = saved_at("pods-5.txt", "2015-11-19T12:00:00Z");
    let r = report(&p);
    assert_eq!(
        triples(&r),
        [t("crash-loop", "Pod", "default/elasticsearch-attiy"), t("crash-loop", "Pod", "default/elasticsearch-lkl4i")]
    );
    assert!(r.warnings.iter().any(|w| w.contains("without a NAMESPACE column")), "{:?}", r.warnings);
    assert!(r.warnings.iter().any(|w| w.contains("without a NODE column")), "{:?}", r.warnings);
}

#[test]
fn unscheduled_pods_and_a_row_pushed_out_of_line_by_a_long_cell() {
    // coredns#3300: `-o wide`; the redacted IP `178.xxx.xxx.xxx` overflows its column on the last row.
    let (_d, p) = saved_at("pods-2.txt", "2019-09-25T12:00:00Z");
    let r = report(&p);
    assert_eq!(
        triples(&r),
        [
            t("unschedulable", "Pod", "kube-system/coredns-5644d7b6d9-fl7h8"),
            t("unschedulable", "Pod", "kube-system/coredns-5644d7b6d9-rvh6q")
        ]
    );
    assert_eq!(r.summary.pods_checked, 3);
}

#[test]
fn a_status_in_markdown_bold_on_a_row_out_of_line_still_reads() {
    // calico#7959: `**ContainerCreating**`, with node names shortened by the user.
    let (_d, p) = saved_at("pods-3.txt", "2023-08-10T12:00:00Z");
    let r = report(&p);
    assert_eq!(triples(&r).len(), 1, "{:?}", triples(&r));
    let f = &r.findings[0];
    assert_eq!(f.subject.name, "calico-kube-controllers-8787c9999-q4fqz");
    assert_eq!(f.state, "ContainerCreating");
    assert_eq!(f.subject.node, "worker-node1");
}

#[test]
fn a_terminating_pod_without_events_is_dated_by_its_age_and_the_report_says_so() {
    // weaveworks/scope#3554: one Terminating pod, nothing else.
    let (_d, p) = saved_at("pods-6.txt", "2019-02-01T12:00:00Z");
    let r = report(&p);
    assert_eq!(triples(&r).len(), 1);
    let f = &r.findings[0];
    assert_eq!(f.state, "Terminating");
    assert_eq!(f.stuck_for.as_deref(), Some("5d0h"), "{:?}", f.stuck_for);
    // The table shows no node: the first step finds it. Its made-up UID names nothing in logs: the next
    // step names the pod.
    assert_eq!(
        f.remediation[0].command.as_deref(),
        Some("kubectl get pod -n default prometheus-7fd97697fb-89jrx -o wide")
    );
    assert_eq!(
        f.remediation[1].command.as_deref(),
        Some("unstuck logs default/prometheus-7fd97697fb-89jrx <bundle>"),
        "{:#?}",
        f.remediation
    );
    assert!(
        r.warnings.iter().any(|w| w.contains("1 Terminating pod(s) with no Killing or TaintManagerEviction event")
            && w.contains("line 2: default/prometheus-7fd97697fb-89jrx")
            && w.contains("upper bound")),
        "{:?}",
        r.warnings
    );
}

#[test]
fn ready_nodes_and_running_pods_are_not_reported() {
    // calico#7958 (`get nodes -o wide`), kubernetes#62026 (a fresh cluster: kube-dns Pending for 1m).
    for (name, at) in [("nodes-1.txt", "2023-08-09T12:00:00Z"), ("pods-7.txt", "2018-03-28T12:00:00Z")] {
        let (_d, p) = saved_at(name, at);
        let (code, out, err) = run(&["diagnose", p.to_str().unwrap()]);
        assert_eq!(code, 0, "{name}: {out}\n{err}");
    }
}

#[test]
fn a_not_ready_node_says_the_table_cannot_tell_lost_from_reporting_a_problem() {
    // kubernetes#125217: one NotReady node among Ready ones.
    let (_d, p) = saved_at("nodes-2.txt", "2024-05-30T12:00:00Z");
    let r = report(&p);
    assert_eq!(triples(&r), [t("node-lost", "Node", "wp-5.novalocal")]);
    let ev = &r.findings[0].evidence;
    assert!(ev.iter().any(|e| e.text.contains("Ready=False") && e.text.contains("Ready=Unknown")), "{ev:#?}");
}

#[test]
fn a_row_that_does_not_line_up_is_refused_with_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pods.txt");
    let text = std::fs::read_to_string(fixture("pods-5.txt")).unwrap();
    // Whitespace collapsed on one row, as some ticket systems do.
    let bad = text
        .replace("frontend-81lqv        1/1       Running            0          1h", "frontend-81lqv 1/1 Running 0 1h");
    assert_ne!(bad, text);
    std::fs::write(&p, bad).unwrap();
    let (code, _out, err) = run(&["diagnose", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pods.txt") && err.contains("line 4:") && err.contains("does not line up"), "{err}");
}

#[test]
fn tables_in_several_files_are_read_together() {
    // The nodes table and the pods table of the ticket, each in its own file: the pods land on the node.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("ticket-node-lost.txt")).unwrap();
    let parts: Vec<&str> = text.split("\n\n").collect();
    assert_eq!(parts.len(), 3);
    let paths: Vec<PathBuf> = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let p = dir.path().join(format!("part-{i}.txt"));
            std::fs::write(&p, part).unwrap();
            p
        })
        .collect();
    let args: Vec<&str> = ["diagnose"]
        .into_iter()
        .chain(paths.iter().map(|p| p.to_str().unwrap()))
        .chain(["--now", "2024-06-03T10:00:00Z", "-o", "json"])
        .collect();
    let (code, out, err) = run(&args);
    assert_eq!(code, 1, "{err}");
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    let rules: Vec<(String, String, String)> = common::json_triples(&r);
    assert!(rules.contains(&t("node-lost", "Pod", "shop/db-0")), "{rules:?}");
    // The events were in another file: the pods' deletion is dated by their AGE, and the warning says so.
    let warnings = r["warnings"].to_string();
    assert!(warnings.contains("no Killing or TaintManagerEviction event in the same file"), "{warnings}");
}

/// The StatefulSet ticket with its `get sts` table's line replaced (`None`: removed).
fn sts_ticket(replace: Option<&str>) -> (tempfile::TempDir, PathBuf) {
    let text = std::fs::read_to_string(fixture("ticket-sts-node-lost.txt")).unwrap();
    let line = "statefulset.apps/db   2/3     12d   postgres     postgres:16.1\n";
    assert!(text.contains(line));
    let text = match replace {
        Some(r) => text.replace(line, r),
        None => text.replace("NAME                  READY   AGE   CONTAINERS   IMAGES\n", "").replace(line, ""),
    };
    common::saved_text(text, "ticket.txt", "2024-06-03T10:00:00Z")
}

#[test]
fn a_statefulset_pod_on_a_lost_node_blocks_its_statefulset_from_get_all() {
    let (_d, p) = saved_at("ticket-sts-node-lost.txt", "2024-06-03T10:00:00Z");
    let r = report(&p);
    assert_eq!(
        triples(&r),
        [
            t("node-lost", "Node", "node-07"),
            t("node-lost", "Pod", "shop/db-0"),
            t("rollout-blocked-by-terminating", "StatefulSet", "shop/db"),
        ]
    );
    let sts = r.findings.iter().find(|f| f.subject.kind == "StatefulSet").unwrap();
    let ev: Vec<&str> = sts.evidence.iter().map(|e| e.text.as_str()).collect();
    assert!(ev.iter().any(|e| e.contains("READY 2/3") && e.contains("shows no podManagementPolicy")), "{ev:#?}");
    assert!(
        ev.iter()
            .any(|e| e.contains("pod db-0 still holds its identity")
                && e.contains("tied to the StatefulSet by its name")),
        "{ev:#?}"
    );
    assert_eq!(sts.stuck_for.as_deref(), Some("53m0s"));
    // The pod's own finding says what it blocks and warns as for a StatefulSet pod.
    let db = r.findings.iter().find(|f| f.subject.name == "db-0").unwrap();
    assert!(db.blocks.iter().any(|b| b.kind == "StatefulSet" && b.name == "db"), "{:?}", db.blocks);
    let risk = db.remediation.iter().filter_map(|s| s.risk.as_deref()).collect::<Vec<_>>().join("\n");
    assert!(risk.contains("StatefulSet pod: force-deleting"), "{risk}");
    // The healthy ordinals are read and not reported; the service table is skipped with a warning.
    assert!(!r.findings.iter().any(|f| f.subject.name == "db-1" || f.subject.name == "db-2"));
    assert!(r.warnings.iter().any(|w| w.contains("CLUSTER-IP") && w.contains("is not read")), "{:?}", r.warnings);
}

#[test]
fn a_pod_is_not_tied_to_a_statefulset_of_another_name_or_without_one() {
    // A StatefulSet of another name: db-0 is not its pod.
    let (_d, p) = sts_ticket(Some("statefulset.apps/dbx  2/3     12d   postgres     postgres:16.1\n"));
    let r = report(&p);
    assert!(!r.findings.iter().any(|f| f.rule == "rollout-blocked-by-terminating"), "{:?}", triples(&r));
    // No StatefulSets table: the pod's owner is unknown, and its risk says what that means.
    let (_d2, p2) = sts_ticket(None);
    let r = report(&p2);
    assert_eq!(triples(&r), [t("node-lost", "Node", "node-07"), t("node-lost", "Pod", "shop/db-0")]);
    let db = r.findings.iter().find(|f| f.subject.name == "db-0").unwrap();
    assert!(db.blocks.is_empty(), "{:?}", db.blocks);
    let risk = db.remediation.iter().filter_map(|s| s.risk.as_deref()).collect::<Vec<_>>().join("\n");
    assert!(risk.contains("the table shows no owner: if this is a StatefulSet pod"), "{risk}");
}

#[test]
fn statefulsets_tables_users_pasted_read_without_findings_on_healthy_or_fresh_pods() {
    // `k -n example get sts` (all 3/3), `get sts,pod,pv,pvc -o wide` (web-0 creating for 3s), and the old
    // DESIRED/CURRENT layout: read, nothing reported.
    for (name, at) in [
        ("sts-4.txt", "2025-06-01T12:00:00Z"),
        ("all-2.txt", "2021-09-06T12:00:00Z"),
        ("sts-3.txt", "2017-06-09T12:00:00Z"),
    ] {
        let (_d, p) = saved_at(name, at);
        let (code, out, err) = run(&["diagnose", p.to_str().unwrap()]);
        assert_eq!(code, 0, "{name}: {out}\n{err}");
    }
}

#[test]
fn a_long_pending_pod_in_a_table_without_nodes_is_reported_with_what_the_table_cannot_tell() {
    // helm/charts#4305 (kubectl 1.9): `get po` without -o wide, myzk-zookeeper-0 Pending for 23m, and the
    // old `get sts` layout. Whether it was scheduled is unknown: stuck-unknown says so and how to find out.
    let (_d, p) = saved_at("sts-1.txt", "2018-02-01T12:00:00Z");
    let r = report(&p);
    // DESIRED 3, CURRENT 1: ordinal 0 is stuck, so OrderedReady never created 1 and 2.
    assert_eq!(
        triples(&r),
        [
            t("statefulset-ordinal-blocked", "StatefulSet", "default/myzk-zookeeper"),
            t("stuck-unknown", "Pod", "default/myzk-zookeeper-0")
        ]
    );
    let sts = &r.findings[0];
    let ev: Vec<&str> = sts.evidence.iter().map(|e| e.text.as_str()).collect();
    assert!(ev.iter().any(|e| e.contains("as kubectl get shows it: DESIRED 3, CURRENT 1")), "{ev:#?}");
    assert!(ev.iter().any(|e| e.contains("not in the input (myzk-zookeeper-1, myzk-zookeeper-2)")), "{ev:#?}");
    let f = &r.findings[1];
    assert_eq!(f.blocks.len(), 1, "the pod's finding names what it blocks");
    assert_eq!(f.stuck_for.as_deref(), Some("23m0s"));
    let ev: Vec<&str> = f.evidence.iter().map(|e| e.text.as_str()).collect();
    assert!(ev.iter().any(|e| e.contains("not checked: whether and where the pod was scheduled")), "{ev:#?}");
    // What a table cannot show is not claimed as checked.
    assert!(!ev.iter().any(|e| e.starts_with("checked: node health")), "{ev:#?}");
    assert_eq!(f.remediation[0].command.as_deref(), Some("kubectl get pod -n default myzk-zookeeper-0 -o wide"));
    // Pending for 3m: not yet stuck.
    let text = std::fs::read_to_string(fixture("sts-1.txt")).unwrap();
    assert!(text.contains("Pending   0          23m"));
    let (_dir, fresh) = common::saved_text(
        text.replace("Pending   0          23m", "Pending   0          3m "),
        "fresh.txt",
        "2018-02-01T12:00:00Z",
    );
    let (code, out, err) = run(&["diagnose", fresh.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}\n{err}");
}

#[test]
fn statefulsets_stopped_at_a_stuck_ordinal_in_real_pastes() {
    // Real pastes read after statefulset-ordinal-blocked was written, none tuned on (held out):
    // googlecodelabs/feedback#295 (mongo-1 Pending, DESIRED 3 CURRENT 2, no prompts) and kubernetes/website#8639
    // (cassandra-1 Pending with NODE <none>, `get statefulset cassandra` after the pods).
    for (name, sts, pod, missing) in [
        ("sts-2.txt", "default/mongo", "mongo-1", "(mongo-2)"),
        ("sts-6.txt", "default/cassandra", "cassandra-1", "(cassandra-2)"),
    ] {
        let (_d, p) = saved_at(name, "2018-06-01T12:00:00Z");
        let r = report(&p);
        let f = r
            .findings
            .iter()
            .find(|f| f.rule == "statefulset-ordinal-blocked")
            .unwrap_or_else(|| panic!("{name}: {:?}", triples(&r)));
        assert_eq!(format!("{}/{}", f.subject.namespace, f.subject.name), sts, "{name}");
        assert!(f.summary.contains(&format!("stops at {pod}")), "{name}: {}", f.summary);
        let ev: Vec<&str> = f.evidence.iter().map(|e| e.text.as_str()).collect();
        assert!(ev.iter().any(|e| e.contains(missing) && e.contains("not in the input")), "{name}: {ev:#?}");
        assert!(ev.iter().any(|e| e.contains("DESIRED 3, CURRENT 2")), "{name}: {ev:#?}");
        let pf = r.findings.iter().find(|f| f.subject.name == pod).expect("the pod's own finding");
        assert_eq!(pf.blocks.len(), 1, "{name}: the pod's finding names the StatefulSet it blocks");
    }
    // Look-alike (hashicorp/consul-helm#563): READY 0/3 but all three pods exist; nothing waits on one.
    let (_d, p) = saved_at("sts-7.txt", "2020-01-01T12:00:00Z");
    let r = report(&p);
    assert!(!r.findings.iter().any(|f| f.rule == "statefulset-ordinal-blocked"), "{:?}", triples(&r));
}

/// kubectl 1.26+ prints `SchedulingGated` for a pod its scheduling gates hold (keptn/lifecycle-toolkit#3296:
/// a gate the operator never removed): never-scheduled, naming the gates as not shown. The Running pods
/// beside it are not reported.
#[test]
fn a_pod_a_scheduling_gate_holds_is_never_scheduled_from_its_get_row() {
    let table = "NAME                            READY   STATUS            RESTARTS   AGE\n\
                 internal-app-5484969b58-sqx4v   2/2     Running           0          12d\n\
                 internal-app-54f6985b77-r4ncv   0/2     SchedulingGated   0          40m\n\
                 public-app-58b887b55d-8thbf     2/2     Running           0          40m\n";
    let r = ticket(table, "2024-03-19T12:00:00Z");
    assert_eq!(triples(&r), [t("never-scheduled", "Pod", "default/internal-app-54f6985b77-r4ncv")]);
    let f = &r.findings[0];
    assert!(f.summary.starts_with("held by scheduling gates (not shown in the input)"), "{}", f.summary);
    assert!(f.evidence.iter().any(|e| e.text == "PodScheduled=False (SchedulingGated)"), "{:#?}", f.evidence);
}

/// `kubectl get po -owide | grep Ter` pasted without its header (gitpod-io/gitpod#9673), behind
/// oh-my-zsh's prompt: the rows are read by their shape (READY, a status, restarts, an age, then `-o
/// wide`'s IP and NODE), each pod on its node. A line that is not such a row still needs a header.
#[test]
fn pod_rows_grepped_without_their_header_are_read_by_their_shape() {
    let text = "\n➜  us-stuck-in-pending kubectl get po -owide | grep pre\n\
        prebuild-0c45f4e9-abc3-4c29-9c85-a51abadd7300   0/1     Terminating         0               19h     10.20.7.155     headless-ws-us43-pool-thcf    <none>           <none>\n\
        prebuild-1996722a-f3f9-4a64-a2dc-04f237f3f3ae   0/1     Terminating         0               8m22s   10.20.253.235   headless-ws-us43-pool-ll7f    <none>           <none>\n\
        prebuild-48ee6d5d-7880-4864-ac52-5b5a3f0c9e11   1/1     Running             0               19h     10.20.25.117    headless-ws-us43-pool-tvlr    <none>           <none>\n\
        ...\n";
    let r = ticket(text, "2022-05-04T10:00:00Z");
    // Both Terminating pods past the threshold, each on its node; the Running one is not reported.
    assert_eq!(
        triples(&r),
        [
            t("stuck-unknown", "Pod", "default/prebuild-0c45f4e9-abc3-4c29-9c85-a51abadd7300"),
            t("stuck-unknown", "Pod", "default/prebuild-1996722a-f3f9-4a64-a2dc-04f237f3f3ae"),
        ]
    );
    let node = |pod: &str| r.findings.iter().find(|f| f.subject.name.starts_with(pod)).unwrap().subject.node.clone();
    assert_eq!(node("prebuild-0c45f4e9"), "headless-ws-us43-pool-thcf");
    assert_eq!(node("prebuild-1996722a"), "headless-ws-us43-pool-ll7f");
    assert!(r.findings.iter().all(|f| f.state == "Terminating"));
    // Old kubectl's `-A -o wide` (kubernetes#17488): NAMESPACE first, NODE right after AGE, empty while Pending.
    let text = "default            mailhog-ycokx       0/1       Pending   0          1h        \n\
        kube-system        nrsysmond-0gf77     1/1       Running   0          23m       ip-10-0-12-147.eu-west-1.compute.internal\n";
    let r = ticket(text, "2015-11-19T10:00:00Z");
    assert_eq!(triples(&r), [t("stuck-unknown", "Pod", "default/mailhog-ycokx")]);
    // Text pasted right under such rows ends them (their header was only inferred): skipped, with a warning.
    let text = "web-0   0/1     Terminating   0          3h\nName:         web-0\nNamespace:    default\n";
    let r = ticket(text, "2022-05-04T10:00:00Z");
    assert_eq!(triples(&r), [t("stuck-unknown", "Pod", "default/web-0")]);
    assert!(r.warnings.iter().any(|w| w.contains("skipped (lines 2–3)")), "{:?}", r.warnings);
    // Prose is not a row: still refused, naming the line.
    let (_d, p) = common::saved_text("the pod web-0 is 0/1 and stuck since 3h\n", "ticket.txt", "2022-05-04T10:00:00Z");
    let (code, _, err) = run(&["diagnose", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
}

/// `kubectl get pods | grep console` with NODE (Cray-HPE/docs-csm's ConMan troubleshooting page): every
/// pod shown on ncn-w001 is Terminating, those on other nodes run, and no `get nodes` says why. No rule
/// can name the cause from that, but stuck-unknown says what it looks like and asks for the node first.
#[test]
fn terminating_pods_on_one_node_the_input_lacks_point_at_the_node() {
    let rows = "NAME                                   READY   STATUS         RESTARTS   AGE    NODE\n\
        cray-console-data-6ff47b7454-ch5dj     2/2     Running        0          4d3h   ncn-w003\n\
        cray-console-data-postgres-1           3/3     Terminating    0          3d22h  ncn-w001\n\
        cray-console-node-0                    3/3     Terminating    0          16h    ncn-w001\n\
        cray-console-node-1                    3/3     Running        0          4d22h  ncn-w002\n";
    let lead = |r: &unstuck_report::Report| -> Vec<String> {
        r.findings
            .iter()
            .flat_map(|f| f.evidence.iter().map(|e| e.text.clone()))
            .filter(|t| t.starts_with("nearest miss: node-lost"))
            .collect()
    };
    let r = ticket(rows, "2022-11-02T10:00:00Z");
    assert_eq!(
        triples(&r),
        [
            t("stuck-unknown", "Pod", "default/cray-console-data-postgres-1"),
            t("stuck-unknown", "Pod", "default/cray-console-node-0")
        ]
    );
    let l = lead(&r);
    assert_eq!(l.len(), 2, "{l:?}");
    assert!(l[0].contains("all 2 pods shown on node ncn-w001 are Terminating while 2 on other nodes are not"), "{l:?}");
    let steps: Vec<&str> = r.findings[0].remediation.iter().filter_map(|s| s.command.as_deref()).collect();
    assert!(steps.contains(&"kubectl get node ncn-w001 -o wide"), "{steps:?}");
    // Not when a pod on that node still runs, nor when the pods elsewhere are Terminating too.
    let one_runs =
        format!("{rows}cray-console-operator-575d8b9f9d-s95v9 2/2     Running        0          30m    ncn-w001\n");
    let (_d, p) = common::saved_text(&one_runs, "ticket.txt", "2022-11-02T10:00:00Z");
    assert!(lead(&report(&p)).is_empty());
    let everywhere = rows.replace("Running    ", "Terminating");
    let (_d, p) = common::saved_text(&everywhere, "ticket.txt", "2022-11-02T10:00:00Z");
    assert!(lead(&report(&p)).is_empty());
    // With the node in the input its Ready is read instead: no lead, no step asking for it.
    let with_node =
        format!("{rows}\nNAME       STATUS   ROLES    AGE   VERSION\nncn-w001   Ready    <none>   90d   v1.21.12\n");
    let r = ticket(&with_node, "2022-11-02T10:00:00Z");
    assert!(lead(&r).is_empty());
    assert!(r
        .findings
        .iter()
        .flat_map(|f| &f.remediation)
        .all(|s| s.command.as_deref() != Some("kubectl get node ncn-w001 -o wide")));
}

/// A terminal session pasted whole: `kubectl get pod -o yaml` and its manifest, then `kubectl get nodes`.
/// Each command's output is read by what it is, so the pod on the NotReady node is node-lost's; a JSON
/// manifest cut where the next command starts (kubernetes#48920, with kubectl 1.7's `get nodes` without
/// ROLES) is read up to its cut, with a warning; cut alone it is still refused, naming its line.
#[test]
fn a_terminal_session_with_a_manifest_and_tables_reads_each_part() {
    let yaml = "$ kubectl get pod web-0 -n shop -o yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-0\n  namespace: shop\n  uid: 6f1c2d3e-1111-2222-3333-444455556666\n  creationTimestamp: \"2024-06-01T10:00:00Z\"\n  deletionTimestamp: \"2024-06-02T10:00:00Z\"\nspec:\n  nodeName: node-07\n  containers:\n  - name: web\n    image: nginx\nstatus:\n  phase: Running\n$ kubectl get nodes\nNAME      STATUS     ROLES    AGE   VERSION\nnode-07   NotReady   <none>   90d   v1.29.1\nnode-08   Ready      <none>   90d   v1.29.1\n";
    let r = ticket(yaml, "2024-06-03T10:00:00Z");
    assert_eq!(triples(&r), [t("node-lost", "Node", "node-07"), t("node-lost", "Pod", "shop/web-0")]);
    // The pod is the manifest's (its own UID), not a table's.
    let pod = r.findings.iter().find(|f| f.subject.kind == "Pod").unwrap();
    assert_eq!(pod.subject.uid, "6f1c2d3e-1111-2222-3333-444455556666");
    let json = "{\n  \"kind\": \"Pod\",\n  \"apiVersion\": \"v1\",\n  \"metadata\": {\n    \"name\": \"nginx-test-1771026684-wj1sm\",\n    \"namespace\": \"default\",\n    \"creationTimestamp\": \"2017-07-14T03:49:44Z\",\n    \"deletionTimestamp\": \"2017-07-14T03:53:01Z\",\n    \"ownerReferences\": [\n      {\n        \"apiVersion\": \"extensions/v1beta1\",\n        \"kin\n\n[root@docker3006 ~]# kubectl get nodes\nNAME                           STATUS     AGE       VERSION\ndocker3005.se.zzzc.qihoo.net   NotReady   18h       v1.7.0\n";
    let r = ticket(json, "2017-07-14T23:59:59Z");
    assert_eq!(
        triples(&r),
        [
            t("node-lost", "Node", "docker3005.se.zzzc.qihoo.net"),
            t("stuck-unknown", "Pod", "default/nginx-test-1771026684-wj1sm")
        ]
    );
    assert!(
        r.warnings
            .iter()
            .any(|w| w.contains("the manifest at lines 1–12 is not whole") && w.contains("cut after line 11")),
        "{:?}",
        r.warnings
    );
    // Cut alone, with no command after it: bad input, as before.
    let alone = json.split("\n\n").next().unwrap();
    let (_d, p) = common::saved_text(alone, "pod.json", "2017-07-14T23:59:59Z");
    let (code, _, err) = run(&["diagnose", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("pod.json:12:"), "{err}");
    // Last in a session, with no command after it, nothing shows where it was cut: refused too.
    let last = format!("$ kubectl get nodes\nNAME   STATUS   ROLES    AGE   VERSION\nn1     Ready    <none>   9d    v1.7.0\n$ kubectl get pod x -o json\n{alone}");
    let (_d, p) = common::saved_text(&last, "ticket.txt", "2017-07-14T23:59:59Z");
    let (code, _, err) = run(&["diagnose", p.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
}

/// kubectl prints `Unknown` for a pod being deleted that the node controller marked `NodeLost` (its node
/// stopped reporting), and for phase `Unknown`. With no Node object in the input that mark is the evidence:
/// node-lost, saying the node's state was not checked. Without `-o wide` the first step asks for the pod's
/// node; with it, the node is named and the out-of-service taint is offered once it is confirmed down.
/// Running pods beside it, and a Terminating pod (no mark), are not node-lost.
#[test]
fn an_unknown_pod_whose_node_the_input_does_not_hold_is_node_lost() {
    let text = "$ kubectl get pods\n\
        NAME                   READY   STATUS        RESTARTS   AGE\n\
        api-6d9b46bf-9gj44     4/4     Running       1          20m\n\
        api-6d9b46bf-k89hz     4/4     Unknown       0          149m\n\
        web-7c5d4f8b9-x2x2x    1/1     Terminating   0          149m\n";
    let r = ticket(text, "2024-06-03T10:00:00Z");
    assert_eq!(
        triples(&r),
        [t("node-lost", "Pod", "default/api-6d9b46bf-k89hz"), t("stuck-unknown", "Pod", "default/web-7c5d4f8b9-x2x2x")]
    );
    let f = &r.findings[0];
    assert_eq!(f.state, "Unknown");
    let ev: Vec<&str> = f.evidence.iter().map(|e| e.text.as_str()).collect();
    assert!(
        ev.iter().any(|e| e.contains("marked NodeLost") && e.contains("the input shows no node for it")),
        "{ev:#?}"
    );
    assert!(f.remediation[0].command.as_deref().is_some_and(|c| c.contains("-o wide")), "{:#?}", f.remediation);
    assert!(
        f.remediation.iter().all(|s| !s.command.as_deref().unwrap_or("").contains("taint")),
        "{:#?}",
        f.remediation
    );
    // A table shows no owner: the force delete warns that the pod may be a StatefulSet's.
    let force = f.remediation.iter().find(|s| s.command.as_deref().is_some_and(|c| c.contains("--force")));
    assert!(force.and_then(|s| s.risk.as_deref()).is_some_and(|r| r.contains("StatefulSet")), "{:#?}", f.remediation);

    // With -o wide: the node is named, and the out-of-service taint waits for it to be confirmed down.
    let wide = "$ kubectl get pods -o wide\n\
        NAME                 READY   STATUS    RESTARTS   AGE    IP          NODE     NOMINATED NODE   READINESS GATES\n\
        api-6d9b46bf-k89hz   4/4     Unknown   0          149m   10.0.0.7    node-3   <none>           <none>\n";
    let r = ticket(wide, "2024-06-03T10:00:00Z");
    assert_eq!(triples(&r), [t("node-lost", "Pod", "default/api-6d9b46bf-k89hz")]);
    let f = &r.findings[0];
    assert!(f.summary.contains("node node-3 stopped reporting"), "{}", f.summary);
    let taint = f.remediation.iter().find(|s| s.command.as_deref().is_some_and(|c| c.contains("out-of-service")));
    assert!(
        taint.is_some_and(|s| s.requires.iter().any(|r| r.contains("node-3 is confirmed down"))),
        "{:#?}",
        f.remediation
    );
}

/// When the input holds the pod's node and it reports Ready, an `Unknown` row is not taken for a lost node
/// on the row's word alone.
#[test]
fn an_unknown_pod_on_a_node_shown_ready_is_not_node_lost_by_its_mark_alone() {
    let text = "$ kubectl get pods -o wide\n\
        NAME                 READY   STATUS    RESTARTS   AGE    IP          NODE     NOMINATED NODE   READINESS GATES\n\
        api-6d9b46bf-k89hz   4/4     Unknown   0          149m   10.0.0.7    node-3   <none>           <none>\n\
        \n\
        $ kubectl get nodes\n\
        NAME     STATUS   ROLES    AGE   VERSION\n\
        node-3   Ready    <none>   9d    v1.29.4\n";
    let r = ticket(text, "2024-06-03T10:00:00Z");
    assert!(r.findings.iter().all(|f| f.rule != "node-lost"), "{:#?}", triples(&r));
}

/// A `get pods` table without `-o wide` shows no node, but a pod in ContainerCreating or `Init:0/1` was
/// placed (the kubelet reports its containers): it is judged as placed, so the events beside it explain it
/// (here a failed mount), and an `Init:0/1` row is the init container's, said as the row can say it. A
/// `Pending` row is still the unknown-placement case.
#[test]
fn placed_pods_in_a_table_without_nodes_are_explained_by_the_events_beside_them() {
    let text = "$ kubectl get pods -n shop\n\
        NAME                   READY   STATUS              RESTARTS   AGE\n\
        web-6d4cf56db6-7xk2p   0/1     ContainerCreating   0          47m\n\
        api-5f4e3d2c1-pqrst    0/1     Init:0/1            0          47m\n\
        job-5c4b3a2d1-abcde    0/1     Pending             0          47m\n\
        cache-0                1/1     Running             0          3d\n\
        \n\
        $ kubectl get events -n shop\n\
        LAST SEEN   TYPE      REASON        OBJECT                     MESSAGE\n\
        2m          Warning   FailedMount   pod/web-6d4cf56db6-7xk2p   MountVolume.SetUp failed for volume \"data\" : mount failed: exit status 32\n";
    let r = ticket(text, "2024-06-03T10:00:00Z");
    assert_eq!(
        triples(&r),
        [
            t("init-container-waiting", "Pod", "shop/api-5f4e3d2c1-pqrst"),
            t("stuck-unknown", "Pod", "shop/job-5c4b3a2d1-abcde"),
            t("volume-mount-failure", "Pod", "shop/web-6d4cf56db6-7xk2p"),
        ]
    );
    let init = r.findings.iter().find(|f| f.rule == "init-container-waiting").unwrap();
    let ev: Vec<&str> = init.evidence.iter().map(|e| e.text.as_str()).collect();
    assert!(ev.iter().any(|e| e.contains("a table cannot tell one that runs")), "{ev:#?}");
    // No made-up container name in a command.
    let commands: Vec<&str> = init.remediation.iter().filter_map(|s| s.command.as_deref()).collect();
    assert!(commands.iter().all(|c| !c.contains("init-1")), "{commands:?}");
    assert!(commands[0].starts_with("kubectl describe pod"), "{commands:?}");
}

/// A state reported at any age says so when young, with the reason that fits it: an Unknown pod is the
/// node controller's verdict, a crash loop the kubelet's after a failed start.
#[test]
fn young_findings_say_why_they_are_reported_at_any_age() {
    let text = "$ kubectl get pods -o wide\n\
        NAME     READY   STATUS             RESTARTS   AGE   IP          NODE     NOMINATED NODE   READINESS GATES\n\
        api-0    1/1     Unknown            0          2m    10.0.0.7    node-3   <none>           <none>\n\
        web-0    0/1     CrashLoopBackOff   3          2m    10.0.0.8    node-4   <none>           <none>\n";
    let r = ticket(text, "2024-06-03T10:00:00Z");
    let note = |name: &str| {
        let f = r.findings.iter().find(|f| f.subject.name == name).unwrap_or_else(|| panic!("{name}: {r:#?}"));
        f.evidence.iter().map(|e| e.text.clone()).find(|e| e.contains("reported at any age")).unwrap_or_default()
    };
    assert!(note("api-0").contains("node controller marks a pod Unknown"), "{}", note("api-0"));
    assert!(
        note("web-0").contains("the kubelet gives CrashLoopBackOff only after an attempt failed"),
        "{}",
        note("web-0")
    );
    assert!(note("web-0").contains("under the 5m0s threshold"), "{}", note("web-0"));
}
