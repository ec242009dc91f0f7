//! Recognising the archives people already have by their layout, and routing each file in them.
//!
//! Every format is recognised from its own paths (docs/input-formats.md cites the tool source that
//! writes each one), wherever a wrapping directory puts them, so a directory, a tar (gz, zst, xz) and
//! a zip are routed the same way, entry by entry, without a first pass over the archive.

use crate::facts::FactKind;

/// The input formats `diagnose` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    /// `kubectl cluster-info dump` (plus `_nodes/<node>/` logs): unstuck's own bundle layout.
    ClusterInfoDump,
    /// A Troubleshoot support bundle (`kubectl support-bundle`).
    SupportBundle,
    /// `oc adm must-gather`.
    MustGather,
    /// The EKS log collector (`eks-log-collector.sh`).
    EksLogCollector,
    /// AKS Periscope.
    AksPeriscope,
    /// `kind export logs`, or a k3s / RKE2 log directory laid out `<node>/<file>`.
    NodeLogDirs,
    /// `sos report` of one node.
    SosReport,
    /// A node's log file given by path (`kubelet.log`, `/var/log/messages`, `journalctl` output).
    NodeLogFile,
}

impl Format {
    pub const ALL: [Format; 8] = [
        Format::ClusterInfoDump,
        Format::SupportBundle,
        Format::MustGather,
        Format::EksLogCollector,
        Format::AksPeriscope,
        Format::NodeLogDirs,
        Format::SosReport,
        Format::NodeLogFile,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Format::ClusterInfoDump => "cluster-info dump",
            Format::SupportBundle => "support bundle (Troubleshoot)",
            Format::MustGather => "must-gather",
            Format::EksLogCollector => "EKS log collector",
            Format::AksPeriscope => "AKS Periscope",
            Format::NodeLogDirs => "node log directories (kind export logs, k3s, RKE2)",
            Format::SosReport => "sos report",
            Format::NodeLogFile => "node log files",
        }
    }

    /// What recognises it (for the error on an unrecognised layout).
    pub fn markers(self) -> &'static str {
        match self {
            Format::ClusterInfoDump => "nodes.json, <namespace>/pods.json, _nodes/<node>/<log>",
            Format::SupportBundle => {
                "cluster-resources/pods/<namespace>.json, cluster-resources/nodes.json, host-collectors/"
            }
            Format::MustGather => "namespaces/<namespace>/core/pods.yaml, cluster-scoped-resources/core/nodes/",
            Format::EksLogCollector => "eks_<instance-id>_<time>/ with kubelet/kubelet.log, system/ps.txt, sysctls/",
            Format::AksPeriscope => "aks-periscope/<node>/ with collector output files",
            Format::NodeLogDirs => "<node>/kubelet.log, <node>/containerd.log, <node>/journal.log",
            Format::SosReport => "sos_commands/, sos_reports/, proc/, var/log/",
            Format::NodeLogFile => "a file named kubelet.log, messages, syslog… or whose first line is a log line",
        }
    }

    /// The kinds of content the format normally holds: what a half-copied one is missing.
    pub(crate) fn expected(self) -> &'static [Content] {
        use Content::*;
        match self {
            Format::ClusterInfoDump => &[Pods, Events, Nodes],
            Format::SupportBundle => &[Pods, Events, Nodes, NodeLogs],
            Format::MustGather => &[Pods, Events, Nodes, NodeLogs],
            Format::EksLogCollector => &[NodeLogs, Processes, Sysctls],
            Format::AksPeriscope => &[NodeLogs],
            Format::NodeLogDirs => &[NodeLogs],
            Format::SosReport => &[NodeLogs, Processes, Sysctls, Mounts],
            Format::NodeLogFile => &[NodeLogs],
        }
    }
}

/// What a routed file holds, for the "found / missing" summary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Content {
    Pods,
    Events,
    Nodes,
    OtherKinds,
    NodeLogs,
    Processes,
    Sysctls,
    Mounts,
    RuntimeState,
}

impl Content {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Content::Pods => "pods",
            Content::Events => "events",
            Content::Nodes => "nodes",
            Content::OtherKinds => "workloads",
            Content::NodeLogs => "node logs",
            Content::Processes => "process listing",
            Content::Sysctls => "sysctls",
            Content::Mounts => "mount table",
            Content::RuntimeState => "runtime container listing",
        }
    }
}

