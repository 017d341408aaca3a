//! Seed 001's git tools over libgit2 (git2): `git_status`, `git_diff` and `git_commit`.
//! Nothing outside Ultra runs: libgit2 has no hooks, no external diff programs and no
//! filter drivers, so a repository cannot make a status, diff or commit execute code. The
//! repository must be the workspace root itself (no search upward: the workspace is the
//! boundary), and paths given to a commit go through the workspace's confinement.

use git2::{DiffFormat, DiffOptions, Repository, RepositoryOpenFlags, Status, StatusOptions};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode};

use crate::Services;
use crate::util::{NoArgs, is_human};

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

/// Most bytes of patch text returned.
const MAX_PATCH: usize = 256 * 1024;

/// The example every argument-free git command shares: outside a repository it says so.
const OUTSIDE_REPO: &[Example] = &[Example {
    description: "Outside a repository",
    args: "{}",
    error: Some("NOT_A_GIT_REPOSITORY"),
    ..Example::EMPTY
}];

fn failed(e: git2::Error) -> CommandError {
    CommandError::new(ErrorCode::GitFailed, format!("git: {}", e.message()))
}

/// The repository at the workspace root.
fn open(services: &Services) -> Result<Repository, CommandError> {
    let root = services.root_path();
    Repository::open_ext(
        root,
        RepositoryOpenFlags::NO_SEARCH,
        std::iter::empty::<&std::ffi::OsStr>(),
    )
    .map_err(|_| {
        CommandError::new(
            ErrorCode::NotARepository,
            format!("{} is not the top of a git repository", root.display()),
        )
        .with_suggestion(
            "git tools work on a workspace whose root holds .git; run `git init` there first",
        )
    })
}

// ---------------------------------------------------------------- status

/// Files by state.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct StatusFiles {
    pub staged: Vec<String>,
    pub modified: Vec<String>,
    pub untracked: Vec<String>,
    pub conflicted: Vec<String>,
}

/// What `git.status` reports.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitStatusOut {
    /// The branch, or `HEAD` when detached.
    pub branch: String,
    /// The upstream branch, e.g. `origin/main`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking: Option<String>,
    pub ahead: usize,
    pub behind: usize,
    pub detached: bool,
    pub files: StatusFiles,
    /// The same as text.
    pub output: String,
}

/// `git.status`.
pub struct GitStatus;

static STATUS: CommandSpec = CommandSpec::new(
    "git.status",
    "Git: Status",
    "Git",
    "The branch, its upstream with ahead/behind counts, whether HEAD is detached, and the staged, modified, untracked and conflicted files (seed 001's git_status).",
)
.tool_name("git_status")
.read_only()
.idempotent()
.examples(OUTSIDE_REPO);

impl Command<Services> for GitStatus {
    type Args = NoArgs;
    type Output = GitStatusOut;

