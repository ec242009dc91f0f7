//! `unstuck serve` as deployed, against the lab's real kube-apiserver (RBAC, service-account
//! tokens): HTTPS, bearer tokens checked by TokenReview + SubjectAccessReview, and two replicas
//! with --leader-elect of which only the leader exports the finding series, with failover after
//! SIGKILL and certificate rotation without restart.
//!
//! Needs the control-plane binaries and curl/openssl (as lab_e2e.rs): `scripts/test.sh` runs it with
//! UNSTUCK_LAB_BIN set. Every process is killed when the test ends, pass or fail.

mod common;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::*;
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Api, PostParams};
use unstuck_lab::{scenarios, ControlPlane, LabConfig, SimKubelet};

/// One `unstuck serve` process; killed when dropped.
struct Serve {
    child: Child,
    addr: String,
    name: &'static str,
    log: Arc<Mutex<Vec<String>>>,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Serve {
    fn start(name: &'static str, kubeconfig: &Path, extra: &[&str]) -> Serve {
        use std::io::BufRead;
        let mut child = Command::new(bin())
            .args(["serve", "--kubeconfig", kubeconfig.to_str().unwrap(), "--no-logs", "--stuck-after", "1s"])
            .args(["--interval", "2s", "--listen", "127.0.0.1:0"])
            .args(extra)
            .env("POD_NAME", name)
            .stderr(Stdio::piped())
            .spawn()
            .expect("unstuck serve starts");
        let stderr = child.stderr.take().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let l = log.clone();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                eprintln!("[{name}] {line}");
                if let Some(i) = line.find("listening on https://") {
                    let rest = &line[i + "listening on https://".len()..];
                    let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
                }
                l.lock().unwrap().push(line);
            }
        });
        let addr = rx.recv_timeout(Duration::from_secs(30)).expect("serve prints its https address");
        Serve { child, addr, name, log }
    }

    fn logged(&self, what: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(what))
    }
}

/// A TCP forwarder to the API server that can be cut: every connection closed, new ones refused.
struct Proxy {
    addr: String,
    cut: Arc<std::sync::atomic::AtomicBool>,
    conns: Arc<Mutex<Vec<std::net::TcpStream>>>,
}

