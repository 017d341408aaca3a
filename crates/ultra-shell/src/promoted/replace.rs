//! `replace`: exact-string replacement in one file, refusing ambiguous matches.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Issue, Promoted, PromotedSpec, Risk, TypedExample, cli};
use ultra_workspace::anchor;

use crate::command::{Cx, Example, Io};

/// `replace`.
pub struct Replace;

/// Longest `old` matched with whitespace tolerance: it becomes a regex, whose compiling
/// costs memory in proportion (a 1 MB `old` took hundreds of MB).
const MAX_LOOSE_OLD: usize = 64 * 1024;

/// Arguments of `replace`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplaceArgs {
    /// The file to change.
    pub file: String,
    /// The exact text to find (not a regex).
    pub old: String,
    /// The text to put in its place.
    pub new: String,
    /// Match `old` only where it is a whole word (not inside a longer identifier).
    #[serde(default)]
    pub whole_word: bool,
    /// Let any run of whitespace in `old` match any run of whitespace in the file
    /// (indentation and line breaks may differ).
    #[serde(default)]
    pub whitespace: bool,
    /// Replace every occurrence; without it, more than one match is an error that lists
    /// where they are.
    #[serde(default)]
    pub all: bool,
}

impl Promoted for Replace {
    type Args = ReplaceArgs;
    const SPEC: PromotedSpec = PromotedSpec {
        name: "replace",
        summary: "Replace exact text in a file (not a regex). Fails if the text is absent, or appears more than once unless --all; -w whole words, -s whitespace-tolerant.",
        usage: "replace [-w] [-s] [--all] FILE OLD NEW",
        cli_examples: &[
            "replace src/app.ts 'oldName' 'newName'",
            "replace -w --all src/lib.rs count total",
        ],
        example: Example {
            args: &["src/main.rs", "main", "start"],
            stdin: "",
            stdout: "replaced 1 occurrence in src/main.rs (line 1)\n",
            status: 0,
        },
        typed_example: TypedExample {
            args: r#"{"file": "f.txt", "old": "a", "new": "z"}"#,
            stdout: "replaced 1 occurrence in f.txt (line 2)\n",
            status: 0,
        },
        max_risk: Risk::WRITE,
    };

    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
        let o = cli::scan(
            args,
            "wsa",
            &[("word", 'w'), ("whitespace", 's'), ("all", 'a')],
        )?;
        let names = ["file", "old", "new"];
        if o.operands.len() < 3 {
            return Err(vec![Issue::new(
                names[o.operands.len()],
                "missing_field",
                format!("replace needs FILE OLD NEW; {} given", o.operands.len()),
            )]);
        }
        if o.operands.len() > 3 {
            return Err(vec![Issue::new(
                "",
                "too_many_arguments",
                "replace takes exactly FILE OLD NEW; quote OLD and NEW when they contain spaces",
            )]);
        }
        Ok(json!({
            "file": o.operands[0],
            "old": o.operands[1],
            "new": o.operands[2],
            "wholeWord": o.has('w'),
            "whitespace": o.has('s'),
            "all": o.has('a'),
        }))
    }

    fn validate(&self, args: &ReplaceArgs) -> Result<(), Vec<Issue>> {
        if args.old.is_empty() || (args.whitespace && args.old.trim().is_empty()) {
            return Err(vec![Issue::new(
                "old",
                "invalid_value",
                "old text is empty",
            )]);
        }
        if args.whitespace && args.old.len() > MAX_LOOSE_OLD {
            return Err(vec![Issue::new(
                "old",
                "too_long",
                format!(
                    "old is {} bytes; whitespace-tolerant matching takes at most {MAX_LOOSE_OLD}",
                    args.old.len()
                ),
            )]);
        }
        Ok(())
    }

    fn risk(&self, _args: &ReplaceArgs) -> Risk {
        Risk::WRITE
    }

    fn execute(&self, args: ReplaceArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let (_, bytes) = match cx.fs.read_file(cx.cwd, &args.file) {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(io.stderr, "replace: {}: {e}", args.file);
                return 1;
            }
        };
        let Ok(text) = String::from_utf8(bytes) else {
            let _ = writeln!(io.stderr, "replace: {}: not UTF-8 text", args.file);
            return 1;
        };
        let spans = find(&text, &args);
        if spans.is_empty() {
            let _ = writeln!(
                io.stderr,
                "replace: {}: text not found{}",
                args.file,
                hint(&text, &args)
            );
            return 1;
        }
        let lines = lines_of(&text, &spans);
        if spans.len() > 1 && !args.all {
            let _ = writeln!(
                io.stderr,
                "replace: {}: {} occurrences (lines {}); add more context to OLD, or pass --all",
                args.file,
                spans.len(),
                list(&lines)
            );
            return 1;
        }
        // `--all` with a short OLD and a long NEW multiplies: refuse before building it.
        let size = text
            .len()
            .saturating_add(spans.len().saturating_mul(args.new.len()));
        if size > cx.fs.room() {
            let _ = writeln!(
                io.stderr,
                "replace: {}: the result would be {size} bytes, past the command's memory limit; replace in smaller parts",
                args.file
            );
            return 1;
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (s, e) in &spans {
            out.push_str(&text[at..*s]);
            // The new text takes the file's line endings where it lands.
            out.push_str(&anchor::fit_eol_in(&text, *s, *e, &args.new));
            at = *e;
        }
        out.push_str(&text[at..]);
        if let Err(e) = cx.fs.write_file(cx.cwd, &args.file, out.as_bytes(), false) {
            let _ = writeln!(io.stderr, "replace: {}: {e}", args.file);
            return 1;
        }
        let n = spans.len();
        let _ = writeln!(
            io.stdout,
            "replaced {n} occurrence{} in {} (line{} {})",
            if n == 1 { "" } else { "s" },
            args.file,
            if n == 1 { "" } else { "s" },
            list(&lines)
        );
        0
    }
}

