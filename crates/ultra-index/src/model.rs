//! What the index knows about one file. Lines are 1-based (as seed 001's tools speak);
//! columns are 0-based byte offsets in the line.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::lang::Lang;

/// Everything extracted from one file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileIndex {
    /// Workspace-relative path.
    pub path: String,
    pub lang: Option<Lang>,
    /// BLAKE3 of the content, hex: unchanged content is not reindexed.
    pub hash: String,
    pub lines: u32,
    pub bytes: u64,
    /// Functions, and methods as `Class.method`.
    pub functions: Vec<Function>,
    /// Classes, structs, interfaces, traits, enums.
    pub classes: Vec<Class>,
    /// Every named definition (functions, classes, types, variables, constants).
    pub definitions: Vec<Definition>,
    pub imports: Vec<Import>,
    /// The distinct identifiers in the file, sorted; [`Occurrence::name`] indexes it.
    /// (Not serialized: the store packs it separately.)
    #[serde(skip)]
    pub names: Names,
    /// Every identifier occurrence, in source order, packed (a workspace has millions).
    #[serde(skip)]
    pub occurrences: Occurrences,
    pub complexity: Complexity,
    pub todos: Vec<Todo>,
    pub errors: Vec<SyntaxError>,
    /// Parsed in outline (`ultra_index::passes::index_outline`): function bodies that
    /// declare nothing were left out, so `errors` has none from inside them.
    pub outline: bool,
    /// Its `functions` and `classes` were left in the store, to keep a large workspace's
    /// index small in memory: they are empty here, and the indexer loads them on demand.
    #[serde(skip)]
    pub details_stored: bool,
}

/// A function or method.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Function {
    pub name: String,
    /// `Class.method` for methods, else the name.
    pub qualified: String,
    pub params: Vec<String>,
    pub is_async: bool,
    pub is_exported: bool,
    pub return_type: Option<String>,
    /// The first line of its doc comment block and the signature, for hovers.
    pub signature: String,
    pub doc: Option<String>,
    pub line_start: u32,
    pub line_end: u32,
}

/// A class-like declaration.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Class {
    pub name: String,
    /// `class`, `struct`, `interface`, `trait`, `enum`, `union`.
    pub kind: String,
    pub methods: Vec<Method>,
    pub properties: Vec<Property>,
    pub is_abstract: bool,
    pub extends: Option<String>,
    pub implements: Vec<String>,
    pub is_exported: bool,
    pub doc: Option<String>,
    pub line_start: u32,
    pub line_end: u32,
}

/// A method as listed in its class.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Method {
    pub name: String,
    pub is_static: bool,
    pub is_async: bool,
    pub params: Vec<String>,
}

/// A field or property.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Property {
    pub name: String,
    pub is_static: bool,
    pub is_readonly: bool,
}

/// What a definition defines (seed 001's `find_definition` types, plus a few).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DefKind {
    Function,
    Method,
    Class,
    Struct,
    Interface,
    Trait,
    Enum,
    Type,
    Variable,
    Const,
    Module,
}

/// A named definition and where its name is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Definition {
    pub name: String,
    pub kind: DefKind,
    pub line: u32,
    pub column: u32,
    /// The last line of the whole definition.
    pub line_end: u32,
    /// The enclosing class-like, for methods and fields.
    pub container: Option<String>,
}

/// An import as written, and the workspace file it names when it resolves to one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Import {
    /// The module specifier as written (`./util`, `crate::a::b`, `os.path`, `"x.h"`).
    pub source: String,
    pub line: u32,
    /// Names brought in, when the syntax lists them.
    pub names: Vec<String>,
    /// The workspace file it resolves to; `None` for external packages.
    pub resolved: Option<String>,
}

/// One occurrence of an identifier.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence {
    /// Index into [`FileIndex::names`].
    pub name: u32,
    pub line: u32,
    pub column: u32,
    pub is_definition: bool,
}

/// A file's distinct identifiers, sorted, in one allocation (a `Vec<String>` would cost a
/// header and an allocation each, for over a million names in a large workspace).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    text: Box<str>,
    /// Where each name ends in `text`.
    ends: Box<[u32]>,
}

impl Names {
    /// Name `i`.
    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.text.get(start..end)
    }

    /// How many names.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// No names.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Where `name` is (the names are sorted).
    pub fn find(&self, name: &str) -> Option<usize> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.get(mid).unwrap_or_default().cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// Every name, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.text.len() + self.ends.len() * 4
    }
}

