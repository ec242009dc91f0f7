//! Live clusters. Lists every kind the rules need with paginated LISTs (cost proportional to the
//! number of kinds, not pods; no per-pod GETs) and feeds each page to the same slim deserializer the
//! bundle reader uses, so rules see the same model either way. Also writes bundles (`collect`) and
//! reads node logs through the kubelet's log endpoints.

pub mod apply;
mod collect;
pub mod evaluate;
pub mod lease;
pub mod review;
pub mod watch;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use kube::config::{KubeConfigOptions, Kubeconfig};
use unstuck_ingest::{Collector, Options};
use unstuck_model::Snapshot;

pub use collect::{collect_bundle, BundleLayout, CollectStats};

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("cannot load cluster configuration: {0}")]
    Config(String),
    #[error("forbidden: these credentials cannot {verb} {resource}{scope} (the read-only ClusterRole in deploy/rbac.yaml grants what diagnose needs): {message}")]
    Forbidden { verb: String, resource: String, scope: String, message: String },
    #[error("{path}: {message}")]
    Api {
        path: String,
        message: String,
        /// The HTTP status, when the API server answered.
        status: Option<u16>,
    },
    #[error(transparent)]
    Ingest(#[from] unstuck_ingest::IngestError),
    #[error("{0}")]
    Io(String),
}

/// How to reach the cluster (kubectl's conventions).
#[derive(Debug, Clone, Default)]
pub struct LiveOptions {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Restrict namespaced lists to one namespace.
    pub namespace: Option<String>,
    /// Objects per LIST page.
    pub page_size: u32,
    /// Progress on stderr (only when it is a terminal).
    pub progress: bool,
}

/// A connected client with request accounting.
pub struct Live {
    client: kube::Client,
    pub server: String,
    pub api_calls: AtomicU64,
    pub bytes: AtomicU64,
    page_size: u32,
    namespace: Option<String>,
    progress: bool,
}

/// (dump stem, cluster-wide path, namespaced path template, API group/resource for error messages)
pub const LISTS: &[(&str, &str, &str, &str)] = &[
    ("nodes", "/api/v1/nodes", "", "nodes"),
    ("pods", "/api/v1/pods", "/api/v1/namespaces/{ns}/pods", "pods"),
    ("events", "/api/v1/events", "/api/v1/namespaces/{ns}/events", "events"),
    ("deployments", "/apis/apps/v1/deployments", "/apis/apps/v1/namespaces/{ns}/deployments", "deployments.apps"),
    ("replicasets", "/apis/apps/v1/replicasets", "/apis/apps/v1/namespaces/{ns}/replicasets", "replicasets.apps"),
    ("statefulsets", "/apis/apps/v1/statefulsets", "/apis/apps/v1/namespaces/{ns}/statefulsets", "statefulsets.apps"),
    ("daemonsets", "/apis/apps/v1/daemonsets", "/apis/apps/v1/namespaces/{ns}/daemonsets", "daemonsets.apps"),
    ("jobs", "/apis/batch/v1/jobs", "/apis/batch/v1/namespaces/{ns}/jobs", "jobs.batch"),
    (
        "persistentvolumeclaims",
        "/api/v1/persistentvolumeclaims",
        "/api/v1/namespaces/{ns}/persistentvolumeclaims",
        "persistentvolumeclaims",
    ),
    // Every namespace's Leases: the nodes' heartbeats (kube-node-lease) and the control plane's leader
    // elections (kube-system/kube-scheduler, kube-controller-manager), which never-scheduled cites.
    ("leases", "/apis/coordination.k8s.io/v1/leases", "", "leases.coordination.k8s.io"),
];

/// The `continue` token of a list page: ListMeta is serialized before the items, so it sits near the start.
pub fn continue_token(page: &[u8]) -> Option<String> {
    let head = &page[..page.len().min(8192)];
    let i = memfind(head, b"\"continue\":\"")? + 12;
    let end = head[i..].iter().position(|&c| c == b'"')?;
    let tok = std::str::from_utf8(&head[i..i + end]).ok()?;
    (!tok.is_empty()).then(|| tok.to_string())
}

fn memfind(h: &[u8], n: &[u8]) -> Option<usize> {
    h.windows(n.len()).position(|w| w == n)
}

fn is_terminal_stderr() -> bool {
    use std::io::IsTerminal;
    std::io::stderr().is_terminal()
}

