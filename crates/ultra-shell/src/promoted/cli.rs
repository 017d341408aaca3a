//! Helpers for `parse_cli_args`: flag scanning that reports [`Issue`]s instead of text.

use super::Issue;
use crate::opts::{Opts, getopt};

/// GNU-style option scan (see [`getopt`]); an unknown or incomplete flag becomes an
/// `unknown_flag` / `missing_value` issue naming it.
pub fn scan(args: &[String], spec: &str, longs: &[(&str, char)]) -> Result<Opts, Vec<Issue>> {
    getopt(args, spec, longs).map_err(|msg| {
        let code = if msg.contains("requires an argument") {
            "missing_value"
        } else if msg.contains("doesn't allow") {
            "unexpected_value"
        } else {
            "unknown_flag"
        };
        let flag = msg
            .split('\'')
            .nth(1)
            .map(|f| {
                if f.starts_with('-') {
                    f.to_string()
                } else {
                    format!("-{f}")
                }
            })
            .unwrap_or_default();
        vec![Issue::new(flag, code, msg)]
    })
}

/// Parse a non-negative count given to `flag`.
pub fn count(flag: &str, value: &str) -> Result<u64, Issue> {
    value.trim().parse::<u64>().map_err(|_| {
        Issue::new(
            flag,
            "invalid_value",
            format!("{flag} needs a non-negative whole number, not '{value}'"),
        )
    })
}
