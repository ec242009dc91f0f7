//! A watch-fed store of the cluster: what `unstuck serve` keeps between evaluations.
//!
//! No I/O: the caller lists each kind (pages handed to [`parse_page`]) and then feeds the lines of a
//! watch stream to [`Store::apply_watch_line`]. Objects are parsed by the same slim deserializer the
//! bundle reader uses, kept by namespace/name (as a reflector keeps them), and [`Store::snapshot`]
//! builds the model through the same `Collector` a bundle or a one-shot live read goes through, so
//! the rules see exactly what `diagnose` would show at that moment.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use serde::Deserialize;
use unstuck_model::{
    Deployment, Event, Lease, Node, ObjectMeta, Owner, Pod, Pvc, ReplicaSet, Scope, Snapshot, StatefulSet, Str,
};

use crate::{api, Collector, IngestError, Options};

/// One object of a kind the rules use, as the slim model keeps it.
#[derive(Debug, Clone)]
/// Every variant is boxed: a store keeps hundreds of thousands of these in a map, whose entries
/// would otherwise all be as large as the largest kind.
pub enum Object {
    Node(Box<Node>),
    /// Shared with every snapshot made from the store (pods and events are most of it).
    Pod(Arc<Pod>),
    Event(Arc<Event>),
    Deployment(Box<Deployment>),
    ReplicaSet(Box<ReplicaSet>),
    StatefulSet(Box<StatefulSet>),
    DaemonSet(Box<Owner>),
    Job(Box<Owner>),
    Pvc(Box<Pvc>),
    Lease(Box<Lease>),
}

impl Object {
    /// Namespace and name: an object's identity in the store.
    pub fn key(&self) -> (&str, &str) {
        let m = match self {
            Object::Event(e) => return (e.metadata.namespace.as_str(), e.metadata.name.as_str()),
            Object::Node(o) => &o.metadata,
            Object::Pod(o) => &o.metadata,
            Object::Deployment(o) => &o.metadata,
            Object::ReplicaSet(o) => &o.metadata,
            Object::StatefulSet(o) => &o.metadata,
            Object::DaemonSet(o) | Object::Job(o) => &o.metadata,
            Object::Pvc(o) => &o.metadata,
            Object::Lease(o) => &o.metadata,
        };
        (m.namespace.as_str(), m.name.as_str())
    }
}

/// The kinds a store keeps (the dump stems of `kubectl cluster-info dump`).
pub const STORE_KINDS: &[&str] = &[
    "nodes",
    "pods",
    "events",
    "deployments",
    "replicasets",
    "statefulsets",
    "daemonsets",
    "jobs",
    "persistentvolumeclaims",
    "leases",
];

/// The objects of one list page (a `*List` document) of kind `stem`.
pub fn parse_page(stem: &str, source: &str, bytes: &[u8]) -> Result<Vec<Object>, IngestError> {
    api::parse_objects(stem, source, bytes)
}

/// What one watch line did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchStep {
    /// An object was added, changed or deleted: `ADDED`, `MODIFIED` or `DELETED`.
    Changed(&'static str),
    /// A bookmark: only the resourceVersion moved.
    Bookmark,
    /// The watch's resourceVersion is too old (410 Gone): list again.
    Expired,
    /// The API server ended the watch with an error status.
    Failed(String),
}

#[derive(Debug, Default)]
struct KindState {
    objects: HashMap<(Str, Str), Object>,
    resource_version: String,
    synced: bool,
    /// Why this kind could not be listed (then rules that need it are weaker).
    failed: Option<String>,
}

/// The cluster as the watches last saw it.
#[derive(Debug, Default)]
pub struct Store {
    kinds: BTreeMap<&'static str, KindState>,
    /// Slim settled pods as they are stored (`Options::slim`): each new version of a pod is judged again.
    slim: bool,
    links: Links,
    dirty: Dirty,
}