    fn spec(&self) -> &'static CommandSpec {
        &STATUS
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<GitStatusOut, CommandError> {
        let repo = open(cx.services)?;
        let detached = repo.head_detached().unwrap_or(false);
        let head = repo.head().ok();
        let branch = match (&head, detached) {
            (Some(h), false) => h.shorthand().unwrap_or("HEAD").to_string(),
            (None, _) => unborn_branch(&repo),
            _ => "HEAD".into(),
        };
        let (mut tracking, mut ahead, mut behind) = (None, 0, 0);
        if let Some(h) = head.as_ref().filter(|_| !detached)
            && let Ok(name) = h.name()
            && let Ok(up) = repo.branch_upstream_name(name)
            && let Ok(up) = up.as_str()
        {
            tracking = Some(up.trim_start_matches("refs/remotes/").to_string());
            if let (Some(local), Ok(remote)) = (h.target(), repo.refname_to_id(up))
                && let Ok((a, b)) = repo.graph_ahead_behind(local, remote)
            {
                (ahead, behind) = (a, b);
            }
        }
        let mut opts = StatusOptions::new();
        opts.include_untracked(true)
            .recurse_untracked_dirs(true)
            .renames_head_to_index(true);
        let statuses = repo.statuses(Some(&mut opts)).map_err(failed)?;
        let mut files = StatusFiles::default();
        for e in statuses.iter() {
            let Ok(path) = e.path() else { continue };
            let s = e.status();
            let path = path.to_string();
            if s.contains(Status::CONFLICTED) {
                files.conflicted.push(path);
                continue;
            }
            if s.intersects(
                Status::INDEX_NEW
                    | Status::INDEX_MODIFIED
                    | Status::INDEX_DELETED
                    | Status::INDEX_RENAMED
                    | Status::INDEX_TYPECHANGE,
            ) {
                files.staged.push(path.clone());
            }
            if s.intersects(
                Status::WT_MODIFIED
                    | Status::WT_DELETED
                    | Status::WT_RENAMED
                    | Status::WT_TYPECHANGE,
            ) {
                files.modified.push(path.clone());
            }
            if s.contains(Status::WT_NEW) {
                files.untracked.push(path);
            }
        }
        let mut output = format!(
            "Branch: {branch}{}\n",
            if detached { " (detached)" } else { "" }
        );
        if let Some(t) = &tracking {
            output.push_str(&format!(
                "Tracking: {t}\nAhead: {ahead} commits, Behind: {behind} commits\n"
            ));
        }
        for (name, list) in [
            ("Staged", &files.staged),
            ("Modified", &files.modified),
            ("Untracked", &files.untracked),
            ("Conflicted", &files.conflicted),
        ] {
            if !list.is_empty() {
                output.push_str(&format!("{name} ({}):\n", list.len()));
                for p in list {
                    output.push_str(&format!("  - {p}\n"));
                }
            }
        }
        if files.staged.is_empty()
            && files.modified.is_empty()
            && files.untracked.is_empty()
            && files.conflicted.is_empty()
        {
            output.push_str("Nothing to commit, working tree clean\n");
        }
        Ok(GitStatusOut {
            branch,
            tracking,
            ahead,
            behind,
            detached,
            files,
            output,
        })
    }
}

/// The branch HEAD names before the first commit.
fn unborn_branch(repo: &Repository) -> String {
    repo.find_reference("HEAD")
        .ok()
        .and_then(|r| {
            r.symbolic_target()
                .ok()
                .flatten()
                .map(|t| t.trim_start_matches("refs/heads/").to_string())
        })
        .unwrap_or_else(|| "HEAD".into())
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

/// One file's change.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FileDiff {
    pub path: String,
    pub insertions: usize,
    pub deletions: usize,
    pub binary: bool,
}

/// What `git.diff` reports.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitDiffOut {
    pub files: Vec<FileDiff>,
    pub total_insertions: usize,
    pub total_deletions: usize,
    /// The patch (cut at 256 KiB; `truncated` says so).
    pub diff: String,
    pub truncated: bool,
}

/// `git.diff`.
pub struct GitDiff;

static DIFF: CommandSpec = CommandSpec::new(
    "git.diff",
    "Git: Diff",
    "Git",
    "Uncommitted changes: per file insertions, deletions and whether it is binary, totals, and the patch (seed 001's git_diff). staged: true compares the index with HEAD; path limits it to a file or directory.",
)
.tool_name("git_diff")
.read_only()
.idempotent()
.examples(OUTSIDE_REPO);

impl Command<Services> for GitDiff {
    type Args = GitDiffArgs;
    type Output = GitDiffOut;

