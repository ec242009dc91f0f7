//! API object files: typed dump lists (fast path) and loose kubectl output (any kinds, JSON or YAML).

use std::sync::Arc;

use rustc_hash::FxHashSet;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use unstuck_model::{Deployment, Event, Lease, Node, Owner, Pod, Pvc, ReplicaSet, StatefulSet, Time};

use crate::error::strip_location;
use crate::store::Object;
use crate::{Collector, IngestError};

#[derive(Deserialize)]
#[serde(bound = "T: DeserializeOwned + ListItem")]
struct List<T> {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    items: Items<T>,
}

/// What a list keeps of its items when it has more than its cap, and which it drops as they are read.
trait ListItem {
    /// Not kept (an event about a settled pod); its time still counts for the capture time.
    fn about_settled(&self, _settled: &FxHashSet<u128>) -> bool {
        false
    }
    /// How recent the item is: over the cap, the newest items are kept.
    fn time(&self) -> Option<Time> {
        None
    }
}

/// An event about a pod in `settled` (matched by UID; events without one are kept), unless a rule reads
/// it about settled pods too.
pub(crate) fn event_about_settled(e: &Event, settled: &FxHashSet<u128>) -> bool {
    let o = &e.involved_object;
    o.kind == "Pod" && uid_bits(&o.uid).is_some_and(|u| settled.contains(&u)) && !e.read_about_settled_pods()
}

impl ListItem for Box<Event> {
    fn about_settled(&self, settled: &FxHashSet<u128>) -> bool {
        event_about_settled(self, settled)
    }
    fn time(&self) -> Option<Time> {
        Event::time(self)
    }
}
impl ListItem for Node {}
impl ListItem for Box<Pod> {}
impl ListItem for Deployment {}
impl ListItem for ReplicaSet {}
impl ListItem for StatefulSet {}
impl ListItem for Owner {}
impl ListItem for Pvc {}
impl ListItem for Lease {}
impl ListItem for serde::de::IgnoredAny {}
impl ListItem for serde_json::Value {}

/// How the list being parsed on this thread keeps its items (set by `parse_list_with` around one parse).
#[derive(Clone, Default)]
struct Keep {
    /// At most this many items are kept: the newest (`ListItem::time`, then the later in the file).
    cap: Option<usize>,
    /// Items about these pods are dropped as they are read, before the cap counts them.
    settled: Option<Arc<FxHashSet<u128>>>,
}

thread_local! {
    static KEEP: std::cell::RefCell<Keep> = std::cell::RefCell::new(Keep::default());
}

/// A list's items as kept under the thread's `Keep`; every item is parsed in full whether kept or not
/// (broken syntax is an error wherever it is). `null` is an empty list.
struct Items<T> {
    kept: Vec<T>,
    /// Items over the cap, not kept.
    over_cap: u64,
    /// The newest time among the items dropped as settled.
    settled_newest: Option<Time>,
}

impl<T> Default for Items<T> {
    fn default() -> Self {
        Items { kept: Vec::new(), over_cap: 0, settled_newest: None }
    }
}

/// An item ranked for the newest-first cap: by time, then by position in the file.
struct Ranked<T> {
    time: Option<Time>,
    pos: usize,
    item: T,
}

impl<T> PartialEq for Ranked<T> {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.pos) == (o.time, o.pos)
    }
}
impl<T> Eq for Ranked<T> {}
impl<T> PartialOrd for Ranked<T> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for Ranked<T> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.time, self.pos).cmp(&(o.time, o.pos))
    }
}

