//! The editor's own input fields: the command palette's query and the prompt that asks
//! for a command's missing arguments. Typing here changes no workspace state; what they
//! end in is a registry command.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Map, Value};

/// What a key did to a field.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Edited,
    Submit,
    Cancel,
    Up,
    Down,
    Ignored,
}

/// A one-line text field.
#[derive(Debug, Default, Clone)]
pub struct LineInput {
    pub text: String,
    /// Cursor, in characters.
    pub cursor: usize,
}

impl LineInput {
    /// A field holding `text`, cursor at the end.
    pub fn with(text: &str) -> LineInput {
        LineInput {
            text: text.to_string(),
            cursor: text.chars().count(),
        }
    }

    fn byte(&self, at: usize) -> usize {
        self.text
            .char_indices()
            .nth(at)
            .map_or(self.text.len(), |(i, _)| i)
    }

    /// Apply a key.
    pub fn key(&mut self, ev: &KeyEvent) -> Outcome {
        let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
        match ev.code {
            KeyCode::Enter => Outcome::Submit,
            KeyCode::Esc => Outcome::Cancel,
            KeyCode::Up => Outcome::Up,
            KeyCode::Down => Outcome::Down,
            KeyCode::Left => {
                self.cursor = self.cursor.saturating_sub(1);
                Outcome::Ignored
            }
            KeyCode::Right => {
                self.cursor = (self.cursor + 1).min(self.text.chars().count());
                Outcome::Ignored
            }
            KeyCode::Home => {
                self.cursor = 0;
                Outcome::Ignored
            }
            KeyCode::End => {
                self.cursor = self.text.chars().count();
                Outcome::Ignored
            }
            KeyCode::Backspace if self.cursor > 0 => {
                let at = self.byte(self.cursor - 1);
                self.text.remove(at);
                self.cursor -= 1;
                Outcome::Edited
            }
            KeyCode::Delete if self.cursor < self.text.chars().count() => {
                let at = self.byte(self.cursor);
                self.text.remove(at);
                Outcome::Edited
            }
            KeyCode::Char('u') if ctrl => {
                self.text.clear();
                self.cursor = 0;
                Outcome::Edited
            }
            KeyCode::Char(c) if !ctrl && !ev.modifiers.contains(KeyModifiers::ALT) => {
                self.insert(&c.to_string());
                Outcome::Edited
            }
            _ => Outcome::Ignored,
        }
    }

    /// Insert text at the cursor (a paste: line breaks become spaces).
    pub fn insert(&mut self, text: &str) {
        let text = text.replace(['\n', '\r'], " ");
        let at = self.byte(self.cursor);
        self.text.insert_str(at, &text);
        self.cursor += text.chars().count();
    }
}

/// One command in the palette.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    pub title: String,
    pub category: String,
    /// It only reads: its answer is worth showing.
    pub read_only: bool,
}

/// The palette: a query and the registry's matches for it.
#[derive(Debug, Default)]
pub struct Palette {
    pub input: LineInput,
    pub entries: Vec<Entry>,
    pub selected: usize,
    /// The person opened it, or has typed or moved in it since: Enter runs the choice.
    /// A palette an agent opened is not armed, so keys meant for the text cannot run a
    /// command the agent put first.
    pub armed: bool,
}

impl Palette {
    /// Take the registry's answer to `ultra.listCommands {query, brief}`.
    pub fn set_entries(&mut self, list: &Value) {
        self.entries = list
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|c| Entry {
                        id: c["id"].as_str().unwrap_or_default().to_string(),
                        title: c["title"].as_str().unwrap_or_default().to_string(),
                        category: c["category"].as_str().unwrap_or_default().to_string(),
                        read_only: c["annotations"]["readOnly"].as_bool().unwrap_or(false),
                    })
                    .collect()
            })
            .unwrap_or_default();
        self.selected = self.selected.min(self.entries.len().saturating_sub(1));
    }

    /// Move the highlight.
    pub fn step(&mut self, down: bool) {
        if self.entries.is_empty() {
            return;
        }
        let n = self.entries.len();
        self.selected = if down {
            (self.selected + 1) % n
        } else {
            (self.selected + n - 1) % n
        };
    }
}

/// One argument the prompt asks for.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: String,
    pub description: String,
    /// The JSON Schema type (`string`, `integer`, `boolean`, `object`, ...).
    pub kind: String,
}

/// Asking for the arguments a command needs, one field at a time.
#[derive(Debug)]
pub struct Prompt {
    pub command: String,
    pub title: String,
    pub args: Map<String, Value>,
    pub fields: Vec<Field>,
    pub at: usize,
    pub input: LineInput,
    /// Why the last answer was refused.
    pub error: Option<String>,
    /// Started from the palette: the command's answer is shown (a panel for queries).
    pub from_palette: Option<crate::input::Entry>,
}

