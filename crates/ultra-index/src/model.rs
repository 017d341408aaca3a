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
    pub names: Vec<String>,
    /// Every identifier occurrence, in source order (compact: tens of millions fit).
    #[serde(skip)]
    pub occurrences: Vec<Occurrence>,
    pub complexity: Complexity,
    pub todos: Vec<Todo>,
    pub errors: Vec<SyntaxError>,
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

/// One occurrence of an identifier, stored compactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Occurrence {
    /// Index into [`FileIndex::names`].
    pub name: u32,
    pub line: u32,
    pub column: u32,
    pub is_definition: bool,
}

impl FileIndex {
    /// The occurrences of `name` in this file.
    pub fn references_to<'a>(&'a self, name: &str) -> impl Iterator<Item = Reference> + 'a {
        let id = self
            .names
            .binary_search_by(|n| n.as_str().cmp(name))
            .ok()
            .map(|i| i as u32);
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