type Key = (Str, Str);
/// `kind`, `namespace`, `name` (a Node's namespace is empty).
type Ref = (Str, Str, Str);

/// Reverse links between the kept objects, current after every change: what a change can affect.
#[derive(Debug, Default)]
struct Links {
    pods_by_node: HashMap<Str, HashSet<Key>>,
    /// Pods by their controller.
    pods_by_owner: HashMap<Ref, HashSet<Key>>,
    /// Pods being deleted, by their controller: what a workload finding reads.
    deleting_by_owner: HashMap<Ref, HashSet<Key>>,
    /// ReplicaSets by their controller (a Deployment).
    rs_by_owner: HashMap<Ref, HashSet<Key>>,
    /// Events by the object they are about.
    events_by_object: HashMap<Ref, HashSet<Key>>,
}

fn controller_ref(m: &ObjectMeta) -> Option<Ref> {
    m.controller().map(|o| (o.kind.clone(), m.namespace.clone(), o.name.clone()))
}

fn involved_ref(e: &Event) -> Ref {
    let o = &e.involved_object;
    let ns = if o.kind == "Node" { Str::default() } else { o.namespace.clone() };
    (o.kind.clone(), ns, o.name.clone())
}

fn link<K: std::hash::Hash + Eq>(map: &mut HashMap<K, HashSet<Key>>, k: K, key: Key, add: bool) {
    if add {
        map.entry(k).or_default().insert(key);
    } else if let Some(set) = map.get_mut(&k) {
        set.remove(&key);
        if set.is_empty() {
            map.remove(&k);
        }
    }
}

impl Links {
    fn update(&mut self, o: &Object, add: bool) {
        let (ns, name) = o.key();
        let key = (Str::from(ns), Str::from(name));
        match o {
            Object::Pod(p) => {
                if !p.spec.node_name.is_empty() {
                    link(&mut self.pods_by_node, p.spec.node_name.clone(), key.clone(), add);
                }
                if let Some(r) = controller_ref(&p.metadata) {
                    if p.metadata.deletion_timestamp.is_some() {
                        link(&mut self.deleting_by_owner, r.clone(), key.clone(), add);
                    }
                    link(&mut self.pods_by_owner, r, key, add);
                }
            }
            Object::ReplicaSet(rs) => {
                if let Some(r) = controller_ref(&rs.metadata) {
                    link(&mut self.rs_by_owner, r, key, add);
                }
            }
            Object::Event(e) => link(&mut self.events_by_object, involved_ref(e), key, add),
            _ => {}
        }
    }

    fn clear(&mut self, stem: &str) {
        match stem {
            "pods" => {
                self.pods_by_node.clear();
                self.pods_by_owner.clear();
                self.deleting_by_owner.clear();
            }
            "replicasets" => self.rs_by_owner.clear(),
            "events" => self.events_by_object.clear(),
            _ => {}
        }
    }
}

/// What changed since the last evaluation, as the subjects it touches (see [`Store::take_dirty`]).
#[derive(Debug, Default, Clone)]
pub struct Dirty {
    /// A kind was listed again, or something changed whose reach is not tracked (a PVC): evaluate everything.
    pub all: bool,
    /// Changes recorded.
    pub changes: usize,
    nodes: HashSet<Str>,
    pods: HashSet<Key>,
    /// UIDs of every version of a changed pod (a deleted pod's findings go with it).
    uids: HashSet<Str>,
    workloads: HashSet<Ref>,
    /// Workloads that came or went: their pods are evaluated again too.
    workload_pods: HashSet<Ref>,
}

impl Dirty {
    pub fn is_empty(&self) -> bool {
        !self.all && self.changes == 0
    }

    /// One watch change (whatever versions of the object it notes); lease renewals are not counted.
    fn count(&mut self, o: &Object) {
        if !matches!(o, Object::Lease(_)) {
            self.changes += 1;
        }
    }

