//! Leader election on a coordination.k8s.io/v1 Lease, for `unstuck serve --leader-elect`.
//!
//! The protocol is client-go's (`tools/leaderelection` with a `LeaseLock`): read the Lease; take it
//! when it is free, ours, or not renewed within its `leaseDurationSeconds`; write it back with the
//! resourceVersion that was read, so that of two candidates only one write succeeds (the other
//! gets 409 Conflict). Expiry is judged on this process's monotonic clock from the moment the
//! record was last seen to change, never by comparing `renewTime` with the local wall clock, so
//! clock skew between nodes cannot make two leaders.
//!
//! Why not a crate: `kube-leader-election` 0.44 is built on kube 4 (this workspace is on kube 5),
//! and `kube-lease-manager` 0.13 (kube 5) keeps reporting leadership while it cannot renew (its
//! watch loop backs off on API errors without stepping down), so a replica cut off from the
//! API server would go on exporting the alert series next to the new leader. Here a leader that
//! has not renewed within the renew deadline (2/3 of the lease duration) steps down before any
//! other replica may take over (a full lease duration after it last saw the record change).

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use kube::api::{Api, ObjectMeta, PostParams};

/// Where the lease lives and who we are.
#[derive(Debug, Clone)]
pub struct LeaseConfig {
    pub name: String,
    pub namespace: String,
    pub identity: String,
    pub duration: Duration,
}

impl LeaseConfig {
    /// A leader steps down when it could not renew for this long (client-go's RenewDeadline, 10 s of 15 s).
    pub fn renew_deadline(&self) -> Duration {
        self.duration * 2 / 3
    }

    /// How often candidates and the leader try (client-go's RetryPeriod, 2 s of 15 s).
    pub fn retry_period(&self) -> Duration {
        (self.duration / 7).max(Duration::from_millis(200))
    }
}

/// What one attempt found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt {
    /// We hold the lease (acquired or renewed).
    Leader,
    /// Someone else holds a valid lease (its identity), or won the race for it.
    Follower(Option<String>),
}

/// What identifies a version of the Lease record: holder, renewTime, resourceVersion.
type Record = (Option<String>, Option<MicroTime>, Option<String>);

/// The candidate's state between attempts.
pub struct Elector {
    api: Api<Lease>,
    cfg: LeaseConfig,
    /// The last record seen (holder, renewTime, resourceVersion) and when it was first seen.
    observed: Option<(Record, Instant)>,
    last_renew: Option<Instant>,
    leader: bool,
}

fn micro_now() -> MicroTime {
    MicroTime(jiff::Timestamp::now())
}

fn secs(d: Duration) -> i32 {
    i32::try_from(d.as_secs().max(1)).unwrap_or(i32::MAX)
}

impl Elector {
    pub fn new(client: kube::Client, cfg: LeaseConfig) -> Elector {
        Elector { api: Api::namespaced(client, &cfg.namespace), cfg, observed: None, last_renew: None, leader: false }
    }

    pub fn config(&self) -> &LeaseConfig {
        &self.cfg
    }

    /// One try to acquire or renew. Errors are the API's (network, 403 ...); the caller decides
    /// from [`Elector::step`] what they mean for leadership.
    pub async fn try_acquire_or_renew(&mut self) -> Result<Attempt, kube::Error> {
        let me = self.cfg.identity.clone();
        let current = match self.api.get_opt(&self.cfg.name).await? {
            Some(l) => l,
            None => {
                let now = micro_now();
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(self.cfg.name.clone()),
                        namespace: Some(self.cfg.namespace.clone()),
                        ..Default::default()
                    },
                    spec: Some(LeaseSpec {
                        holder_identity: Some(me),
                        lease_duration_seconds: Some(secs(self.cfg.duration)),
                        acquire_time: Some(now.clone()),
                        renew_time: Some(now),
                        lease_transitions: Some(0),
                        ..Default::default()
                    }),
                };
                return match self.api.create(&PostParams::default(), &lease).await {
                    Ok(_) => Ok(Attempt::Leader),
                    Err(kube::Error::Api(s)) if s.code == 409 => Ok(Attempt::Follower(None)),
                    Err(e) => Err(e),
                };
            }
        };
        let spec = current.spec.clone().unwrap_or_default();
        let holder = spec.holder_identity.clone().filter(|h| !h.is_empty());
        let record = (holder.clone(), spec.renew_time.clone(), current.metadata.resource_version.clone());
        let seen_at = match &self.observed {
            Some((r, at)) if *r == record => *at,
            _ => {
                let now = Instant::now();
                self.observed = Some((record, now));
                now
            }
        };
        let ours = holder.as_deref() == Some(me.as_str());
        let duration = spec.lease_duration_seconds.map_or(self.cfg.duration, |s| Duration::from_secs(s.max(0) as u64));
        if let Some(h) = &holder {
            if !ours && seen_at.elapsed() < duration {
                return Ok(Attempt::Follower(Some(h.clone())));
            }
        }
        let now = micro_now();
        let mut lease = current;
        lease.spec = Some(LeaseSpec {
            holder_identity: Some(me),
            lease_duration_seconds: Some(secs(self.cfg.duration)),
            acquire_time: if ours { spec.acquire_time.clone() } else { Some(now.clone()) },
            renew_time: Some(now),
            lease_transitions: Some(spec.lease_transitions.unwrap_or(0) + i32::from(!ours)),
            ..spec
        });
        // The resourceVersion read above stays in the object: the API server refuses the write
        // with 409 Conflict when anyone changed the Lease since.
        match self.api.replace(&self.cfg.name, &PostParams::default(), &lease).await {
            Ok(_) => Ok(Attempt::Leader),
            Err(kube::Error::Api(s)) if s.code == 409 => Ok(Attempt::Follower(holder)),
            Err(e) => Err(e),
        }
    }

    /// One attempt and what it means: Ok(leader?) or the error with the leadership it leaves.
    pub async fn step(&mut self) -> (bool, Option<String>) {
        match self.try_acquire_or_renew().await {
            Ok(Attempt::Leader) => {
                self.last_renew = Some(Instant::now());
                self.leader = true;
                (true, None)
            }
            Ok(Attempt::Follower(_)) => {
                self.leader = false;
                (false, None)
            }
            Err(e) => {
                // A leader keeps the lease until the renew deadline, then steps down: by then no
                // other replica can have taken it (they wait a whole lease duration).
                if self.leader && self.last_renew.is_none_or(|t| t.elapsed() >= self.cfg.renew_deadline()) {
                    self.leader = false;
                }
                (self.leader, Some(e.to_string()))
            }
        }
    }

    /// Give the lease up (on shutdown), so that another replica takes over at once.
    pub async fn release(&mut self) -> Result<(), kube::Error> {
        if !self.leader {
            return Ok(());
        }
        self.leader = false;
        let Some(mut lease) = self.api.get_opt(&self.cfg.name).await? else { return Ok(()) };
        let Some(spec) = lease.spec.as_mut() else { return Ok(()) };
        if spec.holder_identity.as_deref() != Some(self.cfg.identity.as_str()) {
            return Ok(());
        }
        spec.holder_identity = None;
        spec.lease_duration_seconds = Some(1);
        spec.renew_time = Some(micro_now());
        self.api.replace(&self.cfg.name, &PostParams::default(), &lease).await.map(|_| ())
    }
}
