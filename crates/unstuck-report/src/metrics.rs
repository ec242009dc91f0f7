//! Prometheus metrics for `unstuck serve`: a printer like the others, for a report that is
//! refreshed as the cluster changes, plus the counters of the watches that feed it.
//! Names, labels and meaning are documented in docs/serve.md; the shipped alerts
//! (deploy/prometheus-rules.yaml) only use metrics defined here (a test checks it).

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use unstuck_model::Time;
use unstuck_rules::Finding;

use crate::{Report, Summary};

/// Findings shared with whoever else holds the same evaluation (`unstuck serve`'s report readers).
pub type Shared = std::sync::Arc<[std::sync::Arc<Finding>]>;

type Labels = Vec<(String, String)>;
type FGauge = Gauge<f64, AtomicU64>;

/// What the watches feeding the store report at scrape time.
#[derive(Debug, Default, Clone)]
pub struct WatchState {
    /// (kind, objects kept, listed yet)
    pub kinds: Vec<(String, usize, bool)>,
    /// (kind, event type, total events)
    pub events: Vec<(String, String, u64)>,
    /// (kind, reason, total re-lists)
    pub relists: Vec<(String, String, u64)>,
}

/// The process's metrics; every method is cheap and safe to call from any thread.
pub struct Metrics {
    registry: Registry,
    stuck_seconds: Family<Labels, FGauge>,
    findings: Family<Labels, Gauge>,
    pods_checked: Gauge,
    pods_stuck: Gauge,
    nodes_checked: Gauge,
    evaluations: Counter,
    incremental: Counter,
    /// The newest report, its per-finding series not built yet: they are built when scraped (evaluations
    /// of what changed can come many times a second; scrapes come every few seconds).
    pending: std::sync::Mutex<Option<Shared>>,
    failures: Counter,
    outputs_read: Counter,
    duration: FGauge,
    last: FGauge,
    objects: Family<Labels, Gauge>,
    synced: Family<Labels, Gauge>,
    events: Family<Labels, Counter>,
    relists: Family<Labels, Counter>,
    leader: Gauge,
    /// Whether this replica exports the alert-facing series (stuck_seconds, findings): the
    /// leader, or the only replica when there is no leader election.
    alerting: std::sync::atomic::AtomicBool,
    rules: Vec<String>,
    /// Held while findings are replaced and while encoding: a scrape never sees half an update.
    swap: std::sync::Mutex<()>,
}

