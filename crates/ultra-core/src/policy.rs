//! Allow / ask / deny by source and risk, from config.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_protocol::SourceKind;
use ultra_protocol::command::Annotations;

/// What policy says about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    Allow,
    Ask,
    Deny,
}

/// The risk class policy tables are keyed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RiskClass {
    Read,
    Write,
    Destructive,
    OpenWorld,
}

impl RiskClass {
    /// The class of a command from its annotations; the riskiest annotation wins.
    pub fn of(a: &Annotations) -> RiskClass {
        if a.open_world {
            RiskClass::OpenWorld
        } else if a.destructive {
            RiskClass::Destructive
        } else if a.read_only {
            RiskClass::Read
        } else {
            RiskClass::Write
        }
    }

    /// The config key name.
    pub fn as_str(self) -> &'static str {
        match self {
            RiskClass::Read => "read",
            RiskClass::Write => "write",
            RiskClass::Destructive => "destructive",
            RiskClass::OpenWorld => "openWorld",
        }
    }
}

/// Per-risk decisions for one source; unset entries keep the default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RiskTable {
    pub read: Option<Decision>,
    pub write: Option<Decision>,
    pub destructive: Option<Decision>,
    pub open_world: Option<Decision>,
}

impl RiskTable {
    fn get(&self, class: RiskClass) -> Option<Decision> {
        match class {
            RiskClass::Read => self.read,
            RiskClass::Write => self.write,
            RiskClass::Destructive => self.destructive,
            RiskClass::OpenWorld => self.open_world,
        }
    }
}

/// A per-command rule: one decision for every non-human source, or one per source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CommandRule {
    All(Decision),
    /// Keyed by source kind name (`ai`, `ipc`, ...).
    PerSource(BTreeMap<String, Decision>),
}

/// The `policy` section of `ultra.config.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PolicyConfig {
    /// How long a call waits for a person before it is denied.
    #[serde(default = "default_timeout")]
    pub confirm_timeout_ms: u64,
    /// Overrides of the per-source defaults.
    #[serde(default)]
    /// Keyed by source kind name (`ai`, `ipc`, ...).
    pub sources: BTreeMap<String, RiskTable>,
    /// Rules for single commands; they win over the source tables.
    #[serde(default)]
    pub commands: BTreeMap<String, CommandRule>,
}

fn default_timeout() -> u64 {
    120_000
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            confirm_timeout_ms: default_timeout(),
            sources: BTreeMap::new(),
            commands: BTreeMap::new(),
        }
    }
}

/// The built-in table: people and Ultra itself run anything; programs and agents read and
/// write freely but are asked before destructive or open-world commands.
pub fn default_decision(source: SourceKind, class: RiskClass) -> Decision {
    match (source, class) {
        (SourceKind::Human | SourceKind::Internal | SourceKind::Cli, _) => Decision::Allow,
        (_, RiskClass::Read | RiskClass::Write) => Decision::Allow,
        (_, RiskClass::Destructive | RiskClass::OpenWorld) => Decision::Ask,
    }
}

