//! `ultra tools`: tool definitions generated from the registry, in MCP, OpenAI and Anthropic
//! shapes, with valid names, schemas and bounded descriptions.

#![allow(clippy::unwrap_used)]

use serde_json::Value;

fn tools(args: &[&str]) -> (i32, Value) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ultra"))
        .arg("tools")
        .args(args)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v)
}

fn valid_name(n: &str) -> bool {
    !n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

#[test]
fn default_profile_is_small_and_complete() {
    let (code, v) = tools(&[]);
    assert_eq!(code, 0);
    let list = v["tools"].as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for want in ["apply_edits", "read_file", "shell"] {
        assert!(names.contains(&want), "{names:?}");
    }
    for t in list {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        // An example call, unless it would be `{}`.
        let d = t["description"].as_str().unwrap();
        assert!(
            d.contains("Example: {\"") || !d.contains("Example: "),
            "{t}"
        );
        client_friendly(&t["inputSchema"], &t["name"].to_string());
    }
    let with_example = list
        .iter()
        .filter(|t| t["description"].as_str().unwrap().contains("Example: {\""))
        .count();
    assert!(with_example >= 25, "{with_example}");
    // Hints appear where they differ from MCP's defaults (read-only false, destructive
    // true, idempotent false, open world true).
    let hints = |name: &str| &list.iter().find(|t| t["name"] == name).unwrap()["annotations"];
    assert_eq!(hints("read_file")["readOnlyHint"], true);
    assert_eq!(hints("read_file")["openWorldHint"], false);
    assert_eq!(hints("apply_edits").get("readOnlyHint"), None);
    assert_eq!(hints("delete_file").get("destructiveHint"), None);
    assert_eq!(hints("create_file")["destructiveHint"], false);
}

/// What MCP Inspector 0.15 and other form-building clients need: an optional field is a
/// plain type (with `["integer", "null"]` Inspector sends `"1"`), formats are standard
/// ones, choices are an `enum`.
fn client_friendly(s: &Value, at: &str) {
    let Some(obj) = s.as_object() else { return };
    assert!(!obj.contains_key("$schema"), "{at}");
    if let Some(Value::Array(types)) = obj.get("type") {
        assert!(!types.contains(&Value::from("null")), "{at}: {s}");
    }
    if let Some(f) = obj.get("format") {
        assert!(!f.as_str().unwrap().starts_with("uint"), "{at}: {s}");
        assert!(!f.as_str().unwrap().starts_with("int"), "{at}: {s}");
    }
    if let Some(Value::Array(branches)) = obj.get("oneOf") {
        assert!(
            !branches.iter().all(|b| b.get("const").is_some()),
            "{at}: {s}"
        );
    }
    for (k, v) in obj {
        match v {
            Value::Object(m) if k == "properties" => m
                .iter()
                .for_each(|(name, p)| client_friendly(p, &format!("{at}/{name}"))),
            Value::Array(items) => items.iter().for_each(|p| client_friendly(p, at)),
            other => client_friendly(other, at),
        }
    }
}

/// `--format openai --strict`: every function is valid in OpenAI's strict mode: every
/// object closed with every property required, no `oneOf` or `default`.
#[test]
fn openai_strict_mode() {
    fn strict(s: &Value, at: &str) {
        let Some(obj) = s.as_object() else { return };
        assert!(
            ["type", "anyOf", "enum", "$ref"]
                .iter()
                .any(|k| obj.contains_key(*k)),
            "{at}: untyped {s}"
        );
        for bad in ["oneOf", "allOf", "default", "not"] {
            assert!(!obj.contains_key(bad), "{at}: {bad} in {s}");
        }
        if obj.get("type") == Some(&Value::from("object")) {
            assert_eq!(obj["additionalProperties"], false, "{at}: {s}");
            let props = obj["properties"].as_object().unwrap();
            let required: Vec<&str> = obj["required"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap())
                .collect();
            for name in props.keys() {
                assert!(
                    required.contains(&name.as_str()),
                    "{at}/{name} not required"
                );
            }
        }
        for (k, v) in obj {
            match v {
                Value::Object(m) if k == "properties" => m
                    .iter()
                    .for_each(|(name, p)| strict(p, &format!("{at}/{name}"))),
                Value::Array(items) => items.iter().for_each(|p| strict(p, at)),
                other => strict(other, at),
            }
        }
    }
    for args in [
        &["--format", "openai", "--strict"][..],
        &["--format", "openai", "--strict", "--all"],
    ] {
        let (code, list) = tools(args);
        assert_eq!(code, 0);
        let list = list.as_array().unwrap();
        let strict_ones: Vec<&Value> = list
            .iter()
            .filter(|t| t["function"]["strict"] == true)
            .collect();
        if args.len() == 3 {
            // Every tool of the default list is strict but `ui_batch`, whose envelopes
            // carry free-form parameters (strict mode wants a type for every value).
            let loose: Vec<&str> = list
                .iter()
                .filter(|t| t["function"]["strict"] != true)
                .map(|t| t["function"]["name"].as_str().unwrap())
                .collect();
            assert_eq!(loose, ["ui_batch"]);
        }
        for t in strict_ones {
            strict(
                &t["function"]["parameters"],
                t["function"]["name"].as_str().unwrap(),
            );
        }
    }
    let (code, _) = tools(&["--format", "mcp", "--strict"]);
    assert_eq!(code, 2);
}

#[test]
fn every_format_and_all_commands() {
    let (code, openai) = tools(&["--format", "openai", "--all"]);
    assert_eq!(code, 0);
    let list = openai.as_array().unwrap();
    assert!(list.len() > 40, "{}", list.len());
    for t in list {
        assert_eq!(t["type"], "function");
        let f = &t["function"];
        assert!(valid_name(f["name"].as_str().unwrap()), "{f}");
        assert!(f["description"].as_str().unwrap().len() <= 4096);
        assert_eq!(f["parameters"]["type"], "object");
    }
    // Human-only commands are not offered to agents.
    assert!(
        !list
            .iter()
            .any(|t| t["function"]["name"] == "ultra_confirm_approve")
    );
    let (code, anthropic) = tools(&["--format", "anthropic"]);
    assert_eq!(code, 0);
    assert!(
        anthropic
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["input_schema"]["type"] == "object")
    );
    let (code, _) = tools(&["--format", "xml"]);
    assert_eq!(code, 2);
}

/// `ultra tools --help` says what each profile holds and costs, and the figures hold: the
/// tool count exactly, the tokens (bytes / 4 of the Anthropic list) within 10%. The default
/// list stays within 8k tokens.
#[test]
fn help_states_what_profiles_cost() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ultra"))
        .args(["tools", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for profile in ["default", "read-only", "edit", "full"] {
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{profile} ")))
            .unwrap_or_else(|| panic!("{profile} missing from:\n{help}"));
        let tools_said: usize = line
            .split(": ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        let k_said: f64 = line
            .rsplit("about ")
            .next()
            .and_then(|r| r.strip_suffix("k tokens"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{line}"));
        let (code, list) = tools(&["--format", "anthropic", "--profile", profile]);
        assert_eq!(code, 0);
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), tools_said, "{line}");
        let tokens = serde_json::to_string(list).unwrap().len() as f64 / 4.0;
        let said = k_said * 1000.0;
        assert!(
            (tokens - said).abs() <= said * 0.1,
            "{line}: {tokens} tokens"
        );
        if profile == "default" {
            assert!(tokens <= 8000.0, "{tokens} tokens");
        }
    }
}
