//! The kubelet's container hash, reproduced for every kubelet version from 1.6.
//!
//! The kubelet stores a hash of each container's spec on the running container
//! (`io.kubernetes.container.hash`) and restarts the container when the hash it computes differs.
//! The hash is always FNV-32a; its input changed over time (domain.md §7):
//!
//! | kubelet | input |
//! |---|---|
//! | 1.6 – 1.15 | spew `%#v` of the Go `v1.Container` struct (field order, type names, nil pointers…) |
//! | 1.16 – 1.30 | spew `%#v` of the `[]byte` from `json.Marshal(container)` (`([]uint8)[123 34 …]`) |
//! | 1.27 – 1.30, InPlacePodVerticalScaling | the same with `Resources` zeroed |
//! | ≥ 1.31 | spew of `json.Marshal(map{"image","name"})` |
//!
//! The per-version Go layout of `v1.Container` and every type it reaches is data (`schemas/`),
//! generated from each release's real `types.go` by `tools/hash-oracle/gen-schemas.sh`.

mod gojson;
mod schema;
mod spew;

use serde_json::Value;

pub use schema::{Schema, SCHEMA_RANGES};

/// The newest kubelet minor whose behaviour is known (hash input unchanged since 1.31).
pub const NEWEST_KNOWN_MINOR: u32 = 36;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum HashError {
    #[error("invalid kubelet version {0:?} (expected e.g. 1.9.11 or v1.28.3)")]
    BadVersion(String),
    #[error("kubelet {0} is older than 1.6: its adler32 hash of api.Container is not supported")]
    TooOld(String),
    #[error("invalid container at {path}: {msg}")]
    BadContainer { path: String, msg: String },
    #[error("{0}")]
    Input(String),
}

/// A kubelet version (only major 1 exists).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub minor: u32,
    pub patch: u32,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "1.{}.{}", self.minor, self.patch)
    }
}

impl std::str::FromStr for Version {
    type Err = HashError;
    /// `1.9.11`, `v1.28.3`, `v1.28.3-eks-ae9a62a`, `1.28` (patch 0).
    fn from_str(s: &str) -> Result<Self, HashError> {
        let bad = || HashError::BadVersion(s.to_string());
        let t = s.trim().trim_start_matches('v');
        let core = t.split(['-', '+']).next().unwrap_or("");
        let mut it = core.split('.');
        let major: u32 = it.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
        let minor: u32 = it.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
        let patch: u32 = match it.next() {
            Some(p) => p.parse().map_err(|_| bad())?,
            None => 0,
        };
        if major != 1 || it.next().is_some() {
            return Err(bad());
        }
        let v = Version { minor, patch };
        if minor < 6 {
            return Err(HashError::TooOld(v.to_string()));
        }
        Ok(v)
    }
}

/// How the input to the hash is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Era {
    /// 1.6–1.15: spew of the Go struct.
    SpewStruct,
    /// 1.16–1.30: spew of the JSON bytes.
    JsonBytes,
    /// ≥ 1.31: spew of the JSON of name and image only.
    NameImage,
}

impl Era {
    pub fn of(v: &Version) -> Era {
        match v.minor {
            0..=15 => Era::SpewStruct,
            16..=30 => Era::JsonBytes,
            _ => Era::NameImage,
        }
    }
    pub fn describe(self) -> &'static str {
        match self {
            Era::SpewStruct => "FNV-32a over spew %#v of the Go v1.Container struct (1.6-1.15)",
            Era::JsonBytes => "FNV-32a over spew %#v of json.Marshal(v1.Container) (1.16-1.30)",
            Era::NameImage => "FNV-32a over spew %#v of json.Marshal({image, name}) (1.31+)",
        }
    }
}

/// Options that change the hash.
#[derive(Debug, Clone, Copy, Default)]
pub struct HashOptions {
    /// 1.27–1.30 with the InPlacePodVerticalScaling feature gate: hash with `Resources` zeroed.
    pub without_resources: bool,
}

/// A computed hash and exactly what was hashed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hashed {
    pub container: String,
    pub kubelet: String,
    pub era: Era,
    pub hash: u32,
    /// The value of the `io.kubernetes.container.hash` annotation/label (lower-case hex).
    pub hex: String,
    /// The exact bytes that went into FNV-32a.
    #[serde(skip)]
    pub input: Vec<u8>,
    /// Assumptions made (newer-than-known version, quantity internals…).
    pub assumptions: Vec<String>,
}

/// FNV-32a.
pub fn fnv32a(data: &[u8]) -> u32 {
    let mut h: u32 = 0x811c9dc5;
    for &b in data {
        h ^= b as u32;
        h = h.wrapping_mul(0x01000193);
    }
    h
}

