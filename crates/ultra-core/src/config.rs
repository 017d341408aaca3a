//! `ultra.config.json`: seed 000 keys (`validators`, `ipc`, `commands.aliases`), seed 003 keys
//! (`port`, `host`, `token`, `allowedOrigins`, `rateLimit`, `logging`, `security`), the policy
//! table and the audit log. Unknown keys are an error that names the key.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::policy::PolicyConfig;
use crate::validator::Validators;
use crate::validator::patterns::{PatternsValidator, RuleConfig};

/// The file name looked up at the workspace root.
pub const CONFIG_FILE: &str = "ultra.config.json";

/// The whole configuration. Every field has a default, so an absent file is a valid config.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Config {
    /// A schema URL for editors; ignored.
    #[serde(default, rename = "$schema", skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    #[serde(default)]
    pub validators: Vec<ValidatorConfig>,
    #[serde(default)]
    pub ipc: IpcConfig,
    #[serde(default)]
    pub commands: CommandsConfig,
    #[serde(default)]
    pub policy: PolicyConfig,
    #[serde(default)]
    pub audit: AuditConfig,
    /// Seed 003: whether the WebSocket server starts.
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Seed 003: WebSocket port.
    #[serde(default = "default_port")]
    pub port: u16,
    /// Seed 003: WebSocket bind address.
    #[serde(default = "default_host")]
    pub host: String,
    /// Seed 003: WebSocket token (prefer the generated token file).
    #[serde(default, skip_serializing)]
    pub token: Option<String>,
    /// Seed 003: browser origins the WebSocket admits (`Origin` header); `"*"` admits any.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// WebSocket sessions with no message for this many seconds are closed.
    #[serde(default = "default_session_idle")]
    pub session_idle_seconds: u64,
    #[serde(default)]
    pub rate_limit: RateLimitConfig,
    #[serde(default)]
    pub logging: LoggingConfig,
    #[serde(default)]
    pub security: SecurityConfig,
    #[serde(default)]
    pub index: IndexConfig,
    /// The MCP surface (`ultra mcp`).
    #[serde(default)]
    pub mcp: McpConfig,
    /// `run_command`'s policy and limits.
    #[serde(default)]
    pub run: RunConfig,
    /// The agent-driven web UI (seed 002).
    #[serde(default)]
    pub ui: UiConfig,
    /// Key bindings over the commands' defaults (VS Code's shape).
    #[serde(default)]
    pub keybindings: Vec<KeybindingConfig>,
    /// Language servers by language (`python`, `typescript`, `rust`, `go`, `c`): what runs
    /// instead of the default found on `PATH`, or `enabled: false`.
    #[serde(default)]
    pub lsp: std::collections::BTreeMap<String, LspServerConfig>,
}

/// `lsp.<language>`: the language server that serves it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LspServerConfig {
    /// The program (a path, or a name looked up on `PATH`).
    #[serde(default)]
    pub command: Option<String>,
    /// Its arguments (default: the default server's, e.g. `--stdio`).
    #[serde(default)]
    pub args: Option<Vec<String>>,
    /// Sent to the server as `initializationOptions`.
    #[serde(default)]
    pub initialization_options: Option<serde_json::Value>,
    /// `false` turns the language's server off (default: on when one is found).
    #[serde(default)]
    pub enabled: Option<bool>,
}

/// One entry of `keybindings`: `{key, command, when?, args?}`; `command: "-id"` removes
/// that command's bindings (for `key` only, when given).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeybindingConfig {
    /// `ctrl+shift+p`, `alt+left`, `f5`.
    #[serde(default)]
    pub key: Option<String>,
    pub command: String,
    /// A when-clause over context keys (`editorFocus && !editorReadonly`).
    #[serde(default)]
    pub when: Option<String>,
    /// Arguments the command runs with.
    #[serde(default)]
    pub args: Option<serde_json::Value>,
}

/// `ui` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct UiConfig {
    /// Hosts an `api.call` to http(s) may reach (from the page); none by default.
    #[serde(default)]
    pub http_allow: Vec<String>,
}

