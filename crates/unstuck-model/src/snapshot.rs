//! The snapshot: every object the rules may look at, plus indexes built once.

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use serde::Serialize;

use crate::{
    made_up_uid, Deployment, Event, Lease, LogHit, Node, Owner, Pod, Pvc, ReplicaSet, StatefulSet, Time, TABLE_TEXT,
};

/// Where the capture time came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "camelCase")]
pub enum NowSource {
    /// `--now` on the command line.
    Flag,
    /// `capturedAt` in `unstuck-bundle.json`.
    BundleManifest,
    /// The newest timestamp found in the bundle.
    NewestTimestamp,
    /// When a node collection was taken (a sos report's `sos_commands/date/date_--utc`), for inputs with
    /// no API object to date them.
    CollectionDate,
    /// The newest node log line, for node logs read with no API object and no collection date.
    NewestLogLine,
    /// When a `kubectl describe` text or `get` table was saved (its file's modification time, or when it
    /// was read from standard input): they print ages, not times, and no capture time.
    SavedAt,
    /// When a manifest read alone (`kubectl get -o yaml > FILE`) was saved (its file's modification time,
    /// or when it was read from standard input), when that is later than every timestamp in it.
    FileSaved,
    /// The wall clock (live mode).
    #[default]
    Clock,
}

/// Information about where the snapshot came from.
#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// `bundle`, `archive`, `files` or `live`.
    pub kind: String,
    pub path: String,
    pub captured_at: Option<Time>,
    pub now_source: NowSource,
    /// Problems met while reading that did not stop the analysis.
    pub warnings: Vec<String>,
    /// Kinds that were present in the input (`pods`, `nodes`, `events`…).
    pub kinds: Vec<String>,
    /// Time zone assumed for log lines that carry none.
    pub log_time_zone: Option<String>,
    /// Number of node log files read.
    pub log_files: usize,
    /// The input format recognised by its layout (`cluster-info dump`, `support bundle`, `must-gather`…).
    pub format: Option<String>,
    /// What the recognised format was expected to hold and did not (a half-copied archive).
    pub missing: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    pub nodes: Vec<Node>,
    /// Boxed: parsed in parallel, merged by moving pointers, not 576-byte structs (150,000 pods).
    /// Shared: the in-cluster watch keeps them in its store and hands each evaluation the same objects.
    pub pods: Vec<Arc<Pod>>,
    pub events: Vec<Arc<Event>>,
    pub deployments: Vec<Deployment>,
    pub replica_sets: Vec<ReplicaSet>,
    pub stateful_sets: Vec<StatefulSet>,
    pub daemon_sets: Vec<Owner>,
    pub jobs: Vec<Owner>,
    pub pvcs: Vec<Pvc>,
    pub leases: Vec<Lease>,
    pub log_hits: Vec<LogHit>,
    /// What node-side collectors recorded about nodes (process counts, limits, mounts, runtime listings).
    pub node_facts: Vec<crate::NodeFacts>,
    /// The end of crash-looping containers' own output, where the bundle has it (`<ns>/<pod>/logs.txt`).
    pub container_logs: Vec<crate::ContainerLog>,
    /// Whole pod objects as read, kept only when asked for (the upgrade predictor needs full container specs).
    pub raw_pods: Vec<serde_json::Value>,
    pub source: Source,
    /// The newest timestamp among what slimming dropped (settled pods' conditions, events about them),
    /// so that the fallback capture time does not depend on slimming.
    pub dropped_newest: Option<Time>,
}

impl Snapshot {
    /// Note the time of something dropped by slimming (see `dropped_newest`).
    pub fn note_dropped(&mut self, t: Option<Time>) {
        if t > self.dropped_newest {
            self.dropped_newest = t;
        }
    }

    /// Whether the input held `kind` (`"nodes"`, `"pods"`): its list was read, even empty, or objects of
    /// it are present (read from files that do not name their kind, or filled from a watch).
    pub fn has_kind(&self, kind: &str) -> bool {
        let present = match kind {
            "nodes" => !self.nodes.is_empty(),
            "pods" => !self.pods.is_empty(),
            _ => false,
        };
        present || self.source.kinds.iter().any(|k| k == kind)
    }

