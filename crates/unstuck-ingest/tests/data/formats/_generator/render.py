import json
import os
import shutil
import sys
from datetime import timedelta

import yaml

sys.path.insert(0, os.path.dirname(__file__))
import objects as O  # noqa: E402
import nodelogs as N  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ------------------------------------------------------------------ writers
class GoYamlDumper(yaml.SafeDumper):
    pass


def _str_rep(dumper, data):
    style = None
    if data == "":
        style = '"'
    else:
        tag = dumper.resolve(yaml.ScalarNode, data, (True, False))
        if tag != "tag:yaml.org,2002:str":
            style = '"'
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


GoYamlDumper.add_representer(str, _str_rep)


def to_yaml(obj):
    return yaml.dump(obj, Dumper=GoYamlDumper, sort_keys=True, default_flow_style=False, width=80,
                     allow_unicode=True)


def to_gojson(obj):
    s = json.dumps(obj, indent=2, ensure_ascii=False)
    return s.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def write(path, text, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="\n") as f:
        f.write(text)


def typed_list(kind, api, items, rv):
    return {"kind": kind, "apiVersion": api, "metadata": {"resourceVersion": rv}, "items": items}


def in_ns(items, ns):
    return [i for i in items if i["metadata"].get("namespace") == ns]


def kubectl_get_yaml():
    items = []
    pods = [O.api_pod(), O.web_pod()]
    evs = sorted(O.events(), key=lambda e: e["metadata"]["name"])
    items += pods + evs + [O.node()] + O.deployments() + O.replicasets()
    doc = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    return to_yaml(doc)


def add_id(entries, ident):
    return [(t, ident, m) for t, m in entries]


def nginx_log_lines():
    return [
        ("2026-11-23T09:30:14.902311447Z", "/docker-entrypoint.sh: Configuration complete; ready for start up"),
        ("2026-11-23T09:30:14.911204083Z", "2026/11/23 09:30:14 [notice] 1#1: nginx/1.25.3"),
        ("2026-11-23T09:30:14.911230116Z", "2026/11/23 09:30:14 [notice] 1#1: start worker processes"),
        ("2026-11-23T10:19:30.533910222Z", "2026/11/23 10:19:30 [notice] 1#1: signal 15 (SIGTERM) received, exiting"),
    ]


