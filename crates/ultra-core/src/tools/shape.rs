//! Argument schemas as tool clients read them. The registry's schemas are what `schemars`
//! derives from the argument types (draft 2020-12); clients want less and simpler:
//!
//! - [`for_clients`]: every MCP, OpenAI and Anthropic list. An optional field is a plain type
//!   left out of `required` (`"type": ["integer", "null"]` makes MCP Inspector send `"1"`),
//!   objects do not repeat `additionalProperties: false` (unknown fields are refused anyway),
//!   string choices are an `enum` (their explanations move into the description), and what
//!   a model cannot use is dropped: the root's `$schema`, `title` and description (the
//!   tool's own says more), Rust's integer `format`s (`uint32`) and `minimum: 0`,
//!   `default`s that only restate "off" or "none".
//! - [`strict`]: OpenAI's strict mode on top of that: every property required (optional
//!   ones nullable), `additionalProperties: false` everywhere, `anyOf` for `oneOf`, no
//!   `default`. [`strict_problems`] says why a schema cannot be strict (a free-form object).

use serde_json::{Map, Value, json};

/// `format` values JSON Schema defines; the rest (`uint32`, `int64`, ...) are `schemars`'
/// names for Rust integer types, which clients do not know (Inspector rejects them).
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uuid",
    "regex",
];

/// The schema as tool lists carry it (see the module docs).
pub fn for_clients(schema: &Value) -> Value {
    let mut s = schema.clone();
    open_objects(&mut s);
    if let Some(root) = s.as_object_mut() {
        root.remove("$schema");
        root.remove("title");
        // "Arguments of `grep`.": the tool's description says more.
        root.remove("description");
    }
    simplify(&mut s);
    s
}

/// Unknown fields are refused whatever the schema says (with an error naming the field
/// and the usage), so `additionalProperties: false` only costs prompt tokens here;
/// [`strict`] puts it back where OpenAI requires it.
fn open_objects(s: &mut Value) {
    match s {
        Value::Object(obj) => {
            if obj.get("additionalProperties") == Some(&json!(false)) {
                obj.remove("additionalProperties");
            }
            obj.values_mut().for_each(open_objects);
        }
        Value::Array(items) => items.iter_mut().for_each(open_objects),
        _ => {}
    }
}

fn simplify(s: &mut Value) {
    let Some(obj) = s.as_object_mut() else {
        if let Some(items) = s.as_array_mut() {
            items.iter_mut().for_each(simplify);
        }
        return;
    };
    for key in ["properties", "$defs", "definitions"] {
        if let Some(props) = obj.get_mut(key).and_then(Value::as_object_mut) {
            props.values_mut().for_each(simplify);
        }
    }
    for key in ["items", "additionalProperties", "oneOf", "anyOf", "allOf"] {
        if let Some(sub) = obj.get_mut(key) {
            simplify(sub);
        }
    }
    drop_null_type(obj);
    drop_null_branch(obj);
    choices_to_enum(obj);
    drop_rust_integer_noise(obj);
    let idle_default = match obj.get("default") {
        Some(Value::Bool(false) | Value::Null) => true,
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        _ => false,
    };
    if idle_default {
        obj.remove("default");
    }
}

/// Rust's integer `format`s (`uint32`), which clients do not know, and the `minimum: 0` of
/// unsigned types (a field that counts from 1 says so itself).
fn drop_rust_integer_noise(obj: &mut Map<String, Value>) {
    if obj
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| !STANDARD_FORMATS.contains(&f))
    {
        obj.remove("format");
    }
    if obj.get("minimum") == Some(&json!(0)) {
        obj.remove("minimum");
    }
}

/// `"type": ["integer", "null"]` → `"type": "integer"`: absence already says "none".
fn drop_null_type(obj: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = obj.get("type") else {
        return;
    };
    let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
    if rest.len() == types.len() {
        return;
    }
    let new = match rest.as_slice() {
        [one] => (*one).clone(),
        _ => Value::Array(rest.into_iter().cloned().collect()),
    };
    obj.insert("type".into(), new);
    // A nullable enum lists `null` among its values too.
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
}

/// `anyOf: [X, {"type": "null"}]` → X (with the field's own description kept).
fn drop_null_branch(obj: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = obj.get(key) else {
            continue;
        };
        let is_null = |b: &Value| b.get("type") == Some(&json!("null"));
        if branches.len() != 2 || !branches.iter().any(is_null) {
            continue;
        }
        let Some(Value::Object(kept)) = branches.iter().find(|b| !is_null(b)).cloned() else {
            continue;
        };
        obj.remove(key);
        for (k, v) in kept {
            obj.entry(k).or_insert(v);
        }
    }
}