    fn spec(&self) -> &'static CommandSpec {
        &DIFF
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: GitDiffArgs) -> Result<GitDiffOut, CommandError> {
        let repo = open(cx.services)?;
        let mut opts = DiffOptions::new();
        if let Some(p) = &a.path {
            let rel = cx.services.ws().resolve_entry(p, is_human(cx))?;
            opts.pathspec(rel.as_str());
        }
        let diff = if a.staged {
            let head = repo.head().ok().and_then(|h| h.peel_to_tree().ok());
            repo.diff_tree_to_index(head.as_ref(), None, Some(&mut opts))
        } else {
            repo.diff_index_to_workdir(None, Some(&mut opts))
        }
        .map_err(failed)?;
        let mut files = Vec::new();
        for i in 0..diff.deltas().len() {
            let Some(delta) = diff.get_delta(i) else {
                continue;
            };
            let path = delta
                .new_file()
                .path()
                .or_else(|| delta.old_file().path())
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (mut ins, mut del) = (0, 0);
            let patch = git2::Patch::from_diff(&diff, i).map_err(failed)?;
            if let Some(p) = &patch {
                let (_, a, d) = p.line_stats().map_err(failed)?;
                (ins, del) = (a, d);
            }
            files.push(FileDiff {
                path,
                insertions: ins,
                deletions: del,
                binary: delta.flags().is_binary(),
            });
        }
        let mut text = Vec::new();
        let mut truncated = false;
        diff.print(DiffFormat::Patch, |_, _, line| {
            if text.len() > MAX_PATCH {
                truncated = true;
                return false;
            }
            if matches!(line.origin(), '+' | '-' | ' ') {
                text.push(line.origin() as u8);
            }
            text.extend_from_slice(line.content());
            true
        })
        .or_else(|e| if truncated { Ok(()) } else { Err(failed(e)) })?;
        Ok(GitDiffOut {
            total_insertions: files.iter().map(|f| f.insertions).sum(),
            total_deletions: files.iter().map(|f| f.deletions).sum(),
            files,
            diff: String::from_utf8_lossy(&text).into_owned(),
            truncated,
        })
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

/// What `git.commit` made.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Committed {
    pub hash: String,
    pub message: String,
    /// The files the commit changed.
    pub files: Vec<String>,
    pub author: String,
    /// Seconds since the epoch.
    pub timestamp: i64,
}

/// `git.commit`.
pub struct GitCommit;

static COMMIT: CommandSpec = CommandSpec::new(
    "git.commit",
    "Git: Commit",
    "Git",
    "Stage the given files (if any) and commit what is staged, with the repository's configured author (seed 001's git_commit). An empty message or nothing to commit is refused. No hooks run. A person confirms agents' calls, shown what would be committed, unless policy or auto-apply says otherwise.",
)
.tool_name("git_commit")
.confirms()
.examples(&[Example {
    description: "Outside a repository",
    args: r#"{"message": "feat: add date utils"}"#,
    error: Some("NOT_A_GIT_REPOSITORY"),
    ..Example::EMPTY
}]);

fn empty_message() -> CommandError {
    CommandError::new(ErrorCode::InvalidArguments, "the commit message is empty")
        .with_suggestion("say what the change does, e.g. \"fix: handle empty input\"")
}

/// Stage `files` (confined to the workspace); deleted files are removed from the index.
fn stage(cx: &Cx<'_, Services>, repo: &Repository, files: &[String]) -> Result<(), CommandError> {
    if files.is_empty() {
        return Ok(());
    }
    let mut index = repo.index().map_err(failed)?;
    for f in files {
        let rel = cx.services.ws().resolve_entry(f, is_human(cx))?;
        let path = std::path::Path::new(rel.as_str());
        if cx.services.ws().root().exists(&rel) {
            index.add_path(path).map_err(failed)?;
        } else {
            index.remove_path(path).map_err(failed)?;
        }
    }
    index.write().map_err(failed)
}

/// The paths whose index entries differ from HEAD's tree.
fn staged_paths(repo: &Repository) -> Result<Vec<String>, CommandError> {
    let head = repo.head().ok().and_then(|h| h.peel_to_tree().ok());
    let diff = repo
        .diff_tree_to_index(head.as_ref(), None, None)
        .map_err(failed)?;
    Ok(diff
        .deltas()
        .filter_map(|d| {
            d.new_file()
                .path()
                .or_else(|| d.old_file().path())
                .map(|p| p.to_string_lossy().into_owned())
        })
        .collect())
}

