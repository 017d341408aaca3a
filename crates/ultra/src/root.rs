//! Finding the workspace root.

use std::path::{Path, PathBuf};

/// The root: `explicit` if given, else the nearest ancestor of the current directory that
/// holds `ultra.config.json` or `.git`, else the current directory.
pub fn workspace_root(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return p
            .canonicalize()
            .map_err(|e| format!("cannot use --root {}: {e}", p.display()));
    }
    let cwd =
        std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    for dir in cwd.ancestors() {
        if dir.join(ultra_core::config::CONFIG_FILE).is_file() || dir.join(".git").exists() {
            return Ok(dir.to_path_buf());
        }
    }
    Ok(cwd)
}