fn l(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

impl Metrics {
    /// `rules`: every rule id, so that a rule with no finding reads 0 instead of being absent.
    pub fn new(rules: &[&str]) -> Metrics {
        let mut r = Registry::with_prefix("unstuck");
        let m = Metrics {
            registry: Registry::default(),
            stuck_seconds: Family::default(),
            findings: Family::default(),
            pods_checked: Gauge::default(),
            pods_stuck: Gauge::default(),
            nodes_checked: Gauge::default(),
            evaluations: Counter::default(),
            incremental: Counter::default(),
            pending: std::sync::Mutex::new(None),
            failures: Counter::default(),
            outputs_read: Counter::default(),
            duration: FGauge::default(),
            last: FGauge::default(),
            objects: Family::default(),
            synced: Family::default(),
            events: Family::default(),
            relists: Family::default(),
            leader: Gauge::default(),
            alerting: std::sync::atomic::AtomicBool::new(true),
            rules: rules.iter().map(|s| s.to_string()).collect(),
            swap: std::sync::Mutex::new(()),
        };
        r.register(
            "stuck_seconds",
            "One series per finding (labels rule, severity, kind, namespace, name, node): how long its subject has been stuck, 0 when unknown; only on the leader",
            m.stuck_seconds.clone(),
        );
        r.register("findings", "Findings by rule and severity (only on the leader)", m.findings.clone());
        r.register(
            "leader",
            "1 on the replica that holds the leader lease (or runs without --leader-elect) and exports unstuck_stuck_seconds and unstuck_findings, 0 on the others",
            m.leader.clone(),
        );
        r.register("pods_checked", "Pods the last evaluation looked at", m.pods_checked.clone());
        r.register("pods_stuck", "Pods the last evaluation found stuck", m.pods_stuck.clone());
        r.register("nodes_checked", "Nodes the last evaluation looked at", m.nodes_checked.clone());
        r.register("evaluations", "Evaluations of the rules over the watched cluster", m.evaluations.clone());
        r.register(
            "incremental_evaluations",
            "Evaluations of only the part of the cluster a batch of watch changes touched (counted in unstuck_evaluations too)",
            m.incremental.clone(),
        );
        r.register("evaluation_failures", "Evaluations that failed (see the log)", m.failures.clone());
        r.register(
            "container_outputs_read",
            "Crashed runs' output read through pods/log (serve --container-logs); a container's run is read again only after it restarts",
            m.outputs_read.clone(),
        );
        r.register("evaluation_duration_seconds", "How long the last evaluation took", m.duration.clone());
        r.register("last_evaluation_timestamp_seconds", "Unix time of the last successful evaluation", m.last.clone());
        r.register("watch_objects", "Objects kept per kind", m.objects.clone());
        r.register("watch_synced", "1 when the kind has been listed and is being watched", m.synced.clone());
        r.register("watch_events", "Watch events applied, by kind and type", m.events.clone());
        r.register("watch_relists", "Lists started again, by kind and reason", m.relists.clone());
        let info: Family<Labels, Gauge> = Family::default();
        info.get_or_create(&l(&[("version", env!("CARGO_PKG_VERSION"))])).set(1);
        r.register("build_info", "The unstuck version serving these metrics", info);
        m.leader.set(1);
        Metrics { registry: r, ..m }
    }

    /// Whether this replica is the leader: only the leader exports the alert-facing series
    /// (`unstuck_stuck_seconds`, `unstuck_findings`), so that replicas never report a finding
    /// twice. Losing leadership removes them at once; the next `observe` as leader fills them.
    pub fn set_leader(&self, leader: bool) {
        let _g = self.swap.lock().unwrap_or_else(|p| p.into_inner());
        self.alerting.store(leader, std::sync::atomic::Ordering::SeqCst);
        self.leader.set(i64::from(leader));
        if !leader {
            self.stuck_seconds.clear();
            self.findings.clear();
        }
    }

    /// Replace the findings with those of a new report.
    pub fn observe(&self, report: &Report, took_seconds: f64) {
        let _g = self.swap.lock().unwrap_or_else(|p| p.into_inner());
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).take();
        self.series(report.findings.iter());
        self.totals(&report.summary, report.captured_at, took_seconds);
    }

    /// A new evaluation's findings (`incremental`: of what changed only): the totals now, the per-finding
    /// series when next scraped.
    pub fn record(&self, summary: &Summary, captured_at: Time, findings: Shared, took_seconds: f64, incremental: bool) {
        let _g = self.swap.lock().unwrap_or_else(|p| p.into_inner());
        self.totals(summary, captured_at, took_seconds);
        if incremental {
            self.incremental.inc();
        }
        *self.pending.lock().unwrap_or_else(|p| p.into_inner()) = Some(findings);
    }

    fn series<'a>(&self, findings: impl Iterator<Item = &'a Finding>) {
        self.stuck_seconds.clear();
        self.findings.clear();
        let alerting = self.alerting.load(std::sync::atomic::Ordering::SeqCst);
        for rule in self.rules.iter().filter(|_| alerting) {
            for sev in ["critical", "error", "warning", "info"] {
                self.findings.get_or_create(&l(&[("rule", rule), ("severity", sev)])).set(0);
            }
        }
        for f in findings.filter(|_| alerting) {
            let sev = f.severity.as_str();
            let s = &f.subject;
            let labels = l(&[
                ("rule", &f.rule),
                ("severity", sev),
                ("kind", &s.kind),
                ("namespace", &s.namespace),
                ("name", &s.name),
                ("node", &s.node),
            ]);
            self.stuck_seconds.get_or_create(&labels).set(f.stuck_for_seconds.unwrap_or(0).max(0) as f64);
            self.findings.get_or_create(&l(&[("rule", &f.rule), ("severity", sev)])).inc();
        }
    }

    fn totals(&self, s: &Summary, captured_at: Time, took_seconds: f64) {
        self.pods_checked.set(s.pods_checked as i64);
        self.pods_stuck.set(s.pods_stuck as i64);
        self.nodes_checked.set(s.nodes_checked as i64);
        self.evaluations.inc();
        self.duration.set(took_seconds);
        self.last.set(captured_at.as_millisecond() as f64 / 1000.0);
    }

    pub fn failed(&self) {
        self.failures.inc();
    }

    /// `n` crashed runs' output read through pods/log.
    pub fn container_outputs_read(&self, n: usize) {
        self.outputs_read.inc_by(n as u64);
    }

    /// Bring the watch gauges and counters up to the totals the watches keep.
    pub fn watch(&self, w: &WatchState) {
        for (kind, n, synced) in &w.kinds {
            let k = l(&[("kind", kind)]);
            self.objects.get_or_create(&k).set(*n as i64);
            self.synced.get_or_create(&k).set(i64::from(*synced));
        }
        let bump = |fam: &Family<Labels, Counter>, labels: Labels, total: u64| {
            let c = fam.get_or_create(&labels);
            let have = c.get();
            if total > have {
                c.inc_by(total - have);
            }
        };
        for (kind, ty, total) in &w.events {
            bump(&self.events, l(&[("kind", kind), ("type", ty)]), *total);
        }
        for (kind, reason, total) in &w.relists {
            bump(&self.relists, l(&[("kind", kind), ("reason", reason)]), *total);
        }
    }

    /// The OpenMetrics text exposition.
    pub fn encode(&self) -> String {
        let _g = self.swap.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = self.pending.lock().unwrap_or_else(|p| p.into_inner()).take() {
            self.series(f.iter().map(|f| &**f));
        }
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }
}

/// The content type of [`Metrics::encode`].
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
