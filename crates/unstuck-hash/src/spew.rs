//! spew `%#v` (Indent " ", SortKeys, DisableMethods, SpewKeys) of a Go `v1.Container` rebuilt from
//! API JSON with a per-version layout: the hash input of kubelets 1.6-1.15.
//!
//! Rules (go-spew format.go): a value prints `(T)` before it unless it is a slice element, a map key or
//! value, or the target of a pointer; nil pointers print `(*T)<nil>`, non-nil ones `(*T)` then the
//! value; nil slices and maps print `<nil>`; structs print `{Field:(T)value …}`, unexported fields
//! included; strings print raw.

use serde_json::Value;

use crate::schema::{split_map, Schema};
use crate::HashError;

fn bad(path: &str, msg: impl Into<String>) -> HashError {
    HashError::BadContainer { path: path.to_string(), msg: msg.into() }
}

pub fn dump_container(schema: &Schema, v: &Value, notes: &mut Vec<String>) -> Result<Vec<u8>, HashError> {
    let mut out = Vec::with_capacity(2048);
    fmt(schema, "Container", Some(v), true, "$", &mut out, notes)?;
    Ok(out)
}

fn push(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(s.as_bytes());
}

fn fmt(
    schema: &Schema,
    ty: &str,
    v: Option<&Value>,
    show_type: bool,
    path: &str,
    out: &mut Vec<u8>,
    notes: &mut Vec<String>,
) -> Result<(), HashError> {
    let v = v.filter(|v| !v.is_null());
    if let Some(inner) = ty.strip_prefix('*') {
        match v {
            None => {
                if show_type {
                    push(out, &format!("({})", schema.go_type(ty)));
                }
                push(out, "<nil>");
            }
            Some(_) => {
                if show_type {
                    push(out, &format!("({})", schema.go_type(ty)));
                } else {
                    push(out, "<*>");
                }
                fmt(schema, inner, v, false, path, out, notes)?;
            }
        }
        return Ok(());
    }
    if show_type {
        push(out, &format!("({})", schema.go_type(ty)));
    }
    let r = schema.resolve(ty);
    if let Some(elem) = r.strip_prefix("[]") {
        let Some(v) = v else {
            push(out, "<nil>");
            return Ok(());
        };
        let a = v.as_array().ok_or_else(|| bad(path, "expected a list"))?;
        out.push(b'[');
        for (i, x) in a.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            fmt(schema, elem, Some(x), false, &format!("{path}[{i}]"), out, notes)?;
        }
        out.push(b']');
        return Ok(());
    }
    if let Some(rest) = r.strip_prefix("map[") {
        let (kt, vt) = split_map(rest);
        let Some(v) = v else {
            push(out, "<nil>");
            return Ok(());
        };
        let o = v.as_object().ok_or_else(|| bad(path, "expected a map"))?;
        if schema.resolve(kt) != "string" {
            return Err(bad(path, format!("unsupported map key type {kt}")));
        }
        let mut keys: Vec<&String> = o.keys().collect();
        keys.sort();
        push(out, "map[");
        for (i, k) in keys.iter().enumerate() {
            if i > 0 {
                out.push(b' ');
            }
            push(out, k);
            out.push(b':');
            fmt(schema, vt, o.get(*k), false, &format!("{path}.{k}"), out, notes)?;
        }
        out.push(b']');
        return Ok(());
    }
    match r {
        "string" => {
            match v {
                Some(Value::String(s)) => push(out, s),
                None => {}
                _ => return Err(bad(path, "expected a string")),
            }
            Ok(())
        }
        "bool" => {
            match v {
                Some(Value::Bool(b)) => push(out, if *b { "true" } else { "false" }),
                None => push(out, "false"),
                _ => return Err(bad(path, "expected true or false")),
            }
            Ok(())
        }
        "int" | "int32" | "int64" => {
            match v {
                Some(Value::Number(n)) if n.as_i64().is_some() => push(out, &n.to_string()),
                None => push(out, "0"),
                _ => return Err(bad(path, format!("expected an integer ({r})"))),
            }
            Ok(())
        }
        "intstr.IntOrString" => {
            let (t, i, s) = match v {
                Some(Value::Number(n)) => {
                    (0, n.as_i64().ok_or_else(|| bad(path, "expected an integer"))?, String::new())
                }
                Some(Value::String(s)) => (1, 0, s.clone()),
                None => (0, 0, String::new()),
                _ => return Err(bad(path, "expected an integer or a string")),
            };
            push(out, &format!("{{Type:(intstr.Type){t} IntVal:(int32){i} StrVal:(string){s}}}"));
            Ok(())
        }
        "resource.Quantity" => {
            let s = match v {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                None => String::new(),
                _ => return Err(bad(path, "expected a quantity")),
            };
            let q = quantity(&s).ok_or_else(|| {
                bad(path, format!("quantity {s:?}: only the int64 forms the API serves are supported for 1.6-1.15"))
            })?;
            let note = "resources: quantities are assumed freshly parsed (no cached string unless ParseQuantity keeps it), as the kubelet holds them after decoding the pod";
            if !notes.iter().any(|n| n == note) {
                notes.push(note.into());
            }
            push(
                out,
                &format!(
                    "{{i:(resource.int64Amount){{value:(int64){} scale:(resource.Scale){}}} d:(resource.infDecAmount){{Dec:(*inf.Dec)<nil>}} s:(string){} Format:(resource.Format){}}}",
                    q.value, q.scale, q.cached, q.format
                ),
            );
            Ok(())
        }
        name => {
            let (def, obj) = crate::schema::struct_value(schema, name, v, path)?;
            out.push(b'{');
            for (i, f) in def.fields.iter().enumerate() {
                if i > 0 {
                    out.push(b' ');
                }
                push(out, &f.name);
                out.push(b':');
                if f.inline {
                    // An embedded struct reads its fields from the same JSON object.
                    let inner = Value::Object(obj.clone());
                    fmt(schema, &f.ty, Some(&inner), true, path, out, notes)?;
                } else {
                    let key = if f.json.is_empty() { f.name.as_str() } else { f.json.as_str() };
                    fmt(schema, &f.ty, obj.get(key), true, &format!("{path}.{key}"), out, notes)?;
                }
            }
            out.push(b'}');
            Ok(())
        }
    }
}

