//! The simulated kubelets' log endpoint, as a kubelet serves it behind the node log query API
//! (`/api/v1/nodes/N/proxy/logs/…` on kube-apiserver): `GET /logs/?query=<unit>` returns that unit's
//! journal (here `<unit>.log` of the node's log directory), `GET /logs/<file>` a file, `GET /logs/` a
//! listing. TLS with the lab's kubelet serving certificate; only clients with a certificate from the
//! lab CA (kube-apiserver's `--kubelet-client-certificate`) are served.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

/// TLS settings from the lab directory (`ca.crt`, `kubelet.crt`, `kubelet.key`, made by `ControlPlane::start`).
pub fn tls_config(lab_dir: &Path) -> Result<Arc<rustls::ServerConfig>> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let pem = |name: &str| lab_dir.join(name);
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(pem("ca.crt")).context("ca.crt")? {
        roots.add(c.context("ca.crt")?)?;
    }
    let chain: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(pem("kubelet.crt")).context("kubelet.crt")?.collect::<Result<_, _>>()?;
    let key = PrivateKeyDer::from_pem_file(pem("kubelet.key")).context("kubelet.key")?;
    let verifier =
        rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider.clone()).build()?;
    let cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_client_cert_verifier(verifier)
        .with_single_cert(chain, key)?;
    Ok(Arc::new(cfg))
}

/// A bound endpoint, ready to serve one node's log directory.
pub struct LogEndpoint {
    listener: tokio::net::TcpListener,
    tls: Arc<rustls::ServerConfig>,
    pub addr: SocketAddr,
}

impl LogEndpoint {
    /// Listen on `ip` at a free port.
    pub async fn bind(ip: IpAddr, tls: Arc<rustls::ServerConfig>) -> Result<LogEndpoint> {
        let listener = tokio::net::TcpListener::bind((ip, 0)).await.with_context(|| format!("binding {ip}:0"))?;
        let addr = listener.local_addr()?;
        Ok(LogEndpoint { listener, tls, addr })
    }

    /// Serve `node_dir` until the task is dropped. While `reachable` is false (a lost node) every
    /// connection is dropped unanswered, as a powered-off machine's would time out.
    pub async fn serve(self, node_dir: PathBuf, reachable: Arc<std::sync::atomic::AtomicBool>) {
        let acceptor = tokio_rustls::TlsAcceptor::from(self.tls);
        loop {
            let Ok((tcp, _)) = self.listener.accept().await else { continue };
            if !reachable.load(std::sync::atomic::Ordering::Relaxed) {
                drop(tcp);
                continue;
            }
            let (acceptor, dir) = (acceptor.clone(), node_dir.clone());
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else { return };
                let svc = hyper::service::service_fn(move |req: Request<hyper::body::Incoming>| {
                    let dir = dir.clone();
                    async move { Ok::<_, Infallible>(respond(&dir, &req)) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(tls), svc)
                    .await;
            });
        }
    }
}

fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain"));
    r
}

/// A file name the endpoint may serve: one path component, no hidden files.
fn plain_name(s: &str) -> bool {
    !s.is_empty() && !s.starts_with('.') && s.bytes().all(|c| c.is_ascii_alphanumeric() || b"._-".contains(&c))
}

/// The value of query parameter `k`, as sent (names here need no decoding).
fn param<'r, B>(req: &'r Request<B>, k: &str) -> Option<&'r str> {
    req.uri().query()?.split('&').find_map(|kv| kv.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
}

