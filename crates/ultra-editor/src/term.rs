//! The terminal panel: a PTY of the server's (`terminal.create`, the WebSocket issue's
//! terminal service), drawn here through a VT parser fed by its `terminal.output` events.
//! While the panel has focus, keys go to the terminal with `terminal.sendText`, except
//! the few that must still reach the editor ([`KEEPS`]).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

/// Commands whose keys the editor keeps while the terminal has focus (as VS Code's
/// `commandsToSkipShell`); a user binding whose when-clause names `terminalFocus` is
/// kept too.
pub const KEEPS: &[&str] = &[
    "ultra.toggleTerminal",
    "ultra.focusTerminal",
    "ultra.commandPalette",
    "ultra.quit",
];

/// Lines of scrollback the parser keeps.
const SCROLLBACK: usize = 1000;

/// One terminal on this screen.
pub struct TermPane {
    pub id: String,
    parser: vt100::Parser,
    pub exited: Option<Option<i64>>,
}

fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n.max(1)).unwrap_or(std::num::NonZeroU16::MIN)
}

impl TermPane {
    /// A pane for terminal `id` of `rows` x `cols`.
    pub fn new(id: &str, rows: u16, cols: u16) -> TermPane {
        TermPane {
            id: id.to_string(),
            parser: vt100::Parser::new(nz(rows), nz(cols), SCROLLBACK),
            exited: None,
        }
    }

    /// Output the terminal printed.
    pub fn feed(&mut self, data: &str) {
        self.parser.process(data.as_bytes());
    }

    /// The size the parser draws at.
    pub fn size(&self) -> (u16, u16) {
        let (r, c) = self.parser.screen().size();
        (r.get(), c.get())
    }

    /// Draw at a new size.
    pub fn resize(&mut self, rows: u16, cols: u16) {
        self.parser.set_size(nz(rows), nz(cols));
    }

    /// What the screen shows, as text (for tests and the agent pane).
    pub fn contents(&self) -> String {
        self.parser.screen().contents()
    }
}

fn color(c: vt100::Color) -> Color {
    match c {
        vt100::Color::Default => Color::Reset,
        vt100::Color::Idx(i) => Color::Indexed(i),
        vt100::Color::Rgb(r, g, b) => Color::Rgb(r, g, b),
    }
}

