//! Searching: in the open buffer (`ultra.find`, `ultra.findNext`, going to a symbol or a
//! definition: `buffer.rs`) and across the workspace's files (seed 003's
//! `search.findInFiles` and `search.findAndReplace` over `ultra-search`: `files.rs`).

pub mod buffer;
pub mod files;