/// Which node a node-side file is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum NodeRef {
    Named(String),
    /// The one host a single-node collector ran on; named later from the archive's hints and the Node
    /// objects (`resolve_host`).
    Host,
    /// A journal merged from several nodes (must-gather's `host_service_logs/masters/`): each line's
    /// host column names its node.
    PerLine,
}

/// Where one file goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Route {
    Manifest,
    /// A list of one kind: a `*List` (with or without `kind`, as typed Go clients write it), `kind: List`.
    List(&'static str),
    /// kubectl output of any kinds: one object, a List, several YAML documents.
    Objects,
    Log(NodeRef),
    Fact(NodeRef, FactKind),
    /// A file whose content names the host (sos `hostname`, EKS `system/instance-id.txt`).
    HostName,
    /// Troubleshoot's `hostos_info.json` (`{"name": HOSTNAME, …}`).
    HostInfoJson,
    /// `date` output saying when a node collection was taken (sos `sos_commands/date/date_--utc`).
    CollectedAt,
    /// A cluster-info dump's `<ns>/<pod>/logs.txt`: the pod's containers' own output.
    ContainerLog,
    /// One run's output of one container, in a file of its own (Troubleshoot's, must-gather's).
    ContainerRun(RunOutput),
    Ignore,
}

/// Which container's output a file holds, and of which run: `previous` is the run before the
/// container's current one (`kubectl logs --previous`), the newest that ended.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct RunOutput {
    pub namespace: String,
    pub pod: String,
    pub container: String,
    pub previous: bool,
    /// Troubleshoot names a container's previous run `<c>-previous.log`, which is also what the current
    /// run of a container named `<c>-previous` is called: that other reading of the file's name, taken
    /// when only the longer name crash-loops (`container_logs::resolve`).
    pub or_current_of: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Routed {
    pub format: Option<Format>,
    pub route: Route,
}

fn r(format: Format, route: Route) -> Routed {
    Routed { format: Some(format), route }
}

const IGNORE: Routed = Routed { format: None, route: Route::Ignore };

/// The node log files a collector copies, by name: the kubelet's, the runtime's, the journal, the
/// kernel's, and their rotations (`kubelet.log.1`, `kern.log.2.gz`, `messages-20240602`). (Container logs
/// of pods are not node logs.)
pub(crate) fn is_node_log_name(name: &str) -> bool {
    let base = crate::logs::rotation_base(name);
    let base = base.strip_suffix(".txt").or_else(|| base.strip_suffix(".log")).unwrap_or(base);
    matches!(
        base,
        "kubelet"
            | "kubelet_service"
            | "kubelet-service"
            | "containerd"
            | "containerd-log"
            | "crio"
            | "crio_service"
            | "docker"
            | "dockerd"
            | "journal"
            | "journalctl"
            | "kern"
            | "kernel"
            | "dmesg"
            | "messages"
            | "syslog"
            | "k3s"
            | "k3s-agent"
            | "rke2-server"
            | "rke2-agent"
            | "k3s-service"
            | "rke2-agent-service"
    ) || base.starts_with("messages-")
        || base.starts_with("syslog.")
}

/// EKS collector's top directory: `eks_<instance-id>_<time>`.
pub(crate) fn eks_instance(dir: &str) -> Option<&str> {
    let rest = dir.strip_prefix("eks_")?;
    let id = rest.split('_').next()?;
    id.starts_with("i-").then_some(id)
}

fn list_of(stem: &str) -> Option<&'static str> {
    Some(match stem {
        "pods" => "pods",
        "events" => "events",
        "nodes" => "nodes",
        "deployments" => "deployments",
        "replicasets" => "replicasets",
        "statefulsets" => "statefulsets",
        "daemonsets" => "daemonsets",
        "jobs" => "jobs",
        "pvcs" | "persistentvolumeclaims" => "persistentvolumeclaims",
        "leases" => "leases",
        _ => return None,
    })
}

