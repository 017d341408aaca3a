//! `ultra.keybindings`: the key bindings in effect (each command's default and the user's
//! from config `keybindings`), with their when-clauses, for the palette, help and agents
//! that want to know what a key does.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::keymap::Origin;
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::CommandError;

use ultra_services::Services;

/// Register `ultra.keybindings`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(Keybindings)
}

/// Arguments of `ultra.keybindings`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeysArgs {
    /// Only this command's bindings.
    pub command: Option<String>,
}

/// One binding.
#[derive(Debug, Serialize, JsonSchema)]
pub struct KeyInfo {
    /// `ctrl+shift+p`.
    pub key: String,
    pub command: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub args: Option<serde_json::Value>,
    /// `default` (the command's own) or `user` (config `keybindings`).
    pub origin: String,
}

/// `ultra.keybindings`.
pub struct Keybindings;

impl Command<Services> for Keybindings {
    type Args = KeysArgs;
    type Output = Vec<KeyInfo>;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.keybindings",
        "Key Bindings",
        "Query",
        "The key bindings in effect, defaults first then the user's (config `keybindings`: {key, command, when, args}; `-command` removes): a key runs the last binding whose when-clause holds.",
    )
    .touches(Touches::NOTHING)
    .read_only()
    .idempotent()
    .examples(&[Example {
        description: "What saves",
        args: r#"{"command": "ultra.save"}"#,
        expect: Some(r#"[{"key": "ctrl+s", "command": "ultra.save", "origin": "default"}]"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: KeysArgs) -> Result<Vec<KeyInfo>, CommandError> {
        let wanted = a
            .command
            .as_deref()
            .map(|c| cx.registry.resolve(c).unwrap_or(c).to_string());
        Ok(cx
            .services
            .keymap()
            .bindings()
            .iter()
            .filter(|b| wanted.as_deref().is_none_or(|w| b.command == w))
            .map(|b| KeyInfo {
                key: b.key.to_string(),
                command: b.command.clone(),
                when: b.when_text.clone(),
                args: b.args.clone(),
                origin: match b.origin {
                    Origin::Default => "default".into(),
                    Origin::User => "user".into(),
                },
            })
            .collect())
    }
}
