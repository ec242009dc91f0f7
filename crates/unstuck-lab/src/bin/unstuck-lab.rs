//! `unstuck-lab up|down|status|scenario NAME|run`: the lab as a user drives it.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use unstuck_lab::{scenarios, ControlPlane, LabConfig, SimKubelet};

fn arg(args: &[String], flag: &str) -> Option<String> {
    args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1).cloned())
}

fn dir_of(args: &[String]) -> PathBuf {
    arg(args, "--dir").map(PathBuf::from).unwrap_or_else(|| std::env::temp_dir().join("unstuck-lab"))
}

fn bin_of(args: &[String]) -> Result<PathBuf> {
    if let Some(b) = arg(args, "--bin").or_else(|| std::env::var("UNSTUCK_LAB_BIN").ok()) {
        return Ok(PathBuf::from(b));
    }
    let out = std::process::Command::new("scripts/lab-build.sh")
        .output()
        .context("running scripts/lab-build.sh (set UNSTUCK_LAB_BIN or --bin)")?;
    if !out.status.success() {
        bail!("scripts/lab-build.sh failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    Ok(PathBuf::from(String::from_utf8_lossy(&out.stdout).lines().last().unwrap_or("").trim()))
}

async fn client(dir: &std::path::Path) -> Result<kube::Client> {
    let kc = kube::config::Kubeconfig::read_from(dir.join("kubeconfig"))?;
    let cfg = kube::Config::from_custom_kubeconfig(kc, &Default::default()).await?;
    Ok(kube::Client::try_from(cfg)?)
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = dir_of(&args);
    match args.first().map(String::as_str) {
        Some("run") => {
            let cfg = LabConfig::new(bin_of(&args)?, &dir);
            let _ = std::fs::remove_dir_all(&dir);
            let cp = ControlPlane::start(&cfg)?;
            std::fs::write(dir.join("unstuck-lab.pid"), std::process::id().to_string())?;
            std::fs::create_dir_all(dir.join("nodes"))?;
            let c = client(&dir).await?;
            let mut tasks = Vec::new();
            let tls = unstuck_lab::logserver::tls_config(&dir)?;
            for n in scenarios::nodes() {
                let k = SimKubelet::new(c.clone(), n, dir.join("nodes")).with_log_endpoint(cfg.node_ip, tls.clone()).await?;
                tasks.push(tokio::spawn(k.run()));
            }
            std::fs::write(dir.join("ready"), &cp.server)?;
            let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {},
                _ = term.recv() => {},
            }
            for t in tasks {
                t.abort();
            }
            drop(cp);
            let _ = std::fs::remove_file(dir.join("ready"));
            Ok(())
        }
        Some("up") => {
            let exe = std::env::current_exe()?;
            std::fs::create_dir_all(&dir)?;
            let _ = std::fs::remove_file(dir.join("ready"));
            let log = std::fs::File::create(std::env::temp_dir().join("unstuck-lab-run.log"))?;
            use std::os::unix::process::CommandExt;
            let mut cmd = std::process::Command::new(exe);
            cmd.arg("run").arg("--dir").arg(&dir).arg("--bin").arg(bin_of(&args)?);
            cmd.stdout(log.try_clone()?).stderr(log).stdin(std::process::Stdio::null()).process_group(0);
            cmd.spawn()?;
            for _ in 0..240 {
                if dir.join("ready").exists() {
                    println!("lab up: kubeconfig {}", dir.join("kubeconfig").display());
                    println!("node logs: {}", dir.join("nodes").display());
                    let ip = unstuck_lab::control_plane::node_ip();
                    if ip.is_loopback() {
                        println!("kubelet log API: unavailable (no non-loopback address; set UNSTUCK_LAB_NODE_IP)");
                    } else {
                        println!("kubelet log API: nodes serve /logs/ on {ip} (kubectl get --raw /api/v1/nodes/NODE/proxy/logs/)");
                    }
                    return Ok(());
                }
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            bail!("lab did not come up; see {}", std::env::temp_dir().join("unstuck-lab-run.log").display())
        }
        Some("down") => {
            let n = unstuck_lab::control_plane::stop_dir(&dir);
            println!("lab down: signalled {n} process(es)");
            Ok(())
        }
        Some("status") => {
            if dir.join("ready").exists() {
                println!("lab up: server {}", std::fs::read_to_string(dir.join("ready"))?);
                println!("kubeconfig {}", dir.join("kubeconfig").display());
                let c = client(&dir).await?;
                let nodes: kube::Api<k8s_openapi::api::core::v1::Node> = kube::Api::all(c);
                for n in nodes.list(&Default::default()).await?.items {
                    let mode = n
                        .metadata
                        .labels
                        .as_ref()
                        .and_then(|l| l.get(unstuck_lab::kubelet::MODE_LABEL))
                        .cloned()
                        .unwrap_or_default();
                    println!("  node {} mode {mode}", n.metadata.name.unwrap_or_default());
                }
            } else {
                println!("lab down");
            }
            Ok(())
        }
        Some("scenario") => {
            let name = args.get(1).context("usage: unstuck-lab scenario NAME [--dir DIR]")?;
            let c = client(&dir).await?;
            scenarios::apply(&c, name).await?;
            println!("scenario {name} applied; expect:");
            for (rule, kind, subj) in scenarios::expected(name) {
                println!("  {rule} {kind} {subj}");
            }
            Ok(())
        }
        Some("load") => {
            // Many healthy pods (bound to the healthy nodes), to measure live-mode cost at scale.
            let n: usize = arg(&args, "--pods").and_then(|x| x.parse().ok()).unwrap_or(10_000);
            let c = client(&dir).await?;
            scenarios::load(&c, n).await?;
            println!("created {n} pods in namespace load");
            Ok(())
        }
        _ => bail!(
            "usage: unstuck-lab up|down|status|scenario NAME|load [--pods N]|run [--dir DIR] [--bin DIR]\nscenarios: {}",
            scenarios::SCENARIOS.join(", ")
        ),
    }
}
