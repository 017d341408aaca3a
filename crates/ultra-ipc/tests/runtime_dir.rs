//! The socket file and its runtime directory: modes, ownership, symlinks, stale and
//! foreign files at the path, and a second server on the same path.

// Test fixtures outside `#[test]` functions unwrap too: a failed setup should fail the test.
#![allow(clippy::unwrap_used)]

mod common;

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::sync::Arc;

use common::{Raw, TestServer, executor, rpc, runtime, start};
use serde_json::json;
use ultra_core::config::IpcConfig;
use ultra_core::events::EventBus;
use ultra_ipc::{IpcError, Server};

fn server() -> TestServer {
    start(IpcConfig::default())
}

#[test]
fn socket_is_0600_in_a_0700_directory_and_removed_on_shutdown() {
    let s = server();
    let meta = std::fs::symlink_metadata(&s.path).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.mode() & 0o777, 0o600);
    let dir = std::fs::symlink_metadata(s.path.parent().unwrap()).unwrap();
    assert!(dir.is_dir());
    assert_eq!(dir.mode() & 0o777, 0o700);
    let path = s.path.clone();
    s.stop().unwrap();
    assert!(!path.exists(), "socket left behind after shutdown");
}

fn bind_at(path: &std::path::Path) -> Result<Server<common::TestHost>, IpcError> {
    let rt = runtime();
    rt.block_on(Server::bind(
        Arc::new(executor(EventBus::default())),
        path,
        &IpcConfig::default(),
    ))
}

#[test]
fn refuses_a_symlinked_runtime_dir() {
    let tmp = tempfile::tempdir().unwrap();
    let real = tmp.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o700)).unwrap();
    let link = tmp.path().join("run");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let err = bind_at(&link.join("ultra.sock"))
        .err()
        .expect("bind must fail");
    assert!(matches!(err, IpcError::RuntimeDirSymlink { .. }), "{err}");
    assert!(!real.join("ultra.sock").exists());
}

#[test]
fn refuses_a_runtime_dir_open_to_others() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let err = bind_at(&dir.join("ultra.sock"))
        .err()
        .expect("bind must fail");
    assert!(
        matches!(err, IpcError::RuntimeDirMode { mode: 0o755, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("chmod 700"));

    let file = tmp.path().join("file");
    std::fs::write(&file, "").unwrap();
    let err = bind_at(&file.join("ultra.sock"))
        .err()
        .expect("bind must fail");
    assert!(
        matches!(err, IpcError::RuntimeDirNotDirectory { .. }),
        "{err}"
    );
}

#[test]
fn refuses_a_runtime_dir_owned_by_someone_else() {
    // SAFETY: getuid has no preconditions.
    if unsafe { libc::getuid() } != 0 {
        return; // only root can hand a directory to another user
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::chown(&dir, Some(65534), Some(65534)).unwrap();
    let err = bind_at(&dir.join("ultra.sock"))
        .err()
        .expect("bind must fail");
    assert!(
        matches!(err, IpcError::RuntimeDirOwner { owner: 65534, .. }),
        "{err}"
    );
}

#[test]
fn stale_socket_is_replaced() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    ultra_ipc::ensure_runtime_dir(&dir).unwrap();
    let path = dir.join("ultra.sock");
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(
        std::fs::symlink_metadata(&path)
            .unwrap()
            .file_type()
            .is_socket(),
        "stale socket file is there"
    );

    let rt = runtime();
    let server = rt
        .block_on(Server::bind(
            Arc::new(executor(EventBus::default())),
            &path,
            &IpcConfig::default(),
        ))
        .unwrap();
    let handle = server.shutdown_handle();
    let done = rt.spawn(server.run());
    let mut c = Raw::connect(&path);
    assert_eq!(
        c.call(&rpc(1, "test.echo", json!({"text": "fresh"})))["result"]["text"],
        "fresh"
    );
    handle.shutdown();
    rt.block_on(done).unwrap().unwrap();
    assert!(!path.exists());
}

#[test]
fn a_second_server_on_the_same_path_is_refused() {
    let s = server();
    let err = s.bind_again().err().expect("second bind must fail");
    assert!(matches!(err, IpcError::AlreadyRunning { .. }), "{err}");
    assert_eq!(
        err.to_string(),
        format!("another server is already running on {}", s.path.display())
    );
    // The first server kept its socket and still answers.
    let mut c = s.connect();
    assert_eq!(
        c.call(&rpc(1, "test.echo", json!({"text": "still"})))["id"],
        1
    );
}

#[test]
fn a_non_socket_at_the_path_is_never_removed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("run");
    ultra_ipc::ensure_runtime_dir(&dir).unwrap();
    let path = dir.join("ultra.sock");
    std::fs::write(&path, "precious").unwrap();
    let err = bind_at(&path).err().expect("bind must fail");
    assert!(matches!(err, IpcError::NotASocket { .. }), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "precious");
}
