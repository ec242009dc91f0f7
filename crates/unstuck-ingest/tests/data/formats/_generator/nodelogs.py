"""Node-side text: kubelet/containerd/kernel messages, ps, sysctl, mounts, ctr listings."""
from datetime import datetime, timedelta, timezone
import random

from objects import (NODE, WEB_UID, WEB_POD, WEB_CID, WEB_SID, API_POD, API_UID, API_CID, API_SID,
                     NS, h, uuid_from)

UTC = timezone.utc
BOOT = datetime(2026, 11, 16, 8, 0, 0, 0, tzinfo=UTC)
PREV_BOOT = datetime(2026, 11, 9, 7, 58, 40, tzinfo=UTC)
KUBELET_PID = 2231
CONTAINERD_PID = 2087


def T(s):
    """'2026-11-23 10:19:30.512345' -> aware datetime."""
    return datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f").replace(tzinfo=UTC)


def klog(sev, t, src, msg):
    return f"{sev}{t:%m%d %H:%M:%S}.{t.microsecond:06d}    {KUBELET_PID} {src}] {msg}"


def q(s):
    """klog/logrus style quoting of a string value (Go %q for ASCII)."""
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


DEADLINE = "rpc error: code = DeadlineExceeded desc = context deadline exceeded"
WEB = f"{NS}/{WEB_POD}"
API = f"{NS}/{API_POD}"


def kubelet_lines(runtime="containerd"):
    """[(datetime, message)] for the kubelet unit (klog messages)."""
    rt = runtime
    out = []
    out.append((T("2026-11-16 08:01:01.204518"), klog("I", T("2026-11-16 08:01:01.204518"), "server.go:487",
                '"Kubelet version" kubeletVersion="v1.29.0-eks-5e0fdde"')))
    out.append((T("2026-11-16 08:01:02.611093"), klog("I", T("2026-11-16 08:01:02.611093"), "kubelet_node_status.go:76",
                f'"Successfully registered node" node={q(NODE)}')))
    out.append((T("2026-11-16 08:01:19.002215"), klog("I", T("2026-11-16 08:01:19.002215"), "kubelet_node_status.go:497",
                f'"Fast updating node status as it just became ready"')))
    # web pod start
    t = T("2026-11-23 09:30:11.402917")
    out.append((t, klog("I", t, "kubelet.go:2415", f'"SyncLoop ADD" source="api" pods=[{q(WEB)}]')))
    t = T("2026-11-23 09:30:11.520331")
    out.append((t, klog("I", t, "reconciler_common.go:258",
                        '"operationExecutor.MountVolume started for volume \\"data\\" (UniqueName: \\"kubernetes.io/nfs/'
                        + WEB_UID + '-data\\") pod \\"' + WEB_POD + '\\" (UID: \\"' + WEB_UID + '\\") " pod='
                        + q(WEB))))
    t = T("2026-11-23 09:30:12.118734")
    out.append((t, klog("I", t, "operation_generator.go:721",
                        '"MountVolume.SetUp succeeded for volume \\"data\\" (UniqueName: \\"kubernetes.io/nfs/'
                        + WEB_UID + '-data\\") pod \\"' + WEB_POD + '\\" (UID: \\"' + WEB_UID + '\\") " pod='
                        + q(WEB))))
    t = T("2026-11-23 09:30:14.876002")
    out.append((t, klog("I", t, "kubelet.go:2447",
                        f'"SyncLoop (PLEG): event for pod" pod={q(WEB)} event={{"ID":"{WEB_UID}","Type":"ContainerStarted","Data":"{WEB_CID}"}}')))
    # api pod start
    t = T("2026-11-23 10:05:12.451208")
    out.append((t, klog("I", t, "kubelet.go:2415", f'"SyncLoop ADD" source="api" pods=[{q(API)}]')))
    t = T("2026-11-23 10:05:15.309187")
    out.append((t, klog("I", t, "kubelet.go:2447",
                        f'"SyncLoop (PLEG): event for pod" pod={q(API)} event={{"ID":"{API_UID}","Type":"ContainerStarted","Data":"{API_CID}"}}')))
    t = T("2026-11-23 10:05:26.013877")
    out.append((t, klog("I", t, "kubelet.go:2519",
                        f'"SyncLoop (probe)" probe="readiness" status="ready" pod={q(API)}')))
    # deletion of web at 10:19:30
    t = T("2026-11-23 10:19:30.508771")
    out.append((t, klog("I", t, "kubelet.go:2431", f'"SyncLoop UPDATE" source="api" pods=[{q(WEB)}]')))
    cycles = [T("2026-11-23 10:19:30.517203")]
    grace = [30]
    # each retry: StopContainer (grace + 2m) then StopPodSandbox (2m)
    for _ in range(5):
        nxt = cycles[-1] + timedelta(seconds=grace[-1] + 120 + 120, microseconds=210_331)
        cycles.append(nxt)
        grace.append(2)
    sync_errors = []
    for i, start in enumerate(cycles):
        g = grace[i]
        out.append((start, klog("I", start, "kuberuntime_container.go:779",
                                f'"Killing container with a grace period" pod={q(WEB)} podUID={q(WEB_UID)} '
                                f'containerName="web" containerID="{rt}://{WEB_CID}" gracePeriod={g}')))
        t1 = start + timedelta(seconds=g + 120, microseconds=4_118)
        out.append((t1, klog("E", t1, "remote_runtime.go:366",
                             f'"StopContainer from runtime service failed" err={q(DEADLINE)} containerID={q(WEB_CID)}')))
        out.append((t1, klog("E", t1 + timedelta(microseconds=77), "kuberuntime_container.go:784",
                             f'"Container termination failed with gracePeriod" err={q(DEADLINE)} pod={q(WEB)} '
                             f'podUID={q(WEB_UID)} containerName="web" containerID="{rt}://{WEB_CID}" gracePeriod={g}')))
        t2 = t1 + timedelta(seconds=120, microseconds=88_406)
        out.append((t2, klog("E", t2, "remote_runtime.go:222",
                             f'"StopPodSandbox from runtime service failed" err={q(DEADLINE)} podSandboxID={q(WEB_SID)}')))
        out.append((t2, klog("E", t2 + timedelta(microseconds=51), "kuberuntime_manager.go:1381",
                             f'"Failed to stop sandbox" podSandboxID={{"Type":"{rt}","ID":"{WEB_SID}"}}')))
        t3 = t2 + timedelta(microseconds=312)
        err = ('failed to "KillPodSandbox" for "' + WEB_UID + '" with KillPodSandboxError: "' + DEADLINE + '"')
        out.append((t3, klog("E", t3, "pod_workers.go:1301",
                             f'"Error syncing pod, skipping" err={q(err)} pod={q(WEB)} podUID={q(WEB_UID)}')))
        sync_errors.append(t3)
    out.sort(key=lambda x: x[0])
    return out, sync_errors


