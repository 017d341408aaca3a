//! Seed 003's `security` settings, enforced for every command an agent (or any source but a
//! person and Ultra itself) runs, whatever surface it came through: file-system access,
//! terminal access, command execution, and a list of restricted commands.
//!
//! The settings gate what a command declares it touches ([`Touches`] in its spec), never
//! its name or category, so a command added later is covered by what it declares; and a
//! restricted name is matched against registry ids, tool names and every program a call
//! would start.

use ultra_protocol::{CommandError, ErrorCode, SourceKind};

use crate::command::{CommandSpec, Touches};
use crate::config::SecurityConfig;

/// The settings, ready to check commands against.
#[derive(Debug, Clone, Default)]
pub struct SecurityGate {
    deny_files: bool,
    deny_terminals: bool,
    deny_execution: bool,
    /// Command ids, tool names or program names; `prefix.*` matches a whole family.
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

    /// Whether `source` may run the command `spec` describes, a call that would start
    /// `programs`. People and Ultra itself are not restricted: the settings keep agents
    /// and programs in bounds. Refusals are final (no one is asked).
    pub fn check(
        &self,
        spec: &CommandSpec,
        source: SourceKind,
        programs: &[String],
    ) -> Result<(), CommandError> {
        if matches!(source, SourceKind::Human | SourceKind::Internal) {
            return Ok(());
        }
        let names = [Some(spec.id), spec.tool_name];
        for rule in &self.restricted {
            if names.iter().flatten().any(|n| matches(rule, n)) {
                return Err(denied(
                    ErrorCode::AccessDenied,
                    format!(
                        "{} is restricted by security.restrictedCommands (`{rule}`)",
                        spec.id
                    ),
                ));
            }
            if let Some(p) = programs.iter().find(|p| matches(rule, program_name(p))) {
                return Err(denied(
                    ErrorCode::AccessDenied,
                    format!(
                        "{} would run `{p}`, restricted by security.restrictedCommands (`{rule}`)",
                        spec.id
                    ),
                ));
            }
        }
        // Registration refuses undeclared commands; should one get here, it counts as
        // touching everything.
        let t = spec.touches.unwrap_or(Touches {
            files_read: true,
            files_write: true,
            processes: true,
            terminals: true,
            network: true,
        });
        if self.deny_files && (t.files_read || t.files_write) {
            return Err(denied(
                ErrorCode::FileAccessDenied,
                format!(
                    "{} touches workspace files, and security.allowFileSystemAccess is false",
                    spec.id
                ),
            ));
        }
        if self.deny_terminals && t.terminals {
            return Err(denied(
                ErrorCode::AccessDenied,
                format!(
                    "{} uses terminals, and security.allowTerminalAccess is false",
                    spec.id
                ),
            ));
        }
        if self.deny_execution && t.processes {
            return Err(denied(
                ErrorCode::AccessDenied,
                format!(
                    "{} starts processes, and security.allowCommandExecution is false",
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

/// A program as a rule names it: `/usr/bin/npm` and `./npm` are `npm`.
fn program_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

/// `rule` is a command id, tool name or program name, or `prefix.*` for every command
/// under `prefix.`.
fn matches(rule: &str, name: &str) -> bool {
    match rule.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => rule == name,
    }
}

#[cfg(test)]
mod tests {
    use super::{SecurityGate, matches};
    use crate::command::{CommandSpec, Touches};
    use crate::config::SecurityConfig;
    use ultra_protocol::{ErrorCode, SourceKind};

    static READ: CommandSpec =
        CommandSpec::new("fs.readFile", "Read", "File System", "d").touches(Touches::READ);
    static SH: CommandSpec = CommandSpec::new("shell.rm", "rm", "Shell", "d")
        .tool_name("rm")
        .touches(Touches::PROCESSES.and(Touches::WRITE));
    static NAV: CommandSpec =
        CommandSpec::new("ultra.cursorUp", "Up", "Navigation", "d").touches(Touches::NOTHING);

    fn gate(f: impl FnOnce(&mut SecurityConfig)) -> SecurityGate {
        let mut c: SecurityConfig = serde_json::from_str("{}").expect("defaults");
        f(&mut c);
        SecurityGate::new(&c)
    }

    #[test]
    fn settings_deny_agents_not_people() {
        let open = gate(|_| {});
        assert!(open.check(&READ, SourceKind::Ai, &[]).is_ok());
        let no_fs = gate(|c| c.allow_file_system_access = false);
        let e = no_fs.check(&READ, SourceKind::Ai, &[]).expect_err("denied");
        assert_eq!(e.code, ErrorCode::FileAccessDenied);
        assert_eq!(e.code.rpc_code(), -32003);
        assert!(no_fs.check(&READ, SourceKind::Human, &[]).is_ok());
        assert!(no_fs.check(&NAV, SourceKind::Ai, &[]).is_ok());
        let no_exec = gate(|c| c.allow_command_execution = false);
        let e = no_exec
            .check(&SH, SourceKind::Ipc, &[])
            .expect_err("denied");
        assert_eq!(e.code.rpc_code(), -32001);
        let restricted = gate(|c| c.restricted_commands = vec!["rm".into(), "fs.*".into()]);
        assert!(
            restricted.check(&SH, SourceKind::Ai, &[]).is_err(),
            "by tool name"
        );
        assert!(
            restricted.check(&READ, SourceKind::Ai, &[]).is_err(),
            "by prefix"
        );
        assert!(restricted.check(&NAV, SourceKind::Ai, &[]).is_ok());
    }

    #[test]
    fn restricted_programs_are_matched_by_name() {
        let g = gate(|c| c.restricted_commands = vec!["npm".into()]);
        let progs = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(
            g.check(&SH, SourceKind::Ai, &progs(&["git", "npm"]))
                .is_err()
        );
        assert!(
            g.check(&SH, SourceKind::Ai, &progs(&["/usr/bin/npm"]))
                .is_err()
        );
        assert!(g.check(&SH, SourceKind::Ai, &progs(&["npx"])).is_ok());
        assert!(g.check(&SH, SourceKind::Human, &progs(&["npm"])).is_ok());
    }

    #[test]
    fn rules() {
        assert!(matches("fs.*", "fs.readFile"));
        assert!(!matches("fs.*", "ultra.fs"));
        assert!(matches("shell.rm", "shell.rm"));
        assert!(!matches("shell.rm", "shell.rmdir"));
    }
}
