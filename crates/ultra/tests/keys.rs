//! Key bindings from config through the real binary: a user binding joins the defaults
//! (and can remove one), and a binding that names no command, a bad key or a when-clause
//! that does not parse stops the CLI with the entry and the reason.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::json;

#[test]
fn user_bindings_join_the_defaults_and_bad_ones_are_named() {
    let ws = Ws::new();
    ws.config(json!({"keybindings": [
        {"key": "ctrl+shift+s", "command": "ultra.save", "when": "editorFocus && !editorReadonly"},
        {"command": "-ultra.save", "key": "ctrl+s"},
    ]}));
    let out = ws.cli(&[
        "-c",
        "ultra.keybindings",
        "-a",
        r#"{"command": "ultra.save"}"#,
        "--json",
    ]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    let v = &out.json()[0]["data"];
    assert_eq!(
        v,
        &json!([{"key": "ctrl+shift+s", "command": "ultra.save", "when": "editorFocus && !editorReadonly", "origin": "user"}]),
        "{v}"
    );

    for (bindings, says) in [
        (
            json!([{"key": "ctrl+x", "command": "nope.cut"}]),
            "keybindings[0]: no command `nope.cut`",
        ),
        (
            json!([{"key": "hyper+x", "command": "ultra.save"}]),
            "keybindings[0]: `hyper` in `hyper+x`",
        ),
        (
            json!([{"key": "ctrl+x", "command": "ultra.save", "when": "a &&"}]),
            "keybindings[0]: when-clause `a &&` at 4",
        ),
    ] {
        ws.config(json!({ "keybindings": bindings }));
        let out = ws.cli(&["-c", "ultra.keybindings"]);
        assert_ne!(out.code(), 0);
        assert!(out.stderr().contains(says), "{}", out.stderr());
    }
}