impl<'de, T: Deserialize<'de> + ListItem> Deserialize<'de> for Items<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de> + ListItem> serde::de::Visitor<'de> for V<T> {
            type Value = Items<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of objects")
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Items::default())
            }
            fn visit_none<E>(self) -> Result<Self::Value, E> {
                Ok(Items::default())
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
                d.deserialize_seq(self)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let keep = KEEP.with(|k| k.borrow().clone());
                let mut out = Items::default();
                let Some(cap) = keep.cap else {
                    while let Some(x) = seq.next_element::<T>()? {
                        match &keep.settled {
                            Some(s) if x.about_settled(s) => out.settled_newest = out.settled_newest.max(x.time()),
                            _ => out.kept.push(x),
                        }
                    }
                    return Ok(out);
                };
                // A min-heap of at most `cap` items: the oldest leaves when a newer one comes.
                let mut heap = std::collections::BinaryHeap::new();
                let mut pos = 0;
                while let Some(x) = seq.next_element::<T>()? {
                    if keep.settled.as_ref().is_some_and(|s| x.about_settled(s)) {
                        out.settled_newest = out.settled_newest.max(x.time());
                        continue;
                    }
                    heap.push(std::cmp::Reverse(Ranked { time: x.time(), pos, item: x }));
                    pos += 1;
                    if heap.len() > cap {
                        heap.pop();
                        out.over_cap += 1;
                    }
                }
                let mut kept = heap.into_vec();
                kept.sort_unstable_by_key(|r| r.0.pos);
                out.kept = kept.into_iter().map(|r| r.0.item).collect();
                Ok(out)
            }
        }
        d.deserialize_option(V(std::marker::PhantomData))
    }
}

fn is_yaml(path: &str) -> bool {
    path.ends_with(".yaml") || path.ends_with(".yml")
}

/// Deserialize JSON with the fast reader ([`crate::json`], built for kubectl's indented dumps), falling
/// back to serde_json when it refuses, so what is accepted, the objects read and every error message
/// (with line and column) are serde_json's.
pub(crate) fn from_json_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, serde_json::Error> {
    match crate::json::from_slice(bytes) {
        Ok(v) => Ok(v),
        Err(_) => serde_json::from_slice(bytes),
    }
}

/// Parse a typed `*List` file of a known kind, keeping every item.
fn parse_list<T: DeserializeOwned + ListItem>(
    path: &str,
    bytes: &[u8],
    list_kind: &str,
) -> Result<Vec<T>, IngestError> {
    Ok(parse_list_with(path, bytes, list_kind, Keep::default())?.kept)
}

/// Parse a typed `*List` file, keeping its items as `keep` says.
fn parse_list_with<T: DeserializeOwned + ListItem>(
    path: &str,
    bytes: &[u8],
    list_kind: &str,
    keep: Keep,
) -> Result<Items<T>, IngestError> {
    KEEP.set(keep);
    let list: Result<List<T>, IngestError> = if is_yaml(path) {
        // kubectl's and must-gather's block YAML read directly when the fast reader accepts it; anything else
        // (and every error message) from serde_yaml_ng.
        match crate::yaml_fast::from_slice(bytes) {
            Ok(list) => Ok(list),
            Err(_) => {
                tracing::debug!(path, "outside the fast YAML subset: read by serde_yaml_ng");
                serde_yaml_ng::from_slice(bytes).map_err(|e| IngestError::yaml(path, e))
            }
        }
    } else {
        from_json_slice(bytes).map_err(|e| IngestError::json(path, e))
    };
    KEEP.set(Keep::default());
    let list = list?;
    if let Some(k) = &list.kind {
        if k != list_kind && k != "List" {
            return Err(IngestError::WrongKind { path: path.into(), expected: list_kind.into(), found: k.clone() });
        }
    }
    Ok(list.items)
}

