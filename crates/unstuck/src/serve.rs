//! `unstuck serve`: watch the cluster, re-run the rules when it changes and as time passes, and
//! serve the findings as Prometheus metrics, the JSON report and the HTML report.
//!
//! Same model, same rules, same report as `diagnose`: the watches fill a store, each evaluation
//! snapshots it through the bundle reader's Collector. Read-only: serve never changes the cluster
//! (with --leader-elect it writes one Lease, its own).
//!
//! By default HTTPS with bearer-token authentication delegated to the API server (auth.rs, tls.rs);
//! `--insecure-no-auth` serves plain HTTP to anyone. With `--leader-elect` every replica keeps its
//! own watches and serves /findings and /metrics, but only the Lease holder exports the
//! alert-facing series (`unstuck_stuck_seconds`, `unstuck_findings`) and fetches node logs from the
//! kubelets; all export `unstuck_leader` and their own watch and evaluation metrics.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use tokio::sync::watch as chan;
use unstuck_ingest::Options;
use unstuck_live::evaluate::{Evaluator, Step, COALESCE};
use unstuck_live::lease::{Elector, LeaseConfig};
use unstuck_live::watch::{self, lock, Shared};
use unstuck_live::Live;
use unstuck_report::metrics::{Metrics, Shared as Findings, WatchState, CONTENT_TYPE};
use unstuck_report::Report;
use unstuck_rules::Config;

use crate::cli::LiveArgs;

pub struct ServeArgs {
    pub listen: String,
    pub interval: Duration,
    pub log_refresh: Duration,
    /// Cite crash-looping containers' last output, read through `pods/log` at full evaluations (leader only).
    pub container_logs: bool,
    pub opts: Options,
    pub cfg: Config,
    pub namespace: Option<String>,
    /// None: plain HTTP without authentication (--insecure-no-auth); else HTTPS with these PEM
    /// files (certificate, key), self-signed when absent, and token authentication.
    pub tls: Option<(Option<PathBuf>, Option<PathBuf>)>,
    pub election: Option<LeaseConfig>,
}

/// The Lease of --leader-elect: namespace from the flag, $POD_NAMESPACE, the service account's
/// namespace file or `default`; identity $POD_NAME or hostname_pid.
pub fn election_config(name: String, namespace: Option<String>, duration: Duration) -> LeaseConfig {
    let env = |k: &str| std::env::var(k).ok().map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    let namespace = namespace
        .or_else(|| env("POD_NAMESPACE"))
        .or_else(|| {
            std::fs::read_to_string("/var/run/secrets/kubernetes.io/serviceaccount/namespace")
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        })
        .unwrap_or_else(|| "default".to_string());
    let identity = env("POD_NAME").unwrap_or_else(|| {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
        format!("{}_{}", host.trim(), std::process::id())
    });
    LeaseConfig { name, namespace, identity, duration }
}

/// The last evaluation, rendered once, when first asked for (incremental evaluations can come many
/// times a second; readers come every scrape interval).
struct Latest {
    /// The report without its findings.
    head: Report,
    findings: Findings,
    json: std::sync::OnceLock<String>,
    html: std::sync::OnceLock<String>,
    at: Instant,
}

impl Latest {
    fn report(&self) -> Report {
        let mut r = self.head.clone();
        r.findings = self.findings.iter().map(|f| (**f).clone()).collect();
        r.summary.by_rule.clear();
        for f in &r.findings {
            *r.summary.by_rule.entry(f.rule.clone()).or_insert(0) += 1;
        }
        r
    }
}

struct App {
    metrics: Metrics,
    shared: Arc<Shared>,
    latest: RwLock<Option<Latest>>,
    interval: Duration,
    leader: chan::Receiver<bool>,
    /// Evaluate in full at the next change (leadership gained: node logs are fetched by the leader).
    full_now: std::sync::atomic::AtomicBool,
}

pub fn run(a: ServeArgs, live_args: &LiveArgs) -> Result<u8> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    rt.block_on(serve(a, live_args))
}

