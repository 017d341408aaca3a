//! The built-in commands, grouped by category, and [`build`], which wires a workspace, its
//! config and every command into an [`Executor`](ultra_core::Executor) (`wiring.rs`).
//!
//! Each command is a unit struct implementing `ultra_core::Command<Services>`; its spec,
//! argument type and examples sit next to its handler. `register_all` lists every group
//! explicitly.

pub mod ai;
pub mod audit;
pub mod command_api;
pub mod confirm;
pub mod dialects;
pub mod edit;
pub mod file;
pub mod keys;
pub mod navigation;
pub mod query;
pub mod search;
pub mod selection;
pub mod ui;
pub mod view;
pub mod watch;
mod wiring;

pub use ultra_services::{Mode, Services, state_dir};
pub use wiring::{BuildError, build, build_with, default_audit_path, register_all};