struct Q {
    value: i64,
    scale: i32,
    cached: String,
    format: &'static str,
}

/// `resource.ParseQuantity`'s int64 fast path (apimachinery), for the forms the API serves.
fn quantity(s: &str) -> Option<Q> {
    if s == "0" {
        return Some(Q { value: 0, scale: 0, cached: "0".into(), format: "DecimalSI" });
    }
    let (positive, body) = match s.as_bytes().first()? {
        b'-' => (false, &s[1..]),
        b'+' => (true, &s[1..]),
        _ => (true, s),
    };
    let digits_end = body.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(body.len());
    let (number, suffix) = body.split_at(digits_end);
    let (num, denom) = match number.split_once('.') {
        Some((a, b)) => (a, b),
        None => (number, ""),
    };
    let num = num.trim_start_matches('0');
    let (base, exponent, format): (u32, i32, &str) = match suffix {
        "" => (10, 0, "DecimalSI"),
        "n" => (10, -9, "DecimalSI"),
        "u" => (10, -6, "DecimalSI"),
        "m" => (10, -3, "DecimalSI"),
        "k" => (10, 3, "DecimalSI"),
        "M" => (10, 6, "DecimalSI"),
        "G" => (10, 9, "DecimalSI"),
        "T" => (10, 12, "DecimalSI"),
        "P" => (10, 15, "DecimalSI"),
        "E" => (10, 18, "DecimalSI"),
        "Ki" => (2, 10, "BinarySI"),
        "Mi" => (2, 20, "BinarySI"),
        "Gi" => (2, 30, "BinarySI"),
        "Ti" => (2, 40, "BinarySI"),
        "Pi" => (2, 50, "BinarySI"),
        "Ei" => (2, 60, "BinarySI"),
        _ => return None,
    };
    let _ = base;
    let (mut scale, precision, mantissa): (i32, i32, i64) = if format == "BinarySI" {
        if !denom.is_empty() {
            return None;
        }
        let p = 15 - num.len() as i32 - ((exponent as f32) * 3.0 / 10.0) as i32 - 1;
        (0, p, 1i64 << exponent)
    } else {
        (exponent, 18 - (num.len() + denom.len()) as i32, 1)
    };
    if precision < 0 {
        return None;
    }
    scale -= denom.len() as i32;
    if scale < -9 {
        return None;
    }
    let shifted = format!("{num}{denom}");
    let value: i64 = if shifted.is_empty() { 0 } else { shifted.parse().ok()? };
    let mut result = value.checked_mul(mantissa)?;
    if !positive {
        result = -result;
    }
    let keep = if format == "BinarySI" {
        exponent % 10 == 0 && (value & 0x07) != 0
    } else {
        scale % 3 == 0 && !shifted.ends_with("000") && !shifted.starts_with('0')
    };
    Some(Q { value: result, scale, cached: if keep { s.to_string() } else { String::new() }, format })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities() {
        let q = quantity("100m").unwrap();
        assert_eq!((q.value, q.scale, q.cached.as_str(), q.format), (100, -3, "100m", "DecimalSI"));
        let q = quantity("128Mi").unwrap();
        assert_eq!((q.value, q.scale, q.cached.as_str(), q.format), (128 << 20, 0, "", "BinarySI"));
        let q = quantity("1").unwrap();
        assert_eq!((q.value, q.scale, q.cached.as_str()), (1, 0, "1"));
        assert!(quantity("1.5Gi").is_none());
        assert!(quantity("abc").is_none());
    }
}
