//! The lab: etcd + kube-apiserver + kube-controller-manager + kube-scheduler built from Go modules
//! (scripts/lab-build.sh), started on free loopback ports with generated certificates, and simulated
//! kubelets in Rust that register nodes, renew Leases and drive pods through real status transitions.
//! Scenarios reproduce the seed incidents through the real controllers.

pub mod control_plane;
pub mod kubelet;
pub mod logserver;
pub mod scenarios;

pub use control_plane::{ControlPlane, LabConfig};
pub use kubelet::{NodeSpec, SimKubelet};