def containerd_lines():
    """[(datetime, logrus message)] for containerd (CRI plugin)."""
    def lr(t, level, msg, **kv):
        s = f'time="{t:%Y-%m-%dT%H:%M:%S}.{t.microsecond:06d}{h(str(t), 3).translate(str.maketrans("abcdef", "123456"))}Z" level={level} msg={q(msg)}'
        for k, v in kv.items():
            s += f" {k}={q(v)}"
        return s
    out = []
    t = T("2026-11-16 08:00:58.771203")
    out.append((t, lr(t, "info", "containerd successfully booted in 0.061128s")))
    t = T("2026-11-23 09:30:12.201774")
    out.append((t, lr(t, "info", f"RunPodSandbox for &PodSandboxMetadata{{Name:{WEB_POD},Uid:{WEB_UID},Namespace:{NS},Attempt:0,}}")))
    t = T("2026-11-23 09:30:13.004559")
    out.append((t, lr(t, "info", f"RunPodSandbox for &PodSandboxMetadata{{Name:{WEB_POD},Uid:{WEB_UID},Namespace:{NS},Attempt:0,}} returns sandbox id \"{WEB_SID}\"")))
    t = T("2026-11-23 09:30:14.811930")
    out.append((t, lr(t, "info", f"StartContainer for \"{WEB_CID}\" returns successfully")))
    t = T("2026-11-23 10:05:13.402112")
    out.append((t, lr(t, "info", f"RunPodSandbox for &PodSandboxMetadata{{Name:{API_POD},Uid:{API_UID},Namespace:{NS},Attempt:0,}} returns sandbox id \"{API_SID}\"")))
    t = T("2026-11-23 10:05:15.255340")
    out.append((t, lr(t, "info", f"StartContainer for \"{API_CID}\" returns successfully")))
    waiterr = (f"an error occurs during waiting for container \"{WEB_CID}\" to be killed: "
               f"wait container \"{WEB_CID}\": context deadline exceeded")
    start = T("2026-11-23 10:19:30.531826")
    grace = 30
    for i in range(6):
        out.append((start, lr(start, "info", f"StopContainer for \"{WEB_CID}\" with timeout {grace} (s)")))
        t = start + timedelta(microseconds=702)
        out.append((t, lr(t, "info", f"Stop container \"{WEB_CID}\" with signal terminated")))
        t = start + timedelta(seconds=grace, microseconds=1_411)
        out.append((t, lr(t, "info", f"Kill container \"{WEB_CID}\"")))
        t1 = start + timedelta(seconds=grace + 120, microseconds=2_007)
        out.append((t1, lr(t1, "error", f"StopContainer for \"{WEB_CID}\" failed", error=waiterr)))
        t1b = t1 + timedelta(microseconds=9_530)
        out.append((t1b, lr(t1b, "info", f"StopPodSandbox for \"{WEB_SID}\"")))
        t2 = t1b + timedelta(seconds=120, microseconds=71_220)
        out.append((t2, lr(t2, "error", f"StopPodSandbox for \"{WEB_SID}\" failed",
                           error=f"failed to stop container \"{WEB_CID}\": {waiterr}")))
        start = start + timedelta(seconds=grace + 240, microseconds=210_331)
        grace = 2
    out.sort(key=lambda x: x[0])
    return out


def uptime(t):
    return (t - BOOT).total_seconds()


