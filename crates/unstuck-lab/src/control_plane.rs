//! Start and stop the real control plane; every child process is killed when the value is dropped.

use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};

#[derive(Debug, Clone)]
pub struct LabConfig {
    /// Directory holding etcd, kube-apiserver, kube-controller-manager, kube-scheduler.
    pub bin: PathBuf,
    /// Working directory (certificates, data, logs, kubeconfig).
    pub dir: PathBuf,
    /// Seconds without heartbeat before the node controller marks a node unreachable.
    pub node_grace_seconds: u32,
    /// Default tolerationSeconds for not-ready/unreachable taints.
    pub toleration_seconds: u32,
    /// The simulated nodes' InternalIP, where their kubelet log endpoints listen: this machine's first
    /// non-loopback IPv4 address (kube-apiserver does not proxy to loopback), or `UNSTUCK_LAB_NODE_IP`.
    /// 127.0.0.1 when there is none: then the kubelet log API is unavailable, as on locked-down clusters.
    pub node_ip: IpAddr,
}

impl LabConfig {
    pub fn new(bin: impl Into<PathBuf>, dir: impl Into<PathBuf>) -> Self {
        LabConfig {
            bin: bin.into(),
            dir: dir.into(),
            node_grace_seconds: 12,
            toleration_seconds: 4,
            node_ip: node_ip(),
        }
    }
}

/// The nodes' address: `UNSTUCK_LAB_NODE_IP`, else the first up, non-loopback, non-link-local IPv4
/// address of this machine, else loopback.
pub fn node_ip() -> IpAddr {
    if let Some(ip) = std::env::var("UNSTUCK_LAB_NODE_IP").ok().and_then(|v| v.parse().ok()) {
        return ip;
    }
    host_ipv4().map(IpAddr::V4).unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
}

fn host_ipv4() -> Option<Ipv4Addr> {
    let mut found = None;
    // SAFETY: getifaddrs fills a linked list we only read, then free with freeifaddrs.
    unsafe {
        let mut list: *mut libc::ifaddrs = std::ptr::null_mut();
        if libc::getifaddrs(&mut list) != 0 {
            return None;
        }
        let mut cur = list;
        while !cur.is_null() {
            let ifa = &*cur;
            let up = ifa.ifa_flags & (libc::IFF_UP as u32) != 0 && ifa.ifa_flags & (libc::IFF_LOOPBACK as u32) == 0;
            if up && !ifa.ifa_addr.is_null() && i32::from((*ifa.ifa_addr).sa_family) == libc::AF_INET {
                let sin = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                let ip = Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
                if !ip.is_loopback() && !ip.is_link_local() && !ip.is_unspecified() {
                    found = Some(ip);
                    break;
                }
            }
            cur = ifa.ifa_next;
        }
        libc::freeifaddrs(list);
    }
    found
}

