//! Example and benchmark bundles in the exact layout of `kubectl cluster-info dump --output-directory`,
//! plus `_nodes/<node>/` logs in real journald/syslog/klog shapes. Deterministic: same input, same bytes.

pub mod k8s;
pub mod scale;
pub mod scenarios;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use jiff::Timestamp;
use serde_json::{json, Value};

/// Objects of one namespace, by dump file stem.
#[derive(Default)]
pub struct Namespace {
    pub files: BTreeMap<&'static str, Vec<Value>>,
}

/// A bundle in memory.
pub struct Bundle {
    pub captured_at: Timestamp,
    pub write_manifest: bool,
    pub nodes: Vec<Value>,
    pub namespaces: BTreeMap<String, Namespace>,
    /// (node, file name) → content.
    pub node_logs: BTreeMap<(String, String), String>,
    /// (namespace, pod) → the pod's containers' output as `kubectl cluster-info dump` writes it
    /// (`<ns>/<pod>/logs.txt`: one `==== START logs for container … ====` section per container).
    pub pod_logs: BTreeMap<(String, String), String>,
}

const LIST_KINDS: &[(&str, &str, &str)] = &[
    ("pods", "PodList", "v1"),
    ("events", "EventList", "v1"),
    ("deployments", "DeploymentList", "apps/v1"),
    ("replicasets", "ReplicaSetList", "apps/v1"),
    ("daemonsets", "DaemonSetList", "apps/v1"),
    ("services", "ServiceList", "v1"),
    ("replication-controllers", "ReplicationControllerList", "v1"),
    ("statefulsets", "StatefulSetList", "apps/v1"),
    ("jobs", "JobList", "batch/v1"),
    ("persistentvolumeclaims", "PersistentVolumeClaimList", "v1"),
    ("leases", "LeaseList", "coordination.k8s.io/v1"),
];

/// The files `kubectl cluster-info dump` always writes per namespace.
const ALWAYS: &[&str] =
    &["pods", "events", "deployments", "replicasets", "daemonsets", "services", "replication-controllers"];

fn list(kind: &str, api: &str, items: &[Value]) -> Value {
    json!({"kind": kind, "apiVersion": api, "metadata": {"resourceVersion": "184467"}, "items": items})
}

impl Bundle {
    pub fn new(captured_at: Timestamp) -> Self {
        Bundle {
            captured_at,
            write_manifest: true,
            nodes: Vec::new(),
            namespaces: BTreeMap::new(),
            node_logs: BTreeMap::new(),
            pod_logs: BTreeMap::new(),
        }
    }

    pub fn add(&mut self, stem: &'static str, obj: Value) {
        let ns = obj["metadata"]["namespace"].as_str().unwrap_or("default").to_string();
        self.namespaces.entry(ns).or_default().files.entry(stem).or_default().push(obj);
    }

    pub fn log(&mut self, node: &str, file: &str, lines: &[String]) {
        let s = self.node_logs.entry((node.to_string(), file.to_string())).or_default();
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
    }

    /// One container's output, in a section of its pod's `logs.txt` as kubectl writes it.
    pub fn container_output(&mut self, ns: &str, pod: &str, container: &str, lines: &[&str]) {
        let s = self.pod_logs.entry((ns.to_string(), pod.to_string())).or_default();
        s.push_str(&format!("==== START logs for container {container} of pod {ns}/{pod} ====\n"));
        for l in lines {
            s.push_str(l);
            s.push('\n');
        }
        s.push_str(&format!("==== END logs for container {container} of pod {ns}/{pod} ====\n"));
    }

    /// Write the dump directory (removing nothing else).
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
        write_json(&dir.join("nodes.json"), &list("NodeList", "v1", &self.nodes))?;
        if self.write_manifest {
            write_json(
                &dir.join("unstuck-bundle.json"),
                &json!({"apiVersion": "unstuck/v1", "kind": "BundleManifest", "capturedAt": self.captured_at.to_string(), "source": "unstuck-gen"}),
            )?;
        }
        for (ns, objs) in &self.namespaces {
            let d = dir.join(ns);
            std::fs::create_dir_all(&d)?;
            for (stem, kind, api) in LIST_KINDS {
                let items = objs.files.get(stem);
                if items.is_none() && !ALWAYS.contains(stem) {
                    continue;
                }
                write_json(
                    &d.join(format!("{stem}.json")),
                    &list(kind, api, items.map(|v| v.as_slice()).unwrap_or(&[])),
                )?;
            }
        }
        for ((node, file), content) in &self.node_logs {
            let d = dir.join("_nodes").join(node);
            std::fs::create_dir_all(&d)?;
            std::fs::write(d.join(file), content)?;
        }
        for ((ns, pod), content) in &self.pod_logs {
            let d = dir.join(ns).join(pod);
            std::fs::create_dir_all(&d)?;
            std::fs::write(d.join("logs.txt"), content)?;
        }
        Ok(())
    }
}

fn write_json(p: &Path, v: &Value) -> Result<()> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(p).with_context(|| p.display().to_string())?);
    serde_json::to_writer_pretty(&mut f, v)?;
    f.write_all(b"\n")?;
    f.flush()?;
    Ok(())
}
