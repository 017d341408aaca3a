//! The command model every surface shares.
//!
//! A command is declared once (a type implementing [`Command`]) with its id, schema,
//! examples and risk. The [`Registry`] holds them; the [`Executor`] runs one call through
//! look-up, argument parsing, source checks, policy, validators, the handler, the audit log
//! and the event bus, in that order. Nothing here knows about files or sockets: the
//! services a command needs come in through the generic `S`, and the executor reaches the
//! workspace only through [`Host`].

pub mod audit;
pub mod command;
pub mod config;
pub mod confirm;
pub mod dialect;
pub mod events;
pub mod executor;
pub mod keymap;
pub mod policy;
pub mod registry;
pub mod render;
pub mod schema;
pub mod security;
pub mod tools;
pub mod validator;
pub mod when;

pub use command::{Command, CommandSpec, Cx, Example, FileOperation, FileOperationKind};
pub use config::Config;
pub use executor::{Answered, Executor, Host, Unrecorded};
pub use registry::Registry;
