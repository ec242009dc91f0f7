use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use jiff::SignedDuration;
use unstuck_ingest::Options;
use unstuck_logs::Catalog;
use unstuck_model::Time;
use unstuck_report::Report;
use unstuck_rules::{Config, Selector};

#[derive(Debug, Parser)]
#[command(
    name = "unstuck",
    version = env!("UNSTUCK_LONG_VERSION"),
    about = "Find every stuck Kubernetes pod, say why with evidence, what it blocks, and how to fix it — in order."
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Output {
    Table,
    Json,
    Yaml,
    Markdown,
    Html,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Color {
    Auto,
    Always,
    Never,
}

#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// Capture time (RFC 3339). Default: capturedAt in unstuck-bundle.json, else the newest timestamp in the bundle.
    #[arg(long, value_name = "RFC3339")]
    pub now: Option<String>,
    /// Extra log signatures (YAML list: id, pattern, also, component, severity, scope, feeds).
    #[arg(long, value_name = "FILE")]
    pub signatures: Option<PathBuf>,
    /// Time zone of node log lines that carry none (syslog, klog). Default UTC.
    #[arg(long, value_name = "TZ", default_value = "UTC")]
    pub log_tz: String,
    /// Do not read node logs.
    #[arg(long)]
    pub no_logs: bool,
}

/// kubectl's connection conventions (live mode, when no PATH is given).
#[derive(Debug, clap::Args)]
pub struct LiveArgs {
    /// Path to the kubeconfig (default: $KUBECONFIG, ~/.kube/config, or in-cluster).
    #[arg(long, value_name = "FILE")]
    pub kubeconfig: Option<PathBuf>,
    /// The kubeconfig context to use.
    #[arg(long, value_name = "NAME")]
    pub context: Option<String>,
    /// Live mode: read node logs from this directory (`DIR/<node>/<file>`) instead of the kubelet log API.
    #[arg(long, value_name = "DIR")]
    pub node_logs: Option<PathBuf>,
    /// Print API call counts and peak memory to stderr when done.
    #[arg(long, hide = true)]
    pub stats: bool,
}

/// Which findings: time threshold, namespaces, labels, rules.
#[derive(Debug, clap::Args)]
pub struct SelectArgs {
    /// How long past its deletion deadline (Terminating) or past scheduling (ContainerCreating) a pod counts as stuck.
    /// States the kubelet gives only after a failed attempt (CrashLoopBackOff, a missing ConfigMap or Secret, an
    /// invalid image name) count at any age.
    #[arg(long, value_name = "DURATION", default_value = "5m")]
    pub stuck_after: String,
    /// Only this namespace (repeatable).
    #[arg(short = 'n', long = "namespace", value_name = "NS")]
    pub namespaces: Vec<String>,
    /// All namespaces (the default; accepted for kubectl compatibility).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    /// Label selector (k=v, k!=v, k, !k; comma-separated).
    #[arg(short = 'l', long, value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Only findings of this rule (repeatable).
    #[arg(long = "rule", value_name = "RULE")]
    pub rules: Vec<String>,
}

impl SelectArgs {
    pub fn config(&self) -> Result<Config> {
        let mut cfg = Config { stuck_after: parse_duration(&self.stuck_after)?, ..Config::default() };
        if !self.all_namespaces {
            cfg.namespaces = self.namespaces.clone();
        }
        if let Some(s) = &self.selector {
            cfg.selector = Selector::parse(s).map_err(anyhow::Error::msg)?;
        }
        for r in &self.rules {
            if unstuck_rules::rule(r).is_none() {
                bail!("--rule {r:?}: unknown rule (see `unstuck rules`)");
            }
        }
        cfg.rules = self.rules.clone();
        Ok(cfg)
    }
}

fn parse_op_kind(s: &str) -> Result<unstuck_rules::fix::OpKind, String> {
    unstuck_rules::fix::OpKind::parse(s).ok_or_else(|| {
        format!("unknown operation kind; known: {}", unstuck_rules::fix::OpKind::ALL.map(|k| k.as_str()).join(", "))
    })
}

