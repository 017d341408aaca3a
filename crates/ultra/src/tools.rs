//! `ultra tools`: the AI-exposed commands as tool definitions (MCP, OpenAI, Anthropic),
//! generated from the registry. By default only commands that declare a tool name (a small
//! profile, so the tool list stays cheap in a prompt); `--all` adds every AI-exposed command
//! under a name derived from its id.

use std::process::ExitCode;

use serde_json::{Value, json};
use ultra_commands::Services;
use ultra_core::Registry;
use ultra_protocol::command::CommandInfo;

/// A tool description, whose first paragraph is the command's description and whose end
/// lists usage and one example, cut to `budget` bytes.
pub fn description(c: &CommandInfo, budget: usize) -> String {
    let mut d = c.description.clone();
    d.push_str(&format!("\n\nUsage: {}", c.usage));
    if let Some(e) = c.examples.first() {
        d.push_str(&format!("\nExample: {}", e.args));
    }
    if d.len() > budget {
        let mut cut = budget.saturating_sub(1);
        while !d.is_char_boundary(cut) {
            cut -= 1;
        }
        d.truncate(cut);
        d.push('…');
    }
    d
}

/// The tool name: the declared one, or the id with dots as underscores (tool names must
/// match `^[a-zA-Z0-9_-]+$`).
pub fn tool_name(c: &CommandInfo) -> String {
    c.tool_name
        .clone()
        .unwrap_or_else(|| c.id.replace('.', "_"))
}

/// The tool list in one format.
pub fn tools(registry: &Registry<Services>, format: &str, all: bool) -> Result<Value, String> {
    let chosen: Vec<&CommandInfo> = registry
        .ai_exposed()
        .filter(|c| all || c.tool_name.is_some())
        .collect();
    let list: Vec<Value> = chosen
        .iter()
        .map(|c| {
            let (name, desc, schema) = (tool_name(c), description(c, 4096), c.args.clone());
            match format {
                "openai" => json!({ "type": "function", "function": { "name": name, "description": desc, "parameters": schema } }),
                "anthropic" => json!({ "name": name, "description": desc, "input_schema": schema }),
                _ => json!({
                    "name": name,
                    "description": desc,
                    "inputSchema": schema,
                    "annotations": {
                        "readOnlyHint": c.annotations.read_only,
                        "destructiveHint": c.annotations.destructive,
                        "idempotentHint": c.annotations.idempotent,
                        "openWorldHint": c.annotations.open_world,
                    },
                }),
            }
        })
        .collect();
    match format {
        "mcp" => Ok(json!({ "tools": list })),
        "openai" | "anthropic" => Ok(Value::Array(list)),
        other => Err(format!(
            "--format must be mcp, openai or anthropic, not `{other}`"
        )),
    }
}

/// `ultra tools`.
pub fn run(format: &str, all: bool) -> ExitCode {
    let mut registry = Registry::new();
    if let Err(e) = ultra_commands::register_all(&mut registry) {
        eprintln!("ultra: {e}");
        return ExitCode::from(2);
    }
    match tools(&registry, format, all) {
        Ok(v) => {
            crate::cli::print_json(&v);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ultra: {e}");
            ExitCode::from(2)
        }
    }
}
