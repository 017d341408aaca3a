//! gawk's extensions to awk that agents use as if they were awk: `gensub`, `asort`,
//! `asorti`, `strftime`/`systime`/`mktime` (UTC, as the shell's `date`), the bit functions,
//! `typeof`, `strtonum`, `isarray`, three-argument `match`, `IGNORECASE` and
//! `PROCINFO["sorted_in"]` (`BEGINFILE`/`ENDFILE`, `FPAT` and `RT` live in the interpreter
//! and the reader). Off under
//! `--posix`, where the parser never produces these builtins.

use std::cmp::Ordering;
use std::rc::Rc;

use crate::promoted::awk::re::Re as Regex;

use super::{Interp, Jump, R, fatal};
use crate::calendar::{civil, days_from_civil};
use crate::promoted::awk::ast::{Expr, G_FPAT, G_IGNORECASE, G_PROCINFO, G_RS, VarRef};
use crate::promoted::awk::parser::strip;
use crate::promoted::awk::re;
use crate::promoted::awk::value::{Value, looks_numeric, str_to_num};

/// How `PROCINFO["sorted_in"]` (or `asort`'s third argument) orders an array.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Order {
    IndStr,
    IndNum,
    ValType,
    ValStr,
    ValNum,
}

/// How to order an array: a built-in order (descending or not), or a user function
/// `cmp(i1, v1, i2, v2)` returning a number below, at or above zero.
enum How {
    Unsorted,
    Builtin(Order, bool),
    Func(usize),
}

/// Parse a built-in ordering name: the order and whether it is descending; `Ok(None)` for
/// `@unsorted`.
fn parse_order(how: &[u8]) -> Result<Option<(Order, bool)>, String> {
    let text = String::from_utf8_lossy(how);
    let Some(name) = text.strip_prefix('@') else {
        return Err(format!("unknown sort order `{text}'"));
    };
    if name == "unsorted" {
        return Ok(None);
    }
    let (kind, dir) = name
        .rsplit_once('_')
        .ok_or_else(|| format!("unknown sort order `{text}'"))?;
    let order = match kind {
        "ind_str" => Order::IndStr,
        "ind_num" => Order::IndNum,
        "val_type" => Order::ValType,
        "val_str" => Order::ValStr,
        "val_num" => Order::ValNum,
        _ => return Err(format!("unknown sort order `{text}'")),
    };
    let desc = match dir {
        "asc" => false,
        "desc" => true,
        _ => return Err(format!("unknown sort order `{text}'")),
    };
    Ok(Some((order, desc)))
}

/// gawk's adjustment of a wide unsigned result to what a double holds exactly.
fn adjust_uint(n: u64) -> f64 {
    let sentinel = 1u64 << 11;
    let shift = (n | sentinel).trailing_zeros();
    let mask = ((1u64 << 53) << shift).wrapping_sub(1);
    (n & mask) as f64
}