/// The namespace a routed API file holds, where its path says so for certain:
/// `cluster-resources/<kind>/<ns>.json` (support bundle), `namespaces/<ns>/…` (must-gather). `None` for
/// cluster-scoped files and wherever the path may not name a namespace (a dump's `<dir>/<kind>.json` in an
/// archive can as well be `kubectl get -A` output in a wrapping directory): those are always read.
pub(crate) fn namespace_of(parts: &[String], route: &Routed) -> Option<String> {
    match (route.format, &route.route) {
        (_, Route::List("nodes")) => None,
        (Some(Format::SupportBundle), Route::List(_)) => parts.last()?.strip_suffix(".json").map(str::to_string),
        (Some(Format::MustGather), Route::List(_) | Route::Objects) => {
            let i = parts.iter().position(|p| p == "namespaces")?;
            parts.get(i + 1).cloned()
        }
        (_, Route::ContainerRun(run)) => Some(run.namespace.clone()),
        _ => None,
    }
}

fn run_output(namespace: &str, pod: &str, container: &str, previous: bool, or_current_of: Option<&str>) -> Route {
    match [namespace, pod, container].iter().any(|s| s.is_empty()) {
        true => Route::Ignore,
        false => Route::ContainerRun(RunOutput {
            namespace: namespace.to_string(),
            pod: pod.to_string(),
            container: container.to_string(),
            previous,
            or_current_of: or_current_of.map(str::to_string),
        }),
    }
}

/// AKS Periscope's zip of one node's keys: `<run>/<node>/<node>.zip`.
pub(crate) fn is_node_zip(parts: &[String]) -> bool {
    let n = parts.len();
    n >= 2 && parts[n - 1].strip_suffix(".zip").is_some_and(|stem| !stem.is_empty() && stem == parts[n - 2])
}

