//! Find in the buffer (`ultra.find`, `ultra.findNext`) and go to a symbol or definition
//! from the code index (`ultra.goToSymbol`, `ultra.goToDefinition`). Replace is
//! `ultra.replaceText`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode, Position};
use ultra_workspace::buffer::Selection;

use crate::navigation::{Cursors, cursors, is_word, with_buffer, word_at};
use ultra_services::Services;

/// Register the find and go-to commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(Find)?;
    r.register(FindNext)?;
    r.register(GoToSymbol)?;
    r.register(GoToDefinition)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[(
    "src/app.ts",
    "const x = 1;\nconsole.log(x);\nconsole.log(x + 1);\n",
)];
const OPEN: &[(&str, &str)] = &[("ultra.openFile", r#"{"path": "src/app.ts"}"#)];

/// Arguments of `ultra.find`.
// Serialize: the view keeps the last search, as JSON, for `ultra.findNext`.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindArgs {
    /// What to look for.
    pub query: String,
    /// `query` is a regular expression (Rust syntax).
    #[serde(default)]
    pub regex: bool,
    /// Match case (default: ignore case).
    #[serde(default)]
    pub case_sensitive: bool,
    /// Look before the cursor instead of after it.
    #[serde(default)]
    pub backwards: bool,
    /// The file (default: the active buffer).
    pub path: Option<String>,
}

/// Result of a find.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    #[serde(flatten)]
    pub cursors: Cursors,
    /// The search went past the end (or start) and came round.
    pub wrapped: bool,
    /// Matches in the buffer (counted up to 10,000).
    pub total: usize,
}

/// `ultra.find`.
pub struct Find;

