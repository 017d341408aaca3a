//! `printf`, as bash's built-in.

use crate::command::{Builtin, Cx, Example, Io};

/// `printf FORMAT [ARG...]`, as bash's built-in.
pub static PRINTF: Builtin = Builtin::new("printf", "printf format [arguments]", &printf)
    .example(Example::new(&["%s-%d\\n", "a", "5"], "a-5\n"));

/// Backslash escapes of a printf format (`\NNN` octal) or of `%b` (`\0NNN`); the bool is
/// true when `\c` asked to stop all output.
fn printf_escapes(s: &[u8], out: &mut Vec<u8>, is_b: bool) -> bool {
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        i += 1;
        if c != b'\\' || i >= s.len() {
            out.push(c);
            continue;
        }
        let e = s[i];
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'e' | b'E' => out.push(27),
            b'\\' => out.push(b'\\'),
            b'"' if !is_b => out.push(b'"'),
            b'\'' if !is_b => out.push(b'\''),
            b'?' if !is_b => out.push(b'?'),
            b'c' if is_b => return true,
            b'0'..=b'7' => {
                let mut n = 0u32;
                let mut max = 3;
                if is_b && e == b'0' {
                    // \0NNN
                } else {
                    n = u32::from(e - b'0');
                    max = 2;
                }
                for _ in 0..max {
                    match s.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            n = n * 8 + u32::from(d - b'0');
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(n as u8);
            }
            b'x' => {
                let mut n = 0u32;
                let mut k = 0;
                while k < 2 {
                    match s.get(i).and_then(|d| (*d as char).to_digit(16)) {
                        Some(d) => {
                            n = n * 16 + d;
                            i += 1;
                            k += 1;
                        }
                        None => break,
                    }
                }
                if k == 0 {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(n as u8);
                }
            }
            other => {
                out.push(b'\\');
                out.push(other);
            }
        }
    }
    false
}

#[derive(Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    prec: Option<usize>,
}

fn pad(spec: &Spec, body: String, numeric: bool) -> String {
    if body.len() >= spec.width {
        return body;
    }
    let n = spec.width - body.len();
    if spec.left {
        format!("{body}{}", " ".repeat(n))
    } else if spec.zero && numeric {
        // Zeros go after the sign and any 0x prefix.
        let mut cut = 0;
        if body.starts_with(['-', '+', ' ']) {
            cut = 1;
        }
        if body[cut..].starts_with("0x") || body[cut..].starts_with("0X") {
            cut += 2;
        }
        format!("{}{}{}", &body[..cut], "0".repeat(n), &body[cut..])
    } else {
        format!("{}{body}", " ".repeat(n))
    }
}

/// C's `%e` from Rust's: exponent with a sign and at least two digits.
fn fmt_exp(v: f64, prec: usize, upper: bool) -> String {
    let s = crate::numfmt::sci(v, prec);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    let r = format!("{m}e{sign}{:02}", e.abs());
    if upper { r.to_uppercase() } else { r }
}

fn strip_zeros(s: &str) -> String {
    if !s.contains('.') {
        return s.to_string();
    }
    let (m, e) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let m = m.trim_end_matches('0').trim_end_matches('.');
    format!("{m}{e}")
}

fn fmt_float(v: f64, conv: u8, spec: &Spec) -> String {
    let upper = conv.is_ascii_uppercase();
    let mut body = if !v.is_finite() {
        let s = if v.is_nan() { "nan" } else { "inf" };
        let s = if v.is_sign_negative() && !v.is_nan() {
            format!("-{s}")
        } else {
            s.to_string()
        };
        if upper { s.to_uppercase() } else { s }
    } else {
        let prec = spec.prec.unwrap_or(6);
        match conv.to_ascii_lowercase() {
            b'f' => {
                let s = crate::numfmt::fixed(v, prec);
                if spec.alt && prec == 0 {
                    format!("{s}.")
                } else {
                    s
                }
            }
            b'e' => fmt_exp(v, prec, upper),
            _ => {
                let p = if prec == 0 { 1 } else { prec };
                let x = if v == 0.0 {
                    0
                } else {
                    let e = fmt_exp(v, p - 1, false);
                    e.split_once('e')
                        .map_or(0, |(_, e)| e.parse::<i32>().unwrap_or(0))
                };
                let s = if x < -4 || x >= p as i32 {
                    fmt_exp(v, p - 1, upper)
                } else {
                    let fp = (p as i32 - 1 - x).max(0) as usize;
                    crate::numfmt::fixed(v, fp)
                };
                if spec.alt { s } else { strip_zeros(&s) }
            }
        }
    };
    if !body.starts_with('-') {
        if spec.plus {
            body.insert(0, '+');
        } else if spec.space {
            body.insert(0, ' ');
        }
    }
    pad(spec, body, v.is_finite())
}