    /// The newest timestamp any object carries: the fallback capture time.
    pub fn newest_timestamp(&self) -> Option<Time> {
        let mut best: Option<Time> = None;
        let mut see = |t: Option<Time>| {
            if let Some(t) = t {
                if best.is_none_or(|b| t > b) {
                    best = Some(t);
                }
            }
        };
        for n in &self.nodes {
            for c in &n.status.conditions {
                see(c.last_heartbeat_time);
                see(c.last_transition_time);
            }
        }
        // The pods on every core: at 150,000 a pass is mostly waiting for memory.
        use rayon::prelude::*;
        let pod_newest = |p: &Arc<Pod>| {
            let statuses = p.status.container_statuses.iter().chain(&p.status.init_container_statuses);
            let started = statuses.flat_map(|cs| {
                [
                    cs.state.running.as_ref().and_then(|r| r.started_at),
                    cs.state.terminated.as_ref().and_then(|t| t.finished_at),
                ]
            });
            let conditions = p.status.conditions.iter().map(|c| c.last_transition_time);
            std::iter::once(p.metadata.creation_timestamp).chain(conditions).chain(started).flatten().max()
        };
        see(self.pods.par_iter().with_min_len(4096).filter_map(pod_newest).max());
        for e in &self.events {
            see(e.time());
        }
        for l in &self.leases {
            see(l.spec.renew_time);
        }
        see(self.dropped_newest);
        best
    }

    /// Sort every collection into a canonical order, so that results do not depend on input order.
    pub fn canonicalize(&mut self) {
        self.canonicalize_with(false)
    }

    /// [`Snapshot::canonicalize`], told whether the pods are already in canonical order
    /// ([`Snapshot::sort_pods`] over parts whose boundaries are in order, as a dump directory's reader
    /// checks): then they are not compared again (at 150,000 pods even an ordered pass costs ~12 ms of
    /// pointer chasing).
    pub fn canonicalize_with(&mut self, pods_sorted: bool) {
        macro_rules! by_meta {
            ($v:expr) => {
                $v.sort_by(|a, b| meta_key(&a.metadata).cmp(&meta_key(&b.metadata)))
            };
        }
        by_meta!(self.nodes);
        debug_assert!(!pods_sorted || self.pods.is_sorted_by(|a, b| pod_order(a, b).is_le()));
        // The two big ones side by side (stable sorts: equal keys keep their order either way).
        let (pods, events) = (&mut self.pods, &mut self.events);
        rayon::join(
            || {
                if !pods_sorted {
                    Snapshot::sort_pods(pods)
                }
            },
            || {
                events.sort_by(|a, b| {
                    (a.time(), &a.metadata.namespace, &a.metadata.name, &a.reason, &a.message).cmp(&(
                        b.time(),
                        &b.metadata.namespace,
                        &b.metadata.name,
                        &b.reason,
                        &b.message,
                    ))
                })
            },
        );
        by_meta!(self.deployments);
        by_meta!(self.replica_sets);
        by_meta!(self.stateful_sets);
        by_meta!(self.daemon_sets);
        by_meta!(self.jobs);
        by_meta!(self.pvcs);
        by_meta!(self.leases);
        self.log_hits
            .sort_by(|a, b| (&a.node, &a.file, a.line, &a.signature).cmp(&(&b.node, &b.file, b.line, &b.signature)));
        self.container_logs.sort_by(|a, b| (&a.namespace, &a.pod).cmp(&(&b.namespace, &b.pod)));
    }

    /// Pods in canonical order (namespace, name, UID; stable).
    pub fn sort_pods(pods: &mut [Arc<Pod>]) {
        pods.sort_by(pod_order)
    }

    pub fn index(&self) -> Index<'_> {
        Index::new(self)
    }
}