/// Add the objects of a dump file (`<stem>.json`) to the collector.
pub(crate) fn add_dump_file(c: &mut Collector, path: &str, stem: &str, bytes: &[u8]) -> Result<(), IngestError> {
    let s = &mut c.snap;
    match stem {
        "nodes" => s.nodes.extend(parse_list::<Node>(path, bytes, "NodeList")?),
        "pods" if c.opts.raw_pods => {
            let raw = parse_list::<serde_json::Value>(path, bytes, "PodList")?;
            for (i, v) in raw.into_iter().enumerate() {
                let pod: Pod = serde_json::from_value(v.clone()).map_err(|e| IngestError::Invalid {
                    path: path.into(),
                    msg: format!("pod {i}: {}", strip_location(e.to_string())),
                })?;
                c.add_pod(Box::new(pod));
                c.snap.raw_pods.push(v);
            }
        }
        // Per file: what a slimmed pod drops is freed before the next file is parsed, and the allocator
        // hands that memory out again instead of touching fresh pages.
        "pods" => parse_list::<Box<Pod>>(path, bytes, "PodList")?.into_iter().for_each(|p| c.add_pod(p)),
        "events" => {
            let cap = c.opts.limits.max_events_per_file;
            let keep = Keep { cap: Some(cap), settled: c.settled.clone() };
            let items = parse_list_with::<Box<Event>>(path, bytes, "EventList", keep)?;
            c.snap.note_dropped(items.settled_newest);
            c.snap.events.extend(items.kept.into_iter().map(std::sync::Arc::from));
            if items.over_cap > 0 {
                c.warn(format!(
                    "{path}: {} older events beyond the newest {cap} were read but not kept (limit max_events_per_file)",
                    items.over_cap
                ));
            }
        }
        "deployments" => s.deployments.extend(parse_list::<Deployment>(path, bytes, "DeploymentList")?),
        "replicasets" => s.replica_sets.extend(parse_list::<ReplicaSet>(path, bytes, "ReplicaSetList")?),
        "statefulsets" => s.stateful_sets.extend(parse_list::<StatefulSet>(path, bytes, "StatefulSetList")?),
        "daemonsets" => s.daemon_sets.extend(parse_list::<Owner>(path, bytes, "DaemonSetList")?),
        "jobs" => s.jobs.extend(parse_list::<Owner>(path, bytes, "JobList")?),
        "persistentvolumeclaims" => s.pvcs.extend(parse_list::<Pvc>(path, bytes, "PersistentVolumeClaimList")?),
        "leases" => s.leases.extend(parse_list::<Lease>(path, bytes, "LeaseList")?),
        // Present in every dump but not needed by any rule: checked for shape only.
        "services" => {
            parse_list::<serde::de::IgnoredAny>(path, bytes, "ServiceList")?;
        }
        "replication-controllers" => {
            parse_list::<serde::de::IgnoredAny>(path, bytes, "ReplicationControllerList")?;
        }
        _ => return Ok(()),
    }
    c.saw_kind(stem);
    Ok(())
}

/// The objects of one typed list page of kind `stem`, for the watch store (no slimming here: the store
/// keeps what a later snapshot slims).
pub(crate) fn parse_objects(stem: &str, path: &str, bytes: &[u8]) -> Result<Vec<Object>, IngestError> {
    fn all<T: DeserializeOwned + ListItem>(
        path: &str,
        bytes: &[u8],
        list_kind: &str,
        f: fn(T) -> Object,
    ) -> Result<Vec<Object>, IngestError> {
        Ok(parse_list::<T>(path, bytes, list_kind)?.into_iter().map(f).collect())
    }
    match stem {
        "nodes" => all(path, bytes, "NodeList", |o: Node| Object::Node(Box::new(o))),
        "pods" => all(path, bytes, "PodList", |o: Box<Pod>| Object::Pod(o.into())),
        "events" => all(path, bytes, "EventList", |o: Box<Event>| Object::Event(o.into())),
        "deployments" => all(path, bytes, "DeploymentList", |o: Deployment| Object::Deployment(Box::new(o))),
        "replicasets" => all(path, bytes, "ReplicaSetList", |o: ReplicaSet| Object::ReplicaSet(Box::new(o))),
        "statefulsets" => all(path, bytes, "StatefulSetList", |o: StatefulSet| Object::StatefulSet(Box::new(o))),
        "daemonsets" => all(path, bytes, "DaemonSetList", |o: Owner| Object::DaemonSet(Box::new(o))),
        "jobs" => all(path, bytes, "JobList", |o: Owner| Object::Job(Box::new(o))),
        "persistentvolumeclaims" => all(path, bytes, "PersistentVolumeClaimList", |o: Pvc| Object::Pvc(Box::new(o))),
        "leases" => all(path, bytes, "LeaseList", |o: Lease| Object::Lease(Box::new(o))),
        other => Err(IngestError::Invalid { path: path.into(), msg: format!("{other}: not a kind the store keeps") }),
    }
}