async fn serve(a: ServeArgs, live_args: &LiveArgs) -> Result<u8> {
    let mut lo = crate::live::live_options(live_args, a.namespace.clone());
    lo.progress = false;
    let live = Arc::new(Live::connect(&lo).await?);
    let tls = match &a.tls {
        Some((cert, key)) => Some(crate::tls::server_config(cert.clone(), key.clone())?),
        None => None,
    };
    let listener = tokio::net::TcpListener::bind(&a.listen)
        .await
        .with_context(|| format!("--listen {}: cannot bind", a.listen))?;
    let addr = listener.local_addr().context("listening address")?;
    let rules: Vec<&str> = unstuck_rules::catalog().iter().map(|r| r.id).collect();
    let shared = Arc::new(Shared::new(a.opts.slim));
    // Without election this replica is the leader; with it, a follower until the Lease says otherwise.
    let (leader_tx, leader_rx) = chan::channel(a.election.is_none());
    let app = Arc::new(App {
        metrics: Metrics::new(&rules),
        shared: shared.clone(),
        latest: RwLock::new(None),
        interval: a.interval,
        leader: leader_rx.clone(),
        full_now: std::sync::atomic::AtomicBool::new(false),
    });
    app.metrics.set_leader(*leader_rx.borrow());
    let (stop_tx, stop_rx) = chan::channel(false);
    let election = a.election.clone().map(|cfg| {
        eprintln!(
            "unstuck serve: leader election on lease {}/{} as {} (lease duration {}s)",
            cfg.namespace,
            cfg.name,
            cfg.identity,
            cfg.duration.as_secs()
        );
        tokio::spawn(follow_leadership(app.clone(), leader_rx.clone()));
        tokio::spawn(elect(Elector::new(live.client().clone(), cfg), leader_tx, stop_rx))
    });
    watch::spawn_all(live.clone(), shared.clone());
    let scheme = if tls.is_some() { "https" } else { "http" };
    if tls.is_none() {
        eprintln!(
            "unstuck serve: warning: --insecure-no-auth: plain HTTP, no authentication; anyone who can reach {addr} reads the findings"
        );
    }
    eprintln!(
        "unstuck serve: watching {} ; listening on {scheme}://{addr} (/metrics /findings /readyz /healthz /)",
        live.server
    );
    tokio::spawn(evaluate_forever(live.clone(), app.clone(), a, live_args.node_logs.clone()));
    let protected =
        Router::new().route("/metrics", get(metrics)).route("/findings", get(findings)).route("/", get(html));
    let protected = match &tls {
        Some(_) => {
            let auth = Arc::new(crate::auth::Auth::new(crate::auth::ApiReviewer(live.client().clone())));
            protected.route_layer(axum::middleware::from_fn_with_state(auth, crate::auth::layer))
        }
        None => protected,
    };
    let router = protected.route("/readyz", get(readyz)).route("/healthz", get(|| async { "ok\n" })).with_state(app);
    match tls {
        Some(cfg) => {
            let l = crate::tls::TlsListener::new(listener, cfg).context("TLS listener")?;
            axum::serve(l, router).with_graceful_shutdown(shutdown()).await.context("serving HTTPS")?;
        }
        None => axum::serve(listener, router).with_graceful_shutdown(shutdown()).await.context("serving HTTP")?,
    }
    if let Some(task) = election {
        // Give the Lease up so another replica takes over now rather than after the lease duration.
        let _ = stop_tx.send(true);
        let _ = tokio::time::timeout(Duration::from_secs(3), task).await;
    }
    eprintln!("unstuck serve: stopped");
    Ok(0)
}

