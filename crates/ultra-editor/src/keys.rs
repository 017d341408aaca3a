//! Terminal key events as keymap keys (`ctrl+s`, `shift+up`, `f12`).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ultra_core::keymap::Key;

/// The keymap key of a press, or `None` for keys the keymap has no name for.
pub fn key_of(ev: &KeyEvent) -> Option<Key> {
    let m = ev.modifiers;
    let mut key = Key {
        ctrl: m.contains(KeyModifiers::CONTROL),
        alt: m.contains(KeyModifiers::ALT),
        shift: m.contains(KeyModifiers::SHIFT),
        meta: m.contains(KeyModifiers::SUPER) || m.contains(KeyModifiers::META),
        code: String::new(),
    };
    key.code = match ev.code {
        KeyCode::Char(' ') => "space".into(),
        KeyCode::Char(c) => {
            // Terminals send Ctrl+\ ] ^ _ as the bytes crossterm reads as Ctrl+4..7.
            let c = match (key.ctrl, c) {
                (true, '4') => '\\',
                (true, '5') => ']',
                (true, '6') => '^',
                (true, '7') => '_',
                _ => c,
            };
            // Shift is already in the character (`A`, `?`) unless a modifier is held too.
            if !key.ctrl && !key.alt {
                key.shift = false;
            } else if c.is_uppercase() {
                key.shift = true;
            }
            c.to_lowercase().to_string()
        }
        KeyCode::Enter => "enter".into(),
        KeyCode::Esc => "escape".into(),
        KeyCode::Tab => "tab".into(),
        KeyCode::BackTab => {
            key.shift = true;
            "tab".into()
        }
        KeyCode::Backspace => "backspace".into(),
        KeyCode::Delete => "delete".into(),
        KeyCode::Insert => "insert".into(),
        KeyCode::Home => "home".into(),
        KeyCode::End => "end".into(),
        KeyCode::PageUp => "pageup".into(),
        KeyCode::PageDown => "pagedown".into(),
        KeyCode::Up => "up".into(),
        KeyCode::Down => "down".into(),
        KeyCode::Left => "left".into(),
        KeyCode::Right => "right".into(),
        KeyCode::F(n) => format!("f{n}"),
        _ => return None,
    };
    Some(key)
}

/// The text a press types, when it types (no Ctrl or Alt).
pub fn typed(ev: &KeyEvent) -> Option<char> {
    match ev.code {
        KeyCode::Char(c)
            if !ev
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            Some(c)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode, m: KeyModifiers) -> String {
        key_of(&KeyEvent::new(code, m)).expect("key").to_string()
    }

    #[test]
    fn presses_name_the_keys_bindings_use() {
        assert_eq!(k(KeyCode::Char('s'), KeyModifiers::CONTROL), "ctrl+s");
        assert_eq!(k(KeyCode::Char('A'), KeyModifiers::SHIFT), "a");
        assert_eq!(
            k(
                KeyCode::Char('P'),
                KeyModifiers::CONTROL | KeyModifiers::SHIFT
            ),
            "ctrl+shift+p"
        );
        assert_eq!(k(KeyCode::Char('4'), KeyModifiers::CONTROL), "ctrl+\\");
        assert_eq!(k(KeyCode::Up, KeyModifiers::SHIFT), "shift+up");
        assert_eq!(k(KeyCode::BackTab, KeyModifiers::NONE), "shift+tab");
        assert_eq!(k(KeyCode::F(12), KeyModifiers::NONE), "f12");
        assert_eq!(k(KeyCode::Char(' '), KeyModifiers::CONTROL), "ctrl+space");
        assert_eq!(k(KeyCode::PageDown, KeyModifiers::CONTROL), "ctrl+pagedown");
    }

    #[test]
    fn only_plain_characters_type() {
        assert_eq!(
            typed(&KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE)),
            Some('x')
        );
        assert_eq!(
            typed(&KeyEvent::new(KeyCode::Char('X'), KeyModifiers::SHIFT)),
            Some('X')
        );
        assert_eq!(
            typed(&KeyEvent::new(KeyCode::Char('x'), KeyModifiers::CONTROL)),
            None
        );
        assert_eq!(
            typed(&KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
            None
        );
    }
}
