//! Seed 001's git tools over libgit2 (git2): `git_status`, `git_diff` and `git_commit`.
//! Nothing outside Ultra runs: libgit2 has no hooks, no external diff programs and no
//! filter drivers, so a repository cannot make a status, diff or commit execute code. The
//! repository must be the workspace root itself (no search upward: the workspace is the
//! boundary), and paths given to a commit go through the workspace's confinement.

pub mod shell;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::CommandError;
use ultra_workspace::RelPath;

pub use ultra_git::{
    BranchInfo, Committed, FileDiff, GitDiffOut, GitStatusOut, LogEntry, StatusFiles,
};
use ultra_git::{Repository, empty_message, staged_paths};
use ultra_services::Services;
use ultra_services::util::{NoArgs, is_human};

/// Register the git commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GitStatus)?;
    r.register(GitDiff)?;
    r.register(GitCommit)?;
    r.register(GitStage)?;
    r.register(GitUnstage)?;
    r.register(GitLog)?;
    r.register(GitBranches)?;
    Ok(())
}

/// The example every argument-free git command shares: outside a repository it says so.
const OUTSIDE_REPO: &[Example] = &[Example {
    description: "Outside a repository",
    args: "{}",
    error: Some("NOT_A_GIT_REPOSITORY"),
    ..Example::EMPTY
}];

/// The repository at the workspace root.
fn open(services: &Services) -> Result<Repository, CommandError> {
    ultra_git::open(services.root_path())
}

/// Confine each of `paths` for the caller.
fn confined(cx: &Cx<'_, Services>, paths: &[String]) -> Result<Vec<RelPath>, CommandError> {
    paths
        .iter()
        .map(|p| Ok(cx.services.ws().resolve_entry(p, is_human(cx))?))
        .collect()
}

// ---------------------------------------------------------------- status

/// `git.status`.
pub struct GitStatus;

impl Command<Services> for GitStatus {
    type Args = NoArgs;
    type Output = GitStatusOut;

    const SPEC: CommandSpec = CommandSpec::new(
        "git.status",
        "Git: Status",
        "Git",
        "The branch, its upstream with ahead/behind counts, whether HEAD is detached, and the staged, modified, untracked and conflicted files (seed 001's git_status).",
    )
    .render(ultra_core::render::summary)
    .touches(Touches::READ)
    .long()
    .tool_name("git_status")
    .read_only()
    .idempotent()
    .examples(OUTSIDE_REPO);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<GitStatusOut, CommandError> {
        ultra_git::status(&open(cx.services)?)
    }
}

// ---------------------------------------------------------------- diff

/// Arguments of `git.diff`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GitDiffArgs {
    /// A file or directory to limit the diff to (default: everything).
    pub path: Option<String>,
    /// Staged changes (index against HEAD) instead of unstaged ones (work tree against
    /// the index).
    #[serde(default)]
    pub staged: bool,
}

/// `git.diff`.
pub struct GitDiff;

impl Command<Services> for GitDiff {
    type Args = GitDiffArgs;
    type Output = GitDiffOut;

    const SPEC: CommandSpec = CommandSpec::new(
        "git.diff",
        "Git: Diff",
        "Git",
        "Uncommitted changes: per file insertions, deletions and whether it is binary, totals, and the patch (seed 001's git_diff). staged: true compares the index with HEAD; path limits it to a file or directory.",
    )
    .render(ultra_core::render::diff)
    .touches(Touches::READ)
    .long()
    .tool_name("git_diff")
    .read_only()
    .idempotent()
    .examples(OUTSIDE_REPO);

    fn run(&self, cx: &mut Cx<'_, Services>, a: GitDiffArgs) -> Result<GitDiffOut, CommandError> {
        let repo = open(cx.services)?;
        let paths = confined(cx, a.path.as_slice())?;
        ultra_git::diff(&repo, &paths, a.staged)
    }
}

// ---------------------------------------------------------------- commit

/// Arguments of `git.commit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GitCommitArgs {
    /// The commit message; must not be empty.
    pub message: String,
    /// Files to stage before committing (default: commit what is already staged).
    #[serde(default)]
    pub files: Vec<String>,
}

/// `git.commit`.
pub struct GitCommit;

impl Command<Services> for GitCommit {
    type Args = GitCommitArgs;
    type Output = Committed;

    const SPEC: CommandSpec = CommandSpec::new(
        "git.commit",
        "Git: Commit",
        "Git",
        "Stage the given files (if any) and commit what is staged, with the repository's configured author (seed 001's git_commit). An empty message or nothing to commit is refused. No hooks run. A person may be asked first (shown what would be committed).",
    )
    .touches(Touches::WRITE)
    .tool_name("git_commit")
    .confirms()
    .examples(&[Example {
        description: "Outside a repository",
        args: r#"{"message": "feat: add date utils"}"#,
        error: Some("NOT_A_GIT_REPOSITORY"),
        ..Example::EMPTY
    }]);