/// Draw the pane in `r` (a border line on top); the cursor goes there when it has focus.
pub fn draw(f: &mut Frame<'_>, pane: &TermPane, r: Rect, focused: bool) {
    let title = match pane.exited {
        Some(code) => format!(
            " Terminal {} (exited{}) ",
            pane.id,
            code.map(|c| format!(" {c}")).unwrap_or_default()
        ),
        None if focused => format!(" Terminal {} (Alt+J: back to the editor) ", pane.id),
        None => format!(" Terminal {} (Alt+J: focus) ", pane.id),
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .border_style(Style::default().fg(if focused {
            Color::Yellow
        } else {
            Color::DarkGray
        }))
        .title(title);
    let inner = block.inner(r);
    f.render_widget(block, r);
    let screen = pane.parser.screen();
    let mut lines = Vec::with_capacity(inner.height as usize);
    for row in 0..inner.height {
        let mut spans: Vec<Span> = Vec::new();
        let mut run = String::new();
        let mut run_style = Style::default();
        for col in 0..inner.width {
            let Some(cell) = screen.cell(row, col) else {
                break;
            };
            if cell.is_wide_continuation() {
                continue;
            }
            let mut style = Style::default()
                .fg(color(cell.fgcolor()))
                .bg(color(cell.bgcolor()));
            if cell.bold() {
                style = style.add_modifier(Modifier::BOLD);
            }
            if cell.italic() {
                style = style.add_modifier(Modifier::ITALIC);
            }
            if cell.underline() {
                style = style.add_modifier(Modifier::UNDERLINED);
            }
            if cell.inverse() {
                style = style.add_modifier(Modifier::REVERSED);
            }
            if style != run_style && !run.is_empty() {
                spans.push(Span::styled(std::mem::take(&mut run), run_style));
            }
            run_style = style;
            if cell.has_contents() {
                run.push_str(cell.contents());
            } else {
                run.push(' ');
            }
        }
        if !run.is_empty() {
            spans.push(Span::styled(run, run_style));
        }
        lines.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(lines), inner);
    if focused && !screen.hide_cursor() {
        let (row, col) = screen.cursor_position();
        if row < inner.height && col < inner.width {
            f.set_cursor_position(Position::new(inner.x + col, inner.y + row));
        }
    }
}

/// The bytes a key sends to a program in a terminal (xterm's encoding).
pub fn key_bytes(ev: &KeyEvent) -> Option<Vec<u8>> {
    let ctrl = ev.modifiers.contains(KeyModifiers::CONTROL);
    let alt = ev.modifiers.contains(KeyModifiers::ALT);
    let mut out: Vec<u8> = match ev.code {
        KeyCode::Char(c) if ctrl && c.is_ascii_alphabetic() => {
            vec![(c.to_ascii_lowercase() as u8) & 0x1f]
        }
        KeyCode::Char(' ') if ctrl => vec![0],
        KeyCode::Char(c) => c.to_string().into_bytes(),
        KeyCode::Enter => b"\r".to_vec(),
        KeyCode::Tab => b"\t".to_vec(),
        KeyCode::BackTab => b"\x1b[Z".to_vec(),
        KeyCode::Backspace => vec![0x7f],
        KeyCode::Esc => vec![0x1b],
        KeyCode::Up => b"\x1b[A".to_vec(),
        KeyCode::Down => b"\x1b[B".to_vec(),
        KeyCode::Right => b"\x1b[C".to_vec(),
        KeyCode::Left => b"\x1b[D".to_vec(),
        KeyCode::Home => b"\x1b[H".to_vec(),
        KeyCode::End => b"\x1b[F".to_vec(),
        KeyCode::Insert => b"\x1b[2~".to_vec(),
        KeyCode::Delete => b"\x1b[3~".to_vec(),
        KeyCode::PageUp => b"\x1b[5~".to_vec(),
        KeyCode::PageDown => b"\x1b[6~".to_vec(),
        KeyCode::F(n @ 1..=4) => format!("\x1bO{}", (b'P' + n - 1) as char).into_bytes(),
        KeyCode::F(n @ 5..=12) => {
            let code = [15, 17, 18, 19, 20, 21, 23, 24][usize::from(n - 5)];
            format!("\x1b[{code}~").into_bytes()
        }
        _ => return None,
    };
    if alt {
        out.insert(0, 0x1b);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode, m: KeyModifiers) -> Vec<u8> {
        key_bytes(&KeyEvent::new(code, m)).expect("bytes")
    }

    #[test]
    fn keys_encode_as_xterm_does() {
        assert_eq!(k(KeyCode::Char('c'), KeyModifiers::CONTROL), [3]);
        assert_eq!(k(KeyCode::Char('é'), KeyModifiers::NONE), "é".as_bytes());
        assert_eq!(k(KeyCode::Enter, KeyModifiers::NONE), b"\r");
        assert_eq!(k(KeyCode::Up, KeyModifiers::NONE), b"\x1b[A");
        assert_eq!(k(KeyCode::Char('b'), KeyModifiers::ALT), b"\x1bb");
        assert_eq!(k(KeyCode::F(1), KeyModifiers::NONE), b"\x1bOP");
        assert_eq!(k(KeyCode::F(12), KeyModifiers::NONE), b"\x1b[24~");
        assert_eq!(k(KeyCode::Backspace, KeyModifiers::NONE), [0x7f]);
    }

    #[test]
    fn output_lands_on_the_screen() {
        let mut p = TermPane::new("term-1", 5, 20);
        p.feed("$ echo hi\r\nhi\r\n\x1b[31mred\x1b[0m");
        let text = p.contents();
        assert!(text.contains("$ echo hi\nhi\nred"), "{text:?}");
        p.resize(10, 40);
        assert_eq!(p.size(), (10, 40));
    }
}
