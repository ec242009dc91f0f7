//! A watch-fed store of the cluster: what `unstuck serve` keeps between evaluations.
//!
//! No I/O: the caller lists each kind (pages handed to [`parse_page`]) and then feeds the lines of a
//! watch stream to [`Store::apply_watch_line`]. Objects are parsed by the same slim deserializer the
//! bundle reader uses, kept by namespace/name (as a reflector keeps them), and [`Store::snapshot`]
//! builds the model through the same `Collector` a bundle or a one-shot live read goes through, so
//! the rules see exactly what `diagnose` would show at that moment.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use serde::Deserialize;
use unstuck_model::{Deployment, Event, Lease, Node, Owner, Pod, Pvc, ReplicaSet, Snapshot, StatefulSet, Str};

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

fn stem_static(stem: &str) -> Option<&'static str> {
    STORE_KINDS.iter().copied().find(|k| *k == stem)
}

impl Store {
    pub fn new() -> Store {
        Store::default()
    }

    /// A store that slims settled pods as they come (what a snapshot with `Options::slim` would drop anyway).
    pub fn slimming() -> Store {
        Store { slim: true, ..Store::default() }
    }

    fn keep(slim: bool, k: &mut KindState, mut o: Object) {
        if let Object::Pod(p) = &mut o {
            if slim && p.is_settled() {
                Arc::make_mut(p).slim();
            }
        }
        let (ns, name) = o.key();
        k.objects.insert((Str::from(ns), Str::from(name)), o);
    }

    fn kind(&mut self, stem: &str) -> Result<&mut KindState, IngestError> {
        let k = stem_static(stem)
            .ok_or_else(|| IngestError::Invalid { path: stem.to_string(), msg: "not a kind the store keeps".into() })?;
        Ok(self.kinds.entry(k).or_default())
    }

    /// A complete list of `stem` at `resource_version` replaces what was kept of it.
    pub fn replace(&mut self, stem: &str, objects: Vec<Object>, resource_version: String) -> Result<(), IngestError> {
        let slim = self.slim;
        let k = self.kind(stem)?;
        k.objects.clear();
        for o in objects {
            Store::keep(slim, k, o);
        }
        k.objects.shrink_to_fit();
        k.resource_version = resource_version;
        k.synced = true;
        k.failed = None;
        Ok(())
    }

    /// `stem` could not be listed (forbidden, not served): the snapshot says so.
    pub fn fail(&mut self, stem: &str, why: String) -> Result<(), IngestError> {
        let k = self.kind(stem)?;
        k.failed = Some(why);
        Ok(())
    }

    /// Apply one line of a watch stream of `stem` (`{"type":…,"object":…}`); `source` names the stream in errors.
    pub fn apply_watch_line(&mut self, stem: &str, source: &str, line: &[u8]) -> Result<WatchStep, IngestError> {
        let mut head: Head = api::from_json_slice(line).map_err(|e| IngestError::json(source, e))?;
        let slim = self.slim;
        let k = self.kind(stem)?;
        let rv = std::mem::take(&mut head.object.metadata.resource_version);
        let step = match head.ty.as_str() {
            ty @ ("ADDED" | "MODIFIED" | "DELETED") => {
                let o = parse_watch_object(stem, source, line)?;
                if ty == "DELETED" {
                    let (ns, name) = o.key();
                    k.objects.remove(&(Str::from(ns), Str::from(name)));
                    WatchStep::Changed("DELETED")
                } else {
                    Store::keep(slim, k, o);
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
