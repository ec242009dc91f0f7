//! What `unstuck serve` evaluates as the watches change the store: a full evaluation at every interval
//! (pods become stuck as time passes, leases expire without any watch event), and between them only the
//! part of the cluster each batch of changes can affect ([`Store::scoped_snapshot`]), merged into the last
//! findings by [`Incremental`]. The same rules run either way, on the same model; only the snapshot is
//! smaller.
//!
//! [`Store::scoped_snapshot`]: unstuck_ingest::store::Store::scoped_snapshot

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use unstuck_ingest::{IngestError, Options};
use unstuck_model::{ContainerLog, LogHit, Scope, Snapshot};
use unstuck_rules::{diagnose, Changed, Config, Diagnosis, Incremental};

use crate::watch::{lock, Shared};

/// Watch changes arriving within this window after the first are evaluated together: at a steady churn of
/// 50 changes a second, about two per evaluation (BENCHMARKS.md, "Incremental evaluation").
pub const COALESCE: Duration = Duration::from_millis(40);

/// The outcome of [`Evaluator::changes`].
#[derive(Debug)]
pub enum Step {
    /// Nothing changed since the last evaluation.
    Nothing,
    /// A kind was listed again (or something changed whose reach is not tracked): evaluate in full.
    Full,
    /// The changed part was evaluated again: [`Evaluator::current`] has the cluster's findings.
    Updated { scope: Scope, changes: usize, changed: Changed },
}

/// Keeps the findings of a watched cluster current.
pub struct Evaluator {
    cfg: Config,
    opts: Options,
    server: String,
    inc: Option<Incremental>,
    /// Node-log hits of the last full evaluation (fetched for it), handed to the partial snapshots of the
    /// nodes they are about.
    hits: Vec<LogHit>,
    /// Node-log files read by the last full evaluation (a rule's explanation says whether there were any).
    log_files: usize,
    /// Containers' output fetched for the last full evaluation, handed to the partial snapshots of the pods
    /// it is about.
    container_logs: Vec<ContainerLog>,
    last_full: Option<Instant>,
}

impl Evaluator {
    pub fn new(cfg: Config, opts: Options, server: String) -> Evaluator {
        Evaluator {
            cfg,
            opts,
            server,
            inc: None,
            hits: Vec::new(),
            log_files: 0,
            container_logs: Vec::new(),
            last_full: None,
        }
    }

    /// Whether the next evaluation must be full: none yet, or `interval` has passed since the last.
    pub fn full_due(&self, interval: Duration) -> bool {
        self.inc.is_none() || self.last_full.is_none_or(|t| t.elapsed() >= interval)
    }

    /// A snapshot of the whole store (what changed before it is in it).
    pub fn full_snapshot(&self, shared: &Shared) -> Result<Snapshot, IngestError> {
        let mut store = lock(&shared.store);
        store.take_dirty();
        store.snapshot(&self.opts, &self.server)
    }

    /// Diagnose a full snapshot (node logs attached by the caller) and keep it current from here on.
    pub fn full(&mut self, snap: &Snapshot) -> Diagnosis {
        let d = diagnose(snap, &self.cfg);
        self.remember_logs(snap);
        self.keep(d)
    }

    /// [`Evaluator::full`], the diagnosis amended by `amend` before it is kept (leads: the caller scans
    /// node logs again for pods no rule explains). Leads it adds stay on a finding while partial
    /// evaluations find the same, until the next full one.
    pub fn full_amended<E>(
        &mut self,
        snap: &mut Snapshot,
        amend: impl FnOnce(&mut Snapshot, &mut Diagnosis) -> Result<(), E>,
    ) -> Result<Diagnosis, E> {
        let mut d = diagnose(snap, &self.cfg);
        // The hits partial evaluations reuse are the signatures' (`amend` may scan for other lines).
        self.remember_logs(snap);
        amend(snap, &mut d)?;
        Ok(self.keep(d))
    }

    fn remember_logs(&mut self, snap: &Snapshot) {
        self.hits = snap.log_hits.clone();
        self.log_files = snap.source.log_files;
        self.container_logs = snap.container_logs.clone();
    }

    fn keep(&mut self, d: Diagnosis) -> Diagnosis {
        self.inc = Some(Incremental::new(d.clone(), &self.cfg));
        self.last_full = Some(Instant::now());
        d
    }

    /// Evaluate what changed in the store since the last evaluation.
    pub fn changes(&mut self, shared: &Shared) -> Result<Step, IngestError> {
        let Some(inc) = self.inc.as_mut() else { return Ok(Step::Full) };
        let (mut snap, scope, changes) = {
            let mut store = lock(&shared.store);
            let dirty = store.take_dirty();
            if dirty.is_empty() {
                return Ok(Step::Nothing);
            }
            if dirty.all {
                return Ok(Step::Full);
            }
            let (snap, scope) = store.scoped_snapshot(&dirty, &self.opts, &self.server)?;
            (snap, scope, dirty.changes)
        };
        if !self.hits.is_empty() {
            let nodes: BTreeSet<&str> = snap.nodes.iter().map(|n| n.metadata.name.as_str()).collect();
            snap.log_hits = self.hits.iter().filter(|h| nodes.contains(h.node.as_str())).cloned().collect();
        }
        snap.source.log_files = self.log_files;
        if !self.container_logs.is_empty() {
            let pods: BTreeSet<(&str, &str)> =
                snap.pods.iter().map(|p| (p.metadata.namespace.as_str(), p.metadata.name.as_str())).collect();
            snap.container_logs = self
                .container_logs
                .iter()
                .filter(|l| pods.contains(&(l.namespace.as_str(), l.pod.as_str())))
                .cloned()
                .collect();
        }
        let changed = inc.apply(diagnose(&snap, &self.cfg), &scope);
        Ok(Step::Updated { scope, changes, changed })
    }

    /// The findings kept current since the last full evaluation.
    pub fn current(&self) -> Option<&Incremental> {
        self.inc.as_ref()
    }
}
