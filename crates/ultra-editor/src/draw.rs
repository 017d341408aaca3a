//! Drawing a frame from the editor's state: tabs, the groups' lines with gutter,
//! highlighting, selections and markers, the sidebar, the agent pane, the status line,
//! and the palette, prompt, output and confirmation overlays.

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Position as TermPos, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, Paragraph, Wrap};
use ultra_protocol::Position;

use crate::app::{App, Group};
use ultra_protocol::view::{Scope, Split, Viewport};

/// Columns of the gutter: a mark, the line number, a space.
pub const GUTTER: usize = 7;
const TAB: usize = 4;

/// Cells a character takes at screen column `at`: tabs reach the next multiple of four,
/// wide (East Asian) characters take two, combining marks none.
fn cells(c: char, at: usize) -> usize {
    if c == '\t' {
        TAB - at % TAB
    } else {
        unicode_width::UnicodeWidthChar::width(c).unwrap_or(1)
    }
}

/// The screen column of character `col` of `text`.
pub fn display_col(text: &str, col: usize) -> usize {
    text.chars().take(col).fold(0, |w, c| w + cells(c, w))
}

fn scope_style(scope: Scope) -> Style {
    let s = Style::default();
    match scope {
        Scope::Keyword => s.fg(Color::Magenta),
        Scope::String | Scope::Escape => s.fg(Color::Green),
        Scope::Comment => s.fg(Color::DarkGray).add_modifier(Modifier::ITALIC),
        Scope::Function => s.fg(Color::Blue),
        Scope::Type | Scope::Module => s.fg(Color::Yellow),
        Scope::Number | Scope::Constant => s.fg(Color::Cyan),
        Scope::Builtin | Scope::Attribute | Scope::Tag => s.fg(Color::Red),
        Scope::Property | Scope::Label => s.fg(Color::LightBlue),
        Scope::Punctuation | Scope::Operator => s.fg(Color::Gray),
        Scope::Variable => s,
    }
}

/// Draw the whole screen.
pub fn draw(f: &mut Frame<'_>, app: &App) {
    let area = f.area();
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
            Constraint::Length(1),
        ])
        .split(area);
    tabs(f, app, rows[0]);
    let mut cols = Vec::new();
    if app.view.state.sidebar {
        cols.push(Constraint::Length(area.width / 5 + 1));
    }
    cols.push(Constraint::Min(1));
    if app.view.state.agent_pane {
        cols.push(Constraint::Length(area.width / 3 + 1));
    }
    let body = Layout::default()
        .direction(Direction::Horizontal)
        .constraints(cols)
        .split(rows[1]);
    let mut i = 0;
    if app.view.state.sidebar {
        sidebar(f, app, body[0]);
        i = 1;
    }
    let panel = app.panel_rows();
    match &app.term {
        Some(t) if panel > 0 => {
            let parts = Layout::default()
                .direction(Direction::Vertical)
                .constraints([Constraint::Min(1), Constraint::Length(panel)])
                .split(body[i]);
            groups(f, app, parts[0]);
            crate::term::draw(f, t, parts[1], app.view.state.terminal.focused);
        }
        _ => groups(f, app, body[i]),
    }
    if app.view.state.agent_pane {
        agent_pane(f, app, body[i + 1]);
    }
    status(f, app, rows[2]);
    bottom(f, app, rows[3]);
    if app.palette.is_some() {
        palette(f, app, area);
    }
    if let Some(o) = &app.output {
        let r = centered(area, 80, 80);
        f.render_widget(Clear, r);
        let p = Paragraph::new(o.body.as_str())
            .scroll((o.scroll as u16, 0))
            .block(
                Block::default()
                    .borders(Borders::ALL)
                    .title(format!(" {} (any key closes) ", o.title)),
            );
        f.render_widget(p, r);
    }
    if let Some(c) = app.confirms.first() {
        let r = centered(area, 80, 70);
        f.render_widget(Clear, r);
        let mut lines = vec![
            Line::from(Span::styled(
                format!("{} asks to run {} ({})", c.who, c.command, c.reason),
                Style::default().add_modifier(Modifier::BOLD),
            )),
            Line::from(""),
        ];
        for l in c.preview.lines().take(200) {
            let style = if l.starts_with('+') && !l.starts_with("+++") {
                Style::default().fg(Color::Green)
            } else if l.starts_with('-') && !l.starts_with("---") {
                Style::default().fg(Color::Red)
            } else if l.starts_with("@@") {
                Style::default().fg(Color::Cyan)
            } else {
                Style::default()
            };
            lines.push(Line::from(Span::styled(l.to_string(), style)));
        }
        let more = if app.confirms.len() > 1 {
            format!(" ({} more waiting)", app.confirms.len() - 1)
        } else {
            String::new()
        };
        let p = Paragraph::new(lines).block(
            Block::default()
                .borders(Borders::ALL)
                .border_style(Style::default().fg(Color::Yellow))
                .title(format!(" Approve? y = approve, n = deny{more} ")),
        );
        f.render_widget(p, r);
    }
}

