//! The editor's state between frames and what a key or an event does to it. Nothing here
//! changes the workspace except by running a registry command through the backend: a
//! key resolves (keymap + context keys) to a command, a typed character is
//! `ultra.insertText`, the palette and prompts end in a command. What is kept here is
//! only what this screen needs: scroll positions, the open palette or prompt, the agent
//! log, pending confirmations to pop up.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use ultra_core::config::KeybindingConfig;
use ultra_core::keymap::Keymap;
use ultra_core::when::Context;
use ultra_protocol::{CommandError, ErrorCode, Event, SourceKind};

use crate::backend::Backend;
use crate::input::{LineInput, Outcome, Palette, Prompt};
use crate::keys::{key_of, typed};
use ultra_protocol::view::{Split, ViewInfo, Viewport};

/// A call waiting for the person's approval.
#[derive(Debug, Clone)]
pub struct Pending {
    pub id: String,
    /// When it popped up: keys in the first moments still go to the editor, so a `y`
    /// being typed as the popup appears does not approve anything.
    pub shown: Instant,
    pub command: String,
    pub who: String,
    pub reason: String,
    pub preview: String,
}

/// Lines an agent changed, marked in the gutter for a while.
#[derive(Debug, Clone)]
pub struct AgentMark {
    pub path: String,
    /// 1-based, inclusive.
    pub lines: (usize, usize),
    pub at: Instant,
}

/// How long a confirmation is on screen before y and n answer it.
pub const CONFIRM_GRACE: Duration = Duration::from_millis(600);

/// How long an agent's change stays marked.
pub const MARK_FOR: Duration = Duration::from_secs(30);

/// A line for the message bar.
#[derive(Debug, Clone)]
pub struct Message {
    pub text: String,
    pub error: bool,
}

/// A command's result shown in a panel (commands run from the palette that answer with
/// data, such as ultra.inspectContextKeys).
#[derive(Debug, Clone)]
pub struct Output {
    pub title: String,
    pub body: String,
    pub scroll: usize,
}

/// One editor group on screen.
#[derive(Debug, Clone, Default)]
pub struct Group {
    pub port: Viewport,
    pub left: usize,
    pub height: usize,
    pub width: usize,
}

/// The editor.
pub struct App {
    backend: Box<dyn Backend>,
    keymap: Keymap,
    pub view: ViewInfo,
    pub groups: Vec<Group>,
    /// Per path: first line shown and first column shown.
    scroll: HashMap<String, (usize, usize)>,
    pub palette: Option<Palette>,
    pub prompt: Option<Prompt>,
    pub output: Option<Output>,
    pub confirms: Vec<Pending>,
    pub agent_log: VecDeque<String>,
    pub marks: Vec<AgentMark>,
    pub message: Option<Message>,
    pub size: (u16, u16),
    pub quit: bool,
    pub files: Option<Vec<String>>,
    pub where_: String,
    /// The terminal panel's terminal, as drawn here.
    pub term: Option<crate::term::TermPane>,
    /// The file chosen in the sidebar's list.
    pub sidebar_at: usize,
}

/// Rows the frame takes besides the editor groups: tabs, status, message.
pub const CHROME_ROWS: u16 = 3;

