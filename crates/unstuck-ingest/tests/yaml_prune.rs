//! The YAML fast path skips the values of keys no typed object of the model reads
//! (`yaml_fast::UNREAD_KEYS`). Two guarantees: no such key is a field of the model (else a must-gather
//! would lose what a cluster-info dump keeps), and a pruned document is the whole one without those keys.

use std::collections::BTreeSet;

use serde_json::Value;
use unstuck_ingest::yaml_fast::{to_json, to_json_pruned, UNREAD_KEYS};
use unstuck_model::*;

fn keys(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                out.insert(k.clone());
                keys(v, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| keys(v, out)),
        _ => {}
    }
}

/// Every field name the model has, from instances whose optional parts and lists are all filled.
fn model_fields() -> BTreeSet<String> {
    let state = ContainerState {
        waiting: Some(Box::default()),
        running: Some(Box::default()),
        terminated: Some(Box::default()),
    };
    let status = ContainerStatus { state: state.clone(), last_state: state, ..Default::default() };
    let handler = Handler { exec: Some(ExecAction::default()) };
    let container = Container {
        lifecycle: Some(Lifecycle { post_start: Some(handler.clone()), pre_stop: Some(handler) }),
        ..Default::default()
    };
    let mut pod = Pod::default();
    pod.metadata.owner_references = vec![OwnerRef::default()];
    pod.metadata.finalizers = vec!["f".into()];
    pod.spec.containers = vec![container.clone()];
    pod.spec.init_containers = vec![container];
    pod.spec.volumes = vec![Volume {
        nfs: Some(NfsVolume::default()),
        persistent_volume_claim: Some(PvcVolume::default()),
        host_path: Some(Present),
        glusterfs: Some(Present),
        cephfs: Some(Present),
        rbd: Some(Present),
        iscsi: Some(Present),
        csi: Some(Present),
        ..Default::default()
    }];
    pod.status.conditions = vec![Condition::default()];
    pod.status.container_statuses = vec![status.clone()];
    pod.status.init_container_statuses = vec![status];
    let mut node = Node::default();
    node.spec.taints = vec![Taint::default()];
    node.status.conditions = vec![Condition::default()];
    let mut dep = Deployment::default();
    dep.status.conditions = vec![Condition::default()];
    let values = [
        serde_json::to_value(&pod).unwrap(),
        serde_json::to_value(&node).unwrap(),
        serde_json::to_value(Event::default()).unwrap(),
        serde_json::to_value(&dep).unwrap(),
        serde_json::to_value(ReplicaSet::default()).unwrap(),
        serde_json::to_value(StatefulSet::default()).unwrap(),
        serde_json::to_value(Owner::default()).unwrap(),
        serde_json::to_value(Pvc::default()).unwrap(),
        serde_json::to_value(Lease::default()).unwrap(),
    ];
    let mut out = BTreeSet::new();
    values.iter().for_each(|v| keys(v, &mut out));
    out
}

#[test]
fn no_unread_key_is_a_field_of_the_model() {
    let fields = model_fields();
    // The enumeration reaches deep fields (else the check below would pass on nothing).
    for f in ["postStart", "claimName", "exitCode", "startedAt", "timeAdded", "kubeletVersion", "holderIdentity"] {
        assert!(fields.contains(f), "model fields lack {f}: {fields:?}");
    }
    for k in UNREAD_KEYS {
        assert!(!fields.contains(*k), "{k} is skipped by the YAML fast path but the model reads it");
    }
}

fn without(v: &mut Value, skip: &[&str]) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !skip.contains(&k.as_str()));
            m.values_mut().for_each(|v| without(v, skip));
        }
        Value::Array(a) => a.iter_mut().for_each(|v| without(v, skip)),
        _ => {}
    }
}

/// A pod as `oc get -o yaml` prints it, with skipped values of every shape: a block sequence at its key's
/// indentation, nested mappings, a multi-line quoted scalar, a literal block scalar, a blank line and a
/// comment inside, a flow `[]`, and a skipped key as the last of its mapping and of the document.
const POD: &str = r#"apiVersion: v1
kind: Pod
metadata:
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:labels:
          .: {}
    manager: kube-controller-manager
  name: web-0
  namespace: shop
spec:
  containers:
  - args:
    - --config=/etc/app/config.yaml
    env:
    - name: OPTS
      value: "--config=/etc/app/config.yaml
        --verbose"
    - name: SCRIPT
      value: |
        #!/bin/sh

        exec app
    # a comment inside a skipped value
    image: registry.example.com/web:1.4.2
    lifecycle:
      postStart:
        exec:
          command: ["/bin/sh"]
    name: web
    ports: []
    resources:
      limits:
        memory: 256Mi
  nodeName: node-1
  tolerations:
  - effect: NoExecute
    key: node.kubernetes.io/not-ready
status:
  phase: Running
  podIP: 10.244.1.23
template:
  spec:
    containers:
    - name: x
"#;

#[test]
fn a_pruned_document_is_the_whole_one_without_the_unread_keys() {
    // The flow sequence with content makes the unpruned conversion give up; drop it for the comparison.
    let pod = POD.replace("command: [\"/bin/sh\"]", "command:\n          - /bin/sh");
    let mut whole: Value = serde_json::from_str(&to_json(pod.as_bytes()).unwrap().unwrap()).unwrap();
    without(&mut whole, UNREAD_KEYS);
    let pruned: Value = serde_json::from_str(&to_json_pruned(pod.as_bytes(), UNREAD_KEYS).unwrap().unwrap()).unwrap();
    assert_eq!(pruned, whole);
    assert_eq!(pruned["spec"]["containers"][0]["image"], "registry.example.com/web:1.4.2");
    assert_eq!(pruned["spec"]["containers"][0]["name"], "web");
    assert_eq!(pruned["spec"]["nodeName"], "node-1");
    assert_eq!(pruned["status"]["phase"], "Running");
    assert!(pruned["metadata"].get("managedFields").is_none());
    // What is not skipped is still checked: the flow sequence with content is outside the fast path.
    assert!(to_json_pruned(POD.as_bytes(), UNREAD_KEYS).is_err());
    // Nothing skipped: the same as the plain conversion.
    assert_eq!(to_json_pruned(pod.as_bytes(), &[]), to_json(pod.as_bytes()));
}
