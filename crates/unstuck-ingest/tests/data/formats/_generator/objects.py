"""Shared scenario objects (Python dicts in Go struct field order, as client-go marshals them)."""
import hashlib
from datetime import datetime, timezone


def h(s, n=64):
    return hashlib.sha256(s.encode()).hexdigest()[:n]


def uuid_from(s):
    x = h(s, 32)
    return f"{x[0:8]}-{x[8:12]}-4{x[13:16]}-a{x[17:20]}-{x[20:32]}"


def ev_name(obj, ts):
    dt = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    nanos = int(dt.timestamp()) * 1_000_000_000 + int(h(obj + ts, 6), 16) % 1_000_000_000
    return f"{obj}.{nanos:x}"


NODE = "ip-10-0-1-23.ec2.internal"
NODE_UID = "8b2c4d6e-1f3a-4b5c-9d7e-0a1b2c3d4e5f"
INSTANCE = "i-0a1b2c3d4e5f67890"
NS = "shop"
NS_UID = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9"

WEB_DEP_UID = "1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d"
WEB_RS = "web-6d9f7c8b5d"
WEB_RS_UID = "2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e"
WEB_RS2 = "web-7c4f9b6d8"
WEB_RS2_UID = "4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a"
WEB_POD = "web-6d9f7c8b5d-q7x2k"
WEB_UID = "3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7c"
WEB_CID = h("web-container")
WEB_SID = h("web-sandbox")

API_DEP_UID = "6f7a8b9c-0d1e-4f2a-8b3c-4d5e6f7a8b9c"
API_RS = "api-5b7c9d8f6"
API_RS_UID = "7a8b9c0d-1e2f-4a3b-9c4d-5e6f7a8b9c0d"
API_POD = "api-5b7c9d8f6-h4k2m"
API_UID = "c5d6e7f8-9a0b-4c1d-8e2f-3a4b5c6d7e8f"
API_CID = h("api-container")
API_SID = h("api-sandbox")

WORKER_POD = "queue-worker"
WORKER_UID = "9d0e1f2a-3b4c-4d5e-8f6a-7b8c9d0e1f2a"
WORKER_CID = h("worker-container-9")
WORKER_DIGEST = h("worker-1.8.2")

NGINX_DIGEST = h("nginx-1.25.3")
API_DIGEST = h("api-2.4.1")

CAPTURE = "2026-11-23T10:45:00Z"


def meta(name, ns, uid, rv, created, **extra):
    m = {"name": name}
    if "generateName" in extra:
        m["generateName"] = extra.pop("generateName")
    if ns is not None:
        m["namespace"] = ns
    m["uid"] = uid
    m["resourceVersion"] = rv
    if "generation" in extra:
        m["generation"] = extra.pop("generation")
    m["creationTimestamp"] = created
    for k in ("deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
              "ownerReferences", "finalizers"):
        if k in extra:
            m[k] = extra.pop(k)
    assert not extra, extra
    return m


def owner(kind, name, uid, api="apps/v1"):
    return {"apiVersion": api, "kind": kind, "name": name, "uid": uid,
            "controller": True, "blockOwnerDeletion": True}


def kube_api_access(vol):
    return {
        "name": vol,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"name": "kube-root-ca.crt",
                               "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {
                    "apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
            ],
            "defaultMode": 420,
        },
    }


def container(name, image, port, mounts, requests, limits):
    return {
        "name": name,
        "image": image,
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
        "resources": {"limits": limits, "requests": requests},
        "volumeMounts": mounts,
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "imagePullPolicy": "IfNotPresent",
    }


def pod_spec(containers, vols, node=NODE):
    return {
        "volumes": vols,
        "containers": containers,
        "restartPolicy": "Always",
        "terminationGracePeriodSeconds": 30,
        "dnsPolicy": "ClusterFirst",
        "serviceAccountName": "default",
        "serviceAccount": "default",
        "nodeName": node,
        "securityContext": {},
        "schedulerName": "default-scheduler",
        "tolerations": [
            {"key": "node.kubernetes.io/not-ready", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300},
            {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
             "effect": "NoExecute", "tolerationSeconds": 300},
        ],
        "priority": 0,
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
    }


def cond(t, s, ltt, probe=True, **kw):
    c = {"type": t, "status": s}
    if probe:
        c["lastProbeTime"] = None
    c["lastTransitionTime"] = ltt
    c.update(kw)
    return c


