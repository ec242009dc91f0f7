//! Who may read `unstuck serve`'s findings and metrics: a bearer token, authenticated with a
//! TokenReview and authorised with a SubjectAccessReview for the non-resource URL (verb get), as
//! kube-rbac-proxy and metrics-server do. Results are cached for a short time, keyed by a SHA-256
//! of the token (the token itself is never kept), so Prometheus scrapes do not call the API each
//! time. When a review cannot be made the request is refused (503), never let through.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use unstuck_live::review::User;

pub type BoxFut<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The two review calls; the API server in production, injected results in unit tests.
pub trait Reviewer: Send + Sync + 'static {
    /// Ok(Some(user)) for a valid token, Ok(None) for one the API server does not accept.
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFut<'a, Result<Option<User>, String>>;
    /// Ok(allowed?) for `get` on the non-resource URL `path`.
    fn authorize<'a>(&'a self, user: &'a User, path: &'a str) -> BoxFut<'a, Result<bool, String>>;
}

/// The reviews through the API server, with serve's own credentials (they need the
/// `system:auth-delegator` ClusterRole: create tokenreviews and subjectaccessreviews).
pub struct ApiReviewer(pub kube::Client);

impl Reviewer for ApiReviewer {
    fn authenticate<'a>(&'a self, token: &'a str) -> BoxFut<'a, Result<Option<User>, String>> {
        Box::pin(async move {
            unstuck_live::review::authenticate(&self.0, token).await.map_err(|e| format!("TokenReview: {e}"))
        })
    }
    fn authorize<'a>(&'a self, user: &'a User, path: &'a str) -> BoxFut<'a, Result<bool, String>> {
        Box::pin(async move {
            unstuck_live::review::authorize(&self.0, user, path, "get")
                .await
                .map_err(|e| format!("SubjectAccessReview: {e}"))
        })
    }
}

/// What happens to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// No bearer token, or one the API server does not accept: 401.
    Unauthenticated,
    /// A valid token whose user may not `get` this path: 403.
    Forbidden,
    /// A review could not be made: 503 (the reason goes to the log, not to the client).
    Unavailable(String),
}

