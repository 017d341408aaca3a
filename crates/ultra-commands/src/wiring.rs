//! Wiring: [`build`] turns a workspace root and its config into an [`Executor`] with every
//! built-in command registered ([`register_all`]), the validators, key bindings, aliases,
//! the audit log and the deferred-approval store.

use std::path::Path;
use std::sync::Arc;

use ultra_core::audit::AuditLog;
use ultra_core::config::ConfigError;
use ultra_core::events::EventBus;
use ultra_core::executor::ExecutorParts;
use ultra_core::registry::RegistryError;
use ultra_core::{Config, Executor, Registry};
use ultra_workspace::WsError;

use ultra_services::{Mode, Services, state_dir};
use ultra_tools::{code, diagnostics_gate, git, lsp, runner, shell, syntax_gate, terminal};

use crate::{
    ai, audit, command_api, confirm, dialects, edit, file, keys, navigation, query, search,
    selection, ui, view,
};

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
    code::hierarchy::register(r)?;
    code::diagnostics::register(r)?;
    lsp::register(r)?;
    command_api::register(r)?;
    confirm::register(r)?;
    edit::register(r)?;
    edit::tools::register(r)?;
    file::editor::register(r)?;
    file::register(r)?;
    file::tools::register(r)?;
    search::buffer::register(r)?;
    keys::register(r)?;
    file::fs::register(r)?;
    git::register(r)?;
    navigation::register(r)?;
    query::register(r)?;
    runner::register(r)?;
    search::files::register(r)?;
    selection::register(r)?;
    shell::register(r)?;
    terminal::register(r)?;
    edit::typing::register(r)?;
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
    ultra_runner::policy::Rules::from_config(&config.run).map_err(|message| {
        BuildError::Config(ConfigError::Invalid {
            path: ultra_core::config::CONFIG_FILE.into(),
            key: "run".into(),
            message,
        })
    })?;
    let services = Services::open(root, &config, mode)?;
    // The diagnostics gate asks the language servers, which live in the services.
    for v in config
        .validators
        .iter()
        .filter(|v| v.enabled && v.builtin.as_deref() == Some(diagnostics_gate::BUILTIN))
    {
        let gate = diagnostics_gate::DiagnosticsGate {
            id: v.id.clone(),
            lsp: services.lsp().clone(),
            root: services.root_path().to_path_buf(),
            wait: v.timeout_ms.map_or(
                diagnostics_gate::DEFAULT_WAIT,
                std::time::Duration::from_millis,
            ),
        };
        validators.register(Arc::new(gate)).map_err(|message| {
            BuildError::Config(ConfigError::Invalid {
                path: ultra_core::config::CONFIG_FILE.into(),
                key: "validators".into(),
                message,
            })
        })?;
    }
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