# ------------------------------------------------------------------ support bundle
def support_bundle(partial=False):
    name = "support-bundle-partial" if partial else "support-bundle"
    base = os.path.join(ROOT, name, "support-bundle-2026-11-23T10_45_00")
    cr = os.path.join(base, "cluster-resources")
    write(os.path.join(base, "version.yaml"),
          "apiVersion: troubleshoot.sh/v1beta2\nkind: SupportBundle\nspec:\n  versionNumber: v0.123.6\n")
    write(os.path.join(base, "cluster-info", "cluster_version.json"), to_gojson({
        "info": {"major": "1", "minor": "29+", "gitVersion": "v1.29.10-eks-7f9249a",
                 "gitCommit": "2c0cdc2b5ebb4bbc2bd1b2e9b5c1b1a2f4e8c0d3", "gitTreeState": "clean",
                 "buildDate": "2026-10-21T18:03:44Z", "goVersion": "go1.22.8", "compiler": "gc",
                 "platform": "linux/amd64"},
        "string": "v1.29.10-eks-7f9249a"}))
    write(os.path.join(base, "cluster-info", "errors.json"), "[]")
    nss = [O.namespace(*n) for n in O.NAMESPACES]
    write(os.path.join(cr, "namespaces.json"), to_gojson(typed_list("NamespaceList", "v1", nss, "923990")))
    write(os.path.join(cr, "nodes.json"), to_gojson(typed_list("NodeList", "v1", [O.node()], "923990")))
    pods = [O.api_pod(), O.web_pod(), O.worker_pod()]
    evs = O.events()
    kinds = [
        ("pods", "PodList", "v1", pods),
        ("events", "EventList", "v1", evs),
        ("deployments", "DeploymentList", "apps/v1", O.deployments()),
        ("replicasets", "ReplicaSetList", "apps/v1", O.replicasets()),
        ("statefulsets", "StatefulSetList", "apps/v1", []),
        ("daemonsets", "DaemonSetList", "apps/v1", []),
        ("jobs", "JobList", "batch/v1", []),
        ("pvcs", "PersistentVolumeClaimList", "v1", []),
        ("leases", "LeaseList", "coordination.k8s.io/v1", [O.lease()]),
    ]
    for d, kind, api, items in kinds:
        for ns, _, _ in O.NAMESPACES:
            write(os.path.join(cr, d, f"{ns}.json"),
                  to_gojson(typed_list(kind, api, in_ns(items, ns), "923990")))
        write(os.path.join(cr, f"{d}-errors.json"), "[]")
    write(os.path.join(cr, "namespaces-errors.json"), "[]")
    write(os.path.join(cr, "nodes-errors.json"), "[]")
    write(os.path.join(cr, "pvs.json"), to_gojson(typed_list("PersistentVolumeList", "v1", [], "923990")))
    write(os.path.join(cr, "pvs-errors.json"), "[]")
    write(os.path.join(cr, "volumeattachments.json"),
          to_gojson(typed_list("VolumeAttachmentList", "storage.k8s.io/v1", [], "923990")))
    write(os.path.join(cr, "volumeattachments-errors.json"), "[]")
    # The unhealthy pod's container output (`savePodLogs`: no timestamps; while the container waits in
    # back-off, the current and the previous log are both its last ended run).
    out = "".join(f"{m}\n" for _, m in O.worker_output())
    for f in ("worker.log", "worker-previous.log"):
        write(os.path.join(cr, "pods", "logs", O.NS, O.WORKER_POD, f), out)
    if partial:
        return
    hc = os.path.join(base, "host-collectors", O.NODE)
    kub, _ = N.kubelet_lines()
    j = N.journal(add_id(kub, f"kubelet[{N.KUBELET_PID}]"), O.NODE)
    write(os.path.join(hc, "journald", "kubelet.txt"), "\n".join(j) + "\n")
    write(os.path.join(hc, "journald", "kubelet-info.json"), json.dumps(
        {"command": "/usr/bin/journalctl -u kubelet --since 2026-11-23 09:00:00 --no-pager", "exitCode": "0",
         "error": "", "outputDir": "", "input": "", "env": None}, separators=(",", ":")))
    j = N.journal(add_id(N.containerd_lines(), f"containerd[{N.CONTAINERD_PID}]"), O.NODE)
    write(os.path.join(hc, "journald", "containerd.txt"), "\n".join(j) + "\n")
    write(os.path.join(hc, "journald", "containerd-info.json"), json.dumps(
        {"command": "/usr/bin/journalctl -u containerd --since 2026-11-23 09:00:00 --no-pager", "exitCode": "0",
         "error": "", "outputDir": "", "input": "", "env": None}, separators=(",", ":")))
    kl = [(t, m) for t, m in N.kernel_lines() if t >= N.T("2026-11-23 09:00:00.000000")]
    j = N.journal(add_id(kl, "kernel"), O.NODE)
    write(os.path.join(hc, "journald", "dmesg.txt"), "\n".join(j) + "\n")
    write(os.path.join(hc, "journald", "dmesg-info.json"), json.dumps(
        {"command": "/usr/bin/journalctl --dmesg --since 2026-11-23 09:00:00 --no-pager", "exitCode": "0",
         "error": "", "outputDir": "", "input": "", "env": None}, separators=(",", ":")))
    write(os.path.join(hc, "system", "sysctl.json"),
          json.dumps(dict(N.SYSCTL), separators=(",", ":")))
    write(os.path.join(hc, "system", "hostos_info.json"), json.dumps(
        {"name": O.NODE, "kernelVersion": "6.1.61-85.141.amzn2023.x86_64", "platformVersion": "2023",
         "platform": "amazon", "platformFamily": "rhel"}, separators=(",", ":")))
    procs = N.processes()
    write(os.path.join(hc, "run-host", "ps-threads.txt"), N.ps_eTF(procs))
    write(os.path.join(hc, "run-host", "ps-threads-info.json"), json.dumps(
        {"command": "/usr/bin/ps -eTF --headers", "exitCode": "0", "error": "", "outputDir": "", "input": "",
         "env": None}, separators=(",", ":")))
    write(os.path.join(hc, "run-host", "proc-mounts.txt"), N.proc_mounts(N.mounts()))
    write(os.path.join(hc, "run-host", "proc-mounts-info.json"), json.dumps(
        {"command": "/usr/bin/cat /proc/mounts", "exitCode": "0", "error": "", "outputDir": "", "input": "",
         "env": None}, separators=(",", ":")))


