//! `api.call`: intents and clarifiers for agents, file writes and HTTP for the layer
//! above; unknown schemes do nothing.

use serde_json::{Value, json};

use super::{Effect, Mutation, Outcome, Piece, Ui};
use crate::components;
use crate::ops::{ApiCall, Invalid, WindowCreate};

impl Ui {
    /// `api.call`: what its URL's scheme asks for, as effects for the layer above (or a
    /// clarifier window); `index` is its place in the batch.
    pub(super) fn api_call(
        &mut self,
        p: &ApiCall,
        index: usize,
        at: &str,
        out: &mut Outcome,
    ) -> Result<Value, Invalid> {
        let url = p.url.as_str();
        if url == "uicp://intent" {
            let body = p.body.clone().unwrap_or(json!({}));
            let body = crate::ops::normalise(body);
            if body.get("text").is_some() {
                if body.get("fields").is_some() || body.get("textPrompt").is_some() {
                    return Err(Invalid::at(
                        format!("{at}/body/text"),
                        "a structured clarifier has textPrompt or fields, not text",
                    ));
                }
                let text = body["text"].as_str().ok_or_else(|| {
                    Invalid::at(format!("{at}/body/text"), "text must be a string")
                })?;
                out.effects.push(Effect::Intent(json!({
                    "text": text, "windowId": body.get("windowId"),
                })));
                return Ok(json!({"intent": "text"}));
            }
            if body.get("answers").is_some() {
                // A clarifier's submitted form, sent back by the page.
                out.effects.push(Effect::Intent(json!({
                    "answers": body["answers"], "windowId": body.get("windowId"),
                    "clarifier": body.get("clarifier"),
                })));
                return Ok(json!({"intent": "answers"}));
            }
            if body.get("fields").is_none() && body.get("textPrompt").is_none() {
                return Err(Invalid::at(
                    format!("{at}/body"),
                    "uicp://intent needs text, or a clarifier with textPrompt or fields",
                ));
            }
            return self.clarifier(&body, &format!("{at}/body"), out);
        }
        if url.starts_with("tauri://fs/writeTextFile") {
            let body = p.body.clone().unwrap_or(json!({}));
            let (Some(path), Some(contents)) = (
                body.get("path").and_then(Value::as_str),
                body.get("contents").and_then(Value::as_str),
            ) else {
                return Err(Invalid::at(
                    format!("{at}/body"),
                    "writeTextFile needs body {path, contents}",
                ));
            };
            out.effects.push(Effect::WriteFile {
                path: path.to_string(),
                contents: contents.to_string(),
            });
            return Ok(json!({"path": path}));
        }
        if url.starts_with("http://") || url.starts_with("https://") {
            out.effects.push(Effect::Http {
                op: index,
                call: p.clone(),
            });
            return Ok(json!({"url": url}));
        }
        // Unknown schemes are no-ops (seed 002), so sequencing stays idempotent.
        Ok(json!({"ignored": true}))
    }

    /// A structured clarifier: a window with a form whose submit sends the answers back as
    /// an intent and closes the window.
    fn clarifier(&mut self, body: &Value, at: &str, out: &mut Outcome) -> Result<Value, Invalid> {
        let id = match body.get("windowId").and_then(Value::as_str) {
            Some(w) => w.to_string(),
            None => self.fresh_id("clarify"),
        };
        let fields = body.get("fields").cloned().unwrap_or(json!([]));
        let names: Vec<String> = fields
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|f| f.get("name").and_then(Value::as_str).map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let answers: serde_json::Map<String, Value> = names
            .iter()
            .map(|n| (n.clone(), json!(format!("{{{{form.{n}}}}}"))))
            .collect();
        let submit = json!([
            {"op": "api.call", "params": {"method": "POST", "url": "uicp://intent",
              "body": {"clarifier": id, "windowId": id, "answers": answers}}},
            {"op": "window.close", "params": {"id": id}},
        ]);
        let cancel = json!([{"op": "window.close", "params": {"id": id}}]);
        let mut props = json!({
            "fields": fields,
            "submit": body.get("submit").cloned().unwrap_or(json!("Continue")),
            "command": submit,
        });
        if let Some(c) = body.get("cancel") {
            props["cancel"] = c.clone();
            props["cancelCommand"] = cancel;
        }
        let form = components::form(&props, at)?;
        let mut html = String::new();
        for key in ["description", "textPrompt"] {
            if let Some(t) = body.get(key).and_then(Value::as_str) {
                html.push_str(&format!(
                    "<p class=\"uicp-prompt\">{}</p>",
                    components::esc(t)
                ));
            }
        }
        html.push_str(&form);
        if self.window(&id).is_none() {
            self.open_window(
                &WindowCreate {
                    id: Some(id.clone()),
                    title: body
                        .get("title")
                        .and_then(Value::as_str)
                        .unwrap_or("Clarify")
                        .to_string(),
                    width: body
                        .get("width")
                        .and_then(Value::as_u64)
                        .map(|v| v.max(120) as u32),
                    height: body
                        .get("height")
                        .and_then(Value::as_u64)
                        .map(|v| v.max(120) as u32),
                    ..WindowCreate::default()
                },
                at,
                false,
                out,
            )?;
        }
        out.mutations.push(Mutation::Content {
            window_id: id.clone(),
            piece: Piece {
                kind: "set".into(),
                target: "root".into(),
                html,
                component: None,
            },
        });
        Ok(json!({"intent": "clarifier", "windowId": id}))
    }
}