/// `oneOf` of string constants → one `enum`; each constant's explanation joins the
/// field's description (`` `basic`: POSIX basic regex ``).
fn choices_to_enum(obj: &mut Map<String, Value>) {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(branches)) = obj.get(key) else {
            continue;
        };
        let consts: Option<Vec<(Value, Option<String>)>> = branches
            .iter()
            .map(|b| {
                let c = b.get("const").or_else(|| {
                    b.get("enum")
                        .and_then(Value::as_array)
                        .filter(|e| e.len() == 1)
                        .map(|e| &e[0])
                })?;
                c.is_string().then(|| {
                    (
                        c.clone(),
                        b.get("description")
                            .and_then(Value::as_str)
                            .map(String::from),
                    )
                })
            })
            .collect();
        let Some(consts) = consts else { continue };
        obj.remove(key);
        let notes: Vec<String> = consts
            .iter()
            .filter_map(|(c, d)| {
                d.as_ref()
                    .map(|d| format!("`{}`: {d}", c.as_str().unwrap_or("")))
            })
            .collect();
        // A field that explains its choices itself keeps its words; one that does not
        // gets each choice's.
        if !notes.is_empty() && !obj.contains_key("description") {
            obj.insert("description".into(), Value::String(notes.join("; ")));
        }
        obj.insert("type".into(), json!("string"));
        obj.insert(
            "enum".into(),
            Value::Array(consts.into_iter().map(|(c, _)| c).collect()),
        );
    }
}

/// A result schema as MCP's `outputSchema`: structure only, `text` optional. Nulls stay
/// (a result says `"nextCursor": null`), descriptions go (the tool's description explains the answer; the
/// list is loaded into every prompt), and so do `$schema`, `title`, Rust's integer formats
/// and `minimum: 0`.
pub fn for_output(schema: &Value) -> Value {
    let mut s = schema.clone();
    if let Some(root) = s.as_object_mut() {
        root.remove("$schema");
        // A result's `text` is the content an MCP client shows; the structured copy goes
        // without it (see ultra-mcp's results), so it may be missing there.
        if let Some(Value::Array(required)) = root.get_mut("required") {
            required.retain(|r| r != "text");
        }
    }
    structure_only(&mut s);
    s
}

