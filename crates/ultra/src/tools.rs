//! `ultra tools`: the AI-exposed commands as tool definitions (MCP, OpenAI, Anthropic),
//! generated from the registry (`ultra_core::tools`). By default the commands that declare
//! a tool name (a small list, cheap in a prompt); `--profile` chooses another list, and
//! `--all` is `--profile full`.

use std::process::ExitCode;

use ultra_commands::Services;
use ultra_core::Registry;
use ultra_core::tools::{Profile, tools};

/// `ultra tools`.
pub fn run(format: &str, profile: Option<&str>, all: bool, strict: bool) -> ExitCode {
    let profile = match (all, profile) {
        (true, _) => Profile::Full,
        (false, Some(p)) => match Profile::parse(p) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("ultra: {e}");
                return ExitCode::from(2);
            }
        },
        (false, None) => Profile::Default,
    };
    let mut registry = Registry::<Services>::new();
    if let Err(e) = ultra_commands::register_all(&mut registry) {
        eprintln!("ultra: {e}");
        return ExitCode::from(2);
    }
    match tools(&registry, format, &profile, strict) {
        Ok(v) => {
            crate::cli::print_json(&v);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ultra: {e}");
            ExitCode::from(2)
        }
    }
}
