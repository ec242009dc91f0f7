//! `unstuck hash` and `unstuck upgrade-check`: the kubelet container hash and what a version change restarts.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::Serialize;
use serde_json::Value;
use unstuck_hash::{containers_of, hash_container, Era, HashOptions, Hashed, Version};

/// Parse container/pod input: JSON or YAML (one or more documents).
pub fn read_specs(file: Option<&Path>) -> Result<Vec<Value>> {
    let (name, text) = match file {
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s).context("reading standard input")?;
            ("<stdin>".to_string(), s)
        }
        Some(p) if p.as_os_str() == "-" => return read_specs(None),
        Some(p) => (p.display().to_string(), std::fs::read_to_string(p).with_context(|| p.display().to_string())?),
    };
    let trimmed = text.trim_start();
    let mut out = Vec::new();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        for v in serde_json::Deserializer::from_str(&text).into_iter::<Value>() {
            let v = v.map_err(|e| anyhow::anyhow!("{name}:{}:{}: {e}", e.line(), e.column()))?;
            match v {
                Value::Array(a) => out.extend(a),
                v => out.push(v),
            }
        }
    } else {
        use serde::Deserialize;
        for doc in serde_yaml_ng::Deserializer::from_str(&text) {
            let v = Value::deserialize(doc).map_err(|e| {
                let (l, c) = e.location().map(|l| (l.line(), l.column())).unwrap_or((0, 0));
                anyhow::anyhow!("{name}:{l}:{c}: {e}")
            })?;
            if !v.is_null() {
                out.push(v);
            }
        }
    }
    // Lists of pods.
    let mut flat = Vec::new();
    for v in out {
        match v.get("items").and_then(Value::as_array) {
            Some(items) => flat.extend(items.iter().cloned()),
            None => flat.push(v),
        }
    }
    if flat.is_empty() {
        bail!("{name}: no container or pod found");
    }
    Ok(flat)
}

pub fn hash_cmd(kubelet: &str, file: Option<PathBuf>, explain: bool, without_resources: bool) -> Result<u8> {
    let v: Version = kubelet.parse()?;
    let specs = read_specs(file.as_deref())?;
    let opts = HashOptions { without_resources };
    let mut out = String::new();
    out.push_str(&format!("# kubelet {v}: {}\n", Era::of(&v).describe()));
    for s in &specs {
        for c in containers_of(s) {
            let h = hash_container(&v, c, opts)?;
            for a in &h.assumptions {
                out.push_str(&format!("# assumption: {a}\n"));
            }
            out.push_str(&format!("{}\t{}\t{}\n", h.container, h.hash, h.hex));
            if explain {
                out.push_str(&String::from_utf8_lossy(&h.input));
                out.push('\n');
            }
        }
    }
    print!("{out}");
    Ok(0)
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prediction {
    pub namespace: String,
    pub pod: String,
    pub node: String,
    pub owner: String,
    pub container: String,
    pub from_hash: String,
    pub to_hash: String,
    pub restart: bool,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub running_note: Option<String>,
}

/// Why two hash inputs differ, in words.
pub fn reason(a: &Hashed, b: &Hashed) -> String {
    if a.hash == b.hash {
        return "same hash".into();
    }
    if a.era != b.era {
        return format!("the hash input changed: {} → {}", era_name(a.era), era_name(b.era));
    }
    let (ka, kb) = match a.era {
        Era::SpewStruct => (spew_fields(&a.input), spew_fields(&b.input)),
        _ => (json_paths(&a.input), json_paths(&b.input)),
    };
    let added: Vec<&String> = kb.difference(&ka).collect();
    let removed: Vec<&String> = ka.difference(&kb).collect();
    let what = if a.era == Era::SpewStruct { "fields printed" } else { "fields serialized" };
    let mut parts = Vec::new();
    if !added.is_empty() {
        parts.push(format!("{what} only by kubelet {}: {}", b.kubelet, join(&added)));
    }
    if !removed.is_empty() {
        parts.push(format!("{what} only by kubelet {}: {}", a.kubelet, join(&removed)));
    }
    if parts.is_empty() {
        "the same fields hash to different values (field order or a defaulted value changed)".into()
    } else {
        parts.join("; ")
    }
}

fn join(v: &[&String]) -> String {
    v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

fn era_name(e: Era) -> &'static str {
    match e {
        Era::SpewStruct => "spew of the Go struct (≤1.15)",
        Era::JsonBytes => "spew of the JSON bytes (1.16-1.30)",
        Era::NameImage => "name and image only (≥1.31)",
    }
}

/// `Field:(` tokens of a spew dump.
fn spew_fields(input: &[u8]) -> BTreeSet<String> {
    let s = String::from_utf8_lossy(input);
    let mut out = BTreeSet::new();
    for (i, _) in s.match_indices(":(") {
        let start = s[..i].rfind(['{', ' ']).map_or(0, |j| j + 1);
        let name = &s[start..i];
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()) {
            out.insert(name.to_string());
        }
    }
    out
}