def web_pod(runtime="containerd"):
    vols = [
        {"name": "data", "nfs": {"server": "10.0.2.15", "path": "/exports/shop"}},
        kube_api_access("kube-api-access-x8k2p"),
    ]
    mounts = [
        {"name": "data", "mountPath": "/srv/data"},
        {"name": "kube-api-access-x8k2p", "readOnly": True,
         "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"},
    ]
    c = container("web", "nginx:1.25.3", 8080, mounts,
                  {"cpu": "100m", "memory": "128Mi"}, {"memory": "256Mi"})
    prefix = "cri-o" if runtime == "cri-o" else "containerd"
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": meta(
            WEB_POD, NS, WEB_UID, "918273", "2026-11-23T09:30:11Z",
            generateName=WEB_RS + "-",
            deletionTimestamp="2026-11-23T10:20:00Z",
            deletionGracePeriodSeconds=30,
            labels={"app": "web", "pod-template-hash": "6d9f7c8b5d"},
            ownerReferences=[owner("ReplicaSet", WEB_RS, WEB_RS_UID)],
        ),
        "spec": pod_spec([c], vols),
        "status": {
            "phase": "Running",
            "conditions": [
                cond("PodReadyToStartContainers", "True", "2026-11-23T09:30:13Z"),
                cond("Initialized", "True", "2026-11-23T09:30:11Z"),
                cond("Ready", "True", "2026-11-23T09:30:15Z"),
                cond("ContainersReady", "True", "2026-11-23T09:30:15Z"),
                cond("PodScheduled", "True", "2026-11-23T09:30:11Z"),
            ],
            "hostIP": "10.0.1.23",
            "hostIPs": [{"ip": "10.0.1.23"}],
            "podIP": "10.0.1.87",
            "podIPs": [{"ip": "10.0.1.87"}],
            "startTime": "2026-11-23T09:30:11Z",
            "containerStatuses": [{
                "name": "web",
                "state": {"running": {"startedAt": "2026-11-23T09:30:14Z"}},
                "lastState": {},
                "ready": True,
                "restartCount": 0,
                "image": "docker.io/library/nginx:1.25.3",
                "imageID": f"docker.io/library/nginx@sha256:{NGINX_DIGEST}",
                "containerID": f"{prefix}://{WEB_CID}",
                "started": True,
            }],
            "qosClass": "Burstable",
        },
    }


def api_pod(runtime="containerd"):
    vols = [kube_api_access("kube-api-access-m9d4t")]
    mounts = [{"name": "kube-api-access-m9d4t", "readOnly": True,
               "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]
    c = container("api", "registry.example.com/shop/api:2.4.1", 9090, mounts,
                  {"cpu": "250m", "memory": "256Mi"}, {"memory": "512Mi"})
    c["readinessProbe"] = {
        "httpGet": {"path": "/healthz", "port": 9090, "scheme": "HTTP"},
        "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3,
    }
    prefix = "cri-o" if runtime == "cri-o" else "containerd"
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": meta(
            API_POD, NS, API_UID, "921004", "2026-11-23T10:05:12Z",
            generateName=API_RS + "-",
            labels={"app": "api", "pod-template-hash": "5b7c9d8f6"},
            ownerReferences=[owner("ReplicaSet", API_RS, API_RS_UID)],
        ),
        "spec": pod_spec([c], vols),
        "status": {
            "phase": "Running",
            "conditions": [
                cond("PodReadyToStartContainers", "True", "2026-11-23T10:05:14Z"),
                cond("Initialized", "True", "2026-11-23T10:05:12Z"),
                cond("Ready", "True", "2026-11-23T10:05:26Z"),
                cond("ContainersReady", "True", "2026-11-23T10:05:26Z"),
                cond("PodScheduled", "True", "2026-11-23T10:05:12Z"),
            ],
            "hostIP": "10.0.1.23",
            "hostIPs": [{"ip": "10.0.1.23"}],
            "podIP": "10.0.1.142",
            "podIPs": [{"ip": "10.0.1.142"}],
            "startTime": "2026-11-23T10:05:12Z",
            "containerStatuses": [{
                "name": "api",
                "state": {"running": {"startedAt": "2026-11-23T10:05:15Z"}},
                "lastState": {},
                "ready": True,
                "restartCount": 0,
                "image": "registry.example.com/shop/api:2.4.1",
                "imageID": f"registry.example.com/shop/api@sha256:{API_DIGEST}",
                "containerID": f"{prefix}://{API_CID}",
                "started": True,
            }],
            "qosClass": "Burstable",
        },
    }


