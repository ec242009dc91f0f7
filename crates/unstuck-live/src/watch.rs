//! Watches: keep a [`Store`] current with one list-then-watch loop per kind, the way a kube-runtime
//! reflector does (LIST, WATCH from its resourceVersion with bookmarks, re-WATCH when the server
//! ends the stream, re-LIST on 410 Gone or an error, with backoff). The store holds slim model
//! objects; `unstuck serve` snapshots it and runs the same rules as every other mode.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::io::{AsyncBufRead, AsyncBufReadExt};
use unstuck_ingest::store::{parse_page, Store, WatchStep};

use crate::{Live, LiveError, LISTS};

/// How long the API server keeps one watch open before we re-watch from the last resourceVersion.
const WATCH_SECONDS: u32 = 240;
/// A watch line longer than this (one object) ends the stream with an error instead of growing a buffer.
pub const MAX_WATCH_LINE: usize = 64 << 20;
/// Kinds that could not be listed (forbidden, not served) are tried again this often.
const RETRY_FAILED: Duration = Duration::from_secs(300);

/// Counters a watch keeps, read by whoever reports on it (`/metrics`).
#[derive(Debug, Default)]
pub struct WatchStats {
    /// (kind, event type) → events applied.
    pub events: Mutex<BTreeMap<(&'static str, &'static str), u64>>,
    /// (kind, reason) → lists started again.
    pub relists: Mutex<BTreeMap<(&'static str, &'static str), u64>>,
    /// The last error per kind, cleared by a successful list.
    pub last_error: Mutex<BTreeMap<&'static str, String>>,
}

impl WatchStats {
    fn event(&self, stem: &'static str, ty: &'static str) {
        *lock(&self.events).entry((stem, ty)).or_insert(0) += 1;
    }
    fn relist(&self, stem: &'static str, reason: &'static str) {
        *lock(&self.relists).entry((stem, reason)).or_insert(0) += 1;
    }
    /// A failed list or watch. Said once per new error: while the API server is down every kind retries
    /// with backoff and fails the same way, which is only worth a debug line after the first.
    fn error(&self, stem: &'static str, e: String) {
        let mut last = lock(&self.last_error);
        if last.get(stem) == Some(&e) {
            tracing::debug!(kind = stem, "watch (again): {e}");
        } else {
            tracing::warn!(kind = stem, "watch: {e}");
        }
        last.insert(stem, e);
    }
    /// A successful list: the kind's last error is over (said if there was one).
    fn recovered(&self, stem: &'static str) {
        if lock(&self.last_error).remove(stem).is_some() {
            tracing::info!(kind = stem, "watch: listed again after errors");
        }
    }
}

/// A mutex whose holder panicked still holds consistent data here (every update is one insert).
pub fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// What the watch loops share with the evaluator.
pub struct Shared {
    pub store: Mutex<Store>,
    /// Signalled after every change to the store.
    pub changed: tokio::sync::Notify,
    pub stats: WatchStats,
}

impl Shared {
    /// `slim`: keep settled pods slimmed (`Options::slim`, what diagnosis reads).
    pub fn new(slim: bool) -> Shared {
        Shared {
            store: Mutex::new(if slim { Store::slimming() } else { Store::new() }),
            changed: tokio::sync::Notify::new(),
            stats: WatchStats::default(),
        }
    }
}

enum End {
    /// The server closed the stream (timeoutSeconds): watch again from the last resourceVersion.
    Closed,
    /// 410 Gone: the resourceVersion is too old, list again.
    Expired,
}

/// The `resourceVersion` of a list page (ListMeta comes before the items).
pub fn list_resource_version(page: &[u8]) -> Option<String> {
    let head = &page[..page.len().min(8192)];
    let key = b"\"resourceVersion\":\"";
    let i = head.windows(key.len()).position(|w| w == key)? + key.len();
    let end = head[i..].iter().position(|&c| c == b'"')?;
    let rv = std::str::from_utf8(&head[i..i + end]).ok()?;
    (!rv.is_empty()).then(|| rv.to_string())
}

/// Start one list-and-watch loop per kind; they run until the runtime stops.
pub fn spawn_all(live: Arc<Live>, shared: Arc<Shared>) {
    for k in LISTS {
        tokio::spawn(run_kind(live.clone(), shared.clone(), k));
    }
}

async fn run_kind(
    live: Arc<Live>,
    shared: Arc<Shared>,
    k: &'static (&'static str, &'static str, &'static str, &'static str),
) {
    let (stem, cluster, namespaced, resource) = *k;
    let path = live.list_path(cluster, namespaced);
    let source = format!("{}{path}", live.server.trim_end_matches('/'));
    let mut backoff = Duration::from_secs(1);
    loop {
        match list(&live, &path, resource, stem, &source).await {
            Ok((objs, rv)) => {
                let r = lock(&shared.store).replace(stem, objs, rv);
                if let Err(e) = r {
                    shared.stats.error(stem, e.to_string());
                }
                shared.stats.recovered(stem);
                shared.changed.notify_one();
                backoff = Duration::from_secs(1);
            }
            Err(e @ (LiveError::Forbidden { .. } | LiveError::Api { status: Some(403 | 404), .. })) => {
                let _ = lock(&shared.store).fail(stem, e.to_string());
                shared.stats.error(stem, e.to_string());
                shared.changed.notify_one();
                tokio::time::sleep(RETRY_FAILED).await;
                shared.stats.relist(stem, "forbidden");
                continue;
            }
            Err(e) => {
                shared.stats.error(stem, e.to_string());
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(60));
                shared.stats.relist(stem, "list-error");
                continue;
            }
        }
        loop {
            let rv = lock(&shared.store).resource_version(stem).to_string();
            match watch(&live, &shared, &path, stem, &source, &rv).await {
                Ok(End::Closed) => continue,
                Ok(End::Expired) => {
                    shared.stats.relist(stem, "expired");
                    break;
                }
                Err(e) => {
                    shared.stats.error(stem, e.to_string());
                    shared.stats.relist(stem, "watch-error");
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(Duration::from_secs(60));
                    break;
                }
            }
        }
    }
}

