//! Seed 001's read, search and analysis tools over the code index (`tools/`), seed 003's
//! position queries (`state.rs`) and diagnostics (`diagnostics.rs`, with the language
//! servers'), the language servers' answers at a position (`semantic.rs`), what an agent's
//! edit broke and fixed (`after_edit.rs`), and places in a file's text (`place.rs`); the
//! index itself is a service ([`ultra_indexer::CodeIndex`]).

pub mod after_edit;
pub mod diagnostics;
pub mod hierarchy;
pub mod page;
pub mod place;
pub mod semantic;
pub mod state;
pub mod tools;

pub use ultra_indexer::{CodeIndex, IndexState, StoreAt};
