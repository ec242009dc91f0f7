//! Parsers for the node facts support archives carry: process listings, sysctls, mount tables and the
//! runtime's container listing. Each reads the plain-text output of the command the collector ran
//! (`ps`, `sysctl -a`, `cat /proc/mounts` or `mount`, `crictl ps -a`, `docker ps -a`); lines it does not
//! understand are skipped, never fatal.

use unstuck_model::{Fact, Mount, NodeFacts, RuntimeContainer};

/// Which fact a file holds (decided from its path by the layout router).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactKind {
    /// A process listing (`ps aux`, `ps -ef`, `ps -eLf`, `ps auxwwwm`, `ps -eo …nlwp…`).
    Ps,
    /// `sysctl -a` output (`key = value` lines), or a single `/proc/sys/...` value file.
    Sysctl,
    /// The value of `/proc/sys/kernel/pid_max`.
    PidMax,
    /// The value of `/proc/sys/kernel/threads-max`.
    ThreadsMax,
    /// `/proc/mounts` (fstab format) or `mount` output (`src on target type fs (opts)`).
    Mounts,
    /// `crictl ps -a` or `docker ps -a`.
    RuntimePs,
}

/// Parse `bytes` as `kind` into facts about `node`, citing `file`.
pub fn parse(kind: FactKind, node: &str, file: &str, bytes: &[u8]) -> NodeFacts {
    let text = String::from_utf8_lossy(bytes);
    let fact = |value| Some(Fact { value, file: file.to_string() });
    let mut f = NodeFacts { node: node.to_string(), ..Default::default() };
    match kind {
        FactKind::Ps => {
            let (procs, threads) = ps_counts(&text);
            f.processes = procs.and_then(fact);
            f.threads = threads.and_then(fact);
        }
        FactKind::Sysctl => {
            for line in text.lines() {
                // `sysctl -a` (`key = value`) or Troubleshoot's sysctl.json (`"key": "value",`).
                let Some((k, v)) = line.split_once('=').or_else(|| line.split_once(':')) else { continue };
                let unquote = |x: &str| x.trim().trim_end_matches(',').trim().trim_matches('"').to_string();
                let Ok(v) = unquote(v).parse::<u64>() else { continue };
                match unquote(k).as_str() {
                    "kernel.pid_max" => f.pid_max = fact(v),
                    "kernel.threads-max" => f.threads_max = fact(v),
                    _ => {}
                }
            }
        }
        FactKind::PidMax => f.pid_max = text.trim().parse().ok().and_then(fact),
        FactKind::ThreadsMax => f.threads_max = text.trim().parse().ok().and_then(fact),
        FactKind::Mounts => {
            f.mounts = text.lines().filter_map(mount_line).collect();
            f.mounts_file = Some(file.to_string());
        }
        FactKind::RuntimePs => {
            f.containers = runtime_ps(&text);
            f.containers_file = Some(file.to_string());
        }
    }
    f
}

/// Processes and (where the listing shows them) threads of a `ps` listing.
fn ps_counts(text: &str) -> (Option<u64>, Option<u64>) {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(header) = lines.next() else { return (None, None) };
    let cols: Vec<&str> = header.split_whitespace().collect();
    if !cols.iter().any(|c| matches!(*c, "PID" | "pid")) {
        return (None, None);
    }
    let nlwp = cols.iter().position(|c| matches!(*c, "NLWP" | "THCNT" | "nlwp"));
    let per_thread = cols.iter().any(|c| matches!(*c, "LWP" | "SPID" | "TID"));
    let pid_col = cols.iter().position(|c| matches!(*c, "PID" | "pid")).unwrap_or(1);
    let (mut rows, mut threads, mut procs, mut dash_rows) = (0u64, 0u64, 0u64, 0u64);
    let mut last_pid = String::new();
    for l in lines {
        rows += 1;
        let fields: Vec<&str> = l.split_whitespace().collect();
        if let Some(i) = nlwp {
            threads += fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(1);
        }
        // `ps auxm` / `ps -m`: a process row followed by one row per thread whose PID column is `-`.
        match fields.get(pid_col) {
            Some(&"-") => dash_rows += 1,
            Some(p) if per_thread && *p != last_pid => {
                procs += 1;
                last_pid = p.to_string();
            }
            Some(_) if per_thread => {}
            Some(_) => procs += 1,
            None => {}
        }
    }
    if rows == 0 {
        return (None, None);
    }
    if per_thread {
        (Some(procs), Some(rows))
    } else if nlwp.is_some() {
        (Some(procs), Some(threads))
    } else if dash_rows > 0 {
        (Some(procs), Some(dash_rows))
    } else {
        (Some(procs), None)
    }
}

