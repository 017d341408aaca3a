//! The agent tools as commands (seeds 001 and 004, and seed 003's terminals): reads,
//! searches and analysis over the code index (`code`), the built-in shell and its promoted
//! typed tools (`shell`, `promoted`), git over libgit2 (`git`), `run_command`, tests and
//! builds (`runner`), terminals (`terminal`), the language servers' status (`lsp`), the
//! syntax gate that keeps an agent's edit from adding parse errors (`syntax_gate`) and the
//! optional gate on new errors by a language server's judgement (`diagnostics_gate`).
//!
//! Each command here declares its arguments, spec and handler over
//! [`ultra_services::Services`]; the work itself is done by the service crates below
//! (`ultra-indexer`, `ultra-shell`, `ultra-git`, `ultra-runner`, `ultra-term`).
//! `ultra-commands` registers them with the editor's commands.

pub mod code;
pub mod diagnostics_gate;
pub mod git;
pub mod lsp;
pub mod promoted;
pub mod runner;
pub mod shell;
mod shell_call;
mod shell_writes;
pub mod syntax_gate;
pub mod terminal;
