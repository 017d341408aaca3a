//! The programs a call would start, for `security.restrictedCommands`: every stage of a
//! command line (`a && b | c`), the program behind a wrapper (`xargs rm`, `env npm`), the
//! runner of `run_tests` and the tool behind `build`.

use std::path::Path;

/// Wrappers whose first operand (after their options) is the program they run, with the
/// options of each that take a value, and how many operands come before the program
/// (`timeout 10s cmd`).
const WRAPPERS: [(&str, &[&str], usize); 9] = [
    (
        "xargs",
        &["-n", "-I", "-L", "-P", "-d", "-E", "-s", "-a"],
        0,
    ),
    ("env", &["-u", "-C", "-S"], 0),
    ("sudo", &["-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t"], 0),
    ("nohup", &[], 0),
    ("time", &["-f", "-o"], 0),
    ("nice", &["-n"], 0),
    ("exec", &["-a"], 0),
    ("command", &[], 0),
    ("timeout", &["-s", "-k"], 1),
];

/// The programs a command line names, stage by stage. Best effort: a name built at run
/// time (`$CMD`) is not known; a line that does not parse is read word by word, each line's
/// first word and each word after `&&`, `||`, `;` or `|` counting as a program (what a
/// terminal is sent is read that way).
pub fn in_line(text: &str) -> Vec<String> {
    match ultra_shell::parse(text) {
        Ok(script) => in_script(&script),
        Err(_) => {
            let mut out = Vec::new();
            for line in text.lines() {
                let mut stage: Vec<Option<&str>> = Vec::new();
                for w in line.split_whitespace() {
                    if matches!(w, "&&" | "||" | ";" | "|") {
                        push_stage(&mut out, &stage);
                        stage.clear();
                    } else {
                        stage.push(Some(w.trim_end_matches(';')));
                    }
                }
                push_stage(&mut out, &stage);
            }
            out
        }
    }
}

/// [`in_line`] for a script already parsed.
pub fn in_script(script: &ultra_shell::syntax::ast::Script) -> Vec<String> {
    let mut out = Vec::new();
    script.visit(&mut |c| {
        let words: Vec<Option<&str>> = c.words.iter().map(|w| w.as_plain()).collect();
        push_stage(&mut out, &words);
    });
    out
}

fn push_stage(out: &mut Vec<String>, words: &[Option<&str>]) {
    let mut i = 0;
    while let Some(Some(w)) = words.get(i) {
        out.push((*w).to_string());
        let Some((_, valued, skip)) = WRAPPERS.iter().find(|(name, _, _)| name == w) else {
            return;
        };
        // The wrapped program: past the options (and their values) and settings.
        i += 1;
        let mut operands = *skip;
        while let Some(Some(w)) = words.get(i) {
            if valued.contains(w) {
                i += 2;
            } else if w.starts_with('-') || w.contains('=') {
                i += 1;
            } else if operands > 0 {
                operands -= 1;
                i += 1;
            } else {
                break;
            }
        }
    }
}

/// The program `build` runs in this workspace (cargo, npm, go or make), if it finds one.
pub fn of_build(root: &Path) -> Vec<String> {
    crate::build::program(root)
        .into_iter()
        .map(String::from)
        .collect()
}

/// The program `run_tests` runs in this workspace, if it finds a runner.
pub fn of_tests(root: &Path) -> Vec<String> {
    crate::test_runner::detect(root)
        .map(|r| crate::test_runner::argv(r, None, None))
        .and_then(|argv| argv.into_iter().next())
        .into_iter()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::in_line;

    #[test]
    fn every_stage_and_wrapped_program() {
        assert_eq!(
            in_line("git status && npm --version | tee x"),
            ["git", "npm", "tee"]
        );
        assert_eq!(in_line("ls | xargs -n 1 rm"), ["ls", "xargs", "rm"]);
        assert_eq!(in_line("ls | xargs -I {} cp {} x"), ["ls", "xargs", "cp"]);
        assert_eq!(in_line("timeout 10s npm test"), ["timeout", "npm"]);
        assert_eq!(
            in_line("env FOO=1 npm test; sudo -u x make"),
            ["env", "npm", "sudo", "make"]
        );
        assert_eq!(in_line("echo $HOME"), ["echo"]);
        assert_eq!(in_line("npm test\ngit push"), ["npm", "git"]);
        // Unparseable (an open quote): word by word.
        assert_eq!(in_line("npm run 'x && git push"), ["npm", "git"]);
    }
}