# ------------------------------------------------------------------ must-gather
OCP_IMAGE_DIR = ("quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-"
                 + O.h("must-gather-image"))


def must_gather(partial=False):
    name = "must-gather-partial" if partial else "must-gather"
    top = os.path.join(ROOT, name, "must-gather.local.5281731930372651846")
    base = os.path.join(top, OCP_IMAGE_DIR)
    write(os.path.join(top, "timestamp"),
          "2026-11-23 10:41:02.118230554 +0000 UTC m=+0.081153912\n"
          "2026-11-23 10:45:00.402761936 +0000 UTC m=+238.365685294\n")
    write(os.path.join(top, "must-gather.logs"),
          "[must-gather      ] OUT 2026-11-23T10:41:02.118893417Z Using must-gather plug-in image: "
          "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:" + O.h("must-gather-image") + "\n"
          "[must-gather      ] OUT 2026-11-23T10:41:02.241560121Z namespace/openshift-must-gather-x7k2q created\n"
          "[must-gather-5wz9d] OUT 2026-11-23T10:44:58.903311270Z waiting for gather to complete\n"
          "[must-gather-5wz9d] OUT 2026-11-23T10:45:00.210014582Z downloading gather output\n")
    write(os.path.join(top, "event-filter.html"),
          "<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>Events</title></head>\n"
          "<body><!-- simplified: real file embeds a filterable table of all events.yaml found --></body>\n</html>\n")
    write(os.path.join(base, "version"), "openshift/must-gather\n4.16.0-202407111006.p0.g1d2c3b4.assembly.stream.el9-1d2c3b4\n")
    write(os.path.join(base, "timestamp"),
          "2026-11-23 10:41:09.771902281 +0000 UTC m=+0.004455201\n"
          "2026-11-23 10:44:57.130118264 +0000 UTC m=+227.362671184\n")
    write(os.path.join(base, "gather.logs"),
          "Gathering data for ns/shop...\nWrote inspect data to must-gather.\n")
    nsdir = os.path.join(base, "namespaces", O.NS)
    ns_obj = O.namespace(O.NS, O.NS_UID, "2026-11-20T08:55:00Z")
    write(os.path.join(nsdir, f"{O.NS}.yaml"), to_yaml(ns_obj))
    pods = [O.api_pod("cri-o"), O.web_pod("cri-o"), O.worker_pod("cri-o")]
    write(os.path.join(nsdir, "core", "pods.yaml"),
          to_yaml(typed_list("PodList", "v1", pods, "923990")))
    write(os.path.join(nsdir, "core", "events.yaml"),
          to_yaml(typed_list("EventList", "v1", sorted(O.events(), key=lambda e: e["metadata"]["name"]), "923990")))
    for f, k, api in [("persistentvolumeclaims", "PersistentVolumeClaimList", "v1"),
                      ("configmaps", "ConfigMapList", "v1"), ("services", "ServiceList", "v1")]:
        write(os.path.join(nsdir, "core", f + ".yaml"), to_yaml(typed_list(k, api, [], "923990")))
    write(os.path.join(nsdir, "apps", "deployments.yaml"),
          to_yaml(typed_list("DeploymentList", "apps/v1", O.deployments(), "923990")))
    write(os.path.join(nsdir, "apps", "replicasets.yaml"),
          to_yaml(typed_list("ReplicaSetList", "apps/v1", O.replicasets(), "923990")))
    for f, k in [("statefulsets", "StatefulSetList"), ("daemonsets", "DaemonSetList")]:
        write(os.path.join(nsdir, "apps", f + ".yaml"), to_yaml(typed_list(k, "apps/v1", [], "923990")))
    write(os.path.join(nsdir, "batch", "jobs.yaml"), to_yaml(typed_list("JobList", "batch/v1", [], "923990")))
    write(os.path.join(nsdir, "batch", "cronjobs.yaml"), to_yaml(typed_list("CronJobList", "batch/v1", [], "923990")))
    for p in pods:
        pn = p["metadata"]["name"]
        pdir = os.path.join(nsdir, "pods", pn)
        write(os.path.join(pdir, pn + ".yaml"), to_yaml(p))
        c = p["spec"]["containers"][0]["name"]
        previous = []
        if c == "web":
            lines = nginx_log_lines()
        elif c == "worker":
            # Waiting in back-off: `kubectl logs` serves the last ended run for current and previous alike.
            lines = previous = O.worker_output()
        else:
            lines = [("2026-11-23T10:05:15.402113998Z", "level=info msg=\"listening\" addr=\":9090\""),
                     ("2026-11-23T10:44:55.012207331Z", "level=info msg=\"GET /healthz\" status=200 duration=0.4ms")]
        write(os.path.join(pdir, c, c, "logs", "current.log"), "".join(f"{t} {m}\n" for t, m in lines))
        write(os.path.join(pdir, c, c, "logs", "previous.log"), "".join(f"{t} {m}\n" for t, m in previous))
    write(os.path.join(base, "namespaces", "kube-node-lease", "coordination.k8s.io", "leases", O.NODE + ".yaml"),
          to_yaml(O.lease()))
    write(os.path.join(base, "cluster-scoped-resources", "core", "nodes", O.NODE + ".yaml"),
          to_yaml(O.node("cri-o")))
    if partial:
        return
    short = O.NODE.split(".")[0]
    kub, _ = N.kubelet_lines("cri-o")
    kub = [(t, m.replace("v1.29.0-eks-5e0fdde", "v1.29.6+aba1e8d")) for t, m in kub]
    j = N.journal(add_id(kub, f"kubenswrapper[{N.KUBELET_PID}]"), short, precise=True)
    write(os.path.join(base, "host_service_logs", "workers", "kubelet_service.log"), "\n".join(j) + "\n")
    crio = []
    start = N.T("2026-11-23 10:19:30.531826")
    g = 30
    for i in range(6):
        t = start + timedelta(seconds=g)
        crio.append((t, f'time="{t:%Y-%m-%d %H:%M:%S}.{t.microsecond:06d}893Z" level=warning '
                        f'msg="Stopping container {O.WEB_CID} with stop signal timed out. Killing"'))
        start = start + timedelta(seconds=g + 240, microseconds=210_331)
        g = 2
    j = N.journal(add_id(crio, "crio[2087]"), short, precise=True)
    write(os.path.join(base, "host_service_logs", "workers", "crio_service.log"), "\n".join(j) + "\n")