impl<S: AsRef<str>> FromIterator<S> for Names {
    /// From names in sorted order.
    fn from_iter<I: IntoIterator<Item = S>>(names: I) -> Names {
        let mut text = String::new();
        let mut ends = Vec::new();
        for n in names {
            text.push_str(n.as_ref());
            ends.push(text.len() as u32);
        }
        Names {
            text: text.into_boxed_str(),
            ends: ends.into_boxed_slice(),
        }
    }
}

/// A file's occurrences packed as varints (name index, line as a difference from the
/// previous one, column shifted left by one with the definition flag below): about 4 bytes
/// each where the struct takes 16.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Occurrences {
    bytes: Box<[u8]>,
    len: u32,
}

impl Occurrences {
    /// How many.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// None.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Every occurrence, in source order.
    pub fn iter(&self) -> OccurrenceIter<'_> {
        OccurrenceIter {
            bytes: &self.bytes,
            left: self.len,
            line: 0,
        }
    }

    /// The packed form (for the store).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// From the packed form, checked: `None` unless `bytes` hold exactly `len`
    /// occurrences' worth of varints (three each; every byte below 0x80 ends one). A value
    /// too large for its field ends iteration early; name indexes are checked where they
    /// are used. (Counting bytes is what a warm start can afford for millions of them.)
    pub fn from_bytes(bytes: Vec<u8>, len: u32) -> Option<Occurrences> {
        let ends = bytes.iter().filter(|&&b| b < 0x80).count();
        let whole = bytes.last().is_none_or(|&b| b < 0x80);
        (ends == 3 * len as usize && whole).then(|| Occurrences {
            bytes: bytes.into_boxed_slice(),
            len,
        })
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.bytes.len()
    }
}

impl FromIterator<Occurrence> for Occurrences {
    fn from_iter<I: IntoIterator<Item = Occurrence>>(occurrences: I) -> Occurrences {
        let mut bytes = Vec::new();
        let (mut len, mut line) = (0u32, 0u32);
        for o in occurrences {
            put_varint(&mut bytes, u64::from(o.name));
            // Source order makes lines ascend; a difference either way stays exact.
            let delta = i64::from(o.line) - i64::from(line);
            put_varint(&mut bytes, ((delta << 1) ^ (delta >> 63)) as u64);
            put_varint(
                &mut bytes,
                u64::from(o.column) << 1 | u64::from(o.is_definition),
            );
            line = o.line;
            len += 1;
        }
        Occurrences {
            bytes: bytes.into_boxed_slice(),
            len,
        }
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The occurrences of an [`Occurrences`], decoded one at a time.
pub struct OccurrenceIter<'a> {
    bytes: &'a [u8],
    left: u32,
    line: u32,
}

impl OccurrenceIter<'_> {
    fn varint(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let (&b, rest) = self.bytes.split_first()?;
            self.bytes = rest;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        None
    }
}

impl Iterator for OccurrenceIter<'_> {
    type Item = Occurrence;

    fn next(&mut self) -> Option<Occurrence> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let name = u32::try_from(self.varint()?).ok()?;
        let zigzag = self.varint()?;
        let delta = (zigzag >> 1) as i64 ^ -((zigzag & 1) as i64);
        self.line = u32::try_from(i64::from(self.line) + delta).ok()?;
        let col = self.varint()?;
        Some(Occurrence {
            name,
            line: self.line,
            column: u32::try_from(col >> 1).ok()?,
            is_definition: col & 1 == 1,
        })
    }
}

impl FileIndex {
    /// Leave out the details a store keeps (see [`FileIndex::details_stored`]).
    pub fn drop_details(&mut self) {
        self.functions = Vec::new();
        self.classes = Vec::new();
        self.details_stored = true;
    }

    /// The occurrences of `name` in this file.
    pub fn references_to<'a>(&'a self, name: &str) -> impl Iterator<Item = Reference> + 'a {
        let id = self.names.find(name).map(|i| i as u32);
        let name = name.to_string();
        self.occurrences
            .iter()
            .filter(move |o| Some(o.name) == id)
            .map(move |o| Reference {
                name: name.clone(),
                line: o.line,
                column: o.column,
                is_definition: o.is_definition,
            })
    }
}