def kernel_lines():
    """[(datetime, message)] kernel ring buffer of the current boot."""
    raw = [
        (0.000000, "Linux version 6.1.61-85.141.amzn2023.x86_64 (mockbuild@ip-10-0-43-207) (gcc (GCC) 11.4.1 20230605 (Red Hat 11.4.1-2), GNU ld version 2.39-6.amzn2023.0.9) #1 SMP PREEMPT_DYNAMIC Wed Nov  8 00:38:48 UTC 2023"),
        (0.000000, "Command line: BOOT_IMAGE=(hd0,gpt1)/boot/vmlinuz-6.1.61-85.141.amzn2023.x86_64 root=UUID=4f6f6e0e-4b8e-4bd2-9f7f-9d1b2c3d4e5f ro console=tty0 console=ttyS0,115200n8 nvme_core.io_timeout=4294967295 rd.emergency=poweroff rd.shell=0 selinux=1 security=selinux quiet"),
        (0.000000, "BIOS-provided physical RAM map:"),
        (0.000000, "BIOS-e820: [mem 0x0000000000000000-0x000000000009ffff] usable"),
        (0.000000, "BIOS-e820: [mem 0x0000000000100000-0x00000000bffe9fff] usable"),
        (0.000000, "DMI: Amazon EC2 m5.xlarge/, BIOS 1.0 10/16/2017"),
        (0.000000, "Hypervisor detected: KVM"),
        (0.031337, "pid_max: default: 32768 minimum: 301"),
        (0.402113, "smpboot: Allowing 4 CPUs, 0 hotplug CPUs"),
        (1.120551, "nvme nvme0: pci function 0000:00:04.0"),
        (1.131840, "nvme nvme0: 2/0/0 default/read/poll queues"),
        (1.139002, " nvme0n1: p1 p127 p128"),
        (2.404771, "SELinux:  Initializing."),
        (3.511207, "XFS (nvme0n1p1): Mounting V5 Filesystem"),
        (3.588123, "XFS (nvme0n1p1): Ending clean mount"),
        (5.201884, "systemd[1]: systemd 252.16-1.amzn2023.0.1 running in system mode (+PAM +AUDIT +SELINUX -APPARMOR +IMA +SMACK +SECCOMP +GCRYPT +GNUTLS +OPENSSL +ACL +BLKID +CURL +ELFUTILS +FIDO2 +IDN2 -IDN -IPTC +KMOD +LIBCRYPTSETUP +LIBFDISK +PCRE2 -PWQUALITY +P11KIT +QRENCODE +TPM2 +BZIP2 +LZ4 +XZ +ZLIB +ZSTD +BPF_FRAMEWORK +XKBCOMMON +UTMP +SYSVINIT default-hierarchy=unified)"),
        (6.880204, "ena 0000:00:05.0: ENA device version: 0.10"),
        (6.881730, "ena 0000:00:05.0: Elastic Network Adapter (ENA) v2.8.9g"),
        (7.004552, "ena 0000:00:05.0 eth0: renamed from eth0"),
        (58.771990, "Bridge firewalling registered"),
        (59.102345, "overlayfs: idmapped layers are currently not supported"),
    ]
    out = [(BOOT + timedelta(seconds=s), m) for s, m in raw]
    # pods started (veth) and NFS trouble
    for t, m in [
        (T("2026-11-23 09:30:12.044182"), "FS-Cache: Netfs 'nfs' registered for caching"),
        (T("2026-11-23 09:30:12.101876"), "Key type dns_resolver registered"),
        (T("2026-11-23 09:30:12.117002"), "NFS: Registering the id_resolver key type"),
        (T("2026-11-23 10:19:46.223915"), "nfs: server 10.0.2.15 not responding, still trying"),
        (T("2026-11-23 10:19:47.331004"), "nfs: server 10.0.2.15 not responding, still trying"),
    ]:
        out.append((t, m))
    hung = T("2026-11-23 10:23:31.207386")
    block = [
        "INFO: task umount.nfs:12345 blocked for more than 120 seconds.",
        "      Not tainted 6.1.61-85.141.amzn2023.x86_64 #1",
        "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
        "task:umount.nfs      state:D stack:0     pid:12345 ppid:12344  flags:0x00004002",
        "Call Trace:",
        " <TASK>",
        " __schedule+0x281/0x5f0",
        " schedule+0x5a/0xc0",
        " rpc_wait_bit_killable+0x1e/0x90 [sunrpc]",
        " __wait_on_bit+0x42/0x110",
        " out_of_line_wait_on_bit+0x8c/0xb0",
        " __rpc_execute+0x11e/0x4b0 [sunrpc]",
        " rpc_execute+0xbe/0xf0 [sunrpc]",
        " rpc_run_task+0x14a/0x1a0 [sunrpc]",
        " nfs4_call_sync_sequence+0x70/0xa0 [nfsv4]",
        " _nfs4_proc_statfs+0x8e/0xb0 [nfsv4]",
        " nfs4_proc_statfs+0x6d/0xb0 [nfsv4]",
        " nfs_statfs+0x6d/0x190 [nfs]",
        " statfs_by_dentry+0x67/0x90",
        " user_statfs+0x57/0xa0",
        " __do_sys_statfs+0x20/0x50",
        " do_syscall_64+0x3b/0x90",
        " entry_SYSCALL_64_after_hwframe+0x72/0xdc",
        "RIP: 0033:0x7f3d1c0f2f4b",
        "RSP: 002b:00007ffd6a4b3d28 EFLAGS: 00000246 ORIG_RAX: 0000000000000089",
        " </TASK>",
    ]
    for i, m in enumerate(block):
        out.append((hung + timedelta(microseconds=1_500 * i), m))
    out.sort(key=lambda x: x[0])
    return out


