//! `unstuck hash` and `unstuck upgrade-check` as a user runs them.

mod common;
use common::*;

#[test]
fn hash_of_the_seed_container_both_versions() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("c.yaml");
    std::fs::write(
        &f,
        "name: prometheus-node-exporter\nimage: harbor.finupgroup.com/kubernetes/node-exporter:v0.16.0\nports:\n- name: prom-node-exp\n  hostPort: 9100\n  containerPort: 9100\n  protocol: TCP\nresources: {}\nvolumeMounts:\n- name: default-token-bks80\n  readOnly: true\n  mountPath: /var/run/secrets/kubernetes.io/serviceaccount\nterminationMessagePath: /dev/termination-log\nterminationMessagePolicy: File\nimagePullPolicy: IfNotPresent\n",
    )
    .unwrap();
    let (code, out, err) = run(&["hash", "--kubelet", "1.9.11", f.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("prometheus-node-exporter\t1428860573\t552aae9d"), "{out}");
    let (_, out, _) = run(&["hash", "--kubelet", "v1.7.16", f.to_str().unwrap(), "--explain"]);
    assert!(out.contains("prometheus-node-exporter\t1559107639\t5cee1837"), "{out}");
    assert!(out.contains("(v1.Container){Name:(string)prometheus-node-exporter Image:"), "{out}");
    assert!(!out.contains("VolumeDevices"));
}

#[test]
fn hash_of_a_pod_lists_init_and_app_containers() {
    let pods = example("seed-000-poststart-hostpid").join("kube-system/pods.json");
    let (code, out, _) = run(&["hash", "--kubelet", "1.22.5", pods.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert_eq!(out.lines().filter(|l| l.starts_with("khaos-agent\t")).count(), 3, "{out}");
}

#[test]
fn hash_bad_input() {
    let (code, _, err) = run(&["hash", "--kubelet", "1.5.0", "/dev/null"]);
    assert_eq!(code, 2);
    assert!(err.contains("older than 1.6"), "{err}");
    let (code, _, err) = run(&["hash", "--kubelet", "banana", "/dev/null"]);
    assert_eq!(code, 2);
    assert!(err.contains("invalid kubelet version"), "{err}");
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("c.json");
    std::fs::write(&f, r#"{"name":"a","image":"b","ports":[{"containerPort":"eighty"}]}"#).unwrap();
    let (code, _, err) = run(&["hash", "--kubelet", "1.20.0", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("$.ports[0].containerPort"), "{err}");
    std::fs::write(&f, "{not json").unwrap();
    let (code, _, err) = run(&["hash", "--kubelet", "1.20.0", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("c.json:1:"), "{err}");
}

#[test]
fn upgrade_check_reproduces_seed_004() {
    let (code, out, _) = run(&[
        "upgrade-check",
        "--from",
        "1.7.16",
        "--to",
        "1.9.11",
        example("seed-004-kubelet-upgrade").to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "restarts predicted");
    assert!(out.contains("5cee1837  552aae9d  yes"), "{out}");
    assert!(out.contains("VolumeDevices") && out.contains("MountPropagation"), "{out}");
    assert!(out.contains("drain the node"), "{out}");
    assert!(out.contains("stored hash 5cee1837 != 552aae9d"), "runtime data compared: {out}");
    // Within the JSON era, unset new fields change nothing.
    let (code, out, _) = run(&[
        "upgrade-check",
        "--from",
        "1.29.0",
        "--to",
        "1.30.2",
        example("seed-002-node-lost-recreate").to_str().unwrap(),
        "-o",
        "json",
    ]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["containers"].as_array().unwrap().iter().all(|c| c["restart"] == false));
    // 1.30 → 1.31 changes the hash input for everything.
    let (code, out, _) = run(&[
        "upgrade-check",
        "--from",
        "1.30.0",
        "--to",
        "1.31.0",
        example("seed-002-node-lost-recreate").to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(out.contains("the hash input changed"), "{out}");
}