    /// Mark what a version of a changed object reaches (its node, pod, workload).
    fn note(&mut self, o: &Object, came_or_went: bool) {
        // Renewals (every node, every 10 s) change nothing a rule sees until they stop, and stopping is
        // seen by time passing: the periodic full evaluation covers leases.
        if matches!(o, Object::Lease(_)) {
            return;
        }
        let (ns, name) = o.key();
        match o {
            Object::Pod(p) => {
                if !p.spec.node_name.is_empty() {
                    self.nodes.insert(p.spec.node_name.clone());
                }
                self.pods.insert((Str::from(ns), Str::from(name)));
                self.uids.insert(p.metadata.uid.clone());
            }
            Object::Node(_) => {
                self.nodes.insert(Str::from(name));
            }
            Object::Event(e) => {
                let r = involved_ref(e);
                match r.0.as_str() {
                    "Pod" => {
                        self.pods.insert((r.1, r.2));
                    }
                    "Node" => {
                        self.nodes.insert(r.2);
                    }
                    _ => {
                        self.workloads.insert(r);
                    }
                }
            }
            Object::Deployment(_)
            | Object::ReplicaSet(_)
            | Object::StatefulSet(_)
            | Object::DaemonSet(_)
            | Object::Job(_) => {
                let kind = match o {
                    Object::Deployment(_) => "Deployment",
                    Object::ReplicaSet(_) => "ReplicaSet",
                    Object::StatefulSet(_) => "StatefulSet",
                    Object::DaemonSet(_) => "DaemonSet",
                    _ => "Job",
                };
                let r = (Str::from(kind), Str::from(ns), Str::from(name));
                if came_or_went {
                    self.workload_pods.insert(r.clone());
                }
                self.workloads.insert(r);
            }
            // Which pods mount a claim is not linked: a claim's change is rare, evaluate everything.
            Object::Pvc(_) => self.all = true,
            Object::Lease(_) => {}
        }
    }
}

#[derive(Deserialize)]
struct Head {
    #[serde(rename = "type")]
    ty: String,
    #[serde(default)]
    object: HeadObject,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct HeadObject {
    metadata: HeadMeta,
    code: Option<u16>,
    reason: String,
    message: String,
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase")]
struct HeadMeta {
    resource_version: String,
}

#[derive(Deserialize)]
struct Body<T> {
    object: T,
}

/// `stem` as one of [`STORE_KINDS`], or the error for a kind the store does not keep.
fn stem_static(stem: &str) -> Result<&'static str, IngestError> {
    STORE_KINDS
        .iter()
        .copied()
        .find(|k| *k == stem)
        .ok_or_else(|| IngestError::Invalid { path: stem.to_string(), msg: "not a kind the store keeps".into() })
}

impl Store {
    pub fn new() -> Store {
        Store::default()
    }

    /// A store that slims settled pods as they come (what a snapshot with `Options::slim` would drop anyway).
    pub fn slimming() -> Store {
        Store { slim: true, ..Store::default() }
    }

    /// Keep `o` (linked), returning the version it replaced (unlinked).
    fn keep(slim: bool, k: &mut KindState, links: &mut Links, mut o: Object) -> Option<Object> {
        if let Object::Pod(p) = &mut o {
            if slim && p.is_settled() {
                Arc::make_mut(p).slim();
            }
        }
        let (ns, name) = o.key();
        let key = (Str::from(ns), Str::from(name));
        let old = k.objects.remove(&key);
        if let Some(old) = &old {
            links.update(old, false);
        }
        links.update(&o, true);
        k.objects.insert(key, o);
        old
    }

    fn kind(&mut self, stem: &str) -> Result<&mut KindState, IngestError> {
        Ok(self.kinds.entry(stem_static(stem)?).or_default())
    }

