//! Lists, `&&`/`||`, compound commands and function calls, with the flow (`break`,
//! `continue`, `return`, `exit`, a limit) that leaves them.

use std::io::Write;

use super::expand::Ex;
use super::glob;
use super::{Env, Flow, MAX_CALL_DEPTH, Shell, Streams};
use crate::plan::Plan;
use crate::syntax::ast::{AndOrOp, CaseArm, Compound, CompoundCommand, Script, Word};

/// Output of a loop: remembers a failed write, so a loop writing to a closed pipe or past
/// the call's output cap stops (as bash's does, killed by SIGPIPE).
struct Watched<'a> {
    inner: &'a mut (dyn Write + Send),
    failed: bool,
}

impl Write for Watched<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let r = self.inner.write(buf);
        self.failed |= r.is_err();
        r
    }
    fn flush(&mut self) -> std::io::Result<()> {
        let r = self.inner.flush();
        self.failed |= r.is_err();
        r
    }
}

impl Shell {
    /// Runs and-or lists in order, until the end or a flow leaves.
    pub(super) fn list(
        &self,
        script: &Script,
        plan: Option<&Plan>,
        env: &mut Env,
        mut io: Streams<'_>,
    ) -> i32 {
        let mut status = env.status;
        for item in &script.items {
            let pipelines = std::iter::once((None, &item.first))
                .chain(item.rest.iter().map(|(op, p)| (Some(op), p)));
            let last = item.rest.len();
            // Whether the status is one `set -e` acts on: from the last pipeline of the
            // list, not negated, outside any condition.
            let mut checked = false;
            for (i, (op, p)) in pipelines.enumerate() {
                let run = match op {
                    None => true,
                    Some(AndOrOp::And) => env.status == 0,
                    Some(AndOrOp::Or) => env.status != 0,
                };
                if run {
                    // A pipeline followed by `&&` or `||` is a condition.
                    let condition = i < last;
                    env.conditions += usize::from(condition);
                    status = self.pipeline(p, plan, env, io.reborrow());
                    env.conditions -= usize::from(condition);
                    env.status = status;
                    checked = !condition && !p.negated;
                }
                if self.fs.over().is_some() {
                    env.flow = Some(Flow::Stop);
                }
                if env.flow.is_some() {
                    return status;
                }
            }
            if checked && status != 0 && env.options.errexit && env.conditions == 0 {
                env.flow = Some(Flow::Exit);
                return status;
            }
        }
        status
    }

    /// Runs the condition of an `if` or a loop: `set -e` does not apply inside.
    fn condition(&self, cond: &Script, plan: Option<&Plan>, env: &mut Env, io: Streams<'_>) -> i32 {
        env.conditions += 1;
        let status = self.list(cond, plan, env, io);
        env.conditions -= 1;
        status
    }

    /// Runs a compound command with its redirects.
    pub(super) fn compound(
        &self,
        c: &CompoundCommand,
        plan: Option<&Plan>,
        env: &mut Env,
        io: Streams<'_>,
    ) -> i32 {
        if c.redirects.is_empty() {
            return self.construct(&c.kind, plan, env, io);
        }
        let opened = match self.open_redirects(&c.redirects, env, io.stderr) {
            Ok(o) => o,
            Err(msg) => {
                let _ = writeln!(io.stderr, "ultra sh: {msg}");
                return 1;
            }
        };
        self.redirected(opened, io, &mut |io| self.construct(&c.kind, plan, env, io))
    }

    fn construct(
        &self,
        kind: &Compound,
        plan: Option<&Plan>,
        env: &mut Env,
        mut io: Streams<'_>,
    ) -> i32 {
        match kind {
            Compound::Brace(body) => self.list(body, plan, env, io.reborrow()),
            Compound::Subshell(body) => {
                let mut sub = env.clone();
                let status = self.list(body, plan, &mut sub, io.reborrow());
                if sub.flow == Some(Flow::Stop) {
                    env.flow = Some(Flow::Stop);
                }
                status
            }
            Compound::If {
                branches,
                otherwise,
            } => {
                for (cond, then) in branches {
                    let status = self.condition(cond, plan, env, io.reborrow());
                    if env.flow.is_some() {
                        return status;
                    }
                    if status == 0 {
                        return self.list(then, plan, env, io.reborrow());
                    }
                }
                match otherwise {
                    Some(e) => self.list(e, plan, env, io.reborrow()),
                    None => 0,
                }
            }
            Compound::For { var, words, body } => {
                let items = match words {
                    Some(words) => {
                        let mut x = Ex::new(env, plan, io.stderr);
                        match self.expand_words(words, &mut x) {
                            Ok(items) => items,
                            Err(msg) => {
                                let _ = writeln!(x.stderr, "ultra sh: {msg}");
                                return 1;
                            }
                        }
                    }
                    None => env.args.clone(),
                };
                let mut items = items.into_iter();
                self.repeat(env, io, &mut |shell, env, io| {
                    let item = items.next()?;
                    env.vars.insert(var.clone(), item);
                    Some(shell.list(body, plan, env, io))
                })
            }
            Compound::Loop { until, cond, body } => {
                self.repeat(env, io, &mut |shell, env, mut io| {
                    let status = shell.condition(cond, plan, env, io.reborrow());
                    if env.flow.is_some() {
                        // `break` in the condition leaves the loop like one in the body.
                        return Some(status);
                    }
                    if (status == 0) == *until {
                        return None;
                    }
                    Some(shell.list(body, plan, env, io))
                })
            }
            Compound::Case { word, arms } => self.case(word, arms, plan, env, io),
            Compound::Cond(e) => self.cond(e, env, io.stderr),
        }
    }

