//! The build systems the shell's `build` knows, found from the workspace root (Cargo.toml,
//! package.json's `build` script, go.mod, a Makefile), and the argv lists a build runs.

use std::path::Path;

use serde_json::Value;

/// The build systems `build` knows, in the order it looks for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum System {
    Cargo,
    Npm,
    Go,
    Make,
}

/// The first build system found in `root`.
pub fn detect(root: &Path) -> Option<System> {
    if root.join("Cargo.toml").is_file() {
        return Some(System::Cargo);
    }
    if let Ok(text) = std::fs::read_to_string(root.join("package.json")) {
        let pkg: Value = serde_json::from_str(&text).unwrap_or_default();
        if pkg["scripts"].get("build").is_some() {
            return Some(System::Npm);
        }
    }
    if root.join("go.mod").is_file() {
        return Some(System::Go);
    }
    if ["Makefile", "makefile", "GNUmakefile"]
        .iter()
        .any(|m| root.join(m).is_file())
    {
        return Some(System::Make);
    }
    None
}

/// The program a build runs in `root` (for restricted-command checks), if it finds a build.
pub fn program(root: &Path) -> Option<&'static str> {
    detect(root).map(|s| match s {
        System::Cargo => "cargo",
        System::Npm => "npm",
        System::Go => "go",
        System::Make => "make",
    })
}

/// The argv lists a build runs, in order (`clean` first removes earlier output;
/// `release` is for Cargo projects only).
pub fn plan(
    system: System,
    clean: bool,
    release: bool,
    root: &Path,
) -> Result<Vec<Vec<String>>, String> {
    let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    if release && system != System::Cargo {
        return Err("--release applies to Cargo projects; other builds choose their profile in their own configuration".into());
    }
    let mut steps = Vec::new();
    if clean {
        steps.push(match system {
            System::Cargo => words(&["cargo", "clean"]),
            System::Go => words(&["go", "clean"]),
            System::Make => words(&["make", "clean"]),
            System::Npm => {
                let text = std::fs::read_to_string(root.join("package.json")).unwrap_or_default();
                let pkg: Value = serde_json::from_str(&text).unwrap_or_default();
                if pkg["scripts"].get("clean").is_none() {
                    return Err("package.json has no `clean` script to run".into());
                }
                words(&["npm", "run", "clean"])
            }
        });
    }
    steps.push(match system {
        System::Cargo if release => words(&["cargo", "build", "--release"]),
        System::Cargo => words(&["cargo", "build"]),
        System::Npm => words(&["npm", "run", "build"]),
        System::Go => words(&["go", "build", "./..."]),
        System::Make => words(&["make"]),
    });
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_and_plans() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        assert_eq!(detect(root), None);
        std::fs::write(root.join("Makefile"), "all:\n").expect("write");
        assert_eq!(detect(root), Some(System::Make));
        std::fs::write(root.join("go.mod"), "module x\n").expect("write");
        assert_eq!(detect(root), Some(System::Go));
        // A package.json without a build script is not a build.
        std::fs::write(root.join("package.json"), r#"{"scripts": {"test": "x"}}"#).expect("write");
        assert_eq!(detect(root), Some(System::Go));
        std::fs::write(
            root.join("package.json"),
            r#"{"scripts": {"build": "tsc"}}"#,
        )
        .expect("write");
        assert_eq!(detect(root), Some(System::Npm));
        std::fs::write(root.join("Cargo.toml"), "").expect("write");
        assert_eq!(detect(root), Some(System::Cargo));

        let args = |clean, release| (clean, release);
        let joined = |s: System, (clean, release): (bool, bool)| {
            plan(s, clean, release, root).map(|p| p.iter().map(|v| v.join(" ")).collect::<Vec<_>>())
        };
        assert_eq!(
            joined(System::Cargo, args(true, true)).expect("plan"),
            ["cargo clean", "cargo build --release"]
        );
        assert_eq!(
            joined(System::Go, args(false, false)).expect("plan"),
            ["go build ./..."]
        );
        assert!(joined(System::Make, args(false, true)).is_err());
        // npm has no standard clean: only a `clean` script counts.
        assert!(joined(System::Npm, args(true, false)).is_err());
    }
}
