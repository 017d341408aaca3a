//! Word expansion: parameters (with POSIX's `${X op word}` operators), command
//! substitution, `$((...))`, field splitting of unquoted results, and pathname expansion.

use std::io::Write;

use super::glob::{self, PatChar};
use super::{Env, Flow, MAX_EXPANSION, MAX_GLOB, Shell, Streams, arith};
use crate::plan::Plan;
use crate::syntax::ast::{ParamOp, Script, Word, WordPart};

/// What expanding a command's words reads and reports: the state, where substitutions'
/// errors go, and the status of the last substitution (`x=$(false)` leaves 1 in `$?`).
pub(super) struct Ex<'a> {
    pub env: &'a Env,
    pub plan: Option<&'a Plan>,
    pub stderr: &'a mut (dyn Write + Send),
    pub status: Option<i32>,
    /// The error ends the script (`set -u` and an unset variable).
    pub fatal: bool,
}

impl<'a> Ex<'a> {
    pub fn new(env: &'a Env, plan: Option<&'a Plan>, stderr: &'a mut (dyn Write + Send)) -> Self {
        Ex {
            env,
            plan,
            stderr,
            status: None,
            fatal: false,
        }
    }
}

/// A substitution's output, collected up to [`MAX_EXPANSION`] bytes.
struct Captured {
    buf: Vec<u8>,
    over: bool,
}

impl Write for Captured {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + b.len() > MAX_EXPANSION {
            self.over = true;
            return Err(std::io::Error::other(
                "the substitution's output is over its limit",
            ));
        }
        self.buf.extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Longest value `${X%pattern}` and `${X#pattern}` trim (file names and paths fit).
const MAX_TRIMMED: usize = 4096;
/// Longest pattern they take.
const MAX_TRIM_PATTERN: usize = 256;

/// Whether parameter `name` is set (`$@` and `$*` count as set when there are arguments).
fn is_set(name: &str, env: &Env) -> bool {
    match name {
        "?" | "#" | "$" | "0" => true,
        "@" | "*" => !env.args.is_empty(),
        _ => match name.parse::<usize>() {
            Ok(n) => n >= 1 && n <= env.args.len(),
            Err(_) => env.vars.contains_key(name),
        },
    }
}

/// A field being built: pattern characters, and whether any part was quoted (a quoted
/// empty field stays; an unquoted empty one disappears).
#[derive(Default)]
struct Field {
    chars: Vec<PatChar>,
    quoted: bool,
}

/// The fields one word expands to.
struct Fields {
    list: Vec<Field>,
    /// Some part may hold glob characters.
    glob: bool,
}

impl Fields {
    fn last(&mut self) -> &mut Field {
        if self.list.is_empty() {
            self.list.push(Field::default());
        }
        let n = self.list.len() - 1;
        &mut self.list[n]
    }

    fn push(&mut self, text: &str, quoted: bool) {
        let f = self.last();
        f.quoted |= quoted;
        f.chars.extend(text.chars().map(PatChar::Lit));
    }

    /// Unquoted text whose `*`, `?` and brackets are glob characters.
    fn push_pattern(&mut self, pattern: &str) {
        self.glob = true;
        let mut in_bracket = false;
        self.last().chars.extend(pattern.chars().map(|c| {
            let meta =
                matches!(c, '*' | '?' | '[') || (in_bracket && matches!(c, ']' | '!' | '^' | '-'));
            if c == '[' {
                in_bracket = true;
            } else if c == ']' {
                in_bracket = false;
            }
            if meta {
                PatChar::Meta(c)
            } else {
                PatChar::Lit(c)
            }
        }));
    }

