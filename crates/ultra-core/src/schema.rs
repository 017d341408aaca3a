//! JSON Schema generation, typed argument parsing with JSON-pointer issues, and usage lines
//! derived from schemas.

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// One problem with a call's arguments (seed 004 §8 shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// JSON pointer to the offending value (`/range/start/line`); empty for the root.
    pub path: String,
    /// A short machine code: `invalid_type`, `unknown_field`, `missing_field`, `invalid_value`.
    pub code: &'static str,
    pub message: String,
}

/// The JSON Schema (2020-12) of `T`, inlined so it stands alone.
pub fn schema_for<T: JsonSchema>() -> Value {
    generate::<T>(schemars::generate::Contract::Deserialize)
}

/// The JSON Schema (2020-12) of `T` as it serializes: a field skipped when empty is not
/// required (the default contract describes what deserializes). For result types, whose
/// schema clients validate answers against (MCP's `outputSchema`).
pub fn output_schema_for<T: JsonSchema>() -> Value {
    generate::<T>(schemars::generate::Contract::Serialize)
}

fn generate<T: JsonSchema>(contract: schemars::generate::Contract) -> Value {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    settings.contract = contract;
    settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// Deserialize `args` into `T`, turning serde's error into issues with a JSON pointer.
/// `null` is read as an empty object so that argument-less commands accept no arguments.
pub fn parse<T: DeserializeOwned>(args: Value) -> Result<T, Vec<Issue>> {
    let args = if args.is_null() {
        Value::Object(Default::default())
    } else {
        args
    };
    serde_path_to_error::deserialize::<_, T>(args).map_err(|err| {
        let mut path = String::new();
        for seg in err.path().iter() {
            use serde_path_to_error::Segment;
            match seg {
                Segment::Seq { index } => path.push_str(&format!("/{index}")),
                Segment::Map { key } | Segment::Enum { variant: key } => {
                    path.push('/');
                    path.push_str(&key.replace('~', "~0").replace('/', "~1"));
                }
                Segment::Unknown => {}
            }
        }
        let message = err.inner().to_string();
        let code = classify(&message);
        // serde reports a missing field at the parent; name the field itself. (An unknown
        // field's key is already the last segment of the path.)
        if code == "missing_field"
            && let Some(field) = message.split('`').nth(1)
        {
            path.push('/');
            path.push_str(field);
        }
        vec![Issue {
            path,
            code,
            message,
        }]
    })
}

/// The strings in a JSON array such as a schema's `required`; none for anything else.
pub fn strings(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// `args` with numeric strings turned into numbers where `schema` expects a number
/// (`{"line": "3"}` → `{"line": 3}`), or `None` when there are none. Form-building clients
/// (MCP Inspector) send what a text box holds; the executor retries with this after a
/// failed parse, so what already parses is never touched.
pub fn coerce_numbers(args: &Value, schema: &Value) -> Option<Value> {
    let mut out = args.clone();
    coerce(&mut out, schema).then_some(out)
}

fn coerce(v: &mut Value, schema: &Value) -> bool {
    let wants = |t: &str| match schema.get("type") {
        Some(Value::String(s)) => s == t,
        Some(Value::Array(a)) => a.iter().any(|x| x == t),
        _ => false,
    };
    match v {
        Value::String(text) if wants("integer") || wants("number") => {
            let text = text.trim();
            let n = if wants("integer") {
                text.parse::<i64>()
                    .ok()
                    .map(Value::from)
                    .or_else(|| text.parse::<u64>().ok().map(Value::from))
            } else {
                None
            };
            let n = n.or_else(|| {
                wants("number")
                    .then(|| text.parse::<f64>().ok().filter(|f| f.is_finite()))
                    .flatten()
                    .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            });
            match n {
                Some(n) => {
                    *v = n;
                    true
                }
                None => false,
            }
        }
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return false;
            };
            let mut changed = false;
            for (k, field) in map.iter_mut() {
                if let Some(sub) = props.get(k) {
                    changed |= coerce(field, sub);
                }
            }
            changed
        }
        Value::Array(items) => {
            let Some(sub) = schema.get("items") else {
                return false;
            };
            let mut changed = false;
            for item in items {
                changed |= coerce(item, sub);
            }
            changed
        }
        _ => false,
    }
}

fn classify(message: &str) -> &'static str {
    if message.starts_with("missing field") {
        "missing_field"
    } else if message.starts_with("unknown field") {
        "unknown_field"
    } else if message.starts_with("invalid type") {
        "invalid_type"
    } else {
        "invalid_value"
    }
}

/// A one-line usage summary from an argument schema: `ultra.openFile {path: string, line?: integer}`.
pub fn usage_line(id: &str, schema: &Value) -> String {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return id.to_string();
    };
    if props.is_empty() {
        return id.to_string();
    }
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = props
        .iter()
        .map(|(name, prop)| {
            let opt = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{name}{opt}: {}", type_name(prop))
        })
        .collect();
    format!("{id} {{{}}}", fields.join(", "))
}

fn type_name(prop: &Value) -> String {
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        let names: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        return names.join("|");
    }
    match prop.get("type") {
        Some(Value::String(t)) if t == "array" => {
            let item = prop
                .get("items")
                .map(type_name)
                .unwrap_or_else(|| "any".into());
            // `("a"|"b")[]`, not `"a"|"b"[]` (an array of "b" or a lone "a").
            if item.contains('|') {
                format!("({item})[]")
            } else {
                format!("{item}[]")
            }
        }
        Some(Value::String(t)) if t == "object" => {
            match prop.get("properties").and_then(Value::as_object) {
                Some(p) if !p.is_empty() && p.len() <= 4 => {
                    let inner: Vec<String> = p.keys().cloned().collect();
                    format!("{{{}}}", inner.join(", "))
                }
                _ => "object".into(),
            }
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => {
            let names: Vec<&str> = ts
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null")
                .collect();
            names.join("|")
        }
        _ => {
            if let Some(any) = prop
                .get("anyOf")
                .or_else(|| prop.get("oneOf"))
                .and_then(Value::as_array)
            {
                let names: Vec<String> = any
                    .iter()
                    .map(type_name)
                    .filter(|t| t != "null" && !t.is_empty())
                    .collect();
                names.join("|")
            } else {
                "any".into()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Inner {
        line: u32,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Args {
        path: String,
        at: Option<Inner>,
    }

    #[test]
    fn issues_carry_pointers() {
        let e = parse::<Args>(serde_json::json!({"path": "a", "at": {"line": "x"}}))
            .err()
            .unwrap();
        assert_eq!(e[0].path, "/at/line");
        assert_eq!(e[0].code, "invalid_type");
        let e = parse::<Args>(serde_json::json!({})).err().unwrap();
        assert_eq!(e[0].path, "/path");
        assert_eq!(e[0].code, "missing_field");
        let e = parse::<Args>(serde_json::json!({"path": "a", "bogus": 1}))
            .err()
            .unwrap();
        assert_eq!(e[0].code, "unknown_field");
        assert_eq!(e[0].path, "/bogus");
    }

    #[test]
    fn usage_from_schema() {
        let u = usage_line("x.y", &schema_for::<Args>());
        assert!(u.starts_with("x.y {"), "{u}");
        assert!(u.contains("path: string"), "{u}");
        assert!(u.contains("at?:"), "{u}");
        let list = serde_json::json!({"properties": {"k": {"type": "array", "items": {"enum": ["a", "b"]}}}});
        assert_eq!(usage_line("s", &list), r#"s {k?: ("a"|"b")[]}"#);
    }
}