impl Live {
    pub async fn connect(o: &LiveOptions) -> Result<Live, LiveError> {
        let kopts = KubeConfigOptions { context: o.context.clone(), ..Default::default() };
        let config = match &o.kubeconfig {
            Some(p) => {
                let kc = Kubeconfig::read_from(p).map_err(|e| LiveError::Config(format!("{}: {e}", p.display())))?;
                kube::Config::from_custom_kubeconfig(kc, &kopts)
                    .await
                    .map_err(|e| LiveError::Config(format!("{}: {e}", p.display())))?
            }
            None if o.context.is_some() => {
                kube::Config::from_kubeconfig(&kopts).await.map_err(|e| LiveError::Config(e.to_string()))?
            }
            None => kube::Config::infer().await.map_err(|e| LiveError::Config(e.to_string()))?,
        };
        let server = config.cluster_url.to_string();
        let client = kube::Client::try_from(config).map_err(|e| LiveError::Config(e.to_string()))?;
        Ok(Live {
            client,
            server,
            api_calls: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            page_size: if o.page_size == 0 { 500 } else { o.page_size },
            namespace: o.namespace.clone(),
            progress: o.progress && is_terminal_stderr(),
        })
    }

    /// GET a path; 403 becomes an error naming the verb and resource.
    pub async fn get(&self, path: &str, resource: &str, verb: &str) -> Result<Vec<u8>, LiveError> {
        self.api_calls.fetch_add(1, Ordering::Relaxed);
        let req = http::Request::get(path).body(Vec::new()).map_err(|e| LiveError::Io(e.to_string()))?;
        match self.client.request_text(req).await {
            Ok(t) => {
                self.bytes.fetch_add(t.len() as u64, Ordering::Relaxed);
                Ok(t.into_bytes())
            }
            Err(kube::Error::Api(s)) if s.code == 403 => Err(LiveError::Forbidden {
                verb: verb.into(),
                resource: resource.into(),
                scope: if path.contains("/namespaces/") {
                    format!(" in namespace {}", path.split('/').nth(4).unwrap_or("?"))
                } else {
                    " cluster-wide".into()
                },
                message: s.message,
            }),
            Err(kube::Error::Api(s)) => Err(LiveError::Api {
                path: path.into(),
                message: format!("{} ({})", s.message, s.code),
                status: Some(s.code),
            }),
            Err(e) => Err(LiveError::Api { path: path.into(), message: e.to_string(), status: None }),
        }
    }

    pub(crate) fn list_path(&self, cluster: &str, namespaced: &str) -> String {
        match (&self.namespace, namespaced.is_empty()) {
            (Some(ns), false) => namespaced.replace("{ns}", ns),
            _ => cluster.to_string(),
        }
    }

    /// Every page of one list, handed to `f` as raw bytes.
    pub async fn list_pages(
        &self,
        path: &str,
        resource: &str,
        mut f: impl FnMut(&[u8]) -> Result<(), LiveError>,
    ) -> Result<u64, LiveError> {
        let mut cont: Option<String> = None;
        let mut pages = 0;
        loop {
            let sep = if path.contains('?') { '&' } else { '?' };
            let mut url = format!("{path}{sep}limit={}", self.page_size);
            if let Some(c) = &cont {
                url.push_str("&continue=");
                url.push_str(&unstuck_rules::fix::url_component(c));
            }
            let page = self.get(&url, resource, "list").await?;
            pages += 1;
            f(&page)?;
            cont = continue_token(&page);
            if cont.is_none() {
                return Ok(pages);
            }
        }
    }

