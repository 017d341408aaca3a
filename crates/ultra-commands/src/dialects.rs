//! Other names for operations, as data: seed 003's methods that do what an `ultra.*`
//! command does, and seed 000's `ultra.*` names for operations registered under another id
//! (`ultra.git.*`, `ultra.moveFile`), with their own argument names and result shapes (see
//! [`ultra_core::dialect`]). A new name for an existing operation is one entry here, not a
//! command of its own.

use ultra_core::Registry;
use ultra_core::command::{CommandSpec, Example};
use ultra_core::dialect::{Dialect, Reshape};
use ultra_core::registry::RegistryError;

use ultra_services::Services;

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];
const TREE: &[(&str, &str)] = &[
    ("src/app.ts", "const x = 1;\nconsole.log(x);\n"),
    ("src/lib/util.ts", "export {};\n"),
    ("README.md", "# demo\n"),
];

/// A path the seed-003 methods require.
const PATH: &[(&str, &str)] = &[(
    "path",
    "File path, relative to the workspace root (or absolute inside it).",
)];

/// Every dialect name with the operation it reaches.
pub static DIALECTS: &[Dialect] = &[
    Dialect::new(
        CommandSpec::new(
            "editor.save",
            "Editor: Save",
            "Editor",
            "Write a buffer (default: the active editor) to disk crash-safely (seed 003; the same handler as ultra.save). STALE_VERSION if the file changed on disk since it was read, unless force. Also answers to VS Code's `workbench.action.files.save`, which seed 003's clients call.",
        )
        .aliases(&["workbench.action.files.save"])
        .examples(&[Example {
            description: "Save an edited file",
            args: r#"{"path": "src/app.ts", "expectedVersion": 2}"#,
            files: HELLO,
            setup: &[("editor.insertText", r#"{"path": "src/app.ts", "position": {"line": 0, "character": 0}, "text": "// saved\n"}"#)],
            expect: Some(r#"{"success": true, "path": "src/app.ts", "version": 2}"#),
            ..Example::EMPTY
        }]),
        "ultra.save",
    )
    .reshape(Reshape::Success),
    Dialect::new(
        CommandSpec::new(
            "editor.saveAll",
            "Editor: Save All",
            "Editor",
            "Save every buffer with unsaved changes (seed 003). success is false when any could not be saved; each failure is listed with its error.",
        )
        .examples(&[Example {
            description: "Save all dirty buffers",
            args: "{}",
            files: HELLO,
            setup: &[("editor.setContent", r#"{"path": "src/app.ts", "content": "let y = 2;\n"}"#)],
            expect: Some(r#"{"success": true, "saved": [{"path": "src/app.ts"}], "failed": []}"#),
            ..Example::EMPTY
        }]),
        "ultra.saveAll",
    )
    .reshape(Reshape::SuccessWhenEmpty("failed")),
    Dialect::new(
        CommandSpec::new(
            "editor.closeFile",
            "Editor: Close File",
            "Editor",
            "Close a file's buffer (seed 003). Unsaved changes block the close (BUFFER_DIRTY) unless force; pass expectedVersion so a forced close cannot discard changes you have not seen.",
        )
        .examples(&[
            Example { description: "Close an open file", args: r#"{"path": "src/app.ts"}"#, files: HELLO, setup: &[("ultra.openFile", r#"{"path": "src/app.ts"}"#)], expect: Some(r#"{"success": true, "path": "src/app.ts", "closed": true}"#), ..Example::EMPTY },
            Example {
                description: "Unsaved changes block a close",
                args: r#"{"path": "src/app.ts"}"#,
                files: HELLO,
                setup: &[("editor.insertText", r#"{"path": "src/app.ts", "text": "x", "position": {"line": 0, "character": 0}}"#)],
                error: Some("BUFFER_DIRTY"),
                ..Example::EMPTY
            },
        ]),
        "ultra.closeFile",
    )
    .require(&["path"])
    .describe(PATH)
    .reshape(Reshape::Success),
    Dialect::new(
        CommandSpec::new(
            "fs.deleteFile",
            "FS: Delete File",
            "File System",
            "Delete a file (seed 003; the same handler as ultra.deleteFile). A symlink is removed itself, never its target; a directory needs fs.deleteDirectory. An open buffer is closed; unsaved changes block unless force. Destructive: agents are asked first under the default policy.",
        )
        .examples(&[
            Example { description: "Delete a file", args: r#"{"path": "src/app.ts"}"#, files: HELLO, expect: Some(r#"{"success": true, "path": "src/app.ts", "deleted": true}"#), ..Example::EMPTY },
            Example { description: "A directory is not a file", args: r#"{"path": "src"}"#, files: HELLO, error: Some("NOT_A_FILE"), ..Example::EMPTY },
        ]),
        "ultra.deleteFile",
    )
    .omit(&["confirm"])
    .reshape(Reshape::Success),
    Dialect::new(
        CommandSpec::new(
            "fs.rename",
            "FS: Rename",
            "File System",
            "Rename or move a file or directory inside the workspace (seed 003; the same handler as ultra.renameFile). A symlink is moved itself. Open buffers follow. FILE_EXISTS unless overwrite.",
        )
        .examples(&[
            Example { description: "Move a file", args: r#"{"oldPath": "src/app.ts", "newPath": "lib/app.ts"}"#, files: HELLO, expect: Some(r#"{"success": true, "oldPath": "src/app.ts", "newPath": "lib/app.ts"}"#), ..Example::EMPTY },
            Example { description: "An existing target is kept", args: r#"{"oldPath": "src/app.ts", "newPath": "README.md"}"#, files: TREE, error: Some("FILE_EXISTS"), ..Example::EMPTY },
        ]),
        "ultra.renameFile",
    )
    .args(&[("oldPath", "path")])
    .results(&[("path", "oldPath")])
    .reshape(Reshape::Success),
    Dialect::new(
        CommandSpec::new(
            "editor.insertText",
            "Editor: Insert Text",
            "Editor",
            "Insert text at a 0-based position as one undoable transaction (seed 003). A character past the line end clamps to it; a line past the end is INVALID_POSITION.",
        )
        .examples(&[Example {
            description: "Insert a comment line at the top",
            args: r#"{"path": "src/app.ts", "position": {"line": 0, "character": 0}, "text": "// header\n"}"#,
            files: HELLO,
            expect: Some(r#"{"success": true, "version": 2, "lineCount": 4, "changedLines": [1, 1]}"#),
            ..Example::EMPTY
        }]),
        "ultra.insertText",
    )
    .require(&["path", "position"])
    .describe(PATH)
    .reshape(Reshape::Success),
    Dialect::new(
        CommandSpec::new(
            "editor.replaceRange",
            "Editor: Replace Range",
            "Editor",
            "Replace a 0-based range with text as one undoable transaction (seed 003; the same handler as ultra.edit).",
        )
        .examples(&[
            Example {
                description: "Rename `x` on line 0",
                args: r#"{"path": "src/app.ts", "range": {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 7}}, "text": "total"}"#,
                files: HELLO,
                expect: Some(r#"{"success": true, "path": "src/app.ts", "version": 2}"#),
                ..Example::EMPTY
            },
            Example {
                description: "A stale version is refused",
                args: r#"{"path": "src/app.ts", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "text": "C", "expectedVersion": 5}"#,
                files: HELLO,
                error: Some("STALE_VERSION"),
                ..Example::EMPTY
            },
        ]),
        "ultra.edit",
    )
    .require(&["path"])
    .describe(PATH)
    .reshape(Reshape::Success),
    Dialect::new(
        CommandSpec::new(
            "editor.deleteRange",
            "Editor: Delete Range",
            "Editor",
            "Delete a 0-based range as one undoable transaction (seed 003).",
        )
        .examples(&[Example {
            description: "Delete the first line",
            args: r#"{"path": "src/app.ts", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}}"#,
            files: HELLO,
            expect: Some(r#"{"success": true, "version": 2, "lineCount": 2}"#),
            ..Example::EMPTY
        }]),
        "ultra.edit",
    )
    .require(&["path"])
    .describe(PATH)
    .fixed(&[("text", r#""""#)])
    .reshape(Reshape::Success),
    Dialect::new(
        CommandSpec::new(
            "ultra.moveFile",
            "Move File",
            "File",
            "Move (or rename) a file or directory inside the workspace, creating parent directories (seed 000; the same handler as ultra.renameFile, so validators see the same file operation). Open buffers follow. FILE_EXISTS unless overwrite.",
        )
        .examples(&[
            Example { description: "Move a file into another directory", args: r#"{"path": "src/app.ts", "newPath": "lib/app.ts"}"#, files: HELLO, expect: Some(r#"{"path": "src/app.ts", "newPath": "lib/app.ts"}"#), ..Example::EMPTY },
            Example { description: "An existing target is kept", args: r#"{"path": "src/app.ts", "newPath": "README.md"}"#, files: TREE, error: Some("FILE_EXISTS"), ..Example::EMPTY },
        ]),
        "ultra.renameFile",
    ),
    Dialect::new(
        CommandSpec::new(
            "ultra.git.status",
            "Git: Status",
            "Git",
            "The branch, ahead/behind counts and the staged, modified, untracked and conflicted files (seed 000's name for git.status).",
        )
        .examples(&[Example { description: "Outside a repository", args: "{}", error: Some("NOT_A_GIT_REPOSITORY"), ..Example::EMPTY }]),
        "git.status",
    ),
    Dialect::new(
        CommandSpec::new(
            "ultra.git.stage",
            "Git: Stage",
            "Git",
            "Stage a path (a file, or every change under a directory), several paths, or with no path every change in the work tree (seed 000's name for git.stage). Returns what is staged now.",
        )
        .examples(&[Example { description: "Outside a repository", args: r#"{"path": "src/app.ts"}"#, error: Some("NOT_A_GIT_REPOSITORY"), ..Example::EMPTY }]),
        "git.stage",
    )
    .args(&[("path", "files")])
    .wrap(&["path"])
    .defaults(&[("files", r#"["."]"#)])
    .describe(&[(
        "path",
        "A file or directory to stage, relative to the workspace root, or a list of them (default: every change).",
    )]),
    Dialect::new(
        CommandSpec::new(
            "ultra.git.commit",
            "Git: Commit",
            "Git",
            "Commit what is staged (after staging `files`, if given) with the repository's configured author (seed 000's name for git.commit). An empty message or nothing to commit is refused; no hooks run.",
        )
        .examples(&[Example { description: "Outside a repository", args: r#"{"message": "feat: add date utils"}"#, error: Some("NOT_A_GIT_REPOSITORY"), ..Example::EMPTY }]),
        "git.commit",
    ),
];

/// Register every dialect name; their targets must be registered already.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    DIALECTS.iter().try_for_each(|d| r.register_dialect(d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dialect_is_listed_with_its_target_and_the_targets_risk() {
        let mut r = Registry::<Services>::new();
        crate::register_all(&mut r).expect("registry builds");
        for d in DIALECTS {
            let info = r.get(d.spec.id).expect("dialect registered");
            assert_eq!(info.target.as_deref(), Some(d.target));
            let target = r.get(d.target).expect("target registered");
            assert_eq!(info.annotations, target.annotations, "{}", d.spec.id);
            assert_eq!(info.touches, target.touches, "{}", d.spec.id);
            assert!(
                target.target.is_none(),
                "{} reaches an operation, not a name",
                d.spec.id
            );
        }
        assert_eq!(
            r.resolve("workbench.action.files.save"),
            Some("editor.save")
        );
    }
}