/// Key paths of the JSON inside a `([]uint8)[…]` dump.
fn json_paths(input: &[u8]) -> BTreeSet<String> {
    let s = String::from_utf8_lossy(input);
    let inner = s.trim_start_matches("([]uint8)[").trim_end_matches(']');
    let bytes: Vec<u8> = inner.split(' ').filter_map(|x| x.parse().ok()).collect();
    let mut out = BTreeSet::new();
    if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
        walk(&v, String::new(), &mut out);
    }
    out
}

fn walk(v: &Value, prefix: String, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
                out.insert(p.clone());
                walk(x, p, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk(x, format!("{prefix}[]"), out)),
        _ => {}
    }
}

/// Stored hashes from `_nodes/<node>/containers.json` (`crictl inspect` or `docker inspect` output):
/// (pod UID, container name) → hex hash.
pub fn runtime_hashes(root: &Path) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    let Ok(rd) = std::fs::read_dir(root.join("_nodes")) else { return out };
    for e in rd.flatten() {
        let p = e.path().join("containers.json");
        let Ok(text) = std::fs::read_to_string(&p) else { continue };
        let Ok(v) = serde_json::from_str::<Value>(&text) else { continue };
        collect_runtime(&v, &mut out);
    }
    out
}

fn collect_runtime(v: &Value, out: &mut BTreeMap<(String, String), String>) {
    match v {
        Value::Object(m) => {
            for key in ["labels", "annotations", "Labels"] {
                if let Some(l) = m.get(key).and_then(Value::as_object) {
                    if let Some(h) = l.get("io.kubernetes.container.hash").and_then(Value::as_str) {
                        let all: serde_json::Map<String, Value> = ["labels", "annotations", "Labels"]
                            .iter()
                            .filter_map(|k| m.get(*k).and_then(Value::as_object))
                            .flat_map(|x| x.clone())
                            .collect();
                        let uid = all.get("io.kubernetes.pod.uid").and_then(Value::as_str).unwrap_or("");
                        let name = all.get("io.kubernetes.container.name").and_then(Value::as_str).unwrap_or("");
                        if !uid.is_empty() && !name.is_empty() {
                            out.insert((uid.to_string(), name.to_string()), h.to_string());
                        }
                    }
                }
            }
            for x in m.values() {
                collect_runtime(x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_runtime(x, out)),
        _ => {}
    }
}

pub fn predict(
    from: &Version,
    to: &Version,
    pods: &[Value],
    runtime: &BTreeMap<(String, String), String>,
    node_versions: &BTreeMap<String, String>,
) -> Result<Vec<Prediction>> {
    let mut out = Vec::new();
    for p in pods {
        let phase = p.pointer("/status/phase").and_then(Value::as_str).unwrap_or("");
        if phase == "Succeeded" || phase == "Failed" {
            continue;
        }
        let ns = p.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("").to_string();
        let name = p.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("").to_string();
        let uid = p.pointer("/metadata/uid").and_then(Value::as_str).unwrap_or("").to_string();
        let node = p.pointer("/spec/nodeName").and_then(Value::as_str).unwrap_or("").to_string();
        let owner = p
            .pointer("/metadata/ownerReferences/0")
            .map(|o| {
                format!(
                    "{}/{}",
                    o.get("kind").and_then(Value::as_str).unwrap_or(""),
                    o.get("name").and_then(Value::as_str).unwrap_or("")
                )
            })
            .unwrap_or_default();
        for c in containers_of(p) {
            let a = hash_container(from, c, HashOptions::default()).with_context(|| format!("pod {ns}/{name}"))?;
            let b = hash_container(to, c, HashOptions::default()).with_context(|| format!("pod {ns}/{name}"))?;
            let mut pr = Prediction {
                namespace: ns.clone(),
                pod: name.clone(),
                node: node.clone(),
                owner: owner.clone(),
                container: a.container.clone(),
                from_hash: a.hex.clone(),
                to_hash: b.hex.clone(),
                restart: a.hash != b.hash,
                reason: reason(&a, &b),
                running_hash: None,
                running_note: None,
            };
            if let Some(stored) = runtime.get(&(uid.clone(), a.container.clone())) {
                pr.running_hash = Some(stored.clone());
                // Compare with what the node's current kubelet computes.
                if let Some(cur) = node_versions.get(&node).and_then(|v| v.parse::<Version>().ok()) {
                    let h = hash_container(&cur, c, HashOptions::default())?;
                    let matches = u32::from_str_radix(stored.trim_start_matches("0x"), 16).ok() == Some(h.hash);
                    pr.running_note = Some(if matches {
                        format!("stored hash matches kubelet {cur}")
                    } else {
                        format!("stored hash {stored} != {} computed by the node's kubelet {cur}: the kubelet will restart it (or it runs an older spec)", h.hex)
                    });
                }
            }
            out.push(pr);
        }
    }
    Ok(out)
}

pub fn render(from: &Version, to: &Version, preds: &[Prediction]) -> String {
    let mut o = String::new();
    let restarts = preds.iter().filter(|p| p.restart).count();
    o.push_str(&format!(
        "kubelet {from} → {to}: {restarts} of {} containers would be restarted\n  {}\n  {}\n\n",
        preds.len(),
        Era::of(from).describe(),
        Era::of(to).describe()
    ));
    o.push_str(&format!(
        "{:<20} {:<44} {:<24} {:<9} {:<9} {:<8} REASON\n",
        "NODE", "NAMESPACE/POD", "CONTAINER", "FROM", "TO", "RESTART"
    ));
    for p in preds {
        o.push_str(&format!(
            "{:<20} {:<44} {:<24} {:<9} {:<9} {:<8} {}\n",
            unstuck_report::clean(&p.node),
            unstuck_report::clean(&format!("{}/{}", p.namespace, p.pod)),
            unstuck_report::clean(&p.container),
            p.from_hash,
            p.to_hash,
            if p.restart { "yes" } else { "no" },
            p.reason
        ));
        if let Some(n) = &p.running_note {
            o.push_str(&format!("{:<20} runtime: {}\n", "", n));
        }
    }
    let mut by_node: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut by_owner: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for p in preds {
        let e = by_node.entry(p.node.as_str()).or_default();
        e.1 += 1;
        let w = by_owner.entry(format!("{}/{}", p.namespace, p.owner)).or_default();
        w.1 += 1;
        if p.restart {
            e.0 += 1;
            w.0 += 1;
        }
    }
    o.push_str("\nPER NODE\n");
    for (n, (r, t)) in &by_node {
        let advice = if *r > 0 { "drain the node before swapping the kubelet" } else { "safe: no container restarts" };
        o.push_str(&format!("  {:<20} {r}/{t} restart — {advice}\n", unstuck_report::clean(n)));
    }
    o.push_str("\nPER WORKLOAD\n");
    for (w, (r, t)) in &by_owner {
        o.push_str(&format!("  {:<50} {r}/{t} containers restart\n", unstuck_report::clean(w)));
    }
    o
}
