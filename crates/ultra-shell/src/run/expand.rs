//! Word expansion: parameters (with POSIX's `${X op word}` operators), `$((...))`,
//! field splitting of unquoted results, and pathname expansion.

use super::glob::{self, PatChar};
use super::{Env, MAX_EXPANSION, MAX_GLOB, Shell, arith};
use crate::syntax::ast::{ParamOp, Word, WordPart};

/// Longest value `${X%pattern}` and `${X#pattern}` trim (file names and paths fit).
const MAX_TRIMMED: usize = 4096;
/// Longest pattern they take.
const MAX_TRIM_PATTERN: usize = 256;

impl Shell {
    /// Expand words into fields: parameters, field splitting of unquoted parameters, globs.
    pub(super) fn expand_words(&self, words: &[Word], env: &Env) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        let mut expanded = 0usize;
        for w in words {
            // Build fields as pattern chars; unquoted parameters split on whitespace.
            let mut fields: Vec<Vec<PatChar>> = vec![Vec::new()];
            let mut any_quoted = false;
            let mut glob = false;
            for part in &w.parts {
                match part {
                    WordPart::Literal { text, quoted } => {
                        any_quoted |= *quoted;
                        fields
                            .last_mut()
                            .expect("at least one field")
                            .extend(text.chars().map(PatChar::Lit));
                    }
                    WordPart::Glob { pattern } => {
                        glob = true;
                        let mut in_bracket = false;
                        fields
                            .last_mut()
                            .expect("at least one field")
                            .extend(pattern.chars().map(|c| {
                                let meta = matches!(c, '*' | '?' | '[')
                                    || (in_bracket && matches!(c, ']' | '!' | '^' | '-'));
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
                    WordPart::Arith { expr, quoted } => {
                        // Digits and a sign: nothing to split or glob.
                        any_quoted |= *quoted;
                        let value = self.arith(expr, env)?;
                        fields
                            .last_mut()
                            .expect("at least one field")
                            .extend(value.chars().map(PatChar::Lit));
                    }
                    WordPart::Param { .. } | WordPart::ParamOp { .. } => {
                        let Some((value, quoted)) = self.param_value(part, env)? else {
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
                            any_quoted = true;
                            fields
                                .last_mut()
                                .expect("at least one field")
                                .extend(value.chars().map(PatChar::Lit));
                        } else {
                            let pieces = value.split([' ', '\t', '\n']);
                            let starts_ws = value.starts_with([' ', '\t', '\n']);
                            if starts_ws && !fields.last().expect("field").is_empty() {
                                fields.push(Vec::new());
                            }
                            let mut first = true;
                            for p in pieces {
                                if p.is_empty() {
                                    continue;
                                }
                                if !first && !fields.last().expect("field").is_empty() {
                                    fields.push(Vec::new());
                                }
                                fields
                                    .last_mut()
                                    .expect("field")
                                    .extend(p.chars().map(PatChar::Lit));
                                first = false;
                            }
                            if value.ends_with([' ', '\t', '\n']) && !value.trim().is_empty() {
                                fields.push(Vec::new());
                            }
                        }
                    }
                }
            }
            // Drop empty fields that came only from unquoted expansions.
            let keep_empty = any_quoted;
            for (i, f) in fields.iter().enumerate() {
                if f.is_empty() && !(keep_empty && fields.len() == 1 && i == 0) {
                    continue;
                }
                if glob && f.iter().any(|c| matches!(c, PatChar::Meta(_))) {
                    let matches = glob::expand(&self.fs, &env.cwd, f, MAX_GLOB);
                    if matches.is_empty() {
                        out.push(
                            f.iter()
                                .map(|c| match c {
                                    PatChar::Lit(c) | PatChar::Meta(c) => *c,
                                })
                                .collect(),
                        );
                    } else {
                        out.extend(matches);
                    }
                } else {
                    out.push(
                        f.iter()
                            .map(|c| match c {
                                PatChar::Lit(c) | PatChar::Meta(c) => *c,
                            })
                            .collect(),
                    );
                }
            }
        }
        Ok(out)
    }

    /// Expand a word to one string (assignment values, redirect targets): no splitting or
    /// globbing.
    pub(super) fn expand_string(&self, w: &Word, env: &Env) -> Result<String, String> {
        self.expand_parts(&w.parts, env)
    }

    pub(super) fn expand_parts(&self, parts: &[WordPart], env: &Env) -> Result<String, String> {
        let mut s = String::new();
        for p in parts {
            match p {
                WordPart::Literal { text, .. } => s.push_str(text),
                WordPart::Glob { pattern } => s.push_str(pattern),
                WordPart::Arith { expr, .. } => s.push_str(&self.arith(expr, env)?),
                WordPart::Param { .. } | WordPart::ParamOp { .. } => {
                    let Some((value, _)) = self.param_value(p, env)? else {
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
    fn param_value(&self, part: &WordPart, env: &Env) -> Result<Option<(String, bool)>, String> {
        Ok(match part {
            WordPart::Param { name, quoted } => Some((self.param(name, env), *quoted)),
            WordPart::ParamOp {
                name,
                op,
                arg,
                quoted,
            } => Some((self.param_op(name, *op, arg, env)?, *quoted)),
            _ => None,
        })
    }

    /// `${X op word}`.
    fn param_op(
        &self,
        name: &str,
        op: ParamOp,
        arg: &[WordPart],
        env: &Env,
    ) -> Result<String, String> {
        let value = self.param(name, env);
        let set = matches!(name, "?" | "#" | "$" | "@" | "*") || env.vars.contains_key(name);
        let null = |colon: bool| !set || (colon && value.is_empty());
        match op {
            ParamOp::Default { colon } if null(colon) => self.expand_parts(arg, env),
            ParamOp::Default { .. } => Ok(value),
            ParamOp::Alternative { colon } if !null(colon) => self.expand_parts(arg, env),
            ParamOp::Alternative { .. } => Ok(String::new()),
            ParamOp::Error { colon } if null(colon) => {
                let message = self.expand_parts(arg, env)?;
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
                let pat = self.pattern(arg, env)?;
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
    fn pattern(&self, arg: &[WordPart], env: &Env) -> Result<Vec<PatChar>, String> {
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
                WordPart::Arith { expr, .. } => {
                    out.extend(self.arith(expr, env)?.chars().map(PatChar::Lit))
                }
                WordPart::Param { .. } | WordPart::ParamOp { .. } => {
                    if let Some((value, quoted)) = self.param_value(part, env)? {
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
            "#" => "0".to_string(),
            "@" | "*" => String::new(),
            "$" => std::process::id().to_string(),
            _ => env.vars.get(name).cloned().unwrap_or_default(),
        }
    }
}
