//! `unstuck fix`: plan from the findings (or read a saved plan), then a server-side dry run or the
//! changes themselves, every request in the audit log.

use std::path::PathBuf;

use anyhow::{bail, Result};
use unstuck_live::apply::{AuditLog, RunOptions};
use unstuck_report::{FixMode, Report};
use unstuck_rules::fix::{OpKind, Plan};

use crate::cli::{ingest_options, InputArgs, LiveArgs, Output, SelectArgs};
use crate::live::{single_namespace, Session};

pub struct FixArgs {
    pub paths: Vec<PathBuf>,
    pub plan: Option<PathBuf>,
    pub apply: bool,
    pub confirm: bool,
    pub allow: Vec<OpKind>,
    pub audit_log: Option<PathBuf>,
    pub output: Output,
}

/// `$XDG_STATE_HOME/unstuck/audit.jsonl`, else `~/.local/state/unstuck/audit.jsonl`.
fn default_audit_log() -> Result<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".local/state")));
    match state {
        Some(s) => Ok(s.join("unstuck/audit.jsonl")),
        None => bail!("no audit log location: set --audit-log FILE (neither XDG_STATE_HOME nor HOME is set)"),
    }
}

/// Plan files are untrusted input: bounded, regular files only, parsed and validated before anything is sent.
fn read_plan(p: &std::path::Path) -> Result<Plan> {
    let bytes = unstuck_ingest::read_capped(p, 64 << 20)?;
    let plan: Plan = serde_json::from_slice(&bytes).map_err(|e| {
        anyhow::anyhow!("{}: line {} column {}: not a fix plan: {e}", p.display(), e.line(), e.column())
    })?;
    plan.validate().map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    Ok(plan)
}

pub fn run(a: FixArgs, select: &SelectArgs, input: &InputArgs, live: &LiveArgs) -> Result<u8> {
    if !matches!(a.output, Output::Table | Output::Json) {
        bail!("fix supports -o table or -o json, not {:?}", a.output);
    }
    let mode = match (a.plan.is_none() && !a.paths.is_empty(), a.apply) {
        (true, true) => bail!(
            "--apply needs the cluster: run `unstuck fix` without a bundle, or save this plan (-o json > plan.json) and run `unstuck fix --plan plan.json --apply`"
        ),
        (true, false) => FixMode::Offline,
        (false, true) => FixMode::Apply,
        (false, false) => FixMode::DryRun,
    };
    // Live planning reads the cluster and then writes to it through the same connection.
    let mut session: Option<Session> = None;
    let plan = match &a.plan {
        Some(p) => {
            if !a.allow.is_empty() {
                bail!("--allow chooses what goes into a new plan; a saved plan ({}) is run as it is", p.display());
            }
            read_plan(p)?
        }
        None => {
            let cfg = select.config()?;
            let opts = ingest_options(input)?;
            let snap = if a.paths.is_empty() {
                session.insert(Session::connect(live, single_namespace(&cfg))?).snapshot(live, &opts, &cfg)?.0
            } else {
                unstuck_ingest::load(&a.paths, &opts)?
            };
            let report = Report::new(&snap, unstuck_rules::diagnose(&snap, &cfg));
            let allow = if a.allow.is_empty() { OpKind::DEFAULT.to_vec() } else { a.allow.clone() };
            let at = Some(report.captured_at.to_string());
            unstuck_rules::fix::plan(&report.findings, &cfg, &allow, &report.input.path, at)
        }
    };
    let (outcomes, audit_path) = if mode == FixMode::Offline || plan.items.is_empty() {
        (Vec::new(), None)
    } else {
        let path = match &a.audit_log {
            Some(p) => p.clone(),
            None => default_audit_log()?,
        };
        let mut audit = AuditLog::open(&path)?;
        let session = match session {
            Some(s) => s,
            None => Session::connect(live, None)?,
        };
        let o = RunOptions { apply: a.apply, confirmed: a.confirm };
        (session.run_plan(&plan, o, &mut audit)?, Some(path.display().to_string()))
    };
    let text = match a.output {
        Output::Json => unstuck_report::fix_json(&plan, &outcomes, mode, audit_path.as_deref()),
        _ => unstuck_report::render_fix(&plan, &outcomes, mode, audit_path.as_deref()),
    };
    crate::cli::emit(&text)?;
    // 0: nothing to do, or everything applied. 1: something is left (a dry run, held or failed items).
    let done = mode == FixMode::Apply && outcomes.iter().all(|o| o.result.ok());
    Ok(if plan.items.is_empty() || done { 0 } else { 1 })
}
