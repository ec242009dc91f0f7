//! Carrying out a fix plan (requests built by `unstuck_rules::fix::request`): each operation is one API call, preconditioned on the object's UID and
//! resourceVersion, a server-side dry run unless `apply` is set, and written to an append-only audit
//! log before it is sent and after it is answered.
//!
//! What the audit log holds is built here from the plan alone: the operation, its target's identity,
//! the request line and body (preconditions, finalizer names, a taint), the outcome and the API
//! server's status message. Object bodies, credentials and headers are never written. Server text is
//! kept as sent: JSON escapes it in the log, and the printers clean it for a terminal.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use unstuck_rules::fix::{request, Outcome, Plan, PlanItem, Request, Status};

use crate::{Live, LiveError};

/// The append-only JSON Lines audit log: one line before each request, one after. Created with mode
/// 0600; every line is flushed and synced before the request it announces is sent.
pub struct AuditLog {
    file: File,
    pub path: PathBuf,
    run: String,
}

impl AuditLog {
    pub fn open(path: &Path) -> Result<AuditLog, LiveError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| LiveError::Io(format!("{}: {e}", dir.display())))?;
        }
        let mut o = OpenOptions::new();
        o.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            o.mode(0o600);
        }
        let file = o.open(path).map_err(|e| LiveError::Io(format!("audit log {}: {e}", path.display())))?;
        let now = jiff::Timestamp::now();
        let run = format!("{}-{}", now.as_millisecond(), std::process::id());
        Ok(AuditLog { file, path: path.to_path_buf(), run })
    }

    pub fn write(&mut self, mut entry: Value) -> Result<(), LiveError> {
        if let Value::Object(m) = &mut entry {
            m.insert("time".into(), json!(jiff::Timestamp::now().to_string()));
            m.insert("run".into(), json!(self.run));
        }
        let mut line = serde_json::to_vec(&entry).map_err(|e| LiveError::Io(e.to_string()))?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|_| self.file.sync_data())
            .map_err(|e| LiveError::Io(format!("audit log {}: {e}", self.path.display())))
    }
}

/// How to run a plan.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunOptions {
    /// Make the changes (otherwise a server-side dry run of each).
    pub apply: bool,
    /// The person confirmed every item's `requires`.
    pub confirmed: bool,
}

fn reasons(it: &PlanItem) -> Value {
    json!(it.reasons.iter().map(|r| format!("{} {} (step {})", r.rule, r.finding, r.step)).collect::<Vec<_>>())
}

impl Live {
    /// Who the API server says we are (SelfSubjectReview), for the audit log. `None` where the API is
    /// older than 1.28 or refuses.
    pub async fn whoami(&self) -> Option<String> {
        let body = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
        let req = http::Request::post("/apis/authentication.k8s.io/v1/selfsubjectreviews")
            .header("content-type", "application/json")
            .body(serde_json::to_vec(&body).ok()?)
            .ok()?;
        let text = self.client.request_text(req).await.ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        v["status"]["userInfo"]["username"].as_str().map(str::to_string)
    }

    /// Send one request; map the answer to an outcome.
    pub async fn send(&self, id: u32, r: &Request) -> Outcome {
        self.api_calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let body = serde_json::to_vec(&r.body).unwrap_or_default();
        let req = match http::Request::builder()
            .method(r.method)
            .uri(&r.path)
            .header("content-type", r.content_type)
            .body(body)
        {
            Ok(q) => q,
            Err(e) => return Outcome::unsent(id, Status::Failed, e.to_string()),
        };
        match self.client.request_text(req).await {
            Ok(text) => {
                let v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
                let rv = v["metadata"]["resourceVersion"].as_str().filter(|s| !s.is_empty()).map(str::to_string);
                Outcome {
                    id,
                    result: if r.dry_run { Status::WouldApply } else { Status::Applied },
                    http_status: Some(200),
                    message: String::new(),
                    resource_version: rv,
                }
            }
            Err(kube::Error::Api(s)) => {
                let result = match s.code {
                    404 => Status::AlreadyGone,
                    409 => Status::Conflict,
                    403 => Status::Forbidden,
                    400..=499 => Status::Rejected,
                    _ => Status::Failed,
                };
                Outcome { http_status: Some(s.code), ..Outcome::unsent(id, result, s.message) }
            }
            Err(e) => Outcome::unsent(id, Status::Failed, e.to_string()),
        }
    }