fn tabs(f: &mut Frame<'_>, app: &App, r: Rect) {
    let mut spans = Vec::new();
    for t in &app.view.tabs {
        let name = t.path.rsplit('/').next().unwrap_or(&t.path);
        let label = format!(" {}{} ", name, if t.dirty { " ●" } else { "" });
        let style = if t.active {
            Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        } else {
            Style::default().fg(Color::Gray)
        };
        spans.push(Span::styled(label, style));
        spans.push(Span::raw("│"));
    }
    if app.view.tabs.is_empty() {
        spans.push(Span::styled(
            " no file open: Ctrl+O opens one, Ctrl+P runs any command ",
            Style::default().fg(Color::DarkGray),
        ));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), r);
}

fn groups(f: &mut Frame<'_>, app: &App, r: Rect) {
    if app.groups.is_empty() {
        return;
    }
    let dir = if app.view.state.split == Split::Horizontal {
        Direction::Vertical
    } else {
        Direction::Horizontal
    };
    let n = app.groups.len() as u32;
    let parts = Layout::default()
        .direction(dir)
        .constraints((0..n).map(|_| Constraint::Ratio(1, n)))
        .split(r);
    for (i, g) in app.groups.iter().enumerate() {
        let mut area = parts[i];
        if i > 0 {
            // A one-cell rule between the groups.
            let rule = if dir == Direction::Horizontal {
                let rule = Rect { width: 1, ..area };
                area.x += 1;
                area.width = area.width.saturating_sub(1);
                rule
            } else {
                let rule = Rect { height: 1, ..area };
                area.y += 1;
                area.height = area.height.saturating_sub(1);
                rule
            };
            f.render_widget(
                Block::default()
                    .borders(if dir == Direction::Horizontal {
                        Borders::LEFT
                    } else {
                        Borders::TOP
                    })
                    .border_style(Style::default().fg(Color::DarkGray)),
                rule,
            );
        }
        group(f, app, g, area, i == 0);
    }
}

/// The character span of `sel` on line `line` (`None` when it does not touch the line).
fn sel_on_line(a: Position, b: Position, line: u32, len: usize) -> Option<(usize, usize)> {
    let (s, e) = if (a.line, a.character) <= (b.line, b.character) {
        (a, b)
    } else {
        (b, a)
    };
    if line < s.line || line > e.line || s == e {
        return None;
    }
    let from = if line == s.line {
        s.character as usize
    } else {
        0
    };
    let to = if line == e.line {
        e.character as usize
    } else {
        len + 1
    };
    Some((from, to))
}