def dmesg_raw(lines):
    out = []
    for t, m in lines:
        up = uptime(t)
        sec = int(up)
        us = round((up - sec) * 1_000_000)
        out.append(f"[{sec:5d}.{us:06d}] {m}")
    return "\n".join(out) + "\n"


def dmesg_ctime(lines):
    return "\n".join(f"[{t:%a %b %d %H:%M:%S %Y}] {m}" for t, m in lines) + "\n"


def journal_ts(t, precise):
    if precise:
        return f"{t:%b %d %H:%M:%S}.{t.microsecond:06d}"
    return f"{t:%b %d %H:%M:%S}"


def journal(entries, host, precise=False):
    """entries: [(datetime, ident, message)] -> journal short/short-precise lines (sorted)."""
    entries = sorted(entries, key=lambda e: e[0])
    return [f"{journal_ts(t, precise)} {host} {ident}: {m}" for t, ident, m in entries]


# ---------------------------------------------------------------- processes
def processes():
    """Deterministic ~400 process table (pid, ppid, user, stat, threads, vsz, rss, start, cpu_time, cmd, kthread)."""
    rnd = random.Random(42)
    procs = []

    def add(pid, ppid, user, stat, nthr, vsz, rss, start, tm, cmd, kthread=False, tty="?"):
        procs.append(dict(pid=pid, ppid=ppid, user=user, stat=stat, nthr=nthr, vsz=vsz, rss=rss,
                          start=start, time=tm, cmd=cmd, kthread=kthread, tty=tty))

    add(1, 0, "root", "Ss", 1, 172268, 16824, "Nov16", "3:41",
        "/usr/lib/systemd/systemd --switched-root --system --deserialize=32")
    add(2, 0, "root", "S", 1, 0, 0, "Nov16", "0:00", "[kthreadd]", True)
    pid = 3
    fixed = ["rcu_gp", "rcu_par_gp", "slub_flushwq", "netns", "mm_percpu_wq", "rcu_tasks_kthread",
             "rcu_tasks_rude_kthread", "rcu_tasks_trace_kthread", "rcu_preempt", "migration/0",
             "cpuhp/0", "kdevtmpfs", "inet_frag_wq", "kauditd", "khungtaskd", "oom_reaper",
             "writeback", "kcompactd0", "ksmd", "khugepaged", "kintegrityd", "kblockd", "blkcg_punt_bio",
             "tpm_dev_wq", "md", "edac-poller", "watchdogd", "kswapd0", "kthrotld", "acpi_thermal_pm",
             "xenbus_probe", "nvme-wq", "nvme-reset-wq", "nvme-delete-wq", "xfsalloc", "xfs_mru_cache",
             "xfs-buf/nvme0n1p1", "xfs-conv/nvme0n1p1", "xfs-cil/nvme0n1p1", "xfs-reclaim/nvme0n1",
             "xfs-log/nvme0n1p1", "xfsaild/nvme0n1p1", "ena", "rpciod", "xprtiod", "nfsiod",
             "NFSv4 callback", "10.0.2.15-manager"]
    for cpu in range(4):
        for k in (f"cpuhp/{cpu}", f"migration/{cpu}", f"ksoftirqd/{cpu}", f"kworker/{cpu}:0-events",
                  f"kworker/{cpu}:0H-events_highpri", f"kworker/{cpu}:1-mm_percpu_wq",
                  f"kworker/{cpu}:1H-kblockd", f"kworker/{cpu}:2-events"):
            fixed.append(k)
    while len(fixed) < 232:
        fixed.append(f"kworker/u8:{len(fixed) - 80}-events_unbound")
    for name in fixed:
        stat = "I<" if ("wq" in name or name.startswith("kworker") and "H" in name or name in
                        ("rcu_gp", "rcu_par_gp", "slub_flushwq", "netns", "kblockd", "md", "ena",
                         "rpciod", "xprtiod", "nfsiod")) else ("I" if name.startswith("kworker") else "S")
        add(pid, 2, "root", stat, 1, 0, 0, "Nov16", "0:00", f"[{name}]", True)
        pid += 1 + (rnd.random() < 0.3)
    # userland
    user = [
        (680, 1, "root", "Ss", 1, 61204, 20480, "Nov16", "0:41", "/usr/lib/systemd/systemd-journald"),
        (702, 1, "root", "Ss", 1, 33352, 11904, "Nov16", "0:02", "/usr/lib/systemd/systemd-udevd"),
        (1104, 1, "root", "S<sl", 2, 19840, 2304, "Nov16", "0:01", "/sbin/auditd"),
        (1170, 1, "dbus", "Ss", 1, 12056, 5248, "Nov16", "0:12", "/usr/bin/dbus-broker-launch --scope system --audit"),
        (1188, 1, "root", "Ss", 1, 17092, 8192, "Nov16", "0:05", "/usr/lib/systemd/systemd-logind"),
        (1215, 1, "systemd-network", "Ss", 1, 18500, 9216, "Nov16", "0:03", "/usr/lib/systemd/systemd-networkd"),
        (1230, 1, "systemd-resolve", "Ss", 1, 22600, 12800, "Nov16", "0:21", "/usr/lib/systemd/systemd-resolved"),
        (1302, 1, "chrony", "S", 1, 84560, 3840, "Nov16", "0:02", "/usr/sbin/chronyd -F 2"),
        (1340, 1, "root", "Ssl", 4, 1253668, 21504, "Nov16", "0:30", "/usr/bin/amazon-ssm-agent"),
        (1402, 1, "root", "Ss", 1, 15532, 9472, "Nov16", "0:00", "sshd: /usr/sbin/sshd -D [listener] 0 of 10-100 startups"),
        (1433, 1, "rpc", "Ss", 1, 13420, 3712, "Nov16", "0:00", "/usr/bin/rpcbind -w -f"),
        (1450, 1, "root", "Ss", 1, 221880, 3584, "Nov16", "0:00", "/usr/sbin/crond -n"),
        (1451, 1, "root", "Ss+", 1, 221452, 1792, "Nov16", "0:00", "/sbin/agetty -o -p -- \\u --keep-baud 115200,57600,38400,9600 - vt220", "ttyS0"),
        (CONTAINERD_PID, 1, "root", "Ssl", 31, 2482640, 78412, "Nov16", "41:12", "/usr/bin/containerd"),
        (KUBELET_PID, 1, "root", "Ssl", 24, 2614812, 121836, "Nov16", "98:03",
         "/usr/bin/kubelet --config /etc/kubernetes/kubelet/config.json --kubeconfig /var/lib/kubelet/kubeconfig --container-runtime-endpoint unix:///run/containerd/containerd.sock --image-credential-provider-config /etc/eks/image-credential-provider/config.json --image-credential-provider-bin-dir /etc/eks/image-credential-provider --node-ip=10.0.1.23 --pod-infra-container-image=602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5 --v=2 --hostname-override=ip-10-0-1-23.ec2.internal --cloud-provider=external --node-labels=eks.amazonaws.com/nodegroup=shop-workers"),
    ]
    for u in user:
        add(*u[:10], tty=(u[10] if len(u) > 10 else "?"))
    shim_pid = 2900
    pods = [("kube-proxy", 3, "kube-proxy --v=2 --config=/var/lib/kube-proxy-config/config --hostname-override=ip-10-0-1-23.ec2.internal", 11),
            ("aws-node", 3, "/app/aws-k8s-agent", 13),
            ("aws-node-npa", 0, "/controller --enable-ipv6=false --enable-network-policy=false --enable-cloudwatch-logs=false --enable-policy-event-logs=false --metrics-bind-addr=:8162 --health-probe-bind-addr=:8163", 9),
            ("ebs-csi-node", 0, "/bin/aws-ebs-csi-driver node --endpoint=unix:/csi/csi.sock --logging-format=text --v=2", 10),
            ("node-driver-registrar", 0, "/csi-node-driver-registrar --csi-address=/csi/csi.sock --kubelet-registration-path=/var/lib/kubelet/plugins/ebs.csi.aws.com/csi.sock --v=2", 8),
            ("coredns", 0, "/coredns -conf /etc/coredns/Corefile", 11),
            ("web", 0, "nginx: master process nginx -g daemon off;", 1),
            ("api", 0, "/usr/local/bin/api-server --listen=:9090", 14),
            ]
    for i, (name, extra, cmd, nthr) in enumerate(pods):
        shim = shim_pid + i * 60
        add(shim, 1, "root", "Sl", 12, 1238540, 15104, "Nov16" if name not in ("web", "api") else ("09:30" if name == "web" else "10:05"),
            "0:34", f"/usr/bin/containerd-shim-runc-v2 -namespace k8s.io -id {h(name + '-sandbox')} -address /run/containerd/containerd.sock")
        add(shim + 20, shim, "65535", "Ss", 1, 972, 512, procs[-1]["start"], "0:00", "/pause")
        user_name = "101" if name == "web" else "root"
        add(shim + 40, shim, user_name if name != "web" else "root", "Ssl" if nthr > 1 else "Ss", nthr,
            1342208 if nthr > 1 else 11412, 41728 if nthr > 1 else 7424, procs[-1]["start"], "1:02", cmd)
        if name == "web":
            for w in range(4):
                add(shim + 41 + w, shim + 40, "101", "D" if w == 0 else "S", 1, 11876, 3216, "09:30", "0:00",
                    "nginx: worker process")
        if name == "aws-node":
            add(shim + 45, shim + 40, "root", "Ssl", 7, 1271220, 30208, "Nov16", "2:13", "./aws-k8s-agent")
    # the hung umount.nfs and its parent
    add(12344, KUBELET_PID, "root", "S", 1, 7484, 3584, "10:19", "0:00",
        f"umount /var/lib/kubelet/pods/{WEB_UID}/volumes/kubernetes.io~nfs/data")
    add(12345, 12344, "root", "D", 1, 7620, 2944, "10:19", "0:00",
        f"/sbin/umount.nfs /var/lib/kubelet/pods/{WEB_UID}/volumes/kubernetes.io~nfs/data")
    # fill with ssh sessions / sleeping helpers up to 400
    extra_pid = 13000
    while len(procs) < 400:
        add(extra_pid, 1450, "root", "S", 1, 11244, 2816, "10:00", "0:00", "/usr/bin/sleep 3600")
        extra_pid += 7
    procs.sort(key=lambda p: p["pid"])
    return procs


