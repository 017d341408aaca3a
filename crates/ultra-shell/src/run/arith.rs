//! `$((...))`: shell arithmetic on 64-bit integers, wrapping as bash's does. Operators by
//! C's precedence, with bash's `**`: unary `+ - ! ~`, `**`, `* / %`, `+ -`, `<< >>`,
//! `< <= > >=`, `== !=`, `&`, `^`, `|`, `&&`, `||`, `?:`, parentheses. Numbers are decimal,
//! `0x` hex or `0` octal. A name (with or without `$`) is its variable's value, read as an
//! expression in turn (unset or empty is 0). Assignment operators are refused: set the
//! variable outside (`i=$((i + 1))`).

/// How deep parentheses and variables holding expressions may nest.
const MAX_DEPTH: usize = 64;

/// Evaluate `expr`; `var` gives a variable's (or special parameter's) value.
pub fn eval(expr: &str, var: &dyn Fn(&str) -> String) -> Result<i64, String> {
    eval_at(expr, var, 0)
}

fn eval_at(expr: &str, var: &dyn Fn(&str) -> String, depth: usize) -> Result<i64, String> {
    if depth > MAX_DEPTH {
        return Err(format!("{expr}: expression nests too deeply"));
    }
    let tokens = lex(expr)?;
    if tokens.is_empty() {
        return Ok(0);
    }
    let mut p = Parser {
        tokens,
        at: 0,
        var,
        depth,
        expr,
    };
    let value = p.ternary()?;
    match p.tokens.get(p.at) {
        None => Ok(value),
        Some(t) => Err(format!(
            "{expr}: syntax error in expression (error token is \"{t:?}\")"
        )),
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(i64),
    Name(String),
    Op(&'static str),
}

/// Operators, longest first so `<<` is not read as `<`.
const OPS: &[&str] = &[
    "**", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "%=", "++", "--",
    "+", "-", "*", "/", "%", "<", ">", "&", "^", "|", "!", "~", "?", ":", "(", ")", "=",
];

fn lex(expr: &str) -> Result<Vec<Tok>, String> {
    let b = expr.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'#') {
                i += 1;
            }
            out.push(Tok::Num(number(&expr[start..i])?));
            continue;
        }
        if c == b'$' || c == b'_' || c.is_ascii_alphabetic() {
            let mut start = i + usize::from(c == b'$');
            let braced = c == b'$' && b.get(start) == Some(&b'{');
            if braced {
                start += 1;
            }
            let mut end = start;
            if end < b.len() && (b[end] == b'?' || b[end] == b'#' || b[end].is_ascii_digit()) {
                end += 1;
            } else {
                while end < b.len() && (b[end] == b'_' || b[end].is_ascii_alphanumeric()) {
                    end += 1;
                }
            }
            if end == start {
                return Err(format!("{expr}: syntax error: operand expected"));
            }
            out.push(Tok::Name(expr[start..end].to_string()));
            i = end;
            if braced {
                if b.get(i) != Some(&b'}') {
                    return Err(format!("{expr}: bad substitution"));
                }
                i += 1;
            }
            continue;
        }
        match OPS.iter().find(|op| expr[i..].starts_with(**op)) {
            Some(op) => {
                out.push(Tok::Op(op));
                i += op.len();
            }
            None => {
                return Err(format!(
                    "{expr}: syntax error: invalid arithmetic operator (error token is \"{}\")",
                    &expr[i..]
                ));
            }
        }
    }
    Ok(out)
}

/// `12`, `0x1f`, `017`, `2#101`.
fn number(text: &str) -> Result<i64, String> {
    let bad = || format!("{text}: value too great for base (error token is \"{text}\")");
    let (digits, base) = if let Some((base, digits)) = text.split_once('#') {
        let base: u32 = base.parse().map_err(|_| bad())?;
        if !(2..=36).contains(&base) {
            return Err(format!("{text}: invalid arithmetic base"));
        }
        (digits, base)
    } else if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        (hex, 16)
    } else if text.len() > 1 && text.starts_with('0') {
        (&text[1..], 8)
    } else {
        (text, 10)
    };
    let mut value: i64 = 0;
    for c in digits.chars() {
        let d = c.to_digit(base).ok_or_else(bad)?;
        value = value
            .wrapping_mul(i64::from(base))
            .wrapping_add(i64::from(d));
    }
    Ok(value)
}

struct Parser<'a> {
    tokens: Vec<Tok>,
    at: usize,
    var: &'a dyn Fn(&str) -> String,
    depth: usize,
    expr: &'a str,
}