impl Decision {
    pub fn status(&self) -> StatusCode {
        match self {
            Decision::Allow => StatusCode::OK,
            Decision::Unauthenticated => StatusCode::UNAUTHORIZED,
            Decision::Forbidden => StatusCode::FORBIDDEN,
            Decision::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// Most cached decisions kept; past it, expired ones are dropped, then all.
const CACHE_MAX: usize = 4096;

/// (SHA-256 of the token, path) -> (decision, when it was made)
type Cache = HashMap<([u8; 32], String), (Decision, Instant)>;

pub struct Auth {
    reviewer: Box<dyn Reviewer>,
    /// Allowed decisions are reused this long.
    pub allow_ttl: Duration,
    /// Refusals (401, 403) are reused this long; errors are never cached.
    pub deny_ttl: Duration,
    cache: Mutex<Cache>,
}

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer(h: Option<&HeaderValue>) -> Option<&str> {
    let v = h?.to_str().ok()?.trim();
    let (scheme, token) = v.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

fn token_hash(token: &str) -> [u8; 32] {
    let d = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
    let mut out = [0u8; 32];
    out.copy_from_slice(d.as_ref());
    out
}

impl Auth {
    pub fn new(reviewer: impl Reviewer) -> Auth {
        Auth {
            reviewer: Box::new(reviewer),
            allow_ttl: Duration::from_secs(60),
            deny_ttl: Duration::from_secs(10),
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The decision for a request to `path` with this Authorization header.
    pub async fn decide(&self, authorization: Option<&HeaderValue>, path: &str) -> Decision {
        let Some(token) = bearer(authorization) else { return Decision::Unauthenticated };
        let key = (token_hash(token), path.to_string());
        if let Some((d, at)) = self.cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
            let ttl = if *d == Decision::Allow { self.allow_ttl } else { self.deny_ttl };
            if at.elapsed() < ttl {
                return d.clone();
            }
        }
        let d = match self.reviewer.authenticate(token).await {
            Err(e) => Decision::Unavailable(e),
            Ok(None) => Decision::Unauthenticated,
            Ok(Some(user)) => match self.reviewer.authorize(&user, path).await {
                Err(e) => Decision::Unavailable(e),
                Ok(true) => Decision::Allow,
                Ok(false) => Decision::Forbidden,
            },
        };
        if !matches!(d, Decision::Unavailable(_)) {
            let mut c = self.cache.lock().unwrap_or_else(|p| p.into_inner());
            if c.len() >= CACHE_MAX {
                let (a, n) = (self.allow_ttl, self.deny_ttl);
                c.retain(|_, (d, at)| at.elapsed() < if *d == Decision::Allow { a } else { n });
                if c.len() >= CACHE_MAX {
                    c.clear();
                }
            }
            c.insert(key, (d.clone(), Instant::now()));
        }
        d
    }
}

/// The response for a refused request.
pub fn refusal(d: &Decision) -> Response {
    match d {
        Decision::Allow => d.status().into_response(),
        Decision::Unauthenticated => (
            d.status(),
            [(header::WWW_AUTHENTICATE, "Bearer realm=\"unstuck\"")],
            "Unauthorized: a valid bearer token is required (see docs/serve.md)\n",
        )
            .into_response(),
        Decision::Forbidden => {
            (d.status(), "Forbidden: this user may not get this URL (see docs/serve.md)\n").into_response()
        }
        Decision::Unavailable(_) => {
            (d.status(), "cannot check the token now: the Kubernetes API is unavailable\n").into_response()
        }
    }
}

/// axum middleware: only allowed requests reach the handlers.
pub async fn layer(State(auth): State<Arc<Auth>>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let d = auth.decide(req.headers().get(header::AUTHORIZATION), &path).await;
    match d {
        Decision::Allow => next.run(req).await,
        Decision::Unavailable(ref e) => {
            eprintln!("unstuck serve: refused {path}: {}", unstuck_report::clean(e));
            refusal(&d)
        }
        _ => refusal(&d),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Review results injected: tokens and what the API server would say of them.
    #[derive(Default)]
    struct Injected {
        /// token -> user name (valid tokens)
        users: HashMap<String, String>,
        /// (user, path) allowed
        grants: Vec<(String, String)>,
        fail_authn: Mutex<bool>,
        fail_authz: Mutex<bool>,
        authn_calls: Arc<AtomicUsize>,
        authz_calls: Arc<AtomicUsize>,
    }

    impl Reviewer for Arc<Injected> {
        fn authenticate<'a>(&'a self, token: &'a str) -> BoxFut<'a, Result<Option<User>, String>> {
            Box::pin(async move {
                self.authn_calls.fetch_add(1, Ordering::SeqCst);
                if *self.fail_authn.lock().unwrap() {
                    return Err("TokenReview: connection refused".into());
                }
                Ok(self.users.get(token).map(|n| User { name: n.clone(), ..Default::default() }))
            })
        }
        fn authorize<'a>(&'a self, user: &'a User, path: &'a str) -> BoxFut<'a, Result<bool, String>> {
            Box::pin(async move {
                self.authz_calls.fetch_add(1, Ordering::SeqCst);
                if *self.fail_authz.lock().unwrap() {
                    return Err("SubjectAccessReview: 500".into());
                }
                Ok(self.grants.iter().any(|(u, p)| *u == user.name && p == path))
            })
        }
    }

    fn setup() -> (Arc<Injected>, Auth) {
        let inj = Arc::new(Injected {
            users: [
                ("tok-prom", "system:serviceaccount:mon:prometheus"),
                ("tok-nobody", "system:serviceaccount:x:nobody"),
            ]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect(),
            grants: vec![("system:serviceaccount:mon:prometheus".into(), "/metrics".into())],
            ..Default::default()
        });
        (inj.clone(), Auth::new(inj))
    }

    fn hv(s: &str) -> HeaderValue {
        HeaderValue::from_str(s).unwrap()
    }

    fn block<T>(f: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
    }

    #[test]
    fn decisions() {
        let (inj, auth) = setup();
        block(async {
            // No header, another scheme, an empty token: 401 without asking the API server.
            assert_eq!(auth.decide(None, "/metrics").await, Decision::Unauthenticated);
            assert_eq!(auth.decide(Some(&hv("Basic dXNlcjpwdw==")), "/metrics").await, Decision::Unauthenticated);
            assert_eq!(auth.decide(Some(&hv("Bearer ")), "/metrics").await, Decision::Unauthenticated);
            assert_eq!(inj.authn_calls.load(Ordering::SeqCst), 0);
            // A token the API server does not know: 401, and no authorisation asked.
            assert_eq!(auth.decide(Some(&hv("Bearer garbage")), "/metrics").await, Decision::Unauthenticated);
            assert_eq!(inj.authz_calls.load(Ordering::SeqCst), 0);
            // Known but not granted: 403; granted: allowed (scheme is case-insensitive).
            assert_eq!(auth.decide(Some(&hv("Bearer tok-nobody")), "/metrics").await, Decision::Forbidden);
            assert_eq!(auth.decide(Some(&hv("bearer tok-prom")), "/metrics").await, Decision::Allow);
            // The grant is per path.
            assert_eq!(auth.decide(Some(&hv("Bearer tok-prom")), "/findings").await, Decision::Forbidden);
        });
        assert_eq!(Decision::Unauthenticated.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(Decision::Forbidden.status(), StatusCode::FORBIDDEN);
        assert_eq!(refusal(&Decision::Unavailable("x".into())).status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(refusal(&Decision::Unauthenticated).headers().contains_key(header::WWW_AUTHENTICATE));
    }

    #[test]
    fn review_errors_refuse_and_are_not_cached() {
        let (inj, auth) = setup();
        block(async {
            *inj.fail_authn.lock().unwrap() = true;
            let d = auth.decide(Some(&hv("Bearer tok-prom")), "/metrics").await;
            assert!(matches!(d, Decision::Unavailable(ref e) if e.contains("TokenReview")), "{d:?}");
            *inj.fail_authn.lock().unwrap() = false;
            *inj.fail_authz.lock().unwrap() = true;
            let d = auth.decide(Some(&hv("Bearer tok-prom")), "/metrics").await;
            assert!(matches!(d, Decision::Unavailable(ref e) if e.contains("SubjectAccessReview")), "{d:?}");
            // A failed review is not remembered: once the API answers, the token is allowed.
            *inj.fail_authz.lock().unwrap() = false;
            assert_eq!(auth.decide(Some(&hv("Bearer tok-prom")), "/metrics").await, Decision::Allow);
        });
    }

    #[test]
    fn results_are_cached_for_their_ttl() {
        let (inj, mut auth) = setup();
        auth.deny_ttl = Duration::from_millis(200);
        block(async {
            for _ in 0..5 {
                assert_eq!(auth.decide(Some(&hv("Bearer tok-prom")), "/metrics").await, Decision::Allow);
                assert_eq!(auth.decide(Some(&hv("Bearer garbage")), "/metrics").await, Decision::Unauthenticated);
            }
            // One review each: the rest came from the cache.
            assert_eq!(inj.authn_calls.load(Ordering::SeqCst), 2);
            assert_eq!(inj.authz_calls.load(Ordering::SeqCst), 1);
            // Refusals expire sooner than grants.
            tokio::time::sleep(Duration::from_millis(250)).await;
            assert_eq!(auth.decide(Some(&hv("Bearer garbage")), "/metrics").await, Decision::Unauthenticated);
            assert_eq!(auth.decide(Some(&hv("Bearer tok-prom")), "/metrics").await, Decision::Allow);
            assert_eq!(inj.authn_calls.load(Ordering::SeqCst), 3);
        });
        // The cache holds hashes, never the token.
        let c = auth.cache.lock().unwrap();
        assert!(c.keys().all(|(h, _)| h != &[0u8; 32] && !String::from_utf8_lossy(h).contains("tok-prom")));
        assert!(c.contains_key(&(token_hash("tok-prom"), "/metrics".to_string())));
    }

    #[test]
    fn a_grant_expires() {
        let (inj, mut auth) = setup();
        auth.allow_ttl = Duration::from_millis(100);
        block(async {
            assert_eq!(auth.decide(Some(&hv("Bearer tok-prom")), "/metrics").await, Decision::Allow);
            tokio::time::sleep(Duration::from_millis(150)).await;
            // After the TTL the API server is asked again (here it is down: refused, not let through).
            *inj.fail_authn.lock().unwrap() = true;
            assert!(matches!(auth.decide(Some(&hv("Bearer tok-prom")), "/metrics").await, Decision::Unavailable(_)));
        });
    }
}
