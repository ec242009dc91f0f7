//! What node-side collectors (sos report, the EKS log collector, a support bundle's host collectors)
//! recorded about a node itself: the facts the API cannot give. Each fact keeps the file it came from,
//! so a rule can cite it as evidence.

/// One value read off a node, with the input file it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fact<T> {
    pub value: T,
    /// Path inside the input (`sos_commands/process/ps_auxwwwm`, `sysctls/sysctl_all.txt`…).
    pub file: String,
}

/// A mounted filesystem from the node's mount table (`/proc/mounts`, `mount` output).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    pub source: String,
    pub target: String,
    pub fstype: String,
}

impl Mount {
    /// Filesystems whose unmount can hang on a server that went away.
    pub fn is_network(&self) -> bool {
        let t = self.fstype.as_str();
        matches!(t, "nfs" | "nfs4" | "cifs" | "smb3" | "smbfs" | "ceph" | "glusterfs" | "9p" | "lustre")
            || t.starts_with("fuse.")
    }

    /// The pod UID of a kubelet volume mount (`/var/lib/kubelet/pods/<uid>/volumes/…` or
    /// `…/volume-subpaths/…`), wherever the kubelet root is.
    pub fn pod_uid(&self) -> Option<&str> {
        let i = self.target.find("/pods/")? + "/pods/".len();
        let rest = &self.target[i..];
        let uid = &rest[..rest.find('/')?];
        (uid.len() == 36 && uid.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-')).then_some(uid)
    }
}

/// A container as the node's runtime listed it (`crictl ps -a`, `docker ps -a`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeContainer {
    /// Container ID as listed (often shortened to 12 or 13 characters).
    pub id: String,
    pub name: String,
    /// `Running`, `Exited`, `Created`, `Unknown`, or Docker's `Up 3 hours` / `Exited (137) 2 hours ago`.
    pub state: String,
    /// The pod, where the listing names it (`crictl ps` has a POD ID column and, newer, a POD name).
    pub pod: String,
}

impl RuntimeContainer {
    pub fn is_running(&self) -> bool {
        self.state.eq_ignore_ascii_case("running") || self.state.starts_with("Up ")
    }
}

/// Everything known about one node beyond its API object and logs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeFacts {
    pub node: String,
    /// `kernel.pid_max`.
    pub pid_max: Option<Fact<u64>>,
    /// `kernel.threads-max`.
    pub threads_max: Option<Fact<u64>>,
    /// Processes in the node's process listing.
    pub processes: Option<Fact<u64>>,
    /// Threads (tasks) in the listing, where it shows them (`ps -eLf`, `ps auxwwwm`, an NLWP column).
    pub threads: Option<Fact<u64>>,
    /// The mount table, and the file it came from.
    pub mounts: Vec<Mount>,
    pub mounts_file: Option<String>,
    /// The runtime's container listing, and the file it came from.
    pub containers: Vec<RuntimeContainer>,
    pub containers_file: Option<String>,
}

impl NodeFacts {
    pub fn is_empty(&self) -> bool {
        self.pid_max.is_none()
            && self.threads_max.is_none()
            && self.processes.is_none()
            && self.threads.is_none()
            && self.mounts_file.is_none()
            && self.containers_file.is_none()
    }

    /// Tasks against the lower of `pid_max` and `threads-max`, when both sides are known:
    /// `(tasks, tasks' file, limit, limit's name, limit's file)`.
    pub fn task_pressure(&self) -> Option<(u64, &str, u64, &'static str, &str)> {
        let used = self.threads.as_ref().or(self.processes.as_ref())?;
        let limit = [(self.pid_max.as_ref(), "kernel.pid_max"), (self.threads_max.as_ref(), "kernel.threads-max")]
            .into_iter()
            .filter_map(|(f, n)| f.map(|f| (f, n)))
            .min_by_key(|(f, _)| f.value)?;
        Some((used.value, used.file.as_str(), limit.0.value, limit.1, limit.0.file.as_str()))
    }

    /// Merge facts read from another file about the same node (first value wins).
    pub fn merge(&mut self, o: NodeFacts) {
        fn keep<T>(a: &mut Option<T>, b: Option<T>) {
            if a.is_none() {
                *a = b;
            }
        }
        keep(&mut self.pid_max, o.pid_max);
        keep(&mut self.threads_max, o.threads_max);
        keep(&mut self.processes, o.processes);
        keep(&mut self.threads, o.threads);
        if self.mounts_file.is_none() && o.mounts_file.is_some() {
            self.mounts = o.mounts;
            self.mounts_file = o.mounts_file;
        }
        if self.containers_file.is_none() && o.containers_file.is_some() {
            self.containers = o.containers;
            self.containers_file = o.containers_file;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mount_pod_uid_and_kind() {
        let m = Mount {
            source: "10.0.0.5:/export".into(),
            target: "/var/lib/kubelet/pods/3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7c/volumes/kubernetes.io~nfs/data".into(),
            fstype: "nfs4".into(),
        };
        assert_eq!(m.pod_uid(), Some("3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7c"));
        assert!(m.is_network());
        let root = Mount { source: "/dev/nvme0n1p1".into(), target: "/".into(), fstype: "xfs".into() };
        assert_eq!(root.pod_uid(), None);
        assert!(!root.is_network());
        let short = Mount { target: "/var/lib/kubelet/pods/abc/volumes".into(), ..root };
        assert_eq!(short.pod_uid(), None);
    }

    #[test]
    fn task_pressure_uses_the_lower_limit() {
        let f = |v, file: &str| Some(Fact { value: v, file: file.into() });
        let mut n = NodeFacts { processes: f(400, "ps"), pid_max: f(32768, "pid_max"), ..Default::default() };
        assert_eq!(n.task_pressure(), Some((400, "ps", 32768, "kernel.pid_max", "pid_max")));
        n.threads = f(31000, "ps -eLf");
        n.threads_max = f(30000, "threads-max");
        assert_eq!(n.task_pressure(), Some((31000, "ps -eLf", 30000, "kernel.threads-max", "threads-max")));
        assert_eq!(NodeFacts::default().task_pressure(), None);
    }
}
