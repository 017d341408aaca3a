//! awk's lexer: program text to tokens with line and column, deciding `/` between division
//! and a regex literal from the previous token, and folding `\`-newline continuations.

/// A token kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Newline,
    Eof,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Plus,
    Minus,
    Star,
    Slash,
    Percent,
    Caret,
    Not,
    Gt,
    Lt,
    Pipe,
    Question,
    Colon,
    Tilde,
    NoMatch,
    Dollar,
    Assign,
    AddAssign,
    SubAssign,
    MulAssign,
    DivAssign,
    ModAssign,
    PowAssign,
    Eq,
    Ne,
    Le,
    Ge,
    And,
    Or,
    Incr,
    Decr,
    Append,
    Number(f64),
    Str(Vec<u8>),
    Regex(Vec<u8>),
    Name(String),
    /// A name immediately followed by `(`: a function call.
    FuncName(String),
    Builtin(&'static str),
    Begin,
    End,
    BeginFile,
    EndFile,
    Function,
    If,
    Else,
    While,
    For,
    Do,
    Break,
    Continue,
    Next,
    Nextfile,
    Exit,
    Return,
    Delete,
    In,
    Getline,
    Print,
    Printf,
}

/// A token and where it starts (1-based line and column).
#[derive(Debug, Clone)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
    pub col: usize,
}

/// The built-in functions.
pub const BUILTINS: &[&str] = &[
    "length", "substr", "index", "split", "sub", "gsub", "match", "sprintf", "sin", "cos", "atan2",
    "exp", "log", "sqrt", "int", "rand", "srand", "tolower", "toupper", "system", "close",
    "fflush",
];

/// gawk's built-in functions (plain names under `--posix`).
pub const GAWK_BUILTINS: &[&str] = &[
    "gensub", "asort", "asorti", "strftime", "systime", "mktime", "and", "or", "xor", "lshift",
    "rshift", "compl", "typeof", "isarray", "strtonum",
];

fn keyword(s: &str, posix: bool) -> Option<Tok> {
    Some(match s {
        "BEGIN" => Tok::Begin,
        "BEGINFILE" if !posix => Tok::BeginFile,
        "ENDFILE" if !posix => Tok::EndFile,
        "END" => Tok::End,
        "function" => Tok::Function,
        "func" if !posix => Tok::Function,
        "if" => Tok::If,
        "else" => Tok::Else,
        "while" => Tok::While,
        "for" => Tok::For,
        "do" => Tok::Do,
        "break" => Tok::Break,
        "continue" => Tok::Continue,
        "next" => Tok::Next,
        "nextfile" => Tok::Nextfile,
        "exit" => Tok::Exit,
        "return" => Tok::Return,
        "delete" => Tok::Delete,
        "in" => Tok::In,
        "getline" => Tok::Getline,
        "print" => Tok::Print,
        "printf" => Tok::Printf,
        _ => return None,
    })
}

/// A lexing error: message, line, column.
pub type LexError = (String, usize, usize);