/// Route one file by its path components (relative to the input, wrapping directories included).
pub(crate) fn route(parts: &[String]) -> Routed {
    let n = parts.len();
    if n == 0 {
        return IGNORE;
    }
    let name = parts[n - 1].as_str();
    let pos = |c: &str| parts.iter().position(|p| p == c);

    // unstuck's own layout: `_nodes/<node>/<file>` (one level of subdirectories).
    if let Some(i) = pos("_nodes") {
        if n >= i + 3 && name != "containers.json" {
            return r(Format::ClusterInfoDump, Route::Log(NodeRef::Named(parts[i + 1].clone())));
        }
        return IGNORE;
    }
    if name == "unstuck-bundle.json" {
        return r(Format::ClusterInfoDump, Route::Manifest);
    }

    // Troubleshoot: cluster-resources/<kind>/<namespace>.json, cluster-resources/nodes.json.
    if let Some(c) = pos("cluster-resources") {
        let rest = &parts[c + 1..];
        return match rest {
            [f] if f == "nodes.json" => r(Format::SupportBundle, Route::List("nodes")),
            // The unhealthy pods' containers: `pods/logs/<ns>/<pod>/<container>.log` and
            // `<container>-previous.log` (`savePodLogs`), `<container>-logs-errors.log` when it failed.
            [p, l, ns, pod, f] if p == "pods" && l == "logs" => match f.strip_suffix(".log") {
                Some(stem) if !stem.ends_with("-logs-errors") => {
                    let run = match stem.strip_suffix("-previous") {
                        Some(c) => run_output(ns, pod, c, true, Some(stem)),
                        None => run_output(ns, pod, stem, false, None),
                    };
                    r(Format::SupportBundle, run)
                }
                _ => r(Format::SupportBundle, Route::Ignore),
            },
            [kind, f] if f.ends_with(".json") => match list_of(kind) {
                Some(stem) => r(Format::SupportBundle, Route::List(stem)),
                None => r(Format::SupportBundle, Route::Ignore),
            },
            _ => r(Format::SupportBundle, Route::Ignore),
        };
    }
    if let Some(h) = pos("host-collectors") {
        return route_host_collector(&parts[h + 1..]);
    }

    // must-gather: namespaces/<ns>/<group>/<kind>.yaml, cluster-scoped-resources/core/nodes/<node>.yaml.
    if let Some(i) = pos("namespaces") {
        if n == i + 4 && name.ends_with(".yaml") {
            let stem = &name[..name.len() - 5];
            if let Some(kind) = list_of(stem) {
                return r(Format::MustGather, Route::List(kind));
            }
            return r(Format::MustGather, Route::Ignore);
        }
        // `oc adm inspect`'s container output: namespaces/<ns>/pods/<pod>/<container>/<container>/logs/
        // current.log and previous.log (`.insecure.log` when the kubelet's certificate was not trusted).
        if n == i + 8 && parts[i + 2] == "pods" && parts[i + 4] == parts[i + 5] && parts[i + 6] == "logs" {
            let run = match name {
                "current.log" | "current.insecure.log" => Some(false),
                "previous.log" | "previous.insecure.log" => Some(true),
                _ => None,
            };
            if let Some(previous) = run {
                return r(Format::MustGather, run_output(&parts[i + 1], &parts[i + 3], &parts[i + 4], previous, None));
            }
        }
        // Leases are gathered flattened: namespaces/<ns>/coordination.k8s.io/leases/<name>.yaml.
        if n == i + 5 && parts[i + 2] == "coordination.k8s.io" && parts[i + 3] == "leases" && name.ends_with(".yaml") {
            return r(Format::MustGather, Route::Objects);
        }
        if n > i + 2 && parts.get(i + 2).is_some_and(|p| p == "core" || p == "apps" || p == "pods" || p == "batch") {
            return r(Format::MustGather, Route::Ignore);
        }
    }
    if let Some(i) = pos("cluster-scoped-resources") {
        let rest = &parts[i + 1..];
        return match rest {
            [g, k, _] if g == "core" && k == "nodes" && name.ends_with(".yaml") => {
                r(Format::MustGather, Route::Objects)
            }
            [g, f] if g == "core" && f == "nodes.yaml" => r(Format::MustGather, Route::List("nodes")),
            _ => r(Format::MustGather, Route::Ignore),
        };
    }
    if let Some(i) = pos("host_service_logs") {
        // host_service_logs/<role>/<unit>_service.log: one journal merged from every node of that role
        // (`oc adm node-logs --role=…`); host_service_logs/<node>/… for a single node.
        if n == i + 3 && is_node_log_name(name) {
            let node = match parts[i + 1].as_str() {
                "masters" | "workers" => NodeRef::PerLine,
                one => NodeRef::Named(one.to_string()),
            };
            return r(Format::MustGather, Route::Log(node));
        }
        return r(Format::MustGather, Route::Ignore);
    }

    // EKS log collector: eks_<instance>_<time>/<area>/<file>; its own tarball has no top directory
    // (`./kubelet/kubelet.log`), so its areas are recognised wherever they are.
    if let Some(i) = parts.iter().position(|p| eks_instance(p).is_some()) {
        return route_eks(&parts[i + 1..]);
    }
    if n >= 2 {
        let eks = route_eks(&parts[n - 2..]);
        if eks.route != Route::Ignore {
            return eks;
        }
    }

    // sos report: sos_commands/<plugin>/<command>, proc/..., var/log/..., hostname.
    if let Some(i) = parts.iter().position(|p| p == "sos_commands" || p == "sos_reports" || p == "sos_logs") {
        return route_sos(&parts[i..]);
    }
    if let Some(i) = parts.iter().position(|p| p.starts_with("sosreport-")) {
        return route_sos(&parts[i + 1..]);
    }

    // AKS Periscope: <run>/<node>/<key> (blob download) or <collector>/<key> (a node's zip), keys without
    // extension: `kubelet` and `docker` are `journalctl -u` output.
    if matches!(name, "kubelet" | "docker") && n >= 2 {
        let node = match parts[n - 2].as_str() {
            "systemlogs" if n >= 3 => NodeRef::Named(parts[n - 3].clone()),
            "systemlogs" => NodeRef::Host,
            dir => NodeRef::Named(dir.to_string()),
        };
        return r(Format::AksPeriscope, Route::Log(node));
    }
    if matches!(name, "kubeletcmd" | "virtualmachine" | "networkoutbound" | "networkconfig") {
        return r(Format::AksPeriscope, Route::Ignore);
    }

    // A cluster-info dump's container logs: <namespace>/<pod>/logs.txt.
    if name == "logs.txt" && n >= 3 {
        return r(Format::ClusterInfoDump, Route::ContainerLog);
    }
    // A cluster-info dump: nodes.json and <namespace>/<kind>.json (or .yaml).
    if let Some(stem) = name.strip_suffix(".json").or_else(|| name.strip_suffix(".yaml")) {
        if let Some((k, _)) = crate::KINDS.iter().find(|(k, _)| *k == stem) {
            return r(Format::ClusterInfoDump, Route::List(k));
        }
    }
    // kind export logs / k3s / RKE2: <node>/<log file>; RKE2's and k3s's own directories
    // (`agent/logs/kubelet.log`, `agent/containerd/containerd.log`) are one node's.
    if n >= 2 && is_node_log_name(name) {
        let node = match parts[n - 2].as_str() {
            "logs" | "containerd" | "agent" | "log" => NodeRef::Host,
            dir => NodeRef::Named(dir.to_string()),
        };
        return r(Format::NodeLogDirs, Route::Log(node));
    }
    if name == "kind-version.txt" || name == "kubernetes-version.txt" {
        return r(Format::NodeLogDirs, Route::Ignore);
    }
    if n == 1 && matches!(name, "must-gather.logs" | "event-filter.html") {
        return r(Format::MustGather, Route::Ignore);
    }
    IGNORE
}

