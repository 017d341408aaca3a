//! The command registry: one map from id to command, plus aliases and search.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, OnceLock};

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Matcher, Utf32Str};
use serde_json::Value;
use ultra_protocol::command::{CommandInfo, ExampleInfo};

use crate::command::{Command, CommandSpec, SharedCommand};
use crate::dialect::{Dialect, DialectCommand};
use crate::schema::usage_line;

/// Registration failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum RegistryError {
    /// Two commands (or a command and an alias) claim the same name.
    #[error("command already registered: {0}")]
    Duplicate(String),
    /// An alias points at no command.
    #[error("alias `{alias}` points at unknown command `{target}`")]
    UnknownAliasTarget { alias: String, target: String },
    /// A dialect names an operation that is not registered (register it first).
    #[error("dialect `{name}` reaches unknown command `{target}`")]
    UnknownDialectTarget { name: String, target: String },
    /// A command's `when` does not parse.
    #[error("command {command}: {error}")]
    BadWhen {
        command: String,
        error: crate::when::WhenError,
    },
    /// A command declares neither `SPEC` nor `spec()`.
    #[error("a command declares no spec (Command::SPEC or Command::spec)")]
    NoSpec,
    /// A command does not say what it reaches, so the security settings could not gate it.
    #[error("command {0} does not declare what it touches (CommandSpec::touches)")]
    Undeclared(String),
}

pub(crate) struct Entry<S> {
    pub(crate) command: SharedCommand<S>,
    /// Built on first use: generating every command's schemas took most of a one-shot
    /// CLI call's start-up, and most calls need none of them.
    info: OnceLock<CommandInfo>,
}

impl<S> Entry<S> {
    /// The command's description with its schemas.
    pub(crate) fn info(&self) -> &CommandInfo {
        self.info.get_or_init(|| describe(&*self.command))
    }
}

fn describe<S>(command: &dyn crate::command::DynCommand<S>) -> CommandInfo {
    let spec = command.spec();
    let args_schema = command.args_schema();
    CommandInfo {
        id: spec.id.into(),
        title: spec.title.into(),
        category: spec.category.into(),
        description: spec.description.into(),
        usage: usage_line(spec.id, &args_schema),
        args: args_schema,
        returns: command.result_schema(),
        examples: spec
            .examples
            .iter()
            .map(|e| ExampleInfo {
                description: e.description.into(),
                args: serde_json::from_str(e.args).unwrap_or(Value::Null),
                error: e.error.map(Into::into),
            })
            .collect(),
        keybinding: spec.keybinding.map(Into::into),
        when: spec.when.map(Into::into),
        ai_exposed: spec.ai_exposed,
        annotations: spec.annotations,
        tool_name: spec.tool_name.map(Into::into),
        aliases: spec.aliases.iter().map(|a| (*a).to_string()).collect(),
        touches: spec.touches.unwrap_or_default(),
        target: command.target().map(Into::into),
    }
}

/// Every command Ultra knows, by id; aliases resolve to ids.
pub struct Registry<S> {
    entries: BTreeMap<&'static str, Entry<S>>,
    aliases: HashMap<String, &'static str>,
}

impl<S> Default for Registry<S> {
    fn default() -> Self {
        Registry {
            entries: BTreeMap::new(),
            aliases: HashMap::new(),
        }
    }
}

