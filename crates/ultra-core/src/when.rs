//! When-clauses: VS Code's grammar for "is this command available here", used by
//! keybindings, the palette and command specs alike (editor-aci.md §10). `!`, `&&`, `||`,
//! `==`, `!=`, `=~ /regex/flags`, `<`, `<=`, `>`, `>=`, `in`, `not in`, parentheses, `true`,
//! `false`, over context keys the surfaces set (`editorFocus`, `paletteOpen`, ...).
//!
//! ```
//! use serde_json::json;
//! use ultra_core::when::{Context, When};
//! let w = When::parse("editorFocus && !editorReadonly && resourceExtname == .rs").unwrap();
//! let mut cx = Context::default();
//! cx.set("editorFocus", json!(true));
//! cx.set("resourceExtname", json!(".rs"));
//! assert!(w.eval(&cx));
//! cx.set("editorReadonly", json!(true));
//! assert!(!w.eval(&cx));
//! ```

use std::collections::BTreeMap;

use serde_json::Value;

/// Context keys and their values.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Context {
    keys: BTreeMap<String, Value>,
}

impl Context {
    /// Set `key` (a `null` removes it).
    pub fn set(&mut self, key: &str, value: Value) {
        if value.is_null() {
            self.keys.remove(key);
        } else {
            self.keys.insert(key.to_string(), value);
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.keys.get(key)
    }

    /// Every key, sorted (for "inspect context keys").
    pub fn keys(&self) -> &BTreeMap<String, Value> {
        &self.keys
    }
}

/// A parsed when-clause.
#[derive(Debug, Clone, PartialEq)]
pub struct When(Expr);

#[derive(Debug, Clone, PartialEq)]
enum Expr {
    True,
    False,
    Key(String),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Eq(String, String, bool),
    Cmp(String, Cmp, f64),
    Matches(String, Re),
    In(String, String, bool),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

/// Why a when-clause does not parse, with the byte offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("when-clause `{text}` at {offset}: {message}")]
pub struct WhenError {
    pub text: String,
    pub offset: usize,
    pub message: String,
}

/// A compiled regex, equal to another with the same pattern.
#[derive(Debug, Clone)]
struct Re(regex::Regex);

impl PartialEq for Re {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_str() == other.0.as_str()
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Regex(String, String),
    Op(&'static str),
    LParen,
    RParen,
}

fn lex(text: &str) -> Result<Vec<(usize, Tok)>, WhenError> {
    let err = |offset: usize, message: &str| WhenError {
        text: text.to_string(),
        offset,
        message: message.to_string(),
    };
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    // After `=~` a `/` starts a regex; elsewhere it is part of a word (paths).
    let mut want_regex = false;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if want_regex && c == b'/' {
            // The pattern runs to the next unescaped `/`; `\/` stands for `/`.
            let mut j = i + 1;
            while j < b.len() && b[j] != b'/' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            if j >= b.len() {
                return Err(err(start, "unterminated /regex/"));
            }
            let pat = text[i + 1..j].replace("\\/", "/");
            let flags_start = j + 1;
            let mut k = flags_start;
            while k < b.len() && b[k].is_ascii_alphabetic() {
                k += 1;
            }
            out.push((start, Tok::Regex(pat, text[flags_start..k].to_string())));
            i = k;
            want_regex = false;
            continue;
        }
        want_regex = false;
        let two = text.get(i..i + 2).unwrap_or("");
        let op = match two {
            "&&" => Some("&&"),
            "||" => Some("||"),
            "==" => Some("=="),
            "!=" => Some("!="),
            "=~" => Some("=~"),
            "<=" => Some("<="),
            ">=" => Some(">="),
            _ => None,
        };
        if let Some(op) = op {
            // `===` and `!==` are VS Code's spellings too.
            let mut len = 2;
            if (op == "==" || op == "!=") && b.get(i + 2) == Some(&b'=') {
                len = 3;
            }
            out.push((start, Tok::Op(op)));
            want_regex = op == "=~";
            i += len;
            continue;
        }
        match c {
            b'!' => {
                out.push((start, Tok::Op("!")));
                i += 1;
            }
            b'<' => {
                out.push((start, Tok::Op("<")));
                i += 1;
            }
            b'>' => {
                out.push((start, Tok::Op(">")));
                i += 1;
            }
            b'(' => {
                out.push((start, Tok::LParen));
                i += 1;
            }
            b')' => {
                out.push((start, Tok::RParen));
                i += 1;
            }
            b'\'' | b'"' => {
                let q = c;
                let mut j = i + 1;
                while j < b.len() && b[j] != q {
                    j += 1;
                }
                if j >= b.len() {
                    return Err(err(start, "unterminated string"));
                }
                out.push((start, Tok::Str(text[i + 1..j].to_string())));
                i = j + 1;
            }
            b'&' | b'|' | b'=' => return Err(err(start, "expected `&&`, `||`, `==` or `=~`")),
            _ => {
                let mut j = i;
                while j < b.len()
                    && !b[j].is_ascii_whitespace()
                    && !matches!(
                        b[j],
                        b'(' | b')' | b'!' | b'=' | b'<' | b'>' | b'&' | b'|' | b'\'' | b'"'
                    )
                {
                    j += 1;
                }
                out.push((start, Tok::Word(text[i..j].to_string())));
                i = j;
            }
        }
    }
    Ok(out)
}

struct Parser<'a> {
    text: &'a str,
    toks: Vec<(usize, Tok)>,
    pos: usize,
}

impl Parser<'_> {
    fn err(&self, message: impl Into<String>) -> WhenError {
        WhenError {
            text: self.text.to_string(),
            offset: self
                .toks
                .get(self.pos)
                .map(|(o, _)| *o)
                .unwrap_or(self.text.len()),
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(_, t)| t)
    }