def worker_pod(runtime="containerd"):
    """A bare pod whose container crash-loops (its output: `worker_output`)."""
    vols = [kube_api_access("kube-api-access-p4r7s")]
    mounts = [{"name": "kube-api-access-p4r7s", "readOnly": True,
               "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}]
    c = container("worker", "registry.example.com/shop/worker:1.8.2", 8081, mounts,
                  {"cpu": "100m", "memory": "128Mi"}, {"memory": "256Mi"})
    del c["ports"]
    prefix = "cri-o" if runtime == "cri-o" else "containerd"
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": meta(WORKER_POD, NS, WORKER_UID, "922871", "2026-11-23T10:02:40Z",
                         labels={"app": "queue-worker"}),
        "spec": pod_spec([c], vols),
        "status": {
            "phase": "Running",
            "conditions": [
                cond("PodReadyToStartContainers", "True", "2026-11-23T10:02:42Z"),
                cond("Initialized", "True", "2026-11-23T10:02:40Z"),
                cond("Ready", "False", "2026-11-23T10:02:40Z", reason="ContainersNotReady",
                     message="containers with unready status: [worker]"),
                cond("ContainersReady", "False", "2026-11-23T10:02:40Z", reason="ContainersNotReady",
                     message="containers with unready status: [worker]"),
                cond("PodScheduled", "True", "2026-11-23T10:02:40Z"),
            ],
            "hostIP": "10.0.1.23",
            "hostIPs": [{"ip": "10.0.1.23"}],
            "podIP": "10.0.1.203",
            "podIPs": [{"ip": "10.0.1.203"}],
            "startTime": "2026-11-23T10:02:40Z",
            "containerStatuses": [{
                "name": "worker",
                "state": {"waiting": {
                    "reason": "CrashLoopBackOff",
                    "message": f"back-off 5m0s restarting failed container=worker pod={WORKER_POD}_{NS}({WORKER_UID})",
                }},
                "lastState": {"terminated": {
                    "exitCode": 1, "reason": "Error",
                    "startedAt": "2026-11-23T10:41:12Z", "finishedAt": "2026-11-23T10:41:18Z",
                    "containerID": f"{prefix}://{WORKER_CID}",
                }},
                "ready": False,
                "restartCount": 9,
                "image": "registry.example.com/shop/worker:1.8.2",
                "imageID": f"registry.example.com/shop/worker@sha256:{WORKER_DIGEST}",
                "containerID": f"{prefix}://{WORKER_CID}",
                "started": False,
            }],
            "qosClass": "Burstable",
        },
    }


def worker_output():
    """The crash-looping container's last run: (kubelet timestamp, line the program wrote)."""
    refused = 'error="dial tcp 10.100.12.7:6379: connect: connection refused"'
    return [
        ("2026-11-23T10:41:12.402113998Z", 'time="2026-11-23T10:41:12Z" level=info msg="queue worker 1.8.2 starting" queues=orders,refunds'),
        ("2026-11-23T10:41:12.402950114Z", 'time="2026-11-23T10:41:12Z" level=info msg="connecting to redis" addr="redis.shop.svc.cluster.local:6379"'),
        ("2026-11-23T10:41:14.405581207Z", f'time="2026-11-23T10:41:14Z" level=error msg="redis ping failed" attempt=1 {refused}'),
        ("2026-11-23T10:41:16.407730815Z", f'time="2026-11-23T10:41:16Z" level=error msg="redis ping failed" attempt=2 {refused}'),
        ("2026-11-23T10:41:18.409214466Z", f'time="2026-11-23T10:41:18Z" level=error msg="redis ping failed" attempt=3 {refused}'),
        ("2026-11-23T10:41:18.409301782Z", 'time="2026-11-23T10:41:18Z" level=fatal msg="giving up: redis unavailable after 3 attempts"'),
    ]


def template(app, image, port, hash_=None):
    labels = {"app": app}
    if hash_:
        labels["pod-template-hash"] = hash_
    return {
        "metadata": {"creationTimestamp": None, "labels": labels},
        "spec": {
            "containers": [{
                "name": app,
                "image": image,
                "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
                "resources": {},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "imagePullPolicy": "IfNotPresent",
            }],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "securityContext": {},
            "schedulerName": "default-scheduler",
        },
    }


