//! Attribution of node log lines to pods: by pod UID, full and short container ID, sandbox ID (learnt
//! from the runtime's own "sandbox started" line), volume path, the PersistentVolume of a claim only one
//! pod on the node mounts, and pod name on the line's node.

use std::path::Path;

use unstuck_ingest::{load, Options};

const WEB_UID: &str = "1f0c1a52-7d1e-4b8e-9a51-0a2b3c4d5e6f";
const API_UID: &str = "2a9d8c7b-6e5f-4a3b-8c1d-0e9f8a7b6c5d";
const OTHER_WEB_UID: &str = "3b8e7d6c-5f4e-4d3c-9b2a-1f0e9d8c7b6a";
const API_CID: &str = "9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d";
const WEB_SANDBOX: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const API_PV: &str = "pvc-6a006be1-87a3-4059-b3b4-2656a6dee88f";
const SHARED_PV: &str = "pvc-0d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6";
const UNKNOWN_SANDBOX: &str = "0000c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b78520000";

fn pod(name: &str, uid: &str, node: &str, cid: Option<&str>) -> serde_json::Value {
    let statuses = match cid {
        Some(c) => {
            serde_json::json!([{"name": "app", "ready": true, "restartCount": 0, "image": "registry.example.com/app:1",
            "containerID": format!("containerd://{c}"), "state": {"running": {"startedAt": "2024-06-02T11:00:00Z"}}}])
        }
        None => serde_json::json!([]),
    };
    serde_json::json!({"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "shop", "uid": uid, "creationTimestamp": "2024-06-02T11:00:00Z"},
        "spec": {"nodeName": node, "containers": [{"name": "app", "image": "registry.example.com/app:1"}]},
        "status": {"phase": "Running", "containerStatuses": statuses}})
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn bundle(dir: &Path) {
    let node = |n: &str| serde_json::json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "uid": format!("uid-{n}")}});
    write(
        &dir.join("nodes.json"),
        &serde_json::json!({"kind": "NodeList", "apiVersion": "v1", "items": [node("node-a"), node("node-b")]})
            .to_string(),
    );
    let mut pods = [
        pod("web-0", WEB_UID, "node-a", None),
        pod("api-0", API_UID, "node-a", Some(API_CID)),
        pod("web-0-other", OTHER_WEB_UID, "node-b", None),
    ];
    // api-0 alone mounts claim "data" (PersistentVolume API_PV); web-0 and api-0 share "shared".
    let claim = |c: &str| serde_json::json!({"name": c, "persistentVolumeClaim": {"claimName": c}});
    pods[0]["spec"]["volumes"] = serde_json::json!([claim("shared")]);
    pods[1]["spec"]["volumes"] = serde_json::json!([claim("data"), claim("shared")]);
    let pvc = |c: &str, pv: &str| {
        serde_json::json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": c, "namespace": "shop"},
            "spec": {"volumeName": pv}, "status": {"phase": "Bound"}})
    };
    write(
        &dir.join("shop/persistentvolumeclaims.json"),
        &serde_json::json!({"kind": "PersistentVolumeClaimList", "apiVersion": "v1",
            "items": [pvc("data", API_PV), pvc("shared", SHARED_PV)]})
        .to_string(),
    );
    write(
        &dir.join("shop/pods.json"),
        &serde_json::json!({"kind": "PodList", "apiVersion": "v1", "items": pods}).to_string(),
    );
    write(&dir.join("shop/events.json"), r#"{"kind": "EventList", "apiVersion": "v1", "items": []}"#);
    // journald short format, as `journalctl -u containerd -u kubelet` writes it.
    let node_a = [
        format!(
            r#"Jun 02 12:00:01 node-a containerd[812]: time="2024-06-02T12:00:01.123456789Z" level=info msg="RunPodSandbox for &PodSandboxMetadata{{Name:web-0,Uid:{WEB_UID},Namespace:shop,Attempt:0,}} returns sandbox id \"{WEB_SANDBOX}\"""#
        ),
        format!(
            r#"Jun 02 12:05:00 node-a kubelet[1187]: E0602 12:05:00.123456    1187 remote_runtime.go:222] "StopPodSandbox from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" podSandboxID="{WEB_SANDBOX}""#
        ),
        format!(
            r#"Jun 02 12:05:30 node-a kubelet[1187]: E0602 12:05:30.000001    1187 remote_runtime.go:222] "StopPodSandbox from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" podSandboxID="{UNKNOWN_SANDBOX}""#
        ),
        format!(
            r#"Jun 02 12:06:00 node-a kubelet[1187]: E0602 12:06:00.000002    1187 remote_runtime.go:432] "ContainerStatus from runtime service failed" err="rpc error: code = DeadlineExceeded desc = context deadline exceeded" containerID="{API_CID}""#
        ),
        format!(
            r#"Jun 02 12:07:00 node-a dockerd[700]: time="2024-06-02T12:07:00.000000000Z" level=error msg="Error removing mounted layer {}: failed to remove root filesystem: device or resource busy""#,
            &API_CID[..12]
        ),
        format!(
            r#"Jun 02 12:08:00 node-a kernel: umount: /var/lib/kubelet/pods/{WEB_UID}/volumes/kubernetes.io~nfs/data: device is busy."#
        ),
        // CSI staging errors name the PersistentVolume only.
        format!(
            r#"Jun 02 12:09:00 node-a kubelet[1187]: E0602 12:09:00.015940    1187 csi_attacher.go:338] kubernetes.io/csi: attacher.MountDevice failed: rpc error: code = Internal desc = Volume {API_PV} Busy, status: UnmountUnderProgress"#
        ),
        format!(
            r#"Jun 02 12:09:10 node-a kubelet[1187]: E0602 12:09:10.015940    1187 csi_attacher.go:338] kubernetes.io/csi: attacher.MountDevice failed: rpc error: code = Internal desc = Volume {SHARED_PV} Busy, status: UnmountUnderProgress"#
        ),
    ];
    write(&dir.join("_nodes/node-a/messages"), &(node_a.join("\n") + "\n"));
    // On node-b a line naming "web-0-other" by name only.
    write(
        &dir.join("_nodes/node-b/kubelet.log"),
        "E0602 12:09:00.000003    2211 pod_workers.go:1298] \"Error syncing pod, skipping\" err=\"failed to \\\"KillPodSandbox\\\" with KillPodSandboxError: \\\"rpc error: code = DeadlineExceeded desc = context deadline exceeded\\\"\" pod=\"shop/web-0-other\"\n",
    );
}

