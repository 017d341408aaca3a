//! The view: what an editor shows, kept by the server so that a person's editor, the web
//! UI and agents see and change the same thing through commands. `ultra.getViewState` is
//! the panes, tabs and context keys; `ultra.getViewport` is the lines on screen with their
//! highlighting, selections and syntax-error markers; the toggles (`ultra.toggleSidebar`,
//! `ultra.splitView`, `ultra.commandPalette`, ...) change the view and announce it as
//! `view.changed`. Context keys are what when-clauses read: the ones derived here from the
//! view and the active buffer, plus any an editor sets with `ultra.setContext`.

mod context;
mod panes;
mod service;
mod tabs;
mod viewport;

use ultra_core::Registry;
use ultra_core::registry::RegistryError;
pub use ultra_protocol::view::*;

use context::{GetViewState, InspectContextKeys, SetContext};
use panes::{
    ClosePalette, CommandPalette, FocusSidebar, FocusTerminal, SplitView, TOGGLE_AGENT_PANE,
    TOGGLE_SIDEBAR, TogglePane, ToggleTerminal,
};
use tabs::{CycleEditor, NEXT_EDITOR, PREVIOUS_EDITOR, Quit};
use ultra_services::Services;
pub use ultra_services::view::{VIEW_CHANGED, ViewService};
use viewport::GetViewport;

/// Register the view commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GetViewState)?;
    r.register(GetViewport)?;
    r.register(TogglePane(&TOGGLE_SIDEBAR, |v| &mut v.sidebar))?;
    r.register(TogglePane(&TOGGLE_AGENT_PANE, |v| &mut v.agent_pane))?;
    r.register(SplitView)?;
    r.register(CommandPalette)?;
    r.register(ClosePalette)?;
    r.register(FocusSidebar)?;
    r.register(ToggleTerminal)?;
    r.register(FocusTerminal)?;
    r.register(SetContext)?;
    r.register(InspectContextKeys)?;
    r.register(CycleEditor(&NEXT_EDITOR, 1))?;
    r.register(CycleEditor(&PREVIOUS_EDITOR, -1))?;
    r.register(Quit)?;
    Ok(())
}

pub(super) const HELLO: &[(&str, &str)] = &[(
    "src/app.rs",
    "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n",
)];
pub(super) const OPEN: &[(&str, &str)] = &[("ultra.openFile", r#"{"path": "src/app.rs"}"#)];

/// The result of a view change: the new view.
pub type Changed = ViewState;