def deployments():
    web = {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": meta("web", NS, WEB_DEP_UID, "918301", "2026-11-20T09:00:00Z", generation=2,
                         labels={"app": "web"},
                         annotations={"deployment.kubernetes.io/revision": "2"}),
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": template("web", "nginx:1.25.4", 8080),
            "strategy": {"type": "Recreate"},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
        "status": {
            "observedGeneration": 2,
            "unavailableReplicas": 1,
            "conditions": [
                {"type": "Available", "status": "False",
                 "lastUpdateTime": "2026-11-23T10:19:30Z", "lastTransitionTime": "2026-11-23T10:19:30Z",
                 "reason": "MinimumReplicasUnavailable",
                 "message": "Deployment does not have minimum availability."},
                {"type": "Progressing", "status": "True",
                 "lastUpdateTime": "2026-11-23T10:19:30Z", "lastTransitionTime": "2026-11-20T09:00:00Z",
                 "reason": "ReplicaSetUpdated",
                 "message": f"ReplicaSet \"{WEB_RS2}\" is progressing."},
            ],
        },
    }
    api = {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": meta("api", NS, API_DEP_UID, "921010", "2026-11-23T10:05:12Z", generation=1,
                         labels={"app": "api"},
                         annotations={"deployment.kubernetes.io/revision": "1"}),
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "api"}},
            "template": template("api", "registry.example.com/shop/api:2.4.1", 9090),
            "strategy": {"type": "RollingUpdate",
                         "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
        "status": {
            "observedGeneration": 1,
            "replicas": 1,
            "updatedReplicas": 1,
            "readyReplicas": 1,
            "availableReplicas": 1,
            "conditions": [
                {"type": "Available", "status": "True",
                 "lastUpdateTime": "2026-11-23T10:05:26Z", "lastTransitionTime": "2026-11-23T10:05:26Z",
                 "reason": "MinimumReplicasAvailable",
                 "message": "Deployment has minimum availability."},
                {"type": "Progressing", "status": "True",
                 "lastUpdateTime": "2026-11-23T10:05:26Z", "lastTransitionTime": "2026-11-23T10:05:12Z",
                 "reason": "NewReplicaSetAvailable",
                 "message": f"ReplicaSet \"{API_RS}\" has successfully progressed."},
            ],
        },
    }
    return [api, web]


def replicasets():
    def rs(name, uid, rv, created, dep, dep_uid, hash_, image, port, replicas, rev, gen, status):
        return {
            "kind": "ReplicaSet",
            "apiVersion": "apps/v1",
            "metadata": meta(name, NS, uid, rv, created, generation=gen,
                             labels={"app": dep, "pod-template-hash": hash_},
                             annotations={"deployment.kubernetes.io/desired-replicas": "1",
                                          "deployment.kubernetes.io/max-replicas": "1" if dep == "web" else "2",
                                          "deployment.kubernetes.io/revision": rev},
                             ownerReferences=[owner("Deployment", dep, dep_uid)]),
            "spec": {
                "replicas": replicas,
                "selector": {"matchLabels": {"app": dep, "pod-template-hash": hash_}},
                "template": template(dep, image, port, hash_),
            },
            "status": status,
        }
    return [
        rs(API_RS, API_RS_UID, "921008", "2026-11-23T10:05:12Z", "api", API_DEP_UID, "5b7c9d8f6",
           "registry.example.com/shop/api:2.4.1", 9090, 1, "1", 1,
           {"replicas": 1, "fullyLabeledReplicas": 1, "readyReplicas": 1, "availableReplicas": 1,
            "observedGeneration": 1}),
        rs(WEB_RS, WEB_RS_UID, "918295", "2026-11-20T09:00:00Z", "web", WEB_DEP_UID, "6d9f7c8b5d",
           "nginx:1.25.3", 8080, 0, "1", 2, {"replicas": 0, "observedGeneration": 2}),
        rs(WEB_RS2, WEB_RS2_UID, "918299", "2026-11-23T10:19:30Z", "web", WEB_DEP_UID, "7c4f9b6d8",
           "nginx:1.25.4", 8080, 0, "2", 1, {"replicas": 0, "observedGeneration": 1}),
    ]