/// gawk's `strtonum`: `0x` hex and `0` octal prefixes (octal falls back to decimal at an
/// 8 or 9), otherwise awk's own conversion.
fn strtonum(s: &[u8]) -> f64 {
    let t = s.trim_ascii_start();
    if t.len() > 1 && t[0] == b'0' {
        if matches!(t[1], b'x' | b'X') {
            let mut v = 0f64;
            for &b in &t[2..] {
                let Some(d) = (b as char).to_digit(16) else {
                    break;
                };
                v = v * 16.0 + f64::from(d);
            }
            return v;
        }
        let digits = t.iter().take_while(|b| b.is_ascii_digit()).count();
        let fraction = matches!(t.get(digits), Some(b'.' | b'e' | b'E'));
        if !fraction && !t[..digits].iter().any(|&b| b >= b'8') {
            return t[..digits]
                .iter()
                .fold(0f64, |v, &b| v * 8.0 + f64::from(b - b'0'));
        }
    }
    str_to_num(s)
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// The ISO 8601 week-based year and week of a date (`yday` from 0, `wday` Sunday = 0).
fn iso_week(y: i64, yday: i64, wday: i64) -> (i64, i64) {
    let wd = (wday + 6) % 7; // Monday = 0
    let w = (yday - wd + 10) / 7;
    if w < 1 {
        let py = y - 1;
        let pdays = if is_leap(py) { 366 } else { 365 };
        return iso_week(py, yday + pdays, wday);
    }
    let days = if is_leap(y) { 366 } else { 365 };
    // The week belongs to next year when its Thursday does.
    if yday - wd + 3 >= days {
        return (y + 1, 1);
    }
    (y, w)
}

/// Format `secs` (UTC) as C's `strftime` does in the C locale.
pub fn strftime(fmt: &[u8], secs: i64, utc: bool) -> Vec<u8> {
    const DAYS: [&str; 7] = [
        "Sunday",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
    ];
    const MONTHS: [&str; 12] = [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ];
    let days = secs.div_euclid(86_400);
    let tod = secs.rem_euclid(86_400);
    let (y, mo, d) = civil(days);
    let (h, mi, s) = (tod / 3600, tod / 60 % 60, tod % 60);
    let wday = (days + 4).rem_euclid(7);
    let yday = days - days_from_civil(y, 1, 1);
    let h12 = if h % 12 == 0 { 12 } else { h % 12 };
    let mut out = Vec::new();
    let mut i = 0;
    while i < fmt.len() {
        let c = fmt[i];
        if c != b'%' || i + 1 >= fmt.len() {
            out.push(c);
            i += 1;
            continue;
        }
        let spec = fmt[i + 1];
        i += 2;
        let text = match spec {
            b'a' => DAYS[wday as usize][..3].to_string(),
            b'A' => DAYS[wday as usize].to_string(),
            b'b' | b'h' => MONTHS[(mo - 1) as usize][..3].to_string(),
            b'B' => MONTHS[(mo - 1) as usize].to_string(),
            b'c' => {
                let sub = strftime(b"%a %b %e %H:%M:%S %Y", secs, utc);
                String::from_utf8_lossy(&sub).into_owned()
            }
            b'C' => format!("{:02}", y.div_euclid(100)),
            b'd' => format!("{d:02}"),
            b'D' | b'x' => format!("{mo:02}/{d:02}/{:02}", y.rem_euclid(100)),
            b'e' => format!("{d:>2}"),
            b'F' => format!("{y}-{mo:02}-{d:02}"),
            b'g' => format!("{:02}", iso_week(y, yday, wday).0.rem_euclid(100)),
            b'G' => iso_week(y, yday, wday).0.to_string(),
            b'H' => format!("{h:02}"),
            b'I' => format!("{h12:02}"),
            b'j' => format!("{:03}", yday + 1),
            b'k' => format!("{h:>2}"),
            b'l' => format!("{h12:>2}"),
            b'm' => format!("{mo:02}"),
            b'M' => format!("{mi:02}"),
            b'n' => "\n".to_string(),
            b'p' => (if h < 12 { "AM" } else { "PM" }).to_string(),
            b'r' => format!(
                "{h12:02}:{mi:02}:{s:02} {}",
                if h < 12 { "AM" } else { "PM" }
            ),
            b'R' => format!("{h:02}:{mi:02}"),
            b's' => secs.to_string(),
            b'S' => format!("{s:02}"),
            b't' => "\t".to_string(),
            b'T' | b'X' => format!("{h:02}:{mi:02}:{s:02}"),
            b'u' => (if wday == 0 { 7 } else { wday }).to_string(),
            b'U' => format!("{:02}", (yday + 7 - wday) / 7),
            b'V' => format!("{:02}", iso_week(y, yday, wday).1),
            b'w' => wday.to_string(),
            b'W' => format!("{:02}", (yday + 7 - (wday + 6) % 7) / 7),
            b'y' => format!("{:02}", y.rem_euclid(100)),
            b'Y' => y.to_string(),
            b'z' => "+0000".to_string(),
            b'Z' => (if utc { "GMT" } else { "UTC" }).to_string(),
            b'%' => "%".to_string(),
            other => {
                out.push(b'%');
                out.push(other);
                continue;
            }
        };
        out.extend_from_slice(text.as_bytes());
    }
    out
}

/// gawk's `mktime("YYYY MM DD HH MM SS [DST]")` in UTC; -1 when malformed. A positive DST
/// flag takes an hour off (C's mktime in a zone without summer time), unless `utc`.
fn mktime(spec: &[u8], utc: bool) -> f64 {
    let text = String::from_utf8_lossy(spec);
    let mut nums = Vec::new();
    for (k, w) in text.split_ascii_whitespace().take(7).enumerate() {
        let Ok(n) = w.parse::<i128>() else { break };
        // The year is a C long; the other fields are ints (wrapping as C's sscanf does).
        let n = if k == 0 { n } else { i128::from(n as i32) };
        if n.abs() > 1 << 31 {
            return -1.0;
        }
        nums.push(n as i64);
    }
    if nums.len() < 6 {
        return -1.0;
    }
    let (y, mo) = (nums[0], nums[1] - 1);
    let y = y + mo.div_euclid(12);
    let mo = mo.rem_euclid(12) + 1;
    let days = days_from_civil(y, mo, 1) + nums[2] - 1;
    let dst = if !utc && nums.get(6).is_some_and(|&d| d > 0) {
        3600
    } else {
        0
    };
    (days * 86_400 + nums[3] * 3600 + nums[4] * 60 + nums[5] - dst) as f64
}

/// Expand a `gensub` replacement for one match: `\0` and `&` are the match, `\N` group N,
/// any other `\q` is `q`.
fn push_gensub_repl(
    out: &mut Vec<u8>,
    repl: &[u8],
    caps: &regex::bytes::Captures<'_>,
    whole: &[u8],
) {
    let mut i = 0;
    while i < repl.len() {
        match repl[i] {
            b'\\' => match repl.get(i + 1) {
                Some(b'0') => {
                    out.extend_from_slice(whole);
                    i += 2;
                }
                Some(&d @ b'1'..=b'9') => {
                    if let Some(m) = caps.get(usize::from(d - b'0')) {
                        out.extend_from_slice(m.as_bytes());
                    }
                    i += 2;
                }
                // `\q` for any other q is q.
                Some(&c) => {
                    out.push(c);
                    i += 2;
                }
                None => {
                    out.push(b'\\');
                    i += 1;
                }
            },
            b'&' => {
                out.extend_from_slice(whole);
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
}

/// `gensub`'s substitution: every match (`which` None) or only the nth; `None` once the
/// result would pass `room` bytes.
fn gensub(re: &Regex, s: &[u8], repl: &[u8], which: Option<usize>, room: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() + 16);
    let mut pos = 0;
    let mut last_end: Option<usize> = None;
    let mut count = 0;
    while pos <= s.len() {
        let Some((caps, (ms, me))) = re.captures_at(s, pos) else {
            break;
        };
        if ms == me && last_end == Some(ms) {
            if ms < s.len() {
                out.push(s[ms]);
            }
            pos = ms + 1;
            last_end = None;
            continue;
        }
        count += 1;
        out.extend_from_slice(&s[pos..ms]);
        if which.is_none_or(|n| n == count) {
            push_gensub_repl(&mut out, repl, &caps, &s[ms..me]);
        } else {
            out.extend_from_slice(&s[ms..me]);
        }
        if out.len() > room {
            return None;
        }
        if ms == me {
            if ms < s.len() {
                out.push(s[ms]);
            }
            pos = ms + 1;
            last_end = None;
        } else {
            pos = me;
            last_end = Some(me);
        }
        if which.is_some_and(|n| n == count) {
            break;
        }
    }
    if pos < s.len() {
        out.extend_from_slice(&s[pos..]);
    }
    Some(out)
}

impl<'a> Interp<'a> {
    /// `IGNORECASE` was assigned: recompile what matches for the new case rule.
    pub(super) fn set_icase(&mut self) -> R<()> {
        let on = self.globals[G_IGNORECASE as usize].truthy();
        if on == self.icase {
            return Ok(());
        }
        let other = match self.other_regexes.take() {
            Some(o) => o,
            None => {
                let mut v = Vec::with_capacity(self.prog.regexes.len());
                for r in &self.prog.regexes {
                    v.push(re::build(r, on).map_err(Jump::Fatal)?);
                }
                v
            }
        };
        self.other_regexes = Some(std::mem::replace(&mut self.regexes, other));
        self.icase = on;
        self.dyn_re.clear();
        self.special_set(G_RS)?;
        if self.fpat_on {
            self.special_set(G_FPAT)?;
        }
        Ok(())
    }

    /// Order `keys` of array `id` as `PROCINFO["sorted_in"]` asks.
    pub(super) fn sort_for_in(&mut self, id: usize, keys: &mut [Box<[u8]>]) -> R<()> {
        if self.prog.posix {
            return Ok(());
        }
        let Some(how) = self.arrays[G_PROCINFO as usize].get(&b"sorted_in"[..]) else {
            return Ok(());
        };
        let how = self.to_bytes(&how.clone());
        let how = self.how(&how)?;
        if matches!(how, How::Unsorted) {
            return Ok(());
        }
        let items: Vec<(Box<[u8]>, Value)> = keys
            .iter()
            .map(|k| {
                let v = self.arrays[id].get(k).cloned().unwrap_or_default();
                (k.clone(), v)
            })
            .collect();
        let items = self.sort_by(items, how)?;
        for (slot, (k, _)) in keys.iter_mut().zip(items) {
            *slot = k;
        }
        Ok(())
    }

    /// An ordering by name: `@...` or a user function's name.
    fn how(&self, name: &[u8]) -> R<How> {
        if name.first() != Some(&b'@') {
            let f = self
                .prog
                .funcs
                .iter()
                .position(|f| f.defined && f.name.as_bytes() == name);
            return match f {
                Some(fi) => Ok(How::Func(fi)),
                None => fatal(format!(
                    "sort comparison function `{}' is not defined",
                    String::from_utf8_lossy(name)
                )),
            };
        }
        Ok(match parse_order(name).map_err(Jump::Fatal)? {
            Some((o, d)) => How::Builtin(o, d),
            None => How::Unsorted,
        })
    }

    /// Sort `items` as `how` says (a stable merge sort when a user function compares).
    fn sort_by(
        &mut self,
        mut items: Vec<(Box<[u8]>, Value)>,
        how: How,
    ) -> R<Vec<(Box<[u8]>, Value)>> {
        let fi = match how {
            How::Unsorted => return Ok(items),
            How::Builtin(o, d) => {
                self.sort_items(&mut items, o, d);
                return Ok(items);
            }
            How::Func(fi) => fi,
        };
        let n = items.len();
        let mut width = 1;
        while width < n {
            let mut out = Vec::with_capacity(n);
            let mut rest = items.into_iter();
            loop {
                let left: Vec<_> = rest.by_ref().take(width).collect();
                if left.is_empty() {
                    break;
                }
                let right: Vec<_> = rest.by_ref().take(width).collect();
                let (mut l, mut r) = (left.into_iter().peekable(), right.into_iter().peekable());
                while let (Some(a), Some(b)) = (l.peek(), r.peek()) {
                    self.tick()?;
                    let args = vec![
                        Value::input(&a.0),
                        a.1.clone(),
                        Value::input(&b.0),
                        b.1.clone(),
                    ];
                    let c = self.call_values(fi, args)?.num();
                    let next = if c > 0.0 { r.next() } else { l.next() };
                    out.extend(next);
                }
                out.extend(l);
                out.extend(r);
            }
            items = out;
            width *= 2;
        }
        Ok(items)
    }

    fn sort_items(&self, items: &mut [(Box<[u8]>, Value)], order: Order, desc: bool) {
        let strs: Vec<Vec<u8>> = match order {
            Order::ValStr | Order::ValNum | Order::ValType => {
                items.iter().map(|(_, v)| self.to_bytes(v)).collect()
            }
            _ => Vec::new(),
        };
        let mut idx: Vec<usize> = (0..items.len()).collect();
        let num_of = |v: &Value| match v {
            Value::StrNum(s) => looks_numeric(s),
            Value::Num(n) => Some(*n),
            Value::Uninit => Some(0.0),
            Value::Str(_) => None,
        };
        idx.sort_by(|&a, &b| {
            let (ka, va) = &items[a];
            let (kb, vb) = &items[b];
            let o = match order {
                Order::IndStr => Ordering::Equal,
                Order::IndNum => str_to_num(ka).total_cmp(&str_to_num(kb)),
                Order::ValStr => strs[a].cmp(&strs[b]),
                Order::ValNum => va
                    .num()
                    .total_cmp(&vb.num())
                    .then_with(|| strs[a].cmp(&strs[b])),
                Order::ValType => match (num_of(va), num_of(vb)) {
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => Ordering::Less,
                    (None, Some(_)) => Ordering::Greater,
                    (None, None) => strs[a].cmp(&strs[b]),
                },
            };
            let o = o.then_with(|| ka.cmp(kb));
            if desc { o.reverse() } else { o }
        });
        let sorted: Vec<(Box<[u8]>, Value)> = idx.iter().map(|&i| items[i].clone()).collect();
        for (slot, it) in items.iter_mut().zip(sorted) {
            *slot = it;
        }
    }

    fn array_arg(&self, e: &Expr) -> R<usize> {
        match strip(e) {
            Expr::Var(r) => Ok(self.array_id(*r)),
            _ => fatal("argument is not an array"),
        }
    }

    /// Three-argument `match`: fill `arr` with the match and its groups (`arr[n]`,
    /// `arr[n, "start"]`, `arr[n, "length"]`); RSTART and RLENGTH.
    pub(super) fn match_groups(&mut self, re: &Regex, s: &[u8], arr: &Expr) -> R<(f64, f64)> {
        let id = self.array_arg(arr)?;
        self.arrays[id].clear();
        let Some((caps, (ms, me))) = re.captures_at(s, 0) else {
            return Ok((0.0, -1.0));
        };
        let sep = self.subsep.clone();
        for (k, g) in caps.iter().enumerate() {
            let Some(m) = g else { continue };
            let (gs, ge) = if k == 0 {
                (ms, me)
            } else {
                (m.start(), m.end())
            };
            let key = k.to_string().into_bytes();
            let arr = &mut self.arrays[id];
            arr.insert(key.clone().into_boxed_slice(), Value::input(&s[gs..ge]));
            for (name, v) in [("start", gs + 1), ("length", ge - gs)] {
                let mut sub = key.clone();
                sub.extend_from_slice(&sep);
                sub.extend_from_slice(name.as_bytes());
                arr.insert(sub.into_boxed_slice(), Value::Num(v as f64));
            }
        }
        Ok(((ms + 1) as f64, (me - ms) as f64))
    }

    /// A non-negative integer argument of a bit function.
    fn uint_arg(&mut self, name: &str, k: usize, e: &'a Expr) -> R<u64> {
        let x = self.num(e)?;
        if x < 0.0 {
            return fatal(format!(
                "{name}: argument {} negative value {} is not allowed",
                k + 1,
                x
            ));
        }
        // Past 2^64 the C conversion gawk makes gives 0 on x86-64.
        Ok(if x.is_nan() || x >= 18_446_744_073_709_551_616.0 {
            0
        } else {
            x.trunc() as u64
        })
    }

    fn typeof_(&mut self, e: &'a Expr) -> R<&'static str> {
        let e = strip(e);
        if let Expr::Var(r) = e {
            if self.is_array(*r) {
                return Ok("array");
            }
            if let (Value::Uninit, VarRef::Global(i)) = (self.var(*r), r) {
                let used = self.prog.global_used.get(*i as usize).copied();
                return Ok(if used == Some(true) {
                    "unassigned"
                } else {
                    "untyped"
                });
            }
        }
        let v = self.eval(e)?;
        Ok(match v {
            Value::Uninit if matches!(e, Expr::Index(..) | Expr::Var(_)) => "untyped",
            Value::Uninit => "unassigned",
            Value::Num(_) => "number",
            Value::Str(_) => "string",
            Value::StrNum(s) => {
                if looks_numeric(&s).is_some() {
                    "strnum"
                } else {
                    "string"
                }
            }
        })
    }

    /// gawk's extension builtins.
    pub(super) fn gawk_builtin(&mut self, b: &str, args: &'a [Expr]) -> R<Value> {
        let n = |x: f64| Ok(Value::Num(x));
        match b {
            "gensub" => {
                let re = self.regex_for(&args[0])?;
                let repl = self.str_arg(&args[1])?;
                let how = self.eval(&args[2])?;
                let hb = self.to_bytes(&how);
                let which =
                    if matches!(how, Value::Str(_)) && matches!(hb.first(), Some(b'g' | b'G')) {
                        None
                    } else {
                        Some((how.num().trunc().max(1.0)) as usize)
                    };
                let target = match args.get(3) {
                    Some(t) => self.str_arg(t)?,
                    None => self.record.clone(),
                };
                let Some(out) = gensub(&re, &target, &repl, which, self.cx.fs.room()) else {
                    return fatal("stopped: gensub ran past the command's memory limit");
                };
                Ok(Value::Str(Rc::new(out)))
            }
            "asort" | "asorti" => {
                let src = self.array_arg(&args[0])?;
                let dest = match args.get(1) {
                    Some(d) => self.array_arg(d)?,
                    None => src,
                };
                let how = match args.get(2) {
                    Some(h) => {
                        let how = self.str_arg(h)?;
                        match self.how(&how)? {
                            How::Unsorted => How::Builtin(Order::IndStr, false),
                            other => other,
                        }
                    }
                    None if b == "asort" => How::Builtin(Order::ValType, false),
                    None => How::Builtin(Order::IndStr, false),
                };
                let items: Vec<(Box<[u8]>, Value)> = self.arrays[src]
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let items = self.sort_by(items, how)?;
                let arr = &mut self.arrays[dest];
                arr.clear();
                let count = items.len();
                for (i, (k, v)) in items.into_iter().enumerate() {
                    let v = if b == "asort" {
                        v
                    } else {
                        Value::Str(Rc::new(k.to_vec()))
                    };
                    arr.insert((i + 1).to_string().into_bytes().into_boxed_slice(), v);
                }
                n(count as f64)
            }
            "systime" => n(std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0.0, |d| d.as_secs() as f64)),
            "strftime" => {
                let fmt = match args.first() {
                    Some(f) => self.str_arg(f)?,
                    None => b"%a %b %e %H:%M:%S %Z %Y".to_vec(),
                };
                let secs = match args.get(1) {
                    Some(t) => self.num(t)?,
                    None => std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(0.0, |d| d.as_secs() as f64),
                };
                let utc = match args.get(2) {
                    Some(u) => self.eval(u)?.truthy(),
                    None => false,
                };
                // Years C's tm can hold.
                if secs.is_nan() || secs.abs() >= 6.7e16 {
                    return Ok(Value::str(b""));
                }
                Ok(Value::Str(Rc::new(strftime(
                    &fmt,
                    secs.trunc() as i64,
                    utc,
                ))))
            }
            "mktime" => {
                let spec = self.str_arg(&args[0])?;
                let utc = match args.get(1) {
                    Some(u) => self.eval(u)?.truthy(),
                    None => false,
                };
                n(mktime(&spec, utc))
            }
            "and" | "or" | "xor" => {
                let mut acc = self.uint_arg(b, 0, &args[0])?;
                for (k, a) in args.iter().enumerate().skip(1) {
                    let v = self.uint_arg(b, k, a)?;
                    acc = match b {
                        "and" => acc & v,
                        "or" => acc | v,
                        _ => acc ^ v,
                    };
                }
                n(adjust_uint(acc))
            }
            "lshift" | "rshift" => {
                let v = self.uint_arg(b, 0, &args[0])?;
                let s = self.uint_arg(b, 1, &args[1])?;
                // x86-64 takes the shift count modulo 64, as gawk's C shift does there.
                let s = (s % 64) as u32;
                let r = if b == "lshift" { v << s } else { v >> s };
                n(adjust_uint(r))
            }
            "compl" => {
                let v = self.uint_arg(b, 0, &args[0])?;
                n(adjust_uint(!v))
            }
            "isarray" => {
                let is = matches!(strip(&args[0]), Expr::Var(r) if self.is_array(*r));
                n(f64::from(u8::from(is)))
            }
            "strtonum" => {
                let v = self.eval(&args[0])?;
                // Numbers, and input that looks like one, are taken as they are.
                match &v {
                    Value::Num(x) => return n(*x),
                    Value::StrNum(t) if looks_numeric(t).is_some() => return n(v.num()),
                    _ => {}
                }
                let s = self.to_bytes(&v);
                n(strtonum(&s))
            }
            "typeof" => {
                let t = self.typeof_(&args[0])?;
                Ok(Value::str(t.as_bytes()))
            }
            _ => fatal(format!("unknown function {b}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(
            strftime(b"%Y-%m-%d %H:%M:%S", 0, false),
            b"1970-01-01 00:00:00"
        );
        assert_eq!(
            strftime(b"%a %j %u %w %U %W %V %G", 1_700_000_000, true),
            b"Tue 318 2 2 46 46 46 2023"
        );
        assert_eq!(mktime(b"2024 01 15 12 30 45", false), 1_705_321_845.0);
        assert_eq!(mktime(b"2024 13 40 25 61 61", false), 1_739_152_921.0);
        assert_eq!(mktime(b"bad", false), -1.0);
        assert_eq!(adjust_uint(!0), 9_007_199_254_740_991.0);
        assert_eq!(adjust_uint(!1), 18_014_398_509_481_982.0);
    }
}