/// Try for the Lease every retry period until `stop`; publish leadership on `tx`.
async fn elect(mut e: Elector, tx: chan::Sender<bool>, mut stop: chan::Receiver<bool>) {
    let mut last_error: Option<String> = None;
    loop {
        let (leader, err) = e.step().await;
        if err != last_error {
            let c = e.config();
            match &err {
                Some(x) => eprintln!(
                    "unstuck serve: leader election: lease {}/{}: {}",
                    c.namespace,
                    c.name,
                    unstuck_report::clean(x)
                ),
                None => eprintln!("unstuck serve: leader election: lease {}/{} reachable again", c.namespace, c.name),
            }
            last_error = err;
        }
        tx.send_if_modified(|v| std::mem::replace(v, leader) != leader);
        tokio::select! {
            _ = tokio::time::sleep(e.config().retry_period()) => {}
            _ = stop.changed() => {
                if let Err(x) = e.release().await {
                    eprintln!("unstuck serve: leader election: could not release the lease: {x}");
                }
                tx.send_replace(false);
                return;
            }
        }
    }
}

/// Apply leadership changes: the alert series go at once on losing it; on gaining it, evaluate now.
async fn follow_leadership(app: Arc<App>, mut rx: chan::Receiver<bool>) {
    while rx.changed().await.is_ok() {
        let leader = *rx.borrow_and_update();
        app.metrics.set_leader(leader);
        if leader {
            eprintln!("unstuck serve: leader: this replica now exports the finding series (and fetches node logs)");
            app.full_now.store(true, std::sync::atomic::Ordering::Relaxed);
            app.shared.changed.notify_one();
        } else {
            eprintln!("unstuck serve: no longer the leader: the finding series are left to the leader");
        }
    }
}

async fn shutdown() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term => {}
    }
}

/// Evaluate when the store changed and at least every `interval`, since pods become stuck by time passing
/// alone. Between full evaluations, each batch of watch changes (collected for `COALESCE`, 40 ms) is
/// evaluated incrementally: only the nodes, pods and workloads it touches (`unstuck_live::evaluate`).
async fn evaluate_forever(live: Arc<Live>, app: Arc<App>, a: ServeArgs, node_logs: Option<PathBuf>) {
    let log_dir = std::env::temp_dir().join(format!("unstuck-serve-logs-{}", std::process::id()));
    let mut fetched: BTreeMap<String, Instant> = BTreeMap::new();
    // Crashed runs read through pods/log (--container-logs): read again only after a restart; a running
    // init container's output (it grows) at most every --log-refresh, as node logs are.
    let mut runs = unstuck_live::RunCache::new(a.log_refresh);
    let mut last_set: BTreeSet<(String, String)> = BTreeSet::new();
    let mut ev = Evaluator::new(a.cfg.clone(), a.opts.clone(), live.server.clone());
    // The last full evaluation's report: what was read and its warnings stand for the incremental ones.
    let mut template: Option<Report> = None;
    // After a full evaluation that took d, the next full one waits at least 4·d (at least 1 s, at most the
    // interval): relists come in bursts, and evaluating must not take all the CPU.
    let mut gap = Duration::from_secs(1);
    let mut last_end = Instant::now();
    loop {
        let tick = tokio::select! {
            _ = app.shared.changed.notified() => {
                tokio::time::sleep(COALESCE).await;
                false
            }
            _ = tokio::time::sleep(a.interval) => true,
        };
        let ready = {
            let s = lock(&app.shared.store);
            s.synced("nodes") && s.synced("pods")
        };
        if !ready {
            continue;
        }
        let t = Instant::now();
        let forced = app.full_now.swap(false, std::sync::atomic::Ordering::Relaxed);
        let mut full = tick || forced || template.is_none() || ev.full_due(a.interval);
        if !full {
            match tokio::task::block_in_place(|| ev.changes(&app.shared)) {
                Ok(Step::Nothing) => continue,
                Ok(Step::Full) => full = true,
                Ok(Step::Updated { changed, .. }) => {
                    let (Some(tpl), Some(inc)) = (&template, ev.current()) else { continue };
                    if !changed.came.is_empty() || !changed.gone.is_empty() {
                        for g in &changed.gone {
                            last_set.remove(g);
                        }
                        last_set.extend(changed.came.iter().cloned());
                        eprintln!("unstuck serve: {}", change_summary(&last_set, &changed.came, &changed.gone));
                    }
                    let mut head = tpl.clone();
                    head.captured_at = inc.now();
                    head.summary.pods_stuck = inc.pods_stuck();
                    publish(&app, head, inc.findings().cloned().collect(), t, None, true);
                    continue;
                }
                Err(e) => {
                    app.metrics.failed();
                    eprintln!("unstuck serve: evaluation failed: {}", unstuck_report::clean(&e.to_string()));
                    full = true;
                }
            }
        }
        if full && !tick && !forced && template.is_some() {
            tokio::time::sleep_until((last_end + gap).into()).await;
        }
        let t = Instant::now();
        match evaluate(&live, &app, &a, &mut ev, node_logs.as_deref(), &log_dir, (&mut fetched, &mut runs)).await {
            Ok(mut report) => {
                let findings: Findings = std::mem::take(&mut report.findings).into_iter().map(Arc::new).collect();
                template = Some(report.clone());
                publish(&app, report, findings, t, Some(&mut last_set), false);
                last_end = Instant::now();
                gap = (t.elapsed() * 4).clamp(Duration::from_secs(1), a.interval);
            }
            Err(e) => {
                last_end = Instant::now();
                app.metrics.failed();
                eprintln!("unstuck serve: evaluation failed: {}", unstuck_report::clean(&format!("{e:#}")));
            }
        }
    }
}