fn group(f: &mut Frame<'_>, app: &App, g: &Group, r: Rect, focused: bool) {
    let port: &Viewport = &g.port;
    let width = (r.width as usize).saturating_sub(GUTTER);
    let mut out: Vec<Line> = Vec::with_capacity(r.height as usize);
    for row in 0..r.height as usize {
        let Some(l) = port.lines.get(row) else {
            out.push(Line::from(Span::styled(
                "~",
                Style::default().fg(Color::DarkGray),
            )));
            continue;
        };
        let n = l.line + 1;
        let agent = app
            .marks
            .iter()
            .any(|m| m.path == port.path && m.lines.0 <= n && n <= m.lines.1);
        let marker = port.markers.iter().find(|m| m.line == l.line);
        let (mark, mstyle) = if marker.is_some() {
            (
                "E",
                Style::default().fg(Color::Red).add_modifier(Modifier::BOLD),
            )
        } else if agent {
            ("▌", Style::default().fg(Color::Magenta))
        } else {
            (" ", Style::default())
        };
        let mut spans = vec![
            Span::styled(mark, mstyle),
            Span::styled(
                format!("{:>5} ", n),
                Style::default().fg(if focused {
                    Color::DarkGray
                } else {
                    Color::Black
                }),
            ),
        ];
        let chars: Vec<char> = l.text.chars().collect();
        let mut styles = vec![Style::default(); chars.len() + 1];
        for s in &l.spans {
            for st in styles.iter_mut().take(s.end.min(chars.len())).skip(s.start) {
                *st = scope_style(s.scope);
            }
        }
        for m in port.markers.iter().filter(|m| m.line == l.line) {
            for st in styles
                .iter_mut()
                .take(m.end.min(chars.len() + 1))
                .skip(m.start)
            {
                *st = st
                    .add_modifier(Modifier::UNDERLINED)
                    .underline_color(Color::Red)
                    .fg(Color::Red);
            }
        }
        for (i, s) in port.selections.iter().enumerate() {
            if let Some((a, b)) = sel_on_line(s.anchor, s.head, l.line as u32, chars.len()) {
                for st in styles.iter_mut().take(b.min(chars.len() + 1)).skip(a) {
                    *st = st.bg(Color::Blue);
                }
            }
            if i > 0 && s.head.line as usize == l.line {
                let c = (s.head.character as usize).min(chars.len());
                styles[c] = styles[c].add_modifier(Modifier::REVERSED);
            }
        }
        // Cells from the left scroll column, tabs expanded.
        let mut col = 0usize;
        let mut run = String::new();
        let mut run_style = Style::default();
        let push = |spans: &mut Vec<Span<'static>>, text: &mut String, style: Style| {
            if !text.is_empty() {
                spans.push(Span::styled(std::mem::take(text), style));
            }
        };
        for (i, c) in chars.iter().chain(std::iter::once(&' ')).enumerate() {
            let w = cells(*c, col);
            let style = styles[i];
            // A character is drawn whole or not at all; a tab as spaces.
            if col >= g.left && col + w <= g.left + width {
                if style != run_style {
                    push(&mut spans, &mut run, run_style);
                    run_style = style;
                }
                if *c == '\t' {
                    run.extend(std::iter::repeat_n(' ', w));
                } else {
                    run.push(*c);
                }
            }
            col += w;
            if col >= g.left + width {
                break;
            }
        }
        push(&mut spans, &mut run, run_style);
        out.push(Line::from(spans));
    }
    f.render_widget(Paragraph::new(out), r);
    let editing =
        (!app.view.state.terminal.focused || app.term.is_none()) && !app.view.state.sidebar_focused;
    if focused
        && editing
        && app.palette.is_none()
        && app.prompt.is_none()
        && app.confirms.is_empty()
    {
        let c = port.cursor();
        if let Some(l) = port.lines.iter().find(|l| l.line == c.line as usize) {
            let x = display_col(&l.text, c.character as usize);
            let row = l.line - port.top;
            if x >= g.left && x < g.left + width && row < r.height as usize {
                f.set_cursor_position(TermPos::new(
                    r.x + (GUTTER + x - g.left) as u16,
                    r.y + row as u16,
                ));
            }
        }
    }
}

