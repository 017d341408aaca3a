//! Seed 001's read, search and analysis tools over the code index (`tools/`) and seed
//! 003's position queries (`state.rs`); the index itself is a service
//! ([`ultra_indexer::CodeIndex`]).

pub mod page;
pub mod state;
pub mod tools;

pub use ultra_indexer::{CodeIndex, IndexState, StoreAt};