    /// A complete list of `stem` at `resource_version` replaces what was kept of it.
    pub fn replace(&mut self, stem: &str, objects: Vec<Object>, resource_version: String) -> Result<(), IngestError> {
        let slim = self.slim;
        let st = stem_static(stem)?;
        let k = self.kinds.entry(st).or_default();
        k.objects.clear();
        self.links.clear(st);
        for o in objects {
            Store::keep(slim, k, &mut self.links, o);
        }
        k.objects.shrink_to_fit();
        k.resource_version = resource_version;
        k.synced = true;
        k.failed = None;
        self.dirty.all = true;
        Ok(())
    }

    /// `stem` could not be listed (forbidden, not served): the snapshot says so.
    pub fn fail(&mut self, stem: &str, why: String) -> Result<(), IngestError> {
        let k = self.kind(stem)?;
        k.failed = Some(why);
        self.dirty.all = true;
        Ok(())
    }

    /// What changed since the last call: the subjects an incremental evaluation must look at again.
    pub fn take_dirty(&mut self) -> Dirty {
        std::mem::take(&mut self.dirty)
    }

    /// Apply one line of a watch stream of `stem` (`{"type":…,"object":…}`); `source` names the stream in errors.
    pub fn apply_watch_line(&mut self, stem: &str, source: &str, line: &[u8]) -> Result<WatchStep, IngestError> {
        let mut head: Head = api::from_json_slice(line).map_err(|e| IngestError::json(source, e))?;
        let slim = self.slim;
        let st = stem_static(stem)?;
        let k = self.kinds.entry(st).or_default();
        let rv = std::mem::take(&mut head.object.metadata.resource_version);
        let step = match head.ty.as_str() {
            ty @ ("ADDED" | "MODIFIED" | "DELETED") => {
                let o = parse_watch_object(stem, source, line)?;
                if ty == "DELETED" {
                    let (ns, name) = o.key();
                    let old = k.objects.remove(&(Str::from(ns), Str::from(name)));
                    if let Some(old) = &old {
                        self.links.update(old, false);
                        self.dirty.note(old, true);
                    }
                    self.dirty.note(&o, true);
                    self.dirty.count(&o);
                    WatchStep::Changed("DELETED")
                } else {
                    let (ns, name) = o.key();
                    let came = !k.objects.contains_key(&(Str::from(ns), Str::from(name)));
                    self.dirty.note(&o, came);
                    self.dirty.count(&o);
                    if let Some(old) = Store::keep(slim, k, &mut self.links, o) {
                        self.dirty.note(&old, false);
                    }
                    WatchStep::Changed(if ty == "ADDED" { "ADDED" } else { "MODIFIED" })
                }
            }
            "BOOKMARK" => WatchStep::Bookmark,
            "ERROR" => {
                let o = head.object;
                return Ok(if o.code == Some(410) || o.reason == "Expired" || o.reason == "Gone" {
                    WatchStep::Expired
                } else {
                    WatchStep::Failed(format!("{} ({}): {}", o.reason, o.code.unwrap_or(0), o.message))
                });
            }
            other => {
                return Err(IngestError::Invalid {
                    path: source.into(),
                    msg: format!("unknown watch event type {other:?}"),
                })
            }
        };
        if !rv.is_empty() {
            k.resource_version = rv;
        }
        Ok(step)
    }

    /// The resourceVersion to watch `stem` from (empty until listed).
    pub fn resource_version(&self, stem: &str) -> &str {
        self.kinds.get(stem).map_or("", |k| k.resource_version.as_str())
    }

    /// Whether `stem` has been listed.
    pub fn synced(&self, stem: &str) -> bool {
        self.kinds.get(stem).is_some_and(|k| k.synced)
    }

    /// Objects kept per kind.
    pub fn counts(&self) -> Vec<(&'static str, usize)> {
        STORE_KINDS.iter().map(|s| (*s, self.kinds.get(s).map_or(0, |k| k.objects.len()))).collect()
    }