/// Compare by reference: no key is cloned (150,000 pods × log n comparisons).
fn meta_key(m: &crate::ObjectMeta) -> (&str, &str, &str) {
    (&m.namespace, &m.name, &m.uid)
}

/// A StatefulSet pod's name split as the controller makes it, `<statefulset>-<ordinal>`: the StatefulSet's
/// name and the ordinal; `None` when the name does not end in `-<digits>`.
pub fn statefulset_ordinal(pod: &str) -> Option<(&str, i64)> {
    let (base, n) = pod.rsplit_once('-')?;
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((base, n.parse().ok()?))
}

/// The canonical order of pods.
pub fn pod_order(a: &Arc<Pod>, b: &Arc<Pod>) -> std::cmp::Ordering {
    meta_key(&a.metadata).cmp(&meta_key(&b.metadata))
}

/// Pods by UID, as maps over consecutive runs of pods built on every core (one map of 150,000 built
/// on one thread was the index's longest step, waiting for memory). A UID held twice resolves to the
/// later pod, as one map filled in order would.
pub struct PodsByUid<'a>(Vec<HashMap<&'a str, &'a Pod>>);

impl<'a> PodsByUid<'a> {
    const RUN: usize = 16_384;

    fn new(pods: &'a [Arc<Pod>]) -> Self {
        use rayon::prelude::*;
        PodsByUid(
            pods.par_chunks(Self::RUN)
                .map(|run| {
                    let mut m: HashMap<&'a str, &'a Pod> = HashMap::default();
                    m.reserve(run.len());
                    m.extend(
                        run.iter().filter(|p| !p.metadata.uid.is_empty()).map(|p| (p.metadata.uid.as_str(), &**p)),
                    );
                    m
                })
                .collect(),
        )
    }

    /// The pod with this UID (the later one in the snapshot if two share it).
    pub fn get(&self, uid: &str) -> Option<&&'a Pod> {
        self.0.iter().rev().find_map(|m| m.get(uid))
    }
}

/// A multimap from keys to indices kept as chains in one array: no vector per key (150,000 events,
/// most of them the only event of their object). Indices come back in insertion order.
struct Chains<K> {
    /// First and last index of each key's chain.
    ends: HashMap<K, (u32, u32)>,
    /// `next[i]`: the index after `i` in its chain, or `u32::MAX`.
    next: Vec<u32>,
}

impl<K: std::hash::Hash + Eq> Chains<K> {
    /// An empty multimap for indices below `len`.
    fn with_len(len: usize) -> Self {
        Chains { ends: HashMap::default(), next: vec![u32::MAX; len] }
    }
    fn push(&mut self, k: K, i: usize) {
        let i = i as u32;
        match self.ends.entry(k) {
            std::collections::hash_map::Entry::Occupied(mut o) => {
                let (_, last) = o.get_mut();
                self.next[*last as usize] = i;
                *last = i;
            }
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert((i, i));
            }
        }
    }
    fn get(&self, k: &K) -> impl Iterator<Item = usize> + '_ {
        let mut cur = self.ends.get(k).map_or(u32::MAX, |e| e.0);
        std::iter::from_fn(move || {
            (cur != u32::MAX).then(|| {
                let i = cur;
                cur = self.next[i as usize];
                i as usize
            })
        })
    }
}

/// Lookups built once over a snapshot.
pub struct Index<'a> {
    pub snap: &'a Snapshot,
    pub node_by_name: HashMap<&'a str, &'a Node>,
    pub pod_by_uid: PodsByUid<'a>,
    pub pods_by_node: HashMap<&'a str, Vec<&'a Pod>>,
    /// Events by involved object UID, and by `kind/namespace/name` for events without a UID and for
    /// Node events (see `pod_events`, `node_events`).
    events_by_uid: Chains<&'a str>,
    events_by_name: Chains<(&'a str, &'a str, &'a str)>,
    pub rs_by_uid: HashMap<&'a str, &'a ReplicaSet>,
    pub deployment_by_uid: HashMap<&'a str, &'a Deployment>,
    pub sts_by_uid: HashMap<&'a str, &'a StatefulSet>,
    pub lease_by_node: HashMap<&'a str, &'a Lease>,
    pub hits_by_node: HashMap<&'a str, Vec<&'a LogHit>>,
    pub hits_by_pod: HashMap<&'a str, Vec<&'a LogHit>>,
}

