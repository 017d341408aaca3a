//! Position encodings: the unit a server counts columns in (LSP 3.17 `positionEncoding`),
//! converted to and from byte offsets within a line in one place.

/// The unit of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositionEncoding {
    Utf8,
    Utf16,
    Utf32,
}

impl PositionEncoding {
    /// What the client offers, best first: bytes convert for free.
    pub const OFFERED: [&'static str; 3] = ["utf-8", "utf-32", "utf-16"];

    /// The encoding a server named (UTF-16, the protocol's default, when it named none or
    /// one we do not know).
    pub fn named(name: Option<&str>) -> PositionEncoding {
        match name {
            Some("utf-8") => PositionEncoding::Utf8,
            Some("utf-32") => PositionEncoding::Utf32,
            _ => PositionEncoding::Utf16,
        }
    }

    /// The LSP name.
    pub fn name(self) -> &'static str {
        match self {
            PositionEncoding::Utf8 => "utf-8",
            PositionEncoding::Utf16 => "utf-16",
            PositionEncoding::Utf32 => "utf-32",
        }
    }

    fn units(self, c: char) -> usize {
        match self {
            PositionEncoding::Utf8 => c.len_utf8(),
            PositionEncoding::Utf16 => c.len_utf16(),
            PositionEncoding::Utf32 => 1,
        }
    }

    /// The column of byte offset `byte` in `line` (a byte inside a character counts as
    /// that character's start; past the end, the end).
    pub fn column(self, line: &str, byte: usize) -> u32 {
        let mut col = 0usize;
        for (at, c) in line.char_indices() {
            if at + c.len_utf8() > byte {
                break;
            }
            col += self.units(c);
        }
        u32::try_from(col).unwrap_or(u32::MAX)
    }

    /// The byte offset of column `col` in `line` (a column inside a character, e.g. between
    /// the halves of a UTF-16 surrogate pair, counts as that character's start; past the
    /// end, the end).
    pub fn byte(self, line: &str, col: u32) -> usize {
        let mut units = 0usize;
        for (at, c) in line.char_indices() {
            let next = units + self.units(c);
            if next > col as usize {
                return at;
            }
            units = next;
        }
        line.len()
    }
}

#[cfg(test)]
mod tests {
    use super::PositionEncoding::{self, *};

    #[test]
    fn columns_and_bytes_agree_in_every_encoding() {
        // 1-byte, 2-byte, 3-byte and 4-byte (a surrogate pair in UTF-16) characters.
        let line = "aé€😀z";
        let starts = [0usize, 1, 3, 6, 10, 11];
        let cols = |e: PositionEncoding| starts.map(|b| e.column(line, b));
        assert_eq!(cols(Utf8), [0, 1, 3, 6, 10, 11]);
        assert_eq!(cols(Utf16), [0, 1, 2, 3, 5, 6]);
        assert_eq!(cols(Utf32), [0, 1, 2, 3, 4, 5]);
        for e in [Utf8, Utf16, Utf32] {
            for b in starts {
                assert_eq!(e.byte(line, e.column(line, b)), b, "{e:?} {b}");
            }
            assert_eq!(e.byte(line, 1000), line.len());
        }
        // Inside a character: its start.
        assert_eq!(Utf16.byte(line, 4), 6);
        assert_eq!(Utf8.column(line, 7), 6);
        assert_eq!(PositionEncoding::named(Some("utf-32")), Utf32);
        assert_eq!(PositionEncoding::named(None), Utf16);
    }
}
