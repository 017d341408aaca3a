//! Ultra's terminal editor (seed 000's "Ultra - Terminal Code Editor"): the human half of
//! the protocol. Every key press is a registry command run with source `human`, exactly
//! as an agent's call is a command with source `ai`; the screen is drawn from what
//! commands answer (`ultra.getViewState`, `ultra.getViewport`) and redrawn when events
//! say something changed, whoever changed it.
//!
//! `backend.rs` is where commands go (the executor in this process, or `ultra serve`
//! over its socket); `app.rs` is the state between frames and what keys and events do;
//! `input.rs` the palette and argument prompts; `keys.rs` turns terminal key events into
//! keymap keys; `draw.rs` draws a frame; `term.rs` is the terminal panel (a server PTY
//! drawn through a VT parser). The view commands' answers are read into the server's own
//! types, `ultra_protocol::view`.

pub mod app;
pub mod backend;
mod draw;
pub mod input;
pub mod keys;
pub mod term;

use std::io::{self, Write};
use std::sync::mpsc;
use std::time::Duration;

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, Event as TermEvent, KeyEventKind,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use serde_json::json;

pub use app::App;
pub use backend::{Backend, Local, Remote};

/// What wakes the loop.
enum Msg {
    Term(TermEvent),
    Server(ultra_protocol::Event),
    TermGone,
}

/// Put the terminal back however the editor ends (panics included).
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        restore();
    }
}

fn restore() {
    let _ = disable_raw_mode();
    let mut out = io::stdout();
    let _ = crossterm::execute!(
        out,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = out.flush();
}

/// Run the editor on `backend` with `files` (workspace-relative) opened, until the person
/// quits.
pub fn run(backend: Box<dyn Backend>, files: &[String]) -> io::Result<()> {
    let (w, h) = crossterm::terminal::size()?;
    let mut app = App::new(backend, (w, h)).map_err(|e| io::Error::other(e.message))?;
    // A file that does not exist yet opens empty and is written on the first save.
    for f in files {
        app.run("ultra.openFile", json!({ "path": f, "create": true }));
    }
    if let Some(first) = files.first() {
        // The first file named is the one shown.
        app.run("ultra.openFile", json!({ "path": first }));
    }
    let (tx, rx) = mpsc::channel::<Msg>();
    let server_tx = tx.clone();
    app.subscribe(Box::new(move |ev| server_tx.send(Msg::Server(ev)).is_ok()))
        .map_err(|e| io::Error::other(e.message))?;

    enable_raw_mode()?;
    let _restore = Restore;
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        hook(info);
    }));
    // Cleared here rather than with `Terminal::clear`, which first asks the terminal where
    // its cursor is and waits for the answer.
    crossterm::execute!(
        io::stdout(),
        EnterAlternateScreen,
        EnableBracketedPaste,
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All)
    )?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;

    std::thread::Builder::new()
        .name("ultra-editor-input".into())
        .spawn(move || {
            loop {
                match crossterm::event::read() {
                    Ok(ev) => {
                        if tx.send(Msg::Term(ev)).is_err() {
                            return;
                        }
                    }
                    Err(_) => {
                        let _ = tx.send(Msg::TermGone);
                        return;
                    }
                }
            }
        })?;

    let mut stale = true;
    loop {
        if stale {
            app.refresh();
            terminal.draw(|f| draw::draw(f, &app))?;
        }
        if app.quit {
            break;
        }
        // Wait for something, then take everything already queued before drawing again:
        // under a burst of keys or events the screen is drawn once per burst.
        // A tick now and then takes agents' marks off as they age.
        let first = match rx.recv_timeout(Duration::from_secs(1)) {
            Ok(m) => Some(m),
            Err(mpsc::RecvTimeoutError::Timeout) => None,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        stale = first.is_none();
        let mut gone = false;
        for msg in first
            .into_iter()
            .chain(std::iter::from_fn(|| rx.try_recv().ok()))
        {
            match msg {
                Msg::Term(TermEvent::Key(k)) if k.kind != KeyEventKind::Release => {
                    app.on_key(&k);
                    stale = true;
                }
                Msg::Term(TermEvent::Paste(text)) => {
                    app.on_paste(&text);
                    stale = true;
                }
                Msg::Term(TermEvent::Resize(w, h)) => {
                    app.size = (w, h);
                    terminal.autoresize()?;
                    stale = true;
                }
                Msg::Term(_) => {}
                Msg::Server(ev) => stale |= app.on_event(&ev),
                Msg::TermGone => gone = true,
            }
            if app.quit {
                break;
            }
        }
        if gone {
            break;
        }
    }
    drop(terminal);
    Ok(())
}