impl<'a> Index<'a> {
    pub fn new(snap: &'a Snapshot) -> Self {
        // Pods and events are indexed at the same time (150,000 of each at scale).
        let ((pod_by_uid, pods_by_node), (events_by_uid, events_by_name)) = rayon::join(
            || {
                rayon::join(
                    || PodsByUid::new(&snap.pods),
                    || {
                        let mut m: HashMap<&'a str, Vec<&'a Pod>> = HashMap::default();
                        for p in snap.pods.iter().filter(|p| !p.spec.node_name.is_empty()) {
                            m.entry(p.spec.node_name.as_str()).or_default().push(&**p);
                        }
                        m
                    },
                )
            },
            || {
                let mut by_uid = Chains::with_len(snap.events.len());
                let mut by_name = Chains::with_len(snap.events.len());
                by_uid.ends.reserve(snap.events.len());
                for (i, e) in snap.events.iter().enumerate() {
                    let o = &e.involved_object;
                    if !o.uid.is_empty() {
                        by_uid.push(o.uid.as_str(), i);
                    }
                    if o.uid.is_empty() || o.kind == "Node" {
                        by_name.push((o.kind.as_str(), o.namespace.as_str(), o.name.as_str()), i);
                    }
                }
                (by_uid, by_name)
            },
        );
        let mut ix = Index {
            snap,
            node_by_name: snap.nodes.iter().map(|n| (n.metadata.name.as_str(), n)).collect(),
            pod_by_uid,
            pods_by_node,
            events_by_uid,
            events_by_name,
            rs_by_uid: snap.replica_sets.iter().map(|o| (o.metadata.uid.as_str(), o)).collect(),
            deployment_by_uid: snap.deployments.iter().map(|o| (o.metadata.uid.as_str(), o)).collect(),
            sts_by_uid: snap.stateful_sets.iter().map(|o| (o.metadata.uid.as_str(), o)).collect(),
            lease_by_node: snap
                .leases
                .iter()
                .filter(|l| l.metadata.namespace == "kube-node-lease")
                .map(|l| (l.metadata.name.as_str(), l))
                .collect(),
            hits_by_node: HashMap::default(),
            hits_by_pod: HashMap::default(),
        };
        for h in &snap.log_hits {
            ix.hits_by_node.entry(&h.node).or_default().push(h);
            if let Some(u) = &h.pod_uid {
                ix.hits_by_pod.entry(u).or_default().push(h);
            }
        }
        ix
    }