    /// An unquoted result: split on whitespace, each piece a possible pattern.
    fn split(&mut self, value: &str) {
        let ws = [' ', '\t', '\n'];
        if value.starts_with(ws) && !self.last().chars.is_empty() {
            self.list.push(Field::default());
        }
        let mut first = true;
        for piece in value.split(ws).filter(|p| !p.is_empty()) {
            if !first {
                self.list.push(Field::default());
            }
            first = false;
            if piece.contains(['*', '?', '[']) {
                self.push_pattern(piece);
            } else {
                self.last().chars.extend(piece.chars().map(PatChar::Lit));
            }
        }
        if value.ends_with(ws) && !value.trim().is_empty() {
            self.list.push(Field::default());
        }
    }
}

impl Shell {
    /// Expand words into fields: parameters, substitutions, field splitting of unquoted
    /// results, globs (written, or from unquoted results).
    pub(super) fn expand_words(
        &self,
        words: &[Word],
        x: &mut Ex<'_>,
    ) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let mut expanded = 0usize;
        for w in words {
            let mut fields = Fields {
                list: vec![Field::default()],
                glob: false,
            };
            for part in &w.parts {
                match part {
                    WordPart::Literal { text, quoted } => fields.push(text, *quoted),
                    WordPart::Glob { pattern } => fields.push_pattern(pattern),
                    WordPart::Param { name, quoted: true } if name == "@" => {
                        // `"$@"`: each parameter its own field; none, no field at all.
                        for (i, arg) in x.env.args.iter().enumerate() {
                            if i > 0 {
                                fields.list.push(Field::default());
                            }
                            fields.push(arg, true);
                        }
                    }
                    WordPart::Arith { .. }
                    | WordPart::Param { .. }
                    | WordPart::ParamOp { .. }
                    | WordPart::CommandSub { .. } => {
                        let Some((value, quoted)) = self.param_value(part, x)? else {
                            continue;
                        };
                        // `$x $x $x ...` multiplies a variable: stop before building it.
                        expanded += value.len();
                        if expanded > MAX_EXPANSION {
                            return Err(format!(
                                "the expanded words would pass {MAX_EXPANSION} bytes, the limit for one command"
                            ));
                        }
                        if quoted {
                            fields.push(&value, true);
                        } else {
                            fields.split(&value);
                        }
                    }
                }
            }
            for f in fields.list {
                if f.chars.is_empty() && !f.quoted {
                    continue;
                }
                let text = || -> String {
                    f.chars
                        .iter()
                        .map(|c| match c {
                            PatChar::Lit(c) | PatChar::Meta(c) => *c,
                        })
                        .collect()
                };
                if fields.glob && f.chars.iter().any(|c| matches!(c, PatChar::Meta(_))) {
                    let matches = glob::expand(&self.fs, &x.env.cwd, &f.chars, MAX_GLOB);
                    if matches.is_empty() {
                        out.push(text());
                    } else {
                        out.extend(matches);
                    }
                } else {
                    out.push(text());
                }
            }
        }
        Ok(out)
    }

    /// Expand a word to one string (assignment values, redirect targets): no splitting or
    /// globbing.
    pub(super) fn expand_string(&self, w: &Word, x: &mut Ex<'_>) -> Result<String, String> {
        self.expand_parts(&w.parts, x)
    }

    pub(super) fn expand_parts(
        &self,
        parts: &[WordPart],
        x: &mut Ex<'_>,
    ) -> Result<String, String> {
        let mut s = String::new();
        for p in parts {
            match p {
                WordPart::Literal { text, .. } => s.push_str(text),
                WordPart::Glob { pattern } => s.push_str(pattern),
                WordPart::Param { .. }
                | WordPart::ParamOp { .. }
                | WordPart::CommandSub { .. }
                | WordPart::Arith { .. } => {
                    let Some((value, _)) = self.param_value(p, x)? else {
                        continue;
                    };
                    // A here-document of `$x` lines multiplies a variable.
                    if s.len() + value.len() > MAX_EXPANSION {
                        return Err(format!(
                            "the expansion would pass {MAX_EXPANSION} bytes, the limit for one word or here-document"
                        ));
                    }
                    s.push_str(&value);
                }
            }
        }
        Ok(s)
    }

    /// The value of a `$X` or `${X op word}` part and whether it was quoted; `None` for
    /// other parts.
    fn param_value(
        &self,
        part: &WordPart,
        x: &mut Ex<'_>,
    ) -> Result<Option<(String, bool)>, String> {
        Ok(match part {
            WordPart::Param { name, quoted } => {
                if x.env.options.nounset
                    && !matches!(name.as_str(), "@" | "*")
                    && !is_set(name, x.env)
                {
                    x.fatal = true;
                    return Err(format!("{name}: unbound variable"));
                }
                Some((self.param(name, x.env), *quoted))
            }
            WordPart::ParamOp {
                name,
                op,
                arg,
                quoted,
            } => Some((self.param_op(name, *op, arg, x)?, *quoted)),
            WordPart::CommandSub { script, quoted } => Some((self.substitute(script, x)?, *quoted)),
            WordPart::Arith { expr, quoted } => {
                let text = self.expand_parts(expr, x)?;
                Some((self.arith(&text, x.env)?, *quoted))
            }
            _ => None,
        })
    }

    /// `$(script)`: its output, without trailing newlines. It runs on a copy of the state
    /// (a subshell), reading nothing.
    fn substitute(&self, script: &Script, x: &mut Ex<'_>) -> Result<String, String> {
        if let Some(o) = self.fs.over() {
            return Err(format!(
                "stopped: the command ran past its {} limit",
                o.what()
            ));
        }
        let mut env = x.env.clone();
        let mut out = Captured {
            buf: Vec::new(),
            over: false,
        };
        let io = Streams {
            stdin: &mut std::io::empty(),
            stdout: &mut out,
            stderr: &mut *x.stderr,
        };
        let status = self.list(script, x.plan, &mut env, io);
        x.status = Some(status);
        if out.over {
            return Err(format!(
                "the output of a command substitution passed {MAX_EXPANSION} bytes, the limit for one"
            ));
        }
        if env.flow == Some(Flow::Stop) {
            return Err("stopped: the command ran past its time limit".into());
        }
        let mut text = String::from_utf8_lossy(&out.buf).into_owned();
        let kept = text.trim_end_matches('\n').len();
        text.truncate(kept);
        Ok(text)
    }