/// One line of `/proc/mounts` (`src target fstype opts 0 0`) or of `mount` (`src on target type fs (opts)`).
fn mount_line(l: &str) -> Option<Mount> {
    let f: Vec<&str> = l.split_whitespace().collect();
    let unescape = |s: &str| s.replace("\\040", " ").replace("\\011", "\t");
    if f.len() >= 6 && f[1] == "on" && f[3] == "type" {
        return Some(Mount { source: f[0].into(), target: unescape(f[2]), fstype: f[4].into() });
    }
    if f.len() >= 4 && f[1].starts_with('/') && !f[2].is_empty() && f[2].bytes().all(|b| b != b'(') {
        return Some(Mount { source: f[0].into(), target: unescape(f[1]), fstype: f[2].into() });
    }
    None
}

/// `crictl ps -a` (CONTAINER IMAGE CREATED STATE NAME ATTEMPT POD ID [POD]) or `docker ps -a`
/// (CONTAINER ID IMAGE COMMAND CREATED STATUS PORTS NAMES): columns are separated by two or more spaces.
fn runtime_ps(text: &str) -> Vec<RuntimeContainer> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(header) = lines.next() else { return Vec::new() };
    // Column starts from the header (names may hold one space: "POD ID", "CONTAINER ID").
    let starts = column_starts(header);
    let names: Vec<String> = starts
        .iter()
        .enumerate()
        .map(|(i, &s)| header[s..starts.get(i + 1).copied().unwrap_or(header.len())].trim().to_string())
        .collect();
    let col = |n: &str| names.iter().position(|c| c == n);
    let (id, state, name, pod) = if col("STATE").is_some() {
        (col("CONTAINER"), col("STATE"), col("NAME"), col("POD").or(col("POD ID")))
    } else if col("STATUS").is_some() {
        (col("CONTAINER ID"), col("STATUS"), col("NAMES"), col("NAMES"))
    } else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for l in lines {
        // Cells by the same two-space rule (values never hold two spaces in a row in these listings,
        // except Docker's empty PORTS, which is why cells are read by header position).
        let cell = |i: Option<usize>| -> String {
            let Some(i) = i else { return String::new() };
            let s = starts[i].min(l.len());
            let e = starts.get(i + 1).copied().unwrap_or(l.len()).min(l.len());
            l.get(s..e).unwrap_or("").trim().to_string()
        };
        let c = RuntimeContainer { id: cell(id), name: cell(name), state: cell(state), pod: cell(pod) };
        if !c.id.is_empty() {
            out.push(c);
        }
    }
    out
}

