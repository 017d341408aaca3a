//! The built-in commands, grouped by category, and [`build`], which wires a workspace, its
//! config and every command into an [`Executor`].
//!
//! Each command is a unit struct implementing `ultra_core::Command<Services>`; its spec,
//! argument type and examples sit next to its handler. `register_all` lists every group
//! explicitly.

pub mod ai;
pub mod audit;
pub mod code;
pub mod command_api;
pub mod confirm;
pub mod dialects;
pub mod edit;
pub mod edit_tools;
pub mod editor_api;
pub mod file;
pub mod find;
pub mod fs_api;
pub mod git;
pub mod keys;
pub mod navigation;
pub mod promoted;
pub mod query;
pub mod runner;
pub mod search_api;
pub mod selection;
pub mod services;
pub mod shell;
mod shell_call;
mod shell_writes;
pub mod syntax_gate;
pub mod terminal;
pub mod typing;
pub mod ui;
mod util;
pub mod view;
pub mod watch;

use std::path::Path;
use std::sync::Arc;

use ultra_core::audit::AuditLog;
use ultra_core::config::ConfigError;
use ultra_core::events::EventBus;
use ultra_core::executor::ExecutorParts;
use ultra_core::registry::RegistryError;
use ultra_core::{Config, Executor, Registry};
use ultra_workspace::WsError;

pub use services::Services;

/// Starting Ultra on a root failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error("cannot open workspace: {0}")]
    Workspace(#[from] WsError),
    #[error("command registry: {0}")]
    Registry(#[from] RegistryError),
    #[error("cannot open audit log {path}: {source}")]
    Audit {
        path: String,
        source: std::io::Error,
    },
}

/// Register every built-in command.
pub fn register_all(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    ai::register(r)?;
    audit::register(r)?;
    code::tools::register(r)?;
    code::state::register(r)?;
    command_api::register(r)?;
    confirm::register(r)?;
    edit::register(r)?;
    edit_tools::register(r)?;
    editor_api::register(r)?;
    file::register(r)?;
    find::register(r)?;
    keys::register(r)?;
    fs_api::register(r)?;
    git::register(r)?;
    navigation::register(r)?;
    query::register(r)?;
    runner::register(r)?;
    search_api::register(r)?;
    selection::register(r)?;
    shell::register(r)?;
    terminal::register(r)?;
    typing::register(r)?;
    ui::register(r)?;
    view::register(r)?;
    // Last: a dialect reaches a command registered above.
    dialects::register(r)?;
    Ok(())
}

/// Where the audit log goes by default: `$XDG_STATE_HOME/ultra/<root-hash>/audit.ndjson`,
/// else `~/.local/state/ultra/...`, else the temp dir.
pub fn default_audit_path(root: &Path) -> std::path::PathBuf {
    state_dir(root).join("audit.ndjson")
}

/// Ultra's per-workspace state directory: `$XDG_STATE_HOME/ultra/<root-hash>/`, else under
/// `~/.local/state`, else the temp dir. It holds the audit log and the code index store.
pub fn state_dir(root: &Path) -> std::path::PathBuf {
    let base = std::env::var_os("XDG_STATE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".local/state")))
        .unwrap_or_else(std::env::temp_dir);
    let hash = blake3::hash(root.as_os_str().as_encoded_bytes()).to_hex();
    base.join("ultra").join(&hash[..16])
}

/// How the executor will be used, beyond the config.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mode {
    /// One process, one run (`ultra -c` with no server): undo history ends with it.
    pub one_shot: bool,
    /// Write nothing: the workspace's file layer refuses every change (`--dry-run`).
    pub dry_run: bool,
}

/// Build an executor for the workspace at `root` with `config`.
pub fn build(root: &Path, config: Config) -> Result<Arc<Executor<Services>>, BuildError> {
    build_with(root, config, Mode::default())
}

/// [`build`] for a particular [`Mode`].
pub fn build_with(
    root: &Path,
    config: Config,
    mode: Mode,
) -> Result<Arc<Executor<Services>>, BuildError> {
    let mut validators = config.build_validators(root)?;
    // The syntax gate needs the parsers, so it is added here; on unless turned off.
    let gate_off = config
        .validators
        .iter()
        .any(|v| v.builtin.as_deref() == Some(syntax_gate::ID) && !v.enabled);
    if !gate_off {
        validators
            .register(Arc::new(syntax_gate::SyntaxGate))
            .map_err(|message| {
                BuildError::Config(ConfigError::Invalid {
                    path: ultra_core::config::CONFIG_FILE.into(),
                    key: "validators".into(),
                    message,
                })
            })?;
    }
    // `run` rules are checked against their own examples before anything starts.
    runner::policy::Rules::from_config(&config.run).map_err(|message| {
        BuildError::Config(ConfigError::Invalid {
            path: ultra_core::config::CONFIG_FILE.into(),
            key: "run".into(),
            message,
        })
    })?;
    let services = Services::open(root, &config, mode)?;
    let mut registry = Registry::new();
    register_all(&mut registry)?;
    for (alias, target) in &config.commands.aliases {
        registry.add_alias(alias, target).map_err(|e| {
            BuildError::Config(ConfigError::Invalid {
                path: ultra_core::config::CONFIG_FILE.into(),
                key: format!("commands.aliases.{alias}"),
                message: e.to_string(),
            })
        })?;
    }
    // Key bindings: the commands' defaults and the user's; a bad one stops start-up.
    let keymap = ultra_core::keymap::Keymap::build(
        registry.specs().flat_map(|s| {
            s.keybinding
                .map(|k| (s.id, k, s.when, None))
                .into_iter()
                .chain(
                    s.more_keys
                        .iter()
                        .map(|(k, a)| (s.id, *k, s.when, Some(*a))),
                )
        }),
        &config.keybindings,
        |c| registry.resolve(c).is_some(),
    )
    .map_err(|e| {
        BuildError::Config(ConfigError::Invalid {
            path: ultra_core::config::CONFIG_FILE.into(),
            key: "keybindings".into(),
            message: e.to_string(),
        })
    })?;
    services.set_keymap(keymap);
    let audit = if config.audit.enabled {
        let path = match &config.audit.path {
            Some(p) => {
                let p = Path::new(p);
                if p.is_absolute() {
                    p.to_path_buf()
                } else {
                    services.root_path().join(p)
                }
            }
            None => default_audit_path(services.root_path()),
        };
        AuditLog::open(&path).map_err(|source| BuildError::Audit {
            path: path.display().to_string(),
            source,
        })?
    } else {
        AuditLog::disabled()
    };
    Ok(Arc::new(Executor::new(ExecutorParts {
        registry,
        services: Arc::new(services),
        policy: config.policy.clone(),
        validators,
        audit,
        events: EventBus::default(),
        security: ultra_core::security::SecurityGate::new(&config.security),
        deferred: Some(ultra_core::confirm::deferred::DeferredStore::new(
            &state_dir(root).join("approvals"),
        )),
    })))
}