/// A numeric argument as bash reads it; `Err` carries the value used after a complaint.
fn printf_int(arg: &str) -> Result<i128, i128> {
    let t = arg.trim_start();
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map_or(0, |c| i128::from(u32::from(c))));
    }
    let (neg, body) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let (radix, digits) =
        if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
            (16, h)
        } else if body.len() > 1 && body.starts_with('0') {
            (8, &body[1..])
        } else {
            (10, body)
        };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let v = i128::from_str_radix(&digits[..end], radix).unwrap_or(0);
    let v = if neg { -v } else { v };
    if t.is_empty() || end < digits.len() || (end == 0 && radix != 8) {
        Err(v)
    } else {
        Ok(v)
    }
}

fn printf_float(arg: &str) -> Result<f64, f64> {
    let t = arg.trim();
    if let Some(rest) = t.strip_prefix(['\'', '"']) {
        return Ok(rest.chars().next().map_or(0.0, |c| f64::from(u32::from(c))));
    }
    if let Ok(v) = t.parse::<f64>() {
        return Ok(v);
    }
    if let Ok(v) = printf_int(t) {
        return Ok(v as f64);
    }
    // The longest parsable prefix.
    let mut best = 0.0;
    for i in (1..t.len()).rev().filter(|&i| t.is_char_boundary(i)) {
        if let Ok(v) = t[..i].parse::<f64>() {
            best = v;
            break;
        }
    }
    Err(best)
}

