//! The git operations themselves, over libgit2, shared by the `git.*` commands and the
//! shell's `git`. Paths come in already confined (workspace-relative); nothing here runs a
//! program, a hook or a filter.

use std::path::Path;

/// An open repository, as [`open`] returns it.
pub use git2::Repository;

use git2::{DiffFormat, DiffOptions, RepositoryOpenFlags, Status, StatusOptions};
use schemars::JsonSchema;
use serde::Serialize;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_workspace::{RelPath, Root};

/// Most bytes of patch text returned.
const MAX_PATCH: usize = 256 * 1024;

fn failed(e: git2::Error) -> CommandError {
    CommandError::new(ErrorCode::GitFailed, format!("git: {}", e.message()))
}

/// The repository whose work tree is `root` (no search upward: the workspace is the
/// boundary).
pub fn open(root: &Path) -> Result<Repository, CommandError> {
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
    /// `git status --short`'s lines (`XY path`), for the shell.
    #[serde(skip)]
    pub short: String,
}

/// Index and work-tree letters of `git status --short`.
fn short_code(s: Status) -> [char; 2] {
    if s.contains(Status::CONFLICTED) {
        return ['U', 'U'];
    }
    if s.contains(Status::WT_NEW) && !s.intersects(Status::INDEX_NEW) {
        return ['?', '?'];
    }
    let x = if s.contains(Status::INDEX_NEW) {
        'A'
    } else if s.contains(Status::INDEX_MODIFIED) {
        'M'
    } else if s.contains(Status::INDEX_DELETED) {
        'D'
    } else if s.contains(Status::INDEX_RENAMED) {
        'R'
    } else if s.contains(Status::INDEX_TYPECHANGE) {
        'T'
    } else {
        ' '
    };
    let y = if s.contains(Status::WT_MODIFIED) {
        'M'
    } else if s.contains(Status::WT_DELETED) {
        'D'
    } else if s.contains(Status::WT_TYPECHANGE) {
        'T'
    } else if s.contains(Status::WT_RENAMED) {
        'R'
    } else {
        ' '
    };
    [x, y]
}