impl<S: 'static> Registry<S> {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// Register a command. A duplicate id or alias is an error.
    pub fn register<C: Command<S>>(&mut self, command: C) -> Result<(), RegistryError> {
        self.insert(Arc::new(crate::command::Typed(command)))
    }

    /// Register another name for a registered operation (see [`Dialect`]).
    pub fn register_dialect(&mut self, dialect: &'static Dialect) -> Result<(), RegistryError> {
        let Some(target) = self.entries.get(dialect.target) else {
            return Err(RegistryError::UnknownDialectTarget {
                name: dialect.spec.id.into(),
                target: dialect.target.into(),
            });
        };
        let target = target.command.clone();
        // Leaked once per dialect at start-up: specs are `'static` everywhere else.
        let spec: &'static CommandSpec = Box::leak(Box::new(dialect.merged_spec(target.spec())));
        self.insert(Arc::new(DialectCommand {
            dialect,
            spec,
            target,
        }))
    }

    fn insert(&mut self, shared: SharedCommand<S>) -> Result<(), RegistryError> {
        let spec = shared.spec();
        if spec.id.is_empty() {
            return Err(RegistryError::NoSpec);
        }
        if spec.touches.is_none() {
            return Err(RegistryError::Undeclared(spec.id.to_string()));
        }
        if let Some(w) = spec.when
            && let Err(error) = crate::when::When::parse(w)
        {
            return Err(RegistryError::BadWhen {
                command: spec.id.to_string(),
                error,
            });
        }
        if self.entries.contains_key(spec.id) || self.aliases.contains_key(spec.id) {
            return Err(RegistryError::Duplicate(spec.id.to_string()));
        }
        // The tool name reaches the command too (agents call tools by it).
        let tool_alias = spec.tool_name.filter(|t| *t != spec.id);
        for alias in spec.aliases.iter().chain(tool_alias.iter()) {
            if self.entries.contains_key(alias) || self.aliases.contains_key(*alias) {
                return Err(RegistryError::Duplicate((*alias).to_string()));
            }
        }
        for alias in spec.aliases.iter().chain(tool_alias.iter()) {
            self.aliases.insert((*alias).to_string(), spec.id);
        }
        self.entries.insert(
            spec.id,
            Entry {
                command: shared,
                info: OnceLock::new(),
            },
        );
        Ok(())
    }

    /// Add a user alias (from config `commands.aliases`).
    pub fn add_alias(&mut self, alias: &str, target: &str) -> Result<(), RegistryError> {
        if self.entries.contains_key(alias) || self.aliases.contains_key(alias) {
            return Err(RegistryError::Duplicate(alias.to_string()));
        }
        let Some((id, _)) = self.entries.get_key_value(target) else {
            return Err(RegistryError::UnknownAliasTarget {
                alias: alias.into(),
                target: target.into(),
            });
        };
        self.aliases.insert(alias.to_string(), id);
        Ok(())
    }

    pub(crate) fn entry(&self, name: &str) -> Option<&Entry<S>> {
        self.entries
            .get(name)
            .or_else(|| self.aliases.get(name).and_then(|id| self.entries.get(id)))
    }

    /// The description of a command by id or alias.
    pub fn get(&self, name: &str) -> Option<&CommandInfo> {
        self.entry(name).map(Entry::info)
    }

    /// The text for a model of `name`'s result `data`, from the renderer its spec declares
    /// (see [`crate::render`]); `None` when it declares none or the data is not its shape.
    pub fn render(&self, name: &str, data: &Value) -> Option<String> {
        let render = self.entry(name)?.command.spec().render?;
        render(data)
    }

    /// The canonical id a name resolves to.
    pub fn resolve(&self, name: &str) -> Option<&'static str> {
        self.entry(name).map(|e| e.command.spec().id)
    }

    /// Whether a name resolves.
    pub fn has(&self, name: &str) -> bool {
        self.entry(name).is_some()
    }

    /// All commands, sorted by id.
    pub fn all(&self) -> impl Iterator<Item = &CommandInfo> {
        self.entries.values().map(Entry::info)
    }

    /// The static specs of every command, sorted by id (examples, annotations, ...).
    pub fn specs(&self) -> impl Iterator<Item = &'static crate::command::CommandSpec> + '_ {
        self.entries.values().map(|e| e.command.spec())
    }

    /// Commands exposed to agents.
    pub fn ai_exposed(&self) -> impl Iterator<Item = &CommandInfo> {
        self.all().filter(|c| c.ai_exposed)
    }

    /// Commands in a category (case-insensitive).
    pub fn by_category<'a>(
        &'a self,
        category: &'a str,
    ) -> impl Iterator<Item = &'a CommandInfo> + 'a {
        self.all()
            .filter(move |c| c.category.eq_ignore_ascii_case(category))
    }

    /// The number of commands.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no command is registered.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Fuzzy search over id, title and description, best first. Id and title matches
    /// outrank description matches.
    pub fn search(&self, query: &str) -> Vec<&CommandInfo> {
        let query = query.trim();
        if query.is_empty() {
            return self.all().collect();
        }
        let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
        let mut matcher = Matcher::new(nucleo_matcher::Config::DEFAULT);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, &CommandInfo)> = self
            .all()
            .filter_map(|info| {
                let mut best = None::<u32>;
                for (text, weight) in [(&info.title, 3u32), (&info.id, 3), (&info.description, 1)] {
                    if let Some(s) = pattern.score(Utf32Str::new(text, &mut buf), &mut matcher) {
                        let s = s * weight;
                        best = Some(best.map_or(s, |b| b.max(s)));
                    }
                }
                best.map(|s| (s, info))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.title.cmp(&b.1.title)));
        scored.into_iter().map(|(_, info)| info).collect()
    }

    /// Up to `n` ids closest to an unknown name, for "did you mean" errors.
    pub fn closest(&self, name: &str, n: usize) -> Vec<String> {
        let lower = name.to_ascii_lowercase();
        let tail = lower.rsplit('.').next().unwrap_or(&lower).to_string();
        let mut scored: Vec<(usize, &str)> = self
            .entries
            .keys()
            .copied()
            .chain(self.aliases.keys().map(String::as_str))
            .map(|id| {
                let l = id.to_ascii_lowercase();
                let id_tail = l.rsplit('.').next().unwrap_or(&l);
                let d =
                    strsim::levenshtein(&lower, &l).min(strsim::levenshtein(&tail, id_tail) + 1);
                let d = if l.contains(&tail) && tail.len() >= 3 {
                    d.min(2)
                } else {
                    d
                };
                (d, id)
            })
            .collect();
        scored.sort();
        let limit = (name.len() / 2).max(3);
        scored
            .into_iter()
            .filter(|(d, _)| *d <= limit)
            .take(n)
            .map(|(_, id)| id.to_string())
            .collect()
    }
}