/// Split `src` into tokens (the last one is `Eof`); `posix` leaves gawk's extensions out.
pub fn lex(src: &[u8], posix: bool) -> Result<Vec<Token>, LexError> {
    let mut out: Vec<Token> = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let mut line_start = 0;
    while i < src.len() {
        let c = src[i];
        let col = i - line_start + 1;
        let cur_line = line;
        let push = |out: &mut Vec<Token>, tok: Tok| {
            out.push(Token {
                tok,
                line: cur_line,
                col,
            })
        };
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\\' if src.get(i + 1) == Some(&b'\n') => {
                i += 2;
                line += 1;
                line_start = i;
            }
            b'\\' if src.get(i + 1) == Some(&b'\r') && src.get(i + 2) == Some(&b'\n') => {
                i += 3;
                line += 1;
                line_start = i;
            }
            b'\n' => {
                push(&mut out, Tok::Newline);
                i += 1;
                line += 1;
                line_start = i;
            }
            b'#' => {
                while i < src.len() && src[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                let mut s = Vec::new();
                i += 1;
                loop {
                    match src.get(i) {
                        None | Some(b'\n') => {
                            return Err(("unterminated string".into(), line, col));
                        }
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        Some(b'\\') => {
                            if src.get(i + 1) == Some(&b'\n') {
                                i += 2;
                                line += 1;
                                line_start = i;
                                continue;
                            }
                            i = escape(src, i + 1, &mut s, !posix);
                        }
                        Some(&b) => {
                            s.push(b);
                            i += 1;
                        }
                    }
                }
                push(&mut out, Tok::Str(s));
            }
            b'/' if regex_allowed(out.last().map(|t| &t.tok)) => {
                let mut s = Vec::new();
                i += 1;
                let mut in_bracket = false;
                loop {
                    match src.get(i) {
                        None | Some(b'\n') => {
                            return Err(("unterminated regular expression".into(), line, col));
                        }
                        Some(b'/') if !in_bracket => {
                            i += 1;
                            break;
                        }
                        Some(b'\\') if src.get(i + 1) == Some(&b'/') => {
                            s.push(b'/');
                            i += 2;
                        }
                        Some(b'\\') if src.get(i + 1).is_some_and(|&b| b != b'\n') => {
                            s.push(b'\\');
                            s.push(src[i + 1]);
                            i += 2;
                        }
                        Some(b'[') if !in_bracket => {
                            in_bracket = true;
                            s.push(b'[');
                            i += 1;
                            if src.get(i) == Some(&b'^') {
                                s.push(b'^');
                                i += 1;
                            }
                            if src.get(i) == Some(&b']') {
                                s.push(b']');
                                i += 1;
                            }
                        }
                        Some(b'[') if src.get(i + 1) == Some(&b':') => {
                            // A character class inside brackets: copy through `:]`.
                            let start = i;
                            i += 2;
                            while i + 1 < src.len() && !(src[i] == b':' && src[i + 1] == b']') {
                                i += 1;
                            }
                            i = (i + 2).min(src.len());
                            s.extend_from_slice(&src[start..i]);
                        }
                        Some(b']') if in_bracket => {
                            in_bracket = false;
                            s.push(b']');
                            i += 1;
                        }
                        Some(&b) => {
                            s.push(b);
                            i += 1;
                        }
                    }
                }
                push(&mut out, Tok::Regex(s));
            }
            b'0'..=b'9' | b'.' if c != b'.' || src.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let (n, next) = number(src, i);
                push(&mut out, Tok::Number(n));
                i = next;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = i;
                while i < src.len() && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
                    i += 1;
                }
                let word = String::from_utf8_lossy(&src[start..i]).into_owned();
                let gawk = (!posix)
                    .then(|| GAWK_BUILTINS.iter().find(|b| **b == word))
                    .flatten();
                let tok = if let Some(k) = keyword(&word, posix) {
                    k
                } else if let Some(b) = BUILTINS.iter().find(|b| **b == word).or(gawk) {
                    Tok::Builtin(b)
                } else if src.get(i) == Some(&b'(') {
                    Tok::FuncName(word)
                } else {
                    Tok::Name(word)
                };
                push(&mut out, tok);
            }
            _ => {
                let two = src.get(i + 1).copied();
                let three = src.get(i + 2).copied();
                let (tok, n) = match (c, two) {
                    // `**` and `**=` are gawk's (syntax errors under --posix).
                    (b'*', Some(b'*')) if three == Some(b'=') && !posix => (Tok::PowAssign, 3),
                    (b'*', Some(b'*')) if !posix => (Tok::Caret, 2),
                    (b'+', Some(b'+')) => (Tok::Incr, 2),
                    (b'-', Some(b'-')) => (Tok::Decr, 2),
                    (b'+', Some(b'=')) => (Tok::AddAssign, 2),
                    (b'-', Some(b'=')) => (Tok::SubAssign, 2),
                    (b'*', Some(b'=')) => (Tok::MulAssign, 2),
                    (b'/', Some(b'=')) => (Tok::DivAssign, 2),
                    (b'%', Some(b'=')) => (Tok::ModAssign, 2),
                    (b'^', Some(b'=')) => (Tok::PowAssign, 2),
                    (b'=', Some(b'=')) => (Tok::Eq, 2),
                    (b'!', Some(b'=')) => (Tok::Ne, 2),
                    (b'!', Some(b'~')) => (Tok::NoMatch, 2),
                    (b'<', Some(b'=')) => (Tok::Le, 2),
                    (b'>', Some(b'=')) => (Tok::Ge, 2),
                    (b'>', Some(b'>')) => (Tok::Append, 2),
                    (b'&', Some(b'&')) => (Tok::And, 2),
                    (b'|', Some(b'|')) => (Tok::Or, 2),
                    (b'{', _) => (Tok::LBrace, 1),
                    (b'}', _) => (Tok::RBrace, 1),
                    (b'(', _) => (Tok::LParen, 1),
                    (b')', _) => (Tok::RParen, 1),
                    (b'[', _) => (Tok::LBracket, 1),
                    (b']', _) => (Tok::RBracket, 1),
                    (b';', _) => (Tok::Semi, 1),
                    (b',', _) => (Tok::Comma, 1),
                    (b'+', _) => (Tok::Plus, 1),
                    (b'-', _) => (Tok::Minus, 1),
                    (b'*', _) => (Tok::Star, 1),
                    (b'/', _) => (Tok::Slash, 1),
                    (b'%', _) => (Tok::Percent, 1),
                    (b'^', _) => (Tok::Caret, 1),
                    (b'!', _) => (Tok::Not, 1),
                    (b'>', _) => (Tok::Gt, 1),
                    (b'<', _) => (Tok::Lt, 1),
                    (b'|', _) => (Tok::Pipe, 1),
                    (b'?', _) => (Tok::Question, 1),
                    (b':', _) => (Tok::Colon, 1),
                    (b'~', _) => (Tok::Tilde, 1),
                    (b'$', _) => (Tok::Dollar, 1),
                    (b'=', _) => (Tok::Assign, 1),
                    _ => {
                        let ch =
                            String::from_utf8_lossy(&src[i..(i + 1).min(src.len())]).into_owned();
                        return Err((format!("invalid character '{ch}'"), line, col));
                    }
                };
                push(&mut out, tok);
                i += n;
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        line,
        col: i - line_start + 1,
    });
    Ok(out)
}

