//! `printf`/`sprintf` formatting as C does it: `%c %d %i %o %x %X %u %e %E %f %F %g %G %s %%`
//! with the `-+ #0` flags, width, precision and `*`.

use super::value::{Value, looks_numeric, push_num};

/// Conversion flags, width and precision.
#[derive(Debug, Default, Clone)]
pub struct Flags {
    pub left: bool,
    pub plus: bool,
    pub space: bool,
    pub alt: bool,
    pub zero: bool,
    pub width: usize,
    pub prec: Option<usize>,
}

fn pad(out: &mut Vec<u8>, sign: &[u8], body: &[u8], f: &Flags, zero_ok: bool) {
    let len = sign.len() + body.len();
    let fill = f.width.saturating_sub(len);
    if f.left {
        out.extend_from_slice(sign);
        out.extend_from_slice(body);
        out.resize(out.len() + fill, b' ');
    } else if f.zero && zero_ok {
        out.extend_from_slice(sign);
        out.resize(out.len() + fill, b'0');
        out.extend_from_slice(body);
    } else {
        out.resize(out.len() + fill, b' ');
        out.extend_from_slice(sign);
        out.extend_from_slice(body);
    }
}

fn sign_of(neg: bool, f: &Flags) -> &'static [u8] {
    if neg {
        b"-"
    } else if f.plus {
        b"+"
    } else if f.space {
        b" "
    } else {
        b""
    }
}

/// `%e` digits of |x| with `prec` decimals: mantissa and exponent.
fn exp_parts(x: f64, prec: usize) -> (String, i32) {
    let s = crate::numfmt::sci(x, prec);
    match s.split_once('e') {
        Some((m, e)) => (m.to_string(), e.parse().unwrap_or(0)),
        None => (s, 0),
    }
}

fn push_exp(body: &mut String, e: i32, upper: bool) {
    body.push(if upper { 'E' } else { 'e' });
    body.push(if e < 0 { '-' } else { '+' });
    body.push_str(&format!("{:02}", e.abs()));
}

fn strip_zeros(s: &mut String) {
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
}

/// Format a float with conversion `conv` (`e E f F g G`).
pub fn fmt_float(out: &mut Vec<u8>, x: f64, conv: u8, default_prec: usize, f: &Flags) {
    let prec = f.prec.unwrap_or(default_prec);
    let neg = x.is_sign_negative() && !x.is_nan();
    let a = x.abs();
    let upper = conv.is_ascii_uppercase();
    if !x.is_finite() {
        // gawk prints these whole, signed, without padding or precision.
        let body = match (x.is_nan(), upper) {
            (true, false) => "nan",
            (true, true) => "NAN",
            (false, false) => "inf",
            (false, true) => "INF",
        };
        out.push(if x.is_sign_negative() { b'-' } else { b'+' });
        out.extend_from_slice(body.as_bytes());
        return;
    }
    let mut body = String::new();
    match conv.to_ascii_lowercase() {
        b'e' => {
            let (m, e) = exp_parts(a, prec);
            body.push_str(&m);
            if f.alt && prec == 0 {
                body.push('.');
            }
            push_exp(&mut body, e, upper);
        }
        b'f' => {
            body = crate::numfmt::fixed(a, prec);
            if f.alt && prec == 0 {
                body.push('.');
            }
        }
        _ => {
            let p = if prec == 0 { 1 } else { prec };
            let (_, x_exp) = if a == 0.0 {
                (String::new(), 0)
            } else {
                exp_parts(a, p - 1)
            };
            if (x_exp as i64) < p as i64 && x_exp >= -4 {
                body = crate::numfmt::fixed(a, (p as i64 - 1 - x_exp as i64).max(0) as usize);
                if f.alt {
                    if !body.contains('.') {
                        body.push('.');
                    }
                } else {
                    strip_zeros(&mut body);
                }
            } else {
                let (mut m, e) = exp_parts(a, p - 1);
                if f.alt {
                    if !m.contains('.') {
                        m.push('.');
                    }
                } else {
                    strip_zeros(&mut m);
                }
                body = m;
                push_exp(&mut body, e, upper);
            }
        }
    }
    pad(out, sign_of(neg, f), body.as_bytes(), f, true);
}

