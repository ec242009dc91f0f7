//! HTTPS for `unstuck serve`: the certificate and key from PEM files (as mounted from a Secret),
//! re-read when they change so a rotated certificate is used without a restart; without files, a
//! self-signed certificate made at start.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context, Result};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::server::TlsStream;
use tokio_rustls::TlsAcceptor;

/// How often a handshake may look at the files again (a stat of each; they are read only when changed).
const RECHECK: Duration = Duration::from_secs(2);
/// A client that does not finish its handshake in this time is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// What identifies a version of a file: a Secret volume swaps a symlink, so the target's
/// inode, size and modification time all change.
type Stamp = Option<(SystemTime, u64, u64)>;

fn stamp(p: &Path) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len(), m.ino()))
}

/// Read a PEM certificate chain and private key; errors name the file.
pub fn load_pem(cert: &Path, key: &Path) -> Result<CertifiedKey> {
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .with_context(|| format!("--tls-cert-file {}: cannot read", cert.display()))?
        .collect::<Result<_, _>>()
        .with_context(|| format!("--tls-cert-file {}: not a PEM certificate", cert.display()))?;
    if chain.is_empty() {
        bail!("--tls-cert-file {}: no CERTIFICATE block in the file", cert.display());
    }
    let der = PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("--tls-private-key-file {}: no readable PEM private key", key.display()))?;
    let signing = rustls::crypto::ring::sign::any_supported_type(&der)
        .with_context(|| format!("--tls-private-key-file {}: unsupported key type", key.display()))?;
    let ck = CertifiedKey::new(chain, signing);
    ck.keys_match().with_context(|| {
        format!("--tls-private-key-file {} does not belong to --tls-cert-file {}", key.display(), cert.display())
    })?;
    Ok(ck)
}

/// A self-signed certificate for the host name and localhost.
pub fn self_signed() -> Result<CertifiedKey> {
    let mut names = vec!["localhost".to_string(), "127.0.0.1".to_string(), "::1".to_string()];
    if let Ok(h) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        let h = h.trim();
        if !h.is_empty() && h != "localhost" {
            names.insert(0, h.to_string());
        }
    }
    let c = rcgen::generate_simple_self_signed(names).context("generating a self-signed certificate")?;
    let der =
        PrivateKeyDer::try_from(c.signing_key.serialize_der()).map_err(|e| anyhow::anyhow!("self-signed key: {e}"))?;
    let signing = rustls::crypto::ring::sign::any_supported_type(&der).context("self-signed key")?;
    Ok(CertifiedKey::new(vec![c.cert.der().clone()], signing))
}

struct Current {
    key: Arc<CertifiedKey>,
    stamps: (Stamp, Stamp),
    checked: Instant,
}

/// Serves the certificate of the files, reloading them when they change; a broken new version is
/// reported once and the previous certificate kept.
#[derive(Debug)]
pub struct Reloading {
    cert: PathBuf,
    key: PathBuf,
    current: Mutex<CurrentBox>,
    recheck: Duration,
}

/// `Current` behind a Debug that does not print key material.
struct CurrentBox(Current);
impl std::fmt::Debug for CurrentBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CertifiedKey")
    }
}

impl Reloading {
    pub fn new(cert: PathBuf, key: PathBuf) -> Result<Reloading> {
        let stamps = (stamp(&cert), stamp(&key));
        let k = load_pem(&cert, &key)?;
        Ok(Reloading {
            cert,
            key,
            current: Mutex::new(CurrentBox(Current { key: Arc::new(k), stamps, checked: Instant::now() })),
            recheck: RECHECK,
        })
    }

    /// The certificate to present now (re-reading the files if they changed).
    pub fn get(&self) -> Arc<CertifiedKey> {
        let mut g = self.current.lock().unwrap_or_else(|p| p.into_inner());
        let c = &mut g.0;
        if c.checked.elapsed() >= self.recheck {
            c.checked = Instant::now();
            let now = (stamp(&self.cert), stamp(&self.key));
            if now != c.stamps {
                c.stamps = now;
                match load_pem(&self.cert, &self.key) {
                    Ok(k) => {
                        c.key = Arc::new(k);
                        eprintln!("unstuck serve: TLS certificate reloaded from {}", self.cert.display());
                    }
                    // Mid-rotation the two files may briefly not match: the next change is tried again.
                    Err(e) => eprintln!("unstuck serve: keeping the previous TLS certificate: {e:#}"),
                }
            }
        }
        c.key.clone()
    }
}

#[derive(Debug)]
enum Source {
    Files(Reloading),
    Fixed(Arc<CertifiedKey>),
}

impl ResolvesServerCert for Source {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(match self {
            Source::Files(r) => r.get(),
            Source::Fixed(k) => k.clone(),
        })
    }
}