impl PolicyConfig {
    /// Check that every source name is a real source kind; returns the bad key's path.
    pub fn check_names(&self) -> Result<(), (String, String)> {
        let known = |k: &str| SourceKind::ALL.iter().any(|s| s.as_str() == k);
        let names = SourceKind::ALL.map(|s| s.as_str()).join(", ");
        for k in self.sources.keys() {
            if !known(k) {
                return Err((
                    format!("policy.sources.{k}"),
                    format!("unknown source `{k}`, expected one of {names}"),
                ));
            }
        }
        for (cmd, rule) in &self.commands {
            if let CommandRule::PerSource(map) = rule {
                for k in map.keys() {
                    if !known(k) {
                        return Err((
                            format!("policy.commands.{cmd}.{k}"),
                            format!("unknown source `{k}`, expected one of {names}"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Whether `commands` has a rule for this name.
    pub fn names(&self, command: &str) -> bool {
        self.commands.contains_key(command)
    }

    /// Decide a call, and say which rule decided it.
    pub fn decide<'a>(
        &self,
        command: &'a str,
        source: SourceKind,
        annotations: &Annotations,
    ) -> (Decision, Rule<'a>) {
        if let Some(rule) = self.commands.get(command) {
            match rule {
                CommandRule::PerSource(map) => {
                    if let Some(d) = map.get(source.as_str()) {
                        return (*d, Rule::CommandForSource(command, source));
                    }
                }
                // A bare rule governs programs and agents; people are governed only by
                // per-source rules that name them.
                CommandRule::All(d)
                    if !matches!(source, SourceKind::Human | SourceKind::Internal) =>
                {
                    return (*d, Rule::Command(command));
                }
                CommandRule::All(_) => {}
            }
        }
        let class = RiskClass::of(annotations);
        if let Some(d) = self.sources.get(source.as_str()).and_then(|t| t.get(class)) {
            return (d, Rule::Source(source, class));
        }
        (
            default_decision(source, class),
            Rule::Default(source, class),
        )
    }
}

/// The rule that decided a call. Displayed as its place in the config
/// (`policy.commands.fs.delete.ai`), or as the built-in default; formatted only when a
/// refusal or a question names it, since most calls are simply allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule<'a> {
    /// `policy.commands.<command>.<source>`
    CommandForSource(&'a str, SourceKind),
    /// `policy.commands.<command>`
    Command(&'a str),
    /// `policy.sources.<source>.<class>`
    Source(SourceKind, RiskClass),
    /// The built-in table ([`default_decision`]).
    Default(SourceKind, RiskClass),
}

impl Rule<'_> {
    /// Whether no configured rule applied.
    pub fn is_default(&self) -> bool {
        matches!(self, Rule::Default(..))
    }
}

impl std::fmt::Display for Rule<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rule::CommandForSource(c, s) => write!(f, "policy.commands.{c}.{}", s.as_str()),
            Rule::Command(c) => write!(f, "policy.commands.{c}"),
            Rule::Source(s, class) => {
                write!(f, "policy.sources.{}.{}", s.as_str(), class.as_str())
            }
            Rule::Default(s, class) => {
                write!(f, "default policy for {} {}", s.as_str(), class.as_str())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(destructive: bool) -> Annotations {
        Annotations {
            destructive,
            ..Default::default()
        }
    }

    #[test]
    fn defaults_and_overrides() {
        let mut p = PolicyConfig::default();
        assert_eq!(p.decide("x", SourceKind::Ai, &ann(true)).0, Decision::Ask);
        assert_eq!(
            p.decide("x", SourceKind::Human, &ann(true)).0,
            Decision::Allow
        );
        assert_eq!(
            p.decide("x", SourceKind::Ai, &ann(false)).0,
            Decision::Allow
        );
        p.sources.insert(
            "ai".into(),
            RiskTable {
                destructive: Some(Decision::Allow),
                ..Default::default()
            },
        );
        assert_eq!(p.decide("x", SourceKind::Ai, &ann(true)).0, Decision::Allow);
        p.commands
            .insert("x".into(), CommandRule::All(Decision::Deny));
        assert_eq!(p.decide("x", SourceKind::Ai, &ann(true)).0, Decision::Deny);
        assert_eq!(
            p.decide("x", SourceKind::Human, &ann(true)).0,
            Decision::Allow
        );
    }

    #[test]
    fn each_rule_is_named_by_its_place_in_the_config() {
        let named = |p: &PolicyConfig, kind| p.decide("fs.delete", kind, &ann(true)).1.to_string();
        let mut p = PolicyConfig::default();
        assert_eq!(
            named(&p, SourceKind::Ai),
            "default policy for ai destructive"
        );
        assert!(
            p.decide("fs.delete", SourceKind::Ai, &ann(true))
                .1
                .is_default()
        );
        p.sources.insert(
            "ai".into(),
            RiskTable {
                destructive: Some(Decision::Deny),
                ..Default::default()
            },
        );
        assert_eq!(named(&p, SourceKind::Ai), "policy.sources.ai.destructive");
        assert!(
            !p.decide("fs.delete", SourceKind::Ai, &ann(true))
                .1
                .is_default()
        );
        p.commands
            .insert("fs.delete".into(), CommandRule::All(Decision::Ask));
        assert_eq!(named(&p, SourceKind::Ai), "policy.commands.fs.delete");
        p.commands.insert(
            "fs.delete".into(),
            CommandRule::PerSource([("ai".to_string(), Decision::Deny)].into()),
        );
        assert_eq!(named(&p, SourceKind::Ai), "policy.commands.fs.delete.ai");
        assert_eq!(
            named(&p, SourceKind::Human),
            "default policy for human destructive"
        );
    }
}
