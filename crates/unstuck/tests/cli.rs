//! The command line as a user runs it: exit codes, formats, filters, bad input.

mod common;
use common::*;

fn ex(name: &str) -> String {
    example(name).display().to_string()
}

#[test]
fn exit_codes() {
    assert_eq!(run(&["diagnose", &ex("healthy-cluster")]).0, 0);
    assert_eq!(run(&["diagnose", &ex("seed-002-node-lost-recreate")]).0, 1);
    assert_eq!(run(&["diagnose", "/nonexistent/bundle"]).0, 2);
    assert_eq!(run(&["diagnose", "--bogus-flag", &ex("healthy-cluster")]).0, 2);
    assert_eq!(run(&["explain", "no-such-rule"]).0, 2);
}

#[test]
fn json_and_yaml_follow_the_schema() {
    let (code, out, _) = run(&["diagnose", &ex("seed-002-node-lost-recreate"), "-o", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["apiVersion"], "unstuck/v1");
    assert_eq!(v["kind"], "Report");
    assert_eq!(v["capturedAt"], "2020-05-18T10:30:00Z");
    assert_eq!(v["capturedAtSource"], "bundleManifest");
    let f = &v["findings"][0];
    for k in ["rule", "severity", "subject", "state", "summary", "evidence", "remediation"] {
        assert!(f.get(k).is_some(), "finding lacks {k}");
    }
    for k in ["kind", "name", "uid"] {
        assert!(f["subject"].get(k).is_some(), "subject lacks {k}");
    }
    let (_, y, _) = run(&["diagnose", &ex("seed-002-node-lost-recreate"), "-o", "yaml"]);
    let yv: serde_json::Value = serde_yaml_ng::from_str(&y).unwrap();
    assert_eq!(yv, v, "YAML and JSON carry the same report");
}

#[test]
fn schema_doc_names_every_field() {
    let doc = std::fs::read_to_string(root().join("docs/report-schema.md")).unwrap();
    let mut keys = std::collections::BTreeSet::new();
    for e in ["seed-000-poststart-hostpid", "seed-001-node-problems", "seed-002-node-lost-recreate", "mixed-cluster"] {
        let (_, out, _) = run(&["diagnose", &ex(e), "-o", "json"]);
        collect_keys(&serde_json::from_str(&out).unwrap(), &mut keys);
    }
    for k in keys {
        assert!(doc.contains(&format!("`{k}`")), "docs/report-schema.md does not document `{k}`");
    }
}

fn collect_keys(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                if k != "byRule" {
                    collect_keys(x, out);
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| collect_keys(x, out)),
        _ => {}
    }
}

