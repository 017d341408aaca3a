//! Where the socket lives, and the checks on its directory.
//!
//! The socket sits in a directory only we can enter (security research §2.2): created
//! 0700, or, when it already exists, a real directory (not a symlink, checked with
//! `lstat`) owned by our uid with no group or other permission bits. Anything else is
//! refused rather than repaired, because repairing (chmod, chown, following a link) is
//! exactly what an attacker who planted it would want.

use std::ffi::OsString;
use std::fs::{self, DirBuilder};
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::{Path, PathBuf};

use ultra_core::config::IpcConfig;

use crate::IpcError;

/// Environment variable naming the socket explicitly (seed 000's `ULTRA_SOCKET`).
pub(crate) const SOCKET_ENV: &str = "ULTRA_SOCKET";

/// FNV-1a, 64-bit. Stable across builds and platforms, unlike `std`'s `DefaultHasher`,
/// so a CLI built today finds the socket of a server built yesterday.
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

/// 16 hex digits identifying a workspace: the FNV-1a hash of its canonical root path.
///
/// The path is canonicalised so that `.`, `./` and a symlinked checkout of the same
/// directory all map to one server. If the root cannot be canonicalised (it does not
/// exist), the path is hashed as given.
pub fn workspace_hash(workspace_root: &Path) -> String {
    let canonical = workspace_root
        .canonicalize()
        .unwrap_or_else(|_| workspace_root.to_path_buf());
    format!("{:016x}", fnv1a64(canonical.as_os_str().as_bytes()))
}

/// The default socket of a workspace: `$XDG_RUNTIME_DIR/ultra/<hash>.sock`, or
/// `/tmp/ultra-<uid>/<hash>.sock` when `XDG_RUNTIME_DIR` is unset or not absolute.
pub fn default_socket_path(workspace_root: &Path) -> PathBuf {
    socket_path_under(
        std::env::var_os("XDG_RUNTIME_DIR"),
        current_uid(),
        workspace_root,
    )
}

fn socket_path_under(
    xdg_runtime_dir: Option<OsString>,
    uid: u32,
    workspace_root: &Path,
) -> PathBuf {
    let name = format!("{}.sock", workspace_hash(workspace_root));
    match xdg_runtime_dir.map(PathBuf::from) {
        // A relative XDG_RUNTIME_DIR is invalid per the spec; ignore it rather than put the
        // socket somewhere that depends on the current directory.
        Some(dir) if dir.is_absolute() => dir.join("ultra").join(name),
        _ => PathBuf::from(format!("/tmp/ultra-{uid}")).join(name),
    }
}

/// The socket a server for `workspace_root` uses and a client should try: `$ULTRA_SOCKET`
/// if set, else `ipc.socket` from config (relative paths are taken from the workspace
/// root), else [`default_socket_path`].
pub fn resolve_socket_path(workspace_root: &Path, cfg: &IpcConfig) -> PathBuf {
    if let Some(p) = std::env::var_os(SOCKET_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    match cfg.socket.as_deref().filter(|s| !s.is_empty()) {
        Some(s) => workspace_root.join(s),
        None => default_socket_path(workspace_root),
    }
}

/// Our real uid.
pub(crate) fn current_uid() -> u32 {
    // SAFETY: getuid takes no arguments, cannot fail and touches no memory of ours.
    unsafe { libc::getuid() }
}

/// Make sure `dir` is a private directory of ours, creating it (and missing parents) with
/// mode 0700 if it does not exist. Refuses a symlink, a non-directory, a directory owned by
/// someone else, or one with group/other permission bits.
pub fn ensure_runtime_dir(dir: &Path) -> Result<(), IpcError> {
    match fs::symlink_metadata(dir) {
        Ok(meta) => check_dir(dir, &meta),
        Err(e) if e.kind() == ErrorKind::NotFound => {
            // Mode 0700 is applied at creation, so there is no window in which the
            // directory is open to others.
            if let Err(e) = DirBuilder::new().recursive(true).mode(0o700).create(dir) {
                return Err(IpcError::io("cannot create runtime directory", dir, e));
            }
            // Check what is there now, not what we think we created: someone may have won
            // a race and planted a link between our lstat and our mkdir.
            let meta = fs::symlink_metadata(dir)
                .map_err(|e| IpcError::io("cannot inspect runtime directory", dir, e))?;
            check_dir(dir, &meta)
        }
        Err(e) => Err(IpcError::io("cannot inspect runtime directory", dir, e)),
    }
}

fn check_dir(dir: &Path, meta: &fs::Metadata) -> Result<(), IpcError> {
    let path = dir.to_path_buf();
    if meta.file_type().is_symlink() {
        return Err(IpcError::RuntimeDirSymlink { path });
    }
    if !meta.is_dir() {
        return Err(IpcError::RuntimeDirNotDirectory { path });
    }
    let uid = current_uid();
    if meta.uid() != uid {
        return Err(IpcError::RuntimeDirOwner {
            path,
            owner: meta.uid(),
            uid,
        });
    }
    let mode = meta.mode() & 0o7777;
    if mode & 0o077 != 0 {
        return Err(IpcError::RuntimeDirMode { path, mode });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_reference_vectors() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    }

    #[test]
    fn socket_path_prefers_absolute_xdg_runtime_dir() {
        let root = Path::new("/nonexistent/ultra/workspace");
        let hash = workspace_hash(root);
        assert_eq!(hash.len(), 16);
        assert_eq!(
            socket_path_under(Some("/run/user/1000".into()), 1000, root),
            PathBuf::from(format!("/run/user/1000/ultra/{hash}.sock"))
        );
        assert_eq!(
            socket_path_under(None, 1000, root),
            PathBuf::from(format!("/tmp/ultra-1000/{hash}.sock"))
        );
        assert_eq!(
            socket_path_under(Some("relative".into()), 7, root),
            PathBuf::from(format!("/tmp/ultra-7/{hash}.sock"))
        );
    }

    #[test]
    fn hash_is_stable_for_equivalent_roots() {
        let dir = tempfile::tempdir().unwrap();
        let a = workspace_hash(dir.path());
        let b = workspace_hash(&dir.path().join("."));
        assert_eq!(a, b);
    }
}