fn route_eks(rest: &[String]) -> Routed {
    let e = |route| r(Format::EksLogCollector, route);
    let h = NodeRef::Host;
    match rest {
        [area, f] => match (area.as_str(), f.as_str()) {
            ("kubelet", "kubelet.log") => e(Route::Log(h)),
            ("containerd", "containerd-log.txt") => e(Route::Log(h)),
            ("docker", "docker.log") => e(Route::Log(h)),
            ("system", "ps.txt") => e(Route::Fact(h, FactKind::Ps)),
            ("system", "ps-threads.txt") => e(Route::Fact(h, FactKind::Ps)),
            ("system", "instance-id.txt") => e(Route::HostName),
            ("kernel", "dmesg.current") => e(Route::Log(h)),
            ("sysctls", "sysctl_all.txt") => e(Route::Fact(h, FactKind::Sysctl)),
            ("storage", "mounts.txt") => e(Route::Fact(h, FactKind::Mounts)),
            ("var_log", "messages" | "syslog") => e(Route::Log(h)),
            _ => Routed { format: None, route: Route::Ignore },
        },
        _ => e(Route::Ignore),
    }
}

fn route_sos(rest: &[String]) -> Routed {
    let s = |route| r(Format::SosReport, route);
    let h = NodeRef::Host;
    let path: Vec<&str> = rest.iter().map(|p| p.as_str()).collect();
    match path.as_slice() {
        ["hostname"] | ["sos_commands", "host", "hostname"] => s(Route::HostName),
        ["sos_commands", "date", "date_--utc" | "date"] => s(Route::CollectedAt),
        ["sos_commands", "process", f] if f.starts_with("ps_") => {
            // ps_auxwwwm (threads as rows), ps_-elfL (threads), ps_auxwww, ps_-elf…: the richest wins
            // on merge, as threads are only counted by the listings that show them.
            s(Route::Fact(h, FactKind::Ps))
        }
        ["sos_commands", "kernel", f] if f.starts_with("sysctl_-a") => s(Route::Fact(h, FactKind::Sysctl)),
        ["proc", "sys", "kernel", "pid_max"] => s(Route::Fact(h, FactKind::PidMax)),
        ["proc", "sys", "kernel", "threads-max"] => s(Route::Fact(h, FactKind::ThreadsMax)),
        ["proc", "mounts"] => s(Route::Fact(h, FactKind::Mounts)),
        ["sos_commands", "filesys", f] if f.starts_with("mount_-l") => s(Route::Fact(h, FactKind::Mounts)),
        ["sos_commands", "kernel", "dmesg"] => s(Route::Log(h)),
        ["sos_commands", "logs", "journalctl_--no-pager"] => s(Route::Log(h)),
        ["sos_commands", "containerd" | "docker" | "crio", f] if f.starts_with("journalctl_--no-pager_--unit_") => {
            s(Route::Log(h))
        }
        ["sos_commands", plugin, f]
            if matches!(*plugin, "crio" | "containerd" | "docker" | "cri_o")
                && (f.starts_with("crictl_ps_-a") || f.starts_with("docker_ps_-a")) =>
        {
            s(Route::Fact(h, FactKind::RuntimePs))
        }
        ["sos_commands", "kubernetes", ..] if path.last().is_some_and(|f| f.contains("_-o_json")) => s(Route::Objects),
        ["var", "log", f] if is_node_log_name(f) => s(Route::Log(h)),
        _ => s(Route::Ignore),
    }
}