/// A pod UID (a UUID) as a number, for a compact set of settled pods; `None` for anything else.
pub(crate) fn uid_bits(uid: &str) -> Option<u128> {
    uuid::Uuid::try_parse(uid).ok().map(|u| u.as_u128())
}

/// Dispatch one object of any kind by its `kind` field.
pub(crate) fn add_value(c: &mut Collector, path: &str, idx: usize, v: serde_json::Value) -> Result<(), IngestError> {
    let kind = v.get("kind").and_then(|k| k.as_str()).unwrap_or("").to_string();
    if kind.ends_with("List") || (kind.is_empty() && v.get("items").is_some()) {
        let items = match v.get("items") {
            Some(serde_json::Value::Array(_)) => match v {
                serde_json::Value::Object(mut m) => match m.remove("items") {
                    Some(serde_json::Value::Array(a)) => a,
                    _ => Vec::new(),
                },
                _ => Vec::new(),
            },
            Some(serde_json::Value::Null) | None => Vec::new(),
            Some(_) => {
                return Err(IngestError::Invalid {
                    path: path.into(),
                    msg: format!("document {idx}: items is not a list"),
                })
            }
        };
        for (i, item) in items.into_iter().enumerate() {
            add_value(c, path, i, item)?;
        }
        return Ok(());
    }
    fn conv<T: DeserializeOwned>(path: &str, idx: usize, kind: &str, v: serde_json::Value) -> Result<T, IngestError> {
        let name = v.pointer("/metadata/name").and_then(|n| n.as_str()).unwrap_or("?").to_string();
        serde_json::from_value(v).map_err(|e| IngestError::Invalid {
            path: path.into(),
            msg: format!("object {idx} ({kind} {name:?}): {}", strip_location(e.to_string())),
        })
    }
    let s = &mut c.snap;
    let stem = match kind.as_str() {
        "Node" => {
            s.nodes.push(conv(path, idx, &kind, v)?);
            "nodes"
        }
        "Pod" => {
            if c.opts.raw_pods {
                s.raw_pods.push(v.clone());
            }
            c.add_pod(conv(path, idx, &kind, v)?);
            "pods"
        }
        "Event" => {
            s.events.push(std::sync::Arc::from(conv::<Box<Event>>(path, idx, &kind, v)?));
            "events"
        }
        "Deployment" => {
            s.deployments.push(conv(path, idx, &kind, v)?);
            "deployments"
        }
        "ReplicaSet" => {
            s.replica_sets.push(conv(path, idx, &kind, v)?);
            "replicasets"
        }
        "StatefulSet" => {
            s.stateful_sets.push(conv(path, idx, &kind, v)?);
            "statefulsets"
        }
        "DaemonSet" => {
            s.daemon_sets.push(conv(path, idx, &kind, v)?);
            "daemonsets"
        }
        "Job" => {
            s.jobs.push(conv(path, idx, &kind, v)?);
            "jobs"
        }
        "PersistentVolumeClaim" => {
            s.pvcs.push(conv(path, idx, &kind, v)?);
            "persistentvolumeclaims"
        }
        "Lease" => {
            s.leases.push(conv(path, idx, &kind, v)?);
            "leases"
        }
        "" => {
            return Err(IngestError::Invalid { path: path.into(), msg: format!("object {idx} has no kind") });
        }
        other => {
            c.warn(format!("{path}: object {idx}: kind {other} is not used by any rule; ignored"));
            return Ok(());
        }
    };
    c.saw_kind(stem);
    Ok(())
}

/// kubectl output from memory (an archive entry, a layout's file, a caller's bytes): a terminal session,
/// describe text, `get` tables or a manifest, read as a file is (`crate::read_text`). It has no file time: a
/// text's ages count back from now, which is then the capture time.
pub(crate) fn add_loose_bytes(c: &mut Collector, path: &str, bytes: &[u8]) -> Result<(), IngestError> {
    let described = crate::describe::sniff(bytes);
    let tabled = !described && crate::table::sniff(bytes);
    crate::read_text(c, path, bytes, (described, tabled), crate::Saved::unknown())
}

