//! Text helpers over ropes: position conversion, hashing, language ids.
//!
//! Positions are 0-based lines and Unicode-scalar character offsets. A character offset past
//! the end of its line clamps to the line end (as LSP does); a line past the end is an error.

use ropey::Rope;
use ultra_protocol::{Position, PositionEncoding};

use crate::error::WsError;

/// Characters in `line` excluding its line ending.
pub fn line_len(rope: &Rope, line: usize) -> usize {
    let slice = rope.line(line);
    let mut n = slice.len_chars();
    if n > 0 && slice.char(n - 1) == '\n' {
        n -= 1;
        if n > 0 && slice.char(n - 1) == '\r' {
            n -= 1;
        }
    }
    n
}

/// The char index of a position whose `character` counts in `enc`. A character past the
/// end of its line clamps to the line end; an offset inside a multi-unit character rounds
/// down to that character.
pub fn to_char(rope: &Rope, pos: Position, enc: PositionEncoding) -> Result<usize, WsError> {
    let line = pos.line as usize;
    let lines = rope.len_lines();
    if line >= lines {
        return Err(WsError::InvalidPosition(format!(
            "line {line} is past the end: the buffer has {lines} lines (0-based, last is {})",
            lines - 1
        )));
    }
    let start = rope.line_to_char(line);
    let len = line_len(rope, line);
    let n = pos.character as usize;
    let col = match enc {
        PositionEncoding::Utf32 => n.min(len),
        PositionEncoding::Utf16 => {
            let base = rope.char_to_utf16_cu(start);
            let end = rope.char_to_utf16_cu(start + len);
            rope.utf16_cu_to_char((base + n).min(end)) - start
        }
        PositionEncoding::Utf8 => {
            let base = rope.char_to_byte(start);
            let end = rope.char_to_byte(start + len);
            rope.byte_to_char((base + n).min(end)) - start
        }
    };
    Ok(start + col.min(len))
}

/// The position of a char index, its `character` counted in `enc`.
pub fn to_pos(rope: &Rope, idx: usize, enc: PositionEncoding) -> Position {
    let idx = idx.min(rope.len_chars());
    let line = rope.char_to_line(idx);
    let start = rope.line_to_char(line);
    let col = match enc {
        PositionEncoding::Utf32 => idx - start,
        PositionEncoding::Utf16 => rope.char_to_utf16_cu(idx) - rope.char_to_utf16_cu(start),
        PositionEncoding::Utf8 => rope.char_to_byte(idx) - rope.char_to_byte(start),
    };
    Position::new(line as u32, col as u32)
}

/// The BLAKE3 hash of the content, hex.
pub fn hash_rope(rope: &Rope) -> String {
    let mut h = blake3::Hasher::new();
    for chunk in rope.chunks() {
        h.update(chunk.as_bytes());
    }
    h.finalize().to_hex().to_string()
}

/// The BLAKE3 hash of bytes, hex.
pub fn hash_bytes(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The LSP language id for a path, from its extension or name.
pub fn language_of(path: &str) -> &'static str {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "rs" => "rust",
        "py" | "pyi" => "python",
        "ts" | "mts" | "cts" => "typescript",
        "tsx" => "typescriptreact",
        "js" | "mjs" | "cjs" => "javascript",
        "jsx" => "javascriptreact",
        "go" => "go",
        "java" => "java",
        "c" | "h" => "c",
        "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" => "cpp",
        "json" => "json",
        "md" | "markdown" => "markdown",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "html" | "htm" => "html",
        "css" => "css",
        "sh" | "bash" => "shellscript",
        "sql" => "sql",
        "rb" => "ruby",
        "php" => "php",
        "kt" | "kts" => "kotlin",
        "swift" => "swift",
        "cs" => "csharp",
        "xml" => "xml",
        _ => match name {
            "Makefile" | "makefile" | "GNUmakefile" => "makefile",
            "Dockerfile" => "dockerfile",
            _ => "plaintext",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_and_clamp() {
        let u = PositionEncoding::Utf32;
        let r = Rope::from_str("héllo\r\nwörld\n");
        assert_eq!(to_char(&r, Position::new(1, 2), u).unwrap(), 9);
        assert_eq!(to_pos(&r, 9, u), Position::new(1, 2));
        assert_eq!(to_char(&r, Position::new(0, 99), u).unwrap(), 5);
        assert_eq!(to_char(&r, Position::new(2, 0), u).unwrap(), r.len_chars());
        assert!(to_char(&r, Position::new(3, 0), u).is_err());
    }

    #[test]
    fn utf16_and_utf8_columns() {
        // "a😀b": the emoji is 1 scalar, 2 UTF-16 units, 4 UTF-8 bytes.
        let r = Rope::from_str("a😀b\n");
        let (u16, u8) = (PositionEncoding::Utf16, PositionEncoding::Utf8);
        assert_eq!(to_char(&r, Position::new(0, 3), u16).unwrap(), 2);
        assert_eq!(to_pos(&r, 2, u16), Position::new(0, 3));
        assert_eq!(to_char(&r, Position::new(0, 5), u8).unwrap(), 2);
        assert_eq!(to_pos(&r, 2, u8), Position::new(0, 5));
        // Inside the surrogate pair / the UTF-8 sequence: rounds down to the emoji.
        assert_eq!(to_char(&r, Position::new(0, 2), u16).unwrap(), 1);
        assert_eq!(to_char(&r, Position::new(0, 3), u8).unwrap(), 1);
        // Past the end clamps.
        assert_eq!(to_char(&r, Position::new(0, 99), u16).unwrap(), 3);
    }

    #[test]
    fn languages() {
        assert_eq!(language_of("src/main.rs"), "rust");
        assert_eq!(language_of("a/Makefile"), "makefile");
        assert_eq!(language_of("x.unknown"), "plaintext");
    }
}