fn fmt_int(out: &mut Vec<u8>, x: f64, conv: u8, f: &Flags) {
    if !x.is_finite() {
        fmt_float(out, x, if conv == b'X' { b'G' } else { b'g' }, 6, f);
        return;
    }
    let t = x.trunc();
    let (neg, digits) = match conv {
        b'd' | b'i' => {
            let neg = t < 0.0;
            let a = t.abs();
            let d = if a < 1.8e19 {
                (a as u64).to_string()
            } else {
                format!("{a:.0}")
            };
            (neg, d)
        }
        _ => {
            let u = if t < 0.0 {
                (t as i64) as u64
            } else if t >= 1.8e19 {
                u64::MAX
            } else {
                t as u64
            };
            let d = match conv {
                b'o' => format!("{u:o}"),
                b'x' => format!("{u:x}"),
                b'X' => format!("{u:X}"),
                _ => u.to_string(),
            };
            (false, d)
        }
    };
    let mut body = String::new();
    let mut digits = digits;
    if let Some(p) = f.prec {
        if p == 0 && digits == "0" {
            digits.clear();
        }
        if digits.len() < p {
            body.push_str(&"0".repeat(p - digits.len()));
        }
    }
    body.push_str(&digits);
    let mut prefix: Vec<u8> = sign_of(neg, f).to_vec();
    if matches!(conv, b'o' | b'x' | b'X' | b'u') {
        prefix.clear();
    }
    if f.alt {
        match conv {
            b'o' if t != 0.0 => body.insert(0, '0'),
            b'x' if t != 0.0 => prefix.extend_from_slice(b"0x"),
            b'X' if t != 0.0 => prefix.extend_from_slice(b"0X"),
            _ => {}
        }
    }
    pad(out, &prefix, body.as_bytes(), f, f.prec.is_none());
}

fn to_str(v: &Value, convfmt: &[u8], out: &mut Vec<u8>) {
    match v {
        Value::Uninit => {}
        Value::Num(n) => push_num(*n, convfmt, out),
        Value::Str(s) | Value::StrNum(s) => out.extend_from_slice(s),
    }
}