/// Objects from a manifest's bytes (JSON, concatenated JSON, or multi-document YAML; a YAML paste cut or
/// elided by hand read up to where it stops, with a warning).
pub(crate) fn add_manifest_bytes(c: &mut Collector, path: &str, bytes: &[u8]) -> Result<(), IngestError> {
    add_manifest(c, path, bytes).map_err(|e| match is_json(bytes) || manifest_like(bytes) {
        true => e,
        false => unrecognised_text(e),
    })
}

fn add_manifest(c: &mut Collector, path: &str, bytes: &[u8]) -> Result<(), IngestError> {
    let before = c.object_count();
    let values = match manifest_values(path, bytes) {
        Ok(v) => v,
        Err(e) if !is_json(bytes) => match salvage_yaml(bytes, false) {
            Some((v, how)) => {
                c.warn(format!("{path}: not YAML as it stands ({e}); read as a cut or elided paste: {how}"));
                v
            }
            None => return Err(e),
        },
        Err(e) => return Err(e),
    };
    for (i, v) in values.into_iter().enumerate() {
        if v.is_null() {
            continue;
        }
        if !v.is_object() {
            return Err(IngestError::Invalid {
                path: path.into(),
                msg: format!("document {i} is not a Kubernetes object (expected JSON or YAML kubectl output)"),
            });
        }
        add_value(c, path, i, v)?;
    }
    if c.object_count() == before {
        return Err(IngestError::Empty { path: path.into() });
    }
    Ok(())
}

/// Whether a text has a line a YAML manifest has (`apiVersion:` or `kind:`).
fn manifest_like(bytes: &[u8]) -> bool {
    bytes.split(|&b| b == b'\n').any(|l| {
        let l = l.trim_ascii_start();
        l.starts_with(b"apiVersion:") || l.starts_with(b"kind:")
    })
}

/// A text no reader recognised and that does not look like a manifest: the manifest reader's complaint
/// alone would mislead (prose read as YAML fails on its first colon), so the error says what was looked
/// for; a parser's position is kept.
fn unrecognised_text(e: IngestError) -> IngestError {
    const WHAT: &str = "not a text unstuck reads: no `kubectl get` table header, `kubectl describe` output, terminal \
         session (a prompt and a kubectl command), manifest (an apiVersion or kind line) or node log line was found";
    match e {
        IngestError::Parse { path, line, column, msg } => {
            IngestError::Parse { path, line, column, msg: format!("{WHAT} (read as YAML, the last try: {msg})") }
        }
        IngestError::Invalid { path, .. } | IngestError::Empty { path } => {
            IngestError::Invalid { path, msg: WHAT.into() }
        }
        e => e,
    }
}

fn is_json(bytes: &[u8]) -> bool {
    matches!(bytes.iter().find(|b| !b.is_ascii_whitespace()), Some(b'{' | b'['))
}

/// The objects of kubectl's JSON (one document, concatenated documents, or an array of them) or YAML
/// (multi-document) output; YAML's empty documents as nulls.
pub(crate) fn manifest_values(path: &str, bytes: &[u8]) -> Result<Vec<serde_json::Value>, IngestError> {
    if !is_json(bytes) {
        return yaml_values(path, bytes);
    }
    let mut out = Vec::new();
    for v in serde_json::Deserializer::from_slice(bytes).into_iter::<serde_json::Value>() {
        match v.map_err(|e| IngestError::json(path, e))? {
            serde_json::Value::Array(a) => out.extend(a),
            v => out.push(v),
        }
    }
    Ok(out)
}