    /// The model as of now, built the way a live read builds it (same slimming, caps, warnings).
    pub fn snapshot(&self, opts: &Options, server: &str) -> Result<Snapshot, IngestError> {
        let mut c = Collector::new(opts);
        c.set_live(server);
        for stem in STORE_KINDS {
            let Some(k) = self.kinds.get(stem) else {
                c.add_warning(format!("{stem} not listed yet: rules that need them are weaker"));
                continue;
            };
            if let Some(why) = &k.failed {
                c.add_warning(format!("could not list {stem} ({why}): rules that need them are weaker"));
            }
            if !k.synced {
                continue;
            }
            c.saw_kind(stem);
            if *stem == "events" && k.objects.len() > opts.limits.max_events_per_file {
                // The newest events, as a bundle's events file over the cap keeps them.
                let cap = opts.limits.max_events_per_file;
                let mut evs: Vec<&Arc<Event>> = k
                    .objects
                    .values()
                    .filter_map(|o| match o {
                        Object::Event(e) => Some(e),
                        _ => None,
                    })
                    .collect();
                evs.sort_by_key(|e| std::cmp::Reverse(e.time()));
                c.add_warning(format!(
                    "events: {} older events beyond the newest {cap} not kept (limit max_events_per_file)",
                    evs.len() - cap
                ));
                for e in evs.into_iter().take(cap) {
                    c.add_object(Object::Event(e.clone()));
                }
                continue;
            }
            for o in k.objects.values() {
                c.add_object(o.clone());
            }
        }
        c.finish()
    }
}

impl Store {
    fn get(&self, stem: &str, key: &Key) -> Option<&Object> {
        self.kinds.get(stem)?.objects.get(key)
    }

    /// The pods a workload controls (a Deployment through its ReplicaSets); `deleting`: only those being deleted.
    fn pods_of(&self, w: &Ref, deleting: bool, out: &mut HashSet<Key>) {
        let by_owner = if deleting { &self.links.deleting_by_owner } else { &self.links.pods_by_owner };
        if let Some(v) = by_owner.get(w) {
            out.extend(v.iter().cloned());
        }
        if w.0 == "Deployment" {
            for rs in self.links.rs_by_owner.get(w).into_iter().flatten() {
                if let Some(v) = by_owner.get(&(Str::from("ReplicaSet"), rs.0.clone(), rs.1.clone())) {
                    out.extend(v.iter().cloned());
                }
            }
        }
    }