/// Make an evaluation the one every reader sees: `head` is its report without the findings, which are
/// shared with the evaluator; the report is put together and rendered when first asked for.
fn publish(
    app: &App,
    mut head: Report,
    findings: Findings,
    t: Instant,
    last_set: Option<&mut BTreeSet<(String, String)>>,
    incremental: bool,
) {
    // A full evaluation is compared with what was published (an incremental one knows what changed).
    if let Some(last_set) = last_set {
        let set: BTreeSet<(String, String)> = findings.iter().map(|f| (f.rule.clone(), f.subject.display())).collect();
        if set != *last_set {
            eprintln!("unstuck serve: {}", change_line(last_set, &set));
            *last_set = set;
        }
    }
    head.findings.clear();
    head.summary.findings = findings.len();
    app.metrics.record(&head.summary, head.captured_at, findings.clone(), t.elapsed().as_secs_f64(), incremental);
    let latest = Latest {
        head,
        findings,
        json: std::sync::OnceLock::new(),
        html: std::sync::OnceLock::new(),
        at: Instant::now(),
    };
    *app.latest.write().unwrap_or_else(|p| p.into_inner()) = Some(latest);
}

async fn evaluate(
    live: &Live,
    app: &App,
    a: &ServeArgs,
    ev: &mut Evaluator,
    node_logs: Option<&std::path::Path>,
    log_dir: &std::path::Path,
    (fetched, runs): (&mut BTreeMap<String, Instant>, &mut unstuck_live::RunCache),
) -> Result<Report> {
    let mut snap = tokio::task::block_in_place(|| ev.full_snapshot(&app.shared))?;
    // Where this evaluation's node logs were read from (read again for leads).
    let mut read_from: Option<&std::path::Path> = None;
    if a.opts.logs {
        if let Some(dir) = node_logs {
            unstuck_ingest::attach_node_logs(&mut snap, dir, &a.opts)?;
            read_from = Some(dir);
        } else if *app.leader.borrow() {
            // Node logs through the kubelet log API (the leader only: replicas would multiply the
            // load on kubelets), for the nodes holding stuck pods only, refreshed at most every log_refresh.
            let nodes = crate::live::nodes_with_stuck_pods(&snap, &a.cfg);
            fetched.retain(|n, _| nodes.contains(n));
            if let Ok(entries) = std::fs::read_dir(log_dir) {
                for e in entries.flatten() {
                    if !nodes.contains(&*e.file_name().to_string_lossy()) {
                        let _ = std::fs::remove_dir_all(e.path());
                    }
                }
            }
            let stale: Vec<String> = nodes
                .iter()
                .filter(|n| fetched.get(*n).is_none_or(|t| t.elapsed() >= a.log_refresh))
                .cloned()
                .collect();
            if !stale.is_empty() {
                for n in &stale {
                    let _ = std::fs::remove_dir_all(log_dir.join(n));
                }
                let notes = live.fetch_node_logs(&stale, log_dir).await;
                snap.source.warnings.extend(notes);
                let now = Instant::now();
                for n in stale {
                    fetched.insert(n, now);
                }
            }
            if !nodes.is_empty() {
                unstuck_ingest::attach_node_logs(&mut snap, log_dir, &a.opts)?;
                read_from = Some(log_dir);
            }
        } else {
            snap.source.warnings.push(
                "node logs: this replica is not the leader; the leader fetches them from the kubelets, so findings here lack node-log evidence"
                    .to_string(),
            );
        }
    }
    // The crash-looping containers' last run, as `diagnose` reads it (the leader only, as for node logs:
    // pods/log goes to the kubelets). Partial evaluations reuse it for the pods they see (`Evaluator`);
    // full ones read a container's run again only after it restarted (`runs`).
    if a.container_logs && *app.leader.borrow() {
        let (note, read) = live.fetch_container_logs(&mut snap, runs).await;
        app.metrics.container_outputs_read(read);
        snap.source.warnings.extend(note);
    }
    // Pods no rule explains get leads, as in `diagnose`: their nodes' logs scanned again for lines naming
    // them, at full evaluations (every --interval, and when a change needs one); a partial evaluation that
    // finds the same about such a pod keeps them (`Incremental::apply`).
    let d = tokio::task::block_in_place(|| {
        ev.full_amended(&mut snap, |snap, d| match read_from {
            Some(dir) => crate::leads::add(snap, d, crate::subject::LogInput::NodeLogs(dir), &a.opts, &a.cfg),
            None => Ok(()),
        })
    })?;
    Ok(Report::new(&snap, d))
}

