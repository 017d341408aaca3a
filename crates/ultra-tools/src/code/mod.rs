//! Seed 001's read, search and analysis tools over the code index (`tools/`) and seed
//! 003's position queries (`state.rs`) and diagnostics (`diagnostics.rs`, with the language
//! servers'); the index itself is a service
//! ([`ultra_indexer::CodeIndex`]).

pub mod after_edit;
pub mod diagnostics;
pub mod page;
pub mod state;
pub mod tools;

pub use ultra_indexer::{CodeIndex, IndexState, StoreAt};