/// Branch, upstream, ahead/behind and files by state.
pub fn status(repo: &Repository) -> Result<GitStatusOut, CommandError> {
    let detached = repo.head_detached().unwrap_or(false);
    let head = repo.head().ok();
    let branch = match (&head, detached) {
        (Some(h), false) => h.shorthand().unwrap_or("HEAD").to_string(),
        (None, _) => unborn_branch(repo),
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
    // git lists tracked changes first, then untracked files.
    let (mut short, mut short_new) = (String::new(), String::new());
    for e in statuses.iter() {
        let Ok(path) = e.path() else { continue };
        let s = e.status();
        let path = path.to_string();
        let [x, y] = short_code(s);
        let to = if x == '?' { &mut short_new } else { &mut short };
        to.push_str(&format!("{x}{y} {path}\n"));
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
            Status::WT_MODIFIED | Status::WT_DELETED | Status::WT_RENAMED | Status::WT_TYPECHANGE,
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
    short.push_str(&short_new);
    if short.is_empty() {
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
        short,
    })
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

/// The current branch's short name (or `HEAD` when detached).
pub fn branch_name(repo: &Repository) -> String {
    match repo.head() {
        Ok(h) if !repo.head_detached().unwrap_or(false) => {
            h.shorthand().unwrap_or("HEAD").to_string()
        }
        Ok(_) => "HEAD".into(),
        Err(_) => unborn_branch(repo),
    }
}

// ---------------------------------------------------------------- diff

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

/// Unstaged changes (work tree against the index), or staged ones (index against HEAD),
/// limited to `paths` when any are given.
pub fn diff(
    repo: &Repository,
    paths: &[RelPath],
    staged: bool,
) -> Result<GitDiffOut, CommandError> {
    let mut opts = DiffOptions::new();
    for p in paths {
        opts.pathspec(p.as_str());
    }
    let diff = if staged {
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

// ---------------------------------------------------------------- stage / unstage / commit

/// Stage `paths`: a file (a deleted one is staged as deleted), or every change under a
/// directory (the root included), as `git add` does.
pub fn stage(repo: &Repository, root: &Root, paths: &[RelPath]) -> Result<(), CommandError> {
    if paths.is_empty() {
        return Ok(());
    }
    let mut index = repo.index().map_err(failed)?;
    for rel in paths {
        let is_dir = root
            .lstat(rel)
            .is_ok_and(|m| m.kind == ultra_workspace::root::Kind::Dir);
        if is_dir || rel.as_str().is_empty() {
            let spec = if rel.as_str().is_empty() {
                "*".to_string()
            } else {
                format!("{}/*", rel.as_str())
            };
            index
                .add_all([&spec], git2::IndexAddOption::DEFAULT, None)
                .map_err(failed)?;
            index.update_all([&spec], None).map_err(failed)?;
        } else if root.exists(rel) {
            index.add_path(Path::new(rel.as_str())).map_err(failed)?;
        } else {
            index.remove_path(Path::new(rel.as_str())).map_err(failed)?;
        }
    }
    index.write().map_err(failed)
}

/// Stage every change in the work tree (`git add -A`).
pub fn stage_all(repo: &Repository) -> Result<(), CommandError> {
    let mut index = repo.index().map_err(failed)?;
    index
        .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
        .map_err(failed)?;
    index.update_all(["*"], None).map_err(failed)?;
    index.write().map_err(failed)
}

/// Stage the changes of files the index already tracks (`git commit -a`).
pub fn stage_tracked(repo: &Repository) -> Result<(), CommandError> {
    let mut index = repo.index().map_err(failed)?;
    index.update_all(["*"], None).map_err(failed)?;
    index.write().map_err(failed)
}

/// Put the index entries of `paths` back to HEAD's (the work tree is not touched).
pub fn unstage(repo: &Repository, paths: &[RelPath]) -> Result<(), CommandError> {
    let specs: Vec<&str> = paths
        .iter()
        .map(|p| {
            if p.as_str().is_empty() {
                "*"
            } else {
                p.as_str()
            }
        })
        .collect();
    match repo.head().ok().and_then(|h| h.peel_to_commit().ok()) {
        Some(head) => repo
            .reset_default(Some(head.as_object()), specs.iter())
            .map_err(failed),
        None => {
            // Before the first commit there is no HEAD to go back to: drop the entries.
            let mut index = repo.index().map_err(failed)?;
            for p in &specs {
                if *p == "*" {
                    index.clear().map_err(failed)?;
                } else {
                    index.remove_path(Path::new(p)).map_err(failed)?;
                    let _ = index.remove_dir(Path::new(p), 0);
                }
            }
            index.write().map_err(failed)
        }
    }
}

/// The paths whose index entries differ from HEAD's tree.
pub fn staged_paths(repo: &Repository) -> Result<Vec<String>, CommandError> {
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

/// What a person approving a commit sees: the message and the files it would hold (what
/// is staged plus `more`).
pub fn commit_preview(repo: &Repository, message: &str, more: &[String]) -> Option<String> {
    let mut paths = staged_paths(repo).ok()?;
    for f in more {
        if !paths.contains(f) {
            paths.push(f.clone());
        }
    }
    paths.sort();
    Some(format!(
        "Commit \"{}\" with {} file(s):\n{}",
        message.trim(),
        paths.len(),
        paths.iter().map(|p| format!("  {p}\n")).collect::<String>()
    ))
}

/// The tracked files with changes in the work tree (what `commit -a` adds).
pub fn changed_tracked(repo: &Repository) -> Result<Vec<String>, CommandError> {
    let diff = repo.diff_index_to_workdir(None, None).map_err(failed)?;
    Ok(diff
        .deltas()
        .filter_map(|d| {
            d.new_file()
                .path()
                .map(|p| p.to_string_lossy().into_owned())
        })
        .collect())
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

/// The refusal of a commit whose message is empty.
pub fn empty_message() -> CommandError {
    CommandError::new(ErrorCode::InvalidArguments, "the commit message is empty")
        .with_suggestion("say what the change does, e.g. \"fix: handle empty input\"")
}

/// Commit what is staged, with the repository's configured author. An empty message or
/// an empty commit is refused.
pub fn commit(repo: &Repository, message: &str) -> Result<Committed, CommandError> {
    let message = message.trim();
    if message.is_empty() {
        return Err(empty_message());
    }
    let files = staged_paths(repo)?;
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

// ---------------------------------------------------------------- log / branches

/// One commit.
#[derive(Debug, Serialize, JsonSchema)]
pub struct LogEntry {
    pub hash: String,
    pub author: String,
    /// Seconds since the epoch.
    pub timestamp: i64,
    pub summary: String,
}

/// Up to `limit` commits from HEAD back, newest first; with `paths`, only those that
/// changed one of them.
pub fn log(
    repo: &Repository,
    paths: &[RelPath],
    limit: usize,
) -> Result<Vec<LogEntry>, CommandError> {
    let mut walk = repo.revwalk().map_err(failed)?;
    if walk.push_head().is_err() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for oid in walk {
        let commit = repo.find_commit(oid.map_err(failed)?).map_err(failed)?;
        if !paths.is_empty() {
            let tree = commit.tree().map_err(failed)?;
            let parent = commit.parent(0).ok().and_then(|c| c.tree().ok());
            let mut opts = DiffOptions::new();
            for p in paths {
                opts.pathspec(p.as_str());
            }
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

/// One local branch.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BranchInfo {
    pub name: String,
    pub current: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
}

/// The local branches.
pub fn branches(repo: &Repository) -> Result<Vec<BranchInfo>, CommandError> {
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