/// `run` section: what `run_command` may run. Each stage of a parsed command line is
/// matched against the rules: a deny rule refuses the whole line, a line whose every stage
/// an allow rule matches runs at once, anything else waits for a person. Omitted lists
/// keep seed 001's defaults; given lists replace them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunConfig {
    /// Rules that refuse a command line.
    #[serde(default)]
    pub deny: Option<Vec<RunRule>>,
    /// Rules that let a command line run without asking.
    #[serde(default)]
    pub allow: Option<Vec<RunRule>>,
    /// Most bytes kept of stdout and of stderr (default 256 KiB).
    #[serde(default)]
    pub max_output_bytes: Option<usize>,
    /// Run agents' unapproved test runs, builds and allow-listed lines in the sandbox (no
    /// network, writes only in the workspace, temp and caches): default true where the
    /// kernel has Landlock and seccomp. `false` puts those calls to a person instead (for
    /// tests that need the network, such as a database on localhost).
    #[serde(default)]
    pub sandbox: Option<bool>,
}

/// One rule over a command's stage: its program, first argument, flags. `match` and
/// `notMatch` are command lines the rule must and must not match; they are checked when the
/// config loads, so a rule that does not mean what its author thought is refused at start.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RunRule {
    /// The program (deny rules compare its base name, so `/bin/rm` is `rm`; allow rules
    /// need the bare name).
    pub program: String,
    /// Only when the first non-flag argument is one of these.
    #[serde(default)]
    pub subcommands: Vec<String>,
    /// Only when an argument is one of these flags (a short flag like `-r` also matches
    /// inside a cluster such as `-rf`).
    #[serde(default)]
    pub flags: Vec<String>,
    /// Not when an argument starts with one of these.
    #[serde(default)]
    pub not_flags: Vec<String>,
    /// Why, shown with a refusal.
    #[serde(default)]
    pub reason: Option<String>,
    /// Command lines this rule must match.
    #[serde(default, rename = "match")]
    pub matches: Vec<String>,
    /// Command lines this rule must not match.
    #[serde(default)]
    pub not_match: Vec<String>,
}

/// `mcp` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct McpConfig {
    /// Which tools MCP clients see: `default` (the seed tools, `shell` and the promoted
    /// shell commands), `read-only`, `edit`, `full`, or a comma-separated list of tool
    /// names. `ultra mcp --profile` overrides it.
    #[serde(default)]
    pub profile: Option<String>,
}

/// `index` section: where the code index persists, and what it leaves out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IndexConfig {
    /// `redb` (default: an embedded file in Ultra's state directory), `redis` (shared by
    /// every server configured with the same URL and namespace), or `none`.
    #[serde(default)]
    pub backend: IndexBackend,
    /// For `redis`: the server, e.g. `redis://127.0.0.1:6379/0`.
    #[serde(default)]
    pub redis_url: Option<String>,
    /// For `redis`: the key prefix shared by the servers of one workspace (default: a hash
    /// of the workspace path).
    #[serde(default)]
    pub namespace: Option<String>,
    /// Paths not to index, in `.gitignore` syntax relative to the workspace root, on top of
    /// the `.gitignore` files (default: build output at the top, `/target/`, `/build/`,
    /// `/dist/`, `/coverage/`). Dependencies (`node_modules`, `.venv`, `__pycache__`) and
    /// hidden directories are never indexed.
    #[serde(default = "default_index_exclude")]
    pub exclude: Vec<String>,
}

impl Default for IndexConfig {
    fn default() -> Self {
        IndexConfig {
            backend: IndexBackend::default(),
            redis_url: None,
            namespace: None,
            exclude: default_index_exclude(),
        }
    }
}

fn default_index_exclude() -> Vec<String> {
    ["/target/", "/build/", "/dist/", "/coverage/"]
        .map(String::from)
        .to_vec()
}

/// Where the code index persists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IndexBackend {
    #[default]
    Redb,
    Redis,
    None,
}

fn default_port() -> u16 {
    19876
}

fn default_host() -> String {
    "127.0.0.1".into()
}

fn yes() -> bool {
    true
}