# ------------------------------------------------------------------ EKS
EKS_DIR = "eks_i-0a1b2c3d4e5f67890_2026-11-23_1045-UTC_0.7.9"


def eks(partial=False):
    name = "eks-log-collector-partial" if partial else "eks-log-collector"
    fx = os.path.join(ROOT, name)
    base = os.path.join(fx, EKS_DIR)
    for d in ["kernel", "modinfo", "system", "docker", "containerd", "storage", "var_log", "networking",
              "sandbox-image", "ipamd", "sysctls", "kubelet", "nodeadm", "cni", "gpu"]:
        os.makedirs(os.path.join(base, d), exist_ok=True)
    write(os.path.join(base, "system", "script-params.txt"),
          "ignore_introspection: false\nignore_metrics: false\n")
    write(os.path.join(base, "system", "instance-id.txt"), O.INSTANCE + "\n")
    write(os.path.join(base, "system", "region.txt"), "us-east-1\n")
    write(os.path.join(base, "system", "availability-zone.txt"), "us-east-1a\n")
    kub, _ = N.kubelet_lines()
    j = N.journal(add_id(kub, f"kubelet[{N.KUBELET_PID}]"), O.NODE)
    write(os.path.join(base, "kubelet", "kubelet.log"), "\n".join(j) + "\n")
    write(os.path.join(base, "kubelet", "kubelet_service.txt"),
          "# /etc/systemd/system/kubelet.service\n[Unit]\nDescription=Kubernetes Kubelet\n"
          "Documentation=https://github.com/kubernetes/kubernetes\nAfter=containerd.service\n"
          "Requires=containerd.service\n\n[Service]\nSlice=runtime.slice\n"
          "ExecStartPre=/sbin/iptables -P FORWARD ACCEPT -w 5\nExecStart=/usr/bin/kubelet $NODEADM_KUBELET_ARGS\n"
          "Restart=on-failure\nRestartForceExitStatus=SIGPIPE\nRestartSec=5\nKillMode=process\nCPUAccounting=true\n"
          "MemoryAccounting=true\n\n[Install]\nWantedBy=multi-user.target\n")
    if partial:
        keep_empty_dirs(base)
        return
    write(os.path.join(base, "kubelet", "svc.log"),
          "NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n"
          "kubernetes   ClusterIP   172.20.0.1   <none>        443/TCP   7d2h\n")
    j = N.journal(add_id(N.containerd_lines(), f"containerd[{N.CONTAINERD_PID}]"), O.NODE)
    write(os.path.join(base, "containerd", "containerd-log.txt"), "\n".join(j) + "\n")
    write(os.path.join(base, "containerd", "containerd-version.txt"),
          "Client:\n  Version:  1.7.11\n  Revision: 64b8a811b07ba6288238eefc14d898ee0b5b99ba\n  Go version: go1.20.12\n\n"
          "Server:\n  Version:  1.7.11\n  Revision: 64b8a811b07ba6288238eefc14d898ee0b5b99ba\n  UUID: "
          + O.uuid_from("containerd-uuid") + "\n")
    write(os.path.join(base, "containerd", "containerd-containers.txt"), N.ctr_containers())
    write(os.path.join(base, "containerd", "containerd-tasks.txt"), N.ctr_tasks())
    write(os.path.join(base, "containerd", "containerd-namespaces.txt"), N.tabwriter([["NAME", "LABELS"], ["k8s.io", ""]]))
    write(os.path.join(base, "sysctls", "sysctl_all.txt"), N.sysctl_a())
    procs = N.processes()
    write(os.path.join(base, "system", "ps.txt"), N.ps_faux(procs))
    write(os.path.join(base, "system", "ps-threads.txt"), N.ps_eTF(procs))
    m = N.mounts()
    write(os.path.join(base, "storage", "mounts.txt"), N.mount_cmd(m) + "\n" + N.DF_H)
    kl = N.kernel_lines()
    write(os.path.join(base, "kernel", "dmesg.current"), N.dmesg_raw(kl))
    write(os.path.join(base, "kernel", "dmesg.human.current"), N.dmesg_ctime(kl))
    write(os.path.join(base, "kernel", "uname.txt"),
          "Linux ip-10-0-1-23.ec2.internal 6.1.61-85.141.amzn2023.x86_64 #1 SMP PREEMPT_DYNAMIC Wed Nov  8 00:38:48 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux\n")
    keep_empty_dirs(base)
    write(os.path.join(fx, "kubectl-get.yaml"), kubectl_get_yaml())