/// Byte offsets where header columns start: after a run of two or more spaces.
fn column_starts(header: &str) -> Vec<usize> {
    let b = header.as_bytes();
    let mut v = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b' ' && (i == 0 || (i >= 2 && b[i - 1] == b' ' && b[i - 2] == b' ')) {
            v.push(i);
        }
        i += 1;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ps_listings() {
        let aux = "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n\
                   root           1  0.0  0.1 171500 13200 ?        Ss   Nov22   0:09 /usr/lib/systemd/systemd\n\
                   root        2231  2.1  1.0 2133028 98304 ?       Ssl  Nov22  31:02 /usr/bin/kubelet\n";
        let f = parse(FactKind::Ps, "n", "system/ps.txt", aux.as_bytes());
        assert_eq!(f.processes.as_ref().map(|x| x.value), Some(2));
        assert_eq!(f.threads, None);
        // ps -eLf: one row per thread.
        let elf = "UID          PID    PPID     LWP  C NLWP STIME TTY          TIME CMD\n\
                   root           1       0       1  0    1 Nov22 ?        00:00:09 /sbin/init\n\
                   root        2231       1    2231  0    3 Nov22 ?        00:10:00 /usr/bin/kubelet\n\
                   root        2231       1    2232  0    3 Nov22 ?        00:10:00 /usr/bin/kubelet\n\
                   root        2231       1    2233  0    3 Nov22 ?        00:10:00 /usr/bin/kubelet\n";
        let f = parse(FactKind::Ps, "n", "ps_-eLf", elf.as_bytes());
        assert_eq!(f.processes.map(|x| x.value), Some(2));
        // One row per thread: the rows are the threads (NLWP repeats on every row of a process).
        assert_eq!(f.threads.map(|x| x.value), Some(4));
        let nlwp = "  PID NLWP COMMAND\n    1    1 init\n 2231   57 kubelet\n";
        let f = parse(FactKind::Ps, "n", "ps-threads.txt", nlwp.as_bytes());
        assert_eq!((f.processes.map(|x| x.value), f.threads.map(|x| x.value)), (Some(2), Some(58)));
        // ps auxwwwm: thread rows have `-` as PID.
        let m = "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n\
                 root           1  0.0  0.1 171500 13200 ?        -    Nov22   0:09 /sbin/init\n\
                 root           -  0.0    -      -     - -        Ss   Nov22   0:09 -\n\
                 root        2231  2.1  1.0 2133028 98304 ?       -    Nov22  31:02 /usr/bin/kubelet\n\
                 root           -  0.0    -      -     - -        Ssl  Nov22   0:09 -\n\
                 root           -  0.0    -      -     - -        Ssl  Nov22   0:09 -\n";
        let f = parse(FactKind::Ps, "n", "ps_auxwwwm", m.as_bytes());
        assert_eq!((f.processes.map(|x| x.value), f.threads.map(|x| x.value)), (Some(2), Some(3)));
        // Not a ps listing at all.
        let f = parse(FactKind::Ps, "n", "x", b"\xff\xfe garbage\nmore");
        assert!(f.is_empty());
    }

    #[test]
    fn sysctls_and_value_files() {
        let s = "kernel.panic = 0\nkernel.pid_max = 4194304\nkernel.threads-max = 126355\nnet.ipv4.ip_forward = 1\n";
        let f = parse(FactKind::Sysctl, "n", "sysctls/sysctl_all.txt", s.as_bytes());
        assert_eq!(f.pid_max.map(|x| x.value), Some(4194304));
        assert_eq!(f.threads_max.map(|x| x.value), Some(126355));
        let f = parse(FactKind::PidMax, "n", "proc/sys/kernel/pid_max", b"32768\n");
        assert_eq!(f.pid_max.map(|x| (x.value, x.file)), Some((32768, "proc/sys/kernel/pid_max".into())));
        assert!(parse(FactKind::PidMax, "n", "f", b"lots\n").pid_max.is_none());
        let json = "{\n  \"kernel.pid_max\": \"32768\",\n  \"kernel.threads-max\": \"63704\"\n}\n";
        let f = parse(FactKind::Sysctl, "n", "host-collectors/system/sysctl.json", json.as_bytes());
        assert_eq!((f.pid_max.map(|x| x.value), f.threads_max.map(|x| x.value)), (Some(32768), Some(63704)));
    }

    #[test]
    fn mount_tables_in_both_forms() {
        let proc_mounts = "/dev/nvme0n1p1 / xfs rw,noatime 0 0\n\
            10.0.0.5:/export /var/lib/kubelet/pods/3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7c/volumes/kubernetes.io~nfs/data nfs4 rw,relatime,vers=4.1 0 0\n\
            tmpfs /run/with\\040space tmpfs rw 0 0\n";
        let f = parse(FactKind::Mounts, "n", "proc/mounts", proc_mounts.as_bytes());
        assert_eq!(f.mounts.len(), 3);
        assert_eq!(f.mounts[1].fstype, "nfs4");
        assert_eq!(f.mounts[2].target, "/run/with space");
        let mount = "10.0.0.5:/export on /var/lib/kubelet/pods/3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7c/volumes/kubernetes.io~nfs/data type nfs4 (rw,relatime)\n";
        let f = parse(FactKind::Mounts, "n", "mount_-l", mount.as_bytes());
        assert_eq!(f.mounts[0].pod_uid(), Some("3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7c"));
        assert_eq!(f.mounts_file.as_deref(), Some("mount_-l"));
    }

    #[test]
    fn runtime_listings() {
        let crictl = "CONTAINER           IMAGE               CREATED             STATE               NAME                ATTEMPT             POD ID              POD\n\
            9d3c1a2b4e5f6       nginx@sha256:abc    26 minutes ago      Running             web                 0                   7e8f9a0b1c2d3       web-6d9f7c8b5d-q7x2k\n\
            1a2b3c4d5e6f7       busybox             2 hours ago         Exited              init                0                   7e8f9a0b1c2d3       web-6d9f7c8b5d-q7x2k\n";
        let f = parse(FactKind::RuntimePs, "n", "crictl_ps_-a", crictl.as_bytes());
        assert_eq!(f.containers.len(), 2);
        assert_eq!(f.containers[0].name, "web");
        assert!(f.containers[0].is_running());
        assert_eq!(f.containers[0].pod, "web-6d9f7c8b5d-q7x2k");
        assert!(!f.containers[1].is_running());
        let docker = "CONTAINER ID   IMAGE          COMMAND                  CREATED       STATUS                     PORTS     NAMES\n\
            4c01db0b339c   nginx:1.25     \"/docker-entrypoint.…\"   2 hours ago   Up 2 hours                           k8s_web_web-6d9f7c8b5d-q7x2k_shop_3f1c2a9e_0\n\
            d7886598dbe2   busybox        \"sh\"                     3 hours ago   Exited (137) 2 hours ago             k8s_init_x\n";
        let f = parse(FactKind::RuntimePs, "n", "docker_ps_-a", docker.as_bytes());
        assert_eq!(f.containers.len(), 2);
        assert!(f.containers[0].is_running());
        assert_eq!(f.containers[1].state, "Exited (137) 2 hours ago");
    }
}
