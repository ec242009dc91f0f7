//! Slim Kubernetes object types, deserialized from the API's JSON (camelCase). Unknown fields are skipped.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

/// Short strings (names, reasons, IDs up to 24 bytes) are stored inline: no allocation per field.
pub type Str = compact_str::CompactString;

use crate::Time;

/// Treat an explicit JSON `null` like an absent field.
pub fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// A timestamp field (`null` or absent: `None`). The API writes `YYYY-MM-DDTHH:MM:SSZ`; that shape is
/// read directly (a million timestamps at 150,000 pods), anything else goes to jiff's RFC 3339 parser,
/// whose result and errors are the reference (`fast_timestamps_agree_with_jiff` checks both paths).
fn time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Time>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Option<Time>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an RFC 3339 timestamp")
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_str(self)
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
            parse_time(s).map(Some).map_err(E::custom)
        }
    }
    d.deserialize_option(V)
}

/// Parse an RFC 3339 timestamp, the API's own `YYYY-MM-DDTHH:MM:SSZ` shape without the general parser.
fn parse_time(s: &str) -> Result<Time, jiff::Error> {
    fast_utc_seconds(s.as_bytes()).map_or_else(|| s.parse::<Time>(), Time::from_second)
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SSZ` with every field in range, else `None`.
fn fast_utc_seconds(b: &[u8]) -> Option<i64> {
    if b.len() != 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'Z'
    {
        return None;
    }
    let num = |r: std::ops::Range<usize>| {
        b[r].iter().try_fold(0i64, |acc, &c| c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0')))
    };
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    // Years far from today stay with jiff (its range ends inside year 9999).
    if !(1000..=9000).contains(&y)
        || !(1..=12).contains(&m)
        || d < 1
        || d > month_days[(m - 1) as usize]
        || hh > 23
        || mm > 59
        || ss > 59
    {
        return None;
    }
    // Days from the civil date (proleptic Gregorian), March-based years.
    let (yy, mo) = if m <= 2 { (y - 1, m + 9) } else { (y, m - 3) };
    let era = yy.div_euclid(400);
    let yoe = yy - era * 400;
    let doy = (153 * mo + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// A list where `null` means empty, stored at its exact length: serde grows vectors to a capacity of at
/// least 4, and most lists in a pod (containers, owner references, volumes) hold one item (memory at scale).
pub fn slim_vec<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    let mut v = Option::<Vec<T>>::deserialize(d)?.unwrap_or_default();
    v.shrink_to_fit();
    Ok(v)
}

/// Annotation keys kept in the model; every other annotation (last-applied-configuration…) is dropped.
pub const KEPT_ANNOTATIONS: &[&str] = &[
    "deployment.kubernetes.io/revision",
    "kubernetes.io/config.source",
    "kubernetes.io/config.mirror",
    "node.alpha.kubernetes.io/ttl",
];

fn kept_annotations<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, String>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = BTreeMap<String, String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of annotations")
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(BTreeMap::new())
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(BTreeMap::new())
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_map(V)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(k) = m.next_key::<String>()? {
                if KEPT_ANNOTATIONS.contains(&k.as_str()) {
                    let v: Option<String> = m.next_value()?;
                    out.insert(k, v.unwrap_or_default());
                } else {
                    m.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(out)
        }
    }
    d.deserialize_option(V)
}

/// Labels as a sorted vector: a handful of pairs per object, far smaller than a map at 150,000 pods.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels(Vec<(Str, Str)>);

impl Labels {
    pub fn get(&self, k: &str) -> Option<&Str> {
        self.0.binary_search_by(|(x, _)| x.as_str().cmp(k)).ok().map(|i| &self.0[i].1)
    }
    pub fn contains_key(&self, k: &str) -> bool {
        self.get(k).is_some()
    }
    pub fn iter(&self) -> impl Iterator<Item = (&Str, &Str)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(Str, Str)> for Labels {
    fn from_iter<I: IntoIterator<Item = (Str, Str)>>(it: I) -> Self {
        let mut v: Vec<(Str, Str)> = it.into_iter().collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.dedup_by(|a, b| a.0 == b.0);
        Labels(v)
    }
}

impl<'de> Deserialize<'de> for Labels {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let m: BTreeMap<Str, Str> = BTreeMap::deserialize(d)?;
        Ok(Labels(m.into_iter().collect()))
    }
}

impl Serialize for Labels {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OwnerRef {
    pub api_version: Str,
    pub kind: Str,
    pub name: Str,
    pub uid: Str,
    pub controller: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectMeta {
    pub name: Str,
    pub namespace: Str,
    pub uid: Str,
    pub resource_version: Str,
    pub generation: i64,
    #[serde(deserialize_with = "time")]
    pub creation_timestamp: Option<Time>,
    #[serde(deserialize_with = "time")]
    pub deletion_timestamp: Option<Time>,
    pub deletion_grace_period_seconds: Option<i64>,
    #[serde(deserialize_with = "null_default")]
    pub labels: Labels,
    #[serde(deserialize_with = "kept_annotations")]
    pub annotations: BTreeMap<String, String>,
    #[serde(deserialize_with = "slim_vec")]
    pub finalizers: Vec<Str>,
    #[serde(deserialize_with = "slim_vec")]
    pub owner_references: Vec<OwnerRef>,
}

/// The text kind of the UIDs given to objects read from kubectl tables.
pub const TABLE_TEXT: &str = "table";
/// The text kind of the UIDs given to objects read from `kubectl describe` output.
pub const DESCRIBE_TEXT: &str = "describe";

/// The UID given to an object read from text (`table` or `describe`), which shows none: `from:ns/name`
/// (`from:name` for cluster-scoped objects). API server UIDs never hold a colon, so the two never meet.
pub fn made_up_uid(from: &str, namespace: &str, name: &str) -> String {
    if namespace.is_empty() {
        format!("{from}:{name}")
    } else {
        format!("{from}:{namespace}/{name}")
    }
}

impl ObjectMeta {
    /// Which text a made-up UID was given by (`describe` for `describe:ns/name`, `table` for a kubectl
    /// table's `table:ns/name`); `None` for a UID the API server gave (never with a colon).
    pub fn made_up_uid(&self) -> Option<&str> {
        self.uid.split_once(':').map(|(from, _)| from)
    }

    /// Whether the object was read from a kubectl table (its UID is `table:ns/name`).
    pub fn from_table(&self) -> bool {
        self.made_up_uid() == Some(TABLE_TEXT)
    }

    /// The owner reference marked `controller: true`.
    pub fn controller(&self) -> Option<&OwnerRef> {
        self.owner_references.iter().find(|o| o.controller == Some(true))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: Str,
    pub status: Str,
    pub reason: Str,
    pub message: Str,
    #[serde(deserialize_with = "time")]
    pub last_transition_time: Option<Time>,
    #[serde(deserialize_with = "time")]
    pub last_heartbeat_time: Option<Time>,
}

// ---------------------------------------------------------------- Pod

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Pod {
    pub metadata: ObjectMeta,
    pub spec: PodSpec,
    pub status: PodStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodSpec {
    pub node_name: Str,
    #[serde(rename = "hostPID")]
    pub host_pid: bool,
    pub share_process_namespace: Option<bool>,
    pub termination_grace_period_seconds: Option<i64>,
    #[serde(deserialize_with = "slim_vec")]
    pub containers: Vec<Container>,
    #[serde(deserialize_with = "slim_vec")]
    pub init_containers: Vec<Container>,
    #[serde(deserialize_with = "slim_vec")]
    pub volumes: Vec<Volume>,
    /// The scheduler that places the pod (`default-scheduler` when unset).
    #[serde(skip_serializing_if = "Str::is_empty")]
    pub scheduler_name: Str,
    /// Gates that keep the scheduler from trying the pod until each is removed (1.27+).
    #[serde(deserialize_with = "slim_vec", skip_serializing_if = "Vec::is_empty")]
    pub scheduling_gates: Vec<SchedulingGate>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SchedulingGate {
    pub name: Str,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Container {
    pub name: Str,
    pub image: Str,
    pub lifecycle: Option<Lifecycle>,
    /// `Always` on an init container makes it a sidecar (a restartable init container).
    #[serde(skip_serializing_if = "Str::is_empty")]
    pub restart_policy: Str,
}

impl Container {
    /// The command of an exec `postStart` hook, if the container has one.
    pub fn post_start_exec(&self) -> Option<&[Str]> {
        let h = self.lifecycle.as_ref()?.post_start.as_ref()?;
        h.exec.as_ref().map(|e| e.command.as_slice())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Lifecycle {
    pub post_start: Option<Handler>,
    pub pre_stop: Option<Handler>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Handler {
    pub exec: Option<ExecAction>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ExecAction {
    #[serde(deserialize_with = "slim_vec")]
    pub command: Vec<Str>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Volume {
    pub name: Str,
    pub nfs: Option<NfsVolume>,
    pub persistent_volume_claim: Option<PvcVolume>,
    pub host_path: Option<Present>,
    pub glusterfs: Option<Present>,
    pub cephfs: Option<Present>,
    pub rbd: Option<Present>,
    pub iscsi: Option<Present>,
    pub csi: Option<Present>,
}

/// A field whose presence matters but whose content is not kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Present;

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Present)
    }
}

impl Serialize for Present {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_map(Some(0)).and_then(serde::ser::SerializeMap::end)
    }
}

impl Volume {
    /// Volumes whose unmount can hang on a dead remote server.
    pub fn network_kind(&self) -> Option<&'static str> {
        if self.nfs.is_some() {
            Some("nfs")
        } else if self.glusterfs.is_some() {
            Some("glusterfs")
        } else if self.cephfs.is_some() {
            Some("cephfs")
        } else if self.rbd.is_some() {
            Some("rbd")
        } else if self.iscsi.is_some() {
            Some("iscsi")
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NfsVolume {
    pub server: Str,
    pub path: Str,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PvcVolume {
    pub claim_name: Str,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodStatus {
    pub phase: Str,
    pub reason: Str,
    pub message: Str,
    #[serde(deserialize_with = "slim_vec")]
    pub conditions: Vec<Condition>,
    #[serde(deserialize_with = "slim_vec")]
    pub container_statuses: Vec<ContainerStatus>,
    #[serde(deserialize_with = "slim_vec")]
    pub init_container_statuses: Vec<ContainerStatus>,
    #[serde(deserialize_with = "time")]
    pub start_time: Option<Time>,
    #[serde(rename = "hostIP")]
    pub host_ip: Str,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerStatus {
    pub name: Str,
    pub ready: bool,
    pub restart_count: i64,
    pub state: ContainerState,
    pub last_state: ContainerState,
    #[serde(rename = "containerID")]
    pub container_id: Str,
    pub image: Str,
    /// Whether the startup probe (if any) has passed; what makes a sidecar count as started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerState {
    // Boxed: a container is in one state at a time, so two of three are always empty (memory at scale).
    pub waiting: Option<Box<StateWaiting>>,
    pub running: Option<Box<StateRunning>>,
    pub terminated: Option<Box<StateTerminated>>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StateWaiting {
    pub reason: Str,
    pub message: Str,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StateRunning {
    #[serde(deserialize_with = "time")]
    pub started_at: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StateTerminated {
    pub reason: Str,
    pub message: Str,
    pub exit_code: i64,
    #[serde(skip_serializing_if = "is_zero")]
    pub signal: i64,
    #[serde(deserialize_with = "time")]
    pub started_at: Option<Time>,
    #[serde(deserialize_with = "time")]
    pub finished_at: Option<Time>,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

impl Pod {
    /// The names of the containers (init containers first) waiting to be restarted after crashing.
    pub fn crash_looping_containers(&self) -> Vec<&str> {
        self.status
            .init_container_statuses
            .iter()
            .chain(&self.status.container_statuses)
            .filter(|c| c.state.waiting.as_ref().is_some_and(|w| crate::RESTART_REASONS.contains(&w.reason.as_str())))
            .map(|c| c.name.as_str())
            .collect()
    }
    /// An init container still running while the app containers wait for it (`Init:N/M`). A sidecar (a
    /// restartable init container) that has started runs for the pod's life by design: not it.
    pub fn running_init_container(&self) -> Option<&ContainerStatus> {
        // Started: running or run. A status with no state at all (describe text cut before a container's
        // `State:`) says nothing either way.
        let app_started =
            self.status.container_statuses.iter().any(|c| c.state.running.is_some() || c.state.terminated.is_some());
        self.status
            .init_container_statuses
            .iter()
            .find(|c| c.state.running.is_some() && !self.started_sidecar(c))
            .filter(|_| !app_started)
    }
    /// A restartable init container (`restartPolicy: Always`) whose startup has passed.
    fn started_sidecar(&self, c: &ContainerStatus) -> bool {
        c.started == Some(true)
            && self.spec.init_containers.iter().any(|s| s.name == c.name && s.restart_policy == "Always")
    }
    /// The containers whose own output a rule cites: the crash-looping ones, and an init container the
    /// pod still waits for.
    pub fn output_containers(&self) -> Vec<&str> {
        let mut v = self.crash_looping_containers();
        if let Some(c) = self.running_init_container().filter(|c| !v.contains(&c.name.as_str())) {
            v.push(c.name.as_str());
        }
        v
    }
    /// The restart count of this container (init or not); 0 when it has no status.
    pub fn restarts_of(&self, container: &str) -> i64 {
        self.status
            .init_container_statuses
            .iter()
            .chain(&self.status.container_statuses)
            .find(|c| c.name == container)
            .map_or(0, |c| c.restart_count)
    }
    pub fn key(&self) -> String {
        format!("{}/{}", self.metadata.namespace, self.metadata.name)
    }
    pub fn condition(&self, t: &str) -> Option<&Condition> {
        self.status.conditions.iter().find(|c| c.type_ == t)
    }
    pub fn is_terminal(&self) -> bool {
        matches!(self.status.phase.as_str(), "Succeeded" | "Failed")
    }
    /// A pod no rule can call stuck, whatever the time: not being deleted, and either completed
    /// (`Succeeded`) or `Running` on a node with every container reporting a status, none waiting and none
    /// terminated after restarts (between two restarts of a crash loop).
    /// Only a change to the object (a deletion, a restart into a waiting state) can make it stuck, and a
    /// change is a new object. Diagnosis keeps such pods slim (see `Pod::slim`).
    pub fn is_settled(&self) -> bool {
        if self.metadata.deletion_timestamp.is_some() {
            return false;
        }
        match self.status.phase.as_str() {
            "Succeeded" => true,
            "Running" => {
                let st = &self.status;
                !self.spec.node_name.is_empty()
                    && st
                        .container_statuses
                        .iter()
                        .chain(&st.init_container_statuses)
                        .all(|c| c.state.waiting.is_none() && !(c.restart_count > 0 && c.state.terminated.is_some()))
                    && self.spec.containers.iter().all(|c| st.container_statuses.iter().any(|s| s.name == c.name))
            }
            _ => false,
        }
    }
    /// Drop what diagnosis never reads of a settled pod (its conditions and volumes); identity, owners,
    /// labels, node, containers and container IDs (log attribution) stay. Returns the newest time among
    /// what was dropped (the fallback capture time must not change).
    /// Whether there is nothing left for [`Pod::slim`] to drop.
    pub fn is_slim(&self) -> bool {
        self.status.conditions.is_empty() && self.spec.volumes.is_empty()
    }
    pub fn slim(&mut self) -> Option<Time> {
        debug_assert!(self.is_settled(), "only settled pods are slimmed");
        let newest = self.status.conditions.iter().filter_map(|c| c.last_transition_time).max();
        self.status.conditions = Vec::new();
        self.spec.volumes = Vec::new();
        newest
    }
    /// The runtime container IDs (`docker://…`, `containerd://…`) without the scheme.
    pub fn container_ids(&self) -> impl Iterator<Item = &str> {
        self.status.container_statuses.iter().chain(&self.status.init_container_statuses).filter_map(|c| {
            let id = c.container_id.rsplit("://").next().unwrap_or("");
            (!id.is_empty()).then_some(id)
        })
    }
    /// What `kubectl get pods` prints in the STATUS column, by kubectl's own rules: the phase (or the
    /// pod's reason); then the first init container not done (`Init:N/M` while it runs, `Init:<reason>`
    /// when it waits or failed; a started sidecar counts as done); then, once initialised, the last app
    /// container's waiting or terminated reason; `Terminating` when deleted and not finished (`Unknown`
    /// when the node controller deleted it as `NodeLost`).
    pub fn display_state(&self) -> String {
        let st = &self.status;
        let mut reason: String = if st.reason.is_empty() { st.phase.to_string() } else { st.reason.to_string() };
        if self.condition("PodScheduled").is_some_and(|c| c.reason == "SchedulingGated") {
            reason = "SchedulingGated".into();
        }
        let mut initializing = false;
        for (i, c) in st.init_container_statuses.iter().enumerate() {
            let done = c.state.terminated.as_ref().is_some_and(|t| t.exit_code == 0) || self.started_sidecar(c);
            if done {
                continue;
            }
            initializing = true;
            reason = match (&c.state.terminated, &c.state.waiting) {
                (Some(t), _) if !t.reason.is_empty() => format!("Init:{}", t.reason),
                (Some(t), _) if t.signal != 0 => format!("Init:Signal:{}", t.signal),
                (Some(t), _) => format!("Init:ExitCode:{}", t.exit_code),
                (None, Some(w)) if !w.reason.is_empty() && w.reason != "PodInitializing" => {
                    format!("Init:{}", w.reason)
                }
                _ => format!("Init:{i}/{}", self.spec.init_containers.len()),
            };
            break;
        }
        if !initializing || self.condition("Initialized").is_some_and(|c| c.status == "True") {
            let mut running = false;
            for c in st.container_statuses.iter().rev() {
                match (&c.state.waiting, &c.state.terminated) {
                    (Some(w), _) if !w.reason.is_empty() => reason = w.reason.to_string(),
                    (_, Some(t)) if !t.reason.is_empty() => reason = t.reason.to_string(),
                    (_, Some(t)) if t.signal != 0 => reason = format!("Signal:{}", t.signal),
                    (_, Some(t)) => reason = format!("ExitCode:{}", t.exit_code),
                    _ if c.ready && c.state.running.is_some() => running = true,
                    _ => {}
                }
            }
            if reason == "Completed" && running {
                let ready = self.condition("Ready").is_some_and(|c| c.status == "True");
                reason = if ready { "Running" } else { "NotReady" }.into();
            }
        }
        if self.metadata.deletion_timestamp.is_some() {
            if st.reason == "NodeLost" {
                return "Unknown".into();
            }
            if !self.is_terminal() {
                return "Terminating".into();
            }
        }
        reason
    }
}