impl Parser<'_> {
    fn peek_op(&self) -> Option<&'static str> {
        match self.tokens.get(self.at) {
            Some(Tok::Op(op)) => Some(op),
            _ => None,
        }
    }

    fn eat(&mut self, op: &str) -> bool {
        if self.peek_op() == Some(op) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ternary(&mut self) -> Result<i64, String> {
        let cond = self.binary(0)?;
        if !self.eat("?") {
            return Ok(cond);
        }
        let yes = self.ternary()?;
        if !self.eat(":") {
            return Err(format!(
                "{}: `:' expected for conditional expression",
                self.expr
            ));
        }
        let no = self.ternary()?;
        Ok(if cond != 0 { yes } else { no })
    }

    /// Binary operators from the loosest (`||`, level 0) to the tightest (`* / %`).
    fn binary(&mut self, level: usize) -> Result<i64, String> {
        const LEVELS: &[&[&str]] = &[
            &["||"],
            &["&&"],
            &["|"],
            &["^"],
            &["&"],
            &["==", "!="],
            &["<", "<=", ">", ">="],
            &["<<", ">>"],
            &["+", "-"],
            &["*", "/", "%"],
        ];
        if level == LEVELS.len() {
            return self.power();
        }
        let mut left = self.binary(level + 1)?;
        while let Some(op) = self.peek_op().filter(|op| LEVELS[level].contains(op)) {
            self.at += 1;
            let right = self.binary(level + 1)?;
            left = self.apply(op, left, right)?;
        }
        Ok(left)
    }

    fn apply(&self, op: &str, l: i64, r: i64) -> Result<i64, String> {
        let zero = || format!("{}: division by 0", self.expr);
        Ok(match op {
            "||" => i64::from(l != 0 || r != 0),
            "&&" => i64::from(l != 0 && r != 0),
            "|" => l | r,
            "^" => l ^ r,
            "&" => l & r,
            "==" => i64::from(l == r),
            "!=" => i64::from(l != r),
            "<" => i64::from(l < r),
            "<=" => i64::from(l <= r),
            ">" => i64::from(l > r),
            ">=" => i64::from(l >= r),
            "<<" => l.wrapping_shl(r as u32),
            ">>" => l.wrapping_shr(r as u32),
            "+" => l.wrapping_add(r),
            "-" => l.wrapping_sub(r),
            "*" => l.wrapping_mul(r),
            "/" if r == 0 => return Err(zero()),
            "/" => l.wrapping_div(r),
            "%" if r == 0 => return Err(zero()),
            "%" => l.wrapping_rem(r),
            _ => return Err(format!("{}: {op}: unknown operator", self.expr)),
        })
    }

    /// `**`, right-associative and tighter than `*`, looser than unary minus on its right.
    fn power(&mut self) -> Result<i64, String> {
        let base = self.unary()?;
        if !self.eat("**") {
            return Ok(base);
        }
        let exp = self.power()?;
        if exp < 0 {
            return Err(format!("{}: exponent less than 0", self.expr));
        }
        Ok(base.wrapping_pow(u32::try_from(exp).unwrap_or(u32::MAX)))
    }

    fn unary(&mut self) -> Result<i64, String> {
        match self.peek_op() {
            Some("+") => {
                self.at += 1;
                self.unary()
            }
            Some("-") => {
                self.at += 1;
                Ok(self.unary()?.wrapping_neg())
            }
            Some("!") => {
                self.at += 1;
                Ok(i64::from(self.unary()? == 0))
            }
            Some("~") => {
                self.at += 1;
                Ok(!self.unary()?)
            }
            _ => self.operand(),
        }
    }

    fn operand(&mut self) -> Result<i64, String> {
        let tok = self.tokens.get(self.at).cloned();
        self.at += 1;
        match tok {
            Some(Tok::Num(n)) => Ok(n),
            Some(Tok::Name(name)) => {
                if let Some(op @ ("=" | "+=" | "-=" | "*=" | "/=" | "%=" | "++" | "--")) =
                    self.peek_op()
                {
                    return Err(format!(
                        "{}: `{op}` assigns, which $((...)) does not here: set the variable outside, as in `{name}=$(({name} + 1))`",
                        self.expr
                    ));
                }
                let value = (self.var)(&name);
                let value = value.trim();
                if value.is_empty() {
                    Ok(0)
                } else {
                    eval_at(value, self.var, self.depth + 1)
                }
            }
            Some(Tok::Op("(")) => {
                if self.depth >= MAX_DEPTH {
                    return Err(format!("{}: expression nests too deeply", self.expr));
                }
                self.depth += 1;
                let value = self.ternary()?;
                self.depth -= 1;
                if !self.eat(")") {
                    return Err(format!("{}: missing `)'", self.expr));
                }
                Ok(value)
            }
            Some(Tok::Op(op @ ("++" | "--"))) => Err(format!(
                "{}: `{op}` assigns, which $((...)) does not here: set the variable outside",
                self.expr
            )),
            _ => Err(format!("{}: syntax error: operand expected", self.expr)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::eval;

    fn ev(expr: &str) -> Result<i64, String> {
        eval(expr, &|name| match name {
            "x" => "3".into(),
            "e" => "x * 2".into(),
            "loop" => "loop + 1".into(),
            _ => String::new(),
        })
    }

    #[test]
    fn like_bash() {
        assert_eq!(ev("x*2+1"), Ok(7));
        assert_eq!(ev("(1<<4) % 5"), Ok(1));
        assert_eq!(ev("-7/2"), Ok(-3));
        assert_eq!(ev("7%-3"), Ok(1));
        assert_eq!(ev("2**10"), Ok(1024));
        assert_eq!(ev("2**3**2"), Ok(512));
        assert_eq!(ev("x > 2 ? 10 : 20"), Ok(10));
        assert_eq!(ev("$x + ${x}"), Ok(6));
        assert_eq!(ev("e + 1"), Ok(7));
        assert_eq!(ev("unset + 0x10 + 010 + 2#101"), Ok(16 + 8 + 5));
        assert_eq!(ev("!0 && ~0 == -1 || 0"), Ok(1));
        assert_eq!(ev(""), Ok(0));
        assert_eq!(ev("9223372036854775807 + 1"), Ok(i64::MIN));
    }

    #[test]
    fn errors_say_why() {
        assert!(ev("1/0").unwrap_err().contains("division by 0"));
        assert!(ev("x=1").unwrap_err().contains("assigns"));
        assert!(ev("x++").unwrap_err().contains("assigns"));
        assert!(ev("1 +").unwrap_err().contains("operand expected"));
        assert!(ev("(1").unwrap_err().contains("missing"));
        assert!(ev("loop").unwrap_err().contains("nests too deeply"));
        assert!(ev("08").is_err());
        let deep = "(".repeat(200) + "1" + &")".repeat(200);
        assert!(ev(&deep).unwrap_err().contains("nests too deeply"));
    }
}