def event(obj_kind, obj_name, obj_uid, rv_obj, reason, message, first, last, count, typ,
          comp="kubelet", field=None, rv="0"):
    io = {"kind": obj_kind, "namespace": NS, "name": obj_name, "uid": obj_uid,
          "apiVersion": "v1" if obj_kind == "Pod" else "apps/v1", "resourceVersion": rv_obj}
    if field:
        io["fieldPath"] = field
    src = {"component": comp}
    if comp == "kubelet":
        src["host"] = NODE
    e = {
        "kind": "Event",
        "apiVersion": "v1",
        "metadata": meta(ev_name(obj_name, first), NS, uuid_from(obj_name + reason + first), rv, first),
        "involvedObject": io,
        "reason": reason,
        "message": message,
        "source": src,
        "firstTimestamp": first,
        "lastTimestamp": last,
        "count": count,
        "type": typ,
        "eventTime": None,
        "reportingComponent": comp,
        "reportingInstance": NODE if comp == "kubelet" else "",
    }
    return e


KILL_ERR = ("error killing pod: failed to \"KillPodSandbox\" for \"" + WEB_UID + "\" with KillPodSandboxError: "
            "\"rpc error: code = DeadlineExceeded desc = context deadline exceeded\"")


def events():
    return [
        event("Pod", API_POD, API_UID, "920990", "Scheduled",
              f"Successfully assigned shop/{API_POD} to {NODE}", "2026-11-23T10:05:12Z",
              "2026-11-23T10:05:12Z", 1, "Normal", comp="default-scheduler", rv="920995"),
        event("Pod", API_POD, API_UID, "920993", "Pulled",
              "Container image \"registry.example.com/shop/api:2.4.1\" already present on machine",
              "2026-11-23T10:05:14Z", "2026-11-23T10:05:14Z", 1, "Normal",
              field="spec.containers{api}", rv="920998"),
        event("Pod", API_POD, API_UID, "920993", "Created", "Created container api",
              "2026-11-23T10:05:14Z", "2026-11-23T10:05:14Z", 1, "Normal",
              field="spec.containers{api}", rv="920999"),
        event("Pod", API_POD, API_UID, "920993", "Started", "Started container api",
              "2026-11-23T10:05:15Z", "2026-11-23T10:05:15Z", 1, "Normal",
              field="spec.containers{api}", rv="921001"),
        event("ReplicaSet", WEB_RS, WEB_RS_UID, "918290", "SuccessfulDelete",
              f"Deleted pod: {WEB_POD}", "2026-11-23T10:19:30Z", "2026-11-23T10:19:30Z", 1,
              "Normal", comp="replicaset-controller", rv="918296"),
        event("Pod", WEB_POD, WEB_UID, "918250", "Killing", "Stopping container web",
              "2026-11-23T10:19:30Z", "2026-11-23T10:19:30Z", 1, "Normal",
              field="spec.containers{web}", rv="918297"),
        event("Pod", WEB_POD, WEB_UID, "918273", "FailedKillPod", KILL_ERR,
              "2026-11-23T10:24:00Z", "2026-11-23T10:44:11Z", 6, "Warning", rv="923911"),
    ]