// ---------------------------------------------------------------- Node

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Node {
    pub metadata: ObjectMeta,
    pub spec: NodeSpec,
    pub status: NodeStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSpec {
    pub unschedulable: bool,
    /// `aws:///us-east-1a/i-0abc…`, `azure:///subscriptions/…`: names the machine a single-node
    /// collector (the EKS log collector) ran on.
    #[serde(rename = "providerID")]
    pub provider_id: Str,
    #[serde(deserialize_with = "slim_vec")]
    pub taints: Vec<Taint>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Taint {
    pub key: Str,
    pub value: Str,
    pub effect: Str,
    #[serde(deserialize_with = "time")]
    pub time_added: Option<Time>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeStatus {
    #[serde(deserialize_with = "slim_vec")]
    pub conditions: Vec<Condition>,
    pub node_info: NodeInfo,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeInfo {
    pub kubelet_version: Str,
    pub container_runtime_version: Str,
    pub os_image: Str,
    pub kernel_version: Str,
}

impl Node {
    pub fn condition(&self, t: &str) -> Option<&Condition> {
        self.status.conditions.iter().find(|c| c.type_ == t)
    }
    pub fn has_taint(&self, key: &str) -> bool {
        self.spec.taints.iter().any(|t| t.key == key)
    }
    /// The runtime name from `containerRuntimeVersion` (`docker`, `containerd`, `cri-o`…).
    pub fn runtime(&self) -> &str {
        self.status.node_info.container_runtime_version.split("://").next().unwrap_or("")
    }
}

// ---------------------------------------------------------------- Event

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Event {
    pub metadata: EventMeta,
    pub involved_object: ObjectRef,
    pub reason: Str,
    pub message: Str,
    #[serde(rename = "type")]
    pub type_: Str,
    pub count: Option<i64>,
    #[serde(deserialize_with = "time")]
    pub first_timestamp: Option<Time>,
    #[serde(deserialize_with = "time")]
    pub last_timestamp: Option<Time>,
    #[serde(deserialize_with = "time")]
    pub event_time: Option<Time>,
    pub source: EventSource,
    pub reporting_component: Str,
}

/// The little of an Event's metadata that is used (events are as many as pods).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EventMeta {
    pub name: Str,
    pub namespace: Str,
    #[serde(deserialize_with = "time")]
    pub creation_timestamp: Option<Time>,
}

impl Event {
    /// The best time the event carries (last seen).
    pub fn time(&self) -> Option<Time> {
        self.last_timestamp.or(self.event_time).or(self.first_timestamp).or(self.metadata.creation_timestamp)
    }
    /// The kubelet restarting a container because the hash of its spec changed ("Container spec hash
    /// changed (… vs …)", "Container … definition changed, will be restarted"): read about every pod,
    /// settled or not (rule `container-hash-change`).
    pub fn is_spec_hash_restart(&self) -> bool {
        let m = self.message.as_str();
        self.reason == "Killing"
            && (m.contains("spec hash changed") || (m.starts_with("Container ") && m.contains(" definition changed")))
    }
    /// The taint manager marking a pod for deletion because its node is unreachable or tainted
    /// NoExecute (rule `node-lost` reads it about the lost node's pods, running or not).
    pub fn is_taint_manager_mark(&self) -> bool {
        self.reason == "TaintManagerEviction" && self.message.starts_with("Marking for deletion")
    }
    /// Read by a rule about every pod, settled or not: kept when events about settled pods are dropped.
    pub fn read_about_settled_pods(&self) -> bool {
        self.is_spec_hash_restart() || self.is_taint_manager_mark()
    }
    pub fn component(&self) -> &str {
        if self.source.component.is_empty() {
            &self.reporting_component
        } else {
            &self.source.component
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectRef {
    pub kind: Str,
    pub namespace: Str,
    pub name: Str,
    pub uid: Str,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EventSource {
    pub component: Str,
    pub host: Str,
}

// ---------------------------------------------------------------- Workloads

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelector {
    #[serde(deserialize_with = "null_default")]
    pub match_labels: BTreeMap<Str, Str>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Deployment {
    pub metadata: ObjectMeta,
    pub spec: DeploymentSpec,
    pub status: WorkloadStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct DeploymentSpec {
    pub replicas: Option<i64>,
    pub strategy: Strategy,
    pub selector: LabelSelector,
    pub paused: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Strategy {
    #[serde(rename = "type")]
    pub type_: Str,
}

/// Status fields shared by Deployments, ReplicaSets and StatefulSets.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkloadStatus {
    pub observed_generation: i64,
    pub replicas: i64,
    pub updated_replicas: i64,
    pub ready_replicas: i64,
    pub available_replicas: i64,
    pub current_replicas: i64,
    pub current_revision: Str,
    pub update_revision: Str,
    #[serde(deserialize_with = "slim_vec")]
    pub conditions: Vec<Condition>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplicaSet {
    pub metadata: ObjectMeta,
    pub spec: ReplicaSetSpec,
    pub status: WorkloadStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ReplicaSetSpec {
    pub replicas: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatefulSet {
    pub metadata: ObjectMeta,
    pub spec: StatefulSetSpec,
    pub status: WorkloadStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StatefulSetSpec {
    pub replicas: Option<i64>,
    pub pod_management_policy: Str,
    pub update_strategy: Strategy,
    pub service_name: Str,
}

/// DaemonSets, Jobs and other owners: only identity is needed.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Owner {
    pub metadata: ObjectMeta,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Pvc {
    pub metadata: ObjectMeta,
    pub spec: PvcSpec,
    pub status: PvcStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PvcSpec {
    pub volume_name: Str,
    pub storage_class_name: Option<Str>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PvcStatus {
    pub phase: Str,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Lease {
    pub metadata: ObjectMeta,
    pub spec: LeaseSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LeaseSpec {
    pub holder_identity: Option<Str>,
    #[serde(deserialize_with = "time")]
    pub renew_time: Option<Time>,
    pub lease_duration_seconds: Option<i64>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn jiff(s: &str) -> Result<Time, String> {
        s.parse::<Time>().map_err(|e| e.to_string())
    }

    #[test]
    fn made_up_uids_name_the_text_they_came_from() {
        let meta = |uid: &str| ObjectMeta { uid: uid.into(), ..Default::default() };
        assert_eq!(meta("table:shop/db-0").made_up_uid(), Some("table"));
        assert_eq!(meta("describe:default/web-1").made_up_uid(), Some("describe"));
        assert_eq!(meta("361b99c6-7a67-43cc-8dda-3364a6eeb6fd").made_up_uid(), None);
        assert!(meta(&made_up_uid(TABLE_TEXT, "shop", "db-0")).from_table());
        assert!(!meta(&made_up_uid(DESCRIBE_TEXT, "shop", "db-0")).from_table());
        assert_eq!(made_up_uid(TABLE_TEXT, "", "node-1"), "table:node-1");
    }

    /// `kubectl get pods` STATUS for pods written as `kubectl get pod -o json` prints them (the fields kubectl's
    /// printer reads), one case per branch of its rules.
    #[test]
    fn display_state_is_kubectls_status_column() {
        let init2 = r#""initContainers":[{"name":"a","image":"i"},{"name":"b","image":"i"}]"#;
        let sidecar =
            r#""initContainers":[{"name":"proxy","image":"i","restartPolicy":"Always"},{"name":"b","image":"i"}]"#;
        let run = r#"{"running":{"startedAt":"2024-06-03T09:00:00Z"}}"#;
        let done = r#"{"terminated":{"exitCode":0,"reason":"Completed"}}"#;
        let app_waiting =
            r#"[{"name":"app","ready":false,"restartCount":0,"state":{"waiting":{"reason":"PodInitializing"}}}]"#;
        let cases: &[(&str, &str, &str, &str, &str)] = &[
            // (spec extras, init statuses, app statuses, pod extras, STATUS)
            (
                init2,
                &format!(
                    r#"[{{"name":"a","state":{run}}},{{"name":"b","state":{{"waiting":{{"reason":"PodInitializing"}}}}}}]"#
                ),
                app_waiting,
                "",
                "Init:0/2",
            ),
            (
                init2,
                &format!(r#"[{{"name":"a","state":{done}}},{{"name":"b","state":{run}}}]"#),
                app_waiting,
                "",
                "Init:1/2",
            ),
            (
                init2,
                r#"[{"name":"a","restartCount":4,"state":{"waiting":{"reason":"CrashLoopBackOff"}}},{"name":"b","state":{"waiting":{"reason":"PodInitializing"}}}]"#,
                app_waiting,
                "",
                "Init:CrashLoopBackOff",
            ),
            (
                init2,
                r#"[{"name":"a","state":{"terminated":{"exitCode":1}}},{"name":"b","state":{"waiting":{}}}]"#,
                app_waiting,
                "",
                "Init:ExitCode:1",
            ),
            (
                init2,
                r#"[{"name":"a","state":{"terminated":{"exitCode":137,"signal":9}}},{"name":"b","state":{"waiting":{}}}]"#,
                app_waiting,
                "",
                "Init:Signal:9",
            ),
            (
                init2,
                r#"[{"name":"a","state":{"terminated":{"exitCode":1,"reason":"Error"}}},{"name":"b","state":{"waiting":{}}}]"#,
                app_waiting,
                "",
                "Init:Error",
            ),
            (
                sidecar,
                &format!(
                    r#"[{{"name":"proxy","started":true,"ready":true,"state":{run}}},{{"name":"b","state":{run}}}]"#
                ),
                app_waiting,
                "",
                "Init:1/2",
            ),
            (
                sidecar,
                &format!(
                    r#"[{{"name":"proxy","started":false,"state":{run}}},{{"name":"b","state":{{"waiting":{{"reason":"PodInitializing"}}}}}}]"#
                ),
                app_waiting,
                "",
                "Init:0/2",
            ),
            (
                init2,
                &format!(r#"[{{"name":"a","state":{done}}},{{"name":"b","state":{done}}}]"#),
                r#"[{"name":"app","state":{"waiting":{"reason":"CreateContainerConfigError"}}}]"#,
                "",
                "CreateContainerConfigError",
            ),
            ("", "[]", r#"[{"name":"app","state":{"terminated":{"exitCode":2}}}]"#, "", "ExitCode:2"),
            (
                "",
                "[]",
                &format!(r#"[{{"name":"app","ready":true,"state":{run}}},{{"name":"job","state":{done}}}]"#),
                r#","conditions":[{"type":"Ready","status":"False"}]"#,
                "NotReady",
            ),
            (
                "",
                "[]",
                &format!(r#"[{{"name":"app","ready":true,"state":{run}}},{{"name":"job","state":{done}}}]"#),
                r#","conditions":[{"type":"Ready","status":"True"}]"#,
                "Running",
            ),
            (
                "",
                "[]",
                "[]",
                r#","conditions":[{"type":"PodScheduled","status":"False","reason":"SchedulingGated"}]"#,
                "SchedulingGated",
            ),
            ("", "[]", "[]", "", "Pending"),
        ];
        for (spec, inits, apps, extra, want) in cases {
            let sep = if spec.is_empty() { "" } else { "," };
            let json = format!(
                r#"{{"metadata":{{"name":"p"}},"spec":{{"containers":[{{"name":"app","image":"i"}}]{sep}{spec}}},"status":{{"phase":"Pending","initContainerStatuses":{inits},"containerStatuses":{apps}{extra}}}}}"#
            );
            let pod: Pod = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json}: {e}"));
            assert_eq!(pod.display_state(), *want, "{json}");
        }
        // Deletion: Terminating unless finished; Unknown when the node controller deleted it as NodeLost.
        let del = |phase: &str, reason: &str| -> String {
            let json = format!(
                r#"{{"metadata":{{"name":"p","deletionTimestamp":"2024-06-03T09:00:00Z"}},"status":{{"phase":"{phase}","reason":"{reason}"}}}}"#
            );
            serde_json::from_str::<Pod>(&json).unwrap().display_state()
        };
        assert_eq!(del("Running", ""), "Terminating");
        assert_eq!(del("Running", "NodeLost"), "Unknown");
        assert_eq!(del("Succeeded", ""), "Succeeded");
    }

    /// The init container a pod waits for: a running one, not a started sidecar (it runs for the pod's life).
    #[test]
    fn a_started_sidecar_is_not_the_init_container_waited_for() {
        let pod = |started: bool, next: &str| -> Pod {
            serde_json::from_str(&format!(
                r#"{{"spec":{{"initContainers":[{{"name":"proxy","restartPolicy":"Always"}},{{"name":"wait-db"}}],"containers":[{{"name":"app"}}]}},
                "status":{{"phase":"Pending","initContainerStatuses":[{{"name":"proxy","started":{started},"state":{{"running":{{}}}}}},{{"name":"wait-db","state":{next}}}],
                "containerStatuses":[{{"name":"app","state":{{"waiting":{{"reason":"PodInitializing"}}}}}}]}}}}"#
            ))
            .unwrap()
        };
        let waited = |p: &Pod| p.running_init_container().map(|c| c.name.to_string());
        assert_eq!(waited(&pod(true, r#"{"running":{}}"#)).as_deref(), Some("wait-db"));
        assert_eq!(waited(&pod(true, r#"{"waiting":{"reason":"PodInitializing"}}"#)), None);
        // A sidecar whose startup has not passed holds the pod.
        assert_eq!(waited(&pod(false, r#"{"waiting":{"reason":"PodInitializing"}}"#)).as_deref(), Some("proxy"));
        // An app container that runs or ran means the init containers are done; one with no state known
        // (describe text cut before its `State:`) does not.
        let app = |state: &str| -> Pod {
            serde_json::from_str(&format!(
                r#"{{"spec":{{"initContainers":[{{"name":"wait-db"}}],"containers":[{{"name":"app"}}]}},
                "status":{{"initContainerStatuses":[{{"name":"wait-db","state":{{"running":{{}}}}}}],
                "containerStatuses":[{{"name":"app","state":{state}}}]}}}}"#
            ))
            .unwrap()
        };
        assert_eq!(waited(&app("{}")).as_deref(), Some("wait-db"));
        assert_eq!(waited(&app(r#"{"waiting":{"reason":"PodInitializing"}}"#)).as_deref(), Some("wait-db"));
        assert_eq!(waited(&app(r#"{"running":{}}"#)), None);
        assert_eq!(waited(&app(r#"{"terminated":{"exitCode":0}}"#)), None);
    }

    #[test]
    fn fast_timestamps_agree_with_jiff() {
        for s in [
            "2024-06-02T12:00:00Z",
            "1970-01-01T00:00:00Z",
            "2000-02-29T23:59:59Z",
            "1900-02-29T00:00:00Z", // not a leap year: jiff's error
            "2023-02-29T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-06-02T24:00:00Z",
            "2024-06-02T12:60:00Z",
            "2016-12-31T23:59:60Z", // leap second: jiff decides
            "0000-01-01T00:00:00Z",
            "9999-12-31T23:59:59Z",
            "2024-06-02T12:00:00.123456Z",
            "2024-06-02T12:00:00+02:00",
            "2024-06-02 12:00:00Z",
            "2024-6-02T12:00:00Z",
        ] {
            assert_eq!(parse_time(s).map_err(|e| e.to_string()), jiff(s), "{s}");
        }
        assert!(fast_utc_seconds(b"2024-06-02T12:00:00Z").is_some(), "the API's shape takes the fast path");
    }

    proptest! {
        #[test]
        fn any_api_shaped_timestamp_agrees_with_jiff(y in 0u32..10000, m in 0u32..14, d in 0u32..33, hh in 0u32..26, mm in 0u32..62, ss in 0u32..62) {
            let s = format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z");
            prop_assert_eq!(parse_time(&s).map_err(|e| e.to_string()), jiff(&s), "{}", s);
        }

        #[test]
        fn any_string_agrees_with_jiff(s in "[0-9TZ:.+-]{0,24}") {
            prop_assert_eq!(parse_time(&s).map_err(|e| e.to_string()), jiff(&s));
        }
    }

    #[test]
    fn time_fields_read_null_absent_and_bad_values() {
        let c: Condition = serde_json::from_str(
            r#"{"type":"Ready","lastTransitionTime":"2024-06-02T12:00:00Z","lastHeartbeatTime":null}"#,
        )
        .unwrap();
        assert_eq!(c.last_transition_time, Some("2024-06-02T12:00:00Z".parse().unwrap()));
        assert_eq!(c.last_heartbeat_time, None);
        let e = serde_json::from_str::<Condition>(r#"{"lastTransitionTime":"2024-02-30T00:00:00Z"}"#).unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        assert!(serde_json::from_str::<Condition>(r#"{"lastTransitionTime":5}"#).is_err());
    }
}