/// Format `args` by `fmt`, appending to `out`.
///
/// # Errors
/// When the format needs more arguments than given (gawk's fatal error).
pub fn sprintf(
    out: &mut Vec<u8>,
    fmt: &[u8],
    args: &[Value],
    convfmt: &[u8],
) -> Result<(), String> {
    let mut ai = 0;
    let mut i = 0;
    // gawk's `%n$` takes argument n; a format uses it on every conversion or on none.
    let mut positional: Option<bool> = None;
    let mut next_arg = |ai: &mut usize, pos: Option<usize>| -> Result<Value, String> {
        if *positional.get_or_insert(pos.is_some()) != pos.is_some() {
            return Err("must use `count$' on all formats or none".into());
        }
        if let Some(n) = pos {
            return match n.checked_sub(1).and_then(|k| args.get(k)) {
                Some(v) => Ok(v.clone()),
                None => Err(format!(
                    "argument index {n} greater than total number of supplied arguments"
                )),
            };
        }
        let v = args
            .get(*ai)
            .cloned()
            .ok_or_else(|| "not enough arguments to satisfy format string".to_string())?;
        *ai += 1;
        Ok(v)
    };
    // `n$` at `i`: the number and the index after the `$`.
    let dollar = |i: usize| -> Option<(usize, usize)> {
        let mut j = i;
        let mut n: usize = 0;
        while j < fmt.len() && fmt[j].is_ascii_digit() {
            n = n
                .saturating_mul(10)
                .saturating_add(usize::from(fmt[j] - b'0'));
            j += 1;
        }
        (j > i && fmt.get(j) == Some(&b'$')).then_some((n, j + 1))
    };
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' {
            let start = i;
            while i < fmt.len() && fmt[i] != b'%' {
                i += 1;
            }
            out.extend_from_slice(&fmt[start..i]);
            continue;
        }
        let spec_start = i;
        i += 1;
        let pos = dollar(i).map(|(n, next)| {
            i = next;
            n
        });
        let mut f = Flags::default();
        while i < fmt.len() {
            match fmt[i] {
                b'-' => f.left = true,
                b'+' => f.plus = true,
                b' ' => f.space = true,
                b'#' => f.alt = true,
                b'0' => f.zero = true,
                // Thousands grouping: none in the C locale.
                b'\'' => {}
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            let wpos = dollar(i + 1).map(|(n, next)| {
                i = next - 1;
                n
            });
            let w = next_arg(&mut ai, wpos)?.num();
            if w < 0.0 {
                f.left = true;
            }
            // `as` saturates: 2^40 stays 2^40 and fails the check below.
            f.width = w.abs() as usize;
            i += 1;
        } else {
            while i < fmt.len() && fmt[i].is_ascii_digit() {
                f.width = f
                    .width
                    .saturating_mul(10)
                    .saturating_add(usize::from(fmt[i] - b'0'));
                i += 1;
            }
        }
        crate::numfmt::check_field(f.width, "field width")?;
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            if fmt.get(i) == Some(&b'*') {
                let ppos = dollar(i + 1).map(|(n, next)| {
                    i = next - 1;
                    n
                });
                let p = next_arg(&mut ai, ppos)?.num();
                f.prec = if p < 0.0 { None } else { Some(p as usize) };
                i += 1;
            } else {
                let mut p: usize = 0;
                while i < fmt.len() && fmt[i].is_ascii_digit() {
                    p = p
                        .saturating_mul(10)
                        .saturating_add(usize::from(fmt[i] - b'0'));
                    i += 1;
                }
                f.prec = Some(p);
            }
            if let Some(p) = f.prec {
                crate::numfmt::check_field(p, "precision")?;
            }
        }
        while i < fmt.len() && matches!(fmt[i], b'h' | b'l' | b'L' | b'q' | b'j' | b'z' | b't') {
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[spec_start..]);
            break;
        };
        i += 1;
        match conv {
            b'%' => out.push(b'%'),
            b'd' | b'i' | b'o' | b'x' | b'X' | b'u' => {
                let v = next_arg(&mut ai, pos)?;
                fmt_int(out, v.num(), conv, &f);
            }
            b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => {
                let v = next_arg(&mut ai, pos)?;
                fmt_float(out, v.num(), conv, 6, &f);
            }
            b'c' => {
                let v = next_arg(&mut ai, pos)?;
                let num = match &v {
                    Value::Num(n) => Some(*n),
                    Value::StrNum(s) => looks_numeric(s),
                    _ => None,
                };
                let body: Vec<u8> = match num {
                    Some(n) => vec![(n as i64 & 0xff) as u8],
                    None => {
                        let mut s = Vec::new();
                        to_str(&v, convfmt, &mut s);
                        s.truncate(1);
                        if s.is_empty() {
                            s.push(0);
                        }
                        s
                    }
                };
                pad(out, b"", &body, &f, false);
            }
            b's' => {
                let v = next_arg(&mut ai, pos)?;
                let mut s = Vec::new();
                to_str(&v, convfmt, &mut s);
                if let Some(p) = f.prec {
                    s.truncate(p);
                }
                pad(out, b"", &s, &f, false);
            }
            _ => out.extend_from_slice(&fmt[spec_start..i]),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp(fmt: &str, args: &[Value]) -> String {
        let mut out = Vec::new();
        let _ = sprintf(&mut out, fmt.as_bytes(), args, b"%.6g");
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn formats() {
        let n = Value::Num;
        assert_eq!(
            sp("%5.2f|%-4d|%04d", &[n(3.14259), n(7.0), n(-5.0)]),
            " 3.14|7   |-005"
        );
        assert_eq!(
            sp(
                "%e %G %g %g",
                &[n(12345.678), n(1e-10), n(100000.0), n(1e6)]
            ),
            "1.234568e+04 1E-10 100000 1e+06"
        );
        assert_eq!(
            sp(
                "%#x %#o %+d % d %x",
                &[n(255.0), n(8.0), n(5.0), n(5.0), n(-1.0)]
            ),
            "0xff 010 +5  5 ffffffffffffffff"
        );
        assert_eq!(
            sp(
                "%c%c %.2s %5s%%",
                &[
                    n(65.0),
                    Value::str(b"hi"),
                    Value::str(b"abc"),
                    Value::str(b"x")
                ]
            ),
            "Ah ab     x%"
        );
        assert_eq!(
            sp("%.3d %.0d|%*d", &[n(5.0), n(0.0), n(4.0), n(1.0)]),
            "005 |   1"
        );
        assert_eq!(
            sp("%g %g %#g", &[n(0.0001), n(123456789.0), n(1.5)]),
            "0.0001 1.23457e+08 1.50000"
        );
    }
}