impl App {
    /// An editor on `backend`, with the key bindings it reports.
    pub fn new(mut backend: Box<dyn Backend>, size: (u16, u16)) -> Result<App, CommandError> {
        let keymap = load_keymap(backend.as_mut())?;
        let where_ = backend.describe();
        let mut app = App {
            backend,
            keymap,
            view: ViewInfo::default(),
            groups: Vec::new(),
            scroll: HashMap::new(),
            palette: None,
            prompt: None,
            output: None,
            confirms: Vec::new(),
            agent_log: VecDeque::new(),
            marks: Vec::new(),
            message: None,
            size,
            quit: false,
            files: None,
            where_,
            term: None,
            sidebar_at: 0,
        };
        if let Ok(list) = app.backend.call("ultra.confirm.list", json!({})) {
            for p in list
                .get("pending")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                app.add_pending(p);
            }
        }
        Ok(app)
    }

    /// Start hearing events.
    pub fn subscribe(&mut self, sink: crate::backend::Sink) -> Result<(), CommandError> {
        self.backend.subscribe(sink)
    }

    /// Run a command; a failure becomes the message line. Returns its data.
    pub fn run(&mut self, command: &str, args: Value) -> Option<Value> {
        match self.backend.call(command, args.clone()) {
            Ok(v) => {
                if command == "ultra.quit" {
                    self.quit = true;
                }
                Some(v)
            }
            Err(e) => {
                if !self.ask_for_missing(command, &args, &e) {
                    self.fail(&e);
                }
                None
            }
        }
    }

    /// When a command failed for want of required arguments, ask for them.
    fn ask_for_missing(&mut self, command: &str, args: &Value, e: &CommandError) -> bool {
        if e.code != ErrorCode::InvalidArguments {
            return false;
        }
        let Some(schema) = e.details.as_ref().and_then(|d| d.get("schema")) else {
            return false;
        };
        let given = args.as_object().cloned().unwrap_or_default();
        // Titled by the id; the palette puts the command's title on it.
        match Prompt::for_missing(command, command, schema, given) {
            Some(p) => {
                self.prompt = Some(p);
                true
            }
            None => false,
        }
    }

    fn fail(&mut self, e: &CommandError) {
        let mut text = format!("{}: {}", e.code.as_str(), e.message);
        if let Some(s) = &e.suggestion {
            text.push_str(&format!(" ({s})"));
        }
        self.message = Some(Message {
            text: text.replace('\n', " "),
            error: true,
        });
    }

    fn say(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            text: text.into(),
            error: false,
        });
    }

    fn context(&self) -> Context {
        let mut cx = Context::default();
        for (k, v) in &self.view.context {
            cx.set(k, v.clone());
        }
        cx
    }

    /// Rows the terminal panel takes (its border included), 0 when hidden.
    pub fn panel_rows(&self) -> u16 {
        if !self.view.state.terminal.visible {
            return 0;
        }
        let body = self.size.1.saturating_sub(CHROME_ROWS);
        (body / 3).max(6).min(body.saturating_sub(3))
    }

    /// Columns between the sidebar and the agent pane.
    fn middle_width(&self) -> usize {
        let mut w = self.size.0 as usize;
        if self.view.state.sidebar {
            w = w.saturating_sub(w / 5 + 1);
        }
        if self.view.state.agent_pane {
            w = w.saturating_sub(self.size.0 as usize / 3 + 1);
        }
        w
    }

    /// Height of one editor group (rows of text).
    fn group_height(&self) -> usize {
        let rows = self.size.1.saturating_sub(CHROME_ROWS + self.panel_rows()) as usize;
        if self.view.state.split == Split::Horizontal {
            rows.saturating_sub(1) / 2
        } else {
            rows
        }
        .max(1)
    }

    /// Width of one editor group's text (columns, less the gutter).
    fn group_width(&self) -> usize {
        let mut w = self.middle_width();
        if self.view.state.split == Split::Vertical {
            w = w.saturating_sub(1) / 2;
        }
        w.saturating_sub(crate::draw::GUTTER).max(1)
    }

    /// Fetch what the screen shows: the view, then each group's lines, scrolled so that
    /// the active group's cursor is on screen.
    pub fn refresh(&mut self) {
        if !self.refresh_view() {
            return;
        }
        if self.view.state.sidebar && self.files.is_none() {
            self.load_files();
        }
        let mut paths: Vec<String> = self.view.active.iter().cloned().collect();
        if self.view.state.split != Split::None
            && let Some(p) = &self.view.state.split_path
            && self.view.tabs.iter().any(|t| &t.path == p)
        {
            paths.push(p.clone());
        }
        let (height, width) = (self.group_height(), self.group_width());
        let mut groups = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            let Some(g) = self.fetch_group(path, height, width, i == 0) else {
                continue;
            };
            groups.push(g);
        }
        self.groups = groups;
        self.marks.retain(|m| m.at.elapsed() < MARK_FOR);
        self.sync_terminal();
    }

    /// Follow the view's terminal panel: a pane for the terminal it shows (seeded with
    /// what the terminal printed so far), sized to the panel.
    fn sync_terminal(&mut self) {
        let tv = self.view.state.terminal.clone();
        let Some(id) = tv.terminal_id.filter(|_| tv.visible) else {
            return;
        };
        let rows = self.panel_rows().saturating_sub(1).max(1);
        let cols = (self.middle_width() as u16).max(2);
        if self.term.as_ref().is_none_or(|t| t.id != id) {
            let mut pane = crate::term::TermPane::new(&id, rows, cols);
            if let Ok(out) = self
                .backend
                .call("terminal.read", json!({ "terminalId": id, "since": 0 }))
            {
                pane.feed(out["data"].as_str().unwrap_or_default());
            }
            self.term = Some(pane);
            let _ = self.backend.call(
                "terminal.resize",
                json!({ "terminalId": id, "rows": rows.max(2), "cols": cols }),
            );
        }
        if let Some(t) = &mut self.term
            && t.size() != (rows, cols)
        {
            t.resize(rows, cols);
            let _ = self.backend.call(
                "terminal.resize",
                json!({ "terminalId": id, "rows": rows.max(2), "cols": cols }),
            );
        }
    }

    /// Fetch the view state (panes, palette, context keys). False when it failed.
    fn refresh_view(&mut self) -> bool {
        match self.backend.call("ultra.getViewState", json!({})) {
            Ok(v) => match serde_json::from_value(v) {
                Ok(view) => self.view = view,
                Err(e) => self.say(format!("unreadable view state: {e}")),
            },
            Err(e) => {
                self.fail(&e);
                return false;
            }
        }
        self.sync_palette();
        true
    }

    fn fetch_group(
        &mut self,
        path: &str,
        height: usize,
        width: usize,
        follow: bool,
    ) -> Option<Group> {
        let (mut top, mut left) = self.scroll.get(path).copied().unwrap_or((0, 0));
        // Scrolling to the cursor may take a second fetch (a third when the line it lands
        // on also needs a horizontal scroll); the last one is drawn as it is.
        for attempt in 0..3 {
            let port: Viewport = match self.backend.call(
                "ultra.getViewport",
                json!({ "path": path, "top": top, "height": height, "maxLineChars": left + width + 1 }),
            ) {
                Ok(v) => serde_json::from_value(v).ok()?,
                Err(e) => {
                    self.fail(&e);
                    return None;
                }
            };
            let cursor = port.cursor();
            let (line, col) = (cursor.line as usize, cursor.character as usize);
            let mut moved = false;
            if follow {
                if line < top {
                    top = line;
                    moved = true;
                } else if line >= top + height {
                    top = line + 1 - height;
                    moved = true;
                }
                let display = port
                    .lines
                    .iter()
                    .find(|l| l.line == line)
                    .map(|l| crate::draw::display_col(&l.text, col))
                    .unwrap_or(col);
                if display < left {
                    left = display;
                } else if display >= left + width {
                    left = display + 1 - width;
                    moved = true;
                }
            }
            if top != port.top && !moved {
                top = port.top;
            }
            self.scroll.insert(path.to_string(), (top, left));
            if !moved || attempt == 2 {
                return Some(Group {
                    port,
                    left,
                    height,
                    width,
                });
            }
        }
        None
    }

    fn load_files(&mut self) {
        if let Ok(v) = self.backend.call(
            "fs.listDirectory",
            json!({ "path": ".", "recursive": true, "maxEntries": 2000 }),
        ) {
            let files = v["entries"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter(|e| e["type"] == "file")
                        .filter_map(|e| e["path"].as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            self.files = Some(files);
        }
    }

    /// Open or close the local palette to match the view (an agent may open it).
    fn sync_palette(&mut self) {
        match (self.view.state.palette.open, self.palette.is_some()) {
            (true, false) => {
                let mut p = Palette {
                    input: LineInput::with(&self.view.state.palette.query),
                    ..Palette::default()
                };
                self.search_palette(&mut p);
                self.palette = Some(p);
            }
            (false, true) => self.palette = None,
            _ => {}
        }
    }

    fn search_palette(&mut self, p: &mut Palette) {
        match self.backend.call(
            "ultra.listCommands",
            json!({ "query": p.input.text, "brief": true }),
        ) {
            Ok(list) => p.set_entries(&list),
            Err(e) => self.fail(&e),
        }
    }

    /// The keys bound to a command, for the palette.
    pub fn keys_of(&self, command: &str) -> String {
        self.keymap
            .keys_of(command)
            .iter()
            .map(|b| b.key.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A pasted text.
    pub fn on_paste(&mut self, text: &str) {
        if let Some(id) = self.terminal_focus() {
            self.run(
                "terminal.sendText",
                json!({ "terminalId": id, "text": text, "addNewLine": false }),
            );
        } else if let Some(p) = &mut self.prompt {
            p.input.insert(text);
        } else if let Some(mut p) = self.palette.take() {
            p.input.insert(text);
            self.search_palette(&mut p);
            self.palette = Some(p);
        } else {
            self.run("ultra.insertText", json!({ "text": text }));
        }
    }

    /// A key press.
    pub fn on_key(&mut self, ev: &KeyEvent) {
        self.message = None;
        if self.output.is_some() {
            return self.output_key(ev);
        }
        if !self.confirms.is_empty() && self.confirm_key(ev) {
            return;
        }
        if self.prompt.is_some() {
            return self.prompt_key(ev);
        }
        if self.palette.is_some() && self.palette_key(ev) {
            return;
        }
        if self.view.state.sidebar && self.view.state.sidebar_focused && self.sidebar_key(ev) {
            return;
        }
        let Some(key) = key_of(ev) else { return };
        let cx = self.context();
        if let Some(id) = self.terminal_focus() {
            // Keys go to the terminal, but for the editor's own few.
            let keep = self.keymap.resolve(&key, &cx).is_some_and(|b| {
                crate::term::KEEPS.contains(&b.command.as_str())
                    || b.when_text
                        .as_deref()
                        .is_some_and(|w| w.contains("terminalFocus"))
            });
            if !keep {
                if let Some(bytes) = crate::term::key_bytes(ev) {
                    let text = String::from_utf8_lossy(&bytes).into_owned();
                    self.run(
                        "terminal.sendText",
                        json!({ "terminalId": id, "text": text, "addNewLine": false }),
                    );
                }
                return;
            }
        }
        if let Some(b) = self.keymap.resolve(&key, &cx) {
            let command = b.command.clone();
            let mut args = b.args.clone().unwrap_or_else(|| json!({}));
            // A page is as high as this screen's group.
            if matches!(
                command.as_str(),
                "ultra.cursorPageUp" | "ultra.cursorPageDown"
            ) && args.get("count").is_none()
            {
                args["count"] = json!(self.group_height().saturating_sub(1).max(1));
            }
            self.run(&command, args);
            // The next key in the same burst must see the view this one left (an open
            // palette, new context keys).
            self.refresh_view();
            if command == "ultra.commandPalette"
                && let Some(p) = &mut self.palette
            {
                p.armed = true;
            }
            return;
        }
        if let Some(c) = typed(ev)
            && cx.get("editorFocus") == Some(&json!(true))
            && self.view.active.is_some()
        {
            self.run("ultra.insertText", json!({ "text": c.to_string() }));
            return;
        }
        self.say(format!("{key} is not bound"));
    }

    /// Arrows choose a file in the sidebar, Enter opens it, Escape leaves; other keys
    /// pass to the bindings.
    fn sidebar_key(&mut self, ev: &KeyEvent) -> bool {
        let n = self.files.as_ref().map_or(0, Vec::len);
        match ev.code {
            KeyCode::Up => self.sidebar_at = self.sidebar_at.saturating_sub(1),
            KeyCode::Down => self.sidebar_at = (self.sidebar_at + 1).min(n.saturating_sub(1)),
            KeyCode::PageUp => self.sidebar_at = self.sidebar_at.saturating_sub(10),
            KeyCode::PageDown => {
                self.sidebar_at = (self.sidebar_at + 10).min(n.saturating_sub(1));
            }
            KeyCode::Enter => {
                let chosen = self
                    .files
                    .as_ref()
                    .and_then(|f| f.get(self.sidebar_at))
                    .cloned();
                if let Some(path) = chosen
                    && self
                        .run("ultra.openFile", json!({ "path": path }))
                        .is_some()
                {
                    self.run("ultra.focusSidebar", json!({ "focus": false }));
                }
            }
            KeyCode::Esc => {
                self.run("ultra.focusSidebar", json!({ "focus": false }));
            }
            _ => return false,
        }
        true
    }

    /// The terminal keys go to, when the panel has focus.
    fn terminal_focus(&self) -> Option<String> {
        let tv = &self.view.state.terminal;
        if tv.visible && tv.focused && self.palette.is_none() && self.prompt.is_none() {
            tv.terminal_id.clone()
        } else {
            None
        }
    }

    fn output_key(&mut self, ev: &KeyEvent) {
        let Some(o) = &mut self.output else { return };
        match ev.code {
            KeyCode::Down => o.scroll += 1,
            KeyCode::Up => o.scroll = o.scroll.saturating_sub(1),
            KeyCode::PageDown => o.scroll += 10,
            KeyCode::PageUp => o.scroll = o.scroll.saturating_sub(10),
            _ => self.output = None,
        }
    }

    /// y approves and n denies the oldest pending confirmation; other keys pass.
    fn confirm_key(&mut self, ev: &KeyEvent) -> bool {
        if ev
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return false;
        }
        if self.confirms[0].shown.elapsed() < CONFIRM_GRACE {
            return false;
        }
        let approve = match ev.code {
            KeyCode::Char('y') => true,
            KeyCode::Char('n') => false,
            _ => return false,
        };
        let p = self.confirms.remove(0);
        let cmd = if approve {
            "ultra.confirm.approve"
        } else {
            "ultra.confirm.deny"
        };
        if self.run(cmd, json!({ "id": p.id })).is_some() {
            self.say(format!(
                "{} {} from {}",
                if approve { "approved" } else { "denied" },
                p.command,
                p.who
            ));
        }
        true
    }

    fn prompt_key(&mut self, ev: &KeyEvent) {
        let Some(p) = &mut self.prompt else { return };
        match p.input.key(ev) {
            Outcome::Cancel => self.prompt = None,
            Outcome::Submit if p.accept() => {
                let Some(p) = self.prompt.take() else { return };
                let command = p.command.clone();
                if let Some(data) = self.run(&command, Value::Object(p.args))
                    && let Some(e) = &p.from_palette
                {
                    self.show_result(e, &data);
                }
            }
            _ => {}
        }
    }

    /// Returns false when the key is not the palette's (so bindings still apply).
    fn palette_key(&mut self, ev: &KeyEvent) -> bool {
        let Some(mut p) = self.palette.take() else {
            return false;
        };
        let handled = match p.input.key(ev) {
            Outcome::Edited => {
                self.search_palette(&mut p);
                p.selected = 0;
                p.armed = true;
                true
            }
            Outcome::Up => {
                p.step(false);
                p.armed = true;
                true
            }
            Outcome::Down => {
                p.step(true);
                p.armed = true;
                true
            }
            Outcome::Submit if !p.armed => {
                self.palette = Some(p);
                self.say("an agent opened the palette: pick a command (type or use the arrows) before Enter");
                return true;
            }
            Outcome::Cancel => {
                self.run("ultra.closePalette", json!({}));
                return true;
            }
            Outcome::Submit => {
                let chosen = p.entries.get(p.selected).cloned();
                self.palette = Some(p);
                self.run("ultra.closePalette", json!({}));
                self.palette = None;
                if let Some(e) = chosen {
                    if let Some(data) = self.run(&e.id, json!({})) {
                        self.show_result(&e, &data);
                    } else if let Some(pr) = &mut self.prompt {
                        pr.title = e.title.clone();
                        pr.from_palette = Some(e);
                    }
                }
                return true;
            }
            Outcome::Ignored => matches!(
                ev.code,
                KeyCode::Left | KeyCode::Right | KeyCode::Home | KeyCode::End
            ),
        };
        self.palette = Some(p);
        handled
    }

    /// After a command run from the palette: a query's answer is shown in a panel,
    /// anything else's as a line.
    fn show_result(&mut self, e: &crate::input::Entry, data: &Value) {
        if e.read_only {
            self.output = Some(Output {
                title: e.title.clone(),
                body: serde_json::to_string_pretty(data).unwrap_or_default(),
                scroll: 0,
            });
        } else {
            let text = serde_json::to_string(data).unwrap_or_default();
            let short: String = text.chars().take(120).collect();
            self.say(format!("{}: {short}", e.title));
        }
    }

    fn add_pending(&mut self, p: &Value) {
        let id = p["id"].as_str().unwrap_or_default().to_string();
        if id.is_empty() || self.confirms.iter().any(|c| c.id == id) {
            return;
        }
        let src = &p["source"];
        let who = src["agentId"]
            .as_str()
            .or_else(|| src["type"].as_str())
            .unwrap_or("agent")
            .to_string();
        self.confirms.push(Pending {
            id,
            shown: Instant::now(),
            command: p["command"].as_str().unwrap_or_default().to_string(),
            who,
            reason: p["reason"].as_str().unwrap_or_default().to_string(),
            preview: p["preview"]
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| serde_json::to_string_pretty(&p["args"]).unwrap_or_default()),
        });
    }

    /// An event from the server. Returns whether the screen may have changed.
    pub fn on_event(&mut self, ev: &Event) -> bool {
        let kind = ev.source.as_ref().map(|s| s.kind);
        let who = ev
            .source
            .as_ref()
            .map(|s| {
                s.agent_id
                    .clone()
                    .unwrap_or_else(|| s.kind.as_str().to_string())
            })
            .unwrap_or_else(|| "server".into());
        let from_person = kind == Some(SourceKind::Human);
        match ev.event.as_str() {
            "command.executed" => {
                if from_person {
                    return false;
                }
                let d = &ev.data;
                self.log(format!(
                    "{who} {} {}",
                    d["command"].as_str().unwrap_or("?"),
                    d["outcome"].as_str().unwrap_or("?")
                ));
            }
            "buffer.changed" if !from_person => {
                let d = &ev.data;
                let path = d["path"].as_str().unwrap_or_default().to_string();
                if let Some(l) = d["changedLines"].as_array()
                    && let (Some(a), Some(b)) = (
                        l.first().and_then(Value::as_u64),
                        l.get(1).and_then(Value::as_u64),
                    )
                {
                    self.marks.push(AgentMark {
                        path: path.clone(),
                        lines: (a as usize, b as usize),
                        at: Instant::now(),
                    });
                    self.log(format!("{who} changed {path}:{a}-{b}"));
                } else {
                    self.log(format!("{who} changed {path}"));
                }
            }
            "confirmation.requested" => {
                self.add_pending(&ev.data);
                self.log(format!(
                    "{who} asks to run {}",
                    ev.data["command"].as_str().unwrap_or("?")
                ));
            }
            "confirmation.resolved" => {
                let id = ev.data["id"].as_str().unwrap_or_default();
                self.confirms.retain(|c| c.id != id);
            }
            "ai.progress" => {
                self.log(format!(
                    "{who}: {}",
                    ev.data["message"].as_str().unwrap_or_default()
                ));
            }
            "file.created" | "file.deleted" | "file.renamed" => self.files = None,
            "terminal.output" | "terminal.closed" => {
                let id = ev.data["terminalId"].as_str().unwrap_or_default();
                let Some(t) = self.term.as_mut().filter(|t| t.id == id) else {
                    return false;
                };
                if ev.event == "terminal.output" {
                    t.feed(ev.data["data"].as_str().unwrap_or_default());
                } else {
                    t.exited = Some(ev.data["exitCode"].as_i64());
                }
            }
            "server.closed" => {
                self.message = Some(Message {
                    text: "the server closed the connection".into(),
                    error: true,
                });
            }
            _ => {}
        }
        true
    }

    fn log(&mut self, line: String) {
        if self.agent_log.len() >= 200 {
            self.agent_log.pop_front();
        }
        self.agent_log.push_back(line);
    }
}

/// The bindings in effect (`ultra.keybindings`), as a keymap of this editor's.
fn load_keymap(backend: &mut dyn Backend) -> Result<Keymap, CommandError> {
    let list = backend.call("ultra.keybindings", json!({}))?;
    let entries: Vec<KeybindingConfig> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| {
            Some(KeybindingConfig {
                key: Some(b["key"].as_str()?.to_string()),
                command: b["command"].as_str()?.to_string(),
                when: b["when"].as_str().map(str::to_string),
                args: b.get("args").cloned(),
            })
        })
        .collect();
    Keymap::build(std::iter::empty(), &entries, |_| true).map_err(|e| {
        CommandError::new(
            ErrorCode::InternalError,
            format!("the server's key bindings: {e}"),
        )
    })
}