def node(runtime="containerd"):
    if runtime == "cri-o":
        rt, kv, os_image, kernel = ("cri-o://1.29.6-3.rhaos4.16.git7ec8d72.el9", "v1.29.6+aba1e8d",
                                    "Red Hat Enterprise Linux CoreOS 416.94.202407081958-0 (Plow)",
                                    "5.14.0-427.26.1.el9_4.x86_64")
        labels_extra = {"node-role.kubernetes.io/worker": "",
                        "node.openshift.io/os_id": "rhcos"}
    else:
        rt, kv, os_image, kernel = ("containerd://1.7.11", "v1.29.0-eks-5e0fdde", "Amazon Linux 2023",
                                    "6.1.61-85.141.amzn2023.x86_64")
        labels_extra = {"eks.amazonaws.com/nodegroup": "shop-workers",
                        "eks.amazonaws.com/capacityType": "ON_DEMAND"}
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": "m5.xlarge",
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": "us-east-1",
        "failure-domain.beta.kubernetes.io/zone": "us-east-1a",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": NODE,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "m5.xlarge",
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": "us-east-1a",
    }
    labels.update(labels_extra)
    labels = dict(sorted(labels.items()))
    hb = "2026-11-23T10:44:12Z"
    return {
        "kind": "Node",
        "apiVersion": "v1",
        "metadata": meta(NODE, None, NODE_UID, "923950", "2026-11-16T08:01:02Z",
                         labels=labels,
                         annotations={"alpha.kubernetes.io/provided-node-ip": "10.0.1.23",
                                      "node.alpha.kubernetes.io/ttl": "0",
                                      "volumes.kubernetes.io/controller-managed-attach-detach": "true"}),
        "spec": {"providerID": f"aws:///us-east-1a/{INSTANCE}"},
        "status": {
            "capacity": {"cpu": "4", "ephemeral-storage": "83873772Ki", "hugepages-1Gi": "0",
                         "hugepages-2Mi": "0", "memory": "16069936Ki", "pods": "58"},
            "allocatable": {"cpu": "3920m", "ephemeral-storage": "76224326324", "hugepages-1Gi": "0",
                            "hugepages-2Mi": "0", "memory": "15050032Ki", "pods": "58"},
            "conditions": [
                {"type": "MemoryPressure", "status": "False", "lastHeartbeatTime": hb,
                 "lastTransitionTime": "2026-11-16T08:01:02Z", "reason": "KubeletHasSufficientMemory",
                 "message": "kubelet has sufficient memory available"},
                {"type": "DiskPressure", "status": "False", "lastHeartbeatTime": hb,
                 "lastTransitionTime": "2026-11-16T08:01:02Z", "reason": "KubeletHasNoDiskPressure",
                 "message": "kubelet has no disk pressure"},
                {"type": "PIDPressure", "status": "False", "lastHeartbeatTime": hb,
                 "lastTransitionTime": "2026-11-16T08:01:02Z", "reason": "KubeletHasSufficientPID",
                 "message": "kubelet has sufficient PID available"},
                {"type": "Ready", "status": "True", "lastHeartbeatTime": hb,
                 "lastTransitionTime": "2026-11-16T08:01:19Z", "reason": "KubeletReady",
                 "message": "kubelet is posting ready status"},
            ],
            "addresses": [
                {"type": "InternalIP", "address": "10.0.1.23"},
                {"type": "InternalDNS", "address": NODE},
                {"type": "Hostname", "address": NODE},
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "machineID": "ec2" + h("machine", 29),
                "systemUUID": "ec2" + h("uuid", 5) + "-" + h("u2", 4) + "-" + h("u3", 4) + "-" +
                              h("u4", 4) + "-" + h("u5", 12),
                "bootID": "b7e3c1d2-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
                "kernelVersion": kernel,
                "osImage": os_image,
                "containerRuntimeVersion": rt,
                "kubeletVersion": kv,
                "kubeProxyVersion": kv,
                "operatingSystem": "linux",
                "architecture": "amd64",
            },
            "images": [
                {"names": [f"registry.example.com/shop/api@sha256:{API_DIGEST}",
                           "registry.example.com/shop/api:2.4.1"], "sizeBytes": 48211334},
                {"names": [f"docker.io/library/nginx@sha256:{NGINX_DIGEST}",
                           "docker.io/library/nginx:1.25.3"], "sizeBytes": 70544635},
            ],
        },
    }


def lease():
    return {
        "kind": "Lease",
        "apiVersion": "coordination.k8s.io/v1",
        "metadata": meta(NODE, "kube-node-lease", "9c0d1e2f-3a4b-4c5d-8e6f-7a8b9c0d1e2f", "923987",
                         "2026-11-16T08:01:02Z",
                         ownerReferences=[{"apiVersion": "v1", "kind": "Node", "name": NODE,
                                           "uid": NODE_UID}]),
        "spec": {"holderIdentity": NODE, "leaseDurationSeconds": 40,
                 "renewTime": "2026-11-23T10:44:58.412345Z"},
    }


def namespace(name, uid, created):
    return {
        "kind": "Namespace",
        "apiVersion": "v1",
        "metadata": meta(name, None, uid, str(100 + len(name)), created,
                         labels={"kubernetes.io/metadata.name": name}),
        "spec": {"finalizers": ["kubernetes"]},
        "status": {"phase": "Active"},
    }


NAMESPACES = [
    ("default", "0d1e2f3a-4b5c-4d6e-9f7a-8b9c0d1e2f3a", "2026-11-16T07:52:10Z"),
    ("kube-node-lease", "1e2f3a4b-5c6d-4e7f-8a9b-0c1d2e3f4a5b", "2026-11-16T07:52:09Z"),
    ("kube-public", "2f3a4b5c-6d7e-4f8a-9b0c-1d2e3f4a5b6c", "2026-11-16T07:52:09Z"),
    ("kube-system", "3a4b5c6d-7e8f-4a9b-8c0d-2e3f4a5b6c7d", "2026-11-16T07:52:09Z"),
    (NS, NS_UID, "2026-11-20T08:55:00Z"),
]
