//! `unstuck collect`: a bundle in the offline layout (cluster-info dump compatible plus extra kinds,
//! `unstuck-bundle.json`, node logs where reachable), written atomically as a .tar.gz, redacted by default.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use serde_json::{json, Value};

use crate::{Live, LiveError, LISTS};

#[derive(Debug, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CollectStats {
    pub objects: usize,
    pub api_calls: u64,
    pub bytes: u64,
    pub node_log_files: usize,
    pub redacted_values: usize,
    pub notes: Vec<String>,
}

/// What redaction replaces values with.
pub const REDACTED: &str = "<redacted by unstuck collect>";

/// Remove secrets and bulk: `env[].value`, last-applied-configuration, managedFields.
pub fn redact(v: &mut Value, count: &mut usize) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(env)) = m.get_mut("env") {
                for e in env {
                    if let Some(val) = e.get_mut("value") {
                        *val = Value::String(REDACTED.into());
                        *count += 1;
                    }
                }
            }
            if let Some(Value::Object(meta)) = m.get_mut("metadata") {
                meta.remove("managedFields");
                if let Some(Value::Object(ann)) = meta.get_mut("annotations") {
                    if ann.remove("kubectl.kubernetes.io/last-applied-configuration").is_some() {
                        *count += 1;
                    }
                }
            }
            for (_, x) in m.iter_mut() {
                redact(x, count);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| redact(x, count)),
        _ => {}
    }
}

fn list_kind(stem: &str) -> &'static str {
    unstuck_ingest::KINDS.iter().find(|(k, _)| *k == stem).map(|(_, l)| *l).unwrap_or("List")
}

/// The layout `collect` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BundleLayout {
    /// `kubectl cluster-info dump` (`nodes.json`, `<ns>/<kind>.json`) with `_nodes/<node>/<file>`.
    #[default]
    ClusterInfoDump,
    /// Troubleshoot's support bundle (`support-bundle-<time>/cluster-resources/<kind>/<ns>.json`,
    /// `host-collectors/<node>/journald/<unit>.txt`), so a vendor's tooling can read it.
    SupportBundle,
}

/// Troubleshoot's directory for a kind (pkg/constants: `pvcs` for PersistentVolumeClaims).
fn support_bundle_dir(stem: &str) -> &str {
    match stem {
        "persistentvolumeclaims" => "pvcs",
        s => s,
    }
}

/// The `kind`/`apiVersion` Troubleshoot sets on every item (the API server's list items carry none).
fn item_type(stem: &str) -> (&'static str, &'static str) {
    match stem {
        "nodes" => ("Node", "v1"),
        "pods" => ("Pod", "v1"),
        "events" => ("Event", "v1"),
        "deployments" => ("Deployment", "apps/v1"),
        "replicasets" => ("ReplicaSet", "apps/v1"),
        "statefulsets" => ("StatefulSet", "apps/v1"),
        "daemonsets" => ("DaemonSet", "apps/v1"),
        "jobs" => ("Job", "batch/v1"),
        "persistentvolumeclaims" => ("PersistentVolumeClaim", "v1"),
        "leases" => ("Lease", "coordination.k8s.io/v1"),
        _ => ("", ""),
    }
}

