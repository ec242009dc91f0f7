//! Seed 004: kubelet 1.7.16 → 1.9.11 recreated every container. The seed's kubelet log has both hash
//! values ("Container spec hash changed (1559107639 vs 1428860573)": stored by 1.7.16 vs computed by
//! 1.9.11) and both spew dumps; the engine must reproduce them byte for byte.

use unstuck_hash::{hash_container, Era, HashOptions, Version};

fn container() -> serde_json::Value {
    serde_json::json!({
        "name": "prometheus-node-exporter",
        "image": "harbor.finupgroup.com/kubernetes/node-exporter:v0.16.0",
        "ports": [{"name": "prom-node-exp", "hostPort": 9100, "containerPort": 9100, "protocol": "TCP"}],
        "resources": {},
        "volumeMounts": [{"name": "default-token-bks80", "readOnly": true, "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent"
    })
}

const DUMP_1_9: &str = "(v1.Container){Name:(string)prometheus-node-exporter Image:(string)harbor.finupgroup.com/kubernetes/node-exporter:v0.16.0 Command:([]string)<nil> Args:([]string)<nil> WorkingDir:(string) Ports:([]v1.ContainerPort)[{Name:(string)prom-node-exp HostPort:(int32)9100 ContainerPort:(int32)9100 Protocol:(v1.Protocol)TCP HostIP:(string)}] EnvFrom:([]v1.EnvFromSource)<nil> Env:([]v1.EnvVar)<nil> Resources:(v1.ResourceRequirements){Limits:(v1.ResourceList)<nil> Requests:(v1.ResourceList)<nil>} VolumeMounts:([]v1.VolumeMount)[{Name:(string)default-token-bks80 ReadOnly:(bool)true MountPath:(string)/var/run/secrets/kubernetes.io/serviceaccount SubPath:(string) MountPropagation:(*v1.MountPropagationMode)<nil>}] VolumeDevices:([]v1.VolumeDevice)<nil> LivenessProbe:(*v1.Probe)<nil> ReadinessProbe:(*v1.Probe)<nil> Lifecycle:(*v1.Lifecycle)<nil> TerminationMessagePath:(string)/dev/termination-log TerminationMessagePolicy:(v1.TerminationMessagePolicy)File ImagePullPolicy:(v1.PullPolicy)IfNotPresent SecurityContext:(*v1.SecurityContext)<nil> Stdin:(bool)false StdinOnce:(bool)false TTY:(bool)false}";

#[test]
fn kubelet_1_9_11_dump_and_hash() {
    let v: Version = "1.9.11".parse().unwrap();
    let h = hash_container(&v, &container(), HashOptions::default()).unwrap();
    assert_eq!(h.era, Era::SpewStruct);
    assert_eq!(String::from_utf8(h.input.clone()).unwrap(), DUMP_1_9);
    assert_eq!(h.hash, 1428860573);
    assert_eq!(h.hex, format!("{:x}", 1428860573u32));
}

#[test]
fn kubelet_1_7_16_dump_and_hash() {
    let v: Version = "1.7.16".parse().unwrap();
    let h = hash_container(&v, &container(), HashOptions::default()).unwrap();
    let want = DUMP_1_9
        .replace("VolumeDevices:([]v1.VolumeDevice)<nil> ", "")
        .replace(" MountPropagation:(*v1.MountPropagationMode)<nil>", "");
    assert_eq!(String::from_utf8(h.input.clone()).unwrap(), want);
    assert_eq!(h.hash, 1559107639);
}

#[test]
fn the_upgrade_changes_the_hash() {
    let a = hash_container(&"1.7.16".parse().unwrap(), &container(), HashOptions::default()).unwrap();
    let b = hash_container(&"1.9.11".parse().unwrap(), &container(), HashOptions::default()).unwrap();
    assert_ne!(a.hash, b.hash);
    // 1.16+ hashes JSON, where unset new fields are omitted: 1.16 → 1.17 keeps the hash.
    let c = hash_container(&"1.16.0".parse().unwrap(), &container(), HashOptions::default()).unwrap();
    let d = hash_container(&"1.17.0".parse().unwrap(), &container(), HashOptions::default()).unwrap();
    assert_eq!(c.hash, d.hash);
}

#[test]
fn invalid_container_names_the_field() {
    let mut c = container();
    c["ports"][0]["containerPort"] = serde_json::json!("http");
    let e = hash_container(&"1.20.0".parse().unwrap(), &c, HashOptions::default()).unwrap_err();
    assert!(e.to_string().contains("$.ports[0].containerPort"), "{e}");
    let e = hash_container(&"1.9.11".parse().unwrap(), &c, HashOptions::default()).unwrap_err();
    assert!(e.to_string().contains("$.ports[0].containerPort"), "{e}");
}