pub struct ControlPlane {
    pub dir: PathBuf,
    pub kubeconfig: PathBuf,
    pub server: String,
    children: Vec<(String, Child)>,
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn run(cmd: &mut Command) -> Result<()> {
    let out = cmd.output().with_context(|| format!("running {cmd:?}"))?;
    if !out.status.success() {
        bail!("{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(())
}

/// CA, apiserver serving cert (SAN 127.0.0.1/localhost), admin client cert (system:masters), SA keys,
/// the kubelets' serving cert (SAN `node_ip`) and kube-apiserver's kubelet client cert.
fn certs(dir: &Path, node_ip: IpAddr) -> Result<()> {
    let o = |args: &[&str]| run(Command::new("openssl").args(args).current_dir(dir));
    o(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.crt",
        "-days",
        "7",
        "-subj",
        "/CN=unstuck-lab-ca",
    ])?;
    std::fs::write(dir.join("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n")?;
    std::fs::write(
        dir.join("client.ext"),
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n",
    )?;
    // The simulated kubelets' log endpoint: a serving cert for the node address, and the client cert
    // kube-apiserver presents to kubelets (`--kubelet-client-certificate`), checked by the kubelets.
    std::fs::write(
        dir.join("kubelet.ext"),
        format!("subjectAltName=IP:{node_ip},IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n"),
    )?;
    for (name, subj, ext) in [
        ("apiserver", "/CN=kube-apiserver", "server.ext"),
        ("admin", "/O=system:masters/CN=unstuck-lab-admin", "client.ext"),
        ("kubelet", "/CN=unstuck-lab-kubelet", "kubelet.ext"),
        ("apiserver-kubelet-client", "/O=system:masters/CN=kube-apiserver-kubelet-client", "client.ext"),
    ] {
        let (key, csr, crt) = (format!("{name}.key"), format!("{name}.csr"), format!("{name}.crt"));
        o(&["req", "-newkey", "rsa:2048", "-nodes", "-keyout", &key, "-out", &csr, "-subj", subj])?;
        o(&[
            "x509",
            "-req",
            "-in",
            &csr,
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            &crt,
            "-days",
            "7",
            "-extfile",
            ext,
        ])?;
    }
    o(&["genrsa", "-out", "sa.key", "2048"])?;
    o(&["rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub"])?;
    Ok(())
}

fn b64(p: &Path) -> Result<String> {
    let out = Command::new("base64").arg("-w0").arg(p).output()?;
    Ok(String::from_utf8(out.stdout)?)
}

fn kubeconfig(dir: &Path, server: &str) -> Result<PathBuf> {
    let p = dir.join("kubeconfig");
    let text = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: {server}\n    certificate-authority-data: {}\nusers:\n- name: admin\n  user:\n    client-certificate-data: {}\n    client-key-data: {}\ncontexts:\n- name: lab\n  context:\n    cluster: lab\n    user: admin\ncurrent-context: lab\n",
        b64(&dir.join("ca.crt"))?,
        b64(&dir.join("admin.crt"))?,
        b64(&dir.join("admin.key"))?
    );
    std::fs::write(&p, text)?;
    Ok(p)
}

impl ControlPlane {
    pub fn start(cfg: &LabConfig) -> Result<ControlPlane> {
        let dir = cfg.dir.clone();
        std::fs::create_dir_all(&dir)?;
        certs(&dir, cfg.node_ip).context("generating certificates (needs openssl)")?;
        let (etcd_client, etcd_peer, api, kcm, sched) =
            (free_port()?, free_port()?, free_port()?, free_port()?, free_port()?);
        let server = format!("https://127.0.0.1:{api}");
        let kc = kubeconfig(&dir, &server)?;
        let mut cp = ControlPlane { dir: dir.clone(), kubeconfig: kc.clone(), server, children: Vec::new() };
        let d = |p: &str| dir.join(p).display().to_string();
        cp.spawn(
            cfg,
            "etcd",
            &[
                "--name=lab".into(),
                format!("--data-dir={}", d("etcd-data")),
                format!("--listen-client-urls=http://127.0.0.1:{etcd_client}"),
                format!("--advertise-client-urls=http://127.0.0.1:{etcd_client}"),
                format!("--listen-peer-urls=http://127.0.0.1:{etcd_peer}"),
                format!("--initial-advertise-peer-urls=http://127.0.0.1:{etcd_peer}"),
                format!("--initial-cluster=lab=http://127.0.0.1:{etcd_peer}"),
                "--unsafe-no-fsync".into(),
                "--log-level=warn".into(),
            ],
        )?;
        cp.spawn(
            cfg,
            "kube-apiserver",
            &[
                format!("--etcd-servers=http://127.0.0.1:{etcd_client}"),
                "--bind-address=127.0.0.1".into(),
                format!("--secure-port={api}"),
                "--advertise-address=127.0.0.1".into(),
                "--endpoint-reconciler-type=none".into(),
                format!("--tls-cert-file={}", d("apiserver.crt")),
                format!("--tls-private-key-file={}", d("apiserver.key")),
                format!("--client-ca-file={}", d("ca.crt")),
                "--service-account-issuer=https://kubernetes.default.svc".into(),
                format!("--service-account-key-file={}", d("sa.pub")),
                format!("--service-account-signing-key-file={}", d("sa.key")),
                "--service-cluster-ip-range=10.0.0.0/24".into(),
                "--authorization-mode=Node,RBAC".into(),
                "--allow-privileged=true".into(),
                // Never resolve node names through DNS: the simulated nodes' InternalIP is `node_ip`, where
                // their log endpoints listen (kube-apiserver refuses to proxy to loopback addresses).
                "--kubelet-preferred-address-types=InternalIP".into(),
                format!("--kubelet-client-certificate={}", d("apiserver-kubelet-client.crt")),
                format!("--kubelet-client-key={}", d("apiserver-kubelet-client.key")),
                format!("--default-not-ready-toleration-seconds={}", cfg.toleration_seconds),
                format!("--default-unreachable-toleration-seconds={}", cfg.toleration_seconds),
            ],
        )?;
        cp.wait_ready(Duration::from_secs(90))?;
        let common = |port: u16| {
            vec![
                format!("--kubeconfig={}", kc.display()),
                format!("--authentication-kubeconfig={}", kc.display()),
                format!("--authorization-kubeconfig={}", kc.display()),
                "--leader-elect=false".into(),
                "--bind-address=127.0.0.1".into(),
                format!("--secure-port={port}"),
            ]
        };
        let mut kcm_args = common(kcm);
        kcm_args.extend([
            format!("--root-ca-file={}", d("ca.crt")),
            format!("--service-account-private-key-file={}", d("sa.key")),
            "--controllers=*".into(),
            "--node-monitor-period=2s".into(),
            format!("--node-monitor-grace-period={}s", cfg.node_grace_seconds),
            "--node-startup-grace-period=20s".into(),
            "--concurrent-gc-syncs=5".into(),
        ]);
        cp.spawn(cfg, "kube-controller-manager", &kcm_args)?;
        // The scheduler elects itself leader, as a real one does: its Lease (kube-system/kube-scheduler) is
        // what never-scheduled cites when the default scheduler tried nothing.
        let sched_args: Vec<String> = common(sched)
            .into_iter()
            .map(|a| if a == "--leader-elect=false" { "--leader-elect=true".into() } else { a })
            .collect();
        cp.spawn(cfg, "kube-scheduler", &sched_args)?;
        Ok(cp)
    }

    fn spawn(&mut self, cfg: &LabConfig, name: &str, args: &[String]) -> Result<()> {
        use std::os::unix::process::CommandExt;
        let log = std::fs::File::create(self.dir.join(format!("{name}.log")))?;
        let child = Command::new(cfg.bin.join(name))
            .args(args)
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log)
            .process_group(0)
            .spawn()
            .with_context(|| format!("starting {}", cfg.bin.join(name).display()))?;
        std::fs::write(self.dir.join(format!("{name}.pid")), child.id().to_string())?;
        self.children.push((name.to_string(), child));
        Ok(())
    }

    /// Wait for `GET /readyz` to answer `ok`.
    fn wait_ready(&mut self, timeout: Duration) -> Result<()> {
        let start = Instant::now();
        let d = self.dir.clone();
        loop {
            for (name, c) in self.children.iter_mut() {
                if let Some(st) = c.try_wait()? {
                    bail!("{name} exited ({st}) while starting:\n{}", log_tail(&d, name, 15));
                }
            }
            let out = Command::new("curl")
                .args(["-s", "--max-time", "2", "--cacert"])
                .arg(d.join("ca.crt"))
                .arg("--cert")
                .arg(d.join("admin.crt"))
                .arg("--key")
                .arg(d.join("admin.key"))
                .arg(format!("{}/readyz", self.server))
                .output();
            if let Ok(o) = out {
                if o.stdout == b"ok" {
                    return Ok(());
                }
            }
            if start.elapsed() > timeout {
                bail!("kube-apiserver not ready after {timeout:?}; see {}", d.join("kube-apiserver.log").display());
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// Each component's state for a failure message: running, or how it exited, with the last `lines`
    /// lines of its log (a scenario that times out says whether the scheduler or a controller died).
    pub fn health(&mut self, lines: usize) -> String {
        let mut out = String::new();
        for (name, c) in self.children.iter_mut() {
            let state = match c.try_wait() {
                Ok(None) => "running".to_string(),
                Ok(Some(st)) => format!("EXITED ({st})"),
                Err(e) => format!("unknown ({e})"),
            };
            out.push_str(&format!(
                "--- {name}: {state}; last {lines} log lines:\n{}\n",
                log_tail(&self.dir, name, lines)
            ));
        }
        out
    }

    /// Kill one component as a crash would (SIGKILL: a leader does not release its Lease), and wait for
    /// it to exit. False when no such component runs.
    pub fn crash(&mut self, name: &str) -> bool {
        let Some(i) = self.children.iter().position(|(n, _)| n == name) else { return false };
        let (_, mut c) = self.children.remove(i);
        signal_group(c.id() as i32, libc::SIGKILL);
        let _ = c.kill();
        c.wait().is_ok()
    }

    /// Stop every process (also done on drop).
    pub fn stop(&mut self) {
        for (_, c) in self.children.iter_mut().rev() {
            signal_group(c.id() as i32, libc::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(5);
        for (_, c) in self.children.iter_mut().rev() {
            while Instant::now() < deadline {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
        self.children.clear();
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The last `n` lines of a component's log in the lab directory (empty when it has none).
fn log_tail(dir: &Path, name: &str, n: usize) -> String {
    let log = std::fs::read_to_string(dir.join(format!("{name}.log"))).unwrap_or_default();
    let tail: Vec<&str> = log.lines().rev().take(n).collect();
    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
}

/// Signal the process group a child leads (each child is started with its own group). Never signals
/// anything else: a non-positive pid (which would mean "every process") is refused.
fn signal_group(pid: i32, sig: i32) {
    if pid > 1 {
        // SAFETY: kill(2) with a negative pid signals exactly that process group.
        unsafe {
            libc::kill(-pid, sig);
        }
    }
}

/// Stop the processes of a lab started elsewhere (`unstuck-lab down`), from their pid files.
pub fn stop_dir(dir: &Path) -> usize {
    let mut n = 0;
    for name in ["kube-scheduler", "kube-controller-manager", "kube-apiserver", "etcd", "unstuck-lab"] {
        if let Ok(pid) = std::fs::read_to_string(dir.join(format!("{name}.pid"))) {
            if let Ok(pid) = pid.trim().parse::<i32>() {
                signal_group(pid, libc::SIGTERM);
                n += 1;
            }
            let _ = std::fs::remove_file(dir.join(format!("{name}.pid")));
        }
    }
    n
}