fn sidebar(f: &mut Frame<'_>, app: &App, r: Rect) {
    let active = app.view.active.as_deref();
    let focused = app.view.state.sidebar_focused;
    let rows = r.height.saturating_sub(1) as usize;
    let first = if focused {
        app.sidebar_at.saturating_sub(rows.saturating_sub(1))
    } else {
        0
    };
    let items: Vec<ListItem> = app
        .files
        .iter()
        .flatten()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, p)| {
            let mut style = if Some(p.as_str()) == active {
                Style::default()
                    .add_modifier(Modifier::BOLD)
                    .fg(Color::Yellow)
            } else {
                Style::default()
            };
            if focused && i == app.sidebar_at {
                style = style.add_modifier(Modifier::REVERSED);
            }
            ListItem::new(Span::styled(p.clone(), style))
        })
        .collect();
    let title = if focused { "Files (focus)" } else { "Files" };
    f.render_widget(
        List::new(items).block(Block::default().borders(Borders::RIGHT).title(title)),
        r,
    );
}

fn agent_pane(f: &mut Frame<'_>, app: &App, r: Rect) {
    let mut lines: Vec<Line> = Vec::new();
    if let Some(p) = &app.view.state.progress {
        lines.push(Line::from(Span::styled(
            progress_text(p),
            Style::default().fg(Color::Cyan),
        )));
    }
    for c in &app.confirms {
        lines.push(Line::from(Span::styled(
            format!("waiting: {} {}", c.who, c.command),
            Style::default().fg(Color::Yellow),
        )));
    }
    let room = (r.height as usize).saturating_sub(lines.len() + 1);
    let skip = app.agent_log.len().saturating_sub(room);
    for l in app.agent_log.iter().skip(skip) {
        lines.push(Line::from(l.as_str()));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::default().borders(Borders::LEFT).title("Agents")),
        r,
    );
}

fn progress_text(p: &serde_json::Value) -> String {
    let who = p["agentId"]
        .as_str()
        .or_else(|| p["source"].as_str())
        .unwrap_or("agent");
    let step = match (p["step"].as_u64(), p["totalSteps"].as_u64()) {
        (Some(s), Some(t)) => format!(" [{s}/{t}]"),
        _ => String::new(),
    };
    format!("{who}{step}: {}", p["message"].as_str().unwrap_or(""))
}

fn status(f: &mut Frame<'_>, app: &App, r: Rect) {
    let style = Style::default().bg(Color::DarkGray).fg(Color::White);
    let mut left = String::new();
    if let Some(g) = app.groups.first() {
        let p = &g.port;
        let c = p.cursor();
        left.push_str(&format!(
            " {}{}  Ln {}, Col {}",
            p.path,
            if p.dirty { " ●" } else { "" },
            c.line + 1,
            c.character + 1
        ));
        if p.selections.len() > 1 {
            left.push_str(&format!("  {} cursors", p.selections.len()));
        }
        left.push_str(&format!("  {}", p.language));
        if let Some(lc) = &p.last_change {
            let who = match &lc.agent_id {
                Some(a) => format!("{} {a}", lc.source.as_str()),
                None => lc.source.as_str().to_string(),
            };
            left.push_str(&format!("  last change: {who} ({})", lc.command));
        }
    }
    if let Some(p) = &app.view.state.progress {
        left.push_str(&format!("  ⏳ {}", progress_text(p)));
    }
    let right = if app.confirms.is_empty() {
        format!("{} ", app.where_)
    } else {
        format!("{} waiting for you (y/n) ", app.confirms.len())
    };
    let pad = (r.width as usize)
        .saturating_sub(left.chars().count() + right.chars().count())
        .max(2);
    let text = format!("{left}{}{right}", " ".repeat(pad));
    f.render_widget(Paragraph::new(text).style(style), r);
}

