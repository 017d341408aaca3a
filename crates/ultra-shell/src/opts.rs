//! Command-line option parsing shared by the built-ins.

/// Parsed options: `(letter, argument)` in order, then the operands.
#[derive(Debug, Default)]
pub struct Opts {
    pub flags: Vec<(char, String)>,
    pub operands: Vec<String>,
}

impl Opts {
    /// Whether option `c` was given.
    pub fn has(&self, c: char) -> bool {
        self.flags.iter().any(|(f, _)| *f == c)
    }
    /// The argument of the last `c` given.
    pub fn last(&self, c: char) -> Option<&str> {
        self.flags
            .iter()
            .rev()
            .find(|(f, _)| *f == c)
            .map(|(_, a)| a.as_str())
    }
}

/// GNU-style option parsing with permutation: `spec` lists the letters, each followed by `:`
/// when it takes an argument; `longs` maps long names to letters. `-` is an operand, `--`
/// ends the options.
pub fn getopt(args: &[String], spec: &str, longs: &[(&str, char)]) -> Result<Opts, String> {
    let takes = |c: char| -> Option<bool> {
        let i = spec.find(c)?;
        Some(spec[i + c.len_utf8()..].starts_with(':'))
    };
    let mut o = Opts::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "--" {
            o.operands.extend(args[i..].iter().cloned());
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let Some(&(_, c)) = longs.iter().find(|(n, _)| *n == name) else {
                return Err(format!("unrecognized option '{a}'"));
            };
            if takes(c) == Some(true) {
                let v = match val {
                    Some(v) => v,
                    None if i < args.len() => {
                        i += 1;
                        args[i - 1].clone()
                    }
                    None => return Err(format!("option '--{name}' requires an argument")),
                };
                o.flags.push((c, v));
            } else if val.is_some() {
                return Err(format!("option '--{name}' doesn't allow an argument"));
            } else {
                o.flags.push((c, String::new()));
            }
            continue;
        }
        if a.len() < 2 || !a.starts_with('-') {
            o.operands.push(a.clone());
            continue;
        }
        let body = &a[1..];
        for (j, c) in body.char_indices() {
            match takes(c) {
                None => return Err(format!("invalid option -- '{c}'")),
                Some(false) => o.flags.push((c, String::new())),
                Some(true) => {
                    let rest = &body[j + c.len_utf8()..];
                    if !rest.is_empty() {
                        o.flags.push((c, rest.to_string()));
                    } else if i < args.len() {
                        o.flags.push((c, args[i].clone()));
                        i += 1;
                    } else {
                        return Err(format!("option requires an argument -- '{c}'"));
                    }
                    break;
                }
            }
        }
    }
    Ok(o)
}

/// [`getopt`] for commands without long options: `flags` take no argument, `valued` do.
pub(crate) fn parse_opts(args: &[String], flags: &str, valued: &str) -> Result<Opts, String> {
    let mut spec = flags.to_string();
    for c in valued.chars() {
        spec.push(c);
        spec.push(':');
    }
    getopt(args, &spec, &[])
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn getopt_bundles_permutes_and_ends() {
        let o = getopt(
            &s(&["-rn", "f", "-k2,3", "-t", ",", "--", "-x"]),
            "rnk:t:",
            &[],
        )
        .unwrap();
        assert_eq!(
            o.flags,
            vec![
                ('r', String::new()),
                ('n', String::new()),
                ('k', "2,3".into()),
                ('t', ",".into())
            ]
        );
        assert_eq!(o.operands, s(&["f", "-x"]));
        assert_eq!(
            getopt(&s(&["-z"]), "a", &[]).unwrap_err(),
            "invalid option -- 'z'"
        );
        assert_eq!(
            getopt(&s(&["-n"]), "n:", &[]).unwrap_err(),
            "option requires an argument -- 'n'"
        );
        let o = getopt(&s(&["--lines=3", "-"]), "n:", &[("lines", 'n')]).unwrap();
        assert_eq!(o.last('n'), Some("3"));
        assert_eq!(o.operands, s(&["-"]));
        assert!(getopt(&s(&["--nope"]), "n:", &[]).is_err());
    }
}