    /// What needs no person to refuse: an empty message, no repository, paths outside
    /// the workspace or restricted for the caller.
    fn precheck(
        &self,
        services: &Services,
        source: &ultra_protocol::Source,
        a: &GitCommitArgs,
    ) -> Result<(), CommandError> {
        if a.message.trim().is_empty() {
            return Err(empty_message());
        }
        open(services)?;
        let human = source.kind == ultra_protocol::SourceKind::Human;
        for f in &a.files {
            services.ws().resolve_entry(f, human)?;
        }
        Ok(())
    }

    fn preview(&self, services: &Services, a: &GitCommitArgs) -> Option<String> {
        ultra_git::commit_preview(&open(services).ok()?, &a.message, &a.files)
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: GitCommitArgs) -> Result<Committed, CommandError> {
        if a.message.trim().is_empty() {
            return Err(empty_message());
        }
        let repo = open(cx.services)?;
        let paths = confined(cx, &a.files)?;
        ultra_git::stage(&repo, cx.services.shell_root(), &paths)?;
        ultra_git::commit(&repo, &a.message)
    }
}

// ---------------------------------------------------------------- stage / unstage

/// Arguments of `git.stage` and `git.unstage`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FilesArgs {
    /// Paths relative to the workspace root.
    pub files: Vec<String>,
}

/// The files staged after the call.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Staged {
    pub staged: Vec<String>,
}

/// `git.stage`.
pub struct GitStage;

impl Command<Services> for GitStage {
    type Args = FilesArgs;
    type Output = Staged;

    const SPEC: CommandSpec = CommandSpec::new(
        "git.stage",
        "Git: Stage",
        "Git",
        "Stage files for the next commit (a deleted file is staged as deleted). Returns what is staged now.",
    )
    .touches(Touches::WRITE)
    .examples(&[Example {
        description: "Outside a repository",
        args: r#"{"files": ["a.ts"]}"#,
        error: Some("NOT_A_GIT_REPOSITORY"),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: FilesArgs) -> Result<Staged, CommandError> {
        let repo = open(cx.services)?;
        let paths = confined(cx, &a.files)?;
        ultra_git::stage(&repo, cx.services.shell_root(), &paths)?;
        Ok(Staged {
            staged: staged_paths(&repo)?,
        })
    }
}

/// `git.unstage`.
pub struct GitUnstage;

impl Command<Services> for GitUnstage {
    type Args = FilesArgs;
    type Output = Staged;

    const SPEC: CommandSpec = CommandSpec::new(
        "git.unstage",
        "Git: Unstage",
        "Git",
        "Take files out of the next commit (the index entry goes back to HEAD's; the work tree is not touched). Returns what is staged now.",
    )
    .touches(Touches::WRITE)
    .examples(&[Example {
        description: "Outside a repository",
        args: r#"{"files": ["a.ts"]}"#,
        error: Some("NOT_A_GIT_REPOSITORY"),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: FilesArgs) -> Result<Staged, CommandError> {
        let repo = open(cx.services)?;
        ultra_git::unstage(&repo, &confined(cx, &a.files)?)?;
        Ok(Staged {
            staged: staged_paths(&repo)?,
        })
    }
}

// ---------------------------------------------------------------- log / branches

/// Arguments of `git.log`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LogArgs {
    /// Most commits (default 20, at most 500).
    pub limit: Option<usize>,
    /// Only commits that changed this file.
    pub path: Option<String>,
}

/// `git.log`.
pub struct GitLog;

impl Command<Services> for GitLog {
    type Args = LogArgs;
    type Output = Vec<LogEntry>;

    const SPEC: CommandSpec = CommandSpec::new(
        "git.log",
        "Git: Log",
        "Git",
        "Commits from HEAD back, newest first: hash, author, time and summary; path keeps those that changed a file.",
    )
    .touches(Touches::READ)
    .long()
    .read_only()
    .idempotent()
    .examples(OUTSIDE_REPO);

    fn run(&self, cx: &mut Cx<'_, Services>, a: LogArgs) -> Result<Vec<LogEntry>, CommandError> {
        let repo = open(cx.services)?;
        let paths = confined(cx, a.path.as_slice())?;
        ultra_git::log(&repo, &paths, a.limit.unwrap_or(20).clamp(1, 500))
    }
}

/// `git.branches`.
pub struct GitBranches;

impl Command<Services> for GitBranches {
    type Args = NoArgs;
    type Output = Vec<BranchInfo>;

    const SPEC: CommandSpec = CommandSpec::new(
        "git.branches",
        "Git: Branches",
        "Git",
        "The local branches, which one is checked out, and each one's upstream.",
    )
    .touches(Touches::READ)
    .long()
    .read_only()
    .idempotent()
    .examples(OUTSIDE_REPO);

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Vec<BranchInfo>, CommandError> {
        ultra_git::branches(&open(cx.services)?)
    }
}