    /// The part of the cluster `dirty` can affect, as a snapshot of its own, and the [`Scope`] whose
    /// findings that snapshot decides: the nodes touched with every pod bound to them, the pods touched,
    /// the workloads those pods belong to with all their pods (and those pods' nodes), the events about
    /// all of these, their claims and their nodes' leases. Rules are pure, so a finding about a subject in
    /// the scope comes out of this snapshot as it would out of the whole cluster's.
    pub fn scoped_snapshot(
        &self,
        dirty: &Dirty,
        opts: &Options,
        server: &str,
    ) -> Result<(Snapshot, Scope), IngestError> {
        let pod = |key: &Key| match self.get("pods", key) {
            Some(Object::Pod(p)) => Some(p),
            _ => None,
        };
        // Pods evaluated again, and the nodes they are bound to (whole).
        let mut nodes: HashSet<Str> = dirty.nodes.clone();
        let mut touched: HashSet<Key> = dirty.pods.clone();
        for w in &dirty.workload_pods {
            self.pods_of(w, false, &mut touched);
        }
        for p in touched.iter().filter_map(pod) {
            if !p.spec.node_name.is_empty() {
                nodes.insert(p.spec.node_name.clone());
            }
        }
        let mut pods: HashSet<Key> = touched.iter().filter(|k| pod(k).is_some()).cloned().collect();
        for n in &nodes {
            if let Some(v) = self.links.pods_by_node.get(n) {
                pods.extend(v.iter().cloned());
            }
        }
        // Their workloads (a ReplicaSet's Deployment), with all their pods as context.
        let mut workloads: HashSet<Ref> = dirty.workloads.clone();
        let mut owners: HashSet<Ref> = HashSet::default();
        for p in pods.iter().filter_map(pod) {
            if let Some(r) = controller_ref(&p.metadata) {
                owners.insert(r);
            }
        }
        owners.extend(dirty.workloads.iter().cloned());
        for r in owners.clone() {
            if r.0 == "ReplicaSet" {
                if let Some(Object::ReplicaSet(rs)) = self.get("replicasets", &(r.1.clone(), r.2.clone())) {
                    if let Some(d) = controller_ref(&rs.metadata) {
                        owners.insert(d);
                    }
                }
            }
        }
        workloads.extend(owners.iter().filter(|r| r.0 != "ReplicaSet").cloned());
        // Only Deployments and StatefulSets have findings of their own, and those read the pods that hold
        // them up: pods being deleted (a DaemonSet's pods, on every node, would make every scope the cluster).
        let mut context: HashSet<Key> = HashSet::default();
        for w in workloads.iter().filter(|w| w.0 == "Deployment" || w.0 == "StatefulSet") {
            self.pods_of(w, true, &mut context);
        }
        context.retain(|k| !pods.contains(k));
        let mut context_nodes: HashSet<Str> = HashSet::default();
        for p in context.iter().filter_map(pod) {
            if !p.spec.node_name.is_empty() && !nodes.contains(&p.spec.node_name) {
                context_nodes.insert(p.spec.node_name.clone());
            }
        }
        let deployments: Vec<Ref> = workloads.iter().filter(|r| r.0 == "Deployment").cloned().collect();
        for r in &deployments {
            for rs in self.links.rs_by_owner.get(r).into_iter().flatten() {
                owners.insert((Str::from("ReplicaSet"), rs.0.clone(), rs.1.clone()));
            }
        }
        owners.extend(workloads.iter().cloned());

        let mut c = Collector::new(opts);
        c.set_live(server);
        for stem in STORE_KINDS {
            match self.kinds.get(stem) {
                Some(k) if k.synced => c.saw_kind(stem),
                _ => {}
            }
        }
        let all_nodes: Vec<&Str> = nodes.iter().chain(context_nodes.iter()).collect();
        for n in &all_nodes {
            if let Some(o) = self.get("nodes", &(Str::default(), (*n).clone())) {
                c.add_object(o.clone());
            }
            if let Some(o) = self.get("leases", &(Str::from("kube-node-lease"), (*n).clone())) {
                c.add_object(o.clone());
            }
        }
        let mut events: HashSet<&Key> = HashSet::default();
        let mut claims: HashSet<Key> = HashSet::default();
        for key in pods.iter().chain(context.iter()) {
            let Some(p) = pod(key) else { continue };
            c.add_object(Object::Pod(p.clone()));
            events.extend(
                self.links
                    .events_by_object
                    .get(&(Str::from("Pod"), key.0.clone(), key.1.clone()))
                    .into_iter()
                    .flatten(),
            );
            for v in &p.spec.volumes {
                if let Some(pvc) = &v.persistent_volume_claim {
                    claims.insert((key.0.clone(), pvc.claim_name.clone()));
                }
            }
        }
        for n in &all_nodes {
            events.extend(
                self.links
                    .events_by_object
                    .get(&(Str::from("Node"), Str::default(), (*n).clone()))
                    .into_iter()
                    .flatten(),
            );
        }
        for w in &owners {
            events.extend(self.links.events_by_object.get(w).into_iter().flatten());
            let stem = match w.0.as_str() {
                "Deployment" => "deployments",
                "ReplicaSet" => "replicasets",
                "StatefulSet" => "statefulsets",
                "DaemonSet" => "daemonsets",
                "Job" => "jobs",
                _ => continue,
            };
            if let Some(o) = self.get(stem, &(w.1.clone(), w.2.clone())) {
                c.add_object(o.clone());
            }
        }
        for key in events {
            if let Some(o) = self.get("events", key) {
                c.add_object(o.clone());
            }
        }
        for key in &claims {
            if let Some(o) = self.get("persistentvolumeclaims", key) {
                c.add_object(o.clone());
            }
        }
        let mut scope = Scope::default();
        scope.nodes.extend(nodes.iter().map(|n| n.to_string()));
        scope.pods.extend(pods.iter().filter_map(pod).map(|p| p.metadata.uid.to_string()));
        scope.pods.extend(dirty.uids.iter().map(|u| u.to_string()));
        scope.workloads.extend(workloads.iter().map(|(k, ns, n)| (k.to_string(), ns.to_string(), n.to_string())));
        scope.workloads.sort();
        let snap = if c.object_count() == 0 { Snapshot::default() } else { c.finish()? };
        Ok((snap, scope))
    }
}

fn parse_watch_object(stem: &str, source: &str, line: &[u8]) -> Result<Object, IngestError> {
    fn one<T: serde::de::DeserializeOwned>(source: &str, line: &[u8]) -> Result<T, IngestError> {
        api::from_json_slice::<Body<T>>(line).map(|b| b.object).map_err(|e| IngestError::json(source, e))
    }
    Ok(match stem {
        "nodes" => Object::Node(one(source, line)?),
        "pods" => Object::Pod(one::<Box<Pod>>(source, line)?.into()),
        "events" => Object::Event(one::<Box<Event>>(source, line)?.into()),
        "deployments" => Object::Deployment(one(source, line)?),
        "replicasets" => Object::ReplicaSet(one(source, line)?),
        "statefulsets" => Object::StatefulSet(one(source, line)?),
        "daemonsets" => Object::DaemonSet(one(source, line)?),
        "jobs" => Object::Job(one(source, line)?),
        "persistentvolumeclaims" => Object::Pvc(one(source, line)?),
        "leases" => Object::Lease(one(source, line)?),
        other => {
            return Err(IngestError::Invalid {
                path: source.into(),
                msg: format!("{other}: not a kind the store keeps"),
            })
        }
    })
}

#[cfg(test)]
mod tests {
    use super::Store;