    /// `${X op word}`.
    fn param_op(
        &self,
        name: &str,
        op: ParamOp,
        arg: &[WordPart],
        x: &mut Ex<'_>,
    ) -> Result<String, String> {
        let value = self.param(name, x.env);
        let set = is_set(name, x.env);
        let null = |colon: bool| !set || (colon && value.is_empty());
        match op {
            ParamOp::Default { colon } if null(colon) => self.expand_parts(arg, x),
            ParamOp::Default { .. } => Ok(value),
            ParamOp::Alternative { colon } if !null(colon) => self.expand_parts(arg, x),
            ParamOp::Alternative { .. } => Ok(String::new()),
            ParamOp::Error { colon } if null(colon) => {
                let message = self.expand_parts(arg, x)?;
                Err(if message.is_empty() {
                    format!("{name}: parameter null or not set")
                } else {
                    format!("{name}: {message}")
                })
            }
            ParamOp::Error { .. } => Ok(value),
            ParamOp::Length => Ok(value.chars().count().to_string()),
            ParamOp::TrimSuffix { longest } | ParamOp::TrimPrefix { longest } => {
                let chars: Vec<char> = value.chars().collect();
                let pat = self.pattern(arg, x)?;
                if chars.len() > MAX_TRIMMED || pat.len() > MAX_TRIM_PATTERN {
                    return Err(format!(
                        "${{{name}%...}} and ${{{name}#...}} work on values up to {MAX_TRIMMED} characters and patterns up to {MAX_TRIM_PATTERN}"
                    ));
                }
                let n = chars.len();
                let suffix = matches!(op, ParamOp::TrimSuffix { .. });
                // Shortest first: the cut nearest the end for a suffix, the start for a prefix.
                let mut cuts: Vec<usize> = if suffix {
                    (0..=n).rev().collect()
                } else {
                    (0..=n).collect()
                };
                if longest {
                    cuts.reverse();
                }
                for cut in cuts {
                    let (keep, removed) = if suffix {
                        (&chars[..cut], &chars[cut..])
                    } else {
                        (&chars[cut..], &chars[..cut])
                    };
                    if glob::matches_linear(&pat, removed) {
                        return Ok(keep.iter().collect());
                    }
                }
                Ok(value)
            }
        }
    }

    /// The pattern of `${X%pattern}`: quoted text is literal, unquoted text and unquoted
    /// parameters may hold `*`, `?` and brackets.
    pub(super) fn pattern(&self, arg: &[WordPart], x: &mut Ex<'_>) -> Result<Vec<PatChar>, String> {
        let mut out = Vec::new();
        let as_pattern = |text: &str, out: &mut Vec<PatChar>| {
            out.extend(text.chars().map(|c| {
                if "*?[]!^-".contains(c) {
                    PatChar::Meta(c)
                } else {
                    PatChar::Lit(c)
                }
            }))
        };
        for part in arg {
            match part {
                WordPart::Literal { text, quoted: true } => {
                    out.extend(text.chars().map(PatChar::Lit))
                }
                WordPart::Literal { text, .. } | WordPart::Glob { pattern: text } => {
                    as_pattern(text, &mut out)
                }
                WordPart::Param { .. }
                | WordPart::ParamOp { .. }
                | WordPart::CommandSub { .. }
                | WordPart::Arith { .. } => {
                    if let Some((value, quoted)) = self.param_value(part, x)? {
                        if quoted {
                            out.extend(value.chars().map(PatChar::Lit));
                        } else {
                            as_pattern(&value, &mut out);
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// `$((expr))`'s value as text.
    fn arith(&self, expr: &str, env: &Env) -> Result<String, String> {
        arith::eval(expr, &|name| self.param(name, env)).map(|n| n.to_string())
    }

    pub(super) fn param(&self, name: &str, env: &Env) -> String {
        match name {
            "?" => env.status.to_string(),
            "#" => env.args.len().to_string(),
            "@" | "*" => env.args.join(" "),
            "$" => std::process::id().to_string(),
            "0" => "sh".to_string(),
            _ => match name.parse::<usize>() {
                Ok(n) => n
                    .checked_sub(1)
                    .and_then(|i| env.args.get(i))
                    .cloned()
                    .unwrap_or_default(),
                Err(_) => env.vars.get(name).cloned().unwrap_or_default(),
            },
        }
    }
}