def ps_faux(procs):
    """`ps fauxwww --headers` (forest)."""
    children = {}
    for p in procs:
        children.setdefault(p["ppid"], []).append(p)
    lines = ["USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]

    def row(p, depth):
        cmd = p["cmd"]
        prefix = ("    " * (depth - 1) + " \\_ ") if depth > 0 else ""
        if p["kthread"] and depth > 0:
            prefix = " \\_ "
        cpu = "0.0" if p["time"] in ("0:00",) else "0.1"
        mem = f"{p['rss'] / 16069936 * 100:.1f}"
        return (f"{p['user']:<8} {p['pid']:>7} {cpu:>4} {mem:>4} {p['vsz']:>6} {p['rss']:>5} "
                f"{p['tty']:<8} {p['stat']:<4} {p['start']:<5} {p['time']:>6} {prefix}{cmd}")

    def walk(p, depth):
        lines.append(row(p, depth))
        for c in sorted(children.get(p["pid"], []), key=lambda x: x["pid"]):
            walk(c, depth + 1)
    # ps f prints kthreadd tree first, then init tree
    by_pid = {p["pid"]: p for p in procs}
    walk(by_pid[2], 0)
    walk(by_pid[1], 0)
    return "\n".join(lines) + "\n"


def threads_of(p):
    return [p["pid"]] + [p["pid"] * 10 + i for i in range(1, p["nthr"])] if p["nthr"] > 1 else [p["pid"]]


def tid(p, i):
    return p["pid"] if i == 0 else 20000 + (p["pid"] * 37 + i * 101) % 9000


def ps_eTF(procs):
    """`ps -eTF --headers`: UID PID SPID PPID C SZ RSS PSR STIME TTY TIME CMD."""
    lines = ["UID          PID    SPID    PPID  C    SZ   RSS PSR STIME TTY          TIME CMD"]
    for p in procs:
        for i in range(p["nthr"]):
            tm = "00:00:00" if p["time"] == "0:00" else f"00:{int(p['time'].split(':')[0]) % 60:02d}:{p['time'].split(':')[1]}"
            lines.append(f"{p['user']:<8} {p['pid']:>7} {tid(p, i):>7} {p['ppid']:>7}  0 {p['vsz'] // 4:>5} "
                         f"{p['rss']:>5} {(p['pid'] + i) % 4:>3} {p['start']:<5} {p['tty']:<8} {tm} {p['cmd']}")
    return "\n".join(lines) + "\n"


def ps_auxwwwm(procs):
    """sos `ps auxwwwm`: one process line, then one '-' line per thread."""
    lines = ["USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"]
    for p in procs:
        mem = f"{p['rss'] / 16069936 * 100:.1f}"
        lines.append(f"{p['user']:<8} {p['pid']:>7}  0.0 {mem:>4} {p['vsz']:>6} {p['rss']:>5} {p['tty']:<8} "
                     f"{'-':<4} {p['start']:<5} {p['time']:>6} {p['cmd']}")
        for i in range(p["nthr"]):
            st = p["stat"][0] + ("l" if False else "")
            lines.append(f"{p['user']:<8} {'-':>7}  0.0    - {'-':>6} {'-':>5} {'-':<8} {st:<4} {p['start']:<5} "
                         f"{'0:00':>6} -")
    return "\n".join(lines) + "\n"


def ps_elfL(procs):
    """sos `ps -elfL`: F S UID PID PPID LWP C NLWP PRI NI ADDR SZ WCHAN STIME TTY TIME CMD."""
    lines = ["F S UID          PID    PPID     LWP  C NLWP PRI  NI ADDR SZ WCHAN  STIME TTY          TIME CMD"]
    for p in procs:
        for i in range(p["nthr"]):
            f = 1 if p["kthread"] else 4
            wchan = "rpc_wa" if p["stat"].startswith("D") else ("-" if p["stat"].startswith("R") else "do_epo" if not p["kthread"] else "kthrea")
            tm = "00:00:00" if p["time"] == "0:00" else f"00:{int(p['time'].split(':')[0]) % 60:02d}:{p['time'].split(':')[1]}"
            lines.append(f"{f} {p['stat'][0]} {p['user']:<8} {p['pid']:>7} {p['ppid']:>7} {tid(p, i):>7}  0 "
                         f"{p['nthr']:>4}  80   0 - {p['vsz'] // 4:>5} {wchan:<6} {p['start']:<5} {p['tty']:<8} {tm} {p['cmd']}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- sysctl
SYSCTL = [
    ("abi.vsyscall32", "1"),
    ("fs.aio-max-nr", "65536"),
    ("fs.file-max", "9223372036854775807"),
    ("fs.file-nr", "5024\t0\t9223372036854775807"),
    ("fs.inotify.max_queued_events", "16384"),
    ("fs.inotify.max_user_instances", "8192"),
    ("fs.inotify.max_user_watches", "524288"),
    ("fs.nr_open", "1073741816"),
    ("kernel.core_pattern", "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h"),
    ("kernel.hostname", "ip-10-0-1-23.ec2.internal"),
    ("kernel.hung_task_check_count", "4194304"),
    ("kernel.hung_task_panic", "0"),
    ("kernel.hung_task_timeout_secs", "120"),
    ("kernel.hung_task_warnings", "9"),
    ("kernel.keys.root_maxbytes", "25000000"),
    ("kernel.keys.root_maxkeys", "1000000"),
    ("kernel.msgmax", "8192"),
    ("kernel.ngroups_max", "65536"),
    ("kernel.osrelease", "6.1.61-85.141.amzn2023.x86_64"),
    ("kernel.ostype", "Linux"),
    ("kernel.panic", "10"),
    ("kernel.panic_on_oops", "1"),
    ("kernel.pid_max", "4194304"),
    ("kernel.pty.max", "4096"),
    ("kernel.pty.nr", "1"),
    ("kernel.random.boot_id", "b7e3c1d2-4f5a-4b6c-8d7e-9f0a1b2c3d4e"),
    ("kernel.sched_autogroup_enabled", "0"),
    ("kernel.shmmax", "18446744073692774399"),
    ("kernel.tainted", "0"),
    ("kernel.threads-max", "126947"),
    ("net.bridge.bridge-nf-call-ip6tables", "1"),
    ("net.bridge.bridge-nf-call-iptables", "1"),
    ("net.core.somaxconn", "4096"),
    ("net.ipv4.conf.all.rp_filter", "0"),
    ("net.ipv4.conf.eth0.rp_filter", "2"),
    ("net.ipv4.ip_forward", "1"),
    ("net.ipv4.ip_local_port_range", "32768\t60999"),
    ("net.ipv4.neigh.default.gc_thresh1", "0"),
    ("net.ipv4.tcp_keepalive_time", "7200"),
    ("net.netfilter.nf_conntrack_max", "131072"),
    ("user.max_cgroup_namespaces", "62950"),
    ("user.max_ipc_namespaces", "62950"),
    ("user.max_mnt_namespaces", "62950"),
    ("user.max_net_namespaces", "62950"),
    ("user.max_pid_namespaces", "62950"),
    ("user.max_user_namespaces", "62950"),
    ("vm.dirty_background_ratio", "10"),
    ("vm.dirty_ratio", "20"),
    ("vm.max_map_count", "524288"),
    ("vm.overcommit_memory", "1"),
    ("vm.panic_on_oom", "0"),
    ("vm.swappiness", "60"),
]


def sysctl_a():
    return "".join(f"{k} = {v}\n" for k, v in SYSCTL)


# ---------------------------------------------------------------- mounts
SNAP = "/var/lib/containerd/io.containerd.snapshotter.v1.overlayfs/snapshots"


def mounts(runtime="containerd"):
    """[(src, dir, fstype, opts)] as in /proc/mounts."""
    m = [
        ("proc", "/proc", "proc", "rw,nosuid,nodev,noexec,relatime"),
        ("sysfs", "/sys", "sysfs", "rw,seclabel,nosuid,nodev,noexec,relatime"),
        ("devtmpfs", "/dev", "devtmpfs", "rw,seclabel,nosuid,size=4096k,nr_inodes=2005383,mode=755,inode64"),
        ("securityfs", "/sys/kernel/security", "securityfs", "rw,nosuid,nodev,noexec,relatime"),
        ("tmpfs", "/dev/shm", "tmpfs", "rw,seclabel,nosuid,nodev,inode64"),
        ("devpts", "/dev/pts", "devpts", "rw,seclabel,nosuid,noexec,relatime,gid=5,mode=620,ptmxmode=000"),
        ("tmpfs", "/run", "tmpfs", "rw,seclabel,nosuid,nodev,size=3213988k,nr_inodes=819200,mode=755,inode64"),
        ("cgroup2", "/sys/fs/cgroup", "cgroup2", "rw,seclabel,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot"),
        ("pstore", "/sys/fs/pstore", "pstore", "rw,seclabel,nosuid,nodev,noexec,relatime"),
        ("bpf", "/sys/fs/bpf", "bpf", "rw,nosuid,nodev,noexec,relatime,mode=700"),
        ("/dev/nvme0n1p1", "/", "xfs", "rw,noatime,seclabel,attr2,inode64,logbufs=8,logbsize=32k,sunit=1024,swidth=1024,noquota"),
        ("selinuxfs", "/sys/fs/selinux", "selinuxfs", "rw,nosuid,noexec,relatime"),
        ("systemd-1", "/proc/sys/fs/binfmt_misc", "autofs", "rw,relatime,fd=32,pgrp=1,timeout=0,minproto=5,maxproto=5,direct,pipe_ino=15344"),
        ("mqueue", "/dev/mqueue", "mqueue", "rw,seclabel,nosuid,nodev,noexec,relatime"),
        ("hugetlbfs", "/dev/hugepages", "hugetlbfs", "rw,seclabel,relatime,pagesize=2M"),
        ("debugfs", "/sys/kernel/debug", "debugfs", "rw,seclabel,nosuid,nodev,noexec,relatime"),
        ("tracefs", "/sys/kernel/tracing", "tracefs", "rw,seclabel,nosuid,nodev,noexec,relatime"),
        ("configfs", "/sys/kernel/config", "configfs", "rw,nosuid,nodev,noexec,relatime"),
        ("fusectl", "/sys/fs/fuse/connections", "fusectl", "rw,nosuid,nodev,noexec,relatime"),
        ("tmpfs", "/tmp", "tmpfs", "rw,seclabel,nosuid,nodev,size=8034968k,nr_inodes=1048576,inode64"),
        ("/dev/nvme0n1p128", "/boot/efi", "vfat", "rw,noatime,fmask=0077,dmask=0077,codepage=437,iocharset=ascii,shortname=winnt,errors=remount-ro"),
        ("sunrpc", "/var/lib/nfs/rpc_pipefs", "rpc_pipefs", "rw,relatime"),
    ]
    pods = [("kube-proxy", "kube-system", "4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d", "kube-api-access-5q8zn"),
            ("aws-node", "kube-system", "5b6c7d8e-9f0a-4b1c-8d2e-3f4a5b6c7d8e", "kube-api-access-w2k9p"),
            ("coredns", "kube-system", "6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f", "kube-api-access-c7v4x"),
            ("web", NS, WEB_UID, "kube-api-access-x8k2p"),
            ("api", NS, API_UID, "kube-api-access-m9d4t")]
    snap = 40
    for name, ns, uid, vol in pods:
        sid = {"web": WEB_SID, "api": API_SID}.get(name, h(name + "-sandbox"))
        cid = {"web": WEB_CID, "api": API_CID}.get(name, h(name + "-container"))
        m.append((f"nsfs", f"/run/netns/cni-{uuid_from(name + 'netns')}", "nsfs", "rw"))
        m.append(("shm", f"/run/containerd/io.containerd.grpc.v1.cri/sandboxes/{sid}/shm", "tmpfs",
                  "rw,seclabel,nosuid,nodev,noexec,relatime,size=65536k,inode64"))
        m.append(("overlay", f"/run/containerd/io.containerd.runtime.v2.task/k8s.io/{sid}/rootfs", "overlay",
                  f"rw,seclabel,relatime,lowerdir={SNAP}/1/fs,upperdir={SNAP}/{snap}/fs,workdir={SNAP}/{snap}/work"))
        m.append(("tmpfs", f"/var/lib/kubelet/pods/{uid}/volumes/kubernetes.io~projected/{vol}", "tmpfs",
                  "rw,seclabel,relatime,size=262144k,inode64"))
        if name == "web":
            m.append(("10.0.2.15:/exports/shop", f"/var/lib/kubelet/pods/{uid}/volumes/kubernetes.io~nfs/data", "nfs4",
                      "rw,relatime,vers=4.1,rsize=1048576,wsize=1048576,namlen=255,hard,proto=tcp,timeo=600,retrans=2,sec=sys,clientaddr=10.0.1.23,local_lock=none,addr=10.0.2.15"))
        m.append(("overlay", f"/run/containerd/io.containerd.runtime.v2.task/k8s.io/{cid}/rootfs", "overlay",
                  f"rw,seclabel,relatime,lowerdir={SNAP}/{snap - 3}/fs:{SNAP}/{snap - 4}/fs:{SNAP}/{snap - 5}/fs,"
                  f"upperdir={SNAP}/{snap + 1}/fs,workdir={SNAP}/{snap + 1}/work"))
        snap += 7
    return m


def proc_mounts(m):
    return "".join(f"{s} {d} {t} {o} 0 0\n" for s, d, t, o in m)


def mount_cmd(m):
    return "".join(f"{s} on {d} type {t} ({o})\n" for s, d, t, o in m)


DF_H = """Filesystem        Size  Used Avail Use% Mounted on
devtmpfs          4.0M     0  4.0M   0% /dev
tmpfs             7.7G     0  7.7G   0% /dev/shm
tmpfs             3.1G  1.2M  3.1G   1% /run
/dev/nvme0n1p1     80G  9.8G   71G  13% /
tmpfs             7.7G     0  7.7G   0% /tmp
/dev/nvme0n1p128   10M  1.3M  8.7M  13% /boot/efi
"""


# ---------------------------------------------------------------- ctr listings
def tabwriter(rows, minwidth=4, padding=4):
    """Go text/tabwriter(minwidth 4, tabwidth 8, padding 4, ' ') for rows whose cells all end in a tab."""
    ncol = max(len(r) for r in rows)
    widths = [max(minwidth, max(len(r[i]) for r in rows if i < len(r)) + padding) for i in range(ncol)]
    return "".join("".join(c.ljust(widths[i]) for i, c in enumerate(r)) + "\n" for r in rows)


def ctr_containers():
    rows = [["CONTAINER", "IMAGE", "RUNTIME"]]
    for name, image in [("kube-proxy", "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.29.0-minimal-eksbuild.1"),
                        ("aws-node", "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.16.0-eksbuild.1"),
                        ("coredns", "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/coredns:v1.11.1-eksbuild.4")]:
        rows.append([h(name + "-sandbox"), "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5", "io.containerd.runc.v2"])
        rows.append([h(name + "-container"), image, "io.containerd.runc.v2"])
    rows.append([WEB_SID, "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5", "io.containerd.runc.v2"])
    rows.append([WEB_CID, "docker.io/library/nginx:1.25.3", "io.containerd.runc.v2"])
    rows.append([API_SID, "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause:3.5", "io.containerd.runc.v2"])
    rows.append([API_CID, "registry.example.com/shop/api:2.4.1", "io.containerd.runc.v2"])
    rows.sort(key=lambda r: (r[0] != "CONTAINER", r[0]))
    return tabwriter(rows)


def ctr_tasks():
    rows = [["TASK", "PID", "STATUS"]]
    pids = {"kube-proxy": 2920, "aws-node": 2980, "coredns": 3220, "web": 3280, "api": 3340}
    for name, p in pids.items():
        sid = {"web": WEB_SID, "api": API_SID}.get(name, h(name + "-sandbox"))
        cid = {"web": WEB_CID, "api": API_CID}.get(name, h(name + "-container"))
        rows.append([sid, str(p), "RUNNING"])
        rows.append([cid, str(p + 20), "RUNNING"])
    rows.sort(key=lambda r: (r[0] != "TASK", r[0]))
    return tabwriter(rows)