/// A JSON manifest cut where a paste ended (`kubectl get pod -o json` and the next command right under
/// it): read up to its last whole member, its open objects and arrays closed; `None` unless that holds an
/// object with a `kind`.
pub(crate) fn salvage_json(text: &str) -> Option<(Vec<serde_json::Value>, String)> {
    let lines: Vec<&str> = text.lines().collect();
    // The last line a member or element ends on (`,`), or a container opens on, before the cut.
    let keep = (0..lines.len()).rev().find(|&i| {
        let t = lines[i].trim_end();
        t.ends_with(',') || t.ends_with('{') || t.ends_with('[')
    })?;
    let mut kept: String = lines[..=keep].join("\n");
    if kept.ends_with(',') {
        kept.pop();
    }
    // The containers still open there, outside strings.
    let (mut open, mut in_str, mut esc) = (Vec::new(), false, false);
    for ch in kept.chars() {
        match (in_str, ch) {
            (true, _) if esc => esc = false,
            (true, '\\') => esc = true,
            (true, '"') => in_str = false,
            (true, _) => {}
            (false, '"') => in_str = true,
            (false, '{') => open.push('}'),
            (false, '[') => open.push(']'),
            (false, '}' | ']') => {
                open.pop();
            }
            _ => {}
        }
    }
    if in_str || open.is_empty() {
        return None;
    }
    let closed = open.len();
    kept.extend(open.into_iter().rev());
    let v: serde_json::Value = serde_json::from_str(&kept).ok()?;
    v.get("kind")?.as_str()?;
    Some((
        vec![v],
        format!("cut after line {} (the rest was not read), {closed} open object(s) and array(s) closed", keep + 1),
    ))
}

/// The documents of a YAML stream as JSON values: through the fast converter when it accepts the text,
/// else (and for every error) serde_yaml_ng.
fn yaml_values(path: &str, bytes: &[u8]) -> Result<Vec<serde_json::Value>, IngestError> {
    if let Ok(docs) = crate::yaml_fast::to_json_docs(bytes) {
        let values: Option<Vec<serde_json::Value>> = docs
            .into_iter()
            .map(|d| match d {
                None => Some(serde_json::Value::Null),
                Some(j) => serde_json::from_str(&j).ok(),
            })
            .collect();
        if let Some(v) = values {
            return Ok(v);
        }
    }
    serde_yaml_ng::Deserializer::from_slice(bytes)
        .map(|doc| serde_json::Value::deserialize(doc).map_err(|e| IngestError::yaml(path, e)))
        .collect()
}

