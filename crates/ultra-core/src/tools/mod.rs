//! The AI-exposed commands as tool definitions for LLM clients (MCP, OpenAI, Anthropic),
//! generated from the registry, and the profiles that choose which of them a client sees
//! (every schema costs a client prompt tokens, so the default list is small).

use serde_json::{Value, json};
use ultra_protocol::command::CommandInfo;

use crate::Registry;

pub mod shape;

/// Longest tool description, in bytes.
pub const DESCRIPTION_BUDGET: usize = 4096;

/// Which commands a client is offered as tools.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Profile {
    /// The commands that declare a tool name: the seed tools, `shell` and the promoted
    /// shell commands.
    #[default]
    Default,
    /// Of those, the ones that only read.
    ReadOnly,
    /// Of those, all but the ones that reach outside the workspace (`shell`).
    Edit,
    /// Every AI-exposed command, under its tool name or its id with `_` for `.`.
    Full,
    /// Exactly these tools (by tool name or command id).
    List(Vec<String>),
}

impl Profile {
    /// `default`, `read-only`, `edit`, `full`, or a comma-separated list of tool names.
    pub fn parse(text: &str) -> Result<Profile, String> {
        let text = text.trim();
        Ok(match text {
            "" | "default" => Profile::Default,
            "read-only" | "readonly" => Profile::ReadOnly,
            "edit" => Profile::Edit,
            "full" | "all" => Profile::Full,
            list => {
                let names: Vec<String> = list
                    .split(',')
                    .map(|n| n.trim().to_string())
                    .filter(|n| !n.is_empty())
                    .collect();
                if names.is_empty() {
                    return Err(
                        "a tool profile is default, read-only, edit, full, or a list of tool names"
                            .into(),
                    );
                }
                Profile::List(names)
            }
        })
    }

    /// Whether `c` is offered under this profile.
    pub fn admits(&self, c: &CommandInfo) -> bool {
        if !c.ai_exposed {
            return false;
        }
        let declared = c.tool_name.is_some();
        match self {
            Profile::Default => declared,
            Profile::ReadOnly => declared && c.annotations.read_only,
            Profile::Edit => declared && !c.annotations.open_world,
            Profile::Full => true,
            Profile::List(names) => names.iter().any(|n| *n == tool_name(c) || *n == c.id),
        }
    }
}

/// The tool name: the declared one, or the id with dots as underscores (tool names must
/// match `^[a-zA-Z0-9_-]+$`).
pub fn tool_name(c: &CommandInfo) -> String {
    c.tool_name
        .clone()
        .unwrap_or_else(|| c.id.replace('.', "_"))
}

/// A tool description: the command's description and its shortest example call that
/// succeeds (else its first), cut to `budget` bytes. (The usage line `ultra.listCommands`
/// shows is left out: the input schema says the same; a short call shows the shape at the
/// least cost to a model's context.)
pub fn description(c: &CommandInfo, budget: usize) -> String {
    let mut d = without_seed_notes(&c.description);
    // `{}` shows nothing the schema does not.
    let shown = |e: &&ultra_protocol::command::ExampleInfo| {
        e.args.as_object().is_none_or(|o| !o.is_empty())
    };
    let example = c
        .examples
        .iter()
        .filter(shown)
        .filter(|e| e.error.is_none())
        .min_by_key(|e| e.args.to_string().len())
        .or_else(|| c.examples.iter().find(shown));
    if let Some(e) = example {
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

/// `text` without its notes on which specification asked for a thing (`(seed 001's
/// run_tests)`): they help whoever maintains Ultra, not a model choosing a tool.
fn without_seed_notes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" (seed ") {
        let Some(len) = rest[at..].find(')') else {
            break;
        };
        out.push_str(&rest[..at]);
        rest = &rest[at + len + 1..];
    }
    out.push_str(rest);
    out
}

/// The commands a profile offers, sorted by id.
pub fn chosen<'a, S: 'static>(
    registry: &'a Registry<S>,
    profile: &Profile,
) -> Vec<&'a CommandInfo> {
    registry.all().filter(|c| profile.admits(c)).collect()
}