impl Command<Services> for GitCommit {
    type Args = GitCommitArgs;
    type Output = Committed;

    fn spec(&self) -> &'static CommandSpec {
        &COMMIT
    }

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
        let repo = open(services).ok()?;
        let mut paths = staged_paths(&repo).ok()?;
        for f in &a.files {
            if !paths.contains(f) {
                paths.push(f.clone());
            }
        }
        paths.sort();
        Some(format!(
            "Commit \"{}\" with {} file(s):\n{}",
            a.message.trim(),
            paths.len(),
            paths.iter().map(|p| format!("  {p}\n")).collect::<String>()
        ))
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: GitCommitArgs) -> Result<Committed, CommandError> {
        let message = a.message.trim();
        if message.is_empty() {
            return Err(empty_message());
        }
        let repo = open(cx.services)?;
        stage(cx, &repo, &a.files)?;
        let files = staged_paths(&repo)?;
        if files.is_empty() {
            return Err(CommandError::new(
                ErrorCode::NothingToCommit,
                "nothing is staged: the commit would change nothing",
            )
            .with_suggestion("pass the changed files in `files`, or check git_status"));
        }
        let sig = repo.signature().map_err(|e| {
            CommandError::new(ErrorCode::GitFailed, format!("no author: {}", e.message()))
                .with_suggestion("set user.name and user.email in the repository's git config")
        })?;
        let mut index = repo.index().map_err(failed)?;
        let tree_id = index.write_tree().map_err(failed)?;
        let tree = repo.find_tree(tree_id).map_err(failed)?;
        let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
        let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
        let oid = repo
            .commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
            .map_err(failed)?;
        Ok(Committed {
            hash: oid.to_string(),
            message: message.to_string(),
            files,
            author: format!(
                "{} <{}>",
                sig.name().unwrap_or(""),
                sig.email().unwrap_or("")
            ),
            timestamp: sig.when().seconds(),
        })
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

static STAGE: CommandSpec = CommandSpec::new(
    "git.stage",
    "Git: Stage",
    "Git",
    "Stage files for the next commit (a deleted file is staged as deleted). Returns what is staged now.",
)
.examples(&[Example {
    description: "Outside a repository",
    args: r#"{"files": ["a.ts"]}"#,
    error: Some("NOT_A_GIT_REPOSITORY"),
    ..Example::EMPTY
}]);

impl Command<Services> for GitStage {
    type Args = FilesArgs;
    type Output = Staged;

    fn spec(&self) -> &'static CommandSpec {
        &STAGE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: FilesArgs) -> Result<Staged, CommandError> {
        let repo = open(cx.services)?;
        stage(cx, &repo, &a.files)?;
        Ok(Staged {
            staged: staged_paths(&repo)?,
        })
    }
}

/// `git.unstage`.
pub struct GitUnstage;

static UNSTAGE: CommandSpec = CommandSpec::new(
    "git.unstage",
    "Git: Unstage",
    "Git",
    "Take files out of the next commit (the index entry goes back to HEAD's; the work tree is not touched). Returns what is staged now.",
)
.examples(&[Example {
    description: "Outside a repository",
    args: r#"{"files": ["a.ts"]}"#,
    error: Some("NOT_A_GIT_REPOSITORY"),
    ..Example::EMPTY
}]);

impl Command<Services> for GitUnstage {
    type Args = FilesArgs;
    type Output = Staged;

