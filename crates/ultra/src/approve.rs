//! `ultra pending`, `ultra approve ID`, `ultra deny ID`: a person answers calls that were
//! refused with CONFIRMATION_REQUIRED because no one was there to ask (an agent over MCP
//! stdio, a script). Approving shows the call and asks on the terminal, so an agent cannot
//! approve its own call by running this without a person; the agent's next identical call
//! then runs once.

use std::path::Path;
use std::process::ExitCode;

use ultra_core::confirm::deferred::{Deferred, DeferredStore};

fn store(root: &Path) -> DeferredStore {
    DeferredStore::new(&ultra_commands::state_dir(root).join("approvals"))
}

fn show(d: &Deferred) -> String {
    let mut args = d.args.to_string();
    if args.len() > 400 {
        let mut cut = 400;
        while !args.is_char_boundary(cut) {
            cut -= 1;
        }
        args.truncate(cut);
        args.push('…');
    }
    let mut out = format!(
        "{}  {} wants to run {} {args}\n  ({})\n",
        d.id, d.who, d.command, d.reason
    );
    if let Some(p) = &d.preview {
        for line in p.lines().take(60) {
            out.push_str(&format!("    {line}\n"));
        }
    }
    out
}

/// `ultra pending`.
pub fn list(root: &Path) -> ExitCode {
    let all = store(root).list();
    if all.is_empty() {
        println!("nothing is waiting for approval");
    }
    for d in all {
        print!(
            "{}{}",
            show(&d),
            if d.approved {
                "  approved: runs on the next identical call\n"
            } else {
                ""
            }
        );
    }
    ExitCode::SUCCESS
}

/// `ultra approve ID` or `ultra deny ID`.
pub fn answer(root: &Path, id: &str, approve: bool) -> ExitCode {
    let s = store(root);
    let Some(d) = s.get(id) else {
        eprintln!(
            "ultra: no pending call `{id}` (see `ultra pending`; calls expire after 30 minutes)"
        );
        return ExitCode::from(1);
    };
    if approve {
        let question = format!("{}Approve? [y/N] ", show(&d));
        match crate::serve::ask_tty(&question) {
            Some(true) => {}
            Some(false) => {
                eprintln!("not approved");
                return ExitCode::from(1);
            }
            None => {
                eprintln!("ultra approve needs a terminal: a person approves, at the keyboard");
                return ExitCode::from(2);
            }
        }
    }
    match s.resolve(id, approve) {
        Ok(d) if approve => {
            println!(
                "approved {}: {} runs on its next identical call",
                d.id, d.command
            );
            ExitCode::SUCCESS
        }
        Ok(d) => {
            println!("denied {}", d.id);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ultra: {e}");
            ExitCode::from(1)
        }
    }
}
