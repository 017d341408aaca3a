//! Moving between open editors, and quitting the editor.

use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::{CommandError, ErrorCode, SourceKind};
use ultra_workspace::RelPath;

use super::{Active, QuitArgs, QuitOk};
use ultra_services::Services;
use ultra_services::util::NoArgs;

/// `ultra.nextEditor` / `ultra.previousEditor`.
pub struct CycleEditor(pub &'static CommandSpec, pub isize);

pub(super) static NEXT_EDITOR: CommandSpec = CommandSpec::new(
    "ultra.nextEditor",
    "View: Next Editor",
    "View",
    "Make the next open buffer (by path, wrapping) the active one.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+pagedown")
.more_keys(&[("alt+right", "{}")])
.examples(&[Example {
    description: "From the last tab back to the first",
    files: &[("a.txt", "a\n"), ("b.txt", "b\n")],
    setup: &[
        ("ultra.openFile", r#"{"path": "a.txt"}"#),
        ("ultra.openFile", r#"{"path": "b.txt"}"#),
    ],
    expect: Some(r#"{"active": "a.txt"}"#),
    ..Example::EMPTY
}]);

pub(super) static PREVIOUS_EDITOR: CommandSpec = CommandSpec::new(
    "ultra.previousEditor",
    "View: Previous Editor",
    "View",
    "Make the previous open buffer (by path, wrapping) the active one.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+pageup")
.more_keys(&[("alt+left", "{}")])
.examples(&[Example {
    description: "Back one tab",
    files: &[("a.txt", "a\n"), ("b.txt", "b\n")],
    setup: &[
        ("ultra.openFile", r#"{"path": "a.txt"}"#),
        ("ultra.openFile", r#"{"path": "b.txt"}"#),
    ],
    expect: Some(r#"{"active": "a.txt"}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for CycleEditor {
    type Args = NoArgs;
    type Output = Active;

    fn spec(&self) -> &'static CommandSpec {
        self.0
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Active, CommandError> {
        let mut ws = cx.services.ws();
        let paths: Vec<RelPath> = ws.buffers().map(|b| b.path.clone()).collect();
        let current = ws.require_active()?;
        let i = paths.iter().position(|p| *p == current).unwrap_or(0) as isize;
        let n = paths.len() as isize;
        let next = paths[((i + self.1) % n + n) as usize % paths.len()].clone();
        ws.set_active(&next);
        Ok(Active {
            active: next.to_string(),
        })
    }
}

// ---------------------------------------------------------------- quit
/// `ultra.quit`.
pub struct Quit;

impl Command<Services> for Quit {
    type Args = QuitArgs;
    type Output = QuitOk;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.quit",
        "File: Quit",
        "File",
        "Close the editor that runs it. Refused with BUFFER_DIRTY, listing the dirty buffers, unless they are saved or `force` is given.",
    )
    .touches(Touches::NOTHING)
    .keybinding("ctrl+q")
    .not_ai_exposed()
    .only_sources(&[SourceKind::Human])
    .examples(&[Example {
        description: "Nothing unsaved",
        expect: Some(r#"{"quit": true}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: QuitArgs) -> Result<QuitOk, CommandError> {
        let dirty: Vec<String> = cx
            .services
            .ws()
            .buffers()
            .filter(|b| b.is_dirty())
            .map(|b| b.path.to_string())
            .collect();
        if !dirty.is_empty() && !a.force {
            return Err(CommandError::new(
                ErrorCode::BufferDirty,
                format!("unsaved changes in {}", dirty.join(", ")),
            )
            .with_details(json!({ "dirty": dirty }))
            .with_suggestion("save them (ultra.saveAll), or quit with {\"force\": true}"));
        }
        Ok(QuitOk { quit: true })
    }
}
