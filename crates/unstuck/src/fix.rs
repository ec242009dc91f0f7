//! `unstuck fix`: plan from the findings (or read a saved plan), then a server-side dry run or the
//! changes themselves, every request in the audit log.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use unstuck_live::apply::{AuditLog, RunOptions};
use unstuck_report::{FixMode, Report};
use unstuck_rules::fix::{OpKind, Plan};

use crate::cli::{ingest_options, InputArgs, LiveArgs, Output, SelectArgs};

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

fn read_plan(p: &std::path::Path) -> Result<Plan> {
    let bytes = std::fs::read(p).with_context(|| format!("{}", p.display()))?;
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
    let offline = a.plan.is_none() && !a.paths.is_empty();
    if offline && a.apply {
        bail!(
            "--apply needs the cluster: run `unstuck fix` without a bundle, or save this plan (-o json > plan.json) and run `unstuck fix --plan plan.json --apply`"
        );
    }
    let plan = match &a.plan {
        Some(p) => {
            let plan = read_plan(p)?;
            if !a.allow.is_empty() {
                bail!("--allow chooses what goes into a new plan; a saved plan ({}) is run as it is", p.display());
            }
            plan
        }
        None => {
            let cfg = select.config()?;
            let opts = ingest_options(input)?;
            let snap = if a.paths.is_empty() {
                let ns = if cfg.namespaces.len() == 1 { cfg.namespaces.first().cloned() } else { None };
                crate::live::snapshot(live, ns, &opts, &cfg)?
            } else {
                unstuck_ingest::load(&a.paths, &opts)?
            };
            let report = Report::new(&snap, unstuck_rules::diagnose(&snap, &cfg));
            // With -n or -l, a cluster-wide finding (a node) only counts through pods that were selected:
            // `fix -n shop` must not cordon a node because of another namespace's pods.
            let findings: Vec<_> = report
                .findings
                .iter()
                .filter(|f| {
                    !f.subject.namespace.is_empty()
                        || cfg.selector.is_empty()
                            && (cfg.namespaces.is_empty()
                                || f.pods.iter().any(|p| cfg.namespaces.contains(&p.namespace)))
                })
                .cloned()
                .collect();
            let allow = if a.allow.is_empty() { OpKind::DEFAULT.to_vec() } else { a.allow.clone() };
            unstuck_rules::fix::plan(&findings, &allow, &report.input.path, Some(report.captured_at.to_string()))
        }
    };
    let (mode, outcomes, audit_path) = if offline {
        (FixMode::Offline, Vec::new(), None)
    } else if plan.items.is_empty() {
        (if a.apply { FixMode::Apply } else { FixMode::DryRun }, Vec::new(), None)
    } else {
        let path = match &a.audit_log {
            Some(p) => p.clone(),
            None => default_audit_log()?,
        };
        let mut audit = AuditLog::open(&path)?;
        let o = RunOptions { apply: a.apply, confirmed: a.confirm };
        let (_, outcomes) = crate::live::run_plan(live, &plan, o, &mut audit)?;
        (if a.apply { FixMode::Apply } else { FixMode::DryRun }, outcomes, Some(path.display().to_string()))
    };
    let text = match a.output {
        Output::Json => unstuck_report::fix_json(&plan, &outcomes, mode, audit_path.as_deref()),
        _ => unstuck_report::render_fix(&plan, &outcomes, mode, audit_path.as_deref()),
    };
    crate::cli::emit(&text)?;
    // 0: nothing to do, or everything applied. 1: something is left (a dry run, held or failed items).
    let done = mode == FixMode::Apply && outcomes.iter().all(|o| o.result.ok());
    let code = if plan.items.is_empty() || done { 0 } else { 1 };
    Ok(code)
}