/// Collect into `out` (a .tar.gz). `log_nodes`: nodes whose logs to fetch.
/// `local_logs`: a directory laid out as `DIR/<node>/<file>` to include instead of fetching node logs.
pub async fn collect_bundle(
    live: &Live,
    out: &Path,
    redact_values: bool,
    log_nodes: &[String],
    local_logs: Option<&Path>,
    layout: BundleLayout,
) -> Result<CollectStats, LiveError> {
    let mut stats = CollectStats::default();
    let mut files: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut present: Vec<&str> = Vec::new();
    for (stem, cluster, namespaced, resource) in LISTS {
        let path = live.list_path(cluster, namespaced);
        let mut items: Vec<Value> = Vec::new();
        let res = live
            .list_pages(&path, resource, |page| {
                let v: Value = serde_json::from_slice(page).map_err(|e| LiveError::Api {
                    path: path.clone(),
                    message: e.to_string(),
                    status: None,
                })?;
                if let Some(Value::Array(a)) = v.get("items") {
                    items.extend(a.iter().cloned());
                }
                Ok(())
            })
            .await;
        match res {
            Ok(_) => present.push(stem),
            Err(e @ LiveError::Forbidden { .. }) if matches!(*stem, "nodes" | "pods") => return Err(e),
            Err(e) => {
                stats.notes.push(format!("{resource} not collected: {e}"));
                continue;
            }
        }
        for mut it in items {
            if redact_values {
                redact(&mut it, &mut stats.redacted_values);
            }
            let ns = it.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default").to_string();
            let key = match (layout, *stem) {
                (BundleLayout::ClusterInfoDump, "nodes") => "nodes.json".to_string(),
                (BundleLayout::ClusterInfoDump, _) => format!("{ns}/{stem}.json"),
                (BundleLayout::SupportBundle, "nodes") => "cluster-resources/nodes.json".to_string(),
                (BundleLayout::SupportBundle, _) => format!("cluster-resources/{}/{ns}.json", support_bundle_dir(stem)),
            };
            if layout == BundleLayout::SupportBundle {
                let (kind, api_version) = item_type(stem);
                if let Some(o) = it.as_object_mut() {
                    o.insert("kind".into(), json!(kind));
                    o.insert("apiVersion".into(), json!(api_version));
                }
            }
            stats.objects += 1;
            files.entry(key).or_default().push(it);
        }
    }
    // cluster-info dump writes these per namespace even when empty.
    if layout == BundleLayout::ClusterInfoDump {
        let namespaces: Vec<String> =
            files.keys().filter_map(|k| k.split_once('/').map(|(ns, _)| ns.to_string())).collect();
        for ns in namespaces {
            for stem in ["pods", "events", "deployments", "replicasets", "daemonsets"] {
                if present.contains(&stem) {
                    files.entry(format!("{ns}/{stem}.json")).or_default();
                }
            }
        }
    }
    // The crash-looping containers' last run and the output of init containers pods wait for (only theirs,
    // not every pod's), as each layout's own tool writes container output: `kubectl cluster-info dump`'s `<ns>/<pod>/logs.txt` (one START/END section per
    // container), Troubleshoot's `cluster-resources/pods/logs/<ns>/<pod>/<container>-previous.log`.
    let mut container_logs: Vec<(String, Vec<u8>)> = Vec::new();
    let pods: Vec<unstuck_model::Pod> = files
        .iter()
        .filter(|(k, _)| k.ends_with("/pods.json") || k.starts_with("cluster-resources/pods/"))
        .flat_map(|(_, items)| items.iter().filter_map(|v| serde_json::from_value(v.clone()).ok()))
        .collect();
    let wanted = Live::output_wanted(&pods);
    let (got, note) = live.outputs(&wanted).await;
    stats.notes.extend(note);
    let mut by_file: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (((ns, pod, c), previous), body) in got {
        match layout {
            BundleLayout::ClusterInfoDump => {
                let section = unstuck_ingest::container_logs::dump_section(&ns, &pod, &c, &body);
                by_file.entry(format!("{ns}/{pod}/logs.txt")).or_default().extend(section);
            }
            BundleLayout::SupportBundle => {
                let suffix = if previous { "-previous" } else { "" };
                by_file.insert(format!("cluster-resources/pods/logs/{ns}/{pod}/{c}{suffix}.log"), body);
            }
        }
    }
    container_logs.extend(by_file);
    let tmpdir = std::env::temp_dir().join(format!("unstuck-collect-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmpdir);
    let logs_dir = match local_logs {
        Some(d) => d.to_path_buf(),
        None => {
            if !log_nodes.is_empty() {
                stats.notes.extend(live.fetch_node_logs(log_nodes, &tmpdir).await);
            }
            tmpdir.clone()
        }
    };
    let version =
        live.get("/version", "version", "get").await.ok().and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let manifest = json!({
        "apiVersion": "unstuck/v1",
        "kind": "BundleManifest",
        "capturedAt": jiff::Timestamp::now().to_string(),
        "source": live.server,
        "serverVersion": version.as_ref().and_then(|v| v.get("gitVersion")).cloned().unwrap_or(Value::Null),
        "unstuckVersion": env!("CARGO_PKG_VERSION"),
        "redacted": redact_values,
        "kinds": present,
    });
    let captured = jiff::Timestamp::now();
    // Troubleshoot's archive has one top directory named after its time (`2006-01-02T15_04_05`).
    let top = match layout {
        BundleLayout::ClusterInfoDump => String::new(),
        BundleLayout::SupportBundle => format!("support-bundle-{}/", captured.strftime("%Y-%m-%dT%H_%M_%S")),
    };
    // Write to a temporary file next to the target, then rename: never a half-written bundle.
    let part = out.with_extension("tar.gz.part");
    let result = (|| -> std::io::Result<usize> {
        let f = std::fs::File::create(&part)?;
        let gz = flate2::write::GzEncoder::new(std::io::BufWriter::new(f), flate2::Compression::default());
        let mut tar = tar::Builder::new(gz);
        let mut add = |name: &str, data: &[u8]| -> std::io::Result<()> {
            let mut h = tar::Header::new_gnu();
            h.set_size(data.len() as u64);
            h.set_mode(0o644);
            h.set_mtime(captured.as_second().max(0) as u64);
            h.set_cksum();
            tar.append_data(&mut h, format!("{top}{name}"), data)
        };
        add("unstuck-bundle.json", &serde_json::to_vec_pretty(&manifest)?)?;
        if layout == BundleLayout::SupportBundle {
            let v = format!(
                "apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  versionNumber: unstuck-{}\n",
                env!("CARGO_PKG_VERSION")
            );
            add("version.yaml", v.as_bytes())?;
            if let Some(v) = &version {
                let git = v.get("gitVersion").cloned().unwrap_or(Value::Null);
                add(
                    "cluster-info/cluster_version.json",
                    &serde_json::to_vec_pretty(&json!({"info": v, "string": git}))?,
                )?;
            }
        }
        for (name, items) in &files {
            let stem = match layout {
                BundleLayout::ClusterInfoDump => name.rsplit('/').next().unwrap_or("").trim_end_matches(".json"),
                BundleLayout::SupportBundle => match name.split('/').nth(1).unwrap_or("") {
                    "nodes.json" => "nodes",
                    "pvcs" => "persistentvolumeclaims",
                    d => d,
                },
            };
            let list = json!({"kind": list_kind(stem), "apiVersion": "v1", "metadata": {}, "items": items});
            add(name, &serde_json::to_vec_pretty(&list)?)?;
        }
        for (name, text) in &container_logs {
            add(name, text)?;
        }
        let mut logs = 0;
        if let Ok(rd) = std::fs::read_dir(&logs_dir) {
            for node in rd.flatten() {
                if !node.file_type()?.is_dir() {
                    continue;
                }
                for f in std::fs::read_dir(node.path())?.flatten() {
                    if !f.file_type()?.is_file() {
                        continue;
                    }
                    let data = std::fs::read(f.path())?;
                    let (n, file) =
                        (node.file_name().to_string_lossy().into_owned(), f.file_name().to_string_lossy().into_owned());
                    let name = match layout {
                        BundleLayout::ClusterInfoDump => format!("_nodes/{n}/{file}"),
                        // As Troubleshoot's remote journald host collector names a node's unit log.
                        BundleLayout::SupportBundle => {
                            let stem = file.split('.').next().unwrap_or(&file);
                            format!("host-collectors/{n}/journald/{stem}.txt")
                        }
                    };
                    add(&name, &data)?;
                    logs += 1;
                }
            }
        }
        let gz = tar.into_inner()?;
        let mut w = gz.finish()?;
        w.flush()?;
        Ok(logs)
    })();
    let _ = std::fs::remove_dir_all(&tmpdir);
    match result {
        Ok(n) => {
            stats.node_log_files = n;
            std::fs::rename(&part, out).map_err(|e| LiveError::Io(format!("{}: {e}", out.display())))?;
        }
        Err(e) => {
            let _ = std::fs::remove_file(&part);
            return Err(LiveError::Io(format!("{}: {e}", out.display())));
        }
    }
    stats.api_calls = live.api_calls.load(std::sync::atomic::Ordering::Relaxed);
    stats.bytes = live.bytes.load(std::sync::atomic::Ordering::Relaxed);
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redaction() {
        let mut v = json!({"metadata": {"name": "p", "managedFields": [{}], "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"env\":\"secret\"}", "keep": "x"}},
            "spec": {"containers": [{"name": "a", "env": [{"name": "PASSWORD", "value": "hunter2"}, {"name": "FROM", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}}]}]}});
        let mut n = 0;
        redact(&mut v, &mut n);
        let s = v.to_string();
        assert!(!s.contains("hunter2") && !s.contains("managedFields") && !s.contains("last-applied"));
        assert!(s.contains("secretKeyRef") && s.contains("\"keep\":\"x\""));
        assert_eq!(n, 2);
    }
}