impl Command<Services> for Find {
    type Args = FindArgs;
    type Output = Found;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.find",
        "Find",
        "Navigation",
        "Select the next match of `query` after the cursor (before it with `backwards`), wrapping round the buffer; plain text ignoring case unless `regex` or `caseSensitive`. ultra.findNext repeats it.",
    )
    .touches(Touches::READ)
    .keybinding("ctrl+f")
    .examples(&[Example {
        description: "The first console",
        args: r#"{"query": "CONSOLE"}"#,
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"selections": [{"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 7}}], "total": 2, "wrapped": false}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: FindArgs) -> Result<Found, CommandError> {
        let found = find(cx, &a)?;
        cx.services
            .view()
            .set_last_find(serde_json::to_value(&a).unwrap_or_default());
        Ok(found)
    }
}

/// Arguments of `ultra.findNext`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindNextArgs {
    /// Look before the cursor instead of after it.
    #[serde(default)]
    pub backwards: bool,
}

/// `ultra.findNext`.
pub struct FindNext;

impl Command<Services> for FindNext {
    type Args = FindNextArgs;
    type Output = Found;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.findNext",
        "Find Next",
        "Navigation",
        "Repeat the last ultra.find from the cursor (`backwards` for the previous match).",
    )
    .touches(Touches::READ)
    .keybinding("f3")
    .more_keys(&[("shift+f3", r#"{"backwards": true}"#)])
    .examples(&[Example {
        description: "The second console",
        args: "{}",
        files: HELLO,
        setup: &[
            ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
            ("ultra.find", r#"{"query": "console"}"#),
        ],
        expect: Some(r#"{"selections": [{"start": {"line": 2, "character": 0}}]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: FindNextArgs) -> Result<Found, CommandError> {
        let Some(mut last) = cx
            .services
            .view()
            .last_find()
            .and_then(|v| serde_json::from_value::<FindArgs>(v).ok())
        else {
            return Err(
                CommandError::new(ErrorCode::NoMatch, "nothing has been searched for yet")
                    .with_suggestion("search first: ultra.find {\"query\": \"...\"}"),
            );
        };
        last.backwards = a.backwards;
        last.path = None;
        find(cx, &last)
    }
}

fn find(cx: &Cx<'_, Services>, a: &FindArgs) -> Result<Found, CommandError> {
    if a.query.is_empty() || a.query.len() > 10_000 {
        return Err(CommandError::new(
            ErrorCode::InvalidArguments,
            "the query must be 1 to 10,000 bytes",
        )
        .with_suggestion(r#"{"query": "fn main"}"#));
    }
    let pattern = if a.regex {
        a.query.clone()
    } else {
        regex::escape(&a.query)
    };
    let re = regex::RegexBuilder::new(&pattern)
        .case_insensitive(!a.case_sensitive)
        .multi_line(true)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| {
            CommandError::new(
                ErrorCode::InvalidArguments,
                format!("bad regular expression: {e}"),
            )
            .with_suggestion("fix the pattern, or search plain text with regex: false")
        })?;
    with_buffer(cx, a.path.as_deref(), |buf, enc| {
        let text = buf.rope.to_string();
        let (ss, se) = buf.selections[0].span();
        let (from_start, from_end) = (buf.rope.char_to_byte(ss), buf.rope.char_to_byte(se));
        let mut total = 0;
        let mut first = None;
        let mut last = None;
        let mut after = None;
        let mut before = None;
        for m in re.find_iter(&text).filter(|m| !m.as_str().is_empty()) {
            total += 1;
            first.get_or_insert((m.start(), m.end()));
            last = Some((m.start(), m.end()));
            if after.is_none() && m.start() >= from_end {
                after = Some((m.start(), m.end()));
            }
            if m.end() <= from_start || (m.start() < from_start && m.end() <= from_end) {
                before = Some((m.start(), m.end()));
            }
            if total >= 10_000 && after.is_some() {
                break;
            }
        }
        let (hit, wrapped) = if a.backwards {
            match before {
                Some(h) => (Some(h), false),
                None => (last, true),
            }
        } else {
            match after {
                Some(h) => (Some(h), false),
                None => (first, true),
            }
        };
        let Some((s, e)) = hit else {
            return Err(CommandError::new(
                ErrorCode::NoMatch,
                format!("`{}` does not occur in {}", a.query, buf.path),
            )
            .with_suggestion(if a.regex || a.case_sensitive {
                "check the spelling, or search without regex / caseSensitive"
            } else {
                "check the spelling, or search the workspace with shell.grep"
            }));
        };
        buf.selections = vec![Selection {
            anchor: buf.rope.byte_to_char(s),
            head: buf.rope.byte_to_char(e),
        }];
        Ok(Found {
            cursors: cursors(buf, enc),
            wrapped,
            total,
        })
    })
}

// ---------------------------------------------------------------- go to symbol

/// Arguments of `ultra.goToSymbol`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoToSymbolArgs {
    /// The name (a method may be given as `Class.method`).
    pub symbol: String,
}

/// Where a go-to landed.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Landed {
    pub symbol: String,
    pub path: String,
    /// The cursor, 0-based.
    pub cursor: Position,
    /// Other definitions of the same name (path and 1-based line).
    pub others: Vec<(String, u32)>,
}

/// `ultra.goToSymbol`.
pub struct GoToSymbol;

const CODE: &[(&str, &str)] = &[
    (
        "src/service.ts",
        "export class UserService {\n  find(id: string) {\n    return id;\n  }\n}\n",
    ),
    (
        "src/app.ts",
        "import { UserService } from './service';\nconst s = new UserService();\n",
    ),
];

impl Command<Services> for GoToSymbol {
    type Args = GoToSymbolArgs;
    type Output = Landed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.goToSymbol",
        "Go to Symbol in Workspace",
        "Navigation",
        "Open the file defining `symbol` (from the code index) with the cursor on its definition; other definitions of the name are listed. Not found: SYMBOL_NOT_FOUND with near names.",
    )
    .touches(Touches::READ)
    .keybinding("ctrl+t")
    .examples(&[Example {
        description: "A class",
        args: r#"{"symbol": "UserService"}"#,
        files: CODE,
        expect: Some(r#"{"path": "src/service.ts", "cursor": {"line": 0}}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: GoToSymbolArgs) -> Result<Landed, CommandError> {
        go_to(cx, &a.symbol, None)
    }
}

/// `ultra.goToDefinition`.
pub struct GoToDefinition;

/// Arguments of `ultra.goToDefinition`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GoToDefinitionArgs {
    /// The file (default: the active buffer).
    pub path: Option<String>,
}

impl Command<Services> for GoToDefinition {
    type Args = GoToDefinitionArgs;
    type Output = Landed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.goToDefinition",
        "Go to Definition",
        "Navigation",
        "Go to the definition of the word at the cursor (from the code index), preferring one in another place than the cursor.",
    )
    .touches(Touches::READ)
    .keybinding("f12")
    .examples(&[Example {
        description: "From a use of UserService",
        args: "{}",
        files: CODE,
        setup: &[
            ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
            ("ultra.goToLine", r#"{"line": 2, "column": 16}"#),
        ],
        expect: Some(r#"{"symbol": "UserService", "path": "src/service.ts"}"#),
        ..Example::EMPTY
    }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: GoToDefinitionArgs,
    ) -> Result<Landed, CommandError> {
        let (word, here) = with_buffer(cx, a.path.as_deref(), |buf, _| {
            let rope = &buf.rope;
            let at = buf.selections[0].head;
            // `$` is part of a JavaScript name.
            let (s, e) = word_at(rope, at, |c| is_word(c) || c == '$');
            let here = (buf.path.to_string(), rope.char_to_line(at) as u32 + 1);
            Ok((rope.slice(s..e).to_string(), here))
        })?;
        if word.is_empty() {
            return Err(
                CommandError::new(ErrorCode::NoMatch, "no name at the cursor")
                    .with_suggestion("put the cursor on a name, or use ultra.goToSymbol"),
            );
        }
        go_to(cx, &word, Some(here))
    }
}

/// Open the definition of `symbol`, avoiding `here` (path, 1-based line) when there is
/// another.
fn go_to(
    cx: &Cx<'_, Services>,
    symbol: &str,
    here: Option<(String, u32)>,
) -> Result<Landed, CommandError> {
    let (mut defs, near): (Vec<(String, u32)>, Vec<String>) = {
        let (code, _) = cx.services.code(&[]);
        let idx = code.read();
        let (name, found) = ultra_tools::code::tools::definitions_of(&idx, symbol);
        let near = if found.is_empty() {
            idx.similar_names(&name, 5)
        } else {
            Vec::new()
        };
        let defs = found
            .iter()
            .map(|d| (d.file.path.clone(), d.def().line))
            .collect();
        (defs, near)
    };
    if defs.is_empty() {
        return Err(CommandError::new(
            ErrorCode::SymbolNotFound,
            format!("no definition of `{symbol}` in the index"),
        )
        .with_details(serde_json::json!({ "suggestions": near }))
        .with_suggestion(if near.is_empty() {
            "check the spelling, or search text with ultra.find".to_string()
        } else {
            format!("did you mean {}?", near.join(", "))
        }));
    }
    let pick = defs
        .iter()
        .position(|d| Some(d) != here.as_ref())
        .unwrap_or(0);
    let (path, line) = defs.remove(pick);
    let cursor = {
        let mut ws = cx.services.ws();
        let rel = ws.resolve_read(&path, ultra_services::util::is_human(cx))?;
        ws.open_buffer(&rel)?;
        ws.set_active(&rel);
        let buf = ws
            .buffer_mut(&rel)
            .ok_or_else(|| ultra_workspace::WsError::NotFound(path.clone()))?;
        let l = (line.saturating_sub(1) as usize).min(buf.rope.len_lines().saturating_sub(1));
        let at = buf.rope.line_to_char(l);
        let indent = buf
            .rope
            .line(l)
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .count();
        buf.selections = vec![Selection::cursor(at + indent)];
        buf.cursor(cx.source.encoding())
    };
    Ok(Landed {
        symbol: symbol.to_string(),
        path,
        cursor,
        others: defs,
    })
}