def keep_empty_dirs(base):
    """git cannot store empty directories; mark the ones the script creates but leaves empty."""
    for d in sorted(os.listdir(base)):
        p = os.path.join(base, d)
        if os.path.isdir(p) and not os.listdir(p):
            write(os.path.join(p, ".gitkeep"), "")


# ------------------------------------------------------------------ AKS Periscope
def periscope():
    fx = os.path.join(ROOT, "aks-periscope")
    base = os.path.join(fx, "2026-11-23T10-45-00Z", O.NODE)
    kub, _ = N.kubelet_lines()
    j = N.journal(add_id(kub, f"kubelet[{N.KUBELET_PID}]"), O.NODE)
    write(os.path.join(base, "kubelet"), "\n".join(j) + "\n")
    write(os.path.join(base, "docker"), "-- No entries --\n")
    write(os.path.join(base, "kubeletcmd"), [p for p in N.processes() if p["pid"] == N.KUBELET_PID][0]["cmd"] + "\n")
    write(os.path.join(base, "virtualmachine"),
          "# This is /run/systemd/resolve/resolv.conf managed by man:systemd-resolved(8).\nnameserver 168.63.129.16\nsearch reddog.microsoft.com\n")
    write(os.path.join(base, "kubernetes"),
          "search aks-periscope.svc.cluster.local svc.cluster.local cluster.local reddog.microsoft.com\nnameserver 10.0.0.10\noptions ndots:5\n")
    write(os.path.join(base, "nodes"), json.dumps([{"name": O.NODE, "cpuUsage": 212, "memoryUsage": 2871435264}],
                                                  separators=(",", ":")))
    write(os.path.join(base, "pods"), json.dumps([
        {"name": "api", "cpuUsage": 3, "memoryUsage": 41238528},
        {"name": "web", "cpuUsage": 0, "memoryUsage": 6516736}], separators=(",", ":")))
    write(os.path.join(base, "var_log_cloud-init.log"),
          "2026-11-16 08:00:31,220 - util.py[DEBUG]: Cloud-init v. 23.1.2 finished at Mon, 16 Nov 2026 08:00:31 +0000. Datasource DataSourceAzure [seed=/dev/sr0].  Up 31.04 seconds\n")
    write(os.path.join(fx, "kubectl-get.yaml"), kubectl_get_yaml())


