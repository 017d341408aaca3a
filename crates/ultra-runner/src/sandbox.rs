//! The OS boundary for project code an agent runs without a person's approval (security.md
//! §2.5, attacks C7 and C9): test and build runners and allow-listed command lines execute
//! whatever the project's scripts say, so they run
//! - without network: a seccomp filter refuses IPv4 and IPv6 sockets, and io_uring (which
//!   could open them), so nothing is fetched or sent, DNS included;
//! - writing only beneath the workspace, a temp directory of its own (`TMPDIR`) and the
//!   toolchains' caches: a Landlock ruleset (reads stay open, since compilers and
//!   interpreters live anywhere);
//! - unable to gain privileges (`no_new_privs`, which both of the above need anyway).
//!
//! Neither needs privileges or a helper program. Where the kernel lacks them (or config
//! `run.sandbox` is false), [`usable`] says no and those calls are put to a person instead.

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

// Landlock (linux/landlock.h).
const FS_WRITE_FILE: u64 = 1 << 1;
const FS_REMOVE_DIR: u64 = 1 << 4;
const FS_REMOVE_FILE: u64 = 1 << 5;
const FS_MAKE_CHAR: u64 = 1 << 6;
const FS_MAKE_DIR: u64 = 1 << 7;
const FS_MAKE_REG: u64 = 1 << 8;
const FS_MAKE_SOCK: u64 = 1 << 9;
const FS_MAKE_FIFO: u64 = 1 << 10;
const FS_MAKE_BLOCK: u64 = 1 << 11;
const FS_MAKE_SYM: u64 = 1 << 12;
const FS_REFER: u64 = 1 << 13;
const FS_TRUNCATE: u64 = 1 << 14;
const RULE_PATH_BENEATH: libc::c_int = 1;
const CREATE_RULESET_VERSION: libc::c_uint = 1;

#[repr(C)]
struct RulesetAttr {
    handled_access_fs: u64,
}

#[repr(C, packed)]
struct PathBeneath {
    allowed_access: u64,
    parent_fd: i32,
}

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

/// The kernel's Landlock ABI version (0: none).
fn landlock_abi() -> i64 {
    // SAFETY: with the VERSION flag the call reads no memory and returns the ABI version.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<RulesetAttr>(),
            0usize,
            CREATE_RULESET_VERSION,
        )
    };
    v.max(0)
}

/// Rights a ruleset handles (denies unless a rule grants them) on this ABI.
fn handled(abi: i64) -> u64 {
    let mut h = FS_WRITE_FILE
        | FS_REMOVE_DIR
        | FS_REMOVE_FILE
        | FS_MAKE_CHAR
        | FS_MAKE_DIR
        | FS_MAKE_REG
        | FS_MAKE_SOCK
        | FS_MAKE_FIFO
        | FS_MAKE_BLOCK
        | FS_MAKE_SYM;
    // Without REFER handled, Landlock forbids every move between directories.
    if abi >= 2 {
        h |= FS_REFER;
    }
    if abi >= 3 {
        h |= FS_TRUNCATE;
    }
    h
}

/// The confinement for one run: descriptors of the places it may write, opened before the
/// fork (the child may only make async-signal-safe calls).
pub struct Sandbox {
    abi: i64,
    rules: Vec<(OwnedFd, u64)>,
    filter: Vec<libc::sock_filter>,
    /// A temp directory of its own (`TMPDIR`), removed with the sandbox: the shared /tmp
    /// stays out of reach.
    tmp: PathBuf,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.tmp);
    }
}

/// A fresh private directory under the system temp dir.
fn private_tmp() -> Option<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("ultra-sandbox-{}-{n}", std::process::id()));
    std::fs::DirBuilder::new().mode(0o700).create(&dir).ok()?;
    Some(dir)
}

impl Sandbox {
    /// A sandbox writing beneath `root`, the temp directory and the toolchain caches.
    pub(crate) fn new(root: &Path) -> Option<Arc<Sandbox>> {
        let abi = landlock_abi();
        if abi < 1 {
            return None;
        }
        let all = handled(abi);
        let files = all & (FS_WRITE_FILE | FS_TRUNCATE);
        let tmp = private_tmp()?;
        let mut rules = Vec::new();
        for (path, access) in writable(root, &tmp) {
            let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
                continue;
            };
            // SAFETY: a NUL-terminated path; O_PATH opens without reading anything.
            let fd = unsafe { libc::open(c.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
            if fd < 0 {
                continue;
            }
            // SAFETY: `fd` was just opened and is owned by nobody else.
            let fd = unsafe { OwnedFd::from_raw_fd(fd) };
            let access = match access {
                Access::Dir if path.is_dir() => all,
                _ => files,
            };
            rules.push((fd, access));
        }
        Some(Arc::new(Sandbox {
            abi,
            rules,
            filter: no_network_filter(),
            tmp,
        }))
    }

    /// Confine the programs `cmd` starts.
    pub(crate) fn apply(self: &Arc<Self>, cmd: &mut Command) {
        use std::os::unix::process::CommandExt;
        // Toolchains that would reach for the network use what they have instead.
        cmd.env("TMPDIR", &self.tmp)
            .env("CARGO_NET_OFFLINE", "true")
            .env("npm_config_offline", "true")
            .env("NO_UPDATE_NOTIFIER", "1");
        let me = self.clone();
        // SAFETY: `confine` makes only async-signal-safe system calls on memory prepared
        // before the fork.
        unsafe {
            cmd.pre_exec(move || me.confine());
        }
    }

    /// In the child, before exec: no new privileges, the Landlock ruleset, the filter.
    fn confine(&self) -> std::io::Result<()> {
        let err = std::io::Error::last_os_error;
        // SAFETY: plain system calls on descriptors and structs owned by `self`.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(err());
            }
            let attr = RulesetAttr {
                handled_access_fs: handled(self.abi),
            };
            let ruleset = libc::syscall(
                libc::SYS_landlock_create_ruleset,
                &attr as *const RulesetAttr,
                std::mem::size_of::<RulesetAttr>(),
                0u32,
            );
            if ruleset < 0 {
                return Err(err());
            }
            let ruleset = ruleset as libc::c_int;
            for (fd, access) in &self.rules {
                let rule = PathBeneath {
                    allowed_access: *access,
                    parent_fd: fd.as_raw_fd(),
                };
                if libc::syscall(
                    libc::SYS_landlock_add_rule,
                    ruleset,
                    RULE_PATH_BENEATH,
                    &rule as *const PathBeneath,
                    0u32,
                ) != 0
                {
                    libc::close(ruleset);
                    return Err(err());
                }
            }
            let restricted = libc::syscall(libc::SYS_landlock_restrict_self, ruleset, 0u32);
            libc::close(ruleset);
            if restricted != 0 {
                return Err(err());
            }
            let prog = libc::sock_fprog {
                len: self.filter.len() as libc::c_ushort,
                filter: self.filter.as_ptr() as *mut libc::sock_filter,
            };
            if libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                0u32,
                &prog as *const libc::sock_fprog,
            ) != 0
            {
                return Err(err());
            }
        }
        Ok(())
    }
}

