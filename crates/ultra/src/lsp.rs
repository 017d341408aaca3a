//! `ultra lsp status`: the workspace's language servers as a table (or JSON), from the
//! running server when there is one (what runs there), else from this process (what would
//! run: the configured or found command of each language).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

/// `ultra lsp status`.
pub fn status(root: &Path, socket: Option<PathBuf>, json_out: bool) -> ExitCode {
    let result = match crate::cli::call(root, socket, "lsp.status", json!({})) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("ultra: {e}");
            return ExitCode::from(1);
        }
    };
    if json_out || !result.success {
        return if crate::cli::report(&result, true) {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    }
    let servers = result
        .data
        .as_ref()
        .and_then(|d| d["servers"].as_array())
        .cloned()
        .unwrap_or_default();
    let mut out = format!(
        "{:<11} {:<10} {:>8}  {:<7} {}\n",
        "LANGUAGE", "STATE", "PID", "ENC", "COMMAND"
    );
    for s in &servers {
        let text = |k: &str| s[k].as_str().unwrap_or("-").to_string();
        let command = s["command"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_else(|| "-".into());
        out.push_str(&format!(
            "{:<11} {:<10} {:>8}  {:<7} {}\n",
            text("language"),
            text("state"),
            s["pid"].as_u64().map_or("-".into(), |p| p.to_string()),
            text("positionEncoding"),
            command
        ));
        if let Some(e) = s["lastError"].as_str() {
            out.push_str(&format!("{:<11} last error: {e}\n", ""));
        }
        if let Some(w) = s["working"].as_array() {
            let w: Vec<&str> = w.iter().filter_map(Value::as_str).collect();
            out.push_str(&format!("{:<11} working: {}\n", "", w.join(", ")));
        }
    }
    crate::cli::print_text(out.trim_end());
    ExitCode::SUCCESS
}