impl Prompt {
    /// The required arguments `schema` (a command's argument schema) names that `args`
    /// lacks; `None` when nothing is missing.
    pub fn for_missing(
        command: &str,
        title: &str,
        schema: &Value,
        args: Map<String, Value>,
    ) -> Option<Prompt> {
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields: Vec<Field> = required
            .into_iter()
            .filter(|n| !args.contains_key(*n))
            .map(|n| {
                let p = &schema["properties"][n];
                let kind = match &p["type"] {
                    Value::String(s) => s.clone(),
                    Value::Array(a) => a
                        .iter()
                        .filter_map(Value::as_str)
                        .find(|t| *t != "null")
                        .unwrap_or("string")
                        .to_string(),
                    _ if p.get("$ref").is_some() || p.get("anyOf").is_some() => "object".into(),
                    _ => "string".into(),
                };
                Field {
                    name: n.to_string(),
                    description: p["description"].as_str().unwrap_or_default().to_string(),
                    kind,
                }
            })
            .collect();
        if fields.is_empty() {
            return None;
        }
        Some(Prompt {
            command: command.to_string(),
            title: title.to_string(),
            args,
            fields,
            at: 0,
            input: LineInput::default(),
            error: None,
            from_palette: None,
        })
    }

    /// The field being asked for.
    pub fn field(&self) -> &Field {
        &self.fields[self.at]
    }

    /// Take the typed answer for the current field. Returns true when every field has
    /// one; on a bad answer keeps the field and sets `error`.
    pub fn accept(&mut self) -> bool {
        let f = self.field().clone();
        let text = self.input.text.trim();
        let value = match f.kind.as_str() {
            "integer" => text
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| "a whole number"),
            "number" => text
                .parse::<f64>()
                .ok()
                .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number))
                .ok_or("a number"),
            "boolean" => match text {
                "true" | "yes" | "y" => Ok(Value::Bool(true)),
                "false" | "no" | "n" => Ok(Value::Bool(false)),
                _ => Err("true or false"),
            },
            "string" => Ok(Value::String(self.input.text.clone())),
            _ => serde_json::from_str(text)
                .or_else(|_| Ok::<Value, &str>(Value::String(self.input.text.clone()))),
        };
        match value {
            Ok(v) => {
                self.args.insert(f.name, v);
                self.at += 1;
                self.input = LineInput::default();
                self.error = None;
                self.at >= self.fields.len()
            }
            Err(want) => {
                self.error = Some(format!("{} must be {want}", f.name));
                false
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn press(input: &mut LineInput, code: KeyCode) -> Outcome {
        input.key(&KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn a_field_edits_by_characters() {
        let mut i = LineInput::default();
        for c in "héllo".chars() {
            assert_eq!(press(&mut i, KeyCode::Char(c)), Outcome::Edited);
        }
        press(&mut i, KeyCode::Left);
        press(&mut i, KeyCode::Backspace);
        assert_eq!(i.text, "hélo");
        press(&mut i, KeyCode::Home);
        press(&mut i, KeyCode::Delete);
        assert_eq!(i.text, "élo");
        i.insert("a\nb");
        assert_eq!(i.text, "a bélo");
        assert_eq!(press(&mut i, KeyCode::Enter), Outcome::Submit);
        assert_eq!(press(&mut i, KeyCode::Esc), Outcome::Cancel);
    }

    #[test]
    fn the_prompt_asks_only_for_missing_required_arguments() {
        let schema = json!({
            "type": "object",
            "required": ["line", "path"],
            "properties": {
                "line": {"type": "integer", "description": "Line (1-based)."},
                "path": {"type": "string"},
                "column": {"type": ["integer", "null"]}
            }
        });
        let mut given = Map::new();
        given.insert("path".into(), json!("a.rs"));
        let mut p = Prompt::for_missing("ultra.goToLine", "Go to Line", &schema, given)
            .expect("line is missing");
        assert_eq!(p.fields.len(), 1);
        assert_eq!(p.field().name, "line");
        p.input = LineInput::with("x");
        assert!(!p.accept());
        assert_eq!(p.error.as_deref(), Some("line must be a whole number"));
        p.input = LineInput::with("42");
        assert!(p.accept());
        assert_eq!(json!(p.args), json!({"path": "a.rs", "line": 42}));
        let mut all = Map::new();
        all.insert("line".into(), json!(1));
        all.insert("path".into(), json!("b"));
        assert!(Prompt::for_missing("x", "x", &schema, all).is_none());
    }

    #[test]
    fn the_palette_wraps() {
        let mut p = Palette::default();
        p.set_entries(&json!([{"id": "a", "title": "A"}, {"id": "b", "title": "B"}]));
        p.step(false);
        assert_eq!(p.entries[p.selected].id, "b");
        p.step(true);
        assert_eq!(p.entries[p.selected].id, "a");
    }
}