/// spew `%#v` of a `[]byte`.
fn spew_bytes(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(b.len() * 4 + 12);
    out.extend_from_slice(b"([]uint8)[");
    for (i, x) in b.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        out.extend_from_slice(x.to_string().as_bytes());
    }
    out.push(b']');
    out
}

/// Hash one container spec (a `v1.Container` as the API returns it) as kubelet `v` would.
pub fn hash_container(v: &Version, container: &Value, opts: HashOptions) -> Result<Hashed, HashError> {
    if !container.is_object() {
        return Err(HashError::BadContainer { path: "$".into(), msg: "a container must be a JSON/YAML object".into() });
    }
    let name = container.get("name").and_then(Value::as_str).unwrap_or("").to_string();
    let mut assumptions = Vec::new();
    if v.minor > NEWEST_KNOWN_MINOR {
        assumptions.push(format!(
            "kubelet 1.{} is newer than the newest known (1.{NEWEST_KNOWN_MINOR}); assuming the 1.31+ name/image hash still applies",
            v.minor
        ));
    }
    let era = Era::of(v);
    let input = match era {
        Era::NameImage => {
            let image = container.get("image").and_then(Value::as_str).unwrap_or("");
            let mut j = Vec::new();
            j.extend_from_slice(b"{\"image\":");
            gojson::write_string(&mut j, image);
            j.extend_from_slice(b",\"name\":");
            gojson::write_string(&mut j, &name);
            j.push(b'}');
            spew_bytes(&j)
        }
        Era::JsonBytes => {
            let schema = Schema::for_minor(v.minor);
            let mut c = container.clone();
            if opts.without_resources {
                if v.minor < 27 {
                    assumptions.push("--without-resources only applies to 1.27-1.30; ignored".into());
                } else if let Some(o) = c.as_object_mut() {
                    o.remove("resources");
                }
            }
            let j = gojson::marshal(schema, "Container", &c, "$", &mut assumptions)?;
            spew_bytes(&j)
        }
        Era::SpewStruct => {
            let schema = Schema::for_minor(v.minor);
            spew::dump_container(schema, container, &mut assumptions)?
        }
    };
    let hash = fnv32a(&input);
    Ok(Hashed { container: name, kubelet: v.to_string(), era, hash, hex: format!("{hash:x}"), input, assumptions })
}

/// The containers of a pod (init containers first), or the value itself if it is a container.
pub fn containers_of(v: &Value) -> Vec<&Value> {
    let spec = if v.get("kind").and_then(Value::as_str) == Some("Pod") {
        v.get("spec")
    } else if v.get("containers").is_some() {
        Some(v)
    } else {
        None
    };
    match spec {
        Some(s) => ["initContainers", "containers"]
            .iter()
            .filter_map(|k| s.get(*k).and_then(Value::as_array))
            .flatten()
            .collect(),
        None => vec![v],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!("v1.9.11".parse::<Version>().unwrap(), Version { minor: 9, patch: 11 });
        assert_eq!("1.28".parse::<Version>().unwrap(), Version { minor: 28, patch: 0 });
        assert_eq!("v1.28.3-eks-ae9a62a".parse::<Version>().unwrap(), Version { minor: 28, patch: 3 });
        assert!(matches!("1.5.3".parse::<Version>(), Err(HashError::TooOld(_))));
        for bad in ["", "2.1.0", "1.x", "v1", "1.2.3.4", "1.9.x"] {
            assert!(matches!(bad.parse::<Version>(), Err(HashError::BadVersion(_))), "{bad}");
        }
    }

    #[test]
    fn fnv_known_values() {
        assert_eq!(fnv32a(b""), 0x811c9dc5);
        assert_eq!(fnv32a(b"a"), 0xe40c292c);
    }

    #[test]
    fn newer_than_known_is_an_assumption() {
        let c = serde_json::json!({"name": "a", "image": "b"});
        let h = hash_container(&"1.99.0".parse().unwrap(), &c, HashOptions::default()).unwrap();
        assert!(!h.assumptions.is_empty());
        let h2 = hash_container(&"1.31.0".parse().unwrap(), &c, HashOptions::default()).unwrap();
        assert_eq!(h.hash, h2.hash);
        assert!(h2.assumptions.is_empty());
    }

    #[test]
    fn name_image_input_is_exact() {
        let c = serde_json::json!({"name": "web", "image": "nginx:1.25", "ports": [{"containerPort": 80}]});
        let h = hash_container(&"1.31.0".parse().unwrap(), &c, HashOptions::default()).unwrap();
        let json = br#"{"image":"nginx:1.25","name":"web"}"#;
        assert_eq!(h.input, spew_bytes(json));
        assert!(h.input.starts_with(b"([]uint8)[123 34 105"));
    }
}