fn printf(args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
    let mut args = args;
    if let Some(a) = args.first() {
        if a == "--" {
            args = &args[1..];
        } else if a.len() > 1 && a.starts_with('-') {
            let _ = writeln!(io.stderr, "printf: {}: invalid option", &a[..2]);
            let _ = writeln!(io.stderr, "printf: usage: {}", PRINTF.usage);
            return 2;
        }
    }
    let Some(format) = args.first() else {
        let _ = writeln!(io.stderr, "printf: usage: {}", PRINTF.usage);
        return 2;
    };
    let fmt = format.as_bytes();
    let rest = &args[1..];
    let mut next = 0usize;
    let mut status = 0;
    let mut out: Vec<u8> = Vec::new();
    'outer: loop {
        let start_next = next;
        let mut i = 0;
        let mut lit = Vec::new();
        while i < fmt.len() {
            let c = fmt[i];
            if c == b'\\' {
                // Collect the escape with its following literal run.
                let mut j = i + 1;
                if j < fmt.len() {
                    j += 1;
                    while j < fmt.len()
                        && j < i + 4
                        && fmt[j].is_ascii_hexdigit()
                        && matches!(fmt[i + 1], b'0'..=b'7' | b'x')
                    {
                        j += 1;
                    }
                }
                lit.extend_from_slice(&fmt[i..j]);
                i = j;
                continue;
            }
            if c != b'%' {
                lit.push(c);
                i += 1;
                continue;
            }
            printf_escapes(&lit, &mut out, false);
            lit.clear();
            i += 1;
            if fmt.get(i) == Some(&b'%') {
                out.push(b'%');
                i += 1;
                continue;
            }
            let mut spec = Spec::default();
            while let Some(&f) = fmt.get(i) {
                match f {
                    b'-' => spec.left = true,
                    b'+' => spec.plus = true,
                    b' ' => spec.space = true,
                    b'#' => spec.alt = true,
                    b'0' => spec.zero = true,
                    _ => break,
                }
                i += 1;
            }
            let take_arg = |next: &mut usize| -> Option<&String> {
                let a = rest.get(*next);
                if a.is_some() {
                    *next += 1;
                }
                a
            };
            if fmt.get(i) == Some(&b'*') {
                i += 1;
                let w = take_arg(&mut next).map_or(0, |a| printf_int(a).unwrap_or_else(|v| v));
                if w < 0 {
                    spec.left = true;
                }
                spec.width = usize::try_from(w.unsigned_abs()).unwrap_or(0);
            } else {
                while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                    spec.width = spec
                        .width
                        .saturating_mul(10)
                        .saturating_add(usize::from(d - b'0'));
                    i += 1;
                }
            }
            if fmt.get(i) == Some(&b'.') {
                i += 1;
                let mut p = Some(0usize);
                if fmt.get(i) == Some(&b'*') {
                    i += 1;
                    let v = take_arg(&mut next).map_or(0, |a| printf_int(a).unwrap_or_else(|v| v));
                    // A negative precision is taken as if none were given (C, GNU).
                    p = usize::try_from(v).ok();
                } else {
                    while let Some(d) = fmt.get(i).filter(|d| d.is_ascii_digit()) {
                        p = p.map(|p| p.saturating_mul(10).saturating_add(usize::from(d - b'0')));
                        i += 1;
                    }
                }
                spec.prec = p;
            }
            // A width or precision is an allocation of that size: bounded.
            let limits = crate::numfmt::check_field(spec.width, "field width").and_then(|_| {
                spec.prec
                    .map_or(Ok(0), |p| crate::numfmt::check_field(p, "precision"))
            });
            if let Err(e) = limits {
                let _ = writeln!(io.stderr, "printf: {e}");
                status = 1;
                break 'outer;
            }
            while matches!(
                fmt.get(i),
                Some(b'l' | b'h' | b'L' | b'q' | b'j' | b'z' | b't')
            ) {
                i += 1;
            }
            let Some(&conv) = fmt.get(i) else {
                let _ = writeln!(io.stderr, "printf: `%': missing format character");
                status = 1;
                break 'outer;
            };
            i += 1;
            let arg = take_arg(&mut next);
            match conv {
                b's' | b'b' => {
                    let a = arg.map_or("", String::as_str);
                    let mut bytes = Vec::new();
                    let stop = if conv == b'b' {
                        printf_escapes(a.as_bytes(), &mut bytes, true)
                    } else {
                        bytes.extend_from_slice(a.as_bytes());
                        false
                    };
                    if let Some(p) = spec.prec {
                        bytes.truncate(p);
                    }
                    let n = spec.width.saturating_sub(bytes.len());
                    if !spec.left {
                        out.extend(std::iter::repeat_n(b' ', n));
                    }
                    out.extend_from_slice(&bytes);
                    if spec.left {
                        out.extend(std::iter::repeat_n(b' ', n));
                    }
                    if stop {
                        break 'outer;
                    }
                }
                b'c' => {
                    let a = arg.map_or("", String::as_str);
                    let ch = a.as_bytes().first().map(|b| vec![*b]).unwrap_or_default();
                    let n = spec.width.saturating_sub(ch.len());
                    if !spec.left {
                        out.extend(std::iter::repeat_n(b' ', n));
                    }
                    out.extend_from_slice(&ch);
                    if spec.left {
                        out.extend(std::iter::repeat_n(b' ', n));
                    }
                }
                b'd' | b'i' | b'u' | b'x' | b'X' | b'o' => {
                    let v = match arg.map(|a| (a, printf_int(a))) {
                        None => 0,
                        Some((_, Ok(v))) => v,
                        Some((a, Err(v))) => {
                            let _ = writeln!(io.stderr, "printf: {a}: invalid number");
                            status = 1;
                            v
                        }
                    };
                    let v = v.clamp(i128::from(i64::MIN), i128::from(u64::MAX));
                    let signed = matches!(conv, b'd' | b'i');
                    let (neg, mag): (bool, u128) = if signed {
                        let v = v.clamp(i128::from(i64::MIN), i128::from(i64::MAX));
                        (v < 0, v.unsigned_abs())
                    } else if v < 0 {
                        (false, u128::from((v as i64) as u64))
                    } else {
                        (false, v as u128)
                    };
                    let mut digits = match conv {
                        b'x' => format!("{mag:x}"),
                        b'X' => format!("{mag:X}"),
                        b'o' => format!("{mag:o}"),
                        _ => mag.to_string(),
                    };
                    if let Some(p) = spec.prec {
                        if p == 0 && mag == 0 {
                            digits.clear();
                        }
                        if digits.len() < p {
                            digits = format!("{}{digits}", "0".repeat(p - digits.len()));
                        }
                    }
                    if spec.alt {
                        match conv {
                            b'o' if !digits.starts_with('0') => digits.insert(0, '0'),
                            b'x' if mag != 0 => digits.insert_str(0, "0x"),
                            b'X' if mag != 0 => digits.insert_str(0, "0X"),
                            _ => {}
                        }
                    }
                    if neg {
                        digits.insert(0, '-');
                    } else if signed && spec.plus {
                        digits.insert(0, '+');
                    } else if signed && spec.space {
                        digits.insert(0, ' ');
                    }
                    let mut s2 = spec;
                    if spec.prec.is_some() {
                        s2.zero = false;
                    }
                    out.extend_from_slice(pad(&s2, digits, true).as_bytes());
                }
                b'f' | b'F' | b'e' | b'E' | b'g' | b'G' => {
                    let v = match arg.map(|a| (a, printf_float(a))) {
                        None => 0.0,
                        Some((_, Ok(v))) => v,
                        Some((a, Err(v))) => {
                            let _ = writeln!(io.stderr, "printf: {a}: invalid number");
                            status = 1;
                            v
                        }
                    };
                    out.extend_from_slice(fmt_float(v, conv, &spec).as_bytes());
                }
                other => {
                    let _ = writeln!(
                        io.stderr,
                        "printf: `{}': invalid format character",
                        other as char
                    );
                    status = 1;
                    break 'outer;
                }
            }
        }
        printf_escapes(&lit, &mut out, false);
        if next >= rest.len() || next == start_next {
            break;
        }
    }
    if io.stdout.write_all(&out).is_err() {
        return 1;
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_formats() {
        assert_eq!(fmt_exp(31415.9, 2, false), "3.14e+04");
        assert_eq!(fmt_float(0.0001, b'g', &Spec::default()), "0.0001");
        assert_eq!(fmt_float(1e-5, b'g', &Spec::default()), "1e-05");
        assert_eq!(
            fmt_float(123456789.0, b'g', &Spec::default()),
            "1.23457e+08"
        );
        assert_eq!(printf_int("0x1f"), Ok(31));
        assert_eq!(printf_int("'A"), Ok(65));
        assert_eq!(printf_int("12abc"), Err(12));
    }
}
