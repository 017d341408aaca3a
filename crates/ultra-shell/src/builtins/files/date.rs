//! `date`, and the strftime-style formatting `ls -l` and `git log` share.

use crate::calendar::{civil, days_from_civil};
use crate::command::{Builtin, Cx, Example, Io};
use crate::opts::parse_opts;

use super::usage_error;

/// Format `secs` since the epoch (UTC) with strftime-style `fmt`.
pub fn format_time(secs: i64, nanos: u32, fmt: &str) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (y, mo, d) = civil(days);
    let (h, mi, s) = (tod / 3600, tod / 60 % 60, tod % 60);
    let wd = DAYS[days.rem_euclid(7) as usize];
    let mon = MONTHS[(mo - 1) as usize];
    let yday = days - days_from_civil(y, 1, 1) + 1;
    let mut out = String::new();
    let mut it = fmt.chars();
    while let Some(c) = it.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('Y') => out.push_str(&y.to_string()),
            Some('y') => out.push_str(&format!("{:02}", y.rem_euclid(100))),
            Some('m') => out.push_str(&format!("{mo:02}")),
            Some('d') => out.push_str(&format!("{d:02}")),
            Some('e') => out.push_str(&format!("{d:>2}")),
            Some('H') => out.push_str(&format!("{h:02}")),
            Some('M') => out.push_str(&format!("{mi:02}")),
            Some('S') => out.push_str(&format!("{s:02}")),
            Some('N') => out.push_str(&format!("{nanos:09}")),
            Some('s') => out.push_str(&secs.to_string()),
            Some('F') => out.push_str(&format!("{y}-{mo:02}-{d:02}")),
            Some('T') => out.push_str(&format!("{h:02}:{mi:02}:{s:02}")),
            Some('a') => out.push_str(wd),
            Some('b') | Some('h') => out.push_str(mon),
            Some('j') => out.push_str(&format!("{yday:03}")),
            Some('Z') => out.push_str("UTC"),
            Some('z') => out.push_str("+0000"),
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('%') => out.push('%'),
            Some(x) => {
                out.push('%');
                out.push(x);
            }
            None => out.push('%'),
        }
    }
    out
}

/// `date [-u] [-d @SECONDS] [+FORMAT]`, always in UTC.
pub static DATE: Builtin = Builtin::new("date", "date [-u] [-d @SECONDS] [+FORMAT]", &date)
    .example(Example::new(&["-d", "@0", "+%F"], "1970-01-01\n"));

fn date(args: &[String], io: &mut Io<'_>, _cx: &Cx<'_>) -> i32 {
    let o = match parse_opts(args, "uR", "d") {
        Ok(o) => o,
        Err(m) => return usage_error(io, &DATE, &m),
    };
    let (secs, nanos) = match o.last('d') {
        Some(v) => match v.strip_prefix('@').and_then(|n| n.parse::<i64>().ok()) {
            Some(n) => (n, 0),
            None => {
                let _ = writeln!(io.stderr, "date: invalid date '{v}' (only @SECONDS)");
                return 1;
            }
        },
        None => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default();
            (now.as_secs() as i64, now.subsec_nanos())
        }
    };
    let mut fmt = "%a %b %e %H:%M:%S %Z %Y".to_string();
    for op in &o.operands {
        match op.strip_prefix('+') {
            Some(f) => fmt = f.to_string(),
            None => {
                let _ = writeln!(io.stderr, "date: invalid date '{op}'");
                return 1;
            }
        }
    }
    if writeln!(io.stdout, "{}", format_time(secs, nanos, &fmt)).is_err() {
        return 1;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(
            format_time(0, 0, "%F %T %a %j"),
            "1970-01-01 00:00:00 Thu 001"
        );
        assert_eq!(
            format_time(1_700_000_000, 0, "%Y%m%d %H%M%S %s %b %e"),
            "20231114 221320 1700000000 Nov 14"
        );
        assert_eq!(format_time(951_782_400, 0, "%F %j"), "2000-02-29 060");
    }
}