/// One log line for a change of findings: counts by rule, then the subjects that came and went
/// (at most a few of each: a large cluster can change by thousands at once).
fn change_line(before: &BTreeSet<(String, String)>, after: &BTreeSet<(String, String)>) -> String {
    let came: Vec<(String, String)> = after.difference(before).cloned().collect();
    let gone: Vec<(String, String)> = before.difference(after).cloned().collect();
    change_summary(after, &came, &gone)
}

/// The line for findings `after`, of which `came` are new and `gone` went.
fn change_summary(after: &BTreeSet<(String, String)>, came: &[(String, String)], gone: &[(String, String)]) -> String {
    const SHOWN: usize = 5;
    let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for (r, _) in after {
        *by_rule.entry(r).or_insert(0) += 1;
    }
    let list = |what: &str, items: &[(String, String)]| -> String {
        if items.is_empty() {
            return String::new();
        }
        let mut s: Vec<String> = items.iter().take(SHOWN).map(|(r, x)| format!("{r} {x}")).collect();
        if items.len() > SHOWN {
            s.push(format!("and {} more", items.len() - SHOWN));
        }
        format!("; {what}: {}", s.join(", "))
    };
    let counts: Vec<String> = by_rule.iter().map(|(r, n)| format!("{r} {n}")).collect();
    format!(
        "{} finding(s){}{}{}",
        after.len(),
        if counts.is_empty() { String::new() } else { format!(" ({})", counts.join(", ")) },
        list("new", came),
        list("gone", gone)
    )
}

fn watch_state(shared: &Shared) -> WatchState {
    let store = lock(&shared.store);
    WatchState {
        kinds: store.counts().into_iter().map(|(k, n)| (k.to_string(), n, store.synced(k))).collect(),
        events: lock(&shared.stats.events).iter().map(|((k, t), n)| (k.to_string(), t.to_string(), *n)).collect(),
        relists: lock(&shared.stats.relists).iter().map(|((k, r), n)| (k.to_string(), r.to_string(), *n)).collect(),
    }
}

