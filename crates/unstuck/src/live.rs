//! Live mode wiring: the same model, rules and printers as offline, filled from the API.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use unstuck_ingest::Options;
use unstuck_live::{Live, LiveOptions};
use unstuck_model::Snapshot;
use unstuck_rules::Config;

use crate::cli::LiveArgs;

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")
}

pub(crate) fn live_options(a: &LiveArgs, namespace: Option<String>) -> LiveOptions {
    LiveOptions {
        kubeconfig: a.kubeconfig.clone(),
        context: a.context.clone(),
        namespace,
        page_size: 500,
        progress: true,
    }
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|x| x.parse().ok()))
        })
        .unwrap_or(0)
}

/// The namespace live LISTs can be restricted to: the one `-n` given, if exactly one.
pub fn single_namespace(cfg: &Config) -> Option<String> {
    match cfg.namespaces.as_slice() {
        [ns] => Some(ns.clone()),
        _ => None,
    }
}

/// One connection to the cluster and the runtime that drives it, for commands that read and then write.
pub struct Session {
    rt: tokio::runtime::Runtime,
    live: Live,
}

impl Session {
    pub fn connect(a: &LiveArgs, namespace: Option<String>) -> Result<Session> {
        let rt = runtime()?;
        let live = rt.block_on(Live::connect(&live_options(a, namespace)))?;
        Ok(Session { rt, live })
    }

    /// Read the cluster; node logs from `--node-logs`, or through the kubelet log API for nodes with stuck pods.
    /// The node logs read stay where they are until the returned [`NodeLogs`] is dropped (a second scan for
    /// leads reads them again).
    pub fn snapshot(&self, a: &LiveArgs, opts: &Options, cfg: &Config) -> Result<(Snapshot, Option<NodeLogs>)> {
        let live = &self.live;
        self.rt.block_on(async {
            let mut snap = live.snapshot(opts).await?;
            let mut logs = None;
            if opts.logs {
                if let Some(dir) = &a.node_logs {
                    unstuck_ingest::attach_node_logs(&mut snap, dir, opts)?;
                    logs = Some(NodeLogs { dir: dir.clone(), fetched: false });
                } else {
                    let nodes: Vec<String> = nodes_with_stuck_pods(&snap, cfg).into_iter().collect();
                    if !nodes.is_empty() {
                        let dir = std::env::temp_dir().join(format!("unstuck-node-logs-{}", std::process::id()));
                        // Removed when dropped, whatever happens next.
                        let fetched = NodeLogs { dir, fetched: true };
                        let notes = live.fetch_node_logs(&nodes, &fetched.dir).await;
                        snap.source.warnings.extend(notes);
                        unstuck_ingest::attach_node_logs(&mut snap, &fetched.dir, opts)?;
                        logs = Some(fetched);
                    }
                }
            }
            // What the crash-looping containers said last (a dump's `<ns>/<pod>/logs.txt` has it offline).
            let (note, _) = live.fetch_container_logs(&mut snap, &mut Default::default()).await;
            snap.source.warnings.extend(note);
            if a.stats {
                eprintln!(
                    "live: {} API calls, {} bytes read, {} pods, peak RSS {} KiB",
                    live.api_calls.load(std::sync::atomic::Ordering::Relaxed),
                    live.bytes.load(std::sync::atomic::Ordering::Relaxed),
                    snap.pods.len(),
                    peak_rss_kb()
                );
            }
            Ok::<_, anyhow::Error>((snap, logs))
        })
    }

    /// Send a fix plan (dry run unless `o.apply`); the audit log gets every request and outcome.
    pub fn run_plan(
        &self,
        plan: &unstuck_rules::fix::Plan,
        o: unstuck_live::apply::RunOptions,
        audit: &mut unstuck_live::apply::AuditLog,
    ) -> Result<Vec<unstuck_rules::fix::Outcome>> {
        Ok(self.rt.block_on(self.live.run_plan(plan, o, audit))?)
    }
}

/// The nodes holding stuck pods (a first diagnosis without logs): those whose logs are worth fetching.
pub fn nodes_with_stuck_pods(snap: &Snapshot, cfg: &Config) -> std::collections::BTreeSet<String> {
    let d = unstuck_rules::diagnose(snap, cfg);
    d.findings
        .into_iter()
        .filter(|f| f.subject.kind == "Pod" && !f.subject.node.is_empty())
        .map(|f| f.subject.node)
        .collect()
}

/// Read the cluster once (diagnose, upgrade-check), with the node logs it read.
pub fn snapshot(
    a: &LiveArgs,
    namespace: Option<String>,
    opts: &Options,
    cfg: &Config,
) -> Result<(Snapshot, Option<NodeLogs>)> {
    Session::connect(a, namespace)?.snapshot(a, opts, cfg)
}

/// The node logs a live diagnosis read: `--node-logs DIR`, or a temporary directory of logs fetched through
/// the kubelet's log API, removed when this is dropped.
pub struct NodeLogs {
    pub dir: PathBuf,
    fetched: bool,
}

impl Drop for NodeLogs {
    fn drop(&mut self) {
        if self.fetched {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

pub fn collect(
    a: &LiveArgs,
    namespace: Option<String>,
    out: &Path,
    redact: bool,
    all_logs: bool,
    layout: unstuck_live::BundleLayout,
) -> Result<u8> {
    let rt = runtime()?;
    rt.block_on(async {
        let live = Live::connect(&live_options(a, namespace)).await?;
        // Nodes whose logs matter: those holding stuck pods (or all, if asked).
        let snap = live.snapshot(&Options { logs: false, slim: true, ..Options::default() }).await?;
        let d = unstuck_rules::diagnose(&snap, &Config::default());
        let mut nodes: Vec<String> = if all_logs {
            snap.nodes.iter().map(|n| n.metadata.name.to_string()).collect()
        } else {
            d.findings.iter().filter(|f| !f.subject.node.is_empty()).map(|f| f.subject.node.clone()).collect()
        };
        nodes.sort();
        nodes.dedup();
        let stats = unstuck_live::collect_bundle(&live, out, redact, &nodes, a.node_logs.as_deref(), layout).await?;
        eprintln!(
            "collected {} objects into {} ({} API calls, {} node log files{}){}",
            stats.objects,
            out.display(),
            stats.api_calls,
            stats.node_log_files,
            if redact { format!(", {} values redacted", stats.redacted_values) } else { ", not redacted".into() },
            if stats.notes.is_empty() {
                String::new()
            } else {
                format!("\n  note: {}", stats.notes.join("\n  note: "))
            }
        );
        Ok(0)
    })
}
