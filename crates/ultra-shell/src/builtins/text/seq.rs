//! `seq`, exact on decimals.

use std::io::{BufWriter, Write};

use crate::command::{Builtin, Cx, Example, Io};

use super::usage_error;

/// `seq [-w] [-s SEP] [FIRST [INCR]] LAST`.
pub static SEQ: Builtin = Builtin::new("seq", "seq [-w] [-s SEP] [FIRST [INCR]] LAST", &seq)
    .example(Example::new(&["3"], "1\n2\n3\n"));

/// A decimal operand: value scaled by 10^prec, digits after the point, width as typed.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Dec {
    val: i128,
    prec: u32,
    width: usize,
    /// Written with a minus sign (so `-0` prints as written).
    neg: bool,
}

fn parse_dec(s: &str) -> Option<Dec> {
    let t = s.trim_start_matches([' ', '\t']);
    let t = t.strip_prefix('+').unwrap_or(t);
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t),
    };
    let (int, frac) = match body.split_once('.') {
        Some((a, b)) => (a, b),
        None => (body, ""),
    };
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 30
    {
        return None;
    }
    let digits = format!("{int}{frac}");
    let mut val: i128 = if digits.is_empty() {
        0
    } else {
        digits.parse().ok()?
    };
    if neg {
        val = -val;
    }
    Some(Dec {
        val,
        prec: frac.len() as u32,
        width: t.len(),
        neg,
    })
}

fn rescale(d: Dec, prec: u32) -> Option<i128> {
    d.val.checked_mul(10i128.checked_pow(prec - d.prec)?)
}

fn fmt_dec(v: i128, prec: u32, width: usize) -> String {
    let neg = v < 0;
    let a = v.unsigned_abs();
    let p = 10u128.pow(prec);
    let mut s = if prec == 0 {
        a.to_string()
    } else {
        format!("{}.{:0w$}", a / p, a % p, w = prec as usize)
    };
    let w = width.saturating_sub(usize::from(neg));
    if s.len() < w {
        s = format!("{}{s}", "0".repeat(w - s.len()));
    }
    if neg {
        s.insert(0, '-');
    }
    s
}

fn seq(args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
    // Negative numbers are operands, not options.
    let mut sep = "\n".to_string();
    let mut equal = false;
    let mut ops: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if a == "--" {
            ops.extend(args[i..].iter().map(String::as_str));
            break;
        }
        let numeric = a.len() > 1
            && a.starts_with('-')
            && a[1..].starts_with(|c: char| c.is_ascii_digit() || c == '.');
        if a.len() > 1 && a.starts_with('-') && !numeric {
            if a == "--equal-width" {
                equal = true;
                continue;
            }
            if let Some(v) = a.strip_prefix("--separator=") {
                sep = v.to_string();
                continue;
            }
            let body = &a[1..];
            for (j, c) in body.char_indices() {
                match c {
                    'w' => equal = true,
                    's' => {
                        let rest = &body[j + 1..];
                        if !rest.is_empty() {
                            sep = rest.to_string();
                        } else if i < args.len() {
                            sep = args[i].clone();
                            i += 1;
                        } else {
                            let m = "option requires an argument -- 's'";
                            return usage_error(io.stderr, "seq", m, SEQ.usage, 1);
                        }
                        break;
                    }
                    _ => {
                        let m = format!("invalid option -- '{c}'");
                        return usage_error(io.stderr, "seq", &m, SEQ.usage, 1);
                    }
                }
            }
            continue;
        }
        ops.push(a);
    }
    if ops.is_empty() {
        return usage_error(io.stderr, "seq", "missing operand", SEQ.usage, 1);
    }
    if ops.len() > 3 {
        let m = format!("extra operand '{}'", ops[3]);
        return usage_error(io.stderr, "seq", &m, SEQ.usage, 1);
    }
    let mut nums = Vec::new();
    for s in &ops {
        match parse_dec(s) {
            Some(d) => nums.push(d),
            None => {
                let m = format!("invalid floating point argument: '{s}'");
                return usage_error(io.stderr, "seq", &m, SEQ.usage, 1);
            }
        }
    }
    let one = Dec {
        val: 1,
        prec: 0,
        width: 1,
        neg: false,
    };
    let (first, step, last) = match nums.len() {
        1 => (one, one, nums[0]),
        2 => (nums[0], one, nums[1]),
        _ => (nums[0], nums[1], nums[2]),
    };
    if step.val == 0 {
        let m = format!("invalid Zero increment value: '{}'", ops[1]);
        return usage_error(io.stderr, "seq", &m, SEQ.usage, 1);
    }
    let prec = first.prec.max(step.prec);
    let width = if equal {
        let fw =
            first.width + (prec - first.prec) as usize + usize::from(first.prec == 0 && prec > 0);
        let mut lw = (last.width + prec as usize).saturating_sub(last.prec as usize);
        if last.prec > 0 && prec == 0 {
            lw = lw.saturating_sub(1);
        }
        if last.prec == 0 && prec > 0 {
            lw += 1;
        }
        fw.max(lw)
    } else {
        0
    };
    let big = prec.max(last.prec);
    let (Some(f), Some(s), Some(l), Some(p)) = (
        rescale(first, big),
        rescale(step, big),
        rescale(last, big),
        10i128.checked_pow(big - prec),
    ) else {
        let _ = writeln!(io.stderr, "seq: number out of range");
        return 1;
    };
    let mut out = BufWriter::new(&mut *io.stdout);
    let r = (|| -> std::io::Result<()> {
        let mut x = f;
        let mut n = 0u64;
        while (s > 0 && x <= l) || (s < 0 && x >= l) {
            if n > 0 {
                out.write_all(sep.as_bytes())?;
            }
            if n == 0 && x == 0 && first.neg {
                // `seq -0 3` starts at `-0`, as GNU's does.
                out.write_all(b"-")?;
                out.write_all(fmt_dec(0, prec, width.saturating_sub(1)).as_bytes())?;
            } else {
                out.write_all(fmt_dec(x / p, prec, width).as_bytes())?;
            }
            n += 1;
            match x.checked_add(s) {
                Some(v) => x = v,
                None => break,
            }
        }
        if n > 0 {
            out.write_all(b"\n")?;
        }
        out.flush()
    })();
    i32::from(r.is_err())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn decimals() {
        assert_eq!(
            parse_dec("-1.50").unwrap(),
            Dec {
                val: -150,
                prec: 2,
                width: 5,
                neg: true,
            }
        );
        assert_eq!(fmt_dec(-5, 1, 5), "-00.5");
    }
}