/// A Kubernetes object pasted into a ticket and cut or elided on the way (a stray `> ` quote mark, `...`
/// lines where the reporter left parts out, and then maybe cut off mid-document): the documents of what is
/// left, and what was done to read it. `None` unless the text shows a quote mark or an elision, and what is
/// left holds at least one object with a `kind`.
pub(crate) fn salvage_yaml(bytes: &[u8], pasted: bool) -> Option<(Vec<serde_json::Value>, String)> {
    let text = std::str::from_utf8(bytes).ok()?;
    // (original line number, text) of the lines kept.
    let mut lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).collect();
    let mut how = Vec::new();
    // A markdown quote: on every non-blank line, or left on the first one only.
    let quoted = |l: &str| l.starts_with("> ") || l == ">";
    let filled: Vec<usize> = (0..lines.len()).filter(|&i| !lines[i].1.trim().is_empty()).collect();
    let strip =
        if filled.iter().all(|&i| quoted(lines[i].1)) { filled.clone() } else { filled.into_iter().take(1).collect() };
    let stripped: Vec<usize> = strip.into_iter().filter(|&i| quoted(lines[i].1)).collect();
    for &i in &stripped {
        lines[i].1 = lines[i].1.strip_prefix("> ").unwrap_or("");
    }
    if !stripped.is_empty() {
        how.push(format!("the `> ` quote mark removed from {} line(s)", stripped.len()));
    }
    // Elisions.
    let before = lines.len();
    lines.retain(|(_, l)| !matches!(l.trim(), "..." | "…" | "[...]" | "<snip>" | "..snip.."));
    if lines.len() < before {
        how.push(format!("{} elided line(s) (`...`) dropped", before - lines.len()));
    }
    // Only a text that shows it was pasted (by those marks, or a command line right under it): a manifest
    // with a mistake in it, or cut short alone, stays an error naming its line.
    if how.is_empty() && !pasted {
        return None;
    }
    // Parse, and cut before the line where the parser stops: at most four tries.
    for _ in 0..4 {
        let joined: String = lines.iter().map(|(_, l)| format!("{l}\n")).collect();
        match serde_yaml_ng::Deserializer::from_str(&joined)
            .map(serde_json::Value::deserialize)
            .collect::<Result<Vec<serde_json::Value>, _>>()
        {
            Ok(docs) => {
                let objects = docs.iter().filter(|d| d.get("kind").is_some_and(|k| k.is_string())).count();
                return (objects > 0).then(|| (docs, how.join("; ")));
            }
            Err(e) => {
                // At the end of the stream (a quote left open) the parser names the line after the last.
                let at = e.location().map(|l| l.line().min(lines.len())).filter(|&l| l >= 2)?;
                // The parser may only notice a bad line at the next one: cut before the line it names.
                how.push(format!("cut before line {} (the rest was not read)", lines[at - 1].0));
                lines.truncate(at - 1);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use unstuck_model::{Event, Node, Pod};

    #[test]
    fn a_cut_or_elided_paste_is_read_with_what_was_done() {
        // tofu-controller#1291: the reporter elided the rest with `...`.
        let elided = "apiVersion: v1\nkind: Pod\nmetadata:\n  finalizers:\n  - foregroundDeletion\n  name: tf-runner\n  namespace: foobar\n  ...\n...\n";
        assert!(yaml_values("p", elided.as_bytes()).is_err());
        let (docs, how) = salvage_yaml(elided.as_bytes(), false).expect("read");
        assert_eq!(docs[0]["metadata"]["finalizers"][0], "foregroundDeletion");
        assert!(how.contains("2 elided line(s)"), "{how}");
        // kubernetes#101391: a `> ` left on the first line, the text cut inside managedFields.
        let quoted = "> kind: Pod\napiVersion: v1\nmetadata:\n  name: prometheus-0\n  namespace: lens-metrics\n  deletionTimestamp: '2021-04-22T23:49:27Z'\n  managedFields:\n    - manager: kubelet\n      fieldsV1:\n        'f:status':\n          'k:{\"type\":\"Ready\"}':\n            .: {}\n            'f:lastProbeTime':";
        let (docs, how) = salvage_yaml(quoted.as_bytes(), false).expect("read");
        assert_eq!(docs[0]["metadata"]["deletionTimestamp"], "2021-04-22T23:49:27Z");
        assert!(how.contains("quote mark removed from 1 line"), "{how}");
        // Elided, then cut mid-line: read up to the line before.
        let cut = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web-0\n  ...\nspec:\n  nodeName: node-1\n  containers:\n  - name: web\n    image: \"nginx:1.2";
        let (docs, how) = salvage_yaml(cut.as_bytes(), false).expect("read");
        assert_eq!(docs[0]["spec"]["nodeName"], "node-1");
        assert!(how.contains("cut before line 10"), "{how}");
        // Cut alone (or a mistake in a manifest): no sign of a paste, the error stands.
        assert!(salvage_yaml(cut.replace("  ...\n", "").as_bytes(), false).is_none());
        // Right above another command in a pasted session it was cut by the paste: read.
        assert!(salvage_yaml(cut.replace("  ...\n", "").as_bytes(), true).is_some());
        // Not a Kubernetes object, or nothing to repair: not salvaged (the parser's error stands).
        assert!(salvage_yaml(b"just: [some\nprose that: is: not yaml\n", false).is_none());
        assert!(salvage_yaml(b"apiVersion: v1\nkind: Pod\n", false).is_none());
        assert!(salvage_yaml(b"\xff\xfe", false).is_none());
    }

    #[test]
    fn a_cut_json_manifest_is_closed_at_its_last_whole_member() {
        let cut = "{\n  \"kind\": \"Pod\",\n  \"metadata\": {\n    \"name\": \"a,b{\\\"[\",\n    \"labels\": [\n      \"x\",\n      \"y";
        let (v, how) = salvage_json(cut).expect("read");
        assert_eq!(v[0]["metadata"]["name"], "a,b{\"[");
        assert_eq!(v[0]["metadata"]["labels"], serde_json::json!(["x"]));
        assert!(how.contains("cut after line 6") && how.contains("3 open"), "{how}");
        // Nothing left open (whole, or a mistake elsewhere), no `kind`, or cut inside a string: not read.
        assert!(salvage_json("{\n  \"kind\": \"Pod\"\n}\n").is_none());
        assert!(salvage_json("{\n  \"metadata\": {\n    \"name\": \"a\",\n    \"x").is_none());
        assert!(salvage_json("{\n  \"kind\": \"Pod\",\n  \"note\": \"one,\n").is_none());
    }

    /// Whatever the fast reader accepts, serde_json reads the same way; the reader's answer (objects
    /// or error) is always serde_json's. Returns whether the fast reader accepted.
    fn agree<T: DeserializeOwned + ListItem + PartialEq + std::fmt::Debug>(bytes: &[u8]) -> bool {
        let fast = crate::json::from_slice::<List<T>>(bytes).map(|l| l.items.kept);
        let reference = serde_json::from_slice::<List<T>>(bytes).map(|l| l.items.kept);
        if let Ok(a) = &fast {
            match &reference {
                Ok(b) => assert_eq!(a, b),
                Err(e) => panic!("fast reader accepted {:?}, serde_json refused: {e}", String::from_utf8_lossy(bytes)),
            }
        }
        // And the public path gives serde_json's answer, errors included.
        let ours = from_json_slice::<List<T>>(bytes).map(|l| l.items.kept).map_err(|e| e.to_string());
        assert_eq!(ours, reference.map_err(|e| e.to_string()));
        fast.is_ok()
    }

    #[test]
    fn json_front_ends_agree_on_every_example_file() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut n = 0;
        for bundle in std::fs::read_dir(&root).unwrap() {
            let bundle = bundle.unwrap().path();
            let mut files = vec![bundle.join("nodes.json")];
            for ns in std::fs::read_dir(&bundle).unwrap().flatten() {
                files.push(ns.path().join("pods.json"));
                files.push(ns.path().join("events.json"));
            }
            for f in files.into_iter().filter(|f| f.is_file()) {
                let b = std::fs::read(&f).unwrap();
                let fast = match f.file_name().unwrap().to_str().unwrap() {
                    "nodes.json" => agree::<Node>(&b),
                    "pods.json" => agree::<Box<Pod>>(&b),
                    _ => agree::<Box<Event>>(&b),
                };
                // kubectl's own output never needs the fallback.
                assert!(fast, "{}: the fast reader refused", f.display());
                n += 1;
            }
        }
        assert!(n >= 10, "only {n} files checked");
    }

    #[test]
    fn json_front_ends_agree_on_bad_input() {
        let cases: &[&[u8]] = &[
            b"",
            b"{",
            b"{\"items\": [",
            b"{\"items\": [{\"metadata\": {\"name\": \"a\xff\"}}]}",
            b"{\"items\": [{\"metadata\": {\"name\": 1}}]}",
            b"{\"items\": [{\"metadata\": {\"name\": \"a\", \"name\": \"b\"}}]}",
            b"{\"items\": [{\"spec\": {\"hostPID\": tru}}]}",
            b"{\"items\": [{\"metadata\": {\"generation\": 1e999}}]}",
            b"{\"items\": [{\"metadata\": {\"generation\": 99999999999999999999}}]}",
            b"{\"items\": [{\"metadata\": {\"name\": \"\\ud800\"}}]}",
            b"{\"items\": [{\"metadata\": {\"name\": \"tab\there\"}}]}",
            b"{\"items\": null}",
            b"{\"items\": [{}]} trailing",
            b"{\"items\": [{\"status\": {\"conditions\": [{\"type\": \"Ready\", \"lastTransitionTime\": \"yesterday\"}]}}]}",
            b"[1, 2, 3]",
            b"{\"items\": [{\"metadata\": {\"labels\": {\"a\": \"b\", \"a\": \"c\"}}}]}",
            // Invalid UTF-8 in a skipped field: the fast reader refuses, serde_json (and so the reader) accepts.
            b"{\"kind\": \"PodLis\xff\xfft\", \"items\": []}",
        ];
        for c in cases {
            agree::<Box<Pod>>(c);
        }
        // A well-formed list of the API's shape is read by the fast reader itself.
        assert!(agree::<Box<Pod>>(b"{\"kind\": \"PodList\", \"items\": [{\"metadata\": {\"name\": \"a\"}}]}"));
    }
}