/// One validator: a built-in kind, or a plugin program (`command`) speaking JSON-RPC on
/// stdin/stdout (seed 000's ValidatorPlugin).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ValidatorConfig {
    pub id: String,
    /// The built-in kind: `patterns`, `syntax` (the gate on new parse errors, on by
    /// default; give it with `enabled: false` to turn it off) or `diagnostics` (the gate on
    /// new errors by the language server's judgement, off unless given; `timeoutMs` bounds
    /// its wait, default 8000).
    #[serde(default)]
    pub builtin: Option<String>,
    /// A plugin: the program and its arguments, run in the workspace root.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// A plugin as seed 000 names it: a script or program, relative to the workspace
    /// root. `.js`/`.mjs`/`.cjs` runs with `node`, `.py` with `python3`, anything else is
    /// executed itself. Speaks the same JSON-RPC as a `command` plugin.
    #[serde(default)]
    pub module: Option<String>,
    /// A plugin's answer time per call (default 5000 ms).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// What a plugin that crashes, hangs or answers garbage means: `deny` (the default:
    /// the call is blocked) or `allow` (it proceeds with a warning).
    #[serde(default)]
    pub failure: Option<String>,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// `patterns`: content rules.
    #[serde(default)]
    pub rules: Vec<RuleConfig>,
    /// `patterns`: globs of paths that may not be created, deleted, renamed or moved.
    #[serde(default)]
    pub protect: Vec<String>,
    /// Guidelines handed to agents by `ultra.ai.getContext`.
    #[serde(default)]
    pub guidelines: String,
}

/// The Unix socket.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct IpcConfig {
    /// Socket path; default `$XDG_RUNTIME_DIR/ultra/<workspace-hash>.sock` (or `/tmp/ultra-<uid>/`).
    #[serde(default)]
    pub socket: Option<String>,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Longest accepted request line; a longer one closes the connection.
    #[serde(default = "default_max_line")]
    pub max_line_bytes: usize,
    /// Most commands in one batch.
    #[serde(default = "default_max_batch")]
    pub max_batch: usize,
    /// Most simultaneous connections.
    #[serde(default = "default_max_connections")]
    pub max_connections: usize,
}

fn default_max_line() -> usize {
    16 << 20
}

fn default_max_batch() -> usize {
    1000
}

fn default_max_connections() -> usize {
    256
}

impl Default for IpcConfig {
    fn default() -> Self {
        IpcConfig {
            socket: None,
            enabled: true,
            max_line_bytes: default_max_line(),
            max_batch: default_max_batch(),
            max_connections: default_max_connections(),
        }
    }
}

/// `commands` section.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommandsConfig {
    /// Extra names for commands: `{"o": "ultra.openFile"}`.
    #[serde(default)]
    pub aliases: BTreeMap<String, String>,
}

/// `audit` section.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AuditConfig {
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Log path; default `$XDG_STATE_HOME/ultra/<workspace-hash>/audit.ndjson`.
    #[serde(default)]
    pub path: Option<String>,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            enabled: true,
            path: None,
        }
    }
}

/// Seed 003 `rateLimit`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RateLimitConfig {
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default = "default_rps")]
    pub requests_per_second: u32,
}

fn default_rps() -> u32 {
    100
}

fn default_session_idle() -> u64 {
    3600
}

impl Default for RateLimitConfig {
    fn default() -> Self {
        RateLimitConfig {
            enabled: true,
            requests_per_second: default_rps(),
        }
    }
}

/// Seed 003 `logging`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoggingConfig {
    #[serde(default = "default_level")]
    pub level: String,
    #[serde(default)]
    pub log_to_file: bool,
}

fn default_level() -> String {
    "info".into()
}

impl Default for LoggingConfig {
    fn default() -> Self {
        LoggingConfig {
            level: default_level(),
            log_to_file: false,
        }
    }
}

/// Seed 003 `security`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SecurityConfig {
    #[serde(default = "yes")]
    pub allow_file_system_access: bool,
    #[serde(default = "yes")]
    pub allow_terminal_access: bool,
    #[serde(default = "yes")]
    pub allow_command_execution: bool,
    /// Globs (relative to the root) that file tools may not write.
    #[serde(default)]
    pub restricted_paths: Vec<String>,
    #[serde(default)]
    pub restricted_commands: Vec<String>,
    /// Globs of hard-linked files that may still be read (hard links can alias files
    /// outside the workspace, so they are refused by default).
    #[serde(default)]
    pub allow_hardlink_reads: Vec<String>,
}