/// One tool in MCP's shape (`name`, `title`, `description`, `inputSchema`, `annotations`,
/// and `outputSchema` when the result is an object).
pub fn mcp_tool(c: &CommandInfo) -> Value {
    let mut tool = json!({
        "name": tool_name(c),
        "title": c.title,
        "description": description(c, DESCRIPTION_BUDGET),
        "inputSchema": shape::for_clients(&c.args),
        "annotations": annotations(c),
    });
    // MCP wants an object schema here; a result of another shape has none.
    if c.returns.get("type") == Some(&json!("object")) {
        tool["outputSchema"] = shape::for_output(&c.returns);
    }
    tool
}

/// MCP's hints, each only where it differs from the value MCP assumes when it is absent
/// (`readOnlyHint` false, `destructiveHint` true, `idempotentHint` false,
/// `openWorldHint` true): the list is loaded into every prompt.
fn annotations(c: &CommandInfo) -> Value {
    let a = &c.annotations;
    let mut out = serde_json::Map::new();
    if a.read_only {
        out.insert("readOnlyHint".into(), json!(true));
    } else if !a.destructive {
        out.insert("destructiveHint".into(), json!(false));
    }
    if a.idempotent {
        out.insert("idempotentHint".into(), json!(true));
    }
    if !a.open_world {
        out.insert("openWorldHint".into(), json!(false));
    }
    Value::Object(out)
}

/// The tool list in one format: `mcp` (`{tools}`), `openai` or `anthropic` (arrays).
/// `strict` (OpenAI only) makes each function valid for OpenAI's strict mode, and marks
/// `"strict": false` the few whose arguments cannot be (a free-form object).
pub fn tools<S: 'static>(
    registry: &Registry<S>,
    format: &str,
    profile: &Profile,
    strict: bool,
) -> Result<Value, String> {
    if strict && format != "openai" {
        return Err(format!(
            "--strict is OpenAI's strict mode: use it with --format openai, not `{format}`"
        ));
    }
    let list = chosen(registry, profile);
    let one = |c: &CommandInfo| {
        let (name, desc, schema) = (
            tool_name(c),
            description(c, DESCRIPTION_BUDGET),
            shape::for_clients(&c.args),
        );
        match format {
            "openai" if strict => {
                let strict_schema = shape::strict(&schema);
                let ok = shape::strict_problems(&strict_schema).is_empty();
                let parameters = if ok { strict_schema } else { schema };
                Some(json!({ "type": "function", "function": {
                    "name": name, "description": desc, "parameters": parameters, "strict": ok
                } }))
            }
            "openai" => Some(
                json!({ "type": "function", "function": { "name": name, "description": desc, "parameters": schema } }),
            ),
            "anthropic" => {
                Some(json!({ "name": name, "description": desc, "input_schema": schema }))
            }
            "mcp" => Some(mcp_tool(c)),
            _ => None,
        }
    };
    let items: Option<Vec<Value>> = list.into_iter().map(one).collect();
    match (format, items) {
        ("mcp", Some(items)) => Ok(json!({ "tools": items })),
        (_, Some(items)) => Ok(Value::Array(items)),
        (other, None) => Err(format!(
            "--format must be mcp, openai or anthropic, not `{other}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::Profile;

    #[test]
    fn seed_notes_are_left_to_maintainers() {
        assert_eq!(
            super::without_seed_notes("Run the tests (seed 001's run_tests): fast (seed 002)."),
            "Run the tests: fast."
        );
        assert_eq!(
            super::without_seed_notes("No (notes) here"),
            "No (notes) here"
        );
    }

    #[test]
    fn profiles_parse() {
        assert_eq!(
            Profile::parse("").unwrap_or(Profile::Full),
            Profile::Default
        );
        assert_eq!(Profile::parse("read-only"), Ok(Profile::ReadOnly));
        assert_eq!(Profile::parse("edit"), Ok(Profile::Edit));
        assert_eq!(Profile::parse("all"), Ok(Profile::Full));
        assert_eq!(
            Profile::parse("get_lines, grep"),
            Ok(Profile::List(vec!["get_lines".into(), "grep".into()]))
        );
        assert!(Profile::parse(",").is_err());
    }
}