/// One occurrence of an identifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reference {
    pub name: String,
    pub line: u32,
    pub column: u32,
    /// The occurrence is the name of a definition.
    pub is_definition: bool,
}

/// Seed 001's complexity metrics for a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Complexity {
    /// Lines of code: non-blank lines that are not only comment.
    pub loc: u32,
    /// Deepest nesting of blocks.
    pub nesting_depth: u32,
    /// 1 + decision points (branches, loops, cases, catches, `&&`, `||`, `?:`).
    pub cyclomatic: u32,
    /// `min(100, loc * 0.4 + nesting * 15 + cyclomatic * 10)`.
    pub score: f64,
}

impl Complexity {
    /// Seed 001's formula, capped at 100 (the seed's scores run 0-100).
    pub fn scored(loc: u32, nesting_depth: u32, cyclomatic: u32) -> Complexity {
        let raw =
            f64::from(loc) * 0.4 + f64::from(nesting_depth) * 15.0 + f64::from(cyclomatic) * 10.0;
        Complexity {
            loc,
            nesting_depth,
            cyclomatic,
            score: (raw.min(100.0) * 10.0).round() / 10.0,
        }
    }

    /// `high` (> 70), `medium` (40-70) or `low` (< 40).
    pub fn band(&self) -> &'static str {
        if self.score > 70.0 {
            "high"
        } else if self.score >= 40.0 {
            "medium"
        } else {
            "low"
        }
    }
}

/// A TODO-style comment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Todo {
    pub line: u32,
    /// `TODO`, `FIXME`, `HACK`, `XXX`, `BUG` or `NOTE`.
    #[serde(rename = "type")]
    pub kind: String,
    pub text: String,
    /// The whole line, trimmed.
    pub context: String,
}

/// A place tree-sitter could not parse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SyntaxError {
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub message: String,
}

#[cfg(test)]
mod packing_tests {
    use super::*;

    #[test]
    fn occurrences_and_names_pack_and_come_back_unchanged() {
        let mut rng = crate::test_rng::Rng(0x1234_5678_9abc_def1);
        let mut next = move |m: u64| rng.below(m as usize) as u64;
        for _ in 0..200 {
            let n = next(300) as usize;
            let mut line = 1 + next(5) as u32;
            let want: Vec<Occurrence> = (0..n)
                .map(|_| {
                    // Mostly ascending, sometimes back, sometimes huge.
                    line = match next(10) {
                        0 => line.saturating_sub(next(3) as u32),
                        1 => u32::MAX - next(4) as u32,
                        _ => line.saturating_add(next(3) as u32),
                    };
                    Occurrence {
                        name: if next(20) == 0 {
                            u32::MAX
                        } else {
                            next(400) as u32
                        },
                        line,
                        column: if next(20) == 0 {
                            u32::MAX
                        } else {
                            next(200) as u32
                        },
                        is_definition: next(4) == 0,
                    }
                })
                .collect();
            let packed: Occurrences = want.iter().copied().collect();
            assert_eq!(packed.len(), n);
            assert_eq!(packed.iter().collect::<Vec<_>>(), want);
            let again = Occurrences::from_bytes(packed.as_bytes().to_vec(), n as u32).unwrap();
            assert_eq!(again, packed);
            // A byte short, or one more claimed than held, is refused.
            if n > 0 {
                let short = packed.as_bytes()[..packed.as_bytes().len() - 1].to_vec();
                assert!(Occurrences::from_bytes(short, n as u32).is_none());
                assert!(
                    Occurrences::from_bytes(packed.as_bytes().to_vec(), n as u32 + 1).is_none()
                );
            }
            // Garbage never panics: iteration ends where the bytes stop making sense.
            let junk: Vec<u8> = (0..n * 3).map(|_| next(256) as u8).collect();
            if let Some(o) = Occurrences::from_bytes(junk, n as u32) {
                assert!(o.iter().count() <= n);
            }
        }
        let mut words = vec!["", "a", "b", "clone", "é", "zz"];
        words.sort();
        let names: Names = words.iter().collect();
        assert_eq!(names.iter().collect::<Vec<_>>(), words);
        for (i, w) in words.iter().enumerate() {
            assert_eq!(names.find(w), Some(i));
        }
        assert_eq!(names.find("c"), None);
        assert_eq!(names.get(6), None);
    }
}