/// How a writable place is granted.
enum Access {
    /// Everything beneath a directory.
    Dir,
    /// Writing an existing file.
    File,
}

/// Where a sandboxed run may write: the workspace, its own temp directory, the terminal
/// and null devices, and the caches toolchains lock or fill while they build and test.
fn writable(root: &Path, tmp: &Path) -> Vec<(PathBuf, Access)> {
    let mut v = vec![
        (root.to_path_buf(), Access::Dir),
        (tmp.to_path_buf(), Access::Dir),
        (PathBuf::from("/dev/shm"), Access::Dir),
        (PathBuf::from("/dev/null"), Access::File),
        (PathBuf::from("/dev/tty"), Access::File),
    ];
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let cargo = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".cargo")));
    if let Some(c) = cargo {
        // The registry and git checkouts fill up; the lock files are taken on every build.
        // `bin` (the toolchain itself) stays read-only.
        for d in ["registry", "git"] {
            v.push((c.join(d), Access::Dir));
        }
        for f in [".package-cache", ".package-cache-mutate", ".global-cache"] {
            v.push((c.join(f), Access::File));
        }
    }
    if let Some(h) = &home {
        for d in [
            ".npm",
            ".cache",
            ".yarn",
            ".pnpm-store",
            ".local/share/pnpm",
        ] {
            v.push((h.join(d), Access::Dir));
        }
    }
    if let Some(g) = std::env::var_os("GOCACHE") {
        v.push((PathBuf::from(g), Access::Dir));
    }
    v
}

/// A seccomp filter that refuses IPv4 and IPv6 sockets and io_uring with EACCES, lets every
/// other call through, and kills a process that switches to another architecture's calls.
fn no_network_filter() -> Vec<libc::sock_filter> {
    const LD_W_ABS: u16 = 0x20;
    const JEQ_K: u16 = 0x15;
    const RET_K: u16 = 0x06;
    let op = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    let deny = libc::SECCOMP_RET_ERRNO | libc::EACCES as u32;
    vec![
        op(LD_W_ABS, 0, 0, 4), // arch
        op(JEQ_K, 1, 0, AUDIT_ARCH),
        op(RET_K, 0, 0, libc::SECCOMP_RET_KILL_PROCESS),
        op(LD_W_ABS, 0, 0, 0), // syscall number
        op(JEQ_K, 5, 0, libc::SYS_io_uring_setup as u32),
        op(JEQ_K, 0, 3, libc::SYS_socket as u32),
        op(LD_W_ABS, 0, 0, 16), // the socket's domain
        op(JEQ_K, 2, 0, libc::AF_INET as u32),
        op(JEQ_K, 1, 0, libc::AF_INET6 as u32),
        op(RET_K, 0, 0, libc::SECCOMP_RET_ALLOW),
        op(RET_K, 0, 0, deny),
    ]
}

/// Whether this kernel can confine a run: tried once, by running Ultra itself
/// (`--version`) inside a sandbox.
fn works() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        let Ok(exe) = std::env::current_exe() else {
            return false;
        };
        let Some(sb) = Sandbox::new(&std::env::temp_dir()) else {
            return false;
        };
        let mut cmd = Command::new(exe);
        cmd.arg("--version")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        sb.apply(&mut cmd);
        cmd.status().is_ok_and(|s| s.success())
    })
}

/// The sandbox an agent's unapproved run gets, if the kernel offers one and the config
/// (`run.sandbox`) does not turn it off.
pub fn usable(config: &ultra_core::config::RunConfig, root: &Path) -> Option<Arc<Sandbox>> {
    if config.sandbox == Some(false) || !works() {
        return None;
    }
    Sandbox::new(root)
}

/// Whether [`usable`] would give a sandbox (for policy, before anything runs).
pub fn offered(config: &ultra_core::config::RunConfig) -> bool {
    config.sandbox != Some(false) && works()
}

/// [`usable`] with the configuration read from `root` (for the shell's `build`, which
/// sees no services); a configuration that does not load leaves the sandbox on.
pub fn for_agent_at(root: &Path) -> Option<Arc<Sandbox>> {
    let run = ultra_core::Config::load(root)
        .map(|c| c.run)
        .unwrap_or_default();
    usable(&run, root)
}