    fn pod_line(ty: &str, rv: &str) -> String {
        format!(
            r#"{{"type":"{ty}","object":{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"web-0","namespace":"shop","uid":"1f0c1a52-7d1e-4b8e-9a51-0a2b3c4d5e6f","resourceVersion":"{rv}"}},"spec":{{"nodeName":"node-a","containers":[{{"name":"app","image":"app:1"}}]}},"status":{{"phase":"Running"}}}}}}"#
        )
    }

    /// A watch line is one change, though both the old and the new version of the object are marked.
    #[test]
    fn each_watch_line_is_one_change() {
        let mut st = Store::new();
        st.replace("pods", Vec::new(), "1".into()).unwrap();
        st.replace("leases", Vec::new(), "1".into()).unwrap();
        st.take_dirty();
        for (ty, rv) in [("ADDED", "2"), ("MODIFIED", "3"), ("DELETED", "4")] {
            st.apply_watch_line("pods", "watch", pod_line(ty, rv).as_bytes()).unwrap();
            assert_eq!(st.take_dirty().changes, 1, "{ty}");
        }
        let lease = r#"{"type":"MODIFIED","object":{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"node-a","namespace":"kube-node-lease","resourceVersion":"5"},"spec":{"holderIdentity":"node-a","renewTime":"2024-06-02T12:00:00.000000Z"}}}"#;
        st.apply_watch_line("leases", "watch", lease.as_bytes()).unwrap();
        assert!(st.take_dirty().is_empty(), "a renewal changes nothing a rule sees");
    }
}