    /// Events about a pod: by UID, or by name when the event has no UID (or names an older pod of
    /// the same name, which we exclude when the UIDs disagree).
    pub fn pod_events(&self, pod: &Pod) -> Vec<&'a Event> {
        let ev = &self.snap.events;
        let mut out: Vec<&Event> = self.events_by_uid.get(&pod.metadata.uid.as_str()).map(|i| &*ev[i]).collect();
        let by_name = self.events_by_name.get(&("Pod", pod.metadata.namespace.as_str(), pod.metadata.name.as_str()));
        out.extend(by_name.map(|i| &*ev[i]).filter(|e| e.involved_object.uid.is_empty()));
        out
    }

    pub fn node_events(&self, node: &str) -> Vec<&'a Event> {
        let ev = &self.snap.events;
        let mut out: Vec<&Event> = self.events_by_name.get(&("Node", "", node)).map(|i| &*ev[i]).collect();
        out.extend(self.events_by_name.get(&("Node", "default", node)).map(|i| &*ev[i]));
        out
    }

    /// The Deployment that owns a pod through its ReplicaSet.
    pub fn pod_deployment(&self, pod: &Pod) -> Option<(&'a Deployment, &'a ReplicaSet)> {
        let o = pod.metadata.controller()?;
        if o.kind != "ReplicaSet" {
            return None;
        }
        let rs = self.rs_by_uid.get(o.uid.as_str())?;
        let d = rs.metadata.controller()?;
        if d.kind != "Deployment" {
            return None;
        }
        Some((self.deployment_by_uid.get(d.uid.as_str())?, rs))
    }

    /// The StatefulSet that controls `pod`. A pod read from a `kubectl get pods` table names no owner: it
    /// is taken for the StatefulSet `<name>` of a `get sts` table (UID `table:<namespace>/<name>`) when it
    /// is named `<name>-<ordinal>`, as the controller names its pods. A pod from describe names its owner
    /// but no UID: it is matched to such a StatefulSet by name.
    pub fn pod_statefulset(&self, pod: &Pod) -> Option<&'a StatefulSet> {
        let m = &pod.metadata;
        let by_table_name =
            |name: &str| self.sts_by_uid.get(made_up_uid(TABLE_TEXT, &m.namespace, name).as_str()).copied();
        match m.controller() {
            Some(o) if o.kind != "StatefulSet" => None,
            Some(o) if o.uid.is_empty() => by_table_name(&o.name),
            Some(o) => self.sts_by_uid.get(o.uid.as_str()).copied(),
            None if m.from_table() => by_table_name(statefulset_ordinal(&m.name)?.0),
            None => None,
        }
    }

    /// Whether `pod` belongs to a StatefulSet: its controller says so, or `pod_statefulset` finds one.
    pub fn is_statefulset_pod(&self, pod: &Pod) -> bool {
        pod.metadata.controller().is_some_and(|o| o.kind == "StatefulSet") || self.pod_statefulset(pod).is_some()
    }

    pub fn pod_hits(&self, pod: &Pod) -> &[&'a LogHit] {
        self.hits_by_pod.get(pod.metadata.uid.as_str()).map(|v| v.as_slice()).unwrap_or(&[])
    }

    pub fn node_hits(&self, node: &str) -> &[&'a LogHit] {
        self.hits_by_node.get(node).map(|v| v.as_slice()).unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    /// Pods by UID over several runs: each UID found, a UID held twice (in different runs) resolves to
    /// the later pod, an unknown or empty UID to none.
    #[test]
    fn pods_by_uid_across_runs() {
        use std::sync::Arc;
        let pod = |uid: String, name: &str| {
            let mut p = crate::Pod::default();
            p.metadata.uid = uid.into();
            p.metadata.name = name.into();
            Arc::new(p)
        };
        let n = 3 * super::PodsByUid::RUN + 7;
        let mut pods: Vec<Arc<crate::Pod>> = (0..n).map(|i| pod(format!("u{i}"), "first")).collect();
        pods.push(pod("u5".into(), "later"));
        pods.push(pod(String::new(), "no uid"));
        let by = super::PodsByUid::new(&pods);
        assert!(by.0.len() > 3, "several runs: {}", by.0.len());
        for i in (0..n).step_by(997) {
            let want = if i == 5 { "later" } else { "first" };
            assert_eq!(by.get(&format!("u{i}")).map(|p| p.metadata.name.as_str()), Some(want), "u{i}");
        }
        assert_eq!(by.get("u5").unwrap().metadata.name, "later");
        assert!(by.get("nope").is_none() && by.get("").is_none());
    }

    /// A pod's StatefulSet: by its owner's UID; for a describe owner without a UID and for a table pod
    /// named `<name>-<ordinal>`, the table StatefulSet of that name in its namespace, and nothing else.
    #[test]
    fn statefulset_of_a_pod_by_owner_uid_or_by_a_tables_name() {
        let sts = |ns: &str, name: &str, uid: &str| {
            let mut s = crate::StatefulSet::default();
            (s.metadata.namespace, s.metadata.name, s.metadata.uid) = (ns.into(), name.into(), uid.into());
            s
        };
        let snap = super::Snapshot {
            stateful_sets: vec![sts("shop", "db", "table:shop/db"), sts("shop", "web", "u-web")],
            ..Default::default()
        };
        let ix = super::Index::new(&snap);
        let pod = |name: &str, uid: &str, owner: Option<(&str, &str, &str)>| {
            let mut p = crate::Pod::default();
            (p.metadata.namespace, p.metadata.name, p.metadata.uid) = ("shop".into(), name.into(), uid.into());
            if let Some((kind, name, uid)) = owner {
                p.metadata.owner_references = vec![crate::OwnerRef {
                    kind: kind.into(),
                    name: name.into(),
                    uid: uid.into(),
                    controller: Some(true),
                    ..Default::default()
                }];
            }
            p
        };
        let of = |p: &crate::Pod| ix.pod_statefulset(p).map(|s| s.metadata.name.to_string());
        let found = |p: crate::Pod| (of(&p), ix.is_statefulset_pod(&p));
        assert_eq!(found(pod("web-1", "u1", Some(("StatefulSet", "web", "u-web")))), (Some("web".into()), true));
        assert_eq!(found(pod("db-0", "table:shop/db-0", None)), (Some("db".into()), true));
        assert_eq!(found(pod("db-12", "table:shop/db-12", None)), (Some("db".into()), true));
        assert_eq!(
            found(pod("db-0", "describe:shop/db-0", Some(("StatefulSet", "db", "")))),
            (Some("db".into()), true)
        );
        // Known to be a StatefulSet's, but not one in the input.
        assert_eq!(found(pod("cache-0", "describe:shop/cache-0", Some(("StatefulSet", "cache", "")))), (None, true));
        // Not a StatefulSet's: another kind of owner, a name that is not `<name>-<ordinal>`, an API pod
        // without an owner, another namespace.
        assert_eq!(found(pod("db-0", "u2", Some(("ReplicaSet", "db", "u-rs")))), (None, false));
        assert_eq!(found(pod("db-x", "table:shop/db-x", None)), (None, false));
        assert_eq!(found(pod("db-", "table:shop/db-", None)), (None, false));
        assert_eq!(found(pod("db-0", "u3", None)), (None, false));
        let mut other = pod("db-0", "table:dev/db-0", None);
        other.metadata.namespace = "dev".into();
        assert_eq!(found(other), (None, false));
    }

    use super::Chains;

    #[test]
    fn chains_keep_insertion_order_per_key() {
        let mut c: Chains<&str> = Chains::with_len(6);
        for (i, k) in ["a", "b", "a", "c", "a", "b"].into_iter().enumerate() {
            c.push(k, i);
        }
        assert_eq!(c.get(&"a").collect::<Vec<_>>(), vec![0, 2, 4]);
        assert_eq!(c.get(&"b").collect::<Vec<_>>(), vec![1, 5]);
        assert_eq!(c.get(&"c").collect::<Vec<_>>(), vec![3]);
        assert_eq!(c.get(&"zzz").count(), 0);
    }
}

/// The part of the cluster a batch of watch changes can affect (`unstuck serve`'s incremental evaluation):
/// the findings about these subjects are evaluated again on a snapshot of just this part, and every other
/// finding is kept.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// Nodes whose findings are evaluated again; every pod bound to them is in the partial snapshot.
    pub nodes: rustc_hash::FxHashSet<String>,
    /// Pods (by UID) whose findings are evaluated again, including pods that were deleted.
    pub pods: rustc_hash::FxHashSet<String>,
    /// Workloads (`kind`, `namespace`, `name`) whose findings are evaluated again.
    pub workloads: Vec<(String, String, String)>,
}

impl Scope {
    /// Whether a finding's subject (`kind`, `namespace`, `name`, `uid`) is one this scope re-evaluates.
    pub fn covers(&self, kind: &str, namespace: &str, name: &str, uid: &str) -> bool {
        match kind {
            "Pod" => self.pods.contains(uid),
            "Node" => self.nodes.contains(name),
            // A handful per change: a list is faster than hashing three strings.
            _ => self.workloads.iter().any(|(k, ns, n)| k == kind && ns == namespace && n == name),
        }
    }
}
