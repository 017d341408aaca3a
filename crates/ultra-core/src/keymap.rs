//! Keybindings: each command's default key (from its spec) plus the user's bindings from
//! config `keybindings` (`[{key, command, when?, args?}]`, VS Code's shape; a command
//! written `-ultra.save` removes that command's bindings, for `key` only when one is given).
//! A key press goes to the last binding whose key matches and whose when-clause holds, so
//! user bindings win over defaults. Keys are written `ctrl+shift+p`, `alt+left`, `f5`; the
//! order of modifiers and their case do not matter.

use serde_json::Value;

use crate::config::KeybindingConfig;
use crate::when::{Context, When, WhenError};

/// A key with its modifiers.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
    pub meta: bool,
    /// The key itself, lowercase: `s`, `enter`, `up`, `f5`, `space`.
    pub code: String,
}

const NAMED: &[&str] = &[
    "enter",
    "escape",
    "tab",
    "backspace",
    "delete",
    "insert",
    "home",
    "end",
    "pageup",
    "pagedown",
    "up",
    "down",
    "left",
    "right",
    "space",
];

impl Key {
    /// Parse `ctrl+shift+p`.
    pub fn parse(text: &str) -> Result<Key, String> {
        let mut k = Key {
            ctrl: false,
            alt: false,
            shift: false,
            meta: false,
            code: String::new(),
        };
        let parts: Vec<String> = text.split('+').map(|p| p.trim().to_lowercase()).collect();
        let Some((code, mods)) = parts.split_last() else {
            return Err(format!("`{text}` names no key"));
        };
        for m in mods {
            match m.as_str() {
                "ctrl" | "control" => k.ctrl = true,
                "alt" | "option" => k.alt = true,
                "shift" => k.shift = true,
                "meta" | "cmd" | "super" | "win" => k.meta = true,
                other => {
                    return Err(format!(
                        "`{other}` in `{text}` is not ctrl, alt, shift or meta"
                    ));
                }
            }
        }
        let code = match code.as_str() {
            "esc" => "escape".to_string(),
            "return" => "enter".to_string(),
            "del" => "delete".to_string(),
            "" => return Err(format!("`{text}` names no key")),
            c => c.to_string(),
        };
        let ok = code.chars().count() == 1
            || NAMED.contains(&code.as_str())
            || code
                .strip_prefix('f')
                .and_then(|n| n.parse::<u8>().ok())
                .is_some_and(|n| (1..=24).contains(&n));
        if !ok {
            return Err(format!(
                "`{code}` in `{text}` is not a key (a character, f1-f24, or one of {})",
                NAMED.join(", ")
            ));
        }
        k.code = code;
        Ok(k)
    }
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (on, name) in [
            (self.ctrl, "ctrl+"),
            (self.alt, "alt+"),
            (self.shift, "shift+"),
            (self.meta, "meta+"),
        ] {
            if on {
                f.write_str(name)?;
            }
        }
        f.write_str(&self.code)
    }
}

/// Where a binding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Default,
    User,
}

/// One binding.
#[derive(Debug, Clone)]
pub struct Binding {
    pub key: Key,
    pub command: String,
    pub when: Option<When>,
    /// The when-clause as written.
    pub when_text: Option<String>,
    pub args: Option<Value>,
    pub origin: Origin,
}

/// A binding the keymap could not take.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeymapError {
    /// A key that does not parse.
    #[error("{at}: {message}")]
    Key { at: String, message: String },
    /// A when-clause that does not parse.
    #[error("{at}: {error}")]
    When { at: String, error: WhenError },
    /// A command that does not exist.
    #[error("{at}: no command `{command}`")]
    Command { at: String, command: String },
}

/// Every binding, defaults first.
#[derive(Debug, Clone, Default)]
pub struct Keymap {
    bindings: Vec<Binding>,
}

