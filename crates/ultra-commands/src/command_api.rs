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
    /// Its arguments: an object, or (as seed 003 passes them) an array holding one object;
    /// none for a command that takes none.
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
        "Run any command by id, alias or tool name with its arguments (an object, or an array holding one); the answer is `{result}`, that command's data. The command itself goes through policy, the security settings and validators.",
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
            description: "An unknown command says which ones are close",
            args: r#"{"command": "editor.getContnt"}"#,
            error: Some("UNKNOWN_COMMAND"),
            ..Example::EMPTY
        },
    ]);

    fn run(&self, _cx: &mut Cx<'_, Services>, a: ExecuteArgs) -> Result<Forward, CommandError> {
        let args = match a.args {
            None | Some(Value::Null) => json!({}),
            Some(Value::Array(mut items)) if items.len() <= 1 => {
                items.pop().unwrap_or_else(|| json!({}))
            }
            Some(Value::Array(items)) => {
                return Err(CommandError::new(
                    ErrorCode::InvalidArguments,
                    format!(
                        "args holds {} values; Ultra's commands take one object of named arguments",
                        items.len()
                    ),
                )
                .with_suggestion("pass args as {\"name\": value, ...} or [{...}]"));
            }
            Some(other) => other,
        };
        Ok(Forward {
            command: a.command,
            args,
        })
    }
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