async fn list(
    live: &Live,
    path: &str,
    resource: &str,
    stem: &str,
    source: &str,
) -> Result<(Vec<unstuck_ingest::store::Object>, String), LiveError> {
    let mut objs = Vec::new();
    let mut rv = None;
    live.list_pages(path, resource, |page| {
        if rv.is_none() {
            rv = list_resource_version(page);
        }
        objs.extend(parse_page(stem, source, page)?);
        Ok(())
    })
    .await?;
    let rv = rv.ok_or_else(|| LiveError::Api {
        path: path.into(),
        message: "list without a resourceVersion: cannot watch from it".into(),
        status: None,
    })?;
    Ok((objs, rv))
}

async fn watch(
    live: &Live,
    shared: &Shared,
    path: &str,
    stem: &'static str,
    source: &str,
    rv: &str,
) -> Result<End, LiveError> {
    let sep = if path.contains('?') { '&' } else { '?' };
    let url = format!(
        "{path}{sep}watch=1&allowWatchBookmarks=true&timeoutSeconds={WATCH_SECONDS}&resourceVersion={}",
        unstuck_rules::fix::url_component(rv)
    );
    let io = |e: String| LiveError::Api { path: url.clone(), message: e, status: None };
    let req = http::Request::get(&url)
        .header(http::header::ACCEPT_ENCODING, "identity")
        .body(Vec::new())
        .map_err(|e| io(e.to_string()))?;
    live.api_calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stream = live.client().request_stream(req).await.map_err(|e| match e {
        kube::Error::Api(s) => LiveError::Api { path: url.clone(), message: s.message.clone(), status: Some(s.code) },
        e => io(e.to_string()),
    })?;
    let mut stream = std::pin::pin!(stream);
    let mut line = Vec::new();
    let mut n = 0u64;
    loop {
        match next_line(&mut stream, &mut line, MAX_WATCH_LINE).await {
            Ok(false) => return Ok(End::Closed),
            Ok(true) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(End::Closed),
            Err(e) => return Err(io(e.to_string())),
        }
        n += 1;
        live.bytes.fetch_add(line.len() as u64, std::sync::atomic::Ordering::Relaxed);
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        let step = lock(&shared.store).apply_watch_line(stem, &format!("{source} (watch line {n})"), &line);
        match step {
            Ok(WatchStep::Changed(ty)) => {
                shared.stats.event(stem, ty);
                // Lease renewals (every node, every 10 s) change nothing a rule sees until they stop,
                // and stopping is seen by time passing: the periodic evaluation covers them.
                if stem != "leases" {
                    shared.changed.notify_one();
                }
            }
            Ok(WatchStep::Bookmark) => shared.stats.event(stem, "BOOKMARK"),
            Ok(WatchStep::Expired) => return Ok(End::Expired),
            Ok(WatchStep::Failed(m)) => return Err(io(m)),
            Err(e) => return Err(io(e.to_string())),
        }
    }
}

/// Read one `\n`-terminated line into `buf` (without the newline), refusing lines over `max` bytes.
/// `Ok(false)` at the end of the stream.
pub async fn next_line<R: AsyncBufRead + Unpin>(r: &mut R, buf: &mut Vec<u8>, max: usize) -> std::io::Result<bool> {
    buf.clear();
    loop {
        let avail = r.fill_buf().await?;
        if avail.is_empty() {
            return Ok(!buf.is_empty());
        }
        let (take, done) = match memchr::memchr(b'\n', avail) {
            Some(i) => (i, true),
            None => (avail.len(), false),
        };
        if buf.len() + take > max {
            return Err(std::io::Error::other(format!("a watch line is over {max} bytes")));
        }
        buf.extend_from_slice(&avail[..take]);
        r.consume_unpin(take + usize::from(done));
        if done {
            return Ok(true);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_versions() {
        assert_eq!(
            list_resource_version(
                br#"{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"4711"},"items":[]}"#
            )
            .as_deref(),
            Some("4711")
        );
        assert_eq!(list_resource_version(br#"{"kind":"PodList","metadata":{},"items":[]}"#), None);
    }

    #[tokio::test]
    async fn lines_are_split_and_capped() {
        {
            let data = b"{\"a\":1}\n\n{\"b\":2}\npartial";
            let mut r = futures::io::BufReader::with_capacity(3, &data[..]);
            let mut buf = Vec::new();
            let mut got = Vec::new();
            while next_line(&mut r, &mut buf, 100).await.unwrap() {
                got.push(String::from_utf8(buf.clone()).unwrap());
            }
            assert_eq!(got, ["{\"a\":1}", "", "{\"b\":2}", "partial"]);
            let long = vec![b'x'; 1000];
            let mut r = futures::io::BufReader::with_capacity(64, &long[..]);
            let e = next_line(&mut r, &mut buf, 100).await.unwrap_err();
            assert!(e.to_string().contains("over 100 bytes"), "{e}");
        }
    }
}
