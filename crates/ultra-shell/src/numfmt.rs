//! Number formatting shared by `printf` and awk's `printf`/`sprintf`, with the limits a
//! server needs: a field width or precision is at most [`MAX_FIELD`] (a larger one is an
//! error, not an allocation of that size), and any precision formats without panicking.

/// The widest field width or precision a format may ask for.
pub const MAX_FIELD: usize = 1 << 20;

/// Past this many decimals an `f64`'s exact decimal expansion has only zeros left (it ends
/// within 1074 places), so more are appended rather than computed.
const EXACT_DECIMALS: usize = 1100;

/// Past this many mantissa digits, likewise for `%e` (at most 767 significant digits).
const EXACT_MANTISSA: usize = 800;

/// `v` with `prec` decimals (`%f`), for any `prec`.
pub fn fixed(v: f64, prec: usize) -> String {
    if prec <= EXACT_DECIMALS {
        return format!("{v:.prec$}");
    }
    let mut s = format!("{v:.EXACT_DECIMALS$}");
    if v.is_finite() {
        s.push_str(&"0".repeat(prec - EXACT_DECIMALS));
    }
    s
}

/// `v` as Rust's `{:.prec$e}` (mantissa, `e`, exponent), for any `prec`.
pub fn sci(v: f64, prec: usize) -> String {
    if prec <= EXACT_MANTISSA {
        return format!("{v:.prec$e}");
    }
    let s = format!("{v:.EXACT_MANTISSA$e}");
    match s.split_once('e') {
        Some((m, e)) if v.is_finite() => {
            format!("{m}{}e{e}", "0".repeat(prec - EXACT_MANTISSA))
        }
        _ => s,
    }
}

/// Check a field width or precision against [`MAX_FIELD`].
pub fn check_field(n: usize, what: &str) -> Result<usize, String> {
    if n > MAX_FIELD {
        return Err(format!("{what} {n} is over the limit of {MAX_FIELD}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_precision_formats_as_c_does() {
        assert_eq!(fixed(1.0, 3), "1.000");
        let long = fixed(1.0, 2000);
        assert_eq!(long.len(), 2002);
        assert!(long.starts_with("1.000") && long.ends_with('0'));
        // 0.1 is not exact in binary: its digits run on, then stop; the padding is exact.
        let tenth = fixed(0.1, 1200);
        assert_eq!(&tenth[..12], format!("{:.10}", 0.1_f64));
        assert_eq!(tenth, format!("{:.1100}{}", 0.1_f64, "0".repeat(100)));
        assert_eq!(sci(12345.0, 2), "1.23e4");
        let s = sci(1.5, 900);
        assert!(s.starts_with("1.5000") && s.ends_with("e0"), "{s}");
        assert_eq!(fixed(f64::INFINITY, 5000), "inf");
        assert!(check_field(MAX_FIELD + 1, "width").is_err());
    }
}