fn route_host_collector(rest: &[String]) -> Routed {
    let b = |route| r(Format::SupportBundle, route);
    // Local host collectors write `host-collectors/<area>/…`; remote ones (run on every node by a
    // DaemonSet) `host-collectors/<node>/<area>/…`.
    const AREAS: [&str; 4] = ["journald", "system", "run-host", "copy"];
    let (node, rest) = match rest.first() {
        Some(a) if AREAS.contains(&a.as_str()) => (NodeRef::Host, rest),
        Some(n) if rest.len() >= 3 => (NodeRef::Named(n.clone()), &rest[1..]),
        _ => return b(Route::Ignore),
    };
    let [area, .., name] = rest else { return b(Route::Ignore) };
    let stem = name.strip_suffix(".txt").unwrap_or(name);
    match area.as_str() {
        "journald" if name.ends_with(".txt") && !name.ends_with("-stderr.txt") => b(Route::Log(node)),
        "system" if name == "sysctl.json" => b(Route::Fact(node, FactKind::Sysctl)),
        "system" if name == "hostos_info.json" && node == NodeRef::Host => b(Route::HostInfoJson),
        // `run` collectors: the command is the spec's; named by what they ran.
        "run-host" if name.ends_with(".txt") && !name.ends_with("-stderr.txt") => {
            let has = |w: &str| stem.split(|c: char| !c.is_ascii_alphanumeric()).any(|t| t.eq_ignore_ascii_case(w));
            if has("crictl") || (has("docker") && has("ps")) {
                b(Route::Fact(node, FactKind::RuntimePs))
            } else if has("ps") || has("processes") {
                b(Route::Fact(node, FactKind::Ps))
            } else if has("mount") || has("mounts") {
                b(Route::Fact(node, FactKind::Mounts))
            } else if has("sysctl") {
                b(Route::Fact(node, FactKind::Sysctl))
            } else if has("dmesg") || has("journalctl") || has("kubelet") || has("containerd") {
                b(Route::Log(node))
            } else {
                b(Route::Ignore)
            }
        }
        _ if is_node_log_name(name) => b(Route::Log(node)),
        _ => b(Route::Ignore),
    }
}

/// What the input turned out to be, from the formats its files were routed to.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub routed: std::collections::BTreeMap<Format, usize>,
    pub content: std::collections::BTreeSet<Content>,
}

impl Tally {
    pub fn saw(&mut self, routed: &Routed) {
        if let Some(f) = routed.format {
            // A cluster-info dump's kind files also appear inside other layouts' wrappers: they only
            // decide the format when nothing else matched.
            *self.routed.entry(f).or_default() += 1;
        }
    }

    /// The recognised format: the one most files were routed to (a cluster-info dump only when
    /// nothing else was recognised, since its names are the least specific).
    pub fn format(&self) -> Option<Format> {
        self.routed
            .iter()
            .filter(|(f, _)| **f != Format::ClusterInfoDump)
            .max_by_key(|(_, n)| **n)
            .map(|(f, _)| *f)
            .or_else(|| self.routed.contains_key(&Format::ClusterInfoDump).then_some(Format::ClusterInfoDump))
    }

    pub fn missing(&self, f: Format) -> Vec<&'static str> {
        f.expected().iter().filter(|c| !self.content.contains(c)).map(|c| c.name()).collect()
    }
}