    fn spec(&self) -> &'static CommandSpec {
        &UNSTAGE
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: FilesArgs) -> Result<Staged, CommandError> {
        let repo = open(cx.services)?;
        let mut paths = Vec::new();
        for f in &a.files {
            paths.push(cx.services.ws().resolve_entry(f, is_human(cx))?.to_string());
        }
        match repo.head().ok().and_then(|h| h.peel_to_commit().ok()) {
            Some(head) => repo
                .reset_default(Some(head.as_object()), paths.iter())
                .map_err(failed)?,
            None => {
                // Before the first commit there is no HEAD to go back to: drop the entries.
                let mut index = repo.index().map_err(failed)?;
                for p in &paths {
                    index.remove_path(std::path::Path::new(p)).map_err(failed)?;
                }
                index.write().map_err(failed)?;
            }
        }
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

/// One commit.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LogEntry {
    pub hash: String,
    pub author: String,
    /// Seconds since the epoch.
    pub timestamp: i64,
    pub summary: String,
}

/// `git.log`.
pub struct GitLog;

static LOG: CommandSpec = CommandSpec::new(
    "git.log",
    "Git: Log",
    "Git",
    "Commits from HEAD back, newest first: hash, author, time and summary; path keeps those that changed a file.",
)
.read_only()
.idempotent()
.examples(OUTSIDE_REPO);

impl Command<Services> for GitLog {
    type Args = LogArgs;
    type Output = Vec<LogEntry>;

    fn spec(&self) -> &'static CommandSpec {
        &LOG
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: LogArgs) -> Result<Vec<LogEntry>, CommandError> {
        let repo = open(cx.services)?;
        let path = match &a.path {
            Some(p) => Some(cx.services.ws().resolve_entry(p, is_human(cx))?.to_string()),
            None => None,
        };
        let limit = a.limit.unwrap_or(20).clamp(1, 500);
        let mut walk = repo.revwalk().map_err(failed)?;
        if walk.push_head().is_err() {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        for oid in walk {
            let commit = repo.find_commit(oid.map_err(failed)?).map_err(failed)?;
            if let Some(p) = &path {
                let tree = commit.tree().map_err(failed)?;
                let parent = commit.parent(0).ok().and_then(|c| c.tree().ok());
                let mut opts = DiffOptions::new();
                opts.pathspec(p);
                let diff = repo
                    .diff_tree_to_tree(parent.as_ref(), Some(&tree), Some(&mut opts))
                    .map_err(failed)?;
                if diff.deltas().len() == 0 {
                    continue;
                }
            }
            let sig = commit.author();
            out.push(LogEntry {
                hash: commit.id().to_string(),
                author: format!(
                    "{} <{}>",
                    sig.name().unwrap_or(""),
                    sig.email().unwrap_or("")
                ),
                timestamp: sig.when().seconds(),
                summary: commit.summary().ok().flatten().unwrap_or("").to_string(),
            });
            if out.len() >= limit {
                break;
            }
        }
        Ok(out)
    }
}

/// One local branch.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BranchInfo {
    pub name: String,
    pub current: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
}

/// `git.branches`.
pub struct GitBranches;

static BRANCHES: CommandSpec = CommandSpec::new(
    "git.branches",
    "Git: Branches",
    "Git",
    "The local branches, which one is checked out, and each one's upstream.",
)
.read_only()
.idempotent()
.examples(OUTSIDE_REPO);

impl Command<Services> for GitBranches {
    type Args = NoArgs;
    type Output = Vec<BranchInfo>;

    fn spec(&self) -> &'static CommandSpec {
        &BRANCHES
    }

    fn run(&self, cx: &mut Cx<'_, Services>, _: NoArgs) -> Result<Vec<BranchInfo>, CommandError> {
        let repo = open(cx.services)?;
        let mut out = Vec::new();
        for b in repo
            .branches(Some(git2::BranchType::Local))
            .map_err(failed)?
        {
            let (b, _) = b.map_err(failed)?;
            let name = b.name().ok().flatten().unwrap_or("").to_string();
            let upstream = b
                .upstream()
                .ok()
                .and_then(|u| u.name().ok().flatten().map(String::from));
            out.push(BranchInfo {
                current: b.is_head(),
                name,
                upstream,
            });
        }
        Ok(out)
    }
}
