//! `[[ expression ]]`: words expanded without splitting or globbing; `==` and `!=` match
//! glob patterns, `=~` regular expressions; file and number tests are `test`'s.

use std::io::Write;

use super::expand::Ex;
use super::{Cx, Env, Io, Shell, glob};
use crate::syntax::ast::{CondExpr, Word, WordPart};

/// Longest regular expression `=~` compiles, and the size it may compile to.
const MAX_REGEX: usize = 4096;
const MAX_REGEX_SIZE: usize = 1 << 20;

impl Shell {
    /// 0 when true, 1 when false, 2 on an error (reported on `stderr`).
    pub(super) fn cond(&self, e: &CondExpr, env: &Env, stderr: &mut (dyn Write + Send)) -> i32 {
        let mut x = Ex::new(env, None, stderr);
        match self.truth(e, &mut x) {
            Ok(true) => 0,
            Ok(false) => 1,
            Err(msg) => {
                let _ = writeln!(x.stderr, "ultra sh: [[: {msg}");
                2
            }
        }
    }

    fn truth(&self, e: &CondExpr, x: &mut Ex<'_>) -> Result<bool, String> {
        Ok(match e {
            CondExpr::Word(w) => !self.expand_string(w, x)?.is_empty(),
            CondExpr::Not(e) => !self.truth(e, x)?,
            CondExpr::And(a, b) => self.truth(a, x)? && self.truth(b, x)?,
            CondExpr::Or(a, b) => self.truth(a, x)? || self.truth(b, x)?,
            CondExpr::Unary(op, w) => {
                let value = self.expand_string(w, x)?;
                match op.as_str() {
                    "-v" => x.env.vars.contains_key(&value),
                    "-a" => self.test(&["-e", &value], x)?,
                    op => self.test(&[op, &value], x)?,
                }
            }
            CondExpr::Binary(l, op, r) => {
                let left = self.expand_string(l, x)?;
                match op.as_str() {
                    "==" | "=" | "!=" => {
                        let pattern = self.pattern(&r.parts, x)?;
                        let chars: Vec<char> = left.chars().collect();
                        glob::matches_linear(&pattern, &chars) == (op != "!=")
                    }
                    "=~" => self.regex(r, x)?.is_match(&left),
                    op => {
                        let right = self.expand_string(r, x)?;
                        self.test(&[&left, op, &right], x)?
                    }
                }
            }
        })
    }

    /// Runs the `test` command of the table on `args`.
    fn test(&self, args: &[&str], x: &mut Ex<'_>) -> Result<bool, String> {
        let Some(test) = self.commands.get("test") else {
            return Err("`test` is not among this shell's commands".into());
        };
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let cx = Cx {
            fs: &self.fs,
            cwd: &x.env.cwd,
            vars: &x.env.vars,
        };
        let mut err = Vec::new();
        let status = (test.run)(
            &args,
            &mut Io {
                stdin: &mut std::io::empty(),
                stdout: &mut std::io::sink(),
                stderr: &mut err,
            },
            &cx,
        );
        match status {
            0 => Ok(true),
            1 => Ok(false),
            _ => Err(String::from_utf8_lossy(&err)
                .trim_end()
                .trim_start_matches("test: ")
                .to_string()),
        }
    }

    /// The regex of `=~`: quoted parts match literally.
    fn regex(&self, w: &Word, x: &mut Ex<'_>) -> Result<regex::Regex, String> {
        let mut source = String::new();
        for part in &w.parts {
            match part {
                WordPart::Literal { text, quoted: true } => source.push_str(&regex::escape(text)),
                WordPart::Literal { text, .. } | WordPart::Glob { pattern: text } => {
                    source.push_str(text)
                }
                _ => {
                    let value = self.expand_parts(std::slice::from_ref(part), x)?;
                    let quoted = matches!(
                        part,
                        WordPart::Param { quoted: true, .. }
                            | WordPart::ParamOp { quoted: true, .. }
                            | WordPart::CommandSub { quoted: true, .. }
                            | WordPart::Arith { quoted: true, .. }
                    );
                    if quoted {
                        source.push_str(&regex::escape(&value));
                    } else {
                        source.push_str(&value);
                    }
                }
            }
        }
        if source.len() > MAX_REGEX {
            return Err(format!("a regular expression over {MAX_REGEX} bytes"));
        }
        regex::RegexBuilder::new(&source)
            .size_limit(MAX_REGEX_SIZE)
            .build()
            .map_err(|e| format!("{source}: invalid regular expression: {e}"))
    }
}
