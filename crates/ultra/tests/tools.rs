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
        assert!(t["description"].as_str().unwrap().contains("Usage: "));
        assert!(t["annotations"]["readOnlyHint"].is_boolean());
    }
    let read = list.iter().find(|t| t["name"] == "read_file").unwrap();
    assert_eq!(read["annotations"]["readOnlyHint"], true);
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