# ------------------------------------------------------------------ kind
def kind(partial=False):
    name = "kind-logs-partial" if partial else "kind-logs"
    fx = os.path.join(ROOT, name)
    base = os.path.join(fx, "logs")
    nd = os.path.join(base, O.NODE)
    kub, _ = N.kubelet_lines()
    kub = [(t, m.replace("v1.29.0-eks-5e0fdde", "v1.29.4")) for t, m in kub]
    jk = N.journal(add_id(kub, f"kubelet[{N.KUBELET_PID}]"), O.NODE)
    write(os.path.join(nd, "kubelet.log"), "\n".join(jk) + "\n")
    write(os.path.join(fx, "kubectl-get.yaml"), kubectl_get_yaml())
    if partial:
        return
    write(os.path.join(base, "kind-version.txt"), "kind v0.23.0 go1.21.10 linux/amd64")
    write(os.path.join(base, "docker-info.txt"),
          "Client: Docker Engine - Community\n Version:    26.1.3\n Context:    default\n\nServer:\n Containers: 1\n  Running: 1\n Server Version: 26.1.3\n Storage Driver: overlay2\n Cgroup Driver: systemd\n Cgroup Version: 2\n Kernel Version: 6.1.61-85.141.amzn2023.x86_64\n Operating System: Amazon Linux 2023\n")
    cl = N.containerd_lines()
    jc = N.journal(add_id(cl, f"containerd[{N.CONTAINERD_PID}]"), O.NODE)
    write(os.path.join(nd, "containerd.log"), "\n".join(jc) + "\n")
    sysd = [(N.T("2026-11-16 08:00:57.900211"), "systemd[1]", "Starting containerd.service - containerd container runtime..."),
            (N.T("2026-11-16 08:00:58.802110"), "systemd[1]", "Started containerd.service - containerd container runtime."),
            (N.T("2026-11-16 08:01:00.993400"), "systemd[1]", "Started kubelet.service - kubelet: The Kubernetes Node Agent.")]
    allj = N.journal(add_id(kub, f"kubelet[{N.KUBELET_PID}]") + add_id(cl, f"containerd[{N.CONTAINERD_PID}]") + sysd,
                     O.NODE)
    write(os.path.join(nd, "journal.log"), "\n".join(allj) + "\n")
    write(os.path.join(nd, "kubernetes-version.txt"), "v1.29.4")
    write(os.path.join(nd, "images.log"),
          "IMAGE                                TAG                  IMAGE ID            SIZE\n"
          "docker.io/library/nginx              1.25.3               a8758716bb6aa       70.5MB\n"
          "registry.example.com/shop/api        2.4.1                3c2b1a0f9e8d7       48.2MB\n"
          "registry.k8s.io/pause                3.7                  221177c6082a8       311kB\n")
    write(os.path.join(nd, "serial.log"), "")
    write(os.path.join(nd, "inspect.json"), json.dumps([{
        "Id": O.h("kind-node-container"), "Created": "2026-11-16T08:00:40.118882402Z",
        "Path": "/usr/local/bin/entrypoint", "Args": ["/sbin/init"],
        "State": {"Status": "running", "Running": True, "Paused": False, "Restarting": False,
                  "OOMKilled": False, "Dead": False, "Pid": 4121, "ExitCode": 0, "Error": "",
                  "StartedAt": "2026-11-16T08:00:40.512002910Z", "FinishedAt": "0001-01-01T00:00:00Z"},
        "Image": "sha256:" + O.h("kindest/node:v1.29.4"), "Name": "/" + O.NODE,
        "Config": {"Hostname": O.NODE, "Image": "kindest/node:v1.29.4",
                   "Labels": {"io.x-k8s.kind.cluster": "kind", "io.x-k8s.kind.role": "worker"}}}], indent=4) + "\n")
    plog = os.path.join(nd, "pods", f"{O.NS}_{O.WEB_POD}_{O.WEB_UID}", "web", "0.log")
    write(plog, "".join(f"{t} stdout F {m}\n" if "docker-entrypoint" in m else f"{t} stderr F {m}\n"
                        for t, m in nginx_log_lines()))
    write(os.path.join(nd, "containers", f"{O.WEB_POD}_{O.NS}_web-{O.WEB_CID}.log"),
          open(plog).read())


