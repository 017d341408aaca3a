//! Seed 003's `command.*` methods over the registry: `command.execute` runs any command by
//! id, alias or tool name (through the executor, so policy, the security settings,
//! validators and the audit log see the command itself), and `command.list` lists ids.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode};

use ultra_services::Services;

/// Register `command.execute` and `command.list`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(Execute)?;
    r.register(List)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\n")];

/// Arguments of `command.execute`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ExecuteArgs {
    /// A command id (`editor.getContent`), alias or tool name.
    pub command: String,
    /// Its arguments: an object; or, as seed 003 passes them, an array: one object is the
    /// arguments, other values fill the command's arguments in the order its schema declares
    /// them (null leaves one out); none for a command that takes none.
    pub args: Option<Value>,
}

/// What `command.execute` hands the executor: the command to run and its arguments. The
/// answer the caller sees is `{result}`, the data of that command.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Forward {
    pub command: String,
    pub args: Value,
}

/// `command.execute`.
pub struct Execute;

impl Command<Services> for Execute {
    type Args = ExecuteArgs;
    type Output = Forward;

    const SPEC: CommandSpec = CommandSpec::new(
        "command.execute",
        "Execute Command",
        "Command",
        "Run any command by id, alias or tool name with its arguments: an object, or seed 003's array (one object is the arguments; other values fill the command's arguments in the order its schema lists them, null leaving one out). The answer is `{result}`, that command's data. The command itself goes through policy, the security settings and validators.",
    )
    .touches(Touches::NOTHING)
    .forwards()
    .examples(&[
        Example {
            description: "Run a command by id",
            args: r#"{"command": "editor.getContent", "args": [{"path": "src/app.ts"}]}"#,
            files: HELLO,
            expect: Some(r#"{"result": {"content": "const x = 1;\n"}}"#),
            ..Example::EMPTY
        },
        Example {
            description: "Positional arguments, in the order the command declares them",
            args: r#"{"command": "ultra.getFileContent", "args": ["src/app.ts"]}"#,
            files: HELLO,
            expect: Some(r#"{"result": {"path": "src/app.ts", "content": "const x = 1;\n"}}"#),
            ..Example::EMPTY
        },
        Example {
            description: "More values than the command has arguments",
            args: r#"{"command": "editor.getActiveFile", "args": ["src/app.ts"]}"#,
            error: Some("INVALID_ARGUMENTS"),
            ..Example::EMPTY
        },
        Example {
            description: "An unknown command says which ones are close",
            args: r#"{"command": "editor.getContnt"}"#,
            error: Some("UNKNOWN_COMMAND"),
            ..Example::EMPTY
        },
    ]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: ExecuteArgs) -> Result<Forward, CommandError> {
        let args = match a.args {
            None | Some(Value::Null) => json!({}),
            Some(Value::Array(items)) => positional(cx, &a.command, items)?,
            Some(other) => other,
        };
        Ok(Forward {
            command: a.command,
            args,
        })
    }
}

/// Seed 003's positional `args: [...]` as the named arguments Ultra's commands take: `[]`
/// is none, `[{...}]` (one object) is the arguments object itself, and otherwise the values
/// fill the command's arguments in the order its schema declares them (`ultra.listCommands`
/// shows it), a `null` leaving one out. More values than arguments is INVALID_ARGUMENTS.
fn positional(
    cx: &Cx<'_, Services>,
    command: &str,
    mut items: Vec<Value>,
) -> Result<Value, CommandError> {
    match items.as_slice() {
        [] => return Ok(json!({})),
        [Value::Object(_)] => return Ok(items.pop().unwrap_or_else(|| json!({}))),
        _ => {}
    }
    // An unknown command: the executor answers UNKNOWN_COMMAND with the close names.
    let Some(info) = cx.registry.get(command) else {
        return Ok(json!({}));
    };
    let names: Vec<&String> = info
        .args
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().collect())
        .unwrap_or_default();
    if items.len() > names.len() {
        let order = if names.is_empty() {
            "it takes no arguments".to_string()
        } else {
            let listed: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
            format!("its arguments, in order, are {}", listed.join(", "))
        };
        return Err(CommandError::new(
            ErrorCode::InvalidArguments,
            format!(
                "args holds {} value{} for `{command}`, but {order}",
                items.len(),
                if items.len() == 1 { "" } else { "s" }
            ),
        )
        .with_details(json!({ "command": command, "order": names, "usage": info.usage }))
        .with_suggestion(format!(
            "pass args as [{{\"name\": value, ...}}] ({}), or as at most {} positional values in that order (null leaves one out)",
            info.usage,
            names.len()
        )));
    }
    let mut named = serde_json::Map::new();
    for (name, value) in names.into_iter().zip(items) {
        if !value.is_null() {
            named.insert(name.clone(), value);
        }
    }
    Ok(Value::Object(named))
}

/// Arguments of `command.list`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ListArgs {
    /// Only ids containing this text (case-insensitive).
    pub filter: Option<String>,
}

/// Result of `command.list`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CommandIds {
    /// Command ids, sorted.
    pub commands: Vec<String>,
}

/// `command.list`.
pub struct List;

impl Command<Services> for List {
    type Args = ListArgs;
    type Output = CommandIds;

    const SPEC: CommandSpec = CommandSpec::new(
        "command.list",
        "List Command Ids",
        "Command",
        "The ids of every command (seed 003), optionally only those containing `filter`. `ultra.listCommands` gives schemas and examples too.",
    )
    .touches(Touches::NOTHING)
    .read_only()
    .examples(&[Example {
        description: "The editor's commands",
        args: r#"{"filter": "editor.get"}"#,
        expect: Some(r#"{"commands": ["editor.getActiveFile", "editor.getContent", "editor.getOpenFiles", "editor.getSelection"]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: ListArgs) -> Result<CommandIds, CommandError> {
        let filter = a.filter.map(|f| f.to_lowercase());
        let mut commands: Vec<String> = cx
            .registry
            .all()
            .flat_map(|c| std::iter::once(c.id.to_string()).chain(c.aliases.iter().cloned()))
            .filter(|id| {
                filter
                    .as_ref()
                    .is_none_or(|f| id.to_lowercase().contains(f))
            })
            .collect();
        commands.sort();
        commands.dedup();
        Ok(CommandIds { commands })
    }
}
