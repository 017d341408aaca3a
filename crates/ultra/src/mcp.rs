//! `ultra mcp`: the workspace's tools over MCP on stdin and stdout, for an MCP client that
//! starts Ultra as its server (Claude Code, Cursor, the MCP SDKs). Nothing but MCP goes to
//! stdout; diagnostics go to stderr.

use std::process::ExitCode;

use ultra_core::Config;
use ultra_core::tools::Profile;
use ultra_mcp::McpServer;

/// Serve MCP over stdio until the client disconnects.
pub fn run(root: &std::path::Path, profile: Option<&str>, auto_apply: bool) -> ExitCode {
    let fail = |e: &dyn std::fmt::Display| {
        eprintln!("ultra mcp: {e}");
        ExitCode::from(2)
    };
    let config = match Config::load(root) {
        Ok(c) => c,
        Err(e) => return fail(&e),
    };
    let profile = match Profile::parse(profile.or(config.mcp.profile.as_deref()).unwrap_or("")) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    // One client on one pipe: one worker keeps rmcp's dispatch and the handler it spawns
    // for each request on one core (with two, each request woke the other to steal the
    // handler). Long commands still leave it (`block_in_place`), so progress goes on.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_stack_size(crate::serve::WORKER_STACK_BYTES)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    runtime.block_on(async move {
        let exec = match ultra_commands::build(root, config) {
            Ok(e) => e,
            Err(e) => return fail(&e),
        };
        // No one can answer a confirmation over stdio yet: without auto-apply, calls that
        // need a person come back as CONFIRMATION_REQUIRED.
        exec.set_auto_apply(auto_apply);
        // As under `ultra serve`: buffers follow external edits, and the code index stays
        // in memory, follows file events and warms up in the background (without this,
        // every code query would walk the tree).
        let _watch = ultra_commands::watch::spawn(exec.clone()).ok();
        let _index_watch = exec.services().watch_index().ok();
        exec.services().announce_diagnostics(exec.events().clone());
        let _warm = exec.services().warm_up(exec.events().clone());
        let server = McpServer::new(exec, &profile);
        eprintln!(
            "ultra mcp: {} tools on stdio for {}",
            server.tools().len(),
            root.display()
        );
        match server.serve_stdio().await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        }
    })
}
