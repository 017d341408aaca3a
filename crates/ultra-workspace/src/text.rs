//! Text helpers over ropes: position conversion, hashing, language ids.
//!
//! Positions are 0-based lines and Unicode-scalar character offsets. A character offset past
//! the end of its line clamps to the line end (as LSP does); a line past the end is an error.

use ropey::Rope;
use ultra_protocol::{Position, PositionEncoding};

use crate::error::WsError;

/// Characters in `line` excluding its line ending.
pub fn line_len(rope: &Rope, line: usize) -> usize {
    let start = rope.line_to_char(line);
    content_len(rope, start, rope.line_to_char(line + 1))
}

/// Characters of the line spanning chars `start..end`, less a final `\n` or `\r\n`.
/// Index lookups only (O(log n)): building a `RopeSlice` of the line and indexing into it
/// costs time proportional to the line's length.
fn content_len(rope: &Rope, start: usize, end: usize) -> usize {
    let mut n = end - start;
    if n > 0 && rope.char(start + n - 1) == '\n' {
        n -= 1;
        if n > 0 && rope.char(start + n - 1) == '\r' {
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
    let len = content_len(rope, start, rope.line_to_char(line + 1));
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
    // Rope chunks are about 1 KiB. BLAKE3 hashes many 1 KiB blocks at once (SIMD) only when
    // one `update` gets them together; fed chunk by chunk it runs one block at a time,
    // several times slower. So chunks are gathered into larger pieces first.
    const PIECE: usize = 64 << 10;
    let mut h = blake3::Hasher::new();
    let mut piece = Vec::with_capacity(PIECE.min(rope.len_bytes()));
    for chunk in rope.chunks() {
        let bytes = chunk.as_bytes();
        if piece.len() + bytes.len() > PIECE {
            h.update(&piece);
            piece.clear();
        }
        piece.extend_from_slice(bytes);
    }
    h.update(&piece);
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
    fn line_lengths_ignore_the_line_ending() {
        let r = Rope::from_str("ab\r\ncd\nxyz");
        assert_eq!(
            (0..r.len_lines())
                .map(|l| line_len(&r, l))
                .collect::<Vec<_>>(),
            [2, 2, 3]
        );
        let r = Rope::from_str("one\n");
        assert_eq!((line_len(&r, 0), line_len(&r, 1)), (3, 0));
        assert_eq!(line_len(&Rope::new(), 0), 0);
        // A long line spanning many rope chunks.
        let long = format!("{}\r\nend", "é".repeat(50_000));
        let r = Rope::from_str(&long);
        assert_eq!((line_len(&r, 0), line_len(&r, 1)), (50_000, 3));
        assert_eq!(
            to_char(&r, Position::new(0, 60_000), PositionEncoding::Utf32).unwrap(),
            50_000
        );
    }

    #[test]
    fn rope_hash_matches_the_bytes_hash() {
        for len in [0, 10, 1023, 1024, 70_000, 300_001] {
            let text: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            // Build from pieces so the rope's chunk boundaries fall in odd places.
            let mut r = Rope::new();
            for (i, part) in text.as_bytes().chunks(777).enumerate() {
                let at = if i % 2 == 0 {
                    r.len_chars()
                } else {
                    r.len_chars() / 2
                };
                r.insert(at, std::str::from_utf8(part).unwrap());
            }
            assert_eq!(
                hash_rope(&r),
                hash_bytes(r.to_string().as_bytes()),
                "len {len}"
            );
        }
    }

    #[test]
    fn languages() {
        assert_eq!(language_of("src/main.rs"), "rust");
        assert_eq!(language_of("a/Makefile"), "makefile");
        assert_eq!(language_of("x.unknown"), "plaintext");
    }
}