fn respond<B>(dir: &Path, req: &Request<B>) -> Response<Full<Bytes>> {
    if req.method() != hyper::Method::GET {
        return text(StatusCode::METHOD_NOT_ALLOWED, "only GET\n");
    }
    // The kubelet's container log endpoint behind the API's pods/log, the last `tailLines` lines of the node
    // directory's `containers/<ns>_<pod>_<container>.log` (the previous run, `previous=true`) or
    // `….running.log` (the running container's output: the lab's init containers that wait).
    if let Some(rest) = req.uri().path().strip_prefix("/containerLogs/") {
        let parts: Vec<&str> = rest.split('/').collect();
        let param = |k: &str| param(req, k);
        let [ns, pod, container] = parts[..] else { return text(StatusCode::NOT_FOUND, "404 page not found\n") };
        if ![ns, pod, container].iter().all(|p| plain_name(p)) {
            return text(StatusCode::NOT_FOUND, "404 page not found\n");
        }
        let previous = param("previous") == Some("true");
        let file = dir.join("containers").join(match previous {
            true => format!("{ns}_{pod}_{container}.log"),
            false => format!("{ns}_{pod}_{container}.running.log"),
        });
        return match (previous, std::fs::read_to_string(file)) {
            (_, Ok(t)) => {
                let n: usize = param("tailLines").and_then(|v| v.parse().ok()).unwrap_or(usize::MAX);
                let lines: Vec<&str> = t.lines().collect();
                let tail = lines[lines.len().saturating_sub(n)..].join("\n");
                text(StatusCode::OK, format!("{tail}\n"))
            }
            (true, Err(_)) => text(
                StatusCode::BAD_REQUEST,
                format!("previous terminated container \"{container}\" in pod \"{pod}\" not found\n"),
            ),
            (false, Err(_)) => text(
                StatusCode::BAD_REQUEST,
                format!("container \"{container}\" in pod \"{pod}\" is waiting to start: ContainerCreating\n"),
            ),
        };
    }
    let Some(rest) = req.uri().path().strip_prefix("/logs/") else {
        return text(StatusCode::NOT_FOUND, "404 page not found\n");
    };
    if rest.is_empty() {
        let unit = param(req, "query");
        if let Some(unit) = unit {
            if !plain_name(unit) {
                return text(StatusCode::BAD_REQUEST, "invalid query\n");
            }
            return match std::fs::read(dir.join(format!("{unit}.log"))) {
                Ok(b) => text(StatusCode::OK, b),
                Err(_) => text(StatusCode::OK, "-- No entries --\n"),
            };
        }
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|rd| rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        let links: String = names.iter().map(|n| format!("<a href=\"{n}\">{n}</a>\n")).collect();
        return text(StatusCode::OK, format!("<pre>\n{links}</pre>\n"));
    }
    if !plain_name(rest) {
        return text(StatusCode::NOT_FOUND, "404 page not found\n");
    }
    match std::fs::read(dir.join(rest)) {
        Ok(b) => text(StatusCode::OK, b),
        Err(_) => text(StatusCode::NOT_FOUND, "404 page not found\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(dir: &Path, uri: &str) -> (StatusCode, String) {
        use http_body_util::BodyExt;
        let r = respond(dir, &Request::get(uri).body(()).unwrap());
        let status = r.status();
        let body = block_on(r.into_body().collect());
        (status, String::from_utf8_lossy(&body.unwrap().to_bytes()).into_owned())
    }

    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    #[test]
    fn serves_units_files_and_nothing_outside_the_node_directory() {
        let d = std::env::temp_dir().join(format!("unstuck-logserver-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("kubelet.log"), "kubelet line\n").unwrap();
        std::fs::write(d.join("messages"), "syslog line\n").unwrap();
        assert_eq!(get(&d, "/logs/?query=kubelet"), (StatusCode::OK, "kubelet line\n".into()));
        assert_eq!(get(&d, "/logs/?query=containerd"), (StatusCode::OK, "-- No entries --\n".into()));
        assert_eq!(get(&d, "/logs/messages"), (StatusCode::OK, "syslog line\n".into()));
        assert!(get(&d, "/logs/").1.contains("<a href=\"messages\">"));
        assert_eq!(get(&d, "/logs/syslog").0, StatusCode::NOT_FOUND);
        assert_eq!(get(&d, "/logs/..%2F..%2Fetc%2Fpasswd").0, StatusCode::NOT_FOUND);
        assert_eq!(get(&d, "/logs/../kubelet.log").0, StatusCode::NOT_FOUND);
        std::fs::create_dir_all(d.join("containers")).unwrap();
        std::fs::write(d.join("containers/ns_p_app.log"), "one\ntwo\nthree\n").unwrap();
        assert_eq!(
            get(&d, "/containerLogs/ns/p/app?previous=true&tailLines=2"),
            (StatusCode::OK, "two\nthree\n".into())
        );
        assert_eq!(get(&d, "/containerLogs/ns/p/app").0, StatusCode::BAD_REQUEST, "no running output kept");
        std::fs::write(d.join("containers/ns_p_init.running.log"), "waiting for db\nwaiting for db\n").unwrap();
        assert_eq!(get(&d, "/containerLogs/ns/p/init?tailLines=1"), (StatusCode::OK, "waiting for db\n".into()));
        assert_eq!(get(&d, "/containerLogs/ns/p/init?previous=true").0, StatusCode::BAD_REQUEST);
        assert_eq!(get(&d, "/containerLogs/ns/p/other?previous=true").0, StatusCode::BAD_REQUEST);
        assert_eq!(get(&d, "/containerLogs/ns/../app?previous=true").0, StatusCode::NOT_FOUND);
        assert_eq!(get(&d, "/logs/?query=../../etc/passwd").0, StatusCode::BAD_REQUEST);
        assert_eq!(get(&d, "/metrics").0, StatusCode::NOT_FOUND);
        let _ = std::fs::remove_dir_all(&d);
    }
}