    /// Runs `step` (one iteration; `None` when the loop is done) until it is done or a flow
    /// leaves the loop. The status is the last body's, or 0 when none ran.
    #[allow(clippy::type_complexity)]
    fn repeat(
        &self,
        env: &mut Env,
        io: Streams<'_>,
        step: &mut dyn FnMut(&Shell, &mut Env, Streams<'_>) -> Option<i32>,
    ) -> i32 {
        let mut out = Watched {
            inner: io.stdout,
            failed: false,
        };
        let mut status = 0;
        env.loops += 1;
        loop {
            if self.fs.over().is_some() {
                env.flow = Some(Flow::Stop);
                break;
            }
            let io = Streams {
                stdin: &mut *io.stdin,
                stdout: &mut out,
                stderr: &mut *io.stderr,
            };
            let Some(s) = step(self, env, io) else {
                break;
            };
            status = s;
            if out.failed {
                // Nothing more can be said: the reader is gone or the output is full.
                env.flow = Some(Flow::Exit);
                status = 141;
                break;
            }
            match env.flow {
                None => {}
                Some(Flow::Break(n)) => {
                    env.flow = (n > 1).then_some(Flow::Break(n - 1));
                    break;
                }
                Some(Flow::Continue(n)) if n > 1 => {
                    env.flow = Some(Flow::Continue(n - 1));
                    break;
                }
                Some(Flow::Continue(_)) => env.flow = None,
                Some(_) => break,
            }
        }
        env.loops -= 1;
        status
    }

    #[allow(clippy::too_many_arguments)]
    fn case(
        &self,
        word: &Word,
        arms: &[CaseArm],
        plan: Option<&Plan>,
        env: &mut Env,
        io: Streams<'_>,
    ) -> i32 {
        let mut x = Ex::new(env, plan, &mut *io.stderr);
        let subject = match self.expand_string(word, &mut x) {
            Ok(s) => s.chars().collect::<Vec<char>>(),
            Err(msg) => {
                let _ = writeln!(x.stderr, "ultra sh: {msg}");
                return 1;
            }
        };
        for arm in arms {
            for p in &arm.patterns {
                let pattern = match self.pattern(&p.parts, &mut x) {
                    Ok(p) => p,
                    Err(msg) => {
                        let _ = writeln!(x.stderr, "ultra sh: {msg}");
                        return 1;
                    }
                };
                if glob::matches_linear(&pattern, &subject) {
                    return if arm.body.items.is_empty() {
                        0
                    } else {
                        self.list(&arm.body, plan, env, io)
                    };
                }
            }
        }
        0
    }

    /// Calls the function `name` with `args` as its positional parameters.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn call(
        &self,
        name: &str,
        body: &CompoundCommand,
        args: Vec<String>,
        plan: Option<&Plan>,
        env: &mut Env,
        io: Streams<'_>,
    ) -> i32 {
        if env.locals.len() >= MAX_CALL_DEPTH {
            let _ = writeln!(
                io.stderr,
                "ultra sh: {name}: maximum function nesting level exceeded ({MAX_CALL_DEPTH})"
            );
            // Unwind every call: the recursion has no way out.
            env.flow = Some(Flow::Exit);
            return 1;
        }
        let saved_args = std::mem::replace(&mut env.args, args);
        let saved_loops = std::mem::take(&mut env.loops);
        env.locals.push(Vec::new());
        let status = self.compound(body, plan, env, io);
        for (var, old) in env.locals.pop().unwrap_or_default().into_iter().rev() {
            match old {
                Some(v) => env.vars.insert(var, v),
                None => env.vars.remove(&var),
            };
        }
        env.args = saved_args;
        env.loops = saved_loops;
        if env.flow == Some(Flow::Return) {
            env.flow = None;
        }
        status
    }
}