fn attributed(text_part: &str, snap: &unstuck_model::Snapshot) -> Option<String> {
    let h = snap.log_hits.iter().find(|h| h.text.contains(text_part)).unwrap_or_else(|| {
        panic!("no hit with {text_part:?}: {:#?}", snap.log_hits.iter().map(|h| &h.text).collect::<Vec<_>>())
    });
    h.pod_uid.clone()
}

#[test]
fn lines_are_attributed_by_every_identifier() {
    let dir = tempfile::tempdir().unwrap();
    bundle(dir.path());
    let opts = Options { fold: false, ..Options::default() };
    let snap = load(&[dir.path().to_path_buf()], &opts).unwrap();
    // The runtime's announcement names the UID; the kubelet error later names only the sandbox ID.
    assert_eq!(attributed("returns sandbox id", &snap).as_deref(), Some(WEB_UID));
    assert_eq!(attributed(&format!("podSandboxID=\"{WEB_SANDBOX}\""), &snap).as_deref(), Some(WEB_UID));
    // A sandbox no runtime line announced belongs to nobody.
    assert_eq!(attributed(&format!("podSandboxID=\"{UNKNOWN_SANDBOX}\""), &snap), None);
    // Full and short container IDs.
    assert_eq!(attributed("ContainerStatus from runtime service failed", &snap).as_deref(), Some(API_UID));
    assert_eq!(attributed("Error removing mounted layer", &snap).as_deref(), Some(API_UID));
    // A volume path under /var/lib/kubelet/pods/<uid>/.
    assert_eq!(attributed("umount: /var/lib/kubelet/pods/", &snap).as_deref(), Some(WEB_UID));
    // A PersistentVolume only one pod on the node mounts; one that two pods share names neither.
    assert_eq!(attributed(&format!("Volume {API_PV} Busy"), &snap).as_deref(), Some(API_UID));
    assert_eq!(attributed(&format!("Volume {SHARED_PV} Busy"), &snap), None);
    // A pod name, resolved on the line's own node.
    assert_eq!(attributed("Error syncing pod, skipping", &snap).as_deref(), Some(OTHER_WEB_UID));
    // The sandbox line carries the sandbox ID as its container ID.
    let h = snap.log_hits.iter().find(|h| h.text.contains("podSandboxID=\"e3b0")).unwrap();
    assert_eq!(h.container_id.as_deref(), Some(WEB_SANDBOX));
}

#[test]
fn a_sandbox_id_is_not_learnt_without_the_runtime_line() {
    let dir = tempfile::tempdir().unwrap();
    bundle(dir.path());
    let p = dir.path().join("_nodes/node-a/messages");
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.lines().skip(1).collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let opts = Options { fold: false, ..Options::default() };
    let snap = load(&[dir.path().to_path_buf()], &opts).unwrap();
    assert_eq!(attributed(&format!("podSandboxID=\"{WEB_SANDBOX}\""), &snap), None);
}

/// CRI-O's `Stopping container` is a hit only when the kubelet asks again (`min_count: 2`): two requests in a
/// log and its rotation add up; one request written to two logs of the node (its journal and `messages`)
/// is still one.
#[test]
fn repeated_requests_add_up_across_rotations_not_across_copies() {
    let stop = |t: &str| {
        format!(
            r#"Jun 02 12:{t} node-a crio[3673]: time="2024-06-02 12:{t}.383837278Z" level=info msg="Stopping container: {API_CID} (timeout: 30s)" id=b50aed30-a7c2-4efb-83dc-3c5667da2c74 name=/runtime.v1.RuntimeService/StopContainer
"#
        )
    };
    let hits = |files: &[(&str, String)]| {
        let dir = tempfile::tempdir().unwrap();
        bundle(dir.path());
        for (name, text) in files {
            write(&dir.path().join("_nodes/node-a").join(name), text);
        }
        let snap = load(&[dir.path().to_path_buf()], &Options::default()).unwrap();
        snap.log_hits.iter().filter(|h| h.signature == "crio-stop-requested").map(|h| h.count).sum::<u64>()
    };
    assert_eq!(hits(&[("crio.log", stop("05:00"))]), 0, "one request");
    assert_eq!(hits(&[("crio.log", stop("05:00") + &stop("06:14"))]), 2, "asked again");
    assert_eq!(hits(&[("crio.log.1", stop("05:00")), ("crio.log", stop("06:14"))]), 2, "asked again after a rotation");
    assert_eq!(hits(&[("crio.log", stop("05:00")), ("journal", stop("05:00"))]), 0, "one request in two logs");
}
