//! UICP (seed 002): the operations agents use to build UI windows, validated against the
//! seed's budgets, their HTML sanitised here on the server, applied to a model of windows,
//! components and state that persists, so a page (or a restarted server) replays to the
//! same screen.

pub mod components;
pub mod journal;
pub mod model;
pub mod ops;
pub mod sanitize;
