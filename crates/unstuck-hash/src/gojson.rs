//! Go's `json.Marshal` of a typed value rebuilt from API JSON: Go field order, omitempty, Go string
//! escaping (HTML-safe), sorted map keys. Fields this version does not know are dropped, as Go's
//! `json.Unmarshal` drops them.

use serde_json::Value;

use crate::schema::{split_map, Schema};
use crate::HashError;

/// Go's encoding/json string encoder (with HTML escaping, as `json.Marshal` does).
pub fn write_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    for ch in s.chars() {
        match ch {
            '"' => out.extend_from_slice(b"\\\""),
            '\\' => out.extend_from_slice(b"\\\\"),
            '\n' => out.extend_from_slice(b"\\n"),
            '\r' => out.extend_from_slice(b"\\r"),
            '\t' => out.extend_from_slice(b"\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                let c = ch as u32;
                out.extend_from_slice(b"\\u");
                for shift in [12, 8, 4, 0] {
                    out.push(HEX[((c >> shift) & 0xf) as usize]);
                }
            }
            c if (c as u32) < 0x20 => {
                let c = c as u32;
                out.extend_from_slice(b"\\u00");
                out.push(HEX[(c >> 4) as usize]);
                out.push(HEX[(c & 0xf) as usize]);
            }
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
    out.push(b'"');
}

fn bad(path: &str, msg: impl Into<String>) -> HashError {
    HashError::BadContainer { path: path.to_string(), msg: msg.into() }
}

/// Whether the Go value built from `v` is the zero value for omitempty purposes.
fn is_empty(schema: &Schema, ty: &str, v: Option<&Value>) -> bool {
    let v = v.filter(|v| !v.is_null());
    if ty.starts_with('*') {
        return v.is_none();
    }
    let r = schema.resolve(ty);
    if schema.get(r).is_some_and(|d| d.kind == "struct") || r == "resource.Quantity" || r == "intstr.IntOrString" {
        return false; // encoding/json never treats a struct as empty, present or not
    }
    let Some(v) = v else { return true };
    if r.starts_with("[]") || r.starts_with("map[") {
        return match v {
            Value::Array(a) => a.is_empty(),
            Value::Object(o) => o.is_empty(),
            _ => false,
        };
    }
    match v {
        Value::String(s) => s.is_empty(),
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

pub fn marshal(
    schema: &Schema,
    ty: &str,
    v: &Value,
    path: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<u8>, HashError> {
    let mut out = Vec::with_capacity(512);
    write_value(schema, ty, Some(v), path, &mut out, notes)?;
    Ok(out)
}

fn write_struct_fields(
    schema: &Schema,
    name: &str,
    obj: &serde_json::Map<String, Value>,
    path: &str,
    out: &mut Vec<u8>,
    first: &mut bool,
    notes: &mut Vec<String>,
) -> Result<(), HashError> {
    let def = schema.get(name).ok_or_else(|| bad(path, format!("unknown type {name}")))?;
    for f in &def.fields {
        if f.inline || f.json.is_empty() && f.name == f.ty.trim_start_matches('*') {
            // Embedded struct: its fields are promoted into this object.
            let inner = f.ty.trim_start_matches('*');
            write_struct_fields(schema, inner, obj, path, out, first, notes)?;
            continue;
        }
        if f.json == "-" {
            continue;
        }
        let key = if f.json.is_empty() { f.name.as_str() } else { f.json.as_str() };
        let fv = obj.get(key);
        if f.omitempty && is_empty(schema, &f.ty, fv) {
            continue;
        }
        if !*first {
            out.push(b',');
        }
        *first = false;
        write_string(out, key);
        out.push(b':');
        write_value(schema, &f.ty, fv, &format!("{path}.{key}"), out, notes)?;
    }
    Ok(())
}

fn write_value(
    schema: &Schema,
    ty: &str,
    v: Option<&Value>,
    path: &str,
    out: &mut Vec<u8>,
    notes: &mut Vec<String>,
) -> Result<(), HashError> {
    let v = v.filter(|v| !v.is_null());
    if let Some(inner) = ty.strip_prefix('*') {
        return match v {
            None => {
                out.extend_from_slice(b"null");
                Ok(())
            }
            Some(_) => write_value(schema, inner, v, path, out, notes),
        };
    }
    let r = schema.resolve(ty);
    if let Some(elem) = r.strip_prefix("[]") {
        let Some(v) = v else {
            out.extend_from_slice(b"null");
            return Ok(());
        };
        let a = v.as_array().ok_or_else(|| bad(path, "expected a list"))?;
        out.push(b'[');
        for (i, x) in a.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_value(schema, elem, Some(x), &format!("{path}[{i}]"), out, notes)?;
        }
        out.push(b']');
        return Ok(());
    }
    if let Some(rest) = r.strip_prefix("map[") {
        let (_, val) = split_map(rest);
        let Some(v) = v else {
            out.extend_from_slice(b"null");
            return Ok(());
        };
        let o = v.as_object().ok_or_else(|| bad(path, "expected a map"))?;
        let mut keys: Vec<&String> = o.keys().collect();
        keys.sort();
        out.push(b'{');
        for (i, k) in keys.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_string(out, k);
            out.push(b':');
            write_value(schema, val, o.get(*k), &format!("{path}.{k}"), out, notes)?;
        }
        out.push(b'}');
        return Ok(());
    }
    match r {
        "resource.Quantity" => {
            // The API serves quantities in canonical form, which is what Quantity.MarshalJSON writes.
            let s = match v {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                None => "0".to_string(),
                _ => return Err(bad(path, "expected a quantity")),
            };
            write_string(out, &s);
            Ok(())
        }
        "intstr.IntOrString" => match v {
            Some(Value::Number(n)) if n.as_i64().is_some() => {
                out.extend_from_slice(n.to_string().as_bytes());
                Ok(())
            }
            Some(Value::String(s)) => {
                write_string(out, s);
                Ok(())
            }
            None => {
                out.push(b'0');
                Ok(())
            }
            _ => Err(bad(path, "expected an integer or a string")),
        },
        "string" => {
            match v {
                Some(Value::String(s)) => write_string(out, s),
                None => write_string(out, ""),
                _ => return Err(bad(path, "expected a string")),
            }
            Ok(())
        }
        "bool" => {
            match v {
                Some(Value::Bool(b)) => out.extend_from_slice(if *b { b"true" } else { b"false" }),
                None => out.extend_from_slice(b"false"),
                _ => return Err(bad(path, "expected true or false")),
            }
            Ok(())
        }
        "int" | "int32" | "int64" | "uint8" | "uint16" | "uint32" | "uint64" | "int8" | "int16" => {
            match v {
                Some(Value::Number(n)) if n.as_i64().is_some() || n.as_u64().is_some() => {
                    let ok = match r {
                        "int32" => n.as_i64().is_some_and(|x| i32::try_from(x).is_ok()),
                        _ => true,
                    };
                    if !ok {
                        return Err(bad(path, format!("{n} is out of range for {r}")));
                    }
                    out.extend_from_slice(n.to_string().as_bytes());
                }
                None => out.push(b'0'),
                _ => return Err(bad(path, format!("expected an integer ({r})"))),
            }
            Ok(())
        }
        name => {
            let (_, obj) = crate::schema::struct_value(schema, name, v, path)?;
            out.push(b'{');
            let mut first = true;
            write_struct_fields(schema, name, obj, path, out, &mut first, notes)?;
            out.push(b'}');
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_string_escaping() {
        let mut o = Vec::new();
        write_string(&mut o, "a<b>&\"\\\n\u{1}é\u{2028}");
        assert_eq!(String::from_utf8(o).unwrap(), r#""a\u003cb\u003e\u0026\"\\\n\u0001é\u2028""#);
    }
}
