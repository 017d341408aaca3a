//! The toggles: panes, split, palette, sidebar focus and the terminal panel. Each changes
//! the shared view and announces it as `view.changed`.

use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::{CommandError, ErrorCode};

use super::{
    Changed, FocusArgs, HELLO, OPEN, Palette, PaletteArgs, Split, SplitArgs, TerminalArgs,
    TerminalPanel, ToggleArgs, ViewState,
};
use ultra_services::Services;
use ultra_services::util::NoArgs;

/// `ultra.toggleSidebar` / `ultra.toggleAgentPane`: a pane's visibility.
pub struct TogglePane(
    pub &'static CommandSpec,
    pub fn(&mut ViewState) -> &mut bool,
);

pub(super) static TOGGLE_SIDEBAR: CommandSpec = CommandSpec::new(
    "ultra.toggleSidebar",
    "View: Toggle Sidebar",
    "View",
    "Show or hide the file tree; `visible` sets it instead of toggling.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+b")
.examples(&[Example {
    description: "Show the sidebar",
    args: r#"{"visible": true}"#,
    expect: Some(r#"{"sidebar": true}"#),
    ..Example::EMPTY
}]);

pub(super) static TOGGLE_AGENT_PANE: CommandSpec = CommandSpec::new(
    "ultra.toggleAgentPane",
    "View: Toggle Agent Pane",
    "View",
    "Show or hide the agent pane (recent agent commands, progress, pending confirmations); `visible` sets it instead of toggling.",
)
.touches(Touches::NOTHING)
.keybinding("alt+a")
.examples(&[Example {
    description: "Show the agent pane",
    args: r#"{"visible": true}"#,
    expect: Some(r#"{"agentPane": true}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for TogglePane {
    type Args = ToggleArgs;
    type Output = Changed;

    fn spec(&self) -> &'static CommandSpec {
        self.0
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: ToggleArgs) -> Result<Changed, CommandError> {
        let field = self.1;
        Ok(cx.services.view().change(cx, |v| {
            let shown = field(v);
            *shown = a.visible.unwrap_or(!*shown);
        }))
    }
}
/// `ultra.splitView`.
pub struct SplitView;

impl Command<Services> for SplitView {
    type Args = SplitArgs;
    type Output = Changed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.splitView",
        "View: Split Editor",
        "View",
        "Split the editor into two groups: the second keeps showing the buffer active now while the first follows the active buffer. `direction: none` joins them again.",
    )
    .touches(Touches::NOTHING)
    .keybinding("ctrl+\\")
    .examples(&[Example {
        description: "Side by side",
        args: r#"{"direction": "vertical"}"#,
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"split": "vertical", "splitPath": "src/app.rs"}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: SplitArgs) -> Result<Changed, CommandError> {
        let active = cx.services.ws().active().map(|p| p.to_string());
        Ok(cx.services.view().change(cx, |v| {
            v.split = a.direction.unwrap_or(if v.split == Split::None {
                Split::Vertical
            } else {
                Split::None
            });
            v.split_path = if v.split == Split::None { None } else { active };
        }))
    }
}
/// `ultra.commandPalette`.
pub struct CommandPalette;

impl Command<Services> for CommandPalette {
    type Args = PaletteArgs;
    type Output = Changed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.commandPalette",
        "View: Show Command Palette",
        "View",
        "Open the command palette (fuzzy search over every command; arguments are asked for from each command's schema), optionally with a query typed in. An agent can open it to point a person at a command.",
    )
    .touches(Touches::NOTHING)
    .keybinding("ctrl+p")
    .more_keys(&[("f1", "{}"), ("ctrl+shift+p", "{}")])
    .examples(&[Example {
        description: "Open it searching for save",
        args: r#"{"query": "save"}"#,
        expect: Some(r#"{"palette": {"open": true, "query": "save"}}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: PaletteArgs) -> Result<Changed, CommandError> {
        if a.query.chars().count() > 200 {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                "the query is longer than 200 characters",
            )
            .with_suggestion("use a few words of the command's title or id"));
        }
        Ok(cx.services.view().change(cx, |v| {
            v.palette = Palette {
                open: true,
                query: a.query,
            };
        }))
    }
}

/// `ultra.closePalette`.
pub struct ClosePalette;

impl Command<Services> for ClosePalette {
    type Args = NoArgs;
    type Output = Changed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.closePalette",
        "View: Close Command Palette",
        "View",
        "Close the command palette.",
    )
    .touches(Touches::NOTHING)
    .idempotent()
    .examples(&[Example {
        description: "Close it",
        setup: &[("ultra.commandPalette", "{}")],
        expect: Some(r#"{"palette": {"open": false}}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Changed, CommandError> {
        Ok(cx
            .services
            .view()
            .change(cx, |v| v.palette = Palette::default()))
    }
}

/// `ultra.focusSidebar`.
pub struct FocusSidebar;

impl Command<Services> for FocusSidebar {
    type Args = FocusArgs;
    type Output = Changed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.focusSidebar",
        "View: Focus File Tree",
        "View",
        "Send keys to the sidebar's file list (showing it if hidden: arrows choose, Enter opens), or back to the editor.",
    )
    .touches(Touches::NOTHING)
    .keybinding("alt+e")
    .examples(&[Example {
        description: "Focus the file list",
        args: r#"{"focus": true}"#,
        expect: Some(r#"{"sidebar": true, "sidebarFocused": true}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: FocusArgs) -> Result<Changed, CommandError> {
        Ok(cx.services.view().change(cx, |v| {
            let focus = a.focus.unwrap_or(!(v.sidebar && v.sidebar_focused));
            v.sidebar_focused = focus;
            v.sidebar |= focus;
        }))
    }
}

// ---------------------------------------------------------------- terminal panel
/// `ultra.toggleTerminal`.
pub struct ToggleTerminal;

impl Command<Services> for ToggleTerminal {
    type Args = TerminalArgs;
    type Output = Changed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.toggleTerminal",
        "View: Toggle Terminal",
        "View",
        "Show the terminal panel with keys going to it (starting a terminal, as terminal.create does, when none it showed is alive), or hide it; the terminal lives on while hidden.",
    )
    .touches(Touches::NOTHING)
    .keybinding("alt+t")
    .more_keys(&[("ctrl+`", "{}")])
    .examples(&[Example {
        description: "Show it",
        args: r#"{"visible": true, "rows": 10, "cols": 80}"#,
        expect: Some(r#"{"terminal": {"visible": true, "focused": true, "terminalId": "term-1"}}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: TerminalArgs) -> Result<Changed, CommandError> {
        let current = cx.services.view().lock().view.terminal.clone();
        let show = a.visible.unwrap_or(!current.visible);
        let alive = current
            .terminal_id
            .as_deref()
            .is_some_and(|id| cx.services.terminals().alive(id));
        let id = if show && !alive {
            let made = ultra_tools::terminal::create(
                cx,
                ultra_tools::terminal::CreateArgs {
                    name: Some("Editor".into()),
                    rows: a.rows,
                    cols: a.cols,
                    ..Default::default()
                },
            )?;
            Some(made.terminal_id)
        } else {
            current.terminal_id
        };
        Ok(cx.services.view().change(cx, |v| {
            v.terminal = TerminalPanel {
                visible: show,
                focused: show,
                terminal_id: id,
            };
        }))
    }
}
/// `ultra.focusTerminal`.
pub struct FocusTerminal;

impl Command<Services> for FocusTerminal {
    type Args = FocusArgs;
    type Output = Changed;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.focusTerminal",
        "View: Focus Terminal / Editor",
        "View",
        "Send keys to the visible terminal panel, or back to the editor.",
    )
    .touches(Touches::NOTHING)
    .keybinding("alt+j")
    .when("terminalVisible")
    .examples(&[Example {
        description: "Back to the editor",
        args: r#"{"focus": false}"#,
        setup: &[("ultra.toggleTerminal", "{}")],
        expect: Some(r#"{"terminal": {"visible": true, "focused": false}}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: FocusArgs) -> Result<Changed, CommandError> {
        if !cx.services.view().lock().view.terminal.visible {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                "the terminal panel is hidden",
            )
            .with_suggestion("show it with ultra.toggleTerminal"));
        }
        Ok(cx.services.view().change(cx, |v| {
            v.terminal.focused = a.focus.unwrap_or(!v.terminal.focused);
        }))
    }
}
