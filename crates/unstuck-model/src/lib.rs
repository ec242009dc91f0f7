//! The in-memory model of a cluster snapshot.
//!
//! Filled by the bundle reader (offline) or by the live collector; read by the rules. It keeps only the
//! fields rules need (plus UIDs and resourceVersions, so that a fix can be preconditioned on them), and
//! deserializes straight from Kubernetes JSON: every unknown field (managedFields, env, probes, …) is
//! skipped by serde instead of being kept.

mod facts;
mod k8s;
mod logs;
mod snapshot;

pub use facts::*;
pub use k8s::*;
pub use logs::*;
pub use snapshot::*;

/// A point in time (UTC).
pub type Time = jiff::Timestamp;