impl Keymap {
    /// Defaults (`(command, key, when, args JSON)` from the specs) plus the user's
    /// bindings; `exists` says whether a command id is known.
    pub fn build<'a>(
        defaults: impl IntoIterator<Item = (&'a str, &'a str, Option<&'a str>, Option<&'a str>)>,
        user: &[KeybindingConfig],
        exists: impl Fn(&str) -> bool,
    ) -> Result<Keymap, KeymapError> {
        let mut bindings = Vec::new();
        for (command, key, when, args) in defaults {
            let at = format!("{command}'s default key");
            let args = args
                .map(serde_json::from_str::<Value>)
                .transpose()
                .map_err(|e| KeymapError::Key {
                    at: at.clone(),
                    message: format!("its arguments are not JSON: {e}"),
                })?;
            bindings.push(Binding {
                key: Key::parse(key).map_err(|message| KeymapError::Key {
                    at: at.clone(),
                    message,
                })?,
                command: command.to_string(),
                when: when
                    .map(When::parse)
                    .transpose()
                    .map_err(|error| KeymapError::When { at, error })?,
                when_text: when.map(str::to_string),
                args,
                origin: Origin::Default,
            });
        }
        for (i, b) in user.iter().enumerate() {
            let at = format!("keybindings[{i}]");
            let key = match &b.key {
                Some(k) => Some(Key::parse(k).map_err(|message| KeymapError::Key {
                    at: at.clone(),
                    message,
                })?),
                None => None,
            };
            if let Some(removed) = b.command.strip_prefix('-') {
                bindings.retain(|x| {
                    !(x.command == removed && key.as_ref().is_none_or(|k| &x.key == k))
                });
                continue;
            }
            if !exists(&b.command) {
                return Err(KeymapError::Command {
                    at,
                    command: b.command.clone(),
                });
            }
            let Some(key) = key else {
                return Err(KeymapError::Key {
                    at,
                    message: "a binding needs `key`".into(),
                });
            };
            let when = b
                .when
                .as_deref()
                .map(When::parse)
                .transpose()
                .map_err(|error| KeymapError::When {
                    at: at.clone(),
                    error,
                })?;
            bindings.push(Binding {
                key,
                command: b.command.clone(),
                when,
                when_text: b.when.clone(),
                args: b.args.clone(),
                origin: Origin::User,
            });
        }
        Ok(Keymap { bindings })
    }

    /// The binding a press of `key` runs in `cx`: the last that matches.
    pub fn resolve(&self, key: &Key, cx: &Context) -> Option<&Binding> {
        self.bindings
            .iter()
            .rev()
            .find(|b| &b.key == key && b.when.as_ref().is_none_or(|w| w.eval(cx)))
    }

    /// Every binding, defaults first.
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The bindings of `command` (for the palette and help).
    pub fn keys_of(&self, command: &str) -> Vec<&Binding> {
        self.bindings
            .iter()
            .filter(|b| b.command == command)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn user(v: serde_json::Value) -> Vec<KeybindingConfig> {
        serde_json::from_value(v).expect("config")
    }

    fn map(u: serde_json::Value) -> Result<Keymap, KeymapError> {
        Keymap::build(
            [
                ("ultra.save", "ctrl+s", Some("editorFocus"), None),
                ("ultra.commandPalette", "ctrl+shift+p", None, None),
                (
                    "ultra.cursorUp",
                    "up",
                    Some("editorFocus && !paletteOpen"),
                    None,
                ),
                ("ultra.paletteUp", "up", Some("paletteOpen"), None),
                (
                    "ultra.cursorUp",
                    "shift+up",
                    None,
                    Some(r#"{"select": true}"#),
                ),
            ],
            &user(u),
            |c| c.starts_with("ultra."),
        )
    }

    fn press(m: &Keymap, key: &str, keys: &[&str]) -> Option<String> {
        let mut cx = Context::default();
        for k in keys {
            cx.set(k, json!(true));
        }
        m.resolve(&Key::parse(key).expect("key"), &cx)
            .map(|b| b.command.clone())
    }

    #[test]
    fn keys_parse_in_any_order_and_case() {
        assert_eq!(Key::parse("Shift+Ctrl+P"), Key::parse("ctrl+shift+p"));
        assert_eq!(
            Key::parse("ctrl+shift+p").expect("key").to_string(),
            "ctrl+shift+p"
        );
        assert_eq!(Key::parse("esc").expect("key").code, "escape");
        assert!(Key::parse("f12").is_ok());
        for bad in ["", "ctrl+", "hyper+x", "ctrl+f99", "ctrl+enterr"] {
            assert!(Key::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn default_keys_can_pass_arguments() {
        let m = map(json!([])).expect("map");
        let b = m
            .resolve(&Key::parse("shift+up").expect("key"), &Context::default())
            .expect("bound");
        assert_eq!(b.command, "ultra.cursorUp");
        assert_eq!(b.args, Some(json!({"select": true})));
        let bad = Keymap::build(
            [("ultra.cursorUp", "shift+up", None, Some("{not json"))],
            &[],
            |_| true,
        );
        assert!(
            matches!(bad, Err(KeymapError::Key { ref at, .. }) if at.contains("ultra.cursorUp")),
            "{bad:?}"
        );
    }

    #[test]
    fn when_clauses_pick_the_binding() {
        let m = map(json!([])).expect("map");
        assert_eq!(
            press(&m, "up", &["editorFocus"]).as_deref(),
            Some("ultra.cursorUp")
        );
        assert_eq!(
            press(&m, "up", &["editorFocus", "paletteOpen"]).as_deref(),
            Some("ultra.paletteUp")
        );
        assert_eq!(press(&m, "ctrl+s", &[]), None);
        assert_eq!(
            press(&m, "ctrl+s", &["editorFocus"]).as_deref(),
            Some("ultra.save")
        );
        assert_eq!(
            press(&m, "ctrl+shift+p", &[]).as_deref(),
            Some("ultra.commandPalette")
        );
    }

    #[test]
    fn user_bindings_override_and_remove() {
        let m = map(json!([
            {"key": "ctrl+s", "command": "ultra.saveAll", "when": "editorFocus && dirtyCount > 1"},
            {"key": "ctrl+p", "command": "ultra.commandPalette"},
            {"command": "-ultra.commandPalette", "key": "ctrl+shift+p"},
            {"key": "f5", "command": "ultra.goToLine", "args": {"line": 1}},
        ]))
        .expect("map");
        let mut cx = Context::default();
        cx.set("editorFocus", json!(true));
        cx.set("dirtyCount", json!(3));
        let k = |s: &str| Key::parse(s).expect("key");
        assert_eq!(
            m.resolve(&k("ctrl+s"), &cx).map(|b| b.origin),
            Some(Origin::User)
        );
        cx.set("dirtyCount", json!(1));
        assert_eq!(
            m.resolve(&k("ctrl+s"), &cx).map(|b| b.command.as_str()),
            Some("ultra.save")
        );
        assert!(m.resolve(&k("ctrl+shift+p"), &cx).is_none());
        assert_eq!(
            m.keys_of("ultra.commandPalette")[0].key.to_string(),
            "ctrl+p"
        );
        assert_eq!(
            m.resolve(&k("f5"), &cx).and_then(|b| b.args.clone()),
            Some(json!({"line": 1}))
        );
    }

    #[test]
    fn bad_bindings_say_which() {
        let e = map(json!([{"key": "ctrl+x", "command": "nope.cut"}])).expect_err("unknown");
        assert_eq!(e.to_string(), "keybindings[0]: no command `nope.cut`");
        let e = map(json!([{"key": "hyper+x", "command": "ultra.save"}])).expect_err("key");
        assert!(
            matches!(e, KeymapError::Key { ref at, .. } if at == "keybindings[0]"),
            "{e}"
        );
        let e = map(json!([{"key": "ctrl+x", "command": "ultra.save", "when": "a &&"}]))
            .expect_err("when");
        assert!(
            matches!(e, KeymapError::When { ref at, .. } if at == "keybindings[0]"),
            "{e}"
        );
    }
}
