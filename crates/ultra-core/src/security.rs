//! Seed 003's `security` settings, enforced for every command an agent (or any source but a
//! person and Ultra itself) runs, whatever surface it came through: file-system access,
//! terminal access, command execution, and a list of restricted commands.

use ultra_protocol::{CommandError, ErrorCode, SourceKind};

use crate::command::CommandSpec;
use crate::config::SecurityConfig;

/// Categories whose commands read or write workspace files.
const FILE_CATEGORIES: [&str; 9] = [
    "Code",
    "Search",
    "Editor",
    "File System",
    "Shell",
    "State",
    "Edit",
    "File",
    "AI",
];
/// Commands outside those categories that return file content.
const FILE_COMMANDS: [&str; 2] = ["ultra.getFileContent", "ultra.getSelection"];
/// Categories whose commands run programs or scripts.
const EXECUTION_CATEGORIES: [&str; 1] = ["Shell"];
/// Commands that run other commands or programs.
const EXECUTION_COMMANDS: [&str; 2] = ["command.execute", "run_command"];

/// The settings, ready to check commands against.
#[derive(Debug, Clone, Default)]
pub struct SecurityGate {
    deny_files: bool,
    deny_terminals: bool,
    deny_execution: bool,
    /// Command ids or tool names; `prefix.*` matches a whole family.
    restricted: Vec<String>,
}

impl SecurityGate {
    /// From `security` in `ultra.config.json`.
    pub fn new(cfg: &SecurityConfig) -> SecurityGate {
        SecurityGate {
            deny_files: !cfg.allow_file_system_access,
            deny_terminals: !cfg.allow_terminal_access,
            deny_execution: !cfg.allow_command_execution,
            restricted: cfg.restricted_commands.clone(),
        }
    }

    /// Whether `source` may run the command `spec` describes. People and Ultra itself are
    /// not restricted: the settings keep agents and programs in bounds.
    pub fn check(&self, spec: &CommandSpec, source: SourceKind) -> Result<(), CommandError> {
        if matches!(source, SourceKind::Human | SourceKind::Internal) {
            return Ok(());
        }
        let names = [Some(spec.id), spec.tool_name];
        if let Some(rule) = self
            .restricted
            .iter()
            .find(|r| names.iter().flatten().any(|n| matches(r, n)))
        {
            return Err(denied(
                ErrorCode::AccessDenied,
                format!(
                    "{} is restricted by security.restrictedCommands (`{rule}`)",
                    spec.id
                ),
            ));
        }
        if self.deny_files
            && (FILE_CATEGORIES.contains(&spec.category) || FILE_COMMANDS.contains(&spec.id))
        {
            return Err(denied(
                ErrorCode::FileAccessDenied,
                format!(
                    "{} touches files, and security.allowFileSystemAccess is false",
                    spec.id
                ),
            ));
        }
        if self.deny_terminals && (spec.category == "Terminal" || spec.id.starts_with("terminal."))
        {
            return Err(denied(
                ErrorCode::AccessDenied,
                format!(
                    "{} uses terminals, and security.allowTerminalAccess is false",
                    spec.id
                ),
            ));
        }
        if self.deny_execution
            && (EXECUTION_CATEGORIES.contains(&spec.category)
                || EXECUTION_COMMANDS.contains(&spec.id))
        {
            return Err(denied(
                ErrorCode::AccessDenied,
                format!(
                    "{} runs commands, and security.allowCommandExecution is false",
                    spec.id
                ),
            ));
        }
        Ok(())
    }
}

fn denied(code: ErrorCode, message: String) -> CommandError {
    CommandError::new(code, message).with_suggestion(
        "the workspace owner's security settings in ultra.config.json do not allow this for agents; ask them, or use another command",
    )
}

/// `rule` is a command id or tool name, or `prefix.*` for every command under `prefix.`.
fn matches(rule: &str, name: &str) -> bool {
    match rule.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => rule == name,
    }
}

#[cfg(test)]
mod tests {
    use super::{SecurityGate, matches};
    use crate::command::CommandSpec;
    use crate::config::SecurityConfig;
    use ultra_protocol::{ErrorCode, SourceKind};

    static READ: CommandSpec = CommandSpec::new("fs.readFile", "Read", "File System", "d");
    static SH: CommandSpec = CommandSpec::new("shell.rm", "rm", "Shell", "d").tool_name("rm");
    static NAV: CommandSpec = CommandSpec::new("ultra.cursorUp", "Up", "Navigation", "d");

    fn gate(f: impl FnOnce(&mut SecurityConfig)) -> SecurityGate {
        let mut c: SecurityConfig = serde_json::from_str("{}").expect("defaults");
        f(&mut c);
        SecurityGate::new(&c)
    }

    #[test]
    fn settings_deny_agents_not_people() {
        let open = gate(|_| {});
        assert!(open.check(&READ, SourceKind::Ai).is_ok());
        let no_fs = gate(|c| c.allow_file_system_access = false);
        let e = no_fs.check(&READ, SourceKind::Ai).expect_err("denied");
        assert_eq!(e.code, ErrorCode::FileAccessDenied);
        assert_eq!(e.code.rpc_code(), -32003);
        assert!(no_fs.check(&READ, SourceKind::Human).is_ok());
        assert!(no_fs.check(&NAV, SourceKind::Ai).is_ok());
        let no_exec = gate(|c| c.allow_command_execution = false);
        let e = no_exec.check(&SH, SourceKind::Ipc).expect_err("denied");
        assert_eq!(e.code.rpc_code(), -32001);
        let restricted = gate(|c| c.restricted_commands = vec!["rm".into(), "fs.*".into()]);
        assert!(
            restricted.check(&SH, SourceKind::Ai).is_err(),
            "by tool name"
        );
        assert!(
            restricted.check(&READ, SourceKind::Ai).is_err(),
            "by prefix"
        );
        assert!(restricted.check(&NAV, SourceKind::Ai).is_ok());
    }

    #[test]
    fn rules() {
        assert!(matches("fs.*", "fs.readFile"));
        assert!(!matches("fs.*", "ultra.fs"));
        assert!(matches("shell.rm", "shell.rm"));
        assert!(!matches("shell.rm", "shell.rmdir"));
    }
}
