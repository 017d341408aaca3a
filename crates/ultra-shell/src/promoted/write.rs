//! `write`: replace a file's content atomically (the tool form of `cat > f <<EOF`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Issue, Promoted, PromotedSpec, Risk, TypedExample, cli};
use ultra_workspace::anchor;

use crate::command::{Cx, Example, Io};

/// `write`.
pub struct Write;

/// Arguments of `write`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WriteArgs {
    /// The file to write, from the working directory (the workspace root for the tool).
    pub path: String,
    /// The new content. On the shell path it may be omitted: stdin is written instead
    /// (`write notes.md <<EOF`).
    pub content: Option<String>,
    /// Append instead of replacing.
    #[serde(default)]
    pub append: bool,
    /// Create missing parent directories (default true).
    #[serde(default = "yes")]
    pub parents: bool,
}

fn yes() -> bool {
    true
}

impl Promoted for Write {
    type Args = WriteArgs;
    const SPEC: PromotedSpec = PromotedSpec {
        name: "write",
        summary: "Write a file atomically (replacing it, or appending with -a), creating parent directories; content comes from the arguments or stdin.",
        usage: "write [-a] [-P] PATH [CONTENT...]   (no CONTENT: stdin is written)",
        cli_examples: &[
            "write notes.md 'hello'",
            "write src/a.rs <<'EOF'\nfn a() {}\nEOF",
        ],
        example: Example {
            args: &["out/new.txt", "hello"],
            stdin: "",
            stdout: "wrote 6 bytes to out/new.txt\n",
            status: 0,
        },
        typed_example: TypedExample {
            args: r#"{"path": "notes.md", "content": "hi\n"}"#,
            stdout: "wrote 3 bytes to notes.md\n",
            status: 0,
        },
        max_risk: Risk::OVERWRITE,
    };

    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
        let o = cli::scan(args, "aP", &[("append", 'a'), ("no-parents", 'P')])?;
        let mut ops = o.operands.iter();
        let Some(path) = ops.next() else {
            return Err(vec![Issue::new(
                "path",
                "missing_field",
                "write needs a PATH",
            )]);
        };
        let rest: Vec<&str> = ops.map(String::as_str).collect();
        let content = if rest.is_empty() {
            Value::Null
        } else {
            // Like echo: the words joined by spaces, with a final newline.
            Value::String(format!("{}\n", rest.join(" ")))
        };
        Ok(json!({
            "path": path,
            "content": content,
            "append": o.has('a'),
            "parents": !o.has('P'),
        }))
    }

    fn validate(&self, args: &WriteArgs) -> Result<(), Vec<Issue>> {
        if args.path.is_empty() {
            return Err(vec![Issue::new("path", "invalid_value", "path is empty")]);
        }
        Ok(())
    }

    fn risk(&self, args: &WriteArgs) -> Risk {
        Risk {
            writes: true,
            destructive: !args.append,
            runs: false,
        }
    }

    fn execute(&self, args: WriteArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let content = match args.content {
            Some(c) => c.into_bytes(),
            None => {
                let mut v = Vec::new();
                if let Err(e) = std::io::Read::read_to_end(io.stdin, &mut v) {
                    let _ = writeln!(io.stderr, "write: stdin: {e}");
                    return 1;
                }
                v
            }
        };
        // Over an existing text file, the new text keeps the file's line endings and BOM.
        let content = match cx.fs.read_file(cx.cwd, &args.path) {
            Ok((_, old)) if !args.append => {
                match (std::str::from_utf8(&old), std::str::from_utf8(&content)) {
                    (Ok(old), Ok(new)) => anchor::fit_whole_str(old, new).into_bytes(),
                    _ => content,
                }
            }
            _ => content,
        };
        let result = if args.append {
            cx.fs
                .resolve_write(cx.cwd, &args.path)
                .and_then(|rel| {
                    if args.parents {
                        cx.fs.root().create_parents(&rel)?;
                    }
                    Ok(rel)
                })
                .and_then(|_| cx.fs.append(cx.cwd, &args.path))
                .and_then(|mut f| {
                    std::io::Write::write_all(&mut f, &content)
                        .and_then(|()| f.commit())
                        .map_err(|e| ultra_workspace::WsError::io("append", &args.path, e))
                })
        } else {
            cx.fs
                .write_file(cx.cwd, &args.path, &content, args.parents)
                .map(|_| ())
        };
        match result {
            Ok(()) => {
                let verb = if args.append { "appended" } else { "wrote" };
                let _ = writeln!(io.stdout, "{verb} {} bytes to {}", content.len(), args.path);
                0
            }
            Err(e) => {
                let _ = writeln!(io.stderr, "write: {}: {e}", args.path);
                1
            }
        }
    }
}
