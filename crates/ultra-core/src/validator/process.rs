//! Validator plugins in any language (seed 000's `ValidatorPlugin`): a program started with
//! the workspace root as its directory, speaking JSON-RPC 2.0 on stdin/stdout, one message
//! per line. Ultra sends `initialize`, then `validateCommand`, `validateContent`,
//! `validateFileOperation` and `getContextForFiles` requests (each answered with the
//! seed's result shape), `recordViolation` notifications, and `dispose` at the end.
//!
//! A plugin that crashes, hangs past its timeout or answers garbage gives no verdict; with
//! `failure: "deny"` (the default) that blocks the call (security.md C8), with `"allow"`
//! the call proceeds with a warning. A dead plugin is started again on the next call.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

use super::{
    FileOperation, ProvidedContext, RecordedViolation, ValidationContext, ValidationResult,
    Validator, ValidatorFailure,
};

/// A running plugin.
struct Running {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An out-of-process validator.
pub struct ProcessValidator {
    id: String,
    argv: Vec<String>,
    dir: std::path::PathBuf,
    timeout: Duration,
    fail_open: bool,
    process: Mutex<Option<Running>>,
}

impl ProcessValidator {
    /// A plugin run as `argv` in `dir`; started on first use.
    pub fn new(
        id: &str,
        argv: Vec<String>,
        dir: &std::path::Path,
        timeout: Duration,
        fail_open: bool,
    ) -> Result<ProcessValidator, String> {
        if argv.is_empty() {
            return Err("`command` is empty: give the program and its arguments".into());
        }
        Ok(ProcessValidator {
            id: id.to_string(),
            argv,
            dir: dir.to_path_buf(),
            timeout,
            fail_open,
            process: Mutex::new(None),
        })
    }

    fn failure(&self, message: String) -> ValidatorFailure {
        ValidatorFailure {
            validator: self.id.clone(),
            message,
        }
    }

    fn start(&self) -> Result<Running, ValidatorFailure> {
        let mut child = Command::new(&self.argv[0])
            .args(&self.argv[1..])
            .current_dir(&self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| self.failure(format!("cannot start `{}`: {e}", self.argv[0])))?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| self.failure("no stdin".into()))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| self.failure("no stdout".into()))?;
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut running = Running {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let root = self.dir.display().to_string();
        self.exchange(
            &mut running,
            "initialize",
            json!({ "workspaceRoot": root, "validatorId": self.id }),
        )?;
        Ok(running)
    }

    /// Send a request and wait for its answer.
    fn exchange(
        &self,
        p: &mut Running,
        method: &str,
        params: Value,
    ) -> Result<Value, ValidatorFailure> {
        p.next_id += 1;
        let id = p.next_id;
        let msg = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        writeln!(p.stdin, "{msg}")
            .and_then(|()| p.stdin.flush())
            .map_err(|e| self.failure(format!("{method}: the plugin is gone ({e})")))?;
        loop {
            let line = match p.lines.recv_timeout(self.timeout) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(self.failure(format!(
                        "{method}: no answer within {} ms",
                        self.timeout.as_millis()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.failure(format!("{method}: the plugin exited")));
                }
            };
            let reply: Value = serde_json::from_str(&line).map_err(|_| {
                self.failure(format!(
                    "{method}: the plugin answered something that is not JSON-RPC"
                ))
            })?;
            if reply.get("id") != Some(&json!(id)) {
                // A notification or a log line in JSON: not ours.
                if reply.get("id").is_none() {
                    continue;
                }
                return Err(self.failure(format!("{method}: an answer to another request")));
            }
            if let Some(e) = reply.get("error") {
                return Err(self.failure(format!("{method}: the plugin failed: {e}")));
            }
            return Ok(reply.get("result").cloned().unwrap_or(Value::Null));
        }
    }

    /// A call on the running plugin (started or restarted as needed).
    fn call(&self, method: &str, params: Value) -> Result<Value, ValidatorFailure> {
        let mut guard = self.process.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(self.start()?);
        }
        let Some(p) = guard.as_mut() else {
            return Err(self.failure("not running".into()));
        };
        let out = self.exchange(p, method, params);
        if out.is_err() {
            // Whatever state it is in, it does not answer: start afresh next time.
            *guard = None;
        }
        out
    }

    /// A verdict-giving call; the plugin's failure is a deny, or with `failure: allow` a
    /// warning.
    fn verdict(&self, method: &str, params: Value) -> Result<ValidationResult, ValidatorFailure> {
        let outcome = self.call(method, params).and_then(|v| {
            serde_json::from_value::<ValidationResult>(v)
                .map_err(|e| self.failure(format!("{method}: not a ValidationResult ({e})")))
        });
        match outcome {
            Ok(r) => Ok(r),
            Err(f) if self.fail_open => Ok(ValidationResult {
                proceed: true,
                warnings: vec![ultra_protocol::Warning {
                    code: "VALIDATOR_FAILED".into(),
                    message: f.to_string(),
                    location: None,
                }],
                ..ValidationResult::default()
            }),
            Err(f) => Err(f),
        }
    }
}

fn context(cx: &ValidationContext) -> Value {
    json!({
        "source": cx.source,
        "workspaceRoot": cx.workspace_root,
        "activeFile": cx.active_file,
    })
}

impl Validator for ProcessValidator {
    fn id(&self) -> &str {
        &self.id
    }

    fn validate_command(
        &self,
        command: &str,
        args: &Value,
        cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        self.verdict(
            "validateCommand",
            json!({ "command": command, "args": args, "context": context(cx) }),
        )
    }

    fn checks_content(&self) -> bool {
        true
    }

    fn validate_content(
        &self,
        path: &str,
        content: &str,
        cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        self.verdict(
            "validateContent",
            json!({ "path": path, "content": content, "context": context(cx) }),
        )
    }

    fn validate_file_operation(
        &self,
        op: &FileOperation,
        cx: &ValidationContext,
    ) -> Result<ValidationResult, ValidatorFailure> {
        self.verdict(
            "validateFileOperation",
            json!({ "operation": op.kind, "paths": { "source": op.source, "target": op.target }, "context": context(cx) }),
        )
    }

    fn context_for_files(&self, paths: &[String]) -> Result<ProvidedContext, ValidatorFailure> {
        let v = self.call("getContextForFiles", json!({ "paths": paths }))?;
        serde_json::from_value(v).map_err(|e| self.failure(format!("getContextForFiles: {e}")))
    }

    fn record_violation(&self, violation: &RecordedViolation) {
        let mut guard = self.process.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = guard.as_mut() {
            let msg = json!({ "jsonrpc": "2.0", "method": "recordViolation", "params": violation });
            if writeln!(p.stdin, "{msg}")
                .and_then(|()| p.stdin.flush())
                .is_err()
            {
                *guard = None;
            }
        }
    }
}

impl Drop for ProcessValidator {
    fn drop(&mut self) {
        let mut guard = self.process.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = guard.as_mut() {
            let _ = writeln!(
                p.stdin,
                "{}",
                json!({ "jsonrpc": "2.0", "method": "dispose" })
            );
            let _ = p.stdin.flush();
        }
        *guard = None;
    }
}