fn list(lines: &[usize]) -> String {
    let shown: Vec<String> = lines.iter().take(20).map(usize::to_string).collect();
    let more = if lines.len() > 20 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// The 1-based line of each span's start (spans in order: one pass over the text).
fn lines_of(text: &str, spans: &[(usize, usize)]) -> Vec<usize> {
    let bytes = text.as_bytes();
    let (mut line, mut at) = (1, 0);
    spans
        .iter()
        .map(|&(s, _)| {
            line += memchr::memchr_iter(b'\n', &bytes[at..s]).count();
            at = s;
            line
        })
        .collect()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Non-overlapping byte spans of matches, left to right.
fn find(text: &str, args: &ReplaceArgs) -> Vec<(usize, usize)> {
    let candidates: Vec<(usize, usize)> = if args.whitespace {
        let words: Vec<String> = args.old.split_whitespace().map(regex::escape).collect();
        let pattern = words.join(r"\s+");
        match regex::Regex::new(&pattern) {
            Ok(re) => re.find_iter(text).map(|m| (m.start(), m.end())).collect(),
            Err(_) => Vec::new(),
        }
    } else {
        // CRLF and LF are the same to an agent writing `old`.
        anchor::find_ignoring_eol(text, &args.old).0
    };
    candidates
        .into_iter()
        .filter(|&(s, e)| {
            !args.whole_word
                || (!text[..s].chars().next_back().is_some_and(is_word)
                    && !text[e..].chars().next().is_some_and(is_word))
        })
        .collect()
}

/// When nothing matched exactly, say whether a whitespace-tolerant or case-insensitive
/// search would have found it, so the caller knows which flag to reach for.
fn hint(text: &str, args: &ReplaceArgs) -> String {
    if !args.whitespace && args.old.len() <= MAX_LOOSE_OLD {
        let loose = ReplaceArgs {
            file: String::new(),
            old: args.old.clone(),
            new: String::new(),
            whole_word: args.whole_word,
            whitespace: true,
            all: true,
        };
        let n = find(text, &loose).len();
        if n > 0 {
            return format!(
                " exactly, but {n} match{} when whitespace may differ (use -s)",
                if n == 1 { "es" } else { "" }
            );
        }
    }
    if text.to_lowercase().contains(&args.old.to_lowercase()) {
        return " (it appears with different letter case)".to_string();
    }
    String::new()
}