/// Whether a `/` after `prev` starts a regex (rather than dividing).
fn regex_allowed(prev: Option<&Tok>) -> bool {
    !matches!(
        prev,
        Some(
            Tok::Number(_)
                | Tok::Str(_)
                | Tok::Name(_)
                | Tok::RParen
                | Tok::RBracket
                | Tok::Dollar
                | Tok::Incr
                | Tok::Decr
                | Tok::Builtin(_)
        )
    )
}

/// Scan a number at `i`: its value and the index after it (decimal, and `0x` hex as gawk).
fn number(src: &[u8], mut i: usize) -> (f64, usize) {
    let start = i;
    if src[i] == b'0' && matches!(src.get(i + 1), Some(b'x' | b'X')) {
        let mut j = i + 2;
        let mut v = 0f64;
        while let Some(d) = src.get(j).and_then(|&b| (b as char).to_digit(16)) {
            v = v * 16.0 + f64::from(d);
            j += 1;
        }
        if j > i + 2 {
            return (v, j);
        }
    }
    while i < src.len() && src[i].is_ascii_digit() {
        i += 1;
    }
    if src.get(i) == Some(&b'.') {
        i += 1;
        while i < src.len() && src[i].is_ascii_digit() {
            i += 1;
        }
    }
    if matches!(src.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(src.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if src.get(j).is_some_and(u8::is_ascii_digit) {
            while j < src.len() && src[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    let text = std::str::from_utf8(&src[start..i]).unwrap_or("0");
    (text.parse().unwrap_or(0.0), i)
}

/// Decode one escape sequence starting after the backslash at `i`; returns the next index.
/// `hex`: gawk's `\xHH` (off under `--posix`, where `\x` is `x`).
pub fn escape(src: &[u8], i: usize, out: &mut Vec<u8>, hex: bool) -> usize {
    let Some(&c) = src.get(i) else {
        out.push(b'\\');
        return i;
    };
    let simple = match c {
        b'n' => Some(b'\n'),
        b't' => Some(b'\t'),
        b'r' => Some(b'\r'),
        b'\\' => Some(b'\\'),
        b'"' => Some(b'"'),
        b'/' => Some(b'/'),
        b'a' => Some(7),
        b'b' => Some(8),
        b'f' => Some(12),
        b'v' => Some(11),
        _ => None,
    };
    if let Some(b) = simple {
        out.push(b);
        return i + 1;
    }
    if hex && c == b'x' && src.get(i + 1).is_some_and(u8::is_ascii_hexdigit) {
        // gawk: at most two hex digits.
        let mut v = 0u32;
        let mut j = i + 1;
        while j < i + 3 && j < src.len() && src[j].is_ascii_hexdigit() {
            v = v * 16 + (src[j] as char).to_digit(16).unwrap_or(0);
            j += 1;
        }
        out.push(v as u8);
        return j;
    }
    if (b'0'..=b'7').contains(&c) {
        let mut v = 0u32;
        let mut j = i;
        while j < i + 3 && j < src.len() && (b'0'..=b'7').contains(&src[j]) {
            v = v * 8 + u32::from(src[j] - b'0');
            j += 1;
        }
        out.push((v & 0xff) as u8);
        return j;
    }
    // Unknown escapes keep the character (gawk drops the backslash, with a warning).
    out.push(c);
    i + 1
}

/// Process escapes in a command-line assignment value (`-v x='a\tb'`); `hex` as for
/// [`escape`].
pub fn unescape(s: &[u8], hex: bool) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'\\' {
            if i + 1 >= s.len() {
                out.push(b'\\');
                break;
            }
            i = escape(s, i + 1, &mut out, hex);
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        lex(s.as_bytes(), false)
            .unwrap_or_default()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn division_and_regex() {
        assert_eq!(
            kinds("a / 2"),
            vec![
                Tok::Name("a".into()),
                Tok::Slash,
                Tok::Number(2.0),
                Tok::Eof
            ]
        );
        assert_eq!(
            kinds("/a\\/b/"),
            vec![Tok::Regex(b"a/b".to_vec()), Tok::Eof]
        );
        assert_eq!(kinds("f(1)")[0], Tok::FuncName("f".into()));
        assert_eq!(kinds("\"a\\tb\"")[0], Tok::Str(b"a\tb".to_vec()));
        assert_eq!(unescape(b"x\\ny\\", true), b"x\ny\\".to_vec());
    }
}
