//! One terminal: its PTY handles, the scrollback ring its reader thread fills, and the
//! kill of everything it started.

use std::io::{Read, Write};
use std::sync::{Arc, Condvar, Mutex};

use serde_json::json;
use ultra_core::events::EventBus;
use ultra_protocol::Source;

use crate::{SCROLLBACK_BYTES, TerminalInfo};

pub(crate) struct Term {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) cwd: String,
    pub(crate) pid: Option<u32>,
    /// The session that created it (its output events carry it; its end disposes it).
    pub(crate) session: Option<String>,
    pub(crate) writer: Mutex<Box<dyn Write + Send>>,
    /// Kept for resizing; reads end when the shell exits, not when this is dropped.
    pub(crate) master: Mutex<Box<dyn portable_pty::MasterPty + Send>>,
    pub(crate) out: Mutex<Output>,
    pub(crate) changed: Condvar,
}

#[derive(Default)]
pub(crate) struct Output {
    buf: std::collections::VecDeque<u8>,
    /// Absolute offset of `buf[0]` in everything the terminal has printed.
    start: u64,
    pub(crate) exited: bool,
    pub(crate) exit_code: Option<i64>,
    /// Where output stood when text was last sent: `terminal.wait` looks from here by
    /// default, so output that comes before the wait call is not missed.
    pub(crate) input_mark: u64,
}

impl Output {
    pub(crate) fn end(&self) -> u64 {
        self.start + self.buf.len() as u64
    }

    /// Output from `since` (clamped to what is kept), at most `max` bytes.
    pub(crate) fn from(&self, since: u64, max: usize) -> (String, u64, bool) {
        let from = since.max(self.start);
        let skip = (from - self.start) as usize;
        let bytes: Vec<u8> = self.buf.iter().skip(skip).take(max).copied().collect();
        let next = from + bytes.len() as u64;
        (
            String::from_utf8_lossy(&bytes).into_owned(),
            next,
            since < self.start,
        )
    }

    /// Keep `bytes` at the end of the ring, dropping the oldest past [`SCROLLBACK_BYTES`].
    fn push(&mut self, bytes: &[u8]) {
        self.buf.extend(bytes);
        let over = self.buf.len().saturating_sub(SCROLLBACK_BYTES);
        if over > 0 {
            self.buf.drain(..over);
            self.start += over as u64;
        }
    }
}

impl Term {
    pub(crate) fn out(&self) -> std::sync::MutexGuard<'_, Output> {
        self.out.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Kill everything the terminal started: its shell's process group and every process
    /// in the shell's session (an interactive shell puts background jobs in groups of
    /// their own, but they stay in its session).
    pub(crate) fn kill(&self) {
        let Some(pid) = self.pid.and_then(|p| i32::try_from(p).ok()) else {
            return;
        };
        // SAFETY: kill(2) has no memory-safety preconditions; a negative pid names a
        // process group. The shell leads its own session and group (portable-pty calls
        // setsid), so these signals reach only what the terminal started.
        unsafe {
            libc::kill(-pid, libc::SIGHUP);
        }
        for p in session_members(pid) {
            // SAFETY: as above.
            unsafe {
                libc::kill(p, libc::SIGKILL);
            }
        }
        // SAFETY: as above.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }

    pub(crate) fn info(&self) -> TerminalInfo {
        let out = self.out();
        TerminalInfo {
            terminal_id: self.id.clone(),
            id: self.id.clone(),
            name: self.name.clone(),
            process_id: self.pid,
            cwd: self.cwd.clone(),
            pid: self.pid,
            exited: out.exited,
            exit_code: out.exit_code,
        }
    }
}

/// The processes whose session id is `sid` (from `/proc/*/stat`).
fn session_members(sid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // After the command name's closing parenthesis: state ppid pgrp session ...
            let fields: Vec<&str> = stat
                .rsplit_once(')')
                .map(|(_, rest)| rest.split_whitespace().collect())
                .unwrap_or_default();
            fields.get(3).and_then(|s| s.parse::<i32>().ok()) == Some(sid)
        })
        .collect()
}

/// The text in `bytes` up to a character cut off at the end, which stays in `bytes`
/// (invalid bytes become U+FFFD).
fn take_text(bytes: &mut Vec<u8>) -> String {
    let keep = match std::str::from_utf8(bytes) {
        Ok(_) => 0,
        // An incomplete sequence at the very end (at most 3 bytes) waits for more.
        Err(e) if e.error_len().is_none() => bytes.len() - e.valid_up_to(),
        Err(_) => 0,
    };
    let tail = bytes.split_off(bytes.len() - keep);
    let text = String::from_utf8_lossy(bytes).into_owned();
    *bytes = tail;
    text
}

/// Copy the PTY's output into the scrollback and out as events until it ends, then record
/// the exit status.
pub(crate) fn pump(
    term: Arc<Term>,
    mut reader: Box<dyn Read + Send>,
    mut child: Box<dyn portable_pty::Child + Send + Sync>,
    events: EventBus,
) {
    let source = Source {
        session_id: term.session.clone(),
        ..Source::new(ultra_protocol::SourceKind::Internal)
    };
    let mut chunk = [0u8; 8192];
    // A character split across two reads waits here for the rest of its bytes.
    let mut partial: Vec<u8> = Vec::new();
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        term.out().push(&chunk[..n]);
        term.changed.notify_all();
        partial.extend_from_slice(&chunk[..n]);
        let data = take_text(&mut partial);
        events.emit_with(
            "terminal.output",
            Some(&source),
            || json!({ "terminalId": term.id, "data": data }),
        );
    }
    let code = child.wait().ok().map(|s| i64::from(s.exit_code()));
    {
        let mut out = term.out();
        out.exited = true;
        out.exit_code = code;
    }
    term.changed.notify_all();
    events.emit(
        "terminal.closed",
        json!({ "terminalId": term.id, "exitCode": code }),
        Some(&source),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_across_reads_arrive_whole() {
        let mut b = "a\u{e9}".as_bytes()[..2].to_vec();
        assert_eq!(take_text(&mut b), "a");
        assert_eq!(b, [0xc3]);
        b.push(0xa9);
        b.extend_from_slice(b"z");
        assert_eq!(take_text(&mut b), "\u{e9}z");
        assert!(b.is_empty());
        let mut bad = vec![b'x', 0xff, b'y'];
        assert_eq!(take_text(&mut bad), "x\u{fffd}y");
    }
}