    fn eat_op(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Op(o)) if *o == op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Expr, WhenError> {
        let mut e = self.and()?;
        while self.eat_op("||") {
            e = Expr::Or(Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, WhenError> {
        let mut e = self.not()?;
        while self.eat_op("&&") {
            e = Expr::And(Box::new(e), Box::new(self.not()?));
        }
        Ok(e)
    }

    fn not(&mut self) -> Result<Expr, WhenError> {
        if self.eat_op("!") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.comparison()
    }

    fn value(&mut self) -> Result<String, WhenError> {
        match self.toks.get(self.pos).map(|(_, t)| t.clone()) {
            Some(Tok::Word(w)) | Some(Tok::Str(w)) => {
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.err("expected a value")),
        }
    }

    fn comparison(&mut self) -> Result<Expr, WhenError> {
        let key = match self.toks.get(self.pos).map(|(_, t)| t.clone()) {
            Some(Tok::LParen) => {
                self.pos += 1;
                let e = self.or()?;
                if self.peek() != Some(&Tok::RParen) {
                    return Err(self.err("expected `)`"));
                }
                self.pos += 1;
                return Ok(e);
            }
            Some(Tok::Word(w)) if w == "true" => {
                self.pos += 1;
                return Ok(Expr::True);
            }
            Some(Tok::Word(w)) if w == "false" => {
                self.pos += 1;
                return Ok(Expr::False);
            }
            Some(Tok::Word(w)) => {
                self.pos += 1;
                w
            }
            _ => return Err(self.err("expected a context key, `!`, `(`, `true` or `false`")),
        };
        match self.peek().cloned() {
            Some(Tok::Op(op @ ("==" | "!="))) => {
                self.pos += 1;
                Ok(Expr::Eq(key, self.value()?, op == "=="))
            }
            Some(Tok::Op(op @ ("<" | "<=" | ">" | ">="))) => {
                self.pos += 1;
                let at = self.pos;
                let v = self.value()?;
                let Ok(n) = v.parse::<f64>() else {
                    self.pos = at;
                    return Err(self.err(format!("`{op}` needs a number, not `{v}`")));
                };
                let cmp = match op {
                    "<" => Cmp::Lt,
                    "<=" => Cmp::Le,
                    ">" => Cmp::Gt,
                    _ => Cmp::Ge,
                };
                Ok(Expr::Cmp(key, cmp, n))
            }
            Some(Tok::Op("=~")) => {
                self.pos += 1;
                match self.toks.get(self.pos).map(|(_, t)| t.clone()) {
                    Some(Tok::Regex(pat, flags)) => {
                        self.pos += 1;
                        let mut b = regex::RegexBuilder::new(&pat);
                        b.case_insensitive(flags.contains('i'))
                            .dot_matches_new_line(flags.contains('s'))
                            .multi_line(flags.contains('m'))
                            .size_limit(1 << 20);
                        let re = b.build().map_err(|e| self.err(format!("bad regex: {e}")))?;
                        Ok(Expr::Matches(key, Re(re)))
                    }
                    _ => Err(self.err("`=~` needs a /regex/")),
                }
            }
            Some(Tok::Word(w)) if w == "in" => {
                self.pos += 1;
                Ok(Expr::In(key, self.value()?, true))
            }
            Some(Tok::Word(w)) if w == "not" => {
                self.pos += 1;
                let at = self.pos;
                if self.value()? == "in" {
                    Ok(Expr::In(key, self.value()?, false))
                } else {
                    self.pos = at;
                    Err(self.err("expected `in` after `not`"))
                }
            }
            _ => Ok(Expr::Key(key)),
        }
    }
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(o)) => !o.is_empty(),
    }
}

fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Null => None,
        other => Some(other.to_string()),
    }
}

impl When {
    /// Parse a when-clause.
    pub fn parse(text: &str) -> Result<When, WhenError> {
        let toks = lex(text)?;
        if toks.is_empty() {
            return Ok(When(Expr::True));
        }
        let mut p = Parser { text, toks, pos: 0 };
        let e = p.or()?;
        if p.pos != p.toks.len() {
            return Err(p.err("unexpected text after the clause"));
        }
        Ok(When(e))
    }

    /// Whether the clause holds in `cx`.
    pub fn eval(&self, cx: &Context) -> bool {
        eval(&self.0, cx)
    }
}

