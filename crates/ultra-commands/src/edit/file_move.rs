//! Moving a code file with its importers updated: the file's language server, when it
//! handles file renames (`workspace/willRenameFiles`, as typescript-language-server
//! does), works out the edits the move needs (import paths in other files and in the file
//! itself), and the edits and the move land as one batch: every file or none, saved, one
//! undo step that puts the file back and the imports as they were.

use serde_json::json;
use ultra_core::Cx;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_services::Services;
use ultra_services::util::is_human;
use ultra_tools::code::semantic::{self, EditStep};
use ultra_workspace::root::Kind;

use super::server_edit::{self, ServerEdited, Shown};

/// What became of the importers when a file moved.
pub(crate) enum Imports {
    /// The server's edits and the move were applied together.
    Updated(ServerEdited),
    /// The file was not moved here, for this reason (`None`: no server for its language
    /// or one that does not handle renames, which is nothing to report).
    NotUpdated(Option<String>),
}

/// Move the file `from` to `to` with the edits its language server says the move needs,
/// if a server handles renames; otherwise nothing is moved and [`Imports::NotUpdated`]
/// says why. `required`: a server that cannot answer is an error, not a reason.
pub(crate) fn move_updating_imports(
    cx: &mut Cx<'_, Services>,
    from: &str,
    to: &str,
    overwrite: bool,
    required: bool,
) -> Result<Imports, CommandError> {
    let not_updated = |why: Option<String>| -> Result<Imports, CommandError> {
        match why {
            Some(why) if required => Err(CommandError::new(
                ErrorCode::LanguageServerUnavailable,
                format!("the importers of {from} cannot be updated: {why}"),
            )
            .with_suggestion("retry in a moment, or move it with updateImports: false")),
            why => Ok(Imports::NotUpdated(why)),
        }
    };
    // Workspace-relative from here on: the server is told of the paths as it knows them.
    let (from, to) = {
        let ws = cx.services.ws();
        // The entry itself, as a plain move takes it: a symlink moves as a link, alone.
        let rel = ws.resolve_entry(from, is_human(cx))?;
        if ws.root().entry_kind(&rel) != Some(Kind::File) {
            return not_updated(required.then(|| "imports are updated for a single file".into()));
        }
        let to = ws.resolve_entry(to, is_human(cx))?;
        (rel.as_str().to_string(), to.as_str().to_string())
    };
    let (from, to) = (from.as_str(), to.as_str());
    let client = match semantic::file_mover(cx, from) {
        Ok(Some(c)) => c,
        Ok(None) => {
            return not_updated(
                required
                    .then(|| "no language server that updates imports on a move serves it".into()),
            );
        }
        // No server to ask is not news for a plain move.
        Err(why) => return not_updated(required.then_some(why)),
    };
    let shown = Shown::new(cx, from)?;
    let files = json!({ "files": [{
        "oldUri": semantic::document_uri(cx, from),
        "newUri": semantic::document_uri(cx, to),
    }] });
    let params = files.clone();
    let (answer, server) = match semantic::request(
        cx,
        from,
        &shown.rope(),
        "workspace/willRenameFiles",
        &|_| params.clone(),
    ) {
        Ok(a) => a,
        Err(why) => {
            return not_updated(Some(
                why.and_then(|a| a.reason)
                    .unwrap_or_else(|| "its language server did not answer".into()),
            ));
        }
    };
    let mut steps = if answer.is_null() {
        Vec::new()
    } else {
        semantic::workspace_edit(cx.services.root_path(), &answer)?
    };
    // The server's edits are for the files as they are now (the moved one still at its
    // old path); the move comes after them.
    steps.push(EditStep::Rename {
        from: from.to_string(),
        to: to.to_string(),
        overwrite,
        ignore_if_exists: false,
    });
    let edited = server_edit::apply_steps(cx, &shown, steps, server, false, "file move")?;
    let _ = client.notify("workspace/didRenameFiles", files);
    Ok(Imports::Updated(edited))
}
