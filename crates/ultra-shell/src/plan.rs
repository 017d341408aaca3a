//! A script read once per call: parsed, judged for what it may do to files, and its typed
//! commands' arguments built, before the runtime runs it (`Shell::run_plan`).

use std::collections::HashMap;
use std::sync::Mutex;

use crate::command::{Commands, Risk, TypedArgs};
use crate::syntax::ast::{RedirectKind, Script, SimpleCommand};
use crate::{ParseError, parse};

/// A parsed script, its risk, and the typed arguments of its commands whose words are all
/// known before it runs.
pub struct Plan {
    script: Script,
    risk: Risk,
    /// By the address of the command in `script` (which the plan owns, so it stays put):
    /// each is taken once, by the run.
    typed: Mutex<HashMap<usize, TypedArgs>>,
}

impl std::fmt::Debug for Plan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("script", &self.script)
            .field("risk", &self.risk)
            .finish_non_exhaustive()
    }
}

impl Plan {
    /// Parse `text` and judge it against `commands`, the table it will run with.
    ///
    /// # Errors
    /// The [`ParseError`] of a script that does not parse.
    pub fn new(text: &str, commands: &Commands) -> Result<Plan, ParseError> {
        Ok(Plan::of(parse(text)?, commands))
    }

    /// Judge a parsed script. Each command counts at its declared risk for its arguments
    /// (at its most when a word is not known before the script runs); a redirect to a file
    /// writes, and `>` may destroy what the file held.
    pub fn of(script: Script, commands: &Commands) -> Plan {
        let mut risk = Risk::READ;
        let mut typed = HashMap::new();
        // Every command wherever it sits (a loop, a function, a substitution) counts as if it
        // ran: the plan cannot know which will.
        script.visit(&mut |c| risk = risk.or(command_risk(c, commands, &mut typed)));
        for r in script.compound_redirects() {
            risk = risk.or(kind_risk(r.kind));
        }
        Plan {
            script,
            risk,
            typed: Mutex::new(typed),
        }
    }

    /// The script.
    pub fn script(&self) -> &Script {
        &self.script
    }

    /// What running it may do.
    pub fn risk(&self) -> Risk {
        self.risk
    }

    /// The typed arguments built for `cmd`, once.
    pub(crate) fn take(&self, cmd: &SimpleCommand) -> Option<TypedArgs> {
        let key = cmd as *const SimpleCommand as usize;
        self.typed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&key)
    }
}

/// One command's risk; a typed command whose words are all literal keeps the arguments it
/// read, for the run.
fn command_risk(
    c: &SimpleCommand,
    commands: &Commands,
    typed: &mut HashMap<usize, TypedArgs>,
) -> Risk {
    let Some(first) = c.words.first() else {
        return redirect_risk(c, Risk::READ);
    };
    // A command named by an expansion (`$cmd -rf x`) may be any command.
    let Some(name) = first.as_literal() else {
        return redirect_risk(c, commands.max_risk());
    };
    let declared = match commands.get(&name) {
        // A function the script defines, `read`, `cd`, ...: what they run counts by itself.
        None => Risk::READ,
        Some(b) => {
            let args: Option<Vec<String>> = c.words[1..].iter().map(|w| w.as_literal()).collect();
            match (args, &b.typed) {
                (None, _) => b.max_risk,
                (Some(args), Some(t)) => match (t.read)(&args) {
                    Some((risk, read)) => {
                        typed.insert(c as *const SimpleCommand as usize, read);
                        risk
                    }
                    // A call that does not read does nothing.
                    None => Risk::READ,
                },
                (Some(args), None) => b.risk_of(&args),
            }
        }
    };
    redirect_risk(c, declared)
}

/// What a redirect of `kind` does to its file.
fn kind_risk(kind: RedirectKind) -> Risk {
    match kind {
        RedirectKind::Write => Risk::OVERWRITE,
        RedirectKind::Append | RedirectKind::WriteBoth | RedirectKind::AppendBoth => Risk::WRITE,
        _ => Risk::READ,
    }
}

