//! Running programs for Ultra's commands: a command line parsed and judged stage by stage
//! ([`policy`]), run as argv with a scrubbed environment in its own process group, with a
//! timeout, a [`Cancel`] and capped output ([`execute`]); the Landlock and seccomp
//! [`sandbox`] for what an agent runs without a person; the test runners
//! ([`test_runner`]) and their background [`watch`]es; the build systems ([`build`]); and
//! the programs a command line or a project would run ([`programs`]).

pub mod build;
mod exec;
pub mod policy;
pub mod programs;
pub mod sandbox;
pub mod test_runner;
pub mod watch;

pub use exec::{Cancel, MAX_TIMEOUT_MS, RunOutput, execute, limits};
pub use sandbox::Sandbox;
pub use watch::TestWatches;