fn eval(e: &Expr, cx: &Context) -> bool {
    match e {
        Expr::True => true,
        Expr::False => false,
        Expr::Key(k) => truthy(cx.get(k)),
        Expr::Not(e) => !eval(e, cx),
        Expr::And(a, b) => eval(a, cx) && eval(b, cx),
        Expr::Or(a, b) => eval(a, cx) || eval(b, cx),
        Expr::Eq(k, v, want) => {
            let got = cx.get(k);
            let equal = match (got, v.as_str()) {
                (Some(Value::Bool(b)), "true") => *b,
                (Some(Value::Bool(b)), "false") => !*b,
                (None, "false") => true,
                _ => text_of(got).as_deref() == Some(v.as_str()),
            };
            equal == *want
        }
        Expr::Cmp(k, cmp, n) => {
            let got = match cx.get(k) {
                Some(Value::Number(x)) => x.as_f64(),
                Some(Value::String(s)) => s.parse().ok(),
                _ => None,
            };
            got.is_some_and(|g| match cmp {
                Cmp::Lt => g < *n,
                Cmp::Le => g <= *n,
                Cmp::Gt => g > *n,
                Cmp::Ge => g >= *n,
            })
        }
        Expr::Matches(k, re) => text_of(cx.get(k)).is_some_and(|s| re.0.is_match(&s)),
        Expr::In(k, list, want) => {
            let Some(item) = text_of(cx.get(k)) else {
                return !*want;
            };
            let found = match cx.get(list) {
                Some(Value::Array(a)) => {
                    a.iter().any(|v| text_of(Some(v)).as_deref() == Some(&item))
                }
                Some(Value::Object(o)) => o.contains_key(&item),
                _ => false,
            };
            found == *want
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cx() -> Context {
        let mut c = Context::default();
        c.set("editorFocus", json!(true));
        c.set("editorReadonly", json!(false));
        c.set("resourceExtname", json!(".rs"));
        c.set("resourceFilename", json!("Main.RS"));
        c.set("openEditors", json!(3));
        c.set("selectedLang", json!("rust"));
        c.set("supported", json!(["rust", "go"]));
        c.set("owners", json!({"ada": 1}));
        c.set("user", json!("ada"));
        c
    }

    fn holds(s: &str) -> bool {
        When::parse(s).unwrap_or_else(|e| panic!("{e}")).eval(&cx())
    }

    #[test]
    fn positive_and_negative_cases() {
        for (clause, want) in [
            ("", true),
            ("true", true),
            ("false", false),
            ("editorFocus", true),
            ("paletteOpen", false),
            ("!paletteOpen", true),
            ("!!editorFocus", true),
            ("editorFocus && !editorReadonly", true),
            ("editorFocus && editorReadonly", false),
            ("paletteOpen || editorFocus", true),
            ("paletteOpen || editorReadonly", false),
            ("resourceExtname == .rs", true),
            ("resourceExtname == '.rs'", true),
            ("resourceExtname === \".rs\"", true),
            ("resourceExtname != .rs", false),
            ("resourceExtname !== .go", true),
            ("editorReadonly == false", true),
            ("missingKey == false", true),
            ("editorFocus == true", true),
            ("resourceFilename =~ /main\\.rs$/i", true),
            ("resourceFilename =~ /main\\.rs$/", false),
            ("resourceFilename =~ /a\\/b/", false),
            ("openEditors > 2", true),
            ("openEditors >= 3 && openEditors <= 3", true),
            ("openEditors < 3", false),
            ("selectedLang in supported", true),
            ("selectedLang not in supported", false),
            ("user in owners", true),
            ("missingKey in supported", false),
            ("missingKey not in supported", true),
            ("(paletteOpen || editorFocus) && !editorReadonly", true),
            ("paletteOpen || editorFocus && editorReadonly", false),
            ("!(paletteOpen || editorReadonly)", true),
        ] {
            assert_eq!(holds(clause), want, "{clause}");
        }
    }

    #[test]
    fn precedence_is_and_over_or() {
        // a || b && c == a || (b && c)
        let mut c = Context::default();
        c.set("a", json!(true));
        let w = When::parse("a || b && c").expect("parses");
        assert!(w.eval(&c));
        let w = When::parse("(a || b) && c").expect("parses");
        assert!(!w.eval(&c));
    }

    proptest::proptest! {
        /// Any text parses or is refused; nothing panics, and what parses evaluates.
        #[test]
        fn never_panics(s in "[a-z!&|=~<>()'\"/ .0-9iné]{0,40}") {
            if let Ok(w) = When::parse(&s) {
                let _ = w.eval(&cx());
            }
        }
    }

    #[test]
    fn errors_name_the_offset() {
        for (clause, offset) in [
            ("editorFocus &&", 14),
            ("(editorFocus", 12),
            ("a & b", 2),
            ("a == ", 5),
            ("a =~ notregex", 5),
            ("a =~ /unterminated", 5),
            ("a > b", 4),
            ("a not b", 6),
            ("a b", 2),
            ("'unterminated", 0),
        ] {
            let e = When::parse(clause).expect_err(clause);
            assert_eq!(e.offset, offset, "{clause}: {e}");
        }
    }
}
