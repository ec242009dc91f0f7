//! Delegated authentication and authorization for `unstuck serve`, as kube-rbac-proxy and
//! metrics-server do it: a bearer token is checked with a TokenReview (authentication.k8s.io/v1),
//! the user it names is checked with a SubjectAccessReview (authorization.k8s.io/v1) for a
//! non-resource URL, so RBAC `nonResourceURLs` rules decide who may read what.

use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec};
use kube::api::{Api, PostParams};

/// Who a token belongs to, as the API server says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct User {
    pub name: String,
    pub uid: String,
    pub groups: Vec<String>,
    pub extra: std::collections::BTreeMap<String, Vec<String>>,
}

/// TokenReview: Ok(Some(user)) when the token is valid, Ok(None) when it is not, Err when the
/// API server could not say (the caller must refuse the request then).
pub async fn authenticate(client: &kube::Client, token: &str) -> Result<Option<User>, kube::Error> {
    let review =
        TokenReview { spec: TokenReviewSpec { token: Some(token.to_string()), audiences: None }, ..Default::default() };
    let out = Api::<TokenReview>::all(client.clone()).create(&PostParams::default(), &review).await?;
    let Some(status) = out.status else { return Ok(None) };
    if status.authenticated != Some(true) {
        return Ok(None);
    }
    let u = status.user.unwrap_or_default();
    Ok(Some(User {
        name: u.username.unwrap_or_default(),
        uid: u.uid.unwrap_or_default(),
        groups: u.groups.unwrap_or_default(),
        extra: u.extra.unwrap_or_default(),
    }))
}

/// SubjectAccessReview for `verb` on the non-resource URL `path`: Ok(allowed?) or the API's error.
pub async fn authorize(client: &kube::Client, user: &User, path: &str, verb: &str) -> Result<bool, kube::Error> {
    let review = SubjectAccessReview {
        spec: SubjectAccessReviewSpec {
            user: Some(user.name.clone()),
            uid: (!user.uid.is_empty()).then(|| user.uid.clone()),
            groups: Some(user.groups.clone()),
            extra: (!user.extra.is_empty()).then(|| user.extra.clone()),
            non_resource_attributes: Some(NonResourceAttributes {
                path: Some(path.to_string()),
                verb: Some(verb.to_string()),
            }),
            ..Default::default()
        },
        ..Default::default()
    };
    let out = Api::<SubjectAccessReview>::all(client.clone()).create(&PostParams::default(), &review).await?;
    Ok(out.status.is_some_and(|s| s.allowed && s.denied != Some(true)))
}