fn structure_only(s: &mut Value) {
    match s {
        Value::Object(obj) => {
            for key in ["title", "description", "default", "examples"] {
                // Under `properties` these are field names, not keywords.
                if !obj
                    .get(key)
                    .is_some_and(|v| v.is_object() && key != "default")
                {
                    obj.remove(key);
                }
            }
            drop_rust_integer_noise(obj);
            if let Some(Value::Object(props)) = obj.get_mut("properties") {
                props.values_mut().for_each(structure_only);
            }
            for (k, v) in obj.iter_mut() {
                if k != "properties" {
                    structure_only(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(structure_only),
        _ => {}
    }
}

/// OpenAI's strict mode from a [`for_clients`] schema (see the module docs).
pub fn strict(schema: &Value) -> Value {
    let mut s = schema.clone();
    make_strict(&mut s);
    s
}

fn make_strict(s: &mut Value) {
    let Some(obj) = s.as_object_mut() else {
        if let Some(items) = s.as_array_mut() {
            items.iter_mut().for_each(make_strict);
        }
        return;
    };
    obj.remove("default");
    if let Some(branches) = obj.remove("oneOf") {
        obj.insert("anyOf".into(), branches);
    }
    if let Some(c) = obj.remove("const") {
        obj.insert("enum".into(), json!([c]));
    }
    for key in ["items", "anyOf", "allOf"] {
        if let Some(sub) = obj.get_mut(key) {
            make_strict(sub);
        }
    }
    if obj.get("properties").is_some_and(Value::is_object) {
        let required = crate::schema::strings(obj.get("required"));
        let mut all = Vec::new();
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                make_strict(prop);
                if !required.contains(name) {
                    nullable(prop);
                }
                all.push(Value::String(name.clone()));
            }
        }
        obj.insert("required".into(), Value::Array(all));
        obj.insert("additionalProperties".into(), json!(false));
    } else if obj.get("type") == Some(&json!("object")) {
        obj.insert("properties".into(), json!({}));
        obj.insert("required".into(), json!([]));
        obj.insert("additionalProperties".into(), json!(false));
    }
}

/// Let `null` stand for "not given".
fn nullable(prop: &mut Value) {
    let Some(obj) = prop.as_object_mut() else {
        return;
    };
    match obj.get("type").cloned() {
        Some(Value::String(t)) if t != "object" => {
            obj.insert("type".into(), json!([t, "null"]));
            if let Some(Value::Array(values)) = obj.get_mut("enum") {
                values.push(Value::Null);
            }
        }
        Some(Value::Array(mut types)) => {
            if !types.contains(&json!("null")) {
                types.push(json!("null"));
            }
            obj.insert("type".into(), Value::Array(types));
        }
        _ => {
            if let Some(Value::Array(branches)) = obj.get_mut("anyOf") {
                if !branches
                    .iter()
                    .any(|b| b.get("type") == Some(&json!("null")))
                {
                    branches.push(json!({ "type": "null" }));
                }
            } else {
                let inner = std::mem::take(obj);
                obj.insert(
                    "anyOf".into(),
                    json!([Value::Object(inner), { "type": "null" }]),
                );
            }
        }
    }
}

/// Why `schema` is not valid in OpenAI's strict mode (empty: it is). Strict mode wants
/// every object closed (`additionalProperties: false`) with every property required, a
/// type for every value, and knows no `oneOf`, `allOf`, `not`, `default` or open
/// `additionalProperties`.
pub fn strict_problems(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    if schema.get("type") != Some(&json!("object")) {
        out.push("the root is not an object".to_string());
    }
    check_strict(schema, "", &mut out);
    out
}

fn check_strict(s: &Value, at: &str, out: &mut Vec<String>) {
    let Some(obj) = s.as_object() else {
        if s.is_boolean() {
            out.push(format!("{at}: a value of any type"));
        }
        return;
    };
    // Strict mode wants a type for every value (free-form JSON has none).
    if !["type", "anyOf", "enum", "const", "$ref"]
        .iter()
        .any(|k| obj.contains_key(*k))
    {
        out.push(format!("{at}: a value of any type"));
    }
    for bad in [
        "oneOf",
        "allOf",
        "not",
        "default",
        "if",
        "patternProperties",
    ] {
        if obj.contains_key(bad) {
            out.push(format!("{at}: `{bad}`"));
        }
    }
    let is_object = obj.get("type") == Some(&json!("object"))
        || obj
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|t| t.contains(&json!("object")));
    if is_object {
        if obj.get("additionalProperties") != Some(&json!(false)) {
            out.push(format!(
                "{at}: an object without `additionalProperties: false`"
            ));
        }
        let props = obj.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = obj
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for name in props.into_iter().flat_map(|p| p.keys()) {
            if !required.contains(&name.as_str()) {
                out.push(format!("{at}/{name}: not in `required`"));
            }
        }
    }
    if let Some(props) = obj.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            check_strict(p, &format!("{at}/{name}"), out);
        }
    }
    if let Some(items) = obj.get("items") {
        check_strict(items, &format!("{at}[]"), out);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            for (i, b) in branches.iter().enumerate() {
                check_strict(b, &format!("{at}|{i}"), out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn optional_fields_are_plain_types_and_choices_an_enum() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "line": { "type": ["integer", "null"], "format": "uint32", "minimum": 1 },
                "flag": { "type": "boolean", "default": false },
                "paths": { "type": "array", "items": { "type": "string" }, "default": [] },
                "mode": { "description": "How.", "oneOf": [
                    { "type": "string", "const": "a", "description": "First." },
                    { "type": "string", "const": "b" }
                ] },
                "kind": { "oneOf": [
                    { "type": "string", "const": "a", "description": "First." },
                    { "type": "string", "const": "b", "description": "Second." }
                ] },
                "at": { "anyOf": [ { "type": "object", "properties": {} }, { "type": "null" } ], "description": "Where." },
                "when": { "type": "string", "format": "date-time" }
            },
            "required": ["paths"]
        });
        let s = for_clients(&schema);
        assert_eq!(s.get("$schema"), None);
        assert_eq!(s.get("title"), None);
        assert_eq!(
            s["properties"]["line"],
            json!({ "type": "integer", "minimum": 1 })
        );
        assert_eq!(s["properties"]["flag"], json!({ "type": "boolean" }));
        assert_eq!(
            s["properties"]["paths"],
            json!({ "type": "array", "items": { "type": "string" } })
        );
        assert_eq!(
            s["properties"]["mode"],
            json!({ "type": "string", "enum": ["a", "b"], "description": "How." })
        );
        assert_eq!(
            s["properties"]["kind"],
            json!({ "type": "string", "enum": ["a", "b"], "description": "`a`: First.; `b`: Second." })
        );
        assert_eq!(
            s["properties"]["at"],
            json!({ "type": "object", "properties": {}, "description": "Where." })
        );
        assert_eq!(s["properties"]["when"]["format"], "date-time");
    }

    #[test]
    fn strict_requires_every_property_and_makes_optional_ones_nullable() {
        let s = for_clients(&json!({
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "path": { "type": "string" },
                "line": { "type": ["integer", "null"] },
                "mode": { "oneOf": [ { "const": "a", "type": "string" }, { "const": "b", "type": "string" } ] },
                "range": { "type": "object", "properties": { "start": { "type": "integer" } }, "required": ["start"] },
                "more": { "type": "object", "properties": { "x": { "type": "integer" } }, "default": { "x": 1 } }
            },
            "required": ["path"]
        }));
        assert!(!strict_problems(&s).is_empty());
        let st = strict(&s);
        assert_eq!(strict_problems(&st), Vec::<String>::new(), "{st:#}");
        assert_eq!(
            st["required"],
            json!(["path", "line", "mode", "range", "more"])
        );
        assert_eq!(st["properties"]["line"]["type"], json!(["integer", "null"]));
        assert_eq!(st["properties"]["mode"]["enum"], json!(["a", "b", null]));
        assert_eq!(
            st["properties"]["range"]["anyOf"][1],
            json!({ "type": "null" })
        );
        assert_eq!(
            st["properties"]["range"]["anyOf"][0]["additionalProperties"],
            false
        );
    }
}