/// The server TLS configuration: from the files when given, else self-signed (with a warning).
pub fn server_config(cert: Option<PathBuf>, key: Option<PathBuf>) -> Result<Arc<rustls::ServerConfig>> {
    let source = match (cert, key) {
        (Some(c), Some(k)) => Source::Files(Reloading::new(c, k)?),
        (None, None) => {
            eprintln!(
                "unstuck serve: warning: no --tls-cert-file/--tls-private-key-file; serving HTTPS with a self-signed certificate made at start (clients must skip verification or pin it)"
            );
            Source::Fixed(Arc::new(self_signed()?))
        }
        _ => bail!("--tls-cert-file and --tls-private-key-file go together"),
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut cfg = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .context("TLS configuration")?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(source));
    cfg.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(cfg))
}

/// A listener for `axum::serve` that hands over connections after their TLS handshake. Handshakes
/// run in their own tasks, so a slow or silent client does not hold up the others.
pub struct TlsListener {
    rx: mpsc::Receiver<(TlsStream<TcpStream>, std::net::SocketAddr)>,
    addr: std::net::SocketAddr,
}

impl TlsListener {
    pub fn new(tcp: TcpListener, cfg: Arc<rustls::ServerConfig>) -> std::io::Result<TlsListener> {
        let addr = tcp.local_addr()?;
        let (tx, rx) = mpsc::channel(64);
        let acceptor = TlsAcceptor::from(cfg);
        tokio::spawn(async move {
            loop {
                let (sock, peer) = match tcp.accept().await {
                    Ok(x) => x,
                    Err(_) => {
                        // Out of file descriptors and the like: wait instead of spinning.
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let (acceptor, tx) = (acceptor.clone(), tx.clone());
                tokio::spawn(async move {
                    if let Ok(Ok(tls)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(sock)).await {
                        let _ = tx.send((tls, peer)).await;
                    }
                });
            }
        });
        Ok(TlsListener { rx, addr })
    }
}

impl axum::serve::Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.rx.recv().await {
            Some(x) => x,
            // The accept task never ends while the listener lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        Ok(self.addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh self-signed pair as PEM: (certificate, key).
    fn pair(name: &str) -> (String, String) {
        let c = rcgen::generate_simple_self_signed(vec![name.to_string()]).unwrap();
        (c.cert.pem(), c.signing_key.serialize_pem())
    }

    fn der(k: &CertifiedKey) -> Vec<u8> {
        k.cert[0].as_ref().to_vec()
    }

    #[test]
    fn bad_files_are_named() {
        let d = tempfile::tempdir().unwrap();
        let (c1, k1) = pair("one");
        let (_, k2) = pair("two");
        let (cert, key, other) = (d.path().join("tls.crt"), d.path().join("tls.key"), d.path().join("other.key"));
        std::fs::write(&cert, &c1).unwrap();
        std::fs::write(&key, &k1).unwrap();
        std::fs::write(&other, &k2).unwrap();
        assert!(load_pem(&cert, &key).is_ok());
        let e = format!("{:#}", load_pem(&cert, &other).unwrap_err());
        assert!(e.contains("other.key") && e.contains("does not belong"), "{e}");
        let e = format!("{:#}", load_pem(&key, &key).unwrap_err());
        assert!(e.contains("--tls-cert-file") && e.contains("tls.key"), "{e}");
        let e = format!("{:#}", load_pem(&cert, &cert).unwrap_err());
        assert!(e.contains("--tls-private-key-file") && e.contains("tls.crt"), "{e}");
        let e = format!("{:#}", load_pem(&d.path().join("missing.crt"), &key).unwrap_err());
        assert!(e.contains("missing.crt"), "{e}");
    }

    #[test]
    fn rotation_is_picked_up_and_a_broken_version_keeps_the_old_one() {
        let d = tempfile::tempdir().unwrap();
        let (cert, key) = (d.path().join("tls.crt"), d.path().join("tls.key"));
        let (c1, k1) = pair("one");
        std::fs::write(&cert, &c1).unwrap();
        std::fs::write(&key, &k1).unwrap();
        let mut r = Reloading::new(cert.clone(), key.clone()).unwrap();
        r.recheck = Duration::ZERO;
        let first = der(&r.get());
        // Half a rotation: a new certificate next to the old key. Refused; the old pair stays.
        let (c2, k2) = pair("two");
        std::fs::write(d.path().join("new.crt"), &c2).unwrap();
        std::fs::rename(d.path().join("new.crt"), &cert).unwrap();
        assert_eq!(der(&r.get()), first);
        // The key follows: the new pair is served.
        std::fs::write(d.path().join("new.key"), &k2).unwrap();
        std::fs::rename(d.path().join("new.key"), &key).unwrap();
        let second = der(&r.get());
        assert_ne!(second, first);
        assert_eq!(second, CertificateDer::from_pem_slice(c2.as_bytes()).unwrap().as_ref());
        // Unchanged files: the same certificate, not re-read.
        assert!(Arc::ptr_eq(&r.get(), &r.get()));
    }

    #[test]
    fn self_signed_is_usable() {
        let k = self_signed().unwrap();
        k.keys_match().unwrap();
        assert!(server_config(None, None).is_ok());
        assert!(server_config(Some("/a".into()), None).is_err());
    }
}
