//! The web UI in a real browser (issue 8): headless Chromium driven by playwright-core
//! (`tests/web/ui_test.mjs`) against `ultra serve`, signed in with the ticket it prints,
//! while an agent works over the Unix socket. Windows, HTML, a data-command round trip,
//! state binding both ways, components, a clarifier's answer coming back as an intent, an
//! approved http call fetched by the page, an approval and a denial from the page, every XSS
//! payload of security.md H1-H7 inert in the page, a page on another port refused the
//! WebSocket and a rebinding host name refused the page (O5), and after `kill -9` and a
//! restart the same screen, with the activity feed starting from the audit log. Screenshots go to `target/tmp/ui-screenshots`.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Server, Ws, wsc};
use serde_json::json;

fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/web")
}

/// The browser driver's packages, from the lock file.
fn node_modules() {
    common::npm_ci(&web_dir(), "node_modules/playwright-core");
}

/// The sign-in URL `ultra serve` printed.
fn ui_url(server: &Server) -> String {
    let full = |err: &str| {
        err.split_inclusive('\n')
            .find(|l| l.contains("web UI: http://") && l.ends_with('\n'))
            .map(|l| {
                l.split("web UI: ")
                    .nth(1)
                    .unwrap()
                    .split_whitespace()
                    .next()
                    .unwrap()
                    .to_string()
            })
    };
    common::wait_until("the web UI line", || full(&server.stderr()).is_some());
    full(&server.stderr()).unwrap()
}

fn drive(mode: &str, url: &str, ws: &Ws) {
    let shots = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ui-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    let mut cmd = Command::new("node");
    cmd.arg(web_dir().join("ui_test.mjs"))
        .arg(mode)
        .arg(url)
        .arg(&ws.sock)
        .arg(&shots);
    // A browser session takes longer than the usual deadline.
    let out = common::run_within(cmd, std::time::Duration::from_secs(120));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("ok"),
        "ui_test.mjs {mode}:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_web_ui_in_chromium() {
    node_modules();
    let ws = wsc::workspace(json!({"ui": {"httpAllow": ["127.0.0.1"]}}));
    ws.write("notes.md", "first line\n");
    let mut server = ws.serve();
    let url = ui_url(&server);
    assert!(url.contains("/ui/#ticket="), "{url}");
    assert!(!url.contains(wsc::TOKEN), "the token is not in the URL");
    drive("main", &url, &ws);
    assert_eq!(ws.read("approved.txt"), "yes\n");
    assert!(!ws.exists("denied.txt"));

    server.kill9();
    let server = ws.serve();
    drive("replay", &ui_url(&server), &ws);
}