async fn metrics(State(app): State<Arc<App>>) -> Response {
    app.metrics.watch(&watch_state(&app.shared));
    ([(header::CONTENT_TYPE, CONTENT_TYPE)], app.metrics.encode()).into_response()
}

fn not_yet() -> Response {
    (StatusCode::SERVICE_UNAVAILABLE, "no evaluation yet: the watches are still listing the cluster\n").into_response()
}

async fn findings(State(app): State<Arc<App>>) -> Response {
    match &*app.latest.read().unwrap_or_else(|p| p.into_inner()) {
        Some(l) => ([(header::CONTENT_TYPE, "application/json")], l.json.get_or_init(|| l.report().to_json()).clone())
            .into_response(),
        None => not_yet(),
    }
}

async fn html(State(app): State<Arc<App>>) -> Response {
    match &*app.latest.read().unwrap_or_else(|p| p.into_inner()) {
        Some(l) => (
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            l.html.get_or_init(|| unstuck_report::render_html(&l.report())).clone(),
        )
            .into_response(),
        None => not_yet(),
    }
}

/// Ready when an evaluation finished recently and nodes and pods are being watched.
async fn readyz(State(app): State<Arc<App>>) -> Response {
    const NEEDED: [&str; 2] = ["nodes", "pods"];
    // What makes the server unready, and (optional kinds that cannot be listed) what only weakens rules.
    let (mut fatal, mut warnings) = (Vec::new(), Vec::new());
    {
        let store = lock(&app.shared.store);
        fatal.extend(NEEDED.iter().filter(|k| !store.synced(k)).map(|k| format!("{k} not listed yet")));
    }
    for (k, e) in lock(&app.shared.stats.last_error).iter() {
        let to = if NEEDED.contains(k) { &mut fatal } else { &mut warnings };
        to.push(format!("{k}: {e}"));
    }
    let (age, n) = match &*app.latest.read().unwrap_or_else(|p| p.into_inner()) {
        Some(l) => (Some(l.at.elapsed()), l.findings.len()),
        None => (None, 0),
    };
    match age {
        None => fatal.push("no evaluation yet".into()),
        Some(a) if a > app.interval * 3 + Duration::from_secs(30) => {
            fatal.push(format!("last evaluation {}s ago", a.as_secs()))
        }
        Some(_) => {}
    }
    if !fatal.is_empty() {
        fatal.extend(warnings);
        (StatusCode::SERVICE_UNAVAILABLE, fatal.join("\n") + "\n").into_response()
    } else {
        let mut body = format!("ready: {n} finding(s)\n");
        if *app.leader.borrow() {
            body.push_str("leader: yes\n");
        } else {
            body.push_str("leader: no (another replica exports the finding series)\n");
        }
        for w in warnings {
            body.push_str(&format!("warning: {w}\n"));
        }
        body.into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn change_lines_stay_short() {
        let set = |n: usize, rule: &str| -> BTreeSet<(String, String)> {
            (0..n).map(|i| (rule.to_string(), format!("Pod/load/web-{i:05}"))).collect()
        };
        let big = set(6000, "stuck-unknown");
        let line = change_line(&BTreeSet::new(), &big);
        assert!(line.len() < 400, "{line}");
        assert!(
            line.starts_with("6000 finding(s) (stuck-unknown 6000); new: stuck-unknown Pod/load/web-00000"),
            "{line}"
        );
        assert!(line.ends_with("and 5995 more"), "{line}");
        let line = change_line(&big, &set(1, "stuck-unknown"));
        assert!(line.starts_with("1 finding(s) (stuck-unknown 1); gone: stuck-unknown Pod/load/web-00001"), "{line}");
        assert_eq!(change_line(&set(1, "x"), &BTreeSet::new()), "0 finding(s); gone: x Pod/load/web-00000");
    }
}
