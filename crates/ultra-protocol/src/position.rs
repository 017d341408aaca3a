//! Positions, ranges and locations.
//!
//! `Position` is 0-based (seed 003). `column` is accepted as an alias of `character`
//! (seed 000). Characters count Unicode scalar values.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A 0-based position.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// 0-based line.
    pub line: u32,
    /// 0-based, in Unicode scalar values (alias: `column`).
    #[serde(alias = "column")]
    pub character: u32,
}

impl Position {
    /// A position from a 0-based line and character.
    pub const fn new(line: u32, character: u32) -> Position {
        Position { line, character }
    }
}

/// A half-open range `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub start: Position,
    pub end: Position,
}

impl Range {
    /// A range between two positions.
    pub const fn new(start: Position, end: Position) -> Range {
        Range { start, end }
    }

    /// An empty range at `pos`.
    pub const fn point(pos: Position) -> Range {
        Range {
            start: pos,
            end: pos,
        }
    }
}

/// A range inside a workspace file, the path relative to the workspace root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Location {
    pub path: String,
    pub range: Range,
}

/// How `Position.character` counts: Unicode scalar values (the default), UTF-16 code units
/// (what LSP clients and JavaScript use) or UTF-8 bytes. Names as in LSP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, JsonSchema)]
pub enum PositionEncoding {
    #[default]
    #[serde(rename = "utf-32")]
    Utf32,
    #[serde(rename = "utf-16")]
    Utf16,
    #[serde(rename = "utf-8")]
    Utf8,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_is_an_alias_and_unknown_fields_are_refused() {
        let p: Position = serde_json::from_str(r#"{"line": 1, "column": 2}"#).unwrap();
        assert_eq!(p, Position::new(1, 2));
        assert!(
            serde_json::from_str::<Position>(r#"{"line": 0, "character": 0, "zz": 1}"#).is_err()
        );
        assert!(serde_json::from_str::<Range>(r#"{"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}, "x": 1}"#).is_err());
    }
}