/// `declared` with what `c`'s redirects do to files.
fn redirect_risk(c: &SimpleCommand, declared: Risk) -> Risk {
    let writes_file = c.redirects.iter().any(|r| {
        matches!(
            r.kind,
            RedirectKind::Write
                | RedirectKind::Append
                | RedirectKind::WriteBoth
                | RedirectKind::AppendBoth
        )
    });
    let replaces_file = c.redirects.iter().any(|r| r.kind == RedirectKind::Write);
    Risk {
        writes: declared.writes || writes_file,
        destructive: declared.destructive || replaces_file,
        runs: declared.runs,
    }
}

#[cfg(test)]
mod tests {
    use super::Plan;

    /// (read only, destructive), as policy sees a script.
    fn risk(s: &str) -> (bool, bool) {
        let r = Plan::new(s, &crate::commands(&[])).expect("parses").risk();
        (!r.writes, r.destructive)
    }

    #[test]
    fn risk_follows_what_the_script_does() {
        assert_eq!(risk("cat a | sort | head -3"), (true, false));
        assert_eq!(risk("mkdir x && touch x/y"), (false, false));
        assert_eq!(risk("echo hi >> log"), (false, false));
        assert_eq!(risk("echo hi > f"), (false, true));
        assert_eq!(risk("rm -rf build"), (false, true));
        assert_eq!(risk("ls | xargs rm"), (false, true));
        assert_eq!(risk("ls | xargs -n 1 rm"), (false, true));
        assert_eq!(risk("grep -rn x src | sed 's/a/b/'"), (true, false));
        assert_eq!(risk("sed -i 's/a/b/' f"), (false, true));
        assert_eq!(risk("sed -n 'w out' f"), (false, false));
        assert_eq!(risk("replace f a b"), (false, false));
        assert_eq!(risk("write f x"), (false, true));
        assert_eq!(risk("write -a f x"), (false, false));
        assert_eq!(risk("awk '{print $1}' f"), (true, false));
        assert_eq!(risk("awk '{print > \"o\"}' f"), (false, true));
        // Words not known until the script runs count at the command's most.
        assert_eq!(risk("sed $OPTS f"), (false, true));
        assert_eq!(risk("grep $P f"), (true, false));
        // Output files named by flags or operands.
        assert_eq!(risk("sort -o out.txt f"), (false, true));
        assert_eq!(risk("sort -ro out.txt f"), (false, true));
        assert_eq!(risk("sort -r f"), (true, false));
        assert_eq!(risk("uniq in.txt out.txt"), (false, true));
        assert_eq!(risk("uniq -c in.txt"), (true, false));
        // A command named by an expansion may be any command.
        assert_eq!(risk("c=rm; $c -rf build"), (false, true));
        // Inside loops, conditionals, functions and substitutions, every command counts.
        assert_eq!(risk("for f in *.txt; do rm $f; done"), (false, true));
        assert_eq!(risk("if true; then echo > f; fi"), (false, true));
        assert_eq!(risk("f() { mkdir d; }; f"), (false, false));
        assert_eq!(risk("echo $(rm x)"), (false, true));
        assert_eq!(risk("while read l; do echo $l; done < f"), (true, false));
        assert_eq!(risk("for i in 1 2; do echo $i; done > out"), (false, true));
        assert_eq!(risk("{ echo a; } >> log"), (false, false));
        assert_eq!(risk("x=$((1+2)); [[ $x == 3 ]] && echo ok"), (true, false));
    }

    #[test]
    fn literal_typed_commands_keep_their_arguments_once() {
        let plan =
            Plan::new("grep -n a f.txt | sed $S; cat f", &crate::commands(&[])).expect("parses");
        let commands = plan.script().simple_commands();
        let (grep, sed) = (commands[0], commands[1]);
        assert!(plan.take(sed).is_none(), "a word known only when it runs");
        assert!(plan.take(grep).is_some());
        assert!(plan.take(grep).is_none(), "taken once");
    }
}