    /// Run a plan in order. Items whose `requires` are not confirmed are held; an item on an object whose
    /// earlier item failed is skipped; a second write to an object we changed ourselves is
    /// preconditioned on the resourceVersion our write returned. Every request is logged before it is
    /// sent and every outcome after. An audit log write failure stops the run before the next request.
    pub async fn run_plan(&self, plan: &Plan, o: RunOptions, audit: &mut AuditLog) -> Result<Vec<Outcome>, LiveError> {
        audit.write(json!({
            "event": "start",
            "dryRun": !o.apply,
            "server": self.server,
            "user": self.whoami().await,
            "planSource": plan.source,
            "items": plan.items.len(),
            "confirmed": o.confirmed,
        }))?;
        let mut rv: HashMap<&str, String> = HashMap::new();
        let mut failed: HashMap<&str, u32> = HashMap::new();
        let mut out = Vec::new();
        for it in &plan.items {
            let t = it.op.target();
            let mut line = json!({
                "id": it.id,
                "op": it.op.kind().as_str(),
                "target": {"kind": t.kind, "namespace": t.namespace, "name": t.name, "uid": t.uid},
                "reasons": reasons(it),
                "dryRun": !o.apply,
            });
            let outcome = if !it.requires.is_empty() && !o.confirmed {
                let why = format!("needs confirmation (--confirm): {}", it.requires.join("; "));
                Outcome::unsent(it.id, Status::Held, why)
            } else if let Some(first) = failed.get(t.uid.as_str()) {
                let why = format!("item {first} on the same object did not succeed");
                Outcome::unsent(it.id, Status::Skipped, why)
            } else {
                let version = rv.get(t.uid.as_str()).unwrap_or(&t.resource_version);
                let req = request(&it.op, version, !o.apply);
                line["event"] = json!("request");
                line["request"] = json!(req);
                audit.write(line.clone())?;
                self.send(it.id, &req).await
            };
            line["event"] = json!("result");
            line.as_object_mut().map(|m| m.remove("request"));
            line["result"] = json!(outcome.result);
            line["httpStatus"] = json!(outcome.http_status);
            if !outcome.message.is_empty() {
                line["message"] = json!(outcome.message);
            }
            if let Some(v) = &outcome.resource_version {
                line["resourceVersion"] = json!(v);
            }
            audit.write(line)?;
            tracing::info!(id = it.id, op = %it.op.describe(), result = outcome.result.as_str(), "fix");
            match outcome.result {
                Status::Applied => {
                    if let Some(v) = &outcome.resource_version {
                        rv.insert(&t.uid, v.clone());
                    }
                }
                Status::Held => {}
                r if !r.ok() => {
                    failed.entry(&t.uid).or_insert(it.id);
                }
                _ => {}
            }
            out.push(outcome);
        }
        let count = |f: fn(Status) -> bool| out.iter().filter(|x| f(x.result)).count();
        audit.write(json!({
            "event": "end",
            "dryRun": !o.apply,
            "ok": count(Status::ok),
            "held": count(|s| s == Status::Held),
            "failed": count(|s| !s.ok() && s != Status::Held),
        }))?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn audit_log_appends_synced_lines_with_mode_0600() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("sub/audit.jsonl");
        let mut a = AuditLog::open(&p).unwrap();
        a.write(json!({"event": "start"})).unwrap();
        drop(a);
        let mut a = AuditLog::open(&p).unwrap();
        a.write(json!({"event": "end"})).unwrap();
        let text = std::fs::read_to_string(&p).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["event"], "start");
        assert!(lines[1]["time"].is_string() && lines[1]["run"].is_string());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }
}