# ------------------------------------------------------------------ sos
SOS_DIR = "sosreport-ip-10-0-1-23-2026-11-23-kqzwmxb"


def sos(partial=False):
    name = "sos-report-partial" if partial else "sos-report"
    fx = os.path.join(ROOT, name)
    base = os.path.join(fx, SOS_DIR)
    sc = os.path.join(base, "sos_commands")
    write(os.path.join(base, "version.txt"), "sosreport: 4.8.0\n")
    write(os.path.join(base, "environment"), "HOSTNAME=ip-10-0-1-23.ec2.internal\nLANG=C.UTF-8\nPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin\n")
    write(os.path.join(base, "sos_logs", "sos.log"),
          "2026-11-23 10:43:12,004 INFO: [sos.report:setup] executing 'sos report --batch'\n")
    write(os.path.join(base, "sos_reports", "manifest.json"), json.dumps({
        "version": "4.8.0", "cmdline": "/usr/sbin/sos report --batch", "start_time": "2026-11-23T10:43:11.902231",
        "end_time": "2026-11-23T10:45:00.003317", "run_time": "0:01:48.101086", "compression": "xz",
        "policy": "Amazon Linux", "components": {"report": {"preset": "none", "plugins": {}}}}, indent=4))
    write(os.path.join(sc, "host", "hostname"), O.NODE + "\n")
    # sos's date plugin: `date`, `date --utc`, `hwclock` when the report was taken.
    write(os.path.join(sc, "date", "date"), "Mon Nov 23 10:43:12 UTC 2026\n")
    write(os.path.join(sc, "date", "date_--utc"), "Mon Nov 23 10:43:12 UTC 2026\n")
    write(os.path.join(sc, "date", "hwclock"), "2026-11-23 10:43:12.118342+00:00\n")
    procs = N.processes()
    write(os.path.join(sc, "process", "ps_auxwwwm"), N.ps_auxwwwm(procs))
    write(os.path.join(sc, "process", "ps_-elfL"), N.ps_elfL(procs))
    write(os.path.join(sc, "kernel", "sysctl_-a"), N.sysctl_a())
    kl = N.kernel_lines()
    write(os.path.join(sc, "kernel", "dmesg"), N.dmesg_raw(kl))
    write(os.path.join(sc, "kernel", "dmesg_-T"), N.dmesg_ctime(kl))
    write(os.path.join(sc, "kernel", "uname_-a"),
          "Linux ip-10-0-1-23.ec2.internal 6.1.61-85.141.amzn2023.x86_64 #1 SMP PREEMPT_DYNAMIC Wed Nov  8 00:38:48 UTC 2023 x86_64 x86_64 x86_64 GNU/Linux\n")
    m = N.mounts()
    write(os.path.join(sc, "filesys", "mount_-l"), N.mount_cmd(m))
    write(os.path.join(base, "proc", "mounts"), N.proc_mounts(m))
    write(os.path.join(sc, "containerd", "ctr_-n_k8s.io_container_ls"), N.ctr_containers())
    kub, _ = N.kubelet_lines()
    cl = N.containerd_lines()
    write(os.path.join(sc, "containerd", "journalctl_--no-pager_--unit_containerd"),
          "\n".join(N.journal(add_id(cl, f"containerd[{N.CONTAINERD_PID}]"), O.NODE)) + "\n")
    cur = (add_id(kub, f"kubelet[{N.KUBELET_PID}]") + add_id(cl, f"containerd[{N.CONTAINERD_PID}]")
           + add_id(N.kernel_lines(), "kernel"))
    cur_lines = N.journal(cur, O.NODE)
    prev = N.journal([(N.PREV_BOOT, "kernel", "Linux version 6.1.61-85.141.amzn2023.x86_64 (mockbuild@ip-10-0-43-207) (gcc (GCC) 11.4.1 20230605 (Red Hat 11.4.1-2), GNU ld version 2.39-6.amzn2023.0.9) #1 SMP PREEMPT_DYNAMIC Wed Nov  8 00:38:48 UTC 2023"),
                      (N.PREV_BOOT + timedelta(days=7, minutes=-1), "systemd[1]", "Stopping kubelet.service - Kubernetes Kubelet..."),
                      (N.PREV_BOOT + timedelta(days=7, minutes=-1, seconds=1), "systemd-shutdown[1]", "Syncing filesystems and block devices.")],
                     O.NODE)
    write(os.path.join(sc, "logs", "journalctl_--no-pager"),
          "\n".join(prev + ["-- Boot b7e3c1d24f5a4b6c8d7e9f0a1b2c3d4e --"] + cur_lines) + "\n")
    write(os.path.join(sc, "logs", "journalctl_--no-pager_--boot"), "\n".join(cur_lines) + "\n")
    cg = os.path.join(base, "sys", "fs", "cgroup", "kubepods.slice")
    write(os.path.join(cg, "pids.max"), "max\n")
    write(os.path.join(cg, "pids.current"), "68\n")
    podslice = os.path.join(cg, "kubepods-burstable.slice",
                            "kubepods-burstable-pod" + O.WEB_UID.replace("-", "_") + ".slice")
    write(os.path.join(podslice, "pids.max"), "max\n")
    write(os.path.join(podslice, "pids.current"), "6\n")
    write(os.path.join(base, "sys", "fs", "cgroup", "system.slice", "kubelet.service", "pids.max"), "max\n")
    write(os.path.join(base, "sys", "fs", "cgroup", "system.slice", "kubelet.service", "pids.current"), "26\n")
    for link, target in [("hostname", "sos_commands/host/hostname"), ("ps", "sos_commands/process/ps_auxwwwm"),
                         ("mount", "sos_commands/filesys/mount_-l"), ("uname", "sos_commands/kernel/uname_-a")]:
        p = os.path.join(base, link)
        if os.path.lexists(p):
            os.remove(p)
        os.symlink(target, p)
    if not partial:
        write(os.path.join(fx, "kubectl-get.yaml"), kubectl_get_yaml())


def main():
    for d in ["support-bundle", "support-bundle-partial", "must-gather", "must-gather-partial",
              "eks-log-collector", "eks-log-collector-partial", "aks-periscope", "kind-logs",
              "kind-logs-partial", "sos-report", "sos-report-partial"]:
        p = os.path.join(ROOT, d)
        if os.path.isdir(p):
            # keep PROVENANCE.md
            for e in os.listdir(p):
                if e != "PROVENANCE.md":
                    q = os.path.join(p, e)
                    if os.path.isdir(q) and not os.path.islink(q):
                        shutil.rmtree(q)
                    else:
                        os.remove(q)
    support_bundle()
    support_bundle(partial=True)
    must_gather()
    must_gather(partial=True)
    eks()
    eks(partial=True)
    periscope()
    kind()
    kind(partial=True)
    sos()
    sos(partial=True)


if __name__ == "__main__":
    main()
