//! Ultra's code index (seed 001): tree-sitter parses of Rust, Python, TypeScript, TSX,
//! JavaScript, Go, Java, C and C++ files into [`FileIndex`] records (functions, classes,
//! definitions, imports, identifier occurrences, complexity, TODOs, syntax errors), kept
//! per file and updated incrementally by content hash.
//!
//! `lang/` knows each language (one module per grammar family: its symbol and import
//! extractor); `lex/` scans the bytes for what needs every token but no structure
//! (identifiers, comments, complexity); `passes.rs` runs a parse and the passes that are the
//! same for every language; `resolve.rs` maps imports to workspace files;
//! `index.rs` holds the records with their lookups and the dependency graph; `build.rs`
//! indexes a whole tree on every core; `store.rs` keeps records on disk (redb) so a restart
//! loads instead of parsing.

pub mod build;
mod codec;
mod generic;
pub mod highlight;
pub mod index;
pub mod lang;
mod lex;
pub mod model;
mod outline;
pub mod passes;
pub mod resolve;
pub mod store;

pub use index::{Graph, Index};
pub use lang::Lang;
pub use model::{
    Class, Complexity, DefKind, Definition, FileIndex, Function, Import, Method, Names, Occurrence,
    Occurrences, Property, Reference, SyntaxError, Todo,
};
pub use passes::index_file;

/// A small deterministic generator (xorshift64*) for the property tests, so a failure
/// reproduces.
#[cfg(test)]
pub(crate) mod test_rng {
    pub(crate) struct Rng(pub u64);

    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        /// A number below `n`.
        pub(crate) fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }
}