impl Proxy {
    fn start(server: &str) -> Proxy {
        use std::sync::atomic::Ordering;
        let upstream = server.trim_start_matches("https://").trim_end_matches('/').to_string();
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let cut = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let conns: Arc<Mutex<Vec<std::net::TcpStream>>> = Arc::default();
        let (c, cs) = (cut.clone(), conns.clone());
        std::thread::spawn(move || {
            for down in l.incoming().flatten() {
                if c.load(Ordering::SeqCst) {
                    continue; // dropped: the client sees the connection closed
                }
                let Ok(up) = std::net::TcpStream::connect(&upstream) else { continue };
                let mut g = cs.lock().unwrap();
                g.push(down.try_clone().unwrap());
                g.push(up.try_clone().unwrap());
                drop(g);
                for (mut a, mut b) in [(down.try_clone().unwrap(), up.try_clone().unwrap()), (up, down)] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut a, &mut b);
                        let _ = b.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        Proxy { addr, cut, conns }
    }

    fn cut(&self) {
        self.cut.store(true, std::sync::atomic::Ordering::SeqCst);
        for s in self.conns.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
    }
}

/// GET over HTTPS with curl: (status, body); status 0 when no HTTP answer (e.g. TLS refused).
/// `ca`: verify the server against this CA file; None: accept the self-signed certificate (-k).
fn get(addr: &str, path: &str, token: Option<&str>, ca: Option<&Path>) -> (u16, String) {
    let mut c = Command::new("curl");
    c.args(["-sS", "--max-time", "10", "-o", "-", "-w", "\n%{http_code}"]);
    match ca {
        Some(ca) => c.arg("--cacert").arg(ca),
        None => c.arg("-k"),
    };
    if let Some(t) = token {
        c.arg("-H").arg(format!("Authorization: Bearer {t}"));
    }
    let out = c.arg(format!("https://{addr}{path}")).output().expect("curl runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (body, code) = text.rsplit_once('\n').unwrap_or(("", &text));
    (code.trim().parse().unwrap_or(0), body.to_string())
}

fn until(what: &str, limit: Duration, mut f: impl FnMut() -> bool) -> Duration {
    let start = Instant::now();
    while start.elapsed() < limit {
        if f() {
            return start.elapsed();
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    panic!("timed out after {limit:?} waiting for {what}");
}

/// The value of an unlabelled sample, e.g. `unstuck_leader`.
fn sample(metrics: &str, name: &str) -> Option<f64> {
    metrics.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
}

/// The lines of the alert-facing series (the finding gauges).
fn finding_series(metrics: &str) -> Vec<&str> {
    metrics.lines().filter(|l| l.starts_with("unstuck_stuck_seconds{") || l.starts_with("unstuck_findings{")).collect()
}

/// A JWT with one character in the middle of its payload (the claims) replaced.
fn tamper(jwt: &str) -> String {
    let start = jwt.find('.').expect("a JWT") + 1;
    let end = start + jwt[start..].find('.').expect("a JWT");
    let i = (start + end) / 2;
    let c = if &jwt[i..i + 1] == "A" { "B" } else { "A" };
    format!("{}{c}{}", &jwt[..i], &jwt[i + 1..])
}

const HOLDER: &str = "rule=\"finalizer-blocked\"";

/// The finding's own series (not the per-rule count, which reads 0 when there is none).
fn holds(metrics: &str) -> bool {
    metrics.lines().any(|l| l.starts_with("unstuck_stuck_seconds{") && l.contains(HOLDER))
}

fn openssl(args: &[&str]) {
    let out = Command::new("openssl").args(args).output().expect("openssl runs");
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// A self-made certificate for 127.0.0.1 (it is its own CA): (cert, key).
fn make_cert(dir: &Path, stem: &str) -> (PathBuf, PathBuf) {
    let (c, k) = (dir.join(format!("{stem}.crt")), dir.join(format!("{stem}.key")));
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        &format!("/CN=unstuck-{stem}"),
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        k.to_str().unwrap(),
        "-out",
        c.to_str().unwrap(),
    ]);
    (c, k)
}

async fn token(client: &kube::Client, ns: &str, sa: &str) -> String {
    let api: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
    let req = TokenRequest {
        spec: TokenRequestSpec { audiences: vec![], expiration_seconds: Some(3600), ..Default::default() },
        ..Default::default()
    };
    let out: TokenRequest = api
        .create_subresource("token", sa, &PostParams::default(), &req)
        .await
        .unwrap_or_else(|e| panic!("TokenRequest for {ns}/{sa}: {e}"));
    out.status.expect("token status").token
}

async fn setup_access(client: &kube::Client) -> (String, String) {
    let pp = PostParams::default();
    let ns: Namespace = serde_json::from_value(serde_json::json!({"metadata": {"name": "monitoring"}})).unwrap();
    Api::<Namespace>::all(client.clone()).create(&pp, &ns).await.unwrap();
    for sa in ["prometheus", "nobody"] {
        let s: ServiceAccount = serde_json::from_value(serde_json::json!({"metadata": {"name": sa}})).unwrap();
        Api::<ServiceAccount>::namespaced(client.clone(), "monitoring").create(&pp, &s).await.unwrap();
    }
    // The shipped reader ClusterRoles, bound to prometheus only.
    let text = std::fs::read_to_string(root().join("deploy/rbac-reader.yaml")).unwrap();
    for doc in text.split("\n---\n") {
        let role: ClusterRole = serde_yaml_ng::from_str(doc).unwrap();
        Api::<ClusterRole>::all(client.clone()).create(&pp, &role).await.unwrap();
    }
    let binding: ClusterRoleBinding = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "unstuck-reader-prometheus"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "unstuck-reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "prometheus", "namespace": "monitoring"}]
    }))
    .unwrap();
    Api::<ClusterRoleBinding>::all(client.clone()).create(&pp, &binding).await.unwrap();
    (token(client, "monitoring", "prometheus").await, token(client, "monitoring", "nobody").await)
}

#[test]
#[ignore = "needs the lab binaries; scripts/test.sh runs it with UNSTUCK_LAB_BIN set"]
fn serve_authenticated_tls_and_leader_failover() {
    let bin = std::env::var("UNSTUCK_LAB_BIN")
        .expect("UNSTUCK_LAB_BIN: directory with etcd, kube-apiserver, kube-controller-manager, kube-scheduler");
    let tmp = tempfile::tempdir().unwrap();
    let cfg = LabConfig::new(&bin, tmp.path().join("lab"));
    let mut cp = ControlPlane::start(&cfg).expect("control plane starts");
    let logs = tmp.path().join("lab/nodes");
    std::fs::create_dir_all(&logs).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let client = rt.block_on(async {
        let kc = kube::config::Kubeconfig::read_from(&cp.kubeconfig).unwrap();
        kube::Client::try_from(kube::Config::from_custom_kubeconfig(kc, &Default::default()).await.unwrap()).unwrap()
    });
    for n in scenarios::nodes() {
        rt.spawn(SimKubelet::new(client.clone(), n, logs.clone()).run());
    }
    rt.block_on(scenarios::apply(&client, "finalizer-blocked")).expect("scenario finalizer-blocked");
    let (prom, nobody) = rt.block_on(setup_access(&client));
    let kc = cp.kubeconfig.clone();
    let kc = kc.as_path();

    // 1. One replica, self-signed certificate, tokens checked by the API server.
    let a = Serve::start("serve-a", kc, &[]);
    assert!(a.logged("self-signed certificate"), "no warning about the self-signed certificate");
    until("/readyz (open, no token)", Duration::from_secs(90), || get(&a.addr, "/readyz", None, None).0 == 200);
    until("the finding on /metrics", Duration::from_secs(60), || holds(&get(&a.addr, "/metrics", Some(&prom), None).1));
    assert_eq!(get(&a.addr, "/healthz", None, None), (200, "ok\n".to_string()));
    for path in ["/metrics", "/findings", "/"] {
        let (code, body) = get(&a.addr, path, None, None);
        assert_eq!(code, 401, "{path} without a token: {body}");
        assert!(!body.contains("finalizer"), "{path}: a refusal leaks findings: {body}");
        assert_eq!(get(&a.addr, path, Some("not-a-token"), None).0, 401, "{path} with a garbage token");
        // The real token with one character of its claims changed: the signature no longer holds.
        let forged = tamper(&prom);
        assert_eq!(get(&a.addr, path, Some(&forged), None).0, 401, "{path} with a tampered token");
        let (code, body) = get(&a.addr, path, Some(&nobody), None);
        assert_eq!(code, 403, "{path} as monitoring:nobody: {body}");
        assert!(!body.contains("finalizer"), "{path}: a refusal leaks findings: {body}");
        assert_eq!(get(&a.addr, path, Some(&prom), None).0, 200, "{path} as monitoring:prometheus");
    }
    let (_, metrics) = get(&a.addr, "/metrics", Some(&prom), None);
    assert_eq!(sample(&metrics, "unstuck_leader"), Some(1.0), "a lone replica is the leader:\n{metrics}");
    // Between full evaluations, watch changes (the kubelets' status updates) are evaluated incrementally.
    until("an incremental evaluation", Duration::from_secs(60), || {
        sample(&get(&a.addr, "/metrics", Some(&prom), None).1, "unstuck_incremental_evaluations_total")
            .is_some_and(|n| n > 0.0)
    });
    let (_, findings) = get(&a.addr, "/findings", Some(&prom), None);
    let v: serde_json::Value = serde_json::from_str(&findings).expect("/findings is JSON");
    assert!(
        v["findings"].as_array().unwrap().iter().any(|f| f["rule"] == "finalizer-blocked"),
        "finalizer-blocked in /findings: {findings}"
    );
    // Plain HTTP is not served on the TLS port.
    let out = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", &format!("http://{}/metrics", a.addr)])
        .output()
        .unwrap();
    assert_ne!(String::from_utf8_lossy(&out.stdout), "200", "plain HTTP answered on the TLS port");
    println!("serve: 401 without/garbage/tampered token, 403 for nobody, 200 for prometheus; /healthz /readyz open");
    drop(a);

    // 2. Two replicas with --leader-elect and certificate files: exactly one exports the finding series.
    let certs = tmp.path().join("certs");
    std::fs::create_dir_all(&certs).unwrap();
    let (c1, k1) = make_cert(&certs, "one");
    let (c2, k2) = make_cert(&certs, "two");
    let mut replicas = Vec::new();
    for name in ["serve-b", "serve-c"] {
        // Each replica its own copy of the files (as its own Secret volume): the rotation below changes one.
        let (c, k) = (certs.join(format!("{name}.crt")), certs.join(format!("{name}.key")));
        std::fs::copy(&c1, &c).unwrap();
        std::fs::copy(&k1, &k).unwrap();
        let flags = [
            "--leader-elect",
            "--leader-elect-namespace",
            "monitoring",
            "--leader-elect-lease-duration",
            "6s",
            "--tls-cert-file",
            c.to_str().unwrap(),
            "--tls-private-key-file",
            k.to_str().unwrap(),
        ];
        replicas.push((Serve::start(name, kc, &flags), c, k));
    }
    let scrape = |s: &Serve| get(&s.addr, "/metrics", Some(&prom), Some(&c1)).1;
    // Both replicas must have listed their pods too: the follower's first LIST may end after the
    // leader's first export, and `synced` is only checked, never waited for, below.
    until("one leader exporting the finding, both replicas synced", Duration::from_secs(90), || {
        let ms: Vec<String> = replicas.iter().map(|(s, _, _)| scrape(s)).collect();
        ms.iter().any(|m| sample(m, "unstuck_leader") == Some(1.0) && holds(m))
            && ms.iter().all(|m| m.contains("unstuck_watch_synced{kind=\"pods\"} 1"))
            && replicas
                .iter()
                .all(|(s, _, _)| get(&s.addr, "/findings", Some(&prom), Some(&c1)).1.contains("finalizer-blocked"))
    });
    // For a while, every scrape: exactly one leader, and only it has finding series.
    let mut leader_idx = None;
    for _ in 0..12 {
        let ms: Vec<String> = replicas.iter().map(|(s, _, _)| scrape(s)).collect();
        let leaders: Vec<usize> = (0..2).filter(|&i| sample(&ms[i], "unstuck_leader") == Some(1.0)).collect();
        assert_eq!(
            leaders.len(),
            1,
            "exactly one leader: {:?}",
            ms.iter().map(|m| sample(m, "unstuck_leader")).collect::<Vec<_>>()
        );
        let l = leaders[0];
        assert!(leader_idx.is_none_or(|i| i == l), "leadership moved without a failure");
        leader_idx = Some(l);
        assert_eq!(sample(&ms[1 - l], "unstuck_leader"), Some(0.0));
        assert!(
            finding_series(&ms[1 - l]).is_empty(),
            "the follower exports finding series: {:?}",
            finding_series(&ms[1 - l])
        );
        assert!(!finding_series(&ms[l]).is_empty());
        // Both serve their own findings (and their own watch metrics).
        let (code, f) = get(&replicas[1 - l].0.addr, "/findings", Some(&prom), Some(&c1));
        assert!(code == 200 && f.contains("finalizer-blocked"), "the follower serves /findings: {code}");
        assert!(ms[1 - l].contains("unstuck_watch_synced{kind=\"pods\"} 1"));
        std::thread::sleep(Duration::from_millis(400));
    }
    let l = leader_idx.unwrap();
    let lease: Lease = rt.block_on(Api::<Lease>::namespaced(client.clone(), "monitoring").get("unstuck")).unwrap();
    let spec = lease.spec.unwrap();
    assert_eq!(spec.holder_identity.as_deref(), Some(replicas[l].0.name), "the Lease names the leader");
    assert_eq!(spec.lease_duration_seconds, Some(6));
    println!(
        "leader election: {} leads (Lease monitoring/unstuck), the other exports no finding series",
        replicas[l].0.name
    );

    // 3. SIGKILL the leader: no release; the other takes over within the lease duration (+ margin).
    let (mut dead, _, _) = replicas.remove(l);
    dead.child.kill().unwrap();
    dead.child.wait().unwrap();
    let (survivor, sc, sk) = replicas.remove(0);
    let mut seen_follower_series = false;
    let took = until("the survivor to lead and export the finding", Duration::from_secs(20), || {
        let m = get(&survivor.addr, "/metrics", Some(&prom), Some(&c1)).1;
        let leads = sample(&m, "unstuck_leader") == Some(1.0);
        seen_follower_series |= !leads && !finding_series(&m).is_empty();
        leads && holds(&m)
    });
    assert!(!seen_follower_series, "the survivor exported finding series before it led");
    // 6 s lease + one retry period (6/7 s) + an evaluation (2 s interval) and scrape slack.
    assert!(took <= Duration::from_secs(6 + 5), "failover took {took:?}");
    let lease: Lease = rt.block_on(Api::<Lease>::namespaced(client.clone(), "monitoring").get("unstuck")).unwrap();
    let spec = lease.spec.unwrap();
    assert_eq!(spec.holder_identity.as_deref(), Some(survivor.name));
    assert!(spec.lease_transitions.unwrap_or(0) >= 1, "{spec:?}");
    println!("failover: {} leads {took:?} after SIGKILL of the leader", survivor.name);

    // 4. Certificate rotation without restart: new files in place (as a Secret update does), the new
    // certificate is served, the old one no longer.
    std::fs::copy(&c2, certs.join("new.crt")).unwrap();
    std::fs::copy(&k2, certs.join("new.key")).unwrap();
    std::fs::rename(certs.join("new.key"), &sk).unwrap();
    std::fs::rename(certs.join("new.crt"), &sc).unwrap();
    until("the rotated certificate", Duration::from_secs(15), || {
        get(&survivor.addr, "/healthz", None, Some(&c2)).0 == 200
    });
    assert_eq!(get(&survivor.addr, "/healthz", None, Some(&c1)).0, 0, "the old certificate is still served");
    assert!(survivor.logged("TLS certificate reloaded"));
    println!("TLS: rotated certificate served without restart");

    // 5. A replica reaching the API server through a proxy the test can cut joins as a follower.
    let proxy = Proxy::start(&cp.server);
    let proxied = tmp.path().join("proxied.kubeconfig");
    let text = std::fs::read_to_string(kc)
        .unwrap()
        .replace(&format!("server: {}", cp.server), &format!("server: https://{}", proxy.addr));
    assert!(text.contains(&proxy.addr), "kubeconfig server not replaced");
    std::fs::write(&proxied, text).unwrap();
    let e = Serve::start(
        "serve-e",
        &proxied,
        &["--leader-elect", "--leader-elect-namespace", "monitoring", "--leader-elect-lease-duration", "6s"],
    );
    until("serve-e to follow", Duration::from_secs(60), || {
        let m = get(&e.addr, "/metrics", Some(&prom), None).1;
        sample(&m, "unstuck_leader") == Some(0.0) && m.contains("unstuck_watch_synced{kind=\"pods\"} 1")
    });
    // SIGTERM on the leader: a clean stop that gives the Lease up, so the follower leads at once
    // (not a lease duration later).
    let mut survivor = survivor;
    // SAFETY: kill(2) on our own child's pid.
    unsafe { libc::kill(survivor.child.id() as i32, libc::SIGTERM) };
    let t = Instant::now();
    let status = survivor.child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "serve exits 0 on SIGTERM");
    assert!(survivor.logged("stopped"));
    until("serve-e to lead after the release", Duration::from_secs(10), || {
        let m = get(&e.addr, "/metrics", Some(&prom), None).1;
        sample(&m, "unstuck_leader") == Some(1.0) && holds(&m)
    });
    let took = t.elapsed();
    assert!(took < Duration::from_secs(6), "takeover after a release took {took:?}: the Lease was not released");
    println!("SIGTERM: exit 0, Lease released; serve-e leads {took:?} later");