impl Default for SecurityConfig {
    fn default() -> Self {
        SecurityConfig {
            allow_file_system_access: true,
            allow_terminal_access: true,
            allow_command_execution: true,
            restricted_paths: Vec::new(),
            restricted_commands: Vec::new(),
            allow_hardlink_reads: Vec::new(),
        }
    }
}

/// The config file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("{path}: at `{key}`: {message}")]
    Invalid {
        path: String,
        key: String,
        message: String,
    },
}

impl Config {
    /// Parse config text. Errors name the offending key as a dotted path.
    pub fn parse(text: &str, path: &str) -> Result<Config, ConfigError> {
        let de = &mut serde_json::Deserializer::from_str(text);
        let config: Config = serde_path_to_error::deserialize(de).map_err(|e| {
            let mut key = e.path().to_string();
            let message = e.inner().to_string();
            if message.starts_with("unknown field")
                && let Some(field) = message.split('`').nth(1)
            {
                // The path names the unknown field itself when the deserializer got that
                // far; add it only when it stops at the enclosing object.
                let named = key == field || key.ends_with(&format!(".{field}"));
                if !named {
                    key = if key == "." {
                        field.to_string()
                    } else {
                        format!("{key}.{field}")
                    };
                }
            }
            ConfigError::Invalid {
                path: path.to_string(),
                key,
                message,
            }
        })?;
        for (i, pattern) in config.index.exclude.iter().enumerate() {
            let glob = pattern.trim_start_matches('!').trim_matches('/');
            if let Err(e) = globset::Glob::new(glob) {
                return Err(ConfigError::Invalid {
                    path: path.to_string(),
                    key: format!("index.exclude[{i}]"),
                    message: format!("`{pattern}` is not a .gitignore pattern: {e}"),
                });
            }
        }
        config
            .policy
            .check_names()
            .map_err(|(key, message)| ConfigError::Invalid {
                path: path.to_string(),
                key,
                message,
            })?;
        Ok(config)
    }