#[test]
fn filters() {
    let (_, out, _) = run(&["diagnose", &ex("seed-001-node-problems"), "-o", "json", "--rule", "finalizer-blocked"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["findings"].as_array().unwrap().len(), 1);
    let (code, out, _) = run(&["diagnose", &ex("mixed-cluster"), "-o", "json", "-n", "default"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(code, 1, "the CNI node is still a finding");
    assert!(v["findings"].as_array().unwrap().iter().all(|f| f["subject"]["kind"] == "Node"));
    let (_, out, _) = run(&["diagnose", &ex("seed-002-node-lost-recreate"), "-o", "json", "-l", "app=redis"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let pods: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["subject"]["kind"] == "Pod")
        .map(|f| f["subject"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(pods, vec!["redis-1"]);
    assert_eq!(run(&["diagnose", &ex("mixed-cluster"), "--rule", "nope"]).0, 2);
    assert_eq!(run(&["diagnose", &ex("mixed-cluster"), "-l", "a b"]).0, 2);
}

#[test]
fn now_and_stuck_after() {
    // Before anything was deleted, nothing is stuck.
    // Nor is the node lost: its Ready=Unknown transition (08:13) had not happened yet.
    let (code, out, _) = run(&["diagnose", &ex("seed-002-node-lost-recreate"), "--now", "2020-05-18T08:00:00Z"]);
    assert_eq!(code, 0, "{out}");
    let (_, out, _) =
        run(&["diagnose", &ex("seed-002-node-lost-recreate"), "--now", "2020-05-18T08:00:00Z", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["podsStuck"], 0);
    assert_eq!(v["capturedAtSource"], "flag");
    // A huge threshold hides the Terminating pods.
    let (_, out, _) = run(&["diagnose", &ex("seed-002-node-lost-recreate"), "--stuck-after", "24h", "-o", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["podsStuck"], 0);
    assert_eq!(run(&["diagnose", &ex("healthy-cluster"), "--now", "yesterday"]).0, 2);
    assert_eq!(run(&["diagnose", &ex("healthy-cluster"), "--stuck-after", "soon"]).0, 2);
}

#[test]
fn markdown_and_html() {
    let (_, md, _) = run(&["diagnose", &ex("seed-000-poststart-hostpid"), "-o", "markdown"]);
    assert!(md.starts_with("# unstuck report"));
    assert!(md.contains("| 1 | critical | `poststart-exec-hang` |"));
    assert!(md.contains("```sh"));
    let (_, html, _) = run(&["diagnose", &ex("seed-001-node-problems"), "-o", "html"]);
    assert!(html.starts_with("<!doctype html>"));
    assert!(html.contains("<svg class=\"timeline\""));
    // The only URL in the page is the SVG namespace: nothing is loaded at view time.
    assert_eq!(html.matches("http://").count(), html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count());
    assert!(!html.contains("src=\"http") && !html.contains("href=\"http"), "no external resource");
    assert!(!html.contains("<script"), "no script, no network");
}

#[test]
fn no_color_when_not_a_terminal_and_color_always() {
    let (_, out, _) = run(&["diagnose", &ex("seed-000-poststart-hostpid")]);
    assert!(!out.contains('\x1b'));
    let (_, out, _) = run(&["diagnose", &ex("seed-000-poststart-hostpid"), "--color", "always"]);
    assert!(out.contains("\x1b["));
}

#[test]
fn rules_and_explain() {
    let (code, out, _) = run(&["rules"]);
    assert_eq!(code, 0);
    for r in unstuck_rules::catalog() {
        assert!(out.contains(r.id));
    }
    // By the STATUS kubectl prints: only the rules that explain it, in the order they are tried.
    let (code, out, _) = run(&["rules", "--state", "Terminating"]);
    assert_eq!(code, 0);
    let ids: Vec<&str> = out.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert_eq!(ids.first(), Some(&"finalizer-blocked"), "{out}");
    for want in ["volume-unmount-hang", "runtime-unresponsive", "sandbox-network-failure", "stuck-unknown"] {
        assert!(ids.contains(&want), "{want} explains Terminating pods:\n{out}");
    }
    for not in ["crash-loop", "image-pull-failure", "volume-mount-failure", "rollout-blocked-by-terminating"] {
        assert!(!ids.contains(&not), "{not} does not explain a Terminating pod:\n{out}");
    }
    let (_, out, _) = run(&["rules", "--state", "Init:0/1"]);
    assert!(out.contains("volume-mount-failure") && !out.contains("volume-unmount-hang"), "{out}");
    let (_, out, _) = run(&["rules", "--state", "imagepullbackoff"]);
    assert!(out.starts_with("node-lost") && out.contains("image-pull-failure") && !out.contains("crash-loop"), "{out}");
    let (code, _, err) = run(&["rules", "--state", "Running"]);
    assert_eq!(code, 2);
    assert!(err.contains("--state \"Running\": not a stuck state"), "{err}");
    let (code, out, _) = run(&["explain", "poststart-exec-hang"]);
    assert_eq!(code, 0);
    assert!(out.contains("## Remediation") && out.contains("kubernetes#92214"));
}

#[test]
fn logs_and_timeline() {
    let (code, out, _) = run(&["logs", "finance/ledger-export-0", &ex("seed-001-node-problems")]);
    assert_eq!(code, 0);
    assert!(out.contains("_nodes/v-docker-k7/messages:"), "{out}");
    assert!(out.contains("UnmountVolume.TearDown failed"));
    // In time order.
    let times: Vec<&str> = out.lines().map(|l| &l[..24]).filter(|t| t.starts_with('2')).collect();
    let mut sorted = times.clone();
    sorted.sort();
    assert_eq!(times, sorted);
    let (code, out, _) = run(&["timeline", "kube-system/khaos-guardian-bmzsk", &ex("seed-000-poststart-hostpid")]);
    assert_eq!(code, 0);
    assert!(out.contains("deletion deadline"), "{out}");
    assert!(out.contains("Started container khaos-agent"));
    // A kubelet line naming the pod twice (`pod="ns/name"` and its UID in `event={"ID":…}`) is shown once.
    let pleg: Vec<&str> = out.lines().filter(|l| l.contains("kubelet.log:3 ")).collect();
    assert_eq!(pleg.len(), 1, "{out}");
    let (code, _, err) = run(&["timeline", "web", &ex("seed-000-poststart-hostpid")]);
    assert_eq!(code, 2);
    assert!(err.contains("no pod"), "{err}");
}

#[test]
fn completions() {
    let (code, out, _) = run(&["completions", "bash"]);
    assert_eq!(code, 0);
    assert!(out.contains("diagnose"));
}

#[test]
fn user_signatures_from_a_file() {
    let d = tempfile::tempdir().unwrap();
    let b = d.path().join("bundle");
    walk_copy(&example("healthy-cluster"), &b);
    let log = b.join("_nodes/ip-10-2-0-10/messages");
    std::fs::write(&log, "Jun  3 11:50:01 ip-10-2-0-10 kernel: containerd-shim[4242]: segfault at 0 ip 000055d5 sp 00007ffd error 4 in containerd-shim\n").unwrap();
    let (code, _, _) = run(&["diagnose", b.to_str().unwrap()]);
    assert_eq!(code, 0, "no built-in signature for a shim segfault");
    let sigs = d.path().join("sigs.yaml");
    std::fs::write(&sigs, "- id: shim-segfault\n  pattern: \"segfault at\"\n  also: [\"containerd-shim\"]\n  component: kernel\n  severity: critical\n  scope: node\n  feeds: runtime-unresponsive\n").unwrap();
    let (code, out, err) =
        run(&["diagnose", b.to_str().unwrap(), "--signatures", sigs.to_str().unwrap(), "-o", "json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let f = &v["findings"][0];
    assert_eq!(f["rule"], "runtime-unresponsive");
    assert_eq!(f["subject"]["name"], "ip-10-2-0-10");
    assert_eq!(f["evidence"][0]["signature"], "shim-segfault");
    assert_eq!(f["evidence"][0]["file"], "_nodes/ip-10-2-0-10/messages");
    // A broken signature file is an error naming it.
    std::fs::write(&sigs, "- id: x\n").unwrap();
    let (code, _, err) = run(&["diagnose", b.to_str().unwrap(), "--signatures", sigs.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("sigs.yaml"), "{err}");
    let (code, out, _) = run(&["signatures"]);
    assert_eq!(code, 0);
    assert!(out.contains("pleg-unhealthy"));
}

fn walk_copy(from: &std::path::Path, to: &std::path::Path) -> Vec<std::path::PathBuf> {
    std::fs::create_dir_all(to).unwrap();
    let mut v = Vec::new();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            v.extend(walk_copy(&e.path(), &dst));
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
            v.push(dst);
        }
    }
    v
}

#[path = "../build_git.rs"]
mod build_git;

#[test]
fn version_names_the_commit() {
    let (code, out, err) = run(&["--version"]);
    assert_eq!(code, 0, "{err}");
    let re =
        regex::Regex::new(r"^unstuck (\d+\.\d+\.\d+) \(commit ([0-9a-f]{7,}|unknown)(?:, (\d{4}-\d{2}-\d{2}))?\)\n$")
            .unwrap();
    let c = re.captures(&out).unwrap_or_else(|| panic!("unexpected --version output: {out:?}"));
    assert_eq!(&c[1], env!("CARGO_PKG_VERSION"));
    // Built from this checkout: the commit is HEAD's (cargo re-runs build.rs when HEAD moves), unless a
    // release build overrode it.
    if std::env::var_os("UNSTUCK_BUILD_COMMIT").is_none() {
        match build_git::commit_of(&root()) {
            Some((hash, date)) => {
                assert_eq!(&c[2], hash, "{out}");
                assert_eq!(c.get(3).map(|m| m.as_str()), Some(date.as_str()), "{out}");
            }
            None => assert_eq!(&c[2], "unknown", "{out}"),
        }
    }
    // kubectl's plugin name says the same.
    let k = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-unstuck")).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&k.stdout), out);
}

#[test]
fn a_tree_outside_git_has_no_commit() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(build_git::commit_of(dir.path()), None);
    // A real checkout does: a fresh repository with one commit.
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .current_dir(dir.path())
            .args(args)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.invalid")
            .env("GIT_COMMITTER_DATE", "2026-11-23T12:00:00Z")
            .output()
            .map(|o| o.status.success())
    };
    if git(&["init", "-q"]).unwrap_or(false) {
        std::fs::write(dir.path().join("f"), "x").unwrap();
        assert!(git(&["add", "f"]).unwrap() && git(&["commit", "-q", "-m", "m"]).unwrap());
        let (hash, date) = build_git::commit_of(dir.path()).expect("a commit");
        assert_eq!(hash.len(), 7);
        assert_eq!(date, "2026-11-23");
    }
}

/// `logs` and `timeline` parse only the subject's namespace (and `default`, where events about Nodes are
/// kept): a broken pods file elsewhere does not stop them, while `diagnose`, which reads everything, names it.
/// The output is the same as from the untouched bundle.
#[test]
fn logs_and_timeline_read_only_the_subjects_namespace() {
    let d = tempfile::tempdir().unwrap();
    let b = d.path().join("bundle");
    walk_copy(&example("seed-000-poststart-hostpid"), &b);
    let node_event = serde_json::json!({
        "apiVersion": "v1", "kind": "EventList", "metadata": {"resourceVersion": "1"},
        "items": [{
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": "10.206.0.11.17a2", "namespace": "default", "uid": "e1"},
            "involvedObject": {"kind": "Node", "name": "10.206.0.11", "uid": "10.206.0.11"},
            "reason": "NodeHasSufficientPID", "message": "Node 10.206.0.11 status is now: NodeHasSufficientPID",
            "type": "Normal", "source": {"component": "kubelet", "host": "10.206.0.11"},
            "firstTimestamp": "2021-03-01T10:00:00Z", "lastTimestamp": "2021-03-01T10:00:00Z", "count": 1
        }]
    });
    std::fs::write(b.join("default/events.json"), node_event.to_string()).unwrap();
    let bs = b.to_str().unwrap();
    let (_, before, err) = run(&["timeline", "kube-system/khaos-guardian-bmzsk", bs]);
    assert!(before.contains("NodeHasSufficientPID"), "the node's event is on the pod's timeline: {err}");
    assert!(before.contains("Started container khaos-agent"), "{before}");
    let (_, logs_before, _) = run(&["logs", "c326b874-5fb9-4591-81b2-588df33bd1af", bs]);

    std::fs::create_dir_all(b.join("zz-unrelated")).unwrap();
    std::fs::write(b.join("zz-unrelated/pods.json"), "{\"kind\": \"PodList\", \"items\": [ {\"metadata\": ").unwrap();
    let (code, _, err) = run(&["diagnose", bs]);
    assert_eq!(code, 2, "diagnose reads every namespace");
    assert!(err.contains("zz-unrelated/pods.json"), "{err}");
    for subject in ["kube-system/khaos-guardian-bmzsk", "c326b874-5fb9-4591-81b2-588df33bd1af", "khaos-guardian-bmzsk"]
    {
        let (code, out, err) = run(&["timeline", subject, bs]);
        assert_eq!(code, 0, "{subject}: {err}");
        assert_eq!(out, before, "{subject}");
    }
    let (code, out, err) = run(&["logs", "c326b874-5fb9-4591-81b2-588df33bd1af", bs]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, logs_before);
    assert!(out.contains("_nodes/10.206.0.11/"), "{out}");
}

/// On a dump directory, `timeline` and `logs` first read the subject's namespace alone to learn what to
/// search the node logs for, then read the Nodes beside that search: the pod's node and its log lines are
/// both on the timeline. A namespace with no objects is read the ordinary way (same message as before).
#[test]
fn timeline_reads_the_nodes_beside_the_log_search() {
    let b = example("seed-000-poststart-hostpid");
    let bs = b.to_str().unwrap();
    let (code, out, err) = run(&["timeline", "kube-system/khaos-guardian-bmzsk", bs]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("node    node 10.206.0.11 Ready=True (KubeletReady)"), "the Node object was read: {out}");
    assert!(out.contains("  log    _nodes/10.206.0.11/"), "the node logs were searched: {out}");
    let seed4 = example("seed-004-kubelet-upgrade");
    let (code, out, err) = run(&["logs", "team/none", seed4.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("nothing found for \"team/none\""), "{err}");
}