fn bottom(f: &mut Frame<'_>, app: &App, r: Rect) {
    if let Some(p) = &app.prompt {
        let field = p.field();
        let label = format!(
            "{} › {}{}: ",
            p.title,
            field.name,
            if field.description.is_empty() {
                String::new()
            } else {
                format!(" ({})", field.description.trim_end_matches('.'))
            }
        );
        let err = p
            .error
            .as_ref()
            .map(|e| format!("   {e}"))
            .unwrap_or_default();
        let line = Line::from(vec![
            Span::styled(label.clone(), Style::default().fg(Color::Yellow)),
            Span::raw(p.input.text.clone()),
            Span::styled(err, Style::default().fg(Color::Red)),
        ]);
        f.render_widget(Paragraph::new(line), r);
        let x = label.chars().count() + p.input.text.chars().take(p.input.cursor).count();
        f.set_cursor_position(TermPos::new(r.x + x.min(r.width as usize) as u16, r.y));
        return;
    }
    if let Some(m) = &app.message {
        let style = if m.error {
            Style::default().fg(Color::Red)
        } else {
            Style::default()
        };
        f.render_widget(Paragraph::new(Span::styled(m.text.clone(), style)), r);
    }
}

fn palette(f: &mut Frame<'_>, app: &App, area: Rect) {
    let Some(p) = &app.palette else { return };
    let width = (area.width * 3 / 5).max(40).min(area.width);
    let height = (area.height / 2).max(5).min(area.height);
    let r = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + 1,
        width,
        height,
    };
    f.render_widget(Clear, r);
    let block = Block::default().borders(Borders::ALL).title(" Commands ");
    let inner = block.inner(r);
    f.render_widget(block, r);
    let input = Line::from(vec![Span::raw("> "), Span::raw(p.input.text.clone())]);
    f.render_widget(Paragraph::new(input), Rect { height: 1, ..inner });
    let rows = inner.height.saturating_sub(1) as usize;
    let first = p.selected.saturating_sub(rows.saturating_sub(1));
    let items: Vec<ListItem> = p
        .entries
        .iter()
        .enumerate()
        .skip(first)
        .take(rows)
        .map(|(i, e)| {
            let keys = app.keys_of(&e.id);
            let text = if e.title.contains(':') || e.category.is_empty() {
                format!("{}  {}  {}", e.title, e.id, keys)
            } else {
                format!("{}: {}  {}  {}", e.category, e.title, e.id, keys)
            };
            let style = if i == p.selected {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            };
            ListItem::new(Line::from(vec![Span::styled(text, style)]))
        })
        .collect();
    f.render_widget(
        List::new(items),
        Rect {
            y: inner.y + 1,
            height: inner.height.saturating_sub(1),
            ..inner
        },
    );
    let x = 2 + p.input.text.chars().take(p.input.cursor).count();
    f.set_cursor_position(TermPos::new(
        inner.x + x.min(inner.width as usize) as u16,
        inner.y,
    ));
}

fn centered(area: Rect, pct_w: u16, pct_h: u16) -> Rect {
    let w = area.width * pct_w / 100;
    let h = area.height * pct_h / 100;
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_widen_to_the_next_stop() {
        assert_eq!(display_col("a\tb", 1), 1);
        assert_eq!(display_col("a\tb", 2), 4);
        assert_eq!(display_col("\t\tx", 2), 8);
        assert_eq!(display_col("héllo", 3), 3);
        assert_eq!(
            display_col("日本語x", 2),
            4,
            "wide characters take two cells"
        );
        assert_eq!(
            display_col("e\u{301}x", 2),
            1,
            "a combining accent takes none"
        );
    }

    #[test]
    fn selections_cover_their_lines() {
        let p = |l, c| Position::new(l, c);
        assert_eq!(sel_on_line(p(1, 2), p(3, 1), 0, 10), None);
        assert_eq!(sel_on_line(p(1, 2), p(3, 1), 1, 10), Some((2, 11)));
        assert_eq!(sel_on_line(p(3, 1), p(1, 2), 2, 5), Some((0, 6)));
        assert_eq!(sel_on_line(p(1, 2), p(3, 1), 3, 10), Some((0, 1)));
        assert_eq!(sel_on_line(p(1, 2), p(1, 2), 1, 10), None);
    }
}