    /// Load `ultra.config.json` from `root`; a missing file gives the defaults.
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let path = root.join(CONFIG_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Config::parse(&text, CONFIG_FILE),
            // No file: every key at its documented default (serde's, not `Default`'s zeros).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Config::parse("{}", CONFIG_FILE),
            Err(source) => Err(ConfigError::Read {
                path: path.display().to_string(),
                source,
            }),
        }
    }

    /// Build the enabled validators.
    pub fn build_validators(&self, root: &std::path::Path) -> Result<Validators, ConfigError> {
        let mut out = Validators::default();
        for (i, v) in self.validators.iter().enumerate() {
            if !v.enabled {
                continue;
            }
            let invalid = |message: String| ConfigError::Invalid {
                path: CONFIG_FILE.into(),
                key: format!("validators[{i}]"),
                message,
            };
            let command = match (&v.command, &v.module) {
                (Some(_), Some(_)) => {
                    return Err(invalid("give `command` or `module`, not both".into()));
                }
                (None, Some(module)) => Some(module_argv(module, root)),
                (command, None) => command.clone(),
            };
            match (v.builtin.as_deref(), &command) {
                (Some("patterns"), None) => {
                    let p = PatternsValidator::new(&v.id, &v.rules, &v.protect, &v.guidelines)
                        .map_err(invalid)?;
                    out.register(Arc::new(p)).map_err(invalid)?;
                }
                // The syntax and diagnostics gates need the parsers and the language
                // servers: the commands layer adds them.
                (Some("syntax" | "diagnostics"), None) => {}
                (Some(other), None) => {
                    return Err(invalid(format!(
                        "unknown builtin validator `{other}`; available: patterns, syntax, diagnostics"
                    )));
                }
                (None, Some(argv)) => {
                    let fail_open = match v.failure.as_deref() {
                        None | Some("deny") => false,
                        Some("allow") => true,
                        Some(other) => {
                            return Err(invalid(format!(
                                "failure must be `deny` or `allow`, not `{other}`"
                            )));
                        }
                    };
                    let timeout = std::time::Duration::from_millis(v.timeout_ms.unwrap_or(5000));
                    let p = crate::validator::process::ProcessValidator::new(
                        &v.id,
                        argv.clone(),
                        root,
                        timeout,
                        fail_open,
                    )
                    .map_err(invalid)?;
                    out.register(Arc::new(p)).map_err(invalid)?;
                }
                _ => {
                    return Err(invalid(
                        "give either `builtin` (patterns, syntax, diagnostics) or `command` / `module` (a plugin program)"
                            .into(),
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// The program line of a seed-000 `module`: its interpreter by extension, the path made
/// absolute beneath the root (a relative program path would otherwise be looked up in
/// `PATH`, or relative to Ultra's own directory).
fn module_argv(module: &str, root: &std::path::Path) -> Vec<String> {
    let path = if std::path::Path::new(module).is_absolute() {
        module.to_string()
    } else {
        root.join(module).to_string_lossy().into_owned()
    };
    let ext = std::path::Path::new(module)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("");
    match ext {
        "js" | "mjs" | "cjs" => vec!["node".into(), path],
        "py" => vec!["python3".into(), path],
        _ => vec![path],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bad_key(text: &str) -> String {
        match Config::parse(text, "c.json") {
            Err(ConfigError::Invalid { key, .. }) => key,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn unknown_keys_are_named_by_their_dotted_path() {
        assert_eq!(bad_key(r#"{"ipc": {"sockt": "/x"}}"#), "ipc.sockt");
        assert_eq!(bad_key(r#"{"bogus": 1}"#), "bogus");
        assert_eq!(
            bad_key(r#"{"security": {"allowFileSystemAcess": false}}"#),
            "security.allowFileSystemAcess"
        );
        assert_eq!(
            bad_key(r#"{"validators": [{"id": "v", "modul": "x.js"}]}"#),
            "validators[0].modul"
        );
    }

    /// Seed 000's own example config: `module` plugins, run through their interpreter.
    #[test]
    fn seed_example_with_module_validators_parses() {
        let c = Config::parse(
            r#"{"validators": [{"id": "cor", "module": "@cor/ultra-plugin", "enabled": true},
                               {"id": "py", "module": "tools/check.py"},
                               {"id": "off", "module": "x.js", "enabled": false}],
                "ipc": {"socket": "/tmp/ultra.sock", "enabled": true},
                "commands": {"aliases": {"o": "ultra.openFile", "s": "ultra.save", "q": "ultra.quit"}}}"#,
            "c.json",
        )
        .unwrap();
        let root = std::path::Path::new("/w");
        assert!(c.build_validators(root).unwrap().has_validators());
        assert_eq!(module_argv("a/b.mjs", root), ["node", "/w/a/b.mjs"]);
        assert_eq!(module_argv("check.py", root), ["python3", "/w/check.py"]);
        assert_eq!(module_argv("bin/lint", root), ["/w/bin/lint"]);
        let both = r#"{"validators": [{"id": "v", "module": "a.js", "command": ["a"]}]}"#;
        let e = Config::parse(both, "c.json")
            .unwrap()
            .build_validators(root);
        assert!(e.is_err());
    }

    #[test]
    fn unknown_keys_are_named() {
        let e = Config::parse(r#"{"ipc": {"sockt": "/x"}}"#, "c.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`ipc.sockt`"), "{e}");
        let e = Config::parse(r#"{"bogus": 1}"#, "c.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`bogus`"), "{e}");
        let e = Config::parse(
            r#"{"policy": {"sources": {"ai": {"write": "maybe"}}}}"#,
            "c.json",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("policy.sources.ai.write"), "{e}");
    }

    #[test]
    fn seed_example_parses_with_builtin_validator() {
        let c = Config::parse(
            r#"{"validators":[{"id":"cor","builtin":"patterns","enabled":true,"rules":[{"rule":"r","pattern":"x+","message":"m"}]}],
                "ipc":{"socket":"/tmp/u.sock","enabled":true},
                "commands":{"aliases":{"o":"ultra.openFile","s":"ultra.save"}}}"#,
            "c.json",
        )
        .unwrap();
        assert_eq!(c.commands.aliases["o"], "ultra.openFile");
        assert!(
            c.build_validators(std::path::Path::new("."))
                .unwrap()
                .has_validators()
        );
    }
}
