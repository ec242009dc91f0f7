//! Per-version Go type layouts (data generated from each release's types.go).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

#[derive(Debug, Deserialize)]
pub struct Field {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub json: String,
    pub omitempty: bool,
    #[serde(default)]
    pub inline: bool,
}

#[derive(Debug, Deserialize)]
pub struct TypeDef {
    pub kind: String,
    #[serde(default)]
    pub fields: Vec<Field>,
    #[serde(default)]
    pub underlying: String,
}

#[derive(Debug, Deserialize)]
struct Entry {
    name: String,
    def: TypeDef,
}

/// The layout of `v1.Container` and everything it reaches, for one range of minors.
#[derive(Debug)]
pub struct Schema {
    pub file: &'static str,
    pub types: HashMap<String, TypeDef>,
}

/// (first minor, last minor, file, contents). 1.7 is not on the module proxy; it shares 1.6's layout,
/// which the seed 004 vectors (1.7.16) confirm.
pub const SCHEMA_RANGES: &[(u32, u32, &str, &str)] = &[
    (6, 7, "1.6.json", include_str!("../schemas/1.6.json")),
    (8, 8, "1.8.json", include_str!("../schemas/1.8.json")),
    (9, 9, "1.9.json", include_str!("../schemas/1.9.json")),
    (10, 11, "1.10-1.11.json", include_str!("../schemas/1.10-1.11.json")),
    (12, 13, "1.12-1.13.json", include_str!("../schemas/1.12-1.13.json")),
    (14, 14, "1.14.json", include_str!("../schemas/1.14.json")),
    (15, 15, "1.15.json", include_str!("../schemas/1.15.json")),
    (16, 18, "1.16-1.18.json", include_str!("../schemas/1.16-1.18.json")),
    (19, 20, "1.19-1.20.json", include_str!("../schemas/1.19-1.20.json")),
    (21, 21, "1.21.json", include_str!("../schemas/1.21.json")),
    (22, 22, "1.22.json", include_str!("../schemas/1.22.json")),
    (23, 25, "1.23-1.25.json", include_str!("../schemas/1.23-1.25.json")),
    (26, 26, "1.26.json", include_str!("../schemas/1.26.json")),
    (27, 27, "1.27.json", include_str!("../schemas/1.27.json")),
    (28, 28, "1.28.json", include_str!("../schemas/1.28.json")),
    (29, 29, "1.29.json", include_str!("../schemas/1.29.json")),
    (30, 30, "1.30.json", include_str!("../schemas/1.30.json")),
];

static SCHEMAS: OnceLock<Vec<Schema>> = OnceLock::new();

fn all() -> &'static [Schema] {
    SCHEMAS.get_or_init(|| {
        SCHEMA_RANGES
            .iter()
            .map(|(_, _, file, text)| {
                let entries: Vec<Entry> = serde_json::from_str(text).expect("embedded schema is valid");
                Schema { file, types: entries.into_iter().map(|e| (e.name, e.def)).collect() }
            })
            .collect()
    })
}

impl Schema {
    /// The layout used by kubelet 1.`minor` (clamped to the known range).
    pub fn for_minor(minor: u32) -> &'static Schema {
        let i = SCHEMA_RANGES.iter().position(|(lo, hi, _, _)| (*lo..=*hi).contains(&minor)).unwrap_or(if minor < 6 {
            0
        } else {
            SCHEMA_RANGES.len() - 1
        });
        &all()[i]
    }

    pub fn get(&self, name: &str) -> Option<&TypeDef> {
        self.types.get(name)
    }

    /// The Go spelling of a type expression, as `reflect.Type.String()` prints it.
    pub fn go_type(&self, ty: &str) -> String {
        if let Some(rest) = ty.strip_prefix('*') {
            return format!("*{}", self.go_type(rest));
        }
        if let Some(rest) = ty.strip_prefix("[]") {
            return format!("[]{}", self.go_type(rest));
        }
        if let Some(rest) = ty.strip_prefix("map[") {
            let (k, v) = split_map(rest);
            return format!("map[{}]{}", self.go_type(k), self.go_type(v));
        }
        if self.types.contains_key(ty) {
            format!("v1.{ty}")
        } else {
            ty.to_string()
        }
    }

    /// Follow named non-struct types to their underlying type expression.
    pub fn resolve<'a>(&'a self, ty: &'a str) -> &'a str {
        let mut t = ty;
        for _ in 0..8 {
            match self.types.get(t) {
                Some(d) if d.kind == "named" => t = &d.underlying,
                _ => break,
            }
        }
        t
    }
}

static EMPTY: std::sync::LazyLock<serde_json::Map<String, serde_json::Value>> =
    std::sync::LazyLock::new(serde_json::Map::new);

/// The struct layout of Go type `name` and the JSON object holding its value (absent = all zero values).
pub(crate) fn struct_value<'s, 'v>(
    schema: &'s Schema,
    name: &str,
    v: Option<&'v serde_json::Value>,
    path: &str,
) -> Result<(&'s TypeDef, &'v serde_json::Map<String, serde_json::Value>), crate::HashError> {
    let bad = |msg: String| crate::HashError::BadContainer { path: path.to_string(), msg };
    let def =
        schema.get(name).filter(|d| d.kind == "struct").ok_or_else(|| bad(format!("unsupported Go type {name}")))?;
    let obj = match v {
        Some(serde_json::Value::Object(o)) => o,
        None => &EMPTY,
        _ => return Err(bad("expected an object".into())),
    };
    Ok((def, obj))
}

/// `K]V` of a `map[K]V` (keys are never maps here).
pub fn split_map(rest: &str) -> (&str, &str) {
    let i = rest.find(']').unwrap_or(rest.len());
    (&rest[..i], rest.get(i + 1..).unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_range_loads_and_has_container() {
        for m in 6..=30 {
            let s = Schema::for_minor(m);
            let c = s.get("Container").unwrap_or_else(|| panic!("1.{m}"));
            assert_eq!(c.fields[0].name, "Name");
            assert_eq!(c.fields[1].name, "Image");
        }
        let s = Schema::for_minor(9);
        assert!(s.get("Container").unwrap().fields.iter().any(|f| f.name == "VolumeDevices"));
        assert!(!Schema::for_minor(7).get("Container").unwrap().fields.iter().any(|f| f.name == "VolumeDevices"));
        assert_eq!(s.go_type("[]VolumeMount"), "[]v1.VolumeMount");
        assert_eq!(s.go_type("*MountPropagationMode"), "*v1.MountPropagationMode");
        assert_eq!(s.go_type("map[ResourceName]resource.Quantity"), "map[v1.ResourceName]resource.Quantity");
        assert_eq!(s.resolve("Protocol"), "string");
    }
}