    /// Read the cluster into the model, through the bundle reader's own deserializer.
    pub async fn snapshot(&self, opts: &Options) -> Result<Snapshot, LiveError> {
        let mut c = Collector::new(opts);
        c.set_live(&self.server);
        let bar = self.progress_bar();
        for (stem, cluster, namespaced, resource) in LISTS {
            let path = self.list_path(cluster, namespaced);
            if let Some(b) = &bar {
                b.set_message(format!(
                    "listing {resource} ({} requests so far)",
                    self.api_calls.load(Ordering::Relaxed)
                ));
                b.inc(1);
            }
            let source = format!("{}{path}", self.server.trim_end_matches('/'));
            let res = self
                .list_pages(&path, resource, |page| {
                    unstuck_ingest::add_list_bytes(&mut c, &source, stem, page).map_err(LiveError::from)
                })
                .await;
            match res {
                Ok(_) => {}
                // Optional kinds: a cluster without them (or no right to read them) weakens rules, it does not stop diagnose.
                Err(LiveError::Forbidden { .. }) | Err(LiveError::Api { .. }) if !matches!(*stem, "nodes" | "pods") => {
                    c.add_warning(format!("could not list {resource}: rules that need them are weaker"));
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        Ok(c.finish()?)
    }

    /// Fetch node logs for `nodes` into `dir/<node>/` through the kubelet's log endpoints
    /// (`/api/v1/nodes/N/proxy/logs/…`). Returns a note per node that had none.
    ///
    /// Nodes are asked concurrently (a few at a time) and each request has a deadline: the nodes that
    /// hold stuck pods are often the unreachable ones, and the client's retries on 503 must not turn
    /// one lost node into minutes. A node that does not answer its first request is not asked again.
    pub async fn fetch_node_logs(&self, nodes: &[String], dir: &Path) -> Vec<String> {
        const AT_ONCE: usize = 8;
        let mut notes = Vec::new();
        for batch in nodes.chunks(AT_ONCE) {
            let results = futures::future::join_all(batch.iter().map(|n| self.fetch_one_node(n, dir))).await;
            notes.extend(results.into_iter().flatten());
        }
        notes
    }

    async fn fetch_one_node(&self, n: &str, dir: &Path) -> Option<String> {
        let d = dir.join(n);
        let _ = std::fs::create_dir_all(&d);
        let mut got = 0;
        let mut answered = false;
        let mut why = String::new();
        for (name, path) in [
            ("kubelet.log", format!("/api/v1/nodes/{n}/proxy/logs/?query=kubelet")),
            ("containerd.log", format!("/api/v1/nodes/{n}/proxy/logs/?query=containerd")),
            ("messages", format!("/api/v1/nodes/{n}/proxy/logs/messages")),
            ("syslog", format!("/api/v1/nodes/{n}/proxy/logs/syslog")),
        ] {
            match tokio::time::timeout(NODE_LOG_DEADLINE, self.get(&path, "nodes/proxy", "get")).await {
                Ok(Ok(body)) => {
                    answered = true;
                    let empty = body.is_empty() || body.starts_with(b"-- No entries --");
                    if !empty && std::fs::write(d.join(name), &body).is_ok() {
                        got += 1;
                    }
                }
                // Not found: this node has no such log; ask for the next one.
                Ok(Err(LiveError::Api { status: Some(404), .. })) => answered = true,
                Ok(Err(e)) => {
                    why = e.to_string();
                    break;
                }
                Err(_) => {
                    why = format!("no answer within {}s", NODE_LOG_DEADLINE.as_secs());
                    break;
                }
            }
        }
        if got == 0 && answered && why.is_empty() {
            return Some(format!("node logs of {n}: the kubelet log API answered but has no kubelet or containerd journal, /var/log/messages or /var/log/syslog on this node"));
        }
        (got == 0).then(|| {
            let why = if why.is_empty() { String::new() } else { format!(" ({why})") };
            format!("node logs of {n} unavailable: the kubelet log query API (/api/v1/nodes/{n}/proxy/logs/) did not answer{why}; it needs get on nodes/proxy, a reachable node, and the NodeLogQuery feature or enableSystemLogHandler")
        })
    }

    /// The containers whose output the rules cite, of these pods, at most [`CONTAINER_LOGS_MAX`]: each
    /// crash-looping one's previous run (`true`), an init container the pod still waits for as it runs
    /// (`false`: its current output).
    pub fn output_wanted<'p>(pods: impl IntoIterator<Item = &'p unstuck_model::Pod>) -> Vec<(RunKey, bool)> {
        pods.into_iter().flat_map(wanted_of).take(CONTAINER_LOGS_MAX).collect()
    }

    /// The output of each of these containers (`pods/log`, the previous run's where asked, its last
    /// [`ContainerLog::TAIL`] lines as the API gives them), a few at a time, each with a deadline; and a
    /// note when some could not be read (no `get` on `pods/log`, or no answer).
    ///
    /// [`ContainerLog::TAIL`]: unstuck_model::ContainerLog::TAIL
    pub async fn outputs(&self, wanted: &[(RunKey, bool)]) -> (Vec<((RunKey, bool), Vec<u8>)>, Option<String>) {
        const AT_ONCE: usize = 8;
        let (mut out, mut missed, mut forbidden) = (Vec::new(), 0, false);
        for batch in wanted.chunks(AT_ONCE) {
            let got = futures::future::join_all(batch.iter().map(|((ns, pod, c), previous)| {
                let path = format!(
                    "/api/v1/namespaces/{}/pods/{}/log?container={}&previous={previous}&tailLines={}",
                    enc(ns),
                    enc(pod),
                    enc(c),
                    unstuck_model::ContainerLog::TAIL
                );
                async move { tokio::time::timeout(NODE_LOG_DEADLINE, self.get(&path, "pods/log", "get")).await }
            }))
            .await;
            for (key, r) in batch.iter().zip(got) {
                match r {
                    Ok(Ok(body)) => out.push((key.clone(), body)),
                    Ok(Err(LiveError::Forbidden { .. })) => {
                        forbidden = true;
                        missed += 1
                    }
                    _ => missed += 1,
                }
            }
        }
        let note = (missed > 0).then(|| match forbidden {
            true => "containers' output unavailable: these credentials cannot get pods/log (deploy/rbac.yaml grants it)".to_string(),
            false => format!("output of {missed} container(s) unavailable (pods/log did not answer, or the previous run's log is gone)"),
        });
        (out, note)
    }

    /// The crash-looping containers' last run into `snap.container_logs`, as a dump's `logs.txt` would give
    /// it; a note when some could not be read. Runs in `cache` (read at an earlier evaluation, the
    /// container not restarted since) are not read again; the number read is returned with the note.
    pub async fn fetch_container_logs(&self, snap: &mut Snapshot, cache: &mut RunCache) -> (Option<String>, usize) {
        let missing = cache.plan(snap);
        let (got, note) = self.outputs(&missing).await;
        let read = got.len();
        for (((ns, pod, c), previous), body) in got {
            let flag = if previous { " --previous" } else { "" };
            cache.store(unstuck_model::ContainerLog {
                file: format!("kubectl logs -n {ns} {pod} -c {c}{flag}"),
                tail: unstuck_ingest::container_logs::tail_of_output(&body),
                namespace: ns,
                pod,
                container: c,
            });
        }
        snap.container_logs.extend(cache.outputs());
        snap.container_logs.sort_by(|a, b| (&a.namespace, &a.pod).cmp(&(&b.namespace, &b.pod)));
        (note, read)
    }

    /// A progress bar on stderr over the kinds to list, only when stderr is a terminal.
    pub fn progress_bar(&self) -> Option<indicatif::ProgressBar> {
        if !self.progress {
            return None;
        }
        let b = indicatif::ProgressBar::new(LISTS.len() as u64);
        b.set_style(
            indicatif::ProgressStyle::with_template("{spinner} [{bar:20}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        b.enable_steady_tick(std::time::Duration::from_millis(120));
        Some(b)
    }

    pub fn client(&self) -> &kube::Client {
        &self.client
    }
}

/// How long one kubelet log request may take (the client retries 503s with backoff inside it).
const NODE_LOG_DEADLINE: std::time::Duration = std::time::Duration::from_secs(6);
/// At most this many crash-looping containers' output is fetched in one read of the cluster.
pub const CONTAINER_LOGS_MAX: usize = 50;

/// A container: (namespace, pod, container).
pub type RunKey = (String, String, String);

/// A pod's containers whose output the rules cite (`Pod::output_containers`), each with whether its
/// previous run is the one (a crash-looping container) or its current one (an init container at work).
fn wanted_of(p: &unstuck_model::Pod) -> impl Iterator<Item = (RunKey, bool)> + '_ {
    let looping = p.crash_looping_containers();
    p.output_containers().into_iter().map(move |c| {
        ((p.metadata.namespace.to_string(), p.metadata.name.to_string(), c.to_string()), looping.contains(&c))
    })
}

/// Crashed runs already read (`serve --container-logs`), by container, with the pod UID and restart
/// count they were read at: a container's previous run only changes when it restarts again, so a run
/// is read once, not at every full evaluation. A running init container's current output grows while it
/// runs: it is read again once it is older than `refresh`. Containers no longer wanted are forgotten.
#[derive(Debug)]
pub struct RunCache {
    /// The containers of the last plan (with whether their previous run is read), each with its pod's UID
    /// and its restart count.
    wanted: Vec<((RunKey, bool), (String, i64))>,
    /// Each run kept: the pod UID and restart count it was read at, when it was read, and the run.
    runs: std::collections::HashMap<RunKey, ((String, i64), std::time::Instant, unstuck_model::ContainerLog)>,
    /// How long a running container's current output is kept before it is read again.
    refresh: std::time::Duration,
    /// The time of the last plan (what `store` records as the read time).
    planned_at: std::time::Instant,
}

impl Default for RunCache {
    fn default() -> Self {
        Self::new(std::time::Duration::from_secs(300))
    }
}

impl RunCache {
    /// A cache that reads a running container's current output again after `refresh`.
    pub fn new(refresh: std::time::Duration) -> Self {
        Self { wanted: Vec::new(), runs: Default::default(), refresh, planned_at: std::time::Instant::now() }
    }

    /// The containers of `snap` whose output the rules cite (as [`Live::output_wanted`] picks them) whose
    /// run is not kept at the pod UID and restart count they have now (or, for a running container's
    /// current output, was read `refresh` or longer ago); runs of any other container are forgotten.
    pub fn plan(&mut self, snap: &Snapshot) -> Vec<(RunKey, bool)> {
        self.plan_at(snap, std::time::Instant::now())
    }

    /// [`RunCache::plan`] at the time `now`.
    pub fn plan_at(&mut self, snap: &Snapshot, now: std::time::Instant) -> Vec<(RunKey, bool)> {
        self.planned_at = now;
        self.wanted = snap
            .pods
            .iter()
            .flat_map(|p| {
                wanted_of(p).map(move |(key, previous)| {
                    let id = (p.metadata.uid.to_string(), p.restarts_of(&key.2));
                    ((key, previous), id)
                })
            })
            .take(CONTAINER_LOGS_MAX)
            .collect();
        let (wanted, refresh) = (&self.wanted, self.refresh);
        self.runs.retain(|k, (id, read_at, _)| {
            wanted.iter().any(|((w, previous), wid)| {
                w == k && wid == id && (*previous || now.saturating_duration_since(*read_at) < refresh)
            })
        });
        wanted.iter().filter(|((k, _), _)| !self.runs.contains_key(k)).map(|(w, _)| w.clone()).collect()
    }

    /// Keep a run read for the last plan.
    pub fn store(&mut self, log: unstuck_model::ContainerLog) {
        let key = (log.namespace.clone(), log.pod.clone(), log.container.clone());
        if let Some((_, id)) = self.wanted.iter().find(|((k, _), _)| *k == key) {
            self.runs.insert(key, (id.clone(), self.planned_at, log));
        }
    }

    /// The runs kept for the last plan's containers.
    pub fn outputs(&self) -> impl Iterator<Item = unstuck_model::ContainerLog> + '_ {
        self.wanted.iter().filter_map(|((k, _), _)| self.runs.get(k)).map(|(_, _, log)| log.clone())
    }

    /// How many runs are kept.
    pub fn len(&self) -> usize {
        self.runs.len()
    }
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }
}

/// A name as one URL path segment or query value (names are DNS labels; this keeps anything else harmless).
fn enc(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens() {
        assert_eq!(continue_token(br#"{"kind":"PodList","metadata":{"resourceVersion":"5","continue":"eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"},"items":[]}"#).as_deref(), Some("eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ"));
        assert_eq!(continue_token(br#"{"kind":"PodList","metadata":{"resourceVersion":"5"},"items":[]}"#), None);
        assert_eq!(continue_token(br#"{"metadata":{"continue":""}}"#), None);
        assert_eq!(unstuck_rules::fix::url_component("a+b/c="), "a%2Bb%2Fc%3D");
    }

    /// A pod as the API serves it: container `app` in back-off after `restarts` restarts, `sidecar` running.
    fn pod(uid: &str, restarts: i64, looping: bool) -> std::sync::Arc<unstuck_model::Pod> {
        let waiting = match looping {
            true => {
                serde_json::json!({"waiting": {"reason": "CrashLoopBackOff", "message": "back-off 5m0s restarting failed container=app"}})
            }
            false => serde_json::json!({"running": {"startedAt": "2026-11-27T09:00:00Z"}}),
        };
        std::sync::Arc::new(
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "worker-0", "namespace": "shop", "uid": uid},
                "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "x"}, {"name": "sidecar", "image": "y"}]},
                "status": {"phase": "Running", "containerStatuses": [
                    {"name": "app", "ready": false, "restartCount": restarts, "state": waiting,
                     "lastState": {"terminated": {"exitCode": 1, "reason": "Error"}}},
                    {"name": "sidecar", "ready": true, "restartCount": 0, "state": {"running": {}}}
                ]}
            }))
            .unwrap(),
        )
    }

    /// A pod whose init container `wait-db` runs while `app` waits in PodInitializing.
    fn init_waiting(uid: &str) -> std::sync::Arc<unstuck_model::Pod> {
        let mut init = (*pod(uid, 0, false)).clone();
        init.status.init_container_statuses = init.status.container_statuses.clone();
        init.status.init_container_statuses[0].name = "wait-db".into();
        init.status.container_statuses.truncate(1);
        init.status.container_statuses[0].state =
            serde_json::from_value(serde_json::json!({"waiting": {"reason": "PodInitializing"}})).unwrap();
        std::sync::Arc::new(init)
    }

    /// Store a run saying `line` for each container the plan misses.
    fn store_all(cache: &mut RunCache, missing: &[(RunKey, bool)], line: &str) {
        for ((ns, pod, c), _) in missing {
            cache.store(unstuck_model::ContainerLog {
                namespace: ns.clone(),
                pod: pod.clone(),
                container: c.clone(),
                file: "kubectl logs".into(),
                tail: vec![(Some(1), line.into())],
            });
        }
    }

    fn read(cache: &mut RunCache, snap: &Snapshot) -> Vec<(RunKey, bool)> {
        let missing = cache.plan(snap);
        store_all(cache, &missing, "FATAL: bad config");
        missing
    }

    #[test]
    fn a_crashed_run_is_read_again_only_after_a_restart() {
        let key = ("shop".to_string(), "worker-0".to_string(), "app".to_string());
        let mut cache = RunCache::default();
        let mut snap = Snapshot { pods: vec![pod("u1", 6, true)], ..Default::default() };
        assert_eq!(read(&mut cache, &snap), [(key.clone(), true)]);
        assert_eq!(cache.outputs().count(), 1);
        // The next evaluation: same restart count, nothing read, the kept run still given.
        assert!(read(&mut cache, &snap).is_empty());
        assert_eq!(cache.outputs().map(|l| l.container).collect::<Vec<_>>(), ["app"]);
        // It restarted: its previous run is another one now.
        snap.pods = vec![pod("u1", 7, true)];
        assert_eq!(read(&mut cache, &snap), [(key.clone(), true)]);
        // The pod was replaced by one of the same name (a StatefulSet's): another UID, read again.
        snap.pods = vec![pod("u2", 7, true)];
        assert_eq!(read(&mut cache, &snap), [(key, true)]);
        // No longer crash-looping: forgotten, nothing given.
        snap.pods = vec![pod("u2", 7, false)];
        assert!(read(&mut cache, &snap).is_empty());
        assert!(cache.is_empty() && cache.outputs().next().is_none());
        // An init container the pod waits for: its current output (not a previous run) is read.
        snap.pods = vec![init_waiting("u3")];
        let wait = ("shop".to_string(), "worker-0".to_string(), "wait-db".to_string());
        assert_eq!(read(&mut cache, &snap), [(wait, false)]);
    }

    #[test]
    fn a_running_containers_output_is_read_again_after_refresh() {
        let t0 = std::time::Instant::now();
        let refresh = std::time::Duration::from_secs(300);
        let mut cache = RunCache::new(refresh);
        let snap = Snapshot { pods: vec![init_waiting("u3"), pod("u1", 6, true)], ..Default::default() };
        let at = |cache: &mut RunCache, secs: u64| {
            let missing = cache.plan_at(&snap, t0 + std::time::Duration::from_secs(secs));
            store_all(cache, &missing, &format!("line at {secs}s"));
            missing.into_iter().map(|((_, _, c), previous)| (c, previous)).collect::<Vec<_>>()
        };
        let wait = ("wait-db".to_string(), false);
        let app = ("app".to_string(), true);
        assert_eq!(at(&mut cache, 0), [wait.clone(), app.clone()]);
        // Within `refresh`: neither is read again.
        assert!(at(&mut cache, 299).is_empty());
        // Past it: the running init container's output is read again; the crashed run (same restart
        // count) is not.
        assert_eq!(at(&mut cache, 300), std::slice::from_ref(&wait));
        let said: Vec<String> = cache.outputs().map(|l| l.tail[0].1.clone()).collect();
        assert_eq!(said, ["line at 300s", "line at 0s"]);
        assert!(at(&mut cache, 599).is_empty());
        assert_eq!(at(&mut cache, 600), [wait]);
    }
}