/// `collect --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CollectFormat {
    ClusterInfoDump,
    SupportBundle,
}

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Diagnose every stuck pod in a bundle (cluster-info dump directory, archive, kubectl output, node logs), or in
    /// the live cluster when no PATH is given.
    Diagnose {
        /// Bundle directory, archive (.tar.gz, .zip, …), kubectl output (-o json/yaml, get tables, describe text) or
        /// node log files; `-` reads standard input (`kubectl get pods -A -o wide | unstuck diagnose -`).
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        input: InputArgs,
        /// Output format.
        #[arg(short = 'o', long, value_enum, default_value = "table")]
        output: Output,
        #[command(flatten)]
        select: SelectArgs,
        /// Colour: auto (terminal and no NO_COLOR), always, never.
        #[arg(long, value_enum, default_value = "auto")]
        color: Color,
        #[command(flatten)]
        live: LiveArgs,
    },
    /// Carry out the fix: a plan of preconditioned API operations from the findings, sent as a server-side
    /// dry run unless --apply; every request written to an audit log. Host steps stay printed commands.
    Fix {
        /// Bundle to plan from (offline: the plan is printed, nothing is sent). None: the live cluster.
        #[arg(value_name = "PATH", conflicts_with = "plan")]
        paths: Vec<PathBuf>,
        /// Run a plan saved with `unstuck fix -o json` (preconditioned on the versions it was made from).
        #[arg(long, value_name = "FILE")]
        plan: Option<PathBuf>,
        /// Make the changes. Without it every operation is a server-side dry run.
        #[arg(long)]
        apply: bool,
        /// I have done or confirmed what each item "requires" (the node is down, the mount is gone…).
        #[arg(long)]
        confirm: bool,
        /// Operation kinds to include (repeatable): cordon, out-of-service, delete, force-delete,
        /// remove-finalizers, remove-scheduling-gates, remove-out-of-service, uncordon. Default: all but
        /// out-of-service and remove-scheduling-gates.
        #[arg(long = "allow", value_name = "KIND", value_parser = parse_op_kind)]
        allow: Vec<unstuck_rules::fix::OpKind>,
        /// Append-only audit log (JSON Lines). Default: $XDG_STATE_HOME/unstuck/audit.jsonl (~/.local/state/…).
        #[arg(long, value_name = "FILE")]
        audit_log: Option<PathBuf>,
        #[command(flatten)]
        select: SelectArgs,
        #[command(flatten)]
        input: InputArgs,
        /// table or json (json reads back with --plan).
        #[arg(short = 'o', long, value_enum, default_value = "table")]
        output: Output,
        #[command(flatten)]
        live: LiveArgs,
    },
    /// Collect a bundle from the live cluster (offline layout, .tar.gz), redacted by default.
    Collect {
        /// Output file.
        #[arg(short = 'o', long, value_name = "FILE", default_value = "unstuck-bundle.tar.gz")]
        output: PathBuf,
        /// Keep env values and last-applied-configuration (they may hold secrets).
        #[arg(long)]
        no_redact: bool,
        /// Fetch node logs of every node (default: only nodes holding stuck pods).
        #[arg(long)]
        all_node_logs: bool,
        #[command(flatten)]
        live: LiveArgs,
        /// Only this namespace.
        #[arg(short = 'n', long = "namespace", value_name = "NS")]
        namespace: Option<String>,
        /// Layout of the archive: `cluster-info-dump` (unstuck's own) or `support-bundle` (Troubleshoot's,
        /// for a vendor's tooling; `unstuck diagnose` reads both).
        #[arg(long, value_enum, default_value = "cluster-info-dump")]
        format: CollectFormat,
    },
    /// Watch the cluster and serve its findings: Prometheus metrics (/metrics), the JSON report
    /// (/findings), the HTML report (/), /readyz and /healthz. Read-only; see docs/serve.md.
    Serve {
        /// Address to listen on (port 0: any free port; the address is printed on stderr).
        #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:9464")]
        listen: String,
        /// Evaluate at least this often even when nothing changed (pods become stuck as time passes).
        #[arg(long, value_name = "DURATION", default_value = "30s")]
        interval: String,
        /// Fetch node logs of nodes holding stuck pods (kubelet log API) at most this often.
        #[arg(long, value_name = "DURATION", default_value = "5m")]
        log_refresh: String,
        #[command(flatten)]
        select: SelectArgs,
        /// Extra log signatures (YAML list: id, pattern, also, component, severity, scope, feeds).
        #[arg(long, value_name = "FILE")]
        signatures: Option<PathBuf>,
        /// Time zone of node log lines that carry none (syslog, klog). Default UTC.
        #[arg(long, value_name = "TZ", default_value = "UTC")]
        log_tz: String,
        /// Do not read node logs.
        #[arg(long)]
        no_logs: bool,
        /// Cite crash-looping containers' last output (`pods/log?previous=true`, at most 50 containers, at
        /// each full evaluation, by the leader). Needs `get` on `pods/log`, which shows whatever the
        /// applications print (the chart's `serve.containerLogs=true` grants it).
        #[arg(long)]
        container_logs: bool,
        /// TLS certificate (PEM, chain first), e.g. mounted from a kubernetes.io/tls Secret; re-read when
        /// it changes. Without it a self-signed certificate is made at start.
        #[arg(long, value_name = "PATH", requires = "tls_private_key_file")]
        tls_cert_file: Option<PathBuf>,
        /// The private key of --tls-cert-file (PEM).
        #[arg(long, value_name = "PATH", requires = "tls_cert_file")]
        tls_private_key_file: Option<PathBuf>,
        /// Plain HTTP and no authentication (anyone who reaches the port reads the findings): for local use.
        #[arg(long, conflicts_with_all = ["tls_cert_file", "tls_private_key_file"])]
        insecure_no_auth: bool,
        /// Several replicas: the holder of a coordination.k8s.io Lease exports the alert series and
        /// fetches node logs; every replica serves /findings and /metrics (docs/serve.md).
        #[arg(long)]
        leader_elect: bool,
        /// Name of the Lease.
        #[arg(long, value_name = "NAME", default_value = "unstuck")]
        leader_elect_lease_name: String,
        /// Namespace of the Lease (default: $POD_NAMESPACE, else the service account's namespace, else default).
        #[arg(long, value_name = "NS")]
        leader_elect_namespace: Option<String>,
        /// A leader that stops renewing is replaced after this long.
        #[arg(long, value_name = "DURATION", default_value = "15s")]
        leader_elect_lease_duration: String,
        #[command(flatten)]
        live: LiveArgs,
    },
    /// List the rule catalog.
    Rules {
        /// Only the rules that can explain a pod in this STATUS, as `kubectl get pods` prints it
        /// (`Terminating`, `ContainerCreating`, `Init:0/1`, `ImagePullBackOff`, `CrashLoopBackOff`, `Pending`,
        /// `Evicted`, `CreateContainerConfigError`…), in the order they are tried.
        #[arg(long, value_name = "STATUS")]
        state: Option<String>,
    },
    /// Print a rule's documentation.
    Explain {
        #[arg(value_name = "RULE")]
        rule: String,
    },
    /// Print everything the bundle knows about one pod (name, ns/name, UID) or container ID, in time order.
    Logs {
        #[arg(value_name = "SUBJECT")]
        subject: String,
        #[arg(value_name = "PATH", required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        input: InputArgs,
    },
    /// A pod's events, status transitions and node log lines on one time axis.
    Timeline {
        #[arg(value_name = "POD")]
        pod: String,
        #[arg(value_name = "PATH", required = true)]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        input: InputArgs,
        /// table or html (a self-contained page with an SVG timeline).
        #[arg(short = 'o', long, value_enum, default_value = "table")]
        output: Output,
    },
    /// The kubelet container hash of a container spec (a v1.Container, or a whole pod: every container).
    Hash {
        /// Kubelet version (e.g. 1.9.11, v1.28.3).
        #[arg(long, value_name = "VERSION")]
        kubelet: String,
        /// JSON or YAML file; `-` or nothing for standard input.
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
        /// Print the exact hashed input, byte for byte.
        #[arg(long)]
        explain: bool,
        /// 1.27-1.30 with InPlacePodVerticalScaling: hash with resources zeroed.
        #[arg(long)]
        without_resources: bool,
    },
    /// Predict which containers a kubelet version change restarts (bundle, kubectl output, or the live cluster).
    UpgradeCheck {
        #[arg(long, value_name = "VERSION")]
        from: String,
        #[arg(long, value_name = "VERSION")]
        to: String,
        /// Bundle or kubectl output; none: the live cluster.
        #[arg(value_name = "PATH")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        live: LiveArgs,
        /// table or json.
        #[arg(short = 'o', long, value_enum, default_value = "table")]
        output: Output,
    },
    /// Print shell completions.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// List the log signature catalog (`--patterns`: only the literals, one per line, for `rg -F -f`).
    Signatures {
        #[arg(long)]
        patterns: bool,
        #[arg(long, value_name = "FILE")]
        signatures: Option<PathBuf>,
    },
    /// Scan a bundle's node logs only and count lines per signature (the log engine alone; benchmarks).
    #[command(hide = true)]
    ScanLogs {
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Write docs/rules/*.md from the catalog.
    #[command(hide = true)]
    GenDocs {
        #[arg(default_value = "docs/rules")]
        dir: PathBuf,
    },
}

/// `5m`, `90s`, `1h30m`, `2d`, or anything jiff's friendly format reads.
pub fn parse_duration(s: &str) -> Result<SignedDuration> {
    let t = s.trim();
    if let Ok(n) = t.parse::<i64>() {
        return Ok(SignedDuration::from_secs(n));
    }
    let d: SignedDuration = t.parse().with_context(|| format!("invalid duration {s:?} (examples: 90s, 5m, 1h30m)"))?;
    if d.is_negative() {
        bail!("invalid duration {s:?}: negative");
    }
    Ok(d)
}

pub(crate) fn ingest_options(input: &InputArgs) -> Result<Options> {
    let mut o = Options::default();
    if let Some(n) = &input.now {
        o.now = Some(
            n.parse::<Time>().with_context(|| format!("--now {n:?}: expected RFC 3339, e.g. 2024-04-16T08:00:00Z"))?,
        );
    }
    if let Some(p) = &input.signatures {
        let text = std::fs::read_to_string(p).with_context(|| format!("{}", p.display()))?;
        let extra = Catalog::parse_file(&p.display().to_string(), &text)?;
        o.catalog = Catalog::with_extra(extra)?;
    }
    o.log_tz = jiff::tz::TimeZone::get(&input.log_tz)
        .with_context(|| format!("--log-tz {:?}: unknown time zone", input.log_tz))?;
    o.log_tz_name = input.log_tz.clone();
    o.logs = !input.no_logs;
    // Diagnosis reads nothing more of a settled pod; `timeline` and `logs` turn this off.
    o.slim = true;
    Ok(o)
}

fn use_color(c: Color) -> bool {
    match c {
        Color::Always => true,
        Color::Never => false,
        Color::Auto => std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

pub(crate) fn emit(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(s.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(e).context("writing output"),
    }
}

pub fn run(cli: Cli) -> Result<u8> {
    match cli.cmd {
        Cmd::Diagnose { paths, input, output, select, color, live } => {
            let opts = ingest_options(&input)?;
            let cfg = select.config()?;
            let t0 = std::time::Instant::now();
            let (mut snap, node_logs) = if paths.is_empty() {
                let piped = stdin_is_piped();
                if piped {
                    eprintln!(
                        "unstuck: standard input is a pipe, and is read only when `-` is given (`kubectl get pods -A -o wide | unstuck diagnose -`); diagnosing the live cluster"
                    );
                }
                crate::live::snapshot(&live, crate::live::single_namespace(&cfg), &opts, &cfg).with_context(|| {
                    match piped {
                        true => "no PATH: the live cluster (to read what is piped in, give `-`)",
                        false => "no PATH: the live cluster",
                    }
                })?
            } else {
                (unstuck_ingest::load(&paths, &opts)?, None)
            };
            let t1 = std::time::Instant::now();
            let mut d = unstuck_rules::diagnose(&snap, &cfg);
            let logs = match &node_logs {
                Some(l) => crate::subject::LogInput::NodeLogs(&l.dir),
                None => crate::subject::LogInput::Paths(&paths),
            };
            crate::leads::add(&mut snap, &mut d, logs, &opts, &cfg)?;
            drop(node_logs);
            let t2 = std::time::Instant::now();
            let report = Report::new(&snap, d);
            tracing::debug!(load = ?(t1 - t0), diagnose = ?(t2 - t1), report = ?t2.elapsed(), "phases");
            let text = match output {
                Output::Table => unstuck_report::render_table(&report, use_color(color)),
                Output::Json => report.to_json(),
                Output::Yaml => report.to_yaml(),
                Output::Markdown => unstuck_report::render_markdown(&report),
                Output::Html => unstuck_report::render_html(&report),
            };
            emit(&text)?;
            let code = if report.findings.is_empty() { 0 } else { 1 };
            // The process ends here: freeing 150,000 pods one by one would only delay the exit.
            std::mem::forget(report);
            std::mem::forget(snap);
            Ok(code)
        }
        Cmd::Fix { paths, plan, apply, confirm, allow, audit_log, select, input, output, live } => {
            let a = crate::fix::FixArgs { paths, plan, apply, confirm, allow, audit_log, output };
            crate::fix::run(a, &select, &input, &live)
        }
        Cmd::Collect { output, no_redact, all_node_logs, live, namespace, format } => {
            let layout = match format {
                CollectFormat::ClusterInfoDump => unstuck_live::BundleLayout::ClusterInfoDump,
                CollectFormat::SupportBundle => unstuck_live::BundleLayout::SupportBundle,
            };
            crate::live::collect(&live, namespace, &output, !no_redact, all_node_logs, layout)
        }
        Cmd::Serve {
            listen,
            interval,
            log_refresh,
            select,
            signatures,
            log_tz,
            no_logs,
            container_logs,
            tls_cert_file,
            tls_private_key_file,
            insecure_no_auth,
            leader_elect,
            leader_elect_lease_name,
            leader_elect_namespace,
            leader_elect_lease_duration,
            live,
        } => {
            let input = InputArgs { now: None, signatures, log_tz, no_logs };
            let opts = ingest_options(&input)?;
            let cfg = select.config()?;
            let positive = |flag: &str, v: &str| -> Result<std::time::Duration> {
                let d = parse_duration(v)?;
                std::time::Duration::try_from(d)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .with_context(|| format!("{flag} {v:?}: must be more than zero"))
            };
            let a = crate::serve::ServeArgs {
                listen,
                interval: positive("--interval", &interval)?,
                log_refresh: positive("--log-refresh", &log_refresh)?,
                container_logs,
                namespace: crate::live::single_namespace(&cfg),
                tls: (!insecure_no_auth).then_some((tls_cert_file, tls_private_key_file)),
                election: leader_elect
                    .then(|| -> Result<_> {
                        let duration = positive("--leader-elect-lease-duration", &leader_elect_lease_duration)?;
                        if duration < std::time::Duration::from_secs(2) {
                            bail!("--leader-elect-lease-duration {leader_elect_lease_duration:?}: at least 2s");
                        }
                        Ok(crate::serve::election_config(leader_elect_lease_name, leader_elect_namespace, duration))
                    })
                    .transpose()?,
                opts,
                cfg,
            };
            crate::serve::run(a, &live)
        }
        Cmd::Rules { state } => {
            let kind = match state.as_deref() {
                None => None,
                Some(st) => Some(unstuck_rules::StateKind::of_status(st).with_context(|| {
                    format!("--state {st:?}: not a stuck state (Terminating, ContainerCreating, CrashLoopBackOff, …)")
                })?),
            };
            let mut s = String::new();
            for r in unstuck_rules::catalog().iter().filter(|r| kind.is_none_or(|k| r.explains.contains(&k))) {
                s.push_str(&format!("{:<32} {:<9} {}\n", r.id, r.scope_name(), r.summary));
            }
            emit(&s)?;
            Ok(0)
        }
        Cmd::Explain { rule } => match unstuck_rules::rule(&rule) {
            Some(r) => {
                emit(&crate::docs::rule_markdown(r))?;
                Ok(0)
            }
            None => bail!(
                "unknown rule {:?}; known: {}",
                rule,
                unstuck_rules::catalog().iter().map(|r| r.id).collect::<Vec<_>>().join(", ")
            ),
        },
        Cmd::Logs { subject, paths, input } => crate::subject::logs(&subject, &paths, &input),
        Cmd::Timeline { pod, paths, input, output } => crate::subject::timeline(&pod, &paths, &input, output),
        Cmd::Hash { kubelet, file, explain, without_resources } => {
            crate::upgrade::hash_cmd(&kubelet, file, explain, without_resources)
        }
        Cmd::UpgradeCheck { from, to, paths, output, live } => {
            let (from, to): (unstuck_hash::Version, unstuck_hash::Version) = (from.parse()?, to.parse()?);
            let opts = Options { raw_pods: true, logs: false, ..Options::default() };
            let snap = if paths.is_empty() {
                crate::live::snapshot(&live, None, &opts, &unstuck_rules::Config::default())?.0
            } else {
                unstuck_ingest::load(&paths, &opts)?
            };
            let mut runtime = std::collections::BTreeMap::new();
            for p in &paths {
                if p.is_dir() {
                    runtime.extend(crate::upgrade::runtime_hashes(p));
                }
            }
            let node_versions = snap
                .nodes
                .iter()
                .map(|n| (n.metadata.name.to_string(), n.status.node_info.kubelet_version.to_string()))
                .collect();
            let preds = crate::upgrade::predict(&from, &to, &snap.raw_pods, &runtime, &node_versions)?;
            let text = match output {
                Output::Json => {
                    serde_json::to_string_pretty(
                        &serde_json::json!({"apiVersion": "unstuck/v1", "kind": "UpgradeCheck", "from": from.to_string(), "to": to.to_string(), "containers": preds}),
                    )? + "\n"
                }
                Output::Table => crate::upgrade::render(&from, &to, &preds),
                other => bail!("upgrade-check supports -o table or -o json, not {other:?}"),
            };
            emit(&text)?;
            Ok(if preds.iter().any(|p| p.restart) { 1 } else { 0 })
        }
        Cmd::Completions { shell } => {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(shell, &mut cmd, "unstuck", &mut std::io::stdout());
            Ok(0)
        }
        Cmd::Signatures { patterns, signatures } => {
            let input = InputArgs { now: None, signatures, log_tz: "UTC".into(), no_logs: false };
            let cat = ingest_options(&input)?.catalog;
            let mut s = String::new();
            if patterns {
                s = cat.patterns_file();
            } else {
                for sig in cat.signatures() {
                    s.push_str(&format!(
                        "{:<30} {:<9} {:<6} {:<24} {:?}{}\n",
                        sig.id,
                        sig.severity.as_str(),
                        if sig.scope == unstuck_logs::signatures::Scope::Pod { "pod" } else { "node" },
                        sig.feeds,
                        sig.pattern,
                        if sig.also.is_empty() { String::new() } else { format!(" + {:?}", sig.also) }
                    ));
                }
            }
            emit(&s)?;
            Ok(0)
        }
        Cmd::ScanLogs { dir } => {
            let opts = Options::default();
            let files = match dir.as_os_str() == "-" {
                true => unstuck_ingest::scan_stdin_log(&opts)?,
                false => unstuck_ingest::scan_node_logs(&dir, &opts)?,
            };
            let mut counts = std::collections::BTreeMap::new();
            let mut bytes = 0u64;
            for f in &files {
                bytes += f.bytes;
                for h in &f.hits {
                    *counts.entry(opts.catalog.get(h.sig).id.clone()).or_insert(0u64) += 1;
                }
            }
            let mut s = format!("{} files, {} bytes\n", files.len(), bytes);
            for (k, v) in counts {
                s.push_str(&format!("{v:>10} {k}\n"));
            }
            emit(&s)?;
            Ok(0)
        }
        Cmd::GenDocs { dir } => {
            crate::docs::write_rule_docs(&dir)?;
            Ok(0)
        }
    }
}

/// Whether standard input is a pipe (`… | unstuck diagnose`), not a terminal, a file or `/dev/null`.
fn stdin_is_piped() -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        std::fs::metadata("/dev/stdin").is_ok_and(|m| m.file_type().is_fifo())
    }
    #[cfg(not(unix))]
    false
}