/// The error text for an input whose layout is none of the known formats.
pub(crate) fn unrecognised() -> String {
    let mut s = String::from("no known input layout was recognised; looked for:");
    for f in Format::ALL {
        s.push_str(&format!("\n  - {}: {}", f.name(), f.markers()));
    }
    s.push_str("\n  - kubectl get -o json|yaml output (a file)");
    s.push_str("\n  - kubectl describe pod|node text, or kubectl get pods|nodes|events tables (a file)");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route_of(p: &str) -> Routed {
        route(&p.split('/').map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn namespace_of_a_file_only_where_its_path_says_so() {
        let ns = |p: &str| namespace_of(&p.split('/').map(String::from).collect::<Vec<_>>(), &route_of(p));
        assert_eq!(ns("sb-2026/cluster-resources/pods/shop.json").as_deref(), Some("shop"));
        assert_eq!(ns("sb-2026/cluster-resources/events/kube-system.json").as_deref(), Some("kube-system"));
        assert_eq!(ns("sb-2026/cluster-resources/nodes.json"), None);
        assert_eq!(ns("mg/quay-io-x/namespaces/shop/core/pods.yaml").as_deref(), Some("shop"));
        assert_eq!(
            ns("mg/q/namespaces/kube-node-lease/coordination.k8s.io/leases/n1.yaml").as_deref(),
            Some("kube-node-lease")
        );
        assert_eq!(ns("mg/q/cluster-scoped-resources/core/nodes/ip-10-0-1-23.yaml"), None);
        // A dump's files in an archive: the directory may be a wrapper, not a namespace.
        assert_eq!(ns("dump/shop/pods.json"), None);
        assert_eq!(ns("dump/_nodes/n1/kubelet.log"), None);
        // Container output: the namespace its path names.
        assert_eq!(ns("sb/cluster-resources/pods/logs/shop/web/web-previous.log").as_deref(), Some("shop"));
        assert_eq!(ns("mg/q/namespaces/shop/pods/web/web/web/logs/previous.log").as_deref(), Some("shop"));
    }

    #[test]
    fn routes_each_layout() {
        use Route::*;
        let named = |n: &str| NodeRef::Named(n.into());
        // Pod `web` in namespace `shop`.
        let run = |c: &str, previous: bool| {
            // A support bundle's `<c>-previous.log` may also be the current run of a container so named.
            let sb_previous = previous.then(|| format!("{c}-previous"));
            ContainerRun(RunOutput {
                namespace: "shop".into(),
                pod: "web".into(),
                container: c.into(),
                previous,
                or_current_of: sb_previous,
            })
        };
        let mg = |c: &str, previous: bool| {
            ContainerRun(RunOutput {
                namespace: "shop".into(),
                pod: "web".into(),
                container: c.into(),
                previous,
                or_current_of: None,
            })
        };
        let cases: &[(&str, Option<Format>, Route)] = &[
            ("dump/_nodes/n1/kubelet.log", Some(Format::ClusterInfoDump), Log(named("n1"))),
            ("dump/_nodes/n1/journal/x.log", Some(Format::ClusterInfoDump), Log(named("n1"))),
            ("dump/shop/pods.json", Some(Format::ClusterInfoDump), List("pods")),
            ("nodes.json", Some(Format::ClusterInfoDump), List("nodes")),
            ("sb-2026/cluster-resources/pods/shop.json", Some(Format::SupportBundle), List("pods")),
            ("sb-2026/cluster-resources/pvcs/shop.json", Some(Format::SupportBundle), List("persistentvolumeclaims")),
            ("sb-2026/cluster-resources/nodes.json", Some(Format::SupportBundle), List("nodes")),
            ("sb-2026/cluster-resources/pods/logs/shop/web/web.log", Some(Format::SupportBundle), run("web", false)),
            (
                "sb-2026/cluster-resources/pods/logs/shop/web/web-previous.log",
                Some(Format::SupportBundle),
                run("web", true),
            ),
            ("sb-2026/cluster-resources/pods/logs/shop/web/web-logs-errors.log", Some(Format::SupportBundle), Ignore),
            ("sb-2026/cluster-resources/pods/logs/shop/web/notes.txt", Some(Format::SupportBundle), Ignore),
            ("mg/q/namespaces/shop/pods/web/web/web/logs/current.log", Some(Format::MustGather), mg("web", false)),
            ("mg/q/namespaces/shop/pods/web/web/web/logs/previous.log", Some(Format::MustGather), mg("web", true)),
            (
                "mg/q/namespaces/shop/pods/web/web/web/logs/previous.insecure.log",
                Some(Format::MustGather),
                mg("web", true),
            ),
            (
                "mg/q/namespaces/shop/pods/web/web/web/logs/rotated/0.log.20250217-072641.gz",
                Some(Format::MustGather),
                Ignore,
            ),
            ("mg/q/namespaces/shop/pods/web/web/other/logs/current.log", Some(Format::MustGather), Ignore),
            ("mg/q/namespaces/shop/pods/web/web.yaml", Some(Format::MustGather), Ignore),
            ("mg/quay-io-x/namespaces/shop/core/pods.yaml", Some(Format::MustGather), List("pods")),
            ("mg/quay-io-x/namespaces/shop/apps/deployments.yaml", Some(Format::MustGather), List("deployments")),
            ("mg/q/cluster-scoped-resources/core/nodes/ip-10-0-1-23.yaml", Some(Format::MustGather), Objects),
            (
                "eks_i-0123456789abcdef0_2026-11-23_1045-UTC_0.7.6/kubelet/kubelet.log",
                Some(Format::EksLogCollector),
                Log(NodeRef::Host),
            ),
            (
                "eks_i-0123456789abcdef0_2026-11-23_1045-UTC_0.7.6/system/ps.txt",
                Some(Format::EksLogCollector),
                Fact(NodeRef::Host, FactKind::Ps),
            ),
            (
                "sosreport-n1-2026/sos_commands/process/ps_auxwwwm",
                Some(Format::SosReport),
                Fact(NodeRef::Host, FactKind::Ps),
            ),
            ("sosreport-n1-2026/proc/mounts", Some(Format::SosReport), Fact(NodeRef::Host, FactKind::Mounts)),
            ("sosreport-n1-2026/hostname", Some(Format::SosReport), HostName),
            ("sosreport-n1-2026/sos_commands/date/date_--utc", Some(Format::SosReport), CollectedAt),
            ("sosreport-n1-2026/sos_commands/date/hwclock", Some(Format::SosReport), Ignore),
            ("logs/kind-worker/kubelet.log", Some(Format::NodeLogDirs), Log(named("kind-worker"))),
            ("logs/kind-worker/containerd.log", Some(Format::NodeLogDirs), Log(named("kind-worker"))),
            ("logs/kind-worker/kubelet.log.1", Some(Format::NodeLogDirs), Log(named("kind-worker"))),
            ("sosreport-n1-2026/var/log/kern.log.2.gz", Some(Format::SosReport), Log(NodeRef::Host)),
            ("sosreport-n1-2026/var/log/messages-20240602", Some(Format::SosReport), Log(NodeRef::Host)),
            ("sosreport-n1-2026/var/log/kubelet.log.xz", Some(Format::SosReport), Ignore),
            ("sosreport-n1-2026/var/log/kubelet-2", Some(Format::SosReport), Ignore),
            ("logs/kind-worker/pods/shop_web_uid/web/0.log", None, Ignore),
            ("README.md", None, Ignore),
        ];
        for (p, f, want) in cases {
            let got = route_of(p);
            assert_eq!((&got.format, &got.route), (f, want), "{p}");
        }
    }

    #[test]
    fn eks_instance_from_dir_name() {
        assert_eq!(eks_instance("eks_i-0123456789abcdef0_2026-11-23_1045-UTC_0.7.6"), Some("i-0123456789abcdef0"));
        assert_eq!(eks_instance("eks_logs"), None);
    }

    #[test]
    fn tally_prefers_specific_formats_and_lists_what_is_missing() {
        let mut t = Tally::default();
        t.saw(&route_of("sb/cluster-resources/pods/a.json"));
        t.saw(&route_of("x/nodes.json"));
        assert_eq!(t.format(), Some(Format::SupportBundle));
        t.content.insert(Content::Pods);
        assert_eq!(t.missing(Format::SupportBundle), vec!["events", "nodes", "node logs"]);
        let mut d = Tally::default();
        d.saw(&route_of("b/nodes.json"));
        assert_eq!(d.format(), Some(Format::ClusterInfoDump));
        assert!(unrecognised().contains("must-gather"));
    }
}