    // 6. The leader loses the API server: it must stop exporting within the renew deadline
    // (2/3 of the lease duration), before anyone else may take the Lease over.
    let (_, m) = get(&e.addr, "/metrics", Some(&prom), None); // keeps the grant cached through the cut
    assert_eq!(sample(&m, "unstuck_leader"), Some(1.0));
    proxy.cut();
    let took = until("serve-e to step down", Duration::from_secs(15), || {
        let m = get(&e.addr, "/metrics", Some(&prom), None).1;
        sample(&m, "unstuck_leader") == Some(0.0) && finding_series(&m).is_empty()
    });
    assert!(
        took < Duration::from_secs(6),
        "a leader cut off from the API server exported for {took:?}, past the lease duration"
    );
    assert!(e.logged("leader election: lease monitoring/unstuck:"), "the renewal error is logged");
    println!("a leader cut off from the API server stepped down {took:?} after the cut (lease 6 s)");
    drop(e);
    drop(proxy);

    // 7. The API server goes away: nothing is let through unchecked, the last findings stay, not ready.
    let d = Serve::start("serve-d", kc, &[]);
    until("serve-d ready", Duration::from_secs(90), || get(&d.addr, "/readyz", None, None).0 == 200);
    until("serve-d's finding", Duration::from_secs(60), || {
        get(&d.addr, "/findings", Some(&prom), None).1.contains("finalizer-blocked")
    });
    assert_eq!(get(&d.addr, "/metrics", Some(&prom), None).0, 200);
    cp.stop();
    // A token serve has not seen must be reviewed, and cannot be: 503, not 200.
    let (code, body) = get(&d.addr, "/findings", Some(&tamper(&nobody)), None);
    assert_eq!(code, 503, "unreviewable token: {body}");
    // Grants made a moment ago (per path) are still cached: the last good findings are served.
    let (code, body) = get(&d.addr, "/findings", Some(&prom), None);
    assert!(code == 200 && body.contains("finalizer-blocked"), "last findings kept: {code} {body}");
    assert_eq!(get(&d.addr, "/healthz", None, None).0, 200);
    let mut why = String::new();
    until("/readyz to go unready", Duration::from_secs(60), || {
        let (code, body) = get(&d.addr, "/readyz", None, None);
        why = body;
        code == 503
    });
    let (_, metrics) = get(&d.addr, "/metrics", Some(&prom), None);
    assert!(holds(&metrics), "the finding series stay while the API is down");
    assert!(sample(&metrics, "unstuck_last_evaluation_timestamp_seconds").is_some());
    println!("API server down: 503 for unreviewable tokens, last findings kept, /readyz 503: {}", why.trim());
}
