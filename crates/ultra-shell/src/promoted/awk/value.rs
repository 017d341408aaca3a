//! awk values (uninitialized, number, string, and strnum from input) and the conversions
//! between strings and numbers.

use std::rc::Rc;

/// A shared byte string. A `Vec` (not `[u8]`) so that `s = s x` can append in place when
/// the variable holds the only reference, instead of copying the whole string each time.
pub type Str = Rc<Vec<u8>>;

/// An awk value.
#[derive(Debug, Clone, Default)]
pub enum Value {
    #[default]
    Uninit,
    Num(f64),
    Str(Str),
    /// A string from input (fields, getline, split, `-v`): compares as a number when it
    /// looks like one.
    StrNum(Str),
}

impl Value {
    /// The numeric value.
    pub fn num(&self) -> f64 {
        match self {
            Value::Uninit => 0.0,
            Value::Num(n) => *n,
            Value::Str(s) | Value::StrNum(s) => str_to_num(s),
        }
    }

    /// Truth: numbers are true when non-zero, strings when non-empty, strnums by number
    /// when they look numeric.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Uninit => false,
            Value::Num(n) => *n != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::StrNum(s) => match looks_numeric(s) {
                Some(n) => n != 0.0,
                None => !s.is_empty(),
            },
        }
    }

    /// A strnum from input bytes.
    pub fn input(s: &[u8]) -> Value {
        Value::StrNum(Rc::new(s.to_vec()))
    }

    /// A string value.
    pub fn str(s: &[u8]) -> Value {
        Value::Str(Rc::new(s.to_vec()))
    }

    /// For comparisons: the number when this value counts as numeric.
    pub fn cmp_num(&self) -> Option<f64> {
        match self {
            Value::Uninit => Some(0.0),
            Value::Num(n) => Some(*n),
            Value::Str(_) => None,
            Value::StrNum(s) => looks_numeric(s),
        }
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 11 | 12)
}

/// Scan a number at the start of `s` (after blanks): its value and the index after it;
/// `None` when there is no number.
fn scan(s: &[u8]) -> Option<(f64, usize)> {
    let mut i = 0;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    let start = i;
    let mut neg = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        neg = s[i] == b'-';
        i += 1;
    }
    // Fast path: a short run of digits.
    let digits_start = i;
    let mut v: u64 = 0;
    while i < s.len() && s[i].is_ascii_digit() && i - digits_start < 18 {
        v = v * 10 + u64::from(s[i] - b'0');
        i += 1;
    }
    let nd = i - digits_start;
    let next = s.get(i).copied();
    if nd > 0 && !matches!(next, Some(b'.' | b'e' | b'E' | b'0'..=b'9')) {
        let f = v as f64;
        return Some((if neg { -f } else { f }, i));
    }
    // General case.
    let mut j = digits_start;
    while j < s.len() && s[j].is_ascii_digit() {
        j += 1;
    }
    let mut any = j > digits_start;
    if j < s.len() && s[j] == b'.' {
        j += 1;
        let f0 = j;
        while j < s.len() && s[j].is_ascii_digit() {
            j += 1;
        }
        any |= j > f0;
    }
    if !any {
        // gawk accepts +inf / -nan spelled with a sign.
        // ... and only as a whole word: "+infinity" and "+inf5" are 0.
        let end = digits_start + 3;
        if digits_start > start && s.len() >= end && s.get(end).is_none_or(|&b| is_space(b)) {
            let w = s[digits_start..end].to_ascii_lowercase();
            if w == b"inf" || w == b"nan" {
                let f = if w == b"inf" { f64::INFINITY } else { f64::NAN };
                return Some((if neg { -f } else { f }, digits_start + 3));
            }
        }
        return None;
    }
    if j < s.len() && (s[j] == b'e' || s[j] == b'E') {
        let mut k = j + 1;
        if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
            k += 1;
        }
        if k < s.len() && s[k].is_ascii_digit() {
            while k < s.len() && s[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    let text = std::str::from_utf8(&s[start..j]).ok()?;
    let text = text.strip_prefix('+').unwrap_or(text);
    Some((text.parse().ok()?, j))
}

/// awk's string-to-number: the leading numeric prefix, 0 when none.
pub fn str_to_num(s: &[u8]) -> f64 {
    scan(s).map_or(0.0, |(n, _)| n)
}

/// The number when the whole of `s` (blanks around allowed) is a number.
pub fn looks_numeric(s: &[u8]) -> Option<f64> {
    let (n, mut i) = scan(s)?;
    while i < s.len() && is_space(s[i]) {
        i += 1;
    }
    (i == s.len()).then_some(n)
}

/// Append the decimal digits of an integral `x` (as awk prints integers).
pub fn push_int(x: f64, out: &mut Vec<u8>) -> bool {
    if !x.is_finite() {
        let sign = if x.is_sign_negative() { '-' } else { '+' };
        let word = if x.is_nan() { "nan" } else { "inf" };
        out.extend_from_slice(format!("{sign}{word}").as_bytes());
        return true;
    }
    if x.fract() != 0.0 {
        return false;
    }
    if x.abs() < 1e18 {
        let mut v = x as i64;
        if v == 0 {
            out.push(b'0');
            return true;
        }
        if v < 0 {
            out.push(b'-');
            v = -v;
        }
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        while v > 0 {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
        out.extend_from_slice(&buf[i..]);
    } else {
        out.extend_from_slice(format!("{x:.0}").as_bytes());
    }
    true
}

/// Append `x` as a string: integers as integers, others through `fmt` (CONVFMT/OFMT).
pub fn push_num(x: f64, fmt: &[u8], out: &mut Vec<u8>) {
    if push_int(x, out) {
        return;
    }
    if fmt == b"%.6g" {
        super::format::fmt_float(out, x, b'g', 6, &super::format::Flags::default());
        return;
    }
    let _ = super::format::sprintf(out, fmt, &[Value::Num(x)], b"%.6g");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers() {
        assert_eq!(str_to_num(b"  12abc"), 12.0);
        assert_eq!(str_to_num(b"-3.5e2x"), -350.0);
        assert_eq!(str_to_num(b".5"), 0.5);
        assert_eq!(str_to_num(b"abc"), 0.0);
        assert_eq!(looks_numeric(b" 10 "), Some(10.0));
        assert_eq!(looks_numeric(b"10x"), None);
        assert_eq!(looks_numeric(b"1e3"), Some(1000.0));
        assert_eq!(looks_numeric(b""), None);
        let mut v = Vec::new();
        push_num(0.1 + 0.2, b"%.6g", &mut v);
        push_num(-7.0, b"%.6g", &mut v);
        assert_eq!(v, b"0.3-7".to_vec());
    }
}
